"""Inputs and expected outputs of the struct_swizzle case (host reference: numpy float32,
one IEEE single operation per member, as in struct_swizzle.cu).
Run from this directory: python3 gen.py"""
import numpy as np

N = 1000
rng = np.random.default_rng(20261206)
f = np.float32
a = rng.uniform(-100, 100, size=(N, 3)).astype(f)   # float3
b = rng.uniform(-100, 100, size=(N, 4)).astype(f)   # float4
c = rng.uniform(-100, 100, size=(N, 2)).astype(f)   # float2
inplace = rng.uniform(-100, 100, size=(N, 2)).astype(f)

px, py, pz = a[:, 0], a[:, 1], a[:, 2]
qx, qy, qz, qw = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
rx, ry = c[:, 0], c[:, 1]
out4 = np.stack([qw - px, qz * f(2), qy + rx, qx - ry], axis=1)
out3 = np.stack([pz + qx, py * f(3), px - ry], axis=1)
out2 = np.stack([ry * py, rx + qw], axis=1)
x1 = inplace[:, 1] + f(1)
y1 = x1 * f(2)
inplace_expected = np.stack([x1, y1], axis=1)

for name, arr in [("a", a), ("b", b), ("c", c), ("inplace", inplace)]:
    np.save(f"{name}.npy", arr.reshape(-1))
for name, arr in [("out4", out4), ("out3", out3), ("out2", out2), ("inplace", inplace_expected)]:
    assert arr.dtype == np.float32
    np.save(f"{name}_expected.npy", arr.reshape(-1))
