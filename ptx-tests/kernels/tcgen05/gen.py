#!/usr/bin/env python3
"""Writes the tcgen05 cases: tcgen05.ptx (hand-written kernels for sm_100a) and, per case, the
shared-memory byte image of A and B, the D input, and the expected D, from the PTX ISA's text
(§9.7.16) and numpy:

- shared memory: the canonical layouts and swizzles are wgmma's (../wgmma/gen.py: `place`),
  with the tcgen05 descriptor fields of §9.7.16.4.1 (Table 40): start address, LBO and SBO
  >> 4 at bits 0, 16, 32; the fixed value 0b001 at bits 46-48; the swizzle mode at bits
  61-63 (0 none, 2 = 128-byte, 4 = 64-byte, 6 = 32-byte);
- the instruction descriptor (Table 42): D type at bits 4-5 (F16 = 0, F32 = 1, S32 = 2), A and B
  types at 7-9 and 10-12 (F16 = 0, BF16 = 1, TF32 = 2; U8 = 0, S8 = 1; .kind::f8f6f4: E4M3 = 0,
  E5M2 = 1, E2M3 = 3, E3M2 = 4, E2M1 = 5), negate A/B at 13/14, transpose A/B at 15/16, N >> 3
  at 17-22, M >> 4 at 24-28;
- the narrow float encodings from §5.2.5 (sign, exponent bits with their bias, mantissa bits;
  subnormals at exponent field 0); 4- and 6-bit elements in shared memory as §9.7.16.10.4.4 and
  §5.5.1.1.1 (`.b4x16_p64`, `.b6x16_p32`) give them: each 16 elements of K packed contiguously
  (element j at bits w·j, little-endian) and padded to 16 bytes, the 16-byte groups placed as
  8-bit elements would be; the padding bytes are random, as the ISA leaves them uninitialized;
- an f16 D sits in the low 16 bits of its 32-bit tensor-memory cell (§9.7.16.10.4.1); ptxjit
  writes the upper 16 bits as zero, which is what the f16 case expects;
- tensor memory: with M = 128 row i of D is lane i; tcgen05.ld/st .32x32b give thread t of warp
  w lane 32w + t and register j column j; so thread t (0..127) stores row t of D: out[t, j] =
  D[t, j] whatever the engines' internals.

Each case runs one tcgen05.mma (M = 128, N = 64, K of one instruction) by one thread, commits
it to an mbarrier the CTA waits on, and reads D back. The values are small multiples of 1/4
(integers for i8), so every product and sum is exact and numpy's A·B + C is the result in any
order (for an f16 D the sum of the magnitudes stays inside f16's exact range, checked below).
A second kernel checks a store/load round trip with .unpack::16b/.pack::16b against
the ISA's text (§9.7.16.8.3-4: two 16-bit halves of a register go to two adjacent columns).

Run (numpy only, no GPU): python3 gen.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "wgmma"))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402  (the writers shared by ptx-tests generators)
import gen as wg  # noqa: E402  (the canonical layouts, evaluated as the ISA writes them)

M, N = 128, 64
A_BASE, B_BASE, IMAGE = 0, 8192, 16384
MBAR, TSLOT = IMAGE, IMAGE + 8
SHARED = IMAGE + 16
TC_SWIZZLE = {1: 0, 8: 2, 4: 4, 2: 6}
TYPE_CODE = {"f16": 0, "bf16": 1, "tf32": 2, "u8": 0, "s8": 1,
             "e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5}
K_OF = {"f16": 16, "bf16": 16, "tf32": 8, "s8": 32,
        "e4m3": 32, "e5m2": 32, "e2m3": 32, "e3m2": 32, "e2m1": 32}
# (exponent bits, bias, mantissa bits) of the narrow floats (PTX ISA §5.2.5).
MINI = {"e4m3": (4, 7, 3), "e5m2": (5, 15, 2), "e2m3": (2, 1, 3), "e3m2": (3, 3, 2),
        "e2m1": (2, 1, 1)}


def tc_desc(wg_desc, x):
    """wgmma's descriptor (fields at bits 0, 16, 32, swizzle at 62) as tcgen05's."""
    return (wg_desc & ((1 << 46) - 1)) | (1 << 46) | (TC_SWIZZLE[x] << 61)


def idesc(a, b, d, neg_a, neg_b, trans_a, trans_b):
    dcode = {"f16": 0, "f32": 1, "s32": 2}[d]
    return (dcode << 4 | TYPE_CODE[a] << 7 | TYPE_CODE[b] << 10 | neg_a << 13 | neg_b << 14
            | trans_a << 15 | trans_b << 16 | (N >> 3) << 17 | (M >> 4) << 24)


def word(v, d):
    if d == "f16":
        assert float(np.float16(v)) == v, "not exact in f16"
        return int(np.float16(v).view(np.uint16))
    if d == "f32":
        return int(np.float32(v).view(np.uint32))
    return int(np.int64(v)) & 0xffffffff


# (case, entry, A type, B type, D type, A layout (mn_major, x, lbo, sbo) or "tmem", B layout,
#  enable-input-d, neg_a, neg_b)
CASES = [
    ("f16_k", "tc_f16", "f16", "f16", "f32", (False, 1, 128, 256), (False, 1, 1024, 128), 1, 0, 0),
    ("bf16_sw", "tc_f16", "bf16", "bf16", "f32", (False, 2, 16, 256), (True, 4, 1024, 512), 1, 1, 0),
    ("f16_mn", "tc_f16", "f16", "f16", "f32", (True, 2, 512, 256), (False, 8, 16, 1024), 0, 0, 1),
    ("tf32", "tc_tf32", "tf32", "tf32", "f32", (False, 2, 16, 256), (False, 4, 16, 512), 1, 0, 0),
    ("s8u8", "tc_i8", "s8", "u8", "s32", (False, 1, 128, 256), (False, 2, 16, 256), 1, 0, 0),
    ("atmem", "tc_atmem", "f16", "f16", "f32", "tmem", (False, 1, 1024, 128), 1, 0, 0),
]
# Cases drawn from their own generator (rng 200), so the ones above keep their data.
CASES_NARROW = [
    ("f16_acc", "tc_f16", "f16", "f16", "f16", (False, 1, 128, 256), (False, 8, 16, 1024), 1, 0, 1),
    ("e4m3_e5m2", "tc_f8f6f4", "e4m3", "e5m2", "f32", (False, 1, 128, 256), (True, 4, 1024, 512), 1, 1, 0),
    ("e2m1_e3m2", "tc_f8f6f4", "e2m1", "e3m2", "f32", (False, 2, 16, 256), (False, 1, 128, 256), 1, 0, 1),
    ("e2m3_e4m3_f16", "tc_f8f6f4", "e2m3", "e4m3", "f16", (False, 2, 16, 256), (False, 8, 16, 1024), 1, 0, 0),
    ("e3m2_e2m1_f16", "tc_f8f6f4", "e3m2", "e2m1", "f16", (False, 4, 16, 512), (False, 8, 16, 1024), 0, 1, 1),
    ("f16_mask_scale", "tc_f16_mask", "f16", "f16", "f32", (False, 1, 128, 256), (False, 2, 16, 256), 1, 0, 0),
    ("tf32_scale", "tc_tf32_scale", "tf32", "tf32", "f32", (False, 2, 16, 256), (False, 4, 16, 512), 1, 1, 0),
]

# A 4-, 6- or 8-bit A in tensor memory (.kind::f8f6f4): one element per byte, four bytes per
# column from the lowest; a 4-bit element at bits 2-5 of its byte, a 6-bit one at bits 0-5, the
# rest zero (the 8-bit containers tcgen05.cp's decompression writes: docs/isa-notes.md). Cases
# from their own generator (rng 300).
CASES_TMEM = [
    ("e2m1_atmem", "tc_atmem_f8", "e2m1", "e4m3", "f32", "tmem", (False, 1, 128, 256), 1, 0, 0),
    ("e3m2_atmem", "tc_atmem_f8", "e3m2", "e2m3", "f32", "tmem", (False, 2, 16, 256), 1, 1, 0),
    ("e2m3_atmem", "tc_atmem_f8", "e2m3", "e2m1", "f16", "tmem", (False, 1, 128, 256), 0, 0, 1),
]
CONTAINER_SHIFT = {"e2m1": 2, "e2m3": 0, "e3m2": 0, "e4m3": 0, "e5m2": 0}

KINDS = {"tc_f16": "f16", "tc_tf32": "tf32", "tc_i8": "i8", "tc_atmem": "f16", "tc_f8f6f4": "f8f6f4",
         "tc_atmem_f8": "f8f6f4",
         "tc_f16_mask": "f16", "tc_tf32_scale": "tf32"}
# Entries whose mma has more operands (§9.7.16.10.9.1): a disable-output-lane vector (four words
# read from the `areg` buffer) and the scale-input-d immediate.
TAIL = {"tc_f16_mask": (True, 3), "tc_tf32_scale": (False, 15)}
# The disable-output-lane words of the cases that have them: bit l % 32 of word l / 32 set keeps
# tensor-memory lane l (row l of D) as it was.
MASK_OF = {"f16_mask_scale": [0x0000_8001, 0xffff_ffff, 0, 0xf0f0_0f0f]}


def mini_codes(x, dtype):
    """The encodings of values exact in a narrow float: the magnitude's code from the format's
    definition, the sign bit above it."""
    ebits, bias, mbits = MINI[dtype]
    table = {}
    for code in range(1 << (ebits + mbits)):
        e, m = code >> mbits, code & ((1 << mbits) - 1)
        v = m * 2.0 ** (1 - bias - mbits) if e == 0 else ((1 << mbits) + m) * 2.0 ** (e - bias - mbits)
        table.setdefault(v, code)
    sign = 1 << (ebits + mbits)
    out = np.zeros(x.shape, dtype=np.int64)
    for idx, v in np.ndenumerate(x):
        out[idx] = table[abs(float(v))] | (sign if v < 0 else 0)
    return out


def mini_values(rng, dtype, shape, lim):
    """Random values of the format that are multiples of 1/4 (e2m1: any) with |v| <= lim."""
    ebits, bias, mbits = MINI[dtype]
    vals = set()
    for code in range(1 << (ebits + mbits)):
        e, m = code >> mbits, code & ((1 << mbits) - 1)
        v = m * 2.0 ** (1 - bias - mbits) if e == 0 else ((1 << mbits) + m) * 2.0 ** (e - bias - mbits)
        if v <= lim and (dtype == "e2m1" or (4 * v) == int(4 * v)):
            vals.update([v, -v])
    return rng.choice(sorted(vals), shape)


def packed_rows(codes, dtype, rng):
    """Rows of element codes (mn × 32 along K) as the byte matrix shared memory holds: 8-bit
    codes as they are; 4-/6-bit ones 16 to a 16-byte group, packed, random padding."""
    w = 1 + sum(MINI[dtype][::2])
    if w == 8:
        return codes
    out = np.zeros(codes.shape, dtype=np.int64)
    for r in range(codes.shape[0]):
        for g in range(codes.shape[1] // 16):
            packed = sum(int(codes[r, 16 * g + j]) << (w * j) for j in range(16))
            used = 2 * w  # bytes the 16 elements fill
            for i in range(16):
                out[r, 16 * g + i] = (packed >> (8 * i)) & 0xff if i < used else int(rng.integers(0, 256))
    return out


def regs(prefix, n):
    return "{" + ", ".join(f"{prefix}{i}" for i in range(n)) + "}"


def mma_entry(name):
    kind = KINDS[name]
    a_tmem = name.startswith("tc_atmem")
    a_op = "[%r21]" if a_tmem else "%rd5"
    masked, scale = TAIL.get(name, (False, 0))
    tail = (", {%m0, %m1, %m2, %m3}" if masked else "") + ", %p4" + (f", {scale}" if scale else "")
    L = [f".visible .entry {name}(.param .u64 img, .param .u64 out, .param .u64 cin,",
         "    .param .u64 adesc, .param .u64 bdesc, .param .u32 idesc, .param .u32 enable,",
         "    .param .u64 areg)", "{", "    .reg .b32 %r<32>;", "    .reg .b64 %rd<24>;",
         "    .reg .pred %p<8>;", "    .reg .b32 %c<64>;", "    .reg .b32 %a<8>;",
         "    mov.u32 %r1, %tid.x;", "    ld.param.u64 %rd1, [img];", "    mov.u32 %r5, smem;",
         "    shl.b32 %r3, %r1, 2;", "$copy:", f"    setp.ge.u32 %p1, %r3, {IMAGE};",
         "    @%p1 bra $copied;", "    cvt.u64.u32 %rd2, %r3;", "    add.u64 %rd3, %rd1, %rd2;",
         "    ld.global.u32 %r4, [%rd3];", "    add.u32 %r6, %r5, %r3;", "    st.shared.u32 [%r6], %r4;",
         "    add.u32 %r3, %r3, 512;", "    bra $copy;", "$copied:",
         "    // Warp 0 allocates 128 columns (D at 0..63, A at 64..71 when A is in tensor memory);",
         "    // thread 0 sets up the mbarrier the commit arrives on.",
         f"    add.u32 %r10, %r5, {TSLOT};", f"    add.u32 %r11, %r5, {MBAR};",
         "    shr.u32 %r12, %r1, 5;", "    setp.ne.u32 %p2, %r12, 0;", "    @%p2 bra $allocated;",
         "    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r10], 128;",
         "    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", "$allocated:",
         "    setp.ne.u32 %p3, %r1, 0;", "    @!%p3 mbarrier.init.shared::cta.b64 [%r11], 1;",
         "    tcgen05.fence::before_thread_sync;", "    bar.sync 0;", "    tcgen05.fence::after_thread_sync;",
         "    ld.shared.u32 %r20, [%r10];", "    // This warp's lanes: 32w in bits 31-16.",
         "    shl.b32 %r13, %r12, 21;", "    add.u32 %r14, %r20, %r13;",
         "    ld.param.u64 %rd7, [cin];", "    mul.wide.u32 %rd8, %r1, 256;", "    add.u64 %rd9, %rd7, %rd8;"]
    L += [f"    ld.global.b32 %c{i}, [%rd9+{4 * i}];" for i in range(64)]
    L += [f"    tcgen05.st.sync.aligned.32x32b.x64.b32 [%r14], {regs('%c', 64)};"]
    if masked:
        L += ["    .reg .b32 %m<4>;", "    ld.param.u64 %rd15, [areg];"]
        L += [f"    ld.global.b32 %m{i}, [%rd15+{4 * i}];" for i in range(4)]
    if a_tmem:
        L += ["    ld.param.u64 %rd10, [areg];", "    mul.wide.u32 %rd11, %r1, 32;",
              "    add.u64 %rd12, %rd10, %rd11;"]
        L += [f"    ld.global.b32 %a{i}, [%rd12+{4 * i}];" for i in range(8)]
        L += [f"    tcgen05.st.sync.aligned.32x32b.x8.b32 [%r14+64], {regs('%a', 8)};"]
    L += ["    tcgen05.wait::st.sync.aligned;", "    tcgen05.fence::before_thread_sync;", "    bar.sync 0;",
          "    tcgen05.fence::after_thread_sync;",
          "    // The image's shared address >> 4 goes into each descriptor's start address.",
          "    shr.u32 %r7, %r5, 4;", "    cvt.u64.u32 %rd4, %r7;", "    ld.param.u64 %rd5, [adesc];",
          "    add.u64 %rd5, %rd5, %rd4;", "    ld.param.u64 %rd6, [bdesc];", "    add.u64 %rd6, %rd6, %rd4;",
          "    ld.param.u32 %r15, [idesc];", "    ld.param.u32 %r16, [enable];", "    setp.ne.u32 %p4, %r16, 0;",
          "    add.u32 %r21, %r20, 64;", "    @%p3 bra $issued;",
          f"    tcgen05.mma.cta_group::1.kind::{kind} [%r20], {a_op}, %rd6, %r15{tail};",
          "    tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r11];",
          "$issued:", "$wait:", "    mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r11], 0;",
          "    @!%p5 bra $wait;", "    tcgen05.fence::after_thread_sync;",
          f"    tcgen05.ld.sync.aligned.32x32b.x64.b32 {regs('%c', 64)}, [%r14];",
          "    tcgen05.wait::ld.sync.aligned;", "    ld.param.u64 %rd13, [out];", "    add.u64 %rd14, %rd13, %rd8;"]
    L += [f"    st.global.b32 [%rd14+{4 * i}], %c{i};" for i in range(64)]
    L += ["    tcgen05.fence::before_thread_sync;", "    bar.sync 0;", "    @%p2 bra $done;",
          "    tcgen05.fence::after_thread_sync;",
          "    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r20, 128;", "$done:", "    ret;", "}", ""]
    return "\n".join(L)


def roundtrip_entry():
    """Each thread stores two registers unpacked into four columns, reads the four columns
    back plain, and the two registers back packed."""
    return "\n".join([
        ".visible .entry tc_roundtrip(.param .u64 inp, .param .u64 out)", "{",
        "    .reg .b32 %r<32>;", "    .reg .b64 %rd<8>;", "    .reg .pred %p<4>;",
        "    mov.u32 %r1, %tid.x;", "    mov.u32 %r5, smem;", "    shr.u32 %r12, %r1, 5;",
        "    setp.ne.u32 %p2, %r12, 0;", "    @%p2 bra $allocated;",
        "    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r5], 32;", "$allocated:",
        "    tcgen05.fence::before_thread_sync;", "    bar.sync 0;", "    tcgen05.fence::after_thread_sync;",
        "    ld.shared.u32 %r20, [%r5];", "    shl.b32 %r13, %r12, 21;", "    add.u32 %r14, %r20, %r13;",
        "    ld.param.u64 %rd1, [inp];", "    mul.wide.u32 %rd2, %r1, 8;", "    add.u64 %rd3, %rd1, %rd2;",
        "    ld.global.v2.b32 {%r2, %r3}, [%rd3];",
        "    tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32 [%r14+4], {%r2, %r3};",
        "    tcgen05.wait::st.sync.aligned;",
        "    tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r6, %r7, %r8, %r9}, [%r14+4];",
        "    tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {%r10, %r11}, [%r14+4];",
        "    tcgen05.wait::ld.sync.aligned;",
        "    ld.param.u64 %rd4, [out];", "    mul.wide.u32 %rd5, %r1, 24;", "    add.u64 %rd6, %rd4, %rd5;",
        "    st.global.v2.b32 [%rd6], {%r6, %r7};", "    st.global.v2.b32 [%rd6+8], {%r8, %r9};",
        "    st.global.v2.b32 [%rd6+16], {%r10, %r11};",
        "    tcgen05.fence::before_thread_sync;", "    bar.sync 0;", "    @%p2 bra $done;",
        "    tcgen05.fence::after_thread_sync;",
        "    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r20, 32;", "$done:", "    ret;", "}", ""])


def write_ptx():
    head = ["// Written by gen.py (PTX ISA 9.7.16, tcgen05). tc_*: a CTA of 128 threads copies the",
            "// byte image `img` into shared memory, allocates tensor memory, stores C there",
            "// (row t from thread t: cin[t * 64 ..]), and thread 0 issues one tcgen05.mma",
            "// (descriptors from `adesc`/`bdesc` plus the image's address, `idesc`, `enable`;",
            "// tc_atmem: A from tensor memory, row t from areg[t * 8 ..]) and commits it to an",
            "// mbarrier; every thread then loads its row of D and stores it at out[t * 64 ..].",
            "// tc_roundtrip: .unpack::16b stores and plain and .pack::16b loads.",
            ".version 8.6", ".target sm_100a", ".address_size 64", "",
            ".extern .shared .align 1024 .b8 smem[];", ""]
    body = [mma_entry(n) for n in KINDS] + [roundtrip_entry()]
    gc.write_text(HERE, "tcgen05.ptx", "\n".join(head) + "\n" + "\n".join(body))


def value_of(rng, at, shape, narrow):
    """The case's random values of type `at` (narrow cases: from their own ranges)."""
    if at in MINI:
        return mini_values(rng, at, shape, 1.5)
    if narrow:
        return rng.integers(-6, 7, shape) / 4
    return rng.integers(-8, 9, shape) / 4


