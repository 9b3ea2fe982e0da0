package io.weft.examples.kv;

/**
 * A value whose contents only the writing thread reads and changes, a list ({@link ListValue}) or a sorted set
 * ({@link ZSetValue}): its reads go through the group even with local reads ({@link Commands}), so its contents need no
 * concurrent structure, and the writing thread copies contents made before the store's last cut before their first
 * change after it ({@link Keyspace#writableList}), so that a cut that walks them later sees them as they were.
 *
 * @param <T> the value's own type.
 */
interface WriterOwned<T extends WriterOwned<T>>
{
    /** The expiry time in epoch milliseconds, 0 for none. */
    long expireAt();

    /** This value with the expiry {@code at} (0: none), over the same contents. */
    T withExpiry(long at);

    /** The items or members. */
    Contents contents();

    /** A value over a copy of these contents made at cut count {@code cut}, with the same expiry. */
    T copy(long cut);

    /** The store's cut count when these contents were made: older ones are a cut's. */
    default long cut()
    {
        return contents().cut;
    }

    /** The items or members: a value with none is not stored (its key goes, as in Redis). */
    default int size()
    {
        return contents().size();
    }

    /** What the value takes, estimated, as the length the key table keeps for the store's size. */
    default int length()
    {
        return contents().length();
    }

    /** Redis's name of its type. */
    default String type()
    {
        return contents().type();
    }

    /** A value's items or members, made at a cut count. */
    abstract class Contents
    {
        /** The store's cut count when these contents were made: older ones are a cut's. */
        final long cut;

        Contents(final long cut)
        {
            this.cut = cut;
        }

        abstract int size();

        abstract int length();

        abstract String type();
    }
}
