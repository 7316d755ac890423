// Kernels without barriers, so that each CTA ends in its first scheduler round and a worker
// runs its CTAs back to back (runtime::launch, `batch_worker`): every thread writes what it
// sees of %ctaid, %nctaid and its own linear id, so a CTA that runs with another CTA's id
// (a %ctaid not advanced, or advanced in the wrong dimension) leaves a wrong or missing row.

// Row i (the thread's linear id in the grid, CTAs in x-fastest order) of `out`, 4 words:
// %ctaid.x, %ctaid.y, %ctaid.z and the thread's linear id within its CTA.
extern "C" __global__ void cta_ids(unsigned int* out, unsigned int n)
{
    unsigned int cta = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned int i = cta * threads + t;
    if (i < n) {
        out[4 * i + 0] = blockIdx.x;
        out[4 * i + 1] = blockIdx.y;
        out[4 * i + 2] = blockIdx.z;
        out[4 * i + 3] = t;
    }
}

// The same rows through shared and local memory: each thread writes its row to its own
// shared slot and to a local array indexed by a parameter (so the array lives in local
// memory), then reads both back. No thread reads another's slot, so no barrier is needed;
// the CTA's shared and local buffers are reused from CTA to CTA on a worker.
extern "C" __global__ void cta_ids_mem(unsigned int* out, unsigned int n, unsigned int k)
{
    __shared__ unsigned int rows[4 * 256];
    unsigned int local[8];
    unsigned int cta = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned int i = cta * threads + t;
    volatile unsigned int* row = rows + 4 * t;
    row[0] = blockIdx.x;
    row[1] = blockIdx.y;
    row[2] = blockIdx.z;
    for (unsigned int j = 0; j < 8; j++)
        local[j] = cta + j;
    row[3] = t + local[k & 7] - cta;
    if (i < n) {
        out[4 * i + 0] = row[0];
        out[4 * i + 1] = row[1];
        out[4 * i + 2] = row[2];
        out[4 * i + 3] = row[3];
    }
}

// The usual 1-D shape, whose CTA-uniform values the JIT computes once per CTA before its
// warps run (`jit::preloop`): `blockIdx.x * blockDim.x` and the pointer `out + base` are
// derived from %ctaid, so a CTA that runs with the previous CTA's values of them (in a call
// that runs several CTAs, `jit::batch`) writes the wrong elements. Element i gets a hash of
// i, %nctaid.x and a parameter; the guard stops inside the last CTA.
extern "C" __global__ void cta_linear(unsigned int* out, unsigned int n, unsigned int seed)
{
    unsigned int base = blockIdx.x * blockDim.x;
    unsigned int* mine = out + base;
    unsigned int i = base + threadIdx.x;
    if (i < n)
        mine[threadIdx.x] = i * 2654435761u + seed + gridDim.x;
}

// A 2-D image of `width` x `height` elements, CTAs of 16 x 4 threads: the CTAs on the right
// and bottom edges are partial, and batches of consecutive CTAs cross rows of the grid.
// Element (x, y) gets a hash of x, y and %nctaid; the row pointer is CTA-uniform per thread row.
extern "C" __global__ void cta_image(unsigned int* out, unsigned int width, unsigned int height)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[y * width + x] = (x * 3u + y * 40503u) ^ (gridDim.x << 20) ^ (gridDim.y << 26);
}
