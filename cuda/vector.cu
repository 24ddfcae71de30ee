// vector.cu -- the N-independent kernels of a time step: vector updates and dot products
// (tasks/vec_tasks.c), the LSERK stage update (tasks/ins.c), the halo pack
// (tasks/ops_tasks.c), the Chebyshev smoothing steps (tasks/pmg.c, src/amg.c) and the
// CSR product of the AMG levels (src/csr.c). Grid-stride loops of 256 threads; every
// elementwise expression is the CPU's.

#include "gpu_common.cuh"

namespace insdg_gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 65535 * 8;

inline int grid_for(size_t n)
{
    const int b = nblocks_for(n, kThreads);
    return b < kMaxBlocks ? b : kMaxBlocks;
}

#define INSDG_GRID_STRIDE(i, n)                                                                   \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

// c = sign * num / den (coefficient() of vec_tasks.c)
__device__ __forceinline__ double coef_value(const insdg_gpu_coef &c)
{
    double v = c.sign;
    if (c.num) v *= *c.num;
    if (c.den) v /= *c.den;
    return v;
}

__global__ void __launch_bounds__(kThreads) axpy_kernel(size_t n, insdg_gpu_coef c, const double *__restrict__ x,
                                                        double *__restrict__ y)
{
    const double cv = coef_value(c);
    INSDG_GRID_STRIDE(i, n) y[i] += cv * x[i];
}

__global__ void __launch_bounds__(kThreads) xpay_kernel(size_t n, const double *__restrict__ x, insdg_gpu_coef c,
                                                        double *__restrict__ y)
{
    const double cv = coef_value(c);
    INSDG_GRID_STRIDE(i, n) y[i] = x[i] + cv * y[i];
}

__global__ void __launch_bounds__(kThreads) axpby_kernel(size_t n, double alpha, const double *__restrict__ x,
                                                         double beta, double *__restrict__ y)
{
    if (beta == 0.0) {  // y may be uninitialised: never read it
        INSDG_GRID_STRIDE(i, n) y[i] = alpha * x[i];
    } else {
        INSDG_GRID_STRIDE(i, n) y[i] = alpha * x[i] + beta * y[i];
    }
}

__global__ void __launch_bounds__(kThreads) copy_kernel(size_t n, const double *__restrict__ x, double *__restrict__ y)
{
    INSDG_GRID_STRIDE(i, n) y[i] = x[i];
}

__global__ void __launch_bounds__(kThreads) sub_kernel(size_t n, const double *__restrict__ a,
                                                       const double *__restrict__ b, double *__restrict__ y)
{
    INSDG_GRID_STRIDE(i, n) y[i] = a[i] - b[i];
}

__global__ void __launch_bounds__(kThreads) jacobi_kernel(size_t n, const double *__restrict__ dinv,
                                                          const double *__restrict__ r, double *__restrict__ z)
{
    INSDG_GRID_STRIDE(i, n) z[i] = dinv[i] * r[i];
}

// element-block Jacobi: z_e = B_e r_e, B [K][Np][Np] row-major per element; one thread per node
__global__ void __launch_bounds__(kThreads) block_jacobi_kernel(size_t n, int Np, const double *__restrict__ B,
                                                                const double *__restrict__ r, double *__restrict__ z)
{
    INSDG_GRID_STRIDE(i, n)
    {
        const size_t e0 = i - i % (size_t)Np;
        const double *row = B + i * (size_t)Np;
        double s = 0;
        for (int j = 0; j < Np; ++j) s += row[j] * r[e0 + j];
        z[i] = s;
    }
}

// LSERK stage: res = alpha rhs + a res (a == 0: res not read), w = b res + 1.0 w, alpha = -dt
__global__ void __launch_bounds__(kThreads) lserk_kernel(size_t n, double a, double b, double alpha,
                                                         const double *__restrict__ rhs, double *__restrict__ res,
                                                         double *__restrict__ w)
{
    INSDG_GRID_STRIDE(i, n)
    {
        const double r = a == 0.0 ? alpha * rhs[i] : alpha * rhs[i] + a * res[i];
        res[i] = r;
        w[i] = b * r + 1.0 * w[i];
    }
}

__global__ void __launch_bounds__(kThreads) pack_kernel(size_t n, const int *__restrict__ idx,
                                                        const double *__restrict__ field, double *__restrict__ buf)
{
    INSDG_GRID_STRIDE(k, n) buf[k] = field[idx[k]];
}

