#!/usr/bin/env python3
"""Writes the big_param case: an 8000-byte struct (2000 u32 words) passed by value, its
words as the struct argument of big_param.toml, and the expected output from a host
reference in numpy: out[j] = v[j] for j < 2000, and out[2000 + t] the sum over thread t's
words (j = t, t + 64, ...) of v[j] * (j + 1), mod 2^32.

big_param.ptx is NVRTC's output for big_param.cu (compute_80):
    python3 /work/shared/tools/nvrtc.py big_param.cu
Run: python3 gen.py
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
WORDS, THREADS = 2000, 64

v = ((np.arange(WORDS, dtype=np.uint64) * 2654435761 + 12345) % 2**32).astype(np.uint64)
out = np.zeros(WORDS + THREADS, dtype=np.uint64)
out[:WORDS] = v
for t in range(THREADS):
    j = np.arange(t, WORDS, THREADS, dtype=np.uint64)
    out[WORDS + t] = int(np.sum((v[j] * (j + 1)) % 2**32)) % 2**32
np.save(os.path.join(HERE, "out_expected.npy"), out.astype(np.uint32))

fields = ", ".join("{ u32 = %d }" % x for x in v)
with open(os.path.join(HERE, "big_param.toml"), "w") as f:
    f.write(
        "# An 8000-byte struct by value (PTX ISA 8.1+, sm_70+ allow 32764 bytes of kernel\n"
        "# parameters): 64 threads copy its 2000 words to out and each writes its sum of\n"
        "# v[j] * (j + 1) over its words. Expected values: numpy in gen.py (which writes this file).\n"
        'ptx = "big_param.ptx"\n'
        'kernel = "big_param"\n'
        "grid = [1]\n"
        "block = [%d]\n" % THREADS
        + 'args = [{ struct = [%s] }, { buffer = "out" }]\n\n' % fields
        + '[buffers.out]\ntype = "u32"\nlen = %d\n\n' % (WORDS + THREADS)
        + '[expect.out]\nfile = "out_expected.npy"\ntolerance = "exact"\n'
    )
