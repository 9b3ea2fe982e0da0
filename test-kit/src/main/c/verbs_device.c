/* A software RDMA device for tests, built in test scope only: the libibverbs calls Weft's verbs backend makes (device
 * list, open, port and GID queries, protection domain, memory regions, completion queue, RC queue pairs taken through
 * INIT/RTR/RTS, and post_send / poll_cq through the context's ops table), so that the backend runs between member
 * processes on a host without an RDMA NIC. Load it with weft.transport.rdma.verbs.library = <path of the .so>.
 *
 * One-sided like a NIC: ibv_reg_mr moves the region onto a memfd at the same virtual address; an RDMA WRITE maps the
 * target's region through /proc/<pid>/fd/<fd> and copies into it with 8-byte stores in order, so the target's CPU
 * does nothing and an aligned 8-byte word is never torn. Each process publishes its regions and queue pairs in a
 * registry page (also a memfd); the GID carries the process id and the registry's descriptor.
 *
 * It checks what a NIC and the verbs library check and fails the way they fail: queue-pair state transitions and their
 * required attribute masks (errno from ibv_modify_qp); posting outside RTS, a bad opcode, too many scatter-gather
 * entries, an oversized inline payload (errno from post_send); a full send queue (ENOMEM: work requests are retired
 * only when a later signalled completion is polled); a local key or range outside a local region (IBV_WC_LOC_PROT_ERR);
 * a peer that is gone, or whose queue pair is not connected back to this one with matching packet sequence numbers
 * (IBV_WC_RETRY_EXC_ERR); a remote key, access or range outside the target's region (IBV_WC_REM_ACCESS_ERR). An error
 * completion moves the queue pair to the error state; later requests complete with IBV_WC_WR_FLUSH_ERR.
 * ibv_close_device prints what it did ("weft verbs device: posts=...") to stderr for the tests to check. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#undef ibv_reg_mr
#undef ibv_query_port

#define PAGE 4096UL
#define MAX_MR 16
#define MAX_QP 128
#define MAX_REMOTE_MR 4
#define MAX_INLINE 64
#define MAGIC 0x5745465456455242ULL

struct reg_mr { uint32_t rkey, access; int32_t fd, live; uint64_t addr, length; };
struct reg_qp { uint32_t qpn, state, dest_qpn, sq_psn, rq_psn, live; };
struct registry { uint64_t magic; int32_t pid, pad; struct reg_mr mr[MAX_MR]; struct reg_qp qp[MAX_QP]; };

struct remote_mr { uint32_t rkey; int32_t slot; uint8_t *base; uint64_t addr, length; };

struct sw_qp {
    struct ibv_qp qp;
    int slot;
    uint32_t max_send_wr, max_inline, dest_qpn, rq_psn, sq_psn;
    uint64_t posted, retired;
    pid_t peer_pid;
    struct registry *peer;
    struct remote_mr remote[MAX_REMOTE_MR];
};

struct cqe { struct ibv_wc wc; struct sw_qp *qp; uint64_t seq; };
struct sw_cq { struct ibv_cq cq; struct cqe *ring; int size, head, count; };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ibv_device device = { .name = "weftsoft0", .dev_name = "uverbs-weftsoft0", .node_type = IBV_NODE_CA,
                                    .transport_type = IBV_TRANSPORT_IB };
static struct registry *registry;
static int registry_fd = -1;
static uint32_t next_key = 0x1000;
static unsigned long long posts, signalled, inlined, zero_length, bytes, errors;

static int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
static int poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);

struct ibv_device **ibv_get_device_list(int *num)
{
    struct ibv_device **list = calloc(2, sizeof(*list));
    list[0] = &device;
    if (num) *num = 1;
    return list;
}

void ibv_free_device_list(struct ibv_device **list) { free(list); }

const char *ibv_get_device_name(struct ibv_device *dev) { return dev->name; }

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
    struct ibv_context *ctx;
    if (dev != &device) { errno = ENODEV; return NULL; }
    pthread_mutex_lock(&lock);
    if (!registry) {
        registry_fd = memfd_create("weft-verbs-registry", 0);
        if (registry_fd < 0 || ftruncate(registry_fd, PAGE) != 0) { pthread_mutex_unlock(&lock); return NULL; }
        registry = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, registry_fd, 0);
        registry->pid = getpid();
        __atomic_store_n(&registry->magic, MAGIC, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    ctx = calloc(1, sizeof(*ctx));
    ctx->device = dev;
    ctx->ops.post_send = post_send;
    ctx->ops.poll_cq = poll_cq;
    return ctx;
}

int ibv_close_device(struct ibv_context *ctx)
{
    fprintf(stderr, "weft verbs device: posts=%llu signalled=%llu inline=%llu zero-length=%llu bytes=%llu errors=%llu\n",
            posts, signalled, inlined, zero_length, bytes, errors);
    free(ctx);
    return 0;
}

int ibv_query_port(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *compat)
{
    struct ibv_port_attr *attr = (struct ibv_port_attr *)compat;
    (void)ctx;
    if (port != 1) return EINVAL;
    attr->state = IBV_PORT_ACTIVE;
    attr->max_mtu = IBV_MTU_4096;
    attr->active_mtu = IBV_MTU_1024;
    attr->gid_tbl_len = 1;
    attr->lid = 0;
    attr->link_layer = IBV_LINK_LAYER_ETHERNET; /* RoCE-like: every path needs a GRH with the peer's GID */
    return 0;
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
    int32_t pid = getpid();
    (void)ctx;
    if (port != 1 || index != 0) return EINVAL;
    memset(gid, 0, sizeof(*gid));
    gid->raw[0] = 0xfe;
    gid->raw[1] = 0x80;
    memcpy(gid->raw + 8, &pid, 4);
    memcpy(gid->raw + 12, &registry_fd, 4);
    return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
    struct ibv_pd *pd = calloc(1, sizeof(*pd));
    pd->context = ctx;
    return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd) { free(pd); return 0; }

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    struct ibv_mr *mr;
    int slot, fd;
    if (((uintptr_t)addr % PAGE) != 0 || length == 0 || length % PAGE != 0) { errno = EINVAL; return NULL; }
    pthread_mutex_lock(&lock);
    for (slot = 0; slot < MAX_MR && registry->mr[slot].live; slot++) ;
    if (slot == MAX_MR) { pthread_mutex_unlock(&lock); errno = ENOMEM; return NULL; }
    fd = memfd_create("weft-verbs-mr", 0);
    if (fd < 0 || ftruncate(fd, length) != 0 || pwrite(fd, addr, length, 0) != (ssize_t)length ||
        mmap(addr, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != addr) {
        pthread_mutex_unlock(&lock);
        errno = ENOMEM;
        return NULL;
    }
    mr = calloc(1, sizeof(*mr));
    mr->context = pd->context;
    mr->pd = pd;
    mr->addr = addr;
    mr->length = length;
    mr->handle = slot;
    mr->rkey = next_key++ * 0x101;
    mr->lkey = mr->rkey ^ 0x5a5a;
    registry->mr[slot] = (struct reg_mr){ mr->rkey, (uint32_t)access, fd, 1, (uintptr_t)addr, length };
    pthread_mutex_unlock(&lock);
    return mr;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
    struct reg_mr *r = &registry->mr[mr->handle];
    void *copy;
    int result = 0;
    pthread_mutex_lock(&lock);
    r->live = 0;
    /* back to private memory with the same contents, as a NIC leaves it: the copy is built elsewhere and moved over
     * the region in one mremap, so a thread reading the region meanwhile never sees it empty */
    copy = mmap(NULL, mr->length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy == MAP_FAILED) {
        result = errno;
    } else {
        memcpy(copy, mr->addr, mr->length);
        if (mremap(copy, mr->length, mr->length, MREMAP_MAYMOVE | MREMAP_FIXED, mr->addr) == MAP_FAILED) {
            result = errno;
            munmap(copy, mr->length);
        }
    }
    close(r->fd);
    pthread_mutex_unlock(&lock);
    free(mr);
    return result;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context, struct ibv_comp_channel *channel,
                             int comp_vector)
{
    struct sw_cq *cq;
    (void)channel; (void)comp_vector;
    if (cqe < 1 || cqe > 1 << 20) { errno = EINVAL; return NULL; }
    cq = calloc(1, sizeof(*cq));
    cq->ring = calloc(cqe + 1, sizeof(struct cqe));
    cq->size = cqe + 1;
    cq->cq.context = ctx;
    cq->cq.cq_context = cq_context;
    cq->cq.cqe = cqe;
    return &cq->cq;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
    struct sw_cq *cq = (struct sw_cq *)ibcq;
    free(cq->ring);
    free(cq);
    return 0;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
    struct sw_qp *qp;
    int slot;
    if (init->qp_type != IBV_QPT_RC || !init->send_cq || !init->recv_cq || init->cap.max_send_wr < 1 ||
        init->cap.max_send_wr > 4096 || init->cap.max_send_sge > 1) {
        errno = EINVAL;
        return NULL;
    }
    pthread_mutex_lock(&lock);
    for (slot = 0; slot < MAX_QP && registry->qp[slot].live; slot++) ;
    if (slot == MAX_QP) { pthread_mutex_unlock(&lock); errno = ENOMEM; return NULL; }
    qp = calloc(1, sizeof(*qp));
    qp->slot = slot;
    qp->qp.context = pd->context;
    qp->qp.pd = pd;
    qp->qp.send_cq = init->send_cq;
    qp->qp.recv_cq = init->recv_cq;
    qp->qp.qp_type = IBV_QPT_RC;
    qp->qp.state = IBV_QPS_RESET;
    qp->qp.qp_num = 0x100 + slot;
    qp->max_send_wr = init->cap.max_send_wr;
    qp->max_inline = init->cap.max_inline_data < MAX_INLINE ? init->cap.max_inline_data : MAX_INLINE;
    init->cap.max_inline_data = qp->max_inline; /* what was granted, as a device reports it */
    registry->qp[slot] = (struct reg_qp){ qp->qp.qp_num, IBV_QPS_RESET, 0, 0, 0, 1 };
    pthread_mutex_unlock(&lock);
    return &qp->qp;
}

