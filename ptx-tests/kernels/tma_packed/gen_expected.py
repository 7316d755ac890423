#!/usr/bin/env python3
"""Writes packed.ptx and packed.toml: tensor copies of the packed sub-byte types and with the 96B
swizzle, with expected values from the PTX ISA's text and numpy, never from ptxjit:

- §5.5.1.1.1 "Padding and alignment of the sub-byte types": the elements are packed
  contiguously in global memory (element i of a row at bit 4i or 6i, lower elements in lower
  bits); .b4x16 is copied as is (packed in shared memory too); .b4x16_p64 (load) puts each 16
  elements' 8 bytes at the start of 16 shared bytes and .b6x16_p32 (load) each 16 elements'
  12 bytes at the start of 16, "the padded region that gets added is un-initialized" (the case
  fills shared memory with 0xA5 first, and ptxjit leaves the padding as it was); .b6p2x16
  (store, the same Table 33 value 15) takes one element per shared byte, 6 bits at the LSB, and
  packs them contiguously in global memory, the 2 high bits dropped.
- CUtensorMapDataType (CUDA Driver API): dimensions count the 4- or 6-bit values.
- §5.5.7: the 96B swizzle's table (rows of eight 16-byte chunks, the odd rows' chunks exchanged
  in pairs, repeating every 256 bytes); the 128B swizzle's (chunk c of 128-byte row r at c ^ r % 8).
- Out-of-bound elements of a load read as zero (§5.5.3.3); complete-tx counts the box's
  shared-memory bytes, padding included (ptxjit's reading: public sm_100 code expects the
  padded size; docs/isa-notes.md).

Each step edits a copy of the kernel's map (a u8 map of the buffer g) with tensormap.replace
(global address, element type, dims, strides, box, swizzle), publishes it to gmap + 128k and
copies through it; a load's box is dumped from shared memory to out + 512k.
Run: python3 gen_expected.py
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
G = 4096  # bytes of the global buffer g
rng = np.random.default_rng(31)
g0 = rng.integers(0, 256, G, dtype=np.uint64).astype(np.uint8)
src = rng.integers(0, 256, 512, dtype=np.uint64).astype(np.uint8)  # shared data of the stores

# (name, load, elemtype, g offset, dims, row stride, box, coords, swizzle)
STEPS = [
    ("b4x16_p64, 128B swizzle", True, 14, 0, (256, 2), 128, (128, 2), (128, 0), 3),
    ("b6x16_p32, row 2 out of bounds", True, 15, 512, (256, 2), 192, (128, 3), (128, 0), 0),
    ("b4x16 from an odd element", True, 13, 1024, (96, 2), 48, (64, 2), (33, 0), 0),
    ("u8 with the 96B swizzle", True, 0, 1280, (96, 4), 96, (96, 4), (0, 0), 4),
    ("b6p2x16 store", False, 15, 2048, (256, 2), 192, (128, 2), (128, 0), 0),
    ("b4x16 store at an odd element", False, 13, 2560, (70, 2), 48, (32, 2), (3, 1), 0),
]
W = {13: 4, 14: 4, 15: 6, 0: 8}


def get_el(mem, base, bit, w):
    v = int.from_bytes(bytes(mem[base + bit // 8: base + bit // 8 + 2]), "little")
    return (v >> (bit % 8)) & ((1 << w) - 1)


def put_el(mem, base, bit, w, val):
    a = base + bit // 8
    n = 2 if (bit % 8 + w) > 8 else 1
    v = int.from_bytes(bytes(mem[a:a + n]), "little")
    m = ((1 << w) - 1) << (bit % 8)
    v = (v & ~m) | ((val << (bit % 8)) & m)
    mem[a:a + n] = np.frombuffer(v.to_bytes(n, "little"), dtype=np.uint8)


def swz(mode, addr):
    row = addr >> 7
    if mode == 3:
        return addr ^ ((row & 7) << 4)
    if mode == 4:
        return addr ^ ((row & 1) << 4)
    return addr


def sbit(et, load, lin):
    """The shared-memory bit of box element lin (unswizzled) and its width there."""
    if et == 13:
        return lin * 4, 4
    if et == 0:
        return lin * 8, 8
    if et == 15 and not load:
        return lin * 8, 8
    return (lin // 16) * 128 + (lin % 16) * W[et], W[et]


def run():
    g = g0.copy()
    outs = []
    for (_, load, et, off, dims, stride, box, c, sw) in STEPS:
        w = W[et]
        sm = np.full(1024, 0xA5, dtype=np.uint8) if load else src[:1024].copy() if len(src) >= 1024 else np.concatenate([src, np.zeros(1024 - len(src), np.uint8)])
        for lin in range(box[0] * box[1]):
            i, r = lin % box[0], lin // box[0]
            x, y = c[0] + i, c[1] + r
            inb = 0 <= x < dims[0] and 0 <= y < dims[1]
            b, sw_w = sbit(et, load, lin)
            chunk = swz(sw, (b // 128) * 16)
            sb = chunk * 8 + b % 128
            if load:
                v = get_el(g, off + y * stride, x * w, w) if inb else 0
                put_el(sm, 0, sb, sw_w, v)
            elif inb:
                v = get_el(sm, 0, sb, sw_w) & ((1 << w) - 1)
                put_el(g, off + y * stride, x * w, w, v)
        if load:
            nbytes = box[0] * box[1] * {13: 4, 14: 8, 15: 8, 0: 8}[et] // 8
            outs.append((sm[:512].copy(), nbytes))
    return g, outs


PTX_HEAD = """// Written by gen_expected.py (PTX ISA sections 5.5.1.1.1, 5.5.7, 9.7.9.26): tensor copies of the
// packed sub-byte types and with the 96B swizzle, through maps edited by tensormap.replace.
.version 8.8
.target sm_103a
.address_size 64

