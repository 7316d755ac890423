__device__ int mix(int a, int b) { return 2 * a - b + 7; }
