package io.weft.examples.kv;

import io.weft.membership.StreamedStateTransfer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * A joiner's state: the donor's write position and store ({@link KvSnapshot}, {@link StoreCut}), cut at the view
 * change and written as the joiner reads it, which loads it into its store and, when durable, its log as it arrives.
 * Neither side ever holds a copy of the whole store (before, each held two or three: a store of a gigabyte needed
 * that much more heap to join, and one past 16 MiB could not start a joiner's log).
 *
 * @param log        the replica's log, or null when it keeps none.
 * @param applied    the replica's write position (read on the membership thread, with no write running).
 * @param recovering whether the replica is still in a cold start's recovery.
 * @param installed  told the position of an installed state.
 */
record KvStateTransfer(KvStore store, KvLog log, LongSupplier applied, BooleanSupplier recovering,
    LongConsumer installed) implements StreamedStateTransfer
{
    @Override
    public Snapshot capture(final byte[] request)
    {
        final long position = applied.getAsLong();
        final boolean inRecovery = recovering.getAsBoolean();
        final StoreCut cut = store.cut();
        return out ->
        {
            KvSnapshot.writeHead(out, position, inRecovery);
            cut.writeTo(out);
        };
    }

    @Override
    public void install(final InputStream state) throws IOException
    {
        final long position = KvSnapshot.readHead(state); // refuses a donor that still recovers
        final StoreLoader loader = store.loader();
        if (log == null)
        {
            load(state, loader, OutputStream.nullOutputStream());
        }
        else
        {
            log.appendSnapshot(position, out -> load(state, loader, out)); // the log starts again from the state
        }
        installed.accept(position);
    }

    /** Reads the store into {@code loader} and {@code out}; a state cut short fails before the log takes it. */
    private static void load(final InputStream state, final StoreLoader loader, final OutputStream out)
        throws IOException
    {
        final byte[] piece = new byte[1 << 16];
        for (int n = state.read(piece); n >= 0; n = state.read(piece))
        {
            loader.accept(piece, 0, n);
            out.write(piece, 0, n);
        }
        loader.finish();
        if (!loader.versioned())
        {
            // its members would decide a watched transaction otherwise than this one (KvWire's VERSION)
            throw new IllegalStateException("the donor's state has no WATCH versions: the group runs an older build " +
                "of the store, and the members of a group must run one build");
        }
    }
}
