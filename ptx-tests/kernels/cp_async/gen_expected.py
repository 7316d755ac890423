#!/usr/bin/env python3
"""Host reference for the cp_async cases: writes reverse4.toml, zfill16.toml, block_copy.toml
and cp_async_dyn.toml (inputs and expected outputs) from what the CUDA source and the PTX ISA's
cp.async (§9.7.9.25) say: the first src-size bytes come from src, the rest of cp-size are zero;
a true ignore-src copies zeros. Inputs are small integers and halves, so every float sum below
is exact in f32.
"""
import random, struct

rng = random.Random(8)

def fl(vals):
    return "[" + ", ".join(repr(float(v)) for v in vals) + "]"

def ints(vals):
    return "[" + ", ".join(str(v) for v in vals) + "]"

def write(name, head, body):
    with open(name, "w") as f:
        f.write(head.strip() + "\n" + body)

# reverse4: n = 600 floats, 3 CTAs of 256.
n = 600
x = [rng.randrange(-512, 512) / 2 for _ in range(n)]
out = [0.0] * 768
for i in range(n):
    blk, t = divmod(i, 256)
    j = blk * 256 + 255 - t
    if j < n:
        out[i] = x[j] * 2.0
write("reverse4.toml", """
# __pipeline_memcpy_async of one float per thread (cp.async.ca ... 4, 4), commit, wait, then
# out[i] = 2 * tile[255 - t] where both i and its mirror are below n = 600 (gen_expected.py).
ptx = "cp_async.ptx"
kernel = "reverse4"
grid = [3]
block = [256]
args = [{ buffer = "x" }, { buffer = "out" }, { s32 = 600 }]
""", f"""
[buffers.x]
type = "f32"
init = {{ values = {fl(x)} }}

[buffers.out]
type = "f32"
len = 768

[expect.out]
values = {fl(out)}
""")

# zfill16: n = 200 float4s, 2 CTAs of 128 (256 threads): threads >= n load zeros.
n4 = 200
v = [rng.randrange(-64, 64) / 4 for _ in range(4 * 256)]
res = [0.0] * (4 * 256)
for i in range(256):
    blk, t = divmod(i, 128)
    j = blk * 128 + 127 - t
    src = v[4 * j:4 * j + 4] if j < n4 else [0.0] * 4
    res[4 * i:4 * i + 4] = [src[0] + 1.0, src[1], src[2], src[3]]
write("zfill16.toml", """
# __pipeline_memcpy_async of a float4 per thread with zero fill past n = 200 (cp.async.cg ...
# 16, 16 and 16, 0): out[i] = tile[127 - t] with x + 1; zero-filled slots give (1, 0, 0, 0).
ptx = "cp_async.ptx"
kernel = "zfill16"
grid = [2]
block = [128]
args = [{ buffer = "x" }, { buffer = "out" }, { s32 = 200 }]
""", f"""
[buffers.x]
type = "f32"
init = {{ values = {fl(v)} }}

[buffers.out]
type = "f32"
len = 1024

[expect.out]
values = {fl(res)}
""")

# block_copy: 3 CTAs of 128 threads, 512 floats each.
y = [rng.randrange(-100, 100) for _ in range(3 * 512)]
bo = []
for blk in range(3):
    tile = y[blk * 512:(blk + 1) * 512]
    for t in range(128):
        bo.append(float(tile[t] + tile[t + 128] + tile[t + 256] + tile[511 - t]))
write("block_copy.toml", """
# cooperative_groups::memcpy_async of 512 floats per CTA, cg::wait, then
# out[b*128 + t] = tile[t] + tile[t+128] + tile[t+256] + tile[511-t].
ptx = "cp_async.ptx"
kernel = "block_copy"
grid = [3]
block = [128]
args = [{ buffer = "x" }, { buffer = "out" }]
""", f"""
[buffers.x]
type = "f32"
init = {{ values = {fl(y)} }}

[buffers.out]
type = "f32"
len = 384

[expect.out]
values = {fl(bo)}
""")

# cp_async_dyn: 64 threads, 16 input bytes each.
T = 64
data = [rng.randrange(1, 256) for _ in range(16 * T)]  # nonzero, so zeros show
outb = []
for t in range(T):
    src = data[16 * t:16 * t + 16]
    k = t % 17
    slot = src[:k] + [0] * (16 - k)
    slot += [0] * 8 if t % 2 else src[:8]
    slot += src[8:13] + [0] * 3
    outb += slot
write("cp_async_dyn.toml", """
# Hand-written cp.async forms: a register src-size (t % 17 of 16 bytes), an ignore-src predicate
# (odd threads copy zeros), a constant partial src-size 5 of 8 (cp_async_dyn.ptx).
ptx = "cp_async_dyn.ptx"
kernel = "cp_async_dyn"
grid = [1]
block = [64]
args = [{ buffer = "x" }, { buffer = "out" }]
""", f"""
[buffers.x]
type = "u8"
init = {{ values = {ints(data)} }}

[buffers.out]
type = "u8"
len = {32 * T}

[expect.out]
values = {ints(outb)}
""")
