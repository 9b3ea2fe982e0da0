package io.weft.dds;

import io.weft.config.LinuxSyscall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A log's pages leave the page cache a step behind the appender once on disk, and read back intact from the disk. */
@Timeout(120)
class DropBehindTest
{
    private static final int BODY = 1000;
    private static final long STEP = (long)DropBehind.STEP_MIB << 20;
    private static final long KEEP = (long)DropBehind.KEEP_MIB << 20;

    @TempDir
    Path dir;

    @Test
    void pagesBehindTheAppenderLeaveThePageCacheAndReadBackIntact() throws Exception
    {
        assumeTrue(LinuxSyscall.AVAILABLE, "drop-behind needs Linux system calls");
        final RunRing ring = new RunRing(1024);
        long written = 0;
        try (SampleLog log = SampleLog.open(dir))
        {
            // what is kept, then steps past the file's first chunk (64 MiB and its overlap, mapped for the header)
            long due = KEEP + 6 * STEP;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            double resident = 1;
            while (resident > 0.25 && due < KEEP + 24 * STEP && System.nanoTime() < deadline)
            {
                while (written * (BODY + SampleLog.ENTRY_OVERHEAD) < due)
                {
                    final long from = written;
                    for (int k = 0; k < ring.capacity(); k++, written++)
                    {
                        ring.put(written, (int)(written % 3), written, body(written), BODY);
                    }
                    assertEquals(written, ring.appendTo(log, from, written));
                }
                // Chronicle unmaps a chunk it left in the background: a later step's drop takes its pages
                resident = residentShare(chronicleFile(), 3 * STEP, 5 * STEP);
                due += STEP;
                Thread.sleep(20);
            }
            assertTrue(resident <= 0.25, "share of steps 3 and 4 still in the page cache: " + resident);
        }
        try (SampleLog log = SampleLog.open(dir)) // checks every entry's CRC, the dropped ones from the disk
        {
            assertEquals(written, log.count());
            assertNull(log.verify());
            final long[] next = {0};
            log.read(0, e ->
            {
                assertEquals(next[0], e.position());
                assertEquals((int)(next[0] % 3), e.publisherId());
                assertEquals(next[0], e.sourceNanos());
                assertArrayEquals(body(next[0]), e.payload(), "entry " + next[0]);
                next[0]++;
            });
            assertEquals(written, next[0]);
        }
    }

    private static byte[] body(final long n)
    {
        final byte[] b = new byte[BODY];
        for (int i = 0; i < BODY; i++)
        {
            b[i] = (byte)(n * 31 + i);
        }
        return b;
    }

    private Path chronicleFile() throws Exception
    {
        try (var files = Files.list(dir))
        {
            return files.filter(p -> p.toString().endsWith(".cq4")).max(Comparator.comparingLong(p -> p.toFile().length()))
                .orElseThrow();
        }
    }

    /** The share of the file's bytes {@code from} to {@code to} in the page cache ({@code mincore} over a mapping). */
    private static double residentShare(final Path file, final long from, final long to) throws Exception
    {
        final int pages = (int)((to - from) / 4096);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined())
        {
            final MemorySegment mapped = ch.map(FileChannel.MapMode.READ_ONLY, from, to - from, arena);
            final MemorySegment vector = arena.allocate(pages);
            final long rc = LinuxSyscall.call(LinuxSyscall.number(27, 232), mapped.address(), to - from,
                vector.address(), 0, 0);
            assertEquals(0, rc, "mincore failed");
            int resident = 0;
            for (int i = 0; i < pages; i++)
            {
                resident += vector.get(ValueLayout.JAVA_BYTE, i) & 1;
            }
            return resident / (double)pages;
        }
    }
}
