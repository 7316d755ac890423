#!/usr/bin/env python3
"""Host reference for multicast.toml (multicast.ptx): a 20 x 6 u32 tensor, two clusters of 4
CTAs; rank 0 of cluster k loads the 16 x 4 box at (8k - 4, 1) (cuTensorMapEncodeTiled's box,
zeros out of bounds) into the CTAs of ctaMask 0b1011 (PTX ISA section 9.7.9.25.5.1,
.multicast::cluster: the same data at the same offset in each named CTA); rank 2's tile keeps
its 0xcdcdcdcd fill (numpy)."""
import numpy as np

W, H, BW, BH, CL, GRID, MASK = 20, 6, 16, 4, 4, 8, 0b1011
x = np.arange(1, W * H + 1, dtype=np.uint32).reshape(H, W) * 7
out = []
for cta in range(GRID):
    rank, cluster = cta % CL, cta // CL
    tile = np.full((BH, BW), 0xCDCDCDCD, dtype=np.uint32)
    if MASK >> rank & 1:
        tile[:] = 0
        x0, y0 = 8 * cluster - 4, 1
        for r in range(BH):
            for c in range(BW):
                if 0 <= x0 + c < W and 0 <= y0 + r < H:
                    tile[r, c] = x[y0 + r, x0 + c]
    out += list(tile.reshape(-1))


def ints(v):
    return "[" + ", ".join(str(int(a)) for a in v) + "]"


with open("multicast.toml", "w") as f:
    f.write(f"""# cp.async.bulk.tensor.2d .multicast::cluster, ctaMask 0b1011 from rank 0 of each 4-CTA
# cluster: ranks 0, 1 and 3 get the box and a complete-tx on their own mbarrier, rank 2 keeps
# its fill (multicast.ptx; expected values from gen_expected.py, numpy).
ptx = "multicast.ptx"
kernel = "tma_multicast"
grid = [{GRID}]
block = [32]
cluster = [{CL}]
args = [{{ tensor_map = "t" }}, {{ buffer = "out" }}]

[buffers.x]
type = "u32"
init = {{ values = {ints(x.reshape(-1))} }}

[buffers.out]
type = "u32"
len = {GRID * BW * BH}

[tensor_maps.t]
buffer = "x"
type = "u32"
dims = [{W}, {H}]
box = [{BW}, {BH}]

[expect.out]
values = {ints(out)}
""")
