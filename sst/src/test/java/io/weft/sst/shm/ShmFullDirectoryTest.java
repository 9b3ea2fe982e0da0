package io.weft.sst.shm;

import io.weft.sst.SstLayout;
import io.weft.sst.TransportException;
import io.weft.testkit.SmallDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A table that does not fit in the shm directory (a 1 MiB tmpfs, a table of 2 MiB) is refused as it is created,
 * naming the file and why, and leaves no file behind. The file was mapped sparse, and the first write to a page
 * with no memory behind it faulted: an InternalError ("a fault occurred in an unsafe memory access operation").
 */
@Timeout(60)
class ShmFullDirectoryTest
{
    private static final SstLayout BIG = SstLayout.builder().counter("value").bytes("slots", 1 << 20).build();

    @TempDir
    Path dir;

    @Test
    void aTableThatDoesNotFitIsRefusedAsItIsCreated() throws Exception
    {
        SmallDisk.assumeAvailable();
        final Path shm = dir.resolve("shm");
        try (SmallDisk ignored = SmallDisk.mount(shm, 1))
        {
            final TransportException ex = assertThrows(TransportException.class,
                () -> ShmTableFile.create(shm, "full", 0, BIG, 2));
            final long size = 2L * BIG.rowSize() + ShmTableFile.HEADER_SIZE;
            assertTrue(ex.getMessage().startsWith("cannot create table file " + ShmTableFile.pathOf(shm, "full", 0) +
                " (" + size + " bytes): java.io.IOException: No space left on device"), ex.getMessage());
            try (Stream<Path> left = Files.list(shm))
            {
                assertEquals(0, left.count(), "files left in the shm directory");
            }
        }
    }
}
