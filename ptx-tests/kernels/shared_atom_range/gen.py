#!/usr/bin/env python3
"""Host reference for shared_atom_range.ptx: inputs, expected bins (numpy) and the case
files. Re-run after changing the kernels:
    python3 gen.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)

rng = np.random.default_rng(18)


def case(name, comment, kernel, grid, block, data, nbins, expect=None, error=None):
    gc.save_npy(HERE, f"{name}_data", data.astype(np.uint8))
    text = "".join(f"# {line}\n" for line in comment.split("\n"))
    text += f'ptx = "shared_atom_range.ptx"\nkernel = "{kernel}"\n'
    text += f"grid = [{grid}, 1, 1]\nblock = [{block}, 1, 1]\n"
    text += f'args = [{{ buffer = "data" }}, {{ u32 = {len(data)} }}, {{ buffer = "bins" }}]\n\n'
    text += gc.buffer_from_file("data", f"{name}_data.npy", "u8") + "\n"
    text += f'[buffers.bins]\ntype = "u32"\nlen = {nbins}\ninit = {{ fill = 0 }}\n\n'
    if expect is not None:
        gc.save_npy(HERE, f"{name}_bins", expect.astype(np.uint32))
        text += gc.expect_exact("bins", f"{name}_bins.npy")
    else:
        text += f'[expect_error]\nkind = "fault"\ncontains = "{error}"\n'
    gc.write_text(HERE, f"{name}.toml", text)


def byte_bins(data):
    return np.bincount(data, minlength=256)


# Three CTAs of 96 threads, a last grid-stride pass that leaves lanes out; the first 400
# bytes all 7 (every lane of a warp on one bin), then runs of two values, then random.
n = 3 * 96 * 4 + 50
d = rng.integers(0, 256, n)
d[:400] = 7
d[400:600] = np.where(np.arange(200) % 2 == 0, 255, 0)
case("byte_96", "hist_byte, 3 CTAs of 96 threads: one bin per warp, two bins per group,\n"
     "random bins; a partial last pass. Expected: numpy bincount.",
     "hist_byte", 3, 96, d, 256, expect=byte_bins(d))

# Two CTAs of 100 threads (a last warp of 4 lanes), bytes mostly 0, 128 and 255.
n = 2 * 100 * 3 + 37
d = rng.choice([0, 128, 255], n)
d[::7] = rng.integers(0, 256, len(d[::7]))
case("byte_100", "hist_byte, 2 CTAs of 100 threads (a partial warp), few distinct bins.\n"
     "Expected: numpy bincount.", "hist_byte", 2, 100, d, 256, expect=byte_bins(d))

# Masked and shifted offsets, weights of 1 to 4.
n = 4 * 64 * 3 + 5
d = rng.integers(0, 256, n)
d[:64] = 0x41  # bin 1, weight 2: one bin for two whole warps
e = np.zeros(64, dtype=np.int64)
np.add.at(e, d & 63, (d >> 6) + 1)
case("masked", "hist_masked, 4 CTAs of 64 threads: bin b & 63, weight (b >> 6) + 1.\n"
     "Expected: numpy.", "hist_masked", 4, 64, d, 64, expect=e)

# 32 shared words: bytes below 32 only (every group through the tested path).
n = 500
d = rng.integers(0, 32, n)
d[100:200] = 31
case("small_ok", "hist_small, 2 CTAs of 64 threads, bytes below 32 (the 128-byte array).\n"
     "Expected: numpy bincount.", "hist_small", 2, 64, d, 32,
     expect=np.bincount(d, minlength=32))

# Byte 200 at element 173: thread 45 (173 = 2 * 64 + 45) in its third pass.
d = rng.integers(0, 32, 256)
d[173] = 200
case("small_fault", "hist_small, one CTA of 64 threads: element 173 is byte 200, shared\n"
     "offset 800, past the kernel's 128 bytes: thread 45's fault (173 = 2 * 64 + 45).",
     "hist_small", 1, 64, d, 32, error="by CTA (0,0,0) thread (45,0,0)")

# Even bytes: word b / 2.
n = 700
d = rng.integers(0, 128, n) * 2
case("odd_ok", "hist_odd, 2 CTAs of 96 threads, even bytes (word b / 2).\n"
     "Expected: numpy bincount.", "hist_odd", 2, 96, d, 128,
     expect=np.bincount(d // 2, minlength=128))

# One odd byte at element 77: thread 13 (77 = 64 + 13), a misaligned 32-bit atomic.
d = rng.integers(0, 128, 256) * 2
d[77] = 33
case("odd_fault", "hist_odd, one CTA of 64 threads: element 77 is byte 33, shared offset\n"
     "66, misaligned for a 32-bit atomic: thread 13's fault (77 = 64 + 13).",
     "hist_odd", 1, 64, d, 128, error="by CTA (0,0,0) thread (13,0,0)")