.entry packed(.param .align 64 .b8 tm[128], .param .u64 out_p, .param .u64 gmap_p, .param .u64 g_p, .param .u64 src_p)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	.reg .pred %p<3>;
	.shared .align 128 .b8 smap[128];
	.shared .align 1024 .b8 box[1024];
	.shared .align 8 .b64 bar;

	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	ld.param.u64 %rd1, [out_p];
	ld.param.u64 %rd2, [gmap_p];
	ld.param.u64 %rd3, [g_p];
	ld.param.u64 %rd4, [src_p];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	cvta.to.global.u64 %rd4, %rd4;
	mov.u32 %r6, box;
	mov.u32 %r7, bar;
	mbarrier.init.shared.b64 [bar], 1;
	mov.b64 %rd5, tm;
	cvta.param.u64 %rd5, %rd5;
"""


def step_ptx(k, st, phase):
    (name, load, et, off, dims, stride, box, c, sw) = st
    L = [f"\t// Step {k}: {name}."]
    # Fresh copy of the kernel's map.
    L += [f"\tmov.u32 %r2, 0;", f"C{k}:", "\tcvt.u64.u32 %rd6, %r2;", "\tadd.s64 %rd7, %rd5, %rd6;",
          "\tld.u64 %rd8, [%rd7];", "\tmov.u32 %r3, smap;", "\tadd.u32 %r4, %r3, %r2;",
          "\tst.shared.u64 [%r4], %rd8;", "\tadd.u32 %r2, %r2, 8;", "\tsetp.lt.u32 %p2, %r2, 128;",
          f"\t@%p2 bra C{k};"]
    L += [f"\tadd.s64 %rd9, %rd3, {off};",
          "\ttensormap.replace.tile.global_address.shared::cta.b1024.b64 [smap], %rd9;",
          f"\ttensormap.replace.tile.elemtype.shared::cta.b1024.b32 [smap], {et};",
          f"\ttensormap.replace.tile.global_dim.shared::cta.b1024.b32 [smap], 0, {dims[0]};",
          f"\ttensormap.replace.tile.global_dim.shared::cta.b1024.b32 [smap], 1, {dims[1]};",
          f"\ttensormap.replace.tile.global_stride.shared::cta.b1024.b64 [smap], 0, {stride};",
          f"\ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [smap], 0, {box[0]};",
          f"\ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [smap], 1, {box[1]};",
          f"\ttensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [smap], {sw};",
          f"\tadd.s64 %rd10, %rd2, {128 * k};",
          "\ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd10], [smap], 128;",
          "\tfence.proxy.tensormap::generic.acquire.gpu [%rd10], 128;"]
    # Shared memory: 0xA5 everywhere (a load), or the source bytes (a store).
    fill = ["\tmov.u32 %r2, 0;", f"F{k}:", "\tadd.u32 %r4, %r6, %r2;"]
    if load:
        fill += ["\tmov.u32 %r8, 0xA5A5A5A5;"]
    else:
        fill += ["\tcvt.u64.u32 %rd6, %r2;", "\tadd.s64 %rd7, %rd4, %rd6;", "\tld.global.u32 %r8, [%rd7];"]
    fill += ["\tst.shared.u32 [%r4], %r8;", "\tadd.u32 %r2, %r2, 4;", "\tsetp.lt.u32 %p2, %r2, 512;",
             f"\t@%p2 bra F{k};", "\tfence.proxy.async.shared::cta;"]
    L += fill
    L += [f"\tmov.u32 %r9, {c[0]};", f"\tmov.u32 %r10, {c[1]};"]
    if load:
        nbytes = box[0] * box[1] * {13: 4, 14: 8, 15: 8, 0: 8}[et] // 8
        L += [f"\tmbarrier.arrive.expect_tx.shared.b64 %rd11, [bar], {nbytes};",
              "\tcp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%r6], [%rd10, {%r9, %r10}], [%r7];",
              f"W{k}:", f"\tmbarrier.try_wait.parity.shared.b64 %p2, [bar], {phase};", f"\t@!%p2 bra W{k};",
              "\tmov.u32 %r2, 0;", f"D{k}:", "\tadd.u32 %r4, %r6, %r2;", "\tld.shared.u32 %r8, [%r4];",
              "\tcvt.u64.u32 %rd6, %r2;", "\tadd.s64 %rd7, %rd1, %rd6;",
              f"\tst.global.u32 [%rd7+{512 * k}], %r8;", "\tadd.u32 %r2, %r2, 4;",
              "\tsetp.lt.u32 %p2, %r2, 512;", f"\t@%p2 bra D{k};"]
    else:
        L += ["\tcp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd10, {%r9, %r10}], [%r6];",
              "\tcp.async.bulk.commit_group;", "\tcp.async.bulk.wait_group 0;"]
    return L


def main():
    g, outs = run()
    L = [PTX_HEAD]
    phase = 0
    for k, st in enumerate(STEPS):
        L.append("\n".join(step_ptx(k, st, phase)))
        if st[1]:
            phase ^= 1
    L.append("DONE:\n\tret;\n}\n")
    with open(os.path.join(HERE, "packed.ptx"), "w") as f:
        f.write("\n".join(L))
    out = np.zeros(512 * len(STEPS), dtype=np.uint8)
    k = 0
    for i, st in enumerate(STEPS):
        if st[1]:
            out[512 * i:512 * i + 512] = outs[k][0]
            k += 1
    np.save(os.path.join(HERE, "g_init.npy"), g0)
    np.save(os.path.join(HERE, "src.npy"), src)
    np.save(os.path.join(HERE, "g_expected.npy"), g)
    np.save(os.path.join(HERE, "out_expected.npy"), out)
    steps = "\n".join(f"#   {k}: {s[0]}" for k, s in enumerate(STEPS))
    toml = f"""# Tensor copies of the packed sub-byte types (.b4x16, .b4x16_p64, .b6x16_p32 loads; .b6p2x16 and
