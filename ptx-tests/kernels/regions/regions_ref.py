#!/usr/bin/env python3
"""Host reference for regions.ptx: computes every expected output from the kernels' C-like
semantics (and, for racy_order, from the documented group-major order across a region's
blocks, src/analysis/region.rs) and writes the case files. Re-run after changing the kernels:
    python3 regions_ref.py
"""

def lcg(seed, n, lo, hi):
    out = []
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) % (1 << 31)
        out.append(lo + x % (hi - lo))
    return out

def cmod(a, b):
    r = abs(a) % abs(b)
    return -r if a < 0 else r

def ifelse(x):
    if x & 1:
        return 3 * x if x > 50 else x + 7
    return x if x < 20 else x - 2

def into_loop(t):
    return sum(k * t + 1 for k in range(cmod(t, 5)))

def racy_order():
    # Groups of four lanes in order; each runs the store block (odd lanes) and then the read
    # block before the next group starts.
    buf = [-1] * 32
    out = [0] * 32
    for g in range(8):
        lanes = range(4 * g, 4 * g + 4)
        for t in lanes:
            if t & 1:
                buf[t] = t + 100
        for t in lanes:
            out[t] = buf[(t + 4) % 32]
    return out

def fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"

def main():
    grid, block, n = 8, 100, 777  # the last CTA's last warp is partial; lanes >= n skip
    inp = lcg(7, grid * block, 0, 100)
    out = [ifelse(x) if t < n else -1 for t, x in enumerate(inp)]
    with open("ifelse.toml", "w") as f:
        f.write(f"""# Nested divergent ifs inside the guard's region, results merging from four paths (block
# parameters); blocks of 100 threads end in a partial warp, and lanes >= n skip the body.
# Expected values from regions_ref.py (host reference).
ptx = "regions.ptx"
kernel = "ifelse"
grid = [{grid}]
block = [{block}]
args = [{{ u32 = {n} }}, {{ buffer = "inp" }}, {{ buffer = "out" }}]

[buffers.inp]
type = "s32"
init = {{ values = {fmt(inp)} }}

[buffers.out]
type = "s32"
len = {grid * block}
init = {{ fill = -1 }}

[expect.out]
values = {fmt(out)}
""")
    grid, block, n = 3, 96, 250
    out = [into_loop(t) if t < n else -1 for t in range(grid * block)]
    with open("into_loop.toml", "w") as f:
        f.write(f"""# The guard's region leaves into a loop whose trip count diverges (t % 5), and the loop's
# exit reaches the store. Expected values from regions_ref.py (host reference).
ptx = "regions.ptx"
kernel = "into_loop"
grid = [{grid}]
block = [{block}]
args = [{{ u32 = {n} }}, {{ buffer = "out" }}]

[buffers.out]
type = "s32"
len = {grid * block}
init = {{ fill = -1 }}

[expect.out]
values = {fmt(out)}
""")
    with open("racy_order.toml", "w") as f:
        f.write(f"""# A racy sm_80 kernel whose result shows the warp order: odd lanes store in a guarded
# block, then every lane reads its neighbour four lanes up. Expected values written from the
# documented group-major order across a region's blocks (regions_ref.py, src/analysis/region.rs):
# only lanes 28-31 see stores (those of lanes 1 and 3). check:: confirms both engines agree.
ptx = "regions.ptx"
kernel = "racy_order"
grid = [1]
block = [32]
args = [{{ buffer = "buf" }}, {{ buffer = "out" }}]

[buffers.buf]
type = "s32"
len = 32
init = {{ fill = -1 }}

[buffers.out]
type = "s32"
len = 32

[expect.out]
values = {fmt(racy_order())}
""")

main()
