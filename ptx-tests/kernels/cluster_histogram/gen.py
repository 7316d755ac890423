#!/usr/bin/env python3
"""Inputs and expected outputs of cluster_histogram.toml (cluster_histogram.cu), computed on
the host with numpy: the histogram of in[i] mod NBINS over all N elements (every cluster
covers all bins, and the clusters' histograms add up), and per CTA (rank, CTAs per cluster,
the next CTA's rank) for clusters of 4 CTAs in CTA order. Run from this directory."""
import numpy as np

GRID, BLOCK, CLUSTER, N, NBINS = 8, 128, 4, 5000, 256

rng = np.random.default_rng(20261202)
x = rng.integers(0, 1 << 32, size=N, dtype=np.uint64)
hist = np.bincount((x % NBINS).astype(np.int64), minlength=NBINS)
info = np.array([[c % CLUSTER, CLUSTER, (c % CLUSTER + 1) % CLUSTER] for c in range(GRID)])

np.save("in.npy", x.astype("<u4"))
np.save("hist_expected.npy", hist.astype("<u4"))
np.save("info_expected.npy", info.reshape(-1).astype("<u4"))
print(f"n = {N}, max bin = {hist.max()}")
