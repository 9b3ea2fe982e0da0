package io.weft.smc;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A subgroup's meters are registered once, tagged with their member, and count over every view, not only the first;
 * they leave the registry when their subgroup is removed or the group closes, and a closed group registers no more.
 */
@Timeout(10)
class SmcTotalsTest
{
    @Test
    void countsOfEveryViewAddUp()
    {
        final MeterRegistry registry = new SimpleMeterRegistry();
        final SmcTotals totals = new SmcTotals(registry, Tags.of("member", "0"));
        final SmcMeters first = totals.next("s");
        first.delivered(5);
        first.nulls(2);
        first.latency(5, 5_000);
        final SmcMeters second = totals.next("s"); // the next view starts before the first one closes
        first.delivered(1); // the old view's last pass, after the switch: not counted (its totals were taken)
        second.delivered(3);
        second.delivered(4);
        totals.next("other").delivered(7);

        assertEquals(12, count(registry, "weft.smc.delivered", "s"));
        assertEquals(3, count(registry, "weft.smc.batch.delivery.batches", "s"));
        assertEquals(12, count(registry, "weft.smc.batch.delivery.messages", "s"));
        assertEquals(5, registry.get("weft.smc.batch.delivery.max").tag("subgroup", "s").gauge().value());
        assertEquals(2, count(registry, "weft.smc.nulls", "s"));
        assertEquals(5, registry.get("weft.smc.latency").tag("subgroup", "s").functionTimer().count());
        assertEquals(7, count(registry, "weft.smc.delivered", "other"));
        assertEquals(1, registry.find("weft.smc.delivered").tag("subgroup", "s").meters().size());
        assertEquals("0", registry.get("weft.smc.delivered").tag("subgroup", "s").meter().getId().getTag("member"));

        final SmcTotals otherMember = new SmcTotals(registry, Tags.of("member", "1"));
        otherMember.next("s").delivered(2);
        totals.close(); // the group closed: its meters go, another member's in the same registry stay
        assertEquals(List.of(2.0), registry.getMeters().stream()
            .filter(m -> m.getId().getName().equals("weft.smc.delivered")).map(m -> ((FunctionCounter)m).count())
            .toList());
    }

    @Test
    void aRemovedSubgroupsMetersLeaveAndAClosedGroupRegistersNoMore()
    {
        final MeterRegistry registry = new SimpleMeterRegistry();
        final SmcTotals totals = new SmcTotals(registry, Tags.of("member", "0"));
        totals.next("s").delivered(5);
        totals.next("kept").delivered(1);
        totals.remove("s"); // removed at run time, after its last delivery
        assertEquals(List.of("kept"), subgroupsMetered(registry));
        totals.next("s").delivered(2); // added again under the name: counts from zero
        assertEquals(2, count(registry, "weft.smc.delivered", "s"));

        totals.close();
        totals.next("late").delivered(3); // a view opening while the group closes
        assertEquals(List.of(), subgroupsMetered(registry));
    }

    private static List<String> subgroupsMetered(final MeterRegistry registry)
    {
        return registry.getMeters().stream().map(m -> m.getId().getTag("subgroup")).distinct().sorted().toList();
    }

    private static double count(final MeterRegistry registry, final String name, final String subgroup)
    {
        return registry.get(name).tag("subgroup", subgroup).functionCounter().count();
    }
}
