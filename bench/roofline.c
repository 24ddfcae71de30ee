/* roofline.c -- empirical single-core CPU roofline probe (see roofline.h).
 *
 * Build with -O3 -march=native (the project default: CMAKE_BUILD_TYPE=Release
 * and INSDG_NATIVE=ON). The FMA loops must compile to packed vfmadd*pd on
 * ymm/zmm registers with the accumulators held in registers; check with
 *   objdump -d --no-show-raw-insn bench/CMakeFiles/insdg_bench_util.dir/roofline.c.o
 * (see bench/CMakeLists.txt for the exact command used).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "roofline.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__)
#define RL_NOINLINE __attribute__((noinline))
#else
#define RL_NOINLINE
#endif

/* Everything measured is folded into this sum, which bench_roofline prints,
 * so the compiler cannot discard any of the work. */
static double g_checksum = 0.0;

double insdg_roofline_checksum(void) { return g_checksum; }

double insdg_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- CPU name --------------------------------------------------------------------- */

const char *insdg_roofline_cpu_name(void)
{
    static char name[256] = "";
    if (name[0] != '\0') return name;
    snprintf(name, sizeof name, "%s", "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return name;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *p = strchr(line, ':');
        if (!p) continue;
        p++;
        while (*p == ' ' || *p == '\t') p++;
        size_t len = strcspn(p, "\r\n");
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, p, len);
        name[len] = '\0';
        break;
    }
    fclose(f);
    return name;
}

/* ---- cache size ------------------------------------------------------------------- */

static size_t sysfs_llc_bytes(void)
{
    /* Largest "size" among /sys/devices/system/cpu/cpu0/cache/index*. */
    size_t best = 0;
    for (int idx = 0; idx < 8; idx++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        unsigned long v = 0;
        char unit = 0;
        int got = fscanf(f, "%lu%c", &v, &unit);
        fclose(f);
        if (got < 1) continue;
        size_t b = (size_t)v;
        if (got == 2 && (unit == 'K' || unit == 'k')) b *= 1024u;
        else if (got == 2 && (unit == 'M' || unit == 'm')) b *= 1024u * 1024u;
        if (b > best) best = b;
    }
    return best;
}

size_t insdg_roofline_llc_bytes(void)
{
    long v = -1;
#ifdef _SC_LEVEL4_CACHE_SIZE
    v = sysconf(_SC_LEVEL4_CACHE_SIZE);
#endif
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (v <= 0) v = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
    if (v <= 0) v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    if (v > 0) return (size_t)v;
    return sysfs_llc_bytes();
}

/* ---- STREAM triad ----------------------------------------------------------------- */

#define RL_MIN_ARRAY_BYTES ((size_t)64 << 20) /* 64 MiB per array at least */
#define RL_MAX_ARRAY_BYTES ((size_t)2 << 30)  /* 2 GiB per array at most */
#define RL_STREAM_REPS 10

size_t insdg_roofline_stream_array_bytes(void)
{
    /* Total footprint (3 arrays) at least 8 x LLC, and every array >= 64 MiB. */
    size_t llc = insdg_roofline_llc_bytes();
    size_t bytes = (8 * llc + 2) / 3;
    if (bytes < RL_MIN_ARRAY_BYTES) bytes = RL_MIN_ARRAY_BYTES;
    if (bytes > RL_MAX_ARRAY_BYTES) bytes = RL_MAX_ARRAY_BYTES;
    size_t align = (size_t)2 << 20; /* whole 2 MiB pages: aligned_alloc needs a multiple */
    return (bytes + align - 1) / align * align;
}

static RL_NOINLINE void triad(size_t n, double *restrict a, const double *restrict b,
                              const double *restrict c, double s)
{
    for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}

#if defined(__GNUC__)
/* The same triad in 32-byte GNU vectors (ymm where the build has AVX), whatever width the
 * vectoriser picks for triad above. The bandwidth is the best of the two: on an AMD Zen 4
 * VM, gcc 12 -march=native, triad's zmm loads and stores streamed 23-25 GB/s and the ymm
 * form 30-32 (bench_roofline, three alternations, 2026-12-06), so the zmm triad alone put
 * the memory roof a quarter too low and every memory-bound row of bench_ops that much too
 * close to it. */
