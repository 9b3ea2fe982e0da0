package io.weft.membership;

import io.weft.smc.BatchStats;
import io.weft.smc.Claim;
import io.weft.smc.SmcSubgroup;

import java.time.Duration;
import java.util.Map;

/**
 * One subgroup's multicast stream as the application sees it, valid across views (each view has its own engine).
 * Sending never blocks forever: {@link #send(byte[])} and {@link #tryClaim(int, Claim)} return
 * {@link #BACK_PRESSURED} when every slot of this sender's ring still awaits delivery somewhere, or while a view
 * change is in progress; {@link #send(byte[], Duration)} waits at most the given time, across a view change too
 * (or throws {@link ViewChangeException} when {@code weft.membership.send-during-view-change = fail}).
 * A send that returned an index is delivered to every member of the view that survives, exactly once: if the view
 * changes before it is delivered, this member sends it again in the next view.
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
 * A claim must be committed or aborted promptly: a view change waits (up to 2 s) for open claims.
 */
public final class Subgroup
{
    /** Returned instead of a message index when the sender's ring is full (or the view is changing). */
    public static final long BACK_PRESSURED = SmcSubgroup.BACK_PRESSURED;

    private final Group group;
    private final String name;
    private final ThreadLocal<Claim> claims = ThreadLocal.withInitial(Claim::new);

    Subgroup(final Group group, final String name)
    {
        this.group = group;
        this.name = name;
    }

    /** {@return the subgroup's configured name} */
    public String name()
    {
        return name;
    }

    /** {@return whether this member sends in this subgroup in the current view} */
    public boolean isSender()
    {
        return group.engine(name).isSender();
    }

    /** {@return the largest message this subgroup takes, in bytes ({@code max-payload})} */
    public int maxPayload()
    {
        return group.subgroupConfig(name).maxPayload();
    }

    /**
     * Copies and sends {@code bytes}.
     *
     * @param bytes the message's payload, copied into a slot before this returns.
     * @return the message index in the current view, or {@link #BACK_PRESSURED}.
     * @throws IllegalArgumentException larger than the subgroup's max-payload.
     * @throws IllegalStateException    the group is closed, this member is not a sender, it stopped, or it leaves
     *                                  or finishes ({@link Group#leave}, {@link Group#finish} called).
     */
    public long send(final byte[] bytes)
    {
        return send(bytes, 0, bytes.length);
    }

    /**
     * Copies and sends {@code length} bytes of {@code bytes} from {@code offset}; see {@link #send(byte[])}.
     *
     * @param bytes  holds the message's payload, copied into a slot before this returns.
     * @param offset where the payload starts in {@code bytes}.
     * @param length the payload's bytes.
     * @return the message index in the current view, or {@link #BACK_PRESSURED}.
     */
    public long send(final byte[] bytes, final int offset, final int length)
    {
        return group.send(name, bytes, offset, length, claims.get(), 0);
    }

    /**
     * Sends, waiting up to {@code timeout} while back-pressured (parked, woken by the predicate thread when a slot
     * frees) or while the view changes; otherwise as {@link #send(byte[])}.
     *
     * @param bytes   the message's payload, copied into a slot before this returns.
     * @param timeout how long to wait for a free slot or for the view change to end.
     * @return the message index in the view it was sent in, or {@link #BACK_PRESSURED} on timeout (nothing sent).
     */
    public long send(final byte[] bytes, final Duration timeout)
    {
        return send(bytes, 0, bytes.length, timeout);
    }

    /**
     * Copies and sends part of {@code bytes}, waiting up to {@code timeout}; see {@link #send(byte[], Duration)}.
     *
     * @param bytes   holds the message's payload, copied into a slot before this returns.
     * @param offset  where the payload starts in {@code bytes}.
     * @param length  the payload's bytes.
     * @param timeout how long to wait for a free slot or for the view change to end.
     * @return the message index in the view it was sent in, or {@link #BACK_PRESSURED} on timeout (nothing sent).
     */
    public long send(final byte[] bytes, final int offset, final int length, final Duration timeout)
    {
        return group.send(name, bytes, offset, length, claims.get(), timeout.toNanos());
    }

    /**
     * Like {@link #tryClaim} but waits up to {@code timeout} for a free slot (and across a view change).
     *
     * @param length  the most payload bytes the message will have.
     * @param claim   filled with the slot on success: one per sending thread, reused.
     * @param timeout how long to wait for a free slot or for the view change to end.
     * @return the index the message will be sent with, or {@link #BACK_PRESSURED} on timeout ({@code claim} unused).
     */
    public long claim(final int length, final Claim claim, final Duration timeout)
    {
        return group.claim(name, length, claim, timeout.toNanos());
    }