static void unmap_peer(struct sw_qp *qp)
{
    int i;
    for (i = 0; i < MAX_REMOTE_MR; i++) {
        if (qp->remote[i].base) munmap(qp->remote[i].base, qp->remote[i].length);
    }
    memset(qp->remote, 0, sizeof(qp->remote));
    if (qp->peer) munmap(qp->peer, PAGE);
    qp->peer = NULL;
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
    struct sw_qp *qp = (struct sw_qp *)ibqp;
    pthread_mutex_lock(&lock);
    registry->qp[qp->slot].live = 0;
    unmap_peer(qp);
    pthread_mutex_unlock(&lock);
    free(qp);
    return 0;
}

static int need(int mask, int required) { return (mask & required) == required ? 0 : EINVAL; }

static void set_state(struct sw_qp *qp, enum ibv_qp_state state)
{
    qp->qp.state = state;
    __atomic_store_n(&registry->qp[qp->slot].state, (uint32_t)state, __ATOMIC_RELEASE);
}

int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
    struct sw_qp *qp = (struct sw_qp *)ibqp;
    enum ibv_qp_state from = qp->qp.state, to = (mask & IBV_QP_STATE) ? attr->qp_state : from;
    char path[64];
    int32_t pid, fd;
    int rc = 0;
    pthread_mutex_lock(&lock);
    if (to == IBV_QPS_ERR || to == IBV_QPS_RESET) {
        set_state(qp, to);
    } else if (from == IBV_QPS_RESET && to == IBV_QPS_INIT) {
        rc = need(mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
        if (!rc && attr->port_num != 1) rc = EINVAL;
        if (!rc) set_state(qp, to);
    } else if (from == IBV_QPS_INIT && to == IBV_QPS_RTR) {
        rc = need(mask, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
        /* an Ethernet link layer routes by GID only: no GRH, no path */
        if (!rc && (!attr->ah_attr.is_global || attr->ah_attr.port_num != 1 || attr->ah_attr.grh.sgid_index != 0 ||
                    attr->path_mtu < IBV_MTU_256 || attr->path_mtu > IBV_MTU_1024 || attr->ah_attr.grh.dgid.raw[0] != 0xfe))
            rc = EINVAL;
        if (!rc) {
            memcpy(&pid, attr->ah_attr.grh.dgid.raw + 8, 4);
            memcpy(&fd, attr->ah_attr.grh.dgid.raw + 12, 4);
            snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
            int rfd = open(path, O_RDONLY);
            if (rfd < 0) rc = EINVAL; /* no such GID on the fabric */
            else {
                qp->peer = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, rfd, 0);
                close(rfd);
                if (qp->peer == MAP_FAILED || qp->peer->magic != MAGIC) { qp->peer = NULL; rc = EINVAL; }
            }
        }
        if (!rc) {
            qp->peer_pid = pid;
            qp->dest_qpn = attr->dest_qp_num;
            qp->rq_psn = attr->rq_psn;
            registry->qp[qp->slot].dest_qpn = attr->dest_qp_num;
            registry->qp[qp->slot].rq_psn = attr->rq_psn;
            set_state(qp, to);
        }
    } else if (from == IBV_QPS_RTR && to == IBV_QPS_RTS) {
        rc = need(mask, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                        IBV_QP_MAX_QP_RD_ATOMIC);
        if (!rc) {
            qp->sq_psn = attr->sq_psn;
            registry->qp[qp->slot].sq_psn = attr->sq_psn;
            set_state(qp, to);
        }
    } else {
        rc = EINVAL;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int complete(struct sw_qp *qp, uint64_t seq, uint64_t wr_id, enum ibv_wc_status status, uint32_t len)
{
    struct sw_cq *cq = (struct sw_cq *)qp->qp.send_cq;
    struct cqe *e;
    if (cq->count == cq->size) {
        fprintf(stderr, "weft verbs device: completion queue overrun\n");
        abort(); /* a NIC raises a fatal asynchronous error */
    }
    e = &cq->ring[(cq->head + cq->count++) % cq->size];
    memset(e, 0, sizeof(*e));
    e->wc.wr_id = wr_id;
    e->wc.status = status;
    e->wc.opcode = IBV_WC_RDMA_WRITE;
    e->wc.qp_num = qp->qp.qp_num;
    e->wc.byte_len = len;
    e->qp = qp;
    e->seq = seq;
    if (status != IBV_WC_SUCCESS && status != IBV_WC_WR_FLUSH_ERR) {
        errors++;
        set_state(qp, IBV_QPS_ERR);
    }
    return 0;
}

/* The peer's queue pair this one is connected to, if it is alive and connected back with matching sequence numbers. */
static int connected(struct sw_qp *qp)
{
    int i;
    if (kill(qp->peer_pid, 0) != 0 && errno == ESRCH) return 0;
    for (i = 0; i < MAX_QP; i++) {
        struct reg_qp *r = &qp->peer->qp[i];
        if (__atomic_load_n(&r->live, __ATOMIC_ACQUIRE) && r->qpn == qp->dest_qpn) {
            uint32_t state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
            return (state == IBV_QPS_RTR || state == IBV_QPS_RTS) && r->dest_qpn == qp->qp.qp_num &&
                   r->rq_psn == qp->sq_psn && r->sq_psn == qp->rq_psn;
        }
    }
    return 0;
}

static uint8_t *remote(struct sw_qp *qp, uint32_t rkey, uint64_t addr, uint32_t len)
{
    int i, fd;
    char path[64];
    struct remote_mr *m = NULL;
    for (i = 0; i < MAX_REMOTE_MR; i++) {
        if (qp->remote[i].base && qp->remote[i].rkey == rkey) { m = &qp->remote[i]; break; }
    }
    if (m && !__atomic_load_n(&qp->peer->mr[m->slot].live, __ATOMIC_ACQUIRE)) {
        /* deregistered since: a NIC checks the key of every write, so the cached mapping is dropped */
        munmap(m->base, m->length);
        m->base = NULL;
        return NULL;
    }
    if (!m) {
        for (i = 0; i < MAX_MR; i++) {
            struct reg_mr *r = &qp->peer->mr[i];
            if (__atomic_load_n(&r->live, __ATOMIC_ACQUIRE) && r->rkey == rkey && (r->access & IBV_ACCESS_REMOTE_WRITE)) {
                int slot = i;
                snprintf(path, sizeof(path), "/proc/%d/fd/%d", qp->peer_pid, r->fd);
                if ((fd = open(path, O_RDWR)) < 0) return NULL;
                for (i = 0; i < MAX_REMOTE_MR && qp->remote[i].base; i++) ;
                if (i == MAX_REMOTE_MR) { close(fd); return NULL; }
                m = &qp->remote[i];
                m->base = mmap(NULL, r->length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                close(fd);
                if (m->base == MAP_FAILED) { m->base = NULL; return NULL; }
                m->rkey = rkey;
                m->slot = slot;
                m->addr = r->addr;
                m->length = r->length;
                break;
            }
        }
    }
    if (!m || addr < m->addr || addr + len > m->addr + m->length) return NULL;
    return m->base + (addr - m->addr);
}

static int local_ok(struct ibv_sge *sge)
{
    int i;
    for (i = 0; i < MAX_MR; i++) {
        struct reg_mr *r = &registry->mr[i];
        if (r->live && (r->rkey ^ 0x5a5a) == sge->lkey && sge->addr >= r->addr &&
            sge->addr + sge->length <= r->addr + r->length) return 1;
    }
    return 0;
}

/* In order, 8-byte words whole: what a NIC's DMA into the target does for an aligned row. */
static void copy(uint8_t *dst, const uint8_t *src, uint32_t len)
{
    uint32_t i = 0;
    if ((((uintptr_t)dst | (uintptr_t)src) & 7) == 0) {
        for (; i + 8 <= len; i += 8)
            __atomic_store_n((uint64_t *)(dst + i), *(const uint64_t *)(src + i), __ATOMIC_RELAXED);
    }
    for (; i < len; i++) __atomic_store_n(dst + i, src[i], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static int post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    struct sw_qp *qp = (struct sw_qp *)ibqp;
    int rc = 0;
    pthread_mutex_lock(&lock);
    for (; wr; wr = wr->next) {
        uint32_t len = wr->num_sge ? wr->sg_list[0].length : 0;
        uint64_t seq;
        uint8_t *dst;
        int sig = (wr->send_flags & IBV_SEND_SIGNALED) != 0, inl = (wr->send_flags & IBV_SEND_INLINE) != 0;
        if ((qp->qp.state != IBV_QPS_RTS && qp->qp.state != IBV_QPS_ERR) || wr->opcode != IBV_WR_RDMA_WRITE ||
            wr->num_sge < 0 || wr->num_sge > 1 || (inl && len > qp->max_inline)) { rc = EINVAL; break; }
        if (qp->posted - qp->retired >= qp->max_send_wr) { rc = ENOMEM; break; }
        seq = ++qp->posted;
        posts++;
        signalled += sig;
        inlined += inl;
        zero_length += len == 0;
        if (qp->qp.state == IBV_QPS_ERR) { complete(qp, seq, wr->wr_id, IBV_WC_WR_FLUSH_ERR, 0); continue; }
        if (len && !inl && !local_ok(&wr->sg_list[0])) { complete(qp, seq, wr->wr_id, IBV_WC_LOC_PROT_ERR, 0); continue; }
        if (!connected(qp)) { complete(qp, seq, wr->wr_id, IBV_WC_RETRY_EXC_ERR, 0); continue; }
        if (len) {
            if (!(dst = remote(qp, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr, len))) {
                complete(qp, seq, wr->wr_id, IBV_WC_REM_ACCESS_ERR, 0);
                continue;
            }
            copy(dst, (const uint8_t *)(uintptr_t)wr->sg_list[0].addr, len);
            bytes += len;
        }
        if (sig) complete(qp, seq, wr->wr_id, IBV_WC_SUCCESS, len);
    }
    if (rc) *bad = wr;
    pthread_mutex_unlock(&lock);
    return rc;
}

static int poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
    struct sw_cq *cq = (struct sw_cq *)ibcq;
    int i;
    pthread_mutex_lock(&lock);
    for (i = 0; i < n && cq->count > 0; i++) {
        struct cqe *e = &cq->ring[cq->head];
        wc[i] = e->wc;
        if (e->seq > e->qp->retired) e->qp->retired = e->seq; /* frees its slot and every unsignalled one before */
        cq->head = (cq->head + 1) % cq->size;
        cq->count--;
    }
    pthread_mutex_unlock(&lock);
    return i;
}
