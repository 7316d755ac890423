#!/usr/bin/env python3
"""Writes out_expected.npy for hoisted_root.toml and lockstep.toml: the outputs of
hoisted_root.ptx computed on the host from the PTX (no numpy needed). Run from this
directory."""
import struct

CTAS = 64
THREADS = 32
IN = [11, 22, 33, 44]
GTAB = bytes(range(1, 17))  # .global gtab[16] = {1, ..., 16}

gtab_word1 = struct.unpack_from("<I", GTAB, 4)[0]
out = []
for gid in range(CTAS * THREADS):
    out += [gtab_word1, IN[1], IN[2]]  # out[3 * gid + k]


def save_u32_npy(path, values):
    """NPY format 1.0: magic, version, header length, a dict padded to 64 bytes, the data."""
    header = "{'descr': '<u4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%dI" % len(values), *values))


save_u32_npy("out_expected.npy", out)
print(f"out: {len(out)} words, gtab word 1 = {gtab_word1:#x}")
