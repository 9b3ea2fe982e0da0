package io.weft.examples.kv;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The store as of one moment, written out later, on another thread if need be: a copy of the key table's arrays
 * taken while no write runs, which holds the state because a write replaces a value, never changes one in place.
 * Taking it costs two references a slot; the bytes are written only by {@link #writeTo}, in pieces, so no copy of
 * the whole state is ever made (a state transfer's 1 MiB chunks, a log's entries: {@link KvLog}).
 *
 * <p>The format: the count of entries, then each entry's key length, key, value length, value and expiry, sorted
 * by key so that equal stores write equal bytes. {@link StoreLoader} reads it back.
 */
final class StoreCut
{
    private final Supplier<List<Map.Entry<Key, KvStore.Entry>>> cut;
    private List<Map.Entry<Key, KvStore.Entry>> entries;

    /** @param cut lists the entries of the cut, once, on the thread that first writes it. */
    StoreCut(final Supplier<List<Map.Entry<Key, KvStore.Entry>>> cut)
    {
        this.cut = cut;
    }

    /** Writes the state to {@code out}. Several threads may write one cut at once (one joiner each). */
    void writeTo(final OutputStream out) throws IOException
    {
        final DataOutputStream data = new DataOutputStream(new BufferedOutputStream(out, 1 << 16));
        final List<Map.Entry<Key, KvStore.Entry>> inOrder = inOrder();
        data.writeInt(inOrder.size());
        for (final Map.Entry<Key, KvStore.Entry> e : inOrder)
        {
            final byte[] key = e.getKey().bytes();
            data.writeInt(key.length);
            data.write(key);
            data.writeInt(e.getValue().value().length);
            data.write(e.getValue().value());
            data.writeLong(e.getValue().expireAt());
        }
        data.flush();
    }

    /** Listed and sorted by the first writer, off the thread that took the cut (a million keys take a while). */
    private synchronized List<Map.Entry<Key, KvStore.Entry>> inOrder()
    {
        if (entries == null)
        {
            entries = cut.get();
            entries.sort(Map.Entry.comparingByKey());
        }
        return entries;
    }
}
