#!/usr/bin/env python3
"""Host reference for atomic_b128.cu: writes atomic_b128.toml (inputs and expected outputs).

Exact integer arithmetic following the CUDA semantics of atomicAdd, atomicCAS and atomicExch
(PTX ISA §9.7.13.5 atom .cas/.exch .b128); none of the expected values depends on the order
in which the threads' atomics happen. 16-byte values are (low, high) pairs of u64 words.
"""
GRID, BLOCK = 8, 96
N = GRID * BLOCK
M64 = 2**64

# mixed[0]: even threads add 1 to the low half, odd threads add their index to the high half.
mixed = [sum(1 for i in range(N) if i % 2 == 0), sum(i for i in range(N) if i % 2 == 1)]
# wide[0]: a 128-bit counter starting below 2^64, one increment per thread.
wide_init = (7 << 64) | (M64 - 300)
w = wide_init + N
wide = [w % M64, w >> 64]
wide_in = [wide_init % M64, wide_init >> 64]

slots_in, olds, cas_out, slots = [], [], [], []
for i in range(N):
    s = [(i * 0x0123456789ABCDEF + 5) % M64, (M64 - 1 - 3 * i) % M64]
    mine = [(i * 0x9E3779B97F4A7C15) % M64, (M64 - 1) ^ i]
    slots_in += s
    olds += s                       # atomicExch returns what was there
    cas_out += mine + mine          # a failing and a succeeding CAS both return `mine`
    slots += [mine[1], mine[0]]     # the succeeding CAS stored the swapped halves
per_cta = [BLOCK, sum(range(BLOCK))] * GRID


def fmt(vals):
    return "[" + ", ".join(f'"{v:#x}"' for v in vals) + "]"


toml = f'''# 128-bit atomics from NVRTC (sm_90; atom.cas.b128, atom.exch.b128): 64-bit atomicAdd and
# 128-bit CAS loops on the halves of one word from every CTA at once, a 128-bit counter whose
# increments carry, exchange and failing/succeeding CAS per thread, a __shared__ 128-bit
# counter per CTA. Inputs and expected values written by gen_expected.py (host arithmetic).
ptx = "atomic_b128.ptx"
kernel = "atomic_b128"
grid = [{GRID}, 1, 1]
block = [{BLOCK}, 1, 1]
args = [{{ buffer = "mixed" }}, {{ buffer = "wide" }}, {{ buffer = "slots" }}, {{ buffer = "olds" }}, {{ buffer = "cas_out" }}, {{ buffer = "per_cta" }}]

[buffers.mixed]
type = "u64"
len = 2
init = {{ fill = 0 }}

[buffers.wide]
type = "u64"
init = {{ values = {fmt(wide_in)} }}

[buffers.slots]
type = "u64"
init = {{ values = {fmt(slots_in)} }}

[buffers.olds]
type = "u64"
len = {2 * N}

[buffers.cas_out]
type = "u64"
len = {4 * N}

[buffers.per_cta]
type = "u64"
len = {2 * GRID}

[expect.mixed]
values = {fmt(mixed)}

[expect.wide]
values = {fmt(wide)}

[expect.slots]
values = {fmt(slots)}

[expect.olds]
values = {fmt(olds)}

[expect.cas_out]
values = {fmt(cas_out)}

[expect.per_cta]
values = {fmt(per_cta)}
'''
with open(__file__.replace("gen_expected.py", "atomic_b128.toml"), "w") as f:
    f.write(toml)
