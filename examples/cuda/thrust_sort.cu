// Thrust (CCCL): sort and reduce on device vectors. Thrust and CUB pick their kernels from
// cudaFuncGetAttributes, the device's attributes and occupancy, and launch through
// cudaLaunchKernelExC on their own stream handle.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <cstdio>
int main() {
  const int n = 10000;
  thrust::host_vector<int> h(n);
  for (int i = 0; i < n; i++) h[i] = (i * 7919) % n;
  thrust::device_vector<int> d = h;
  thrust::sort(d.begin(), d.end());
  long long s = thrust::reduce(d.begin(), d.end(), 0LL);
  thrust::host_vector<int> r = d;
  for (int i = 0; i < n; i++) if (r[i] != i) { printf("FAIL at %d: %d\n", i, r[i]); return 1; }
  if (s != (long long)n * (n - 1) / 2) { printf("FAIL sum %lld\n", s); return 1; }
  printf("PASS\n");
}
