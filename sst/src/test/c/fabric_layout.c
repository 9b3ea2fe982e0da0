/* Prints the libfabric struct layouts and ops-table offsets Weft's FFM bindings use, from the installed headers.
 * FabricLayoutTest compiles and runs this and compares every line with the constants in io.weft.sst.rdma.FabricAbi. */
#include <stddef.h>
#include <stdio.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_eq.h>

#define P(name, value) printf("%s=%ld\n", name, (long)(value))

int main(void)
{
    P("FI_INFO_CAPS", offsetof(struct fi_info, caps));
    P("FI_INFO_MODE", offsetof(struct fi_info, mode));
    P("FI_INFO_TX_ATTR", offsetof(struct fi_info, tx_attr));
    P("FI_INFO_EP_ATTR", offsetof(struct fi_info, ep_attr));
    P("FI_INFO_DOMAIN_ATTR", offsetof(struct fi_info, domain_attr));
    P("FI_INFO_FABRIC_ATTR", offsetof(struct fi_info, fabric_attr));
    P("FI_INFO_NEXT", offsetof(struct fi_info, next));
    P("FI_TX_ATTR_MSG_ORDER", offsetof(struct fi_tx_attr, msg_order));
    P("FI_TX_ATTR_OP_FLAGS", offsetof(struct fi_tx_attr, op_flags));
    P("FI_EP_ATTR_TYPE", offsetof(struct fi_ep_attr, type));
    P("FI_DOMAIN_ATTR_MR_MODE", offsetof(struct fi_domain_attr, mr_mode));
    P("FI_DOMAIN_ATTR_THREADING", offsetof(struct fi_domain_attr, threading));
    P("FI_DOMAIN_ATTR_DATA_PROGRESS", offsetof(struct fi_domain_attr, data_progress));
    P("FI_DOMAIN_ATTR_MR_KEY_SIZE", offsetof(struct fi_domain_attr, mr_key_size));
    P("FI_DOMAIN_ATTR_CQ_DATA_SIZE", offsetof(struct fi_domain_attr, cq_data_size));
    P("FI_FABRIC_ATTR_PROV_NAME", offsetof(struct fi_fabric_attr, prov_name));
    P("FI_FABRIC_ATTR_NAME", offsetof(struct fi_fabric_attr, name));
    P("FID_OPS", offsetof(struct fid, ops));
    P("FI_OPS_CLOSE", offsetof(struct fi_ops, close));
    P("FI_OPS_BIND", offsetof(struct fi_ops, bind));
    P("FI_OPS_CONTROL", offsetof(struct fi_ops, control));
    P("FID_FABRIC_OPS", offsetof(struct fid_fabric, ops));
    P("FI_OPS_FABRIC_DOMAIN", offsetof(struct fi_ops_fabric, domain));
    P("FID_DOMAIN_OPS", offsetof(struct fid_domain, ops));
    P("FID_DOMAIN_MR", offsetof(struct fid_domain, mr));
    P("FI_OPS_DOMAIN_AV_OPEN", offsetof(struct fi_ops_domain, av_open));
    P("FI_OPS_DOMAIN_CQ_OPEN", offsetof(struct fi_ops_domain, cq_open));
    P("FI_OPS_DOMAIN_ENDPOINT", offsetof(struct fi_ops_domain, endpoint));
    P("FI_OPS_MR_REG", offsetof(struct fi_ops_mr, reg));
    P("FID_MR_MEM_DESC", offsetof(struct fid_mr, mem_desc));
    P("FID_MR_KEY", offsetof(struct fid_mr, key));
    P("FID_EP_RMA", offsetof(struct fid_ep, rma));
    P("FID_EP_CM", offsetof(struct fid_ep, cm));
    P("FI_OPS_RMA_WRITE", offsetof(struct fi_ops_rma, write));
    P("FI_OPS_RMA_WRITEMSG", offsetof(struct fi_ops_rma, writemsg));
    P("FI_OPS_RMA_WRITEDATA", offsetof(struct fi_ops_rma, writedata));
    P("FI_OPS_CM_GETNAME", offsetof(struct fi_ops_cm, getname));
    P("FID_AV_OPS", offsetof(struct fid_av, ops));
    P("FI_OPS_AV_INSERT", offsetof(struct fi_ops_av, insert));
    P("FID_CQ_OPS", offsetof(struct fid_cq, ops));
    P("FI_OPS_CQ_READ", offsetof(struct fi_ops_cq, read));
    P("FI_OPS_CQ_READERR", offsetof(struct fi_ops_cq, readerr));
    P("FI_CQ_ATTR_SIZE", sizeof(struct fi_cq_attr));
    P("FI_CQ_ATTR_ENTRIES", offsetof(struct fi_cq_attr, size));
    P("FI_CQ_ATTR_FORMAT", offsetof(struct fi_cq_attr, format));
    P("FI_CQ_ATTR_WAIT_OBJ", offsetof(struct fi_cq_attr, wait_obj));
    P("FI_AV_ATTR_SIZE", sizeof(struct fi_av_attr));
    P("FI_AV_ATTR_TYPE", offsetof(struct fi_av_attr, type));
    P("FI_CQ_ERR_ENTRY_SIZE", sizeof(struct fi_cq_err_entry));
    P("FI_CQ_ERR_ENTRY_ERR", offsetof(struct fi_cq_err_entry, err));
    P("FI_CQ_ERR_ENTRY_PROV_ERRNO", offsetof(struct fi_cq_err_entry, prov_errno));
    P("FI_CQ_ERR_ENTRY_OP_CONTEXT", offsetof(struct fi_cq_err_entry, op_context));
    P("FI_CQ_DATA_ENTRY_SIZE", sizeof(struct fi_cq_data_entry));
    P("FI_CQ_DATA_ENTRY_OP_CONTEXT", offsetof(struct fi_cq_data_entry, op_context));
    P("FI_CQ_DATA_ENTRY_FLAGS", offsetof(struct fi_cq_data_entry, flags));
    P("FI_RMA", FI_RMA);
    P("FI_WRITE", FI_WRITE);
    P("FI_REMOTE_WRITE", FI_REMOTE_WRITE);
    P("FI_TRANSMIT", FI_TRANSMIT);
    P("FI_RECV", FI_RECV);
    P("FI_REMOTE_CQ_DATA", FI_REMOTE_CQ_DATA);
    P("FI_SELECTIVE_COMPLETION", FI_SELECTIVE_COMPLETION);
    P("FI_CONTEXT", FI_CONTEXT);
    P("FI_EP_RDM", FI_EP_RDM);
    P("FI_ORDER_WAW", FI_ORDER_WAW);
    P("FI_MR_LOCAL", FI_MR_LOCAL);
    P("FI_MR_VIRT_ADDR", FI_MR_VIRT_ADDR);
    P("FI_MR_ALLOCATED", FI_MR_ALLOCATED);
    P("FI_MR_PROV_KEY", FI_MR_PROV_KEY);
    P("FI_MR_ENDPOINT", FI_MR_ENDPOINT);
    P("FI_CQ_FORMAT_DATA", FI_CQ_FORMAT_DATA);
    P("FI_AV_TABLE", FI_AV_TABLE);
    P("FI_ENABLE", FI_ENABLE);
    P("FI_VERSION_1_17", FI_VERSION(1, 17));
    P("FI_PROGRESS_MANUAL", FI_PROGRESS_MANUAL);
    P("FI_DELIVERY_COMPLETE", FI_DELIVERY_COMPLETE);
    P("FI_THREAD_SAFE", FI_THREAD_SAFE);
    P("FI_SOURCE", FI_SOURCE);
    P("FI_EAGAIN", FI_EAGAIN);
    P("FI_EAVAIL", FI_EAVAIL);
    P("FI_ENODATA", FI_ENODATA);
    return 0;
}
