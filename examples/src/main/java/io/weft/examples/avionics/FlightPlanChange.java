package io.weft.examples.avionics;

import java.util.List;

/**
 * A flight-plan change (topic {@code flight-plan}, atomic multicast, JSON): every display must apply the same
 * changes in the same order.
 *
 * @param sequence changes before this one (the flight-management system numbers them from 0).
 * @param route the waypoints still to fly after the change.
 * @param reason why the plan changed.
 */
public record FlightPlanChange(long sequence, List<String> route, String reason)
{
    @Override
    public String toString()
    {
        return "flight-plan #" + sequence + " " + String.join(" ", route) + " (" + reason + ")";
    }
}
