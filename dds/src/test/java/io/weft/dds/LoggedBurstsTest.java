package io.weft.dds;

import io.weft.config.DdsConfig;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Async;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bursts on a logged topic whose log thread's ring (16 samples: the topic's max-sample is 512 KiB) is smaller than a
 * delivery batch (two publishers, a window of 16 each): every burst must reach every member's log and the
 * durability frontier. The delivery thread used to signal the log thread only when it found it idle at a batch's
 * start; a batch that filled the ring midway, while the thread was appending, left its rest unsignalled once the
 * thread had emptied the ring and gone to sleep, and the end of the burst stayed out of the log until more samples
 * came (CI: the frontier stuck at 1,534 of 1,600 samples for a minute).
 */
@Timeout(180)
class LoggedBurstsTest
{
    private static final int BURSTS = 60;
    private static final int BURST = 24;

    @TempDir
    Path dir;

    @Test
    void everyBurstBecomesDurable() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 2).dds(new DdsConfig(dir, List.of(
            new TopicConfig("burst", 1, QosLevel.LOGGED_STORAGE, List.of(0, 1), List.of(), 16, 512 * 1024, 1,
                null)))).build();
        try (Members ignored = new Members(config))
        {
            final List<DomainParticipant> p = Async.openAll(config, c -> DomainParticipant.builder(c).open());
            try
            {
                final List<DataWriter<byte[]>> writers = p.stream()
                    .map(d -> d.createWriter(d.topic("burst", Codecs.bytes()))).toList();
                final byte[] sample = new byte[64];
                for (int b = 0; b < BURSTS; b++)
                {
                    final List<CompletableFuture<Boolean>> durable = writers.stream().map(w -> Async.open(() ->
                    {
                        for (int i = 0; i < BURST; i++)
                        {
                            w.write(sample);
                        }
                        return w.awaitDurable(Duration.ofSeconds(10));
                    })).toList();
                    for (int m = 0; m < durable.size(); m++)
                    {
                        assertTrue(durable.get(m).get(), "burst " + b + " of member " + m + " never became durable " +
                            "(frontier " + p.get(m).durabilityFrontier(p.get(m).topic("burst", Codecs.bytes())) +
                            " of " + 2 * BURST * (b + 1) + " samples)");
                    }
                }
            }
            finally
            {
                p.forEach(DomainParticipant::close);
            }
        }
    }
}
