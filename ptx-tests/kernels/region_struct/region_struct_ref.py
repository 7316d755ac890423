#!/usr/bin/env python3
"""Host reference for region_struct.ptx: computes every expected output from the kernels'
C-like semantics (32-bit two's complement) and writes the case files. Re-run after changing
the kernels:
    python3 region_struct_ref.py
"""

def lcg(seed, n, lo, hi):
    out = []
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) % (1 << 31)
        # The high bits: the low bits of this LCG have short periods (bit 0 alternates).
        out.append(lo + (x >> 8) % (hi - lo))
    return out

def s32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x

def fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"

# Per kernel: words per struct, and the output struct from the input struct (None: not stored).
KERNELS = {
    "swz4": (4, lambda s: [s[3], s[2], s32(s[1] ^ 0x55), s32(s[0] + 7)]),
    "copy4v": (4, lambda s: list(s)),
    "copy3": (3, lambda s: list(s)),
    "swz3": (3, lambda s: [s[2], s32(s[0] + 1), s32(s[1] ^ 0xFF)]),
    "swz2": (2, lambda s: [s[1], s[0]]),
    "cond4": (4, lambda s: [s[3], s[2], s[1], s[0]] if s[0] & 1 else None),
    "copy4_2d": (4, lambda s: list(s)),
}

def case(name, comment, kernel, grid, block, n, xoff=0, yoff=0, seed=7):
    """Thread i < n maps struct i of x (from byte `xoff`) to struct i of y (from byte `yoff`);
    every other word of y keeps its fill, -1. `i` is ctaid.x * ntid.x + tid.x, except in
    copy4_2d (the linear thread index): the rows of a 2-D CTA in the other kernels write the
    same structs with the same values."""
    words, f = KERNELS[kernel]
    threads = grid * block[0]
    if kernel == "copy4_2d":
        for b in block[1:]:
            threads *= b
    xw, yw = xoff // 4, yoff // 4
    x = lcg(seed, xw + words * threads, -1000000, 1000000)
    y = [-1] * (yw + words * threads)
    for i in range(min(n, threads)):
        out = f(x[xw + words * i: xw + words * (i + 1)])
        if out is not None:
            y[yw + words * i: yw + words * (i + 1)] = out
    text = "".join(f"# {line}\n" for line in comment.strip().split("\n"))
    text += 'ptx = "region_struct.ptx"\n'
    text += f'kernel = "{kernel}"\n'
    text += f"grid = [{grid}]\n"
    text += f"block = {fmt(block)}\n"
    xa = '{ buffer = "x"' + (f", offset = {xoff}" if xoff else "") + " }"
    ya = '{ buffer = "y"' + (f", offset = {yoff}" if yoff else "") + " }"
    text += f"args = [{{ u32 = {n} }}, {xa}, {ya}]\n"
    text += f'\n[buffers.x]\ntype = "s32"\ninit = {{ values = {fmt(x)} }}\n'
    text += f'\n[buffers.y]\ntype = "s32"\nlen = {len(y)}\ninit = {{ fill = -1 }}\n'
    text += f"\n[expect.y]\nvalues = {fmt(y)}\n"
    with open(name + ".toml", "w") as out:
        out.write(text)

REF = "Expected values from region_struct_ref.py (host reference)."

case("swz4_tail", f"""int4 members swizzled, n = 299: the last warp inside the guard has 11 lanes
(its third group 3 lanes), full warps before it. {REF}""", "swz4", 3, [128], 299)
case("swz4_off", f"""int4 members swizzled, x 4 bytes past a 16-byte boundary (each struct's members
4-byte aligned, the struct not 16-byte aligned); every warp full. {REF}""",
     "swz4", 3, [128], 384, xoff=4)
case("copy4v_tail", f"""int4 copied with ld.global.nc.v4.u32 / st.global.v4.u32, n = 301 (the last warp
inside the guard has 13 lanes). {REF}""", "copy4v", 3, [128], 301, xoff=16)
case("copy3_off", f"""int3 copied member by member, x 4 and y 8 bytes into their buffers, n = 383 (the
last warp 31 lanes). {REF}""", "copy3", 3, [128], 383, xoff=4, yoff=8)
case("swz3_tail", f"""int3 members swizzled, loaded and stored out of memory order, CTAs of 96 threads,
n = 250 (the last warp inside the guard has 26 lanes). {REF}""", "swz3", 3, [96], 250)
case("swz2", f"""int2 members swapped (ld/st.global.v2.u32), x 8 bytes past a 16-byte boundary,
n = 254. {REF}""", "swz2", 2, [128], 254, xoff=8)
case("cond4", f"""int4 loaded by every lane inside the guard, stored reversed only by lanes whose
first member is odd (a block only some lanes of a group run), n = 380. {REF}""",
     "cond4", 3, [128], 380)
case("swz4_2d", f"""int4 members swizzled by ctaid.x * ntid.x + tid.x in 2-D CTAs of 32 x 4 threads
(each warp one row; the four rows write the same structs), n = 90. {REF}""",
     "swz4", 3, [32, 4], 90)
case("copy4_2d_8x8", f"""int4 copied by the linear thread index of 2-D CTAs of 8 x 8 threads (each warp
four rows), n = 300. {REF}""", "copy4_2d", 5, [8, 8], 300)
