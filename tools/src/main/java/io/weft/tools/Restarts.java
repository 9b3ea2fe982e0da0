package io.weft.tools;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * When {@code weft kv} starts a member again that exited: at once if it had served (a crash, a kill); after a delay
 * that doubles from 1 s to 30 s if it exited before serving (a port taken, a group that does not admit it), where it
 * would otherwise start again at every poll, a JVM each time; never after a refusal (exit code 2: configuration, a
 * damaged log), which every start repeats. A start of the whole group begins afresh.
 */
final class Restarts
{
    static final long FIRST_DELAY_MS = 1_000;
    static final long MAX_DELAY_MS = 30_000;

    private final long[] delayMs;
    private final long[] dueNanos;
    private final boolean[] waiting;

    Restarts(final int members)
    {
        delayMs = new long[members];
        dueNanos = new long[members];
        waiting = new boolean[members];
    }

    /** Whether member {@code i}'s exit was already seen, and it waits for its start ({@link #due}). */
    boolean waiting(final int i)
    {
        return waiting[i];
    }

    /** Member {@code i} exited with {@code code} at {@code now}, having served or not; returns what to tell. */
    String exited(final int i, final int code, final boolean served, final long now)
    {
        waiting[i] = true;
        if (code == Weft.EXIT_CONFIG)
        {
            dueNanos[i] = Long.MAX_VALUE;
            return "kv: member " + i + " exited with " + code + ", a refusal that starting it again would repeat " +
                "(its output above says why): it is not started again";
        }
        delayMs[i] = served ? 0 : delayMs[i] == 0 ? FIRST_DELAY_MS : Math.min(MAX_DELAY_MS, 2 * delayMs[i]);
        dueNanos[i] = now + TimeUnit.MILLISECONDS.toNanos(delayMs[i]);
        return "kv: member " + i + " exited with " + code + (served ? "" : " before serving") + "; starting it " +
            "again" + (served ? "" : " in " + delayMs[i] / 1000 + " s") + " (it joins the group)";
    }

    /** Whether the waiting member {@code i} is to start now. */
    boolean due(final int i, final long now)
    {
        return waiting[i] && dueNanos[i] != Long.MAX_VALUE && now - dueNanos[i] >= 0;
    }

    void started(final int i)
    {
        waiting[i] = false;
    }

    /** The whole group starts again: every member at once. */
    void reset()
    {
        Arrays.fill(waiting, false);
        Arrays.fill(delayMs, 0);
    }
}
