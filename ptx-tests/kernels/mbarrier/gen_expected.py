#!/usr/bin/env python3
"""Host reference for the mbarrier cases: writes barrier_phases.toml, pipeline_sum.toml and
raw_mbarrier.toml (inputs and expected outputs) from what mbarrier.cu computes, and
mbarrier_forms.toml from the PTX ISA's mbarrier rules (§9.7.13.15) worked by hand for
mbarrier_forms.ptx (see the comments there).
"""
import random

rng = random.Random(15)


def ints(vals):
    return "[" + ", ".join(str(v) for v in vals) + "]"


def write(name, head, body):
    with open(name, "w") as f:
        f.write(head.strip() + "\n" + body)


# barrier_phases: 3 CTAs of 128 threads.
n, ctas = 128, 3
x = [rng.randrange(-1000, 1000) for _ in range(n * ctas)]
out = []
for c in range(ctas):
    xs = x[c * n:(c + 1) * n]
    s = [2 * (xs[(t + 1) % n] + xs[(t + n - 1) % n]) for t in range(n)]
    out += [s[(t + 5) % n] + 3 * xs[t] for t in range(n)]
write("barrier_phases.toml", """
# cuda::barrier<cuda::thread_scope_block>: arrive_and_wait twice, then a split arrive / wait
# with work in between (mbarrier.init, mbarrier.arrive, mbarrier.test_wait spin loops):
# out[t] = 2 * (x[t+1] + x[t-1]) at (t + 5) mod 128, + 3 * x[t] (gen_expected.py).
ptx = "mbarrier.ptx"
kernel = "barrier_phases"
grid = [3]
block = [128]
args = [{ buffer = "x" }, { buffer = "out" }]
""", f"""
[buffers.x]
type = "s32"
init = {{ values = {ints(x)} }}

[buffers.out]
type = "s32"
len = {n * ctas}

[expect.out]
values = {ints(out)}
""")

# pipeline_sum: 2 CTAs, 5 tiles of 128 ints each.
T, ntiles, ctas = 128, 5, 2
x = [rng.randrange(-1000, 1000) for _ in range(T * ntiles * ctas)]
out = []
for c in range(ctas):
    for t in range(T):
        acc = 0
        for k in range(ntiles):
            tile = x[(c * ntiles + k) * T:(c * ntiles + k + 1) * T]
            acc += (k + 1) * tile[t] + tile[(t + 1) % T]
        out.append(acc)
write("pipeline_sum.toml", """
# cuda::pipeline (block scope, 2 stages) with cuda::memcpy_async double buffering: cp.async,
# cp.async.mbarrier.arrive, mbarrier.arrive and test_wait.parity spin loops. Each thread sums
# (k + 1) * tile_k[t] + tile_k[(t + 1) mod 128] over 5 tiles (gen_expected.py).
ptx = "mbarrier.ptx"
kernel = "pipeline_sum"
grid = [2]
block = [128]
args = [{ buffer = "x" }, { buffer = "out" }, { s32 = 5 }]
""", f"""
[buffers.x]
type = "s32"
init = {{ values = {ints(x)} }}

[buffers.out]
type = "s32"
len = {T * ctas}

[expect.out]
values = {ints(out)}
""")

# raw_mbarrier: 2 CTAs of 128.
ctas = 2
x = [rng.randrange(-1000, 1000) for _ in range(128 * ctas)]
out = []
for c in range(ctas):
    xs = x[c * 128:(c + 1) * 128]
    out += [xs[(t + 7) % 128] + t for t in range(128)]
    # After phase 1: parity 0 names phase 2 (not complete), parity 1 phase 1 (complete).
    out += [2 * 0 + 1] * 128
write("raw_mbarrier.toml", """
# Raw mbarrier PTX: cp.async completing on the barrier (cp.async.mbarrier.arrive.noinc),
# test_wait.parity for phase 0, an arrive token and test_wait for phase 1, then the parity
# tests (gen_expected.py).
ptx = "mbarrier.ptx"
kernel = "raw_mbarrier"
grid = [2]
block = [128]
args = [{ buffer = "x" }, { buffer = "out" }]
""", f"""
[buffers.x]
type = "s32"
init = {{ values = {ints(x)} }}

[buffers.out]
type = "s32"
len = {256 * ctas}

[expect.out]
values = {ints(out)}
""")

# mbarrier_forms.ptx, step by step (the ISA's rules; the counts are in the PTX's comments).
forms = [
    3,  # pending_count of the first noComplete token: 3 pending before it
    0,  # test_wait on the phase-0 token before phase 0 completes
    1,  # ... after
    1,  # test_wait.parity 0 in phase 1: phase 0 is complete
    0,  # test_wait.parity 1 in phase 1: not complete
    0,  # try_wait.parity 1 with pending 0 but tx 96
    0,  # test_wait (phase-1 token) with tx 6 left
    1,  # try_wait (phase-1 token) after the last complete_tx
    2,  # pending_count of the arrive_drop.noComplete token
    1,  # test_wait on the phase-3 token in phase 4
    0,  # test_wait.parity 0 in phase 4 (current phase, not complete)
    3,  # bar2: pending_count after cp.async.mbarrier.arrive and .noinc
    1,  # bar2 re-initialized with 1: phase 0 complete after one arrival
    0,  # elect.sync leader lane
    1,  # elect.sync: this lane leads
]
write("mbarrier_forms.toml", """
# Hand-written mbarrier forms on one thread (mbarrier_forms.ptx): generic and shared
# addresses, tokens, pending_count, expect_tx / complete_tx, arrive.expect_tx, arrival counts,
# arrive_drop, try_wait with a suspend-time hint, cp.async.mbarrier.arrive{.noinc}, inval and
# init again, proxy fences, elect.sync; expected from the ISA's rules (gen_expected.py).
ptx = "mbarrier_forms.ptx"
kernel = "mbarrier_forms"
grid = [1]
block = [1]
args = [{ buffer = "out" }]
""", f"""
[buffers.out]
type = "u32"
len = {len(forms)}

[expect.out]
values = {ints(forms)}
""")
