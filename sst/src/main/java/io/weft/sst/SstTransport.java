package io.weft.sst;

import io.weft.config.Doorbell;
import io.weft.config.PassHost;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * What the shared state table needs from the substrate: a local table copy and one-sided pushes of a byte range of
 * my row into the same range of my row's copy at other members. Implementations: shm, tcp and rdma.
 *
 * <p>Ordering contract (protocol section 2), which every implementation gives and the tests check:
 * <ol>
 *     <li>pushes from one member to one target are applied at the target in the order they were issued;</li>
 *     <li>an aligned 8-byte counter is never seen torn;</li>
 *     <li>within one push bytes may become visible in any order.</li>
 * </ol>
 * A transport may show my stores sooner and to more members than the pushes name (shm's zero copy shows each store
 * to every member at once); callers rely only on seeing what was pushed to them, in order.
 */
public interface SstTransport extends AutoCloseable
{
    /** The local table copy: {@code rows * rowSize} bytes, 64-byte aligned, row r at {@code r * rowSize}. */
    MemorySegment table();

    /**
     * Copies {@code [rowOffset, rowOffset + length)} of my row to each target, asynchronously. Offsets and lengths
     * are multiples of 8 and inside the row (the caller checks). Frozen targets are skipped. The write may wait in
     * the transport until {@link #flush()} (an RDMA doorbell, a socket write); order is kept either way.
     */
    void post(int rowOffset, int length, int[] targets);

    /** Sends everything posted so far (and wakes the targets). */
    void flush();

    /**
     * Pushes a value that the next push of the same range supersedes (a heartbeat) without ever waiting: a target
     * whose link cannot take it now is skipped. Transports that never wait push as usual.
     */
    default void offer(final int rowOffset, final int length, final int[] targets)
    {
        post(rowOffset, length, targets);
        flush();
    }

    /**
     * Like {@link #push} but the future completes once every non-frozen target has applied the bytes, or fails if a
     * target fails first.
     */
    CompletableFuture<Void> pushTracked(int rowOffset, int length, int[] targets);

    /**
     * The result of a tracked push for transports whose {@link #flush()} returns once the bytes are applied at every
     * live target (shm, rdma): done, or failed naming the first target that is frozen.
     */
    static CompletableFuture<Void> appliedUnlessFrozen(final int[] targets, final boolean[] frozen)
    {
        for (final int t : targets)
        {
            if (frozen[t])
            {
                return CompletableFuture.failedFuture(new TransportException("member at rank " + t + " has failed"));
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Sends each target a sign of life that data queued for it cannot delay, where pushes can queue (tcp and rdma: a
     * udp datagram); it shows in the target's {@link #lastHeardNanos}. Never waits. A no-op where pushes never queue.
     */
    default void beat(final int[] targets)
    {
    }

    /**
     * When bytes or a {@link #beat} from {@code rank} last arrived ({@link System#nanoTime()}), for transports where a
     * heartbeat can queue behind data (tcp, rdma): arriving data proves the peer alive as well as its heartbeat would.
     * {@link Long#MIN_VALUE} where pushes never queue.
     */
    default long lastHeardNanos(final int rank)
    {
        return Long.MIN_VALUE;
    }

    /**
     * Whether targets read my row in place (shm's zero copy): a push then only orders and wakes, so pushes of a
     * monotone value from several threads cannot overtake one another at a target.
     */
    default boolean readsInPlace()
    {
        return false;
    }

    /**
     * Whether a post copies the range when it is made, into an ordered queue per target (tcp's send buffers): posts
     * made one after another under one lock, from any threads, reach every target in that order with the values of
     * their moment. Not so where the write reads the row later (rdma).
     */
    default boolean copiesWhenPosted()
    {
        return false;
    }

    /** Stops pushing to the member and ignores what it still sends: its row keeps what it held. */
    void freeze(int rank);

    /** The doorbell this member's predicate thread sleeps on; incoming pushes ring it. */
    Doorbell doorbell();

    /**
     * The thread that runs this member's predicate passes in place of a predicate thread of their own, or null for
     * a predicate thread (with {@code threading = merged}: tcp's selector thread, rdma's progress thread).
     */
    default PassHost passHost()
    {
        return null;
    }

    /** Tears the transport down; peers observe this member as failed. */
    @Override
    void close();
}