    /**
     * Claims a slot to build a message of at most {@code length} bytes in place. See the class example.
     *
     * @param length the most payload bytes the message will have.
     * @param claim  filled with the slot on success: one per sending thread, reused; commit or abort it promptly.
     * @return the index the message will be sent with, or {@link #BACK_PRESSURED} ({@code claim} unused).
     */
    public long tryClaim(final int length, final Claim claim)
    {
        return group.claim(name, length, claim, 0);
    }

    /**
     * Asks for a read fence: the subgroup's fence callback ({@link GroupBuilder#onFence}) is called with the returned
     * ticket once every message delivered anywhere in the group before this call, and every message this member sent
     * before it, has been delivered here, and before any message this member sends after it is. Reading the state the
     * deliveries built from the callback is then linearizable, for the price of one counter round trip with the other
     * members instead of a message in the order. A fence not passed when the view changes is asked again in the next
     * view, in its place among this member's messages sent again. Ordered subgroups only.
     *
     * @param timeout how long to wait while a view change is in progress.
     * @return the ticket (&gt; 0, increasing), or {@link #BACK_PRESSURED} if a view change did not end within
     * {@code timeout}, or at once while 64 fences of this member have not passed.
     * @throws IllegalStateException the subgroup is unordered, this member is not in it, the group stopped, or this
     *                               member leaves or finishes (a fence would pass in no view of it).
     */
    public long fence(final Duration timeout)
    {
        return group.fence(name, timeout.toNanos());
    }

    /**
     * Publishes how far this member has made what it delivered durable: a count of the application's choosing,
     * monotone for the member's lifetime (for example samples appended to a log). It is carried into every next view.
     * A negative count marks none: the frontier stays -1 while a member's is negative (a restarted log announces its
     * size that way until the members of view 0 agree, see the DDS layer).
     * Call it from this subgroup's delivery callback or from one other thread at a time.
     *
     * @param count how much of what it delivered this member has made durable, in the application's unit.
     * @throws IllegalArgumentException the count is below a count (&gt;= 0) this member already marked: the frontier
     *                                  would move back, and readers may have acted on it (nothing is published).
     */
    public void markPersisted(final long count)
    {
        final SmcSubgroup engine = group.engine(name);
        final long last = engine.persisted();
        if (count < last && last >= 0) // negative marks (announcements) may go down: they mark no count
        {
            throw new IllegalArgumentException("subgroup " + name + ": markPersisted(" + count + ") after " + last +
                ": the count is monotone (the durability frontier would move back); not published");
        }
        engine.publishPersisted(count);
    }

    /**
     * {@return the durability frontier} It is the least count marked persisted over the members of the current view
     * that have not failed; -1 while one of them has marked none, while a view change is closing the view, or while
     * the subgroup does not run in this view (all its senders gone: nothing more can be made durable, and a caller
     * keeps the frontier it saw).
     */
    public long persistedFrontier()
    {
        return group.readEngine(name, SmcSubgroup::persistedFrontier, -1L);
    }

    /**
     * {@return what each member of the subgroup last marked persisted in the current view, by member id} -1: nothing
     * yet; a failed member's: its last value received. Empty while the subgroup does not run in this view or a view
     * change is closing the view.
     */
    public Map<Integer, Long> persistedByMember()
    {
        return group.readEngine(name, SmcSubgroup::persistedByMember, Map.of());
    }

    /**
     * {@return the null messages this member sent in the current view} They keep the round-robin order moving; a run
     * of k counts k.
     */
    public long nullsSent()
    {
        return group.engine(name).nullsSent();
    }

    /** {@return application messages delivered here in the current view} */
    public long deliveredMessages()
    {
        return group.engine(name).deliveredMessages();
    }

    /** {@return sizes of the batches this member published (messages per push), in the current view} */
    public BatchStats sendBatches()
    {
        return group.engine(name).sendBatches();
    }

    /** {@return sizes of the batches this member consumed per sender per receive pass, in the current view} */
    public BatchStats receiveBatches()
    {
        return group.engine(name).receiveBatches();
    }

    /** {@return sizes of the batches this member delivered per delivery pass, in the current view} */
    public BatchStats deliveryBatches()
    {
        return group.engine(name).deliveryBatches();
    }

    /** {@return member ids of the subgroup in the current view} */
    public int[] memberIds()
    {
        return group.engine(name).memberIds();
    }

    /** {@return member ids of the subgroup's senders in the current view, in sender-rank order} */
    public int[] senderIds()
    {
        return group.engine(name).senderIds();
    }
}
