package io.weft.sst.rdma;

/**
 * libfabric ABI facts the FFM bindings rely on: struct member offsets, ops-table slots and flag values of
 * libfabric 1.x on x86_64/aarch64 (LP64). libfabric exports only a few functions; everything else is a call through
 * an ops table, whose layout is ABI and only grows. {@code FabricLayoutTest} compiles a C program with
 * {@code offsetof()} against the installed headers and checks every constant here, so an ABI change fails loudly.
 */
final class FabricAbi
{
    static final long FI_INFO_CAPS = 8;
    static final long FI_INFO_MODE = 16;
    static final long FI_INFO_TX_ATTR = 72;
    static final long FI_INFO_EP_ATTR = 88;
    static final long FI_INFO_DOMAIN_ATTR = 96;
    static final long FI_INFO_FABRIC_ATTR = 104;
    static final long FI_INFO_NEXT = 0;
    static final long FI_TX_ATTR_MSG_ORDER = 24;
    static final long FI_TX_ATTR_OP_FLAGS = 16;
    static final long FI_EP_ATTR_TYPE = 0;
    static final long FI_DOMAIN_ATTR_MR_MODE = 36;
    static final long FI_DOMAIN_ATTR_THREADING = 16;
    static final long FI_DOMAIN_ATTR_DATA_PROGRESS = 24;
    static final long FI_DOMAIN_ATTR_MR_KEY_SIZE = 40;
    static final long FI_DOMAIN_ATTR_CQ_DATA_SIZE = 48;
    static final long FI_FABRIC_ATTR_PROV_NAME = 16;
    static final long FI_FABRIC_ATTR_NAME = 8;
    static final long FID_OPS = 16;
    static final long FI_OPS_CLOSE = 8;
    static final long FI_OPS_BIND = 16;
    static final long FI_OPS_CONTROL = 24;
    static final long FID_FABRIC_OPS = 24;
    static final long FI_OPS_FABRIC_DOMAIN = 8;
    static final long FID_DOMAIN_OPS = 24;
    static final long FID_DOMAIN_MR = 32;
    static final long FI_OPS_DOMAIN_AV_OPEN = 8;
    static final long FI_OPS_DOMAIN_CQ_OPEN = 16;
    static final long FI_OPS_DOMAIN_ENDPOINT = 24;
    static final long FI_OPS_MR_REG = 8;
    static final long FID_MR_MEM_DESC = 24;
    static final long FID_MR_KEY = 32;
    static final long FID_EP_RMA = 48;
    static final long FID_EP_CM = 32;
    static final long FI_OPS_RMA_WRITE = 32;
    static final long FI_OPS_RMA_WRITEMSG = 48;
    static final long FI_OPS_RMA_WRITEDATA = 64;
    static final long FI_OPS_CM_GETNAME = 16;
    static final long FID_AV_OPS = 24;
    static final long FI_OPS_AV_INSERT = 8;
    static final long FID_CQ_OPS = 24;
    static final long FI_OPS_CQ_READ = 8;
    static final long FI_OPS_CQ_READERR = 24;
    static final long FI_CQ_ATTR_SIZE = 40;
    static final long FI_CQ_ATTR_ENTRIES = 0;
    static final long FI_CQ_ATTR_FORMAT = 16;
    static final long FI_CQ_ATTR_WAIT_OBJ = 20;
    static final long FI_AV_ATTR_SIZE = 48;
    static final long FI_AV_ATTR_TYPE = 0;
    static final long FI_CQ_ERR_ENTRY_SIZE = 80;
    static final long FI_CQ_ERR_ENTRY_ERR = 56;
    static final long FI_CQ_ERR_ENTRY_PROV_ERRNO = 60;
    static final long FI_CQ_ERR_ENTRY_OP_CONTEXT = 0;
    static final long FI_CQ_DATA_ENTRY_SIZE = 40;
    static final long FI_CQ_DATA_ENTRY_OP_CONTEXT = 0;
    static final long FI_CQ_DATA_ENTRY_FLAGS = 8;
    static final long FI_RMA = 4;
    static final long FI_WRITE = 512;
    static final long FI_REMOTE_WRITE = 8192;
    static final long FI_TRANSMIT = 2048;
    static final long FI_RECV = 1024;
    static final long FI_REMOTE_CQ_DATA = 131072;
    static final long FI_SELECTIVE_COMPLETION = 576460752303423488L;
    static final long FI_CONTEXT = 576460752303423488L;
    static final long FI_EP_RDM = 3;
    static final long FI_ORDER_WAW = 16;
    static final long FI_MR_LOCAL = 4;
    static final long FI_MR_VIRT_ADDR = 16;
    static final long FI_MR_ALLOCATED = 32;
    static final long FI_MR_PROV_KEY = 64;
    static final long FI_MR_ENDPOINT = 512;
    static final long FI_CQ_FORMAT_DATA = 3;
    static final long FI_AV_TABLE = 2;
    static final long FI_ENABLE = 6;
    static final long FI_VERSION_1_17 = 65553;
    static final long FI_PROGRESS_MANUAL = 2;
    static final long FI_DELIVERY_COMPLETE = 268435456;
    static final long FI_THREAD_SAFE = 1;
    static final long FI_SOURCE = 144115188075855872L;
    static final long FI_EAGAIN = 11;
    static final long FI_EAVAIL = 259;
    static final long FI_ENODATA = 61;

    private FabricAbi()
    {
    }
}
