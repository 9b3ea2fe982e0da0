package io.weft.examples;

import io.weft.config.ConfigWriter;
import io.weft.config.SubgroupConfig;
import io.weft.config.TransportKind;
import io.weft.config.WeftConfig;
import io.weft.testkit.LocalGroups;
import io.weft.testkit.MemberProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * examples/getting-started as a user builds it in a project of their own: a local Maven repository that starts empty
 * except for Weft's installed artifacts (the BOM, the parent and the library modules, jar and pom each, as
 * {@code ./mvnw install} puts them), third-party artifacts from this build's repository (a file mirror: no
 * network), the project's own Maven Wrapper, and three {@code java -jar} processes without a flag. They must deliver
 * the same 3,000 messages in the same order, and print no warning (the manifest enables native access).
 */
@Timeout(300)
class GettingStartedTest
{
    private static final String VERSION = "0.1.0-SNAPSHOT";
    private static final List<String> LIBRARIES = List.of("config", "predicates", "sst", "smc", "membership", "dds");
    private static final Pattern DELIVERED = Pattern.compile("member (\\d) delivered (\\d+) messages, order digest (\\w+)");

    @TempDir
    Path dir;

    @Test
    void threeCopiesBuiltFromThePublishedCoordinatesDeliverTheSameMessages() throws Exception
    {
        final Path root = Path.of("").toAbsolutePath().getParent();
        final Path repository = dir.resolve("repository");
        install(root, repository);
        final Path project = dir.resolve("getting-started");
        copy(root.resolve("examples/getting-started"), project);
        final Path settings = Files.writeString(dir.resolve("settings.xml"), """
            <settings><mirrors><mirror><id>this-build</id><mirrorOf>*</mirrorOf><url>%s</url></mirror></mirrors></settings>
            """.formatted(Path.of(System.getProperty("test.weft.mavenRepository")).toUri()));

        final ProcessBuilder build = new ProcessBuilder("./mvnw", "-B", "-q", "package", "-s", settings.toString(),
            "-Dmaven.repo.local=" + repository).directory(project.toFile()).redirectErrorStream(true)
            .redirectOutput(dir.resolve("build.log").toFile());
        build.environment().put("JAVA_HOME", System.getProperty("java.home"));
        final Process p = build.start();
        assertTrue(p.waitFor(240, java.util.concurrent.TimeUnit.SECONDS), "the build did not end in 4 minutes");
        assertEquals(0, p.exitValue(), "./mvnw package failed:\n" + Files.readString(dir.resolve("build.log")));
        assertTrue(Files.exists(repository.resolve("io/weft/weft-bom/" + VERSION)));

        final Path config = Files.writeString(dir.resolve("group.conf"), ConfigWriter.render(WeftConfig.builder()
            .memberId(0).groupName("gs-" + ProcessHandle.current().pid()).members(LocalGroups.loopbackMembers(3))
            .transport(TransportKind.SHM).subgroups(List.of(SubgroupConfig.allMembers("all",
                SubgroupConfig.autoWindow(TransportKind.SHM, 1024), 1024))).build()));
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final List<MemberProcess> members = new ArrayList<>();
        try
        {
            for (int i = 0; i < 3; i++)
            {
                members.add(MemberProcess.run("gs" + i, dir, List.of(java, "-jar",
                    project.resolve("target/getting-started.jar").toString(), config.toString(), String.valueOf(i))));
            }
            final Set<String> digests = new java.util.HashSet<>();
            for (final MemberProcess m : members)
            {
                assertEquals(0, m.awaitExit(Duration.ofSeconds(60)), m.output());
                final Matcher d = DELIVERED.matcher(m.output());
                assertTrue(d.find(), m.output());
                assertEquals("3000", d.group(2), m.output());
                digests.add(d.group(3));
                assertFalse(m.output().contains("WARNING"), "a warning from " + m.name() + ":\n" + m.output());
            }
            assertEquals(1, digests.size(), "the members delivered in different orders: " + digests);
        }
        finally
        {
            members.forEach(MemberProcess::close);
        }
    }

    /** What {@code ./mvnw install} puts in a local repository for a user: each artifact's pom, and jar. */
    private static void install(final Path root, final Path repository) throws IOException
    {
        put(root.resolve("pom.xml"), repository, "weft-parent", "pom");
        put(root.resolve("bom/pom.xml"), repository, "weft-bom", "pom");
        for (final String module : LIBRARIES)
        {
            final String artifact = "weft-" + module;
            put(root.resolve(module).resolve("pom.xml"), repository, artifact, "pom");
            final Path jar = root.resolve(module).resolve("target").resolve(artifact + "-" + VERSION + ".jar");
            assertTrue(Files.exists(jar), "not built yet: " + jar);
            put(jar, repository, artifact, "jar");
        }
    }

    private static void put(final Path file, final Path repository, final String artifact, final String extension)
        throws IOException
    {
        final Path target = repository.resolve("io/weft").resolve(artifact).resolve(VERSION)
            .resolve(artifact + "-" + VERSION + "." + extension);
        Files.createDirectories(target.getParent());
        Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The project's sources, pom and wrapper, without what an earlier build left in target/. */
    private static void copy(final Path from, final Path to) throws IOException
    {
        try (Stream<Path> files = Files.walk(from))
        {
            for (final Path f : files.filter(f -> !from.relativize(f).startsWith("target")).collect(Collectors.toList()))
            {
                final Path t = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f))
                {
                    Files.createDirectories(t);
                }
                else
                {
                    Files.copy(f, t, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
