package io.weft.membership;

import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.sst.FailureListener;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An {@link Error} on the failure detector's thread or in an application's failure listener stops its member, and the
 * others remove it and go on. The detector's thread had no catch: what a tick threw (a bug of ours, or an error from a
 * failure listener one of its suspicions ran) ended it, and the member went on in that view without heartbeats and
 * without detecting anyone's failure. An application's failure listener that threw an {@code Error} on a transport's
 * thread ended that thread.
 */
@Timeout(120)
class DetectorErrorTest
{
    private static final int MEMBERS = 5;
    private static final int MESSAGES = 200;
    private static final String THROWN = "a failure listener's error (test)";

    /**
     * Over shm (no transport report in one JVM: a silent member is found by the detectors alone), member 0's detector
     * is closed, so its heartbeats stop; a listener on member 4's table throws when its detector suspects member 0
     * (the table's listeners are the engine's own: a stand-in for a bug of ours in a tick).
     */
    @Test
    void anErrorInTheDetectorsThreadStopsItsMemberAndTheOthersGoOn() throws Exception
    {
        run(TransportKind.SHM, false, group -> group.epoch().detector.close(), "weft-fd-4",
            thread -> "its failure detector");
    }

    /**
     * Over tcp, member 0's table closes under it (its connections drop, as at a crash); member 4's failure listener,
     * set through the public API, throws on the thread that reports it: the transport's, or the detector's when it
     * read another member's suspicion of member 0 first (on a busy host).
     */
    @Test
    void anErrorInAFailureListenerStopsItsMemberAndTheOthersGoOn() throws Exception
    {
        run(TransportKind.TCP, true, group -> group.epoch().sst.close(), "weft-(tcp|fd)-4",
            thread -> "its failure listener");
    }

    /**
     * Over tcp, member 0's table closes under it; a listener on member 4's table throws on the thread that reports
     * it, which the error ends: the transport's selector thread (or the detector's, as above). Before, the selector
     * thread ended silently and member 4 went on cut off, until its detector found every other member silent.
     */
    @Test
    void anErrorThatEndsTheTransportsThreadStopsItsMemberAndTheOthersGoOn() throws Exception
    {
        run(TransportKind.TCP, false, group -> group.epoch().sst.close(), "weft-(tcp|fd)-4",
            thread -> thread.startsWith("weft-tcp") ? "its transport's thread" : "its failure detector");
    }

    /**
     * Five members; {@code silence} takes member 0 out; a failure listener of member 4 ({@code viaApi}: the
     * application's, else one on its table) throws an {@link AssertionError} on the first report only, on a thread
     * whose name matches {@code thread}. Member 4 stops with a reason naming {@code what} of that thread; members 1-3
     * remove 0 and 4 and deliver what member 1 sends then, each once, in order.
     */
    private static void run(final TransportKind kind, final boolean viaApi, final Consumer<Group> silence,
        final String thread, final UnaryOperator<String> what) throws Exception
    {
        final WeftConfig config = TestGroups.builder(kind, MEMBERS)
            .subgroups(List.of(SubgroupConfig.allMembers("all", 16, 64))).build();
        final AtomicReference<String> thrownOn = new AtomicReference<>();
        final FailureListener thrower = (rank, reason) ->
        {
            if (thrownOn.compareAndSet(null, Thread.currentThread().getName()))
            {
                throw new AssertionError(THROWN); // once: what ends the member is that one error alone
            }
        };
        final List<ConcurrentLinkedQueue<Long>> delivered = new ArrayList<>();
        try (Members ignored = new Members(config))
        {
            final List<GroupBuilder> builders = new ArrayList<>();
            for (int i = 0; i < MEMBERS; i++)
            {
                final ConcurrentLinkedQueue<Long> mine = new ConcurrentLinkedQueue<>();
                delivered.add(mine);
                final GroupBuilder b = Group.builder(config.forMember(i)).onDelivery("all",
                    m -> mine.add(m.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, m.offset())));
                builders.add(viaApi && i == MEMBERS - 1 ? b.onMemberFailure(thrower) : b);
            }
            final List<Group> groups = InJvmGroups.open(builders);
            try
            {
                final Group last = groups.get(MEMBERS - 1);
                if (!viaApi)
                {
                    last.epoch().sst.addFailureListener(thrower);
                }
                silence.accept(groups.get(0));
                InJvmGroups.await(last::isClosed, "member 4 stops");
                assertTrue(thrownOn.get().matches(thread), "thrown on " + thrownOn.get());
                final IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> last.subgroup("all").send(new byte[8], Duration.ofSeconds(5)));
                final String reason = what.apply(thrownOn.get()) + " threw java.lang.AssertionError: " + THROWN;
                assertTrue(refused.getMessage().contains(reason), refused.getMessage());
                for (int m = 1; m < MEMBERS - 1; m++)
                {
                    final Group g = groups.get(m);
                    InJvmGroups.await(() -> g.view().members().equals(List.of(1, 2, 3)), "member " + m +
                        " removes 0 and 4");
                }
                final byte[] payload = new byte[8];
                final List<Long> all = new ArrayList<>();
                for (long n = 0; n < MESSAGES; n++)
                {
                    ByteBuffer.wrap(payload).order(ByteOrder.nativeOrder()).putLong(0, n);
                    assertTrue(groups.get(1).subgroup("all").send(payload, Duration.ofSeconds(30)) >= 0, "send " + n);
                    all.add(n);
                }
                for (int m = 1; m < MEMBERS - 1; m++)
                {
                    final ConcurrentLinkedQueue<Long> mine = delivered.get(m);
                    InJvmGroups.await(() -> mine.size() == MESSAGES, "member " + m + " delivers every message");
                    assertEquals(all, List.copyOf(mine), "member " + m + ": each once, in order");
                }
            }
            finally
            {
                groups.forEach(Group::close);
            }
        }
    }
}
