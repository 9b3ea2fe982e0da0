package io.weft.examples.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * BITFIELD and BITFIELD_RO: signed and unsigned integers of 1 to 64 bits (unsigned: 63) at any bit offset of a
 * string, read (GET), written (SET) and incremented (INCRBY) with Redis's overflow rules (OVERFLOW WRAP, the default,
 * SAT or FAIL, for the operations after it). Bit 0 is the most significant bit of the first byte, as for SETBIT; an
 * offset {@code #n} is the n-th field of that width. Every argument is checked before anything runs; a write grows
 * the value with zeros up to its farthest field first, even a FAIL that then writes nothing, as Redis does. The value
 * is copied once per command (local reads read it on other threads), at most {@link ValueEdits#MAX_LENGTH} bytes.
 */
final class BitFields
{
    private static final String TYPE_ERROR =
        "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";

    /** How an operation treats a result its field cannot hold. */
    private enum Overflow
    {
        WRAP, SAT, FAIL
    }

    /** One operation: GET (no value), SET or INCRBY of a field of {@code bits} bits at bit {@code offset}. */
    private record Op(boolean write, boolean increment, boolean signed, int bits, long offset, long value,
        Overflow overflow)
    {
    }

    private final Keyspace map;

    BitFields(final Keyspace map)
    {
        this.map = map;
    }

    /** BITFIELD (a write) or BITFIELD_RO (a read, GET only) key [operation ...]: an array of one reply each. */
    Reply apply(final List<byte[]> args, final boolean readOnly, final long now)
    {
        final List<Op> ops = parse(args);
        final long farthest = ops.stream().filter(Op::write).mapToLong(op -> op.offset + op.bits - 1).max().orElse(-1);
        if (readOnly && farthest >= 0)
        {
            return Reply.error("ERR BITFIELD_RO only supports the GET subcommand");
        }
        final KvStore.Entry old = map.live(args.get(1), now);
        final byte[] before = old == null ? new byte[0] : old.value();
        if (farthest < 0)
        {
            return new Reply.Array(ops.stream().map(op -> (Reply)new Reply.Int(get(before, op))).toList());
        }
        final byte[] value = Arrays.copyOf(before, (int)Math.max(before.length, (farthest >>> 3) + 1));
        final List<Reply> replies = new ArrayList<>(ops.size());
        for (final Op op : ops)
        {
            replies.add(op.write ? write(value, op) : new Reply.Int(get(value, op)));
        }
        map.put(new Key(args.get(1)), new KvStore.Entry(value, old == null ? 0 : old.expireAt()));
        return new Reply.Array(replies);
    }

    /** The operations of {@code args}, in order; Redis's error for the first word that does not parse. */
    private static List<Op> parse(final List<byte[]> args)
    {
        final List<Op> ops = new ArrayList<>();
        Overflow overflow = Overflow.WRAP;
        for (int i = 2; i < args.size(); )
        {
            final String word = Commands.word(args.get(i));
            final int left = args.size() - i - 1;
            if (word.equals("OVERFLOW") && left >= 1)
            {
                final String kind = Commands.word(args.get(i + 1));
                if (Arrays.stream(Overflow.values()).noneMatch(o -> o.name().equals(kind)))
                {
                    throw new KvStore.SyntaxError("ERR Invalid OVERFLOW type specified");
                }
                overflow = Overflow.valueOf(kind);
                i += 2;
                continue;
            }
            final boolean write = (word.equals("SET") || word.equals("INCRBY")) && left >= 3;
            if (!write && !(word.equals("GET") && left >= 2))
            {
                throw new KvStore.SyntaxError("ERR syntax error");
            }
            final byte[] type = args.get(i + 1);
            final int bits = bits(type);
            final long offset = offset(args.get(i + 2), bits);
            final long value = write ? ValueEdits.integer(args.get(i + 3)) : 0;
            if (write && offset + bits - 1 > BitCommands.MAX_OFFSET)
            {
                throw new KvStore.SyntaxError(BitCommands.OFFSET_ERROR);
            }
            ops.add(new Op(write, word.equals("INCRBY"), type[0] == 'i', bits, offset, value, overflow));
            i += write ? 4 : 3;
        }
        return ops;
    }

    /** A type: {@code i} and 1 to 64 bits, or {@code u} and 1 to 63 (lower case, as Redis reads it). */
    private static int bits(final byte[] type)
    {
        final boolean signed = type.length > 1 && type[0] == 'i';
        if (!signed && !(type.length > 1 && type[0] == 'u'))
        {
            throw new KvStore.SyntaxError(TYPE_ERROR);
        }
        try
        {
            final long bits = ValueEdits.integer(Arrays.copyOfRange(type, 1, type.length));
            if (bits >= 1 && bits <= (signed ? 64 : 63))
            {
                return (int)bits;
            }
        }
        catch (final KvStore.SyntaxError ex)
        {
            // not a number: the type's error
        }
        throw new KvStore.SyntaxError(TYPE_ERROR);
    }

    /** An offset in bits, or {@code #n}: the n-th field of {@code bits} bits; 0 to the last bit a value holds. */
    private static long offset(final byte[] word, final int bits)
    {
        final boolean fields = word.length > 0 && word[0] == '#';
        try
        {
            final long n = ValueEdits.integer(fields ? Arrays.copyOfRange(word, 1, word.length) : word);
            final long offset = fields ? Math.multiplyExact(n, bits) : n;
            if (offset >= 0 && offset <= BitCommands.MAX_OFFSET)
            {
                return offset;
            }
        }
        catch (final KvStore.SyntaxError | ArithmeticException ex)
        {
            // not a number, or past a long: out of range
        }
        throw new KvStore.SyntaxError(BitCommands.OFFSET_ERROR);
    }

    /** A GET: the field's value, the value taken as zeros past its end. */
    private static long get(final byte[] value, final Op op)
    {
        long field = 0;
        for (long bit = op.offset; bit < op.offset + op.bits; bit++)
        {
            final int at = (int)(bit >>> 3);
            field = field << 1 | (at < value.length ? value[at] >>> (7 - (bit & 7)) & 1 : 0);
        }
        return truncated(field, op);
    }

    /** A SET (replies the old value) or INCRBY (the new one); nil, and nothing written, for a FAIL overflow. */
    private static Reply write(final byte[] value, final Op op)
    {
        final long old = get(value, op);
        final long base = op.increment ? old : op.value;
        final long increment = op.increment ? op.value : 0;
        final int overflow = op.signed ? signedOverflow(base, increment, op) : unsignedOverflow(base, increment, op);
        if (overflow != 0 && op.overflow == Overflow.FAIL)
        {
            return Reply.NIL;
        }
        final long written = overflow == 0 || op.overflow == Overflow.WRAP ? truncated(base + increment, op) :
            overflow > 0 ? max(op) : min(op);
        for (int i = 0; i < op.bits; i++)
        {
            final long bit = op.offset + i;
            final int at = (int)(bit >>> 3);
            final int mask = 0x80 >>> (int)(bit & 7);
            value[at] = (byte)((written >>> (op.bits - 1 - i) & 1) != 0 ? value[at] | mask : value[at] & ~mask);
        }
        return new Reply.Int(op.increment ? written : old);
    }

    /**
     * Whether {@code base + increment} is past {@code op}'s unsigned field: 1 above it, -1 below, 0 if it fits.
     * {@code base} is read as unsigned, so a SET of a negative number is above, as in Redis.
     */
    private static int unsignedOverflow(final long base, final long increment, final Op op)
    {
        final long max = max(op);
        if (Long.compareUnsigned(base, max) > 0 || (increment > 0 && increment > max - base))
        {
            return 1;
        }
        return increment < 0 && increment < -base ? -1 : 0;
    }

    /**
     * As {@link #unsignedOverflow}, for a signed field of 1 to 64 bits: Redis's tests in its order, {@code max - base}
     * and {@code min - base} wrapping as its 64-bit arithmetic does, so every member and Redis decide alike.
     */
    private static int signedOverflow(final long base, final long increment, final Op op)
    {
        final long max = max(op);
        final long min = min(op);
        final boolean wide = op.bits == 64;
        if (base > max || (!wide && increment > max - base) || (base >= 0 && increment > 0 && increment > max - base))
        {
            return 1;
        }
        return base < min || (!wide && increment < min - base) || (base < 0 && increment < 0 &&
            increment < min - base) ? -1 : 0;
    }

    /** {@code n}'s low bits that {@code op}'s field holds, read as signed or unsigned as it is (WRAP). */
    private static long truncated(final long n, final Op op)
    {
        final int unused = 64 - op.bits;
        return op.signed ? n << unused >> unused : n << unused >>> unused;
    }

    private static long max(final Op op)
    {
        return op.signed ? (op.bits == 64 ? Long.MAX_VALUE : (1L << (op.bits - 1)) - 1) : (1L << op.bits) - 1;
    }

    private static long min(final Op op)
    {
        return op.signed ? -max(op) - 1 : 0;
    }
}
