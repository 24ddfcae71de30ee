/* exchange.c -- exchange plans, the exchange codelet and quiet MPI waits (exchange.h). */
#define _GNU_SOURCE
#include "exchange.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "error.h"

enum { EXCHANGE_TAG = 17 };

insdg_xplan *insdg_xplan_create(const insdg_layout *L, int rank, const insdg_pair_halo *pairs, int npairs,
                                const int *pairs_into)
{
  insdg_xplan *x = insdg_calloc(1, sizeof *x);
  x->L = L, x->pair = pairs, x->npairs = npairs, x->pairs_into = pairs_into, x->rank = rank;
  x->b_begin = -1;
  for (int b = 0; b < L->B; ++b)
    if (L->block_rank[b] == rank) {
      if (x->b_begin < 0) x->b_begin = b;
      x->b_end = b + 1;
    }
  /* neighbour ranks: any rank a pair crosses to or from */
  int *slot = insdg_malloc(sizeof(int) * (size_t)L->nranks);
  for (int r = 0; r < L->nranks; ++r) slot[r] = -1;
  for (int p = 0; p < npairs; ++p) {
    const int rs = L->block_rank[pairs[p].src], rd = L->block_rank[pairs[p].dst];
    if (rs == rank && rd != rank) slot[rd] = 0;
    if (rd == rank && rs != rank) slot[rs] = 0;
  }
  x->nbr = insdg_malloc(sizeof(int) * (size_t)(L->nranks + 1));
  for (int r = 0; r < L->nranks; ++r)
    if (slot[r] == 0) slot[r] = x->nnbr, x->nbr[x->nnbr++] = r;
  /* what goes to each neighbour, in pair order; what comes from each, at which offset */
  x->send_start = insdg_calloc((size_t)x->nnbr + 1, sizeof(int));
  x->recv_n = insdg_calloc((size_t)x->nnbr + 1, sizeof(int));
  x->pair_off = insdg_malloc(sizeof(int) * (size_t)(npairs + 1));
  for (int p = 0; p < npairs; ++p) {
    const int rs = L->block_rank[pairs[p].src], rd = L->block_rank[pairs[p].dst];
    x->pair_off[p] = 0;
    if (rs == rank && rd != rank) x->send_start[slot[rd] + 1] += pairs[p].n;
    if (rd == rank && rs != rank) x->pair_off[p] = x->recv_n[slot[rs]], x->recv_n[slot[rs]] += pairs[p].n;
  }
  for (int q = 0; q < x->nnbr; ++q) x->send_start[q + 1] += x->send_start[q], x->recv_total += x->recv_n[q];
  const int nsend = x->send_start[x->nnbr];
  x->send_blk = insdg_malloc(sizeof(int) * (size_t)(nsend + 1));
  x->send_node = insdg_malloc(sizeof(int) * (size_t)(nsend + 1));
  int *at = insdg_malloc(sizeof(int) * (size_t)(x->nnbr + 1));
  for (int q = 0; q < x->nnbr; ++q) at[q] = x->send_start[q];
  for (int p = 0; p < npairs; ++p) {
    const int rs = L->block_rank[pairs[p].src], rd = L->block_rank[pairs[p].dst];
    if (rs != rank || rd == rank) continue;
    for (int k = 0; k < pairs[p].n; ++k)
      x->send_blk[at[slot[rd]]] = pairs[p].src, x->send_node[at[slot[rd]]++] = pairs[p].src_node[k];
  }
  free(at);
  /* the buffers each owned block's halo reads */
  x->dep_start = insdg_calloc((size_t)L->B + 1, sizeof(int));
  x->dep = insdg_malloc(sizeof(int) * (size_t)(npairs + 1));
  x->pair_dep = insdg_malloc(sizeof(int) * (size_t)(npairs + 1));
  int ndep = 0;
  for (int d = 0; d < L->B; ++d) {
    x->dep_start[d] = ndep;
    if (L->block_rank[d] != rank) continue;
    for (int p = pairs_into[d]; p < pairs_into[d + 1]; ++p) {
      const int rs = L->block_rank[pairs[p].src];
      const int code = rs == rank ? pairs[p].src : -(slot[rs] + 1);
      int j = x->dep_start[d];
      while (j < ndep && x->dep[j] != code) ++j;
      if (j == ndep) x->dep[ndep++] = code;
      x->pair_dep[p] = j - x->dep_start[d];
    }
  }
  x->dep_start[L->B] = ndep;
  for (int d = L->B - 1; d >= 0; --d)   /* blocks of other ranks: empty ranges */
    if (L->block_rank[d] != rank) x->dep_start[d] = x->dep_start[d + 1];
  free(slot);
  return x;
}

