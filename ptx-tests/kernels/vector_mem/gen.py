"""Inputs and expected outputs of the vector_mem cases (host reference with numpy; see
vector_mem.cu for what each thread computes). Run from this directory: python3 gen.py"""
import numpy as np

N = 1000
rng = np.random.default_rng(20261129)
in8 = rng.integers(0, 256, size=(N, 4), dtype=np.uint8)
in16 = rng.integers(0, 65536, size=(N, 4), dtype=np.uint16)
inf2 = rng.uniform(-100, 100, size=(N, 2)).astype(np.float32)
ini2 = rng.integers(-(2**30), 2**30, size=(N, 2), dtype=np.int32)

o8 = np.stack([in8[:, 3] + np.uint8(1), in8[:, 2] + np.uint8(2),
               in8[:, 1] + np.uint8(3), in8[:, 0] + np.uint8(4)], axis=1).astype(np.uint8)
o16 = np.stack([in16[:, 1], in16[:, 0], in16[:, 3] ^ np.uint16(0x8000),
                in16[:, 2] + np.uint16(7)], axis=1).astype(np.uint16)
of2 = np.stack([inf2[:, 1] * np.float32(2), inf2[:, 0] - np.float32(1)], axis=1).astype(np.float32)
a8 = in8.view(np.int8)
oc2 = np.stack([-a8[:, 1], a8[:, 0]], axis=1).astype(np.int8)


def oi2_for(block):
    out = np.zeros((N, 2), dtype=np.int64)
    for i in range(N):
        t = i % block
        src = i - t + (t + 1) % block
        d = ini2[src].astype(np.int64)
        out[i] = [d[0] + d[1], d[0] - d[1]]
    # int arithmetic wraps to 32 bits, as in the kernel
    return ((out + 2**31) % 2**32 - 2**31).astype(np.int32)


for name, arr in [("in8", in8), ("in16", in16), ("inf2", inf2), ("ini2", ini2),
                  ("o8_expected", o8), ("o16_expected", o16), ("of2_expected", of2),
                  ("oc2_expected", oc2)]:
    np.save(f"{name}.npy", arr.reshape(-1))
# errors/oob_vector_store: o8 two bytes short; the straddling last uchar4 writes nothing.
np.save("o8_straddle_expected.npy", np.concatenate([o8.reshape(-1)[:3996], np.zeros(2, np.uint8)]))
for block in (250, 125):
    np.save(f"oi2_expected_{block}.npy", oi2_for(block).reshape(-1))

CASE = """# Vector loads and stores of up to 8 bytes (uchar4, ushort4, float2, int2, char2) in global,
# shared, local and generic memory; {what}. Expected values: gen.py (numpy).
ptx = "vector_mem.ptx"
kernel = "vector_mem"
grid = [{grid}]
block = [{block}]
args = [{{ buffer = "in8" }}, {{ buffer = "in16" }}, {{ buffer = "inf2" }}, {{ buffer = "ini2" }},
        {{ buffer = "o8" }}, {{ buffer = "o16" }}, {{ buffer = "of2" }}, {{ buffer = "oi2" }},
        {{ buffer = "oc2" }}, {{ s32 = {n} }}]
"""
for block, grid, what, fname in [
    (250, 4, "250-thread CTAs (a partial last warp)", "vector_mem.toml"),
    (125, 8, "125-thread CTAs", "block125.toml"),
]:
    text = CASE.format(what=what, grid=grid, block=block, n=N)
    for b, ty in [("in8", "u8"), ("in16", "u16"), ("inf2", "f32"), ("ini2", "s32")]:
        text += f'\n[buffers.{b}]\ntype = "{ty}"\ninit = {{ file = "{b}.npy" }}\n'
    for b, ty, ln in [("o8", "u8", 4), ("o16", "u16", 4), ("of2", "f32", 2), ("oi2", "s32", 2),
                      ("oc2", "s8", 2)]:
        text += f'\n[buffers.{b}]\ntype = "{ty}"\nlen = {ln * N}\n'
    for b in ["o8", "o16", "of2", "oc2"]:
        text += f'\n[expect.{b}]\nfile = "{b}_expected.npy"\n'
    text += f'\n[expect.oi2]\nfile = "oi2_expected_{block}.npy"\n'
    open(fname, "w").write(text)
