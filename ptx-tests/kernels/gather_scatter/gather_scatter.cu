// Loads and stores of every width (u8, u16, u32, u64, f32, f64) with consecutive addresses,
// one address shared by neighbouring threads, and permuted (gather / scatter) addresses,
// with all threads active and with every third thread inactive. The JIT's group memory
// paths: vector or narrow loads, broadcast, and the per-lane runtime path.
extern "C" __global__ void gather_scatter(const unsigned char* b8, const unsigned short* b16,
                                          const unsigned int* b32, const unsigned long long* b64,
                                          const float* f32, const double* f64,
                                          unsigned int* out, unsigned long long* out64,
                                          unsigned char* s8, unsigned short* s16,
                                          double* sf64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int p = (i * 37 + 11) % n;           // a permutation of 0..n-1 (37 is prime to n)
    int q = i / 4;                       // one address per four threads
    unsigned int acc = b8[i] + 3u * b16[i] + 5u * b32[i];          // consecutive
    acc += 7u * b8[p] + 11u * b16[p] + 13u * b32[p];               // gathers
    acc += 17u * b8[q] + 19u * b16[q] + 23u * b32[q];              // shared address
    acc += (unsigned int)(f32[p] * 2.0f);
    unsigned long long w = b64[i] ^ (b64[p] << 1) ^ (b64[q] << 2);
    double d = f64[p] + f64[q] * 0.5;
    if (i % 3 != 0) {                    // two thirds of the threads
        acc += 29u * b8[p] + b16[(p + 1) % n];
        w += b64[(p + 5) % n];
    }
    out[p] = acc;                        // scatters
    out64[p] = w;
    s8[p] = (unsigned char)(acc >> 3);
    s16[p] = (unsigned short)(acc >> 5);
    sf64[p] = d;
}
