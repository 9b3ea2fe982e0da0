package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;

import java.util.Arrays;

/**
 * One match of a Lua 5.1 pattern against a subject, as {@code lstrlib.c}'s {@code match} runs it (C locale
 * classes, {@code %b}, {@code %f}, back references, position captures, at most {@value #MAX_CAPTURES} captures, the
 * pattern read as a C string: it ends at its first NUL). The functions that use it are {@link Lua51Strings}'.
 * <p>
 * Two bounds Lua 5.1 lacks, so that a script ends alike at every member: nesting past {@value #MAX_DEPTH} calls is
 * "pattern too complex" (Lua 5.2's bound; 5.1 recursed until C's stack ran out), and every step is charged to the
 * script's instruction budget, so a pattern that backtracks for ever ends as a runaway loop does.
 */
final class Lua51Pattern
{
    private static final int MAX_CAPTURES = 32;
    private static final int MAX_DEPTH = 200;
    private static final int CAP_UNFINISHED = -1;
    private static final int CAP_POSITION = -2;
    /** Steps counted here before they are charged at once: the charge is a call through the runtime. */
    private static final int CHARGE_EVERY = 10_000;

    private final byte[] src;
    /** Where the subject starts and ends in {@link #src} (a LuaString's bytes are a slice). */
    private final int init;
    private final int end;
    private final byte[] p;
    private final Budget budget;
    private final int[] captureStart = new int[MAX_CAPTURES];
    private final int[] captureLength = new int[MAX_CAPTURES];
    private int level;
    private int depth;
    private int steps;

    /** The script's instruction budget: {@code charge} throws once it is spent. */
    interface Budget
    {
        void charge(long steps);
    }

    Lua51Pattern(final LuaString subject, final LuaString pattern, final Budget budget)
    {
        this.src = subject.m_bytes;
        this.init = subject.m_offset;
        this.end = subject.m_offset + subject.m_length;
        int length = 0;
        while (length < pattern.m_length && pattern.m_bytes[pattern.m_offset + length] != 0)
        {
            length++;
        }
        this.p = Arrays.copyOfRange(pattern.m_bytes, pattern.m_offset, pattern.m_offset + length);
        this.budget = budget;
    }

    /** True if the pattern starts with {@code ^}: an anchor to {@code find}, {@code match} and {@code gsub}. */
    boolean anchored()
    {
        return pc(0) == '^';
    }

    /**
     * {@return where a match of the pattern from {@code at} in it, starting at subject offset {@code from}, ends; -1
     * if none} Captures of an earlier match are forgotten.
     */
    int matchAt(final int from, final int at)
    {
        level = 0;
        final int e = match(init + from, at);
        charge(0);
        return e < 0 ? -1 : e - init;
    }

    /** Values of the captures of the last match from {@code from} to {@code to}; the whole match if none and asked. */
    LuaValue[] captures(final int from, final int to, final boolean wholeIfNone)
    {
        final LuaValue[] values = new LuaValue[level == 0 && wholeIfNone ? 1 : level];
        for (int i = 0; i < values.length; i++)
        {
            values[i] = capture(i, from, to);
        }
        return values;
    }

    /** Capture {@code i} of the last match from {@code from} to {@code to} ({@code push_onecapture}). */
    LuaValue capture(final int i, final int from, final int to)
    {
        if (i >= level)
        {
            if (i != 0)
            {
                throw new LuaError("invalid capture index");
            }
            return LuaString.valueOf(src, init + from, to - from);
        }
        final int length = captureLength[i];
        if (length == CAP_UNFINISHED)
        {
            throw new LuaError("unfinished capture");
        }
        if (length == CAP_POSITION)
        {
            return LuaValue.valueOf(captureStart[i] - init + 1);
        }
        return LuaString.valueOf(src, captureStart[i], length);
    }

    /** The subject's bytes from {@code from} to {@code to}. */
    LuaString slice(final int from, final int to)
    {
        return LuaString.valueOf(src, init + from, to - from);
    }

    int length()
    {
        return end - init;
    }

    byte at(final int offset)
    {
        return src[init + offset];
    }

    private void charge(final int more)
    {
        steps += more;
        if (steps >= CHARGE_EVERY || more == 0)
        {
            final int spent = steps;
            steps = 0;
            budget.charge(spent);
        }
    }

    /** The pattern's byte at {@code i}, or 0 past its end (C's terminator). */
    private int pc(final int i)
    {
        return i < p.length ? p[i] & 0xff : 0;
    }

