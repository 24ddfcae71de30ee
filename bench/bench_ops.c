/* bench_ops.c -- CPU operator benchmark against this core's empirical roofline.
 *
 * For N = 1..10 on a jittered rectangle of at least 20 000 triangles, and enough of them
 * that the fields are at least 4x the last-level cache (so that stream bandwidth, not
 * cache bandwidth, is the right memory bound), in one block on one thread (the unit of
 * work a StarPU task will run), each operator of ops.h is timed
 * (best of several repetitions, each long enough to be well above timer resolution)
 * and reported as GFLOP/s and GB/s beside the roofline bound
 *     bound = min(FMA peak, arithmetic intensity x stream bandwidth)
 * with peak and bandwidth measured by bench/roofline.c on this core: the header's from
 * bench_roofline's full probes at the start; each row's from one stream-triad pass and one
 * FMA run before each of its timed repetitions (five by default; the best of each), so that
 * the row's fraction compares what ran in the same minutes (this VM's bandwidth and clock
 * drift by up to 2x over minutes; the CSV has each row's bandwidth and peak).
 *
 * Flop counts are those of the kernels this build runs for each N (2 per multiply-add; see
 * costs()): ops_kernels.inc's one-element and tile kernels, or ops_group.inc's element groups
 * where insdg_ops_cpu_grouped(N) (N >= 6 with 4- or 8-double vectors); G and SIPDG take one
 * lift product per face where insdg_ops_cpu_lift_faces(N) says so (groups, one-element and
 * register kernels) and two over all faces on tiles. Bytes, for "fraction", are the data the
 * kernel loads and stores as the paper's empirical roofline counts them (D_in + D_out): each
 * field's rows read or written once, the exterior values at the face nodes, the face map once,
 * the boundary codes and geometric factors; operator matrices taken as cached; boundary data
 * (read on boundary faces only) not counted. The exterior values are neighbours' rows, which
 * on a CPU mostly come from cache, so for a memory-bound row that bound is below what the
 * kernel can reach (fractions above 100%). "strict" is the fraction of the compulsory-traffic
 * bound, the same bytes less the exterior values: every field crosses the memory bus once, a
 * true upper bound. Before 2026-11-29 the groups' G and SIPDG flops were counted with two
 * lifts (G's flops 19-21% and SIPDG's 9% too many at N = 6..8), and G's and D's bytes had
 * boundary data on every face and the face map once per field; docs/performance.md, "The
 * roofline's counts". From 2026-12-04 (the one-element G and SIPDG lifting face by face) to
 * 2026-12-05 the one-element G (N <= 5 with vectors) and SIPDG (N = 1 and 5 on AVX2 Zen; N <= 5
 * where the register SIPDG is off) were still counted with two lifts: G's flops 23-33% and
 * SIPDG's 7-12% too many (docs/performance.md, session 46).
 *
 * Usage: bench_ops [--kmin K] [--nmin NMIN] [--nmax NMAX] [--ops LIST] [--csv FILE] [--in-cache]
 *                  [--seconds S] [--repeats R] [--mesh FILE.msh] [--order file|locality] [--lambda L]
 * LIST: comma-separated operator numbers in table order (0 local gradient, 1 G, 2 D, 3 SIPDG,
 * 4 advection volume, 5 advection surface); all by default.
 * --in-cache: K = --kmin elements, not 4x the last-level cache (with a small --kmin, the
 * fields stay in cache: the kernels' cost without the memory's; the bound is still the
 * stream bound). --seconds S: each of the timed repetitions runs for S seconds (0.05 by
 * default; longer for a profiler). --repeats R: R timed repetitions per row (5 by default),
 * each after its own probe pass; on a host whose other tenants slow this core and its memory
 * by up to 2x for seconds at a time (docs/performance.md, 2026-12-03 and 2026-12-04), more
 * repetitions let the best of them, and the bound's, come from a quiet moment.
 * --mesh FILE.msh: the file's mesh, whatever its size, instead of the rectangle: the kernels
 * on a user's mesh, e.g. bench_step's (build/bench_step/square_h0.035.msh).
 * --order locality (the default): the elements in the order insdg run gives a block's
 * elements (insdg_mesh_locality_order, partition.h); --order file: in the rectangle's
 * row-by-row order, or the file's.
 * --lambda L: SIPDG's lambda (1 by default, the velocity's Helmholtz form; 0: the pressure's
 * Poisson form, whose kernel skips the mass matrix's product on lambda u, counted without it).
 * --nbr-shift D (a diagnostic: wrong values, the loads' timing): the register SIPDG (the kernel
 * that reads traces through the block's nbr_row; others prefetch by it) reads, across face f
 * of element e, the row of element e + D (f + 1) / 3 (clamped to the block) instead of the
 * neighbour's: D = 0 reads the element's own row, every trace an L1 hit; D = -48 rows 16, 32
 * and 48 elements back. The rows' distance in the real order is printed per degree ("#
 * neighbour rows"). docs/performance.md, session 47.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "error.h"
#include "gmsh.h"
#include "mesh.h"
#include "ops.h"
#include "partition.h"
#include "roofline.h"

typedef struct {
  const char *name;
  double flops, bytes;   /* per element */
  double cbytes;         /* per element, compulsory: bytes less the exterior values */
} op_cost;

