package io.weft.smc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A slot claimed for zero-copy sending, in the style of Aeron's {@code BufferClaim}: build the message in place at
 * {@link #offset()} of {@link #segment()}, then {@link #commit(int)} (or {@link #abort()}). One claim object per
 * sending thread, reused for every message: nothing is allocated per message.
 *
 * <pre>{@code
 * Claim claim = new Claim();
 * if (subgroup.tryClaim(64, claim) >= 0) {
 *     claim.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, claim.offset(), orderId);
 *     claim.commit(8);
 * } // else back-pressured: every slot still awaits delivery somewhere; retry later
 * }</pre>
 */
public final class Claim
{
    SmcSubgroup owner;
    MemorySegment segment;
    long offset;
    int capacity;
    long slot;
    long index;

    /** An empty claim, filled by each {@code tryClaim}: make one per sending thread and reuse it. */
    public Claim()
    {
    }

    /** {@return the table segment; write the payload at {@link #offset()}, at most {@link #capacity()} bytes} */
    public MemorySegment segment()
    {
        return segment;
    }

    /** {@return where the payload starts in {@link #segment()}} */
    public long offset()
    {
        return offset;
    }

    /** {@return the most bytes this claim can commit: the length that was claimed} */
    public int capacity()
    {
        return capacity;
    }

    /** {@return the message index this claim will be sent with} */
    public long index()
    {
        return index;
    }

    /**
     * Copies bytes into the claimed payload at {@code at}.
     *
     * @param at        where in the payload the bytes go, from 0.
     * @param src       the bytes to copy.
     * @param srcOffset where in {@code src} they start.
     * @param length    how many to copy.
     * @return this claim, to chain puts.
     * @throws IndexOutOfBoundsException if {@code [at, at + length)} is not inside the claimed {@link #capacity()}.
     */
    public Claim put(final int at, final byte[] src, final int srcOffset, final int length)
    {
        if (at < 0 || length < 0 || at + length > capacity)
        {
            throw new IndexOutOfBoundsException("bytes [" + at + ", " + (at + length) + ") outside a claim of " +
                capacity);
        }
        MemorySegment.copy(src, srcOffset, segment, ValueLayout.JAVA_BYTE, offset + at, length);
        return this;
    }

    /**
     * Publishes the message with {@code length} payload bytes. A commit shorter than the claim gives the unused
     * bytes back to the ring, unless this thread or another claimed again before it. In an ordered subgroup, a claim
     * committed while its view changes is sent again in the next view, like the member's other messages left outside
     * the trim (an unordered subgroup sends at most once across a view change).
     *
     * @param length the payload bytes written, 0 to {@link #capacity()}.
     * @throws IllegalArgumentException if {@code length} is outside 0 to {@link #capacity()}; the claim stays open.
     * @throws IllegalStateException if the view the claim was made in ended and its view change gave up waiting for
     *     this commit (2 s): the message was not sent, and can be sent again in the new view
     */
    public void commit(final int length)
    {
        final SmcSubgroup o = owner; // tryCommit() forgets it
        if (!tryCommit(length))
        {
            throw new IllegalStateException("subgroup " + o.name() + ": message " + index + " was committed " +
                "after the view it was claimed in had ended (a view change waits at most 2 s for open claims); " +
                "it was NOT sent: send it again");
        }
    }

    /**
     * Like {@link #commit}, but returns false instead of throwing where the view change gave up waiting for this
     * claim: nothing was sent, and the caller can claim again (in the new view) and send the message there.
     *
     * @param length the payload bytes written, 0 to {@link #capacity()}.
     * @return true if the message was published; false if the view change gave up waiting for it (nothing sent).
     * @throws IllegalArgumentException if {@code length} is outside 0 to {@link #capacity()}; the claim stays open.
     * @throws IllegalStateException    if the claim was committed or aborted already.
     */
    public boolean tryCommit(final int length)
    {
        if (owner == null)
        {
            throw new IllegalStateException("claim already committed or aborted");
        }
        if (length < 0 || length > capacity)
        {
            throw new IllegalArgumentException("commit of " + length + " bytes into a claim of " + capacity);
        }
        final SmcSubgroup o = owner;
        owner = null;
        return o.commit(this, length, false);
    }

    /**
     * Gives the slot back: it is sent as a null, which keeps the order intact and is never delivered. After the view
     * change gave up waiting for the claim, nothing is sent.
     */
    public void abort()
    {
        if (owner == null)
        {
            throw new IllegalStateException("claim already committed or aborted");
        }
        final SmcSubgroup o = owner;
        owner = null;
        o.commit(this, 0, true); // false (a view change gave up on the claim) also means nothing is sent
    }
}
