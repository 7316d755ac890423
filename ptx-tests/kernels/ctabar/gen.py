#!/usr/bin/env python3
"""Expected outputs of ctabar.ptx, printed as TOML `values` lists: the kernels' shared-memory
exchanges evaluated on the host with every barrier as a full stop of the threads it names
(PTX ISA 9.7.13.1), u32 arithmetic wrapping."""

M = 0xFFFFFFFF


def exit_early(grid):
    out = []
    for c in range(grid):
        for t in range(128):
            if t >= 64:
                out.append(1000 + t)
            elif t % 32 >= 24:
                out.append(0)
            else:
                s = {u: u * 3 + c for u in range(64) if u % 32 < 24}
                p = (t + 32) % 64
                s2 = {u: s[(u + 32) % 64] + 7 for u in s}
                out.append(s2[p])
    return out


def loop_bar(grid, k):
    out = []
    for c in range(grid):
        r = [(t + 1000 * c) & M for t in range(128)]
        for i in range(1, k + 1):
            s = list(r)
            r = [(r[t] + s[(t + 1) % 128] * i) & M for t in range(128)]
        out += r
    return out


def loop_ids(grid, n, k):
    out = []
    for c in range(grid):
        r = [(t + 1000 * c) & M for t in range(n)]
        for i in range(1, k + 1):
            s = list(r)
            r = [(r[t] + s[(t + 1) % n] * i) & M for t in range(n)]
        out += r
    return out


def named(grid):
    out = []
    for c in range(grid):
        s = [t + 100 * c for t in range(128)]
        a = [s[63 - t] if t < 64 else s[191 - t] for t in range(128)]
        s = [3 * x for x in a]
        b = [s[127 - t] for t in range(128)]
        out += a + b
    return out


if __name__ == "__main__":
    print("exit_early", exit_early(2))
    print("loop_bar", loop_bar(3, 5))
    print("named", named(2))
    print("loop_ids", loop_ids(3, 128, 5))
    print("loop_ids_partial", loop_ids(2, 100, 4))
