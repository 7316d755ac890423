// sgemm_naive.cu in OpenCL C: C = A * B, row-major, one work-item per C element.
__kernel void sgemm_naive(__global const float* A, __global const float* B, __global float* C,
                          int M, int N, int K)
{
    int row = get_global_id(1);
    int col = get_global_id(0);
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = acc;
    }
}
