package io.weft.config;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports for members of a group on this host (demos, chaos, tests), chosen below the kernel's ephemeral range.
 * A member binds its sst-port again for every view; a port from the ephemeral range may meanwhile become the source
 * port of some outgoing connection on the host, and the member could not open its next view.
 */
public final class LocalPorts
{
    private static final Path EPHEMERAL = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 10_000;

    private LocalPorts()
    {
    }

    /** {@code count} ports free on 127.0.0.1 now, outside the ephemeral range (from it only if none are left). */
    public static List<Integer> free(final int count)
    {
        final int end = ephemeralStart();
        final List<Integer> ports = new ArrayList<>();
        if (end - LOWEST > 4 * count)
        {
            final int span = end - LOWEST;
            final int start = ThreadLocalRandom.current().nextInt(span); // concurrent runs start apart
            for (int i = 0; i < span && ports.size() < count; i++)
            {
                final int port = LOWEST + (start + i) % span;
                if (bindable(port))
                {
                    ports.add(port);
                }
            }
        }
        while (ports.size() < count)
        {
            ports.add(anyFree());
        }
        return ports;
    }

    private static int ephemeralStart()
    {
        // not Files.readString: it reads a proc file's reported size (0) and JDK 25 returned only its first byte
        try (var reader = Files.newBufferedReader(EPHEMERAL))
        {
            return Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
        }
        catch (final IOException | RuntimeException ex)
        {
            return 32_768; // Linux's default when the range cannot be read
        }
    }

    private static boolean bindable(final int port)
    {
        try (ServerSocket ignored = new ServerSocket(port, 1, InetAddress.getLoopbackAddress()))
        {
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static int anyFree()
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException("no free port on 127.0.0.1", ex);
        }
    }
}
