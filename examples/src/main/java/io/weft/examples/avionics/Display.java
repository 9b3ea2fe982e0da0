package io.weft.examples.avionics;

import io.weft.dds.DomainParticipant;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A cockpit display (members 1 and 2): shows the latest position, the flight plan and the engines once a second.
 * Prints every flight-plan change it applies ({@code PLAN position sequence}) and, on its first live engine
 * reading, how many readings per engine it received from the volatile history ({@code ENGINE-HISTORY}).
 */
final class Display implements Role
{
    private final int me;
    private final Timeline timeline;
    private final Publisher status = new Publisher("display-status", 1, this::status);
    private final double[] n1 = new double[Avionics.ENGINES];
    private final int[] fromHistory = new int[Avionics.ENGINES];
    private volatile String position = "no position yet";
    private volatile FlightPlanChange plan;
    private long plansApplied;
    private long firstPlan = -1;
    private boolean liveEngine;

    Display(final int me, final Timeline timeline)
    {
        this.me = me;
        this.timeline = timeline;
    }

    @Override
    public void attach(final DomainParticipant participant)
    {
        participant.createReader(Avionics.position(participant), (p, info) -> position = String.format(
            "#%d %.3f %.3f %,.0f ft hdg %03.0f", p.sequence(), p.latitude(), p.longitude(), p.altitudeFeet(),
            p.heading()));
        participant.createReader(Avionics.flightPlan(participant),
            (change, info) ->
            {
                System.out.printf("PLAN %d %d in view %d%n", info.position(), change.sequence(),
                    timeline.current().id());
                synchronized (this)
                {
                    plan = change;
                    firstPlan = firstPlan < 0 ? change.sequence() : firstPlan;
                    plansApplied++;
                    notifyAll();
                }
            });
        participant.createReader(Avionics.engine(participant),
            (e, info) ->
            {
                synchronized (n1)
                {
                    if (info.stored())
                    {
                        fromHistory[e.engine()]++;
                    }
                    else if (!liveEngine)
                    {
                        liveEngine = true;
                        System.out.println("ENGINE-HISTORY " + Arrays.stream(fromHistory).mapToObj(String::valueOf)
                            .collect(Collectors.joining(",")));
                    }
                    n1[e.engine()] = e.n1Percent();
                }
            });
    }

    @Override
    public void start()
    {
        status.start();
    }

    private void status()
    {
        final FlightPlanChange p = plan;
        final String engines;
        synchronized (n1)
        {
            engines = Arrays.stream(n1).mapToObj(v -> String.format("%.1f", v)).collect(Collectors.joining(" "));
        }
        System.out.printf("display-%d: view %d | %s | %s | N1 %s%n", me, timeline.current().id(), position,
            p == null ? "no plan yet" : "plan #" + p.sequence() + " " + String.join(" ", p.route().subList(0,
                Math.min(3, p.route().size()))), engines);
    }

    /** {@code expect N}: waits (up to 30 s) until the display applied flight-plan change N-1, then summarises. */
    @Override
    public boolean command(final String[] words) throws InterruptedException
    {
        if (!"expect".equals(words[0]) || words.length != 2)
        {
            return false;
        }
        final long last = Long.parseLong(words[1]) - 1;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        synchronized (this)
        {
            while ((plan == null || plan.sequence() < last) && System.nanoTime() < deadline)
            {
                TimeUnit.NANOSECONDS.timedWait(this, deadline - System.nanoTime());
            }
            System.out.printf("DISPLAY-DONE applied=%d first=%d last=%d%n", plansApplied, firstPlan,
                plan == null ? -1 : plan.sequence());
        }
        return true;
    }

    @Override
    public void stop() throws InterruptedException
    {
        status.stop();
    }
}
