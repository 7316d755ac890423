#!/usr/bin/env python3
"""Writes ragged_hist.toml and ragged_branch.toml: the inputs of loop_exits.ptx and their
expected outputs, computed on the host from the kernels' per-thread semantics (32-bit
wrap-around) and, for `activemask` at a loop's exit, from the documented warp schedule
(src/analysis/schedule.rs: lanes that leave a loop early wait at its exit until the last lane
leaves, so every existing lane of the warp is active there)."""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402

CTAS, BLOCK = 3, 100
N = CTAS * BLOCK
M32 = 0xFFFFFFFF
rng = random.Random(20261205)
# Trip counts per thread: mostly small and different within a warp, some zero, some long.
cnt = [rng.choice([0, 0, 1, 2, 3, 5, 8, 9, rng.randrange(40)]) for _ in range(N)]
data = [rng.randrange(256) for _ in range(1024)]


def warp_mask(tid):
    """The lanes of tid's warp that exist in a block of BLOCK threads."""
    w = tid // 32
    lanes = min(32, BLOCK - 32 * w)
    return (1 << lanes) - 1


def per_cta(nbins, thread):
    """Runs `thread(t, tid, sbins)` for every thread (global index t, index tid in its CTA)
    of each CTA, in order, with that CTA's shared bins; returns the global bins, each CTA's
    shared bins added into them (32-bit wrap-around)."""
    bins = [0] * nbins
    for c in range(CTAS):
        sbins = [0] * nbins
        for tid in range(BLOCK):
            thread(c * BLOCK + tid, tid, sbins)
        bins = [(g + s) & M32 for g, s in zip(bins, sbins)]
    return bins


def ragged_hist():
    masks = []

    def thread(t, tid, sbins):
        for j in range(cnt[t]):
            sbins[data[(j * 13 + t * 7) & 1023] & 63] += 1
        masks.append(warp_mask(tid))

    return per_cta(64, thread), masks


def ragged_branch():
    gsum = [0] * 8
    out = []

    def thread(t, tid, sb):
        acc = 0
        for j in range(cnt[t]):
            v = data[(t + j) & 1023]
            if v & 1:
                sb[v & 15] += j + 1
                acc = (acc + v) & M32
            else:
                acc ^= v * 3
                gsum[(v >> 1) & 7] += 1
            acc = (acc << 1) & M32
        out.extend([acc, warp_mask(tid)])

    return per_cta(16, thread), gsum, out


HEAD = f"""ptx = "loop_exits.ptx"
grid = [{CTAS}]
block = [{BLOCK}]
"""

INPUTS = f"""
{gc.buffer_values("cnt", cnt)}
{gc.buffer_values("data", data, "u8")}"""

bins, masks = ragged_hist()
gc.write_text(
    HERE,
    "ragged_hist.toml",
    f"""# A one-block loop whose lanes leave at different iterations (per-thread trip counts,
# some zero), a shared atomic per iteration, `activemask` at the exit (every existing lane of
# the warp: they meet there), a barrier, the bins added to global memory; blocks of 100
# threads (a last warp of 4 lanes). Expected values from gen.py (host reference).
{HEAD}kernel = "ragged_hist"
args = [{{ buffer = "cnt" }}, {{ buffer = "data" }}, {{ buffer = "bins" }}, {{ buffer = "masks" }}]
{INPUTS}
{gc.buffer_fill("bins", 64)}
{gc.buffer_fill("masks", N, 7)}
{gc.expect_values("bins", bins)}
{gc.expect_values("masks", masks)}""",
)

bins, gsum, out = ragged_branch()
gc.write_text(
    HERE,
    "ragged_branch.toml",
    f"""# A loop with an if/else inside (one region: header, both sides, latch) whose lanes
# leave at different iterations, a shared atomic on one side and a global one on the other,
# a value carried across iterations, `activemask` at the exit, a barrier and the bins added
# to global memory; blocks of 100 threads. Expected values from gen.py (host reference).
{HEAD}kernel = "ragged_branch"
args = [{{ buffer = "cnt" }}, {{ buffer = "data" }}, {{ buffer = "bins" }}, {{ buffer = "gsum" }}, {{ buffer = "out" }}]
{INPUTS}
{gc.buffer_fill("bins", 16)}
{gc.buffer_fill("gsum", 8)}
{gc.buffer_fill("out", 2 * N, 7)}
{gc.expect_values("bins", bins)}
{gc.expect_values("gsum", gsum)}
{gc.expect_values("out", out)}""",
)
