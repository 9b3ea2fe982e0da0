package io.weft.membership;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;

/** An authenticated joiner waiting, on its control connection, for the view that adds it. */
record PendingJoin(int memberId, Socket socket, DataOutputStream out) implements AutoCloseable
{
    /** Sends the joiner its first view and the application state; false if the joiner is gone. */
    boolean admit(final View view, final byte[] state)
    {
        try
        {
            ControlWire.write(out, ControlWire.VIEW, ControlWire.encodeView(view));
            ControlWire.write(out, ControlWire.STATE, state);
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
