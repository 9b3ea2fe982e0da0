/* Prints the libibverbs layouts Weft's FFM bindings use, from the installed headers.
 * VerbsLayoutTest compiles and runs this and compares every line with the constants in io.weft.sst.rdma.VerbsAbi. */
#include <stddef.h>
#include <stdio.h>
#include <infiniband/verbs.h>

#define P(name, value) printf("%s=%ld\n", name, (long)(value))

int main(void)
{
    P("CONTEXT_OPS", offsetof(struct ibv_context, ops));
    P("CONTEXT_OPS_POLL_CQ", offsetof(struct ibv_context, ops) + offsetof(struct ibv_context_ops, poll_cq));
    P("CONTEXT_OPS_POST_SEND", offsetof(struct ibv_context, ops) + offsetof(struct ibv_context_ops, post_send));
    P("CONTEXT_OPS_POST_RECV", offsetof(struct ibv_context, ops) + offsetof(struct ibv_context_ops, post_recv));
    P("QP_CONTEXT", offsetof(struct ibv_qp, context));
    P("CQ_CONTEXT", offsetof(struct ibv_cq, context));
    P("SEND_WR_SIZE", sizeof(struct ibv_send_wr));
    P("SEND_WR_ID", offsetof(struct ibv_send_wr, wr_id));
    P("SEND_WR_NEXT", offsetof(struct ibv_send_wr, next));
    P("SEND_WR_SG_LIST", offsetof(struct ibv_send_wr, sg_list));
    P("SEND_WR_NUM_SGE", offsetof(struct ibv_send_wr, num_sge));
    P("SEND_WR_OPCODE", offsetof(struct ibv_send_wr, opcode));
    P("SEND_WR_SEND_FLAGS", offsetof(struct ibv_send_wr, send_flags));
    P("SEND_WR_REMOTE_ADDR", offsetof(struct ibv_send_wr, wr.rdma.remote_addr));
    P("SEND_WR_RKEY", offsetof(struct ibv_send_wr, wr.rdma.rkey));
    P("SGE_SIZE", sizeof(struct ibv_sge));
    P("SGE_ADDR", offsetof(struct ibv_sge, addr));
    P("SGE_LENGTH", offsetof(struct ibv_sge, length));
    P("SGE_LKEY", offsetof(struct ibv_sge, lkey));
    P("WC_SIZE", sizeof(struct ibv_wc));
    P("WC_WR_ID", offsetof(struct ibv_wc, wr_id));
    P("WC_STATUS", offsetof(struct ibv_wc, status));
    P("WC_OPCODE", offsetof(struct ibv_wc, opcode));
    P("WR_RDMA_WRITE", IBV_WR_RDMA_WRITE);
    P("SEND_SIGNALED", IBV_SEND_SIGNALED);
    P("SEND_INLINE", IBV_SEND_INLINE);
    P("WC_SUCCESS", IBV_WC_SUCCESS);
    P("WC_OP_RDMA_WRITE", IBV_WC_RDMA_WRITE);
    return 0;
}
