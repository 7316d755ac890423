// C[row][col] = sum over k < trips of A[row*K + k] * B'[k][col], where row k of B' starts
// `boff + k*ldb` bytes into B: the B element is read through a pointer carried around the
// (unrolled) loop and advanced by a uniform byte stride, as in a naive SGEMM. The last row
// runs `klast` trips, the others K, so one row alone can reach a bad address.
extern "C" __global__ void carried_ptr(const float* A, const float* B, float* C, int N, int K,
                                       int klast, long long boff, long long ldb)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int rows = gridDim.y * blockDim.y;
    if (col < N) {
        int trips = row == rows - 1 ? klast : K;
        const char* b = (const char*)B + boff + 4 * (long long)col;
        float acc = 0.0f;
        for (int k = 0; k < trips; ++k) {
            acc += A[row * K + k] * *(const float*)(b + k * ldb);
        }
        C[row * N + col] = acc;
    }
}

// Plane k of C' (starting boff + k*ldc bytes into C, rows x N floats) gets A[k] * B[col] at
// [row][col], for k < K: stores through a pointer carried around the (unrolled) loop.
extern "C" __global__ void carried_store(const float* A, const float* B, float* C, int N, int K,
                                         long long boff, long long ldc)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < N) {
        char* c = (char*)C + boff + 4 * (long long)(row * N + col);
        float b = B[col];
        for (int k = 0; k < K; ++k) {
            *(float*)(c + k * ldc) = A[k] * b;
        }
    }
}