# .b4x16 stores) and a load with the 96B swizzle, each through a copy of the kernel's u8 map
# edited by tensormap.replace (PTX ISA 5.5.1.1.1, 5.5.7, 9.7.9.26). Steps:
{steps}
# Expected values: gen_expected.py (numpy, the ISA's packing and swizzle tables).
# Written by gen_expected.py (do not edit: change it and run it).
ptx = "packed.ptx"
kernel = "packed"
grid = [1]
block = [32]
args = [{{ tensor_map = "t" }}, {{ buffer = "out" }}, {{ buffer = "gmap" }}, {{ buffer = "g" }}, {{ buffer = "src" }}]

[buffers.g]
type = "u8"
init = {{ file = "g_init.npy" }}

[buffers.src]
type = "u8"
init = {{ file = "src.npy" }}

[buffers.out]
type = "u8"
len = {512 * len(STEPS)}

[buffers.gmap]
type = "u8"
len = {128 * len(STEPS)}

[tensor_maps.t]
buffer = "g"
type = "u8"
dims = [256, 2]
box = [128, 2]

[expect.out]
file = "out_expected.npy"
tolerance = "exact"

[expect.g]
file = "g_expected.npy"
tolerance = "exact"
"""
    with open(os.path.join(HERE, "packed.toml"), "w") as f:
        f.write(toml)


if __name__ == "__main__":
    main()
