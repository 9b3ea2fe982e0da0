package io.weft.testkit;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two network namespaces joined by a veth pair, made by a test or by chaos and removed by {@link #close()} (also on
 * failure). The subnet gets a blackhole route in the root namespace first, so that nothing addressed to it can ever
 * leave this host, whatever happens inside. {@link #cut()} partitions the two sides, {@link #heal()} joins them again.
 */
public final class Namespaces implements AutoCloseable
{
    private static final int SUBNETS = 250;

    public final String a;
    public final String b;
    public final String subnet;
    public final String addressA;
    public final String addressB;
    private final String tag;
    private final List<List<String>> undo = new ArrayList<>();

    /**
     * Makes a pair on the first free subnet 10.213.x.0/24, starting from one derived from this process's id. The
     * blackhole route is the claim: adding it fails if another run (a concurrent test run on the same host, or one
     * killed before it cleaned up) holds the subnet, and the names derive from the subnet, so they are free too.
     */
    public static Namespaces claim(final String prefix) throws IOException, InterruptedException
    {
        final int start = (int)(ProcessHandle.current().pid() % SUBNETS);
        for (int i = 0; i < SUBNETS; i++)
        {
            final int octet = 1 + (start + i) % SUBNETS;
            if (tryRun("ip", "route", "add", "blackhole", "10.213." + octet + ".0/24"))
            {
                return new Namespaces(prefix + octet, octet);
            }
        }
        throw new IOException("no free subnet 10.213.x.0/24 for network namespaces: every one of " + SUBNETS +
            " has a route in the root namespace (stale ones: ip route | grep 10.213)");
    }

    /** The subnet's blackhole route is already in place (added by {@link #claim}). */
    private Namespaces(final String tag, final int octet) throws IOException, InterruptedException
    {
        this.tag = tag;
        a = "weft" + tag + "a";
        b = "weft" + tag + "b";
        subnet = "10.213." + octet + ".0/24";
        addressA = "10.213." + octet + ".1";
        addressB = "10.213." + octet + ".2";
        try
        {
            undo.add(List.of("ip", "route", "del", "blackhole", subnet));
            run("ip", "netns", "add", a);
            undo.add(List.of("ip", "netns", "del", a));
            run("ip", "netns", "add", b);
            undo.add(List.of("ip", "netns", "del", b));
            run("ip", "link", "add", "v" + tag + "a", "netns", a, "type", "veth", "peer", "name", "v" + tag + "b",
                "netns", b);
            run("ip", "-n", a, "addr", "add", addressA + "/24", "dev", "v" + tag + "a");
            run("ip", "-n", b, "addr", "add", addressB + "/24", "dev", "v" + tag + "b");
            for (final String ns : List.of(a, b))
            {
                run("ip", "-n", ns, "link", "set", "lo", "up");
            }
            run("ip", "-n", a, "link", "set", "v" + tag + "a", "up");
            run("ip", "-n", b, "link", "set", "v" + tag + "b", "up");
        }
        catch (final IOException | InterruptedException | RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /** Skips the calling test, saying why, where this process may not make namespaces. */
    public static void assumeAvailable()
    {
        final String why = unavailable();
        Assumptions.assumeTrue(why == null, () -> "skipped: " + why);
    }

    /** Why this process may not make namespaces (it needs root and the ip tool), or null when it may. */
    public static String unavailable()
    {
        final String notRoot = notRoot("network namespaces");
        if (notRoot != null)
        {
            return notRoot;
        }
        try
        {
            final Process ip = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
            ip.getInputStream().readAllBytes();
            return ip.waitFor() == 0 ? null : "the ip tool cannot list network namespaces";
        }
        catch (final IOException | InterruptedException ex)
        {
            return "cannot run ip: " + ex.getMessage();
        }
    }

    /** Why this process may not do {@code what} (it is not root), or null when it may. */
    static String notRoot(final String what)
    {
        try
        {
            final Process p = new ProcessBuilder("id", "-u").start();
            final String uid = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return "0".equals(uid) ? null : what + " need root (uid is " + uid + ")";
        }
        catch (final IOException ex)
        {
            return "cannot run id: " + ex.getMessage();
        }
    }

    public List<String> exec(final String ns)
    {
        return List.of("ip", "netns", "exec", ns);
    }

    /** Cuts the link between the namespaces: packets are dropped, connections stay open and go silent. */
    public void cut() throws IOException, InterruptedException
    {
        run("ip", "-n", a, "link", "set", "v" + tag + "a", "down");
    }

    /** Joins the two sides again after {@link #cut()}. */
    public void heal() throws IOException, InterruptedException
    {
        run("ip", "-n", a, "link", "set", "v" + tag + "a", "up");
    }

    private static boolean tryRun(final String... command) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    public static void run(final String... command) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
    }

    @Override
    public void close()
    {
        for (int i = undo.size() - 1; i >= 0; i--)
        {
            try
            {
                run(undo.get(i).toArray(String[]::new));
            }
            catch (final IOException | InterruptedException ex)
            {
                System.err.println("cleanup: " + ex.getMessage());
            }
        }
        undo.clear();
    }
}
