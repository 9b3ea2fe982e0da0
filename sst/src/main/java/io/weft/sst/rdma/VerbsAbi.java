package io.weft.sst.rdma;

/**
 * libibverbs ABI facts (rdma-core, LP64): struct offsets, enum and flag values, and the slots of
 * {@code ibv_context.ops} through which the static-inline hot calls ({@code ibv_post_send}, {@code ibv_poll_cq})
 * dispatch. Each is checked by {@code AbiLayoutTest} against {@code offsetof()} and the enums of the installed
 * headers (src/test/c/verbs_layout.c).
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
    static final long DEVICE_LIST_ENTRY = 8;
    static final long MR_LKEY = 36;
    static final long MR_RKEY = 40;
    static final long QP_NUM = 52;
    static final long GID_SIZE = 16;
    static final long PORT_ATTR_SIZE = 52;
    static final long PORT_ATTR_STATE = 0;
    static final long PORT_ATTR_ACTIVE_MTU = 8;
    static final long PORT_ATTR_LID = 34;
    static final long PORT_ATTR_LINK_LAYER = 46;
    static final long QP_INIT_ATTR_SIZE = 64;
    static final long QP_INIT_ATTR_SEND_CQ = 8;
    static final long QP_INIT_ATTR_RECV_CQ = 16;
    static final long QP_INIT_ATTR_MAX_SEND_WR = 32;
    static final long QP_INIT_ATTR_MAX_RECV_WR = 36;
    static final long QP_INIT_ATTR_MAX_SEND_SGE = 40;
    static final long QP_INIT_ATTR_MAX_RECV_SGE = 44;
    static final long QP_INIT_ATTR_MAX_INLINE = 48;
    static final long QP_INIT_ATTR_QP_TYPE = 52;
    static final long QP_INIT_ATTR_SQ_SIG_ALL = 56;
    static final long QP_ATTR_SIZE = 144;
    static final long QP_ATTR_STATE = 0;
    static final long QP_ATTR_PATH_MTU = 8;
    static final long QP_ATTR_RQ_PSN = 20;
    static final long QP_ATTR_SQ_PSN = 24;
    static final long QP_ATTR_DEST_QP_NUM = 28;
    static final long QP_ATTR_ACCESS_FLAGS = 32;
    static final long QP_ATTR_AH_DGID = 56;
    static final long QP_ATTR_AH_SGID_INDEX = 76;
    static final long QP_ATTR_AH_HOP_LIMIT = 77;
    static final long QP_ATTR_AH_DLID = 80;
    static final long QP_ATTR_AH_IS_GLOBAL = 85;
    static final long QP_ATTR_AH_PORT_NUM = 86;
    static final long QP_ATTR_PKEY_INDEX = 120;
    static final long QP_ATTR_MAX_RD_ATOMIC = 126;
    static final long QP_ATTR_MAX_DEST_RD_ATOMIC = 127;
    static final long QP_ATTR_MIN_RNR_TIMER = 128;
    static final long QP_ATTR_PORT_NUM = 129;
    static final long QP_ATTR_TIMEOUT = 130;
    static final long QP_ATTR_RETRY_CNT = 131;
    static final long QP_ATTR_RNR_RETRY = 132;
    static final long QPT_RC = 2;
    static final long QPS_INIT = 1;
    static final long QPS_RTR = 2;
    static final long QPS_RTS = 3;
    static final long QP_STATE = 1;
    static final long QP_ACCESS_FLAGS = 8;
    static final long QP_PKEY_INDEX = 16;
    static final long QP_PORT = 32;
    static final long QP_AV = 128;
    static final long QP_PATH_MTU = 256;
    static final long QP_TIMEOUT = 512;
    static final long QP_RETRY_CNT = 1024;
    static final long QP_RNR_RETRY = 2048;
    static final long QP_RQ_PSN = 4096;
    static final long QP_MAX_QP_RD_ATOMIC = 8192;
    static final long QP_MIN_RNR_TIMER = 32768;
    static final long QP_SQ_PSN = 65536;
    static final long QP_MAX_DEST_RD_ATOMIC = 131072;
    static final long QP_DEST_QPN = 1048576;
    static final long ACCESS_LOCAL_WRITE = 1;
    static final long ACCESS_REMOTE_WRITE = 2;
    static final long PORT_ACTIVE = 4;
    static final long LINK_LAYER_ETHERNET = 2;
    static final long WC_RETRY_EXC_ERR = 12;
    static final long WC_REM_ACCESS_ERR = 10;
    static final long WC_WR_FLUSH_ERR = 5;

    private VerbsAbi()
    {
    }
}
