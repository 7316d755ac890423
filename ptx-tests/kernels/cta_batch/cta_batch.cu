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
