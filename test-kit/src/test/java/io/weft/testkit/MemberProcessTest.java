package io.weft.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A member that never prints what a test waits for fails the wait with its threads in the message. */
@Timeout(60)
class MemberProcessTest
{
    @TempDir
    Path dir;

    /** Prints one line, then waits in a method a thread dump names. */
    public static final class Stuck
    {
        public static void main(final String[] args) throws InterruptedException
        {
            System.out.println("started");
            waitHere();
        }

        private static void waitHere() throws InterruptedException
        {
            Thread.sleep(Duration.ofMinutes(1));
        }
    }

    @Test
    void aTimedOutWaitShowsWhereTheMemberIsStuck()
    {
        try (MemberProcess p = MemberProcess.start("stuck", dir, Stuck.class))
        {
            p.awaitOutput("started", Duration.ofSeconds(30));
            final AssertionError e = assertThrows(AssertionError.class,
                () -> p.awaitOutput("never printed", Duration.ofMillis(200)));
            assertTrue(e.getMessage().contains("stuck to print 'never printed'"), e.getMessage());
            assertTrue(e.getMessage().contains("Full thread dump") && e.getMessage().contains("Stuck.waitHere"),
                e.getMessage());
        }
    }

    @Test
    void aMemberThatExitsFailsTheWaitAtOnceWithItsExitCode()
    {
        try (MemberProcess p = MemberProcess.start("gone", dir, Gone.class))
        {
            final AssertionError e = assertThrows(AssertionError.class,
                () -> p.awaitOutput("never printed", Duration.ofSeconds(30)));
            assertTrue(e.getMessage().contains("gone exited (3) before printing 'never printed'"), e.getMessage());
        }
    }

    /** Exits with code 3 at once. */
    public static final class Gone
    {
        public static void main(final String[] args)
        {
            System.exit(3);
        }
    }
}
