package io.weft.examples.kv;

/**
 * Redis glob patterns (KEYS, SCAN MATCH): {@code *}, {@code ?}, {@code [abc]}, {@code [^a-z]}, {@code \} escapes.
 * <p>
 * Matched with one backtrack point, the last {@code *} seen: every other element takes exactly one byte, so when the
 * text after that star does not match, moving the star's end one byte on is the only choice left, and earlier stars
 * never need to be revisited. At most pattern x text steps: a recursion over every star took exponential time on
 * patterns such as {@code *a*a*a*a*a*a*a*a*a*a*b} (Redis's CVE-2022-36021), and a client's KEYS held up the
 * delivery thread, which runs linearizable reads, for as long.
 */
final class Glob
{
    private Glob()
    {
    }

    static boolean matches(final byte[] p, final byte[] t)
    {
        int i = 0;
        int j = 0;
        int star = -1; // the last '*' seen
        int starText = 0; // where the text after it starts now
        while (j < t.length)
        {
            if (i < p.length && p[i] == '*')
            {
                star = i++;
                starText = j;
                continue;
            }
            final int next = i < p.length ? one(p, i, t[j]) : -1;
            if (next >= 0)
            {
                i = next;
                j++;
            }
            else if (star >= 0)
            {
                i = star + 1;
                j = ++starText;
            }
            else
            {
                return false;
            }
        }
        while (i < p.length && p[i] == '*')
        {
            i++;
        }
        return i == p.length;
    }

    /** Where the pattern goes on if its element at {@code i} (not a star) matches {@code b}; -1 if not. */
    private static int one(final byte[] p, final int i, final byte b)
    {
        final byte c = p[i];
        if (c == '?')
        {
            return i + 1;
        }
        if (c == '[')
        {
            final int end = classEnd(p, i);
            if (end < 0) // an unclosed '[' is a literal
            {
                return b == c ? i + 1 : -1;
            }
            return inClass(p, i + 1, end, b) ? end + 1 : -1;
        }
        if (c == '\\' && i + 1 < p.length)
        {
            return b == p[i + 1] ? i + 2 : -1;
        }
        return b == c ? i + 1 : -1;
    }

    private static int classEnd(final byte[] p, final int open)
    {
        for (int i = open + 1; i < p.length; i++)
        {
            if (p[i] == '\\')
            {
                i++;
            }
            else if (p[i] == ']' && i > open + 1)
            {
                return i;
            }
        }
        return -1;
    }

    private static boolean inClass(final byte[] p, final int from, final int end, final byte b)
    {
        int i = from;
        final boolean negate = p[i] == '^';
        i += negate ? 1 : 0;
        boolean hit = false;
        while (i < end)
        {
            if (p[i] == '\\' && i + 1 < end)
            {
                hit |= p[++i] == b;
                i++;
            }
            else if (i + 2 < end && p[i + 1] == '-')
            {
                final int lo = Math.min(p[i] & 0xff, p[i + 2] & 0xff);
                final int hi = Math.max(p[i] & 0xff, p[i + 2] & 0xff);
                hit |= (b & 0xff) >= lo && (b & 0xff) <= hi;
                i += 3;
            }
            else
            {
                hit |= p[i] == b;
                i++;
            }
        }
        return hit != negate;
    }
}
