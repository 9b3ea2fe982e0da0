package io.weft.bench;

import io.weft.bench.steady.Deliveries;
import io.weft.bench.steady.Payload;
import io.weft.bench.steady.SteadyClock;
import io.weft.config.WeftConfig;
import io.weft.dds.Codecs;
import io.weft.dds.DataWriter;
import io.weft.dds.DomainParticipant;
import io.weft.dds.Loan;
import io.weft.dds.Topic;
import io.weft.membership.Group;
import io.weft.membership.GroupBuilder;
import io.weft.membership.Subgroup;
import io.weft.predicates.PassInvoker;
import io.weft.smc.BatchStats;
import io.weft.smc.Claim;
import io.weft.smc.Message;
import io.weft.tools.AppWork;
import io.weft.tools.MemberOptions;
import org.agrona.concurrent.UnsafeBuffer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One Weft member of a bench run, on the steady-state method every system shares ({@link SteadyClock}): senders
 * build every message in place in the slot ({@link Payload}: every byte written, checksummed) until the window and
 * its tail are over, then send END; every member reads and checks every byte it delivers ({@link Deliveries}) and
 * prints one {@code BENCH} line.
 */
@Command(name = "bench-member", hidden = true, description = "One member of a bench run (started by weft bench).")
final class BenchMemberCommand implements java.util.concurrent.Callable<Integer>
{
    @Mixin
    MemberOptions member = new MemberOptions();

    @Option(names = "--size", required = true)
    int size;

    @Option(names = "--warmup-ns", required = true)
    long warmupNanos;

    @Option(names = "--measure-ns", required = true)
    long measureNanos;

    @Mixin
    AppWork work = new AppWork();

    @Option(names = "--active-senders", required = true)
    int activeSenders;

    @Option(names = "--rate", defaultValue = "0", description = "Messages per second per sender; 0: as fast as possible.")
    long rate;

    @Option(names = "--corrupt-message", defaultValue = "-1",
        description = "Test hook: flip one payload byte of this message after its checksum is written.")
    long corruptMessage;

    @Option(names = "--qos", description = "Send and read through a DDS topic of this QoS level (the topic 'bench').")
    String qos;

    @Option(names = "--invoker", description = "This thread runs the member's passes (Group.builder().useInvoker(); " +
        "with --qos through the participant's group).")
    boolean invoker;

    private final CountDownLatch complete = new CountDownLatch(1);
    private Deliveries deliveries;
    private PassInvoker passes; // invoker mode: this thread runs the passes between its sends and waits

