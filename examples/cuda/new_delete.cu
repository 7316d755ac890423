// Device-side new/delete and malloc/free, with the device heap's size set first.
#include "check.h"

struct Node { int value; Node* next; };

__global__ void build(int* out, int n) {
  Node* head = nullptr;
  for (int i = 0; i < n; i++) { Node* k = new Node; k->value = i * (threadIdx.x + 1); k->next = head; head = k; }
  int sum = 0;
  while (head) { Node* k = head; sum += k->value; head = k->next; delete k; }
  int* buf = (int*)malloc(4 * sizeof(int));
  buf[0] = sum;
  out[threadIdx.x] = buf[0];
  free(buf);
}

int main() {
  const int n = 10, threads = 32;
  size_t heap = 0;
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20));
  CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  EXPECT(heap >= (16 << 20));
  int* d;
  CHECK(cudaMalloc(&d, threads * sizeof(int)));
  build<<<1, threads>>>(d, n);
  CHECK(cudaGetLastError());
  int h[threads];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int t = 0; t < threads; t++) EXPECT(h[t] == (t + 1) * n * (n - 1) / 2);
  std::printf("PASS\n");
  return 0;
}
