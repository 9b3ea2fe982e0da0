package io.weft.tools.avionics;

import io.weft.config.ConfigLoader;
import io.weft.config.ConfigWriter;
import io.weft.config.LocalPorts;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.examples.avionics.Avionics;
import io.weft.testkit.MemberProcesses;
import io.weft.tools.LauncherEnd;
import io.weft.tools.Weft;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code weft avionics}: the avionics DDS demo. Five member processes on loopback, one topic per QoS level, a
 * scripted flight (a display killed and restarted, a display joining late, flight-plan changes during both view
 * changes), the dashboard served by the recorder, the recorder's log replayed with {@code weft log}, and checks
 * that every display saw the same flight-plan sequence and the recorder lost nothing.
 */
@Command(name = "avionics", description = "The avionics DDS demo: a flight-management system, two cockpit displays, " +
    "an engine monitor and a flight recorder fly a scripted scenario (a crash, a late joiner) with a live dashboard; " +
    "exits 0 when every check passed.")
public final class AvionicsCommand implements Callable<Integer>
{
    @Option(names = "--transport", defaultValue = "tcp", description = "tcp or shm (default ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--phase", defaultValue = "4s", description = "Steady flight between the scenario's events " +
        "(default ${DEFAULT-VALUE}).")
    Duration phase;

    @Option(names = "--hold", defaultValue = "0s", description = "Fly on this long before the end, with the " +
        "dashboard up (default ${DEFAULT-VALUE}).")
    Duration hold;

    @Option(names = "--dashboard-port", defaultValue = "0", description = "The dashboard's loopback port (default: " +
        "a free one, printed).")
    int dashboardPort;

    @Option(names = "--dir", description = "Keep the configuration and logs here (default: a temporary directory, " +
        "removed at the end).")
    Path dir;

    @Override
    public Integer call() throws Exception
    {
        final TransportKind kind = TransportKind.parse("--transport", transport);
        final String problem = kind == TransportKind.RDMA ? "--transport rdma: the demo runs on tcp or shm" :
            phase.isNegative() || phase.isZero() ? "--phase must be positive, was " + phase :
            hold.isNegative() ? "--hold must be 0 or more, was " + hold :
            dashboardPort < 0 || dashboardPort > 65535 ? "--dashboard-port must be in 0..65535, was " + dashboardPort :
            null;
        if (problem != null)
        {
            return Weft.refuse(problem);
        }
        final Path home = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("weft-avionics");
        final WeftConfig config = Avionics.config(kind, LocalPorts.free(2 * Avionics.MEMBERS), home.resolve("logs"));
        final Path file = Files.writeString(home.resolve("avionics.conf"), ConfigWriter.render(config));
        ConfigLoader.load(file); // what each member will read
        System.out.printf("avionics: 5 members on %s, configuration %s%n", transport, file);
        try (MemberProcesses processes = new MemberProcesses(System.out);
            LauncherEnd ignored = new LauncherEnd(processes, dir == null ? home : null))
        {
            return new AvionicsScenario(processes, file, phase, hold, dashboardPort).run() ? 0 : 1;
        }
    }
}