/* per-element costs (see header comment). Flops, 2 per multiply-add, 1 per other operation:
   - G: the local gradient (4 NP^2 + 6 NP); on tiles the jumps and their lift weights (fs nx
     [p] / 2 and fs ny [p] / 2: 7 per face node) and two lift products (12 NP NFP); lifted face
     by face (insdg_ops_cpu_lift_faces bit 1: groups and one-element kernels) the jumps alone
     (1 per face node), one lift product per face (6 NP NFP) and the weighted sums of the three
     faces' lifts (10 NP).
   - SIPDG: M, M Dr, M Ds (6 NP^2; without M, 4 NP^2, when lambda = 0) and M LIFT (6 NP NFP) in
     one product (since 2026-12-02; before, Dr, Ds, LIFT, then M: the same count, and w's sums
     4 per node where lambda u is 1 now); per face node the jumps of u, ux, uy (3), the lift
     weights of [u] (2, one-element and tile kernels), s (11); per node q (8), lambda u (1,
     not when lambda = 0) and J (1); the lift of (fs/2) n [u]: on tiles two products (12 NP
     NFP), or face by face (insdg_ops_cpu_lift_faces bit 2: groups, one-element and register
     kernels) one per face plus the sums (6 NP NFP + 10 NP). The register SIPDG
     (insdg_ops_cpu_sipdg_reg) reads the block's nbr_row and
     nbr_face (13 bytes per element) where the others read the face map (12 NFP); its
     elements with a boundary face or a halo neighbour read the face map too (not counted). */
