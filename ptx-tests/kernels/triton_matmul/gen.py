#!/usr/bin/env python3
"""Writes the Triton matmul cases: triton_matmul.ptx (fp16) and triton_matmul_tf32.ptx (f32
inputs, tf32 tensor cores), Triton's own PTX for an NVIDIA sm_80 target compiled without a
GPU, the same two for sm_90a (triton_matmul_sm90.ptx, triton_matmul_tf32_sm90.ptx: Hopper's
wgmma.mma_async with shared-memory matrix descriptors) and for sm_100a
(triton_matmul_sm100.ptx, triton_matmul_tf32_sm100.ptx: Blackwell's tcgen05.mma into tensor
memory), the inputs and the expected output.

C = A·B with A (M×K) and B (K×N) in fp16 (or f32), C in f32, by a Triton kernel using tl.dot
(which Triton lowers to ldmatrix and mma.sync, with cp.async pipelining, for sm_80, and to
wgmma.mma_async reading swizzled shared memory through matrix descriptors for sm_90a). The values are
multiples of 1/4 in [-2, 2], exact in fp16 and tf32, so every product and partial sum is
exact in f32 and the expected C (numpy) does not depend on the order of the sum.

Run (needs `pip install triton numpy`, no GPU): python3 gen.py
"""
import os
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, said aloud
import numpy as np
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

HERE = os.path.dirname(os.path.abspath(__file__))
M, N, K = 128, 128, 128
BM, BN, BK = 64, 64, 32


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc)


def compile_to(name, elem, arch=80, blocks=(BM, BN, BK), num_warps=4):
    """Compile for sm_80 as a launch would specialize it: pointers and the integer arguments
    (all multiples of 16 here) marked divisible by 16."""
    sig = {"a_ptr": f"*{elem}", "b_ptr": f"*{elem}", "c_ptr": "*fp32", "M": "i32", "N": "i32",
           "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
           "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
    src = triton.compiler.ASTSource(
        fn=matmul, signature=sig,
        constexprs={"BLOCK_M": blocks[0], "BLOCK_N": blocks[1], "BLOCK_K": blocks[2]},
        attrs={(i,): [["tt.divisibility", 16]] for i in range(9)},
    )
    k = triton.compile(src, target=GPUTarget("cuda", arch, 32),
                       options={"num_warps": num_warps, "num_stages": 3})
    with open(os.path.join(HERE, f"{name}.ptx"), "w") as f:
        f.write(k.asm["ptx"])
    print(name, "kernel", k.metadata.name, "shared", k.metadata.shared)


def main():
    compile_to("triton_matmul", "fp16")
    compile_to("triton_matmul_tf32", "fp32")  # tl.dot on fp32: tf32 mma (the default precision)
    # GPUTarget("cuda", 90, 32) is sm_90a for Triton (.target sm_90a: wgmma needs it).
    compile_to("triton_matmul_sm90", "fp16", 90)
    compile_to("triton_matmul_tf32_sm90", "fp32", 90)
    # One 128×128 tile by two warpgroups (8 warps): wgmma.m64n128k16, rows 64-127 by warps 4-7.
    compile_to("triton_matmul_sm90_w8", "fp16", 90, (128, 128, 64), 8)
    # GPUTarget("cuda", 100, 32) is sm_100a: tl.dot becomes tcgen05.mma (kind::f16, kind::tf32)
    # accumulating in tensor memory (tcgen05.alloc/ld/st), completion through tcgen05.commit
    # to an mbarrier, and Triton's inline-assembly wait loops (one `waitLoop:` label per
    # `{ }` block).
    compile_to("triton_matmul_sm100", "fp16", 100)
    compile_to("triton_matmul_tf32_sm100", "fp32", 100)
    rng = np.random.default_rng(3)
    a = rng.integers(-8, 9, (M, K)) / 4
    b = rng.integers(-8, 9, (K, N)) / 4
    c = (a @ b).astype(np.float32)
    np.save(os.path.join(HERE, "a.npy"), a.astype(np.float16).reshape(-1))
    np.save(os.path.join(HERE, "b.npy"), b.astype(np.float16).reshape(-1))
    np.save(os.path.join(HERE, "a32.npy"), a.astype(np.float32).reshape(-1))
    np.save(os.path.join(HERE, "b32.npy"), b.astype(np.float32).reshape(-1))
    np.save(os.path.join(HERE, "c_expected.npy"), c.reshape(-1))


if __name__ == "__main__":
    main()
