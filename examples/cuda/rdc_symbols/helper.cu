// Reads a __device__ and a __constant__ variable defined in rdc_symbols/vars.cu.
extern __device__ float table[8];
extern __constant__ float scale[4];

__device__ float weigh(float x, int i) { return x * scale[i % 4] + table[i % 8]; }
