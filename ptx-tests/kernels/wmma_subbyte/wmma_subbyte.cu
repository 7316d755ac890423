// CUDA's sub-byte WMMA API (nvcuda::wmma::experimental, sm_75 and up) as CUDA programmers
// write it: one warp per 8x8 tile of D = A·B + C over K, A row-major M×K, B column-major K×N
// (b holds column n's K elements contiguously), C and D row-major M×N, 32-bit integers.
// 4-bit elements are packed eight to a 32-bit word and 1-bit ones 32 to a word, the first
// element in the least significant bits.
#include <mma.h>
using namespace nvcuda;
namespace wx = nvcuda::wmma::experimental;

// s4 × s4 → s32, m8n8k32 (u4 when `unsigned_in` is set: same code, other fragment type).
template <typename P>
__device__ void mma_4bit(const void* a, const void* b, const int* c, int* d, int M, int N, int K) {
    int warp = threadIdx.x / 32;
    int tiles_n = N / 8;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    wmma::fragment<wmma::matrix_a, 8, 8, 32, P, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, P, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> acc;
    wmma::load_matrix_sync(acc, c + tm * 8 * N + tn * 8, N, wmma::mem_row_major);
    const char* pa = (const char*)a;
    const char* pb = (const char*)b;
    for (int k = 0; k < K; k += 32) {
        // Element offsets / 2 = bytes.
        wmma::load_matrix_sync(fa, pa + (tm * 8 * K + k) / 2, K);
        wmma::load_matrix_sync(fb, pb + (tn * 8 * K + k) / 2, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 8 * N + tn * 8, acc, N, wmma::mem_row_major);
}

extern "C" __global__ void wmma_s4(const void* a, const void* b, const int* c, int* d, int M,
                                   int N, int K) {
    mma_4bit<wx::precision::s4>(a, b, c, d, M, N, K);
}

extern "C" __global__ void wmma_u4(const void* a, const void* b, const int* c, int* d, int M,
                                   int N, int K) {
    mma_4bit<wx::precision::u4>(a, b, c, d, M, N, K);
}

// b1, m8n8k128: D = popc(A xor B) + C (xor) or popc(A and B) + C (and) over K bits; D stored
// column-major.
__device__ void mma_1bit(const void* a, const void* b, const int* c, int* d, int M, int N, int K,
                         bool use_and) {
    int warp = threadIdx.x / 32;
    int tiles_n = N / 8;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    wmma::fragment<wmma::matrix_a, 8, 8, 128, wx::precision::b1, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 128, wx::precision::b1, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 128, int> acc;
    wmma::load_matrix_sync(acc, c + tm * 8 * N + tn * 8, N, wmma::mem_row_major);
    const char* pa = (const char*)a;
    const char* pb = (const char*)b;
    for (int k = 0; k < K; k += 128) {
        wmma::load_matrix_sync(fa, pa + (tm * 8 * K + k) / 8, K);
        wmma::load_matrix_sync(fb, pb + (tn * 8 * K + k) / 8, K);
        if (use_and)
            wmma::bmma_sync(acc, fa, fb, acc, wx::bmmaBitOpAND);
        else
            wmma::bmma_sync(acc, fa, fb, acc, wx::bmmaBitOpXOR);
    }
    wmma::store_matrix_sync(d + tn * 8 * M + tm * 8, acc, M, wmma::mem_col_major);
}

extern "C" __global__ void wmma_b1_xor(const void* a, const void* b, const int* c, int* d, int M,
                                       int N, int K) {
    mma_1bit(a, b, c, d, M, N, K, false);
}

extern "C" __global__ void wmma_b1_and(const void* a, const void* b, const int* c, int* d, int M,
                                       int N, int K) {
    mma_1bit(a, b, c, d, M, N, K, true);
}
