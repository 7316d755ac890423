// Device-side malloc/free (the CUDA device heap, 8 MiB by default).

// Each thread allocates (t % 7 + 1) ints, fills them, sums them and frees them:
// out[i] = sum over k < t % 7 + 1 of (k * i + 3), or -1 if malloc failed.
extern "C" __global__ void per_thread(int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int m = i % 7 + 1;
    int* a = (int*)malloc(m * sizeof(int));
    if (a == nullptr) { out[i] = -1; return; }
    for (int k = 0; k < m; k++) a[k] = k * i + 3;
    int s = 0;
    for (int k = 0; k < m; k++) s += a[k];
    out[i] = s;
    free(a);
}

// One block-wide buffer per CTA, allocated by thread 0 and shared through shared memory:
// out[b * blockDim + t] = (blockDim - 1 - t)^2 + b.
extern "C" __global__ void per_block(int* out)
{
    __shared__ int* buf;
    if (threadIdx.x == 0) buf = (int*)malloc(blockDim.x * sizeof(int));
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (buf == nullptr) { out[i] = -1; return; }
    buf[threadIdx.x] = threadIdx.x * threadIdx.x + blockIdx.x;
    __syncthreads();
    out[i] = buf[blockDim.x - 1 - threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) free(buf);
}

// What malloc returns: NULL for a request larger than the heap and for 0 bytes, 16-byte
// aligned blocks otherwise, the alignment asked of __nv_aligned_device_malloc; free(NULL) is
// a no-op. out[k] is 1 when check k holds.
extern "C" __global__ void contract(int* out)
{
    void* huge = malloc(1ull << 40);
    out[0] = huge == nullptr;
    char* a = (char*)malloc(3);
    char* b = (char*)malloc(5);
    out[1] = a != nullptr && b != nullptr && ((unsigned long long)a % 16 == 0) && ((unsigned long long)b % 16 == 0);
    out[2] = b - a >= 16 || a - b >= 16;
    void* c = __nv_aligned_device_malloc(100, 256);
    out[3] = c != nullptr && (unsigned long long)c % 256 == 0;
    free(nullptr);
    free(a);
    free(b);
    free(c);
    out[4] = 1;
}

// A double free: thread 5 frees its block twice (undefined in CUDA; a fault here).
extern "C" __global__ void double_free(int* out)
{
    int* p = (int*)malloc(16);
    free(p);
    if (threadIdx.x == 5) free(p);
    out[threadIdx.x] = 1;
}
