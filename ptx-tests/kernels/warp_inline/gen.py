#!/usr/bin/env python3
"""Expected outputs of warp_inline.ptx (block of N threads, one CTA), printed as a TOML list.

Evaluated from the PTX ISA's definitions (§9.7.13.8–9 `vote.sync`, §9.7.13.7 `shfl.sync`,
its pseudo-code for the source lane and predicate): a lane takes part with the lanes of its
membermask that execute the instruction (exited lanes and lanes of a partial warp that do
not exist do not). Where the source lane of a shuffle does not take part, the ISA leaves the
value undefined; ptxjit defines it as the lane's own value (`runtime::semantics::shfl`'s
documented rule), which is what this computes. u32 arithmetic wraps.

Usage: gen.py N MASK (the block size and the p_mask parameter)."""

import sys

M = 0xFFFFFFFF


def shfl(mode, lane, b, c):
    """(source lane, predicate) of the ISA's pseudo-code."""
    bval, cval, segmask = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & segmask) | (cval & ~segmask & 31)
    min_lane = lane & segmask
    if mode == "up":
        j = lane - bval
        p = j >= max_lane
    elif mode == "down":
        j = lane + bval
        p = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        p = j <= max_lane
    else:
        j = min_lane | (bval & ~segmask & 31)
        p = j <= max_lane
    return (j if p else lane), p


def main(n, pmask):
    out = [0] * (12 * n)
    val = [(t * 0x9E3779B1 + 12345) & M for t in range(n)]
    pred = [(v >> 7) & 1 for v in val]
    alive = [t % 7 != 3 for t in range(n)]
    for w in range(0, n, 32):
        ts = [t for t in range(w, min(n, w + 32)) if alive[t]]

        def run(cond, mask):
            """The lanes of membermask `mask` that execute a statement under `cond`."""
            return [t for t in ts if cond(t % 32) and mask >> (t % 32) & 1]

        def ballot(lanes, neg=False):
            return sum(1 << (t % 32) for t in lanes if pred[t] ^ neg)

        def shuffle(t, lanes, mode, b, c):
            j, p = shfl(mode, t % 32, b, c)
            src = w + j
            v = val[src] if src in lanes else val[t]
            return v, int(p)

        everyone = run(lambda l: True, pmask)
        for t in ts:
            o = 12 * t
            out[o] = ballot(everyone)
            out[o + 1], out[o + 2] = shuffle(t, everyone, "bfly", 1, 0x1F)
            l = t % 32
            if l % 4 >= 1:
                out[o + 3] = ballot(run(lambda k: k % 4 >= 1, 0xEEEEEEEE))
            if l % 4 >= 2:
                g = run(lambda k: k % 4 >= 2, 0xCCCCCCCC)
                out[o + 4], out[o + 5] = shuffle(t, g, "down", 4, 0x1F)
                out[o + 6], out[o + 7] = shuffle(t, g, "up", 1, 0)
            if l % 4 == 3:
                g = run(lambda k: k % 4 == 3, 0x88888888)
                bits = ballot(g)
                grp = sum(1 << (u % 32) for u in g)
                anyv, allv = int(bits != 0), int(bits == grp)
                univ = int(bits == 0 or bits == grp)
                out[o + 8] = anyv | allv << 1 | univ << 2
            if l < 16:
                g = run(lambda k: k < 16, 0x0000FFFF)
                out[o + 9], out[o + 10] = shuffle(t, g, "idx", 5, 0x181F)
            else:
                out[o + 11] = ballot(run(lambda k: k >= 16, 0xFFFF0000), neg=True)
    return out


if __name__ == "__main__":
    print(main(int(sys.argv[1]), int(sys.argv[2], 0)))
