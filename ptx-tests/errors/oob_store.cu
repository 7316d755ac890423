// out[i] = i with NO bounds guard. oob_store.toml launches 5 x 205 = 1025 threads on a
// buffer of exactly 1024 u32 (4096 bytes), so thread 1024 (CTA 4, tid.x 204) stores one
// element past the end (byte offset 4096), and no other thread is out of bounds.
extern "C" __global__ void oob_store(unsigned int* out)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i;
}
