package io.weft.tools;

import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.testkit.MemberProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every QoS level of the DDS layer delivers what it promises, with three participant processes over tcp: two
 * publish on each of four topics (one per level) while all three read.
 */
@Timeout(180)
class DdsQosTest
{
    private static final int COUNT = 500;

    @TempDir
    Path dir;

    static List<TopicConfig> topics()
    {
        return List.of(
            new TopicConfig("position", 1, QosLevel.UNORDERED, List.of(0, 1), List.of(), 256, 64, 16),
            new TopicConfig("plan", 2, QosLevel.ATOMIC_MULTICAST, List.of(0, 1), List.of(), 256, 64, 16),
            new TopicConfig("engine", 3, QosLevel.VOLATILE_STORAGE, List.of(0, 1), List.of(), 256, 64, 16),
            new TopicConfig("record", 4, QosLevel.LOGGED_STORAGE, List.of(0, 1), List.of(), 256, 64, 16));
    }

    @Test
    void everyQosLevelDeliversWhatItPromises() throws Exception
    {
        try (DdsRun run = new DdsRun(TransportKind.TCP, 3, List.of(), dir, topics()))
        {
            for (int id = 0; id < 3; id++)
            {
                run.start(id, false, "--count", String.valueOf(COUNT), "--rate", "2000");
            }
            for (int id = 0; id < 3; id++)
            {
                final MemberProcess p = run.process(id);
                p.awaitOutput("member " + id + ": READ-ALL", Duration.ofSeconds(90));
                if (id < 2)
                {
                    p.awaitOutput("member " + id + ": DURABLE record true", Duration.ofSeconds(60));
                }
            }
            for (int id = 0; id < 3; id++)
            {
                run.command(id, "end");
            }
            for (int id = 0; id < 3; id++)
            {
                assertEquals(0, run.process(id).awaitExit(Duration.ofSeconds(60)), run.process(id).output());
            }

            // unordered: everything from every publisher, FIFO per publisher, nothing twice
            for (final Map.Entry<String, List<DdsRun.Read>> e : run.reads("position").entrySet())
            {
                final Map<Integer, Long> next = new HashMap<>();
                for (final DdsRun.Read r : e.getValue())
                {
                    assertEquals(next.getOrDefault(r.publisher(), 0L), r.counter(), e.getKey() + ": out of FIFO order");
                    next.put(r.publisher(), r.counter() + 1);
                }
                assertEquals(Map.of(0, (long)COUNT, 1, (long)COUNT), next, e.getKey());
            }
            // ordered levels: one sequence, the same at every member, positions 0.. without gaps
            for (final String topic : List.of("plan", "engine", "record"))
            {
                final Map<String, List<DdsRun.Read>> reads = run.reads(topic);
                assertEquals(3, reads.size(), topic + ": " + reads.keySet());
                final List<DdsRun.Read> first = reads.values().iterator().next();
                assertEquals(2 * COUNT, first.size(), topic);
                for (int i = 0; i < first.size(); i++)
                {
                    assertEquals(i, first.get(i).position(), topic + ": positions have a gap");
                }
                for (final List<DdsRun.Read> other : reads.values())
                {
                    assertEquals(first, other, topic + ": members read different sequences");
                }
                assertFifo(topic, first);
            }
            // logged: every member's log holds exactly what it read
            final List<DdsRun.Read> read = run.reads("record").values().iterator().next();
            for (int id = 0; id < 3; id++)
            {
                assertEquals(read.stream().map(DdsRun.Read::sample).toList(), run.log(id, "record"),
                    "member " + id + "'s log differs from what was read");
            }
        }
    }

    static void assertFifo(final String topic, final List<DdsRun.Read> reads)
    {
        final Map<Integer, Long> next = new HashMap<>();
        final List<String> problems = new ArrayList<>();
        for (final DdsRun.Read r : reads)
        {
            final long expected = next.getOrDefault(r.publisher(), 0L);
            if (r.counter() != expected)
            {
                problems.add("position " + r.position() + ": publisher " + r.publisher() + " counter " + r.counter() +
                    ", expected " + expected);
            }
            next.put(r.publisher(), r.counter() + 1);
        }
        assertTrue(problems.isEmpty(), topic + ": " + problems);
    }
}
