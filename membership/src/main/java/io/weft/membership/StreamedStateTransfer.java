package io.weft.membership;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * A {@link StateTransfer} whose state is only ever written and read as a stream, never whole in memory: it implements
 * {@link #capture} and {@link #install(InputStream)}, and the {@code byte[]} methods go through them (for a caller
 * that wants the state in one array).
 */
public interface StreamedStateTransfer extends StateTransfer
{
    @Override
    Snapshot capture(byte[] request);

    @Override
    void install(InputStream state) throws IOException;

    @Override
    default byte[] snapshot()
    {
        return snapshot(new byte[0]);
    }

    @Override
    default byte[] snapshot(final byte[] request)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try
        {
            capture(request).writeTo(bytes);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    @Override
    default void install(final byte[] state)
    {
        try
        {
            install(new ByteArrayInputStream(state));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
