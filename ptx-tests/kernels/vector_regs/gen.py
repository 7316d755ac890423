#!/usr/bin/env python3
"""Inputs and expected outputs of vector_regs.toml, computed on the host with numpy from the
formulas in vector_regs.ptx's comments. Inputs are small dyadic floats and integers, so
every f32/f64 result (fma included) is exact. Run from this directory."""
import numpy as np

N = 64
rng = np.random.default_rng(11)
a = (rng.integers(-512, 512, size=(N, 4)) / 8).astype("<f4")
b = rng.integers(0, 1 << 32, size=(N, 2), dtype=np.uint64).astype("<u4")
c = (rng.integers(-256, 256, size=(N, 2)) / 4).astype("<f8")

x, y, z, w = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
out = np.stack([y + w, y, y * np.float32(2), np.maximum(x, z)], axis=1).astype("<f4")
rev = a[:, ::-1].copy()
lo, hi = b[:, 1].astype(np.uint64), b[:, 0].astype(np.uint64)  # %w1 = (b.y, b.x)
pack = (lo | (hi << np.uint64(32))).astype("<u8")
lo32, hi32 = b[:, 1], b[:, 0]
pair = np.stack([lo32 + hi32, np.where(lo32 > hi32, lo32, hi32)], axis=1).astype("<u4")
cx, cy = c[:, 0], c[:, 1]
dbl = np.stack([cx * cy + cy, cx - cy], axis=1).astype("<f8")

np.save("a.npy", a.reshape(-1))
np.save("b.npy", b.reshape(-1))
np.save("c.npy", c.reshape(-1))
np.save("out_expected.npy", out.reshape(-1))
np.save("rev_expected.npy", rev.reshape(-1))
np.save("pack_expected.npy", pack)
np.save("pair_expected.npy", pair.reshape(-1))
np.save("dbl_expected.npy", dbl.reshape(-1))
