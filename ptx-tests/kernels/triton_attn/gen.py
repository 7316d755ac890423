#!/usr/bin/env python3
"""Writes the Triton fused-attention cases: Triton's own PTX of the tutorial's forward kernel
(`_attn_fwd`, online softmax in base 2; the tile pointers computed as the tutorial's block
pointers were, which Triton 3.9 removed), head dim 64, causal and not, for an
NVIDIA sm_80 target (mma.sync, ldmatrix, cp.async) and for sm_90a (wgmma.mma_async, the second
product with its A operand in registers), compiled without a GPU; the inputs and the expected
outputs (numpy, float64).

Out = softmax(Q·Kᵀ·sm_scale (+ causal mask)) · V per (batch, head), fp16 in and out, and M, the
row's log-sum-exp in base 2 of the scaled scores (what the backward pass reads), f32.
Q, K and V are multiples of 1/8 in [-1, 1] (exact in fp16). The kernel rounds the
probabilities to fp16 before the second product (relative 2^-11 each) and the output to fp16
(half an ulp, at most 2^-12 for |out| <= 1), exp2 is ex2.approx (2^-22 relative), and the sums
run in f32 in Triton's order: |Out - reference| <= 2^-11 + 2^-12 + small < 2e-3, M (|M| < 16)
within 1e-4.

Run (needs `pip install triton numpy`, no GPU): python3 gen.py
"""
import os
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, said aloud
import numpy as np
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

HERE = os.path.dirname(os.path.abspath(__file__))
Z, H, N_CTX, HEAD_DIM = 1, 2, 256, 64
BLOCK_M, BLOCK_N = 128, 64
SM_SCALE = 0.125  # 1/sqrt(HEAD_DIM), exact


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vk, start_m, qk_scale,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                    STAGE: tl.constexpr, offs_m: tl.constexpr, offs_n: tl.constexpr,
                    N_CTX: tl.constexpr):
    # The causal kernel's blocks left of the diagonal (STAGE 1), on it (2), or all (3).
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    k_ptrs += lo * stride_kn
    v_ptrs += lo * stride_vk
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(k_ptrs)
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs)
        p = p.to(tl.float16)
        acc = tl.dot(p, v, acc)
        m_i = m_ij
        v_ptrs += BLOCK_N * stride_vk
        k_ptrs += BLOCK_N * stride_kn
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(Q, K, V, sm_scale, M, Out,
              stride_qz, stride_qh, stride_qm, stride_qk,
              stride_kz, stride_kh, stride_kn, stride_kk,
              stride_vz, stride_vh, stride_vk, stride_vn,
              stride_oz, stride_oh, stride_om, stride_on,
              Z, H, N_CTX: tl.constexpr, HEAD_DIM: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    qvk_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    # Q and Out as (BLOCK_M, HEAD_DIM) tiles, K as its transpose (HEAD_DIM, BLOCK_N), V as
    # (BLOCK_N, HEAD_DIM): the tutorial's block pointers, which Triton 3.9 no longer has.
    q_ptrs = Q + qvk_offset + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk
    k_ptrs = K + qvk_offset + offs_d[:, None] * stride_kk + offs_n[None, :] * stride_kn
    v_ptrs = V + qvk_offset + offs_n[:, None] * stride_vk + offs_d[None, :] * stride_vn
    o_ptrs = Out + qvk_offset + offs_m[:, None] * stride_om + offs_d[None, :] * stride_on
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale
    qk_scale *= 1.44269504  # 1/ln(2)
    q = tl.load(q_ptrs)
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vk, start_m,
                                        qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE,
                                        offs_m, offs_n, N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vk, start_m,
                                        qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N, 2,
                                        offs_m, offs_n, N_CTX)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    m_ptrs = M + off_hz * N_CTX + offs_m
    tl.store(m_ptrs, m_i)
    tl.store(o_ptrs, acc.to(Out.type.element_ty))


