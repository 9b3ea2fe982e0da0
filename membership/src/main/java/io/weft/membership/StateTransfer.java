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

    /**
     * What a joining member already holds, sent with its join (at most {@link #MAX_JOIN_REQUEST} bytes, authenticated
     * with the handshake), so that the member admitting it can send only what it lacks: for example how many entries
     * of a log it kept from an earlier incarnation. Called on the joining thread before it contacts the group.
     */
    default byte[] joinRequest()
    {
        return new byte[0];
    }

    /**
     * The state for a joiner whose {@link #joinRequest} was {@code request}; by default the whole state. Called on
     * the membership thread.
     */
    default byte[] snapshot(final byte[] request)
    {
        return snapshot();
    }

    /** The largest join request: it travels in the authenticated handshake frame. */
    int MAX_JOIN_REQUEST = 2048;

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
