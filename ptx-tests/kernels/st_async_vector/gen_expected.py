"""Writes st_async_vector.toml's inputs and expectations: host integer arithmetic and the
f64 bit patterns of exact conversions (Python's struct)."""
import random
import struct

random.seed(28)
M32 = (1 << 32) - 1
x = [random.randrange(0, 1 << 32) for _ in range(64)]
for i in range(8):
    x[i] = [0, 1, M32, 0x80000000, 0x7FFFFFFF, 7, 0x1234, 0xFFFFFFFE][i]


def bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


out32, out64 = [], []
for g in range(64):
    # The slot of thread t in CTA r is filled by thread t of CTA r ^ 1.
    v = x[g ^ 32]
    out32 += [v, (v + 1) & M32, (3 * v) & M32, ~v & M32, v ^ 0x1234, v >> 3]
    out64 += [bits(float(v)), bits(float(v) * 0.5)]
HEAD = """# st.async of .v4.b32, .v2.u32 and .v2.f64 into the other CTA of a cluster of two, completing
# tx bytes on its mbarrier; each thread reads back its own slot (st_async_vector.ptx).
# Elements past the first of a vector are not aligned to the whole vector (the first one's
# address is): a lowering that checked each element against the vector's alignment faulted.
# Written by gen_expected.py (host integer arithmetic, exact f64 conversions).
ptx = "st_async_vector.ptx"
kernel = "st_async_vector"
grid = [2]
block = [32]
cluster = [2, 1, 1]
args = [{ buffer = "x" }, { buffer = "out32" }, { buffer = "out64" }]
"""
with open("st_async_vector.toml", "w") as f:
    f.write(HEAD)
    f.write(f'\n[buffers.x]\ntype = "u32"\ninit = {{ values = {x} }}\n')
    for name, ty, vals in [("out32", "u32", out32), ("out64", "u64", out64)]:
        f.write(f'\n[buffers.{name}]\ntype = "{ty}"\nlen = {len(vals)}\n')
        f.write(f'\n[expect.{name}]\nvalues = {vals}\n')
