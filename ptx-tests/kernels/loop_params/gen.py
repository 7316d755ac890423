#!/usr/bin/env python3
"""Writes loop_params's cases with their expected values, computed here on the host (a
thread at a time: the loops have no cross-lane effects)."""

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def thread(gid, tid, n):
    trips = (7 * gid & M32) % 11 + (1 if tid < 32 else 0)
    acc, i, w, t, flag = 1.0, gid, 3 * gid, 0, n != 0
    for _ in range(trips):
        acc += float(s32(i))  # small integers: every sum is exact in f32
        i = (i - 5) & M32
        w = (w - 7) & M64
        t = (t + (1 if flag else 2)) & M32
        flag = not flag
    old = 0
    if trips:
        j = gid
        for _ in range(trips):
            old = j
            j = (j + 3) & M32
        old = (old * 1000 + old) & M32
    return acc, (i + t) & M32, w, old


def case(name, grid, block, n, comment):
    f, iv, wv, ov = [], [], [], []
    for c in range(grid):
        for t in range(block):
            a, b, w, o = thread(c * block + t, t, n)
            assert abs(a) < 2**24
            f.append(a)
            iv.append(b)
            wv.append(w)
            ov.append(o)
    size = grid * block
    fmt = lambda xs: ", ".join(
        repr(x) if isinstance(x, float) else f"\"{x}\"" if x >= 2**63 else str(x) for x in xs
    )
    text = f"""# {comment}
# Expected values from gen.py (host arithmetic).
ptx = "loop_params.ptx"
kernel = "loop_params"
grid = [{grid}, 1, 1]
block = [{block}, 1, 1]
args = [{{ buffer = "f" }}, {{ buffer = "i" }}, {{ buffer = "w" }}, {{ buffer = "old" }}, {{ u32 = {n} }}]

[buffers.f]
type = "f32"
len = {size}

[buffers.i]
type = "u32"
len = {size}

[buffers.w]
type = "u64"
len = {size}

[buffers.old]
type = "u32"
len = {size}

[expect.f]
values = [{fmt(f)}]
tolerance = "exact"

[expect.i]
values = [{fmt(iv)}]
tolerance = "exact"

[expect.w]
values = [{fmt(wv)}]
tolerance = "exact"

[expect.old]
values = [{fmt(ov)}]
tolerance = "exact"
"""
    with open(f"{name}.toml", "w") as out:
        out.write(text)


case("loop_params", 2, 96, 1,
     "Lanes leave each loop in different trips (0 to 11), all lanes of each CTA's first warp enter; f32, u32, u64 and predicate loop parameters, strides -5 and -7, a counter also read after the loop.")
case("loop_params_partial", 3, 80, 0,
     "As loop_params with a partial last warp per CTA (80 threads) and the predicate starting false.")
