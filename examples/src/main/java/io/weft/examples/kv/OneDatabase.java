package io.weft.examples.kv;

import java.util.List;
import java.util.function.Supplier;

/**
 * SELECT, MOVE and SWAPDB, answered as Redis configured with {@code databases 1} answers them (CONFIG GET databases
 * gives 1 here): each reads its indexes in Redis's order with Redis's words, and as database 0 is the only one, none
 * changes anything. A connection answers SELECT itself; MOVE and SWAPDB are writes in Redis (clients route by that,
 * read-only scripts refuse them), so they travel through the group as writes do. All three may be queued in a
 * transaction or called by a script (since KvWire 16), which answers them where it applies.
 */
final class OneDatabase
{
    /** Redis's error for an index that is a C int but names no database. */
    static final Reply OUT_OF_RANGE = Reply.error("ERR DB index is out of range");
    /** Redis's error for an index that is an integer but not a C int. */
    private static final String NOT_AN_INT = "ERR value is out of range, value must between " + Integer.MIN_VALUE +
        " and " + Integer.MAX_VALUE;

    private OneDatabase()
    {
    }

    /** SELECT, MOVE or SWAPDB ({@code cmd}, upper case) with its words {@code args}, the name first. */
    static Reply apply(final String cmd, final List<byte[]> args)
    {
        final int n = args.size();
        return switch (cmd)
        {
            case "SELECT" -> n != 2 ? Reply.wrongArity(cmd) : select(args.get(1));
            case "MOVE" -> n != 3 ? Reply.wrongArity(cmd) : move(args.get(2));
            case "SWAPDB" -> n != 3 ? Reply.wrongArity(cmd) : swapdb(args.get(1), args.get(2));
            default -> throw new IllegalArgumentException("not a database command: " + cmd);
        };
    }

    /** SELECT index. */
    static Reply select(final byte[] index)
    {
        return answer(() -> index(index, null) == 0 ? Reply.OK : OUT_OF_RANGE);
    }

    /** MOVE key db: the key is not looked at, as Redis checks the index and the two databases first. */
    static Reply move(final byte[] db)
    {
        return answer(() -> index(db, null) == 0 ? Reply.error("ERR source and destination objects are the same") :
            OUT_OF_RANGE);
    }

    /** SWAPDB index1 index2: database 0 with itself is OK. */
    static Reply swapdb(final byte[] first, final byte[] second)
    {
        return answer(() ->
        {
            final int a = index(first, "ERR invalid first DB index");
            final int b = index(second, "ERR invalid second DB index");
            return a == 0 && b == 0 ? Reply.OK : OUT_OF_RANGE;
        });
    }

    private static Reply answer(final Supplier<Reply> command)
    {
        try
        {
            return command.get();
        }
        catch (final KvStore.SyntaxError ex)
        {
            return Reply.error(ex.getMessage());
        }
    }

    /**
     * An index as Redis's getIntFromObjectOrReply reads it (also COPY's DB): {@code error} for a word that is no C int,
     * if given, else Redis's own words.
     */
    static int index(final byte[] word, final String error)
    {
        final long value;
        try
        {
            value = ValueEdits.integer(word);
        }
        catch (final KvStore.SyntaxError ex)
        {
            throw error == null ? ex : new KvStore.SyntaxError(error);
        }
        if (value != (int)value)
        {
            throw new KvStore.SyntaxError(error == null ? NOT_AN_INT : error);
        }
        return (int)value;
    }
}
