// Recursion and indirect calls: NVRTC keeps `__noinline__` recursive device functions as
// real recursive `call`s and calls through a function pointer with `call` through a register
// and a `.callprototype`.

__device__ __noinline__ unsigned fib(unsigned n) {
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ unsigned long long fact(unsigned n) {
    return n == 0 ? 1ull : n * fact(n - 1);
}

// Mutual recursion; each even_sum frame keeps a local array across the recursive call and
// passes a pointer to it to a helper (so the array lives in the frame's local memory).
__device__ __noinline__ int weigh(const int *a, int n) {
    int s = 0;
    for (int k = 0; k < n; k++) s += a[k] * (k + 1);
    return s;
}
__device__ __noinline__ int odd_sum(int n, int acc);
__device__ __noinline__ int even_sum(int n, int acc) {
    int buf[4];
    for (int k = 0; k < 4; k++) buf[k] = n + k + acc % 5;
    if (n <= 0) return acc + weigh(buf, 4);
    int r = odd_sum(n - 1, acc + n * 2);
    return r + weigh(buf, 4);
}
__device__ __noinline__ int odd_sum(int n, int acc) {
    if (n <= 0) return acc;
    return even_sum(n - 1, acc + n * 3);
}

// Each thread recurses to a depth of its own: lanes of a warp are at different depths.
extern "C" __global__ void recurse(unsigned *fibs, unsigned long long *facts, int *sums) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    fibs[i] = fib(i % 17);
    facts[i] = fact(i % 21);
    sums[i] = even_sum((int)(i % 9), (int)i);
}

__device__ __noinline__ int add7(int x) { return x + 7; }
__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int square(int x) { return x * x; }

typedef int (*op_t)(int);

// A function-pointer table chosen per thread, applied repeatedly.
extern "C" __global__ void fnptr(int *out, const int *which) {
    op_t table[3] = {add7, twice, square};
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = (int)i;
    for (int k = 0; k < 3; k++) {
        op_t f = table[which[i * 3 + k] % 3];
        x = f(x);
    }
    out[i] = x;
}

// The same through a `__device__` table (a module-scope initializer of function addresses).
__device__ op_t gtable[3] = {add7, twice, square};

extern "C" __global__ void fnptr_global(int *out, const int *which) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = (int)i;
    for (int k = 0; k < 3; k++) x = gtable[which[i * 3 + k] % 3](x);
    out[i] = x;
}

// Recursion as deep as asked (a store after the call keeps it from becoming a loop); `trail`
// points into the kernel's local memory. Overflows the per-thread call stack for large n.
__device__ __noinline__ unsigned depth(unsigned n, unsigned *trail) {
    if (n == 0) return 0;
    unsigned r = depth(n - 1, trail);
    trail[n % 4] = r;
    return r + 1;
}

extern "C" __global__ void deep(unsigned *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned trail[4];
    out[i] = depth(n + i, trail) + trail[0];
}
