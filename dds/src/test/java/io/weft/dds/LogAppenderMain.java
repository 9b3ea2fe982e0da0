package io.weft.dds;

import io.weft.testkit.ParentWatch;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Appends entries "entry-n" (source nanos n) to the log in {@code args[0]} until killed, alternating single entries
 * and runs as a topic's log thread does, and prints "appended N" as the count passes each multiple N of 1,000: the
 * writer a test kills -9.
 */
public final class LogAppenderMain
{
    private LogAppenderMain()
    {
    }

    public static void main(final String[] args)
    {
        ParentWatch.install(); // ends with the test JVM that started it, also after kill -9
        final int capacity = 64;
        final int[] publishers = new int[capacity];
        final long[] nanos = new long[capacity];
        final byte[][] payloads = new byte[capacity][];
        final int[] lengths = new int[capacity];
        try (SampleLog log = SampleLog.open(Path.of(args[0])))
        {
            long next = (log.count() / 1_000 + 1) * 1_000;
            while (true)
            {
                final long n = log.count();
                if (n % 3 == 0)
                {
                    final byte[] s = ("entry-" + n).getBytes(StandardCharsets.UTF_8);
                    log.append(1, n, s, s.length);
                }
                else
                {
                    final long to = n + 1 + n % 29;
                    for (long k = n; k < to; k++)
                    {
                        final int i = (int)(k % capacity);
                        payloads[i] = ("entry-" + k).getBytes(StandardCharsets.UTF_8);
                        lengths[i] = payloads[i].length;
                        publishers[i] = 2;
                        nanos[i] = k;
                    }
                    log.appendRun(publishers, nanos, payloads, lengths, n, to);
                }
                if (log.count() >= next)
                {
                    System.out.println("appended " + next);
                    next += 1_000;
                }
            }
        }
    }
}
