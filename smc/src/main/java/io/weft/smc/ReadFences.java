package io.weft.smc;

/**
 * The read fences this member asked for and that have not passed, oldest first: a ring of (ticket, target, barrier)
 * with one producer at a time (claims are serialised by the sender's lock, which {@link SenderRing#requestFence}
 * holds) and one consumer (the predicate thread, or the membership thread after a wedge).
 * <ul>
 *     <li>ticket: the fence's number, increasing over the member's lifetime (carried across views);</li>
 *     <li>target: the global sequence number that must be delivered here before the fence passes: everything this
 *     member had received with no gap, and its own last message, when it asked;</li>
 *     <li>barrier: the global sequence number of this member's first message claimed after the fence, which is not
 *     delivered here before the fence passes; {@link Long#MAX_VALUE} for a member that sends nothing.</li>
 * </ul>
 */
final class ReadFences
{
    static final int CAPACITY = 64;
    private static final int MASK = CAPACITY - 1;

    private final long[] tickets = new long[CAPACITY];
    private final long[] targets = new long[CAPACITY];
    private final long[] barriers = new long[CAPACITY];
    /** Written by the consumer, released: the producer may reuse an entry below it. */
    private volatile long head;
    /** Written by the producer after the entry, released: the consumer reads entries below it. */
    private volatile long tail;
    /** The highest ticket handed out or asked again: the next fence's is one more. Producer only. */
    private long lastTicket;

    /** Producer: whether another fence fits. */
    boolean hasRoom()
    {
        return tail - head < CAPACITY;
    }

    /** Producer: the next ticket. */
    long nextTicket()
    {
        return lastTicket + 1;
    }

    /** Producer, with {@link #hasRoom}: adds a fence (its ticket above every one before). */
    void add(final long ticket, final long target, final long barrier)
    {
        final long t = tail;
        final int i = (int)(t & MASK);
        tickets[i] = ticket;
        targets[i] = target;
        barriers[i] = barrier;
        lastTicket = Math.max(lastTicket, ticket);
        tail = t + 1; // volatile write: the entry above happens-before a consumer that sees the new tail
    }

    /** Before the first fence of a view: tickets go on from {@code ticket}. */
    void continueAfter(final long ticket)
    {
        lastTicket = Math.max(lastTicket, ticket);
    }

    /** The highest ticket handed out (0: none). */
    long lastTicket()
    {
        return lastTicket;
    }

    /** The ticket of the newest fence asked, read by the consumer (0: none asked in this view). */
    long newestTicket()
    {
        final long t = tail;
        return t == 0 ? 0 : tickets[(int)((t - 1) & MASK)];
    }

    boolean isEmpty()
    {
        return head == tail;
    }

    int size()
    {
        return (int)(tail - head);
    }

    long headTicket()
    {
        return tickets[(int)(head & MASK)];
    }

    long headTarget()
    {
        return targets[(int)(head & MASK)];
    }

    long headBarrier()
    {
        return barriers[(int)(head & MASK)];
    }

    /** Consumer: the fence at the head passed. */
    void poll()
    {
        head = head + 1;
    }

    /** Consumer: the fence {@code k} places after the head, as (ticket, barrier). */
    long ticketAt(final int k)
    {
        return tickets[(int)((head + k) & MASK)];
    }

    long barrierAt(final int k)
    {
        return barriers[(int)((head + k) & MASK)];
    }
}