void insdg_xplan_destroy(insdg_xplan *x)
{
  if (!x) return;
  free(x->nbr), free(x->send_start), free(x->send_blk), free(x->send_node), free(x->recv_n);
  free(x->dep_start), free(x->dep), free(x->pair_dep), free(x->pair_off);
  free(x);
}

starpu_data_handle_t *insdg_xplan_recv_create(const insdg_xplan *x, double ***mem)
{
  starpu_data_handle_t *h = insdg_calloc((size_t)x->nnbr + 1, sizeof(starpu_data_handle_t));
  *mem = insdg_calloc((size_t)x->nnbr + 1, sizeof(double *));
  for (int q = 0; q < x->nnbr; ++q) {
    const int n = x->recv_n[q] > 0 ? x->recv_n[q] : 1;
    (*mem)[q] = insdg_calloc((size_t)n, sizeof(double));
    starpu_vector_data_register(&h[q], STARPU_MAIN_RAM, (uintptr_t)(*mem)[q], (uint32_t)n, sizeof(double));
  }
  return h;
}

void insdg_xplan_recv_destroy(const insdg_xplan *x, starpu_data_handle_t *h, double **mem)
{
  if (!h) return;
  for (int q = 0; q < x->nnbr; ++q) insdg_runtime_unregister(h[q]), free(mem[q]);
  free(h), free(mem);
}

int insdg_xplan_halo_descr(const insdg_xplan *x, int d, starpu_data_handle_t *blocks, starpu_data_handle_t *recv,
                           struct starpu_data_descr *descr, enum starpu_data_access_mode mode)
{
  int n = 0;
  for (int j = x->dep_start[d]; j < x->dep_start[d + 1]; ++j) {
    const int code = x->dep[j];
    descr[n++] = (struct starpu_data_descr){code >= 0 ? blocks[code] : recv[-code - 1], mode};
  }
  return n;
}

void insdg_xplan_gather(const insdg_xplan *x, int d, void *buffers[], int first, double *h)
{
  for (int p = x->pairs_into[d]; p < x->pairs_into[d + 1]; ++p) {
    const insdg_pair_halo *pr = &x->pair[p];
    const double *src = (const double *)STARPU_VECTOR_GET_PTR(buffers[first + x->pair_dep[p]]);
    double *dst = h + pr->dst_offset;
    if (x->dep[x->dep_start[d] + x->pair_dep[p]] >= 0)
      for (int k = 0; k < pr->n; ++k) dst[k] = src[pr->src_node[k]];
    else
      memcpy(dst, src + x->pair_off[p], sizeof(double) * (size_t)pr->n);
  }
}

/* ---- quiet waits and per-thread scratch ---------------------------------------------- */
static atomic_llong wait_ns;

static long long now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void insdg_mpi_wait_quietly(int n, MPI_Request *req)
{
  static __thread int slack_set = 0;
  if (!slack_set) prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0), slack_set = 1;   /* 1 us, not 50 */
  const long long t0 = now_ns();
  for (long long t = t0;; t = now_ns()) {
    int done = 0;
    MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
    if (done) break;
    if (t - t0 > 20000) nanosleep(&(struct timespec){0, t - t0 < 2000000 ? 3000 : 50000}, NULL);
  }
  atomic_fetch_add_explicit(&wait_ns, now_ns() - t0, memory_order_relaxed);
}

double insdg_mpi_wait_seconds(void) { return 1e-9 * (double)atomic_load(&wait_ns); }

/* this thread's buffer `slot` of at least `bytes` (grown by half again, never shrunk) */
enum { NSLOTS = 6, SLOT_DESCR = 4, SLOT_IFACES = 5 };
static void *thread_buffer(int slot, size_t bytes)
{
  static __thread void *buf[NSLOTS];
  static __thread size_t cap[NSLOTS];
  if (cap[slot] < bytes) {
    free(buf[slot]);
    cap[slot] = bytes + bytes / 2 + 128;
    buf[slot] = insdg_malloc(cap[slot]);
  }
  return buf[slot];
}

