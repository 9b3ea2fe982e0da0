package io.weft.examples.kv;

import io.weft.membership.Subgroup;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.ToLongBiFunction;

/**
 * A replica's proposer: one thread that packs the commands of all of its member's connections into batches and sends
 * them, and protocol messages as they are, in arrival order. At most {@value #BATCHES} of its batches are in the group
 * at once; commands that come meanwhile share the next (docs/kv.md, Batching). The event loops queue commands, the
 * delivery thread hands back a permit when one of its batches is delivered. At low load the event loop (at the end
 * of its pass) or the delivery thread (at the delivery of the batch before) sends the next batch itself ({@link
 * #proposeNow}): one thread hand-off less per round trip. Whoever sends holds {@link #sending}, so batches leave in
 * sequence order.
 */
final class KvProposer
{
    static final int BATCHES = 2;
    /** A second batch goes out beside one in the group only with this many commands' work queued, or a full batch. */
    static final int SECOND_BATCH_COMMANDS = 256;
    /**
     * At low load (no batch in the group, batches of at most about this many commands of late, and no more queued) a
     * thread that must not wait sends the batch itself: one hand-off less. Under load the proposer thread sends, and
     * takes what queued meanwhile too (batches sent by the delivery thread at any size: 830-850k SET/s against
     * 910-970k; whenever the last batch was small, under load too: SET and GET 3-4% lower).
     */
    static final int DIRECT_COMMANDS = 32;
    private static final Duration SEND_WAIT = Duration.ofMillis(200);
    /** The longest an idle proposer parks: a safety net, as whoever gives it work, or stops it, wakes it. */
    private static final long IDLE_PARK_MS = 1000;
    /** How often a catch-up waiting for room to queue looks whether the proposer stopped. */
    private static final long CATCH_UP_ROOM_WAIT_MS = 100;
    private static final int FENCE_HANDED_OVER = -1;
    /**
     * The bytes the writes of one batch may copy ({@link KvStore#copyBytes}), past its first write: every member
     * applies a batch on its delivery thread, which must return within the failure timeout, and an edit copies its
     * value. Without it, 1,000 pipelined SETBITs on a 1 MiB value went in one batch that took 1.3-2.7 s to apply.
     */
    static final long BATCH_COPY_BYTES = 32L << 20;
    private static final int MADE_KEYS = 4096;
    /**
     * Bytes of catch-up messages queued at the most: a catch-up reads its log far faster than the group takes what it
     * sends, and would otherwise queue its whole stretch (a gap of millions of writes: more than the heap).
     */
    static final int CATCH_UP_QUEUED_BYTES = 8 << 20;

    /**
     * A batch sent and not yet delivered, with the commands it carries in order; a batch of reads only is a read
     * fence of the subgroup instead of a message ({@code fence}).
     */
    record Batch(long seq, long now, List<Command> commands, boolean fence)
    {
    }

    /** A cold start's catch-up message, queued within {@link #catchUpRoom}. */
    private record CatchUp(byte[] message)
    {
    }

