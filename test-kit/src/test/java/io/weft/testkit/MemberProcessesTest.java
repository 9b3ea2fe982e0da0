package io.weft.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
}
