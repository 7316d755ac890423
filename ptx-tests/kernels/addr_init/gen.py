#!/usr/bin/env python3
"""Writes addr_init.toml: the expected outputs of addr_init.cu computed on the host from the
C++ initializers (the pointers in the module variables point where the source says). Run
from this directory."""

data = [10, 20, 30, 40, 50, 60, 70, 80]
scale = [0.5, 2.0, 4.0, 8.0]
table = [1, 4, 6]  # table[k] = &data[table[k]]
ops = [lambda x: 2 * x, lambda x: x * x, lambda x: -x]
THREADS = 32

out = [0] * 76
for i in range(THREADS):
    if i < 8:
        out[i] = data[i]  # p = &data[0]
    out[8 + i] = data[table[i % 3] + i % 2]
    out[40 + i] = ops[i % 3](i + 1)
out[72] = 7  # pair.tag
out[73] = data[3]  # *pair.ptr
out[74] = 5  # packed.c
out[75] = data[5]  # *packed.ptr
fout = [scale[2], scale[1]]  # *cp, *pair.fptr

toml = f"""# Module variables initialized with addresses (PTX ISA 5.4.4): `generic(data)+4` pointers,
# a table of them, pointers to __constant__ data, a packed struct whose pointer NVVM writes
# byte by byte with mask() (`0xFF00(generic(data)+20)`), and a table of device-function
# pointers called through. Expected values from gen.py (host formulas over the C++ source).
ptx = "addr_init.ptx"
kernel = "addr_init"
grid = [1]
block = [{THREADS}]
args = [{{ buffer = "out" }}, {{ buffer = "fout" }}]

[buffers.out]
type = "s32"
len = {len(out)}

[buffers.fout]
type = "f32"
len = {len(fout)}

[expect.out]
values = {out}

[expect.fout]
values = {fout}
"""
open("addr_init.toml", "w").write(toml)
