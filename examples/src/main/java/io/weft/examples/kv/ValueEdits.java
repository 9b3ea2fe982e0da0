package io.weft.examples.kv;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Redis's commands that make a string's new value out of its old one, keeping its expiry: the counters (INCR, DECR,
 * INCRBY, DECRBY, INCRBYFLOAT), APPEND and SETRANGE; and GETRANGE, which reads a part of it. A value an edit makes is
 * at most {@link #MAX_LENGTH} bytes.
 */
final class ValueEdits
{
    /** The least long's decimal form, the one integer {@link #canonical} cannot tell from none. */
    private static final byte[] LEAST = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);

    /**
     * The longest value an edit (SETRANGE, APPEND, SETBIT) may make: 16 MiB, where Redis's {@code proto-max-bulk-len}
     * allows 512 MiB. An edit copies its value (local reads read values on other threads), and every member applies
     * it on its delivery thread, which must return within the failure timeout: at 512 MiB one SETBIT or SETRANGE
     * took 2.4-4.8 s to answer in a group of three on two cores, and its members were removed as stalled.
     */
    static final long MAX_LENGTH = 16L << 20;
    /** The first KvWire version with {@link #MAX_LENGTH}: a log's batch of an older one edits up to this much more. */
    static final byte SHORTER_SINCE = 10;
    private static final long MAX_LENGTH_BEFORE = 512L << 20;
    /** The longest float argument Redis reads ({@code MAX_LONG_DOUBLE_CHARS}). */
    private static final int MAX_FLOAT_CHARS = 5 * 1024;
    /** The sums' precision before KvWire 14 ({@link LongDouble} since): more than a long double's 64-bit mantissa. */
    private static final MathContext SUM = new MathContext(40, RoundingMode.HALF_EVEN);
    /** A long double's largest finite value is about 1.19e4932: Redis's sum is infinite from there. */
    private static final BigDecimal INFINITE = new BigDecimal("1e4932");
    /** What {@link #decimal} reads for inf or infinity, as Redis's string2ld reads them: beyond any finite value. */
    private static final BigDecimal INFINITY = INFINITE.scaleByPowerOfTen(1);
    /** Below this, Redis's 17 decimal places print 0. */
    private static final BigDecimal NEGLIGIBLE = new BigDecimal("5e-18");
    private static final Reply TOO_LONG = Reply.error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    private static final String NOT_A_FLOAT = "ERR value is not a valid float";

    private final Keyspace map;

    ValueEdits(final Keyspace map)
    {
        this.map = map;
    }

    private void replace(final byte[] key, final byte[] value, final KvStore.Entry old)
    {
        map.put(new Key(key), new KvStore.Entry(value, old == null ? 0 : old.expireAt()));
    }

    Reply decrBy(final byte[] key, final long by, final long now)
    {
        if (by == Long.MIN_VALUE)
        {
            return Reply.error("ERR decrement would overflow");
        }
        return incrBy(key, -by, now);
    }

    Reply incrBy(final byte[] key, final long by, final long now)
    {
        final KvStore.Entry old = map.live(key, now);
        final long result = sum(old == null ? 0 : integer(old.value()), by);
        replace(key, Long.toString(result).getBytes(StandardCharsets.US_ASCII), old);
        return new Reply.Int(result);
    }

    /** {@code value + by} for INCRBY and HINCRBY; Redis's error where it overflows. */
    static long sum(final long value, final long by)
    {
        try
        {
            return Math.addExact(value, by);
        }
        catch (final ArithmeticException ex)
        {
            throw new KvStore.SyntaxError("ERR increment or decrement would overflow");
        }
    }

    /**
     * INCRBYFLOAT key increment: long double arithmetic in exact decimals ({@link LongDouble}), which every member
     * computes alike, printed as Redis prints its long double (17 decimal places at most, no trailing zeros, no
     * exponent); Redis's infinity is an error.
     */
    Reply incrByFloat(final byte[] key, final byte[] increment, final long now)
    {
        final KvStore.Entry old = map.live(key, now);
        final BigDecimal value = old == null ? BigDecimal.ZERO : decimal(old.value(), map.redisNumbers());
        final BigDecimal by = decimal(increment, map.redisNumbers());
        if (value == null || by == null)
        {
            return Reply.error(NOT_A_FLOAT);
        }
        final byte[] result = floatSum(value, by, map.redisNumbers());
        replace(key, result, old);
        return new Reply.Bulk(result);
    }

    /** A count argument (LPOP's, SPOP's): a Redis integer, 0 or more; Redis's error for any other word. */
    static long count(final byte[] bytes)
    {
        return atLeast(bytes, 0, "ERR value is out of range, must be positive");
    }

    /**
     * A Redis integer argument of {@code min} or more; else {@code error}, which Redis also answers for a word that
     * is not a number (ZMPOP's numkeys and COUNT, ZINTERCARD's LIMIT).
     */
    static long atLeast(final byte[] bytes, final long min, final String error)
    {
        try
        {
            final long n = integer(bytes);
            if (n >= min)
            {
                return n;
            }
        }
        catch (final KvStore.SyntaxError ex)
        {
            // not a number: the same error as one out of range
        }
        throw new KvStore.SyntaxError(error);
    }

    /** A Redis integer argument: signed 64-bit decimal, nothing else. */
    static long integer(final byte[] bytes)
    {
        final long v = canonical(bytes);
        if (v == Long.MIN_VALUE && !Arrays.equals(bytes, LEAST))
        {
            throw new KvStore.SyntaxError("ERR value is not an integer or out of range");
        }
        return v;
    }

    /** Whether {@code bytes} is a Redis integer (what {@link #integer} takes), without an exception for a word. */
    static boolean isInteger(final byte[] bytes)
    {
        return canonical(bytes) != Long.MIN_VALUE || Arrays.equals(bytes, LEAST);
    }

    /**
     * {@code s} as Redis's string2ll reads it: the long it is the canonical decimal form of (no sign but a minus, no
     * leading zero, not {@code -0}), {@link Long#MIN_VALUE} if none (that value's own form is {@link #LEAST}).
     */
    private static long canonical(final byte[] s)
    {
        final boolean negative = s.length > 1 && s[0] == '-';
        final int first = negative ? 1 : 0;
        if (s.length == 0 || s.length > LEAST.length || s.length - first > 1 && s[first] == '0' ||
            negative && s[1] == '0')
        {
            return Long.MIN_VALUE;
        }
        long v = 0; // negated, as Long.parseLong does, so that the least long fits
        for (int i = first; i < s.length; i++)
        {
            final int digit = s[i] - '0';
            if (digit < 0 || digit > 9 || v < (Long.MIN_VALUE + digit) / 10)
            {
                return Long.MIN_VALUE;
            }
            v = v * 10 - digit;
        }
        return negative ? v : v == Long.MIN_VALUE ? Long.MIN_VALUE : -v;
    }

    /**
     * {@code value} plus {@code by}, both read by {@link #decimal}, as a long double adds them if {@code longDouble}
     * (else to 40 digits: an older log's batch, {@link Strtod#SINCE}), printed as INCRBYFLOAT prints it (HINCRBYFLOAT
     * too); Redis's error for an infinite term or sum.
     */
    static byte[] floatSum(final BigDecimal value, final BigDecimal by, final boolean longDouble)
    {
        if (infinite(value, longDouble) || infinite(by, longDouble)) // inf - inf is Redis's NaN: the same error
        {
            throw new KvStore.SyntaxError("ERR increment would produce NaN or Infinity");
        }
        // before KvWire 14 to 40 digits (with a precision, a negligible term costs nothing to align)
        final BigDecimal sum = longDouble ? LongDouble.sum(value, by) : value.add(by, SUM);
        if (sum == null || infinite(sum, longDouble))
        {
            throw new KvStore.SyntaxError("ERR increment would produce NaN or Infinity");
        }
        final BigDecimal printed = sum.abs().compareTo(NEGLIGIBLE) < 0 ? BigDecimal.ZERO :
            sum.setScale(17, RoundingMode.HALF_EVEN).stripTrailingZeros();
        return (printed.signum() == 0 ? "0" : printed.toPlainString()).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Whether {@code d}, read by {@link #decimal}, is infinite as a long double: inf or infinity, or (before KvWire 14,
     * {@code longDouble} false) 1e4932 or more.
     */
    static boolean infinite(final BigDecimal d, final boolean longDouble)
    {
        return d.abs().compareTo(longDouble ? INFINITY : INFINITE) >= 0;
    }

    /**
     * A float argument or value as Redis reads one (no spaces; inf and infinity in any case, signed or not, as a
     * value beyond every finite one; if {@code longDouble} ({@link Strtod#SINCE}), hexadecimal too and each rounded to
     * the nearest long double as strtold reads it, one out of its range none; before, exact, 1e4932 or more none), or
     * null.
     */
    static BigDecimal decimal(final byte[] bytes, final boolean longDouble)
    {
        if (bytes.length == 0 || bytes.length > MAX_FLOAT_CHARS)
        {
            return null;
        }
        final String text = new String(bytes, StandardCharsets.US_ASCII);
        final int infinity = Strtod.infinity(text);
        if (infinity != 0)
        {
            return infinity < 0 ? INFINITY.negate() : INFINITY;
        }
        if (longDouble && (text.indexOf('x') >= 0 || text.indexOf('X') >= 0))
        {
            final BigDecimal hex = Strtod.hexadecimal(text);
            return hex == null ? null : LongDouble.read(hex);
        }
        try
        {
            final BigDecimal d = new BigDecimal(text);
            return longDouble ? LongDouble.read(d) : infinite(d, false) ? null : d;
        }
        catch (final NumberFormatException ex)
        {
            return null;
        }
    }

    /**
     * SETRANGE key offset value: writes {@code part} at {@code offset}, zeros before it where the value was shorter,
     * and replies the new length; an empty part changes nothing.
     */
    Reply setRange(final byte[] key, final long offset, final byte[] part, final long now)
    {
        return write(key, offset, part, false, now);
    }

    /** APPEND key value: {@link #setRange} at the end, which makes a key even of an empty part. */
    Reply append(final byte[] key, final byte[] part, final long now)
    {
        return write(key, -1, part, true, now);
    }

    private Reply write(final byte[] key, final long offset, final byte[] part, final boolean append, final long now)
    {
        if (!append && offset < 0) // refused before the key is looked at, even one of another type, as Redis
        {
            return Reply.error("ERR offset is out of range");
        }
        final KvStore.Entry old = map.live(key, now);
        final byte[] before = old == null ? new byte[0] : old.value();
        final long at = append ? before.length : offset;
        if (part.length == 0 && !(append && old == null))
        {
            return new Reply.Int(before.length);
        }
        // a log's batch of an older version replays as its build applied it
        final long max = map.versions.wire() < SHORTER_SINCE ? MAX_LENGTH_BEFORE : MAX_LENGTH;
        if (at > max - part.length) // not at + part.length: an offset near Long.MAX_VALUE wraps
        {
            return TOO_LONG;
        }
        final byte[] value = Arrays.copyOf(before, (int)Math.max(before.length, at + part.length));
        System.arraycopy(part, 0, value, (int)at, part.length);
        replace(key, value, old);
        return new Reply.Int(value.length);
    }

    /**
     * Any thread: about the bytes applying the write {@code args} copies, to bound a batch's work ({@link
     * KvProposer}): an edit's (SETRANGE, APPEND, SETBIT) the longer of its value before and after, BITOP's its
     * sources' lengths, BITFIELD's its value's, a transaction's the sum of its commands', a script's (EVAL) its keys'
     * lengths, as if it edited each once (what it runs is not known before it runs); 0 for another command. {@code
     * made} holds the lengths that earlier edits of this member asked for, which the store holds only once their
     * batches are applied (a value is taken to be the longer of the two); this edit's is added. Read without a write
     * sequence: an estimate.
     */
    long copyBytes(final List<byte[]> args, final Map<Key, Long> made)
    {
        final byte[] name = args.getFirst(); // every write comes here: no name string built
        final int n = args.size();
        if (n == 4 && Commands.is(name, "SETRANGE"))
        {
            return edit(args.get(1), offset(args.get(2)) + args.get(3).length, false, made);
        }
        if (n == 4 && Commands.is(name, "SETBIT"))
        {
            return edit(args.get(1), (offset(args.get(2)) >> 3) + 1, false, made);
        }
        if (n == 3 && Commands.is(name, "APPEND"))
        {
            return edit(args.get(1), args.get(2).length, true, made);
        }
        if (n >= 4 && Commands.is(name, "BITOP"))
        {
            return lengths(args.subList(3, n), made);
        }
        if (n >= 2 && Commands.is(name, "BITFIELD"))
        {
            return lengths(args.subList(1, 2), made);
        }
        if (Commands.is(name, "EXEC"))
        {
            return Transaction.parse(args).commands().stream().mapToLong(c -> copyBytes(c, made)).sum();
        }
        if (n >= 3 && Commands.is(name, "EVAL"))
        {
            final int keys = Math.clamp(offset(args.get(2)), 0, n - 3); // a refused numkeys runs nothing
            return lengths(args.subList(3, 3 + keys), made);
        }
        return 0;
    }

    /** The sum of {@code keys}' string lengths ({@link #length}). */
    private long lengths(final List<byte[]> keys, final Map<Key, Long> made)
    {
        final long now = System.currentTimeMillis();
        return keys.stream().mapToLong(k -> length(new Key(k), made, now)).sum();
    }

    /** An edit of {@code key} to {@code asked} bytes (or that many more, {@code appended}): what it copies. */
    private long edit(final byte[] key, final long asked, final boolean appended, final Map<Key, Long> made)
    {
        final Key k = new Key(key);
        final long before = length(k, made, System.currentTimeMillis());
        final long after = Math.min(MAX_LENGTH, appended ? before + asked : Math.max(before, asked));
        made.put(k, after);
        return Math.max(before, after);
    }

    /** {@code key}'s string length: the longer of the store's and the one this member's edits asked for last. */
    private long length(final Key key, final Map<Key, Long> made, final long now)
    {
        final Object stored = map.liveStored(key, now);
        return Math.max(Stored.isString(stored) ? Stored.value(stored).length : 0, made.getOrDefault(key, 0L));
    }

    /** An offset argument, 0 to {@link #MAX_LENGTH} bits or bytes; 0 for another word (the edit is refused). */
    private static long offset(final byte[] offset)
    {
        try
        {
            return Math.clamp(integer(offset), 0, MAX_LENGTH << 3);
        }
        catch (final KvStore.SyntaxError ex)
        {
            return 0;
        }
    }

    /** GETRANGE key start end: both inclusive, negative from the end, clamped to the value; "" for no key. */
    Reply getRange(final byte[] key, final long start, final long end, final long now)
    {
        final KvStore.Entry e = map.live(key, now);
        final byte[] value = e == null ? new byte[0] : e.value();
        final long length = value.length;
        if (start < 0 && end < 0 && start > end)
        {
            return new Reply.Bulk(new byte[0]);
        }
        final long from = Math.max(0, start < 0 ? length + start : start);
        final long to = Math.min(length - 1, Math.max(0, end < 0 ? length + end : end));
        return new Reply.Bulk(from > to || length == 0 ? new byte[0] : Arrays.copyOfRange(value, (int)from,
            (int)to + 1));
    }
}
