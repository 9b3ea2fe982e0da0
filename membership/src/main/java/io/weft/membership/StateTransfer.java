package io.weft.membership;

/**
 * The application state a joining member needs before its first delivery. When a view with joiners is installed,
 * a member of that view that survived from the previous one takes a {@link #snapshot()} after its last delivery of
 * the previous view; each joiner {@link #install installs} it before it delivers anything, so that from its first
 * view on it applies the same messages to the same state as everyone else.
 */
public interface StateTransfer
{
    /** The whole application state, as of the last message delivered. Called on the membership thread. */
    byte[] snapshot();

    /** Replaces the application state of a joining member. Called before its first delivery. */
    void install(byte[] state);

    /** No application state: joiners start empty. */
    StateTransfer NONE = new StateTransfer()
    {
        @Override
        public byte[] snapshot()
        {
            return new byte[0];
        }

        @Override
        public void install(final byte[] state)
        {
        }
    };
}
