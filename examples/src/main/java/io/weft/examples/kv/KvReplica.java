package io.weft.examples.kv;

import io.weft.membership.Group;
import io.weft.membership.GroupBuilder;
import io.weft.membership.StateTransfer;
import io.weft.membership.Subgroup;
import io.weft.membership.View;
import io.weft.smc.Message;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One member's replica of the key-value store on a group: commands from every client connection of this member
 * queue up, a proposer thread packs them into batches (one multicast message of at most the subgroup's
 * max-payload) and sends them in the subgroup {@value #SUBGROUP}; every member applies the writes of every batch in
 * delivery order, the same total order everywhere.
 * <ul>
 *     <li>Replies: a command's reply is computed when its own batch is delivered here, in batch order, so a client's
 *     pipelined commands see each other's effects.</li>
 *     <li>Linearizable reads (the default): a read travels in a batch too, as a place in the order, though only its
 *     sender evaluates it; a batch of reads only is a fence of a few bytes. It is evaluated after every write that
 *     completed anywhere before it was sent (a write completes when delivered, so stable, so ordered before any
 *     later send).</li>
 *     <li>Local reads ({@code reads = local}, sequentially consistent): evaluated at once on the member's copy, unless
 *     the same connection still waits for a write.</li>
 *     <li>Failures: a batch sent but not delivered when the view changes is sent again by the group in the next view,
 *     so an acknowledged write is in every survivor's state. In a minority partition, or once the group is closed,
 *     commands get a {@code CLUSTERDOWN} error naming the reason.</li>
 * </ul>
 */
public final class KvReplica implements AutoCloseable
{
    public static final String SUBGROUP = "kv";
    /** Header of a batch: version, origin member id, batch sequence, clock reading, count of writes. */
    static final int HEADER = 4 + 4 + 8 + 8 + 4;
    private static final byte VERSION = 1;
    private static final Duration SEND_WAIT = Duration.ofMillis(200);

    private final KvStore store = new KvStore();
    private final boolean localReads;
    private final LinkedBlockingQueue<Op> queue = new LinkedBlockingQueue<>();
    /** This member's batches sent and not yet delivered, in send order (which is their delivery order). */
    private final ConcurrentLinkedQueue<Batch> inFlight = new ConcurrentLinkedQueue<>();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong batches = new AtomicLong();
    private final Thread proposer;
    private volatile Group group;
    private volatile String down;
    private int me;
    private long nextSeq;

    /** A command and where its reply goes. */
    record Op(List<byte[]> args, boolean write, CompletableFuture<Reply> reply, int bytes)
    {
    }

    private record Batch(long seq, long now, List<Op> ops)
    {
    }

    public KvReplica(final boolean localReads)
    {
        this.localReads = localReads;
        this.proposer = Thread.ofPlatform().name("kv-proposer").daemon(true).unstarted(this::propose);
    }

    /** Adds this replica's delivery handler, state transfer and minority listener to a group being built. */
    public GroupBuilder attach(final GroupBuilder builder)
    {
        return builder.onDelivery(SUBGROUP, this::onMessage)
            .stateTransfer(new StateTransfer()
            {
                @Override
                public byte[] snapshot()
                {
                    return store.snapshot();
                }

                @Override
                public void install(final byte[] state)
                {
                    store.install(state);
                }
            })
            .onMinority(reason -> stop("this member is in a minority partition: " + reason));
    }

    /** Starts proposing on {@code opened} (built with {@link #attach}). */
    public void start(final Group opened)
    {
        this.group = opened;
        this.me = opened.memberId();
        proposer.start();
    }

    public boolean localReads()
    {
        return localReads;
    }

    /** The largest command (its arguments' bytes plus 4 per argument) that fits a batch. */
    public int maxCommandBytes()
    {
        return group.subgroup(SUBGROUP).maxPayload() - HEADER - 4;
    }

    /** Queues a command for the group; the future completes with its reply. */
    public CompletableFuture<Reply> submit(final List<byte[]> args, final boolean write)
    {
        final CompletableFuture<Reply> reply = new CompletableFuture<>();
        int bytes = 4;
        for (final byte[] a : args)
        {
            bytes += 4 + a.length;
        }
        final String reason = down;
        if (reason != null)
        {
            reply.complete(Reply.error("CLUSTERDOWN " + reason));
        }
        else if (write && bytes > maxCommandBytes())
        {
            reply.complete(Reply.error("ERR command of " + bytes + " bytes exceeds the replicated store's limit of " +
                maxCommandBytes() + " bytes (weft.subgroups[" + SUBGROUP + "].max-payload)"));
        }
        else
        {
            queue.add(new Op(args, write, reply, write ? bytes : 0));
        }
        return reply;
    }

    /** A read on this member's copy now (local reads). */
    public Reply readLocal(final List<byte[]> args)
    {
        reads.incrementAndGet();
        return store.apply(args, System.currentTimeMillis());
    }

    /** Why this replica refuses commands, or null while it serves. */
    public String down()
    {
        return down;
    }

    /** The INFO text: server, replication (the view) and keyspace sections. */
    public String info()
    {
        final Group g = group;
        final View view = g.view();
        final long now = System.currentTimeMillis();
        return "# Server\r\nredis_version:7.2.0\r\nweft_store:replicated key-value store on a Weft group\r\n" +
            "process_id:" + ProcessHandle.current().pid() + "\r\n" +
            "\r\n# Replication\r\nrole:master\r\nweft_member_id:" + me + "\r\nweft_view_id:" + view.id() + "\r\n" +
            "weft_view_members:" + view.members() + "\r\nweft_view_leader:" + view.members().getFirst() + "\r\n" +
            "weft_transport:" + g.config().transport().kind().name().toLowerCase(java.util.Locale.ROOT) + "\r\n" +
            "weft_reads:" + (localReads ? "local" : "linearizable") + "\r\n" +
            "weft_writes_applied:" + writes.get() + "\r\nweft_reads_served:" + reads.get() + "\r\n" +
            "weft_batches_sent:" + batches.get() + "\r\nweft_status:" + (down == null ? "ok" : down) + "\r\n" +
            "\r\n# Keyspace\r\ndb0:keys=" + store.size(now) + ",expires=" + store.expiring(now) + ",avg_ttl=0\r\n";
    }

    // ---- proposer thread -------------------------------------------------------------------------------------

    private void propose()
    {
        final Subgroup subgroup = group.subgroup(SUBGROUP);
        final ByteBuffer buffer = ByteBuffer.allocate(subgroup.maxPayload());
        while (down == null)
        {
            final Op first;
            try
            {
                first = queue.poll(100, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            if (first == null)
            {
                continue;
            }
            final List<Op> ops = new ArrayList<>();
            ops.add(first);
            int size = HEADER + first.bytes;
            Op next;
            while ((next = queue.peek()) != null && size + next.bytes <= buffer.capacity())
            {
                ops.add(queue.poll());
                size += next.bytes;
            }
            final Batch batch = new Batch(nextSeq++, System.currentTimeMillis(), ops);
            encode(batch, buffer.clear());
            inFlight.add(batch); // before sending: it may be delivered before send returns
            try
            {
                while (subgroup.send(buffer.array(), 0, buffer.position(), SEND_WAIT) < 0)
                {
                    if (down != null)
                    {
                        break;
                    }
                }
                batches.incrementAndGet();
            }
            catch (final RuntimeException ex)
            {
                stop("the group refused the command: " + ex.getMessage());
            }
        }
    }

    private void encode(final Batch batch, final ByteBuffer out)
    {
        int count = 0;
        for (final Op op : batch.ops)
        {
            count += op.write ? 1 : 0;
        }
        out.put(VERSION).put((byte)0).putShort((short)0).putInt(me).putLong(batch.seq).putLong(batch.now).putInt(count);
        for (final Op op : batch.ops)
        {
            if (op.write)
            {
                out.putInt(op.args.size());
                for (final byte[] a : op.args)
                {
                    out.putInt(a.length).put(a);
                }
            }
        }
    }

    // ---- delivery (predicate thread) ---------------------------------------------------------------------------

    private void onMessage(final Message message)
    {
        final byte[] bytes = new byte[message.length()];
        message.copyTo(bytes, 0);
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        if (in.get() != VERSION)
        {
            throw new IllegalStateException("key-value batch of an unknown version from member " + message.senderId());
        }
        in.position(4);
        final int origin = in.getInt();
        final long seq = in.getLong();
        final long now = in.getLong();
        final int count = in.getInt();
        final Batch batch = origin == me ? inFlight.peek() : null;
        if (batch != null && batch.seq == seq)
        {
            inFlight.remove(batch);
            for (final Op op : batch.ops)
            {
                (op.write ? writes : reads).incrementAndGet();
                op.reply.complete(store.apply(op.args, batch.now)); // the same arguments the batch carries
            }
            return;
        }
        // another member's batch, or this member's after it stopped serving: the writes still apply here
        for (int i = 0; i < count; i++)
        {
            final int argc = in.getInt();
            final List<byte[]> args = new ArrayList<>(argc);
            for (int a = 0; a < argc; a++)
            {
                final byte[] arg = new byte[in.getInt()];
                in.get(arg);
                args.add(arg);
            }
            store.apply(args, now);
            writes.incrementAndGet();
        }
    }

    /** Refuses commands from now on and fails every queued and unfinished one with {@code reason}. */
    private void stop(final String reason)
    {
        if (down != null)
        {
            return;
        }
        down = reason;
        final Reply error = Reply.error("CLUSTERDOWN " + reason);
        Op op;
        while ((op = queue.poll()) != null)
        {
            op.reply.complete(error);
        }
        final Reply unknown = Reply.error("CLUSTERDOWN " + reason + " (the command may or may not have been applied)");
        Batch batch;
        while ((batch = inFlight.poll()) != null)
        {
            batch.ops.forEach(o -> o.reply.complete(unknown));
        }
    }

    @Override
    public void close()
    {
        stop("the member is shutting down");
        proposer.interrupt();
        final Group g = group;
        if (g != null)
        {
            g.close();
        }
    }
}
