#!/usr/bin/env python3
"""Writes the cub_blocks cases: cub_blocks.cu compiled by NVRTC 12.9 with the CUDA 12.9
cccl headers (`ptxjit compile`, compute_80 and compute_90), the inputs, and the expected
outputs from numpy (integers: exact).

Run (needs numpy, and for the PTX `pip install nvidia-cuda-nvrtc-cu12
nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12` and ptxjit built): python3 gen.py [--ptx]
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCK, ITEMS, TILES = 128, 4, 4
TILE = BLOCK * ITEMS
N = TILE * TILES


def save(name, a, dtype):
    np.save(os.path.join(HERE, f"{name}.npy"), np.asarray(a, dtype=dtype).reshape(-1))


def case(name, ptx, kernel, comment, args, buffers, expect):
    lines = [f"# {l}".rstrip() for l in comment.strip().splitlines()]
    lines.append("# Written by gen.py (do not edit: change gen.py and run it).")
    lines += [f'ptx = "{ptx}"', f'kernel = "{kernel}"', f"grid = [{TILES}]",
              f"block = [{BLOCK}]", "args = [" + ", ".join(args) + "]"]
    for buf, (ty, init) in buffers.items():
        lines += ["", f"[buffers.{buf}]", f'type = "{ty}"', init]
    for buf in expect:
        lines += ["", f"[expect.{buf}]", f'file = "{name}_{buf}_expected.npy"',
                  'tolerance = "exact"']
    with open(os.path.join(HERE, f"{name}.toml"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    if "--ptx" in sys.argv:
        for arch, out in (("compute_80", "cub_blocks.ptx"), ("compute_90", "cub_blocks_sm90.ptx")):
            subprocess.run(["ptxjit", "compile", "cub_blocks.cu", "--arch", arch, "-o", out],
                           cwd=HERE, check=True, capture_output=True)
    rng = np.random.default_rng(90)
    x = rng.integers(-1000, 1000, N)
    x[:TILE][::7] = 1000  # repeated maxima
    keys = rng.integers(-2**31, 2**31, N)
    keys[TILE:2 * TILE] = rng.integers(-3, 3, TILE)  # a tile of many equal keys
    vals = np.arange(N)
    save("x", x, np.int32)
    save("keys", keys, np.int32)
    save("vals", vals, np.uint32)
    t = x.reshape(TILES, TILE)
    excl = np.cumsum(t, axis=1) - t
    runmax = np.maximum.accumulate(t, axis=1)
    k = keys.reshape(TILES, TILE)
    # Radix sort is stable: equal keys keep their order (their values, ascending).
    order = np.argsort(k, axis=1, kind="stable")
    sorted_k = np.take_along_axis(k, order, 1)
    sorted_v = np.take_along_axis(vals.reshape(TILES, TILE), order, 1)
    desc = -np.sort(-k.astype(np.int64), axis=1)
    per_thread = t.reshape(TILES, BLOCK, ITEMS)
    sq = (per_thread ** 2).sum(axis=2).reshape(TILES, BLOCK // 32, 32).sum(axis=2)
    th_sum = per_thread.sum(axis=2).reshape(TILES, BLOCK // 32, 32).sum(axis=2)
    th_max = per_thread[:, :, 3].reshape(TILES, BLOCK // 32, 32).max(axis=2)
    bits = (np.uint32(1) << (per_thread[:, :, 0].astype(np.int64) & 31).astype(np.uint32))
    ors = np.bitwise_or.reduce(bits.reshape(TILES, BLOCK // 8, 8), axis=2)
    for sfx, ptx, what in (("", "cub_blocks.ptx", "compute_80"),
                           ("_sm90", "cub_blocks_sm90.ptx", "compute_90")):
        name = "block_scan" + sfx
        save(f"{name}_excl_expected", excl, np.int32)
        save(f"{name}_runmax_expected", runmax, np.int32)
        save(f"{name}_totals_expected", t.sum(axis=1), np.int32)
        case(name, ptx, "block_scan", f"""
cub::BlockScan (ExclusiveSum with the aggregate, InclusiveScan with cub::Max) between
cub::BlockLoad/BlockStore with BLOCK_*_TRANSPOSE, {TILES} tiles of {BLOCK} x {ITEMS} s32
(cub_blocks.cu, NVRTC 12.9 {what}); expected by numpy (gen.py).""",
             ['{ buffer = "x" }', '{ buffer = "excl" }', '{ buffer = "runmax" }',
              '{ buffer = "totals" }'],
             {"x": ("s32", 'init = { file = "x.npy" }'), "excl": ("s32", f"len = {N}"),
              "runmax": ("s32", f"len = {N}"), "totals": ("s32", f"len = {TILES}")},
             ["excl", "runmax", "totals"])
        name = "block_sort" + sfx
        save(f"{name}_keys_out_expected", sorted_k, np.int32)
        save(f"{name}_vals_out_expected", sorted_v, np.uint32)
        save(f"{name}_desc_expected", desc, np.int32)
        case(name, ptx, "block_sort", f"""
cub::BlockRadixSort of {TILES} tiles of {BLOCK} x {ITEMS} s32 keys (all 32 bits; one tile of
keys in [-3, 3)): key-value pairs ascending (stable: equal keys keep their values' order),
keys alone descending (cub_blocks.cu, NVRTC 12.9 {what}); expected by numpy (gen.py).""",
             ['{ buffer = "keys" }', '{ buffer = "vals" }', '{ buffer = "keys_out" }',
              '{ buffer = "vals_out" }', '{ buffer = "desc" }'],
             {"keys": ("s32", 'init = { file = "keys.npy" }'),
              "vals": ("u32", 'init = { file = "vals.npy" }'),
              "keys_out": ("s32", f"len = {N}"), "vals_out": ("u32", f"len = {N}"),
              "desc": ("s32", f"len = {N}")},
             ["keys_out", "vals_out", "desc"])
        name = "block_reduce" + sfx
        save(f"{name}_tile_max_expected", t.max(axis=1), np.int32)
        save(f"{name}_warp_sq_expected", sq, np.int32)
        save(f"{name}_cg_sum_expected", th_sum, np.int32)
        save(f"{name}_cg_max_expected", th_max, np.int32)
        save(f"{name}_cg_or_expected", ors, np.uint32)
        case(name, ptx, "block_reduce", f"""
cub::BlockReduce (BLOCK_REDUCE_RAKING, cub::Max), cub::WarpReduce sums, and
cooperative_groups::reduce over thread_block_tile<32> (cg::plus, cg::greater: redux.sync)
and <8> (cg::bit_or) on {TILES} tiles of {BLOCK} x {ITEMS} s32 (cub_blocks.cu, NVRTC 12.9
{what}); expected by numpy (gen.py).""",
             ['{ buffer = "x" }', '{ buffer = "tile_max" }', '{ buffer = "warp_sq" }',
              '{ buffer = "cg_sum" }', '{ buffer = "cg_max" }', '{ buffer = "cg_or" }'],
             {"x": ("s32", 'init = { file = "x.npy" }'), "tile_max": ("s32", f"len = {TILES}"),
              "warp_sq": ("s32", f"len = {TILES * BLOCK // 32}"),
              "cg_sum": ("s32", f"len = {TILES * BLOCK // 32}"),
              "cg_max": ("s32", f"len = {TILES * BLOCK // 32}"),
              "cg_or": ("u32", f"len = {TILES * BLOCK // 8}")},
             ["tile_max", "warp_sq", "cg_sum", "cg_max", "cg_or"])


if __name__ == "__main__":
    main()
