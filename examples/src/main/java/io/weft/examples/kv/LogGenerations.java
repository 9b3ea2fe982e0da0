package io.weft.examples.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Where a {@link KvLog}'s logs live inside its directory {@code DIR}: generations {@code DIR/gen-N}, and a symbolic
 * link {@code DIR/live} to the live one. A compaction writes generation N + 1 beside the live one and makes it live
 * by one atomic rename of a new link over {@code live}, while its queue stays open: appends wait for that rename only,
 * not for a Chronicle queue to be closed and opened again under another name (12-26 ms a compaction on a busy host,
 * at every member at about the same write). Each queue is opened at its generation's own name, which never changes,
 * so the files it creates later land there; {@code DIR} itself never moves (it may be a mount point).
 *
 * <p>A crash leaves at most a generation that is not live (a compaction cut short, or one it replaced and had not
 * deleted yet): {@link #settle} deletes it. A log of the layout before (a Chronicle queue in {@code DIR} itself, with
 * a compaction's {@code DIR.next} and {@code DIR.old} beside it) is settled as it was and used where it is until its
 * first compaction, whose generation replaces it.
 */
final class LogGenerations
{
    private static final String GEN = "gen-";

    private final Path directory;
    private final Path link;
    /** The new link that {@link #swap} renames over {@link #link}. */
    private final Path nextLink;

    LogGenerations(final Path directory)
    {
        this.directory = directory;
        this.link = directory.resolve("live");
        this.nextLink = directory.resolve("live.next");
    }

    /** Settles what a crash left and returns the live log's directory, creating the first generation if none is. */
    Path settle()
    {
        settleLegacy();
        create(directory);
        final boolean linked = Files.isSymbolicLink(link);
        final boolean legacy = !linked && !queueFiles().isEmpty();
        if (!linked && !legacy)
        {
            // none (a new log), or the first, which a crash left before its link: the only one there can be
            final List<Path> found = generations();
            if (found.size() > 1)
            {
                throw new IllegalStateException("the key-value log " + directory + " has no link 'live' to name " +
                    "which of " + found + " is live; link the one meant (ln -s gen-N live) or move the others away");
            }
            final Path first = found.isEmpty() ? generation(0) : found.getFirst();
            create(first);
            swap(first);
        }
        final Path live = live();
        if (!Files.isDirectory(live))
        {
            throw new IllegalStateException("the key-value log's link " + link + " names " + live + ", which is " +
                "missing: the log is gone; move it back, or remove the directory to start this member empty");
        }
        for (final Path g : generations())
        {
            if (!g.equals(live))
            {
                delete(g); // a compaction cut short, or a generation it replaced and had not deleted yet
            }
        }
        if (!legacy)
        {
            dropLegacy(); // the log of the layout before, which a compaction replaced just before a crash
        }
        delete(nextLink);
        return live;
    }

    /** The directory of the generation after the live one, empty: a compaction writes its log there. */
    Path next()
    {
        final Path live = live();
        final String name = live.getFileName().toString();
        final Path next = generation(live.equals(directory) ? 1 : Long.parseLong(name.substring(GEN.length())) + 1);
        delete(next);
        return next;
    }

    /** Makes {@code generation} live: a new link to it replaces {@link #link}, in one atomic rename. */
    void swap(final Path generation)
    {
        try
        {
            Files.deleteIfExists(nextLink);
            Files.createSymbolicLink(nextLink, generation.getFileName()); // relative: the directory may move
            Files.move(nextLink, link, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot make " + generation + " the live key-value log", ex);
        }
    }

    /** Deletes a log that is no longer live: a generation, or the log of the layout before ({@code DIR} itself). */
    void drop(final Path log)
    {
        if (log.equals(directory))
        {
            dropLegacy();
        }
        else
        {
            delete(log);
        }
    }

    /**
     * The live log's directory: the generation the link names, or {@code DIR} itself for a log of the layout before.
     */
    Path live()
    {
        if (!Files.isSymbolicLink(link))
        {
            return directory;
        }
        try
        {
            return directory.resolve(Files.readSymbolicLink(link));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read the key-value log's link " + link, ex);
        }
    }

    /**
     * A compaction cut short ({@code DIR.next} complete beside the old log's {@code DIR.old}) is finished or undone.
     */
    private void settleLegacy()
    {
        final Path next = directory.resolveSibling(directory.getFileName() + ".next");
        final Path old = directory.resolveSibling(directory.getFileName() + ".old");
        if (Files.isDirectory(next) && !Files.exists(directory) && Files.isDirectory(old))
        {
            move(next, directory); // both renames were due; the new log was closed whole before the first
        }
        if (Files.exists(directory))
        {
            delete(next);
            delete(old);
        }
    }

    /** The files of a Chronicle queue of the layout before, in {@code DIR} itself (cycles and tables). */
    private List<Path> queueFiles()
    {
        return list(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) &&
            (p.getFileName().toString().endsWith(".cq4") || p.getFileName().toString().endsWith(".cq4t")));
    }

    private void dropLegacy()
    {
        queueFiles().forEach(LogGenerations::delete);
    }

    private List<Path> generations()
    {
        return list(p -> p.getFileName().toString().startsWith(GEN));
    }

    private List<Path> list(final Predicate<Path> filter)
    {
        try (Stream<Path> inside = Files.list(directory))
        {
            return inside.filter(filter).sorted().toList();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list the key-value log's directory " + directory, ex);
        }
    }

    private Path generation(final long n)
    {
        return directory.resolve(GEN + n);
    }

    private static void create(final Path directory)
    {
        try
        {
            Files.createDirectories(directory);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create the key-value log directory " + directory, ex);
        }
    }

    private static void move(final Path from, final Path to)
    {
        try
        {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot rename " + from + " to " + to + " settling the key-value log", ex);
        }
    }

    /** Deletes {@code tree} if it exists (a link itself, not what it points at). */
    private static void delete(final Path tree)
    {
        if (!Files.exists(tree, LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(tree))
        {
            for (final Path p : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.delete(p);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot remove " + tree, ex);
        }
    }
}
