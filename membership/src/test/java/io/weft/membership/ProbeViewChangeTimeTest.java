package io.weft.membership;

import io.weft.config.DeliveryMode;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

@Timeout(300)
class ProbeViewChangeTimeTest
{
    @Test
    void probe() throws Exception
    {
        for (final TransportKind kind : new TransportKind[] {TransportKind.TCP, TransportKind.SHM})
        {
            final List<Long> times = new ArrayList<>();
            for (int run = 0; run < 8; run++)
            {
                final WeftConfig config = TestGroups.builder(kind, 3)
                    .subgroups(List.of(new SubgroupConfig("g", List.of(), List.of(), 8, 100, DeliveryMode.ORDERED))).build();
                try (Members ignored = new Members(config))
                {
                    final long[] installed = new long[3];
                    final List<CompletableFuture<Group>> opening = new ArrayList<>();
                    for (int m = 0; m < 3; m++)
                    {
                        final int id = m;
                        opening.add(io.weft.testkit.Async.open(() -> Group.builder(config.forMember(id)).onDelivery("g", x -> { })
                            .onView(v -> { if (v.id() == 1) installed[id] = System.nanoTime(); }).open()));
                    }
                    final List<Group> groups = new ArrayList<>();
                    for (final CompletableFuture<Group> f : opening)
                    {
                        groups.add(f.get(30, TimeUnit.SECONDS));
                    }
                    for (int i = 0; i < 2000; i++)
                    {
                        groups.get(0).subgroup("g").send(new byte[10], java.time.Duration.ofSeconds(1));
                    }
                    Thread.sleep(300);
                    final long t0 = System.nanoTime();
                    groups.get(2).close();
                    final long deadline = t0 + TimeUnit.SECONDS.toNanos(20);
                    while ((installed[0] == 0 || installed[1] == 0) && System.nanoTime() < deadline)
                    {
                        Thread.sleep(1);
                    }
                    final long t = (Math.max(installed[0], installed[1]) - t0) / 1_000_000;
                    times.add(t);
                    System.out.println("PROBE " + kind + " run " + run + ": close to install at both " + t + " ms (0: " + (installed[0] - t0) / 1_000_000 + ", 1: " + (installed[1] - t0) / 1_000_000 + ")");
                    groups.get(0).close();
                    groups.get(1).close();
                }
            }
            times.sort(null);
            System.out.println("PROBE " + kind + " median " + times.get(times.size() / 2) + " all " + times);
        }
    }
}