    /** The subject's byte at {@code s}, or 0 at its end (the NUL after every Lua string). */
    private int sc(final int s)
    {
        return s < end ? src[s] & 0xff : 0;
    }

    private int match(final int s, final int at)
    {
        if (++depth > MAX_DEPTH)
        {
            throw new LuaError("pattern too complex");
        }
        try
        {
            return doMatch(s, at);
        }
        finally
        {
            depth--;
        }
    }

    /** Lua 5.1's {@code match}: its tail calls ({@code goto init}) are this loop's turns. */
    private int doMatch(int s, int at)
    {
        while (true)
        {
            charge(1);
            final int c = pc(at);
            if (c == '(')
            {
                return pc(at + 1) == ')' ? startCapture(s, at + 2, CAP_POSITION) :
                    startCapture(s, at + 1, CAP_UNFINISHED);
            }
            if (c == ')')
            {
                return endCapture(s, at + 1);
            }
            if (c == 0)
            {
                return s;
            }
            if (c == '$' && pc(at + 1) == 0)
            {
                return s == end ? s : -1;
            }
            if (c == '%' && pc(at + 1) == 'b')
            {
                s = matchBalance(s, at + 2);
                if (s < 0)
                {
                    return -1;
                }
                at += 4;
                continue;
            }
            if (c == '%' && pc(at + 1) == 'f')
            {
                at += 2;
                if (pc(at) != '[')
                {
                    throw new LuaError("missing '[' after '%f' in pattern");
                }
                final int ep = classEnd(at);
                final int previous = s == init ? 0 : src[s - 1] & 0xff;
                if (matchBracketClass(previous, at, ep - 1) || !matchBracketClass(sc(s), at, ep - 1))
                {
                    return -1;
                }
                at = ep;
                continue;
            }
            if (c == '%' && isDigit(pc(at + 1)))
            {
                s = matchCapture(s, pc(at + 1));
                if (s < 0)
                {
                    return -1;
                }
                at += 2;
                continue;
            }
            final int ep = classEnd(at); // a single-character item, maybe repeated
            final boolean m = s < end && singleMatch(src[s] & 0xff, at, ep);
            switch (pc(ep))
            {
                case '?' ->
                {
                    if (m)
                    {
                        final int res = match(s + 1, ep + 1);
                        if (res >= 0)
                        {
                            return res;
                        }
                    }
                    at = ep + 1;
                }
                case '*' ->
                {
                    return maxExpand(s, at, ep);
                }
                case '+' ->
                {
                    return m ? maxExpand(s + 1, at, ep) : -1;
                }
                case '-' ->
                {
                    return minExpand(s, at, ep);
                }
                default ->
                {
                    if (!m)
                    {
                        return -1;
                    }
                    s++;
                    at = ep;
                }
            }
        }
    }

    private int maxExpand(final int s, final int at, final int ep)
    {
        int i = 0;
        while (s + i < end && singleMatch(src[s + i] & 0xff, at, ep))
        {
            i++;
        }
        charge(i);
        for (; i >= 0; i--) // the most repetitions first, one fewer at each failure
        {
            final int res = match(s + i, ep + 1);
            if (res >= 0)
            {
                return res;
            }
        }
        return -1;
    }

    private int minExpand(int s, final int at, final int ep)
    {
        while (true)
        {
            final int res = match(s, ep + 1);
            if (res >= 0)
            {
                return res;
            }
            if (s < end && singleMatch(src[s] & 0xff, at, ep))
            {
                s++;
            }
            else
            {
                return -1;
            }
        }
    }

    private int startCapture(final int s, final int at, final int what)
    {
        if (level >= MAX_CAPTURES)
        {
            throw new LuaError("too many captures");
        }
        captureStart[level] = s;
        captureLength[level] = what;
        level++;
        final int res = match(s, at);
        if (res < 0)
        {
            level--;
        }
        return res;
    }

    private int endCapture(final int s, final int at)
    {
        final int l = captureToClose();
        captureLength[l] = s - captureStart[l];
        final int res = match(s, at);
        if (res < 0)
        {
            captureLength[l] = CAP_UNFINISHED;
        }
        return res;
    }

    private int captureToClose()
    {
        for (int l = level - 1; l >= 0; l--)
        {
            if (captureLength[l] == CAP_UNFINISHED)
            {
                return l;
            }
        }
        throw new LuaError("invalid pattern capture");
    }

