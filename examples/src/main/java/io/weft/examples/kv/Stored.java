package io.weft.examples.kv;

/**
 * A value as the store's map keeps it: a string without expiry as its bytes alone, a string with one as its
 * {@link KvStore.Entry}, an {@link Aggregate} (set, hash) or a {@link WriterOwned} (list, sorted set).
 */
final class Stored
{
    private Stored()
    {
    }

    /** How the map keeps the string {@code entry}: its bytes alone when it has no expiry. */
    static Object of(final KvStore.Entry entry)
    {
        return entry.expireAt() == 0 ? entry.value() : entry;
    }

    /** The string in {@code stored}, a string's value as this map keeps it ({@link #of}). */
    static byte[] value(final Object stored)
    {
        return stored instanceof byte[] value ? value : ((KvStore.Entry)stored).value();
    }

    /** The expiry in {@code stored}, a value as this map keeps it: 0 for none. */
    static long expireAt(final Object stored)
    {
        // type tests, not a pattern switch: this runs on every write (strings first, the interface test last)
        return stored instanceof byte[] ? 0 : stored instanceof KvStore.Entry e ? e.expireAt() :
            stored instanceof Aggregate a ? a.expireAt() : ((WriterOwned<?>)stored).expireAt();
    }

    /** Whether {@code stored}, a value as this map keeps it, is live at {@code now}. */
    static boolean live(final Object stored, final long now)
    {
        final long at = expireAt(stored);
        return at == 0 || at > now;
    }

    /** {@code stored}, a live value as this map keeps it, with the expiry {@code at} (0: none). */
    static Object withExpiry(final Object stored, final long at)
    {
        return stored instanceof Aggregate a ? a.withExpiry(at) :
            stored instanceof WriterOwned<?> w ? w.withExpiry(at) : of(new KvStore.Entry(value(stored), at));
    }

    /** Redis's name of the type of {@code stored}, a value as this map keeps it. */
    static String type(final Object stored)
    {
        return stored instanceof Aggregate a ? a.type() : stored instanceof WriterOwned<?> w ? w.type() : "string";
    }

    /** What the key table keeps as {@code stored}'s length, for the store's size ({@link Keyspace#bytes}). */
    static int length(final Object stored)
    {
        return stored instanceof byte[] value ? value.length : stored instanceof KvStore.Entry e ? e.value().length :
            stored instanceof Aggregate a ? a.fields().length() : ((WriterOwned<?>)stored).length();
    }

    /** Whether {@code stored}, a value as this map keeps it, is a string. */
    static boolean isString(final Object stored)
    {
        return stored instanceof byte[] || stored instanceof KvStore.Entry;
    }

    /** A string's entry; Redis's WRONGTYPE error for a value of another type. */
    static KvStore.Entry entry(final Object stored)
    {
        if (stored != null && !isString(stored))
        {
            throw new KvStore.SyntaxError(Keyspace.WRONG_TYPE);
        }
        return stored == null ? null : stored instanceof byte[] value ? new KvStore.Entry(value, 0) :
            (KvStore.Entry)stored;
    }
}
