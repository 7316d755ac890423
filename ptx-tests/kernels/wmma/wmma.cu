// CUDA's WMMA API (nvcuda::wmma) as CUDA programmers write it: one warp per 16x16 tile of
// D = A·B + C (A row-major M×K, B column-major K×N, C and D row-major M×N), looping over K.
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// f16 inputs, f32 accumulator, m16n16k16.
extern "C" __global__ void wmma_f16(const half* a, const half* b, const float* c, float* d,
                                    int M, int N, int K) {
    int warp = threadIdx.x / 32;
    int tiles_n = N / 16;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * 16 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

// tf32 inputs (converted from f32 with __float_to_tf32), f32 accumulator, m16n16k8.
extern "C" __global__ void wmma_tf32(const float* a, const float* b, const float* c, float* d,
                                     int M, int N, int K) {
    int warp = threadIdx.x / 32;
    int tiles_n = N / 16;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::load_matrix_sync(acc, c + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 8) {
        wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * 16 * K + k, K);
        for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
        for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

// s8 inputs, s32 accumulator, m16n16k16; C is zero (fill_fragment), D stored column-major.
extern "C" __global__ void wmma_s8(const signed char* a, const signed char* b, int* d,
                                   int M, int N, int K) {
    int warp = threadIdx.x / 32;
    int tiles_n = N / 16;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * 16 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tn * 16 * M + tm * 16, acc, M, wmma::mem_col_major);
}

// f64, m8n8k4: one warp per 8x8 tile.
extern "C" __global__ void wmma_f64(const double* a, const double* b, const double* c, double* d,
                                    int M, int N, int K) {
    int warp = threadIdx.x / 32;
    int tiles_n = N / 8;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
    wmma::load_matrix_sync(acc, c + tm * 8 * N + tn * 8, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 4) {
        wmma::load_matrix_sync(fa, a + tm * 8 * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * 8 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 8 * N + tn * 8, acc, N, wmma::mem_row_major);
}

// f16 inputs and f16 accumulator, m32n8k16: one warp per 32x8 tile.
extern "C" __global__ void wmma_f16_m32n8(const half* a, const half* b, const half* c, half* d,
                                          int M, int N, int K) {
    int warp = threadIdx.x / 32;
    int tiles_n = N / 8;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> acc;
    wmma::load_matrix_sync(acc, c + tm * 32 * N + tn * 8, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 32 * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * 8 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 32 * N + tn * 8, acc, N, wmma::mem_row_major);
}

// bf16 inputs, f32 accumulator, m8n32k16, with A column-major (a[k*M + m] = A[m][k]) and
// B row-major (b[k*N + n] = B[k][n]).
extern "C" __global__ void wmma_bf16_m8n32(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                           const float* c, float* d, int M, int N, int K) {
    int warp = threadIdx.x / 32;
    int tiles_n = N / 32;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    wmma::fragment<wmma::matrix_a, 8, 32, 16, __nv_bfloat16, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, float> acc;
    wmma::load_matrix_sync(acc, c + tm * 8 * N + tn * 32, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + k * M + tm * 8, M);
        wmma::load_matrix_sync(fb, b + k * N + tn * 32, N);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 8 * N + tn * 32, acc, N, wmma::mem_row_major);
}

// u8 inputs, s32 accumulator, m32n8k16.
extern "C" __global__ void wmma_u8_m32n8(const unsigned char* a, const unsigned char* b,
                                         const int* c, int* d, int M, int N, int K) {
    int warp = threadIdx.x / 32;
    int tiles_n = N / 8;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    wmma::fragment<wmma::matrix_a, 32, 8, 16, unsigned char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, unsigned char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, int> acc;
    wmma::load_matrix_sync(acc, c + tm * 32 * N + tn * 8, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 32 * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * 8 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 32 * N + tn * 8, acc, N, wmma::mem_row_major);
}
