package io.weft.membership;

import io.weft.config.FailureConfig;
import io.weft.sst.Column;
import io.weft.sst.Sst;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.function.LongConsumer;

/**
 * Failure detection and suspicion (protocol sections 6 and 7.1-7.2), on its own thread so that neither data traffic
 * nor a slow delivery callback on the predicate thread delays it:
 * <ul>
 *     <li>every {@code heartbeat-interval} it bumps this member's heartbeat counter and pushes it;</li>
 *     <li>it suspects a member whose heartbeat has been silent for at least {@code failure-timeout} and whose
 *     {@link PhiAccrual phi} is at least {@value #PHI_THRESHOLD}: the margin grows with the jitter it has seen;</li>
 *     <li>a suspicion (its own, the transport's, or one read in another member's row) freezes the row and wakes
 *     the membership thread, which publishes it in {@code suspected[r]} ({@link Epoch#publishSuspicions}): one
 *     writer per column, and a suspicion is published after whatever the membership thread wrote before it;</li>
 *     <li>majority rule: once the suspected members are at least half of the members that are not departing
 *     ({@link ViewChangeRules#lostMajority(int, int)}), this member is in a minority partition and stops, with a
 *     message naming them, rather than carry on alone.</li>
 * </ul>
 * On tcp the heartbeat column travels in the same ordered connection as data: it cannot overtake pushes already
 * queued, which can take seconds on a slow or stalled link (a tiny receive window waits for the kernel's zero-window
 * probes). So on tcp every tick also sends a beat, a udp datagram beside the connection ({@link Sst#beat}), and
 * beats and any bytes arriving from a peer count as signs of life ({@link Sst#lastHeardNanos}). The heartbeat column is
 * offered, never waited for: a peer whose connection is full (frozen) is skipped, and the others still get theirs.
 */
final class FailureDetector implements AutoCloseable
{
    static final double PHI_THRESHOLD = 8.0;
    private static final Logger LOG = LoggerFactory.getLogger(FailureDetector.class);

    private final Sst sst;
    private final Column heartbeat;
    private final Column suspected;
    private final IntPredicate departing;
    private final IntPredicate abstains;
    private final LongConsumer onSuspect;
    private final List<Integer> memberIds;
    private final long intervalNanos;
    private final double timeoutMillis;
    private final long timeoutNanos;
    private final double graceMillis;
    private final Consumer<String> onMinority;
    private final PhiAccrual[] detectors;
    private final long[] lastBeat;
    /** When each rank's heartbeat last advanced here: a silence that only the transport's signs of life cover. */
    private final long[] beatAdvanced;
    /** Per rank: that silence is logged, once until its heartbeat advances again. */
    private final boolean[] coverLogged;
    // last sign of life per rank: written by this detector's thread, read by suspicions on the transport's threads
    private final AtomicLongArray lastChange;
    private final boolean[] suspectedByMe;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean minority;
    private boolean started; // guarded by this: a minority found before start() is reported by it
    private volatile long callbackSince;
    private volatile Consumer<Throwable> errorHandler = ex -> LOG.error("the failure detector failed", ex);
    private boolean stallReported;
    private long beat;

    FailureDetector(final Sst sst, final Column heartbeat, final Column suspected,
        final IntPredicate departing, final IntPredicate abstains,
        final List<Integer> memberIds, final FailureConfig config,
        final Duration startGrace, final Consumer<String> onMinority,
        final LongConsumer onSuspect)
    {
        this.graceMillis = startGrace.toMillis();
        this.sst = sst;
        this.heartbeat = heartbeat;
        this.suspected = suspected;
        this.departing = departing;
        this.abstains = abstains;
        this.onSuspect = onSuspect;
        this.memberIds = memberIds;
        this.intervalNanos = config.heartbeatInterval().toNanos();
        this.timeoutMillis = config.failureTimeout().toMillis();
        this.timeoutNanos = config.failureTimeout().toNanos();
        this.onMinority = onMinority;
        final int rows = sst.rows();
        final double interval = config.heartbeatInterval().toMillis();
        this.detectors = new PhiAccrual[rows];
        for (int r = 0; r < rows; r++)
        {
            detectors[r] = new PhiAccrual(interval, Math.max(1.0, interval / 2));
        }
        this.lastBeat = new long[rows];
        Arrays.fill(lastBeat, -1);
        this.beatAdvanced = new long[rows];
        this.coverLogged = new boolean[rows];
        this.lastChange = new AtomicLongArray(rows);
        this.suspectedByMe = new boolean[rows];
        this.thread = Thread.ofPlatform().name("weft-fd-" + memberIds.get(sst.myRank())).daemon(true)
            .unstarted(this::run);
        // the transport's own reports (process exit, broken connection) are suspicions too
        sst.addFailureListener((rank, reason) -> suspect(rank, reason));
    }