double *insdg_thread_scratch(int slot, size_t n)
{
  INSDG_CHECK(slot >= 0 && slot < SLOT_DESCR);
  return thread_buffer(slot, sizeof(double) * n);
}

struct starpu_data_descr *insdg_thread_scratch_descr(int n)
{
  return thread_buffer(SLOT_DESCR, sizeof(struct starpu_data_descr) * (size_t)n);
}

void **insdg_thread_scratch_interfaces(int n) { return thread_buffer(SLOT_IFACES, sizeof(void *) * (size_t)n); }

/* ---- the exchange codelets ---------------------------------------------------------------
 * exchange: [token] [nf x own blocks] [nf x nnbr receive buffers], all in one task;
 * exchange_post: [token] [nf x own blocks]: receives posted, sends packed and posted;
 * exchange_finish: [token] [nf x nnbr receive buffers]: waits, unpacks.
 * Every one of them holds the communication token, so this rank's MPI tasks run one at a
 * time in submission order and a post is always followed by its finish before any other:
 * the messages in flight live here between the two, not in a worker's scratch (the finish
 * may run on another worker). */
typedef struct {
  const insdg_xplan *x;
  int nf;
} exchange_args;

static struct {
  double *sbuf, *rbuf;
  size_t scap, rcap;
  MPI_Request *req;
  int reqcap;
} flight;

static void *grow(void *p, size_t *cap, size_t bytes)
{
  if (*cap >= bytes) return p;
  free(p);
  *cap = bytes + bytes / 2 + 128;
  return insdg_malloc(*cap);
}

static void exchange_post(const exchange_args *a, void *const *blocks)
{
  const insdg_xplan *x = a->x;
  const int nf = a->nf, nq = x->nnbr;
  const int nsend = x->send_start[nq];
  flight.sbuf = grow(flight.sbuf, &flight.scap, sizeof(double) * ((size_t)nf * nsend + 1));
  flight.rbuf = grow(flight.rbuf, &flight.rcap, sizeof(double) * ((size_t)nf * x->recv_total + 1));
  if (flight.reqcap < 2 * nq) free(flight.req), flight.reqcap = 2 * nq, flight.req = insdg_malloc(sizeof(MPI_Request) * (size_t)(2 * nq));
  const MPI_Comm comm = insdg_runtime_task_comm();
  for (int q = 0, off = 0; q < nq; off += nf * x->recv_n[q++])
    MPI_Irecv(flight.rbuf + off, nf * x->recv_n[q], MPI_DOUBLE, x->nbr[q], EXCHANGE_TAG, comm, &flight.req[q]);
  const int nb = x->b_end - x->b_begin;
  for (int q = 0; q < nq; ++q) {
    const int s0 = x->send_start[q], n = x->send_start[q + 1] - s0;
    double *out = flight.sbuf + (size_t)nf * s0;
    for (int f = 0; f < nf; ++f)
      for (int i = 0; i < n; ++i) {
        const double *blk = (const double *)STARPU_VECTOR_GET_PTR(blocks[f * nb + x->send_blk[s0 + i] - x->b_begin]);
        out[(size_t)f * n + i] = blk[x->send_node[s0 + i]];
      }
    MPI_Isend(out, nf * n, MPI_DOUBLE, x->nbr[q], EXCHANGE_TAG, comm, &flight.req[nq + q]);
  }
}

static void exchange_finish(const exchange_args *a, void *const *recv)
{
  const insdg_xplan *x = a->x;
  const int nf = a->nf, nq = x->nnbr;
  insdg_mpi_wait_quietly(2 * nq, flight.req);
  for (int q = 0, off = 0; q < nq; off += nf * x->recv_n[q++])
    for (int f = 0; f < nf; ++f)
      memcpy((double *)STARPU_VECTOR_GET_PTR(recv[f * nq + q]), flight.rbuf + off + (size_t)f * x->recv_n[q],
             sizeof(double) * (size_t)x->recv_n[q]);
}

int insdg_xplan_in_task(const insdg_xplan *x) { return x && x->nnbr > 0 && x->b_end - x->b_begin == 1; }

