package io.weft.membership;

import io.weft.config.DeliveryMode;
import io.weft.config.MembershipConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.smc.BatchHandler;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The decisions on runtime subgroup requests, without processes: they depend only on the order in which requests
 * are delivered, and a member's own request is answered with what the group agreed on under its name, also when
 * another member's request won it in an earlier view (its own was sent again after the view change).
 */
class RuntimeSubgroupDecisionsTest
{
    private static final SubgroupConfig QUOTES_16 = new SubgroupConfig("quotes", List.of(), List.of(), 16, 64,
        DeliveryMode.ORDERED);
    private static final SubgroupConfig QUOTES_32 = new SubgroupConfig("quotes", List.of(), List.of(), 32, 64,
        DeliveryMode.ORDERED);

    private final WeftConfig config = member(2);
    private final List<String> told = new ArrayList<>();
    private final RuntimeSubgroups runtime = new RuntimeSubgroups(config, List.of((sg, properties) ->
    {
        told.add(sg.name() + "/" + sg.window() + "/" + properties);
        return (BatchHandler)batch -> { };
    }), List.of(name -> told.add("-" + name)));

    @Test
    void anotherMembersRequestThatWonTheNameInAnEarlierViewRefusesMine() throws Exception
    {
        final CompletableFuture<Void> mine = runtime.await(QUOTES_32);
        runtime.onRequest(spec(QUOTES_16, "a"), 0, config); // member 0 asked first; mine fell outside the trim
        assertTrue(runtime.pending());
        runtime.agree();
        runtime.installed();
        final ExecutionException refused = assertThrows(ExecutionException.class, mine::get);
        assertTrue(refused.getCause().getMessage().contains("another configuration"), refused.getCause().getMessage());
        runtime.onRequest(spec(QUOTES_32, "b"), 2, config); // mine, sent again in the next view: refused, nothing new
        assertFalse(runtime.pending());
        assertEquals(List.of("quotes/16/a"), told);
        assertEquals(16, runtime.find("quotes").window());
        assertEquals(1, base().subgroups().stream().filter(s -> s.name().equals("quotes")).count());
    }

    @Test
    void theSameRequestTwiceAddsOnceAndAnswersBoth() throws Exception
    {
        final CompletableFuture<Void> first = runtime.await(QUOTES_16);
        runtime.onRequest(spec(QUOTES_16, ""), 0, config);
        runtime.onRequest(spec(QUOTES_16, ""), 2, config);
        runtime.agree();
        runtime.installed();
        first.get();
        final CompletableFuture<Void> again = runtime.await(QUOTES_16);
        runtime.onRequest(spec(QUOTES_16, ""), 2, config); // there already, as asked
        again.get();
        assertEquals(List.of("quotes/16/"), told);
        assertFalse(runtime.pending());
    }

    @Test
    void conflictsAndStrangersAreDecidedTheSameAtEveryMember() throws Exception
    {
        final CompletableFuture<Void> mine = runtime.await(QUOTES_32);
        runtime.onRequest(spec(QUOTES_16, ""), 1, config);
        runtime.onRequest(spec(QUOTES_32, ""), 2, config); // the same view, later in the order: refused at once
        final ExecutionException refused = assertThrows(ExecutionException.class, mine::get);
        assertTrue(refused.getCause().getMessage().contains("window=16"), refused.getCause().getMessage());
        runtime.onRequest(spec(new SubgroupConfig("far", List.of(0, 9), List.of(), 16, 64, DeliveryMode.ORDERED), ""),
            1, config);
        runtime.onRequest(spec(SubgroupConfig.allMembers("all", 8, 64), ""), 1, config); // a configured name
        runtime.onRequest("garbage".getBytes(StandardCharsets.US_ASCII), 1, config);
        runtime.agree();
        assertEquals(List.of("quotes/16/"), told, "only the first request for quotes is added");
        final SubgroupConfig orders = SubgroupConfig.allMembers("orders", 16, 64);
        final CompletableFuture<Void> pending = runtime.await(orders);
        final IllegalStateException twice = assertThrows(IllegalStateException.class, () -> runtime.await(
            SubgroupConfig.allMembers("orders", 32, 64)), "two local requests for one name, two configurations");
        assertTrue(twice.getMessage().contains("being added here"), twice.getMessage());
        runtime.stopped("stopped for the test");
        final ExecutionException stopped = assertThrows(ExecutionException.class, pending::get);
        assertEquals("stopped for the test", stopped.getCause().getMessage());
    }

