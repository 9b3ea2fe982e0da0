package io.weft.tools;

import io.weft.config.FailureConfig;
import io.weft.config.MembershipConfig;
import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.TestGroups;
import io.weft.testkit.VsCheck;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A group of vs-member processes for one test: start, kill, command, wait for views, then check the logs. */
final class VsRun implements AutoCloseable
{
    static final String SECRET = "weft-test-secret-0123456789";
    /** A member's delivered count: its progress lines, or the state a joiner installed. */
    private static final Pattern DELIVERED_COUNT =
        Pattern.compile(VsMember.PROGRESS_LINE.pattern() + "|STATE installed delivered=(\\d+)");

    final WeftConfig config;
    final Path dir;
    final Path file;
    private final RunMembers members;
    private final Map<Integer, MemberProcess> live;
    private final List<MemberProcess> ended = new ArrayList<>();

    VsRun(final TransportKind kind, final int addressBook, final List<Integer> initialView, final Path dir)
    {
        this(kind, TestGroups.config(kind, addressBook).transport().rdma(), addressBook, initialView, dir);
    }

    /** A group whose members may add subgroups at run time ({@code weft.membership.runtime-subgroups}). */
    VsRun(final TransportKind kind, final int addressBook, final Path dir, final boolean runtimeSubgroups)
    {
        this(kind, TestGroups.config(kind, addressBook).transport().rdma(), addressBook, List.of(), dir,
            SubgroupConfig.allMembers("all", 100, 64), TestGroups.config(kind, addressBook).failure(), runtimeSubgroups,
            null);
    }

    VsRun(final TransportKind kind, final io.weft.config.RdmaOptions rdma, final int addressBook,
        final List<Integer> initialView, final Path dir)
    {
        this(kind, rdma, addressBook, initialView, dir, SubgroupConfig.allMembers("all", 100, 64),
            TestGroups.config(kind, addressBook).failure());
    }

    /** A group of {@code addressBook} ids with one subgroup and the given failure detection. */
    VsRun(final TransportKind kind, final io.weft.config.RdmaOptions rdma, final int addressBook,
        final List<Integer> initialView, final Path dir, final SubgroupConfig subgroup, final FailureConfig failure)
    {
        this(kind, rdma, addressBook, initialView, dir, subgroup, failure, false, null);
    }

    /** A group of view 0 with the given multicast switches ({@code weft.smc}). */
    VsRun(final TransportKind kind, final int addressBook, final Path dir, final SmcConfig smc)
    {
        this(kind, TestGroups.config(kind, addressBook).transport().rdma(), addressBook, List.of(), dir,
            SubgroupConfig.allMembers("all", 100, 64), TestGroups.config(kind, addressBook).failure(), false, smc);
    }

    private VsRun(final TransportKind kind, final io.weft.config.RdmaOptions rdma, final int addressBook,
        final List<Integer> initialView, final Path dir, final SubgroupConfig subgroup, final FailureConfig failure,
        final boolean runtimeSubgroups, final SmcConfig smc)
    {
        final io.weft.config.WeftConfig.Builder b = TestGroups.builder(kind, addressBook).rdma(rdma)
            .subgroups(List.of(subgroup)).failure(failure)
            .membership(new MembershipConfig(initialView, SECRET, ViewChangeSends.WAIT, Duration.ofSeconds(60),
                runtimeSubgroups));
        this.config = (smc == null ? b : b.smc(smc)).build(); // null: the reference configuration's switches
        this.dir = dir;
        this.members = new RunMembers(config, dir);
        this.file = members.file;
        this.live = members.live;
    }

    MemberProcess start(final int id, final boolean join, final String... extra)
    {
        return members.start("vs-member", id, join, List.of("--rate", "400", "--timeout", "PT4M"), extra);
    }

    /** Starts members {@code 0..count-1} of view 0 (with {@code extra} arguments) and waits until each is ready. */
    void startReady(final int count, final String... extra) throws Exception
    {
        for (int id = 0; id < count; id++)
        {
            start(id, false, extra);
        }
        for (int id = 0; id < count; id++)
        {
            awaitReady(id);
        }
    }

    MemberProcess process(final int id)
    {
        return live.get(id);
    }

    void awaitReady(final int id) throws Exception
    {
        live.get(id).awaitOutput("member " + id + ": READY", Duration.ofSeconds(90));
    }

    /** kill -9; returns the wall-clock time of the kill. */
    long kill(final int id)
    {
        final long at = System.currentTimeMillis();
        live.remove(id).kill();
        return at;
    }

    /** SIGTERM (the JVM runs its shutdown hooks) and a wait for the exit; returns the member's output. */
    String terminate(final int id) throws Exception
    {
        final MemberProcess p = live.remove(id);
        p.signal("TERM");
        p.awaitExit(Duration.ofSeconds(90));
        ended.add(p);
        return p.output();
    }

    /** Waits for a member that ends by itself (a test hook) to exit; returns its exit code. */
    int awaitDeath(final int id, final Duration timeout)
    {
        final MemberProcess p = live.remove(id);
        return p.awaitExit(timeout);
    }

