#!/usr/bin/env python3
"""Host reference for the im2col tensor-load cases (im2col.ptx): writes im2col_3d.toml,
im2col_4d.toml and im2col_5d.toml.

Semantics from the PTX ISA (section 5.5.4 "im2col mode", 5.5.4.1 "Bounding Box", 5.5.4.2
"Traversal Stride") and the CUDA driver API's cuTensorMapEncodeIm2col: a rank-r tensor is
N (D) (H) W C, C innermost; the bounding box of spatial dimension k is
[lower[k], dim[k] - 1 + upper[k]] (lower from the first element, upper from the last); the
instruction's spatial coordinates are the first pixel's filter base, each next pixel steps W by
its traversal stride, wrapping to the lower corner and stepping H (then D, then N by one); a
pixel's elements are at its filter base plus the im2col offsets, channels c0 .. c0+channels,
zero (or NaN) outside the tensor; pixel p's channels land densely at p * channels in shared
memory (then the map's swizzle). The pixel positions are computed here in closed form (numpy).
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from gen_common import ints, run_pos, swizzle  # noqa: E402  (shared by the ptx-tests generators)

FILL = 0xCDCDCDCD
SMEM_WORDS = 1024


def im2col(x, dims, coords, offs, lower, upper, es, channels, pixels, fill):
    """x: the tensor as a numpy array indexed [n, (d), (h), w, c]; returns pixels x channels."""
    s = len(dims) - 2
    out = np.full((pixels, channels), fill, dtype=np.uint64)
    for p in range(pixels):
        carry = p
        base = []
        for k in range(s):
            lo, hi = lower[k], dims[k + 1] - 1 + upper[k]
            pos, carry = run_pos(coords[k + 1], lo, hi, es[k + 1], carry)
            base.append(pos)
        n = coords[-1] + carry
        spatial = [base[k] + offs[k] for k in range(s)]
        for ch in range(channels):
            c = coords[0] + ch
            idx = [c] + spatial + [n]
            if all(0 <= idx[k] < dims[k] for k in range(len(dims))):
                out[p, ch] = x[tuple(reversed(idx))]
    return out


def smem_words(elems, esize, mode):
    """Shared memory after the load, as u32 words (the 0xcd fill where nothing landed)."""
    raw = bytearray(np.full(SMEM_WORDS, FILL, dtype=np.uint32).tobytes())
    flat = elems.reshape(-1)
    for i, v in enumerate(flat):
        a = swizzle(i * esize, mode)
        raw[a:a + esize] = int(v).to_bytes(esize, "little")
    return np.frombuffer(bytes(raw), dtype=np.uint32)


rng = np.random.default_rng(2026)
CASES = [
    dict(
        name="im2col_3d", what="a 3d (N W C) f32 map with a NaN fill, W stride 3, corners (-2 | +1), offset 5",
        kernel="im2col3d", type="f32", esize=4, dims=[4, 20, 3], lower=[-2], upper=[1], es=[1, 3, 1],
        channels=4, pixels=24, coords=[0, -2, 0], offs=[5], swizzle="none", oob="nan",
    ),
    dict(
        name="im2col_4d", what="a 4d (N H W C) u32 map, corners (-1, -1 | -1, -1) as for a 3x3 filter with padding 1, offsets (2, 1), channels 8..15 of 12 (4 out of bounds), pixels across H and into the second image",
        kernel="im2col4d", type="u32", esize=4, dims=[12, 9, 6, 2], lower=[-1, -1], upper=[-1, -1],
        es=[1, 1, 1, 1], channels=8, pixels=48, coords=[8, 5, 3, 0], offs=[2, 1], swizzle="none", oob="zero",
    ),
    dict(
        name="im2col_5d", what="a 5d (N D H W C) u16 map with the 128B swizzle, corners (0, -1, 0 | -1, 0, -1), traversal strides (1, 2, 1), offsets (1, 0, 2)",
        kernel="im2col5d", type="u16", esize=2, dims=[8, 4, 3, 3, 2], lower=[0, -1, 0], upper=[-1, 0, -1],
        es=[1, 1, 2, 1, 1], channels=8, pixels=30, coords=[0, 1, -1, 0, 0], offs=[1, 0, 2], swizzle="128B", oob="zero",
    ),
]

for c in CASES:
    dims = c["dims"]
    size = int(np.prod(dims))
    if c["type"] == "f32":
        vals = rng.integers(-1000, 1000, size=size).astype(np.float32)
        bits = vals.view(np.uint32).astype(np.uint64)
        init = "[" + ", ".join(repr(float(v)) for v in vals) + "]"
        fill = 0x7FFFFFFF if c["oob"] == "nan" else 0
    else:
        hi = 1 << (8 * c["esize"])
        bits = rng.integers(1, hi, size=size, dtype=np.uint64)
        init = ints(bits)
        fill = 0
    x = bits.reshape(list(reversed(dims)))
    elems = im2col(x, dims, c["coords"], c["offs"], c["lower"], c["upper"], c["es"], c["channels"], c["pixels"], fill)
    words = smem_words(elems, c["esize"], c["swizzle"])
    nbytes = c["pixels"] * c["channels"] * c["esize"]
    args = [{"tensor_map": "t"}] + [("s32", v) for v in c["coords"]] + [("u16", v) for v in c["offs"]]
    arg_s = "{ tensor_map = \"t\" }, " + ", ".join(f"{{ {k} = {v} }}" for k, v in args[1:])
    arg_s += f", {{ u32 = {nbytes} }}, {{ buffer = \"raw\" }}"
    ic = f"{{ lower = {ints(c['lower'])}, upper = {ints(c['upper'])}, channels = {c['channels']}, pixels = {c['pixels']} }}"
    with open(c["name"] + ".toml", "w") as f:
        f.write(f"""# cp.async.bulk.tensor.{len(dims)}d .im2col: {c['what']};
# {c['pixels']} pixels x {c['channels']} channels dumped from shared memory (0xcdcdcdcd where nothing
# landed). Expected values: gen_expected.py (numpy, from the PTX ISA's im2col mode).
ptx = "im2col.ptx"
kernel = "{c['kernel']}"
grid = [1]
block = [1]
args = [{arg_s}]

[buffers.x]
type = "{c['type']}"
init = {{ values = {init} }}

[buffers.raw]
type = "u32"
len = {SMEM_WORDS}

[tensor_maps.t]
buffer = "x"
type = "{c['type']}"
dims = {ints(dims)}
element_strides = {ints(c['es'])}
swizzle = "{c['swizzle']}"
oob_fill = "{c['oob']}"
im2col = {ic}

[expect.raw]
values = {ints(words)}
""")
