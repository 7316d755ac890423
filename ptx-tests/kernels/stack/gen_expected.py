#!/usr/bin/env python3
"""Expected values of stack_ops.toml from the PTX ISA's stack rules (§9.7.17): memory from
alloca holds what is stored in it, an alignment operand aligns the pointer, stacksave after
alloca returns the allocation, stackrestore then stacksave returns the saved pointer, live
allocations do not overlap. out[4t..4t+3] = sum(7t + i, i < 16) + (t + 1000), 1, 2, 1."""
T = 64
out = []
for t in range(T):
    out += [sum(7 * t + i for i in range(16)) + t + 1000, 1, 2, 1]
print("values = [" + ", ".join(map(str, out)) + "]")