typedef double rl_t4 __attribute__((vector_size(32)));
static RL_NOINLINE void triad_v4(size_t n, double *restrict a, const double *restrict b,
                                 const double *restrict c, double s)
{
    const rl_t4 vs = (rl_t4){0} + s;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) *(rl_t4 *)(a + i) = *(const rl_t4 *)(b + i) + vs * *(const rl_t4 *)(c + i);
    for (; i < n; i++) a[i] = b[i] + s * c[i];
}
#endif

struct insdg_roofline_probe {
    double *a, *b, *c;                     /* the triad's arrays, touched */
    size_t n;
    double s;                              /* the triad's scalar, moved each pass */
    double (*fma)(long, double, double);   /* the FMA kernel that ran fastest */
    long fmas_per_iter;
};

insdg_roofline_probe *insdg_roofline_probe_create(void)
{
    const size_t bytes = insdg_roofline_stream_array_bytes();
    const size_t align = (size_t)2 << 20;
    insdg_roofline_probe *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = bytes / sizeof(double);
    p->a = aligned_alloc(align, bytes);
    p->b = aligned_alloc(align, bytes);
    p->c = aligned_alloc(align, bytes);
    if (!p->a || !p->b || !p->c) {
        fprintf(stderr, "roofline: cannot allocate 3 x %zu bytes\n", bytes);
        insdg_roofline_probe_destroy(p);
        return NULL;
    }
    /* First touch here, so page faults are not timed. */
    for (size_t i = 0; i < p->n; i++) {
        p->a[i] = 0.0;
        p->b[i] = 1.0 + 1e-9 * (double)(i & 1023);
        p->c[i] = 2.0;
    }
    p->s = 3.0;
    p->fma = NULL; /* chosen on the first insdg_roofline_probe_fma_gflops */
    return p;
}

void insdg_roofline_probe_destroy(insdg_roofline_probe *p)
{
    if (!p) return;
    if (p->a) {
        double sum = 0.0;
        for (size_t i = 0; i < p->n; i += 4096) sum += p->a[i];
        g_checksum += sum;
    }
    free(p->a);
    free(p->b);
    free(p->c);
    free(p);
}

/* one pass of a triad form; 24 B/element: read b, read c, write a (STREAM convention, no
   write-allocate) */
static double stream_pass(insdg_roofline_probe *p,
                          void (*form)(size_t, double *restrict, const double *restrict, const double *restrict, double))
{
    double t0 = insdg_wtime();
    form(p->n, p->a, p->b, p->c, p->s);
    double t = insdg_wtime() - t0;
    g_checksum += p->a[(size_t)(p->s * 1e3) * 7919u % p->n];
    p->s += 1e-3;
    return 24.0 * (double)p->n / t * 1e-9;
}

double insdg_roofline_probe_stream_gbs(insdg_roofline_probe *p)
{
    double gbs = stream_pass(p, triad);
#if defined(__GNUC__)
    gbs = fmax(gbs, stream_pass(p, triad_v4));
#endif
    return gbs;
}

double insdg_roofline_stream_gbs(void)
{
    insdg_roofline_probe *p = insdg_roofline_probe_create();
    if (!p) return 0.0;
    double best = 0.0;
    for (int r = 0; r < RL_STREAM_REPS; r++) {
        double gbs = insdg_roofline_probe_stream_gbs(p);
        if (r > 0 && gbs > best) best = gbs; /* rep 0 is a warm-up, as in STREAM */
    }
    insdg_roofline_probe_destroy(p);
    return best;
}

/* ---- FMA peak --------------------------------------------------------------------- */

/* 64 independent accumulation chains acc = acc*x + y per iteration:
 *   autovec: 16 ymm (AVX2/AVX-512 with 256-bit preference) or 8 zmm registers;
 *   vec512 : 16 x 64-byte vectors = 16 zmm (or 32 ymm on AVX2, which spill a
 *            little but the 64-chain form already saturates 2 FMA ports).
 * FMA latency 4 cycles x 2 ports needs >= 8 chains in flight; we give 16
 * (vec512) or 16/8 (autovec). x < 1 keeps every chain bounded: its fixed
 * point is y/(1-x) = 1, so no overflow or denormals. */
#define RL_FMA_NAUTO 64
#define RL_FMA_ITERS 40000000L
#define RL_FMA_REPS 5

/* fma() is inlined as vfmadd only when the target has FMA; elsewhere it is a
 * libm call per element, so fall back to multiply + add (still 2 flops). */
#if defined(__FMA__) || defined(__FMA4__)
#define RL_FMA(a, x, y) fma((a), (x), (y))
#else
#define RL_FMA(a, x, y) ((a) * (x) + (y))
#endif

