#!/usr/bin/env python3
"""Host reference for atomic_group.cu: builds each thread's bin and operand, computes the
expected sums (wrapping at 32 and 64 bits), counters and ticket counts from CUDA's
atomicAdd semantics (the final values do not depend on the order the atomics run in), and
writes the inputs, expected outputs and case files. Re-run after changing the kernels:
    python3 gen.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)

SKIP = 0xFFFFFFFF
NB, CAP = 16, 128
M32, M64 = (1 << 32) - 1, (1 << 64) - 1
FAR = 0x0FFFFFFF  # a bin whose addresses lie far above every allocation and shared window


def warp_bins(w, rng):
    """Thread bins of warp pattern w (32 lanes)."""
    lanes = np.arange(32)
    p = w % 8
    if p == 0:  # the whole warp on one bin: every group combined
        b = np.full(32, 3)
    elif p == 1:  # pairs: two addresses per group
        b = (lanes // 2) % NB
    elif p == 2:  # four distinct addresses per group
        b = lanes % NB
    elif p == 3:  # one bin, every third lane skips: partial groups on one address
        b = np.where(lanes % 3 == 0, SKIP, 5)
    elif p == 4:  # random bins
        b = rng.integers(0, NB, 32)
    elif p == 5:  # lanes 0, 2 and 1, 3 of each group on two bins
        b = 7 + (lanes & 1)
    elif p == 6:  # one bin, the last lane skips: the last group partial
        b = np.where(lanes == 31, SKIP, 3)
    else:  # random bins, some lanes skip
        b = np.where(rng.random(32) < 0.25, SKIP, rng.integers(0, NB, 32))
    return [int(x) for x in b]


def reference(idx, val, bins0, bins64_0, threads_per_cta, per_cta):
    """Expected bins, bins64, count, seen (per CTA with per_cta, else one set)."""
    ctas = len(idx) // threads_per_cta
    sets = ctas if per_cta else 1
    bins = [list(bins0) if not per_cta else [0] * NB for _ in range(sets)]
    bins64 = [list(bins64_0) if not per_cta else [0] * NB for _ in range(sets)]
    count = [[0] * NB for _ in range(sets)]
    seen = [[0] * (NB * CAP) for _ in range(sets)]
    for t, (b, v) in enumerate(zip(idx, val)):
        if b == SKIP or b == FAR:
            continue
        s = t // threads_per_cta if per_cta else 0
        bins[s][b] = (bins[s][b] + v) & M32
        bins64[s][b] = (bins64[s][b] + (v << 24) + t) & M64
        ticket = count[s][b]
        count[s][b] += 1
        assert ticket < CAP
        seen[s][b * CAP + ticket] += 1
    flat = lambda xs: [x for s in xs for x in s]  # noqa: E731
    return flat(bins), flat(bins64), flat(count), flat(seen)


def write_case(name, comment, kernel, grid, block, idx, val, per_cta, fault=None, expect=True):
    rng = np.random.default_rng(11)
    bins0 = [int(x) for x in rng.integers(0, 1 << 32, NB, dtype=np.uint64)]
    bins64_0 = [int(x) for x in rng.integers(0, 1 << 63, NB, dtype=np.uint64) * 2 + 1]
    sets = grid if per_cta else 1
    bins, bins64, count, seen = reference(idx, val, bins0, bins64_0, block, per_cta)
    gc.save_npy(HERE, f"{name}_idx", np.array(idx, dtype=np.uint32))
    gc.save_npy(HERE, f"{name}_val", np.array(val, dtype=np.uint32))
    if not per_cta:
        gc.save_npy(HERE, f"{name}_bins_in", np.array(bins0, dtype=np.uint32))
        gc.save_npy(HERE, f"{name}_bins64_in", np.array(bins64_0, dtype=np.uint64))
    if expect:
        gc.save_npy(HERE, f"{name}_bins", np.array(bins, dtype=np.uint32))
        gc.save_npy(HERE, f"{name}_bins64", np.array(bins64, dtype=np.uint64))
        gc.save_npy(HERE, f"{name}_count", np.array(count, dtype=np.uint32))
        gc.save_npy(HERE, f"{name}_seen", np.array(seen, dtype=np.uint32))
    init = (
        f'init = {{ file = "{name}_bins_in.npy" }}' if not per_cta else f"len = {sets * NB}"
    )
    init64 = (
        f'init = {{ file = "{name}_bins64_in.npy" }}' if not per_cta else f"len = {sets * NB}"
    )
    text = "".join("# " + line + "\n" for line in comment.splitlines())
    text += f"""ptx = "atomic_group.ptx"
