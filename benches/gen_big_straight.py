#!/usr/bin/env python3
"""Generates a large straight-line kernel (what a fully unrolled loop becomes) and its case.

out[i] = f(a[i], b[i]) for n threads, where f is a chain of OPS 32-bit integer operations
(add, sub, xor, and, or, mul.lo, shl, shr), each writing a fresh register as NVRTC's output
does and reading two of the last 16 values written. The expected output is computed here
with numpy (uint32 wrap-around arithmetic), not by ptxjit.

usage: gen.py OPS [OUT_DIR]   (writes big_straight_OPS.{ptx,toml} and its .npy files)
"""
import sys, os
import numpy as np

OPS = ["add.s32", "xor.b32", "mul.lo.s32", "sub.s32", "or.b32", "shl.b32", "and.b32", "shr.u32"]


def kernel(nops):
    """(ptx text, op list) for a chain of nops operations."""
    ops = []
    state = 0x9E3779B9
    for i in range(nops):
        state = (state * 1103515245 + 12345) & 0xFFFFFFFF
        k = (state >> 16) % len(OPS)
        # operands: two of the last 16 values (value j is register %r{j})
        avail = i + 2  # %r0 = a, %r1 = b
        x = avail - 1 - ((state >> 4) & 15) % avail
        y = avail - 1 - ((state >> 8) & 15) % avail
        imm = (state >> 20) & 31
        ops.append((OPS[k], x, y, imm))
    nreg = nops + 2
    lines = [
        "//",
        f"// big_straight: {nops} operations in one basic block (ptx-tests/kernels/big_straight/gen.py)",
        "//",
        ".version 7.0",
        ".target sm_70",
        ".address_size 64",
        "",
        ".visible .entry big_straight(",
        "\t.param .u64 big_straight_param_0,",
        "\t.param .u64 big_straight_param_1,",
        "\t.param .u64 big_straight_param_2,",
        "\t.param .u32 big_straight_param_3",
        ")",
        "{",
        "\t.reg .pred \t%p<2>;",
        f"\t.reg .b32 \t%r<{nreg + 4}>;",
        "\t.reg .b64 \t%rd<12>;",
        "",
        "\tld.param.u64 \t%rd1, [big_straight_param_0];",
        "\tld.param.u64 \t%rd2, [big_straight_param_1];",
        "\tld.param.u64 \t%rd3, [big_straight_param_2];",
        "\tld.param.u32 \t%r" + str(nreg) + ", [big_straight_param_3];",
        "\tmov.u32 \t%r" + str(nreg + 1) + ", %ctaid.x;",
        "\tmov.u32 \t%r" + str(nreg + 2) + ", %ntid.x;",
        "\tmov.u32 \t%r" + str(nreg + 3) + ", %tid.x;",
        f"\tmad.lo.s32 \t%r{nreg + 1}, %r{nreg + 1}, %r{nreg + 2}, %r{nreg + 3};",
        f"\tsetp.ge.s32 \t%p1, %r{nreg + 1}, %r{nreg};",
        "\t@%p1 bra \t$L__BB0_2;",
        "\tcvta.to.global.u64 \t%rd4, %rd1;",
        "\tcvta.to.global.u64 \t%rd5, %rd2;",
        "\tcvta.to.global.u64 \t%rd6, %rd3;",
        f"\tmul.wide.s32 \t%rd7, %r{nreg + 1}, 4;",
        "\tadd.s64 \t%rd8, %rd4, %rd7;",
        "\tadd.s64 \t%rd9, %rd5, %rd7;",
        "\tadd.s64 \t%rd10, %rd6, %rd7;",
        "\tld.global.u32 \t%r0, [%rd8];",
        "\tld.global.u32 \t%r1, [%rd9];",
    ]
    for i, (op, x, y, imm) in enumerate(ops):
        d = i + 2
        if op in ("shl.b32", "shr.u32"):
            lines.append(f"\t{op} \t%r{d}, %r{x}, {imm};")
        else:
            lines.append(f"\t{op} \t%r{d}, %r{x}, %r{y};")
    lines += [
        f"\tst.global.u32 \t[%rd10], %r{nreg - 1};",
        "$L__BB0_2:",
        "\tret;",
        "}",
        "",
    ]
    return "\n".join(lines), ops


def reference(ops, a, b):
    """The chain on the host, uint32 arrays."""
    v = [a.astype(np.uint32), b.astype(np.uint32)]
    for op, x, y, imm in ops:
        p, q = v[x], v[y]
        with np.errstate(over="ignore"):
            if op == "add.s32":
                r = p + q
            elif op == "sub.s32":
                r = p - q
            elif op == "xor.b32":
                r = p ^ q
            elif op == "and.b32":
                r = p & q
            elif op == "or.b32":
                r = p | q
            elif op == "mul.lo.s32":
                r = p * q
            elif op == "shl.b32":
                r = p << np.uint32(imm)
            elif op == "shr.u32":
                r = p >> np.uint32(imm)
            else:
                raise ValueError(op)
        v.append(r.astype(np.uint32))
    return v[-1]


def main():
    nops = int(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
    name = f"big_straight_{nops}"
    text, ops = kernel(nops)
    n = 300
    rng = np.random.default_rng(nops)
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) | 1
    b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) | 1
    with open(os.path.join(out, name + ".ptx"), "w") as f:
        f.write(text)
    np.save(os.path.join(out, name + "_a.npy"), a)
    np.save(os.path.join(out, name + "_b.npy"), b)
    np.save(os.path.join(out, name + "_expected.npy"), reference(ops, a, b))
    with open(os.path.join(out, name + ".toml"), "w") as f:
        f.write(f"""# {nops} integer operations in one basic block (gen.py {nops}); expected from numpy.
ptx = "{name}.ptx"
kernel = "big_straight"
grid = [3, 1, 1]
block = [128, 1, 1]
args = [{{ buffer = "a" }}, {{ buffer = "b" }}, {{ buffer = "out" }}, {{ u32 = {n} }}]

[buffers.a]
type = "u32"
init = {{ file = "{name}_a.npy" }}

[buffers.b]
type = "u32"
init = {{ file = "{name}_b.npy" }}

[buffers.out]
type = "u32"
len = {n}

[expect.out]
file = "{name}_expected.npy"
tolerance = "exact"
""")


if __name__ == "__main__":
    main()
