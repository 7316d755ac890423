#!/usr/bin/env python3
"""Writes tensor_modes.isa (cp.async.bulk.tensor in the .im2col, .im2col::w, .im2col::w::128,
.tile::gather4 and .tile::scatter4 modes, cp.reduce.async.bulk.tensor .tile::scatter4,
cp.async.bulk.prefetch.tensor), tensormap.isa (tensormap.replace, tensormap.cp_fenceproxy,
fence.proxy.tensormap) and multimem.isa (multimem.ld_reduce/st/red, clusterlaunchcontrol).

Every expected value is computed here from the PTX ISA text, independently of ptxjit:
- tensors (§5.5): dimension 0 innermost, packed row-major; elements outside the tensor read
  as zero (the zero fill) and are not written by stores; the box lands densely in shared
  memory (dimension 0 innermost), each 16-byte chunk moved by the swizzle of §5.5.7 (chunk
  bits 4.. XORed with the 128-byte row bits 7.., 1/2/3 bits for the 32/64/128B swizzles);
- im2col mode (§5.5.4): the tensor is N·(D)·(H)·W·C; the instruction's coordinates give the
  first channel, the first pixel's filter base (W, H, D) and N; the bounding box of spatial
  dimension k runs from the map's lower corner to dims[k] - 1 + its upper corner; pixels
  follow W, then H, then D within the box, then the next N (pixelsPerColumn of them); each
  pixel reads channelsPerPixel channels at its filter base plus the im2col offsets;
- im2col::w and im2col::w::128 (§5.5.5): the box is one H and D position (the instruction's),
  W from the map's W corners; pixels along W only (pixelsPerColumn of them, or 128), the next
  N past the upper W corner; wOffset added to W and both W corners (§5.5.5.4); wHalo halo
  pixels (their positions are given by figures only; ptxjit's reading, docs/isa-notes.md)
  continue along W after the column's last main pixel (::w) or each 32 (::w::128), same N,
  never wrapped, landing right after it;
- .im2col_no_offs stores and reductions: the elements an .im2col load with zero offsets reads,
  from the same shared places, in-bound ones only (ptxjit's reading, docs/isa-notes.md);
- .cta_group::1/::2 loads: ::1's complete-tx on the destination CTA's mbarrier, ::2's on the
  one the operand names (the peer CTA's);
- tx-count underflow (§9.7.13.15.4): bytes completed beyond the phase's expect-tx with every
  arrival in: a fault, not a hang;
- .tile::gather4/.tile::scatter4 (§9.7.9.25.5.1): a 2D tensor, coordinates {col, r0..r3}:
  four rows of boxDim[0] elements from column col, one after another in shared memory;
- .multicast::cluster (§9.7.9.25.5.1): the same copy into the same shared offset of each CTA
  ctaMask names, complete-tx on the mbarrier at the same offset in each;
- .b4x16 (§5.5.1.1.1): sixteen packed 4-bit elements copied as is (element i of a row at bit
  4i, lower elements in lower bits, as the tcgen05 readers of these layouts take them);
- cp.async.bulk.prefetch.tensor (§9.7.9.25.5.3): brings data to L2 only; no byte changes;
- tensormap.replace (§9.7.9.26): rewrites one field of the map; each row checks the field
  through a copy that uses the rewritten map (the map's bytes are opaque): global_address
  (another tensor), rank (new_val = rank - 1, as compilers' device-side descriptors write it:
  a 2D map made 1D by 0), box_dim, global_dim, global_stride (the byte stride of dimension
  ord + 1), element_stride (a box of ceil(box / stride) elements, each stride apart; dimension
  0's ignored without interleaving, cuTensorMapEncodeTiled), elemtype (Table 33: .u16 = 1),
  swizzle_mode (Table 33: 32B = 1); fence.proxy.tensormap::generic (release, then acquire of
  the map's 128 bytes) orders the generic-proxy write before the tensormap-proxy read;
  tensormap.cp_fenceproxy copies the 128 bytes from shared to global memory, then fences;
- multimem (§9.7.9.14): with one device every multimem address is bound to one copy:
  ld_reduce reads it (a reduction over one value is that value), st stores it, red is an
  atomic reduction into it; st.async and red.async (PTX ISA 9.3) the same;
- clusterlaunchcontrol (§9.7.13.17): try_cancel may fail; with every CTA of the grid running
  (a grid of one CTA, or one cluster) there is no CTA left whose launch it could cancel, so the
  response says "not canceled" (is_canceled false); its complete-tx is 16 bytes. In a grid
  with CTAs left a request may succeed: the canceled CTA never runs, so a kernel that does the
  canceled CTA's work itself does every CTA's work exactly once, however many succeed;

Run from this directory: python3 gen_tensor.py. Seeded, so the output is stable.
"""
import random
import struct

R = random.Random(39)
# The rows added later draw from their own generator, leaving the earlier rows' values as
# they were.
R_LATER = random.Random(44)