static RL_NOINLINE double fma_autovec(long iters, double x, double y)
{
    double acc[RL_FMA_NAUTO];
    for (int l = 0; l < RL_FMA_NAUTO; l++) acc[l] = 1.0 + 1e-3 * l;
    /* No unroll pragma: gcc vectorises the inner loop and then unrolls it
     * completely, keeping the 64 doubles in registers (a "#pragma GCC unroll"
     * here makes gcc scalarise it instead). */
    for (long it = 0; it < iters; it++)
        for (int l = 0; l < RL_FMA_NAUTO; l++) acc[l] = RL_FMA(acc[l], x, y);
    double s = 0.0;
    for (int l = 0; l < RL_FMA_NAUTO; l++) s += acc[l];
    return s;
}

#if defined(__GNUC__)
/* NVEC independent chains acc = acc*x + y of LANES-double GNU vectors: a probe for one vector
 * width, not left to the auto-vectoriser. acc * vx + vy is one expression, which clang
 * contracts to a multiply-add by default (-ffp-contract=on) and gcc with its (fast). */
#define RL_VEC_PROBE(name, vtype, LANES, NVEC)                                                \
    typedef double vtype __attribute__((vector_size(8 * (LANES))));                          \
    static RL_NOINLINE double name(long iters, double x, double y)                           \
    {                                                                                         \
        vtype acc[NVEC];                                                                      \
        for (int v = 0; v < (NVEC); v++)                                                      \
            for (int l = 0; l < (LANES); l++) acc[v][l] = 1.0 + 1e-3 * ((LANES) * v + l);      \
        const vtype vx = (vtype){0} + x, vy = (vtype){0} + y;                                 \
        for (long it = 0; it < iters; it++) {                                                 \
            _Pragma("GCC unroll 16") for (int v = 0; v < (NVEC); v++) acc[v] = acc[v] * vx + vy; \
        }                                                                                     \
        double s = 0.0;                                                                       \
        for (int v = 0; v < (NVEC); v++)                                                      \
            for (int l = 0; l < (LANES); l++) s += acc[v][l];                                 \
        return s;                                                                             \
    }

/* 16 chains of 64-byte vectors: 16 zmm with AVX-512F (two ymm each otherwise, which spill) */
#define RL_NVEC 16
RL_VEC_PROBE(fma_vec512, rl_v8d, 8, RL_NVEC)
#define RL_FMA_PER_ITER_VEC (RL_NVEC * 8)

/* The 256-bit peak without the auto-vectoriser: 12 chains of 32-byte vectors (12 ymm
 * accumulators + x and y in 16 registers; latency 4 x 2 pipes needs >= 8). On AVX2 gcc's
 * vectorised fma_autovec holds 15 of its 16 ymm chains in registers and reloads the 16th from
 * the stack every iteration (45.6 GFLOP/s against this probe's 51.3 on a Zen 3); clang 14
 * leaves its fma() calls scalar (13-17) and spills the 64-byte vectors (21): without this
 * probe the roof was 11% low with gcc and half the peak with clang. */
#define RL_NVEC4 12
RL_VEC_PROBE(fma_vec256, rl_v4d, 4, RL_NVEC4)
#define RL_FMA_PER_ITER_VEC4 (RL_NVEC4 * 4)
#endif

#if defined(__GNUC__) && !defined(__FMA__) && !defined(__FMA4__)
/* Without FMA instructions, code that multiplies and adds (the kernels of a build that is
 * not -march=native) runs at most one multiply and one add per lane and cycle on separate
 * pipes. The chain acc = acc*x + y above has a multiply then an add on its critical path,
 * and its 64 lanes do not fit in the 16 xmm registers of SSE2: both halve the rate. Here
 * the multiplies and the adds are separate chains (RL_NSPLIT of each), 16-byte vectors,
 * all in registers, with the 2 flops of a multiply-add counted per multiply and add pair.
 * x < 1 and y tiny keep the values bounded. */
