#!/usr/bin/env python3
"""Host reference for simt.cu: computes every expected output from C integer semantics and the
CUDA programming guide's definitions of the warp intrinsics (__activemask, __ballot_sync,
__any_sync, __all_sync, __uni_sync, __match_any_sync, __reduce_*_sync) and of
__syncthreads_count/and/or (exited threads do not take part), and writes the case files.
Re-run after changing the kernels:
    python3 simt_ref.py
"""

M32 = 0xffffffff

def s32(x):
    x &= M32
    return x - (1 << 32) if x >= 1 << 31 else x

# ---- calls -------------------------------------------------------------------------------
def mix(a, b):
    t = [s32(a * (i + 1) - b) for i in range(4)]
    return s32(t[a & 3] ^ s32(b << 1))

def chain(a):
    if a % 3 == 0:
        return mix(a, 7)
    return s32(mix(a + 1, a) + 1)

def calls(n):
    out = [0] * (2 * n)
    for i in range(n):
        v = chain(i)
        if i & 1:
            v = s32(v + mix(i, v & 15))
        out[2 * i] = v
        out[2 * i + 1] = s32(v * 2)
    return out

# ---- votes -------------------------------------------------------------------------------
def votes(grid, block):
    gx, gy = grid
    out = [0] * (6 * gx * gy * block)
    for cta in range(gx * gy):
        for w in range((block + 31) // 32):
            lanes = [l for l in range(32) if w * 32 + l < block]
            full = sum(1 << l for l in lanes)
            t = lambda l: w * 32 + l
            p = lambda l: (t(l) * 7 + cta) % 5 < 2
            def ballot(mask, f):
                return sum(1 << l for l in lanes if mask >> l & 1 and f(l))
            for l in lanes:
                o = 6 * (cta * block + t(l))
                out[o] = ballot(full, p)
                if l < 12 or l > 27:
                    m = sum(1 << j for j in lanes if j < 12 or j > 27)
                    out[o + 1] = m
                    anyp = ballot(m, p) != 0
                    allp = ballot(m, lambda j: j < 30) == m
                    out[o + 2] = ballot(m, lambda j: not p(j)) | (0x10000 if anyp else 0) | (0x20000 if allp else 0)
                else:
                    m = sum(1 << j for j in lanes if 12 <= j <= 27)
                    out[o + 1] = m
                    out[o + 2] = sum(t(j) + cta for j in lanes if m >> j & 1) & M32
                key = lambda j: (t(j) // 3 + cta) % 4
                out[o + 3] = ballot(full, lambda j: key(j) == key(l))
                mx = max((t(j) * 37 + cta * 11) % 101 for j in lanes)
                orr = 0
                for j in lanes:
                    orr |= 1 << (t(j) % 13)
                out[o + 4] = (mx ^ (orr << 8)) & M32
                below = ballot(full, p) & ((1 << l) - 1)
                out[o + 5] = bin(below).count("1") + 1000
    return out

# ---- sync_red ------------------------------------------------------------------------------
def sync_red(grid, nt, rounds):
    out = [0] * (3 * grid * nt)
    alive = [t for t in range(nt) if t % 3 != 2]
    for cta in range(grid):
        acc = all_ = any_ = 0
        for r in range(rounds + cta):
            acc += sum(1 for t in alive if (t + r) % 4 == 0)
            if r % 2 == 0:
                all_ += int(all(t < 1000 - r for t in alive))
            else:
                any_ += int(any(t == r for t in alive))
        for t in alive:
            o = 3 * (cta * nt + t)
            out[o:o + 3] = [acc, all_, any_]
    return out

def fmt(vals):
    return "[" + ", ".join(str(v) for v in vals) + "]"

def write(name, header, buffers, expect):
    with open(name + ".toml", "w") as f:
        f.write(header)
        for (b, ty, n) in buffers:
            f.write(f"\n[buffers.{b}]\ntype = \"{ty}\"\nlen = {n}\n")
        for (b, vals) in expect:
            f.write(f"\n[expect.{b}]\nvalues = {fmt(vals)}\n")

N = 300
write("calls", f'''# Non-inlined device functions (.func with .param arguments and results, a local frame,
# nested calls, a void function) called under divergence. Expected values from simt_ref.py.
ptx = "simt.ptx"
kernel = "calls"
grid = [3, 1, 1]
block = [128, 1, 1]
args = [{{ buffer = "out" }}, {{ s32 = {N} }}]
''', [("out", "s32", 2 * N)], [("out", calls(N))])

write("votes", '''# Warp collectives after divergence (activemask, ballot/any/all/uni, match.any, redux
# add/max/or, __syncwarp); 80-thread blocks (a partial last warp), 2D grid.
# Expected values from simt_ref.py.
ptx = "simt.ptx"
kernel = "votes"
grid = [2, 2, 1]
block = [80, 1, 1]
args = [{ buffer = "out" }]
''', [("out", "u32", 6 * 4 * 80)], [("out", votes((2, 2), 80))])

NT = 10 * 3 * 3
write("sync_red", f'''# __syncthreads_count/and/or (bar.red) in a loop whose trip count differs per CTA, inside
# uniform conditionals, after a third of the threads exited; 3D blocks of 90 threads (a
# partial last warp). Expected values from simt_ref.py.
ptx = "simt.ptx"
kernel = "sync_red"
grid = [3, 1, 1]
block = [10, 3, 3]
args = [{{ buffer = "out" }}, {{ s32 = 3 }}]
''', [("out", "s32", 3 * 3 * NT)], [("out", sync_red(3, NT, 3))])
