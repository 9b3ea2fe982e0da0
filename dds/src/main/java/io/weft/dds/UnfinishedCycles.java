package io.weft.dds;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * Cycle files of a log whose first header a writer killed while creating them never finished. Chronicle waits for
 * such a header to be finished by the writer it assumes is still at work: its timeout (2 s here) at every tailer and
 * appender that reaches the file, so a member that opened, checked and replayed its log took about 14 s to start after
 * a kill -9 that landed while its log's first cycle file was being created. The header comes before any entry, so such
 * a file holds none: it is set aside (renamed, never deleted) before the log opens for appending.
 */
final class UnfinishedCycles
{
    private static final Logger LOG = LoggerFactory.getLogger(UnfinishedCycles.class);
    /** Chronicle's header bit for a header still being written; a header of 0 was never begun. */
    private static final int NOT_COMPLETE = 0x8000_0000;
    static final String SUFFIX = ".unfinished";

    private UnfinishedCycles()
    {
    }

    /**
     * Renames every cycle file ({@code *.cq4}) of {@code directory} whose first header is unfinished. Only for the
     * log's one appending process, before it opens the log: a live writer's file would be mistaken for one.
     *
     * @throws IllegalStateException a file that cannot be read or renamed, naming it.
     */
    static void setAside(final Path directory)
    {
        try (Stream<Path> files = Files.list(directory))
        {
            final List<Path> unfinished = files.filter(f -> f.getFileName().toString().endsWith(".cq4"))
                .filter(UnfinishedCycles::unfinished).sorted().toList();
            for (final Path f : unfinished)
            {
                final Path aside = f.resolveSibling(f.getFileName() + SUFFIX);
                Files.move(f, aside);
                LOG.warn("log {}: cycle file {} has an unfinished first header (its writer was killed while it " +
                    "created the file, which holds no entry): set aside as {}", directory, f.getFileName(),
                    aside.getFileName());
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot check the cycle files of the log in " + directory + ": " + ex, ex);
        }
    }

    private static boolean unfinished(final Path cycle)
    {
        try (FileChannel ch = FileChannel.open(cycle, StandardOpenOption.READ))
        {
            final ByteBuffer first = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            final int header = ch.read(first, 0) == 4 ? first.getInt(0) : 0; // shorter: nothing was begun
            return header == 0 || (header & NOT_COMPLETE) != 0;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read the cycle file " + cycle + ": " + ex, ex);
        }
    }
}
