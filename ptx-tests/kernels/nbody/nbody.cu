// One leapfrog step of an N-body simulation as CUDA programmers write it (GPU Gems 3, ch. 31):
// positions and masses in float4 (w = mass), tiles of bodies staged in __shared__, the inverse
// distance from rsqrtf, softening so a body's pull on itself is zero.
#define NBODY_TILE 64

extern "C" __global__ void nbody_step(const float4* __restrict__ pos, float4* __restrict__ vel,
                                      float4* __restrict__ new_pos, int n, float dt, float eps2) {
    __shared__ float4 tile[NBODY_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float3 acc = make_float3(0.f, 0.f, 0.f);
    for (int base = 0; base < n; base += NBODY_TILE) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
        __syncthreads();
        int count = min(NBODY_TILE, n - base);
        for (int k = 0; k < count; ++k) {
            float4 q = tile[k];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float d2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = rsqrtf(d2);
            float s = q.w * inv * inv * inv;
            acc.x += dx * s;
            acc.y += dy * s;
            acc.z += dz * s;
        }
        __syncthreads();
    }
    if (i < n) {
        float4 v = vel[i];
        v.x += acc.x * dt;
        v.y += acc.y * dt;
        v.z += acc.z * dt;
        vel[i] = v;
        new_pos[i] = make_float4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
    }
}