void insdg_xplan_post_in_task(const insdg_xplan *x, int nf, void *const *own)
{
  INSDG_CHECK(insdg_xplan_in_task(x));
  exchange_post(&(exchange_args){x, nf}, own);
}

void insdg_xplan_finish_in_task(const insdg_xplan *x, int d, int nf, void *buffers[], int first)
{
  const int nq = x->nnbr, ndeps = insdg_xplan_ndeps(x, d);
  insdg_mpi_wait_quietly(2 * nq, flight.req);
  for (int j = 0; j < ndeps; ++j) {
    const int code = x->dep[x->dep_start[d] + j];
    INSDG_CHECK(code < 0);   /* one block on this rank: every halo buffer is received */
    const int q = -code - 1;
    size_t off = 0;
    for (int r = 0; r < q; ++r) off += (size_t)nf * x->recv_n[r];
    for (int f = 0; f < nf; ++f)
      memcpy((double *)STARPU_VECTOR_GET_PTR(buffers[first + f * ndeps + j]), flight.rbuf + off + (size_t)f * x->recv_n[q],
             sizeof(double) * (size_t)x->recv_n[q]);
  }
}

static void exchange_cpu(void *buffers[], void *cl_arg)
{
  exchange_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  exchange_post(&a, buffers + 1);
  exchange_finish(&a, buffers + 1 + a.nf * (a.x->b_end - a.x->b_begin));
}

static void exchange_post_cpu(void *buffers[], void *cl_arg)
{
  exchange_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  exchange_post(&a, buffers + 1);
}

static void exchange_finish_cpu(void *buffers[], void *cl_arg)
{
  exchange_args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  exchange_finish(&a, buffers + 1);
}

static struct starpu_codelet exchange_cl = {
    .cpu_funcs = {exchange_cpu}, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_exchange"};
static struct starpu_codelet exchange_post_cl = {
    .cpu_funcs = {exchange_post_cpu}, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_exchange_post"};
static struct starpu_codelet exchange_finish_cl = {
    .cpu_funcs = {exchange_finish_cpu}, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "insdg_exchange_finish"};

/* the token, then the own blocks' handles (R) when blocks, then the receive buffers (W)
   when recv; priority: the posts and whole exchanges go first, the finishes when their
   turn comes (what was submitted between the post and the finish runs meanwhile) */
static void submit(struct starpu_codelet *cl, const insdg_xplan *x, int nf, starpu_data_handle_t *const *blocks,
                   starpu_data_handle_t *const *recv)
{
  if (x->nnbr == 0) return;
  const int nb = x->b_end - x->b_begin, nd = 1 + nf * ((blocks ? nb : 0) + (recv ? x->nnbr : 0));
  struct starpu_data_descr *d = insdg_thread_scratch_descr(nd);
  int n = 0;
  d[n++] = (struct starpu_data_descr){insdg_runtime_comm_token(), STARPU_RW};
  for (int f = 0; f < nf && blocks; ++f)
    for (int b = x->b_begin; b < x->b_end; ++b) d[n++] = (struct starpu_data_descr){blocks[f][b], STARPU_R};
  for (int f = 0; f < nf && recv; ++f)
    for (int q = 0; q < x->nnbr; ++q) d[n++] = (struct starpu_data_descr){recv[f][q], STARPU_W};
  exchange_args a = {x, nf};
  INSDG_CHECK(INSDG_TASK_INSERT(cl, STARPU_DATA_MODE_ARRAY, d, nd, STARPU_VALUE, &a, sizeof a, STARPU_PRIORITY,
                                cl == &exchange_finish_cl ? STARPU_DEFAULT_PRIO : STARPU_MAX_PRIO, 0) == 0);
}

void insdg_task_exchange(const insdg_xplan *x, int nf, starpu_data_handle_t *const *blocks,
                         starpu_data_handle_t *const *recv)
{
  submit(&exchange_cl, x, nf, blocks, recv);
}

void insdg_task_exchange_post(const insdg_xplan *x, int nf, starpu_data_handle_t *const *blocks)
{
  submit(&exchange_post_cl, x, nf, blocks, NULL);
}

void insdg_task_exchange_finish(const insdg_xplan *x, int nf, starpu_data_handle_t *const *recv)
{
  submit(&exchange_finish_cl, x, nf, NULL, recv);
}
