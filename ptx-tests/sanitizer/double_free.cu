// A double free on the device heap: thread 3 frees its block twice (an early-exit path that
// frees, followed by the common cleanup that frees again).
extern "C" __global__ void double_free(int* out)
{
    int t = threadIdx.x;
    int* scratch = (int*)malloc(4 * sizeof(int));
    if (scratch == nullptr) return;
    scratch[0] = t;
    if (t == 3) {
        out[t] = -1;
        free(scratch);
    } else {
        out[t] = scratch[0];
    }
    free(scratch);
}
