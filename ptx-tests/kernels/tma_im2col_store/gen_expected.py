#!/usr/bin/env python3
"""Host reference for the im2col tensor-store cases (im2col_store.ptx): writes store_3d.toml,
store_4d.toml, store_5d.toml and reduce_4d.toml.

Semantics: the PTX ISA's im2col mode (section 5.5.4, 5.5.4.1 "Bounding Box", 5.5.4.2
"Traversal Stride") and the CUDA driver API's cuTensorMapEncodeIm2col, as for the loads
(../tma_im2col/gen_expected.py): the pixels' filter bases walk the bounding box from the
instruction's spatial coordinates (W fastest by its traversal stride, wrapping to the lower
corner, then H, D, then N by one), pixel p's channels c0 .. c0+channels sit densely at
p * channels in shared memory (then the map's swizzle). `.im2col_no_offs` has no im2col
offsets (the ISA: "im2colInfo is not applicable"): the elements are at the filter bases
themselves (ptxjit's reading, docs/isa-notes.md). A store writes the in-bound elements only;
the reduction adds (u32, wrapping) into them. Computed here with numpy, in closed form.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from gen_common import ints, run_pos, swizzle  # noqa: E402  (shared by the ptx-tests generators)

SMEM_WORDS = 1024


def store(x, smem, c, reduce):
    """x: the tensor indexed [n, (d), (h), w, c] (modified); smem: the shared bytes."""
    dims, s = c["dims"], len(c["dims"]) - 2
    es, coords = c["es"], c["coords"]
    mask = (1 << (8 * c["esize"])) - 1
    for p in range(c["pixels"]):
        carry, base = p, []
        for k in range(s):
            lo, hi = c["lower"][k], dims[k + 1] - 1 + c["upper"][k]
            pos, carry = run_pos(coords[k + 1], lo, hi, es[k + 1], carry)
            base.append(pos)
        n = coords[-1] + carry
        for ch in range(c["channels"]):
            idx = [coords[0] + ch] + base + [n]
            if not all(0 <= idx[k] < dims[k] for k in range(len(dims))):
                continue
            a = swizzle((p * c["channels"] + ch) * c["esize"], c["swizzle"])
            v = int.from_bytes(smem[a:a + c["esize"]], "little")
            t = tuple(reversed(idx))
            x[t] = ((int(x[t]) + v) & mask) if reduce else v


rng = np.random.default_rng(2027)
CASES = [
    dict(name="store_3d", kernel="store3d", reduce=False,
         what="a 3d (N W C) u32 map, W stride 3, corners (-2 | +1), pixels from W = -2 (out of bounds, not written) into the third image",
         type="u32", esize=4, dims=[4, 20, 3], lower=[-2], upper=[1], es=[1, 3, 1],
         channels=4, pixels=24, coords=[0, -2, 0], swizzle="none"),
    dict(name="store_4d", kernel="store4d", reduce=False,
         what="a 4d (N H W C) u32 map, corners (-1, -1 | -1, -1), channels 8..15 of 12 (4 out of bounds), pixels across H and into the second image",
         type="u32", esize=4, dims=[12, 9, 6, 2], lower=[-1, -1], upper=[-1, -1], es=[1, 1, 1, 1],
         channels=8, pixels=48, coords=[8, 5, 3, 0], swizzle="none"),
    dict(name="store_5d", kernel="store5d", reduce=False,
         what="a 5d (N D H W C) u16 map with the 128B swizzle, corners (0, -1, 0 | -1, 0, -1), traversal strides (1, 2, 1)",
         type="u16", esize=2, dims=[8, 4, 3, 3, 2], lower=[0, -1, 0], upper=[-1, 0, -1], es=[1, 1, 2, 1, 1],
         channels=8, pixels=30, coords=[0, 1, -1, 0, 0], swizzle="128B"),
    dict(name="reduce_4d", kernel="reduce4d", reduce=True,
         what="cp.reduce.async.bulk.tensor .add into a 4d (N H W C) u32 map with the 64B swizzle, corners (-1, -1 | 0, 0), W stride 2",
         type="u32", esize=4, dims=[8, 7, 5, 2], lower=[-1, -1], upper=[0, 0], es=[1, 2, 1, 1],
         channels=8, pixels=40, coords=[0, 1, -1, 0], swizzle="64B"),
]

for c in CASES:
    dims = c["dims"]
    size = int(np.prod(dims))
    hi = 1 << (8 * c["esize"])
    x = rng.integers(0, hi, size=size, dtype=np.uint64)
    init = ints(x)
    src = rng.integers(0, 1 << 32, size=SMEM_WORDS, dtype=np.uint64)
    smem = b"".join(int(w).to_bytes(4, "little") for w in src)
    t = x.reshape(list(reversed(dims))).copy()
    store(t, smem, c, c["reduce"])
    op = "cp.reduce.async.bulk.tensor .add" if c["reduce"] else "cp.async.bulk.tensor"
    coords = ", ".join(f"{{ s32 = {v} }}" for v in c["coords"])
    ic = f"{{ lower = {ints(c['lower'])}, upper = {ints(c['upper'])}, channels = {c['channels']}, pixels = {c['pixels']} }}"
    with open(c["name"] + ".toml", "w") as f:
        f.write(f"""# {op}.{len(dims)}d .im2col_no_offs: {c['what']};
# {c['pixels']} pixels x {c['channels']} channels from shared memory (filled from `src`).
# Expected values: gen_expected.py (numpy, from the PTX ISA's im2col mode with no offsets).
ptx = "im2col_store.ptx"
kernel = "{c['kernel']}"
grid = [1]
block = [1]
args = [{{ tensor_map = "t" }}, {coords}, {{ buffer = "src" }}]

[buffers.x]
type = "{c['type']}"
init = {{ values = {init} }}

[buffers.src]
type = "u32"
init = {{ values = {ints(src)} }}

[tensor_maps.t]
buffer = "x"
type = "{c['type']}"
dims = {ints(dims)}
element_strides = {ints(c['es'])}
swizzle = "{c['swizzle']}"
oob_fill = "zero"
im2col = {ic}

[expect.x]
values = {ints(t.reshape(-1))}
""")
    changed = int((t.reshape(-1) != x).sum())
    print(c["name"], "elements changed:", changed, "of", size)
