package io.weft.sst.rdma;

import io.weft.config.MemberAddress;
import io.weft.config.RdmaBackend;
import io.weft.config.RdmaOptions;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.util.function.IntConsumer;

/**
 * What {@link RdmaTransport} needs from a native RDMA interface to write its row into the peers' registered tables:
 * libfabric ({@link FabricEndpoint}) or libibverbs ({@link VerbsEndpoint}). Writes from one member to one peer land in
 * the order they were posted (a guard written after its payload is never seen first). Not thread-safe: the transport
 * serialises every call.
 */
interface RdmaEndpoint extends AutoCloseable
{
    /** Opens the backend that {@code rdma} names over {@code table}, for the member {@code me} at {@code myRank}. */
    static RdmaEndpoint open(final RdmaOptions rdma, final MemberAddress me, final MemorySegment table, final int rows,
        final long rowSize, final int myRank)
    {
        if (rdma.backend() == RdmaBackend.LIBFABRIC && rdma.provider().startsWith("shm"))
        {
            LoggerFactory.getLogger(RdmaTransport.class).warn("libfabric's shm provider: a member killed while it " +
                "holds one of the provider's locks can block its peers for good; where members may crash use " +
                "tcp;ofi_rxm, verbs;ofi_rxm or weft's shm transport");
        }
        return switch (rdma.backend())
        {
            // software providers other than shm bind to the member's own address (loopback or a test namespace)
            case LIBFABRIC -> new FabricEndpoint(rdma.provider(), rdma.provider().startsWith("shm") ? null :
                me.host(), table, rows, rowSize, myRank, 0x5745_0000L + ((long)myRank << 8));
            case VERBS -> new VerbsEndpoint(rdma.verbs(), table, rows, rowSize, myRank);
        };
    }

    /** What a peer needs to reach this member; published on the control channel. */
    byte[] address();

    /**
     * The key under which the member at {@code rank} writes its row into this member's table: every row is
     * registered on its own, so that one member's access can be withdrawn ({@link #revoke}).
     */
    long key(int rank);

    /**
     * Whether remote addresses are virtual addresses (the peer's table base plus offset) rather than offsets from the
     * start of the row's registration.
     */
    boolean virtualAddresses();

    /**
     * Withdraws the registration of the row of the member at {@code rank} (a frozen member): its later writes into
     * this member's table fail at its end and change nothing here.
     */
    void revoke(int rank);

    /** Connects to the member at {@code rank}, given the address it published. */
    void connect(int rank, byte[] peerAddress);

    /**
     * Posts a write of {@code length} bytes at {@code localAddress} (inside the registered table) to
     * {@code remoteAddress} at the member at {@code rank}. Returns false when there is no room now: progress, then
     * retry.
     */
    boolean write(long localAddress, int length, int rank, long remoteAddress, long remoteKey);

    /** Makes sure the writes posted to {@code rank} so far will report their completion (selective signalling). */
    void requestCompletion(int rank);

    /** Writes posted and not known complete. */
    int outstanding();

    /** How many writes have been posted to {@code rank}: a count that only grows. */
    long posted(int rank);

    /**
     * How many of the first writes to {@code rank} are known complete, or failed, each with all before it: once it
     * reaches a value of {@link #posted}, the writes posted until then have landed, in whatever order the provider
     * completed them (a verbs queue pair completes in order; a libfabric endpoint need not).
     */
    long completed(int rank);

    /**
     * Reaps completions (and, for manual-progress providers, lets peers' writes land); reports failed ranks. Returns
     * whether a peer's write that wakes this member landed ({@link #wakesTargets()} at the peer).
     */
    boolean progress(IntConsumer failedRank);

    /**
     * Whether each write tells its target that it landed, in the target's own completions (libfabric's remote CQ
     * data), so that no ring over the control channel is needed.
     */
    boolean wakesTargets();

    /** One line for the log: interface, device or provider, addressing, progress. */
    String describe();

    @Override
    void close();
}
