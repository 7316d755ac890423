#!/usr/bin/env python3
"""Expected outputs of vote_join.cu, printed as a TOML list: each thread's `y` from the C
source, and the ballot of its warp's lanes (32 consecutive threads of the block; every lane
is back at the join, the branch's immediate post-dominator, in lockstep order) whose `y & 2`
is set (PTX ISA 9.7.13.x, `vote`), u32 arithmetic wrapping. Inputs: iota from 12345 in steps
of 2654435761, wrapped."""

import sys

M = 0xFFFFFFFF


def y_of(x):
    if x & 1:
        y = x
        for k in range((x >> 3) % 4 + 1):
            y = (y * 3 + k) & M
        return y
    return (x + 5) & M


def vote_join(grid, n):
    out = []
    for c in range(grid):
        xs = [(12345 + (c * n + t) * 2654435761) & M for t in range(n)]
        ys = [y_of(x) for x in xs]
        for t in range(n):
            w = t // 32
            lanes = range(w * 32, min(n, w * 32 + 32))
            b = sum(1 << (u % 32) for u in lanes if ys[u] & 2)
            out.append(ys[t] ^ b)
    return out


if __name__ == "__main__":
    grid, n = int(sys.argv[1]), int(sys.argv[2])
    print(vote_join(grid, n))
