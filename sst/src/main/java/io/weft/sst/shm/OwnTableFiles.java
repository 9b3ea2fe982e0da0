package io.weft.sst.shm;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This process's open table files, removed if the JVM exits without closing them (System.exit, SIGTERM, Ctrl-C, a
 * member whose launcher ended): nobody else would, since the others only remove a file whose owner no longer runs
 * when they close the view's table, and a whole group that ends at once (Ctrl-C on a demo) has nobody left to. Peers
 * that still map a removed file keep reading it; the name is gone, the memory goes with the last mapping.
 */
final class OwnTableFiles
{
    private static final Set<Path> OPEN = ConcurrentHashMap.newKeySet();

    static
    {
        try
        {
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("weft-shm-exit").unstarted(() ->
                OPEN.forEach(ShmTableFile::deleteQuietly)));
        }
        catch (final IllegalStateException shuttingDown)
        {
            // the first table is opened while the JVM exits: only its close removes its file
        }
    }

    private OwnTableFiles()
    {
    }

    static void opened(final Path path)
    {
        OPEN.add(path);
    }

    static void closed(final Path path)
    {
        OPEN.remove(path);
    }
}
