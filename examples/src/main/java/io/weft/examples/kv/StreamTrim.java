package io.weft.examples.kv;

import java.util.List;

/**
 * The trimming options of XADD and XTRIM ({@code MAXLEN|MINID [=|~] threshold [LIMIT count]}, and XADD's NOMKSTREAM
 * and ID), read as Redis reads them (streamParseAddOrTrimArgsOrReply), with its errors in its order.
 * <p>
 * A stream here keeps its entries in one tree, not in the listpack nodes Redis trims whole under {@code ~}: {@code ~}
 * trims entry by entry, as {@code =} does, to the threshold, at most LIMIT entries (Redis's default 10,000) a call.
 * That keeps what {@code ~} promises (at least the threshold stays; a trim's work is bounded), where Redis would keep
 * up to a node's entries more.
 */
final class StreamTrim
{
    /** Redis's LIMIT under {@code ~} when none is given: 100 times stream-node-max-entries (100). */
    static final long DEFAULT_LIMIT = 10_000;
    private static final String SYNTAX = "ERR syntax error";

    /** Whether a strategy was given, and whether it is MAXLEN (else MINID). */
    private boolean given;
    private boolean maxLen;
    private boolean approx;
    private long threshold;
    private StreamId minId;
    /** The most entries a trim removes; 0: no bound. */
    private long limit;
    /**
     * XADD only: NOMKSTREAM, and its ID (null for {@code *}): {@code ms-*} as ms with sequence 0 and {@link
     * #sequenceGiven} false (XADD then picks the sequence).
     */
    boolean noMakeStream;
    StreamId id;
    boolean sequenceGiven;

    /**
     * Reads the options of {@code args} from word 2 on; for XADD ({@code xadd}) up to and with the ID, which it
     * keeps. Returns the index of the word after the options (XADD: of its ID); Redis's error for a wrong one.
     */
    int parse(final List<byte[]> args, final boolean xadd)
    {
        boolean limitGiven = false;
        int i = 2;
        for (; i < args.size(); i++)
        {
            final boolean more = i < args.size() - 1;
            final byte[] word = args.get(i);
            if (xadd && word.length == 1 && word[0] == '*')
            {
                break;
            }
            else if (more && (Commands.is(word, "MAXLEN") || Commands.is(word, "MINID")))
            {
                i = strategy(args, i, Commands.is(word, "MAXLEN"));
            }
            else if (more && Commands.is(word, "LIMIT"))
            {
                limit = ValueEdits.integer(args.get(++i));
                if (limit < 0)
                {
                    throw new KvStore.SyntaxError("ERR The LIMIT argument must be >= 0.");
                }
                limitGiven = true;
            }
            else if (xadd && Commands.is(word, "NOMKSTREAM"))
            {
                noMakeStream = true;
            }
            else if (xadd)
            {
                final Long ms = StreamId.autoSequence(word); // a syntax error or a valid ID
                id = ms != null ? new StreamId(ms, 0) : StreamId.parse(word, 0, true);
                sequenceGiven = ms == null;
                break;
            }
            else
            {
                throw new KvStore.SyntaxError(SYNTAX);
            }
        }
        check(xadd, limitGiven);
        return i;
    }

    private int strategy(final List<byte[]> args, final int at, final boolean byLength)
    {
        if (given)
        {
            throw new KvStore.SyntaxError("ERR syntax error, MAXLEN and MINID options at the same time are not " +
                "compatible");
        }
        int i = at;
        approx = false;
        if (i < args.size() - 2 && isWord(args.get(i + 1), '~'))
        {
            approx = true;
            i++;
        }
        else if (i < args.size() - 2 && isWord(args.get(i + 1), '='))
        {
            i++;
        }
        final byte[] value = args.get(i + 1);
        if (byLength)
        {
            threshold = ValueEdits.integer(value);
            if (threshold < 0)
            {
                throw new KvStore.SyntaxError("ERR The MAXLEN argument must be >= 0.");
            }
        }
        else
        {
            minId = StreamId.parse(value, 0, true);
        }
        given = true;
        maxLen = byLength;
        return i + 1;
    }

    private void check(final boolean xadd, final boolean limitGiven)
    {
        if (limit != 0 && !given)
        {
            throw new KvStore.SyntaxError("ERR syntax error, LIMIT cannot be used without specifying a trimming " +
                "strategy");
        }
        if (!xadd && !given)
        {
            throw new KvStore.SyntaxError("ERR syntax error, XTRIM must be called with a trimming strategy");
        }
        if (limitGiven && !approx)
        {
            throw new KvStore.SyntaxError("ERR syntax error, LIMIT cannot be used without the special ~ option");
        }
        if (!limitGiven)
        {
            limit = approx ? DEFAULT_LIMIT : 0;
        }
    }

    /** Whether a strategy was given. */
    boolean given()
    {
        return given;
    }

    /** Trims {@code entries} as the options say: the count of entries removed. */
    long apply(final StreamValue.Entries entries)
    {
        long removed = 0;
        while (given && entries.size() > 0 && (limit == 0 || removed < limit) &&
            (maxLen ? entries.size() > threshold : entries.firstId().compareTo(minId) < 0))
        {
            entries.removeFirst();
            removed++;
        }
        return removed;
    }

    private static boolean isWord(final byte[] word, final char c)
    {
        return word.length == 1 && word[0] == c;
    }
}
