"""Writes bulk_relaxed.toml: the inputs and the expected copies (host index arithmetic)."""
import random

random.seed(93)
x = [random.randrange(0, 1 << 32) for _ in range(128)]
out = [x[8 * ((t + 5) % 16) + j] for t in range(16) for j in range(8)]
out2 = x[:64]
HEAD = """# cp.async.bulk with the PTX ISA 9.3 element words .relaxed.<scope>.b128 and .b128, in the
# global -> shared::cta, shared::cta -> shared::cluster and shared::cta -> global directions
# (bulk_relaxed.ptx). Written by gen_expected.py (host index arithmetic).
ptx = "bulk_relaxed.ptx"
kernel = "bulk_relaxed"
grid = [1]
block = [32]
args = [{ buffer = "x" }, { buffer = "out" }, { buffer = "out2" }]
"""
with open("bulk_relaxed.toml", "w") as f:
    f.write(HEAD)
    f.write(f'\n[buffers.x]\ntype = "u32"\ninit = {{ values = {x} }}\n')
    for name, vals in [("out", out), ("out2", out2)]:
        f.write(f'\n[buffers.{name}]\ntype = "u32"\nlen = {len(vals)}\n')
        f.write(f'\n[expect.{name}]\nvalues = {vals}\n')