    @Test
    void aRemovalDropsTheSubgroupFromTheNextViewAndFreesItsName() throws Exception
    {
        runtime.onRequest(spec(QUOTES_16, ""), 0, config);
        runtime.agree();
        final CompletableFuture<Void> mine = runtime.awaitRemoval("quotes");
        runtime.onRequest(RuntimeSubgroups.removeRequest("quotes"), 2, config);
        runtime.onRequest(RuntimeSubgroups.removeRequest("quotes"), 1, config); // twice: removed once
        assertTrue(runtime.pending());
        final CompletableFuture<Void> added = runtime.await(QUOTES_32);
        runtime.onRequest(spec(QUOTES_32, ""), 2, config); // the name is being removed: refused in the same view
        final ExecutionException early = assertThrows(ExecutionException.class, added::get);
        assertTrue(early.getCause().getMessage().contains("being removed"), early.getCause().getMessage());
        assertEquals(List.of("quotes"), runtime.agree());
        runtime.installed();
        mine.get();
        assertEquals(List.of("quotes/16/", "-quotes"), told);
        assertEquals(null, runtime.find("quotes"));
        assertTrue(runtime.wasRemoved("quotes"));
        assertEquals(0, base().subgroups().stream().filter(s -> s.name().equals("quotes")).count());
        runtime.onRequest(spec(QUOTES_32, ""), 1, config); // the name is free again, for another configuration
        runtime.agree();
        assertEquals(32, runtime.find("quotes").window());
        assertFalse(runtime.wasRemoved("quotes"));
    }

    @Test
    void removalsOfConfiguredOrUnknownSubgroupsAreRefusedAndAnAddRemovedInItsOwnViewNeverOpens() throws Exception
    {
        final CompletableFuture<Void> configured = runtime.awaitRemoval("all");
        runtime.onRequest(RuntimeSubgroups.removeRequest("all"), 2, config);
        final ExecutionException fixed = assertThrows(ExecutionException.class, configured::get);
        assertTrue(fixed.getCause().getMessage().contains("is configured"), fixed.getCause().getMessage());
        final CompletableFuture<Void> unknown = runtime.awaitRemoval("nothing");
        runtime.onRequest(RuntimeSubgroups.removeRequest("nothing"), 2, config);
        final ExecutionException none = assertThrows(ExecutionException.class, unknown::get);
        assertTrue(none.getCause().getMessage().contains("no subgroup nothing"), none.getCause().getMessage());
        runtime.onRequest(RuntimeSubgroups.removeRequest(MembershipConfig.RUNTIME_CHANNEL), 1, config);
        assertFalse(runtime.pending(), "nothing to change");

        final CompletableFuture<Void> mine = runtime.await(QUOTES_16);
        runtime.onRequest(spec(QUOTES_16, ""), 2, config);
        runtime.onRequest(RuntimeSubgroups.removeRequest("quotes"), 0, config);
        assertEquals(List.of("quotes"), runtime.agree());
        runtime.installed();
        final ExecutionException gone = assertThrows(ExecutionException.class, mine::get);
        assertTrue(gone.getCause().getMessage().contains("removed in the view change that added it"),
            gone.getCause().getMessage());
        assertEquals(List.of("quotes/16/", "-quotes"), told, "added then removed, in the agreed order");
        assertEquals(List.of(), runtime.agreed());
    }

    private WeftConfig base()
    {
        return runtime.base(config);
    }

    private static byte[] spec(final SubgroupConfig sg, final String properties)
    {
        return RuntimeSubgroups.addRequest(new RuntimeSubgroups.Spec(sg, properties));
    }

    private static WeftConfig member(final int id)
    {
        final WeftConfig base = TestGroups.config(TransportKind.TCP, 3);
        return WeftConfig.builder().memberId(id).groupName(base.group().name()).members(base.group().members())
            .transport(TransportKind.TCP).subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64)))
            .membership(new MembershipConfig(List.of(), null, ViewChangeSends.WAIT, Duration.ofSeconds(10), true))
            .build();
    }
}