static void costs(int N, int nc, int nfc, int lift_faces, int sipdg_reg, int lambda0, op_cost c[6])
{
  const double Np = (N + 1) * (N + 2) / 2.0, Nfp = N + 1, Nc = nc, Nfc = nfc;
  const double trace = 3 * Nfp * (8 + 4);     /* exterior value + its face-map entry (advection) */
  const double map = 3 * Nfp * 4;             /* the face map, read once per element */
  const double ext = 3 * Nfp * 8;             /* one field's exterior values */
  const double geo = 8 * INSDG_NVGEO + 8 * 3 * INSDG_NSGEO;
  const double g_lift = lift_faces & 1 ? 6 * Np * Nfp + 10 * Np + 3 * Nfp : 12 * Np * Nfp + 7 * 3 * Nfp;
  const double a_lift = lift_faces & 2 ? 6 * Np * Nfp + 10 * Np : 12 * Np * Nfp + 2 * 3 * Nfp;
  const double lg = 8 * Np + 16 * Np + 8 * INSDG_NVGEO;
  const double gb = 8 * Np + map + 3 + geo + 16 * Np, db = 16 * Np + map + 3 + geo + 8 * Np;
  const double ab = 24 * Np + (sipdg_reg ? 3 * 4 + 1 : map) + 3 + geo + 8 * Np;
  c[0] = (op_cost){"local gradient", 4 * Np * Np + 6 * Np, lg, lg};
  c[1] = (op_cost){"gradient G", 4 * Np * Np + 6 * Np + g_lift, gb + ext, gb};
  c[2] = (op_cost){"divergence D", 4 * Np * Np + 6 * Np + 6 * Np * Nfp + 24 * Nfp, db + 2 * ext, db};
  c[3] = lambda0 ? (op_cost){"SIPDG A (Poisson)", 4 * Np * Np + 6 * Np * Nfp + a_lift + 9 * Np + 14 * 3 * Nfp, ab + 3 * ext, ab}
                  : (op_cost){"SIPDG A", 6 * Np * Np + 6 * Np * Nfp + a_lift + 10 * Np + 14 * 3 * Nfp, ab + 3 * ext, ab};
  /* the advection kernels' bytes as counted since 2026-11-24: the face map per field and the
     boundary data on every face (not revised; not in the lean-step issue's kernel target) */
  const double avb = 32 * Np + 8 * INSDG_NVGEO + 16 * Np, asb = 4 * trace + 4 * 8 * 3 * Nfp + 3 + geo + 32 * Np;
  c[4] = (op_cost){"advection volume", 16 * Nc * Np + 10 * Nc, avb, avb};
  c[5] = (op_cost){"advection surface", 48 * Nfc * Nfp + 60 * Nfc + 12 * Np * Nfc, asb, asb - 4 * ext};
}

typedef struct {
  const insdg_ops *op;
  const insdg_block *b;
  const signed char *bc;
  double *f[8];
  const double *g;
  double lambda;   /* SIPDG's */
} bench_state;

static void run_op(int which, bench_state *s)
{
  insdg_vec_in U = {s->f[0], s->f[1], NULL, NULL, s->g, s->g};
  switch (which) {
    case 0: insdg_op_local_gradient(s->op, s->b, s->f[0], s->f[4], s->f[5]); break;
    case 1: insdg_op_gradient(s->op, s->b, s->bc, s->g, s->f[0], NULL, s->f[4], s->f[5]); break;
    case 2: insdg_op_divergence(s->op, s->b, s->bc, &U, s->f[4]); break;
    case 3: insdg_op_sipdg(s->op, s->b, s->bc, s->lambda, s->f[0], s->f[2], s->f[3], NULL, NULL, NULL, s->f[4]); break;
    case 4: insdg_op_adv_volume(s->op, s->b, s->f[0], s->f[1], s->f[2], s->f[3], s->f[4], s->f[5]); break;
    case 5: insdg_op_adv_surface(s->op, s->b, s->bc, 1.0, &U, &U, s->f[4], s->f[5]); break;
  }
}

/* the best of `repeats` repetitions of `seconds` of calls; before each, one pass of the roofline
   probe (stream triad and FMA), whose best rates are the bound this operator is compared
   with: measured in the same minutes as the operator, on a machine whose speed drifts */
static double time_op(int which, bench_state *s, double seconds, int repeats, insdg_roofline_probe *probe, double *bw,
                      double *peak)
{
  *bw = *peak = 0;
  run_op(which, s);   /* warm up */
  double best = INFINITY;
  for (int rep = 0; rep < repeats; ++rep) {
    *bw = fmax(*bw, insdg_roofline_probe_stream_gbs(probe));
    *peak = fmax(*peak, insdg_roofline_probe_fma_gflops(probe));
    run_op(which, s);   /* the operator's data back in the caches (--in-cache) */
    int calls = 0;
    const double t0 = insdg_wtime();
    double t = t0;
    while (t - t0 < seconds || calls < 2) run_op(which, s), ++calls, t = insdg_wtime();
    best = fmin(best, (t - t0) / calls);
  }
  return best;
}

/* m's elements in locality order (as insdg run orders a block's); m is destroyed */
static insdg_mesh *in_locality_order(insdg_mesh *m)
{
  int *order = insdg_malloc(sizeof(int) * (size_t)m->K);
  insdg_mesh_locality_order(m, order);
  insdg_mesh *r = insdg_mesh_renumber(m, order);
  free(order);
  insdg_mesh_destroy(m);
  return r;
}

