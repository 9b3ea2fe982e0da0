package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A sorted set's range, its two bounds read once: by rank (start and stop, negative ones from the end), by score
 * ({@code (} before an excluded bound; {@code -inf}, {@code +inf}) or by member ({@code [} or {@code (} and a member;
 * {@code -}, {@code +}). Reading raises Redis's error for a bound that is not one, before the command looks its key
 * up: a bound's error comes before the key's WRONGTYPE, as in Redis.
 */
sealed interface ZRange
{
    /** Ranks, first included and last not, of no member. */
    int[] NOTHING = {0, 0};

    /** How a range command selects: by rank, by score or by member (ZRANGE's BYSCORE, BYLEX). */
    enum By
    {
        RANK, SCORE, LEX
    }

    /**
     * The range from {@code low} to {@code high}, read as {@code by} says; scores as Redis reads them, or, unless
     * {@code lenient}, as a score argument (an older log's batch: {@link Strtod#SINCE}).
     */
    static ZRange of(final By by, final byte[] low, final byte[] high, final boolean lenient)
    {
        return switch (by)
        {
            case RANK -> new ByRank(ValueEdits.integer(low), ValueEdits.integer(high));
            case SCORE -> new ByScore(score(low, lenient), open(low), score(high, lenient), open(high));
            case LEX -> new ByLex(lex(low), lex(high));
        };
    }

    /**
     * The ranks, first included and last not, that the range holds in {@code z} (none for null); a range by rank
     * counted from the highest member when {@code reverse} (a range by score or member is given high bound first).
     */
    int[] ranks(ZSetValue z, boolean reverse);

    /** By rank, {@code first} to {@code last} included. */
    record ByRank(long first, long last) implements ZRange
    {
        @Override
        public int[] ranks(final ZSetValue z, final boolean reverse)
        {
            final int size = z == null ? 0 : z.members().size();
            final long from = Math.max(0, first < 0 ? size + first : first);
            final long to = Math.min(size - 1L, last < 0 ? size + last : last);
            if (from > to || from >= size)
            {
                return NOTHING;
            }
            // a reverse range's ranks count from the end: in the set's order they are the mirror image
            return reverse ? new int[] {(int)(size - 1 - to), (int)(size - from)} : new int[] {(int)from, (int)to + 1};
        }
    }

    /** By score, from {@code min} to {@code max}, each bound excluded when open. */
    record ByScore(double min, boolean minOpen, double max, boolean maxOpen) implements ZRange
    {
        @Override
        public int[] ranks(final ZSetValue z, final boolean reverse)
        {
            if (z == null)
            {
                return NOTHING;
            }
            final int from = z.members().belowScore(min, minOpen);
            return new int[] {from, Math.max(from, z.members().belowScore(max, !maxOpen))};
        }
    }

    /** By member, {@code low} to {@code high} as given: {@code -}, {@code +}, or {@code [} or {@code (} and one. */
    record ByLex(byte[] low, byte[] high) implements ZRange
    {
        @Override
        public int[] ranks(final ZSetValue z, final boolean reverse)
        {
            if (z == null)
            {
                return NOTHING;
            }
            final int from = rank(z, low, true);
            return new int[] {from, Math.max(from, rank(z, high, false))};
        }

        /** The rank at which a range by member starts ({@code start}) or ends (not included) at {@code bound}. */
        private static int rank(final ZSetValue z, final byte[] bound, final boolean start)
        {
            if (bound.length == 1 && (bound[0] == '-' || bound[0] == '+'))
            {
                return bound[0] == '-' ? 0 : z.members().size();
            }
            final byte[] member = Arrays.copyOfRange(bound, 1, bound.length);
            final boolean open = bound[0] == '(';
            return z.members().belowMember(member, start == open);
        }
    }

    private static boolean open(final byte[] bound)
    {
        return bound.length > 0 && bound[0] == '(';
    }

    private static double score(final byte[] bound, final boolean lenient)
    {
        // strtod as Redis calls it here: after white space, nothing at all as 0, out of range as inf or 0
        final byte[] number = open(bound) ? Arrays.copyOfRange(bound, 1, bound.length) : bound;
        final double score = lenient ? Strtod.afterSpace(number, false) :
            Strtod.read(new String(number, StandardCharsets.ISO_8859_1), true, false);
        if (Double.isNaN(score))
        {
            throw new KvStore.SyntaxError("ERR min or max is not a float");
        }
        return score;
    }

    private static byte[] lex(final byte[] bound)
    {
        final boolean endless = bound.length == 1 && (bound[0] == '-' || bound[0] == '+');
        if (!endless && (bound.length == 0 || bound[0] != '[' && bound[0] != '('))
        {
            throw new KvStore.SyntaxError("ERR min or max not valid string range item");
        }
        return bound;
    }
}
