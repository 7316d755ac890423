#!/usr/bin/env python3
"""Host reference for red_dense.ptx: each thread reduces 40 random words into its own
slots (16 u32 or 8 u64 of them) with one reduction operation, so a warp's reductions cover
a few KiB that the JIT keeps as one dense window of its pending table
(src/runtime/redcombine.rs); then it loads its own slot (sees its reductions), xors a
constant into it (another operation on a slot of the window) and reduces once more. One
case per operation, and one whose thread 45 makes its last reduction 2 bytes off (inside
the window, misaligned: it must fault). Writes the PTX, inputs, expected outputs and cases.
    python3 gen.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402

M32, M64 = (1 << 32) - 1, (1 << 64) - 1
rng = np.random.default_rng(20)
GRID, BLOCK, NPT = 8, 64, 40
T = GRID * BLOCK


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


# name: (PTX op, element bytes, operand from word w, combine(old, operand), PTX operand code)
OPS = {
    "add_u32": ("add.u32", 4, lambda w: w >> 8, lambda a, b: (a + b) & M32,
                "shr.u32 %r8, %r6, 8;", "%r8"),
    "min_u32": ("min.u32", 4, lambda w: w, min, "mov.u32 %r8, %r6;", "%r8"),
    "max_s32": ("max.s32", 4, lambda w: w, lambda a, b: s32(max(s32(a), s32(b))) & M32,
                "mov.u32 %r8, %r6;", "%r8"),
    "and_b64": ("and.b64", 8, lambda w: ~(1 << (w & 63)) & M64, lambda a, b: a & b,
                "and.b32 %r8, %r6, 63;\n\tshl.b64 %rd10, %rd12, %r8;\n\tnot.b64 %rd10, %rd10;",
                "%rd10"),
    "add_u64": ("add.u64", 8, lambda w: w * w, lambda a, b: (a + b) & M64,
                "mul.wide.u32 %rd10, %r6, %r6;", "%rd10"),
}

ptx = [".version 8.0", ".target sm_80", ".address_size 64", ""]
for name, (op, es, _, _, prep, operand) in OPS.items():
    slots = 64 // es
    bits = 32 if es == 4 else 64
    val = "%r11" if es == 4 else "%rd11"
    xor_k = "0x5A5A5A5A" if es == 4 else "0x5A5A5A5A5A5A5A5A"
    ptx.append(f"""// Thread t reduces data[t*{NPT} + k] (k < {NPT}) into its slot w & {slots - 1};
