#!/usr/bin/env python3
"""Host reference for control_flow.cu: computes every expected output from the C semantics
(integer arithmetic, C's truncating % and /) and the CUDA programming guide's definitions of the
__shfl_*_sync intrinsics, and writes the case files. Re-run after changing the kernels:
    python3 control_flow_ref.py
"""

def cmod(a, b):
    r = abs(a) % abs(b)
    return -r if a < 0 else r

def wrap32(x):
    x &= 0xffffffff
    return x - (1 << 32) if x >= 1 << 31 else x

def nested_loops(t):
    acc = 0
    i = 0
    while i < cmod(t, 7) + 3:
        if cmod(i + t, 3) == 0:
            i += 1
            continue
        for j in range(i):
            if cmod(j * t, 5) == 4:
                break
            acc += i * j + 1
        if acc > 20 + cmod(t, 50):
            break
        i += 1
    return acc

def early_exit(t, out):
    if t % 3 == 0:
        return
    if t % 5 == 1:
        out[t] = 1
        return
    v = 2
    for k in range(t % 11):
        if k == 7 and t % 2 == 0:
            return
        v = cmod(v * 3, 1000) + k
    out[t] = v

def barrier_loop(grid, n, steps):
    out = []
    for b in range(grid):
        v = [t + b * 1000 for t in range(n)]
        for step in range(steps):
            s = list(v)
            if b % 2 == 0:
                v = [s[(t + 1) % n] + step for t in range(n)]
            else:
                v = [cmod(s[(t + n - 1) % n] * 2 - step, 100003) for t in range(n)]
            if step % 3 == 2:
                s = [x ^ step for x in v]
                v = [s[n - 1 - t] for t in range(n)]
        out.extend(v)
    return out

def shfl_divergent(grid, block):
    out = []
    for b in range(grid):
        for w0 in range(0, block, 32):
            ts = [b * block + w0 + l for l in range(32)]
            v = []
            for l, t in enumerate(ts):
                x = t * 7 + 3
                if l % 3 == 0:
                    x += 100
                elif l % 3 == 1:
                    x = x * 2
                v.append(x)
            v = [wrap32(v[l] + v[l ^ 1]) for l in range(32)]
            v = [wrap32(v[l] + (v[l + 3] if l + 3 < 32 else v[l])) for l in range(32)]
            v = [wrap32(v[l] + (v[l - 5] if l >= 5 else v[l])) for l in range(32)]
            v = [wrap32(v[l] + v[(l * 5) % 32]) for l in range(32)]
            nv = []
            for l in range(32):
                if l < 16:
                    src = l + 2 if (l % 16) + 2 < 16 else l
                    nv.append(wrap32(v[l] + v[src]))
                else:
                    nv.append(wrap32(v[l] - v[l ^ 4]))
            out.extend(nv)
    return out

def grid3d(g, bl):
    W, H, D = g[0] * bl[0], g[1] * bl[1], g[2] * bl[2]
    out = [0] * (W * H * D)
    for bz in range(g[2]):
        for by in range(g[1]):
            for bx in range(g[0]):
                for tz in range(bl[2]):
                    for ty in range(bl[1]):
                        for tx in range(bl[0]):
                            x, y, z = bx * bl[0] + tx, by * bl[1] + ty, bz * bl[2] + tz
                            out[(z * H + y) * W + x] = tx + 10 * ty + 100 * tz + 1000 * bx + 10000 * by + 100000 * bz
    return out

def fmt(v):
    return "[" + ", ".join(str(x) for x in v) + "]"

def case(name, comment, grid, block, args, buffers, expect):
    text = f"# {comment}\n# Expected values from control_flow_ref.py (host reference).\n"
    text += f'ptx = "control_flow.ptx"\nkernel = "{name}"\ngrid = {grid}\nblock = {block}\nargs = {args}\n'
    for b, (ty, n, init) in buffers.items():
        text += f"\n[buffers.{b}]\ntype = \"{ty}\"\nlen = {n}\n"
        if init is not None:
            text += f"init = {init}\n"
    for b, vals in expect.items():
        text += f"\n[expect.{b}]\nvalues = {fmt(vals)}\n"
    open(f"{name}.toml", "w").write(text)

n = 8 * 64
case("nested_loops", "Nested loops with per-lane trip counts, continue and break.", [8, 1, 1], [64, 1, 1],
     '[{ buffer = "out" }]', {"out": ("s32", n, None)}, {"out": [nested_loops(t) for t in range(n)]})

n = 8 * 100
out = [-1] * n
for t in range(n):
    early_exit(t, out)
case("early_exit", "Divergent early returns, including from inside a loop; blocks of 100 threads end in a partial warp.",
     [8, 1, 1], [100, 1, 1], '[{ buffer = "out" }]', {"out": ("s32", n, "{ fill = -1 }")}, {"out": out})

case("barrier_loop", "Barriers inside a loop and inside uniform conditionals, with shared memory exchanges.",
     [6, 1, 1], [128, 1, 1], '[{ buffer = "out" }, { s32 = 9 }]', {"out": ("s32", 6 * 128, None)},
     {"out": barrier_loop(6, 128, 9)})

case("shfl_divergent", "Shuffles after divergence (xor/down/up/idx with full masks) and with partial member masks inside divergent code.",
     [4, 1, 1], [96, 1, 1], '[{ buffer = "out" }]', {"out": ("s32", 4 * 96, None)}, {"out": shfl_divergent(4, 96)})

g, bl = [3, 2, 2], [4, 3, 5]
case("grid3d", "A 3D grid of 3D blocks: every special register component.", g, bl, '[{ buffer = "out" }]',
     {"out": ("s32", 720, None)}, {"out": grid3d(g, bl)})
