"""Writes st_async_cta.toml's inputs and expectations: plain integer arithmetic on the host."""
import random

random.seed(24)
x = [random.randrange(0, 1 << 32) for _ in range(32)]
M32 = (1 << 32) - 1
w32 = [(3 * v - 7) & M32 for v in x]
v32 = [(v * 65537) & M32 for v in x]
w64 = [v | (t << 40) for t, v in enumerate(x)]
w16 = [(v ^ 0x5A5A) & 0xFFFF for v in x]
out32 = [w32[(t + 1) % 32] for t in range(32)] + [v32[(t + 3) % 32] for t in range(32)]
out64 = [w64[(t + 5) % 32] for t in range(32)]
out16 = [w16[(t + 7) % 32] for t in range(32)]
HEAD = """# st.async into .shared::cta: 32-bit stores completing tx bytes on an mbarrier (with and
# without the completion word), 64- and 16-bit stores with no mbarrier (st_async_cta.ptx).
# Written by gen_expected.py (host integer arithmetic).
ptx = "st_async_cta.ptx"
kernel = "st_async_cta"
grid = [1]
block = [32]
args = [{ buffer = "x" }, { buffer = "out32" }, { buffer = "out64" }, { buffer = "out16" }]
"""
with open("st_async_cta.toml", "w") as f:
    f.write(HEAD)
    f.write(f'\n[buffers.x]\ntype = "u32"\ninit = {{ values = {x} }}\n')
    for name, ty, vals in [("out32", "u32", out32), ("out64", "u64", out64), ("out16", "u16", out16)]:
        f.write(f'\n[buffers.{name}]\ntype = "{ty}"\nlen = {len(vals)}\n')
        f.write(f'\n[expect.{name}]\nvalues = {vals}\n')
