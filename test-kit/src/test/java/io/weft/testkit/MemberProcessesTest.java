package io.weft.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A launcher's shutdown hook stops its members while the command's thread may still be starting them: a member that
 * starts after the stop is stopped too, not left running until its parent-watch sees the launcher gone.
 */
@Timeout(60)
class MemberProcessesTest
{
    @Test
    void aProcessStartedAfterTerminateIsStopped() throws Exception
    {
        final PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        try (MemberProcesses processes = new MemberProcesses(out))
        {
            final int first = processes.start("first", MemberProcessTest.Stuck.class, List.of());
            processes.terminate();
            final int late = processes.start("late", MemberProcessTest.Stuck.class, List.of());
            assertTrue(processes.await(first, TimeUnit.SECONDS.toNanos(20)), "the first process still runs");
            assertTrue(processes.await(late, TimeUnit.SECONDS.toNanos(20)),
                "a process started after terminate() still runs");
        }
    }

    /**
     * A process started keeping some lines prints all of them and keeps those alone: `weft kv`'s members ran for days
     * and the command kept every line they printed (about 200 bytes each, one per client that sent bad bytes).
     */
    @Test
    void aProcessStartedKeepingSomeLinesPrintsEveryLineAndKeepsThoseAlone() throws Exception
    {
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (MemberProcesses processes = new MemberProcesses(new PrintStream(printed, true, StandardCharsets.UTF_8)))
        {
            final int chatty = processes.startKeeping("chatty", Chatty.class, List.of(), l -> l.startsWith("kept"));
            assertTrue(processes.await(chatty, TimeUnit.SECONDS.toNanos(30)), "the process still runs");
            assertEquals(List.of("kept 0", "kept 1000", "kept 2000"), processes.lines(chatty));
            final String all = printed.toString(StandardCharsets.UTF_8);
            assertEquals(Chatty.LINES, all.lines().filter(l -> l.startsWith("[chatty] ")).count(), all);
        }
    }

    /** Prints {@value #LINES} lines; every thousandth starts with "kept". */
    static final class Chatty
    {
        static final int LINES = 3000;

        public static void main(final String[] args)
        {
            for (int i = 0; i < LINES; i++)
            {
                System.out.println((i % 1000 == 0 ? "kept " : "line ") + i);
            }
        }
    }
}
