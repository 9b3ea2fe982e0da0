package io.weft.membership;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;

/**
 * An authenticated joiner waiting, on its control connection, for the view that adds it; with what its handshake
 * agreed (the secret's holders and both nonces) to authenticate the admission, and its state request
 * ({@link StateTransfer#joinRequest}).
 */
record PendingJoin(int memberId, Socket socket, DataOutputStream out, String secret, String group, byte[] joinerNonce,
    byte[] memberNonce, byte[] request) implements AutoCloseable
{
    /**
     * Sends the joiner its first view with the subgroups added at run time, the application state and their MAC;
     * false if the joiner is gone.
     */
    boolean admit(final View view, final java.util.List<RuntimeSubgroups.Spec> added, final byte[] state)
    {
        try
        {
            final byte[] encoded = ControlWire.encodeView(view, added);
            ControlWire.write(out, ControlWire.VIEW, encoded);
            ControlWire.write(out, ControlWire.STATE, state);
            ControlWire.write(out, ControlWire.ADMIT_MAC, ControlWire.admissionMac(secret, group, memberId, joinerNonce,
                memberNonce, encoded, state));
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
        finally
        {
            close();
        }
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
