#!/usr/bin/env python3
"""Host reference for recursion.cu: prints the expected output arrays of the cases.

Written from the C++ source's meaning (not from any engine): fib, fact, the mutually
recursive even_sum/odd_sum with their local arrays, the function-pointer table, and depth.
"""
import sys

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def cdiv(a, b):  # C integer division (truncates toward zero)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def cmod(a, b):
    return a - b * cdiv(a, b)


def fib(n):
    return n if n < 2 else (fib(n - 1) + fib(n - 2)) & M32


def fact(n):
    r = 1
    for k in range(1, n + 1):
        r = (r * k) & M64
    return r


def weigh(a):
    return s32(sum(x * (k + 1) for k, x in enumerate(a)))


def even_sum(n, acc):
    buf = [s32(n + k + cmod(acc, 5)) for k in range(4)]
    if n <= 0:
        return s32(acc + weigh(buf))
    r = odd_sum(n - 1, s32(acc + n * 2))
    return s32(r + weigh(buf))


def odd_sum(n, acc):
    if n <= 0:
        return acc
    return even_sum(n - 1, s32(acc + n * 3))


def recurse(n):
    return ([fib(i % 17) for i in range(n)],
            [fact(i % 21) for i in range(n)],
            [even_sum(i % 9, i) for i in range(n)])


def which(n):
    # The `which` input (written into fnptr.toml): a small LCG, so each thread picks its own
    # sequence of functions and the indirect calls diverge within warps.
    out, x = [], 12345
    for _ in range(3 * n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append((x >> 16) % 1000)
    return out


def fnptr(n):
    w = which(n)
    out = []
    for i in range(n):
        x = i
        for k in range(3):
            sel = cmod(s32(w[i * 3 + k]), 3)
            x = [lambda v: s32(v + 7), lambda v: s32(2 * v), lambda v: s32(v * v)][sel](x)
        out.append(x)
    return out


def deep(n, threads):
    # out[i] = depth(N, trail) + trail[0], N = n + i: depth(N) = N, and the last store to
    # trail[0] (as the calls return, n' = 1 .. N) is trail[n' % 4] = n' - 1 at the largest
    # n' <= N with n' % 4 == 0 (none below 4: trail[0] is then never written).
    out = []
    for i in range(threads):
        big = n + i
        assert big >= 4
        out.append((big + (big // 4) * 4 - 1) & M32)
    return out


def toml_list(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


if __name__ == "__main__":
    # Regenerate the expectations of recurse.toml (192 threads) and fnptr.toml (128 threads).
    what = sys.argv[1] if len(sys.argv) > 1 else "recurse"
    if what == "recurse":
        a, b, c = recurse(192)
        print("fibs", toml_list(a))
        print("facts", toml_list(b))
        print("sums", toml_list(c))
    elif what == "deep_stack":
        # deep_stack.toml: two CTAs of 32 threads, recursion 300 to 363 calls deep.
        print("out", toml_list(deep(300, 64)))
    elif what == "fnptr":
        print("which", toml_list(which(128)))
        print("out", toml_list(fnptr(128)))
