#!/usr/bin/env python3
"""Writes Triton's row-wise kernels as cases: softmax, layer norm (forward, with weight and
bias), a 2D reduction (sum over the rows' axis) and a cumulative sum (tl.cumsum), each as
Triton's own PTX for an NVIDIA sm_80 target compiled without a GPU, with its inputs and the
expected outputs from numpy (in float64, rounded to float32 at the end).

Tolerances (in the .toml files) follow from the order of the float operations, which numpy
and Triton choose differently; see each case's comment.

Run (needs `pip install triton numpy`, no GPU): python3 gen.py
"""
import os
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, said aloud
import numpy as np
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = GPUTarget("cuda", 80, 32)

# Shapes: rows × columns. The column counts are not powers of two, so the masks matter.
SM_ROWS, SM_COLS, SM_BLOCK = 64, 1000, 1024
LN_ROWS, LN_COLS, LN_BLOCK = 32, 700, 1024
LN_EPS = 1e-5
RS_ROWS, RS_COLS, RS_BM, RS_BN = 300, 96, 32, 64
CS_ROWS, CS_COLS, CS_BLOCK = 16, 500, 512


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)


@triton.jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n_cols
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, xc * rstd * w + b, mask=mask)


@triton.jit
def sum_rows(x_ptr, out_ptr, n_rows, n_cols, stride,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """out[j] = sum over i of x[i, j]: each program sums BLOCK_N columns over all rows."""
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, n_rows, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        acc += tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + cols, tl.sum(acc, axis=0), mask=cols < n_cols)


@triton.jit
def cumsum(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0)
    tl.store(y_ptr + row * stride + cols, tl.cumsum(x, axis=0), mask=mask)


def case(name, kernel, comment, grid, shared, args, buffers, expect):
    """Writes NAME.toml: a launch of 128 threads (Triton's num_warps=4; the PTX says
    .reqntid 128) with Triton's two scratch pointers (global and profile, unused) as 0."""
    lines = [f"# {l}".rstrip() for l in comment.strip().splitlines()]
    lines.append("# Written by gen.py (do not edit: change gen.py and run it).")
    lines += [f'ptx = "{name}.ptx"', f'kernel = "{kernel}"', f"grid = [{grid}]", "block = [128]",
              f"shared_bytes = {shared}"]
    lines.append("args = [" + ", ".join(args + ["{ u64 = 0 }", "{ u64 = 0 }"]) + "]")
    for buf, (ty, init) in buffers.items():
        lines += ["", f"[buffers.{buf}]", f'type = "{ty}"', init]
    for buf, (file, tol) in expect.items():
        lines += ["", f"[expect.{buf}]", f'file = "{file}.npy"', f"tolerance = {tol}"]
    with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
        f.write("\n".join(lines) + "\n")


def compile_to(name, fn, sig, constexprs, num_warps):
    """Compile for sm_80 as a launch would specialize it: pointers and the integer
    arguments that are multiples of 16 marked divisible by 16 (as Triton's launcher does)."""
    names = list(sig)
    div = [i for i, n in enumerate(names) if sig[n].startswith("*")]
    src = triton.compiler.ASTSource(
        fn=fn, signature={**sig, **{k: "constexpr" for k in constexprs}},
        constexprs=constexprs, attrs={(i,): [["tt.divisibility", 16]] for i in div})
    k = triton.compile(src, target=TARGET, options={"num_warps": num_warps})
    with open(os.path.join(HERE, f"{name}.ptx"), "w") as f:
        f.write(k.asm["ptx"])
    print(name, "kernel", k.metadata.name, "shared", k.metadata.shared, "warps", num_warps)
    return k.metadata.shared


def save(name, a, dtype=np.float32):
    np.save(os.path.join(HERE, f"{name}.npy"), np.asarray(a, dtype=dtype).reshape(-1))


