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
 */
public record SmcConfig(boolean sendBatching, boolean receiveBatching, boolean deliveryBatching, boolean nullSends,
    boolean earlyLockRelease)
{
    public static final SmcConfig SPINDLE = new SmcConfig(true, true, true, true, true);
    public static final SmcConfig BASELINE = new SmcConfig(false, false, false, false, false);

    public String describe()
    {
        return "send-batching=" + sendBatching + " receive-batching=" + receiveBatching + " delivery-batching=" +
            deliveryBatching + " null-sends=" + nullSends + " early-lock-release=" + earlyLockRelease;
    }
}