/* Print how far, in elements, the rows that nbr_row points at lie from their element (those
   read by the kernels that use nbr_row), and with `shift` point them at e + D (f + 1) / 3
   instead (--nbr-shift: a diagnostic of the traces' load latency; the results are wrong) */
static void nbr_distances(insdg_block *b, int np, int shift, int d)
{
  static const long edge[] = {1, 8, 64, 512, 4096};
  long h[6] = {0}, tot = 0;
  for (int e = 0; e < b->K; ++e) {
    if (b->nbr_face[e] == INSDG_NBR_NONE) continue;
    for (int f = 0; f < 3; ++f) {
      const long dist = labs((long)b->nbr_row[3 * (size_t)e + f] / np - e);
      int k = 0;
      while (k < 5 && dist > edge[k]) ++k;
      ++h[k], ++tot;
      if (shift) {
        long t = e + (long)d * (f + 1) / 3;
        t = t < 0 ? 0 : t >= b->K ? b->K - 1 : t;
        b->nbr_row[3 * (size_t)e + f] = (int)(t * np);
      }
    }
  }
  if (!tot) return;
  printf("# neighbour rows (nbr_row) within 1, 8, 64, 512, 4096 elements, farther: %.1f %.1f %.1f %.1f %.1f %.1f%%%s\n",
         100.0 * h[0] / tot, 100.0 * h[1] / tot, 100.0 * h[2] / tot, 100.0 * h[3] / tot, 100.0 * h[4] / tot,
         100.0 * h[5] / tot, shift ? "; --nbr-shift: rows moved, results wrong" : "");
}

