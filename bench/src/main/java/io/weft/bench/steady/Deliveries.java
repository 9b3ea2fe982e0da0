package io.weft.bench.steady;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The receive side of a bench member, the same for every system: reads and checks every byte of every message
 * ({@link Payload#verify}), checks that each sender's messages arrive once and in order, folds (sender, counter)
 * into a hash chain (equal chains at every member prove one total order), counts into the {@link SteadyClock} and
 * records the latency of the member's own messages (send to own delivery) and, in paced runs, of the other senders'
 * messages (send to delivery here: what a subscriber waits). Not thread-safe: one delivering thread, or the caller's
 * lock.
 */
public final class Deliveries
{
    private final int self;
    private final int senders;
    private final long[] next;
    private final boolean[] ended;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private SteadyClock clock;
    private boolean peerLatency;
    private int endsSeen;
    private long delivered;
    private long hash = 0xcbf2_9ce4_8422_2325L;
    private String check = "ok";

    /** Member {@code self} of {@code members}, of which members {@code 0..senders-1} send. */
    public Deliveries(final int self, final int members, final int senders)
    {
        this.self = self;
        this.senders = senders;
        this.next = new long[members];
        this.ended = new boolean[members];
    }

    /**
     * Where deliveries are counted; until it is set (before GO) nothing is expected to arrive. {@code peerLatency}:
     * also time the other senders' messages, for runs at a fixed rate (flat out, a clock read per delivered message
     * would cost every system throughput for a latency that only measures queues).
     */
    public void clock(final SteadyClock clock, final boolean peerLatency)
    {
        this.peerLatency = peerLatency;
        this.clock = clock;
    }

    /** {@link #onMessage(DirectBuffer, int, int)} for a message at a native address (Weft's table). */
    public boolean onMessage(final long address, final int length)
    {
        view.wrap(address, length);
        return onMessage(view, 0, length);
    }

    /** {@link #onMessage(DirectBuffer, int, int)} for a message in a byte array (JGroups). */
    public boolean onMessage(final byte[] array, final int offset, final int length)
    {
        view.wrap(array, offset, length);
        return onMessage(view, 0, length);
    }

    /** Checks and counts one delivered message; returns true once every sender's END has been delivered. */
    public boolean onMessage(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!Payload.verify(buffer, offset, length))
        {
            fail("payload checksum mismatch in a " + length + "-byte message (sender field " +
                (length >= Payload.HEADER_LENGTH ? Payload.sender(buffer, offset) : -1) + ", delivered so far " +
                delivered + ")");
            return complete();
        }
        final int sender = Payload.sender(buffer, offset);
        final long counter = Payload.counter(buffer, offset);
        final int kind = Payload.kind(buffer, offset);
        if (kind == Payload.KIND_PAD && sender >= 0 && sender < senders && ended[sender])
        {
            return complete();
        }
        if (sender < 0 || sender >= senders || ended[sender])
        {
            fail("a message from " + sender + " that is not a sender, or after its END");
            return complete();
        }
        if (kind == Payload.KIND_END)
        {
            ended[sender] = true;
            endsSeen++;
            if (counter != next[sender])
            {
                fail("sender " + sender + " sent " + counter + " messages, " + next[sender] + " were delivered");
            }
            return complete();
        }
        if (counter != next[sender])
        {
            fail("sender " + sender + ": message " + counter + " delivered when " + next[sender] + " was due");
        }
        next[sender] = counter + 1;
        hash = (hash ^ sender) * 0x100_0000_01b3L;
        hash = (hash ^ counter) * 0x100_0000_01b3L;
        delivered++;
        if (clock != null)
        {
            clock.delivered();
            if (sender == self)
            {
                clock.latency(System.nanoTime() - Payload.timestamp(buffer, offset));
            }
            else if (peerLatency)
            {
                clock.peerLatency(System.nanoTime() - Payload.timestamp(buffer, offset));
            }
        }
        return complete();
    }

    /** True once every sender's END has been delivered. */
    public boolean complete()
    {
        return endsSeen == senders;
    }

    public long delivered()
    {
        return delivered;
    }

    public long hash()
    {
        return hash;
    }

    /** "ok", or the first problem seen. */
    public String check()
    {
        return check;
    }

    private void fail(final String problem)
    {
        if ("ok".equals(check))
        {
            check = problem;
        }
    }
}
