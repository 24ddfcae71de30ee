/* starpu_gpu.c -- device copies and scratch of the StarPU GPU codelets (starpu_gpu.h). */
#include "starpu_gpu.h"

#include "exchange.h"

#ifdef INSDG_STARPU_GPU

#ifdef INSDG_STARPU_HIP
#include <starpu_hip.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "partition.h"

enum { KIND_STATIC, KIND_REF, KIND_BLOCK };

typedef struct entry {
  int kind, device;
  const void *host;
  size_t bytes;
  void *dev;                /* KIND_STATIC: the copy */
  insdg_gpu_ref ref;        /* KIND_REF */
  insdg_gpu_block block;    /* KIND_BLOCK */
  struct entry *next;
} entry;

static entry *cache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
  void *ptr;
  size_t bytes;
  int device;
} scratch;
static scratch scratch_of[STARPU_NMAXWORKERS][INSDG_STARPU_GPU_SLOTS];   /* one worker per thread: no lock */

void insdg_starpu_gpu_check(int rc, const char *what)
{
  if (rc == INSDG_GPU_OK) return;
  fprintf(stderr, "insdg: GPU %s failed: %s (%s)\n", what, insdg_gpu_strerror(rc), insdg_gpu_last_error());
  abort();
}

#if defined INSDG_GPU_CODELETS_ON_CPU
uint32_t insdg_starpu_gpu_where(void) { return STARPU_CPU; }
void *insdg_starpu_gpu_stream(void) { return NULL; }
#elif defined INSDG_STARPU_CUDA
uint32_t insdg_starpu_gpu_where(void) { return starpu_cuda_worker_get_count() > 0 ? STARPU_CUDA : STARPU_CPU; }
void *insdg_starpu_gpu_stream(void) { return (void *)starpu_cuda_get_local_stream(); }
#else
uint32_t insdg_starpu_gpu_where(void) { return starpu_hip_worker_get_count() > 0 ? STARPU_HIP : STARPU_CPU; }
void *insdg_starpu_gpu_stream(void) { return (void *)starpu_hip_get_local_stream(); }
#endif

static int this_device(void) { return starpu_worker_get_devid(starpu_worker_get_id_check()); }

/* the entry of (kind, host, bytes) on this device, created by make() on first use */
static entry *lookup(int kind, const void *host, size_t bytes, void (*make)(entry *))
{
  const int device = this_device();
  pthread_mutex_lock(&cache_lock);
  entry *e = cache;
  while (e && !(e->kind == kind && e->host == host && e->bytes == bytes && e->device == device)) e = e->next;
  if (!e) {
    e = insdg_calloc(1, sizeof *e);
    e->kind = kind, e->host = host, e->bytes = bytes, e->device = device;
    make(e);
    e->next = cache, cache = e;
  }
  pthread_mutex_unlock(&cache_lock);
  return e;
}

static void make_static(entry *e)
{
  insdg_starpu_gpu_check(insdg_gpu_malloc(&e->dev, e->bytes ? e->bytes : 1), "allocation");
  if (e->bytes) insdg_starpu_gpu_check(insdg_gpu_memcpy_h2d(e->dev, e->host, e->bytes), "upload");
}
static void make_ref(entry *e) { insdg_starpu_gpu_check(insdg_gpu_ref_create(e->host, &e->ref), "reference upload"); }
static void make_block(entry *e) { insdg_starpu_gpu_check(insdg_gpu_block_create(e->host, &e->block), "block upload"); }

const void *insdg_starpu_gpu_static(const void *host, size_t bytes)
{
  return host ? lookup(KIND_STATIC, host, bytes, make_static)->dev : NULL;
}

const insdg_gpu_ref *insdg_starpu_gpu_ref(const insdg_ref *ref) { return &lookup(KIND_REF, ref, 0, make_ref)->ref; }

const insdg_gpu_block *insdg_starpu_gpu_block(const insdg_block *b)
{
  return &lookup(KIND_BLOCK, b, 0, make_block)->block;
}

