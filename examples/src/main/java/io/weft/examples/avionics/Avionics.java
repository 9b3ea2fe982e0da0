package io.weft.examples.avionics;

import io.weft.config.DdsConfig;
import io.weft.config.MemberAddress;
import io.weft.config.MembershipConfig;
import io.weft.config.QosLevel;
import io.weft.config.SampleKey;
import io.weft.config.TopicConfig;
import io.weft.config.TransportKind;
import io.weft.config.ViewChangeSends;
import io.weft.config.WeftConfig;
import io.weft.dds.Codecs;
import io.weft.dds.DomainParticipant;
import io.weft.dds.Topic;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The avionics domain: five members, one topic per QoS level. Member ids are roles: 0 the flight-management system,
 * 1 and 2 the cockpit displays (2 joins late), 3 the engine monitor, 4 the flight recorder.
 */
public final class Avionics
{
    public static final int FLIGHT_MANAGEMENT = 0;
    public static final int DISPLAY_1 = 1;
    public static final int DISPLAY_2 = 2;
    public static final int ENGINE_MONITOR = 3;
    public static final int RECORDER = 4;
    public static final int MEMBERS = 5;

    public static final String POSITION = "position";
    public static final String FLIGHT_PLAN = "flight-plan";
    public static final String ENGINE = "engine";
    public static final String RECORD = "record";
    /** Readings kept per engine by every member (a display that restarts receives them). */
    public static final int ENGINE_HISTORY = 16;
    public static final int ENGINES = 4;

    private static final List<Integer> READERS = List.of(DISPLAY_1, DISPLAY_2, RECORDER);

    private Avionics()
    {
    }

    // The topics, each bound to its codec here once: writers and readers cannot disagree on a topic's encoding.

    /** The aircraft's position (unordered): fixed-layout samples read in place. */
    public static Topic<Position> position(final DomainParticipant participant)
    {
        return participant.topic(POSITION, Codecs.flyweight(Position::new));
    }

    /** Changes to the flight plan (atomic multicast: every display applies them in one order), as JSON. */
    public static Topic<FlightPlanChange> flightPlan(final DomainParticipant participant)
    {
        return participant.topic(FLIGHT_PLAN, Codecs.json(FlightPlanChange.class));
    }

    /** Engine readings (volatile storage, keyed by engine): fixed-layout samples read in place. */
    public static Topic<EngineReading> engine(final DomainParticipant participant)
    {
        return participant.topic(ENGINE, Codecs.flyweight(EngineReading::new));
    }

    /** The flight recorder's records (logged storage), as text. */
    public static Topic<String> record(final DomainParticipant participant)
    {
        return participant.topic(RECORD, Codecs.utf8());
    }

    /** What member {@code id} does in the demo. */
    public static String role(final int id)
    {
        return switch (id)
        {
            case FLIGHT_MANAGEMENT -> "flight-management";
            case DISPLAY_1, DISPLAY_2 -> "display-" + id;
            case ENGINE_MONITOR -> "engine-monitor";
            case RECORDER -> "recorder";
            default -> throw new IllegalArgumentException("the avionics domain has members 0..4, not " + id);
        };
    }

    /**
     * The domain on loopback: member i has the sst and control ports {@code ports[2i]}, {@code ports[2i+1]}; view 0
     * holds every member but display 2, which joins later; logs under {@code logs}.
     */
    public static WeftConfig config(final TransportKind kind, final List<Integer> ports, final Path logs)
    {
        final List<MemberAddress> members = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++)
        {
            members.add(new MemberAddress(i, "127.0.0.1", ports.get(2 * i), ports.get(2 * i + 1)));
        }
        final byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        final List<TopicConfig> topics = List.of(
            new TopicConfig(POSITION, 1, QosLevel.UNORDERED, List.of(FLIGHT_MANAGEMENT), READERS, 256,
                Position.LENGTH, 1),
            new TopicConfig(FLIGHT_PLAN, 2, QosLevel.ATOMIC_MULTICAST, List.of(FLIGHT_MANAGEMENT), READERS, 16,
                1024, 1),
            new TopicConfig(ENGINE, 3, QosLevel.VOLATILE_STORAGE, List.of(ENGINE_MONITOR), READERS, 64,
                EngineReading.LENGTH, ENGINE_HISTORY, new SampleKey(EngineReading.ENGINE, 4, ENGINES)),
            new TopicConfig(RECORD, 4, QosLevel.LOGGED_STORAGE, List.of(RECORDER), List.of(), 256, 256, 1));
        return WeftConfig.builder().memberId(0).groupName("avionics-" + ProcessHandle.current().pid())
            .members(members).transport(kind)
            .membership(new MembershipConfig(List.of(FLIGHT_MANAGEMENT, DISPLAY_1, ENGINE_MONITOR, RECORDER),
                "avionics-" + HexFormat.of().formatHex(secret), ViewChangeSends.WAIT, Duration.ofSeconds(30)))
            .dds(new DdsConfig(logs, topics))
            .build();
    }
}
