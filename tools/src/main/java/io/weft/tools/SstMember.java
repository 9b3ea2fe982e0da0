package io.weft.tools;

import io.weft.config.WeftConfig;
import io.weft.predicates.PredicateKind;
import io.weft.predicates.PredicateThread;
import io.weft.sst.Column;
import io.weft.sst.Sst;
import io.weft.sst.SstLayout;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One member of the SST demo, in its own process. The main thread writes and pushes; the predicate thread checks
 * what arrives from the others. Two workloads:
 * <ul>
 *     <li>{@code counter}: increment my counter to {@code count}, pushing every increment; every other counter must
 *     be seen non-decreasing, never torn (the word carries the value in both halves) and ending at exactly
 *     {@code count}.</li>
 *     <li>{@code guarded}: {@code count} rounds of "write payload, push, bump guard, push" over a ring of slots;
 *     a reader that sees guard g must read payload g, every byte of it.</li>
 * </ul>
 * A member that fails is excluded, reported, and the rest go on. Exit codes: 0 all good, 1 a violation,
 * 3 completed but some member failed, 4 timed out.
 */
public final class SstMember
{
    public enum Workload
    {
        counter, guarded
    }

    static final int EXIT_OK = 0;
    static final int EXIT_VIOLATION = 1;
    static final int EXIT_MEMBER_FAILED = 3;
    static final int EXIT_TIMEOUT = 4;

    static final int WINDOW = 16;
    static final int SLOT_BYTES = 256;
    private static final int SLOT_LONGS = SLOT_BYTES / 8;
    private static final int MAX_REPORTED = 10;

    private final WeftConfig config;
    private final Workload workload;
    private final long count;
    private final Duration timeout;
    private final PrintStream out;
    private final SstLayout layout;
    private final Column value;
    private final Column finished;
    private final Column slots;
    private final Column acks;
    private final int members;
    private final AtomicIntegerArray failed;
    private final AtomicIntegerArray finishedAndLeft;
    private final long[] last;
    private final AtomicLong violations = new AtomicLong();
    private final AtomicLong observations = new AtomicLong();
    private final CountDownLatch allFinished = new CountDownLatch(1);
    private Sst sst;
    private volatile long written = -1;
    private boolean sawAll;

    public SstMember(final WeftConfig config, final Workload workload, final long count, final Duration timeout,
        final PrintStream out)
    {
        this.config = config;
        this.workload = workload;
        this.count = count;
        this.timeout = timeout;
        this.out = out;
        this.members = config.group().size();
        this.layout = layout(workload, members);
        this.value = layout.column("value");
        this.finished = layout.column("finished");
        this.slots = workload == Workload.guarded ? layout.column("slots") : null;
        this.acks = workload == Workload.guarded ? layout.column("acks") : null;
        this.failed = new AtomicIntegerArray(members);
        this.finishedAndLeft = new AtomicIntegerArray(members);
        this.last = new long[members];
        java.util.Arrays.fill(last, -1);
    }

    /** The row layout of a workload: every member must use the same one (the handshake checks its checksum). */
    public static SstLayout layout(final Workload workload, final int members)
    {
        final SstLayout.Builder b = SstLayout.builder().counter("value").counter("finished");
        if (workload == Workload.guarded)
        {
            b.bytes("slots", WINDOW * SLOT_BYTES).counters("acks", members);
        }
        return b.build();
    }