int main(int argc, char **argv)
{
  int kmin = 20000, nmin = 1, nmax = 10, in_cache = 0, locality = 1, repeats = 5;
  double seconds = 0.05, lambda = 1.0;
  int nbr_shift = 0, shift_nbrs = 0;
  const char *csv_path = NULL, *mesh_path = NULL;
  int want[6] = {1, 1, 1, 1, 1, 1};
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--kmin") && i + 1 < argc) kmin = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nmax") && i + 1 < argc) nmax = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nmin") && i + 1 < argc) nmin = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
    else if (!strcmp(argv[i], "--in-cache")) in_cache = 1;
    else if (!strcmp(argv[i], "--mesh") && i + 1 < argc) mesh_path = argv[++i];
    else if (!strcmp(argv[i], "--order") && i + 1 < argc &&
             (!strcmp(argv[i + 1], "file") || !strcmp(argv[i + 1], "locality")))
      locality = !strcmp(argv[++i], "locality");
    else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lambda") && i + 1 < argc) lambda = atof(argv[++i]);
    else if (!strcmp(argv[i], "--nbr-shift") && i + 1 < argc) nbr_shift = atoi(argv[++i]), shift_nbrs = 1;
    else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
      for (int k = 0; k < 6; ++k) want[k] = 0;
      for (const char *p = argv[++i]; *p; ++p)
        if (*p >= '0' && *p <= '5') want[*p - '0'] = 1;
    } else {
      fprintf(stderr, "usage: bench_ops [--kmin K] [--nmin NMIN] [--nmax NMAX<=15] [--ops 0,1,2,3,4,5] [--csv FILE]\n"
                      "                 [--in-cache] [--seconds S] [--repeats R] [--mesh FILE.msh]\n"
                      "                 [--order file|locality] [--lambda L] [--nbr-shift D]\n");
      return 2;
    }
  }
  if (kmin < 2 || nmin < 1 || nmax < nmin || nmax > INSDG_NMAX || !(seconds > 0 && seconds <= 60) ||
      !(lambda >= 0 && lambda < INFINITY) || repeats < 1 || repeats > 1000) {
    fprintf(stderr,
            "bench_ops: --kmin must be >= 2, 1 <= --nmin <= --nmax <= %d, 0 < --seconds <= 60, 1 <= --repeats <= 1000 "
            "and --lambda >= 0\n",
            INSDG_NMAX);
    return 2;
  }
  insdg_mesh *file_mesh = NULL;   /* --mesh: the file's mesh, in --order's element order */
  if (mesh_path) {
    char err[512];
    if (insdg_mesh_read(mesh_path, &file_mesh, err, sizeof err)) {
      fprintf(stderr, "bench_ops: %s\n", err);
      return 1;
    }
    if (locality) file_mesh = in_locality_order(file_mesh);
  }
  const double bw = insdg_roofline_stream_gbs(), peak = insdg_roofline_fma_gflops();
  const double peak_ymm = insdg_roofline_fma_gflops_vec256();
  insdg_roofline_probe *probe = insdg_roofline_probe_create();   /* after the start's: one set of arrays at a time */
  if (!probe) return 1;
  printf("# CPU: %s (one core)\n", insdg_roofline_cpu_name());
  printf("# at the start: stream triad %.2f GB/s, FMA peak %.1f GFLOP/s (%.1f with 256-bit vectors), ridge %.2f "
         "flop/byte; each row's bound: from probes run between its repetitions\n",
         bw, peak, peak_ymm, peak / bw);
  const double llc = (double)insdg_roofline_llc_bytes();
  if (file_mesh)
    printf("# last-level cache %.0f MiB; the mesh of %s (K = %d); one block, one thread\n", llc / 1048576, mesh_path,
           file_mesh->K);
  else if (in_cache)
    printf("# last-level cache %.0f MiB; --in-cache: K >= %d elements (the rectangle's next size up); one block, one "
           "thread\n", llc / 1048576, kmin);
  else
    printf("# last-level cache %.0f MiB; fields sized to >= 4x that; one block, one thread\n", llc / 1048576);
  printf("# elements in %s order\n",
         locality ? "locality (as insdg run orders a block's)" : mesh_path ? "the file's" : "row-by-row");
  {
    int g0 = 0;   /* the degrees on element groups: N >= g0 (insdg_ops_cpu_grouped) */
    for (int N = INSDG_NMAX; N >= 1 && insdg_ops_cpu_grouped(N); --N) g0 = N;
    if (g0)
      printf("# kernels: one element (or tiles) for N < %d, groups of %d elements for N >= %d; flops of each\n", g0,
             insdg_ops_cpu_grouped(g0), g0);
    else printf("# kernels: one element (or tiles) for every N; flops of each\n");
    int r0 = 0, r1 = 0;   /* the degrees of the register SIPDG (insdg_ops_cpu_sipdg_reg) */
    for (int N = 1; N <= INSDG_NMAX; ++N)
      if (insdg_ops_cpu_sipdg_reg(N)) r1 = N, r0 = r0 ? r0 : N;
    if (r0) printf("# SIPDG with an element's values in registers for N = %d..%d\n", r0, r1);
    /* the kernels compiled for 256-bit vectors in an AVX-512 build (ops_cpu_ymm.c), by family */
    static const int fam[3] = {INSDG_OPS_FAM_G, INSDG_OPS_FAM_D, INSDG_OPS_FAM_S};
    static const char *fam_name[3] = {"G", "D", "SIPDG"};
    char ymm[160] = "";
    for (int f = 0; f < 3; ++f) {
      int vw[INSDG_NMAX + 1], vmax = 0;
      char list[64] = "";
      for (int N = 1; N <= INSDG_NMAX; ++N) vw[N] = insdg_ops_cpu_vector_width(N, fam[f]), vmax = vw[N] > vmax ? vw[N] : vmax;
      for (int N = 1; N <= INSDG_NMAX; ++N)
        if (vw[N] < vmax)
          snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", list[0] ? ", " : "", N);
      if (list[0]) snprintf(ymm + strlen(ymm), sizeof ymm - strlen(ymm), "%s%s at N = %s", ymm[0] ? "; " : "", fam_name[f], list);
    }
    if (ymm[0]) printf("# kernels compiled for 256-bit vectors (AVX-512 off): %s\n", ymm);
  }
  printf("%2s %8s  %-18s %10s %9s %8s %8s %9s %9s %9s\n", "N", "K", "operator", "time/elem", "GFLOP/s", "GB/s", "flop/B",
         "bound", "fraction", "strict");
  FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
  if (csv_path && !csv) {
    fprintf(stderr, "bench_ops: cannot write %s\n", csv_path);
    return 2;
  }
  if (csv) fprintf(csv, "N,K,operator,seconds_per_element,gflops,gbs,intensity,bound_gflops,fraction,stream_gbs,peak_gflops,"
                           "fraction_compulsory\n");
  for (int N = nmin; N <= nmax; ++N) {
    insdg_ref *ref = insdg_ref_create(N);
    const double field_bytes = 8.0 * 8 * ref->Np;   /* eight fields per element */
    const double kwant = in_cache ? kmin : fmax(kmin, 4 * llc / field_bytes);
    const int nx = (int)ceil(sqrt(kwant / 2));
    insdg_mesh *m = file_mesh ? file_mesh : insdg_mesh_rectangle(nx, nx, 0.0, 1.0, 0.0, 1.0, 0.2, 11u);
    if (!file_mesh && locality) m = in_locality_order(m);
    insdg_mesh_set_ref(m, ref);
    insdg_ops *op = insdg_ops_create(ref);
    insdg_block *b = insdg_block_create(m, 0, m->K);
    const size_t n = (size_t)m->K * ref->Np, nf = (size_t)m->K * 3 * ref->Nfp;
    bench_state s = {op, b, NULL, {0}, NULL, lambda};
    signed char codes[INSDG_MAX_BOUNDARIES], *bc = insdg_malloc(3 * (size_t)m->K);
    for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = INSDG_BC_DIRICHLET;
    insdg_block_bc_codes(b, codes, bc);
    s.bc = bc;
    nbr_distances(b, ref->Np, shift_nbrs, nbr_shift);
    for (int i = 0; i < 8; ++i) {
      s.f[i] = insdg_malloc(sizeof(double) * n);
      for (size_t k = 0; k < n; ++k) s.f[i][k] = sin(0.001 * (double)k + i);
    }
    double *g = insdg_calloc(nf, sizeof(double));
    s.g = g;
    op_cost c[6];
    costs(N, ref->Ncub, ref->Nfcub, insdg_ops_cpu_lift_faces(N), insdg_ops_cpu_sipdg_reg(N), lambda == 0.0, c);
    for (int k = 0; k < 6; ++k) {
      if (!want[k]) continue;
      double bw, peak;   /* this row's roofline, measured between its repetitions */
      const double t = time_op(k, &s, seconds, repeats, probe, &bw, &peak) / m->K;
      const double gflops = c[k].flops / t * 1e-9, gbs = c[k].bytes / t * 1e-9;
      const double ai = c[k].flops / c[k].bytes, bound = fmin(peak, ai * bw);
      const double cbound = fmin(peak, c[k].flops / c[k].cbytes * bw);   /* the compulsory-traffic bound */
      printf("%2d %8d  %-18s %8.1fns %9.2f %8.2f %8.2f %9.2f %8.1f%% %8.1f%%\n", N, m->K, c[k].name, 1e9 * t, gflops,
             gbs, ai, bound, 100 * gflops / bound, 100 * gflops / cbound);
      if (csv)
        fprintf(csv, "%d,%d,%s,%.6e,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.4f\n", N, m->K, c[k].name, t, gflops, gbs, ai,
                bound, gflops / bound, bw, peak, gflops / cbound);
    }
    fflush(stdout);
    for (int i = 0; i < 8; ++i) free(s.f[i]);
    free(g), free(bc);
    insdg_block_destroy(b);
    insdg_ops_destroy(op);
    insdg_ref_destroy(ref);
    if (m != file_mesh) insdg_mesh_destroy(m);
  }
  insdg_mesh_destroy(file_mesh);
  insdg_roofline_probe_destroy(probe);
  if (csv) fclose(csv);
  return 0;
}
