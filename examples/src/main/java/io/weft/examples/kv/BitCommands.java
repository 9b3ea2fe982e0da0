package io.weft.examples.kv;

import java.util.Arrays;
import java.util.List;

/**
 * Redis's bit commands on strings: SETBIT, BITOP and BITFIELD (writes, on the delivery thread only) and GETBIT,
 * BITCOUNT, BITPOS and BITFIELD_RO (reads; {@link BitFields} runs the two BITFIELDs), at the clock reading of the
 * command's batch. Bit 0 is the most significant bit of the first byte, a missing key is a string of zeros, and a key
 * of another type is Redis's WRONGTYPE error. Arguments are checked before the key is looked up, as Redis 8.0 does
 * (7.x answers 0 for a missing key whatever the arguments). A SETBIT makes a new copy of the value, as SETRANGE does
 * (local reads read values on other threads, so none changes in place): it costs the value's length.
 */
final class BitCommands
{
    static final String OFFSET_ERROR = "ERR bit offset is not an integer or out of range";
    private static final String BIT_ERROR = "ERR bit is not an integer or out of range";
    private static final String SYNTAX_ERROR = "ERR syntax error";
    /** The last bit a value of {@link ValueEdits#MAX_LENGTH} bytes holds (Redis's 2^32 - 1 is 512 MiB's). */
    static final long MAX_OFFSET = (ValueEdits.MAX_LENGTH << 3) - 1;
    private static final byte[] EMPTY = new byte[0];
    /** BITOP's operations, by their index. */
    private static final List<String> OPERATIONS = List.of("AND", "OR", "XOR", "NOT");
    private static final int AND = 0;
    private static final int OR = 1;
    private static final int NOT = 3;

    private final Keyspace map;
    private final BitFields fields;

    BitCommands(final Keyspace map)
    {
        this.map = map;
        this.fields = new BitFields(map);
    }

    /** Runs {@code cmd}: one of the seven, which {@link KvStore} hands here; arities as {@link Commands} gives them. */
    Reply apply(final String cmd, final List<byte[]> args, final long now)
    {
        if (!Commands.fitsArity(cmd, args.size()))
        {
            return Reply.wrongArity(cmd);
        }
        return switch (cmd)
        {
            case "SETBIT" -> setBit(args, now);
            case "GETBIT" -> getBit(args, now);
            case "BITCOUNT" -> bitCount(args, now);
            case "BITPOS" -> bitPos(args, now);
            case "BITFIELD", "BITFIELD_RO" -> fields.apply(args, cmd.equals("BITFIELD_RO"), now);
            default -> bitOp(args, now);
        };
    }

    /** SETBIT key offset 0|1: replies the bit's old value; zeros fill the value up to the bit; the expiry stays. */
    private Reply setBit(final List<byte[]> args, final long now)
    {
        final long offset = offset(args.get(2));
        final long on = ValueEdits.atLeast(args.get(3), 0, BIT_ERROR);
        if (on > 1)
        {
            return Reply.error(BIT_ERROR);
        }
        final KvStore.Entry old = map.live(args.get(1), now);
        final byte[] before = old == null ? EMPTY : old.value();
        final int at = (int)(offset >>> 3);
        final byte[] value = Arrays.copyOf(before, Math.max(before.length, at + 1));
        final int mask = mask(offset);
        final int was = (value[at] & mask) == 0 ? 0 : 1;
        value[at] = (byte)(on == 1 ? value[at] | mask : value[at] & ~mask);
        map.put(new Key(args.get(1)), new KvStore.Entry(value, old == null ? 0 : old.expireAt()));
        return new Reply.Int(was);
    }

    /** GETBIT key offset: 0 beyond the value's end. */
    private Reply getBit(final List<byte[]> args, final long now)
    {
        final long offset = offset(args.get(2));
        final byte[] value = value(args.get(1), now);
        return new Reply.Int(offset >>> 3 >= value.length || (value[(int)(offset >>> 3)] & mask(offset)) == 0 ? 0 : 1);
    }

    /** BITCOUNT key [start end [BYTE|BIT]]: the set bits of the whole value or of a range of it. */
    private Reply bitCount(final List<byte[]> args, final long now)
    {
        final int n = args.size();
        if (n == 2)
        {
            final byte[] value = value(args.get(1), now);
            return new Reply.Int(value.length == 0 ? 0 : count(value, 0, ((long)value.length << 3) - 1));
        }
        if (n > 5 || n == 3)
        {
            return Reply.error(SYNTAX_ERROR);
        }
        final long start = ValueEdits.integer(args.get(2));
        final long end = ValueEdits.integer(args.get(3));
        final boolean bits = n == 5 && inBits(args.get(4));
        final byte[] value = value(args.get(1), now);
        if (start < 0 && end < 0 && start > end) // Redis's rule for two negative indexes, before it clamps them
        {
            return new Reply.Int(0);
        }
        final long[] range = range(start, end, bits, value.length);
        return new Reply.Int(range == null ? 0 : count(value, range[0], range[1]));
    }

