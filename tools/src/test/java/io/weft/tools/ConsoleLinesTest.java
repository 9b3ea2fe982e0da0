package io.weft.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A child JVM prints {@code printf} lines on stdout while another thread logs on stderr into the same pipe, as a
 * member process does under a demo: with {@link ConsoleLines} every line arrives whole.
 */
@Timeout(60)
class ConsoleLinesTest
{
    private static final int LINES = 20_000;

    @Test
    void printfLinesAreNotSplitByLinesOnTheOtherStream() throws Exception
    {
        final Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
            System.getProperty("java.class.path"), Writer.class.getName()).redirectErrorStream(true).start();
        final List<String> broken = new ArrayList<>();
        int out = 0;
        int err = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)))
        {
            for (String line = r.readLine(); line != null; line = r.readLine())
            {
                if (line.matches("OUT \\d+ of \\d+ in view \\d+"))
                {
                    out++;
                }
                else if (line.matches("ERR \\d+ a log line from another thread"))
                {
                    err++;
                }
                else
                {
                    broken.add(line);
                }
            }
        }
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertTrue(broken.isEmpty(), broken.size() + " broken lines, first " + broken.subList(0,
            Math.min(4, broken.size())));
        assertEquals(LINES, out);
        assertEquals(LINES, err);
    }

    /** The child: stdout by printf (one write per piece without ConsoleLines), stderr by println from a thread. */
    public static final class Writer
    {
        public static void main(final String[] args) throws Exception
        {
            ConsoleLines.install();
            final Thread logger = new Thread(() ->
            {
                for (int i = 0; i < LINES; i++)
                {
                    System.err.println("ERR " + i + " a log line from another thread");
                }
            });
            logger.start();
            for (int i = 0; i < LINES; i++)
            {
                System.out.printf("OUT %d of %d in view %d%n", i, LINES, i % 7);
            }
            logger.join();
        }
    }
}
