#!/usr/bin/env python3
"""Writes the tcgen05.ld / tcgen05.st shape cases (PTX ISA §9.7.16.2.3 "Matrix fragments for
tcgen05.ld/st", §9.7.16.8.3-4): ldst.ptx (sm_100a), ldred.ptx (tcgen05.ld.red: sm_103a, PTX
ISA 8.8; ptxas 12.9 rejects .red for sm_100a, as the ISA's target notes say) and per case a
toml with its input and expected output, from the ISA's text and numpy.

Every kernel runs one CTA of 128 threads (4 warps; warp w reaches lanes 32w..32w+31). Warp 0
allocates 64 columns; each thread t fills lane t, columns 0..63, with pat[t, :] through
tcgen05.st .32x32b.x64 (thread t ↔ lane 32w + t, register j ↔ column j: the layout the
.32x32b cases in gen.py check). Then each warp runs the instruction under test at its own
lanes plus a lane offset and a column offset:

- ld cases store the loaded registers at out[t, i] (and ld.red its redval at out[t, n]);
- st cases store inp[t, i] with the shape, then load all 64 columns back with .32x32b.x64 to
  out[t, :].

Where thread t's register i lives (lane and 32-bit column relative to the address), from
the ISA's figures for each shape (the same tables are in CUTLASS's SM100 TMEM copy traits):

- .32x32b:   lane t,                       column i
- .16x64b:   lane t/4 + 8*(t%2),           column (t/2)%2 + 2i
- .16x128b:  lane t/4 + 8*(i%2),           column t%4 + 4*(i/2)
- .16x256b:  lane t/4 + 8*((i/2)%2),       column 2*(t%4) + i%2 + 8*(i/4)
- .16x32bx2: lane t%16, column i; threads 16..31 at taddr + immHalfSplitoff (§9.7.16.8.3:
  "two accesses ... the second at taddr+immHalfSplitoff")

`.xN` repeats the shape along the columns (register counts: Table 49); .pack::16b /
.unpack::16b make each register two 16-bit halves of adjacent columns (§9.7.16.2.4), so the
column above becomes the pair 2c, 2c + 1. tcgen05.ld.red (§9.7.16.8.3) reduces each thread's
loaded registers with .min/.max into redval: .f32 as min/max.f32 (§9.7.3.11-12: a NaN loses
to a number, with .NaN any NaN gives the canonical NaN 0x7fffffff; -0 < +0), .abs on the
magnitudes; .u32 and .s32 as integers.

Run (numpy only, no GPU): /work/venv-cuda/bin/python gen_ldst.py
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
COLS = 64
REGS_PER = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}


def cell(shape, t, i):
    """(lane, column, second access) of thread t's register i."""
    if shape == "32x32b":
        return t, i, False
    if shape == "16x64b":
        return t // 4 + 8 * (t % 2), (t // 2) % 2 + 2 * i, False
    if shape == "16x128b":
        return t // 4 + 8 * (i % 2), t % 4 + 4 * (i // 2), False
    if shape == "16x256b":
        return t // 4 + 8 * ((i // 2) % 2), 2 * (t % 4) + i % 2 + 8 * (i // 4), False
    assert shape == "16x32bx2"
    return t % 16, i, t >= 16


def cells(shape, num, pack, lane_off, col_off, split):
    """For each CTA thread (128) and register: (lane, first column) in tensor memory."""
    n = num * REGS_PER[shape]
    out = np.zeros((128, n, 2), dtype=np.int64)
    for tid in range(128):
        w, t = divmod(tid, 32)
        for i in range(n):
            l, c, second = cell(shape, t, i)
            lane, col = 32 * w + lane_off + l, col_off + (2 * c if pack else c)
            if second:
                lane += split >> 16
                col += split & 0xffff
            out[tid, i] = (lane, col)
    return out


def f32(x):
    return float(np.uint32(x).view(np.float32))


