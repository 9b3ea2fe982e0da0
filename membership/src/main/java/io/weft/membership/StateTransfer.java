package io.weft.membership;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The application state a joining member needs before its first delivery. When a view with joiners is installed,
 * a member of that view that survived from the previous one takes a {@link #snapshot()} after its last delivery of
 * the previous view; each joiner {@link #install installs} it before it delivers anything, so that from its first
 * view on it applies the same messages to the same state as everyone else.
 *
 * <p>The state travels in authenticated chunks of 1 MiB and is never whole in memory on the way. A large state
 * (a log) implements {@link #capture} and {@link #install(InputStream)}, so that neither side holds it whole at all;
 * the {@code byte[]} methods suit a state that fits in memory comfortably.
 */
public interface StateTransfer
{
    /** A cut of the state for one request, written to joiners after the view change. */
    @FunctionalInterface
    interface Snapshot
    {
        /**
         * Writes the state as of the cut. Runs on a thread of its own while the group goes on delivering; called
         * once per joiner that asked the same, possibly from several threads at once.
         */
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * Cuts the state for a joiner whose {@link #joinRequest} was {@code request}. Called on the membership thread
     * after the last delivery of the previous view: it must be quick and must fix what {@link Snapshot#writeTo}
     * writes later (a copy, or how far an append-only log reaches). By default the {@link #snapshot(byte[])} bytes.
     * One that throws (a request it cannot read) fails the joins that sent that request, not this member.
     */
    default Snapshot capture(final byte[] request)
    {
        final byte[] state = snapshot(request);
        return out -> out.write(state);
    }

    /**
     * Replaces the application state of a joining member from what {@link Snapshot#writeTo} wrote, read to its
     * end. Called before its first delivery, while the joiner's first table connects; the group's deliveries wait for
     * it, so a pause of {@code weft.membership.join-timeout} between reads (or after the last) fails the join. By
     * default reads it whole and calls {@link #install(byte[])}.
     */
    default void install(final InputStream state) throws IOException
    {
        install(state.readAllBytes());
    }

    /**
     * Cuts the state for a member of the view that fetches it ({@link Group#fetchState}, {@link Joining#fetch}): at
     * once, on a control connection's thread, beside the deliveries, so only a state that is safe to cut there
     * implements it. By default refused (the fetching member is told why); what it throws refuses that fetch only.
     */
    default Snapshot captureNow(final byte[] request)
    {
        throw new UnsupportedOperationException("this member's state transfer does not serve fetches");
    }

    /** Reads a state as it arrives, to its end. */
    @FunctionalInterface
    interface StateReader
    {
        /** Reads {@code state} to its end: the fetch then checks that it was read whole. */
        void read(InputStream state) throws IOException;
    }

    /**
     * What a joiner's {@link #install(InputStream, Joining)} may use beside the admitting member's state: its first
     * view, and fetching part of the state from other members of that view (those in subgroups the admitting member
     * is not in), as {@link Group#fetchState} does.
     */
    interface Joining
    {
        /** The joiner's first view. */
        View view();

        /**
         * Hands {@code reader} member {@code memberId}'s {@link #captureNow captureNow(request)}, checked read whole.
         * The group's deliveries in subgroups with the joiner wait for the install, so the members of those subgroups
         * are still at the view's cut. A member that has not installed the view yet refuses: try again.
         */
        void fetch(int memberId, byte[] request, StateReader reader) throws IOException;
    }

    /**
     * Installs a joiner's state, as {@link #install(InputStream)}, with {@code joining} to fetch what the admitting
     * member could not cut (by default none of it is fetched).
     */
    default void install(final InputStream state, final Joining joining) throws IOException
    {
        install(state);
    }

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