    public int run()
    {
        final long started = System.nanoTime();
        sst = Sst.open(config, layout);
        try (PredicateThread predicates = new PredicateThread("member-" + config.memberId(), config.idle(),
            sst.doorbell(), sst.passHost()))
        {
            sst.addFailureListener((rank, reason) ->
            {
                if (sst.counter(rank, finished) == 1)
                {
                    // it announced it had seen everything before it left (its last push precedes the close)
                    finishedAndLeft.set(rank, 1);
                    predicates.wake();
                    return;
                }
                failed.set(rank, 1);
                say("member %d: member %d failed: %s%n", config.memberId(), idOf(rank), reason);
                predicates.wake();
            });
            if (workload == Workload.counter)
            {
                predicates.register("observe", PredicateKind.RECURRENT, this::counterChanged, this::observeCounters);
            }
            else
            {
                predicates.register("read", PredicateKind.RECURRENT, this::guardsAdvanced, this::readGuarded);
            }
            predicates.register("saw-all", PredicateKind.ONE_TIME, this::sawEverything, this::announceFinished);
            predicates.register("all-finished", PredicateKind.ONE_TIME, this::everyoneFinished, allFinished::countDown);
            predicates.start();
            say("member %d: table open (%s, %d members, row %d bytes); %s to %d%n", config.memberId(),
                config.transport().kind().configName(), members, layout.rowSize(), workload, count);

            if (workload == Workload.counter)
            {
                writeCounter();
            }
            else
            {
                writeGuarded();
            }
            predicates.wake();
            final boolean done = allFinished.await(remaining(started), TimeUnit.NANOSECONDS);
            final double seconds = (System.nanoTime() - started) / 1e9;
            say("member %d: passes=%d triggers=%d busy=%.3fs%n", config.memberId(), predicates.passes(),
                predicates.triggers(), predicates.busyNanos() / 1e9);
            reportFailedRows();
            if (!done)
            {
                say("member %d: TIMEOUT after %.1fs: not every live member finished%n", config.memberId(), seconds);
                return EXIT_TIMEOUT;
            }
            final boolean anyFailed = anyFailed();
            say("member %d: RESULT %s workload=%s count=%d observations=%d violations=%d in %.2fs%n",
                config.memberId(), violations.get() == 0 ? "ok" : "VIOLATED", workload, count, observations.get(),
                violations.get(), seconds);
            return violations.get() > 0 ? EXIT_VIOLATION : anyFailed ? EXIT_MEMBER_FAILED : EXIT_OK;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return EXIT_TIMEOUT;
        }
        finally
        {
            sst.close();
        }
    }

    private long remaining(final long started)
    {
        return Math.max(0, timeout.toNanos() - (System.nanoTime() - started));
    }

    private int idOf(final int rank)
    {
        return config.group().members().get(rank).id();
    }

    private boolean live(final int rank)
    {
        return rank != sst.myRank() && failed.get(rank) == 0;
    }

    private boolean anyFailed()
    {
        for (int r = 0; r < members; r++)
        {
            if (failed.get(r) != 0)
            {
                return true;
            }
        }
        return false;
    }

    private void violation(final String what)
    {
        if (violations.incrementAndGet() <= MAX_REPORTED)
        {
            say("member %d: VIOLATION %s%n", config.memberId(), what);
        }
    }

    // ---- counter workload ---------------------------------------------------------------------------------------

    /** The value in both 32-bit halves: any read that mixes two writes has different halves. */
    static long encode(final long v)
    {
        return (v << 32) | v;
    }

    private void writeCounter()
    {
        final long step = Math.max(1, count / 10);
        for (long v = 1; v <= count; v++)
        {
            sst.setCounter(value, encode(v));
            sst.push(value, sst.others());
            written = v;
            if (v % step == 0)
            {
                say("member %d: wrote %d/%d%n", config.memberId(), v, count);
            }
        }
        written = count;
        sst.doorbell().ring();
    }

    private boolean counterChanged()
    {
        for (int r = 0; r < members; r++)
        {
            if (live(r) && decodeOrSelf(sst.counter(r, value)) != last[r])
            {
                return true;
            }
        }
        return false;
    }

    private static long decodeOrSelf(final long raw)
    {
        return raw == -1 ? -1 : raw & 0xffff_ffffL;
    }

    private void observeCounters()
    {
        for (int r = 0; r < members; r++)
        {
            if (!live(r))
            {
                continue;
            }
            final long raw = sst.counter(r, value);
            if (raw == -1)
            {
                continue;
            }
            final long hi = raw >>> 32;
            final long lo = raw & 0xffff_ffffL;
            if (hi != lo)
            {
                violation("torn read of member " + idOf(r) + "'s counter: 0x" + Long.toHexString(raw));
                continue;
            }
            if (lo < last[r])
            {
                violation("member " + idOf(r) + "'s counter went back from " + last[r] + " to " + lo);
            }
            if (lo > count)
            {
                violation("member " + idOf(r) + "'s counter is " + lo + ", beyond " + count);
            }
            if (lo != last[r])
            {
                observations.incrementAndGet();
                last[r] = lo;
            }
        }
    }

    // ---- guarded workload -----------------------------------------------------------------------------------------

    static long pattern(final int writerRank, final long guard, final int word)
    {
        return ((long)writerRank << 56) ^ (guard * 0x9E37_79B9_7F4A_7C15L) ^ word;
    }