def hx(v, bits=32):
    return "0x%0*x" % (bits // 4, v & ((1 << bits) - 1))


def write(name, head, lines):
    with open(name, "w") as f:
        for h in head:
            f.write("# " + h + "\n" if h else "#\n")
        f.write("# Written by gen_tensor.py; do not edit by hand.\n\n")
        for l in lines:
            f.write(l + "\n")


def words(b):
    """Little-endian 32-bit words of a byte string (a multiple of 4 bytes)."""
    assert len(b) % 4 == 0
    return [struct.unpack_from("<I", b, i)[0] for i in range(0, len(b), 4)]


def wline(b):
    return " ".join(hx(v) for v in words(b))


def swizzle(off, mode):
    """§5.5.7: the 16-byte chunk index XORed with the 128-byte row index (1, 2, 3 bits)."""
    mask = (1 << mode) - 1
    return off ^ (((off >> 7) & mask) << 4)


SW = {"none": 0, "32": 1, "64": 2, "128": 3}


def flat(dims, pos):
    """The flat element index of a position, or None outside the tensor."""
    idx, stride = 0, 1
    for d, p in zip(dims, pos):
        if not 0 <= p < d:
            return None
        idx += p * stride
        stride *= d
    return idx


def place(shared, k, esize, mode, value_bytes):
    """Element k of the dense box, at its swizzled shared-memory place."""
    off = swizzle(k * esize, mode)
    shared[off:off + esize] = value_bytes


def load_header(op, box_bytes, ins, shared, glob, clause, extra=""):
    return (">>> mbarrier.init.shared::cta.b64 [m], 1; mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], %d;"
            " %s; ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT"
            " :: p:pred <- s:sptr tm:tmap %s m:sptr%s ; shared %d ; global %d ; %s ; regs t:b64"
            % (box_bytes, op, ins, extra, shared, glob, clause))


# ------------------------------------------------------------------------- im2col (§5.5.4)

def im2col_pixels(dims, lower, upper, coords, pixels, estrides=None):
    """The (n, spatial...) filter bases of the pixels of an im2col load: W, H, D within the
    bounding box, then N."""
    rank = len(dims)
    s = rank - 2
    estrides = estrides or [1] * rank
    lo = [lower[k] for k in range(s)]
    hi = [dims[k + 1] - 1 + upper[k] for k in range(s)]
    pos = list(coords[1:rank - 1])
    n = coords[rank - 1]
    out = []
    for _ in range(pixels):
        out.append((n, list(pos)))
        k = 0
        while True:
            if k == s:
                n += 1
                break
            pos[k] += estrides[k + 1]
            if pos[k] <= hi[k]:
                break
            pos[k] = lo[k]
            k += 1
    return out


def gen_im2col(out):
    groups = [  # (dims C,W,(H),(D),N, lower, upper, channels, pixels, elem bytes, swizzle)
        ((8, 6, 3), (-1,), (-1,), 4, 8, 4, "none"),
        ((8, 5, 4, 2), (-1, 0), (-1, -1), 8, 12, 2, "32"),
        ((4, 3, 3, 2, 2), (0, -1, 0), (-1, 0, 0), 4, 10, 4, "none"),
    ]
    ename = {2: "u16", 4: "u32"}
    for dims, lower, upper, ch, pixels, es, sw in groups:
        rank = len(dims)
        s = rank - 2
        n_el = 1
        for d in dims:
            n_el *= d
        gbytes = (n_el * es + 3) // 4 * 4
        box_bytes = pixels * ch * es
        shared = box_bytes + 128
        clause = "tensormap dims=%s mode=im2col lower=%s upper=%s channels=%d pixels=%d swizzle=%s elem=%s" % (
            ",".join(map(str, dims)), ",".join(map(str, lower)), ",".join(map(str, upper)), ch, pixels, sw,
            ename[es])
        coords = ", ".join("c%d" % d for d in range(rank))
        offs = ", ".join("o%d" % k for k in range(s))
        op = ("cp.async.bulk.tensor.%dd.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
              " [s], [tm, {%s}], [m], {%s}" % (rank, coords, offs))
        out.append("# cp.async.bulk.tensor.%dd .im2col load: %d pixels of %d %s channels of a %s tensor (C innermost),"
                   " corners %s / %s, swizzle %s: pixel p's channels at s + p*%d bytes, out-of-bound elements 0;"
                   " mbarrier words '*'" % (rank, pixels, ch, ename[es], "x".join(map(str, dims)), lower, upper,
                                            sw, ch * es))
        out.append(load_header(op, box_bytes, " ".join("c%d:s32" % d for d in range(rank)), shared, gbytes,
                               clause, "".join(" o%d:u16" % k for k in range(s))))
        for case in range(4):
            g = bytes(R.getrandbits(8) for _ in range(gbytes))
            sm = bytearray(R.getrandbits(8) for _ in range(shared))
            lo = [lower[k] for k in range(s)]
            hi = [dims[k + 1] - 1 + upper[k] for k in range(s)]
            if case == 0:
                c = [0] + lo + [0]
                o = [0] * s
            elif case == 1:  # the last filter bases: the walk wraps into the next N
                c = [dims[0] - ch] + hi + [0]
                o = [1] * s
            else:
                c = [R.randrange(0, dims[0] - ch + 2)] + [R.randint(lo[k], hi[k]) for k in range(s)] + \
                    [R.randrange(dims[-1])]
                o = [R.randrange(3) for _ in range(s)]
            mode = SW[sw]
            after = bytearray(sm)
            k = 0
            for n, base in im2col_pixels(dims, lower, upper, c, pixels):
                for j in range(ch):
                    pos = [c[0] + j] + [base[q] + o[q] for q in range(s)] + [n]
                    f = flat(dims, pos)
                    v = bytes(es) if f is None else g[f * es:(f + 1) * es]
                    place(after, k, es, mode, v)
                    k += 1
            out.append("case coordinates %s, offsets %s" % (",".join(map(str, c)), ",".join(map(str, o))))
            out.append("init global 0x0: " + wline(g))
            out.append("init shared 0x0: " + wline(sm))
            out.append("0: 0x0 0x0 %s %s %s -> 1" % (" ".join(map(str, c)), hex(box_bytes),
                                                      " ".join(map(str, o))))
            out.append("expect shared 0x0: " + wline(after[:box_bytes]))
            out.append("expect shared %s: * *" % hex(box_bytes))


def gen_im2col_packed(out):
    """A .b4x16 im2col load (§5.5.1.1.1: packed 4-bit elements copied as is): pixel p's 32
    channels (16 bytes) at s + 16p, element i of a row at bit 4i (lower elements in lower bits)."""
    dims, lower, upper, ch, pixels = (64, 5, 2), (-1,), (0,), 32, 7
    gbytes = 64 * 5 * 2 // 2
    box_bytes = pixels * ch // 2
    shared = box_bytes + 128
    clause = "tensormap dims=64,5,2 mode=im2col lower=-1 upper=0 channels=32 pixels=7 swizzle=none elem=b4x16"
    op = ("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
          " [s], [tm, {c0, c1, c2}], [m], {o0}")
    out.append("# cp.async.bulk.tensor.3d .im2col load of packed .b4x16 elements: 7 pixels of 32 four-bit"
               " channels (16 bytes each) of a 64x5x2 tensor, corners -1 / 0; mbarrier words '*'")
    out.append(load_header(op, box_bytes, "c0:s32 c1:s32 c2:s32", shared, gbytes, clause, " o0:u16"))
    for c, o in (([0, -1, 0], 0), ([32, 3, 0], 1), ([0, 2, 1], 2)):
        g = bytes(R.getrandbits(8) for _ in range(gbytes))
        sm = bytearray(shared)
        gv = int.from_bytes(g, "little")
        out_bits = 0
        k = 0
        for n, base in im2col_pixels(dims, lower, upper, c, pixels):
            for j in range(ch):
                f = flat(dims, [c[0] + j, base[0] + o, n])
                v = 0 if f is None else (gv >> (4 * f)) & 0xF
                out_bits |= v << (4 * k)
                k += 1
        sm[:box_bytes] = out_bits.to_bytes(box_bytes, "little")
        out.append("case coordinates %s, offset %d" % (",".join(map(str, c)), o))
        out.append("init global 0x0: " + wline(g))
        out.append("init shared 0x0: " + wline(bytes(R.getrandbits(8) for _ in range(shared))))
        out.append("0: 0x0 0x0 %s %s %d -> 1" % (" ".join(map(str, c)), hex(box_bytes), o))
        out.append("expect shared 0x0: " + wline(bytes(sm[:box_bytes])))
        out.append("expect shared %s: * *" % hex(box_bytes))


def gen_im2col_w(out):
    """.im2col::w (pixelsPerColumn pixels) and .im2col::w::128 (128) with wHalo 0."""
    groups = [  # (dims, lower W, upper W, channels, pixels, mode, swizzle, wOffsets)
        ((16, 7, 3), -1, -1, 16, 10, "w", "64", (0, 0, 1)),
        ((16, 6, 2, 2), 0, -2, 16, 6, "w", "64", (0, 1, 0)),
        ((16, 5, 2, 2, 2), -1, 0, 16, 8, "w", "64", (0, 0, 1)),
        ((16, 40, 4), -2, -1, 16, 128, "w128", "64", (0, 1, 0)),
    ]
    for dims, lw, uw, ch, pixels, wm, sw, woffs in groups:
        rank = len(dims)
        es = 4
        n_el = 1
        for d in dims:
            n_el *= d
        gbytes = n_el * es
        box_bytes = pixels * ch * es
        shared = box_bytes + 128
        clause = "tensormap dims=%s mode=%s lower=%d upper=%d channels=%d %sswizzle=%s elem=u32" % (
            ",".join(map(str, dims)), wm, lw, uw, ch, "" if wm == "w128" else "pixels=%d " % pixels, sw)
        coords = ", ".join("c%d" % d for d in range(rank))
        name = "im2col::w" if wm == "w" else "im2col::w::128"
        op = ("cp.async.bulk.tensor.%dd.shared::cta.global.%s.mbarrier::complete_tx::bytes"
              " [s], [tm, {%s}], [m], {hl, wo}" % (rank, name, coords))
        out.append("# cp.async.bulk.tensor.%dd .%s load (wHalo 0): %d pixels along W of %d u32 channels of a %s"
                   " tensor, W corners %d / %d (+ wOffset), next N past the upper one, swizzle %s;"
                   " mbarrier words '*'" % (rank, name, pixels, ch, "x".join(map(str, dims)), lw, uw, sw))
        out.append(load_header(op, box_bytes, " ".join("c%d:s32" % d for d in range(rank)), shared, gbytes,
                               clause, " hl:u16 wo:u16"))
        for case, wo in enumerate(woffs):
            g = bytes(R.getrandbits(8) for _ in range(gbytes))
            sm = bytearray(R.getrandbits(8) for _ in range(shared))
            lo, hi = lw + wo, dims[1] - 1 + uw + wo
            # W + wOffset lies in the shifted box (case 2: one left of it, which §5.5.5.1 allows).
            c = [0] + [R.randint(lw - 1 if case == 2 else lw, hi - wo)] + \
                [R.randrange(d) for d in dims[2:rank - 1]] + [R.randrange(dims[-1])]
            # The instruction's W is shifted by wOffset too (§5.5.5.4).
            w, n = c[1] + wo, c[-1]
            after = bytearray(sm)
            k = 0
            for _ in range(pixels):
                for j in range(ch):
                    pos = [c[0] + j, w] + c[2:rank - 1] + [n]
                    f = flat(dims, pos)
                    place(after, k, es, SW[sw], bytes(es) if f is None else g[f * es:(f + 1) * es])
                    k += 1
                w += 1
                if w > hi:
                    w, n = lo, n + 1
            out.append("case coordinates %s, wOffset %d" % (",".join(map(str, c)), wo))
            out.append("init global 0x0: " + wline(g))
            out.append("init shared 0x0: " + wline(sm))
            out.append("0: 0x0 0x0 %s %s 0 %d -> 1" % (" ".join(map(str, c)), hex(box_bytes), wo))
            out.append("expect shared 0x0: " + wline(after[:box_bytes]))
            out.append("expect shared %s: * *" % hex(box_bytes))


# ------------------------------------------------------------- gather4 / scatter4 (§9.7.9.25.5.1)

def gen_four_rows(out):
    groups = [  # (dims, box width, elem bytes, swizzle, packed 4-bit)
        ((24, 10), 8, 4, "none", False),
        ((40, 9), 32, 2, "64", False),
        ((20, 7), 16, 4, "64", False),
        ((40, 5), 32, 4, "128", False),
        ((96, 6), 32, 0, "none", True),  # b4x16: 32 four-bit elements = 16 bytes a row
    ]
    for dims, bw, es, sw, packed in groups:
        ebits = 4 if packed else 8 * es
        elem = "b4x16" if packed else {2: "u16", 4: "u32"}[es]
        gbytes = dims[0] * dims[1] * ebits // 8
        row = bw * ebits // 8
        box_bytes = 4 * row
        shared = box_bytes + 128
        clause = "tensormap dims=%d,%d box=%d,1 swizzle=%s elem=%s" % (dims[0], dims[1], bw, sw, elem)
        cin = "c0:s32 r0:s32 r1:s32 r2:s32 r3:s32"

        def get(g, r, col):
            """Element (r, col) as (bit offset, bits) into the image, or None outside."""
            if not (0 <= r < dims[1] and 0 <= col < dims[0]):
                return None
            return (r * dims[0] + col) * ebits

        def rd(buf, bit, n):
            v = int.from_bytes(buf, "little")
            return (v >> bit) & ((1 << n) - 1)

        def wr(buf, bit, n, val):
            v = int.from_bytes(buf, "little")
            v = (v & ~(((1 << n) - 1) << bit)) | (val << bit)
            buf[:] = v.to_bytes(len(buf), "little")

        def sh_bit(k, e):
            """Shared bit offset of element e of row k (swizzled by 16-byte chunk)."""
            bit = (k * bw + e) * ebits
            return swizzle(bit // 8, SW[sw]) * 8 + bit % 8

        op = ("cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"
              " [s], [tm, {c0, r0, r1, r2, r3}], [m]")
        out.append("# cp.async.bulk.tensor.2d .tile::gather4 load of four %d-element rows of a %dx%d %s tensor,"
                   " swizzle %s: row k at s + %d*k bytes, out-of-bound elements 0; mbarrier words '*'"
                   % (bw, dims[0], dims[1], elem, sw, row))
        out.append(load_header(op, box_bytes, cin, shared, gbytes, clause))
        for case in range(4):
            g = bytearray(R.getrandbits(8) for _ in range(gbytes))
            sm = bytearray(R.getrandbits(8) for _ in range(shared))
            step = 16 if packed else 1
            col = [0, dims[0] - bw // 2 // step * step, -(bw // 2 // step * step),
                   R.randrange(0, dims[0] // step) * step][case]
            rows = [R.randrange(-1, dims[1] + 1) for _ in range(4)]
            after = bytearray(sm)
            for k, r in enumerate(rows):
                for e in range(bw):
                    at = get(g, r, col + e)
                    wr(after, sh_bit(k, e), ebits, 0 if at is None else rd(g, at, ebits))
            out.append("case column %d, rows %s" % (col, ",".join(map(str, rows))))
            out.append("init global 0x0: " + wline(bytes(g)))
            out.append("init shared 0x0: " + wline(bytes(sm)))
            out.append("0: 0x0 0x0 %d %s %s -> 1" % (col, " ".join(map(str, rows)), hex(box_bytes)))
            out.append("expect shared 0x0: " + wline(bytes(after[:box_bytes])))
            out.append("expect shared %s: * *" % hex(box_bytes))
        # The reductions' types are the map's: .add/.min/.max take u32, not u16 or the packed
        # sub-byte types (§9.7.9.25.5.2).
        for red in (None, "add", "min", "max") if es == 4 and not packed else (None,):
            if red is None:
                op = "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [tm, {c0, r0, r1, r2, r3}], [s]"
                what = "store"
            else:
                op = ("cp.reduce.async.bulk.tensor.2d.global.shared::cta.%s.tile::scatter4.bulk_group"
                      " [tm, {c0, r0, r1, r2, r3}], [s]" % red)
                what = ".%s reduction" % red
            out.append("# cp%s.async.bulk.tensor.2d .tile::scatter4 %s of four %d-element rows (swizzle %s):"
                       " row k from s + %d*k bytes into tensor row r_k, in-bound elements only%s"
                       % (".reduce" if red else "", what, bw, sw, row,
                          " (combined with .%s.%s; rows may repeat)" % (red, elem) if red else " (distinct rows)"))
            out.append(">>> %s; cp.async.bulk.commit_group; cp.async.bulk.wait_group 0 :: <- s:sptr tm:tmap %s"
                       " ; shared %d ; global %d ; %s" % (op, cin, box_bytes, gbytes, clause))
            for case in range(2):
                g = bytearray(R.getrandbits(8) for _ in range(gbytes))
                sm = bytearray(R.getrandbits(8) for _ in range(box_bytes))
                col = R.randrange(-1, dims[0] // 16) * 16 if packed else R.randrange(-bw // 2, dims[0])
                if red is None:
                    rows = R.sample(range(-1, dims[1] + 1), 4)
                else:
                    rows = [R.randrange(-1, dims[1] + 1) for _ in range(4)]
                after = bytearray(g)
                for k, r in enumerate(rows):
                    for e in range(bw):
                        at = get(g, r, col + e)
                        if at is None:
                            continue
                        v = rd(sm, sh_bit(k, e), ebits)
                        old = rd(after, at, ebits)
                        new = {None: v, "add": (old + v) & ((1 << ebits) - 1), "min": min(old, v),
                               "max": max(old, v)}[red]
                        wr(after, at, ebits, new)
                out.append("case column %d, rows %s" % (col, ",".join(map(str, rows))))
                out.append("init global 0x0: " + wline(bytes(g)))
                out.append("init shared 0x0: " + wline(bytes(sm)))
                out.append("0: 0x0 0x0 %d %s ->" % (col, " ".join(map(str, rows))))
                out.append("expect global 0x0: " + wline(bytes(after)))


def gen_multicast(out):
    """A .multicast::cluster tile load (§9.7.9.25.5.1): the same box into the same shared offset
    of each CTA ctaMask names, complete-tx on the mbarrier at the same offset in each; rank 0
    issues it (its map and tensor), both ranks wait."""
    dims, box = (16, 6), (8, 4)
    gbytes, box_bytes, shared = 16 * 6 * 4, 8 * 4 * 4, 256
    clause = "tensormap dims=16,6 box=8,4 swizzle=none elem=u32"
    out.append("# cp.async.bulk.tensor.2d tile load .multicast::cluster with ctaMask 0b11 in a 2-CTA cluster,"
               " issued by rank 0: both ranks' shared memory get the box, both mbarriers its bytes")
    out.append(">>> @a mbarrier.init.shared::cta.b64 [m], 1; @a mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], %d;"
               " fence.mbarrier_init.release.cluster; barrier.cluster.arrive; barrier.cluster.wait;"
               " @q0 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
               " [s], [tm, {c0, c1}], [m], k; ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0;"
               " @!p bra ISA_WAIT :: p:pred <- a:pred q0:pred s:sptr tm:tmap c0:s32 c1:s32 m:sptr k:u16"
               " ; shared %d ; global %d ; cluster 2 ; %s ; regs t:b64" % (box_bytes, shared, gbytes, clause))
    for c in ((3, 1), (12, -2)):
        g = bytes(R.getrandbits(8) for _ in range(gbytes))
        got = tile_load(g, 0, dims, 64, box, (1, 1), 4, 0, c)
        out.append("case coordinates %d,%d" % c)
        for rank in range(2):
            gi = g if rank == 0 else bytes(R.getrandbits(8) for _ in range(gbytes))
            out.append("init rank %d global 0x0: %s" % (rank, wline(gi)))
            out.append("init rank %d shared 0x0: %s" % (rank, wline(bytes(R.getrandbits(8) for _ in range(shared)))))
        for rank in range(2):
            for lane in range(32):
                out.append("%d.%d: %d %d 0x0 0x0 %d %d 0x80 0x3 -> 1" % (
                    rank, lane, int(lane == 0), int(rank == 0 and lane == 0), c[0], c[1]))
        for rank in range(2):
            out.append("expect rank %d shared 0x0: %s" % (rank, wline(got)))
            out.append("expect rank %d shared 0x80: * *" % rank)


def gen_prefetch(out):
    """cp.async.bulk.prefetch.tensor in each mode: no byte of either image changes."""
    forms = [
        ("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [tm, {c0, c1}]", "c0:s32 c1:s32",
         "tensormap dims=24,10 box=8,4 swizzle=none elem=u32", 960, "3 -2"),
        ("cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [tm, {c0, c1, c2, c3, c4}]",
         "c0:s32 c1:s32 c2:s32 c3:s32 c4:s32", "tensormap dims=24,10 box=8,1 swizzle=none elem=u32", 960,
         "4 0 9 3 3"),
        ("cp.async.bulk.prefetch.tensor.3d.L2.global.im2col [tm, {c0, c1, c2}], {o0}", "c0:s32 c1:s32 c2:s32 o0:u16",
         "tensormap dims=8,6,3 mode=im2col lower=-1 upper=-1 channels=4 pixels=8 swizzle=none elem=u32", 576,
         "0 -1 1 2"),
        ("cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w [tm, {c0, c1, c2}], {o0, o1}",
         "c0:s32 c1:s32 c2:s32 o0:u16 o1:u16",
         "tensormap dims=16,7,3 mode=w lower=-1 upper=-1 channels=16 pixels=10 swizzle=64 elem=u32", 1344,
         "0 2 1 0 1"),
        ("cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w::128 [tm, {c0, c1, c2}], {o0, o1}",
         "c0:s32 c1:s32 c2:s32 o0:u16 o1:u16",
         "tensormap dims=16,40,4 mode=w128 lower=-2 upper=-1 channels=16 swizzle=64 elem=u32", 10240,
         "0 5 2 0 0"),
    ]
    for op, ins, clause, gbytes, vals in forms:
        out.append("# %s: a hint that brings data to L2; no byte of the images changes" % op.split(" [")[0])
        out.append(">>> %s :: <- tm:tmap %s ; global %d ; %s" % (op, ins, gbytes, clause))
        out.append("case")
        out.append("init 0x0: " + " ".join(hx(R.getrandbits(32)) for _ in range(gbytes // 4)))
        out.append("0: 0x0 %s ->" % vals)


def gen_im2col_no_offs(out):
    """.im2col_no_offs stores and .add reductions (§9.7.9.25.5.1-2: the mode's operands are the
    N coordinates only; its effect is ptxjit's reading, docs/isa-notes.md): the elements an
    .im2col load with all offsets zero reads (pixels walking the bounding box, then N), taken
    from the same (swizzled) shared-memory places, written (or added) to the in-bound ones
    only."""
    R = R_LATER
    groups = [  # (dims, lower, upper, channels, pixels, swizzle)
        ((8, 6, 3), (-1,), (-1,), 4, 8, "none"),
        ((8, 5, 4, 2), (-1, 0), (-1, -1), 8, 6, "32"),
        ((4, 3, 3, 2, 2), (0, -1, 0), (-1, 0, 0), 4, 10, "none"),
    ]
    es = 4
    for dims, lower, upper, ch, pixels, sw in groups:
        rank = len(dims)
        s = rank - 2
        n_el = 1
        for d in dims:
            n_el *= d
        gbytes = n_el * es
        box_bytes = pixels * ch * es
        clause = "tensormap dims=%s mode=im2col lower=%s upper=%s channels=%d pixels=%d swizzle=%s elem=u32" % (
            ",".join(map(str, dims)), ",".join(map(str, lower)), ",".join(map(str, upper)), ch, pixels, sw)
        coords = ", ".join("c%d" % d for d in range(rank))
        cin = " ".join("c%d:s32" % d for d in range(rank))
        for red in (None, "add"):
            if red is None:
                op = ("cp.async.bulk.tensor.%dd.global.shared::cta.im2col_no_offs.bulk_group [tm, {%s}], [s]"
                      % (rank, coords))
            else:
                op = ("cp.reduce.async.bulk.tensor.%dd.global.shared::cta.add.im2col_no_offs.bulk_group"
                      " [tm, {%s}], [s]" % (rank, coords))
            out.append("")
            out.append("# %s .im2col_no_offs %s: %d pixels of %d u32 channels of a %s tensor (corners %s / %s,"
                       " swizzle %s), pixel p's channels from s + p*%d bytes, in-bound elements only"
                       % ("cp.reduce.async.bulk.tensor.%dd" % rank if red else "cp.async.bulk.tensor.%dd" % rank,
                          "store" if red is None else ".add reduction", pixels, ch, "x".join(map(str, dims)),
                          lower, upper, sw, ch * es))
            out.append(">>> %s; cp.async.bulk.commit_group; cp.async.bulk.wait_group 0 :: <- s:sptr tm:tmap %s"
                       " ; shared %d ; global %d ; %s" % (op, cin, box_bytes, gbytes, clause))
            lo = [lower[k] for k in range(s)]
            hi = [dims[k + 1] - 1 + upper[k] for k in range(s)]
            for case in range(2):
                g = bytes(R.getrandbits(8) for _ in range(gbytes))
                sm = bytes(R.getrandbits(8) for _ in range(box_bytes))
                if case == 0:  # from the lower corner: pixels left of and above the tensor
                    c = [0] + lo + [0]
                else:  # the last filter bases: the walk wraps into the next N (or past it)
                    c = [dims[0] - ch] + hi + [dims[-1] - 1]
                after = bytearray(g)
                k = 0
                for n, base in im2col_pixels(dims, lower, upper, c, pixels):
                    for j in range(ch):
                        f = flat(dims, [c[0] + j] + base + [n])
                        at = swizzle(k * es, SW[sw])
                        if f is not None:
                            v = struct.unpack_from("<I", sm, at)[0]
                            if red == "add":
                                v = (v + struct.unpack_from("<I", after, f * es)[0]) & 0xFFFFFFFF
                            struct.pack_into("<I", after, f * es, v)
                        k += 1
                out.append("case coordinates %s" % ",".join(map(str, c)))
                out.append("init global 0x0: " + wline(g))
                out.append("init shared 0x0: " + wline(sm))
                out.append("0: 0x0 0x0 %s ->" % " ".join(map(str, c)))
                out.append("expect global 0x0: " + wline(bytes(after)))


def gen_im2col_w_halo(out):
    """.im2col::w and .im2col::w::128 loads with wHalo > 0 (§5.5.5; the halo's positions are
    given by figures only: ptxjit's reading, docs/isa-notes.md): the main pixels walk W from
    the instruction's W + wOffset, past the upper corner back to the lower one with N + 1; after
    the column's last main pixel (::w), or after each 32 (::w::128), wHalo more pixels continue
    along W from it (same N, never wrapped, out of the tensor: zero), landing right after it;
    complete-tx counts every pixel."""
    R = R_LATER
    groups = [  # (dims, lower W, upper W, channels, pixels, mode, wHalo, wOffset)
        ((16, 7, 3), -1, -1, 16, 6, "w", 2, 0),
        ((16, 6, 2, 2), 0, -2, 16, 5, "w", 3, 1),
        ((16, 40, 4), -2, -1, 16, 128, "w128", 1, 0),
    ]
    es = 4
    for dims, lw, uw, ch, pixels, wm, halo, wo in groups:
        rank = len(dims)
        n_el = 1
        for d in dims:
            n_el *= d
        gbytes = n_el * es
        total = pixels + (halo if wm == "w" else halo * (pixels // 32))
        box_bytes = total * ch * es
        shared = box_bytes + 128
        clause = "tensormap dims=%s mode=%s lower=%d upper=%d channels=%d %sswizzle=64 elem=u32" % (
            ",".join(map(str, dims)), wm, lw, uw, ch, "" if wm == "w128" else "pixels=%d " % pixels)
        coords = ", ".join("c%d" % d for d in range(rank))
        name = "im2col::w" if wm == "w" else "im2col::w::128"
        op = ("cp.async.bulk.tensor.%dd.shared::cta.global.%s.mbarrier::complete_tx::bytes"
              " [s], [tm, {%s}], [m], {hl, wo}" % (rank, name, coords))
        out.append("")
        out.append("# cp.async.bulk.tensor.%dd .%s load with wHalo %d, wOffset %d: %d main pixels along W of %d u32"
                   " channels of a %s tensor (W corners %d / %d), %d halo pixel(s) after %s, swizzle 64;"
                   " complete-tx of all %d pixels; mbarrier words '*'"
                   % (rank, name, halo, wo, pixels, ch, "x".join(map(str, dims)), lw, uw, halo,
                      "the column" if wm == "w" else "each 32", total))
        out.append(load_header(op, box_bytes, " ".join("c%d:s32" % d for d in range(rank)), shared, gbytes,
                               clause, " hl:u16 wo:u16"))
        lo, hi = lw + wo, dims[1] - 1 + uw + wo
        group = pixels if wm == "w" else 32
        for case in range(2):
            g = bytes(R.getrandbits(8) for _ in range(gbytes))
            sm = bytearray(R.getrandbits(8) for _ in range(shared))
            # Case 0 starts at the lower corner; case 1 near the upper one (the walk wraps).
            w0 = lo - wo if case == 0 else hi - wo - 1
            c = [0, w0] + [R.randrange(d) for d in dims[2:rank - 1]] + [R.randrange(dims[-1] - 1)]
            w, n = c[1] + wo, c[-1]
            seq = []
            for k in range(pixels):
                seq.append((w, n))
                if (k + 1) % group == 0:
                    seq += [(w + h, n) for h in range(1, halo + 1)]
                w += 1
                if w > hi:
                    w, n = lo, n + 1
            after = bytearray(sm)
            k = 0
            for pw, pn in seq:
                for j in range(ch):
                    f = flat(dims, [c[0] + j, pw] + c[2:rank - 1] + [pn])
                    place(after, k, es, SW["64"], bytes(es) if f is None else g[f * es:(f + 1) * es])
                    k += 1
            out.append("case coordinates %s, wHalo %d, wOffset %d" % (",".join(map(str, c)), halo, wo))
            out.append("init global 0x0: " + wline(g))
            out.append("init shared 0x0: " + wline(sm))
            out.append("0: 0x0 0x0 %s %s %d %d -> 1" % (" ".join(map(str, c)), hex(box_bytes), halo, wo))
            out.append("expect shared 0x0: " + wline(after[:box_bytes]))
            out.append("expect shared %s: * *" % hex(box_bytes))


def gen_cta_group(out):
    """.cta_group::1 and .cta_group::2 tile loads in a 2-CTA cluster (§9.7.9.25.5.1): rank 0's
    lane 0 loads a box into its own shared memory; with ::1 the complete-tx goes to the mbarrier
    in the destination CTA (rank 0's), with ::2 the mbarrier operand may name the peer CTA's,
    and does (rank 1's, through mapa). Each rank's lane 0 arrives once on its own mbarrier,
    expecting the box's bytes where they go (0 elsewhere); both wait. Rank 1's shared memory
    keeps its bytes (the box is rank 0's)."""
    R = R_LATER
    dims, box = (16, 6), (8, 4)
    gbytes, box_bytes, shared = 16 * 6 * 4, 8 * 4 * 4, 256
    clause = "tensormap dims=16,6 box=8,4 swizzle=none elem=u32"
    for grp, target in ((1, 0), (2, 1)):
        out.append("")
        out.append("# cp.async.bulk.tensor.2d tile load .cta_group::%d in a 2-CTA cluster, issued by rank 0 into"
                   " its own shared memory with the mbarrier of rank %d: complete-tx of the box there"
                   % (grp, target))
        out.append(">>> @a mbarrier.init.shared::cta.b64 [m], 1; fence.mbarrier_init.release.cluster;"
                   " barrier.cluster.arrive; barrier.cluster.wait; @a mbarrier.arrive.expect_tx.shared::cta.b64 t,"
                   " [m], e; mapa.shared::cluster.u32 b, m, r; @q0 cp.async.bulk.tensor.2d.shared::cluster.global"
                   ".tile.mbarrier::complete_tx::bytes.cta_group::%d [s], [tm, {c0, c1}], [b];"
                   " ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT;"
                   " barrier.cluster.arrive; barrier.cluster.wait"
                   " :: p:pred <- a:pred q0:pred s:sptr tm:tmap c0:s32 c1:s32 m:sptr e:u32 r:u32"
                   " ; shared %d ; global %d ; cluster 2 ; %s ; regs t:b64 b:u32" % (grp, shared, gbytes, clause))
        for c in ((5, 3), (-3, -1)):
            g = bytes(R.getrandbits(8) for _ in range(gbytes))
            got = tile_load(g, 0, dims, 64, box, (1, 1), 4, 0, c)
            out.append("case coordinates %d,%d" % c)
            inits = []
            for rank in range(2):
                gi = g if rank == 0 else bytes(R.getrandbits(8) for _ in range(gbytes))
                si = bytes(R.getrandbits(8) for _ in range(shared))
                inits.append(si)
                out.append("init rank %d global 0x0: %s" % (rank, wline(gi)))
                out.append("init rank %d shared 0x0: %s" % (rank, wline(si)))
            for rank in range(2):
                for lane in range(32):
                    e = box_bytes if (rank == target and lane == 0) else 0
                    out.append("%d.%d: %d %d 0x0 0x0 %d %d 0x80 %d %d -> 1" % (
                        rank, lane, int(lane == 0), int(rank == 0 and lane == 0), c[0], c[1], e, target))
            out.append("expect rank 0 shared 0x0: %s" % wline(got))
            out.append("expect rank 0 shared 0x80: * *")
            out.append("expect rank 1 shared 0x0: %s" % wline(inits[1][:box_bytes]))
            out.append("expect rank 1 shared 0x80: * *")


def gen_tx_underflow(out):
    """A copy that completes more bytes than the phase expects (§9.7.13.15.4: a phase completes
    when its pending arrivals and its tx-count are both zero; tx-count ranges over
    ±(2^20 - 1)): once the last arrival is in with tx-count below zero, nothing completes the
    phase and the wait would spin for ever. ptxjit reports a fault naming the copy (or, when the
    copy came first, the arrival) instead: the rows expect the fault, not values."""
    wait = "ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT"
    rows = [
        ("cp.async.bulk of 32 bytes on an mbarrier that expects 16 (expect-tx first): the copy's"
         " complete-tx underflows",
         "mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], 16; cp.async.bulk.shared::cta.global"
         ".mbarrier::complete_tx::bytes [s], [g], 32, [m]",
         "s:sptr g:gptr m:sptr", "0x0 0x0 0x80", "global 64", "cp.async.bulk"),
        ("cp.async.bulk of 32 bytes before an arrive.expect_tx of 16: the arrival leaves tx-count"
         " -16 with every arrival in",
         "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [s], [g], 32, [m];"
         " mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], 16",
         "s:sptr g:gptr m:sptr", "0x0 0x0 0x80", "global 64", "mbarrier.arrive"),
        ("cp.async.bulk.tensor.2d tile load of a 64-byte box on an mbarrier that expects 32",
         "mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], 32; cp.async.bulk.tensor.2d.shared::cluster"
         ".global.tile.mbarrier::complete_tx::bytes [s], [tm, {c0, c1}], [m]",
         "s:sptr tm:tmap c0:s32 c1:s32 m:sptr", "0x0 0x0 0 0 0x80",
         "global 512 ; tensormap dims=16,8 box=8,2 swizzle=none elem=u32", "cp.async.bulk.tensor"),
    ]
    for what, body, ins, vals, mem, name in rows:
        out.append("")
        out.append("# tx-count underflow: %s; a fault report (%s), not a hang" % (what, name))
        out.append(">>> mbarrier.init.shared::cta.b64 [m], 1; %s; %s :: p:pred <- %s ; shared 256 ; %s"
                   " ; regs t:b64 ; fault tx-count underflow" % (body, wait, ins, mem))
        out.append("case")
        out.append("0: %s -> *" % vals)


def gen_tensor_modes():
    out = [".version 8.8", ".target sm_100a"]
    gen_im2col(out)
    gen_im2col_packed(out)
    gen_im2col_w(out)
    gen_four_rows(out)
    gen_multicast(out)
    gen_prefetch(out)
    gen_im2col_no_offs(out)
    gen_im2col_w_halo(out)
    gen_cta_group(out)
    gen_tx_underflow(out)
    write("tensor_modes.isa", [
        "Tensor-map copies in their other modes (PTX ISA §9.7.9.25.5.1 cp.async.bulk.tensor, §9.7.9.25.5.2",
        "cp.reduce.async.bulk.tensor, §9.7.9.25.5.3 cp.async.bulk.prefetch.tensor; §5.5.4-5.5.5): .im2col",
        "loads (3d-5d, im2col offsets, pixels wrapping through the bounding box into the next N),",
        ".im2col::w and .im2col::w::128 loads (wHalo 0, wOffset 0/1), .tile::gather4 loads and",
        ".tile::scatter4 stores (u32, u16 and the packed .b4x16) and .add/.min/.max reductions, a",
        ".multicast::cluster tile load in a 2-CTA cluster, the prefetch forms (no byte changes),",
        ".im2col_no_offs stores and .add reductions, .im2col::w/::w::128 loads with wHalo > 0,",
        ".cta_group::1/::2 tile loads in a cluster, and tx-count underflow (a fault, not a hang).",
        "Values from gen_tensor.py (its docstring gives the rules).",
    ], out)


# ----------------------------------------------------------------- tensormap.replace (§9.7.9.26)

def tile_load(g, base, dims, rowstride, box, estr, es, swz, coords):
    """A 1D/2D tile load's shared bytes: the box dense (dimension 0 innermost), swizzled."""
    rows = -(-box[1] // estr[1]) if len(box) > 1 else 1
    out = bytearray(box[0] * rows * es)
    k = 0
    for j in range(rows):
        r = coords[1] + j * estr[1] if len(box) > 1 else 0
        for i in range(box[0]):
            col = coords[0] + i
            inside = 0 <= col < dims[0] and (len(box) == 1 or 0 <= r < dims[1])
            v = g[base + r * rowstride + col * es:base + r * rowstride + (col + 1) * es] if inside else bytes(es)
            off = swizzle(k * es, swz)
            out[off:off + es] = v
            k += 1
    return bytes(out)


def gen_tensormap(out):
    dims, box, es = (16, 8), (8, 4), 4
    clause = "tensormap dims=16,8 box=8,4 swizzle=none elem=u32"
    # (what, replace statement, load rank, coords, new model: dims, rowstride, box, estr, es, swizzle, base)
    rows = [
        ("global_address: the copy reads the tensor at the new address (the image's second half)",
         "tensormap.replace.tile.global_address.global.b1024.b64 [tm], ga", 2, (3, 2),
         (dims, 64, box, (1, 1), 4, 0, 512)),
        ("rank (new_val 0: rank 1): a .1d copy of the map's first row",
         "tensormap.replace.tile.rank.global.b1024.b32 [tm], 0", 1, (5,),
         ((16,), 64, (8,), (1,), 4, 0, 0)),
        ("box_dim ordinal 1 (4 -> 2): a box of two rows",
         "tensormap.replace.tile.box_dim.global.b1024.b32 [tm], 1, 2", 2, (4, 5),
         (dims, 64, (8, 2), (1, 1), 4, 0, 0)),
        ("box_dim ordinal 0 (8 -> 4), generic address of the map: rows of four elements",
         "tensormap.replace.tile.box_dim.b1024.b32 [tm], 0, 4", 2, (13, 1),
         (dims, 64, (4, 4), (1, 1), 4, 0, 0)),
        ("global_dim ordinal 1 (8 -> 5): rows 5.. are out of bounds (zeros)",
         "tensormap.replace.tile.global_dim.global.b1024.b32 [tm], 1, 5", 2, (2, 3),
         ((16, 5), 64, box, (1, 1), 4, 0, 0)),
        ("global_dim ordinal 0 (16 -> 10): columns 10.. are out of bounds (zeros)",
         "tensormap.replace.tile.global_dim.global.b1024.b32 [tm], 0, 10", 2, (6, 2),
         ((10, 8), 64, box, (1, 1), 4, 0, 0)),
        ("global_stride ordinal 0 (64 -> 128 bytes): row r at r*128 bytes",
         "tensormap.replace.tile.global_stride.global.b1024.b64 [tm], 0, 128", 2, (4, 3),
         (dims, 128, box, (1, 1), 4, 0, 0)),
        ("element_stride ordinal 1 (1 -> 2): ceil(4/2) = 2 rows, two apart",
         "tensormap.replace.tile.element_stride.global.b1024.b32 [tm], 1, 2", 2, (1, 3),
         (dims, 64, box, (1, 2), 4, 0, 0)),
        ("elemtype 1 (.u16, Table 33): 8 x 4 two-byte elements, dims counted in u16",
         "tensormap.replace.tile.elemtype.global.b1024.b32 [tm], 1", 2, (7, 2),
         (dims, 64, box, (1, 1), 2, 0, 0)),
        ("swizzle_mode 1 (32B, Table 33) and box_dim ordinal 1 (4 -> 8): the 256-byte box's 16-byte"
         " chunks swizzled (the pattern's second 128-byte row moved)",
         "tensormap.replace.tile.swizzle_mode.global.b1024.b32 [tm], 1;"
         " tensormap.replace.tile.box_dim.global.b1024.b32 [tm], 1, 8", 2, (0, 1),
         (dims, 64, (8, 8), (1, 1), 4, 1, 0)),
    ]
    gbytes = 1024
    scopes = ["cta", "cluster", "gpu", "sys"]
    for num, (what, stmt, rank, coords, (ndims, rs, nbox, estr, nes, swz, base)) in enumerate(rows):
        sc = scopes[num % 4]
        nrows = -(-nbox[1] // estr[1]) if len(nbox) > 1 else 1
        box_bytes = nbox[0] * nrows * nes
        shared = 512 + 128
        cs = ", ".join("c%d" % d for d in range(rank))
        ins = " ".join("c%d:s32" % d for d in range(rank))
        op = ("cp.async.bulk.tensor.%dd.shared::cluster.global.tile.mbarrier::complete_tx::bytes [s], [tm, {%s}], [m]"
              % (rank, cs))
        out.append("# tensormap.replace.tile.%s; then fence.proxy.tensormap::generic release and acquire (.%s),"
                   " prefetch.tensormap (a hint) and a copy through the map; mbarrier words '*'" % (what, sc))
        out.append(">>> %s; fence.proxy.tensormap::generic.release.%s; fence.proxy.tensormap::generic.acquire.%s"
                   " [tm], 128; prefetch.tensormap [tm]; mbarrier.init.shared::cta.b64 [m], 1;"
                   " mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], %d; %s;"
                   " ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT"
                   " :: p:pred <- s:sptr tm:tmap ga:gptr %s m:sptr ; shared %d ; global %d ; %s ; regs t:b64"
                   % (stmt, sc, sc, box_bytes, op, ins, shared, gbytes, clause))
        for case in range(2):
            g = bytes(R.getrandbits(8) for _ in range(gbytes))
            sm = bytearray(R.getrandbits(8) for _ in range(shared))
            c = coords if case == 0 else tuple(x + 1 for x in coords)
            got = tile_load(g, base, ndims, rs, nbox, estr, nes, swz, c)
            out.append("case coordinates %s" % ",".join(map(str, c)))
            out.append("init global 0x0: " + wline(g))
            out.append("init shared 0x0: " + wline(bytes(sm)))
            out.append("0: 0x0 0x0 0x200 %s 0x200 -> 1" % " ".join(map(str, c)))
            out.append("expect shared 0x0: " + wline(got))
            out.append("expect shared 0x200: * *")
    # The map copied to shared memory, its box_dim rewritten there (.shared::cta), then
    # tensormap.cp_fenceproxy back to the global map by the whole warp; lane 0 copies.
    ld = "; ".join("@q ld.global.v4.b32 {a0, a1, a2, a3}, [tm+%d]; @q st.shared.v4.b32 [sm+%d], {a0, a1, a2, a3}"
                   % (16 * k, 16 * k) for k in range(8))
    op = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [s], [tm, {c0, c1}], [m]"
    out.append("# the map's 128 bytes copied to shared memory, tensormap.replace.tile.box_dim.shared::cta there"
               " (ordinal 1: 4 -> 3 rows), tensormap.cp_fenceproxy.global.shared::cta back to the global map"
               " (the whole warp, .sync.aligned), then lane 0's copy through it")
    out.append(">>> %s; @q tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [sm], 1, 3; bar.warp.sync 0xffffffff;"
               " tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [tm], [sm], 128;"
               " @!q bra ISA_END; fence.proxy.tensormap::generic.acquire.gpu [tm], 128;"
               " mbarrier.init.shared::cta.b64 [m], 1; mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], 96; %s;"
               " ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT;"
               " ISA_END: bar.warp.sync 0xffffffff"
               " :: <- q:pred s:sptr tm:tmap sm:sptr c0:s32 c1:s32 m:sptr ; shared 512 ; global 512 ; %s"
               " ; regs t:b64 p:pred a[4]:b32" % (ld, op, clause))
    for case in range(2):
        g = bytes(R.getrandbits(8) for _ in range(512))
        sm = bytearray(R.getrandbits(8) for _ in range(512))
        c = (2, 5) if case == 0 else (9, 3)
        got = tile_load(g, 0, dims, 64, (8, 3), (1, 1), 4, 0, c)
        out.append("case coordinates %s" % ",".join(map(str, c)))
        out.append("init global 0x0: " + wline(g))
        out.append("init shared 0x0: " + wline(bytes(sm)))
        for lane in range(32):
            out.append("%d: %d 0x0 0x0 0x100 %d %d 0x180 ->" % (lane, int(lane == 0), c[0], c[1]))
        out.append("expect shared 0x0: " + wline(got))
        # The shared copy of the map (opaque bytes) and the mbarrier: not checked.
        out.append("expect shared 0x100: " + " ".join(["*"] * 34))
    # tensormap.cp_fenceproxy as a copy of 128 bytes (any bytes).
    out.append("# tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.{cta,cluster,gpu,sys}"
               ".sync.aligned: the 128 bytes at [src] copied to [dst] (the whole warp)")
    for scope in ("cta", "cluster", "gpu", "sys"):
        out.append(">>> tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.%s.sync.aligned"
                   " [d], [s], 128 :: <- d:gptr s:sptr ; shared 256 ; global 256" % scope)
        g = bytes(R.getrandbits(8) for _ in range(256))
        sm = bytes(R.getrandbits(8) for _ in range(256))
        so, do = 128 * R.randrange(2), 128 * R.randrange(2)
        after = bytearray(g)
        after[do:do + 128] = sm[so:so + 128]
        out.append("case")
        out.append("init global 0x0: " + wline(g))
        out.append("init shared 0x0: " + wline(sm))
        for lane in range(32):
            out.append("%d: %s %s ->" % (lane, hex(do), hex(so)))
        out.append("expect global 0x0: " + wline(bytes(after)))


def gen_tensormap_extra(out):
    """fill_mode 1 (Table 33: NaN): out-of-bound f32 elements read as a NaN (testp.notanumber;
    the NaN's bits are not given: those words '*'); in-bound ones are the tensor's."""
    clause = "tensormap dims=16,8 box=8,2 swizzle=none elem=f32"
    out.append("# tensormap.replace.tile.fill_mode 1 (NaN) on an f32 map: the box's out-of-bound elements"
               " (column -1 and row 8) read as NaNs (testp.notanumber of the first and last), the others"
               " the tensor's")
    out.append(">>> tensormap.replace.tile.fill_mode.global.b1024.b32 [tm], 1; fence.proxy.tensormap::generic.release.gpu;"
               " fence.proxy.tensormap::generic.acquire.gpu [tm], 128; mbarrier.init.shared::cta.b64 [m], 1;"
               " mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], 64; cp.async.bulk.tensor.2d.shared::cluster.global"
               ".tile.mbarrier::complete_tx::bytes [s], [tm, {c0, c1}], [m];"
               " ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT;"
               " ld.shared.f32 x, [s]; testp.notanumber.f32 n0, x; ld.shared.f32 x, [s+60]; testp.notanumber.f32 n1, x"
               " :: p:pred n0:pred n1:pred <- s:sptr tm:tmap c0:s32 c1:s32 m:sptr ; shared 256 ; global 512 ; %s"
               " ; regs t:b64 x:f32" % clause)
    g = [rand_f32() for _ in range(128)]
    sm = [R.getrandbits(32) for _ in range(64)]
    c = (-1, 7)
    exp = []
    for j in range(2):
        for i in range(8):
            col, row = c[0] + i, c[1] + j
            exp.append("*" if not (0 <= col < 16 and 0 <= row < 8) else hx(g[row * 16 + col]))
    out.append("case coordinates -1,7")
    out.append("init global 0x0: " + " ".join(hx(v) for v in g))
    out.append("init shared 0x0: " + " ".join(hx(v) for v in sm))
    out.append("0: 0x0 0x0 -1 7 0x80 -> 1 1 1")
    out.append("expect shared 0x0: " + " ".join(exp))
    out.append("expect shared 0x80: * *")
    # Allocation classes (PTX ISA 9.5): .alloc_large makes tensormap.query.alloc_class_large
    # true, .alloc_small false.
    out.append(".version 9.5")
    for cls, want in (("alloc_large", 1), ("alloc_small", 0)):
        out.append("# tensormap.replace.tile.%s then tensormap.query.alloc_class_large: %d" % (cls, want))
        out.append(">>> tensormap.replace.tile.%s.global.b1024 [tm]; tensormap.query.alloc_class_large.global.b1024 q, [tm]"
                   " :: q:pred <- tm:tmap ; global 512 ; tensormap dims=16,8 box=8,2 swizzle=none elem=u32" % cls)
        out.append("case")
        out.append("init 0x0: " + " ".join(hx(R.getrandbits(32)) for _ in range(128)))
        out.append("0: 0x0 -> %d" % want)


def gen_tensormap_table():
    out = [".version 8.8", ".target sm_90a"]
    gen_tensormap(out)
    gen_tensormap_extra(out)
    write("tensormap.isa", [
        "Tensor-map edits (PTX ISA §9.7.9.26 tensormap.replace, §9.7.13.16 tensormap.cp_fenceproxy,",
        "§9.7.13.4 fence.proxy.tensormap::generic): each rewritten field checked through a tile copy",
        "that uses the map (its bytes are opaque); cp_fenceproxy's 128-byte copy. Values from",
        "gen_tensor.py (its docstring gives the rules).",
    ], out)


# ---------------------------------------------------------------------- multimem (§9.7.9.14)

def f32_bits(x):
    """The binary32 nearest x (ties to even)."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32_val(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def f16_val(b):
    return struct.unpack("<e", struct.pack("<H", b))[0]


def rand_f32():
    """A float32 in ±[1/4, 1024): sums of two are exact in binary64, rounded once to f32."""
    return f32_bits(R.choice((-1, 1)) * R.uniform(0.25, 1024))


def rand_f16():
    return f16_bits(R.choice((-1, 1)) * R.uniform(0.25, 512))


def multimem_st_rows(out, R, forms):
    """Rows for multimem stores (op, inputs, words per lane): with one device the value stored to
    the one copy; lanes write distinct words in a shuffled order."""
    for op, ins, n in forms:
        out.append("# %s: the value stored to the one copy; lanes write distinct words" % op.split(" ")[0])
        out.append(">>> %s :: <- g:gptr %s ; global %d" % (op, ins, 4 * 32 * n))
        img = [R.getrandbits(32) for _ in range(32 * n)]
        after = list(img)
        out.append("case")
        out.append("init 0x0: " + " ".join(hx(v) for v in img))
        order = list(range(32))
        R.shuffle(order)
        for lane in range(32):
            w = order[lane] * n
            vals = [R.getrandbits(32) for _ in range(n)]
            after[w:w + n] = vals
            if n == 2:
                shown = hx(vals[0] | vals[1] << 32, 64)
            else:
                shown = " ".join(hx(v) for v in vals)
            out.append("%d: %s %s ->" % (lane, hex(4 * w), shown))
        out.append("expect 0x0: " + " ".join(hx(v) for v in after))


def gen_multimem(out):
    words = 64
    # ld_reduce: the reduction over the one copy's value is that value.
    forms = [
        ("multimem.ld_reduce.relaxed.gpu.global.add.u32 d, [g]", "d:u32", 32, None),
        ("multimem.ld_reduce.weak.global.min.s32 d, [g]", "d:s32", 32, None),
        ("multimem.ld_reduce.acquire.sys.global.max.u64 d, [g]", "d:u64", 64, None),
        ("multimem.ld_reduce.relaxed.cta.global.xor.b64 d, [g]", "d:b64", 64, None),
        ("multimem.ld_reduce.relaxed.gpu.global.add.acc::f32.f16x2 d, [g]", "d:b32", 32, "f16x2"),
        ("multimem.ld_reduce.weak.global.max.bf16x2 d, [g]", "d:b32", 32, None),
        ("multimem.ld_reduce.relaxed.cluster.global.add.f32 d, [g]", "d:b32", 32, "f32"),
        ("multimem.ld_reduce.relaxed.gpu.global.min.v4.f16x2 {d0, d1, d2, d3}, [g]",
         "d0:b32 d1:b32 d2:b32 d3:b32", 128, "f16x2"),
        ("multimem.ld_reduce.relaxed.gpu.global.add.v2.f32 {d0, d1}, [g]", "d0:b32 d1:b32", 64, "f32"),
    ]
    for op, outs, bits, fl in forms:
        out.append("# %s: one device, one copy: the value at [g] (%d bits)" % (op.split(" ")[0], bits))
        out.append(">>> %s :: %s <- g:gptr ; global %d" % (op, outs, 4 * words))
        if fl == "f32":
            img = [rand_f32() for _ in range(words)]
        elif fl == "f16x2":
            img = [rand_f16() | rand_f16() << 16 for _ in range(words)]
        else:
            img = [R.getrandbits(32) for _ in range(words)]
        out.append("case")
        out.append("init 0x0: " + " ".join(hx(v) for v in img))
        step = bits // 32
        slots = list(range(0, words, step))
        R.shuffle(slots)
        for lane in range(32):
            w = slots[lane % len(slots)]
            if bits == 64:
                vals = [hx(img[w] | img[w + 1] << 32, 64)]
            else:
                vals = [hx(img[w + k]) for k in range(step)]
            if "v2" in op or "v4" in op:
                vals = [hx(img[w + k]) for k in range(step)]
            out.append("%d: %s -> %s" % (lane, hex(4 * w), " ".join(vals)))
    # st: a store of the one copy.
    multimem_st_rows(out, R, [
        ("multimem.st.relaxed.gpu.global.b32 [g], v", "v:b32", 1),
        ("multimem.st.weak.global.v4.f32 [g], {v0, v1, v2, v3}", "v0:b32 v1:b32 v2:b32 v3:b32", 4),
        ("multimem.st.release.sys.global.b64 [g], v", "v:b64", 2)])
    # red: an atomic reduction into the one copy. Integer sums in any order; float adds to
    # distinct words (each rounded once, to nearest even).
    out.append("# multimem.red.relaxed.gpu.global.add.u32: 32 lanes add into 4 words; each word ends as its sum mod 2^32")
    out.append(">>> multimem.red.relaxed.gpu.global.add.u32 [g], v :: <- g:gptr v:u32 ; global 16")
    img = [R.getrandbits(32) for _ in range(4)]
    after = list(img)
    out.append("case")
    out.append("init 0x0: " + " ".join(hx(v) for v in img))
    for lane in range(32):
        w, v = R.randrange(4), R.getrandbits(32)
        after[w] = (after[w] + v) & 0xFFFFFFFF
        out.append("%d: %s %s ->" % (lane, hex(4 * w), hx(v)))
    out.append("expect 0x0: " + " ".join(hx(v) for v in after))
    for op, kind in [("multimem.red.release.gpu.global.add.f32 [g], v", "f32"),
                     ("multimem.red.relaxed.sys.global.add.f16x2 [g], v", "f16x2"),
                     ("multimem.red.relaxed.gpu.global.add.v4.f32 [g], {v0, v1, v2, v3}", "v4")]:
        n = 4 if kind == "v4" else 1
        ins = "v0:b32 v1:b32 v2:b32 v3:b32" if n == 4 else "v:b32"
        out.append("# %s: each lane's word(s) := old + v, rounded to nearest even (one rounding)" % op.split(" ")[0])
        out.append(">>> %s :: <- g:gptr %s ; global %d" % (op, ins, 4 * 32 * n))
        if kind == "f16x2":
            img = [rand_f16() | rand_f16() << 16 for _ in range(32)]
        else:
            img = [rand_f32() for _ in range(32 * n)]
        after = list(img)
        out.append("case")
        out.append("init 0x0: " + " ".join(hx(v) for v in img))
        for lane in range(32):
            w = lane * n
            if kind == "f16x2":
                v = rand_f16() | rand_f16() << 16
                lo = f16_bits(f16_val(img[w] & 0xFFFF) + f16_val(v & 0xFFFF))
                hi = f16_bits(f16_val(img[w] >> 16) + f16_val(v >> 16))
                after[w] = lo | hi << 16
                vals = [v]
            else:
                vals = [rand_f32() for _ in range(n)]
                for k in range(n):
                    after[w + k] = f32_bits(f32_val(img[w + k]) + f32_val(vals[k]))
            out.append("%d: %s %s ->" % (lane, hex(4 * w), " ".join(hx(v) for v in vals)))
        out.append("expect 0x0: " + " ".join(hx(v) for v in after))


def gen_multimem_bulk(out):
    """multimem.cp.async.bulk / multimem.cp.reduce.async.bulk (§9.7.9.25.4.4-5): the bulk copy
    (reduction) from shared memory into the one copy; .cp_mask: bit i of the 16-bit byte mask
    says whether byte i of each 16-byte chunk is copied."""
    out.append(".version 9.1")
    out.append(".target sm_100")
    wait = "cp.async.bulk.commit_group; cp.async.bulk.wait_group 0"
    forms = [
        ("multimem.cp.async.bulk.global.shared::cta.bulk_group [g], [s], 64", 64, None, None),
        ("multimem.cp.async.bulk.global.shared::cta.bulk_group.cp_mask [g], [s], 32, k", 32, None, "mask"),
        ("multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [g], [s], 64", 64, "add32", None),
        ("multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b64 [g], [s], 32", 32, "xor", None),
    ]
    for op, n, red, mask in forms:
        out.append("# %s: the %d bytes at [s] %s the one copy at [g]" % (
            op.split(" ")[0], n, "reduced into" if red else "copied to" + (" (bytes the mask names)" if mask else "")))
        out.append(">>> %s; %s :: <- g:gptr s:sptr%s ; shared 128 ; global 128" % (op, wait, " k:u16" if mask else ""))
        for _ in range(2):
            g = bytearray(R.getrandbits(8) for _ in range(128))
            sm = bytes(R.getrandbits(8) for _ in range(128))
            go, so = 16 * R.randrange((128 - n) // 16 + 1), 16 * R.randrange((128 - n) // 16 + 1)
            k = R.getrandbits(16)
            after = bytearray(g)
            if red == "add32":
                for i in range(0, n, 4):
                    v = (struct.unpack_from("<I", g, go + i)[0] + struct.unpack_from("<I", sm, so + i)[0]) & 0xFFFFFFFF
                    struct.pack_into("<I", after, go + i, v)
            elif red == "xor":
                for i in range(n):
                    after[go + i] = g[go + i] ^ sm[so + i]
            else:
                for i in range(n):
                    if mask is None or k >> (i % 16) & 1:
                        after[go + i] = sm[so + i]
            out.append("case")
            out.append("init global 0x0: " + wline(bytes(g)))
            out.append("init shared 0x0: " + wline(sm))
            out.append("0: %s %s%s ->" % (hex(go), hex(so), " %s" % hex(k) if mask else ""))
            out.append("expect global 0x0: " + wline(bytes(after)))


def gen_multimem_async(out):
    """multimem.st.async / multimem.red.async (PTX ISA 9.3, sm_100; ptxas 13.5 takes
    .release with .gpu or .sys, scalars only, st on 32-/64-bit types, red .add on u32 s32 u64):
    with one device the store or reduction of the one copy, as the synchronous forms; lanes
    write distinct words (st) or reduce into a few shared ones (red: sums mod 2^n in any
    order)."""
    R = R_LATER
    out.append(".version 9.3")
    out.append(".target sm_100")
    multimem_st_rows(out, R, [
        ("multimem.st.async.release.gpu.global.b32 [g], v", "v:b32", 1),
        ("multimem.st.async.release.sys.global.b64 [g], v", "v:b64", 2),
        ("multimem.st.async.release.gpu.global.f32 [g], v", "v:b32", 1)])
    for op, bits in [("multimem.red.async.release.gpu.global.add.u32 [g], v", 32),
                     ("multimem.red.async.release.sys.global.add.s32 [g], v", 32),
                     ("multimem.red.async.release.gpu.global.add.u64 [g], v", 64)]:
        n = bits // 32
        out.append("# %s: 32 lanes add into 4 elements; each ends as its sum mod 2^%d" % (op.split(" ")[0], bits))
        out.append(">>> %s :: <- g:gptr v:%s ; global %d" % (op, "b64" if n == 2 else "b32", 16 * n))
        m = (1 << bits) - 1
        img = [R.getrandbits(bits) for _ in range(4)]
        after = list(img)
        out.append("case")
        out.append("init 0x0: " + " ".join(hx(v & 0xFFFFFFFF) + ("" if n == 1 else " " + hx(v >> 32))
                                           for v in img))
        for lane in range(32):
            w, v = R.randrange(4), R.getrandbits(bits)
            after[w] = (after[w] + v) & m
            out.append("%d: %s %s ->" % (lane, hex(4 * n * w), hx(v, bits)))
        out.append("expect 0x0: " + " ".join(hx(v & 0xFFFFFFFF) + ("" if n == 1 else " " + hx(v >> 32))
                                             for v in after))


# ------------------------------------------------------- clusterlaunchcontrol (§9.7.13.17)

def gen_clc(out):
    out.append(".version 8.8")
    out.append(".target sm_100")
    wait = ("ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT;"
            " ld.shared.b128 q, [r]; clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 c, q")
    out.append("# clusterlaunchcontrol.try_cancel in a grid of one CTA: no CTA is left to cancel, so the"
               " request fails; the 16-byte response arrives (complete-tx 16) and query_cancel.is_canceled is"
               " false; every byte outside the response and the mbarrier stays")
    out.append(">>> mbarrier.init.shared::cta.b64 [m], 1; mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], 16;"
               " clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [r], [m]; %s"
               " :: p:pred c:pred <- r:sptr m:sptr ; shared 64 ; regs t:b64 q:b128" % wait)
    out.append("case")
    sm = [R.getrandbits(32) for _ in range(16)]
    out.append("init 0x0: " + " ".join(hx(v) for v in sm))
    out.append("0: 0x10 0x30 -> 1 0")
    out.append("expect 0x0: " + " ".join(hx(v) for v in sm[:4]) + " * * * * " +
               " ".join(hx(v) for v in sm[8:12]) + " * *")
    # The multicast form in a cluster of two: rank 0's lane 0 asks; both ranks' mbarriers get the
    # response and its 16 bytes (every lane of both CTAs takes part in the cluster barrier).
    out.append(".target sm_100a")  # ptxas: .multicast::cluster::all is sm_100a's
    out.append("# clusterlaunchcontrol.try_cancel ... .multicast::cluster::all in a grid of one 2-CTA cluster:"
               " rank 0 asks, the response (not canceled) and its complete-tx reach both CTAs")
    out.append(">>> @a mbarrier.init.shared::cta.b64 [m], 1; @a mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], 16;"
               " fence.mbarrier_init.release.cluster; barrier.cluster.arrive; barrier.cluster.wait;"
               " @q0 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
               ".multicast::cluster::all.b128 [r], [m]; %s"
               " :: p:pred c:pred <- a:pred q0:pred r:sptr m:sptr ; shared 64 ; cluster 2 ; regs t:b64 q:b128"
               % wait)
    out.append("case")
    for rank in range(2):
        sm = [R.getrandbits(32) for _ in range(16)]
        out.append("init rank %d 0x0: " % rank + " ".join(hx(v) for v in sm))
        for lane in range(32):
            out.append("%d.%d: %d %d 0x10 0x30 -> 1 0" % (rank, lane, int(lane == 0), int(rank == 0 and lane == 0)))
        out.append("expect rank %d 0x0: " % rank + " ".join(hx(v) for v in sm[:4]) + " * * * * " +
                   " ".join(hx(v) for v in sm[8:12]) + " * *")


def gen_clc_steal(out):
    """clusterlaunchcontrol.try_cancel that may succeed (§9.7.13.17.1): a grid of 48 one-warp
    CTAs (one a case), each case's work a counter word (atom.add 1) and a value word (k*k + 7
    for CTA k) in its global image. Lane 0 of each running CTA does its own case's work, then
    asks to cancel a CTA that has not started; while a request succeeds it does the canceled
    CTA's work (through that case's image: CTA k's images are k times the harness's
    %isa_cta_bytes after CTA 0's; the global image is 136 bytes, so that the row fails where
    it assumes any fixed spacing, such as the 256 bytes of two 128-byte images) and asks again. Which CTAs are canceled, and
    by whom, depends on the scheduler's workers; the invariant checked is that every CTA's work
    is done exactly once (count 1, its value): a canceled CTA never runs, and a success names
    a CTA nobody else runs. Shared words (the response, the mbarrier) are '*'."""
    R = R_LATER
    n = 48
    out.append("# clusterlaunchcontrol.try_cancel with CTAs left to cancel: every CTA's work (count, k*k + 7)"
               " done exactly once, by itself or by the CTA that canceled it")
    out.append(">>> mov.u32 me, %ctaid.x; mov.u32 k, me; ISA_WORK: sub.s32 d, k, me; mul.wide.s32 o, d, %isa_cta_bytes;"
               " add.u64 a, g, o; atom.global.add.u32 cn, [a], 1; mad.lo.u32 v, k, k, 7; st.global.u32 [a+4], v;"
               " mbarrier.init.shared::cta.b64 [m], 1; mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], 16;"
               " clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [r], [m];"
               " ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT;"
               " mbarrier.inval.shared::cta.b64 [m]; ld.shared.b128 q, [r];"
               " clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 c, q;"
               " @c clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 k, q; @c bra ISA_WORK"
               " :: <- g:gptr r:sptr m:sptr ; shared 64 ; global 136"
               " ; regs me:u32 k:u32 d:s32 o:s64 a:u64 cn:u32 v:u32 t:b64 p:pred q:b128 c:pred")
    for k in range(n):
        out.append("case CTA %d" % k)
        out.append("init global 0x0: 0x00000000 %s" % hx(R.getrandbits(32)))
        out.append("init shared 0x0: " + " ".join(hx(R.getrandbits(32)) for _ in range(16)))
        out.append("0: 0x0 0x10 0x30 ->")
        out.append("expect global 0x0: 0x00000001 %s" % hx(k * k + 7))
        out.append("expect shared 0x0: " + " ".join("*" for _ in range(16)))


def gen_multimem_table():
    out = [".version 8.8", ".target sm_90"]
    gen_multimem(out)
    gen_multimem_bulk(out)
    gen_clc(out)
    gen_multimem_async(out)
    gen_clc_steal(out)
    write("multimem.isa", [
        "Multimem accesses (PTX ISA §9.7.9.14 multimem.ld_reduce, multimem.st, multimem.red) with one",
        "device (every multimem address bound to one copy: a load, a store, an atomic reduction; the",
        "PTX ISA 9.3 multimem.st.async and multimem.red.async too), and",
        "cluster launch control (§9.7.13.17 clusterlaunchcontrol.try_cancel/query_cancel) where no CTA",
        "is left to cancel. Values from gen_tensor.py (its docstring gives the rules).",
    ], out)


if __name__ == "__main__":
    gen_tensor_modes()
    gen_tensormap_table()
    gen_multimem_table()
