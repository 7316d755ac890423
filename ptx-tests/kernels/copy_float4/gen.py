"""Input and expected output of the copy_float4 case: out[i] = in[i] for N float4 elements,
so the expected output is the input itself (host reference: numpy).
Run from this directory: python3 gen.py"""
import numpy as np

N = 1000
rng = np.random.default_rng(20261204)
x = rng.uniform(-1000, 1000, size=(N, 4)).astype(np.float32)
np.save("in.npy", x.reshape(-1))
np.save("out_expected.npy", x.reshape(-1).copy())