void *insdg_starpu_gpu_scratch(int slot, size_t bytes, void *stream)
{
  INSDG_CHECK(slot >= 0 && slot < INSDG_STARPU_GPU_SLOTS);
  scratch *s = &scratch_of[starpu_worker_get_id_check()][slot];
  if (s->bytes < bytes) {
    insdg_starpu_gpu_check(insdg_gpu_stream_synchronize(stream), "stream synchronisation");
    insdg_starpu_gpu_check(insdg_gpu_free(s->ptr), "free");
    s->ptr = NULL, s->bytes = 0;
    const size_t grown = bytes + bytes / 2;
    insdg_starpu_gpu_check(insdg_gpu_malloc(&s->ptr, grown), "scratch allocation");
    s->bytes = grown, s->device = this_device();
  }
  return s->ptr;
}

void insdg_starpu_gpu_upload(int slot, const double *const *host, int count, size_t n, const double **dev,
                             void *stream)
{
  int present = 0;
  for (int k = 0; k < count; ++k) present += host[k] != NULL;
  for (int k = 0; k < count; ++k) dev[k] = NULL;
  if (!present) return;
  double *buf = insdg_starpu_gpu_scratch(slot, sizeof(double) * n * (size_t)present, stream);
  insdg_starpu_gpu_check(insdg_gpu_stream_synchronize(stream), "stream synchronisation");
  for (int k = 0; k < count; ++k)
    if (host[k]) {
      insdg_starpu_gpu_check(insdg_gpu_memcpy_h2d(buf, host[k], sizeof(double) * n), "boundary data upload");
      dev[k] = buf, buf += n;
    }
}

void insdg_starpu_gpu_gather_halos(const insdg_xplan *x, int d, void *buffers[], int first, double *dst, void *stream)
{
  for (int p = x->pairs_into[d]; p < x->pairs_into[d + 1]; ++p) {
    const insdg_pair_halo *pr = &x->pair[p];
    const double *src = (const double *)STARPU_VECTOR_GET_PTR(buffers[first + x->pair_dep[p]]);
    if (x->dep[x->dep_start[d] + x->pair_dep[p]] >= 0) {   /* a block of this rank: by node */
      const int *idx = insdg_starpu_gpu_static(pr->src_node, sizeof(int) * (size_t)pr->n);
      insdg_starpu_gpu_check(insdg_gpu_pack((size_t)pr->n, idx, src, dst + pr->dst_offset, stream), "halo gather");
    } else {
      insdg_starpu_gpu_check(insdg_gpu_memcpy_d2d(dst + pr->dst_offset, src + x->pair_off[p],
                                                  sizeof(double) * (size_t)pr->n, stream),
                             "halo copy");
    }
  }
}

void insdg_starpu_gpu_release(void)
{
  pthread_mutex_lock(&cache_lock);
  while (cache) {
    entry *e = cache;
    cache = e->next;
    insdg_gpu_set_device(e->device);
    if (e->kind == KIND_STATIC) insdg_gpu_free(e->dev);
    if (e->kind == KIND_REF) insdg_gpu_ref_destroy(&e->ref);
    if (e->kind == KIND_BLOCK) insdg_gpu_block_destroy(&e->block);
    free(e);
  }
  pthread_mutex_unlock(&cache_lock);
  for (int w = 0; w < STARPU_NMAXWORKERS; ++w)
    for (int k = 0; k < INSDG_STARPU_GPU_SLOTS; ++k)
      if (scratch_of[w][k].ptr) {
        insdg_gpu_set_device(scratch_of[w][k].device);
        insdg_gpu_free(scratch_of[w][k].ptr);
        scratch_of[w][k] = (scratch){0};
      }
}

void insdg_starpu_gpu_invalidate(void)
{
  starpu_task_wait_for_all();
  insdg_starpu_gpu_release();
}

#endif /* INSDG_STARPU_GPU */
