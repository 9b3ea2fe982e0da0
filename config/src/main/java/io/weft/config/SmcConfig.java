package io.weft.config;

/**
 * The Spindle optimisations of the small-message multicast, each switchable for ablation. All off is the paper's
 * baseline: one push per message and per acknowledgement, the state lock held while posting, no nulls.
 *
 * @param sendBatching     publish every committed message in one push per contiguous run of slots.
 * @param receiveBatching  consume every visible message of every sender per pass and acknowledge once.
 * @param deliveryBatching deliver every stable message per pass and acknowledge once.
 * @param nullSends        a lagging sender pads the round-robin order with nulls (one slot per run).
 * @param earlyLockRelease release the state lock before posting pushes.
 * @param lazyNulls        with null-sends: pad only once the stability frontier reaches this sender's missing
 *                         index (delivery waits for it), instead of as soon as another sender is ahead (Spindle's
 *                         eager rule). Streaming senders then send almost no nulls; a silent sender still pads.
 * @param lazyDelivered    with delivery batching: the delivered counter, which only the senders' ring reuse reads,
 *                         goes out with the next acknowledgement instead of in a push of its own, unless it has moved
 *                         half a window of a sender's messages since it last went out (then at once, so that a sender
 *                         whose ring is full never waits for it).
 */
public record SmcConfig(boolean sendBatching, boolean receiveBatching, boolean deliveryBatching, boolean nullSends,
    boolean earlyLockRelease, boolean lazyNulls, boolean lazyDelivered)
{
    public static final SmcConfig SPINDLE = new SmcConfig(true, true, true, true, true);
    public static final SmcConfig BASELINE = new SmcConfig(false, false, false, false, false);

    /** The five Spindle switches, with the lazy null rule and the lazy delivered counter. */
    public SmcConfig(final boolean sendBatching, final boolean receiveBatching, final boolean deliveryBatching,
        final boolean nullSends, final boolean earlyLockRelease)
    {
        this(sendBatching, receiveBatching, deliveryBatching, nullSends, earlyLockRelease, true, true);
    }

    /** The switches as {@code name=value} pairs, for logs and bench reports. */
    public String describe()
    {
        return "send-batching=" + sendBatching + " receive-batching=" + receiveBatching + " delivery-batching=" +
            deliveryBatching + " null-sends=" + nullSends + " early-lock-release=" + earlyLockRelease +
            " lazy-nulls=" + lazyNulls + " lazy-delivered=" + lazyDelivered;
    }
}
