/* Accessors return unsigned long long so that one FFM descriptor reads them all.
 * A test double for the verbs hot path: a fake ibv_context whose ops table holds this library's own post_send and
 * poll_cq. They record what they receive (work request, scatter-gather entry) and hand back queued completions, so
 * VerbsDispatchTest can drive Weft's ops-table dispatch without an RDMA device. Built in test scope only. */
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

static struct ibv_context context;
static struct ibv_qp qp;
static struct ibv_cq cq;
static struct ibv_send_wr last_wr;
static struct ibv_sge last_sge;
static int posts;
static unsigned long long completed[64];
static int completions;

static int double_post_send(struct ibv_qp *q, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    if (q != &qp) { *bad = wr; return 22; }
    for (; wr; wr = wr->next) {
        last_wr = *wr;
        if (wr->num_sge > 0) last_sge = wr->sg_list[0];
        posts++;
        if ((wr->send_flags & IBV_SEND_SIGNALED) && completions < 64) completed[completions++] = wr->wr_id;
    }
    return 0;
}

static int double_poll_cq(struct ibv_cq *c, int n, struct ibv_wc *wc)
{
    int i = 0;
    if (c != &cq) return -1;
    for (; i < n && i < completions; i++) {
        memset(&wc[i], 0, sizeof(wc[i]));
        wc[i].wr_id = completed[i];
        wc[i].status = IBV_WC_SUCCESS;
        wc[i].opcode = IBV_WC_RDMA_WRITE;
    }
    memmove(completed, completed + i, (completions - i) * sizeof(completed[0]));
    completions -= i;
    return i;
}

struct ibv_qp *double_qp(void)
{
    context.ops.post_send = double_post_send;
    context.ops.poll_cq = double_poll_cq;
    qp.context = &context;
    cq.context = &context;
    return &qp;
}

struct ibv_cq *double_cq(void) { return &cq; }
unsigned long long double_posts(void) { return (unsigned long long)(posts); }
unsigned long long double_wr_id(void) { return (unsigned long long)(last_wr.wr_id); }
unsigned long long double_opcode(void) { return (unsigned long long)(last_wr.opcode); }
unsigned long long double_send_flags(void) { return (unsigned long long)(last_wr.send_flags); }
unsigned long long double_num_sge(void) { return (unsigned long long)(last_wr.num_sge); }
unsigned long long double_remote_addr(void) { return (unsigned long long)(last_wr.wr.rdma.remote_addr); }
unsigned long long double_rkey(void) { return (unsigned long long)(last_wr.wr.rdma.rkey); }
unsigned long long double_sge_addr(void) { return (unsigned long long)(last_sge.addr); }
unsigned long long double_sge_length(void) { return (unsigned long long)(last_sge.length); }
unsigned long long double_sge_lkey(void) { return (unsigned long long)(last_sge.lkey); }
