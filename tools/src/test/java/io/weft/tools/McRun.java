package io.weft.tools;

import io.weft.config.SmcConfig;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.MemberProcess;
import io.weft.testkit.Members;
import io.weft.testkit.TestGroups;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs mc-member processes for a test and reads back what each delivered (hash, count, nulls per subgroup). */
final class McRun
{
    private static final Pattern HASH = Pattern.compile(
        "member (\\d+): subgroup (\\S+): HASH (\\S+) delivered=(\\d+) nulls=(\\d+)");

    record Delivery(String hash, long delivered, long nulls)
    {
    }

    final List<String> outputs = new ArrayList<>();
    /** member id -> subgroup -> what it delivered */
    final Map<Integer, Map<String, Delivery>> deliveries = new HashMap<>();

    static WeftConfig config(final TransportKind kind, final int members, final List<SubgroupConfig> subgroups,
        final SmcConfig smc)
    {
        return TestGroups.builder(kind, members).subgroups(subgroups).smc(smc).build();
    }

    /** Starts every member with the same extra arguments, waits, and requires exit code 0 from each. */
    static McRun run(final WeftConfig config, final Path dir, final String... args) throws Exception
    {
        return run(List.of(), config, dir, args);
    }

    /** {@link #run} with member JVM flags after the defaults ({@link MemberProcess#WITH_C2}, say). */
    static McRun run(final List<String> jvmFlags, final WeftConfig config, final Path dir, final String... args)
        throws Exception
    {
        return runInSequence(jvmFlags, List.of(config), dir, args);
    }

    /**
     * Runs the groups of {@code configs} one after another in the same member processes ({@code mc-member --then}):
     * one JVM start per member for them all. Every member must end every run ok. Name each group's subgroups apart
     * to tell their deliveries apart.
     */
    static McRun runInSequence(final List<WeftConfig> configs, final Path dir, final String... args) throws Exception
    {
        return runInSequence(List.of(), configs, dir, args);
    }

    private static McRun runInSequence(final List<String> jvmFlags, final List<WeftConfig> configs, final Path dir,
        final String... args) throws Exception
    {
        final List<String> files = configs.stream().map(c -> TestGroups.write(c, dir).toString()).toList();
        final List<String> each = new ArrayList<>(Arrays.asList(args));
        if (files.size() > 1)
        {
            each.addAll(List.of("--then", String.join(",", files.subList(1, files.size()))));
        }
        final String[][] all = new String[configs.getFirst().group().size()][];
        Arrays.fill(all, each.toArray(String[]::new));
        try
        {
            return runEach(jvmFlags, configs.getFirst(), dir, Path.of(files.getFirst()), all, configs.size());
        }
        finally
        {
            for (final WeftConfig c : configs)
            {
                Members.deleteShmFiles(c);
            }
        }
    }

    /** Starts member i with {@code args[i]}, waits, and requires exit code 0 from each. */
    static McRun runEach(final WeftConfig config, final Path dir, final Path file, final String[][] args) throws Exception
    {
        return runEach(List.of(), config, dir, file, args, 1);
    }

    private static McRun runEach(final List<String> jvmFlags, final WeftConfig config, final Path dir, final Path file,
        final String[][] args, final int runs) throws Exception
    {
        final McRun run = new McRun();
        try (Members members = new Members(config))
        {
            for (int i = 0; i < config.group().size(); i++)
            {
                final List<String> command = new ArrayList<>(List.of("mc-member", "--config", file.toString(),
                    "--member", String.valueOf(config.group().members().get(i).id()), "--timeout", "PT3M"));
                command.addAll(Arrays.asList(args[i]));
                members.add(MemberProcess.start(jvmFlags, "mc" + i, dir, Weft.class, command.toArray(String[]::new)));
            }
            for (final MemberProcess m : members.processes())
            {
                final int code = m.awaitExit(Duration.ofMinutes(3L + runs));
                final String out = m.output();
                run.outputs.add(out);
                assertEquals(0, code, m.name() + " exited " + code + ":\n" + out);
                assertEquals(runs, out.split("RESULT ok violations=0", -1).length - 1, out);
                assertFalse(out.contains(McMember.FINISH_FAILED), m.name() + "'s finish returned false:\n" + out);
                parse(out, run.deliveries);
            }
        }
        return run;
    }

    /** Adds what the members printing {@code out} delivered to {@code into} (member id -> subgroup -> delivery). */
    static void parse(final String out, final Map<Integer, Map<String, Delivery>> into)
    {
        final Matcher matcher = HASH.matcher(out);
        while (matcher.find())
        {
            into.computeIfAbsent(Integer.parseInt(matcher.group(1)), k -> new HashMap<>())
                .put(matcher.group(2), new Delivery(matcher.group(3), Long.parseLong(matcher.group(4)),
                    Long.parseLong(matcher.group(5))));
        }
    }

    /** Every member of {@code subgroup} delivered the same sequence of {@code expected} messages. */
    void assertIdentical(final String subgroup, final List<Integer> members, final long expected)
    {
        final Delivery first = deliveries.get(members.getFirst()).get(subgroup);
        assertFalse(first == null, "no result for " + subgroup + ":\n" + outputs);
        assertEquals(expected, first.delivered(), "messages delivered in " + subgroup + ":\n" + outputs);
        for (final int m : members)
        {
            final Delivery d = deliveries.get(m).get(subgroup);
            assertEquals(first.hash(), d.hash(), "member " + m + " delivered another sequence in " + subgroup +
                ":\n" + outputs);
            assertEquals(first.delivered(), d.delivered());
        }
    }

    long nulls(final int member, final String subgroup)
    {
        return deliveries.get(member).get(subgroup).nulls();
    }
}
