#!/usr/bin/env python3
"""Host reference for the bulk-copy cases: writes bulk_tile.toml and async_stores.toml (inputs
and expected outputs) from what bulk.cu computes, with plain integer arithmetic."""
import random

rng = random.Random(90)
N, CTAS = 256, 2


def ints(vals):
    return "[" + ", ".join(str(v) for v in vals) + "]"


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


x = [rng.randrange(-1000, 1000) for _ in range(N * CTAS)]
acc = [rng.randrange(-1000, 1000) for _ in range(N * CTAS)]
mx = [rng.randrange(-1000, 1000) for _ in range(N * CTAS)]
out, acc2, mx2 = [], [], []
for c in range(CTAS):
    tile = x[c * N:(c + 1) * N]
    out += [3 * tile[i] + tile[(i + 1) % N] for i in range(N)]
    acc2 += [acc[c * N + i] + 2 * tile[i] for i in range(N)]
    mx2 += [max(mx[c * N + i], tile[i] - 7) for i in range(N)]
with open("bulk_tile.toml", "w") as f:
    f.write(f"""# cuda::memcpy_async with cuda::barrier (cp.async.bulk global -> shared, expect_tx), a bulk
# copy back (cp.async.bulk.global.shared::cta.bulk_group), bulk reductions .add.s32 and
# .max.s32 into global memory, commit_group / wait_group{{.read}} (gen_expected.py).
ptx = "bulk.ptx"
kernel = "bulk_tile"
grid = [{CTAS}]
block = [{N}]
args = [{{ buffer = "x" }}, {{ buffer = "out" }}, {{ buffer = "acc" }}, {{ buffer = "mx" }}]

[buffers.x]
type = "s32"
init = {{ values = {ints(x)} }}

[buffers.out]
type = "s32"
len = {N * CTAS}

[buffers.acc]
type = "s32"
init = {{ values = {ints(acc)} }}

[buffers.mx]
type = "s32"
init = {{ values = {ints(mx)} }}

[expect.out]
values = {ints(out)}

[expect.acc]
values = {ints(acc2)}

[expect.mx]
values = {ints(mx2)}
""")

out = []
for c in range(CTAS):
    xs = x[c * N:(c + 1) * N]
    cnt = [0] * 8
    for t in range(N):
        cnt[t % 8] = (cnt[t % 8] + xs[t]) & 0xFFFFFFFF
    out += [s32(xs[(t + 3) % N] ** 2 + cnt[t % 8]) for t in range(N)]
with open("async_stores.toml", "w") as f:
    f.write(f"""# st.async .b32 and red.async .add.u32 into .shared::cluster (this CTA: a cluster of one),
# each completing tx bytes on an mbarrier the threads wait on with try_wait.parity:
# out[t] = x[t+3]^2 + (sum of x[u] for u = t mod 8) (gen_expected.py).
ptx = "bulk.ptx"
kernel = "async_stores"
grid = [{CTAS}]
block = [{N}]
args = [{{ buffer = "x" }}, {{ buffer = "out" }}]

[buffers.x]
type = "s32"
init = {{ values = {ints(x)} }}

[buffers.out]
type = "s32"
len = {N * CTAS}

[expect.out]
values = {ints(out)}
""")