def main():
    rng = np.random.default_rng(17)
    f32 = "{ file = \"%s.npy\" }"

    shared = compile_to("softmax", softmax, {"out_ptr": "*fp32", "in_ptr": "*fp32",
                        "in_stride": "i32", "out_stride": "i32", "n_cols": "i32"},
                        {"BLOCK": SM_BLOCK}, 4)
    x = rng.standard_normal((SM_ROWS, SM_COLS)).astype(np.float32) * 4
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    save("softmax_in", x)
    save("softmax_expected", e / e.sum(axis=1, keepdims=True))
    case("softmax", "softmax", f"""
Triton's row-wise softmax ({SM_ROWS}x{SM_COLS} f32, one program per row, BLOCK={SM_BLOCK} so
the mask matters) for sm_80: max and sum by shfl.sync.bfly and shared memory across warps,
exp as ex2.approx.f32(x * 0f3FB8AA3B), division by div.full.f32.
Tolerance against numpy's float64 softmax: |x - max| <= 45, so rounding x - max, the f32
log2(e) (relative 2^-25) and the product x*log2(e) each move the exponent by at most
45 * 1.44 * 2^-24 ~ 4e-6, that is e^x by a relative 3e-6 each; ex2.approx adds 2^-22,
the sum of 1000 positive terms (depth <= 8 + 5 + 2 adds) 1e-6, div.full 2 ulp: rel 2e-5
bounds it with margin.""", SM_ROWS, shared,
         ['{ buffer = "out" }', '{ buffer = "in" }', f"{{ s32 = {SM_COLS} }}",
          f"{{ s32 = {SM_COLS} }}", f"{{ s32 = {SM_COLS} }}"],
         {"in": ("f32", "init = " + f32 % "softmax_in"),
          "out": ("f32", f"len = {SM_ROWS * SM_COLS}")},
         {"out": ("softmax_expected", "{ rel = 2e-5 }")})

    shared = compile_to("layer_norm", layer_norm, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                        "w_ptr": "*fp32", "b_ptr": "*fp32", "stride": "i32", "n_cols": "i32",
                        "eps": "fp32"}, {"BLOCK": LN_BLOCK}, 4)
    x = (rng.standard_normal((LN_ROWS, LN_COLS)) * 3 + 1).astype(np.float32)
    w = rng.uniform(0.5, 1.5, LN_COLS).astype(np.float32)
    b = rng.uniform(-1, 1, LN_COLS).astype(np.float32)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    y = (x64 - mean) / np.sqrt(var + np.float64(np.float32(LN_EPS))) * w + b
    save("layer_norm_x", x)
    save("layer_norm_w", w)
    save("layer_norm_b", b)
    save("layer_norm_expected", y)
    case("layer_norm", "layer_norm", f"""
Triton's layer norm forward ({LN_ROWS}x{LN_COLS} f32, x ~ N(1, 3^2), weight in [0.5, 1.5],
bias in [-1, 1], eps {LN_EPS}) for sm_80: mean and variance by shfl.sync.bfly and shared memory,
1/sqrt as div.full.f32 of sqrt.approx.ftz.f32, y = (x - mean) * rstd * w + b with fma.
Tolerance against numpy in float64: each sum of 700 terms is at most 15 f32 adds deep
(8 per thread, 5 shuffles, 2 across warps), so its error is <= 15 * 2^-24 * sum|x|: 2e-3 on
sum(x) (3e-6 on the mean) and a relative 1e-6 on the variance; rstd adds 2 ulp (sqrt.approx,
div.full); |(x - mean) * rstd * w| <= 8, so y is off by at most ~3e-5: abs 5e-5.""",
         LN_ROWS, shared,
         ['{ buffer = "x" }', '{ buffer = "y" }', '{ buffer = "w" }', '{ buffer = "b" }',
          f"{{ s32 = {LN_COLS} }}", f"{{ s32 = {LN_COLS} }}", f"{{ f32 = {LN_EPS} }}"],
         {"x": ("f32", "init = " + f32 % "layer_norm_x"),
          "w": ("f32", "init = " + f32 % "layer_norm_w"),
          "b": ("f32", "init = " + f32 % "layer_norm_b"),
          "y": ("f32", f"len = {LN_ROWS * LN_COLS}")},
         {"y": ("layer_norm_expected", "{ abs = 5e-5 }")})

    shared = compile_to("sum_rows", sum_rows, {"x_ptr": "*fp32", "out_ptr": "*fp32",
                        "n_rows": "i32", "n_cols": "i32", "stride": "i32"},
                        {"BLOCK_M": RS_BM, "BLOCK_N": RS_BN}, 4)
    x = rng.integers(-32, 33, (RS_ROWS, RS_COLS)) / 8
    save("sum_rows_in", x)
    save("sum_rows_expected", x.sum(axis=0))
    grid = (RS_COLS + RS_BN - 1) // RS_BN
    case("sum_rows", "sum_rows", f"""
Triton's 2D reduction: out[j] = sum over i of x[i, j] for a {RS_ROWS}x{RS_COLS} f32 matrix,
each program summing {RS_BN} columns over all rows in {RS_BM}x{RS_BN} tiles (masked at the
bottom and right edges), then tl.sum over the tile's rows (shfl.sync.bfly and shared memory).
The values are multiples of 1/8 in [-4, 4], so every partial sum (|s| <= 1200) is exact in
f32 and any order of the adds gives numpy's sum: exact.""", grid, shared,
         ['{ buffer = "x" }', '{ buffer = "out" }', f"{{ s32 = {RS_ROWS} }}",
          f"{{ s32 = {RS_COLS} }}", f"{{ s32 = {RS_COLS} }}"],
         {"x": ("f32", "init = " + f32 % "sum_rows_in"), "out": ("f32", f"len = {RS_COLS}")},
         {"out": ("sum_rows_expected", '"exact"')})

    for name, elem, ty in [("cumsum", "*i32", "s32"), ("cumsum_f32", "*fp32", "f32")]:
        shared = compile_to(name, cumsum, {"x_ptr": elem, "y_ptr": elem, "stride": "i32",
                            "n_cols": "i32"}, {"BLOCK": CS_BLOCK}, 4)
        if ty == "s32":
            x = rng.integers(-1000, 1001, (CS_ROWS, CS_COLS))
            save(f"{name}_in", x, np.int32)
            save(f"{name}_expected", np.cumsum(x, axis=1), np.int32)
            why = "Integer adds: exact."
        else:
            x = rng.integers(-32, 33, (CS_ROWS, CS_COLS)) / 4
            save(f"{name}_in", x)
            save(f"{name}_expected", np.cumsum(x, axis=1))
            why = ("The values are multiples of 1/4 in [-8, 8], so every partial sum (|s| <= "
                   "4000 < 2^12)\nis exact in f32 whatever the scan's order: exact.")
        case(name, "cumsum", f"""
Triton's tl.cumsum along the rows of a {CS_ROWS}x{CS_COLS} {ty} matrix (BLOCK={CS_BLOCK}, masked):
a scan within each thread, then shfl.sync.up across the warp and shared memory across warps.
{why}""", CS_ROWS, shared,
             ['{ buffer = "x" }', '{ buffer = "y" }', f"{{ s32 = {CS_COLS} }}",
              f"{{ s32 = {CS_COLS} }}"],
             {"x": (ty, "init = " + f32 % f"{name}_in"),
              "y": (ty, f"len = {CS_ROWS * CS_COLS}")},
             {"y": (f"{name}_expected", '"exact"')})


if __name__ == "__main__":
    main()
