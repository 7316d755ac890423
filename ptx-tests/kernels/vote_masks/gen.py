#!/usr/bin/env python3
"""Expected values of vote_masks.toml, from the PTX ISA's definitions of vote.sync (§9.7.13.9)
evaluated on the host: each lane's result is taken over the lanes its membermask names.
Thread t of the 64: p = (t * 7) % 3 == 0, q = t % 8 != 5; warp 0's lanes 0-15 name 0x0000ffff
and lanes 16-31 0xffff0000, warp 1's lanes name 0xffffffff. ballot[t] is the ballot of p,
flags[t] = any(p) | all(q) << 1 | uni(q) << 2. Rewrites the values lines of vote_masks.toml;
run from this directory."""
import re

N = 64


def member_mask(t):
    if t >= 32:
        return 0xFFFFFFFF
    return 0x0000FFFF if t % 32 < 16 else 0xFFFF0000


def pred_p(t):
    return (t * 7) % 3 == 0


def pred_q(t):
    return t % 8 != 5


ballot, flags = [], []
for t in range(N):
    warp = t // 32
    mask = member_mask(t)
    members = [warp * 32 + lane for lane in range(32) if mask >> lane & 1]
    b = sum(1 << (m % 32) for m in members if pred_p(m))
    qs = [pred_q(m) for m in members]
    any_p = b != 0
    all_q = all(qs)
    uni_q = all(qs) or not any(qs)
    ballot.append(b)
    flags.append(int(any_p) | int(all_q) << 1 | int(uni_q) << 2)

text = open("vote_masks.toml").read()
ballot_line = "values = [" + ", ".join(f'"{b:#x}"' for b in ballot) + "]"
flags_line = "values = [" + ", ".join(str(f) for f in flags) + "]"
text = re.sub(r"(\[expect\.ballot\]\n)values = \[.*\]", lambda m: m.group(1) + ballot_line, text)
text = re.sub(r"(\[expect\.flags\]\n)values = \[.*\]", lambda m: m.group(1) + flags_line, text)
open("vote_masks.toml", "w").write(text)
