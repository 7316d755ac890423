#!/usr/bin/env python3
"""Host reference for the W-only im2col tensor loads (.im2col::w, .im2col::w::128): writes
im2col_w.ptx and the case manifests im2col_w_*.toml.

Semantics from the PTX ISA, section 5.5.5 "im2col::w and im2col::w::128 modes" (5.5.5.1
Bounding Box, 5.5.5.2 Traversal Stride, 5.5.5.3 wHalo, 5.5.5.4 wOffset), the wHalo / wOffset
ranges of cp.async.bulk.tensor, and the CUDA driver API's cuTensorMapEncodeIm2colWide:
a rank-r tensor is N (D) (H) W C, C innermost. The bounding box is one position in H and D (the
instruction's coordinates) and [lowerW, dim[1] - 1 + upperW] in W; wOffset is added to both W
corners and to the instruction's W. The main pixels (pixelsPerColumn, or always 128 with
::128) start at that W (which may lie left of the box) and step W by the traversal stride,
past the box's upper corner back to its lower corner with N + 1. wHalo halo pixels follow the
last main pixel of the column (::w) or of every 32 (::w::128), further along W by the stride,
and land right after it in shared memory. A pixel's channels c0 .. c0 + channels land densely
(then the map's swizzle); elements outside the tensor read as the fill (zero or NaN).
The halo's exact positions are shown in the ISA's figures only: this generator follows
ptxjit's reading of them (docs/isa-notes.md), computed independently here.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import gen_common as gc  # noqa: E402
from gen_common import ints, swizzle  # noqa: E402

FILL = 0xCDCDCDCD
SMEM_BYTES = 4096
SMEM_WORDS = SMEM_BYTES // 4


def wide_pixels(dims, coords, lower_w, upper_w, stride, pixels, w128, halo, w_off):
    """The [c, w, (h), (d), n] coordinates of each shared-memory pixel, in order."""
    lo = lower_w + w_off
    hi = dims[1] - 1 + upper_w + w_off
    group = 32 if w128 else pixels
    main = []
    p = list(coords)
    p[1] += w_off
    for _ in range(pixels):
        main.append(list(p))
        p[1] += stride
        if p[1] > hi:
            p[1] = lo
            p[-1] += 1
    out = []
    for g in range(0, pixels, group):
        chunk = main[g:g + group]
        out.extend(chunk)
        last = chunk[-1]
        for h in range(1, halo + 1):
            e = list(last)
            e[1] += h * stride
            out.append(e)
    return out


def gather(x, dims, pix, channels, fill):
    out = np.full((len(pix), channels), fill, dtype=np.uint64)
    for i, base in enumerate(pix):
        for ch in range(channels):
            idx = [base[0] + ch] + base[1:]
            if all(0 <= idx[k] < dims[k] for k in range(len(dims))):
                out[i, ch] = x[tuple(reversed(idx))]
    return out


def smem_words(elems, esize, mode):
    raw = bytearray(np.full(SMEM_WORDS, FILL, dtype=np.uint32).tobytes())
    for i, v in enumerate(elems.reshape(-1)):
        a = swizzle(i * esize, mode)
        raw[a:a + esize] = int(v).to_bytes(esize, "little")
    return np.frombuffer(bytes(raw), dtype=np.uint32)


def kernel(name, rank, mode, prefetch):
    """One thread fills the shared buffer with 0xcdcdcdcd, loads through the map at the
    coordinates and {wHalo, wOffset} given as parameters (expect-tx of `bytes`), waits on the
    mbarrier, and dumps the buffer."""
    cparams = ", ".join(f".param .s32 c{k}" for k in range(rank))
    cregs = ", ".join(f"%r{10 + k}" for k in range(rank))
    lds = "\n".join(f"\tld.param.s32 %r{10 + k}, [c{k}];" for k in range(rank))
    pf = (f"\tcp.async.bulk.prefetch.tensor.{rank}d.L2.global.{mode} [%rd1, {{{cregs}}}], {{%rs1, %rs2}};\n"
          if prefetch else "")
    return f""".entry {name}(.param .align 64 .b8 tm[128], {cparams}, .param .u16 halo, .param .u16 woff, .param .u32 bytes, .param .u64 out_p)
{{
	.reg .b32 %r<24>;
	.reg .b64 %rd<8>;
	.reg .b16 %rs<4>;
	.reg .pred %p<3>;
	.shared .align 1024 .b8 data[{SMEM_BYTES}];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, data;
	mov.u32 %r2, 0;
	mov.u32 %r3, -842150451;
FILL:
	add.u32 %r4, %r1, %r2;
	st.shared.u32 [%r4], %r3;
	add.u32 %r2, %r2, 4;
	setp.lt.u32 %p1, %r2, {SMEM_BYTES};
	@%p1 bra FILL;
{lds}
	ld.param.u16 %rs1, [halo];
	ld.param.u16 %rs2, [woff];
	ld.param.u32 %r5, [bytes];
	mov.b64 %rd1, tm;
	cvta.param.u64 %rd1, %rd1;
	mov.u32 %r6, bar;
	mbarrier.init.shared::cta.b64 [%r6], 1;
	mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r6], %r5;
{pf}	cp.async.bulk.tensor.{rank}d.shared::cta.global.{mode}.mbarrier::complete_tx::bytes [%r1], [%rd1, {{{cregs}}}], [%r6], {{%rs1, %rs2}};
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;
	@!%p2 bra WAIT;
	ld.param.u64 %rd3, [out_p];
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r2, 0;
DUMP:
	add.u32 %r4, %r1, %r2;
	ld.shared.u32 %r7, [%r4];
	cvt.u64.u32 %rd4, %r2;
	add.s64 %rd5, %rd3, %rd4;
	st.global.u32 [%rd5], %r7;
	add.u32 %r2, %r2, 4;
	setp.lt.u32 %p1, %r2, {SMEM_BYTES};
	@%p1 bra DUMP;
	ret;
}}
"""


KERNELS = [("w3d", 3, "im2col::w", False), ("w4d", 4, "im2col::w", True),
           ("w5d", 5, "im2col::w", False), ("w128_4d", 4, "im2col::w::128", True)]
ptx = """// W-only im2col tensor loads (PTX ISA section 9.7.9.25.5.1 cp.async.bulk.tensor .im2col::w and
// .im2col::w::128, section 5.5.5), written by gen_expected.py: see there for what each does.
.version 8.6
.target sm_100a
.address_size 64

