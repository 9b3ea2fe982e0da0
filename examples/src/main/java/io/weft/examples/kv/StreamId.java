package io.weft.examples.kv;

import java.nio.charset.StandardCharsets;

/**
 * A stream entry's ID: milliseconds and a sequence number, both unsigned 64-bit, ordered as Redis orders them (by
 * milliseconds, then sequence), written {@code ms-seq}.
 *
 * @param ms  the milliseconds part, unsigned.
 * @param seq the sequence part, unsigned.
 */
record StreamId(long ms, long seq) implements Comparable<StreamId>
{
    static final StreamId MIN = new StreamId(0, 0);
    /** 18446744073709551615-18446744073709551615: no entry may follow it. */
    static final StreamId MAX = new StreamId(-1, -1);
    static final String INVALID = "ERR Invalid stream ID specified as stream command argument";
    /** Redis reads an ID from a 128-byte buffer: a longer argument is no ID. */
    private static final int LONGEST = 127;

    @Override
    public int compareTo(final StreamId other)
    {
        final int byMs = Long.compareUnsigned(ms, other.ms);
        return byMs != 0 ? byMs : Long.compareUnsigned(seq, other.seq);
    }

    /** The next ID, or null after {@link #MAX} (Redis's streamIncrID). */
    StreamId next()
    {
        return seq != -1 ? new StreamId(ms, seq + 1) : ms != -1 ? new StreamId(ms + 1, 0) : null;
    }

    /** The ID before, or null before {@link #MIN} (Redis's streamDecrID). */
    StreamId previous()
    {
        return seq != 0 ? new StreamId(ms, seq - 1) : ms != 0 ? new StreamId(ms - 1, -1) : null;
    }

    boolean isMin()
    {
        return ms == 0 && seq == 0;
    }

    byte[] bytes()
    {
        return toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString()
    {
        return Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
    }

    /**
     * An ID argument as Redis reads one (streamGenericParseIDOrReply): {@code -} and {@code +} (unless {@code strict})
     * the least and greatest IDs, {@code ms-seq}, or {@code ms} with the sequence {@code missingSeq}; Redis's
     * invalid-ID error for anything else.
     */
    static StreamId parse(final byte[] word, final long missingSeq, final boolean strict)
    {
        final String text = cString(word);
        if (text.length() > LONGEST || strict && (text.equals("-") || text.equals("+")))
        {
            throw new KvStore.SyntaxError(INVALID);
        }
        if (text.equals("-"))
        {
            return MIN;
        }
        if (text.equals("+"))
        {
            return MAX;
        }
        final int dash = text.indexOf('-');
        final long ms = unsigned(dash < 0 ? text : text.substring(0, dash));
        return new StreamId(ms, dash < 0 ? missingSeq : unsigned(text.substring(dash + 1)));
    }

    /** XADD's ID argument {@code ms-*}'s milliseconds (XADD then picks the sequence); null for any other argument. */
    static Long autoSequence(final byte[] word)
    {
        final String text = cString(word);
        return text.length() <= LONGEST && text.endsWith("-*") && text.indexOf('-') == text.length() - 2 ?
            unsigned(text.substring(0, text.length() - 2)) : null;
    }

    /**
     * An unsigned 64-bit number as Redis's string2ull reads it: what string2ll takes (a strict decimal, no leading zero
     * nor plus) unless negative, or else what C's strtoull takes whole (leading white space, a sign, leading zeros; a
     * minus negates modulo 2^64); Redis's invalid-ID error for anything else.
     */
    private static long unsigned(final String text)
    {
        int at = 0;
        while (at < text.length() && isSpace(text.charAt(at)))
        {
            at++;
        }
        final boolean signed = at < text.length() && (text.charAt(at) == '-' || text.charAt(at) == '+');
        final String digits = text.substring(signed ? at + 1 : at);
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9'))
        {
            throw new KvStore.SyntaxError(INVALID);
        }
        final long value;
        try
        {
            value = Long.parseUnsignedLong(digits);
        }
        catch (final NumberFormatException ex)
        {
            throw new KvStore.SyntaxError(INVALID); // strtoull's ERANGE
        }
        final boolean minus = signed && text.charAt(at) == '-';
        final boolean strict = at == 0 && (digits.length() == 1 || digits.charAt(0) != '0');
        if (minus && strict && value != 0 && Long.compareUnsigned(value, Long.MIN_VALUE) <= 0)
        {
            throw new KvStore.SyntaxError(INVALID); // string2ll read it: a negative number is out of range
        }
        return minus ? -value : value;
    }

    /** C's isspace in the C locale. */
    private static boolean isSpace(final char c)
    {
        return c == ' ' || c >= '\t' && c <= '\r';
    }

    /** An argument as C reads it: up to its first NUL byte. */
    private static String cString(final byte[] word)
    {
        int end = 0;
        while (end < word.length && word[end] != 0)
        {
            end++;
        }
        return new String(word, 0, end, StandardCharsets.ISO_8859_1);
    }
}
