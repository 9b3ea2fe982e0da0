package io.weft.membership;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An authenticated joiner waiting, on its control connection, for the view that adds it (or a member fetching state,
 * served at once); with what its handshake agreed (the secret's holders and both nonces) to authenticate the
 * admission, and its state request ({@link StateTransfer#joinRequest}).
 */
record PendingJoin(int memberId, Socket socket, DataOutputStream out, String secret, String group, byte[] joinerNonce,
    byte[] memberNonce, byte[] request) implements AutoCloseable
{
    /**
     * Sends the joiner its first view with the subgroups added at run time and its MAC, then the application state
     * in chunks; null when all is sent, else what went wrong (the joiner went away, the state could not be written).
     */
    String admit(final View view, final java.util.List<RuntimeSubgroups.Spec> added,
        final StateTransfer.Snapshot state, final Duration stall)
    {
        final byte[] encoded = ControlWire.encodeView(view, added);
        return send(state, stall, () ->
        {
            ControlWire.write(out, ControlWire.VIEW, encoded);
            ControlWire.write(out, ControlWire.ADMIT_MAC, ControlWire.viewMac(secret, group, memberId, joinerNonce,
                memberNonce, encoded));
        });
    }

    /** Sends a member that fetches state ({@link Group#fetchState}) ACCEPTED, then the state; as {@link #admit}. */
    String fetched(final StateTransfer.Snapshot state, final Duration stall)
    {
        return send(state, stall, () -> ControlWire.write(out, ControlWire.ACCEPTED, new byte[0]));
    }

    private interface Preamble
    {
        void write() throws IOException;
    }

    private String send(final StateTransfer.Snapshot state, final Duration stall, final Preamble preamble)
    {
        final StateChunks.Output chunks = new StateChunks.Output(out, secret, group, memberId, joinerNonce,
            memberNonce);
        watch(chunks, -1, stall);
        try
        {
            preamble.write();
            state.writeTo(chunks);
            chunks.close(); // the last chunk: only a state written whole is marked complete
            return null;
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
        catch (final RuntimeException ex)
        {
            return "the state transfer's snapshot failed: " + ex;
        }
        finally
        {
            close();
        }
    }

    /**
     * Closes the connection when no chunk went out for {@code stall} (a joiner that stopped reading): it unblocks the
     * write, whatever the size of the state.
     */
    private void watch(final StateChunks.Output chunks, final long sent, final Duration stall)
    {
        CompletableFuture.delayedExecutor(stall.toMillis(), TimeUnit.MILLISECONDS).execute(() ->
        {
            if (!chunks.closed())
            {
                if (chunks.sent() == sent)
                {
                    close();
                }
                else
                {
                    watch(chunks, chunks.sent(), stall);
                }
            }
        });
    }

    @Override
    public void close()
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignored)
        {
            // already closed by the joiner
        }
    }
}