// out[t] = its slot t & {slots - 1} after the loop, which then gets ^ {xor_k} and one more.
.visible .entry own_{name}(.param .u64 p_data, .param .u64 p_bins, .param .u64 p_out,
    .param .u32 p_bad)
{{
\t.reg .pred %p<4>;
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<16>;
\tld.param.u64 %rd1, [p_data];
\tld.param.u64 %rd2, [p_bins];
\tld.param.u64 %rd3, [p_out];
\tld.param.u32 %r9, [p_bad];
\tcvta.to.global.u64 %rd1, %rd1;
\tcvta.to.global.u64 %rd2, %rd2;
\tcvta.to.global.u64 %rd3, %rd3;
\tmov.u64 %rd12, 1;
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %ntid.x;
\tmad.lo.s32 %r4, %r2, %r3, %r1;
\tmul.wide.u32 %rd4, %r4, {NPT * 4};
\tadd.s64 %rd5, %rd1, %rd4;
\tmul.wide.u32 %rd6, %r4, 64;
\tadd.s64 %rd7, %rd2, %rd6;
\tmov.u32 %r5, 0;
$L_{name}:
\tld.global.u32 %r6, [%rd5];
\tand.b32 %r7, %r6, {slots - 1};
\tmul.wide.u32 %rd8, %r7, {es};
\tadd.s64 %rd9, %rd7, %rd8;
\tsetp.eq.u32 %p1, %r4, %r9;
\tsetp.eq.u32 %p2, %r5, {NPT - 1};
\tand.pred %p3, %p1, %p2;
\t@%p3 add.s64 %rd9, %rd9, 2;
\t{prep}
\tred.global.{op} [%rd9], {operand};
\tadd.s64 %rd5, %rd5, 4;
\tadd.u32 %r5, %r5, 1;
\tsetp.lt.u32 %p1, %r5, {NPT};
\t@%p1 bra $L_{name};
\tand.b32 %r7, %r4, {slots - 1};
\tmul.wide.u32 %rd8, %r7, {es};
\tadd.s64 %rd9, %rd7, %rd8;
\tld.global.u{bits} {val}, [%rd9];
\tmul.wide.u32 %rd13, %r4, {es};
\tadd.s64 %rd13, %rd3, %rd13;
\tst.global.u{bits} [%rd13], {val};
\tred.global.xor.b{bits} [%rd9], {xor_k};
\tred.global.{op} [%rd9], {operand};
\tret;
}}
""")
gc.write_text(HERE, "red_dense.ptx", "\n".join(ptx))

data = rng.integers(0, 1 << 32, T * NPT, dtype=np.uint64).astype(np.uint32)
gc.save_npy(HERE, "data", data)
for name, (op, es, operand, comb, _, _) in OPS.items():
    slots = 64 // es
    dt, ty, mask = (np.uint32, "u32", M32) if es == 4 else (np.uint64, "u64", M64)
    init = rng.integers(0, 1 << 63, T * slots, dtype=np.uint64) * 2 + 1
    init = [int(v) & mask for v in init]
    if name == "min_u32":
        init = [v | 0xF0000000 for v in init]
    gc.save_npy(HERE, f"{name}_in", np.array(init, dt))
    bins = list(init)
    out = []
    for t in range(T):
        ws = [int(w) for w in data[t * NPT:(t + 1) * NPT]]
        base = t * slots
        for w in ws:
            s = base + (w & (slots - 1))
            bins[s] = comb(bins[s], operand(w))
        own = base + (t & (slots - 1))
        out.append(bins[own])
        bins[own] ^= 0x5A5A5A5A if es == 4 else 0x5A5A5A5A5A5A5A5A
        bins[own] = comb(bins[own], operand(ws[-1]))
    gc.save_npy(HERE, f"{name}_bins", np.array(bins, dt))
    gc.save_npy(HERE, f"{name}_out", np.array(out, dt))
    text = (f"# Each thread's {NPT} red.global.{op} into its own 64 bytes (a warp's dense window),\n"
            "# then a load of its own slot, a xor and one more reduction on it (gen.py).\n"
            f'ptx = "red_dense.ptx"\nkernel = "own_{name}"\ngrid = [{GRID}, 1, 1]\n'
            f'block = [{BLOCK}, 1, 1]\n'
            'args = [{ buffer = "data" }, { buffer = "bins" }, { buffer = "out" }, '
            '{ u32 = 4294967295 }]\n\n'
            + gc.buffer_from_file("data", "data.npy") + "\n"
            + gc.buffer_from_file("bins", f"{name}_in.npy", ty) + "\n"
            + f'[buffers.out]\ntype = "{ty}"\nlen = {T}\ninit = {{ fill = 0 }}\n\n'
            + gc.expect_exact("bins", f"{name}_bins.npy") + "\n"
            + gc.expect_exact("out", f"{name}_out.npy"))
    gc.write_text(HERE, f"{name}.toml", text)

gc.write_text(HERE, "misaligned.toml",
              "# own_add_u32 with thread 45's last reduction 2 bytes past its slot: inside the\n"
              "# warp's dense window but misaligned, so the launch faults naming thread 45.\n"
              f'ptx = "red_dense.ptx"\nkernel = "own_add_u32"\ngrid = [{GRID}, 1, 1]\n'
              f'block = [{BLOCK}, 1, 1]\n'
              'args = [{ buffer = "data" }, { buffer = "bins" }, { buffer = "out" }, '
              '{ u32 = 45 }]\n\n'
              + gc.buffer_from_file("data", "data.npy") + "\n"
              + gc.buffer_from_file("bins", "add_u32_in.npy") + "\n"
              + f'[buffers.out]\ntype = "u32"\nlen = {T}\ninit = {{ fill = 0 }}\n\n'
              '[expect_error]\nkind = "fault"\ncontains = "thread (45,0,0)"\n')