    @Override
    public Integer call() throws Exception
    {
        final WeftConfig c = member.load();
        deliveries = new Deliveries(member.id, c.group().members().size(), activeSenders);
        final long callbackNanos = work.callbackNanos();
        final DomainParticipant participant;
        final Group group;
        final Subgroup s;
        final Slots slots;
        if (qos == null)
        {
            participant = null;
            final GroupBuilder builder = Group.builder(c).onDelivery("bench", m -> onMessage(m, callbackNanos));
            group = (invoker ? builder.useInvoker() : builder).open();
            passes = invoker ? group.invoker() : null;
            s = group.subgroup("bench");
            slots = claims(s);
        }
        else
        {
            // the DDS path a user takes: a typed reader (bytes copied out of the slot), a writer's loan in place
            final io.weft.dds.ParticipantBuilder pb = DomainParticipant.builder(c);
            participant = (invoker ? pb.group(GroupBuilder::useInvoker) : pb).create();
            final Topic<byte[]> topic = participant.topic("bench", Codecs.bytes());
            participant.createReader(topic, (bytes, info) -> onBytes(bytes, callbackNanos));
            participant.enable(false);
            group = participant.group();
            passes = invoker ? group.invoker() : null;
            s = group.subgroup(c.dds().topic("bench").subgroupName());
            slots = s.isSender() ? loans(participant.createWriter(topic)) : null;
        }
        final SteadyClock clock = SteadyClock.awaitGo(warmupNanos, measureNanos);
        deliveries.clock(clock, rate > 0);
        final long sent = s.isSender() ? send(slots, clock) : 0;
        if (s.isSender() && !c.smc().nullSends())
        {
            padUntilComplete(slots);
        }
        final long endWait = clock.stopAt() - System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        if (passes != null ? !passes.invokeUntil(() -> complete.getCount() == 0, System.nanoTime() + endWait) :
            !complete.await(endWait, TimeUnit.NANOSECONDS))
        {
            System.out.println("bench member " + member.id + ": END did not arrive from every sender within 60 s");
        }
        if (passes != null)
        {
            passes.invokeUntil(clock::windowOver, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        }
        else
        {
            clock.awaitWindow(TimeUnit.SECONDS.toNanos(10));
        }
        final StringBuilder extra = new StringBuilder();
        field(extra, "writes", group.writesPosted());
        field(extra, "bytes_pushed", group.bytesPushed());
        field(extra, "nulls_sent", s.nullsSent());
        field(extra, "predicate_busy_s", group.predicateBusyNanos() / 1e9);
        batch(extra, "send", s.sendBatches());
        batch(extra, "receive", s.receiveBatches());
        batch(extra, "delivery", s.deliveryBatches());
        synchronized (this)
        {
            System.out.println(clock.report(member.id, size, sent, deliveries, extra.toString()));
        }
        // Without null-sends the pads a sender sent after the others stopped padding are never delivered (nothing
        // follows them), so finish cannot see its own sends delivered and waits out its timeout: 30 s per member
        // and per run of every such ablation row. Every check is done by then; 2 s is enough for the others.
        final Duration finishWithin = Duration.ofSeconds(c.smc().nullSends() ? 30 : 2);
        if (participant != null)
        {
            participant.finish(finishWithin);
        }
        else
        {
            group.finish(finishWithin);
        }
        return deliveries.complete() ? 0 : 4;
    }

    /** Where a sender builds its next message: the address of a claimed slot, committed with its length. */
    private interface Slots
    {
        long claim(int length);

        void commit(int length);
    }

    /** Messages between two passes in invoker mode (a power of two); a claim that waits runs passes too. */
    private static final int INVOKE_EVERY = 64;

    /** How long a claim may wait for a slot: a constant, so that the send loop allocates nothing per message. */
    private static final Duration CLAIM_WAIT = Duration.ofMinutes(1);

    private static Slots claims(final Subgroup s)
    {
        final Claim claim = new Claim();
        return new Slots()
        {
            @Override
            public long claim(final int length)
            {
                if (s.claim(length, claim, CLAIM_WAIT) < 0)
                {
                    throw new IllegalStateException("back-pressured for a minute: the group is stuck");
                }
                return claim.segment().address() + claim.offset();
            }

            @Override
            public void commit(final int length)
            {
                claim.commit(length);
            }
        };
    }

    private static Slots loans(final DataWriter<byte[]> writer)
    {
        return new Slots()
        {
            private Loan loan;

            @Override
            public long claim(final int length)
            {
                loan = writer.loan(CLAIM_WAIT);
                if (loan == null)
                {
                    throw new IllegalStateException("back-pressured for a minute: the group is stuck");
                }
                return loan.segment().address() + loan.offset();
            }

            @Override
            public void commit(final int length)
            {
                loan.commit(length);
            }
        };
    }

    private synchronized void onBytes(final byte[] bytes, final long callbackNanos)
    {
        if (deliveries.onMessage(bytes, 0, bytes.length))
        {
            complete.countDown();
        }
        AppWork.busy(callbackNanos);
    }

    private synchronized void onMessage(final Message m, final long callbackNanos)
    {
        // read in place in the table: every byte is read and checked
        if (deliveries.onMessage(m.segment().address() + m.offset(), m.length()))
        {
            complete.countDown();
        }
        AppWork.busy(callbackNanos);
    }

    private long send(final Slots slots, final SteadyClock clock)
    {
        final UnsafeBuffer slot = new UnsafeBuffer(0, 0);
        final long delayNanos = work.delayNanos();
        final long interval = rate > 0 ? 1_000_000_000L / rate : 0;
        long i = 0;
        while (clock.sending())
        {
            if (interval > 0 && passes != null)
            {
                passes.invokeUntil(clock.sendAt(i, interval)); // the passes run while it waits
            }
            else if (interval > 0)
            {
                clock.pace(i, interval);
            }
            slot.wrap(slots.claim(size), size);
            Payload.write(slot, 0, size, Payload.KIND_DATA, member.id, i, System.nanoTime());
            if (i == corruptMessage)
            {
                slot.putByte(size - 1, (byte)~slot.getByte(size - 1));
            }
            slots.commit(size);
            i++;
            if (passes != null && (interval > 0 || (i & (INVOKE_EVERY - 1)) == 0))
            {
                passes.invoke(); // push a batch, acknowledge and deliver what arrived: no other thread does
            }
            AppWork.busy(delayNanos);
        }
        slot.wrap(slots.claim(Payload.HEADER_LENGTH), Payload.HEADER_LENGTH);
        Payload.write(slot, 0, Payload.HEADER_LENGTH, Payload.KIND_END, member.id, i, System.nanoTime());
        slots.commit(Payload.HEADER_LENGTH);
        if (passes != null)
        {
            passes.invoke();
        }
        return i;
    }

    /**
     * Without null-sends, ordered delivery of another sender's later messages (its END among them) waits for my
     * indices: pad until every END is delivered here. Those pads are then stable, so every member can finish too.
     */
    private void padUntilComplete(final Slots slots)
    {
        final UnsafeBuffer slot = new UnsafeBuffer(0, 0);
        long i = 0;
        while (complete.getCount() > 0)
        {
            slot.wrap(slots.claim(Payload.HEADER_LENGTH), Payload.HEADER_LENGTH);
            Payload.write(slot, 0, Payload.HEADER_LENGTH, Payload.KIND_PAD, member.id, i++, System.nanoTime());
            slots.commit(Payload.HEADER_LENGTH);
            if (passes != null)
            {
                passes.invoke();
            }
        }
    }

    private static void field(final StringBuilder json, final String name, final Object value)
    {
        json.append('"').append(name).append("\":");
        json.append(value instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : value);
        json.append(',');
    }

    private static void batch(final StringBuilder json, final String kind, final BatchStats b)
    {
        field(json, kind + "_batch_mean", b.mean());
        field(json, kind + "_batch_max", b.max());
        json.append('"').append(kind).append("_batch_histogram\":\"").append(b.describe()).append("\",");
    }
}
