#!/usr/bin/env python3
"""Expected rows of the cta_batch cases, from host formulas over cta_batch.cu (not from
ptxjit): thread i of the grid (CTAs in x-fastest order, threads in x-fastest order inside a
CTA) writes row i = (ctaid.x, ctaid.y, ctaid.z, t + extra) when i < n; other rows keep the
fill value. Run with the venv's python: writes <case>_expected.npy beside this file."""
import os

import numpy as np

FILL = 0xFFFFFFFF
# name: (grid, block, n or None for every thread, extra added to t)
CASES = {
    "grid_1d": ((1000, 1, 1), (40, 1, 1), 1000 * 40 - 50, 0),
    "grid_2d": ((37, 29, 1), (64, 1, 1), None, 0),
    "grid_3d": ((7, 5, 9), (3, 5, 2), None, 0),
    "deep_z": ((2, 3, 200), (32, 1, 1), None, 0),
    "small": ((3, 1, 1), (33, 1, 1), None, 0),
    "mem_2d": ((45, 23, 1), (8, 6, 1), None, 3),
}


def rows(grid, block, n, extra):
    gx, gy, gz = grid
    threads = block[0] * block[1] * block[2]
    total = gx * gy * gz * threads
    n = total if n is None else n
    out = np.full((total, 4), FILL, dtype=np.uint32)
    i = np.arange(n, dtype=np.int64)
    c, t = i // threads, i % threads
    out[:n, 0] = c % gx
    out[:n, 1] = (c // gx) % gy
    out[:n, 2] = c // (gx * gy)
    out[:n, 3] = t + extra
    return out.reshape(-1)


# cta_linear: name: (CTAs, threads per CTA, n, seed); element i < n is
# i * 2654435761 + seed + %nctaid.x (mod 2^32), the rest keep the fill value.
LINEAR = {
    "linear_1d": (777, 256, 777 * 256 - 100, 12345),
    "linear_warps3": (1000, 96, 1000 * 96 - 37, 7),
}

# cta_image: name: (width, height, block); element (x, y) is
# (3 x + 40503 y) ^ (%nctaid.x << 20) ^ (%nctaid.y << 26) (mod 2^32).
IMAGE = {
    "image_2d": (300, 70, (16, 4, 1)),
}


def linear(ctas, threads, n, seed):
    out = np.full(ctas * threads, FILL, dtype=np.uint64)
    i = np.arange(n, dtype=np.uint64)
    out[:n] = (i * 2654435761 + seed + ctas) % 2**32
    return out.astype(np.uint32)


def image(width, height, block):
    gx, gy = -(-width // block[0]), -(-height // block[1])
    y, x = np.mgrid[0:height, 0:width].astype(np.uint64)
    v = ((x * 3 + y * 40503) % 2**32) ^ (gx << 20) ^ ((gy << 26) % 2**32)
    return v.reshape(-1).astype(np.uint32)


here = os.path.dirname(os.path.abspath(__file__))
for name, case in CASES.items():
    np.save(os.path.join(here, f"{name}_expected.npy"), rows(*case))
for name, case in LINEAR.items():
    np.save(os.path.join(here, f"{name}_expected.npy"), linear(*case))
for name, case in IMAGE.items():
    np.save(os.path.join(here, f"{name}_expected.npy"), image(*case))
