package io.weft.membership;

import io.weft.smc.BatchStats;
import io.weft.smc.Claim;
import io.weft.smc.SmcSubgroup;

import java.time.Duration;

/**
 * One subgroup's multicast stream as the application sees it. Sending never blocks forever: {@link #send(byte[])}
 * and {@link #tryClaim(int, Claim)} return {@link #BACK_PRESSURED} when every slot of this sender's ring still awaits
 * delivery somewhere; {@link #send(byte[], Duration)} waits at most the given time.
 *
 * <pre>{@code
 * Claim claim = new Claim();                         // one per sending thread, reused
 * long index = orders.tryClaim(16, claim);
 * if (index >= 0) {
 *     claim.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, claim.offset(), price);
 *     claim.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, claim.offset() + 8, quantity);
 *     claim.commit(16);                              // delivered to every member in one total order
 * }
 * }</pre>
 */
public final class Subgroup
{
    /** Returned instead of a message index when the sender's ring is full. */
    public static final long BACK_PRESSURED = SmcSubgroup.BACK_PRESSURED;

    private final Group group;
    private final SmcSubgroup engine;
    private final ThreadLocal<Claim> claims = ThreadLocal.withInitial(Claim::new);

    Subgroup(final Group group, final SmcSubgroup engine)
    {
        this.group = group;
        this.engine = engine;
    }

    public String name()
    {
        return engine.name();
    }

    public boolean isSender()
    {
        return engine.isSender();
    }

    public int maxPayload()
    {
        return engine.maxPayload();
    }

    /**
     * Copies and sends {@code bytes}.
     *
     * @return the message index, or {@link #BACK_PRESSURED}.
     * @throws IllegalArgumentException larger than the subgroup's max-payload.
     * @throws IllegalStateException    the group is closed, or this member is not a sender.
     */
    public long send(final byte[] bytes)
    {
        return send(bytes, 0, bytes.length);
    }

    public long send(final byte[] bytes, final int offset, final int length)
    {
        checkOpen();
        return engine.send(bytes, offset, length, claims.get());
    }

    /**
     * Sends, waiting up to {@code timeout} while back-pressured (parked, woken by the predicate thread when a slot
     * frees). Returns the index, or {@link #BACK_PRESSURED} on timeout.
     */
    public long send(final byte[] bytes, final Duration timeout)
    {
        return send(bytes, 0, bytes.length, timeout);
    }

    public long send(final byte[] bytes, final int offset, final int length, final Duration timeout)
    {
        checkOpen();
        return engine.send(bytes, offset, length, claims.get(), timeout.toNanos());
    }

    /** Like {@link #tryClaim} but waits up to {@code timeout} for a free slot. */
    public long claim(final int length, final Claim claim, final Duration timeout)
    {
        checkOpen();
        return engine.claim(length, claim, timeout.toNanos());
    }

    /** Claims a slot to build a message of at most {@code length} bytes in place. See the class example. */
    public long tryClaim(final int length, final Claim claim)
    {
        checkOpen();
        return engine.tryClaim(length, claim);
    }

    public long nullsSent()
    {
        return engine.nullsSent();
    }

    public long deliveredMessages()
    {
        return engine.deliveredMessages();
    }

    public BatchStats sendBatches()
    {
        return engine.sendBatches();
    }

    public BatchStats receiveBatches()
    {
        return engine.receiveBatches();
    }

    public BatchStats deliveryBatches()
    {
        return engine.deliveryBatches();
    }

    public int[] memberIds()
    {
        return engine.memberIds();
    }

    public int[] senderIds()
    {
        return engine.senderIds();
    }

    private void checkOpen()
    {
        if (group.minorityReason() != null)
        {
            throw new IllegalStateException(group.minorityReason());
        }
        if (group.isClosed())
        {
            throw new IllegalStateException("group of member " + group.memberId() + " is closed; subgroup " +
                engine.name() + " cannot send");
        }
    }
}
