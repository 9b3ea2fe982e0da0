package io.weft.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The checker of vs-member logs: a message delivered with another length than sent is a violation. */
@Timeout(30)
class VsCheckTest
{
    @Test
    void aMessageOfAnotherLengthThanSentIsAViolation(@TempDir final Path dir) throws Exception
    {
        Files.writeString(dir.resolve("deliveries-0-100.log"), "V 0 [0, 1]\n0 0 100 0\n0 0 100 1 length 20\n");
        Files.writeString(dir.resolve("deliveries-1-101.log"), "V 0 [0, 1]\n0 0 100 0\n0 0 100 1\n");
        assertEquals(List.of("member 0 (pid 100) delivered 0/100/1 (length 20), not the length sent"),
            VsCheck.check(VsCheck.read(dir)), "agreement holds: the same messages, in one order");
    }
}