def reduce(vals, op, ty, abs_, nan):
    """tcgen05.ld.red of one thread's registers (see the module text)."""
    if ty == "u32":
        return int(max(vals) if op == "max" else min(vals))
    if ty == "s32":
        s = [int(np.uint32(v).view(np.int32)) for v in vals]
        return (max(s) if op == "max" else min(s)) & 0xffffffff
    bits = [v & 0x7fffffff if abs_ else v for v in vals]
    nums = [b for b in bits if not np.isnan(f32(b))]
    if len(nums) < len(bits) and (nan or not nums):
        return 0x7fffffff

    def key(b):  # -0 < +0
        return (f32(b), 0 if b >> 31 else 1)
    return (max(nums, key=key) if op == "max" else min(nums, key=key))


def regs(prefix, n):
    return "{" + ", ".join(f"{prefix}{i}" for i in range(n)) + "}"


def prologue(name):
    return [f".visible .entry {name}(.param .u64 pat, .param .u64 out, .param .u64 inp)", "{",
            "    .reg .b32 %r<32>;", "    .reg .b64 %rd<16>;", "    .reg .pred %p<4>;",
            "    .reg .b32 %c<64>;", "    .reg .b32 %d<130>;",
            "    mov.u32 %r1, %tid.x;", "    mov.u32 %r5, smem;", "    shr.u32 %r12, %r1, 5;",
            "    setp.ne.u32 %p2, %r12, 0;", "    @%p2 bra $allocated;",
            f"    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r5], {COLS};",
            "$allocated:", "    tcgen05.fence::before_thread_sync;", "    bar.sync 0;",
            "    tcgen05.fence::after_thread_sync;", "    ld.shared.u32 %r20, [%r5];",
            "    // This warp's lanes: 32w in bits 31-16.",
            "    shl.b32 %r13, %r12, 21;", "    add.u32 %r14, %r20, %r13;",
            "    ld.param.u64 %rd1, [pat];", "    mul.wide.u32 %rd2, %r1, 256;",
            "    add.u64 %rd3, %rd1, %rd2;"] + \
        [f"    ld.global.b32 %c{j}, [%rd3+{4 * j}];" for j in range(COLS)] + \
        [f"    tcgen05.st.sync.aligned.32x32b.x{COLS}.b32 [%r14], {regs('%c', COLS)};",
         "    tcgen05.wait::st.sync.aligned;"]


def epilogue():
    return ["    tcgen05.fence::before_thread_sync;", "    bar.sync 0;", "    @%p2 bra $done;",
            "    tcgen05.fence::after_thread_sync;",
            f"    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r20, {COLS};", "$done:", "    ret;",
            "}", ""]


def entry(case):
    name, kind, shape, num, pack, lane_off, col_off, split, red = case
    n = num * REGS_PER[shape]
    L = prologue(name)
    L += [f"    // Under test: lane offset {lane_off}, column offset {col_off}.",
          f"    add.u32 %r15, %r14, {(lane_off << 16) + col_off};"]
    sp = f", {split:#x}" if shape == "16x32bx2" else ""
    if kind == "ld":
        if red:
            op, ty, abs_, nan = red
            mods = f"{op}{'.abs' if abs_ else ''}{'.NaN' if nan else ''}.{ty}"
            L += [f"    tcgen05.ld.red.sync.aligned.{shape}.x{num}.{mods} {regs('%d', n)}, %d{n}, "
                  f"[%r15]{sp};"]
            total = n + 1
        else:
            pk = ".pack::16b" if pack else ""
            L += [f"    tcgen05.ld.sync.aligned.{shape}.x{num}{pk}.b32 {regs('%d', n)}, [%r15]{sp};"]
            total = n
        L += ["    tcgen05.wait::ld.sync.aligned;", "    ld.param.u64 %rd4, [out];",
              f"    mul.wide.u32 %rd5, %r1, {4 * total};", "    add.u64 %rd6, %rd4, %rd5;"]
        L += [f"    st.global.b32 [%rd6+{4 * i}], %d{i};" for i in range(total)]
    else:
        pk = ".unpack::16b" if pack else ""
        L += ["    ld.param.u64 %rd7, [inp];", f"    mul.wide.u32 %rd8, %r1, {4 * n};",
              "    add.u64 %rd9, %rd7, %rd8;"]
        L += [f"    ld.global.b32 %d{i}, [%rd9+{4 * i}];" for i in range(n)]
        L += [f"    tcgen05.st.sync.aligned.{shape}.x{num}{pk}.b32 [%r15]{sp}, {regs('%d', n)};",
              "    tcgen05.wait::st.sync.aligned;",
              f"    tcgen05.ld.sync.aligned.32x32b.x{COLS}.b32 {regs('%c', COLS)}, [%r14];",
              "    tcgen05.wait::ld.sync.aligned;", "    ld.param.u64 %rd4, [out];",
              "    add.u64 %rd6, %rd4, %rd2;"]
        L += [f"    st.global.b32 [%rd6+{4 * j}], %c{j};" for j in range(COLS)]
    return "\n".join(L + epilogue())


