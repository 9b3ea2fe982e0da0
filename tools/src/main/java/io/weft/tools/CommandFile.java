package io.weft.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * How a test or chaos run tells a running member program what to do: a file {@code cmd-<member>} in the run's
 * directory, which the member polls. Each side moves the file atomically, so neither meets half a command and none
 * is lost: the writer renames a whole file into place, and the member moves it aside before it reads it (reading and
 * then deleting it lost a command written between the two: a test's "stop" then "end" to one member, whose "end" was
 * deleted unread, so the member never ended).
 */
final class CommandFile
{
    private CommandFile()
    {
    }

    /** Member {@code id}'s command file in {@code dir}. */
    static Path of(final Path dir, final int id)
    {
        return dir.resolve("cmd-" + id);
    }

    /** Gives member {@code id} a command; written whole, then renamed into place. */
    static void give(final Path dir, final int id, final String command) throws IOException
    {
        final Path tmp = dir.resolve("cmd-" + id + ".tmp");
        Files.writeString(tmp, command);
        Files.move(tmp, of(dir, id), StandardCopyOption.ATOMIC_MOVE);
    }

    /** The command in {@code file}, taken away, or null if there is none. */
    static String take(final Path file) throws IOException
    {
        final Path taken = file.resolveSibling(file.getFileName() + ".taken");
        try
        {
            Files.move(file, taken, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
        final String command = Files.readString(taken).trim();
        Files.delete(taken);
        return command;
    }
}
