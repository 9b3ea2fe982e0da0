package io.weft.examples.kv;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * A stream's consumer group ({@link StreamGroupCommands}): the last ID it delivered, the count of entries it read (for
 * XINFO's lag; {@link #UNKNOWN} when it cannot be told), its pending entries (delivered and not acknowledged), each
 * with its consumer, last delivery time and count of deliveries, and its consumers, each with its own pending entries
 * and the time it was last seen. Consumers are ordered by name bytes, as Redis's radix tree orders them. Changed by the
 * writing thread only; a stream's copy for a cut copies its groups ({@link #copy}).
 */
final class ConsumerGroup
{
    /** Redis's SCG_INVALID_ENTRIES_READ. */
    static final long UNKNOWN = -1;

    StreamId lastId;
    long entriesRead;
    final TreeMap<StreamId, Pending> pending = new TreeMap<>();
    final TreeMap<byte[], Consumer> consumers = new TreeMap<>(Arrays::compareUnsigned);

    ConsumerGroup(final StreamId lastId, final long entriesRead)
    {
        this.lastId = lastId;
        this.entriesRead = entriesRead;
    }

    /** An entry delivered to a consumer and not acknowledged (Redis's NACK). */
    static final class Pending
    {
        Consumer consumer;
        long deliveryTime;
        long deliveries;

        Pending(final Consumer consumer, final long deliveryTime, final long deliveries)
        {
            this.consumer = consumer;
            this.deliveryTime = deliveryTime;
            this.deliveries = deliveries;
        }
    }

    /** A consumer: its name, when it was last seen, and the pending entries delivered to it. */
    static final class Consumer
    {
        final byte[] name;
        long seenTime;
        final TreeMap<StreamId, Pending> pending = new TreeMap<>();

        Consumer(final byte[] name, final long seenTime)
        {
            this.name = name;
            this.seenTime = seenTime;
        }
    }

    /** A copy of this group whose pending entries and consumers change apart from this one's. */
    ConsumerGroup copy()
    {
        final ConsumerGroup copy = new ConsumerGroup(lastId, entriesRead);
        for (final Consumer c : consumers.values())
        {
            copy.consumers.put(c.name, new Consumer(c.name, c.seenTime));
        }
        for (final Map.Entry<StreamId, Pending> e : pending.entrySet())
        {
            final Pending p = e.getValue();
            final Consumer owner = copy.consumers.get(p.consumer.name);
            final Pending q = new Pending(owner, p.deliveryTime, p.deliveries);
            copy.pending.put(e.getKey(), q);
            owner.pending.put(e.getKey(), q);
        }
        return copy;
    }

    /** The consumer {@code name}, made (seen at {@code now}) if it is not yet; seen at {@code now} if {@code seen}. */
    Consumer consumer(final byte[] name, final long now, final boolean seen)
    {
        final Consumer c = consumers.get(name);
        if (c == null)
        {
            final Consumer made = new Consumer(name, now);
            consumers.put(name, made);
            return made;
        }
        if (seen)
        {
            c.seenTime = now;
        }
        return c;
    }

    /**
     * Entry {@code id} delivered to {@code consumer} at {@code now} for the first time (XREADGROUP's {@code >}): a new
     * pending entry, or one pending already (a group set back) given to this consumer with its count back at 1.
     */
    void deliver(final StreamId id, final Consumer consumer, final long now)
    {
        final Pending p = pending.computeIfAbsent(id, k -> new Pending(null, now, 1));
        transfer(id, p, consumer);
        p.deliveryTime = now;
        p.deliveries = 1;
    }

    /** Gives pending entry {@code id} ({@code p}) to {@code consumer}, if it is another's or none's (new, FORCE). */
    void transfer(final StreamId id, final Pending p, final Consumer consumer)
    {
        if (p.consumer != consumer)
        {
            if (p.consumer != null)
            {
                p.consumer.pending.remove(id);
            }
            p.consumer = consumer;
            consumer.pending.put(id, p);
        }
    }

    /** Removes pending entry {@code id} from the group and its consumer: whether it was pending. */
    boolean acknowledge(final StreamId id)
    {
        final Pending p = pending.remove(id);
        if (p != null && p.consumer != null)
        {
            p.consumer.pending.remove(id);
        }
        return p != null;
    }

    /** Removes consumer {@code name} and its pending entries: how many it had (0 if there is no such consumer). */
    int removeConsumer(final byte[] name)
    {
        final Consumer c = consumers.remove(name);
        if (c == null)
        {
            return 0;
        }
        c.pending.keySet().forEach(pending::remove);
        return c.pending.size();
    }

    /** What the group takes in the size estimate: each consumer's name and each pending entry, with overheads. */
    long bytes()
    {
        long bytes = 128 + 96L * pending.size();
        for (final Consumer c : consumers.values())
        {
            bytes += 96 + c.name.length;
        }
        return bytes;
    }
}
