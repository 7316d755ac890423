#!/usr/bin/env python3
"""Writes more of Triton's kernels as cases: Triton's own PTX, compiled without a GPU, with
inputs and expected outputs from numpy. Each case's values are chosen so that the float
arithmetic is exact (or its rounding is the same as numpy's), so every expectation is exact:

- assoc_scan (sm_80): `tl.associative_scan` with a user combine function, an inclusive sum
  forward and a running maximum in reverse over rows of 200 f32 (BLOCK 256, masked);
  multiples of 1/8 in [-4, 4] (partial sums exact in f32).
- sort, sort_i32 (sm_80): `tl.sort(x, descending=True)` of rows of 256 f32 (distinct
  values) and of 128 s32 (with repeats): a bitonic network of shfl.sync.bfly and shared
  memory.
- hist (sm_80): `tl.histogram` of 1024 s32 in [0, 64) per program into 64 bins
  (atom.shared.add).
- grouped_mm, grouped_mm_sm90 (sm_80 mma.sync with ldmatrix; sm_90a wgmma): the tutorial's
  grouped ("super-grouped" program order, GROUP_M 4) fp16 matmul C = A·B with M, N, K
  = 200, 150, 80 (masked edges, K not a multiple of BLOCK_K), C rounded to fp16.
- persistent_mm, persistent_mm_sm90: a persistent matmul (4 programs, each looping over
  the tiles with `tl.range(..., flatten=True)`), the same shapes.
  A and B hold multiples of 1/8 in [-1, 1] (exact in fp16): every product is a multiple
  of 1/64 and |C| <= 80, so the f32 sums are exact in any order and C's fp16 is numpy's
  rounding of the exact value.
- fp8_mm_sm89, fp8_mm_sm90 (`float8e4nv`: mma.sync m16n8k32 .e4m3 on sm_89, wgmma .e4m3
  on sm_90a): C = A·B in f32, 128 × 128 × 128, A and B from {0, ±1/4, ±1/2, ±3/4, ±1,
  ±3/2, ±2} (exact in e4m3; A and B passed as their e4m3 bytes, u8): products are
  multiples of 1/16, |C| <= 512, exact.
- argmax (sm_80): `tl.argmax`/`tl.max` along rows of 500 f32 with many ties (the first
  index counts, as numpy's argmax).
- splitk, splitk_sm90: a split-K fp16 matmul (128^3, 4 K-slices) whose partial products go
  into C with `tl.atomic_add` (multiples of 1/8: exact in any order).
- i8_mm, i8_mm_sm90: an int8 dot with an int32 result (64^3, the full s8 range).
- tma_mm_sm90, tma_mm_sm100: C = A·Bᵀ (256x256x128, fp16 multiples of 1/8, f32
  out: exact) through device-side tensor descriptors (`tl.make_tensor_descriptor`: the
  kernel zeroes 128 bytes of shared memory, sets each field with `tensormap.replace`, copies
  the map to Triton's global scratch with `tensormap.cp_fenceproxy`, then loads tiles with
  `cp.async.bulk.tensor`), for sm_90a (wgmma) and sm_100a (tcgen05.mma).
- ws_mm_sm90: the same matmul with `tl.range(warp_specialize=True)` (sm_90a): producer and
  consumer warp groups, `setmaxnreg`, mbarrier hand-offs; the default warps wait at a named
  barrier for 128 threads while the other partitions spin.
- cast_fp8_sm89, cast_fp8_sm90: f32 -> float8e4nv / float8e5 (`cvt.rn.satfinite`), expected
  from this script's encoder.

Run (needs `pip install triton numpy`, no GPU): python3 gen.py
"""
import os
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, said aloud
import numpy as np
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

