// Device-side printf (vprintf): ints, floats (promoted to double), a string argument, flags,
// widths and precisions, under divergence. Expected stdout: printf_expected.txt, written by
// printf_ref.py with Python's %-formatting (C printf semantics for these conversions).

extern "C" __global__ void hello(const float* x, int n) {
    int t = threadIdx.x;
    if (t >= n) return;
    if (t % 4 == 1) {
        printf("t=%d x=%.2f hex=%#06x s=%s\n", t, x[t], t * 17, t < 8 ? "lo" : "hi");
    }
    if (t == 39) {
        printf("%5.1e|%-6u|%lld|%c|%g\n", 12345.0f, 7u, -5LL * t, 'A' + t % 26, 0.0001 * t);
    }
}
