package io.weft.bench.peers;

import org.HdrHistogram.Recorder;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A JGroups 5.5 member for the side-by-side bench: total order through SEQUENCER over TCP on loopback, tuned as a
 * fair peer (bundler capacity 64k, TCP_NODELAY, diagnostics off, everything bound to 127.0.0.1). Senders send
 * {@code messages} messages; every member checks counts and folds (sender, counter) into a hash chain: equal hashes
 * at every member prove one total order. A DONE message from every member ends the run, so nobody leaves early.
 *
 * <p>Arguments: index members senders messages size ratePerSender port0,port1,...
 */
public final class JGroupsMember
{
    private static final int HEADER = 21; // sender:int counter:long timestamp:long kind:byte

    private final int index;
    private final int members;
    private final int senders;
    private final long messages;
    private final int size;
    private final Recorder latency = new Recorder(3);
    private final long[] next;
    private final Set<Integer> done = new HashSet<>();
    private final Set<Integer> bye = new HashSet<>();
    private final CountDownLatch allBye = new CountDownLatch(1);
    private final CountDownLatch fullView = new CountDownLatch(1);
    private final CountDownLatch allDone = new CountDownLatch(1);
    private long hash = 0xcbf2_9ce4_8422_2325L;
    private long delivered;
    private long lastDelivery;
    private String check = "ok";

    private JGroupsMember(final int index, final int members, final int senders, final long messages, final int size)
    {
        this.index = index;
        this.members = members;
        this.senders = senders;
        this.messages = messages;
        this.size = Math.max(HEADER, size);
        this.next = new long[members];
    }

    public static void main(final String[] args) throws Exception
    {
        final int index = Integer.parseInt(args[0]);
        final int members = Integer.parseInt(args[1]);
        final JGroupsMember m = new JGroupsMember(index, members, Integer.parseInt(args[2]), Long.parseLong(args[3]),
            Integer.parseInt(args[4]));
        final long rate = Long.parseLong(args[5]);
        final int[] ports = Arrays.stream(args[6].split(",")).mapToInt(Integer::parseInt).toArray();
        System.exit(m.run(rate, ports));
    }

    static String stack(final int port, final int[] ports)
    {
        final String hosts = Arrays.stream(ports).mapToObj(p -> "127.0.0.1[" + p + "]").collect(Collectors.joining(","));
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

    private int run(final long rate, final int[] ports) throws Exception
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
            final long start = System.nanoTime();
            final byte[] buf = new byte[size];
            final ByteBuffer b = ByteBuffer.wrap(buf);
            if (index < senders)
            {
                final long interval = rate > 0 ? 1_000_000_000L / rate : 0;
                for (long i = 0; i < messages; i++)
                {
                    if (interval > 0)
                    {
                        PeerResult.pace(start + i * interval);
                    }
                    b.putInt(0, index).putLong(4, i).putLong(12, System.nanoTime()).put(20, (byte)0);
                    channel.send(new BytesMessage(null, buf.clone()));
                }
            }
            final long expected = messages * senders;
            b.putInt(0, index).putLong(4, -1).putLong(12, 0).put(20, (byte)1);
            channel.send(new BytesMessage(null, Arrays.copyOf(buf, HEADER)));
            final boolean finished = allDone.await(5, TimeUnit.MINUTES);
            synchronized (this)
            {
                if (delivered != expected)
                {
                    check = "delivered " + delivered + " of " + expected;
                }
                final double seconds = ((finished ? lastDelivery : System.nanoTime()) - start) / 1e9;
                System.out.println(PeerResult.json(index, finished && delivered == expected, delivered, seconds, size,
                    latency.getIntervalHistogram(), Long.toHexString(hash), check));
            }
            // leave only once every member has everything: a member that left early could no longer retransmit
            b.put(20, (byte)2);
            channel.send(new BytesMessage(null, Arrays.copyOf(buf, HEADER)));
            allBye.await(30, TimeUnit.SECONDS);
            return finished && "ok".equals(check) ? 0 : 1;
        }
    }

    private synchronized void onMessage(final byte[] array, final int offset, final int length)
    {
        final ByteBuffer b = ByteBuffer.wrap(array, offset, length);
        final int sender = b.getInt(offset);
        final long counter = b.getLong(offset + 4);
        if (array[offset + 20] == 2)
        {
            bye.add(sender);
            if (bye.size() == members)
            {
                allBye.countDown();
            }
            return;
        }
        if (array[offset + 20] == 1)
        {
            done.add(sender);
            if (done.size() == members)
            {
                allDone.countDown();
            }
            return;
        }
        if (counter != next[sender])
        {
            check = "member " + sender + ": message " + counter + " arrived when " + next[sender] + " was due";
        }
        next[sender] = counter + 1;
        hash = (hash ^ sender) * 0x100_0000_01b3L;
        hash = (hash ^ counter) * 0x100_0000_01b3L;
        delivered++;
        lastDelivery = System.nanoTime();
        if (sender == index && counter >= messages / 2) // the first half warms the JIT up
        {
            latency.recordValue(Math.max(0, (lastDelivery - b.getLong(offset + 12)) / 1000));
        }
    }
}