HERE = os.path.dirname(os.path.abspath(__file__))
SC_ROWS, SC_COLS, SC_BLOCK = 8, 200, 256
SO_ROWS, SO_BLOCK, SI_BLOCK = 8, 256, 128
HI_PROGS, HI_BLOCK, HI_BINS = 4, 1024, 64
M, N, K = 200, 150, 80
NUM_SMS = 4
F8 = 128
AM_ROWS, AM_COLS, AM_BLOCK = 16, 500, 512
SK = 128
I8 = 64
CA_N = 512
TM, TK = 256, 128


@triton.jit
def _add(a, b):
    return a + b

@triton.jit
def _mx(a, b):
    return tl.maximum(a, b)

@triton.jit
def assoc_scan(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=m, other=0.0)
    tl.store(y_ptr + row * n + cols, tl.associative_scan(x, 0, _add), mask=m)
    # The masked lanes take part in the scan: -inf leaves the maximum alone.
    xm = tl.where(m, x, -float("inf"))
    tl.store(z_ptr + row * n + cols, tl.associative_scan(xm, 0, _mx, reverse=True), mask=m)

@triton.jit
def sort_k(x_ptr, y_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + cols)
    tl.store(y_ptr + row * BLOCK + cols, tl.sort(x, descending=True))

@triton.jit
def hist_k(x_ptr, h_ptr, BLOCK: tl.constexpr, BINS: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))
    h = tl.histogram(x, BINS)
    tl.store(h_ptr + pid * BINS + tl.arange(0, BINS), h)

