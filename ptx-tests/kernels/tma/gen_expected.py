#!/usr/bin/env python3
"""Host reference for the tensor-copy cases: writes tma_load.toml, tma_load_swizzle.toml and
tma_store.toml from what tma.cu computes with the tensor maps the cases declare, following the
CUDA documentation of cuTensorMapEncodeTiled and the TMA swizzle modes (numpy)."""
import numpy as np

rng = np.random.default_rng(90)
W, H, PITCH = 40, 20, 48          # tensor: 40 x 20 f32, rows 48 floats (192 bytes) apart
BW, BH = 32, 8                    # box
GX, GY, X0, Y0 = 2, 3, -8, -4     # grid and the first box's corner: boxes cover [-8, 56) x [-4, 20)
NAN_FILL = 0x7FFFFFFF             # ptxjit's NaN fill (CUDA names "a special NaN" only)

# The buffer holds the padded rows; padding elements are distinct values a wrong copy would show.
buf = rng.integers(-100, 100, size=(H, PITCH)).astype(np.float32)


def bits(a):
    return np.asarray(a, dtype=np.float32).view(np.uint32)


def box(cx, cy, fill_bits):
    """The box at (cx, cy) as u32 bits, out-of-bound elements as fill_bits."""
    out = np.full((BH, BW), fill_bits, dtype=np.uint32)
    for r in range(BH):
        for c in range(BW):
            x, y = cx + c, cy + r
            if 0 <= x < W and 0 <= y < H:
                out[r, c] = bits(buf[y, x])
    return out


def swizzle128(off):
    """CUDA's 128B swizzle: 16-byte chunk bits 4..6 XOR the 128-byte row bits 7..9."""
    return off ^ (((off >> 7) & 7) << 4)


def raw_load(swizzled, fill_bits):
    raw = []
    for by in range(GY):
        for bx in range(GX):
            b = box(X0 + BW * bx, Y0 + BH * by, fill_bits).reshape(-1)
            tile = np.zeros(BW * BH, dtype=np.uint32)
            for i in range(BW * BH):
                p = swizzle128(4 * i) // 4 if swizzled else i
                tile[p] = b[i]
            raw += list(tile)
    return raw


def ints(v):
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def floats(v):
    return "[" + ", ".join(repr(float(x)) for x in v) + "]"


def tmap(name, buffer, swizzle, fill):
    return f"""[tensor_maps.{name}]
buffer = "{buffer}"
type = "f32"
dims = [{W}, {H}]
strides = [{PITCH * 4}]
box = [{BW}, {BH}]
swizzle = "{swizzle}"
oob_fill = "{fill}"
"""


for fname, swz, fill, fill_bits, what in [
    ("tma_load.toml", "none", "zero", 0, "no swizzle, out-of-bound elements read as zeros"),
    ("tma_load_swizzle.toml", "128B", "nan", NAN_FILL,
     "the 128B swizzle, out-of-bound elements read as NaN (0x7fffffff)"),
]:
    with open(fname, "w") as f:
        f.write(f"""# cp.async.bulk.tensor.2d global -> shared through a __grid_constant__ CUtensorMap ({what}):
# six 32 x 8 boxes of a 40 x 20 f32 tensor with 192-byte rows, starting at (-8, -4), each
# dumped word by word from shared memory (gen_expected.py).
ptx = "tma.ptx"
kernel = "tma_load"
grid = [{GX}, {GY}]
block = [256]
args = [{{ tensor_map = "t" }}, {{ s32 = {X0} }}, {{ s32 = {Y0} }}, {{ buffer = "raw" }}]

[buffers.x]
type = "f32"
init = {{ values = {floats(buf.reshape(-1))} }}

[buffers.raw]
type = "u32"
len = {GX * GY * BW * BH}

{tmap("t", "x", swz, fill)}
[expect.raw]
values = {ints(raw_load(swz == "128B", fill_bits))}
""")

out0 = np.full((H, PITCH), -1000.5, dtype=np.float32)
acc0 = rng.integers(-100, 100, size=(H, PITCH)).astype(np.float32)
out1, acc1 = out0.copy(), acc0.copy()
out1[:, :W] = 2 * buf[:, :W]
acc1[:, :W] = acc0[:, :W] + 2 * buf[:, :W]
with open("tma_store.toml", "w") as f:
    f.write(f"""# Tensor copies back to global memory: boxes of `in` doubled in shared memory, stored to `out`
# (cp.async.bulk.tensor.2d.global.shared::cta: out-of-bound elements of a box are not written,
# the padding of each row keeps its value) and added into `acc` (cp.reduce.async.bulk.tensor
# .add on f32), with the 128B swizzle on all three maps (gen_expected.py).
ptx = "tma.ptx"
kernel = "tma_store"
grid = [{GX}, {GY}]
block = [256]
args = [{{ tensor_map = "in" }}, {{ tensor_map = "out" }}, {{ tensor_map = "acc" }}, {{ s32 = {X0} }}, {{ s32 = {Y0} }}]

[buffers.x]
type = "f32"
init = {{ values = {floats(buf.reshape(-1))} }}

[buffers.out]
type = "f32"
init = {{ values = {floats(out0.reshape(-1))} }}

[buffers.acc]
type = "f32"
init = {{ values = {floats(acc0.reshape(-1))} }}

{tmap("in", "x", "128B", "zero")}
{tmap("out", "out", "128B", "zero")}
{tmap("acc", "acc", "128B", "zero")}
[expect.out]
values = {floats(out1.reshape(-1))}

[expect.acc]
values = {floats(acc1.reshape(-1))}
""")
