package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the longest common subsequence of two strings (a
 * missing key is empty), as Redis 7 computes it: the classic table of lengths, walked back from the ends, so the
 * subsequence and its ranges (IDX: last first) are Redis's when several are longest. The table takes 4 bytes per pair
 * of positions, at most {@value #MAX_TABLE_BYTES} bytes (two strings of about 4 KiB; Redis allows its
 * proto-max-bulk-len, 512 MiB): a read, it runs where reads run, on the delivery thread for ordered ones.
 */
final class Lcs
{
    static final long MAX_TABLE_BYTES = 64L << 20;
    private static final byte[] EMPTY = new byte[0];
    /** The options without an argument. */
    private static final Set<String> FLAGS = Set.of("IDX", "LEN", "WITHMATCHLEN");

    private Lcs()
    {
    }

    /** Runs LCS over {@code map}: {@link KvStore} checked its arity. */
    static Reply apply(final Keyspace map, final List<byte[]> args, final long now)
    {
        final byte[] a = string(map, args.get(1), now);
        final byte[] b = string(map, args.get(2), now);
        final Set<String> options = new HashSet<>();
        long minimum = 0;
        for (int i = 3; i < args.size(); i++)
        {
            final String option = Commands.word(args.get(i));
            if (option.equals("MINMATCHLEN") && i + 1 < args.size())
            {
                minimum = Math.max(0, ValueEdits.integer(args.get(++i)));
            }
            else if (!FLAGS.contains(option))
            {
                return Reply.error("ERR syntax error");
            }
            options.add(option);
        }
        final boolean length = options.contains("LEN");
        final boolean indexes = options.contains("IDX");
        if (length && indexes)
        {
            return Reply.error("ERR If you want both the length and indexes, please just use IDX.");
        }
        if ((a.length + 1L) * (b.length + 1L) * Integer.BYTES > MAX_TABLE_BYTES)
        {
            return Reply.error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
        }
        final int[] table = table(a, b);
        final int longest = table[table.length - 1];
        if (length)
        {
            return new Reply.Int(longest);
        }
        final byte[] common = new byte[longest];
        final List<Reply> matches = walk(a, b, table, common, minimum, options.contains("WITHMATCHLEN"));
        return indexes ? new Reply.Map(List.of(bulk("matches"), new Reply.Array(matches), bulk("len"),
            new Reply.Int(longest))) : new Reply.Bulk(common);
    }

    /** {@code key}'s string, empty if none; Redis's LCS error (not WRONGTYPE) for another type. */
    private static byte[] string(final Keyspace map, final byte[] key, final long now)
    {
        try
        {
            final KvStore.Entry e = map.live(key, now);
            return e == null ? EMPTY : e.value();
        }
        catch (final KvStore.SyntaxError ex)
        {
            throw new KvStore.SyntaxError("ERR The specified keys must contain string values");
        }
    }

    /** The lengths of the LCS of every pair of prefixes: {@code [j + (b.length + 1) * i]} for a[0, i) and b[0, j). */
    private static int[] table(final byte[] a, final byte[] b)
    {
        final int width = b.length + 1;
        final int[] table = new int[(a.length + 1) * width];
        for (int i = 1; i <= a.length; i++)
        {
            for (int j = 1; j <= b.length; j++)
            {
                table[j + width * i] = a[i - 1] == b[j - 1] ? table[j - 1 + width * (i - 1)] + 1 :
                    Math.max(table[j + width * (i - 1)], table[j - 1 + width * i]);
            }
        }
        return table;
    }

    /**
     * Walks {@code table} back from both ends as Redis does, filling {@code common} with the subsequence, and answers
     * the ranges of contiguous matches (last first) of at least {@code minimum} bytes, with their lengths if asked.
     */
    private static List<Reply> walk(final byte[] a, final byte[] b, final int[] table, final byte[] common,
        final long minimum, final boolean withLengths)
    {
        final int width = b.length + 1;
        final List<Reply> matches = new ArrayList<>();
        int left = common.length;
        int aStart = -1;
        int aEnd = 0;
        int bStart = 0;
        int bEnd = 0;
        for (int i = a.length, j = b.length; i > 0 && j > 0; )
        {
            boolean emit;
            if (a[i - 1] == b[j - 1])
            {
                common[--left] = a[i - 1];
                if (aStart < 0)
                {
                    aStart = aEnd = i - 1;
                    bStart = bEnd = j - 1;
                }
                else
                {
                    aStart--; // a match right after one extends its range backward
                    bStart--;
                }
                emit = aStart == 0 || bStart == 0;
                i--;
                j--;
            }
            else
            {
                if (table[j + width * (i - 1)] > table[j - 1 + width * i])
                {
                    i--;
                }
                else
                {
                    j--;
                }
                emit = aStart >= 0;
            }
            if (emit)
            {
                final int matched = aEnd - aStart + 1;
                if (matched >= minimum)
                {
                    final List<Reply> match = new ArrayList<>(List.of(range(aStart, aEnd), range(bStart, bEnd)));
                    if (withLengths)
                    {
                        match.add(new Reply.Int(matched));
                    }
                    matches.add(new Reply.Array(match));
                }
                aStart = -1;
            }
        }
        return matches;
    }

    private static Reply range(final int from, final int to)
    {
        return new Reply.Array(List.of(new Reply.Int(from), new Reply.Int(to)));
    }

    private static Reply bulk(final String text)
    {
        return new Reply.Bulk(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
}
