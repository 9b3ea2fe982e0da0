package io.weft.bench.peers;

import io.weft.bench.steady.Deliveries;
import io.weft.bench.steady.Payload;
import io.weft.bench.steady.SteadyClock;
import io.weft.testkit.ParentWatch;
import io.weft.tools.ConsoleLines;
import org.agrona.concurrent.UnsafeBuffer;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A JGroups 5.5 member for the side-by-side bench: total order through SEQUENCER over TCP on loopback, tuned as a
 * fair peer (bundler capacity 64k, TCP_NODELAY, diagnostics off, everything bound to 127.0.0.1), on the same
 * steady-state method and payload work as Weft's members ({@link SteadyClock}, {@link Payload}, {@link Deliveries}).
 * JGroups needs a fresh array per message (it keeps it for retransmission): that allocation is the API's own cost.
 * A BYE from every member ends the run, so nobody leaves while another might still need a retransmission.
 *
 * <p>Arguments: index members senders size ratePerSender port0,port1,... warmupNanos measureNanos
 */
public final class JGroupsMember
{
    private final int index;
    private final int members;
    private final int senders;
    private final int size;
    /** This member's place in the full view: its sender role and sender id (see {@link #run}). */
    private int rank;
    private Deliveries deliveries;
    private final Set<Integer> bye = new HashSet<>();
    private final CountDownLatch allBye = new CountDownLatch(1);
    private final CountDownLatch fullView = new CountDownLatch(1);
    private final CountDownLatch complete = new CountDownLatch(1);
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);

    private JGroupsMember(final int index, final int members, final int senders, final int size)
    {
        this.index = index;
        this.members = members;
        this.senders = senders;
        this.size = size;
    }

    public static void main(final String[] args) throws Exception
    {
        ConsoleLines.install();
        ParentWatch.install(); // ends with the bench that started it, also after kill -9
        final int index = Integer.parseInt(args[0]);
        final JGroupsMember m = new JGroupsMember(index, Integer.parseInt(args[1]), Integer.parseInt(args[2]),
            Integer.parseInt(args[3]));
        final int[] ports = Arrays.stream(args[5].split(",")).mapToInt(Integer::parseInt).toArray();
        System.exit(m.run(Long.parseLong(args[4]), ports, Long.parseLong(args[6]), Long.parseLong(args[7])));
    }

    static String stack(final int port, final int[] ports)
    {
        final String hosts = Arrays.stream(ports).mapToObj(p -> "127.0.0.1[" + p + "]")
            .collect(Collectors.joining(","));
        return """
            <config xmlns="urn:org:jgroups">
              <TCP bind_addr="127.0.0.1" bind_port="%d" port_range="0" tcp_nodelay="true"
                   bundler.capacity="64k" diag.enabled="false"
                   thread_pool.min_threads="1" thread_pool.max_threads="8"/>
              <TCPPING initial_hosts="%s" port_range="0"/>
              <MERGE3 min_interval="10000" max_interval="30000"/>
              <FD_SOCK2 bind_addr="127.0.0.1" offset="100"/>
              <FD_ALL3 timeout="40000" interval="5000"/>
              <VERIFY_SUSPECT2 timeout="1500"/>
              <pbcast.NAKACK2 xmit_interval="100"/>
              <UNICAST3 xmit_interval="100"/>
              <pbcast.STABLE desired_avg_gossip="5000" max_bytes="8M"/>
              <pbcast.GMS print_local_addr="false" join_timeout="1000"/>
              <SEQUENCER/>
              <MFC max_credits="4M" min_threshold="0.4"/>
              <FRAG4 frag_size="60K"/>
            </config>
            """.formatted(port, hosts);
    }

    private int run(final long rate, final int[] ports, final long warmupNanos,
        final long measureNanos) throws Exception
    {
        try (JChannel channel = new JChannel(new ByteArrayInputStream(stack(ports[index], ports)
            .getBytes(StandardCharsets.UTF_8))))
        {
            channel.setReceiver(new Receiver()
            {
                @Override
                public void receive(final Message msg)
                {
                    onMessage(msg.getArray(), msg.getOffset(), msg.getLength());
                }

                @Override
                public void viewAccepted(final View view)
                {
                    if (view.size() >= members)
                    {
                        fullView.countDown();
                    }
                }
            });
            channel.connect("weft-bench");
            if (!fullView.await(60, TimeUnit.SECONDS))
            {
                System.out.println("jgroups member " + index + ": the view never reached " + members + " members");
                return 4;
            }
            // SEQUENCER orders every message through the coordinator, which delivers its own at once: a sender that is
            // the coordinator sees its messages one hop sooner. Roles go by place in the view, so the first sender is
            // always the coordinator (JGroups' best case), not whichever process won the start-up race
            synchronized (this)
            {
                rank = channel.getView().getMembers().indexOf(channel.getAddress());
                deliveries = new Deliveries(rank, members, senders);
            }
            System.out.println("jgroups member " + index + ": place " + rank + " in the view" +
                (rank == 0 ? " (the coordinator, JGroups' sequencer)" : ""));
            final SteadyClock clock = SteadyClock.awaitGo(warmupNanos, measureNanos);
            synchronized (this)
            {
                deliveries.clock(clock, rate > 0);
            }
            final UnsafeBuffer out = new UnsafeBuffer(0, 0);
            long sent = 0;
            if (rank < senders)
            {
                final long interval = rate > 0 ? 1_000_000_000L / rate : 0;
                while (clock.sending())
                {
                    if (interval > 0)
                    {
                        clock.pace(sent, interval);
                    }
                    final byte[] buf = new byte[size];
                    out.wrap(buf);
                    Payload.write(out, 0, size, Payload.KIND_DATA, rank, sent, System.nanoTime());
                    channel.send(new BytesMessage(null, buf));
                    sent++;
                }
                channel.send(new BytesMessage(null, control(out, Payload.KIND_END, sent)));
            }
            final boolean finished = complete.await(clock.stopAt() - System.nanoTime() + TimeUnit.SECONDS.toNanos(60),
                TimeUnit.NANOSECONDS);
            clock.awaitWindow(TimeUnit.SECONDS.toNanos(10));
            synchronized (this)
            {
                System.out.println(clock.report(index, size, sent, deliveries, ""));
            }
            // leave only once every member has everything: a member that left early could no longer retransmit
            channel.send(new BytesMessage(null, control(out, Payload.KIND_BYE, 0)));
            allBye.await(30, TimeUnit.SECONDS);
            return finished && "ok".equals(deliveries.check()) ? 0 : 1;
        }
    }

    private byte[] control(final UnsafeBuffer out, final int kind, final long counter)
    {
        final byte[] buf = new byte[Payload.HEADER_LENGTH];
        out.wrap(buf);
        Payload.write(out, 0, buf.length, kind, rank, counter, System.nanoTime());
        return buf;
    }

    private synchronized void onMessage(final byte[] array, final int offset, final int length)
    {
        view.wrap(array, offset, length);
        if (length >= Payload.HEADER_LENGTH && Payload.kind(view, 0) == Payload.KIND_BYE)
        {
            bye.add(Payload.sender(view, 0));
            if (bye.size() == members)
            {
                allBye.countDown();
            }
            return;
        }
        if (deliveries.onMessage(view, 0, length))
        {
            complete.countDown();
        }
    }
}
