#!/usr/bin/env python3
"""Host reference for red_combine.ptx: global reductions whose result is not used (the
JIT combines them per worker thread, src/jit/combine.rs). Computes every expected value
with numpy / Python integers and writes the inputs, expected outputs and case files.
    python3 gen.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402

M32, M64 = (1 << 32) - 1, (1 << 64) - 1
rng = np.random.default_rng(19)


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


# ---- hist: one launch, and the same launch twice in a row (a pipeline) ----
N = 50000
data = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
x0 = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
gc.save_npy(HERE, "hist_data", data)
gc.save_npy(HERE, "hist_x_in", x0)
gc.save_npy(HERE, "hist_a64_in", np.full(4, (1 << 64) - 1, np.uint64))
SMIN0, SMAX0 = (1 << 31) - 1, -(1 << 63)
A64_0 = M64


def hist(times):
    bins = [0] * 256
    bins2 = [0] * 256
    wide = [0] * 16
    smin = [SMIN0] * 8
    smax = [SMAX0] * 8
    x = [int(v) for v in x0]
    a64 = [A64_0] * 4
    umx = [0] * 4
    for _ in range(times):
        for w in (int(v) for v in data):
            b = w & 255
            bins[b] = (bins[b] + 1) & M32
            bins2[b] = (bins2[b] + (w >> 24)) & M32
            wide[b & 15] = (wide[b & 15] + w) & M64
            smin[b & 7] = min(smin[b & 7], s32(w))
            smax[b & 7] = max(smax[b & 7], s32(w) * 3)
            x[b & 31] ^= w
            a64[b & 3] &= ~(1 << (w & 63)) & M64
            umx[b & 3] = max(umx[b & 3], w)
    return {
        "bins": np.array(bins, np.uint32),
        "bins2": np.array(bins2, np.uint32),
        "wide": np.array(wide, np.uint64),
        "smin": np.array(smin, np.int32),
        "smax": np.array(smax, np.int64),
        "x": np.array(x, np.uint32),
        "a64": np.array(a64, np.uint64),
        "umx": np.array(umx, np.uint32),
    }


HIST_TYPES = {"bins": "u32", "bins2": "u32", "wide": "u64", "smin": "s32", "smax": "s64",
              "x": "u32", "a64": "u64", "umx": "u32"}
HIST_INIT = {
    "bins": 'init = { fill = 0 }\nlen = 256',
    "bins2": 'init = { fill = 0 }\nlen = 256',
    "wide": 'init = { fill = 0 }\nlen = 16',
    "smin": f'init = {{ fill = {SMIN0} }}\nlen = 8',
    "smax": f'init = {{ fill = {SMAX0} }}\nlen = 8',
    "x": 'init = { file = "hist_x_in.npy" }',
    "a64": 'init = { file = "hist_a64_in.npy" }',
    "umx": 'init = { fill = 0 }\nlen = 4',
}
HIST_ARGS = ('[{ buffer = "data" }, { u32 = %d }, { buffer = "bins" }, { buffer = "bins2" }, '
             '{ buffer = "wide" }, { buffer = "smin" }, { buffer = "smax" }, { buffer = "x" }, '
             '{ buffer = "a64" }, { buffer = "umx" }]' % N)


def hist_buffers():
    out = gc.buffer_from_file("data", "hist_data.npy")
    for k, t in HIST_TYPES.items():
        out += f'\n[buffers.{k}]\ntype = "{t}"\n{HIST_INIT[k]}\n'
    return out


for times, name in [(1, "hist"), (2, "hist_twice")]:
    exp = hist(times)
    text = (f"# Grid-stride reductions of {N} random words (red.add/min/max/xor/and/max of\n"
            "# u32, s32, u64, s64, and atom.add with a dead destination); "
            + ("one launch.\n" if times == 1 else "the same launch twice in a row.\n")
            + "# Expected from gen.py (host).\n"
            + 'ptx = "red_combine.ptx"\n')
    launch = f'kernel = "hist"\ngrid = [16, 1, 1]\nblock = [128, 1, 1]\nargs = {HIST_ARGS}\n'
    if times == 1:
        text += launch
    else:
        text += "\n[[launch]]\n" + launch + "\n[[launch]]\n" + launch
    text += "\n" + hist_buffers()
    for k, v in exp.items():
        gc.save_npy(HERE, f"{name}_{k}", v)
        text += "\n" + gc.expect_exact(k, f"{name}_{k}.npy")
    gc.write_text(HERE, f"{name}.toml", text)

# ---- mixed ----
T = 1000
m0 = rng.integers(0, 1 << 32, T, dtype=np.uint64).astype(np.uint32)
w0 = rng.integers(0, 1 << 63, T, dtype=np.uint64) * 2 + 1
r0 = rng.integers(0, 1 << 20, T, dtype=np.uint64).astype(np.uint32)
c0 = rng.integers(0, 1 << 20, T, dtype=np.uint64).astype(np.uint32)
m, w, r, out, c, got = [], [], [], [], [], []
for t in range(T):
    v = int(m0[t])
    v = (v + 0x80) & M32
    v |= 0x100
    v = (v + 0x80) & M32
    v ^= 0xFF00FF
    v &= 0xFFFFFFF0
    m.append(v)
    x = (t * 2654435761) & M64
    y = (t * 40503) & M32
    z = x ^ 0xAAAAAAAAAAAAAAAA
    u = (int(w0[t]) + x) & M64
    u = (u + (y << 32)) & M64
    u ^= z
    w.append(u)
    rv = (int(r0[t]) + 7) & M32
    out.append(rv)
    r.append(((rv * 2) + 3) & M32)
    got.append((int(c0[t]) + 5) & M32)
    c.append((int(c0[t]) + 7) & M32)
for k, a in [("m_in", m0), ("w64_in", w0), ("r_in", r0), ("c_in", c0)]:
    gc.save_npy(HERE, f"mixed_{k}", a)
exp = {"m": np.array(m, np.uint32), "w64": np.array(w, np.uint64), "r": np.array(r, np.uint32),
       "out": np.array(out, np.uint32), "c": np.array(c, np.uint32),
       "got": np.array(got, np.uint32)}
text = ("# Per thread, in program order on its own words: add then or then add, xor, and on\n"
        "# one word; a u64 add, a u32 add on its upper half, a u64 xor; a red then a load of\n"
        "# the same word (sees its own reduction), a store, more reds; a red then an atom\n"
        "# with a used result. Expected from gen.py (host).\n"
        'ptx = "red_combine.ptx"\nkernel = "mixed"\ngrid = [8, 1, 1]\nblock = [128, 1, 1]\n'
        'args = [{ buffer = "m" }, { buffer = "w64" }, { buffer = "r" }, { buffer = "out" }, '
        '{ buffer = "c" }, { buffer = "got" }, { u32 = %d }]\n\n' % T)
text += gc.buffer_from_file("m", "mixed_m_in.npy") + "\n"
text += gc.buffer_from_file("w64", "mixed_w64_in.npy", "u64") + "\n"
text += gc.buffer_from_file("r", "mixed_r_in.npy") + "\n"
text += f'[buffers.out]\ntype = "u32"\nlen = {T}\ninit = {{ fill = 0 }}\n\n'
text += gc.buffer_from_file("c", "mixed_c_in.npy") + "\n"
text += f'[buffers.got]\ntype = "u32"\nlen = {T}\ninit = {{ fill = 0 }}\n'
for k, v in exp.items():
    gc.save_npy(HERE, f"mixed_{k}", v)
    text += "\n" + gc.expect_exact(k, f"mixed_{k}.npy")
gc.write_text(HERE, "mixed.toml", text)

# ---- handoff ----
NT = 256
gc.save_npy(HERE, "handoff_out", np.array([NT * (NT + 1) // 2], np.uint32))
gc.write_text(HERE, "handoff.toml",
              "# CTA 0 reduces tid+1 into sum, then membar.gl and red.release count += 1 per\n"
              "# thread; CTA 1 waits (ld.acquire) for the count and reads sum: 1 + ... + 256.\n"
              'ptx = "red_combine.ptx"\nkernel = "handoff"\ngrid = [2, 1, 1]\n'
              f'block = [{NT}, 1, 1]\n'
              'args = [{ buffer = "sum" }, { buffer = "count" }, { buffer = "out" }]\n\n'
              '[buffers.sum]\ntype = "u32"\nlen = 1\ninit = { fill = 0 }\n\n'
              '[buffers.count]\ntype = "u32"\nlen = 1\ninit = { fill = 0 }\n\n'
              '[buffers.out]\ntype = "u32"\nlen = 1\ninit = { fill = 0 }\n\n'
              + gc.expect_exact("out", "handoff_out.npy"))

# ---- badred ----
bins = [0] * 4
for t in range(32):
    if t != 13:
        bins[t % 4] += 1
gc.save_npy(HERE, "badred_bins", np.array(bins, np.uint32))
gc.write_text(HERE, "badred.toml",
              "# One warp reduces into bins[t % 4]; thread 13's address lies far outside\n"
              "# memory: the launch faults naming it, the other 31 threads' reductions count.\n"
              'ptx = "red_combine.ptx"\nkernel = "badred"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n'
              'args = [{ buffer = "bins" }]\n\n'
              '[buffers.bins]\ntype = "u32"\nlen = 4\ninit = { fill = 0 }\n\n'
              + gc.expect_exact("bins", "badred_bins.npy")
              + '\n[expect_error]\nkind = "fault"\ncontains = "thread (13,0,0)"\n')