    /** Commands, and protocol messages (byte[], {@link CatchUp}) to send as they are, in arrival order. */
    private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();
    /** Batches sent and not yet delivered, in send order (which is their delivery order). */
    private final ConcurrentLinkedQueue<Batch> inFlight = new ConcurrentLinkedQueue<>();
    private final AtomicInteger batchPermits = new AtomicInteger(BATCHES);
    /** The queued commands' work in batch bytes: each command's bytes plus {@link #commandWork} (see mayPropose). */
    private final AtomicLong queuedWork = new AtomicLong();
    /**
     * Set while the proposer is about to park or parked: whoever then gives it something it may send (commands it
     * may propose, a permit while commands wait, a protocol message) clears it and unparks it. Every side writes its
     * own state before it reads the others' (all volatile), so the last to act sees the rest.
     */
    private final AtomicBoolean idle = new AtomicBoolean();
    private final AtomicLong batchesSent = new AtomicLong();
    /** Bytes more of catch-up messages that may be queued: taken by a catch-up, given back as each is sent. */
    private final Semaphore catchUpRoom = new Semaphore(CATCH_UP_QUEUED_BYTES);
    private final Thread thread = Thread.ofPlatform().name("kv-proposer").daemon(true).unstarted(this::run);
    /** Held to build and send: by the proposer thread, or by an event loop that found it free (tryLock only). */
    private final ReentrantLock sending = new ReentrantLock();
    /** The batch buffer, used under {@link #sending}. */
    private ByteBuffer buffer;
    /**
     * Bytes of a batch in the buffer that an event loop could not send (back-pressured): the proposer sends it;
     * {@link #FENCE_HANDED_OVER}: the read fence of a batch that it could not ask.
     */
    private volatile int handedOver;
    /** Eight times the moving average of the commands per batch, each batch weighing 1/8 (see {@link #lowLoad}). */
    private volatile int batchCommandsAverage8;
    private final Consumer<String> refused;
    private final ToLongBiFunction<List<byte[]>, Map<Key, Long>> copyBytes;
    /**
     * The lengths this member's edits asked for ({@link KvStore#copyBytes}: its batches in flight are not in the store
     * yet), under {@link #sending}; forgotten past {@value #MADE_KEYS} keys.
     */
    private final Map<Key, Long> made = new HashMap<>();
    private Subgroup subgroup;
    private int origin;
    /** A batch's capacity in bytes, and the work a command counts for besides its bytes. */
    private int batchBytes;
    private int commandWork;
    private long nextSeq;
    /** Set by stop, before stopped: the replies of commands queued, and of commands sent, when it stopped. */
    private volatile Reply refusedReply;
    private volatile Reply unknownReply;
    private volatile boolean stopped;

    /**
     * A proposer that calls {@code refused} with the reason when the group refuses a send, and bounds what a batch's
     * writes copy by {@code copyBytes} (of a write's arguments after the batch's earlier edits: {@link
     * KvStore#copyBytes}).
     */
    KvProposer(final Consumer<String> refused, final ToLongBiFunction<List<byte[]>, Map<Key, Long>> copyBytes)
    {
        this.refused = refused;
        this.copyBytes = copyBytes;
    }

    /**
     * Starts sending batches of up to {@code capacity} bytes on {@code subgroup} as member {@code memberId}: fields
     * written before the thread starts.
     */
    void start(final Subgroup subgroup, final int memberId, final int capacity)
    {
        this.subgroup = subgroup;
        this.origin = memberId;
        this.batchBytes = capacity;
        this.commandWork = Math.max(1, batchBytes / SECOND_BATCH_COMMANDS);
        this.buffer = ByteBuffer.allocate(batchBytes);
        thread.start();
    }

    /**
     * An event loop: queues a command for the next batch. At low load the loop sends it itself at the end of its pass
     * ({@link #proposeNow}); otherwise the proposer does, once it may.
     */
    void submit(final Command command)
    {
        queue.add(command);
        if (stopped)
        {
            failAll(); // stop may have drained the queue before the add: no command is left without a reply
            return;
        }
        final long work = queuedWork.addAndGet(command.bytes + commandWork);
        if (mayPropose(batchPermits.get(), work) && !lowLoad())
        {
            wake(); // under load at once, so that the proposer builds beside the loop's reading
        }
    }

    /**
     * Low load, when {@link #proposeNow} may send: no batch in the group, and batches small of late (an average, as
     * under load a small batch now and then is the rule, and sending the next one at once keeps them small).
     */
    boolean lowLoad()
    {
        return batchPermits.get() == BATCHES && batchCommandsAverage8 <= DIRECT_COMMANDS * 8;
    }

    /**
     * A thread that must not wait (an event loop at the end of its pass, the delivery thread when a batch of this
     * member is delivered): at low load ({@link #DIRECT_COMMANDS}) and with nobody else sending, sends the queued
     * commands as a batch without waiting (a batch that finds the group back-pressured is left to the proposer);
     * otherwise leaves them to the proposer, woken if they may go.
     */
    void proposeNow()
    {
        if (lowLoad() && queuedWork.get() <= (long)commandWork * DIRECT_COMMANDS && sending.tryLock())
        {
            try
            {
                // permits are taken under the lock only: lowLoad's free permits are still there
                if (!stopped && handedOver == 0 && queue.peek() instanceof Command)
                {
                    sendBatch(false);
                }
            }
            finally
            {
                sending.unlock();
            }
            if (stopped)
            {
                failAll(); // stop may have failed what was in flight before this batch got there
                return;
            }
        }
        if (handedOver != 0 || !nothingToSend(queue.peek()))
        {
            wake();
        }
    }

