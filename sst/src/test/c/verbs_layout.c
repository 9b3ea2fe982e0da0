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
    P("DEVICE_LIST_ENTRY", sizeof(struct ibv_device *));
    P("MR_LKEY", offsetof(struct ibv_mr, lkey));
    P("MR_RKEY", offsetof(struct ibv_mr, rkey));
    P("QP_NUM", offsetof(struct ibv_qp, qp_num));
    P("GID_SIZE", sizeof(union ibv_gid));
    P("PORT_ATTR_SIZE", sizeof(struct ibv_port_attr));
    P("PORT_ATTR_STATE", offsetof(struct ibv_port_attr, state));
    P("PORT_ATTR_ACTIVE_MTU", offsetof(struct ibv_port_attr, active_mtu));
    P("PORT_ATTR_LID", offsetof(struct ibv_port_attr, lid));
    P("PORT_ATTR_LINK_LAYER", offsetof(struct ibv_port_attr, link_layer));
    P("QP_INIT_ATTR_SIZE", sizeof(struct ibv_qp_init_attr));
    P("QP_INIT_ATTR_SEND_CQ", offsetof(struct ibv_qp_init_attr, send_cq));
    P("QP_INIT_ATTR_RECV_CQ", offsetof(struct ibv_qp_init_attr, recv_cq));
    P("QP_INIT_ATTR_MAX_SEND_WR", offsetof(struct ibv_qp_init_attr, cap.max_send_wr));
    P("QP_INIT_ATTR_MAX_RECV_WR", offsetof(struct ibv_qp_init_attr, cap.max_recv_wr));
    P("QP_INIT_ATTR_MAX_SEND_SGE", offsetof(struct ibv_qp_init_attr, cap.max_send_sge));
    P("QP_INIT_ATTR_MAX_RECV_SGE", offsetof(struct ibv_qp_init_attr, cap.max_recv_sge));
    P("QP_INIT_ATTR_MAX_INLINE", offsetof(struct ibv_qp_init_attr, cap.max_inline_data));
    P("QP_INIT_ATTR_QP_TYPE", offsetof(struct ibv_qp_init_attr, qp_type));
    P("QP_INIT_ATTR_SQ_SIG_ALL", offsetof(struct ibv_qp_init_attr, sq_sig_all));
    P("QP_ATTR_SIZE", sizeof(struct ibv_qp_attr));
    P("QP_ATTR_STATE", offsetof(struct ibv_qp_attr, qp_state));
    P("QP_ATTR_PATH_MTU", offsetof(struct ibv_qp_attr, path_mtu));
    P("QP_ATTR_RQ_PSN", offsetof(struct ibv_qp_attr, rq_psn));
    P("QP_ATTR_SQ_PSN", offsetof(struct ibv_qp_attr, sq_psn));
    P("QP_ATTR_DEST_QP_NUM", offsetof(struct ibv_qp_attr, dest_qp_num));
    P("QP_ATTR_ACCESS_FLAGS", offsetof(struct ibv_qp_attr, qp_access_flags));
    P("QP_ATTR_AH_DGID", offsetof(struct ibv_qp_attr, ah_attr.grh.dgid));
    P("QP_ATTR_AH_SGID_INDEX", offsetof(struct ibv_qp_attr, ah_attr.grh.sgid_index));
    P("QP_ATTR_AH_HOP_LIMIT", offsetof(struct ibv_qp_attr, ah_attr.grh.hop_limit));
    P("QP_ATTR_AH_DLID", offsetof(struct ibv_qp_attr, ah_attr.dlid));
    P("QP_ATTR_AH_IS_GLOBAL", offsetof(struct ibv_qp_attr, ah_attr.is_global));
    P("QP_ATTR_AH_PORT_NUM", offsetof(struct ibv_qp_attr, ah_attr.port_num));
    P("QP_ATTR_PKEY_INDEX", offsetof(struct ibv_qp_attr, pkey_index));
    P("QP_ATTR_MAX_RD_ATOMIC", offsetof(struct ibv_qp_attr, max_rd_atomic));
    P("QP_ATTR_MAX_DEST_RD_ATOMIC", offsetof(struct ibv_qp_attr, max_dest_rd_atomic));
    P("QP_ATTR_MIN_RNR_TIMER", offsetof(struct ibv_qp_attr, min_rnr_timer));
    P("QP_ATTR_PORT_NUM", offsetof(struct ibv_qp_attr, port_num));
    P("QP_ATTR_TIMEOUT", offsetof(struct ibv_qp_attr, timeout));
    P("QP_ATTR_RETRY_CNT", offsetof(struct ibv_qp_attr, retry_cnt));
    P("QP_ATTR_RNR_RETRY", offsetof(struct ibv_qp_attr, rnr_retry));
    P("QPT_RC", IBV_QPT_RC);
    P("QPS_INIT", IBV_QPS_INIT);
    P("QPS_RTR", IBV_QPS_RTR);
    P("QPS_RTS", IBV_QPS_RTS);
    P("QP_STATE", IBV_QP_STATE);
    P("QP_ACCESS_FLAGS", IBV_QP_ACCESS_FLAGS);
    P("QP_PKEY_INDEX", IBV_QP_PKEY_INDEX);
    P("QP_PORT", IBV_QP_PORT);
    P("QP_AV", IBV_QP_AV);
    P("QP_PATH_MTU", IBV_QP_PATH_MTU);
    P("QP_TIMEOUT", IBV_QP_TIMEOUT);
    P("QP_RETRY_CNT", IBV_QP_RETRY_CNT);
    P("QP_RNR_RETRY", IBV_QP_RNR_RETRY);
    P("QP_RQ_PSN", IBV_QP_RQ_PSN);
    P("QP_MAX_QP_RD_ATOMIC", IBV_QP_MAX_QP_RD_ATOMIC);
    P("QP_MIN_RNR_TIMER", IBV_QP_MIN_RNR_TIMER);
    P("QP_SQ_PSN", IBV_QP_SQ_PSN);
    P("QP_MAX_DEST_RD_ATOMIC", IBV_QP_MAX_DEST_RD_ATOMIC);
    P("QP_DEST_QPN", IBV_QP_DEST_QPN);
    P("ACCESS_LOCAL_WRITE", IBV_ACCESS_LOCAL_WRITE);
    P("ACCESS_REMOTE_WRITE", IBV_ACCESS_REMOTE_WRITE);
    P("PORT_ACTIVE", IBV_PORT_ACTIVE);
    P("LINK_LAYER_ETHERNET", IBV_LINK_LAYER_ETHERNET);
    P("WC_RETRY_EXC_ERR", IBV_WC_RETRY_EXC_ERR);
    P("WC_REM_ACCESS_ERR", IBV_WC_REM_ACCESS_ERR);
    P("WC_WR_FLUSH_ERR", IBV_WC_WR_FLUSH_ERR);
    return 0;
}
