// A store through a null pointer: nvcc -O3 finds the store undefined at compile time and puts
// `trap` in its place (keeping the line's .loc), so the kernel traps at that line.
// nvcc -O3 -lineinfo -ptx -arch=compute_80 null_store_trap.cu
__global__ void null_store(int *out) {
    int *p = nullptr;
    *p = 1;
    out[0] = 2;
}
