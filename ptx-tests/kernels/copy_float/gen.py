"""Input and expected output of the copy_float case: out[i] = in[i] for N floats, so the
expected output is the input itself (host reference: numpy).
Run from this directory: python3 gen.py"""
import numpy as np

N = 1000
rng = np.random.default_rng(20261205)
x = rng.uniform(-1000, 1000, size=N).astype(np.float32)
np.save("in.npy", x)
np.save("out_expected.npy", x.copy())