""" + "\n".join(kernel(*k) for k in KERNELS)
gc.write_text(HERE, "im2col_w.ptx", ptx)

rng = np.random.default_rng(2027)
CASES = [
    dict(name="im2col_w_3d", kernel="w3d", type="f32", esize=4, dims=[4, 20, 3], lower=-2, upper=-4,
         es=[1, 2, 1], channels=4, pixels=14, coords=[0, -3, 0], halo=3, woff=1, swizzle="64B", oob="nan",
         what="a 3d (N W C) f32 map with a NaN fill, W stride 2, corners (-2 | -4), the first W left of the box, wHalo 3, wOffset 1, pixels across N, the halo in the tensor"),
    dict(name="im2col_w_4d", kernel="w4d", type="u32", esize=4, dims=[16, 9, 6, 2], lower=-1, upper=-1,
         es=[1, 1, 1, 1], channels=16, pixels=20, coords=[0, 5, 3, 0], halo=2, woff=0, swizzle="128B", oob="zero",
         what="a 4d (N H W C) u32 map with the 128B swizzle, corners (-1 | -1), H fixed at 3, wHalo 2, pixels wrapping W into the next images (and past the last); the prefetch too"),
    dict(name="im2col_w_5d", kernel="w5d", type="u16", esize=2, dims=[8, 10, 3, 3, 2], lower=0, upper=-2,
         es=[1, 3, 1, 1, 1], channels=8, pixels=5, coords=[0, 1, 2, 1, 0], halo=4, woff=2, swizzle="64B", oob="zero",
         what="a 5d (N D H W C) u16 map, W stride 3, corners (0 | -2), wOffset 2, wHalo 4 (the halo runs past W's end)"),
    dict(name="im2col_w128_4d", kernel="w128_4d", type="u16", esize=2, dims=[8, 40, 3, 2], lower=-1, upper=0,
         es=[1, 1, 1, 1], channels=8, pixels=None, coords=[0, -1, 1, 0], halo=3, woff=0, swizzle="128B", oob="zero",
         what="a 4d (N H W C) u16 map in W128 mode: 128 pixels, 3 halo pixels after each 32, across three images (the third missing); the prefetch too"),
]

for c in CASES:
    dims = c["dims"]
    size = int(np.prod(dims))
    w128 = c["pixels"] is None
    pixels = 128 if w128 else c["pixels"]
    if c["type"] == "f32":
        vals = rng.integers(-1000, 1000, size=size).astype(np.float32)
        bits = vals.view(np.uint32).astype(np.uint64)
        init = "[" + ", ".join(repr(float(v)) for v in vals) + "]"
        fill = 0x7FFFFFFF if c["oob"] == "nan" else 0
    else:
        bits = rng.integers(1, 1 << (8 * c["esize"]), size=size, dtype=np.uint64)
        init = ints(bits)
        fill = 0
    x = bits.reshape(list(reversed(dims)))
    pix = wide_pixels(dims, c["coords"], c["lower"], c["upper"], c["es"][1], pixels, w128, c["halo"], c["woff"])
    elems = gather(x, dims, pix, c["channels"], fill)
    words = smem_words(elems, c["esize"], c["swizzle"])
    nbytes = len(pix) * c["channels"] * c["esize"]
    assert nbytes <= SMEM_BYTES
    args = ", ".join(f"{{ s32 = {v} }}" for v in c["coords"])
    args = f'{{ tensor_map = "t" }}, {args}, {{ u16 = {c["halo"]} }}, {{ u16 = {c["woff"]} }}, {{ u32 = {nbytes} }}, {{ buffer = "raw" }}'
    mode = "w128" if w128 else "w"
    px = "" if w128 else f", pixels = {pixels}"
    ic = f'{{ wide = "{mode}", lower = [{c["lower"]}], upper = [{c["upper"]}], channels = {c["channels"]}{px} }}'
    gc.write_text(HERE, c["name"] + ".toml", f"""# cp.async.bulk.tensor.{len(dims)}d .im2col::w{"::128" if w128 else ""}: {c['what']};
