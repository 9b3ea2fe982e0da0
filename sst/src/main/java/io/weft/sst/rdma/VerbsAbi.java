package io.weft.sst.rdma;

/**
 * libibverbs ABI facts (rdma-core, LP64): struct offsets and the slots of {@code ibv_context.ops} through which the
 * static-inline hot calls ({@code ibv_post_send}, {@code ibv_poll_cq}) dispatch. Checked by {@code VerbsLayoutTest}
 * against {@code offsetof()} on the installed headers.
 */
final class VerbsAbi
{
    static final long CONTEXT_OPS = 8;
    static final long CONTEXT_OPS_POLL_CQ = 96;
    static final long CONTEXT_OPS_POST_SEND = 208;
    static final long CONTEXT_OPS_POST_RECV = 216;
    static final long QP_CONTEXT = 0;
    static final long CQ_CONTEXT = 0;
    static final long SEND_WR_SIZE = 128;
    static final long SEND_WR_ID = 0;
    static final long SEND_WR_NEXT = 8;
    static final long SEND_WR_SG_LIST = 16;
    static final long SEND_WR_NUM_SGE = 24;
    static final long SEND_WR_OPCODE = 28;
    static final long SEND_WR_SEND_FLAGS = 32;
    static final long SEND_WR_REMOTE_ADDR = 40;
    static final long SEND_WR_RKEY = 48;
    static final long SGE_SIZE = 16;
    static final long SGE_ADDR = 0;
    static final long SGE_LENGTH = 8;
    static final long SGE_LKEY = 12;
    static final long WC_SIZE = 48;
    static final long WC_WR_ID = 0;
    static final long WC_STATUS = 8;
    static final long WC_OPCODE = 12;
    static final long WR_RDMA_WRITE = 0;
    static final long SEND_SIGNALED = 2;
    static final long SEND_INLINE = 8;
    static final long WC_SUCCESS = 0;
    static final long WC_OP_RDMA_WRITE = 1;

    private VerbsAbi()
    {
    }
}