def compile_to(name, causal, arch):
    """Compile as a launch would specialize it: pointers and the strides (multiples of 16)
    marked divisible by 16, N_CTX and the block shapes constant."""
    sig = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "M": "*fp32",
           "Out": "*fp16"}
    for t in "qkvo":
        for s in "zhmk" if t == "q" else ("zhnk" if t == "k" else ("zhkn" if t == "v" else "zhmn")):
            sig[f"stride_{t}{s}"] = "i32"
    sig.update({"Z": "i32", "H": "i32", "N_CTX": "constexpr", "HEAD_DIM": "constexpr",
                "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "STAGE": "constexpr"})
    names = list(sig)
    div16 = [i for i, n in enumerate(names)
             if sig[n].startswith("*") or (n.startswith("stride_") and not n.endswith(("qk", "kk", "vn", "on")))]
    src = triton.compiler.ASTSource(
        fn=_attn_fwd, signature=sig,
        constexprs={"N_CTX": N_CTX, "HEAD_DIM": HEAD_DIM, "BLOCK_M": BLOCK_M,
                    "BLOCK_N": BLOCK_N, "STAGE": 3 if causal else 1},
        attrs={(i,): [["tt.divisibility", 16]] for i in div16},
    )
    k = triton.compile(src, target=GPUTarget("cuda", arch, 32),
                       options={"num_warps": 4, "num_stages": 3})
    with open(os.path.join(HERE, f"{name}.ptx"), "w") as f:
        f.write(k.asm["ptx"])
    print(name, "kernel", k.metadata.name, "shared", k.metadata.shared)
    return k.metadata.shared


def reference(q, k, v, causal):
    """Out (float64) and M, the base-2 log-sum-exp of each row's scaled scores."""
    s = np.einsum("hmd,hnd->hmn", q, k) * SM_SCALE
    if causal:
        s = np.where(np.tril(np.ones((N_CTX, N_CTX), bool)), s, -np.inf)
    mx = s.max(-1, keepdims=True)
    e = np.exp(s - mx)
    out = (e / e.sum(-1, keepdims=True)) @ v
    m = (mx[..., 0] + np.log(e.sum(-1))) / np.log(2)
    return out, m


def write_case(name, tag, arch, shared):
    """Writes NAME.toml: grid (N_CTX/BLOCK_M, Z*H), 128 threads (num_warps=4), the layout
    (Z, H, N_CTX, HEAD_DIM) contiguous for Q, K, V and Out."""
    sz, sh, sm = H * N_CTX * HEAD_DIM, N_CTX * HEAD_DIM, HEAD_DIM
    strides = ", ".join(f"{{ s32 = {v} }}" for v in [sz, sh, sm, 1] * 4)
    what = ("causal (the blocks left of the diagonal, then the diagonal's under the mask)"
            if tag == "causal" else "not causal")
    how = ("mma.sync.m16n8k16 with ldmatrix" if arch == 80 else
           "wgmma.mma_async.m64n64k16, Q·Kᵀ from shared-memory descriptors and P·V with P in "
           "registers")
    n = Z * H * N_CTX
    text = f"""# Triton's fused-attention forward kernel (the tutorial's _attn_fwd), head dim 64, {what},
# for sm_{arch}{"a" if arch == 90 else ""} ({how}), from Triton 3.9 compiled without a GPU.
# Tolerances against numpy's float64 attention: gen.py's docstring. The last two parameters
# are Triton's global and profile scratch pointers (unused: 0).
# Written by gen.py (do not edit: change gen.py and run it).
ptx = "{name}.ptx"
kernel = "_attn_fwd"
grid = [{N_CTX // BLOCK_M}, {Z * H}]
block = [128]
shared_bytes = {shared}
args = [{{ buffer = "q" }}, {{ buffer = "k" }}, {{ buffer = "v" }}, {{ f32 = {SM_SCALE} }}, {{ buffer = "m" }},
        {{ buffer = "out" }}, {strides},
        {{ s32 = {Z} }}, {{ s32 = {H} }}, {{ u64 = 0 }}, {{ u64 = 0 }}]

[buffers.q]
type = "f16"
init = {{ file = "q.npy" }}

[buffers.k]
type = "f16"
init = {{ file = "k.npy" }}

[buffers.v]
type = "f16"
init = {{ file = "v.npy" }}

[buffers.m]
type = "f32"
len = {n}

[buffers.out]
type = "f16"
len = {n * HEAD_DIM}

[expect.m]
file = "m_{tag}_expected.npy"
tolerance = {{ abs = 1e-4 }}

[expect.out]
file = "out_{tag}_expected.npy"
tolerance = {{ abs = 2e-3 }}
"""
    with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
        f.write(text)


def main():
    rng = np.random.default_rng(7)
    q, k, v = (rng.integers(-8, 9, (Z * H, N_CTX, HEAD_DIM)) / 8 for _ in range(3))
    for t, x in zip("qkv", (q, k, v)):
        np.save(os.path.join(HERE, f"{t}.npy"), x.astype(np.float16).reshape(-1))
    for causal in (False, True):
        tag = "causal" if causal else "full"
        out, m = reference(q, k, v, causal)
        np.save(os.path.join(HERE, f"out_{tag}_expected.npy"), out.astype(np.float16).reshape(-1))
        np.save(os.path.join(HERE, f"m_{tag}_expected.npy"), m.astype(np.float32).reshape(-1))
        for arch, suffix in ((80, ""), (90, "_sm90")):
            shared = compile_to(f"attn_{tag}{suffix}", causal, arch)
            write_case(f"attn_{tag}{suffix}", tag, arch, shared)


if __name__ == "__main__":
    main()
