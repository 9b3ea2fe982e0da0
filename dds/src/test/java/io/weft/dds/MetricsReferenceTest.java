package io.weft.dds;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.weft.config.DdsConfig;
import io.weft.config.QosLevel;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.Async;
import io.weft.testkit.Await;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * docs/metrics.md lists exactly the meters a member registers: two members on shm with a topic of every QoS level
 * (so every kind of meter exists), and the names in the registry compared with the names in the document's tables.
 */
@Timeout(60)
class MetricsReferenceTest
{
    private static final Path REFERENCE = Path.of("..", "docs", "metrics.md");
    private static final Pattern LISTED = Pattern.compile("^\\| `(weft\\.[a-z.]+)` \\|", Pattern.MULTILINE);

    @TempDir
    Path dir;

    @Test
    void theReferenceListsEveryMeterAMemberRegisters() throws Exception
    {
        final List<TopicConfig> topics = new ArrayList<>();
        for (final QosLevel qos : QosLevel.values())
        {
            topics.add(new TopicConfig("t-" + qos.configName(), qos.ordinal() + 1, qos, List.of(0), List.of(), 16,
                64, 1));
        }
        final WeftConfig config = TestGroups.builder(TransportKind.SHM, 2).dds(new DdsConfig(dir, topics)).build();
        final List<MeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry());
        try (Members ignored = new Members(config))
        {
            final List<DomainParticipant> participants = Async.openAll(config, member ->
                DomainParticipant.builder(member).meterRegistry(registries.get(member.memberId())).open());
            try
            {
                final MeterRegistry registry = registries.get(0);
                Await.until(() -> registry.find("weft.dds.samples.delivered").meters().size() == topics.size(),
                    () -> "member 0 meters its " + topics.size() + " topics");
                final Set<String> registered = new TreeSet<>();
                registry.getMeters().forEach(m -> registered.add(m.getId().getName()));
                final Set<String> listed = new TreeSet<>();
                final Matcher m = LISTED.matcher(Files.readString(REFERENCE));
                while (m.find())
                {
                    listed.add(m.group(1));
                }
                assertEquals(listed, registered, "docs/metrics.md against member 0's registry");
            }
            finally
            {
                participants.forEach(DomainParticipant::close);
            }
        }
    }
}
