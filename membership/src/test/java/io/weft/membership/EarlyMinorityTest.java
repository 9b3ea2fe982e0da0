package io.weft.membership;

import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;
import io.weft.testkit.Await;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Members that fail while a view's table opens make this member a minority before its failure detector runs (chaos
 * found it: every member of a new view had marked the others failed at open, none stopped, and the group hung in
 * silence). The minority is reported once the view is installed, not lost.
 */
@Timeout(60)
class EarlyMinorityTest
{
    @Test
    void aMinorityFoundWhileTheTableOpensIsReportedWhenDetectionStarts() throws Exception
    {
        final WeftConfig config = TestGroups.config(TransportKind.TCP, 3);
        final SstLayout layout = MembershipColumns.declare(3, Map.of()).build();
        try (Members ignored = new Members(config))
        {
            final List<CompletableFuture<Sst>> opening = new ArrayList<>();
            final List<Sst> ssts = new ArrayList<>();
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) // each open waits for the others
            {
                for (int id = 0; id < 3; id++)
                {
                    final WeftConfig member = config.forMember(id);
                    opening.add(CompletableFuture.supplyAsync(() -> Sst.open(member, layout), threads));
                }
                for (final CompletableFuture<Sst> f : opening)
                {
                    ssts.add(f.get(30, TimeUnit.SECONDS));
                }
            }
            final Sst s0 = ssts.get(0);
            try
            {
                final List<Integer> lost = new CopyOnWriteArrayList<>();
                s0.addFailureListener((rank, reason) -> lost.add(rank));
                ssts.get(1).close();
                ssts.get(2).close();
                Await.until(() -> lost.size() >= 2, () -> "member 0 to see members 1 and 2 go, saw " + lost);
                final MembershipColumns columns = new MembershipColumns(layout, List.of());
                final List<String> reports = new CopyOnWriteArrayList<>();
                final List<Long> silences = new CopyOnWriteArrayList<>();
                final FailureDetector detector = new FailureDetector(s0, columns.heartbeat, columns.suspected,
                    r -> false, r -> false, List.of(0, 1, 2), config.failure(), config.transport().connectTimeout(),
                    reports::add, silences::add);
                try
                {
                    assertTrue(detector.suspects(1) && detector.suspects(2), "the earlier failures are suspicions");
                    assertEquals(List.of(-1L, -1L), silences, "no silence is measured before detection starts");
                    assertEquals(List.of(), reports, "nothing is reported before the view is installed");
                    detector.start();
                    assertEquals(1, reports.size(), reports.toString());
                    assertTrue(reports.getFirst().contains("member 0 is in a minority partition: it suspects " +
                        "members [1, 2]"), reports.getFirst());
                }
                finally
                {
                    detector.close();
                }
            }
            finally
            {
                ssts.forEach(Sst::close);
            }
        }
    }
}
