#!/usr/bin/env python3
"""Host reference for the interleaved tensor-map cases: writes interleave_16b.toml,
interleave_32b.toml, interleave_narrow_row.toml and interleave_cta_group.toml (the 16B case's
copy with .cta_group::1, which is the copy without it). The tensors are NC/8HWC8 and NC/16HWC16
u16 tensors as the CUDA Driver API's cuTensorMapEncodeTiled describes them (dimension 0 the
channels of one 16- or 32-byte group, then W, H and the channel groups, with the strides given),
loaded one box at a time; dimension 0's element stride counts for interleaved maps, and the
box lands densely in shared memory, permuted by the map's swizzle (CUDA's 32B swizzle: 16-byte
chunk bit 4 XOR byte-address bit 7). Out-of-bound elements read as zero (numpy)."""
import numpy as np

rng = np.random.default_rng(17)


def ints(v):
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def swizzle32(off):
    return off ^ (((off >> 7) & 1) << 4)


def case(fname, what, dims, strides, box, estr, coords, interleave, swizzle, error=None,
         ptx="interleave.ptx"):
    esize = 2
    nbytes = strides[-1] * dims[-1]
    buf = rng.integers(0, 65536, size=nbytes // esize).astype(np.uint16)
    mem = buf.view(np.uint8)
    n = [-(-box[d] // estr[d]) for d in range(4)]
    total = n[0] * n[1] * n[2] * n[3]
    tile = np.zeros(total * esize, dtype=np.uint8)
    lin = 0
    for i3 in range(n[3]):
        for i2 in range(n[2]):
            for i1 in range(n[1]):
                for i0 in range(n[0]):
                    c = [coords[0] + i0 * estr[0], coords[1] + i1 * estr[1],
                         coords[2] + i2 * estr[2], coords[3] + i3 * estr[3]]
                    val = bytes(2)
                    if all(0 <= c[d] < dims[d] for d in range(4)):
                        g = c[0] * esize + c[1] * strides[0] + c[2] * strides[1] + c[3] * strides[2]
                        val = mem[g:g + esize].tobytes()
                    off = lin * esize
                    for k in range(esize):
                        o = off + k
                        tile[swizzle32(o) if swizzle == "32B" else o] = val[k]
                    lin += 1
    words = tile.view(np.uint32)
    args = ", ".join([
        '{ tensor_map = "t" }',
        *[f"{{ s32 = {c} }}" for c in coords],
        f"{{ u32 = {len(words)} }}",
        '{ buffer = "out" }',
    ])
    with open(fname, "w") as f:
        f.write(f"""# {what}
# (gen_expected.py: numpy from the CUDA documentation of cuTensorMapEncodeTiled.)
ptx = "{ptx}"
kernel = "load4d"
grid = [1]
block = [1]
args = [{args}]

[buffers.x]
type = "u16"
init = {{ values = {ints(buf)} }}

[buffers.out]
type = "u32"
len = {len(words)}

[tensor_maps.t]
buffer = "x"
type = "u16"
dims = {ints(dims)}
strides = {ints(strides)}
box = {ints(box)}
element_strides = {ints(estr)}
interleave = "{interleave}"
swizzle = "{swizzle}"
""")
        if error:
            f.write(f"""
[expect_error]
kind = "fault"
contains = "{error}"
""")
        else:
            f.write(f"""
[expect.out]
values = {ints(words)}
""")


case("interleave_16b.toml",
     "cp.async.bulk.tensor.4d of an NC/8HWC8 u16 tensor (CU_TENSOR_MAP_INTERLEAVE_16B): 8 channels\n"
     "# x W 6 x H 5 x 2 groups, a one-pixel pad after each row of W; a box of 8 x 4 (element stride\n"
     "# 2: two pixels) x 3 x 2 from (0, -1, 3, 0), so W -1 and H 5 are out of bounds.",
     dims=[8, 6, 5, 2], strides=[16, 112, 560], box=[8, 4, 3, 2], estr=[1, 2, 1, 1],
     coords=[0, -1, 3, 0], interleave="16B", swizzle="none")
rng = np.random.default_rng(17)
case("interleave_cta_group.toml",
     "The interleave_16b copy with .cta_group::1 (sm_100 family): one CTA, the same box.",
     dims=[8, 6, 5, 2], strides=[16, 112, 560], box=[8, 4, 3, 2], estr=[1, 2, 1, 1],
     coords=[0, -1, 3, 0], interleave="16B", swizzle="none", ptx="interleave_cta_group.ptx")
case("interleave_32b.toml",
     "cp.async.bulk.tensor.4d of an NC/16HWC16 u16 tensor (CU_TENSOR_MAP_INTERLEAVE_32B, which\n"
     "# takes the 32B swizzle): 16 channels x W 5 x H 4 x 2 groups, rows of W 192 bytes apart; a box\n"
     "# of 16 x 4 x 2 x 2 from (0, 2, -1, 1), so W 5, H -1 and group 2 are out of bounds.",
     dims=[16, 5, 4, 2], strides=[32, 192, 768], box=[16, 4, 2, 2], estr=[1, 1, 1, 1],
     coords=[0, 2, -1, 1], interleave="32B", swizzle="32B")
case("interleave_narrow_row.toml",
     "An interleaved (16B) map whose box row is 4 u16 elements (8 bytes): the shared-memory\n"
     "# layout of a row narrower than the interleave group is documented nowhere, so the copy\n"
     "# faults, naming the row and the group.",
     dims=[8, 6, 5, 2], strides=[16, 112, 560], box=[4, 2, 2, 1], estr=[1, 1, 1, 1],
     coords=[0, 0, 0, 0], interleave="16B", swizzle="none",
     error="whose box row is 8 bytes")
