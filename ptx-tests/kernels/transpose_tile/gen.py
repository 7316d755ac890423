#!/usr/bin/env python3
"""Input and expected output of transpose_tile.toml (transpose_tile.cu): a 70 x 100 f32 matrix
(row-major, height x width) and its transpose (100 x 70), by numpy. Run from this directory."""
import numpy as np

H, W = 70, 100
rng = np.random.default_rng(20261209)
a = rng.standard_normal((H, W)).astype(np.float32)
np.save("in.npy", a.reshape(-1))
np.save("out_expected.npy", np.ascontiguousarray(a.T).reshape(-1))
