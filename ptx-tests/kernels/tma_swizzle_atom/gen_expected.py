#!/usr/bin/env python3
"""Expected shared-memory dumps of swizzle_atom.ptx, from the PTX ISA's tables (section 5.5.7
"Swizzling Modes"), not from ptxjit: a 32 x 8 u32 box (x[i] = i) written densely at a
1024-byte-aligned address, each 128-byte row r permuted by the table of the swizzle's
atomicity (16-byte chunk numbers; the chunk stored at position p of row r is
table[r % len(table)][p]); with the 8-byte flip, odd rows also exchange the two 8-byte halves
of every 16-byte chunk ("a flip of adjacent 8-bytes within the 16-byte data at every alternate
shared memory line"). Prints the expectation lines of the two cases."""

TABLES = {
    # 128B swizzle, 16-byte atomicity.
    0: [[c ^ r for c in range(8)] for r in range(8)],
    # 32-byte atomicity: the ISA's table (pairs of 16-byte chunks kept whole).
    1: [[0, 1, 2, 3, 4, 5, 6, 7], [2, 3, 0, 1, 6, 7, 4, 5], [4, 5, 6, 7, 0, 1, 2, 3], [6, 7, 4, 5, 2, 3, 0, 1]],
    # 64-byte atomicity.
    3: [[0, 1, 2, 3, 4, 5, 6, 7], [4, 5, 6, 7, 0, 1, 2, 3]],
}
TABLES[2] = TABLES[1]


def dump(atom):
    words = [None] * 256
    for r in range(8):
        table = TABLES[atom][r % len(TABLES[atom])]
        for p in range(8):
            src_chunk = table[p]
            for w in range(4):  # 4 u32 per 16-byte chunk
                src_w = w
                if atom == 2 and r % 2 == 1:
                    src_w = w ^ 2  # the other 8-byte half
                words[r * 32 + p * 4 + w] = r * 32 + src_chunk * 4 + src_w
    return words


CASE = """# {title}
# Four dumps of a 32 x 8 u32 box (x[i] = i) loaded into 1024-byte-aligned shared memory:
# with the kernel's map ({first}), then with copies edited by
# tensormap.replace.swizzle_atomicity 1 (32B), 2 (32B + 8B flip) and 3 (64B).
# Expected values: gen_expected.py, from the PTX ISA's swizzle tables (section 5.5.7).
ptx = "swizzle_atom.ptx"
kernel = "swizzle_atom"
grid = [1]
block = [32]
args = [{{ tensor_map = "t" }}, {{ buffer = "out" }}, {{ buffer = "gmap" }}]

[buffers.x]
type = "u32"
init = {{ values = {x} }}

[buffers.out]
type = "u32"
len = 1024

[buffers.gmap]
type = "u8"
len = 384

[tensor_maps.t]
buffer = "x"
type = "u32"
dims = [32, 8]
box = [32, 8]
swizzle = "{swizzle}"

[expect.out]
values = {expect}
"""

if __name__ == "__main__":
    x = list(range(256))
    for name, title, swz, first, atom in [
        ("swizzle_atom.toml", "128B swizzle sub-modes set by tensormap.replace", "128B",
         "the 128B swizzle, 16-byte atomicity", 0),
        ("swizzle_atom_host.toml", "cuTensorMapEncodeTiled's CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B",
         "128B_atom_32B_flip_8B", "128B_ATOM_32B_FLIP_8B: 32-byte atomicity, 8-byte flip", 2),
    ]:
        expect = dump(atom) + dump(1) + dump(2) + dump(3)
        with open(name, "w") as f:
            f.write(CASE.format(title=title, first=first, x=x, swizzle=swz, expect=expect))
