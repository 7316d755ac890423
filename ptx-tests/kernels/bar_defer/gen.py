#!/usr/bin/env python3
"""Expected outputs of bar_defer.ptx, printed as TOML `values` lists: the kernels'
shared-memory exchanges evaluated on the host with every barrier as a full stop of the CTA's
threads that have not exited (PTX ISA 9.7.13.1), u32 arithmetic wrapping."""

M = 0xFFFFFFFF


def ragged_loop(grid, k):
    out = []
    for c in range(grid):
        alive = [t % 7 != 3 for t in range(80)]
        s = [7 * t for t in range(80)]
        r = [(3 * t + 1000 * c) & M for t in range(80)]
        for i in range(1, k + 1):
            for t in range(80):
                if alive[t]:
                    s[t] = r[t]
            r = [(r[t] + s[(t + 5) % 80] * i) & M for t in range(80)]
        out += [r[t] if alive[t] else 0 for t in range(80)]
    return out


def split_sites(grid, k):
    out = []
    for c in range(grid):
        r = [t + 100 * c for t in range(128)]
        for i in range(1, k + 1):
            s = list(r)
            r = [
                (r[t] + s[127 - t] * i) & M if t < 64 else (3 * r[t] + s[127 - t]) & M
                for t in range(128)
            ]
        out += r
    return out


def two_ids(grid, k):
    out = []
    for c in range(grid):
        b = [5 * t for t in range(96)]
        r = [(t + 100 * c + b[95 - t]) & M for t in range(96)]
        for i in range(1, k + 1):
            a = list(r)
            r = [(r[t] + a[(t + 5) % 96] * i) & M for t in range(96)]
            b = list(r)
            r = [(3 * r[t] + b[95 - t]) & M for t in range(96)]
        out += r
    return out


if __name__ == "__main__":
    print("ragged_loop", ragged_loop(3, 6))
    print("split_sites", split_sites(2, 5))
    print("two_ids", two_ids(3, 7))
    print("two_ids_ntid", two_ids(3, 7))
