package io.weft.tools;

import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Heartbeat failure detection with member processes that are frozen (SIGSTOP), not killed: the process lives and
 * its connections stay open, so only silent heartbeats can reveal it. Suspicions spread, and a member that
 * suspects half of the view stops with the minority error (majority rule).
 */
@Timeout(240)
class FailureDetectionTest
{
    @TempDir
    Path dir;

    private Members start(final WeftConfig config) throws Exception
    {
        return start(config, 64, "PT90S");
    }

    private Members start(final WeftConfig config, final int size, final String duration) throws Exception
    {
        final Path file = TestGroups.write(config, dir);
        final Members members = new Members(config);
        for (int i = 0; i < 3; i++)
        {
            members.add(MemberProcess.start("m" + i, dir, Weft.class, "mc-member", "--config", file.toString(),
                "--member", String.valueOf(i), "--duration", duration, "--size", String.valueOf(size), "--timeout",
                "PT2M"));
        }
        for (int i = 0; i < 3; i++)
        {
            members.processes().get(i).awaitOutput("group open", Duration.ofSeconds(40));
        }
        return members;
    }

    private static WeftConfig config(final TransportKind kind)
    {
        return McRun.config(kind, 3, List.of(SubgroupConfig.allMembers("g", 16, 64)), SmcConfig.SPINDLE);
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void aFrozenMemberIsSuspectedBySilentHeartbeats(final TransportKind kind) throws Exception
    {
        final WeftConfig config = config(kind);
        try (Members members = start(config))
        {
            final MemberProcess frozen = members.processes().get(2);
            frozen.signal("STOP");
            // failure-timeout is 2 s: suspicion within 3x, with room for a loaded 2-core machine. A survivor either
            // sees the silence itself or learns it from the other survivor first (suspicions spread).
            int bySilence = 0;
            for (int i = 0; i < 2; i++)
            {
                final MemberProcess survivor = members.processes().get(i);
                survivor.awaitOutput("member " + i + ": member 2 failed: ", Duration.ofSeconds(20));
                final String out = survivor.output();
                final boolean silence = out.contains("member " + i + ": member 2 failed: no heartbeat for");
                bySilence += silence ? 1 : 0;
                // or from the leader's committed view change that removes it
                assertTrue(silence || out.contains("member " + i + ": member 2 failed: suspected by member " + (1 - i)) ||
                    out.contains("member " + i + ": member 2 failed: removed by the view change"),
                    "member 2 suspected for another reason than its silence:\n" + out);
                assertFalse(out.contains("member 0 failed") || out.contains("member 1 failed"),
                    "a live member was suspected:\n" + out);
                assertFalse(out.contains("MINORITY"), "one suspect of three is not a minority:\n" + out);
            }
            assertTrue(bySilence >= 1, "nobody detected the silence itself");
            frozen.signal("CONT");
        }
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void aMemberThatSuspectsHalfTheViewStopsWithTheMinorityError(final TransportKind kind) throws Exception
    {
        final WeftConfig config = config(kind);
        try (Members members = start(config))
        {
            members.processes().get(1).signal("STOP");
            members.processes().get(2).signal("STOP");
            final MemberProcess alone = members.processes().get(0);
            alone.awaitOutput("MINORITY: member 0 is in a minority partition: it suspects members [1, 2]",
                Duration.ofSeconds(20));
            members.processes().get(1).signal("CONT");
            members.processes().get(2).signal("CONT");
        }
    }

    /**
     * A sender killed mid-run: the survivors stop waiting for its end marker once the view drops it, deliver the same
     * sequence and finish with exit 3 (finished, a member failed). Before, the check took the indexes of the next
     * view, which start again, for violations, and the survivors waited for the end marker until their timeout.
     * A survivor closing a table (the view's it replaced, or the last once it finished) is no failure: only the killed
     * member is logged as failed.
     */
    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"SHM", "TCP"})
    void survivorsOfAKilledSenderFinishWithTheSameSequence(final TransportKind kind) throws Exception
    {
        final WeftConfig config = config(kind);
        try (Members members = start(config, 64, "PT5S"))
        {
            members.processes().get(2).kill(); // every member sends from its "group open" on
            final Map<Integer, Map<String, McRun.Delivery>> delivered = new HashMap<>();
            for (int i = 0; i < 2; i++)
            {
                final MemberProcess survivor = members.processes().get(i);
                assertEquals(SstMember.EXIT_MEMBER_FAILED, survivor.awaitExit(Duration.ofSeconds(90)),
                    survivor.output());
                final String out = survivor.output();
                assertTrue(out.contains("member " + i + ": VIEW 1 members=[0, 1]"), out);
                assertTrue(out.contains("member " + i + ": RESULT ok violations=0"), out);
                assertFalse(out.contains("member at rank " + (1 - i) + " failed") ||
                    out.contains("suspecting member " + (1 - i)), "a survivor logged as failed:\n" + out);
                McRun.parse(out, delivered);
                assertTrue(delivered.containsKey(i) && delivered.get(i).containsKey("g"), out);
            }
            final McRun.Delivery first = delivered.get(0).get("g");
            final McRun.Delivery second = delivered.get(1).get("g");
            assertEquals(first.hash() + " " + first.delivered(), second.hash() + " " + second.delivered(),
                "the survivors delivered different sequences");
        }
    }

