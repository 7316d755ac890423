// Control-flow patterns that SIMT emulators get wrong: nested loops with per-lane break and
// continue, divergent early returns, barriers inside loops and (uniform) conditionals,
// shuffles after divergence and with partial member masks, 3D grids and blocks.
// Expected values: control_flow_ref.py (a host reference written from the C semantics).

extern "C" __global__ void nested_loops(int* out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int i = 0; i < (t % 7) + 3; i++) {
        if ((i + t) % 3 == 0) continue;
        for (int j = 0; j < i; j++) {
            if ((j * t) % 5 == 4) break;
            acc += i * j + 1;
        }
        if (acc > 20 + t % 50) break;
    }
    out[t] = acc;
}

extern "C" __global__ void early_exit(int* out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t % 3 == 0) return;
    if (t % 5 == 1) {
        out[t] = 1;
        return;
    }
    int v = 2;
    for (int k = 0; k < t % 11; k++) {
        if (k == 7 && t % 2 == 0) return;
        v = v * 3 % 1000 + k;
    }
    out[t] = v;
}

#define N 128
extern "C" __global__ void barrier_loop(int* out, int steps)
{
    __shared__ int s[N];
    int t = threadIdx.x;
    int v = t + blockIdx.x * 1000;
    for (int step = 0; step < steps; step++) {
        s[t] = v;
        __syncthreads();
        if (blockIdx.x % 2 == 0) {
            v = s[(t + 1) % N] + step;
        } else {
            v = s[(t + N - 1) % N] * 2 - step;
            v = v % 100003;
        }
        if (step % 3 == 2) {
            __syncthreads();
            s[t] = v ^ step;
            __syncthreads();
            v = s[N - 1 - t];
        }
        __syncthreads();
    }
    out[blockIdx.x * N + t] = v;
}

extern "C" __global__ void shfl_divergent(int* out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = t * 7 + 3;
    if (lane % 3 == 0) {
        v += 100;
    } else if (lane % 3 == 1) {
        v = v * 2;
    }
    // Reconverged: full-warp shuffles.
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    v += __shfl_down_sync(0xffffffffu, v, 3);
    v += __shfl_up_sync(0xffffffffu, v, 5);
    v += __shfl_sync(0xffffffffu, v, (lane * 5) % 32);
    // Partial member masks inside divergent code.
    if (lane < 16) {
        v += __shfl_down_sync(0x0000ffffu, v, 2, 16);
    } else {
        v -= __shfl_xor_sync(0xffff0000u, v, 4);
    }
    out[t] = v;
}

extern "C" __global__ void grid3d(int* out)
{
    int bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
    int x = bx * blockDim.x + threadIdx.x;
    int y = by * blockDim.y + threadIdx.y;
    int z = bz * blockDim.z + threadIdx.z;
    int W = gridDim.x * blockDim.x, H = gridDim.y * blockDim.y;
    out[(z * H + y) * W + x] = threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z
        + 1000 * bx + 10000 * by + 100000 * bz;
}
