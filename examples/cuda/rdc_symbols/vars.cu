// Defines the variables that rdc_symbols/helper.cu and main.cu declare `extern`, and a
// device function that updates one of them.
__device__ int counter;
__device__ float table[8];
__constant__ float scale[4];
__managed__ int managed_total = 1000;

__device__ int bump(int by) {
  atomicAdd(&managed_total, by);
  return atomicAdd(&counter, by);
}
