package io.weft.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** Removing the directories that commands create for their runs (configuration files, logs, data of peers). */
public final class Trees
{
    private Trees()
    {
    }

    /** Deletes {@code root} and everything under it; nothing if it does not exist. */
    public static void delete(final Path root) throws IOException
    {
        if (!Files.exists(root))
        {
            return;
        }
        try (var paths = Files.walk(root))
        {
            for (final Path p : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
