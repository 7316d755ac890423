#!/usr/bin/env python3
"""Host reference for irreducible.cu: writes two_entry.toml and three_entry.toml. The goto
state machines are followed literally, with C's 32-bit int arithmetic (wrapping; / and %
truncate toward zero; >> on a negative value is arithmetic, as nvcc compiles it)."""
import random

def i32(v):
    return (v + 2**31) % 2**32 - 2**31

def cdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q

def cmod(a, b):
    return a - b * cdiv(a, b)

def two_entry(x):
    s, k = 0, 0
    state = "B" if x & 1 else "A"
    while True:
        if state == "A":
            s = i32(s + i32(x * 3) + k); k += 1
            if k > (x & 15):
                return s
            state = "B"
        s ^= i32(k * 7); k += 1
        if k < 20:
            state = "A"
        else:
            return s

def three_entry(x):
    acc = 1
    for rnd in range(3):
        k = 0
        state = {0: "P", 1: "Q"}.get(cmod(i32(x + rnd), 3), "R")  # C: negative remainders go to default
        while True:
            if state == "P":
                acc = i32(i32(acc * 3) + k); k += 1
                if k > (x & 7):
                    break
                state = "Q"
            if state == "Q":
                acc ^= i32((acc >> 3) + k); k += 1
                if k > 11:
                    break
                state = "R"
            acc = i32(acc + x - k); k += 1
            if k < 13:
                state = "P"
                continue
            break
        x = i32(cdiv(x, 2) + cmod(acc, 5))
    return acc

rng = random.Random(12)
xs = list(range(-8, 24)) + [rng.randrange(-10**6, 10**6) for _ in range(96)]
for name, f in [("two_entry", two_entry), ("three_entry", three_entry)]:
    out = [f(x) for x in xs]
    with open(f"{name}.toml", "w") as fh:
        fh.write(f"""# {name} (irreducible.cu): expected values from gen_expected.py, which follows the goto
# state machine literally with C's 32-bit int arithmetic.
ptx = "irreducible.ptx"
kernel = "{name}"
grid = [2]
block = [64]
args = [{{ buffer = "x" }}, {{ buffer = "out" }}, {{ s32 = {len(xs)} }}]

[buffers.x]
type = "s32"
init = {{ values = [{", ".join(map(str, xs))}] }}

[buffers.out]
type = "s32"
len = {len(xs)}

[expect.out]
values = [{", ".join(map(str, out))}]
""")
