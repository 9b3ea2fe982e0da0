package io.weft.tools;

import io.weft.smc.Message;
import org.HdrHistogram.Recorder;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * Checks what one member delivers in one subgroup and folds it into a hash chain: per-sender FIFO (a counter in the
 * payload), payload bytes intact (a pattern derived from sender and counter), every message exactly once (counts),
 * and the end marker of every active sender still in the view. Two members that delivered the same sequence print
 * the same hash.
 *
 * <p>Payload: byte 0 is 0 for data and 1 for the end marker; bytes 1..8 hold the sender's counter when there is
 * room; every further byte j is {@code pattern(sender, counter, j)}.
 */
final class DeliveryCheck
{
    static final byte DATA = 0;
    static final byte END = 1;
    private static final int MAX_REPORTED = 10;

    private final String subgroup;
    private final int memberId;
    private final int[] activeSenders;
    private final PrintStream out;
    private final Recorder latency;
    private final long callbackDelayNanos;
    private final long[] nextCounter;
    private final long[] lastIndex;
    private final boolean[] ended;
    /** Active senders no longer in the view (failed, left): their end marker is not awaited, their count unknown. */
    private final boolean[] departed;
    private volatile long hash = 0xcbf2_9ce4_8422_2325L;
    private volatile long delivered;
    private volatile long deliveredBytes;
    private volatile long violations;
    private volatile boolean complete;

    DeliveryCheck(final String subgroup, final int memberId, final int[] activeSenders, final PrintStream out,
        final Recorder latency, final long callbackDelayNanos)
    {
        this.subgroup = subgroup;
        this.memberId = memberId;
        this.activeSenders = activeSenders.clone();
        this.out = out;
        this.latency = latency;
        this.callbackDelayNanos = callbackDelayNanos;
        final int max = Arrays.stream(activeSenders).max().orElse(0) + 1;
        this.nextCounter = new long[Math.max(max, 1)];
        this.lastIndex = new long[Math.max(max, 1)];
        Arrays.fill(lastIndex, -1);
        this.ended = new boolean[Math.max(max, 1)];
        this.departed = new boolean[Math.max(max, 1)];
        this.complete = activeSenders.length == 0;
    }

    static byte pattern(final int sender, final long counter, final int j)
    {
        return (byte)(sender * 31 + counter * 7 + j);
    }

    /** Fills {@code buf[0..length)} for message {@code counter} of {@code sender}. */
    static void fill(final byte[] buf, final int length, final int sender, final long counter, final byte kind)
    {
        buf[0] = kind;
        for (int j = 1; j < length; j++)
        {
            buf[j] = j <= 8 ? (byte)(counter >>> (8 * (j - 1))) : pattern(sender, counter, j);
        }
    }

    /**
     * A view is installed (the group calls this on the membership thread, after the last delivery of the view before
     * and before the first of this one): a message's index counts within its view, so each sender's starts again;
     * an active sender the view no longer holds sends no end marker.
     */
    void onView(final List<Integer> members)
    {
        Arrays.fill(lastIndex, -1);
        for (final int s : activeSenders)
        {
            departed[s] |= !members.contains(s);
        }
        complete = allEnded();
    }

    void onMessage(final Message m)
    {
        final int sender = m.senderId();
        if (sender >= nextCounter.length || !isActive(sender))
        {
            violation("message from member " + sender + ", which is not an active sender");
            return;
        }
        if (m.senderId() == memberId && m.timestampNanos() > 0)
        {
            latency.recordValue(Math.max(0, (System.nanoTime() - m.timestampNanos()) / 1000));
        }
        if (m.index() <= lastIndex[sender])
        {
            violation("member " + sender + "'s index " + m.index() + " after " + lastIndex[sender]);
        }
        lastIndex[sender] = m.index();
        final int length = m.length();
        final byte kind = length > 0 ? m.byteAt(0) : -1;
        if (kind == END)
        {
            if (ended[sender])
            {
                violation("second end marker from member " + sender);
            }
            ended[sender] = true;
            complete = allEnded();
        }
        else if (kind == DATA)
        {
            if (ended[sender])
            {
                violation("data from member " + sender + " after its end marker");
            }
            final long counter = nextCounter[sender]++;
            long payloadHash = 0;
            for (int j = 1; j < length; j++)
            {
                final byte expected = j <= 8 ? (byte)(counter >>> (8 * (j - 1))) : pattern(sender, counter, j);
                final byte seen = m.byteAt(j);
                if (seen != expected)
                {
                    violation("member " + sender + " message " + counter + " byte " + j + " is " + seen +
                        ", expected " + expected + (j <= 8 ? " (FIFO order broken or message lost)" : ""));
                    break;
                }
                payloadHash = payloadHash * 31 + seen;
            }
            long h = hash;
            h = (h ^ sender) * 0x100_0000_01b3L;
            h = (h ^ m.index()) * 0x100_0000_01b3L;
            h = (h ^ m.seq()) * 0x100_0000_01b3L;
            h = (h ^ length) * 0x100_0000_01b3L;
            hash = (h ^ payloadHash) * 0x100_0000_01b3L;
            delivered = delivered + 1;
            deliveredBytes = deliveredBytes + length;
        }
        else
        {
            violation("message of unknown kind " + kind + " from member " + sender);
        }
        AppWork.busy(callbackDelayNanos);
    }

    private boolean isActive(final int sender)
    {
        for (final int s : activeSenders)
        {
            if (s == sender)
            {
                return true;
            }
        }
        return false;
    }

    private boolean allEnded()
    {
        for (final int s : activeSenders)
        {
            if (!ended[s] && !departed[s])
            {
                return false;
            }
        }
        return true;
    }

    private void violation(final String what)
    {
        violations = violations + 1;
        if (violations <= MAX_REPORTED)
        {
            say("member %d: subgroup %s: VIOLATION %s%n", memberId, subgroup, what);
        }
    }

    /** Checks counts once complete: every active sender's {@code expectedPerSender} data messages, when known. */
    void checkCounts(final long expectedPerSender)
    {
        if (expectedPerSender < 0)
        {
            return;
        }
        for (final int s : activeSenders)
        {
            if (!departed[s] && nextCounter[s] != expectedPerSender)
            {
                violation("delivered " + nextCounter[s] + " messages of member " + s + ", sent " + expectedPerSender);
            }
        }
    }

    boolean isComplete()
    {
        return complete;
    }

    long hash()
    {
        return hash;
    }

    long delivered()
    {
        return delivered;
    }

    long deliveredBytes()
    {
        return deliveredBytes;
    }

    long violations()
    {
        return violations;
    }

    String subgroup()
    {
        return subgroup;
    }

    /**
     * Prints one whole line with a single write: tests read this output from a file that the logger (stderr) writes
     * to as well, and a line formatted piece by piece could be split by a log line.
     */
    private void say(final String format, final Object... args)
    {
        out.print(String.format(java.util.Locale.ROOT, format, args));
        out.flush();
    }
}