kernel = "{kernel}"
grid = [{grid}, 1, 1]
block = [{block}, 1, 1]
args = [{{ buffer = "idx" }}, {{ buffer = "val" }}, {{ buffer = "bins" }}, {{ buffer = "bins64" }}, {{ buffer = "count" }}, {{ buffer = "seen" }}]

{gc.buffer_from_file("idx", f"{name}_idx.npy")}
{gc.buffer_from_file("val", f"{name}_val.npy")}
[buffers.bins]
type = "u32"
{init}

[buffers.bins64]
type = "u64"
{init64}

[buffers.count]
type = "u32"
len = {sets * NB}
init = {{ fill = 0 }}

[buffers.seen]
type = "u32"
len = {sets * NB * CAP}
init = {{ fill = 0 }}
"""
    if expect:
        text += f"""
{gc.expect_exact("bins", f"{name}_bins.npy")}
[expect.bins64]
file = "{name}_bins64.npy"
tolerance = "exact"

{gc.expect_exact("count", f"{name}_count.npy")}
{gc.expect_exact("seen", f"{name}_seen.npy")}"""
    if fault:
        text += f"""
[expect_error]
kind = "fault"
contains = "{fault}"
"""
    gc.write_text(HERE, f"{name}.toml", text)


def main():
    rng = np.random.default_rng(5)
    grid, block = 2, 128
    idx = [b for w in range(grid * block // 32) for b in warp_bins(w, rng)]
    val = [int(x) for x in rng.integers(0, 1 << 32, len(idx), dtype=np.uint64)]
    what = (
        "Warps of 32 lanes, eight patterns (gen.py, warp_bins): the whole warp on one bin,\n"
        "pairs, four distinct bins per group of four lanes, one bin with every third lane\n"
        "skipping, random bins, lanes 0/2 and 1/3 of each group on two bins, one bin with lane\n"
        "31 skipping, random bins with skips. 32-bit sums wrap; 64-bit operands carry past 32\n"
        "bits; seen counts each (bin, ticket) pair once. Expected from gen.py (host)."
    )
    write_case("global", "Global atomicAdd, 2 CTAs of 128 threads.\n" + what,
               "atomic_group", grid, block, idx, val, per_cta=False)
    write_case("shared", "Shared-memory atomicAdd per CTA, 2 CTAs of 128 threads.\n" + what,
               "atomic_group_shared", grid, block, idx, val, per_cta=True)
    # A fault in the middle of a group whose lanes otherwise all share one bin: lane 13's bin
    # is far outside memory, its atomics do nothing, the other 31 lanes' still count.
    fidx = [2] * 32
    fidx[13] = FAR
    fval = [int(x) for x in rng.integers(0, 1 << 32, 32, dtype=np.uint64)]
    why = (
        "Lane 13's bin lies far outside memory in a warp whose other lanes all add to bin 2:\n"
        "the launch reports the fault, lane 13's atomics do nothing and the other 31 lanes'\n"
        "are all counted. Expected from gen.py (host)."
    )
    write_case("global_fault", "Global atomicAdd, one warp. " + why, "atomic_group", 1, 32,
               fidx, fval, per_cta=False, fault="thread (13,0,0)")
    # In shared memory the fault stops the CTA at its next barrier, before the copy out:
    # only the report is checked (lane 13 named, the other lanes' accesses not reported).
    write_case("shared_fault", "Shared-memory atomicAdd, one warp. Lane 13's bin lies far\n"
               "outside the CTA's shared window in a warp whose other lanes all add to bin 2:\n"
               "the launch reports lane 13's fault (the CTA stops at its barrier, so the results\n"
               "are not copied out and not compared).",
               "atomic_group_shared", 1, 32, fidx, fval, per_cta=True,
               fault="shared address 0x3ffffffc by CTA (0,0,0) thread (13,0,0)", expect=False)


if __name__ == "__main__":
    main()
