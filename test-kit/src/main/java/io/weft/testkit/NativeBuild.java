package io.weft.testkit;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * C built for tests with gcc: the ABI layout programs of sst (sst/src/test/c) and the software verbs device
 * (test-kit/src/main/c).
 */
public final class NativeBuild
{
    private static Path verbsDevice;

    private NativeBuild()
    {
    }

    /** Compiles {@code source} with gcc; skips the calling test when there is no compiler. */
    public static void gcc(final Path source, final Path output, final List<String> flags) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of("gcc"));
        command.addAll(flags);
        command.addAll(List.of("-o", output.toString(), source.toAbsolutePath().toString()));
        final Process cc;
        try
        {
            cc = new ProcessBuilder(command).redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            Assumptions.abort("skipped: no C compiler (gcc): " + ex.getMessage());
            return;
        }
        final String out = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cc.waitFor(60, TimeUnit.SECONDS) && cc.exitValue() == 0, "gcc failed:\n" + out);
    }

    /**
     * The software verbs device (test-kit/src/main/c/verbs_device.c) built once per test JVM as a shared library, for
     * weft.transport.rdma.verbs.library; removed when the JVM exits. Skips the calling test without the libibverbs
     * headers or a compiler.
     */
    public static synchronized Path verbsDevice() throws Exception
    {
        Assumptions.assumeTrue(Files.exists(Path.of("/usr/include/infiniband/verbs.h")),
            "skipped: libibverbs-dev headers missing (apt-get install libibverbs-dev)");
        if (verbsDevice == null)
        {
            final Path dir = Files.createTempDirectory("weft-verbs-device");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
            final Path source = dir.resolve("verbs_device.c");
            try (InputStream in = NativeBuild.class.getResourceAsStream("/c/verbs_device.c"))
            {
                assertTrue(in != null, "c/verbs_device.c is not on the class path (it comes with weft-test-kit)");
                Files.copy(in, source);
            }
            final Path library = dir.resolve("libweftverbsdevice.so");
            gcc(source, library, List.of("-O2", "-shared", "-fPIC", "-Wall"));
            verbsDevice = library;
        }
        return verbsDevice;
    }

    /** rdma options for the verbs backend over the software verbs device. */
    public static io.weft.config.RdmaOptions verbsDeviceOptions() throws Exception
    {
        return io.weft.config.RdmaOptions.verbs(new io.weft.config.VerbsOptions(verbsDevice().toString(), "",
            io.weft.config.VerbsOptions.DEFAULTS.port(), io.weft.config.VerbsOptions.DEFAULTS.gidIndex()));
    }

    private static void delete(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException ignored)
        {
            // best effort at exit
        }
    }
}
