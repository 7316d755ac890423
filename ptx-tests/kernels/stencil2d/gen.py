#!/usr/bin/env python3
"""Inputs and expected outputs of the stencil2d case (stencil2d.cu), computed on the host with
numpy: one Jacobi step of the 5-point stencil 0.5 c + 0.125 (n + s + e + w) on a 50 x 37 grid
with clamped edges. Inputs are integers in [0, 2^16), so every product and sum is exact in f32
(whatever order or fused multiply-add the compiler chose): the tolerance is exact.
Run from this directory."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402

W, H, TILE = 50, 37, 16
rng = np.random.default_rng(37_50)
a = rng.integers(0, 1 << 16, size=(H, W)).astype(np.float64)
p = np.pad(a, 1, mode="edge")
out = 0.5 * a + 0.125 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, 2:] + p[1:-1, :-2])

gc.save_npy(HERE, "in", a.astype("<f4"))
gc.save_npy(HERE, "out_expected", out.astype("<f4"))
gc.write_text(HERE, "stencil2d.toml", f"""\
# 5-point Jacobi step with a one-cell halo in __shared__ (stencil2d.cu, NVRTC compute_80):
# 16 x 16 tiles, edge threads load the halo, clamped grid edges, a {W} x {H} grid that is no
# multiple of the tile (partial CTAs on the right and bottom). Expected from gen.py (numpy).
ptx = "stencil2d.ptx"
kernel = "stencil2d"
grid = [{(W + TILE - 1) // TILE}, {(H + TILE - 1) // TILE}]
block = [{TILE}, {TILE}]
# stencil2d(const float* in, float* out, int w, int h)
args = [{{ buffer = "in" }}, {{ buffer = "out" }}, {{ s32 = {W} }}, {{ s32 = {H} }}]

{gc.buffer_from_file("in", "in.npy", "f32")}
[buffers.out]
type = "f32"
len = {W * H}
init = {{ fill = -1.0 }}

{gc.expect_exact("out", "out_expected.npy")}""")