__global__ void __launch_bounds__(kThreads)
cheb_first_kernel(size_t n, int zero_guess, double inv_theta, const double *__restrict__ dinv,
                  const double *__restrict__ b, const double *__restrict__ Ad, double *__restrict__ r,
                  double *__restrict__ d, double *__restrict__ x)
{
    INSDG_GRID_STRIDE(i, n)
    {
        const double ri = zero_guess ? b[i] : b[i] - Ad[i];
        const double di = inv_theta * (dinv[i] * ri);
        r[i] = ri;
        d[i] = di;
        x[i] = zero_guess ? di : x[i] + di;
    }
}

__global__ void __launch_bounds__(kThreads)
cheb_step_kernel(size_t n, double c_r, double c_d, const double *__restrict__ dinv, const double *__restrict__ Ad,
                 double *__restrict__ r, double *__restrict__ d, double *__restrict__ x)
{
    INSDG_GRID_STRIDE(i, n)
    {
        const double ri = r[i] - Ad[i];
        const double di = c_d * d[i] + c_r * (dinv[i] * ri);
        r[i] = ri;
        d[i] = di;
        x[i] += di;
    }
}

// ---- dot products: a fixed grid and a fixed tree, so the result is reproducible ----------
struct DotPtrs {
    const double *x[INSDG_GPU_DOTS_MAX], *y[INSDG_GPU_DOTS_MAX];
};
constexpr int kDotThreads = 256;
static_assert(INSDG_GPU_DOTS_BLOCKS == 256, "dots_final reduces 256 partials with 256 threads");

__device__ __forceinline__ double block_sum(double v, double *s)
{
    const int t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (int h = kDotThreads / 2; h > 0; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        __syncthreads();
    }
    const double total = s[0];
    __syncthreads();  // s is reused by the caller's next component
    return total;
}

__global__ void __launch_bounds__(kDotThreads) dots_partial(size_t n, int ndots, DotPtrs p, double *__restrict__ work)
{
    __shared__ double s[kDotThreads];
    for (int k = 0; k < ndots; ++k) {
        const double *__restrict__ x = p.x[k], *__restrict__ y = p.y[k];
        double sum = 0.0;
        for (size_t i = (size_t)blockIdx.x * kDotThreads + threadIdx.x; i < n;
             i += (size_t)INSDG_GPU_DOTS_BLOCKS * kDotThreads)
            sum += x[i] * y[i];
        const double total = block_sum(sum, s);
        if (threadIdx.x == 0) work[k * INSDG_GPU_DOTS_BLOCKS + blockIdx.x] = total;
    }
}

__global__ void __launch_bounds__(kDotThreads) dots_final(int ndots, const double *__restrict__ work,
                                                          double *__restrict__ partial)
{
    __shared__ double s[kDotThreads];
    for (int k = 0; k < ndots; ++k) {
        const double total = block_sum(work[k * INSDG_GPU_DOTS_BLOCKS + threadIdx.x], s);
        if (threadIdx.x == 0) partial[k] = total;
    }
}

// ---- CSR: one thread per row, entries in storage order (insdg_csr_matvec) ------------------
__global__ void __launch_bounds__(kThreads)
csr_kernel(int nrows, const int *__restrict__ row_ptr, const int *__restrict__ col, const double *__restrict__ val,
           const double *__restrict__ x, const double *__restrict__ b, double *__restrict__ y, int mode)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrows) return;
    double sum = 0.0;
    const int end = row_ptr[i + 1];
    for (int k = row_ptr[i]; k < end; ++k) sum += val[k] * x[col[k]];
    if (mode == INSDG_GPU_SPMV_SET) y[i] = sum;
    else if (mode == INSDG_GPU_SPMV_RESIDUAL) y[i] = b[i] - sum;
    else y[i] += sum;
}

#undef INSDG_GRID_STRIDE

} // namespace
} // namespace insdg_gpu

using namespace insdg_gpu;

#define INSDG_VEC_LAUNCH(kernel, n, ...)                                                                \
    do {                                                                                                \
        if ((n) == 0) return INSDG_GPU_OK;                                                              \
        kernel<<<grid_for(n), kThreads, 0, (gpuStream_t)stream>>>(n, __VA_ARGS__);                       \
        return launch_status();                                                                         \
    } while (0)