@triton.jit
def grouped_mm(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    npg = GM * npn
    gid = pid // npg
    fm = gid * GM
    gsm = min(npm - fm, GM)
    pm = fm + ((pid % npg) % gsm)
    pn = (pid % npg) // gsm
    om = (pm * BM + tl.arange(0, BM)) % M
    on = (pn * BN + tl.arange(0, BN)) % N
    ok = tl.arange(0, BK)
    ap = a_ptr + om[:, None] * sam + ok[None, :] * sak
    bp = b_ptr + ok[:, None] * sbk + on[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(ap, mask=ok[None, :] < K - k * BK, other=0.0)
        b = tl.load(bp, mask=ok[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        ap += BK * sak
        bp += BK * sbk
    c = acc.to(tl.float16)
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * scm + cn[None, :] * scn, c, mask=(cm[:, None] < M) & (cn[None, :] < N))

@triton.jit
def persistent_mm(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, NUM_SMS: tl.constexpr,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
    start = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    ks = tl.cdiv(K, BK)
    tiles = npm * npn
    npg = GM * npn
    for tile in tl.range(start, tiles, NUM_SMS, flatten=True):
        gid = tile // npg
        fm = gid * GM
        gsm = min(npm - fm, GM)
        pm = fm + (tile % gsm)
        pn = (tile % npg) // gsm
        om = pm * BM + tl.arange(0, BM)
        on = pn * BN + tl.arange(0, BN)
        om = tl.where(om < M, om, 0)
        on = tl.where(on < N, on, 0)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(ks):
            ok = ki * BK + tl.arange(0, BK)
            a = tl.load(a_ptr + om[:, None] * sam + ok[None, :] * sak, mask=ok[None, :] < K, other=0.0)
            b = tl.load(b_ptr + ok[:, None] * sbk + on[None, :] * sbn, mask=ok[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc)
        cm = pm * BM + tl.arange(0, BM)
        cn = pn * BN + tl.arange(0, BN)
        tl.store(c_ptr + cm[:, None] * scm + cn[None, :] * scn, acc.to(tl.float16), mask=(cm[:, None] < M) & (cn[None, :] < N))

@triton.jit
def fp8_mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    om = pm * BM + tl.arange(0, BM)
    on = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ok = k + tl.arange(0, BK)
        a = tl.load(a_ptr + om[:, None] * K + ok[None, :])
        b = tl.load(b_ptr + ok[:, None] * N + on[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + om[:, None] * N + on[None, :], acc)


@triton.jit
def argmax_k(x_ptr, i_ptr, v_ptr, n, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r * n + c, mask=c < n, other=-float("inf"))
    tl.store(i_ptr + r, tl.argmax(x, 0))
    tl.store(v_ptr + r, tl.max(x, 0))


@triton.jit
def splitk_k(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
             BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    pk = tl.program_id(2)
    om = pm * BM + tl.arange(0, BM)
    on = pn * BN + tl.arange(0, BN)
    ok = pk * BK + tl.arange(0, BK)
    a = tl.load(a_ptr + om[:, None] * K + ok[None, :])
    b = tl.load(b_ptr + ok[:, None] * N + on[None, :])
    tl.atomic_add(c_ptr + om[:, None] * N + on[None, :], tl.dot(a, b))


@triton.jit
def i8_mm(a_ptr, b_ptr, c_ptr, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    om = tl.arange(0, BM)
    on = tl.arange(0, BN)
    ok = tl.arange(0, K)
    a = tl.load(a_ptr + om[:, None] * K + ok[None, :])
    b = tl.load(b_ptr + ok[:, None] * BN + on[None, :])
    tl.store(c_ptr + om[:, None] * BN + on[None, :], tl.dot(a, b, out_dtype=tl.int32))


@triton.jit
def tma_mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           WS: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [K, 1], [BN, BK])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=WS):
        a = a_desc.load([pm * BM, k])
        b = b_desc.load([pn * BN, k])
        acc = tl.dot(a, b.T, acc)
    om = pm * BM + tl.arange(0, BM)
    on = pn * BN + tl.arange(0, BN)
    tl.store(c_ptr + om[:, None] * N + on[None, :], acc)


@triton.jit
def cast_k(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    off = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + off)
    tl.store(y_ptr + off, x.to(tl.float8e4nv))
    tl.store(z_ptr + off, x.to(tl.float8e5))


def compile_to(name, fn, sig, constexprs, cc, num_warps=4, num_stages=3):
    """Compiles for sm_{cc} (90: sm_90a) as a launch would specialize it: pointers marked
    divisible by 16 (as Triton's launcher does). Returns the shared-memory bytes."""
    names = list(sig)
    div = [i for i, n in enumerate(names) if sig[n].startswith("*")]
    src = triton.compiler.ASTSource(
        fn=fn, signature={**sig, **{k: "constexpr" for k in constexprs}},
        constexprs=constexprs, attrs={(i,): [["tt.divisibility", 16]] for i in div})
    k = triton.compile(src, target=GPUTarget("cuda", cc, 32),
                       options={"num_warps": num_warps, "num_stages": num_stages})
    with open(os.path.join(HERE, f"{name}.ptx"), "w") as f:
        f.write(k.asm["ptx"])
    print(name, "kernel", k.metadata.name, "shared", k.metadata.shared)
    if k.metadata.global_scratch_size:
        SCRATCH[name] = k.metadata.global_scratch_size
    return k.metadata.name, k.metadata.shared


# Global scratch bytes per program of the kernels that ask for it (Triton's launcher passes
# a buffer of that many bytes per program as the first of its two trailing pointers).
SCRATCH = {}


def case(name, kernel, shared, comment, grid, args, buffers, expect, programs=1):
    """Writes NAME.toml: the block the PTX's .reqntid asks for (num_warps 4, more with warp
    specialization) and Triton's two scratch pointers: the global scratch as a buffer of
    `programs` × the bytes it asks for (else 0), the profile scratch 0."""
    ptx = open(os.path.join(HERE, f"{name}.ptx")).read()
    block = int(ptx.split(".reqntid")[1].split()[0])
    lines = [f"# {l}".rstrip() for l in comment.strip().splitlines()]
    lines.append("# Written by gen.py (do not edit: change gen.py and run it).")
    lines += [f'ptx = "{name}.ptx"', f'kernel = "{kernel}"', f"grid = {grid}",
              f"block = [{block}]", f"shared_bytes = {shared}"]
    if shared > 48 * 1024:
        lines.append(f"max_dynamic_shared_bytes = {shared}")
    scratch = '{ u64 = 0 }'
    if name in SCRATCH:
        scratch = '{ buffer = "scratch" }'
        buffers = {**buffers, "scratch": ("u8", f"len = {SCRATCH[name] * programs}")}
    lines.append("args = [" + ", ".join(args + [scratch, "{ u64 = 0 }"]) + "]")
    for buf, (ty, init) in buffers.items():
        lines += ["", f"[buffers.{buf}]", f'type = "{ty}"', init]
    for buf, file in expect.items():
        lines += ["", f"[expect.{buf}]", f'file = "{file}.npy"', 'tolerance = "exact"']
    with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
        f.write("\n".join(lines) + "\n")


def save(name, a, dtype):
    np.save(os.path.join(HERE, f"{name}.npy"), np.asarray(a, dtype=dtype).reshape(-1))


def file(name):
    return 'init = { file = "%s.npy" }' % name


def e4m3(x):
    """The e4m3 (float8e4nv) byte of each value of x, all normal or zero and exact:
    sign, 4 exponent bits (bias 7), 3 mantissa bits."""
    out = np.zeros(x.shape, np.uint8)
    for idx, v in np.ndenumerate(x):
        if v == 0:
            continue
        m, e = np.frexp(abs(v))  # abs(v) = m * 2^e, m in [0.5, 1)
        mant = m * 16 - 8  # 1.fff * 2^(e-1): fff = (2m - 1) * 8
        assert mant == int(mant) and 1 <= e - 1 + 7 <= 15, v
        out[idx] = (0x80 if v < 0 else 0) | ((e - 1 + 7) << 3) | int(mant)
    return out


def fp8_rn_satfinite(x, ebits, mbits):
    """The fp8 byte of each f32 value of x as `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32` makes it
    (PTX ISA §9.7.9.21: round to nearest even; a finite value beyond the largest finite one,
    and an infinity, becomes the largest finite value of its sign): e4m3 (bias 7, no
    infinities, largest 448) or e5m2 (bias 15, largest 57344). No NaN inputs here."""
    bias = (1 << (ebits - 1)) - 1
    top = 448.0 if ebits == 4 else 57344.0
    out = np.zeros(x.shape, np.uint8)
    for idx, v in np.ndenumerate(x.astype(np.float64)):
        sign = 0x80 if np.signbit(v) else 0
        a = abs(v)
        if np.isinf(a):
            step = 1.0
        elif a >= 2.0 ** (1 - bias):
            step = 2.0 ** (np.floor(np.log2(a)) - mbits)
        else:
            step = 2.0 ** (1 - bias - mbits)
        q = min(np.rint(a / step) * step, top)  # rint: ties to even
        if q >= 2.0 ** (1 - bias):
            e = int(np.floor(np.log2(q)))
            m = int(round((q / 2.0 ** e - 1) * 2 ** mbits))
            bits = ((e + bias) << mbits) | m
        else:
            bits = int(round(q / 2.0 ** (1 - bias - mbits)))
        out[idx] = sign | bits
    return out


def main():
    rng = np.random.default_rng(50)

    kern, shared = compile_to("assoc_scan", assoc_scan, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                              "z_ptr": "*fp32", "n": "i32"}, {"BLOCK": SC_BLOCK}, 80)
    x = rng.integers(-32, 33, (SC_ROWS, SC_COLS)) / 8
    save("scan_in", x, np.float32)
    save("scan_sum_expected", np.cumsum(x, axis=1), np.float32)
    save("scan_max_expected", np.maximum.accumulate(x[:, ::-1], axis=1)[:, ::-1], np.float32)
    case("assoc_scan", kern, shared, f"""
Triton's tl.associative_scan with user combine functions ({SC_ROWS} rows of {SC_COLS} f32,
BLOCK {SC_BLOCK}, masked): an inclusive sum and a reverse running maximum, within each
thread, then shfl.sync.up across the warp and shared memory across warps (sm_80).
Multiples of 1/8: exact.""", f"[{SC_ROWS}]",
         ['{ buffer = "x" }', '{ buffer = "y" }', '{ buffer = "z" }', f"{{ s32 = {SC_COLS} }}"],
         {"x": ("f32", file("scan_in")), "y": ("f32", f"len = {SC_ROWS * SC_COLS}"),
          "z": ("f32", f"len = {SC_ROWS * SC_COLS}")},
         {"y": "scan_sum_expected", "z": "scan_max_expected"})

    kern, shared = compile_to("sort", sort_k, {"x_ptr": "*fp32", "y_ptr": "*fp32"},
                              {"BLOCK": SO_BLOCK}, 80)
    x = np.stack([rng.permutation(SO_BLOCK) for _ in range(SO_ROWS)]) / 4 - 20
    save("sort_in", x, np.float32)
    save("sort_expected", -np.sort(-x, axis=1), np.float32)
    case("sort", kern, shared, f"""
Triton's tl.sort(descending=True) of {SO_ROWS} rows of {SO_BLOCK} distinct f32 (sm_80): a
bitonic network, shfl.sync.bfly within warps and shared memory across them.""",
         f"[{SO_ROWS}]", ['{ buffer = "x" }', '{ buffer = "y" }'],
         {"x": ("f32", file("sort_in")), "y": ("f32", f"len = {SO_ROWS * SO_BLOCK}")},
         {"y": "sort_expected"})

    kern, shared = compile_to("sort_i32", sort_k, {"x_ptr": "*i32", "y_ptr": "*i32"},
                              {"BLOCK": SI_BLOCK}, 80)
    x = rng.integers(-50, 50, (SO_ROWS, SI_BLOCK))
    x[0, :] = 7  # a row of one value
    x[1, :8] = [-2**31, 2**31 - 1, 0, -1, 1, -2**31, 2**31 - 1, 0]
    save("sort_i32_in", x, np.int32)
    save("sort_i32_expected", -np.sort(-x, axis=1), np.int32)
    case("sort_i32", kern, shared, f"""
Triton's tl.sort(descending=True) of {SO_ROWS} rows of {SI_BLOCK} s32 with repeats, the
extremes and a row of one value (sm_80).""", f"[{SO_ROWS}]",
         ['{ buffer = "x" }', '{ buffer = "y" }'],
         {"x": ("s32", file("sort_i32_in")), "y": ("s32", f"len = {SO_ROWS * SI_BLOCK}")},
         {"y": "sort_i32_expected"})

    kern, shared = compile_to("hist", hist_k, {"x_ptr": "*i32", "h_ptr": "*i32"},
                              {"BLOCK": HI_BLOCK, "BINS": HI_BINS}, 80)
    x = rng.integers(0, HI_BINS, (HI_PROGS, HI_BLOCK))
    x[1, :512] = 5  # a hot bin
    save("hist_in", x, np.int32)
    save("hist_expected", np.stack([np.bincount(r, minlength=HI_BINS) for r in x]), np.int32)
    case("hist", kern, shared, f"""
Triton's tl.histogram of {HI_BLOCK} s32 in [0, {HI_BINS}) per program into {HI_BINS} bins
({HI_PROGS} programs, one with half its values in one bin): atom.shared.add (sm_80).""",
         f"[{HI_PROGS}]", ['{ buffer = "x" }', '{ buffer = "h" }'],
         {"x": ("s32", file("hist_in")), "h": ("s32", f"len = {HI_PROGS * HI_BINS}")},
         {"h": "hist_expected"})

    a = rng.integers(-8, 9, (M, K)) / 8
    b = rng.integers(-8, 9, (K, N)) / 8
    save("a", a, np.float16)
    save("b", b, np.float16)
    save("c_expected", a @ b, np.float16)
    mm = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
          "K": "i32", "sam": "i32", "sak": "i32", "sbk": "i32", "sbn": "i32", "scm": "i32",
          "scn": "i32"}
    mm_args = ['{ buffer = "a" }', '{ buffer = "b" }', '{ buffer = "c" }'] + [
        f"{{ s32 = {v} }}" for v in (M, N, K, K, 1, N, 1, N, 1)]
    mm_bufs = {"a": ("f16", file("a")), "b": ("f16", file("b")), "c": ("f16", f"len = {M * N}")}
    for name, fn, cc, bm, what in [
            ("grouped_mm", grouped_mm, 80, 64, "mma.sync.m16n8k16 with ldmatrix"),
            ("grouped_mm_sm90", grouped_mm, 90, 128, "wgmma.mma_async m64n64k16"),
            ("persistent_mm", persistent_mm, 80, 64, "mma.sync.m16n8k16 with ldmatrix"),
            ("persistent_mm_sm90", persistent_mm, 90, 128, "wgmma.mma_async m64n64k16")]:
        cx = {"BM": bm, "BN": 64, "BK": 32, "GM": 4}
        persistent = fn is persistent_mm
        if persistent:
            cx = {"NUM_SMS": NUM_SMS, **cx}
        kern, shared = compile_to(name, fn, mm, cx, cc)
        tiles = -(-M // bm) * -(-N // 64)
        grid = NUM_SMS if persistent else tiles
        how = (f"{NUM_SMS} persistent programs looping over the {tiles} tiles (tl.range, "
               "flatten=True)" if persistent else
               f"one program per tile ({tiles}), in grouped order (GROUP_M 4)")
        case(name, kern, shared, f"""
Triton's fp16 matmul C = A·B (M, N, K = {M}, {N}, {K}; tiles {bm}x64x32), {how},
for sm_{cc}{'a' if cc == 90 else ''} ({what}). Multiples of 1/8: the f32 sums are exact, C is
numpy's fp16 rounding of them.""", f"[{grid}]", mm_args, mm_bufs, {"c": "c_expected"})

    vals = np.array([0, 0.25, 0.5, 0.75, 1, 1.5, 2, -0.25, -0.5, -0.75, -1, -1.5, -2])
    a8 = rng.choice(vals, (F8, F8))
    b8 = rng.choice(vals, (F8, F8))
    save("a8", e4m3(a8), np.uint8)
    save("b8", e4m3(b8), np.uint8)
    save("c8_expected", a8 @ b8, np.float32)
    f8 = {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp32", "M": "i32", "N": "i32",
          "K": "i32"}
    for name, cc, what in [("fp8_mm_sm89", 89, "mma.sync.m16n8k32 .e4m3"),
                           ("fp8_mm_sm90", 90, "wgmma.mma_async m64n64k32 .e4m3")]:
        kern, shared = compile_to(name, fp8_mm, f8, {"BM": 64, "BN": 64, "BK": 64}, cc)
        case(name, kern, shared, f"""
Triton's fp8 (float8e4nv) matmul C = A·B in f32 ({F8}x{F8}x{F8}, tiles 64x64x64) for
sm_{cc}{'a' if cc == 90 else ''} ({what}); A and B as e4m3 bytes. Values from
{{0, ±1/4, ±1/2, ±3/4, ±1, ±3/2, ±2}}: exact.""", f"[{F8 // 64}, {F8 // 64}]",
             ['{ buffer = "a" }', '{ buffer = "b" }', '{ buffer = "c" }'] + [
                 f"{{ s32 = {F8} }}"] * 3,
             {"a": ("u8", file("a8")), "b": ("u8", file("b8")),
              "c": ("f32", f"len = {F8 * F8}")}, {"c": "c8_expected"})

    x = rng.integers(-40, 40, (AM_ROWS, AM_COLS)) / 4  # many ties for the maximum
    x[3, 100:] = x[3, :100].max()  # the maximum from column 100 on: the first one counts
    save("argmax_in", x, np.float32)
    save("argmax_i_expected", np.argmax(x, axis=1), np.int32)
    save("argmax_v_expected", x.max(axis=1), np.float32)
    kern, shared = compile_to("argmax", argmax_k, {"x_ptr": "*fp32", "i_ptr": "*i32",
                              "v_ptr": "*fp32", "n": "i32"}, {"BLOCK": AM_BLOCK}, 80)
    case("argmax", kern, shared, f"""
Triton's tl.argmax and tl.max along rows of {AM_COLS} f32 ({AM_ROWS} rows, BLOCK {AM_BLOCK},
masked with -inf), sm_80: many ties, where the first index of the maximum counts
(tie_break_left, numpy's argmax).""", f"[{AM_ROWS}]",
         ['{ buffer = "x" }', '{ buffer = "i" }', '{ buffer = "v" }', f"{{ s32 = {AM_COLS} }}"],
         {"x": ("f32", file("argmax_in")), "i": ("s32", f"len = {AM_ROWS}"),
          "v": ("f32", f"len = {AM_ROWS}")},
         {"i": "argmax_i_expected", "v": "argmax_v_expected"})

    a = rng.integers(-8, 9, (SK, SK)) / 8
    b = rng.integers(-8, 9, (SK, SK)) / 8
    save("sk_a", a, np.float16)
    save("sk_b", b, np.float16)
    save("sk_c_expected", a @ b, np.float32)
    sk = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
          "K": "i32"}
    for name, cc, what in [("splitk", 80, "mma.sync"), ("splitk_sm90", 90, "wgmma")]:
        kern, shared = compile_to(name, splitk_k, sk, {"BM": 64, "BN": 64, "BK": 32}, cc)
        case(name, kern, shared, f"""
Triton's split-K fp16 matmul ({SK}^3, tiles 64x64x32, grid {SK // 64}x{SK // 64}x{SK // 32}):
each program's partial product ({what}, sm_{cc}{'a' if cc == 90 else ''}) added into C with
tl.atomic_add (red/atom.global.add.f32 under a mask). Multiples of 1/8: every partial sum and
total is exact in f32, in any order.""", f"[{SK // 64}, {SK // 64}, {SK // 32}]",
             ['{ buffer = "a" }', '{ buffer = "b" }', '{ buffer = "c" }'] + [
                 f"{{ s32 = {SK} }}"] * 3,
             {"a": ("f16", file("sk_a")), "b": ("f16", file("sk_b")),
              "c": ("f32", f"len = {SK * SK}\ninit = {{ fill = 0 }}")}, {"c": "sk_c_expected"})

    a = rng.integers(-128, 128, (I8, I8))
    b = rng.integers(-128, 128, (I8, I8))
    a[0, :] = -128  # the extreme products
    b[:, 0] = -128
    save("i8_a", a, np.int8)
    save("i8_b", b, np.int8)
    save("i8_c_expected", a @ b, np.int32)
    for name, cc, what in [("i8_mm", 80, "mma.sync.m16n8k32 .s8"),
                           ("i8_mm_sm90", 90, "wgmma.mma_async m64n64k32 .s32.s8.s8")]:
        kern, shared = compile_to(name, i8_mm, {"a_ptr": "*i8", "b_ptr": "*i8", "c_ptr": "*i32"},
                                  {"K": I8, "BM": I8, "BN": I8}, cc)
        case(name, kern, shared, f"""
Triton's int8 dot with an int32 result ({I8}^3, one program; {what},
sm_{cc}{'a' if cc == 90 else ''}): the full s8 range, a row and a column of -128.""", "[1]",
             ['{ buffer = "a" }', '{ buffer = "b" }', '{ buffer = "c" }'],
             {"a": ("s8", file("i8_a")), "b": ("s8", file("i8_b")),
              "c": ("s32", f"len = {I8 * I8}")}, {"c": "i8_c_expected"})

    a = rng.integers(-8, 9, (TM, TK)) / 8
    b = rng.integers(-8, 9, (TM, TK)) / 8  # B as N x K rows: C = A·Bᵀ
    save("tma_a", a, np.float16)
    save("tma_b", b, np.float16)
    save("tma_c_expected", a @ b.T, np.float32)
    tm = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
          "K": "i32"}
    for name, cc, ws, what in [
            ("tma_mm_sm90", 90, False, "wgmma"), ("tma_mm_sm100", 100, False, "tcgen05.mma"),
            # Warp specialization: the default warps wait at a named barrier for 128
            # threads while the other partitions spin on mbarriers.
            ("ws_mm_sm90", 90, True, "wgmma")]:
        kern, shared = compile_to(name, tma_mm, tm, {"BM": 128, "BN": 128, "BK": 64, "WS": ws},
                                  cc)
        spec = (" with warp specialization (tl.range(warp_specialize=True): producer and "
                "consumer warp groups, setmaxnreg, mbarrier hand-offs)" if ws else "")
        case(name, kern, shared, f"""
Triton's fp16 matmul C = A·Bᵀ in f32 ({TM}x{TM}x{TK}, tiles 128x128x64, 2x2 programs) through
device-side tensor descriptors (tl.make_tensor_descriptor: 128 zeroed bytes of shared
memory, tensormap.replace of each field, tensormap.cp_fenceproxy into the global scratch,
then cp.async.bulk.tensor loads){spec}, sm_{cc}a ({what}). Multiples of 1/8: exact.""",
             "[2, 2]", ['{ buffer = "a" }', '{ buffer = "b" }', '{ buffer = "c" }'] + [
                 f"{{ s32 = {v} }}" for v in (TM, TM, TK)],
             {"a": ("f16", file("tma_a")), "b": ("f16", file("tma_b")),
              "c": ("f32", f"len = {TM * TM}")}, {"c": "tma_c_expected"}, programs=4)

    x = [0.0, -0.0, 1.0, -1.0, 448.0, 449.0, 464.0, 480.0, 1e6, -1e6, float("inf"),
         -float("inf"), 57344.0, 61439.0, 61440.0, 1e5, 2.0 ** -6, 2.0 ** -9, 2.0 ** -10,
         1.5 * 2.0 ** -10, 2.0 ** -16, 2.0 ** -17, 1.5 * 2.0 ** -17, 3 * 2.0 ** -18,
         1.0625, 1.1875, 1.125, 1.375, 1.3125, -2.5625, 0.3, 3.14159]
    x += list(rng.standard_normal(CA_N - len(x)) * 2.0 ** rng.integers(-18, 12, CA_N - len(x)))
    x = np.array(x, np.float32)
    save("cast_in", x, np.float32)
    save("cast_e4m3_expected", fp8_rn_satfinite(x, 4, 3), np.uint8)
    save("cast_e5m2_expected", fp8_rn_satfinite(x, 5, 2), np.uint8)
    for name, cc in [("cast_fp8_sm89", 89), ("cast_fp8_sm90", 90)]:
        kern, shared = compile_to(name, cast_k, {"x_ptr": "*fp32", "y_ptr": "*fp8e4nv",
                                  "z_ptr": "*fp8e5"}, {"BLOCK": 256}, cc)
        case(name, kern, shared, f"""
Triton's f32 -> float8e4nv and float8e5 casts (cvt.rn.satfinite.e4m3x2/e5m2x2.f32),
sm_{cc}{'a' if cc == 90 else ''}: {CA_N} values with ties, subnormals, both zeros, values past
the largest finite one and infinities (saturated). Expected by gen.py's encoder (round to
nearest even, satfinite; PTX ISA cvt), as bytes.""", f"[{CA_N // 256}]",
             ['{ buffer = "x" }', '{ buffer = "y" }', '{ buffer = "z" }'],
             {"x": ("f32", file("cast_in")), "y": ("u8", f"len = {CA_N}"),
              "z": ("u8", f"len = {CA_N}")},
             {"y": "cast_e4m3_expected", "z": "cast_e5m2_expected"})


if __name__ == "__main__":
    main()
