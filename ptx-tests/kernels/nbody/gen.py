#!/usr/bin/env python3
"""Inputs and expected outputs of nbody.toml (nbody.cu), computed on the host with numpy in
f64: for each body i, acc = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps2)^(3/2), then
v' = v + acc dt and p' = p + v' dt (w, the mass, kept). The kernel's rsqrtf is rsqrt.approx.f32
(relative error at most 2^-22.9, PTX ISA 9.7.3.20) and it sums in f32, so the case compares
with a relative tolerance. Run from this directory."""
import numpy as np

N, DT, EPS2 = 500, 0.01, 0.01

rng = np.random.default_rng(20261207)
pos = np.zeros((N, 4), dtype=np.float32)
pos[:, :3] = rng.uniform(-10.0, 10.0, size=(N, 3)).astype(np.float32)
pos[:, 3] = rng.uniform(0.5, 2.0, size=N).astype(np.float32)  # mass
vel = np.zeros((N, 4), dtype=np.float32)
vel[:, :3] = rng.uniform(-1.0, 1.0, size=(N, 3)).astype(np.float32)
vel[:, 3] = 7.0  # w is carried through unchanged

p = pos.astype(np.float64)
d = p[None, :, :3] - p[:, None, :3]  # d[i, j] = p_j - p_i
d2 = (d * d).sum(axis=2) + np.float64(np.float32(EPS2))
s = p[None, :, 3] / d2 ** 1.5
acc = (d * s[:, :, None]).sum(axis=1)
dt = np.float64(np.float32(DT))
v = vel.astype(np.float64)
v[:, :3] += acc * dt
newp = p.copy()
newp[:, :3] += v[:, :3] * dt

np.save("pos.npy", pos.reshape(-1))
np.save("vel.npy", vel.reshape(-1))
np.save("vel_expected.npy", v.astype(np.float32).reshape(-1))
np.save("new_pos_expected.npy", newp.astype(np.float32).reshape(-1))