# (name, ld/st, shape, num, pack, lane offset in the warp, column offset, immHalfSplitoff,
#  ld.red (op, type, abs, NaN) or None)
CASES = [
    ("ld_16x64b", "ld", "16x64b", 4, False, 16, 4, 0, None),
    ("ld_16x64b_pack", "ld", "16x64b", 2, True, 0, 2, 0, None),
    ("ld_16x128b", "ld", "16x128b", 2, False, 0, 8, 0, None),
    ("ld_16x128b_lane8", "ld", "16x128b", 1, False, 8, 1, 0, None),
    ("ld_16x256b", "ld", "16x256b", 2, False, 16, 0, 0, None),
    ("ld_16x256b_pack", "ld", "16x256b", 1, True, 0, 16, 0, None),
    ("ld_16x32bx2", "ld", "16x32bx2", 4, False, 0, 3, 16, None),
    ("ld_16x32bx2_lanes", "ld", "16x32bx2", 2, False, 0, 0, (16 << 16) | 5, None),
    ("st_16x64b", "st", "16x64b", 4, False, 0, 8, 0, None),
    ("st_16x128b_unpack", "st", "16x128b", 2, True, 16, 2, 0, None),
    ("st_16x256b", "st", "16x256b", 2, False, 16, 32, 0, None),
    ("st_16x32bx2", "st", "16x32bx2", 4, False, 0, 1, 20, None),
    ("st_16x32bx2_lanes", "st", "16x32bx2", 2, True, 0, 40, (16 << 16) | 2, None),
]
RED_CASES = [
    ("ldred_min_f32", "ld", "32x32b", 8, False, 0, 0, 0, ("min", "f32", False, False)),
    ("ldred_max_abs_nan", "ld", "32x32b", 8, False, 0, 4, 0, ("max", "f32", True, True)),
    ("ldred_max_f32", "ld", "16x32bx2", 4, False, 0, 2, 30, ("max", "f32", False, False)),
    ("ldred_min_abs", "ld", "16x32bx2", 2, False, 16, 0, 7, ("min", "f32", True, False)),
    ("ldred_max_s32", "ld", "32x32b", 16, False, 0, 16, 0, ("max", "s32", False, False)),
    ("ldred_min_u32", "ld", "16x32bx2", 8, False, 0, 0, 40, ("min", "u32", False, False)),
]


def f32_pattern(rng):
    """Values with signed zeros, infinities and NaNs among small multiples of 1/4."""
    v = (rng.integers(-64, 65, (128, COLS)) / 4).astype(np.float32).view(np.uint32).copy()
    specials = np.array([0x80000000, 0x00000000, 0x7f800000, 0xff800000, 0x7fc00000,
                         0xffc00001, 0x7f800001], dtype=np.uint32)
    mask = rng.random((128, COLS)) < 0.12
    v[mask] = specials[rng.integers(0, len(specials), mask.sum())]
    # Rows whose loaded columns are all NaN, and rows with only zeros of both signs.
    v[5, :] = 0x7fc00000
    v[9, :] = np.where(np.arange(COLS) % 2 == 0, 0x80000000, 0)
    v[10, :] = np.where(np.arange(COLS) % 3 == 0, 0, 0x80000000)
    return v