    private void writeGuarded()
    {
        final MemorySegment table = sst.segment();
        final int me = sst.myRank();
        final long step = Math.max(1, count / 10);
        for (long g = 0; g < count; g++)
        {
            awaitSlotFree(g);
            final int slot = (int)(g % WINDOW);
            final long base = sst.offset(me, slots, 0) + (long)slot * SLOT_BYTES;
            for (int w = 0; w < SLOT_LONGS; w++)
            {
                table.set(ValueLayout.JAVA_LONG, base + w * 8L, pattern(me, g, w));
            }
            sst.push(slots.offset() + (long)slot * SLOT_BYTES, SLOT_BYTES, sst.others()); // payload first
            sst.setCounter(value, g);
            sst.push(value, sst.others()); // then its guard, in a second push
            written = g + 1;
            if ((g + 1) % step == 0)
            {
                say("member %d: wrote %d/%d%n", config.memberId(), g + 1, count);
            }
        }
        written = count;
        sst.doorbell().ring();
    }

    /** Slot g % WINDOW may be rewritten once every live reader has checked round g - WINDOW. */
    private void awaitSlotFree(final long g)
    {
        final int me = sst.myRank();
        int idle = 0;
        for (int r = 0; r < members; r++)
        {
            while (live(r) && sst.counter(r, acks, me) < g - WINDOW)
            {
                if (++idle < 100)
                {
                    Thread.onSpinWait();
                }
                else if (idle < 200)
                {
                    Thread.yield();
                }
                else
                {
                    LockSupport.parkNanos(50_000);
                }
            }
        }
    }

    private boolean guardsAdvanced()
    {
        for (int r = 0; r < members; r++)
        {
            if (live(r) && sst.counter(r, value) != last[r])
            {
                return true;
            }
        }
        return false;
    }

    private void readGuarded()
    {
        final MemorySegment table = sst.segment();
        for (int r = 0; r < members; r++)
        {
            if (!live(r))
            {
                continue;
            }
            final long guard = sst.counter(r, value); // acquire: the payloads pushed before it are visible
            if (guard <= last[r])
            {
                if (guard < last[r])
                {
                    violation("member " + idOf(r) + "'s guard went back from " + last[r] + " to " + guard);
                }
                continue;
            }
            for (long g = last[r] + 1; g <= guard; g++)
            {
                final long base = sst.offset(r, slots, 0) + (g % WINDOW) * SLOT_BYTES;
                for (int w = 0; w < SLOT_LONGS; w++)
                {
                    final long seen = table.get(ValueLayout.JAVA_LONG, base + w * 8L);
                    if (seen != pattern(r, g, w))
                    {
                        violation("member " + idOf(r) + " guard " + g + " word " + w + ": payload 0x" +
                            Long.toHexString(seen) + " is not round " + g + "'s");
                        break;
                    }
                }
                observations.incrementAndGet();
            }
            last[r] = guard;
            sst.setCounter(acks, r, guard);
            sst.push(acks, r, new int[] {r});
        }
    }

    // ---- completion -----------------------------------------------------------------------------------------------

    private boolean sawEverything()
    {
        if (written != count)
        {
            return false;
        }
        final long target = workload == Workload.counter ? count : count - 1;
        for (int r = 0; r < members; r++)
        {
            if (live(r) && last[r] != target)
            {
                return false;
            }
        }
        return true;
    }

    private void announceFinished()
    {
        sawAll = true;
        say("member %d: saw every live member's %s reach %d%n", config.memberId(),
            workload == Workload.counter ? "counter" : "guard", workload == Workload.counter ? count : count - 1);
        sst.setCounter(finished, 1);
        sst.push(finished, sst.others());
    }

    private boolean everyoneFinished()
    {
        if (!sawAll)
        {
            return false;
        }
        for (int r = 0; r < members; r++)
        {
            if (live(r) && sst.counter(r, finished) != 1)
            {
                return false;
            }
        }
        return true;
    }

    private void reportFailedRows()
    {
        for (int r = 0; r < members; r++)
        {
            if (failed.get(r) != 0)
            {
                final long raw = sst.counter(r, value);
                say("member %d: row of failed member %d: value=%d finished=%d%s%n", config.memberId(), idOf(r),
                    raw, sst.counter(r, finished), raw == -1 && sst.counter(r, finished) == -1 ? " (untouched)" : "");
            }
        }
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