    /** {@code %1} to {@code %9}: the text of that capture again; a position capture matches nothing. */
    private int matchCapture(final int s, final int digit)
    {
        final int l = digit - '1';
        if (l < 0 || l >= level || captureLength[l] == CAP_UNFINISHED)
        {
            throw new LuaError("invalid capture index");
        }
        final int length = captureLength[l];
        if (length >= 0 && end - s >= length &&
            Arrays.equals(src, captureStart[l], captureStart[l] + length, src, s, s + length))
        {
            return s + length;
        }
        return -1;
    }

    private int matchBalance(final int s, final int at)
    {
        if (pc(at) == 0 || pc(at + 1) == 0)
        {
            throw new LuaError("unbalanced pattern");
        }
        if (sc(s) != pc(at))
        {
            return -1;
        }
        final int open = pc(at);
        final int close = pc(at + 1);
        int depth = 1;
        for (int i = s + 1; i < end; i++)
        {
            final int c = src[i] & 0xff;
            if (c == close)
            {
                if (--depth == 0)
                {
                    charge(i - s);
                    return i + 1;
                }
            }
            else if (c == open)
            {
                depth++;
            }
        }
        charge(end - s);
        return -1;
    }

    /** Where the single-character class at {@code at} ends: past {@code %x}, a {@code [set]} or one byte. */
    private int classEnd(final int at)
    {
        int i = at;
        final int c = pc(i++);
        if (c == '%')
        {
            if (pc(i) == 0)
            {
                throw new LuaError("malformed pattern (ends with '%')");
            }
            return i + 1;
        }
        if (c == '[')
        {
            if (pc(i) == '^')
            {
                i++;
            }
            do // the first byte is in the set even if it is ']'
            {
                if (pc(i) == 0)
                {
                    throw new LuaError("malformed pattern (missing ']')");
                }
                if (pc(i++) == '%' && pc(i) != 0)
                {
                    i++;
                }
            }
            while (pc(i) != ']');
            return i + 1;
        }
        return i;
    }

    private boolean singleMatch(final int c, final int at, final int ep)
    {
        return switch (pc(at))
        {
            case '.' -> true;
            case '%' -> matchClass(c, pc(at + 1));
            case '[' -> matchBracketClass(c, at, ep - 1);
            default -> pc(at) == c;
        };
    }

    /** {@code [set]} from {@code at} (its '[') to {@code last} (its ']'). */
    private boolean matchBracketClass(final int c, final int at, final int last)
    {
        int i = at;
        boolean sig = true;
        if (pc(i + 1) == '^')
        {
            sig = false;
            i++;
        }
        while (++i < last)
        {
            if (pc(i) == '%')
            {
                i++;
                if (matchClass(c, pc(i)))
                {
                    return sig;
                }
            }
            else if (pc(i + 1) == '-' && i + 2 < last)
            {
                i += 2;
                if (pc(i - 2) <= c && c <= pc(i))
                {
                    return sig;
                }
            }
            else if (pc(i) == c)
            {
                return sig;
            }
        }
        return !sig;
    }

    /** {@code %a} and its kin as C's ctype in the C locale (ASCII only); an upper-case class is the complement. */
    private static boolean matchClass(final int c, final int cl)
    {
        final boolean res;
        switch (isAlpha(cl) ? cl | 0x20 : cl)
        {
            case 'a' -> res = isAlpha(c);
            case 'c' -> res = c < 32 || c == 127;
            case 'd' -> res = isDigit(c);
            case 'l' -> res = c >= 'a' && c <= 'z';
            case 'p' -> res = c > 32 && c < 127 && !isAlpha(c) && !isDigit(c);
            case 's' -> res = c == ' ' || c >= '\t' && c <= '\r';
            case 'u' -> res = c >= 'A' && c <= 'Z';
            case 'w' -> res = isAlpha(c) || isDigit(c);
            case 'x' -> res = isDigit(c) || (c | 0x20) >= 'a' && (c | 0x20) <= 'f';
            case 'z' -> res = c == 0;
            default ->
            {
                return cl == c; // not a class: the byte itself
            }
        }
        return cl >= 'a' ? res : !res;
    }

    private static boolean isAlpha(final int c)
    {
        return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    }

    static boolean isDigit(final int c)
    {
        return c >= '0' && c <= '9';
    }
}
