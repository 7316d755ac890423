#!/usr/bin/env python3
"""Expected outputs of region_skip.ptx, printed as TOML `values` lists: per thread (global
index g = ctaid.x * ntid.x + tid.x) the marker g + 1000 at word 2g, and at word 2g + 1 the
body's 3g where the guard lets the thread through (else the buffer's initial 0); the words
past the last thread stay 0."""


def case(kind, grid, block, s, extra):
    out = [0] * (2 * grid * block + extra)
    for c in range(grid):
        for t in range(block):
            g = c * block + t
            out[2 * g] = g + 1000
            body = t < s if kind == "ge" else t >= s
            if body:
                out[2 * g + 1] = 3 * g
    return out


if __name__ == "__main__":
    print("ge", case("ge", 3, 100, 40, 64))
    print("lt", case("lt", 3, 100, 33, 64))
    print("lt_full", case("lt", 2, 128, 64, 64))
