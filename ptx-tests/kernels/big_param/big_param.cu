// A 8000-byte struct passed by value (kernel parameters over 4352 bytes need PTX ISA 8.1 and
// sm_70+). Each thread copies its strided share of the struct's words to out[0..2000];
// out[2000 + t] gets thread t's sum of v[j] * (j + 1) over its words (mod 2^32).
struct Big {
    unsigned v[2000];
};

extern "C" __global__ void big_param(Big b, unsigned *out) {
    unsigned t = threadIdx.x;
    unsigned s = 0;
    for (unsigned j = t; j < 2000; j += blockDim.x) {
        out[j] = b.v[j];
        s += b.v[j] * (j + 1);
    }
    out[2000 + t] = s;
}
