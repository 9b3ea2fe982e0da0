package io.weft.examples.avionics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.weft.dds.DataWriter;
import io.weft.dds.DomainParticipant;
import io.weft.dds.SampleInfo;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The flight recorder (member 4): reads every topic and records each sample as a line of text on the logged
 * topic {@code record}, so every member's log holds the flight (replay it with {@code weft log}). Delivery threads
 * must not wait on a write, so the readers queue the lines and a recording thread writes them. Also measures each
 * topic's latency, publisher's write to this member's delivery (one host: one monotonic clock), for the dashboard.
 */
final class FlightRecorder implements Role
{
    private final BlockingQueue<String> queue = new ArrayBlockingQueue<>(1 << 16);
    private final Thread recording = Thread.ofPlatform().name("recorder").unstarted(this::record);
    private final MeterRegistry registry;
    private final Timeline timeline;
    private DataWriter<String> writer;
    private volatile boolean running = true;
    private long queued;
    private long dropped;
    private long recorded;
    private long plans;
    private long lastPlan = -1;
    private long engine;
    private long positions;

    FlightRecorder(final MeterRegistry registry, final Timeline timeline)
    {
        this.registry = registry;
        this.timeline = timeline;
    }

    @Override
    public void attach(final DomainParticipant participant)
    {
        final Timer position = latency(Avionics.POSITION);
        final Timer plan = latency(Avionics.FLIGHT_PLAN);
        final Timer engines = latency(Avionics.ENGINE);
        participant.createReader(Avionics.position(participant), (p, info) ->
        {
            measure(position, info);
            enqueue(p.toString(), Avionics.POSITION);
        });
        participant.createReader(Avionics.flightPlan(participant),
            (change, info) ->
            {
                measure(plan, info);
                System.out.printf("PLAN %d %d in view %d%n", info.position(), change.sequence(),
                    timeline.current().id());
                enqueue(change.toString(), Avionics.FLIGHT_PLAN);
                synchronized (this)
                {
                    lastPlan = change.sequence();
                }
            });
        participant.createReader(Avionics.engine(participant), (e, info) ->
        {
            measure(engines, info);
            enqueue(e.toString(), Avionics.ENGINE);
        });
        writer = participant.createWriter(Avionics.record(participant));
    }

    private Timer latency(final String topic)
    {
        return Timer.builder("avionics.latency").tag("topic", topic).publishPercentiles(0.5, 0.99)
            .distributionStatisticExpiry(Duration.ofSeconds(10)).distributionStatisticBufferLength(2)
            .description("a sample's publisher write to its delivery at the recorder").register(registry);
    }

    private static void measure(final Timer timer, final SampleInfo info)
    {
        if (!info.stored())
        {
            timer.record(System.nanoTime() - info.sourceNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private synchronized void enqueue(final String line, final String topic)
    {
        switch (topic)
        {
            case Avionics.POSITION -> positions++;
            case Avionics.FLIGHT_PLAN -> plans++;
            default -> engine++;
        }
        if (queue.offer(line))
        {
            queued++;
        }
        else
        {
            dropped++; // the recording thread is 65,536 lines behind: counted, and the demo's check fails
        }
        notifyAll();
    }

    @Override
    public void start()
    {
        recording.start();
    }

    private void record()
    {
        try
        {
            while (running || !queue.isEmpty())
            {
                final String line = queue.poll(100, TimeUnit.MILLISECONDS);
                if (line != null)
                {
                    writer.write(line);
                    synchronized (this)
                    {
                        recorded++;
                        notifyAll();
                    }
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final RuntimeException ex)
        {
            System.out.println("WRITE-FAILED recorder: " + ex.getMessage());
        }
    }

    /**
     * {@code expect PLANS ENGINE POSITIONS}: waits (up to 30 s) until the recorder read that many flight-plan changes
     * and engine readings and recorded everything it read, then until every member's log holds it. Positions are
     * unordered: one in flight at a view change may never arrive, so they get 2 s past the rest.
     */
    @Override
    public boolean command(final String[] words) throws InterruptedException
    {
        if (!"expect".equals(words[0]) || words.length != 4)
        {
            return false;
        }
        final long expectPlans = Long.parseLong(words[1]);
        final long expectEngine = Long.parseLong(words[2]);
        final long expectPositions = Long.parseLong(words[3]);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        boolean ordered = false;
        synchronized (this)
        {
            while ((!ordered || positions < expectPositions || recorded < queued) && System.nanoTime() < deadline)
            {
                if (!ordered && plans >= expectPlans && engine >= expectEngine)
                {
                    ordered = true;
                    deadline = Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(2));
                }
                TimeUnit.NANOSECONDS.timedWait(this, Math.max(1, deadline - System.nanoTime()));
            }
        }
        final boolean durable = writer.awaitDurable(Duration.ofSeconds(30));
        synchronized (this)
        {
            System.out.printf("RECORDED plans=%d last-plan=%d engine=%d positions=%d records=%d dropped=%d " +
                "durable=%b%n", plans, lastPlan, engine, positions, recorded, dropped, durable);
        }
        return true;
    }

    @Override
    public void stop() throws InterruptedException
    {
        running = false;
        recording.join();
    }
}
