#!/usr/bin/env python3
"""Writes lane_eq's cases with their expected values, computed here on the host.

Each thread's word has one bit per compare of lane_eq.ptx that holds for it; `last` gets
the word of thread `ug` of each CTA.
"""

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def word(tid, cta, ua, ub, uc, ud, ue):
    w = 0
    if tid == (ua + cta) & M32:
        w |= 1
    r5 = (3 * tid + 2) & M32
    if r5 == ub & M32:
        w |= 2
    if r5 == (ub + 1) & M32:
        w |= 4
    if (1000 - 5 * tid) & M32 == uc & M32:
        w |= 8
    r9 = (tid - 40) & M32
    if r9 == ud & M32:
        w |= 16
    if r9 == ue & M64:  # zero-extended
        w |= 32
    if (s32(r9) * -8) & M64 == s32((ud * -8) & M32) & M64:
        w |= 64
    if (2 * tid) & M32 == (ub - 82) & M32:
        w |= 128
    if (ub - 81) & M32 == (2 * tid) & M32:
        w |= 256
    return w


def case(name, grid, block, ua, ub, uc, ud, ue, ug, comment):
    out = [word(t, c, ua, ub, uc, ud, ue) for c in range(grid) for t in range(block)]
    last = [word(ug, c, ua, ub, uc, ud, ue) if ug < block else 0 for c in range(grid)]
    # hits[c]: a u64 (low word c + 1, high word tid) from the lane with bit 2, a u32 from
    # the lane with bit 128 (one lane per CTA each); word 3 untouched.
    hits = [0] * (4 * grid)
    for c in range(grid):
        for t in range(block):
            w = word(t, c, ua, ub, uc, ud, ue)
            if w & 2:
                hits[4 * c] = c + 1
                hits[4 * c + 1] = t
            if w & 128:
                hits[4 * c + 2] = t + 1000
    # Every bit that can be set is, in some thread (the compares are not all false).
    bits = 0
    for w in out:
        bits |= w
    assert bits == 1 | 2 | 8 | 16 | 32 | 64 | (128 if name == "lane_eq" else 0), (name, bits)
    with open(f"{name}.toml", "w") as f:
        f.write(f"# {comment}\n# Expected values from gen.py (host arithmetic).\n")
        f.write('ptx = "lane_eq.ptx"\nkernel = "lane_eq"\n')
        f.write(f"grid = [{grid}, 1, 1]\nblock = [{block}, 1, 1]\n")
        f.write(
            'args = [{ buffer = "out" }, { buffer = "last" }, '
            f"{{ u32 = {ua} }}, {{ u32 = {ub} }}, {{ u32 = {uc} }}, {{ u32 = {ud} }}, "
            f"{{ u64 = {ue} }}, {{ u32 = {ug} }}, {{ buffer = \"hits\" }}]\n\n"
        )
        f.write(f'[buffers.out]\ntype = "u32"\nlen = {len(out)}\n\n')
        f.write(f'[buffers.last]\ntype = "u32"\nlen = {grid}\n\n')
        f.write(f'[buffers.hits]\ntype = "u32"\nlen = {4 * grid}\n\n')
        f.write(f'[expect.hits]\nvalues = {hits}\ntolerance = "exact"\n\n')
        f.write(f'[expect.out]\nvalues = {out}\ntolerance = "exact"\n\n')
        f.write(f'[expect.last]\nvalues = {last}\ntolerance = "exact"\n')


case("lane_eq", 3, 96, 40, 152, 650, 5, 5, 0,
     "Three full warps per CTA: equal lanes in warps 1 and 2 (stride 1 moving with the CTA, "
     "3, -5, 2, -8), none for an indivisible or odd distance, a 32-bit value wrapping in warp 1.")
case("lane_eq_partial", 2, 100, 95, 299, 985, M32, M32, 97,
     "A last warp of four lanes: equal lanes in it and in warp 1 (tid 39, the wrapped -1, "
     "zero- and sign-extended), the final store from lane 1 of the partial warp.")
