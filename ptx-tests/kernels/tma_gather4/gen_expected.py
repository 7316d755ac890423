#!/usr/bin/env python3
"""Host reference for the four-row tensor-copy cases (gather4.ptx): writes gather4_u32.toml,
gather4_f16_swizzle.toml, gather4_multicast.toml and gather4_tall_box.toml.

Semantics from the PTX ISA (cp.async.bulk.tensor .tile::gather4 / .tile::scatter4, section 5.5
"Tile::scatter4 and Tile::gather4 modes") and the CUDA documentation of cuTensorMapEncodeTiled
and the TMA swizzle modes: a 2d tensor map whose box is W elements wide and one row high; the
five coordinates are a column and four row indices; row k of the copy is tensor row r_k, columns
col .. col + W - 1, landing densely at k * W elements in shared memory (then the swizzle);
out-of-bound elements read as the fill (zero, or NaN for a float map that asks for it) and are
not written by the scatter; the reduction adds each in-bound element into the tensor. numpy.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from gen_common import ints, swizzle  # noqa: E402  (shared by the ptx-tests generators)

SMEM_WORDS = 1024
FILL = 0xCDCDCDCD
rng = np.random.default_rng(417)


def gather(x, dims, col, rows, width, fill):
    """x[row, col] as bit patterns; the four rows x width elements."""
    w, h = dims
    out = np.full((4, width), fill, dtype=np.uint64)
    for k, r in enumerate(rows):
        for i in range(width):
            c = col + i
            if 0 <= c < w and 0 <= r < h:
                out[k, i] = x[r, c]
    return out


def smem_words(elems, esize, mode):
    raw = bytearray(np.full(SMEM_WORDS, FILL, dtype=np.uint32).tobytes())
    for i, v in enumerate(elems.reshape(-1)):
        a = swizzle(i * esize, mode)
        raw[a:a + esize] = int(v).to_bytes(esize, "little")
    return np.frombuffer(bytes(raw), dtype=np.uint32)


def floats(v):
    return "[" + ", ".join("nan" if np.isnan(a) else repr(float(a)) for a in v) + "]"


def tmap(name, buf, ty, dims, pitch_bytes, width, swz, oob, rows_high=1):
    return f"""[tensor_maps.{name}]
buffer = "{buf}"
type = "{ty}"
dims = {ints(dims)}
strides = [{pitch_bytes}]
box = [{width}, {rows_high}]
swizzle = "{swz}"
oob_fill = "{oob}"
"""


CASES = [
    dict(name="gather4_u32", what="u32, 16-wide rows from column -4 (4 out of bounds), rows 7, 2, 10 (past the end) and 2; "
         "scatter and add at column 12 (4 past the end), rows 0, 9, -1 (out of bounds) and 5",
         ty="u32", esize=4, dims=[24, 10], pitch=32, width=16, swz="none", oob="zero",
         col=-4, rows=[7, 2, 10, 2], col2=12, srows=[0, 9, -1, 5]),
    dict(name="gather4_f16_swizzle", what="f16 with the 64B swizzle and a NaN fill, 32-wide rows from column 24 "
         "(16 past the end), rows 11, 0, -3 (out of bounds) and 6; scatter and add at column -8, rows 1, 3, 12 "
         "(past the end) and 4",
         ty="f16", esize=2, dims=[40, 12], pitch=48, width=32, swz="64B", oob="nan",
         col=24, rows=[11, 0, -3, 6], col2=-8, srows=[1, 3, 12, 4]),
]

for c in CASES:
    w, h = c["dims"]
    pitch = c["pitch"]
    es = c["esize"]
    if c["ty"] == "u32":
        a = rng.integers(1, 1 << 32, size=(h, pitch), dtype=np.uint64)
        cvals = rng.integers(0, 1 << 32, size=(h, pitch), dtype=np.uint64)
        a_bits, fill = a, 0
        a_init, c_init = ints(a.reshape(-1)), ints(cvals.reshape(-1))
    else:
        a = rng.integers(-100, 100, size=(h, pitch)).astype(np.float16)
        cvals = rng.integers(-100, 100, size=(h, pitch)).astype(np.float16)
        a_bits, fill = a.view(np.uint16).astype(np.uint64), 0x7FFF
        a_init, c_init = floats(a.reshape(-1)), floats(cvals.reshape(-1))
    g = gather(a_bits, c["dims"], c["col"], c["rows"], c["width"], fill)
    words = smem_words(g, es, c["swz"])
    nbytes = 4 * c["width"] * es
    # The scatter and the reduction: element i of gathered row k goes to (srows[k], col2 + i).
    if c["ty"] == "u32":
        b = np.zeros((h, pitch), dtype=np.uint64)
        cc = cvals.copy()
    else:
        b = np.zeros((h, pitch), dtype=np.float16)
        cc = cvals.copy()
    for k, r in enumerate(c["srows"]):
        for i in range(c["width"]):
            x = c["col2"] + i
            if 0 <= x < w and 0 <= r < h:
                if c["ty"] == "u32":
                    b[r, x] = g[k, i]
                    cc[r, x] = (int(cc[r, x]) + int(g[k, i])) % (1 << 32)
                else:
                    v = np.array([g[k, i]], dtype=np.uint16).view(np.float16)[0]
                    b[r, x] = v
                    cc[r, x] = np.float16(cc[r, x] + v)
    exp_b = ints(b.reshape(-1)) if c["ty"] == "u32" else floats(b.reshape(-1))
    exp_c = ints(cc.reshape(-1)) if c["ty"] == "u32" else floats(cc.reshape(-1))
    args = ('{ tensor_map = "a" }, { tensor_map = "b" }, { tensor_map = "c" }, '
            + ", ".join(f"{{ s32 = {v} }}" for v in [c["col"]] + c["rows"] + [c["col2"]] + c["srows"])
            + f', {{ u32 = {nbytes} }}, {{ buffer = "raw" }}')
    maps = "\n".join(tmap(n, n, c["ty"], c["dims"], pitch * es, c["width"], c["swz"], c["oob"]) for n in "abc")
    with open(c["name"] + ".toml", "w") as f:
        f.write(f"""# cp.async.bulk.tensor.2d .tile::gather4 (and its prefetch), then .tile::scatter4 and
