// Thrust's single-pass scans (CUB's decoupled look-back): reduce_by_key and an inclusive scan
// of 64-bit values, whose tile descriptors (status and value) are one 16-byte word that a
// tile publishes with st.relaxed.v2.u64 while later tiles poll it with ld.relaxed.v2.u64.
// A load that saw half of a store would take a stale value for a published prefix. Several
// rounds, each checked against a host computation.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <cstdio>
#include <vector>
#include "check.h"
int main() {
  const int n = 200000;
  std::vector<int> keys(n), vals(n);
  std::vector<long long> wide(n);
  unsigned x = 12345;
  for (int i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    keys[i] = i / 7;
    vals[i] = (int)(x >> 24) - 128;
    wide[i] = (long long)(x >> 8) * 4099;
  }
  // Host results: per-run sums, and the running sum of `wide`.
  std::vector<int> ek, ev;
  for (int i = 0; i < n; i++) {
    if (i == 0 || keys[i] != keys[i - 1]) { ek.push_back(keys[i]); ev.push_back(0); }
    ev.back() += vals[i];
  }
  std::vector<long long> escan(n);
  long long acc = 0;
  for (int i = 0; i < n; i++) escan[i] = acc += wide[i];
  thrust::device_vector<int> dk(keys.begin(), keys.end()), dv(vals.begin(), vals.end());
  thrust::device_vector<long long> dw(wide.begin(), wide.end()), ds(n);
  for (int round = 0; round < 8; round++) {
    thrust::device_vector<int> ok(n), ov(n);
    auto end = thrust::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin(), ov.begin());
    EXPECT(end.first - ok.begin() == (long)ek.size());
    thrust::host_vector<int> rk(ok.begin(), end.first), rv(ov.begin(), end.second);
    for (size_t i = 0; i < ek.size(); i++) EXPECT(rk[i] == ek[i] && rv[i] == ev[i]);
    thrust::inclusive_scan(dw.begin(), dw.end(), ds.begin());
    thrust::host_vector<long long> rs = ds;
    for (int i = 0; i < n; i++) EXPECT(rs[i] == escan[i]);
  }
  CHECK(cudaDeviceSynchronize());
  printf("PASS\n");
}
