#!/usr/bin/env python3
"""Inputs and expected outputs of the spmv_csr cases (spmv_csr.cu), computed on the host with
numpy: a 300 x 257 CSR matrix with empty rows, rows of 1 to 31 nonzeros and rows longer than a
warp (up to 100), values and x entries multiples of 1/16 in [-4, 4), so that every product and
every partial sum is exact in f32 (|sum| < 2^11, 8 fraction bits) and the order of summation —
a warp's shuffle tree or one thread's loop — cannot change the result: the tolerance is exact.
Run from this directory."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402

ROWS, COLS = 300, 257
rng = np.random.default_rng(7_2026_12)
lengths = rng.integers(0, 32, size=ROWS)
lengths[::17] = 0  # empty rows
lengths[5::23] = rng.integers(33, 101, size=len(lengths[5::23]))  # longer than a warp
row_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
cols = np.concatenate([np.sort(rng.choice(COLS, size=int(k), replace=False)) for k in lengths])
vals = rng.integers(-64, 64, size=len(cols)) / 16.0
x = rng.integers(-64, 64, size=COLS) / 16.0
y = np.array([np.dot(vals[row_ptr[r]:row_ptr[r + 1]], x[cols[row_ptr[r]:row_ptr[r + 1]]])
              for r in range(ROWS)])
assert np.all(np.abs(y) < 2048)

gc.save_npy(HERE, "row_ptr", row_ptr.astype("<i4"))
gc.save_npy(HERE, "col_idx", cols.astype("<i4"))
gc.save_npy(HERE, "vals", vals.astype("<f4"))
gc.save_npy(HERE, "x", x.astype("<f4"))
gc.save_npy(HERE, "y_expected", y.astype("<f4"))

BUFFERS = "\n".join([gc.buffer_from_file("row_ptr", "row_ptr.npy", "s32"),
                     gc.buffer_from_file("col_idx", "col_idx.npy", "s32"),
                     gc.buffer_from_file("vals", "vals.npy", "f32"),
                     gc.buffer_from_file("x", "x.npy", "f32"),
                     f"[buffers.y]\ntype = \"f32\"\nlen = {ROWS}\ninit = {{ fill = nan }}\n",
                     gc.expect_exact("y", "y_expected.npy")])
ARGS = ('args = [{ s32 = %d }, { buffer = "row_ptr" }, { buffer = "col_idx" }, '
        '{ buffer = "vals" }, { buffer = "x" }, { buffer = "y" }]' % ROWS)
SIG = "(int rows, const int* row_ptr, const int* col_idx, const float* vals, const float* x, float* y)"
VEC_BLOCK = 128
gc.write_text(HERE, "spmv_csr_vector.toml", f"""\
# CSR sparse matrix-vector product, one warp per row (spmv_csr.cu, NVRTC compute_80): lanes
# stride over the row, __shfl_down_sync reduces; empty rows and rows longer than a warp; the
# last CTA has warps past the last row, which return. Expected from gen.py (numpy, exact).
ptx = "spmv_csr.ptx"
kernel = "spmv_csr_vector"
grid = [{(ROWS * 32 + VEC_BLOCK - 1) // VEC_BLOCK}]
block = [{VEC_BLOCK}]
# spmv_csr_vector{SIG}
{ARGS}

{BUFFERS}""")
gc.write_text(HERE, "spmv_csr_scalar.toml", f"""\
# CSR sparse matrix-vector product, one thread per row (spmv_csr.cu, NVRTC compute_80): trip
# counts from 0 to 100 within a warp. Expected from gen.py (numpy, exact).
ptx = "spmv_csr.ptx"
kernel = "spmv_csr_scalar"
grid = [{(ROWS + 63) // 64}]
block = [64]
# spmv_csr_scalar{SIG}
{ARGS}

{BUFFERS}""")