    /** Waits until member {@code id} installed a view of exactly {@code members} (for example "[1, 2, 4]"). */
    void awaitMembers(final int id, final String members, final Duration timeout) throws Exception
    {
        try
        {
            live.get(id).awaitOutput(output -> hasView(output, members), timeout, "a view of " + members);
        }
        catch (final AssertionError ex)
        {
            throw withOthers(id, ex);
        }
    }

    /** A member's failure with the other live members' outputs: why a view never came may show in any of them. */
    private AssertionError withOthers(final int id, final AssertionError ex)
    {
        final StringBuilder all = new StringBuilder(ex.getMessage());
        live.forEach((other, p) ->
        {
            if (other != id)
            {
                all.append("\n\noutput of member ").append(other).append(":\n").append(p.output());
            }
        });
        final AssertionError more = new AssertionError(all.toString(), ex.getCause());
        more.setStackTrace(ex.getStackTrace());
        return more;
    }

    /**
     * Waits until each of {@code ids} delivered {@code more} messages past the last progress line it printed before
     * the call (lines come every {@link VsMember#PROGRESS_EVERY}): traffic flows, where a test would sleep and hope.
     */
    void awaitDeliveries(final List<Integer> ids, final long more, final Duration timeout) throws Exception
    {
        final Map<Integer, Long> from = new HashMap<>();
        ids.forEach(id -> from.put(id, delivered(live.get(id).output())));
        for (final int id : ids)
        {
            final long target = from.get(id) + more;
            live.get(id).awaitOutput(output -> delivered(output) >= target, timeout,
                more + " more deliveries (from " + from.get(id) + ")");
        }
    }

    /** The last delivered count a member printed: a progress line, or a joiner's installed state; else 0. */
    private static long delivered(final String output)
    {
        final Matcher m = DELIVERED_COUNT.matcher(output);
        long last = 0;
        while (m.find())
        {
            last = Long.parseLong(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return last;
    }

    private static boolean hasView(final String output, final String members)
    {
        final Matcher m = VsMember.VIEW_LINE.matcher(output);
        while (m.find())
        {
            if (("[" + m.group(3) + "]").equals(members))
            {
                return true;
            }
        }
        return false;
    }

    /** Waits until member {@code id} installed view {@code view}; returns when (its wall clock) and the members. */
    Map.Entry<Long, String> awaitView(final int id, final long view, final Duration timeout) throws Exception
    {
        final MemberProcess p = live.get(id);
        p.awaitOutput("member " + id + ": VIEW " + view + " ", timeout);
        final Matcher m = VsMember.VIEW_LINE.matcher(p.output());
        while (m.find())
        {
            if (Long.parseLong(m.group(2)) == view)
            {
                return Map.entry(Long.parseLong(m.group(4)), "[" + m.group(3) + "]");
            }
        }
        throw new AssertionError("no VIEW " + view + " line:\n" + p.output());
    }

    /** Tells a member to stop sending and then end (with everyone else told the same) or leave. */
    void command(final int id, final String command) throws IOException
    {
        members.command(id, command);
    }

    /** Waits for a member's exit with code 0 after a command; it no longer counts as live. */
    String awaitExit(final int id) throws Exception
    {
        final MemberProcess p = live.remove(id);
        final int code = p.awaitExit(Duration.ofSeconds(90));
        assertEquals(0, code, p.name() + " exited " + code + ":\n" + p.output());
        ended.add(p);
        return p.output();
    }

    /** Ends every live member together and checks: logs, no loss, and the same final state everywhere. */
    void endAndCheck() throws Exception
    {
        final List<Integer> ids = new ArrayList<>(live.keySet());
        for (final int id : ids)
        {
            command(id, "end");
        }
        final List<String> outputs = new ArrayList<>();
        for (final int id : ids)
        {
            outputs.add(awaitExit(id));
        }
        String state = null;
        final Map<String, Long> sent = new HashMap<>();
        for (final MemberProcess p : ended)
        {
            final Matcher s = VsMember.SENT_LINE.matcher(p.output());
            while (s.find())
            {
                sent.put(s.group(1) + "/" + s.group(2), Long.parseLong(s.group(3)));
            }
        }
        for (final String out : outputs)
        {
            final Matcher f = VsMember.FINAL_LINE.matcher(out);
            assertTrue(f.find(), out);
            final String mine = f.group(1) + " " + f.group(2);
            if (state == null)
            {
                state = mine;
            }
            assertEquals(state, mine, "members ended with different states (delivered count, hash chain):\n" + outputs);
        }
        final List<VsCheck.Log> logs = VsCheck.read(dir);
        final List<String> violations = new ArrayList<>(VsCheck.check(logs));
        final List<VsCheck.Log> survivors = logs.stream()
            .filter(l -> outputs.stream().anyMatch(o -> o.contains("SENT-OK incarnation=" + l.pid() + " "))).toList();
        violations.addAll(VsCheck.checkNoLoss(survivors, sent));
        assertTrue(violations.isEmpty(), "virtual synchrony violated:\n" + String.join("\n", violations));
        assertTrue(sent.values().stream().mapToLong(Long::longValue).sum() > 0, "nothing was sent: " + sent);
    }

    @Override
    public void close() throws IOException
    {
        members.close();
    }
}
