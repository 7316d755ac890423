// Warps of one CTA waiting on each other through memory, without a barrier in the loop (legal
// on Volta and later, which guarantee forward progress): warp 0 spins on a volatile shared
// flag that the last warp sets after writing data, then uses the data. ptxjit's warps take
// turns; loops whose exit depends on memory yield every 1024 iterations so the producer runs.
//
// The handover is the fence pattern of the PTX memory model (PTX ISA §8, release and acquire
// patterns): the producer's fence then its (strong, volatile) flag store; the consumer's
// (strong) flag load then its fence. handoff and handoff_threadfence have both fences
// (racecheck: no race); handoff_no_fence has neither and handoff_writer_fence only the
// producer's, so the consumer's reads of data are not ordered after the producer's writes:
// races racecheck must report (tests/ptx_tests.rs). All four compute the same out on ptxjit.

enum Fence { None, Block, Device };

__device__ __forceinline__ void fence(Fence f)
{
    if (f == Block) __threadfence_block();
    if (f == Device) __threadfence();
}

__device__ __forceinline__ void handoff_body(const int* in, int* out, Fence writer, Fence reader)
{
    __shared__ volatile int flag;
    __shared__ volatile int data[32];
    int t = threadIdx.x;
    if (t == 0) flag = 0;
    __syncthreads();
    int last = blockDim.x - 32;
    if (t >= last) {
        data[t - last] = in[blockIdx.x * 32 + t - last] * 3;
        fence(writer);
        if (t == last) flag = 1;
    }
    if (t < 32) {
        while (flag == 0) {
        }
        fence(reader);
        out[blockIdx.x * 32 + t] = data[t] + t;
    }
}

extern "C" __global__ void handoff(const int* in, int* out)
{
    handoff_body(in, out, Block, Block);
}

extern "C" __global__ void handoff_threadfence(const int* in, int* out)
{
    handoff_body(in, out, Device, Device);
}

extern "C" __global__ void handoff_no_fence(const int* in, int* out)
{
    handoff_body(in, out, None, None);
}

extern "C" __global__ void handoff_writer_fence(const int* in, int* out)
{
    handoff_body(in, out, Block, None);
}
