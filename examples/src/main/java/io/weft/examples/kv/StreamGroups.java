package io.weft.examples.kv;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A consumer group in a store's state ({@link StoreCut}, {@link StoreLoader}), big-endian: its name's length and name,
 * its last ID (two longs), its count of entries read (a long), its count of consumers and each one's name's length,
 * name and time last seen (a long), in name order, then its count of pending entries and each one's ID (two longs),
 * consumer (its index in that order), last delivery time and count of deliveries (longs), in ID order.
 */
final class StreamGroups
{
    private StreamGroups()
    {
    }

    /** Group {@code name}'s bytes in a state. */
    static byte[] encode(final byte[] name, final ConsumerGroup group)
    {
        long length = Integer.BYTES + name.length + 3L * Long.BYTES + 2 * Integer.BYTES +
            group.pending.size() * (4L * Long.BYTES + Integer.BYTES);
        for (final ConsumerGroup.Consumer c : group.consumers.values())
        {
            length += Integer.BYTES + c.name.length + Long.BYTES;
        }
        if (length > Integer.MAX_VALUE - 16)
        {
            throw new IllegalStateException("a consumer group of " + length + " bytes, past a state's 2 GiB item");
        }
        final ByteBuffer out = ByteBuffer.allocate((int)length);
        out.putInt(name.length).put(name).putLong(group.lastId.ms()).putLong(group.lastId.seq())
            .putLong(group.entriesRead).putInt(group.consumers.size());
        final Map<ConsumerGroup.Consumer, Integer> index = new IdentityHashMap<>();
        for (final ConsumerGroup.Consumer c : group.consumers.values())
        {
            index.put(c, index.size());
            out.putInt(c.name.length).put(c.name).putLong(c.seenTime);
        }
        out.putInt(group.pending.size());
        for (final Map.Entry<StreamId, ConsumerGroup.Pending> e : group.pending.entrySet())
        {
            final ConsumerGroup.Pending p = e.getValue();
            out.putLong(e.getKey().ms()).putLong(e.getKey().seq()).putInt(index.get(p.consumer))
                .putLong(p.deliveryTime).putLong(p.deliveries);
        }
        return out.array();
    }

    /** Reads a group's bytes {@code in} into {@code groups}; a state that does not hold one whole is corrupt. */
    static void decode(final ByteBuffer in, final Map<byte[], ConsumerGroup> groups)
    {
        try
        {
            final byte[] name = bytes(in);
            final ConsumerGroup group = new ConsumerGroup(new StreamId(in.getLong(), in.getLong()), in.getLong());
            final int consumers = count(in, Integer.BYTES + Long.BYTES);
            final List<ConsumerGroup.Consumer> byIndex = new ArrayList<>(consumers);
            for (int i = 0; i < consumers; i++)
            {
                final ConsumerGroup.Consumer c = group.consumer(bytes(in), 0, false);
                c.seenTime = in.getLong();
                byIndex.add(c);
            }
            final int pending = count(in, 4 * Long.BYTES + Integer.BYTES);
            for (int i = 0; i < pending; i++)
            {
                final StreamId id = new StreamId(in.getLong(), in.getLong());
                final int owner = in.getInt();
                corrupt(owner < 0 || owner >= consumers, "a pending entry of consumer " + owner + " of " + consumers);
                final ConsumerGroup.Consumer c = byIndex.get(owner);
                final ConsumerGroup.Pending p = new ConsumerGroup.Pending(c, in.getLong(), in.getLong());
                group.pending.put(id, p);
                c.pending.put(id, p);
            }
            corrupt(in.hasRemaining() || byIndex.size() != group.consumers.size() || groups.put(name, group) != null,
                "a consumer group with bytes left, two consumers or two groups of one name");
        }
        catch (final BufferUnderflowException ex)
        {
            throw new IllegalStateException("a corrupt key-value state: a consumer group cut short", ex);
        }
    }

    private static byte[] bytes(final ByteBuffer in)
    {
        final int length = count(in, 1);
        final byte[] b = new byte[length];
        in.get(b);
        return b;
    }

    /** A count of items of at least {@code each} bytes that the rest of {@code in} can hold. */
    private static int count(final ByteBuffer in, final int each)
    {
        final int n = in.getInt();
        corrupt(n < 0 || (long)n * each > in.remaining(), "a count of " + n + " past a consumer group's bytes");
        return n;
    }

    private static void corrupt(final boolean is, final String what)
    {
        if (is)
        {
            throw new IllegalStateException("a corrupt key-value state: " + what);
        }
    }
}
