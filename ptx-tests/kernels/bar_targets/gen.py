#!/usr/bin/env python3
"""Expected outputs of bar_targets.cu, printed as TOML lists: the loop evaluated on the host
with every barrier as a full stop of the CTA (PTX ISA 9.7.13.1, `barrier`), u32 arithmetic
wrapping. Inputs: in[i] = i * 7 + 3."""

M = 0xFFFFFFFF


def bar_targets(grid, n, base):
    out = []
    for c in range(grid):
        v = [((c * n + t) * 7 + 3) & M for t in range(n)]
        for r in range(base + c % 3):
            s = list(v)
            v = [
                (v[t] + s[(t + 32) % n] * (r + 1)) & M
                if (t // 32) & 1
                else (v[t] * 3 + s[(t + n - 1) % n]) & M
                for t in range(n)
            ]
        out += v
    return out


def inputs(grid, n):
    return [((i * 7 + 3) & M) for i in range(grid * n)]


if __name__ == "__main__":
    import sys

    grid, n, base = (int(a) for a in sys.argv[1:4])
    print("in", inputs(grid, n))
    print("out", bar_targets(grid, n, base))
