package io.weft.examples.kv;

/** Redis glob patterns (KEYS, SCAN MATCH): {@code *}, {@code ?}, {@code [abc]}, {@code [^a-z]}, {@code \} escapes. */
final class Glob
{
    private Glob()
    {
    }

    static boolean matches(final byte[] pattern, final byte[] text)
    {
        return matches(pattern, 0, text, 0);
    }

    private static boolean matches(final byte[] p, final int pi, final byte[] t, final int ti)
    {
        int i = pi;
        int j = ti;
        while (i < p.length)
        {
            final byte c = p[i];
            if (c == '*')
            {
                while (i + 1 < p.length && p[i + 1] == '*')
                {
                    i++;
                }
                if (i + 1 == p.length)
                {
                    return true;
                }
                for (int k = j; k <= t.length; k++)
                {
                    if (matches(p, i + 1, t, k))
                    {
                        return true;
                    }
                }
                return false;
            }
            if (j >= t.length)
            {
                return false;
            }
            if (c == '?')
            {
                i++;
                j++;
                continue;
            }
            if (c == '[')
            {
                final int end = classEnd(p, i);
                if (end < 0)
                {
                    if (t[j] != c) // an unclosed '[' is a literal
                    {
                        return false;
                    }
                    i++;
                    j++;
                    continue;
                }
                if (!inClass(p, i + 1, end, t[j]))
                {
                    return false;
                }
                i = end + 1;
                j++;
                continue;
            }
            final byte literal = c == '\\' && i + 1 < p.length ? p[++i] : c;
            if (t[j] != literal)
            {
                return false;
            }
            i++;
            j++;
        }
        return j == t.length;
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