typedef double rl_v2d __attribute__((vector_size(16)));
#define RL_NSPLIT 6 /* 12 accumulators + x, y in 16 xmm; latency 3-4 x 2 pipes needs >= 6 */
static RL_NOINLINE double mul_add_split(long iters, double x, double y)
{
    rl_v2d m[RL_NSPLIT], a[RL_NSPLIT];
    for (int v = 0; v < RL_NSPLIT; v++) {
        m[v] = (rl_v2d){1.0 + 1e-3 * v, 1.0 - 1e-3 * v};
        a[v] = (rl_v2d){1e-3 * v, 2e-3 * v};
    }
    const rl_v2d vx = {x, x}, vy = {y, y};
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 6
        for (int v = 0; v < RL_NSPLIT; v++) m[v] = m[v] * vx, a[v] = a[v] + vy;
    }
    double s = 0.0;
    for (int v = 0; v < RL_NSPLIT; v++) s += m[v][0] + m[v][1] + a[v][0] + a[v][1];
    return s;
}
#define RL_HAVE_SPLIT 1
#define RL_FMA_PER_ITER_SPLIT (RL_NSPLIT * 2) /* multiply-add pairs of 2 lanes */
#endif

static double best_gflops(double (*kern)(long, double, double), long fmas_per_iter)
{
    /* volatile: x and y are unknown at compile time. */
    volatile double vx = 0.999999, vy = 1e-6;
    double x = vx, y = vy;
    double best = 1e300;
    (void)kern(RL_FMA_ITERS / 10, x, y); /* warm-up: let the clock ramp */
    for (int r = 0; r < RL_FMA_REPS; r++) {
        double t0 = insdg_wtime();
        double s = kern(RL_FMA_ITERS, x, y);
        double t = insdg_wtime() - t0;
        g_checksum += s;
        if (t < best) best = t;
    }
    return 2.0 * (double)fmas_per_iter * (double)RL_FMA_ITERS / best * 1e-9;
}

double insdg_roofline_fma_gflops_autovec(void)
{
    return best_gflops(fma_autovec, RL_FMA_NAUTO);
}

double insdg_roofline_fma_gflops_vec256(void)
{
#if defined(__GNUC__)
    const double v = best_gflops(fma_vec256, RL_FMA_PER_ITER_VEC4);
    const double a = insdg_roofline_fma_gflops_autovec();
    return v > a ? v : a;
#else
    return insdg_roofline_fma_gflops_autovec();
#endif
}

double insdg_roofline_fma_gflops_vec512(void)
{
#if defined(__GNUC__)
    return best_gflops(fma_vec512, RL_FMA_PER_ITER_VEC);
#else
    return insdg_roofline_fma_gflops_autovec();
#endif
}

typedef double (*rl_fma_kernel)(long, double, double);

/* the fastest of the FMA probes: its rate, and (kern, per_iter) */
static double fastest_fma(rl_fma_kernel *kern, long *per_iter)
{
    double best = best_gflops(fma_autovec, RL_FMA_NAUTO);
    *kern = fma_autovec, *per_iter = RL_FMA_NAUTO;
#if defined(__GNUC__)
#if defined(__AVX512F__) || !(defined(__x86_64__) || defined(__i386__))
    /* (on x86 without AVX-512 the 64-byte vectors are two ymm each and spill: a tenth of
       the peak, and ~10 s of bench_ops' start on an AVX2 Zen 3) */
    double v = best_gflops(fma_vec512, RL_FMA_PER_ITER_VEC);
    if (v > best) best = v, *kern = fma_vec512, *per_iter = RL_FMA_PER_ITER_VEC;
#endif
    double v4 = best_gflops(fma_vec256, RL_FMA_PER_ITER_VEC4);
    if (v4 > best) best = v4, *kern = fma_vec256, *per_iter = RL_FMA_PER_ITER_VEC4;
#endif
#ifdef RL_HAVE_SPLIT
    double c = best_gflops(mul_add_split, RL_FMA_PER_ITER_SPLIT);
    if (c > best) best = c, *kern = mul_add_split, *per_iter = RL_FMA_PER_ITER_SPLIT;
#endif
    return best;
}

double insdg_roofline_fma_gflops(void)
{
    rl_fma_kernel kern;
    long per_iter;
    return fastest_fma(&kern, &per_iter);
}

double insdg_roofline_probe_fma_gflops(insdg_roofline_probe *p)
{
    if (!p->fma) (void)fastest_fma(&p->fma, &p->fmas_per_iter);
    volatile double vx = 0.999999, vy = 1e-6;
    const long iters = RL_FMA_ITERS / 20; /* ~10 ms */
    double t0 = insdg_wtime();
    g_checksum += p->fma(iters, vx, vy);
    double t = insdg_wtime() - t0;
    return 2.0 * (double)p->fmas_per_iter * (double)iters / t * 1e-9;
}
