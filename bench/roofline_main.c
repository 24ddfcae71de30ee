/* bench_roofline -- print this CPU's empirical single-core roofline.
 *
 * Output is "key: value" lines, one quantity per line, so scripts can grep it.
 * Bandwidth uses the STREAM convention (24 B per triad element, no
 * write-allocate); the write-allocate view (32 B) is printed alongside.
 */
#include "roofline.h"

#include <stdio.h>

int main(void)
{
    double t0 = insdg_wtime();
    const char *cpu = insdg_roofline_cpu_name();
    size_t llc = insdg_roofline_llc_bytes();
    size_t arr = insdg_roofline_stream_array_bytes();

    double gbs = insdg_roofline_stream_gbs();
    double gf_auto = insdg_roofline_fma_gflops_autovec();
    double gf_256 = insdg_roofline_fma_gflops_vec256();
    double gf_vec = insdg_roofline_fma_gflops_vec512();
    double gf = gf_256 > gf_vec ? gf_256 : gf_vec;

    printf("cpu: %s\n", cpu);
    printf("threads: 1 (single core)\n");
    printf("llc_MiB: %.1f\n", (double)llc / 1048576.0);
    printf("triad_array_MiB: %.1f (x3)\n", (double)arr / 1048576.0);
    printf("stream_triad_GBs: %.2f (24 B/elem, STREAM convention)\n", gbs);
    printf("stream_triad_GBs_write_allocate: %.2f (32 B/elem)\n", gbs * 32.0 / 24.0);
    printf("fma_autovec_GFLOPs: %.2f (the compiler's auto-vectoriser, default vector width)\n", gf_auto);
    printf("fma_vec256_GFLOPs: %.2f (the larger of that and 32-byte vector types)\n", gf_256);
    printf("fma_vec512_GFLOPs: %.2f (64-byte vector types)\n", gf_vec);
    printf("peak_GFLOPs: %.2f\n", gf);
    printf("ridge_flop_per_byte: %.2f\n", gbs > 0.0 ? gf / gbs : 0.0);
    printf("ridge_autovec_flop_per_byte: %.2f\n", gbs > 0.0 ? gf_auto / gbs : 0.0);
    printf("checksum: %.6e\n", insdg_roofline_checksum());
    printf("probe_seconds: %.2f\n", insdg_wtime() - t0);
    return gbs > 0.0 && gf > 0.0 ? 0 : 1;
}
