#!/usr/bin/env python3
"""Per-instruction execution counts of one JIT kernel's machine code.

Inputs: a callgrind profile taken with `--dump-instr=yes` and the code file that
`PTXJIT_CODE_DIR` wrote in the same process (`<kernel>.<tier>.<address in hex>.bin`; callgrind
names the generated function by that address). Prints the `objdump` disassembly of the
code with, in front of each instruction, how often it ran divided by `--per` (for example
the number of warps of the launches profiled); a call's line also gets its inclusive
cost. Instructions that never ran are folded into `...` with `--ran-only`.

    PTXJIT_TIER=optimized PTXJIT_CODE_DIR=/tmp/code valgrind --tool=callgrind \\
        --dump-instr=yes --smc-check=all-non-file --callgrind-out-file=/tmp/cg.out \\
        target/release/ptxjit run benches/cases/reduce_shared.toml --repeat 1
    python3 benches/annotate_code.py /tmp/cg.out /tmp/code/reduce_shared.optimized.*.bin \\
        --per 524288 --ran-only

(`--repeat 1` runs two launches: the check run and the repeat.) Address ranges, in hex
and inclusive, can be summed with `--ranges ranges.txt` (one `first last name` a line).
"""

import argparse
import os
import re
import subprocess
import sys


def counts(profile, fn_name):
    """Self cost per instruction address of function `fn_name`, and inclusive cost of the
    calls made at each address (callgrind's format with `positions: instr line`)."""
    names = {}
    own, calls = {}, {}
    in_fn = False
    after_call = False
    addr = 0
    cost_col = None
    with open(profile) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("positions:"):
                cost_col = len(line.split()) - 1
                continue
            m = re.match(r"c?fn=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                if line.startswith("fn="):
                    in_fn = names.get(m.group(1), "") == fn_name
                continue
            if not in_fn:
                continue
            if line.startswith("calls="):
                after_call = True
                continue
            if not line or line[0] not in "+-*0123456789":
                continue
            parts = line.split()
            a = parts[0]
            if a.startswith("0x"):
                addr = int(a, 16)
            elif a[0] in "+-":
                d = int(a[1:], 0)
                addr = addr + d if a[0] == "+" else addr - d
            elif a != "*":
                continue
            if cost_col is None:
                sys.exit("annotate_code: no `positions:` line; was it --dump-instr=yes?")
            c = int(parts[cost_col]) if len(parts) > cost_col else 0
            table = calls if after_call else own
            table[addr] = table.get(addr, 0) + c
            after_call = False
    return own, calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("profile")
    ap.add_argument("code")
    ap.add_argument("--per", type=float, default=1.0)
    ap.add_argument("--ran-only", action="store_true")
    ap.add_argument("--ranges")
    args = ap.parse_args()
    m = re.search(r"\.([0-9a-f]+)\.bin$", os.path.basename(args.code))
    if not m:
        sys.exit("annotate_code: the code file's name does not end in .<hex address>.bin")
    base = int(m.group(1), 16)
    own, calls = counts(args.profile, "0x%016x" % base)
    if not own:
        sys.exit("annotate_code: the profile has no function at 0x%x" % base)
    asm = subprocess.run(
        ["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", "--adjust-vma=0x%x" % base,
         args.code],
        check=True, capture_output=True, text=True).stdout
    ranges = []
    if args.ranges:
        with open(args.ranges) as f:
            for line in f:
                p = line.split(None, 2)
                if len(p) == 3:
                    ranges.append([int(p[0], 16), int(p[1], 16), p[2].strip(), 0.0])
    folded = False
    total = 0.0
    for line in asm.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t?(.*)", line)
        if not m:
            continue
        a = int(m.group(1), 16)
        n = own.get(a, 0) / args.per
        total += n
        for r in ranges:
            if r[0] <= a <= r[1]:
                r[3] += n
        if n == 0 and args.ran_only:
            if not folded:
                print("   ...")
            folded = True
            continue
        folded = False
        extra = ""
        if a in calls:
            extra = "   # call, inclusive %.1f" % (calls[a] / args.per)
        print("%10.3f %x %s%s" % (n, a, m.group(2), extra))
    print("total %.1f" % total)
    for lo, hi, name, n in ranges:
        print("%10.1f  %x-%x %s" % (n, lo, hi, name))


if __name__ == "__main__":
    main()
