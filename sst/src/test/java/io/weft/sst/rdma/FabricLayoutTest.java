package io.weft.sst.rdma;

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
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every libfabric offset, ops-table slot and flag the bindings use ({@link FabricAbi}) equals what {@code offsetof()}
 * and the macros say on the installed headers: src/test/c/fabric_layout.c, compiled and run here.
 */
@Timeout(120)
class FabricLayoutTest
{
    @TempDir
    Path dir;

    @Test
    void everyConstantMatchesTheInstalledHeaders() throws Exception
    {
        Assumptions.assumeTrue(Files.exists(Path.of("/usr/include/rdma/fabric.h")),
            "skipped: libfabric headers not installed (apt-get install libfabric-dev)");
        final Path source = Path.of("src/test/c/fabric_layout.c").toAbsolutePath();
        final Path binary = dir.resolve("fabric_layout");
        final Process cc;
        try
        {
            cc = new ProcessBuilder("gcc", "-o", binary.toString(), source.toString()).redirectErrorStream(true).start();
        }
        catch (final java.io.IOException ex)
        {
            Assumptions.abort("skipped: no C compiler (gcc) to check the ABI with: " + ex.getMessage());
            return;
        }
        final String ccOut = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cc.waitFor(60, TimeUnit.SECONDS) && cc.exitValue() == 0, "gcc failed:\n" + ccOut);
        final Process run = new ProcessBuilder(binary.toString()).redirectErrorStream(true).start();
        final String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, run.waitFor());
        final Map<String, Long> c = new HashMap<>();
        for (final String line : out.split("\n"))
        {
            final String[] kv = line.split("=");
            c.put(kv[0], Long.parseLong(kv[1]));
        }
        int checked = 0;
        for (final Field f : FabricAbi.class.getDeclaredFields())
        {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == long.class)
            {
                assertTrue(c.containsKey(f.getName()), f.getName() + " is not printed by fabric_layout.c");
                assertEquals(c.get(f.getName()), f.getLong(null), f.getName() + " differs from the installed headers");
                checked++;
            }
        }
        assertEquals(c.size(), checked, "fabric_layout.c prints constants FabricAbi lacks");
        assertTrue(checked > 50, "only " + checked + " constants checked");
    }
}
