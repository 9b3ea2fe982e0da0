package io.weft.examples.kv;

import java.util.List;

/**
 * PFADD and PFMERGE (writes, on the delivery thread) and PFCOUNT (a read) over {@link HllSketch}es kept in strings,
 * with Redis's replies and errors: a missing key is an empty sketch, a string that is not a sketch is "WRONGTYPE Key
 * is not a valid HyperLogLog string value.", one whose runs are broken "INVALIDOBJ Corrupted HLL object detected".
 * A sketch keeps its key's expiry; PFMERGE's destination takes part in the merge, as in Redis. PFCOUNT of one key
 * answers a sketch's cached count if current (a sketch written by Redis can carry one); this store never writes one,
 * as PFCOUNT is a read here, so a sketch's bytes (GET) can differ from Redis's while its count does not.
 */
final class HyperLogLogs
{
    private static final String NOT_A_SKETCH = "WRONGTYPE Key is not a valid HyperLogLog string value.";
    private static final String CORRUPTED = "INVALIDOBJ Corrupted HLL object detected";

    private HyperLogLogs()
    {
    }

    /** Runs {@code cmd}, one of the three, on {@code map}: {@link KvStore} checked its arity. */
    static Reply apply(final Keyspace map, final String cmd, final List<byte[]> args, final long now)
    {
        return switch (cmd)
        {
            case "PFADD" -> add(map, args, now);
            case "PFCOUNT" -> count(map, args, now);
            default -> merge(map, args, now);
        };
    }

    /** PFADD key [element ...]: 1 if a register grew (or the key was made), 0 if not. */
    private static Reply add(final Keyspace map, final List<byte[]> args, final long now)
    {
        final KvStore.Entry old = map.live(args.get(1), now);
        final byte[] before = old == null ? HllSketch.empty() : sketch(old.value());
        final byte[] registers = new byte[HllSketch.REGISTERS];
        if (!HllSketch.mergeInto(registers, before))
        {
            return Reply.error(CORRUPTED);
        }
        boolean grew = false;
        for (final byte[] element : args.subList(2, args.size()))
        {
            grew |= HllSketch.add(registers, element);
        }
        if (grew || old == null)
        {
            final byte[] after = grew ? HllSketch.encode(registers, before, false) : before;
            map.put(new Key(args.get(1)), new KvStore.Entry(after, old == null ? 0 : old.expireAt()));
        }
        return new Reply.Int(grew || old == null ? 1 : 0);
    }

    /** PFCOUNT key [key ...]: the estimated count of distinct elements added to any of them. */
    private static Reply count(final Keyspace map, final List<byte[]> args, final long now)
    {
        final byte[] registers = new byte[HllSketch.REGISTERS];
        for (final byte[] key : args.subList(1, args.size()))
        {
            final KvStore.Entry e = map.live(key, now);
            if (e == null)
            {
                continue;
            }
            final byte[] sketch = sketch(e.value());
            final long cached = args.size() == 2 ? HllSketch.cachedCount(sketch) : -1;
            if (cached >= 0)
            {
                return new Reply.Int(cached);
            }
            if (!HllSketch.mergeInto(registers, sketch))
            {
                return Reply.error(CORRUPTED);
            }
        }
        return new Reply.Int(HllSketch.count(registers));
    }

    /**
     * PFMERGE destkey [sourcekey ...]: the destination's registers become the largest of its own and the sources';
     * dense if any of them is dense, as in Redis.
     */
    private static Reply merge(final Keyspace map, final List<byte[]> args, final long now)
    {
        final byte[] registers = new byte[HllSketch.REGISTERS];
        boolean dense = false;
        for (final byte[] key : args.subList(1, args.size()))
        {
            final KvStore.Entry e = map.live(key, now);
            if (e == null)
            {
                continue;
            }
            final byte[] sketch = sketch(e.value());
            if (!HllSketch.mergeInto(registers, sketch))
            {
                return Reply.error(CORRUPTED);
            }
            dense |= HllSketch.isDense(sketch);
        }
        final KvStore.Entry old = map.live(args.get(1), now);
        final byte[] before = old == null ? HllSketch.empty() : old.value();
        map.put(new Key(args.get(1)), new KvStore.Entry(HllSketch.encode(registers, before, dense),
            old == null ? 0 : old.expireAt()));
        return Reply.OK;
    }

    /** {@code value} if it is a sketch; Redis's error if not. */
    private static byte[] sketch(final byte[] value)
    {
        if (!HllSketch.isSketch(value))
        {
            throw new KvStore.SyntaxError(NOT_A_SKETCH);
        }
        return value;
    }
}