    /** Any thread: a protocol message to send in its turn. */
    void sendRaw(final byte[] message)
    {
        queue.add(message);
        wake();
    }

    /**
     * A catch-up thread: queues a catch-up message once there is room for it (see {@link #CATCH_UP_QUEUED_BYTES}),
     * waiting meanwhile; false, queuing nothing, once the proposer stopped (or the thread is interrupted).
     */
    boolean sendCatchUp(final byte[] message)
    {
        try
        {
            while (!stopped)
            {
                if (catchUpRoom.tryAcquire(message.length, CATCH_UP_ROOM_WAIT_MS, TimeUnit.MILLISECONDS))
                {
                    queue.add(new CatchUp(message));
                    wake();
                    return true;
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /** Whether {@link #stop} was called: nothing more is sent. */
    boolean stopped()
    {
        return stopped;
    }

    /**
     * Delivery thread, at the delivery of this member's batch {@code seq}: the batch if it is the oldest in flight
     * (its permit is back), or null if it is not (the proposer stopped and failed its batches already).
     */
    Batch delivered(final long seq)
    {
        final Batch batch = inFlight.peek();
        if (batch == null || batch.seq != seq)
        {
            return null;
        }
        inFlight.remove(batch);
        batchPermits.incrementAndGet();
        proposeNow(); // the next batch leaves from here: no hand-off to the proposer thread
        return batch;
    }

    /**
     * Delivery thread, when a read fence of this member passes: the batch of reads it was asked for if it is the
     * oldest in flight (its permit is back), or null (the proposer stopped and failed its batches already).
     */
    Batch fenced()
    {
        final Batch batch = inFlight.peek();
        if (batch == null || !batch.fence)
        {
            return null;
        }
        inFlight.remove(batch);
        batchPermits.incrementAndGet();
        proposeNow();
        return batch;
    }

    long batchesSent()
    {
        return batchesSent.get();
    }

    /** Sends nothing more; queued commands get {@code error}, those in flight {@code unknown} (they may apply). */
    void stop(final Reply error, final Reply unknown)
    {
        refusedReply = error;
        unknownReply = unknown;
        stopped = true;
        failAll();
        LockSupport.unpark(thread); // an idle proposer ends now; a proposer about to park does not park
    }

    /**
     * After stop, from any thread that may have added work since (stop, a late submit, the proposer's last batch):
     * fails what is queued and in flight. A command's reply is set once, so a second call changes nothing.
     */
    private void failAll()
    {
        Object queued;
        while ((queued = queue.poll()) != null)
        {
            if (queued instanceof Command command)
            {
                command.complete(refusedReply);
            }
        }
        Batch batch;
        while ((batch = inFlight.poll()) != null)
        {
            batch.commands.forEach(c -> c.complete(unknownReply));
        }
    }

    /** After {@link #stop}: ends a wait of the thread at once. */
    void close()
    {
        thread.interrupt();
    }

    private void run()
    {
        while (!stopped)
        {
            if (handedOver == 0 && nothingToSend(queue.peek()))
            {
                park();
                continue;
            }
            sending.lock();
            try
            {
                final Object first = queue.peek();
                if (handedOver != 0)
                {
                    final int length = handedOver;
                    handedOver = 0;
                    send(length == FENCE_HANDED_OVER ? null : buffer.array(), length, true);
                }
                else if (first instanceof byte[] raw)
                {
                    queue.poll();
                    send(raw, raw.length, true);
                }
                else if (first instanceof CatchUp c)
                {
                    queue.poll();
                    catchUpRoom.release(c.message.length);
                    send(c.message, c.message.length, true);
                }
                else if (!nothingToSend(first))
                {
                    sendBatch(true);
                }
            }
            finally
            {
                sending.unlock();
            }
        }
        failAll(); // a batch taken while stop drained is in flight now, or in the queue
    }

    /**
     * Under {@link #sending}, with a permit free and a command first in the queue: takes a permit and the queued
     * commands that fit, and sends them as a batch, waiting while back-pressured if {@code wait}; if not, a batch
     * that finds the group back-pressured stays in the buffer for the proposer.
     */
    private void sendBatch(final boolean wait)
    {
        batchPermits.decrementAndGet(); // permits are taken under the lock only: the one seen is still there
        final List<Command> commands = new ArrayList<>();
        final long now = System.currentTimeMillis();
        int size = KvWire.HEADER;
        long copies = 0;
        while (queue.peek() instanceof Command next && size + next.bytes <= buffer.capacity())
        {
            copies += next.write ? copyBytes.applyAsLong(next.args, made) : 0;
            if (copies > BATCH_COPY_BYTES && !commands.isEmpty())
            {
                break; // it opens the next batch
            }
            commands.add(next);
            queue.poll();
            size += next.bytes;
        }
        queuedWork.addAndGet(-(size - KvWire.HEADER + (long)commands.size() * commandWork));
        final int average8 = batchCommandsAverage8;
        batchCommandsAverage8 = average8 - (average8 >> 3) + commands.size(); // written under the lock only
        if (made.size() > MADE_KEYS)
        {
            made.clear(); // stale lengths only make batches smaller; this bounds what they hold
        }
        final List<List<byte[]>> writes = Command.writes(commands);
        final Batch batch = new Batch(nextSeq++, now, commands, writes.isEmpty());
        inFlight.add(batch); // before sending: it may be delivered before send returns
        batchesSent.incrementAndGet(); // so is the count: a client that saw the reply sees it in INFO
        if (!batch.fence)
        {
            KvWire.encodeBatch(buffer.clear(), origin, batch.seq, batch.now, writes);
        }
        if (!send(batch.fence ? null : buffer.array(), batch.fence ? 0 : buffer.position(), wait))
        {
            handedOver = batch.fence ? FENCE_HANDED_OVER : buffer.position();
        }
    }

    /**
     * With nothing it may send: parks until it has, or it is stopped (at most {@value #IDLE_PARK_MS} ms). Two
     * threads on two cores: it parks rather than spin.
     */
    private void park()
    {
        idle.set(true); // before the re-check: whoever adds work after it sees the flag
        if (handedOver == 0 && nothingToSend(queue.peek()))
        {
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(IDLE_PARK_MS));
        }
        idle.set(false);
    }

    /** Whether, {@code head} first in the queue, nothing may go: no work, or commands not to propose yet. */
    private boolean nothingToSend(final Object head)
    {
        return head == null || head instanceof Command && !mayPropose(batchPermits.get(), queuedWork.get());
    }

    /**
     * Whether queued commands of {@code work} may go out as a batch with {@code permits} free: at once when no batch
     * is in the group; beside one only with a batch's worth of work (each command counting 1/{@value
     * #SECOND_BATCH_COMMANDS} of a batch besides its bytes), since every batch costs each member a multicast round
     * whatever it carries, and the commands that wait go with the next batch within one round.
     */
    private boolean mayPropose(final int permits, final long work)
    {
        return permits == BATCHES || permits > 0 && work >= batchBytes;
    }

    /** Any thread that gave the proposer something it may send: one unpark per idle spell, not one per command. */
    private void wake()
    {
        if (idle.get() && idle.compareAndSet(true, false))
        {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Sends {@code length} bytes, or asks the read fence of a batch of reads if {@code bytes} is null, waiting while
     * back-pressured or while the view changes if {@code wait}; a refusal is reported to the replica. Returns false
     * only if it did not wait and the group was back-pressured (or changing its view).
     */
    private boolean send(final byte[] bytes, final int length, final boolean wait)
    {
        try
        {
            if (!wait)
            {
                return attempt(bytes, length, Duration.ZERO) >= 0;
            }
            long index = Subgroup.BACK_PRESSURED;
            while (index < 0 && !stopped)
            {
                index = attempt(bytes, length, SEND_WAIT); // parks while back-pressured, up to SEND_WAIT
            }
        }
        catch (final RuntimeException ex)
        {
            refused.accept("the group refused the command: " + ex.getMessage());
        }
        return true;
    }

    /** A message index or fence ticket (&gt;= 0), or a negative result of the subgroup. */
    private long attempt(final byte[] bytes, final int length, final Duration timeout)
    {
        return bytes == null ? subgroup.fence(timeout) : subgroup.send(bytes, 0, length, timeout);
    }
}
