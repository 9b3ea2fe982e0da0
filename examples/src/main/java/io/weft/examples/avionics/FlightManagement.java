package io.weft.examples.avionics;

import io.weft.dds.DataWriter;
import io.weft.dds.DomainParticipant;

import java.util.ArrayList;
import java.util.List;

/**
 * The flight-management system (member 0): flies a route, publishing its position at 100 Hz (unordered) and a
 * flight-plan change (atomic multicast) every 2 s as each waypoint is passed, and at once on {@code divert}.
 */
final class FlightManagement implements Role
{
    private static final List<String> ROUTE = List.of("SEA", "OLM", "BTG", "EUG", "OED", "RBL", "SAC", "SFO", "SJC",
        "SNS", "PRB", "LAX");
    private static final double HERTZ = 100;

    private final Publisher positions = new Publisher("fms-position", HERTZ, this::tickPosition);
    private final Publisher plans = new Publisher("fms-plan", 0.5, () -> change("waypoint passed"));
    private final Position position = Position.forWriting();
    private DataWriter<Position> positionWriter;
    private DataWriter<FlightPlanChange> planWriter;
    private DomainParticipant participant;
    private long positionCount;
    private long planCount;
    private int nextWaypoint = 1;

    @Override
    public void attach(final DomainParticipant participant)
    {
        this.participant = participant;
        positionWriter = participant.createWriter(Avionics.position(participant));
        planWriter = participant.createWriter(Avionics.flightPlan(participant));
    }

    @Override
    public void start()
    {
        change("initial plan");
        positions.start();
        plans.start();
    }

    private void tickPosition()
    {
        final double t = positionCount / HERTZ;
        final double climb = Math.min(1.0, t / 20);
        position.set(positionCount, 47.45 - t * 0.004, -122.31 + Math.sin(t / 30) * 0.05, 500 + climb * 34_500,
            (180 + 10 * Math.sin(t / 15) + 360) % 360);
        positionWriter.write(position);
        positionCount++;
    }

    /** Writes the next flight-plan change (from the plan thread or the command thread, one at a time). */
    private synchronized void change(final String reason)
    {
        final List<String> route = new ArrayList<>(ROUTE.subList(nextWaypoint % ROUTE.size(), ROUTE.size()));
        if (reason.startsWith("divert"))
        {
            route.addFirst("HOLD-" + planCount);
        }
        else
        {
            nextWaypoint++;
        }
        final long viewBefore = participant.group().view().id();
        planWriter.write(new FlightPlanChange(planCount, route, reason));
        System.out.printf("PLAN-WRITTEN %d view %d..%d %s%n", planCount, viewBefore, participant.group().view().id(),
            reason);
        planCount++;
    }

    @Override
    public boolean command(final String[] words)
    {
        switch (words[0])
        {
            case "divert" -> change("divert: " + String.join(" ", List.of(words).subList(1, words.length)));
            case "end" ->
            {
                try
                {
                    stop();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return true;
                }
                System.out.printf("WRITTEN plans=%d positions=%d%n", planCount, positionCount);
            }
            default ->
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public void stop() throws InterruptedException
    {
        positions.stop();
        plans.stop();
    }
}