# cp.reduce.async.bulk.tensor .add.tile::scatter4 of the gathered rows: {c['what']}.
# Shared memory dumped (0xcdcdcdcd where nothing landed). Expected values: gen_expected.py (numpy).
ptx = "gather4.ptx"
kernel = "gather4"
grid = [1]
block = [1]
args = [{args}]

[buffers.a]
type = "{c['ty']}"
init = {{ values = {a_init} }}

[buffers.b]
type = "{c['ty']}"
len = {h * pitch}

[buffers.c]
type = "{c['ty']}"
init = {{ values = {c_init} }}

[buffers.raw]
type = "u32"
len = {SMEM_WORDS}

{maps}
[expect.raw]
values = {ints(words)}

[expect.b]
values = {exp_b}

[expect.c]
values = {exp_c}
""")
    if c["ty"] == "u32":
        # The multicast form from rank 0 of a 2-CTA cluster: both CTAs get the same rows.
        mc_args = ('{ tensor_map = "a" }, '
                   + ", ".join(f"{{ s32 = {v} }}" for v in [c["col"]] + c["rows"])
                   + f', {{ u32 = {nbytes} }}, {{ buffer = "raw" }}')
        with open("gather4_multicast.toml", "w") as f:
            f.write(f"""# cp.async.bulk.tensor.2d .tile::gather4 .multicast::cluster (ctaMask 0b11) from rank 0 of each
# 2-CTA cluster: both CTAs get the four rows of gather4_u32 and a complete-tx on their own
# mbarrier. Expected values: gen_expected.py (numpy).
ptx = "gather4.ptx"
kernel = "gather4_multicast"
grid = [2]
block = [1]
cluster = [2]
args = [{mc_args}]

[buffers.a]
type = "u32"
init = {{ values = {a_init} }}

[buffers.raw]
type = "u32"
len = {2 * SMEM_WORDS}

{tmap("a", "a", "u32", c["dims"], pitch * es, c["width"], "none", "zero")}
[expect.raw]
values = {ints(list(words) * 2)}
""")
        with open("gather4_tall_box.toml", "w") as f:
            f.write(f"""# A four-row copy needs a map whose box is one row high: the ISA gives no effect for a taller
# box, so the .tile::gather4 prefetch of a map with a box of 16 x 2 faults, naming the field.
ptx = "gather4.ptx"
kernel = "gather4"
grid = [1]
block = [1]
args = [{args}]

[buffers.a]
type = "u32"
len = {h * pitch}

[buffers.b]
type = "u32"
len = {h * pitch}

[buffers.c]
type = "u32"
len = {h * pitch}

[buffers.raw]
type = "u32"
len = {SMEM_WORDS}

{tmap("a", "a", "u32", c["dims"], pitch * es, c["width"], "none", "zero", rows_high=2)}
{tmap("b", "b", "u32", c["dims"], pitch * es, c["width"], "none", "zero")}
{tmap("c", "c", "u32", c["dims"], pitch * es, c["width"], "none", "zero")}
[expect_error]
kind = "fault"
contains = "box dimension 1"
""")
