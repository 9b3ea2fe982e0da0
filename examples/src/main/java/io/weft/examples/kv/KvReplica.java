package io.weft.examples.kv;

import io.weft.membership.Group;
import io.weft.membership.GroupBuilder;
import io.weft.membership.Subgroup;
import io.weft.membership.View;
import io.weft.smc.Message;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One member's replica of the key-value store on a group: commands from every client connection of this member
 * queue up, a proposer thread ({@link KvProposer}) packs them into batches (one multicast message of at most the
 * subgroup's max-payload) and sends them in the subgroup {@value #SUBGROUP}; every member applies the writes of every
 * batch in delivery order, the same total order everywhere.
 * <ul>
 *     <li>Replies: a command's reply is computed when its own batch is delivered here, in batch order, so a client's
 *     pipelined commands see each other's effects.</li>
 *     <li>Linearizable reads (the default): a read in a batch with writes takes its place in the order and only its
 *     sender evaluates it; a batch of reads only is a read fence of the subgroup ({@link Subgroup#fence}), no
 *     message: its reads are evaluated once every write that completed anywhere before it was asked is applied here
 *     (a write completes when delivered, so stable, so received here), after this member's earlier batches and
 *     before its later ones.</li>
 *     <li>Local reads ({@code reads = local}, sequentially consistent): evaluated at once on the member's copy, unless
 *     the same connection still waits for a write.</li>
 *     <li>Failures: a batch sent but not delivered when the view changes is sent again by the group in the next view,
 *     so an acknowledged write is in every survivor's state. In a minority partition, or once the group is closed,
 *     commands get a {@code CLUSTERDOWN} error naming the reason.</li>
 *     <li>Durability (with a log directory): every member appends each batch that holds a write to its
 *     {@link KvLog} before applying it, numbered by its write position, so an acknowledged write is on its sender's
 *     disk. A cold start of the whole group replays each log, then recovers before serving: each member multicasts
 *     RECOVER (its position and the first it holds a batch for); every position between the lowest and the highest
 *     is multicast again as CATCHUP by the lowest-id member whose log holds it; a member that reached the highest
 *     position multicasts RECOVERED; all serve once every member has ({@link KvRecovery}, {@link ColdStart}: a view
 *     change meanwhile plans again among the survivors). A joiner's state (a snapshot at its position) starts its log
 *     anew.</li>
 * </ul>
 */
public final class KvReplica implements AutoCloseable
{
    public static final String SUBGROUP = "kv";
    /** SLOWLOG's settings by default, as Redis's: commands of 10 ms or more, the newest 128 ({@link #slowLog}). */
    public static final long SLOWLOG_SLOWER_THAN_MICROS = 10_000;
    public static final int SLOWLOG_MAX_LEN = 128;
    /** Batches between two publications of how far this member's log reaches. */
    private static final int PERSISTED_EVERY = 64;

    final KvStore store = new KvStore();
    /** This member's pub/sub subscriptions (PUBLISH travels through the group as a write). */
    final PubSub pubSub = store.pubSub;
    /** Commands of this member's clients that took long to apply here (SLOWLOG). */
    final SlowLog slowLog = new SlowLog();
    /** This member's latency spikes (LATENCY). */
    final LatencyMonitor latency = new LatencyMonitor();
    /** What this member's clients ran: INFO's commandstats, errorstats, totals, keyspace hits and misses. */
    final CommandStats stats = new CommandStats();
    /** SAVE, BGSAVE and SYNC: this member's copy as an RDB file (in the log's directory or the working one). */
    final RdbSaver saver = new RdbSaver(Path.of(""));
    final BatchApplier applier = new BatchApplier(store, slowLog, latency, stats, saver);
    /** When this replica was made, at its member's start: INFO's uptime ({@link System#nanoTime}). */
    final long startedNanos = System.nanoTime();
    private final boolean localReads;
    final KvLog log;
    private final CountDownLatch serving = new CountDownLatch(1);
    /** Write position: batches with a write applied here (predicate thread; replay and state transfer before it). */
    long applied;
    /** Client connections open, and those not read because they do not take their replies (INFO's Clients). */
    final AtomicInteger connectedClients = new AtomicInteger();
    final AtomicInteger clientsPausedForOutput = new AtomicInteger();
    /** Writes that may grow the store are refused while it holds more than this ({@link KvStore#bytes}). */
    volatile long maxMemory = Runtime.getRuntime().maxMemory() / 2;
    final KvProposer proposer = new KvProposer(this::stop, store::copyBytes);
    private final AtomicBoolean proposeScheduled = new AtomicBoolean();
    private final Runnable proposeTask = () ->
    {
        proposeScheduled.set(false); // first: commands queued from now on schedule another pass
        proposer.proposeNow();
    };
    volatile Group group;
    private volatile String down;
    /** The current view: told before any delivery in it. */
    private volatile View view;
    int me;
    /** This member's part in a cold start (made with {@link #me}, before the group starts). */
    private KvRecovery recovery;

    /** Applies the writes of an encoded batch of write position {@code position}. */
    interface Applier
    {
        void apply(long position, byte[] batch, int length);
    }

    /**
     * A replica; with {@code logDirectory} a durable one, rebuilt from the log found there (created if missing).
     *
     * @throws IllegalStateException the log is damaged, naming where.
     */
    public KvReplica(final boolean localReads, final Path logDirectory)
    {
        this(localReads, logDirectory, KvLog.COMPACT_AFTER_BYTES);
    }

    /**
     * A replica whose log is compacted once {@code compactAfter} bytes of batches follow its last snapshot.
     *
     * @throws IllegalStateException the log is damaged, naming where.
     */
    public KvReplica(final boolean localReads, final Path logDirectory, final long compactAfter)
    {
        this.localReads = localReads;
        this.log = logDirectory == null ? null : new KvLog(logDirectory, compactAfter);
        this.applied = log == null ? 0 : log.replay(store, applier::applyWrites);
        store.versions().at(applied); // the snapshot's position when no batch follows it
        if (log != null)
        {
            saver.directory(log.directory());
        }
        saver.loaded(applier.writes.get());
    }

    /**
     * Where SAVE and BGSAVE write {@value RdbSaver#FILE} (Redis's {@code dir}); by default the log's directory, or the
     * working directory without a log.
     */
    public KvReplica rdbDirectory(final Path directory)
    {
        saver.directory(directory);
        return this;
    }

    /**
     * Refuses writes that may make the store larger (SET, APPEND, INCR, ...; not DEL, EXPIRE or FLUSHDB) while it
     * holds more than {@code bytes} ({@link KvStore#bytes}), as Redis's {@code maxmemory} with {@code noeviction}
     * does; by default half of this JVM's heap. Each member decides for the commands its own clients send, before they
     * enter the order, so every member still applies the same writes; writes in flight may pass the limit by what they
     * carry. Without it, a store that outgrew the heap stopped a member with {@code OutOfMemoryError} on its delivery
     * thread, left the others (which apply the same writes) at the edge of theirs, and its donor ran out of heap at
     * each attempt to rejoin it.
     *
     * @return this replica.
     */
    public KvReplica maxMemory(final long bytes)
    {
        if (bytes < 1)
        {
            throw new IllegalArgumentException("max-memory must be a positive number of bytes, was " + bytes);
        }
        maxMemory = bytes;
        return this;
    }

    /**
     * Logs the commands of this member's clients that take at least {@code micros} microseconds to apply (0: every
     * one; negative: none), the newest {@code maxLen} of them, for SLOWLOG ({@link SlowLog}; Redis's
     * {@code slowlog-log-slower-than} and {@code slowlog-max-len}, 10,000 and 128 by default).
     *
     * @return this replica.
     * @throws IllegalArgumentException {@code maxLen} is negative.
     */
    public KvReplica slowLog(final long micros, final int maxLen)
    {
        slowLog.configure(micros, maxLen);
        return this;
    }

    /**
     * Keeps the latency spikes of this member's clients' commands that take at least {@code millis} milliseconds to
     * apply (0, the default: none), for LATENCY ({@link LatencyMonitor}; Redis's {@code latency-monitor-threshold}).
     *
     * @return this replica.
     * @throws IllegalArgumentException {@code millis} is negative.
     */
    public KvReplica latencyMonitor(final long millis)
    {
        latency.threshold(millis);
        return this;
    }

    /** The write position this replica has applied (after a replay: what its log held). */
    public long applied()
    {
        return applied;
    }

    /**
     * Adds this replica's delivery handler, view listener, state transfer and minority listener to a group being
     * built for member {@code memberId} (deliveries may start before {@link #start} is called).
     */
    public GroupBuilder attach(final GroupBuilder builder, final int memberId)
    {
        this.me = memberId;
        this.recovery = new KvRecovery(this);
        return builder.onDelivery(SUBGROUP, this::onMessage)
            .onFence(SUBGROUP, ticket -> onFence())
            .onView(this::onView)
            .stateTransfer(new KvStateTransfer(store, log, () -> applied, () -> recovery.current().running(),
                position -> store.versions().at(applied = position)))
            .onMinority(reason -> stop("this member is in a minority partition: " + reason));
    }

    /**
     * Starts proposing on {@code opened} (built with {@link #attach}). A durable replica that opened view 0 (a cold
     * start, {@code coldStart}) first recovers with the others; {@link #awaitServing} says when it is done.
     */
    public void start(final Group opened, final boolean coldStart)
    {
        this.group = opened;
        proposer.start(opened.subgroup(SUBGROUP), me, batchCapacity());
        if (log != null && coldStart)
        {
            proposer.sendRaw(KvWire.recover(me, applied, log.firstBatch(), 0));
        }
        else
        {
            serving.countDown();
        }
    }

    /** Membership thread, before any delivery in {@code v}: the view, then the cold start's part in it. */
    private void onView(final View v)
    {
        view = v;
        recovery.onView(v);
    }

    /** Waits until the replica may serve clients (recovery done); false on timeout or if it stopped. */
    public boolean awaitServing(final Duration timeout) throws InterruptedException
    {
        return serving.await(timeout.toMillis(), TimeUnit.MILLISECONDS) && down() == null;
    }

    public boolean localReads()
    {
        return localReads;
    }

    /** The other members of the view: a write is answered once delivered, so once each of them received it. */
    int replicas()
    {
        return group.view().members().size() - 1;
    }

    /** The largest batch: a CATCHUP message carries one after its own header. */
    private int batchCapacity()
    {
        return group.subgroup(SUBGROUP).maxPayload() - KvWire.HEADER;
    }

    /** The largest command (its arguments' bytes plus 4 per argument) that fits a batch. */
    public int maxCommandBytes()
    {
        return batchCapacity() - KvWire.HEADER - 4;
    }

    /**
     * An event loop: queues a command for the group, then calls {@link #proposeAfterReads} at the end of its read
     * burst. The reply is set when the command's batch is delivered here, or at once if refused.
     */
    void submit(final Command command)
    {
        final String reason = down();
        if (reason != null)
        {
            refuse(command, "CLUSTERDOWN " + reason);
        }
        else if (command.write && store.bytes() > maxMemory && Commands.mayGrow(command.args))
        {
            refuse(command, "OOM command not allowed when used memory > 'maxmemory'.");
        }
        else if (command.write && command.bytes > maxCommandBytes())
        {
            refuse(command, "ERR command of " + command.bytes + " bytes exceeds the replicated store's limit of " +
                maxCommandBytes() + " bytes (weft.subgroups[" + SUBGROUP + "].max-payload)");
        }
        else
        {
            proposer.submit(command);
        }
    }

    /** Refused before it ran: a rejected call in INFO's commandstats. */
    private static void refuse(final Command command, final String error)
    {
        command.rejected = true;
        command.complete(Reply.error(error));
    }

    /**
     * An event loop after a read burst that submitted commands: at low load, proposes them once at the end of its
     * pass, when every connection's burst of that pass is queued ({@link KvProposer#proposeNow}); under load the
     * proposer was woken by the submits already.
     */
    void proposeAfterReads(final Executor loop)
    {
        if (proposer.lowLoad() && !proposeScheduled.get() && proposeScheduled.compareAndSet(false, true))
        {
            loop.execute(proposeTask);
        }
    }

    /**
     * A read on this member's copy now (local reads): a command that {@link Commands#isLocalRead} accepts. Refused
     * once the replica is {@link #down}: its copy no longer follows the group's. Null if writes kept changing the
     * copy while it was read: the read is to go through the group ({@link WriteSequence}).
     */
    public Reply readLocal(final List<byte[]> args)
    {
        final String name = Commands.name(args);
        if (!Commands.isLocalRead(name))
        {
            throw new IllegalArgumentException(name + " is not a local read: submit it to the group");
        }
        final String reason = down();
        if (reason != null)
        {
            return Reply.error("CLUSTERDOWN " + reason);
        }
        final long now = System.currentTimeMillis();
        stats.read(store, name, args, null, now);
        final Reply reply = store.readBetweenWrites(args, now);
        if (reply != null)
        {
            applier.reads.incrementAndGet(); // one that goes through the group is counted there
        }
        return reply;
    }

    /** A connection's WATCH of {@code key}: this member's copy now, compared at EXEC by every member alike. */
    Transaction.Watch watch(final byte[] key)
    {
        return store.watch(key, System.currentTimeMillis());
    }

    /**
     * Why this replica refuses commands, or null while it serves: its own reason, or its group's once the member
     * stopped (a fault on its delivery thread stops it with no command refused, and a local read would serve a
     * state the others have left behind).
     */
    public String down()
    {
        final String reason = down;
        final Group g = group;
        return reason != null || g == null ? reason : g.minorityReason();
    }

    // ---- delivery (predicate thread) ---------------------------------------------------------------------------

    /**
     * A message this member cannot apply stops it serving: the others apply it, so its copy no longer follows the
     * group's. The exception goes on to the delivery layer, which logs and counts it; before, that was all, and the
     * member went on serving a copy that lacked the message.
     */
    private void onMessage(final Message message)
    {
        try
        {
            deliver(message);
        }
        catch (final RuntimeException ex)
        {
            stop("message " + message.index() + " of member " + message.senderId() + " could not be applied here (" +
                ex.getMessage() + "): this member's copy no longer follows the group's");
            throw ex;
        }
    }

    private void deliver(final Message message)
    {
        final byte[] bytes = new byte[message.length()];
        message.copyTo(bytes, 0);
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        if (bytes.length < KvWire.HEADER || in.get(0) != KvWire.VERSION)
        {
            throw new IllegalStateException("a key-value message of " + bytes.length + " bytes and version " +
                (bytes.length == 0 ? "none" : in.get(0)) + ", where this member speaks version " + KvWire.VERSION +
                " (the members of a group must run one build of the store)");
        }
        final int origin = in.getInt(KvWire.ORIGIN_OFFSET);
        switch (in.get(KvWire.KIND_OFFSET))
        {
            case KvWire.RECOVER -> recovery.current().onReport(origin, in.getInt(KvWire.ROUND_OFFSET),
                in.getLong(KvWire.SEQ_OFFSET), in.getLong(KvWire.NOW_OFFSET), view.id(), view.members(), applied);
            case KvWire.CATCHUP -> recovery.onCatchUp(in.getLong(KvWire.SEQ_OFFSET),
                Arrays.copyOfRange(bytes, KvWire.HEADER, bytes.length));
            case KvWire.RECOVERED -> recovery.current().onRecovered(origin, view.members());
            default -> onBatch(origin, bytes);
        }
    }

    private void onBatch(final int origin, final byte[] bytes)
    {
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        final long seq = in.getLong(KvWire.SEQ_OFFSET);
        final boolean write = in.getInt(KvWire.WRITES_OFFSET) > 0;
        if (write && recovery.current().stopped())
        {
            return; // the others serve without this member: its log must not take writes at positions it cannot know
        }
        if (write && recovery.current().running())
        {
            // only a member that serves proposes, and the cold start's members serve together, after it: this came
            // from one outside it; applied, its position would differ between members still catching up
            stop("member " + origin + " sent client writes during the cold start's recovery (one outside it, such " +
                "as a joiner, served before the group recovered): their positions would differ between members");
            return;
        }
        if (write)
        {
            store.versions().writing(++applied, bytes[0]);
            if (log != null)
            {
                log.appendBatch(applied, bytes, bytes.length); // on disk before it is applied and acknowledged
            }
        }
        final KvProposer.Batch batch = origin == me ? proposer.delivered(seq) : null;
        if (batch != null)
        {
            applier.completeOwn(batch);
        }
        else
        {
            // another member's batch, or this member's after it stopped serving: the writes still apply here
            applier.applyWrites(applied, bytes, bytes.length);
        }
        if (write)
        {
            store.versions().written(); // a WATCH may take this position once every change of it is applied
            logged(); // after the writes applied: a snapshot taken now is the store at write position applied
            final List<Command> woken = store.blocked.woken();
            woken.forEach(proposer::submit); // clients blocked on a list the batch filled try again
            if (!woken.isEmpty())
            {
                proposer.proposeNow();
            }
        }
    }

    /** A read fence of this member passed: the reads of its batch see every write completed before it was asked. */
    private void onFence()
    {
        final KvProposer.Batch batch = proposer.fenced();
        if (batch != null)
        {
            applier.completeOwn(batch);
        }
    }

    /** A cold start's catch-up batch at the next write position: logged, then applied. */
    void applyCaughtUp(final byte[] batch)
    {
        log.appendBatch(++applied, batch, batch.length);
        applier.applyWrites(applied, batch, batch.length);
        logged();
    }

    /**
     * After a batch is logged and applied (on the predicate thread), if this member logs: every {@value
     * #PERSISTED_EVERY} batches it publishes how far its log reaches, so that the group's logged frontier (the least
     * over the view) is known; a compaction that is due keeps the batches past that frontier, which another member may
     * still ask for in a cold start.
     */
    private void logged()
    {
        final Group g = group;
        if (g == null || log == null)
        {
            return; // no log, or a joiner's state being installed: its group is not up yet
        }
        final Subgroup subgroup = g.subgroup(SUBGROUP);
        if (applied % PERSISTED_EVERY == 0)
        {
            subgroup.markPersisted(applied);
        }
        if (log.compactionDue() && serving.getCount() == 0 && !recovery.reading()) // not while a catch-up reads the log
        {
            log.compact(subgroup.persistedFrontier(), applied, store::cut);
        }
    }

    /** The cold start recovered: clients may be served. */
    void serve()
    {
        serving.countDown();
    }

    /** Refuses commands from now on and fails every queued and unfinished one with {@code reason}. */
    void stop(final String reason)
    {
        if (down != null)
        {
            return;
        }
        down = reason;
        serving.countDown();
        store.blocked.failAll(Reply.error("CLUSTERDOWN " + reason));
        proposer.stop(Reply.error("CLUSTERDOWN " + reason),
            Reply.error("CLUSTERDOWN " + reason + " (the command may or may not have been applied)"));
    }

    @Override
    public void close()
    {
        stop("the member is shutting down");
        proposer.close();
        final Group g = group;
        if (g != null)
        {
            g.close();
        }
        if (log != null)
        {
            log.close();
        }
    }
}
