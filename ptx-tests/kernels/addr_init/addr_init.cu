// Module variables initialized with addresses (PTX ISA 5.4.4 "Initializers"):
// pointers to __device__ and __constant__ data, a table of pointers with offsets,
// a struct holding pointers (mask() byte initializers), and a table of device
// function pointers called through.
extern "C" {

__device__ int data[8] = {10, 20, 30, 40, 50, 60, 70, 80};
__constant__ float scale[4] = {0.5f, 2.0f, 4.0f, 8.0f};

__device__ int *p = &data[0];
__device__ int *table[3] = {&data[1], &data[4], &data[6]};
__device__ const float *cp = &scale[2];

struct Pair {
    int tag;
    int *ptr;
    const float *fptr;
};
__device__ Pair pair = {7, &data[3], &scale[1]};

// A packed struct: the pointer is unaligned, so NVVM writes it byte by byte with mask()
// (`0xFF00(generic(data)+20)`), and reads it with `ld.global.u8` into 64-bit registers.
struct __attribute__((packed)) Packed {
    char c;
    int *ptr;
};
__device__ Packed packed = {5, &data[5]};

__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int square(int x) { return x * x; }
__device__ __noinline__ int negate(int x) { return -x; }
typedef int (*op_t)(int);
__device__ op_t ops[3] = {twice, square, negate};

__global__ void addr_init(int *out, float *fout) {
    int i = threadIdx.x;
    // out[0..8): data through p, out[8..40): table[i % 3][i % 2], out[40..72): ops,
    // out[72..76): the structs' fields; fout: floats through pointers to __constant__ data
    if (i < 8) {
        out[i] = p[i];
    }
    out[8 + i] = table[i % 3][i % 2];
    out[40 + i] = ops[i % 3](i + 1);
    if (i == 0) {
        out[72] = pair.tag;
        out[73] = *pair.ptr;
        fout[0] = *cp;
        fout[1] = *pair.fptr;
        out[74] = packed.c;
        out[75] = *packed.ptr;
    }
}
}