# {len(pix)} pixels (halo included) x {c['channels']} channels dumped from shared memory (0xcdcdcdcd where
# nothing landed). Expected values: gen_expected.py (numpy, from the PTX ISA's im2col::w modes).
ptx = "im2col_w.ptx"
kernel = "{c['kernel']}"
grid = [1]
block = [1]
args = [{args}]

[buffers.x]
type = "{c['type']}"
init = {{ values = {init} }}

[buffers.raw]
type = "u32"
len = {SMEM_WORDS}

[tensor_maps.t]
buffer = "x"
type = "{c['type']}"
dims = {ints(dims)}
element_strides = {ints(c['es'])}
swizzle = "{c['swizzle']}"
oob_fill = "{c['oob']}"
im2col = {ic}

[expect.raw]
values = {ints(words)}
""")

# Faults (PTX ISA: wHalo of .im2col::w::128 is in [0, 32); a map whose mode is not the
# instruction's; a first W right of the bounding box, section 5.5.5.1).
FAULTS = [
    ("im2col_w128_halo", "w128_4d", "w128", "[0, 0, 1, 0]", 32, 0,
     "wHalo 32 beyond the .im2col::w::128 range [0, 32)", "wHalo 32 is outside 0..32"),
    ("im2col_w_mode_mismatch", "w4d", "w128", "[0, 0, 1, 0]", 0, 0,
     "an .im2col::w copy through a W128-mode map", "an .im2col::w copy with a W128-mode"),
    ("im2col_w_right_of_box", "w4d", "w", "[0, 8, 1, 0]", 0, 0,
     "the first W (8) right of the bounding box [-1, 7]", "is right of the bounding box [-1, 7]"),
]
for name, kern, mode, coords, halo, woff, what, msg in FAULTS:
    args = ", ".join(f"{{ s32 = {v} }}" for v in eval(coords))
    px = "" if mode == "w128" else ", pixels = 8"
    gc.write_text(HERE, name + ".toml", f"""# A W-only im2col load with {what}: a fault naming the copy's
# line and the reason (written by gen_expected.py).
ptx = "im2col_w.ptx"
kernel = "{kern}"
grid = [1]
block = [1]
args = [{{ tensor_map = "t" }}, {args}, {{ u16 = {halo} }}, {{ u16 = {woff} }}, {{ u32 = 256 }}, {{ buffer = "raw" }}]

[buffers.x]
type = "u32"
len = 1728

[buffers.raw]
type = "u32"
len = {SMEM_WORDS}

[tensor_maps.t]
buffer = "x"
type = "u32"
dims = [16, 9, 6, 2]
swizzle = "64B"
im2col = {{ wide = "{mode}", lower = [-1], upper = [-1], channels = 16{px} }}

[expect_error]
kind = "fault"
contains = "{msg}"
""")
