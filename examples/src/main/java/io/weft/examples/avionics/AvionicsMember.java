package io.weft.examples.avionics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.weft.config.WeftConfig;
import io.weft.dds.DomainParticipant;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One member process of the avionics demo: its role's readers and writers on the domain, optionally the dashboard,
 * and the demo's commands read from standard input, one per line ({@code exit} ends the member: it finishes with
 * the others and leaves). Prints {@code READY}, {@code VIEW} for every view, and what its role prints.
 */
public final class AvionicsMember
{
    private final WeftConfig config;
    private final boolean join;
    private final int dashboardPort;
    private final long startNanos = System.nanoTime();

    /**
     * @param dashboardPort serve the dashboard on this loopback port (0: any free port), or not at all if negative.
     */
    public AvionicsMember(final WeftConfig config, final boolean join, final int dashboardPort)
    {
        this.config = config;
        this.join = join;
        this.dashboardPort = dashboardPort;
    }

    public int run() throws Exception
    {
        final int me = config.memberId();
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        final Timeline timeline = new Timeline(startNanos, registry);
        final Role role = switch (me)
        {
            case Avionics.FLIGHT_MANAGEMENT -> new FlightManagement();
            case Avionics.DISPLAY_1, Avionics.DISPLAY_2 -> new Display(me, timeline);
            case Avionics.ENGINE_MONITOR -> new EngineMonitor();
            default -> new FlightRecorder(registry, timeline);
        };
        try (DomainParticipant participant = DomainParticipant.builder(config).meterRegistry(registry)
            .group(g -> g.onView(view ->
            {
                final String measured = timeline.view(view);
                System.out.printf("VIEW %d members %s joined %s failed %s left %s%s%n", view.id(), view.members(),
                    view.joined(), view.failed(), view.left(), measured);
            })).create())
        {
            role.attach(participant); // readers before enable: they get every sample (and a joiner the history)
            participant.enable(join);
            System.out.printf("READY %s in view %d%n", Avionics.role(me), participant.group().view().id());
            role.start();
            try (Dashboard dashboard = dashboardPort < 0 ? null : dashboard(registry, timeline))
            {
                final int code = obey(role);
                role.stop();
                final boolean all = participant.finish(Duration.ofSeconds(20));
                System.out.printf("EXIT %s%s%n", Avionics.role(me), all ? "" : " (not every member finished in time)");
                return code;
            }
        }
        finally
        {
            role.stop();
        }
    }

    private Dashboard dashboard(final PrometheusMeterRegistry registry, final Timeline timeline) throws Exception
    {
        final DashboardModel model = new DashboardModel(config, registry, timeline, startNanos);
        final Dashboard dashboard = Dashboard.start(dashboardPort, model, registry);
        Thread.ofPlatform().daemon(true).name("dashboard-sampler").start(() ->
        {
            while (true)
            {
                model.sample();
                try
                {
                    TimeUnit.SECONDS.sleep(1); // the page's resolution: one point a second
                }
                catch (final InterruptedException ex)
                {
                    return;
                }
            }
        });
        System.out.printf("DASHBOARD http://127.0.0.1:%d/%n", dashboard.port());
        return dashboard;
    }

    /** Reads commands until {@code exit}; standard input closed (the demo is gone) ends the member too. */
    private static int obey(final Role role) throws Exception
    {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null)
        {
            final String[] words = line.trim().split("\\s+");
            if ("exit".equals(words[0]))
            {
                return 0;
            }
            if (!words[0].isEmpty() && !role.command(words))
            {
                System.out.println("UNKNOWN-COMMAND " + line.trim());
            }
        }
        System.out.println("standard input closed: ending");
        return 1;
    }
}
