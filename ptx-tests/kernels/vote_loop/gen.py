#!/usr/bin/env python3
"""Expected values of vote_loop.toml, computed on the host: thread t runs the LCG
x = ((x * 1664525 + 1013904223) mod 2^32) >> 16 from x = t for N rounds and adds, each round,
its warp's ballot of bit 0 of x (vote.sync.ballot with membermask 0xffffffff: bit l of the
ballot is lane l's predicate, PTX ISA §9.7.13.9), modulo 2^32. Every CTA computes the same sums
(the LCG starts from %tid.x), so the buffer holds one CTA's 256. Rewrites the values line of
vote_loop.toml; run from this directory."""
import re

THREADS = 256
ROUNDS = 2000

x = list(range(THREADS))
sums = [0] * THREADS
for _ in range(ROUNDS):
    for w in range(THREADS // 32):
        lanes = range(w * 32, w * 32 + 32)
        b = sum(1 << (t % 32) for t in lanes if x[t] & 1)
        for t in lanes:
            sums[t] = (sums[t] + b) & 0xFFFFFFFF
    x = [((v * 1664525 + 1013904223) & 0xFFFFFFFF) >> 16 for v in x]

text = open("vote_loop.toml").read()
line = "values = [" + ", ".join(str(s) for s in sums) + "]"
text = re.sub(r"(\[expect\.out\]\n)values = \[.*\]", lambda m: m.group(1) + line, text)
open("vote_loop.toml", "w").write(text)
