// Structs passed by value, as CUDA programmers pass parameter blocks: the kernel parameter is
// a `.param .align 8 .b8 p[N]` byte array laid out as the C++ compiler lays out the struct.
struct Params {
    float scale;        // offset 0
    int n;              // 4
    const float* x;     // 8
    float* y;           // 16
};                      // 24 bytes, align 8

struct Inner {
    char c;             // 0
    double d;           // 8
};                      // 16 bytes, align 8

struct Outer {
    int a;              // 0
    Inner in;           // 8
    short s;            // 24
    unsigned char u[3]; // 26
};                      // 32 bytes, align 8

extern "C" __global__ void scale(Params p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) {
        p.y[i] = p.x[i] * p.scale;
    }
}

extern "C" __global__ void nested(Outer o, double* out, int k)
{
    int i = threadIdx.x;
    if (i < k) {
        out[i] = o.a + i * o.in.d + o.in.c + o.s * 1000.0 + o.u[i % 3] * 1e6;
    }
}
