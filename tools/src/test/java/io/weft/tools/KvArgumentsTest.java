package io.weft.tools;

import io.weft.config.TransportKind;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A log directory the store cannot create is refused by name, before anything starts: by {@code weft kv} once (each
 * of its members printed an UncheckedIOException's stack trace, and the command "every member exited before
 * serving"), and by a {@code kv-member} started by hand (the stack trace); so is a password file that cannot be read
 * or has no password.
 */
@Timeout(60)
class KvArgumentsTest
{
    @TempDir
    Path dir;

    @Test
    void aLogDirectoryOrPasswordFileThatCannotServeIsRefusedByName() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("file"), "not a directory");
        final Path log = file.resolve("logs");

        final CommandRun kv = CommandRun.of("kv", "--log", log.toString());
        assertEquals(Weft.EXIT_CONFIG, kv.code(), kv.errors());
        final String notADirectory = "java.nio.file.FileSystemException: " + log + ": Not a directory";
        assertEquals("weft: --log " + log + ": cannot create it (" + notADirectory + ")", kv.errors().strip());
        assertFalse(kv.output().contains("kv: "), "no member was started: " + kv.output());

        final Path config = TestGroups.write(KvCommand.config(TransportKind.TCP, TestGroups.freePorts(2)), dir);
        final CommandRun member = CommandRun.of("kv-member", "--config", config.toString(), "--member", "0",
            "--port", "0", "--log", log.toString());
        assertEquals(Weft.EXIT_CONFIG, member.code(), member.errors());
        assertEquals("weft: cannot create the key-value log directory " + log + " (" +
            notADirectory + ")", member.errors().strip());
        assertFalse(member.errors().contains("\tat "), member.errors());

        assertEquals("weft: --duration must be positive, was PT0S", CommandRun.of("kv", "--duration", "0s")
            .errors().strip());
        final Path empty = Files.writeString(dir.resolve("empty"), "\n");
        assertEquals("weft: --requirepass-file: the password file " + empty + " has an empty first line: put the " +
            "password there", CommandRun.of("kv", "--requirepass-file", empty.toString()).errors().strip());
        final CommandRun missing = CommandRun.of("kv-member", "--config", config.toString(), "--member", "0",
            "--port", "0", "--requirepass-file", dir.resolve("none").toString());
        assertEquals(Weft.EXIT_CONFIG, missing.code(), missing.errors());
        assertTrue(missing.errors().startsWith("weft: --requirepass-file: cannot read the password file " +
            dir.resolve("none")), missing.errors());
    }
}