    /**
     * A killed member started again the same way is refused (its group runs on without it) and, since mc-member
     * cannot join, told to start the whole group again rather than to add --join.
     */
    @org.junit.jupiter.api.Test
    void aKilledMemberStartedAgainIsRefusedAndToldItCannotJoin() throws Exception
    {
        final WeftConfig config = config(TransportKind.SHM);
        try (Members members = start(config))
        {
            members.processes().get(2).kill();
            members.processes().get(0).awaitOutput("member 0: member 2 failed: ", Duration.ofSeconds(20));
            final MemberProcess again = members.add(MemberProcess.start("m2-again", dir, Weft.class, "mc-member",
                "--config", dir.resolve(config.group().name() + ".conf").toString(), "--member", "2"));
            assertEquals(Weft.EXIT_CONFIG, again.awaitExit(Duration.ofSeconds(60)), again.output());
            final String out = again.output();
            assertTrue(out.contains("weft: member 2 cannot open view 0 of group ") &&
                out.contains("weft: mc-member has no --join: it runs from view 0 only; start every member of its " +
                    "group again"), out);
            assertFalse(out.contains("\tat "), "a stack trace:\n" + out);
        }
    }

    /**
     * Issue 13, item 4: three members stream 1 KiB messages over tcp with 4 KiB socket buffers (a slow link: a ring
     * of 1 MiB takes seconds to cross), and one is frozen. Heartbeats travel behind the data on the same connection;
     * they used to arrive late enough that live members suspected each other and both survivors stopped as a
     * minority. Arriving data now counts as a sign of life, heartbeats never wait for a full connection, and a push
     * to a peer that takes nothing for a failure timeout fails that peer: the survivors suspect the frozen member
     * only, and go on in a view of two. (The view change itself still waits for the data queued ahead of its
     * pushes, about 7 s on this link with rings of 400 slots; with 1,000 slots it took 20-25 s and, under the full
     * suite's load, a live member could go 2 s without any byte arriving and be suspected: the remaining weakness.)
     */
    @org.junit.jupiter.api.Test
    void onASaturatedSlowLinkOnlyTheFrozenMemberIsSuspected() throws Exception
    {
        final WeftConfig config = TestGroups.builder(TransportKind.TCP, 3)
            .tcp(new io.weft.config.TcpOptions(io.weft.config.TcpOptions.MIN_SEND_BUFFER, 4096, true,
                io.weft.config.TransportThreading.AUTO))
            .subgroups(List.of(SubgroupConfig.allMembers("g", 400, 1024))).smc(SmcConfig.SPINDLE).build();
        try (Members members = start(config, 1024, "PT90S"))
        {
            final MemberProcess frozen = members.processes().get(2);
            frozen.signal("STOP");
            for (int i = 0; i < 2; i++)
            {
                final MemberProcess survivor = members.processes().get(i);
                survivor.awaitOutput("member " + i + ": VIEW 1 members=[0, 1]", Duration.ofSeconds(90));
                final String out = survivor.output();
                out.lines().filter(l -> l.contains("VIEW") || l.contains("failed")).forEach(System.out::println);
                assertTrue(out.contains("member " + i + ": member 2 failed: "), out);
                assertFalse(out.contains("member " + i + ": member " + (1 - i) + " failed"),
                    "a live member was suspected (its heartbeats queued behind data):\n" + out);
                assertFalse(out.contains("MINORITY"), out);
            }
            frozen.signal("CONT");
        }
    }
}
