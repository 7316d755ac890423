#!/usr/bin/env python3
"""Writes narrow_widen.toml: the inputs of narrow_widen.ptx and its expected outputs, from
the PTX ISA's rule for narrow loads into 32-bit registers (section 9.4.1: `.u8`/`.u16`
zero-extended, `.s8`/`.s16` sign-extended) written as host code. Run from this directory."""

import random

CTAS, BLOCK = 2, 100
N = CTAS * BLOCK
FILL = 0xDEADBEEF
rng = random.Random(20261204)
src = [rng.randrange(256) for _ in range(512)]
src16 = [rng.randrange(65536) for _ in range(256)]
idx = [rng.randrange(512) for _ in range(N)]


def sext(v, bits):
    v &= (1 << bits) - 1
    return (v - (1 << bits) if v >> (bits - 1) else v) & 0xFFFFFFFF


out = []
for t in range(N):
    tid = t % BLOCK
    skip = t % 3 == 0
    out += [
        src[t],
        sext(src[t + 1], 8),
        src16[t],
        sext(src16[t + 1], 16),
        FILL if skip else src[t + 2],
        FILL if skip else sext(src[idx[t]], 8),
        sext(src[t // 4 + 3], 8),
        sext(src[t + 7], 8),
    ]


def vals(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


toml = f"""# Narrow loads widened to 32 bits (hand-written narrow_widen.ptx): ld.u8/.s8/.u16/.s16 of
# consecutive lanes (one wide load per group), of partial groups and a gather (per lane), of
# one address per group, and ld.shared.s8; zero- and sign-extension of values with the top
# bit set and clear. Expected values from gen.py (the ISA's extension rules as host code).
ptx = "narrow_widen.ptx"
kernel = "narrow_widen"
grid = [{CTAS}]
block = [{BLOCK}]
args = [{{ buffer = "src" }}, {{ buffer = "src16" }}, {{ buffer = "idx" }}, {{ buffer = "out" }}]

[buffers.src]
type = "u8"
init = {{ values = {vals(src)} }}

[buffers.src16]
type = "u16"
init = {{ values = {vals(src16)} }}

[buffers.idx]
type = "u32"
init = {{ values = {vals(idx)} }}

[buffers.out]
type = "u32"
len = {8 * N}
init = {{ fill = {FILL} }}

[expect.out]
values = {vals(out)}
"""
with open("narrow_widen.toml", "w") as f:
    f.write(toml)