def element_bytes(rng, vals, t):
    """The byte matrix of `vals` (mn × k) as shared memory holds elements of type t."""
    if t in MINI:
        return packed_rows(mini_codes(vals, t), t, rng)
    return wg.bits(vals, t)


def write_case(rng, case, narrow):
    (name, ent, at, bt, dt, alay, blay, enable, neg_a, neg_b) = case
    k = K_OF[at]
    if at == "s8":
        a = rng.integers(-128, 128, (M, k))
        b = rng.integers(0, 256, (k, N))
        c = rng.integers(-(1 << 20), 1 << 20, (M, N))
    else:
        a = value_of(rng, at, (M, k), narrow)
        b = value_of(rng, bt, (k, N), narrow)
        c = rng.integers(-16, 17, (M, N)) / 4
    eb = {"f16": 2, "bf16": 2, "tf32": 4}.get(at, 1)
    image = np.zeros(IMAGE, dtype=np.uint8)
    wg.USED.clear()
    areg = np.zeros((M, 8), dtype=np.uint32)
    trans_a = 0
    if alay == "tmem" and at in MINI:
        adesc = 0
        ab = mini_codes(a, at) << CONTAINER_SHIFT[at]
        for r in range(M):
            for kk in range(k):
                areg[r, kk // 4] |= np.uint32(int(ab[r, kk]) << (8 * (kk % 4)))
    elif alay == "tmem":
        adesc = 0
        ab = wg.bits(a, at)
        for r in range(M):
            for kk in range(k):
                areg[r, kk // 2] |= np.uint32(int(ab[r, kk]) << (16 * (kk % 2)))
    else:
        adesc = tc_desc(wg.place(image, element_bytes(rng, a, at), A_BASE, *alay, eb), alay[1])
        trans_a = int(alay[0])
    # B is K×N; its descriptor layout indexes (n, k).
    bdesc = tc_desc(wg.place(image, element_bytes(rng, b.T, bt), B_BASE, *blay, eb), blay[1])
    idv = idesc(at, bt, dt, neg_a, neg_b, trans_a, int(blay[0]))
    scale = TAIL.get(ent, (False, 0))[1]
    # D = A·B + D·2^-scale-input-d; the scaled C stays a multiple of 2^-7, exact.
    d = (-a if neg_a else a) @ (-b if neg_b else b) + (c * 2.0 ** -scale if enable else 0)
    mask = MASK_OF.get(name)
    if mask is not None:
        for r in range(M):
            if (mask[r // 32] >> (r % 32)) & 1:
                d[r] = c[r]
    if dt == "f16":
        # Every product is a multiple of 1/16 and the magnitudes sum to at most 2^11 / 16, so
        # every partial sum, in any order, is exact in f16.
        assert (np.abs(a) @ np.abs(b) + np.abs(c)).max() <= 2 ** 11 / 16
        assert ((a * 4) == np.round(a * 4)).all() and ((b * 4) == np.round(b * 4)).all()
    cin = np.array([[word(v, dt) for v in row] for row in c], dtype=np.uint32)
    exp = np.array([[word(v, dt) for v in row] for row in d], dtype=np.uint32)
    gc.save_npy(HERE, f"{name}_img", image.view(np.uint32))
    gc.save_npy(HERE, f"{name}_cin", cin.reshape(-1))
    gc.save_npy(HERE, f"{name}_expected", exp.reshape(-1))
    extra = ""
    if mask is not None:
        areg = np.array(mask, dtype=np.uint32)
    if alay == "tmem" or mask is not None:
        gc.save_npy(HERE, f"{name}_areg", areg.reshape(-1))
        extra = '\n[buffers.areg]\ntype = "u32"\ninit = { file = "%s_areg.npy" }\n' % name
    areg_arg = '{ buffer = "areg" }' if extra else "{ u64 = 0 }"

    def describe(lay):
        if lay == "tmem":
            return "tensor memory"
        mn_major, x, lbo, sbo = lay
        sw = "no swizzle" if x == 1 else f"{16 * x}-byte swizzle"
        return f"{'MN' if mn_major else 'K'}-major, {sw}, LBO {lbo}, SBO {sbo}"
    more = ""
    if scale:
        more += f"\n# scale-input-d {scale}: D = A·B + D·2^-{scale}."
    if mask is not None:
        more += f"\n# disable-output-lane {{{', '.join(hex(w) for w in mask)}}}: those lanes keep C."
    toml = f"""# tcgen05.mma.cta_group::1.kind::{KINDS[ent]}: M {M}, N {N}, K {k}, .{dt} += .{at} x .{bt}
# A: {describe(alay)}; B: {describe(blay)}; enable-input-d {enable}, negate A {neg_a}, negate B {neg_b}.{more}
# Written by gen.py (do not edit: change gen.py and run it); expected: numpy's A·B + C, exact.
ptx = "tcgen05.ptx"
kernel = "{ent}"
grid = [1]
block = [128]
shared_bytes = {SHARED}
args = [{{ buffer = "img" }}, {{ buffer = "out" }}, {{ buffer = "cin" }}, {{ u64 = "{adesc:#x}" }},
        {{ u64 = "{bdesc:#x}" }}, {{ u32 = {idv} }}, {{ u32 = {enable} }}, {areg_arg}]

{gc.buffer_from_file("img", f"{name}_img.npy")}
{gc.buffer_from_file("cin", f"{name}_cin.npy")}{extra}
[buffers.out]
type = "u32"
len = {M * N}

{gc.expect_exact("out", f"{name}_expected.npy")}"""
    gc.write_text(HERE, f"{name}.toml", toml)
    print(name, hex(adesc), hex(bdesc), hex(idv))


def main():
    write_ptx()
    rng = np.random.default_rng(100)
    for case in CASES:
        write_case(rng, case, False)
    narrow = np.random.default_rng(200)
    for case in CASES_NARROW:
        write_case(narrow, case, True)
    tmem = np.random.default_rng(300)
    for case in CASES_TMEM:
        write_case(tmem, case, True)
    # The round trip: thread t stores registers (x, y) unpacked at columns 4..7 of its lane
    # and reads back (x & 0xffff, x >> 16, y & 0xffff, y >> 16) and, packed, (x, y).
    inp = rng.integers(0, 1 << 32, (128, 2), dtype=np.uint64).astype(np.uint32)
    exp = np.zeros((128, 6), dtype=np.uint32)
    for t in range(128):
        x, y = int(inp[t, 0]), int(inp[t, 1])
        exp[t] = [x & 0xffff, x >> 16, y & 0xffff, y >> 16, x, y]
    gc.save_npy(HERE, "roundtrip_in", inp.reshape(-1))
    gc.save_npy(HERE, "roundtrip_expected", exp.reshape(-1))
    with open(os.path.join(HERE, "roundtrip.toml"), "w") as f:
        f.write("""# tcgen05.st .32x32b.x2.unpack::16b then tcgen05.ld .32x32b.x4 and .x2.pack::16b (PTX ISA
# §9.7.16.8.3-4): each 32-bit register is two 16-bit halves in two adjacent columns.
# Written by gen.py (do not edit: change gen.py and run it).
ptx = "tcgen05.ptx"
kernel = "tc_roundtrip"
grid = [1]
block = [128]
shared_bytes = 16
args = [{ buffer = "inp" }, { buffer = "out" }]

[buffers.inp]
type = "u32"
init = { file = "roundtrip_in.npy" }

[buffers.out]
type = "u32"
len = 768

[expect.out]
file = "roundtrip_expected.npy"
tolerance = "exact"
""")


if __name__ == "__main__":
    main()