extern "C" int insdg_gpu_axpy(size_t n, insdg_gpu_coef c, const double *x, double *y, void *stream)
{
    if (n > 0 && (!x || !y)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(axpy_kernel, n, c, x, y);
}

extern "C" int insdg_gpu_xpay(size_t n, const double *x, insdg_gpu_coef c, double *y, void *stream)
{
    if (n > 0 && (!x || !y)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(xpay_kernel, n, x, c, y);
}

extern "C" int insdg_gpu_axpby(size_t n, double alpha, const double *x, double beta, double *y, void *stream)
{
    if (n > 0 && (!x || !y)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(axpby_kernel, n, alpha, x, beta, y);
}

extern "C" int insdg_gpu_copy(size_t n, const double *x, double *y, void *stream)
{
    if (n > 0 && (!x || !y)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(copy_kernel, n, x, y);
}

extern "C" int insdg_gpu_sub(size_t n, const double *a, const double *b, double *y, void *stream)
{
    if (n > 0 && (!a || !b || !y)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(sub_kernel, n, a, b, y);
}

extern "C" int insdg_gpu_jacobi(size_t n, const double *dinv, const double *r, double *z, void *stream)
{
    if (n > 0 && (!dinv || !r || !z)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(jacobi_kernel, n, dinv, r, z);
}

extern "C" int insdg_gpu_block_jacobi(size_t n, int Np, const double *binv, const double *r, double *z, void *stream)
{
    if (n > 0 && (!binv || !r || !z || Np < 1 || n % (size_t)Np)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(block_jacobi_kernel, n, Np, binv, r, z);
}

extern "C" int insdg_gpu_lserk_stage(size_t n, double a, double b, double dt, const double *rhs, double *res,
                                     double *w, void *stream)
{
    if (n > 0 && (!rhs || !res || !w)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(lserk_kernel, n, a, b, -dt, rhs, res, w);
}

extern "C" int insdg_gpu_pack(size_t n, const int *idx, const double *field, double *buf, void *stream)
{
    if (n > 0 && (!idx || !field || !buf)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(pack_kernel, n, idx, field, buf);
}

extern "C" int insdg_gpu_chebyshev_first(size_t n, int zero_guess, double inv_theta, const double *dinv,
                                         const double *b, const double *Ad, double *r, double *d, double *x,
                                         void *stream)
{
    if (n > 0 && (!dinv || !b || (!zero_guess && !Ad) || !r || !d || !x)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(cheb_first_kernel, n, zero_guess, inv_theta, dinv, b, Ad, r, d, x);
}

extern "C" int insdg_gpu_chebyshev_step(size_t n, double c_r, double c_d, const double *dinv, const double *Ad,
                                        double *r, double *d, double *x, void *stream)
{
    if (n > 0 && (!dinv || !Ad || !r || !d || !x)) return INSDG_GPU_EBADARG;
    INSDG_VEC_LAUNCH(cheb_step_kernel, n, c_r, c_d, dinv, Ad, r, d, x);
}

extern "C" int insdg_gpu_dots(size_t n, int ndots, const double *const *x, const double *const *y, double *partial,
                              double *work, void *stream)
{
    if (ndots < 1 || ndots > INSDG_GPU_DOTS_MAX || !x || !y || !partial || !work) return INSDG_GPU_EBADARG;
    DotPtrs p = {};
    for (int k = 0; k < ndots; ++k) {
        if (n > 0 && (!x[k] || !y[k])) return INSDG_GPU_EBADARG;
        p.x[k] = x[k], p.y[k] = y[k];
    }
    gpuStream_t s = (gpuStream_t)stream;
    dots_partial<<<INSDG_GPU_DOTS_BLOCKS, kDotThreads, 0, s>>>(n, ndots, p, work);
    int rc = launch_status();
    if (rc != INSDG_GPU_OK) return rc;
    dots_final<<<1, kDotThreads, 0, s>>>(ndots, work, partial);
    return launch_status();
}

extern "C" int insdg_gpu_csr_spmv(int nrows, const int *row_ptr, const int *col, const double *val,
                                  const double *x, const double *b, double *y, int mode, void *stream)
{
    if (nrows < 0 || mode < INSDG_GPU_SPMV_SET || mode > INSDG_GPU_SPMV_ADD) return INSDG_GPU_EBADARG;
    if (nrows == 0) return INSDG_GPU_OK;
    if (!row_ptr || !col || !val || !x || !y || (mode == INSDG_GPU_SPMV_RESIDUAL && !b)) return INSDG_GPU_EBADARG;
    csr_kernel<<<nblocks_for((size_t)nrows, kThreads), kThreads, 0, (gpuStream_t)stream>>>(nrows, row_ptr, col, val,
                                                                                        x, b, y, mode);
    return launch_status();
}
