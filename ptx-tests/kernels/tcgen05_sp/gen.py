#!/usr/bin/env python3
"""Writes the sparse tcgen05 cases: tcgen05_sp.ptx (the kernels of ../tcgen05/gen.py with one
tcgen05.mma.sp each) and, per case, the shared-memory byte image of the stored half of A and
of B, the metadata words of tensor memory, the D input and the expected D:

- sparse A (PTX ISA section 9.7.16.10.8): each row of the 128xK A (K = 32 for .kind::f16,
  64 for .kind::i8) is in chunks of four elements with two non-zeros (2:4). A's operand is
  the stored 128xK/2 matrix, the chunk's two stored elements in order, laid out (shared memory
  or tensor memory) as a dense A of K/2 columns. Each chunk has a 4-bit field, the place of
  the first stored element in its low 2 bits and of the second in its high 2 bits, drawn from
  the ISA's meaningful values (0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110;
  0b0110 puts the first element at place 2 and the second at place 1);
- the instruction descriptor: ../tcgen05/gen.py's, with bit 2 (sparsity) set and the
  sparsity selector in bits 0-1;
- metadata in tensor memory (M = 128; the layout ptxjit takes, docs/isa-notes.md): .kind::f16
  row r, chunk c at lane 16(r / 16) + r % 8 + 8(c / 4) of column meta + selector, bits
  4(4((r % 16) / 8) + c % 4)..+4; .kind::i8 row r, chunk c at lane r, column meta + c / 8,
  bits 4(c % 8)..+4. The kernel stores four columns of metadata from `meta` (thread t's
  words at meta[4t ..] into lane t); the columns the selector does not pick hold 0 fields
  (invalid), so a wrong pick faults.

Expected values: numpy's A.B + C with the values small multiples of 1/4 (integers for i8),
exact in any order.

Run (numpy only, no GPU): python3 gen.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "wgmma"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)
tc = gc.load_generator(os.path.join(HERE, "..", "tcgen05", "gen.py"))  # the dense tcgen05 kernels and descriptors
wg = tc.wg

M, N = tc.M, tc.N
MEANINGFUL = [0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110]
META_COL = 72  # D at columns 0..63, A (in tensor memory) at 64..71, metadata at 72..75

# (case, entry, A type, B type, D type, A layout or "tmem", B layout, selector, enable, neg_b)
CASES = [
    ("f16_k", "sp_f16", "f16", "f16", "f32", (False, 1, 128, 256), (False, 1, 1024, 128), 0, 1, 0),
    ("bf16_sel1", "sp_f16", "bf16", "bf16", "f32", (False, 2, 16, 256), (True, 4, 2048, 512), 1, 1, 1),
    ("s8u8", "sp_i8", "s8", "u8", "s32", (False, 1, 128, 256), (False, 4, 16, 512), 0, 1, 0),
    ("atmem_sel1", "sp_atmem", "f16", "f16", "f32", "tmem", (False, 8, 16, 1024), 1, 0, 0),
]
# .kind::f8f6f4 (K = 64, 2:4, metadata as .kind::i8's: one figure for both, Figure 267), from
# their own generator (rng 1006) so the cases above keep their data; the 4- and 6-bit stored
# elements are packed 16 to a 16-byte group as ../tcgen05/gen.py packs dense ones.
CASES_F8 = [
    ("e4m3_e2m1", "sp_f8f6f4", "e4m3", "e2m1", "f32", (False, 1, 128, 256), (False, 1, 1024, 128), 0, 1, 0),
    ("e2m1_e5m2", "sp_f8f6f4", "e2m1", "e5m2", "f32", (False, 2, 16, 256), (False, 4, 16, 512), 0, 1, 1),
    ("e3m2_e2m3", "sp_f8f6f4", "e3m2", "e2m3", "f32", (False, 1, 128, 256), (False, 8, 16, 1024), 0, 0, 0),
]
KINDS = {"sp_f16": "f16", "sp_i8": "i8", "sp_atmem": "f16", "sp_f8f6f4": "f8f6f4"}


def entry(name):
    """The dense kernel, with a `meta` parameter stored into columns 72..75 and the sparse
    instruction."""
    kind = KINDS[name]
    dense = "tc_atmem" if name == "sp_atmem" else {"f16": "tc_f16", "i8": "tc_i8", "f8f6f4": "tc_f8f6f4"}[kind]
    text = tc.mma_entry(dense).replace(f".entry {dense}(", f".entry {name}(")
    text = text.replace("    .param .u64 areg)", "    .param .u64 areg, .param .u64 meta)")
    text = text.replace("    .reg .b32 %a<8>;", "    .reg .b32 %a<8>;\n    .reg .b32 %m<4>;")
    store = ["    ld.param.u64 %rd15, [meta];", "    mul.wide.u32 %rd16, %r1, 16;",
             "    add.u64 %rd17, %rd15, %rd16;"]
    store += [f"    ld.global.b32 %m{i}, [%rd17+{4 * i}];" for i in range(4)]
    store += [f"    tcgen05.st.sync.aligned.32x32b.x4.b32 [%r14+{META_COL}], {{%m0, %m1, %m2, %m3}};",
              "    tcgen05.wait::st.sync.aligned;"]
    old = "    tcgen05.wait::st.sync.aligned;"
    assert old in text
    text = text.replace(old, "\n".join(store), 1)
    a_op = "[%r21]" if name == "sp_atmem" else "%rd5"
    old = f"    tcgen05.mma.cta_group::1.kind::{kind} [%r20], {a_op}, %rd6, %r15, %p4;"
    assert old in text
    new = (f"    add.u32 %r22, %r20, {META_COL};\n"
           f"    tcgen05.mma.sp.cta_group::1.kind::{kind} [%r20], {a_op}, %rd6, [%r22], %r15, %p4;")
    return text.replace(old, new)


def write_ptx():
    head = ["// Written by gen.py (PTX ISA 9.7.16.10.8, tcgen05.mma.sp): ../tcgen05/gen.py's kernels,",
            "// which also store thread t's four metadata words meta[4t ..] into lane t, columns",
            "// 72..75 of the allocation, and issue tcgen05.mma.sp with [sp-meta] at column 72.",
            ".version 8.6", ".target sm_100a", ".address_size 64", "",
            ".extern .shared .align 1024 .b8 smem[];", ""]
    gc.write_text(HERE, "tcgen05_sp.ptx", "\n".join(head) + "\n" + "\n".join(entry(n) for n in KINDS))


def sparse_a(rng, k, value):
    """A 128xk 2:4 matrix, its stored 128xk/2 half and each chunk's field."""
    a = np.zeros((M, k))
    stored = np.zeros((M, k // 2))
    fields = np.zeros((M, k // 4), dtype=np.int64)
    for r in range(M):
        for c in range(k // 4):
            f = MEANINGFUL[int(rng.integers(0, len(MEANINGFUL)))]
            fields[r, c] = f
            for e, place in enumerate((f & 3, f >> 2)):
                v = value()
                a[r, 4 * c + place] = v
                stored[r, 2 * c + e] = v
    return a, stored, fields


def metadata(fields, kind, selector):
    """Tensor-memory words: meta[lane, column - 72] for columns 72..75."""
    meta = np.zeros((M, 4), dtype=np.uint32)
    for r in range(M):
        for c in range(fields.shape[1]):
            if kind in ("i8", "f8f6f4"):
                lane, col, nib = r, c // 8, c % 8
            else:
                lane = 16 * (r // 16) + r % 8 + 8 * (c // 4)
                col, nib = selector, 4 * ((r % 16) // 8) + c % 4
            meta[lane, col] |= np.uint32(int(fields[r, c]) << (4 * nib))
    return meta


def main():
    write_ptx()
    rng0, rng8 = np.random.default_rng(1005), np.random.default_rng(1006)
    for (name, ent, at, bt, dt, alay, blay, sel, enable, neg_b) in CASES + CASES_F8:
        kind = KINDS[ent]
        rng = rng8 if kind == "f8f6f4" else rng0
        k = 32 if kind == "f16" else 64
        if at in tc.MINI:
            a, stored, fields = sparse_a(rng, k, lambda: float(tc.mini_values(rng, at, (), 1.5)))
            b = tc.mini_values(rng, bt, (k, N), 1.5)
            c = rng.integers(-16, 17, (M, N)) / 4
        elif at == "s8":
            a, stored, fields = sparse_a(rng, k, lambda: int(rng.integers(-128, 128)))
            b = rng.integers(0, 256, (k, N))
            c = rng.integers(-(1 << 20), 1 << 20, (M, N))
        else:
            a, stored, fields = sparse_a(rng, k, lambda: int(rng.integers(-8, 9)) / 4)
            b = rng.integers(-8, 9, (k, N)) / 4
            c = rng.integers(-16, 17, (M, N)) / 4
        eb = {"f16": 2, "bf16": 2}.get(at, 1)
        image = np.zeros(tc.IMAGE, dtype=np.uint8)
        wg.USED.clear()
        areg = np.zeros((M, 8), dtype=np.uint32)
        trans_a = 0
        if alay == "tmem":
            adesc = 0
            sb = wg.bits(stored, at)
            for r in range(M):
                for kk in range(k // 2):
                    areg[r, kk // 2] |= np.uint32(int(sb[r, kk]) << (16 * (kk % 2)))
        else:
            adesc = tc.tc_desc(wg.place(image, tc.element_bytes(rng, stored, at), tc.A_BASE, *alay, eb), alay[1])
            trans_a = int(alay[0])
        bdesc = tc.tc_desc(wg.place(image, tc.element_bytes(rng, b.T, bt), tc.B_BASE, *blay, eb), blay[1])
        idv = tc.idesc(at, bt, dt, 0, neg_b, trans_a, int(blay[0])) | 1 << 2 | sel
        d = a @ (-b if neg_b else b) + (c if enable else 0)
        cin = np.array([[tc.word(v, dt) for v in row] for row in c], dtype=np.uint32)
        exp = np.array([[tc.word(v, dt) for v in row] for row in d], dtype=np.uint32)
        gc.save_npy(HERE, f"{name}_img", image.view(np.uint32))
        gc.save_npy(HERE, f"{name}_cin", cin.reshape(-1))
        gc.save_npy(HERE, f"{name}_meta", metadata(fields, kind, sel).reshape(-1))
        gc.save_npy(HERE, f"{name}_expected", exp.reshape(-1))
        extra = ""
        if alay == "tmem":
            gc.save_npy(HERE, f"{name}_areg", areg.reshape(-1))
            extra = '\n[buffers.areg]\ntype = "u32"\ninit = { file = "%s_areg.npy" }\n' % name
        areg_arg = '{ buffer = "areg" }' if alay == "tmem" else "{ u64 = 0 }"
        where = "tensor memory" if alay == "tmem" else "shared memory"
        toml = f"""# tcgen05.mma.sp.cta_group::1.kind::{kind}: M {M}, N {N}, K {k}, .{dt} += .{at} x .{bt};
# stored A in {where}, sparsity selector {sel}, enable-input-d {enable}, negate B {neg_b}.
# Written by gen.py (do not edit: change gen.py and run it); expected: numpy's A.B + C with A
# expanded from its stored half and metadata fields, exact.
ptx = "tcgen05_sp.ptx"
kernel = "{ent}"
grid = [1]
block = [128]
shared_bytes = {tc.SHARED}
args = [{{ buffer = "img" }}, {{ buffer = "out" }}, {{ buffer = "cin" }}, {{ u64 = "{adesc:#x}" }},
        {{ u64 = "{bdesc:#x}" }}, {{ u32 = {idv} }}, {{ u32 = {enable} }}, {areg_arg},
        {{ buffer = "meta" }}]

{gc.buffer_from_file("img", f"{name}_img.npy")}
{gc.buffer_from_file("cin", f"{name}_cin.npy")}
{gc.buffer_from_file("meta", f"{name}_meta.npy")}{extra}
[buffers.out]
type = "u32"
len = {M * N}

{gc.expect_exact("out", f"{name}_expected.npy")}"""
        gc.write_text(HERE, f"{name}.toml", toml)
        print(name, hex(adesc), hex(bdesc), hex(idv))


if __name__ == "__main__":
    main()