    /**
     * BITPOS key 0|1 [start [end [BYTE|BIT]]]: the first bit of that value in the range, or -1. Without an end, a
     * search for 0 through bits that are all 1 replies the first bit past the value, whose zeros Redis takes to go on.
     */
    private Reply bitPos(final List<byte[]> args, final long now)
    {
        final int n = args.size();
        final long bit = ValueEdits.integer(args.get(2));
        if (bit != 0 && bit != 1)
        {
            return Reply.error("ERR The bit argument must be 1 or 0.");
        }
        if (n > 6)
        {
            return Reply.error(SYNTAX_ERROR);
        }
        final long start = n > 3 ? ValueEdits.integer(args.get(3)) : 0;
        final boolean bits = n == 6 && inBits(args.get(5)); // Redis reads the unit before the end
        final boolean endGiven = n > 4;
        final long end = endGiven ? ValueEdits.integer(args.get(4)) : -1;
        final KvStore.Entry e = map.live(args.get(1), now);
        if (e == null)
        {
            return new Reply.Int(bit == 1 ? -1 : 0);
        }
        final long[] range = range(start, end, bits, e.value().length);
        if (range == null)
        {
            return new Reply.Int(-1);
        }
        final long found = find(e.value(), range[0], range[1], bit == 1);
        return new Reply.Int(found < 0 && bit == 0 && !endGiven ? range[1] + 1 : found);
    }

    /**
     * BITOP AND|OR|XOR|NOT destkey key [key ...]: stores the sources combined byte by byte, the shorter ones taken as
     * padded with zeros, at {@code destkey} without expiry (whatever it held), or removes {@code destkey} if every
     * source is empty; replies the result's length.
     */
    private Reply bitOp(final List<byte[]> args, final long now)
    {
        final int op = OPERATIONS.indexOf(Commands.word(args.get(1)));
        if (op < 0)
        {
            return Reply.error(SYNTAX_ERROR);
        }
        if (op == NOT && args.size() != 4)
        {
            return Reply.error("ERR BITOP NOT must be called with a single source key.");
        }
        final List<byte[]> sources = args.subList(3, args.size()).stream().map(key -> value(key, now)).toList();
        final int length = sources.stream().mapToInt(s -> s.length).max().orElseThrow();
        if (length == 0)
        {
            map.remove(new Key(args.get(2)));
            return new Reply.Int(0);
        }
        final byte[] result = Arrays.copyOf(sources.getFirst(), length);
        for (int i = 0; i < length; i++)
        {
            int b = result[i];
            for (int k = 1; k < sources.size(); k++)
            {
                final byte[] source = sources.get(k);
                final int s = i < source.length ? source[i] : 0;
                b = op == AND ? b & s : op == OR ? b | s : b ^ s;
            }
            result[i] = (byte)(op == NOT ? ~b : b);
        }
        map.put(new Key(args.get(2)), result);
        return new Reply.Int(length);
    }

    /** {@code key}'s string, empty if none; WRONGTYPE if it holds another type. */
    private byte[] value(final byte[] key, final long now)
    {
        final KvStore.Entry e = map.live(key, now);
        return e == null ? EMPTY : e.value();
    }

    /** A bit offset argument: 0 to {@link #MAX_OFFSET}; Redis's error for any other word. */
    private static long offset(final byte[] bytes)
    {
        final long offset = ValueEdits.atLeast(bytes, 0, OFFSET_ERROR);
        if (offset > MAX_OFFSET)
        {
            throw new KvStore.SyntaxError(OFFSET_ERROR);
        }
        return offset;
    }

    /** Whether a range's unit is BIT (true) or BYTE (false), in any case; a syntax error for another word. */
    private static boolean inBits(final byte[] unit)
    {
        final String word = Commands.word(unit);
        if (!word.equals("BIT") && !word.equals("BYTE"))
        {
            throw new KvStore.SyntaxError(SYNTAX_ERROR);
        }
        return word.equals("BIT");
    }

    /** The mask of bit {@code offset} in its byte: bit 0 is the most significant. */
    private static int mask(final long offset)
    {
        return 0x80 >>> (int)(offset & 7);
    }

    /**
     * The first and last bit (inclusive) of a range of bytes, or of bits ({@code bits}), of a value of {@code length}
     * bytes: negative indexes count from the end, and both are clamped to the value as Redis clamps them; null if the
     * range holds nothing.
     */
    private static long[] range(final long start, final long end, final boolean bits, final int length)
    {
        final long total = bits ? (long)length << 3 : length;
        final long from = Math.max(0, start < 0 ? total + start : start);
        final long to = Math.min(total - 1, Math.max(0, end < 0 ? total + end : end));
        if (from > to) // also for an empty value, whose last index is -1
        {
            return null;
        }
        return bits ? new long[] {from, to} : new long[] {from << 3, (to << 3) + 7};
    }

    /** The set bits of {@code value} from bit {@code from} to bit {@code to}, both inclusive. */
    private static long count(final byte[] value, final long from, final long to)
    {
        final int first = (int)(from >>> 3);
        final int last = (int)(to >>> 3);
        long count = 0;
        for (int i = first; i <= last; i++)
        {
            count += Integer.bitCount(value[i] & edges(i, first, last, from, to));
        }
        return count;
    }

    /** The first bit of {@code value} that is {@code one} from bit {@code from} to bit {@code to}, or -1. */
    private static long find(final byte[] value, final long from, final long to, final boolean one)
    {
        final int first = (int)(from >>> 3);
        final int last = (int)(to >>> 3);
        for (int i = first; i <= last; i++)
        {
            final int bits = (one ? value[i] : ~value[i]) & edges(i, first, last, from, to);
            if (bits != 0)
            {
                return ((long)i << 3) + Integer.numberOfLeadingZeros(bits) - 24;
            }
        }
        return -1;
    }

    /** The bits of byte {@code i} that lie in the range: all of them but in its first and last byte. */
    private static int edges(final int i, final int first, final int last, final long from, final long to)
    {
        return (i == first ? 0xFF >>> (int)(from & 7) : 0xFF) & (i == last ? 0xFF << (int)(7 - (to & 7)) : 0xFF);
    }
}
