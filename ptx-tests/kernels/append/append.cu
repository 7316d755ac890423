// Stream compaction through an atomic counter: every thread whose element passes the test
// appends its index, out[atomicAdd(count, 1)] = i. Which slot a thread gets depends on the
// order threads reach the atomic (CTAs run on all cores at once), so `out` holds the right
// indices in an order that changes from run to run and between engines: the case compares
// it as a multiset (order = "any"). A loop of busy work before the test spreads the CTAs'
// finishing times, so CTAs on different worker threads interleave their appends.
extern "C" __global__ void append_matches(const unsigned* in, int n, unsigned* out, unsigned* count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    // Busy work that does not change x's test: a few rounds of an xorshift whose result
    // only feeds a store to a slot no thread reads (so it cannot be removed).
    unsigned h = x | 1u;
    for (int k = 0; k < (int)(x & 63u); k++) {
        h ^= h << 13; h ^= h >> 17; h ^= h << 5;
    }
    if (h == 0u) out[n] = h;  // never true: h starts odd and xorshift never reaches 0
    if (x % 3u == 1u) {
        unsigned slot = atomicAdd(count, 1u);
        out[slot] = (unsigned)i;
    }
}