def main():
    rng = np.random.default_rng(517)
    head = ["// Written by gen_ldst.py (PTX ISA 9.7.16.8.3-4): tcgen05.ld/st shapes. A CTA of 128",
            "// threads fills 64 columns of tensor memory from `pat` (lane t <- pat[t * 64 ..]),",
            "// then runs the instruction under test per warp: ld cases write the registers",
            "// (and ld.red's redval) to out[t * n ..], st cases store inp[t * n ..] and read",
            "// all 64 columns back to out[t * 64 ..]."]
    tail = [".address_size 64", "", ".extern .shared .align 16 .b8 smem[];", ""]
    with open(os.path.join(HERE, "ldst.ptx"), "w") as f:
        f.write("\n".join(head + [".version 8.6", ".target sm_100a"] + tail)
                + "\n".join(entry(c) for c in CASES))
    with open(os.path.join(HERE, "ldred.ptx"), "w") as f:
        f.write("\n".join(head + ["// tcgen05.ld.red: PTX ISA 8.8, sm_101a/sm_103f and later (not "
                                  "sm_100a).", ".version 8.8", ".target sm_103a"] + tail)
                + "\n".join(entry(c) for c in RED_CASES))
    for ptx, cases in (("ldst.ptx", CASES), ("ldred.ptx", RED_CASES)):
        for case in cases:
            name, kind, shape, num, pack, lane_off, col_off, split, red = case
            n = num * REGS_PER[shape]
            if red and red[1] == "f32":
                pat = f32_pattern(rng)
            else:
                pat = rng.integers(0, 1 << 32, (128, COLS), dtype=np.uint64).astype(np.uint32)
            where = cells(shape, num, pack, lane_off, col_off, split)
            inp = rng.integers(0, 1 << 32, (128, n), dtype=np.uint64).astype(np.uint32)
            if kind == "ld":
                exp = np.zeros((128, n + (1 if red else 0)), dtype=np.uint32)
                for t in range(128):
                    for i in range(n):
                        lane, col = where[t, i]
                        if pack:
                            exp[t, i] = (pat[lane, col] & 0xffff) | (pat[lane, col + 1] & 0xffff) << 16
                        else:
                            exp[t, i] = pat[lane, col]
                    if red:
                        exp[t, n] = reduce([int(x) for x in exp[t, :n]], *red)
            else:
                exp = pat.copy()
                for t in range(128):
                    for i in range(n):
                        lane, col = where[t, i]
                        v = int(inp[t, i])
                        if pack:
                            exp[lane, col], exp[lane, col + 1] = v & 0xffff, v >> 16
                        else:
                            exp[lane, col] = v
            np.save(os.path.join(HERE, f"{name}_pat.npy"), pat.reshape(-1))
            np.save(os.path.join(HERE, f"{name}_inp.npy"), inp.reshape(-1))
            np.save(os.path.join(HERE, f"{name}_expected.npy"), exp.reshape(-1))
            what = f"tcgen05.{'ld.red' if red else kind}.{shape}.x{num}"
            if pack:
                what += ".pack::16b" if kind == "ld" else ".unpack::16b"
            if red:
                what += f".{red[0]}{'.abs' if red[2] else ''}{'.NaN' if red[3] else ''}.{red[1]}"
            split_txt = f", immHalfSplitoff {split:#x}" if shape == "16x32bx2" else ""
            toml = f"""# {what} (PTX ISA 9.7.16.8.3-4) at each warp's lane {lane_off}, column {col_off}{split_txt}.
# Written by gen_ldst.py (do not edit: change gen_ldst.py and run it); expected: the ISA's
# fragment layout of the shape applied with numpy.
ptx = "{ptx}"
kernel = "{name}"
grid = [1]
block = [128]
shared_bytes = 16
args = [{{ buffer = "pat" }}, {{ buffer = "out" }}, {{ buffer = "inp" }}]

[buffers.pat]
type = "u32"
init = {{ file = "{name}_pat.npy" }}

[buffers.inp]
type = "u32"
init = {{ file = "{name}_inp.npy" }}

[buffers.out]
type = "u32"
len = {exp.size}

[expect.out]
file = "{name}_expected.npy"
tolerance = "exact"
"""
            with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
                f.write(toml)
            print(name, exp.shape)


if __name__ == "__main__":
    main()
