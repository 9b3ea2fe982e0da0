package io.weft.sst.rdma;

import io.weft.testkit.NativeBuild;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every offset, ops-table slot and flag the bindings use ({@link FabricAbi}, {@link VerbsAbi}) equals what
 * {@code offsetof()} and the macros give on the installed headers: the C programs in src/test/c, compiled and run.
 */
@Timeout(120)
class AbiLayoutTest
{
    @TempDir
    Path dir;

    @Test
    void libfabricConstantsMatchTheInstalledHeaders() throws Exception
    {
        check("/usr/include/rdma/fabric.h", "libfabric-dev", "fabric_layout.c", FabricAbi.class);
    }

    @Test
    void verbsConstantsMatchTheInstalledHeaders() throws Exception
    {
        check("/usr/include/infiniband/verbs.h", "libibverbs-dev", "verbs_layout.c", VerbsAbi.class);
    }

    private void check(final String header, final String pkg, final String source, final Class<?> constants)
        throws Exception
    {
        Assumptions.assumeTrue(Files.exists(Path.of(header)), "skipped: " + header + " missing (apt-get install " + pkg + ")");
        final String out = compileAndRun(dir, Path.of("src/test/c", source), List.of());
        final Map<String, Long> c = new HashMap<>();
        for (final String line : out.split("\n"))
        {
            final String[] kv = line.split("=");
            c.put(kv[0], Long.parseLong(kv[1]));
        }
        int checked = 0;
        for (final Field f : constants.getDeclaredFields())
        {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == long.class)
            {
                assertTrue(c.containsKey(f.getName()), f.getName() + " is not printed by " + source);
                assertEquals(c.get(f.getName()), f.getLong(null), f.getName() + " differs from the installed headers");
                checked++;
            }
        }
        assertEquals(c.size(), checked, source + " prints constants " + constants.getSimpleName() + " lacks");
    }

    /** Compiles a C file with gcc (skips the test if there is no compiler) and runs it; returns its output. */
    static String compileAndRun(final Path dir, final Path source, final List<String> flags) throws Exception
    {
        final Path binary = dir.resolve(source.getFileName().toString().replace(".c", ""));
        NativeBuild.gcc(source, binary, flags);
        final Process run = new ProcessBuilder(binary.toString()).redirectErrorStream(true).start();
        final String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, run.waitFor(), out);
        return out;
    }
}
