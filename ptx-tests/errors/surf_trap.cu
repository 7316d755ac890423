// surf1Dread with cudaBoundaryModeTrap one element past the end: the last thread faults.
extern "C" __global__ void surf_trap(cudaSurfaceObject_t s, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        out[i] = surf1Dread<int>(s, i * 4, cudaBoundaryModeTrap);
    }
}
