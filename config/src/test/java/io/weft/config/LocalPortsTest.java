package io.weft.config;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LocalPortsTest
{
    @Test
    void portsAreDistinctFreeAndBelowTheEphemeralRange() throws Exception
    {
        final int ephemeral;
        try (var reader = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range")))
        {
            ephemeral = Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
        }
        final List<Integer> ports = LocalPorts.free(12);
        assertEquals(12, new HashSet<>(ports).size(), "distinct: " + ports);
        for (final int port : ports)
        {
            assertTrue(port < ephemeral, port + " is in the ephemeral range from " + ephemeral);
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress()))
            {
                assertEquals(port, s.getLocalPort());
            }
        }
    }
}
