// Use after free through the device heap: each thread keeps a scratch block from malloc, frees
// it, and then reads it once more. memcheck keeps freed blocks poisoned (a quarantine), so the
// read faults and names the freed block.
extern "C" __global__ void use_after_free(int* out)
{
    int t = threadIdx.x;
    int* scratch = (int*)malloc(4 * sizeof(int));
    if (scratch == nullptr) return;
    scratch[0] = t * t;
    free(scratch);
    out[t] = scratch[0];
}