    /**
     * Told what a tick threw: a bug of ours, or an {@link Error} from a failure listener its suspicions run (a
     * listener's {@link RuntimeException} is logged by the table). Detection has ended then: this member's heartbeats
     * stop, and it detects nobody's failure.
     */
    void errorHandler(final Consumer<Throwable> handler)
    {
        errorHandler = handler;
    }

    /** The membership thread enters application code (trim deliveries): heartbeats stop if it stays too long. */
    void enterCallback()
    {
        callbackSince = System.nanoTime() | 1; // never 0 while inside
    }

    void leaveCallback()
    {
        callbackSince = 0;
    }

    /**
     * Starts detecting, once the epoch is installed; reports a minority found before (members that failed while the
     * view's table opened): the member could not act on it then, and must not hang in silence instead. Once only:
     * a joiner's detector starts with its first table, before the epoch does.
     */
    void start()
    {
        final boolean report;
        synchronized (this)
        {
            if (started)
            {
                return;
            }
            started = true;
            final long now = System.nanoTime();
            for (int r = 0; r < lastChange.length(); r++)
            {
                lastChange.set(r, now);
            }
            thread.start();
            report = minority;
        }
        if (report)
        {
            reportMinority(suspectedCount());
        }
    }

    /**
     * How long member {@code rank} has been silent here, in ms: the last heartbeat this detector saw advance, or the
     * transport's last sign of life from it (beats, data), whichever is later; 0 before detection starts.
     */
    long silenceMillis(final int rank)
    {
        if (!started())
        {
            return 0;
        }
        final long changed = lastChange.get(rank);
        final long heard = sst.lastHeardNanos(rank);
        final long last = heard != Long.MIN_VALUE && heard - changed > 0 ? heard : changed;
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - last);
    }

    synchronized boolean suspects(final int rank)
    {
        return suspectedByMe[rank];
    }

    /** Suspected members that count against the majority: departing ones (leave, finish, done) do not. */
    private synchronized int suspectedCount()
    {
        int c = 0;
        for (int r = 0; r < suspectedByMe.length; r++)
        {
            c += suspectedByMe[r] && !departing.test(r) ? 1 : 0;
        }
        return c;
    }

    /** Members that neither announced a leave nor finished: the electorate of the majority rule. */
    private int voters()
    {
        int v = 0;
        for (int r = 0; r < sst.rows(); r++)
        {
            v += abstains.test(r) ? 0 : 1;
        }
        return v;
    }

    private void run()
    {
        long next = System.nanoTime();
        try
        {
            while (running)
            {
                tick(System.nanoTime());
                next += intervalNanos;
                final long wait = next - System.nanoTime();
                if (wait > 0)
                {
                    LockSupport.parkNanos(this, wait);
                }
                else
                {
                    next = System.nanoTime(); // this thread was descheduled: do not burst to catch up
                }
            }
        }
        catch (final RuntimeException | Error ex)
        {
            errorHandler.accept(ex);
        }
    }

    private void tick(final long now)
    {
        final long since = callbackSince;
        if (since != 0 && now - since > timeoutNanos)
        {
            if (!stallReported)
            {
                stallReported = true;
                LOG.error("member {}: the membership thread has been in a delivery callback for more than {} ms; " +
                    "this member stops heartbeating so that the others remove it instead of waiting for it",
                    memberIds.get(sst.myRank()), (long)timeoutMillis);
            }
            return;
        }
        sst.setCounter(heartbeat, ++beat);
        sst.offer(heartbeat, sst.others()); // never waits behind data queued for a frozen peer: skips it
        sst.beat(sst.others()); // tcp, rdma: a udp datagram, which data queued for the peer cannot delay

        for (final int r : sst.others())
        {
            if (isSuspected(r))
            {
                continue;
            }
            final long seen = sst.counter(r, heartbeat);
            if (seen != lastBeat[r])
            {
                if (lastBeat[r] >= 0)
                {
                    detectors[r].sample(TimeUnit.NANOSECONDS.toMicros(now - lastChange.get(r)) / 1000.0);
                }
                lastBeat[r] = seen;
                lastChange.set(r, now);
                beatAdvanced[r] = now;
                coverLogged[r] = false;
                continue;
            }
            final long heard = sst.lastHeardNanos(r);
            if (heard != Long.MIN_VALUE && heard - lastChange.get(r) > 0)
            {
                lastChange.set(r, heard); // its beats or data are arriving: alive, its heartbeat queued behind data
                logCovered(r, now, heard);
                continue;
            }
            final double silence = TimeUnit.NANOSECONDS.toMicros(now - lastChange.get(r)) / 1000.0;
            if (lastBeat[r] < 0 && silence < timeoutMillis + graceMillis)
            {
                continue; // never heard yet: it may still be connecting to the others of a new view
            }
            final double phi = detectors[r].phi(silence);
            if (silence >= timeoutMillis && phi >= PHI_THRESHOLD)
            {
                suspect(r, String.format(Locale.ROOT, "no heartbeat for %.0f ms (phi %.1f, mean interval %.0f ms)",
                    silence, phi, detectors[r].mean()));
            }
        }
        // suspicions spread: whatever any member I still trust suspects, I suspect
        for (final int p : sst.others())
        {
            if (isSuspected(p))
            {
                continue;
            }
            for (int r = 0; r < sst.rows(); r++)
            {
                if (r != sst.myRank() && !isSuspected(r) && sst.bool(p, suspected, r))
                {
                    suspect(r, "suspected by member " + memberIds.get(p));
                }
            }
        }
    }

    /**
     * A heartbeat silent for a failure timeout while the transport still hears from the member (beats, data) is a
     * stalled data path, or signs of life that are not the member's: worth a line, once, when it decides nothing.
     */
    private void logCovered(final int r, final long now, final long heard)
    {
        if (!coverLogged[r] && lastBeat[r] >= 0 && now - beatAdvanced[r] > timeoutNanos)
        {
            coverLogged[r] = true;
            LOG.info("member {}: no heartbeat for {} ms, but its transport heard from it {} ms ago: not suspected",
                memberIds.get(r), TimeUnit.NANOSECONDS.toMillis(now - beatAdvanced[r]),
                TimeUnit.NANOSECONDS.toMillis(now - heard));
        }
    }

    private synchronized boolean isSuspected(final int rank)
    {
        return suspectedByMe[rank];
    }

    /**
     * Records a suspicion once: own row, push, freeze (which tells the failure listeners), majority check. Tells
     * {@code onSuspect} how long the member had been silent here (-1 before detection started, and for a departing
     * member: one that leaves, finished, or closes this view's table once done with its change is no failure found).
     */
    void suspect(final int rank, final String reason)
    {
        final int count;
        final boolean detecting;
        synchronized (this)
        {
            if (suspectedByMe[rank] || rank == sst.myRank())
            {
                return;
            }
            suspectedByMe[rank] = true;
            count = suspectedCount();
            detecting = started;
        }
        final boolean departed = departing.test(rank);
        final long silence = detecting && !departed ? System.nanoTime() - lastChange.get(rank) : -1;
        if (departed)
        {
            LOG.info("member {} is gone, departing (a leave, a finish or the next view): {}", memberIds.get(rank),
                reason);
        }
        else
        {
            LOG.warn("suspecting member {}: {}", memberIds.get(rank), reason);
        }
        // before the membership thread is woken: it must not act in a minority
        final boolean becameMinority = markMinority(ViewChangeRules.lostMajority(count, voters()));
        sst.freeze(rank, reason);
        onSuspect.accept(silence);
        if (becameMinority && started())
        {
            reportMinority(count); // else start() reports it
        }
    }

    private synchronized boolean started()
    {
        return started;
    }

    /**
     * The view change's own majority check ({@code minorityNow}: it counts what the transport reported too, which
     * may be ahead of this detector's suspicions): a minority it finds is reported like one found here, once.
     * Returns whether this member is in a minority.
     */
    boolean checkMinority(final boolean minorityNow)
    {
        if (markMinority(minorityNow) && started())
        {
            reportMinority(suspectedCount());
        }
        return minority;
    }

    /** Records a minority found now; true the first time only, so it is reported once. */
    private synchronized boolean markMinority(final boolean minorityNow)
    {
        final boolean becameMinority = !minority && minorityNow;
        minority |= becameMinority;
        return becameMinority;
    }

    private void reportMinority(final int count)
    {
        final StringBuilder who = new StringBuilder();
        for (int r = 0; r < sst.rows(); r++)
        {
            if (isSuspected(r) || (r != sst.myRank() && sst.isFailedOrFrozen(r)))
            {
                who.append(who.length() == 0 ? "" : ", ").append(memberIds.get(r));
            }
        }
        onMinority.accept("member " + memberIds.get(sst.myRank()) + " is in a minority partition: it suspects " +
            "members [" + who + "], " + count + " of the " + voters() + " members of a view of " + sst.rows() +
            " that are not leaving; it stops rather than go on alone");
    }

    @Override
    public void close()
    {
        running = false;
        LockSupport.unpark(thread);
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
