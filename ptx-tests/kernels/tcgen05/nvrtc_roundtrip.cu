// tcgen05 through CUDA C++ inline asm, compiled by NVRTC for sm_100a:
//   nvrtc.py nvrtc_roundtrip.cu -- --gpu-architecture=compute_100a -default-device
// Each warp of a 128-thread CTA stores two values per thread into its quarter of the tensor
// memory (.32x32b.x2: thread t of warp w, lane 32w + t, columns 0 and 1) and reads them back
// swapped by reading the columns in the other order (.x1 at column 1, then at column 0).
extern "C" __global__ void tc_nvrtc(unsigned *out) {
    __shared__ unsigned slot;
    unsigned warp = threadIdx.x / 32;
    unsigned s = (unsigned)__cvta_generic_to_shared(&slot);
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(s));
    }
    asm volatile("tcgen05.fence::before_thread_sync;");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;");
    unsigned t = slot + ((warp * 32) << 16);
    unsigned x = threadIdx.x * 3 + 1, y = ~threadIdx.x;
    asm volatile("tcgen05.st.sync.aligned.32x32b.x2.b32 [%0], {%1, %2};" ::"r"(t), "r"(x), "r"(y));
    asm volatile("tcgen05.wait::st.sync.aligned;");
    unsigned a, b;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(a) : "r"(t + 1));
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(b) : "r"(t));
    asm volatile("tcgen05.wait::ld.sync.aligned;");
    out[2 * threadIdx.x] = a;
    out[2 * threadIdx.x + 1] = b;
    asm volatile("tcgen05.fence::before_thread_sync;");
    __syncthreads();
    if (warp == 0) {
        asm volatile("tcgen05.fence::after_thread_sync;");
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(slot));
    }
}
