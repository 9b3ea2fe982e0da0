package io.weft.examples.kv;

import io.weft.membership.Subgroup;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A replica's proposer: one thread that packs the commands of all of its member's connections into batches and sends
 * them, and protocol messages as they are, in arrival order. At most {@value #BATCHES} of its batches are in the group
 * at once; commands that come meanwhile share the next (docs/kv.md, Batching). The event loops queue commands, the
 * delivery thread hands back a permit when one of its batches is delivered.
 */
final class KvProposer
{
    static final int BATCHES = 2;
    /** A second batch goes out beside one in the group only with this many commands' work queued, or a full batch. */
    static final int SECOND_BATCH_COMMANDS = 256;
    private static final Duration SEND_WAIT = Duration.ofMillis(200);
    /** The longest an idle proposer parks before it looks whether it was stopped. */
    private static final long IDLE_PARK_MS = 100;

    /** A batch sent and not yet delivered, with the commands it carries in order. */
    record Batch(long seq, long now, List<Command> commands)
    {
    }

    /** Commands, and protocol messages (byte[]) to send as they are, in arrival order. */
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
    private final Thread thread = Thread.ofPlatform().name("kv-proposer").daemon(true).unstarted(this::run);
    private final Consumer<String> refused;
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

    /** A proposer that calls {@code refused} with the reason when the group refuses a send. */
    KvProposer(final Consumer<String> refused)
    {
        this.refused = refused;
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
        thread.start();
    }

    /** Any thread: queues a command for the next batch. */
    void submit(final Command command)
    {
        queue.add(command);
        if (stopped)
        {
            failAll(); // stop may have drained the queue before the add: no command is left without a reply
            return;
        }
        final long work = queuedWork.addAndGet(command.bytes + commandWork);
        if (mayPropose(batchPermits.get(), work))
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
        if (!nothingToSend(queue.peek()))
        {
            wake();
        }
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
        final ByteBuffer buffer = ByteBuffer.allocate(batchBytes);
        while (!stopped)
        {
            final Object first = queue.peek();
            if (first instanceof byte[] raw)
            {
                queue.poll();
                send(raw, raw.length);
                continue;
            }
            if (nothingToSend(first))
            {
                park();
                continue;
            }
            batchPermits.decrementAndGet(); // only this thread takes permits: the one seen is still there
            final List<Command> commands = new ArrayList<>();
            int size = KvWire.HEADER;
            while (queue.peek() instanceof Command next && size + next.bytes <= buffer.capacity())
            {
                commands.add(next);
                queue.poll();
                size += next.bytes;
            }
            queuedWork.addAndGet(-(size - KvWire.HEADER + (long)commands.size() * commandWork));
            final Batch batch = new Batch(nextSeq++, System.currentTimeMillis(), commands);
            KvWire.encodeBatch(buffer.clear(), origin, batch.seq, batch.now, Command.writes(commands));
            inFlight.add(batch); // before sending: it may be delivered before send returns
            batchesSent.incrementAndGet(); // so is the count: a client that saw the reply sees it in INFO
            send(buffer.array(), buffer.position());
        }
        failAll(); // a batch taken while stop drained is in flight now, or in the queue
    }

    /**
     * With nothing it may send: parks until it has (or {@value #IDLE_PARK_MS} ms pass, to notice a stop). Two
     * threads on two cores: it parks rather than spin.
     */
    private void park()
    {
        idle.set(true); // before the re-check: whoever adds work after it sees the flag
        if (nothingToSend(queue.peek()))
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

    /** Sends, waiting while back-pressured; a refusal is reported to the replica. */
    private void send(final byte[] bytes, final int length)
    {
        try
        {
            long index = Subgroup.BACK_PRESSURED;
            while (index < 0 && !stopped)
            {
                index = subgroup.send(bytes, 0, length, SEND_WAIT); // parks while back-pressured, up to SEND_WAIT
            }
        }
        catch (final RuntimeException ex)
        {
            refused.accept("the group refused the command: " + ex.getMessage());
        }
    }
}
