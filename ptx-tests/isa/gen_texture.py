#!/usr/bin/env python3
"""Writes the texture and surface tables (`; texture`, `; surface`, `; sampler` clauses and
`obj` inputs: tests/isa/texture.rs): texture.isa (tex, tld4, txq, istypep) and surface.isa
(suld.b, sust.b, sust.p, sured.b, suq).

Every value is computed here, independently of ptxjit, from
- the CUDA C++ Programming Guide's "Texture Fetching" appendix: nearest-point sampling
  T[floor(x)]; linear filtering with xB = x - 0.5, i = floor(xB), alpha = frac(xB) held in
  9-bit fixed point with 8 fractional bits (rounded to the nearest 1/256), tex = (1-a)T[i] +
  aT[i+1] and the 2D/3D products of the weights; normalized coordinates scaled by the size;
  the address modes (clamp, wrap: i mod N, mirror, border colour) applied to the texel indices
  as docs/isa-notes.md records; normalized-float reads of 8/16-bit integers (unsigned v/(2^n-1),
  signed max(v/(2^(n-1)-1), -1)); missing channels 0 and alpha 1; the cube-map face table
  (major axis, sc, tc, s = (sc/|ma| + 1)/2, t = (tc/|ma| + 1)/2);
- the PTX ISA's texture and surface instructions: tex geometries and operand vectors, tld4's
  footprint order (i, j+1), (i+1, j+1), (i+1, j), (i, j), txq/suq attributes (OpenCL channel
  codes, CUDA's enum orders), suld.b/sust.b x in bytes with .clamp/.zero out of range,
  sust.p components in R G B A order, sured.b's operations;
- docs/isa-notes.md where the texts leave a choice (mip level rounding, tex.grad's level of
  detail, clamp-to-edge with linear filtering).
Linear-filter rows use texel values for which every product and sum is exact in f32, so the
order of the sum does not matter and the expected bits are exact.

Run from this directory: python3 gen_texture.py (no numpy needed). Deterministic.
"""
import math
import struct


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def f32bits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def f16bits(x):
    return struct.unpack('<H', struct.pack('<e', x))[0]


def fs(x):
    """The shortest decimal that reads back as the f32 x."""
    x = f32(x)
    if x == 0:
        return '-0' if math.copysign(1, x) < 0 else '0'
    if x == int(x) and abs(x) < 1e9:
        return str(int(x))
    for p in range(1, 10):
        s = '%.*g' % (p, x)
        if f32(float(s)) == x:
            return s
    raise ValueError(x)


def exact(x):
    assert f32(x) == x, f'{x} is not exact in f32: the row would depend on rounding order'
    return x


# ---------------------------------------------------------------- formats and images

TYPES = {  # name: (bytes, struct code, signed, float)
    'u8': (1, 'B', False, False), 's8': (1, 'b', True, False),
    'u16': (2, 'H', False, False), 's16': (2, 'h', True, False),
    'u32': (4, 'I', False, False), 's32': (4, 'i', True, False),
    'f16': (2, 'e', False, True), 'f32': (4, 'f', False, True),
}
CL_TYPE = {('s8', True): 0x10D0, ('s16', True): 0x10D1, ('u8', True): 0x10D2,
           ('u16', True): 0x10D3, ('s8', False): 0x10D7, ('s16', False): 0x10D8,
           ('s32', False): 0x10D9, ('u8', False): 0x10DA, ('u16', False): 0x10DB,
           ('u32', False): 0x10DC, ('f16', False): 0x10DD, ('f32', False): 0x10DE}
CL_ORDER = {1: 0x10B0, 2: 0x10B2, 4: 0x10B5}  # CL_R, CL_RG, CL_RGBA
ADDR = {'wrap': 0, 'clamp': 1, 'mirror': 2, 'border': 3}


class Image:
    """A resource: kind, format, size, layers, levels, and its texels
    texel[level][memory layer][z][y][x] = tuple of channel values."""

    def __init__(self, kind, ty, ch, size, layers=1, levels=1, texel=None):
        self.kind, self.ty, self.ch, self.layers, self.levels = kind, ty, ch, layers, levels
        w = size[0]
        h = size[1] if len(size) > 1 else (w if kind in ('cube', 'acube') else 1)
        d = size[2] if len(size) > 2 else 1
        self.size = (w, h, d)
        self.mem_layers = layers * (6 if kind in ('cube', 'acube') else 1)
        self.texel = []
        for l in range(levels):
            lw, lh, ld = max(1, w >> l), max(1, h >> l), max(1, d >> l)
            self.texel.append([[[[tuple(texel(l, m, x, y, z, c) for c in range(ch))
                                  for x in range(lw)] for y in range(lh)] for z in range(ld)]
                               for m in range(self.mem_layers)])

    def dims(self, l):
        return tuple(max(1, s >> l) for s in self.size)

    def bytes(self):
        nb, code, _, _ = TYPES[self.ty]
        out = b''
        for lvl in self.texel:
            for layer in lvl:
                for plane in layer:
                    for row in plane:
                        for t in row:
                            out += b''.join(struct.pack('<' + code, v) for v in t)
        return out

    def words(self):
        b = self.bytes()
        b += b'\0' * (-len(b) % 4)
        return [struct.unpack_from('<I', b, i)[0] for i in range(0, len(b), 4)]

    def clause(self):
        size = 'x'.join(str(s) for s in
                        (self.size[:1] if self.kind in ('cube', 'acube') else
                         self.size[:{'1d': 1, 'a1d': 1, '2d': 2, 'a2d': 2, '3d': 3,
                                     'linear': 1}[self.kind]]))
        s = f'kind={self.kind} fmt={self.ty}x{self.ch} size={size}'
        if self.kind in ('a1d', 'a2d', 'acube'):
            s += f' layers={self.layers}'
        if self.levels > 1:
            s += f' levels={self.levels}'
        return s


class Sampler:
    def __init__(self, filter='point', addr=('clamp',) * 3, norm=False, read='elem',
                 border=(0.0, 0.0, 0.0, 0.0), mipfilter='point'):
        # One mode stands for all three dimensions; two leave z clamp (as the clause does).
        self.given = tuple(addr)
        addr = tuple(addr) * 3 if len(addr) == 1 else tuple(addr) + ('clamp',) * (3 - len(addr))
        self.filter, self.addr, self.norm, self.read = filter, addr, norm, read
        self.border, self.mipfilter = border, mipfilter

    def clause(self):
        s = f'filter={self.filter} addr={",".join(self.given)} norm={int(self.norm)}'
        if self.read != 'elem':
            s += f' read={self.read}'
        if any(self.border):
            s += ' border=' + ','.join(fs(b) for b in self.border)
        if self.mipfilter != 'point':
            s += f' mipfilter={self.mipfilter}'
        return s


def float_result(img, smp):
    return TYPES[img.ty][3] or smp.read == 'float'


def channel(img, smp, v):
    """A stored channel value as the texture unit returns it (before filtering)."""
    nb, _, signed, isf = TYPES[img.ty]
    if isf:
        return f32(v)
    if smp.read == 'float':
        n = 8 * nb
        if signed:
            return max(f32(f32(v) / f32(2 ** (n - 1) - 1)), -1.0)
        return f32(f32(v) / f32(2 ** n - 1))
    return v


def texel_value(img, smp, lvl, layer, idx):
    """The 4 channels of a texel (idx: x, y, z, any None = border)."""
    fl = float_result(img, smp)
    if any(i is None for i in idx):
        b = smp.border
        return tuple(f32(c) if fl else int(c) for c in b)
    x, y, z = idx
    t = img.texel[lvl][layer][z][y][x]
    out = [channel(img, smp, v) for v in t]
    while len(out) < 3:
        out.append(0.0 if fl else 0)
    if len(out) < 4:
        out.append(1.0 if fl else 1)
    return tuple(out)


def address(mode, i, n):
    if mode == 'clamp':
        return min(max(i, 0), n - 1)
    if mode == 'wrap':
        return i % n
    if mode == 'mirror':
        m = i % (2 * n)
        return 2 * n - 1 - m if m >= n else m
    if mode == 'border':
        return i if 0 <= i < n else None
    raise ValueError(mode)


def weight(ub):
    """Linear filtering: the lower index and the 9-bit (8 fractional bits) weight."""
    i = math.floor(ub)
    return i, round((ub - i) * 256) / 256


def sample(img, smp, lvl, layer, coords, norm=None, ndim=None):
    """Filtered fetch at level lvl: coords (1..3 floats) in texels or normalized."""
    norm = smp.norm if norm is None else norm
    coords = [f32(c) for c in coords]
    dims = img.dims(lvl)
    ndim = ndim or len(coords)
    modes = smp.addr if norm else tuple('border' if m == 'border' else 'clamp'
                                         for m in smp.addr)
    u = [f32(coords[k] * dims[k]) if norm else coords[k] for k in range(ndim)]
    if smp.filter == 'point':
        idx = [address(modes[k], math.floor(u[k]), dims[k]) for k in range(ndim)]
        return texel_value(img, smp, lvl, layer, tuple(idx) + (0,) * (3 - ndim))
    lo, ws = [], []
    for k in range(ndim):
        i, a = weight(f32(u[k] - 0.5))
        lo.append(i)
        ws.append(a)
    acc = [0.0] * 4
    for corner in range(1 << ndim):  # texel order (i, j, k), (i+1, j, k), (i, j+1, k), …
        w = 1.0
        idx = []
        for k in range(ndim):
            bit = (corner >> k) & 1
            w *= ws[k] if bit else 1 - ws[k]
            idx.append(address(modes[k], lo[k] + bit, dims[k]))
        t = texel_value(img, smp, lvl, layer, tuple(idx) + (0,) * (3 - ndim))
        for c in range(4):
            acc[c] += w * t[c]
    return tuple(exact(a) for a in acc)


def cube_face(x, y, z):
    ax, ay, az = abs(x), abs(y), abs(z)
    if ax >= ay and ax >= az:
        face, sc, tc, ma = (0, -z, -y, ax) if x >= 0 else (1, z, -y, ax)
    elif ay >= az:
        face, sc, tc, ma = (2, x, z, ay) if y >= 0 else (3, x, -z, ay)
    else:
        face, sc, tc, ma = (4, x, -y, az) if z >= 0 else (5, -x, -y, az)
    s = f32(f32(f32(sc / ma) + 1) / 2)
    t = f32(f32(f32(tc / ma) + 1) / 2)
    return face, s, t


def lod_sample(img, smp, layer, coords, lod):
    """Mipmapped fetch with a level of detail (docs/isa-notes.md: point picks round(lod), ties
    up; linear blends floor(lod) and the next level by frac(lod) in 1/256 steps)."""
    last = img.levels - 1
    lod = min(max(lod, 0.0), float(last))
    if smp.mipfilter == 'point':
        return sample(img, smp, min(math.floor(lod + 0.5), last), layer, coords)
    l0 = math.floor(lod)
    a = round((lod - l0) * 256) / 256
    t0 = sample(img, smp, l0, layer, coords)
    t1 = sample(img, smp, min(l0 + 1, last), layer, coords)
    return tuple(exact((1 - a) * p + a * q) for p, q in zip(t0, t1))


# ---------------------------------------------------------------- table writing

def val(x, isf):
    return fs(x) if isf else str(int(x))


class Out:
    def __init__(self, path, title):
        self.path = path
        self.lines = [f'# {title}', '# Written by gen_texture.py (see its docstring); do not edit.', '']

    def group(self, comment, header):
        self.lines += ['', f'# {comment}', '>>> ' + header]

    def case(self, name, images=()):
        self.lines.append(f'case {name}')
        for at, img in images:
            w = img.words()
            for k in range(0, len(w), 8):
                words = ' '.join(f'{v:#010x}' for v in w[k:k + 8])
                self.lines.append(f'init global {at + 4 * k:#x}: {words}')

    def row(self, lane, ins, outs):
        self.lines.append(f'{lane}: {" ".join(ins)} -> {" ".join(outs)}')

    def raw(self, line):
        self.lines.append(line)

    def write(self):
        with open(self.path, 'w') as f:
            f.write('\n'.join(self.lines) + '\n')


def pad(n):
    return (n + 127) // 128 * 128


OUT4F = 'r:f32 g:f32 b:f32 a:f32'


def out4(t, isf):
    return [val(v, isf) for v in t]


# ---------------------------------------------------------------- texture.isa

def small(l, m, x, y, z, c):
    """Texel channel values: small integers, distinct per texel and channel, so every
    linear-filter product (weights in 1/256 steps) and sum is exact in f32."""
    return (1 + x + 5 * y + 17 * z + 37 * m + 53 * l) * (c + 1) % 97


def tex_rows(o, img, smp, geom, dtype, ctype, rows, extra_hdr='', ref=None):
    """A group of tex rows: rows is a list of (layer, coords...) tuples."""
    isf = dtype == 'f32'
    nc = {'1d': 1, '2d': 2, '3d': 3, 'a1d': 1, 'a2d': 2, 'cube': 3, 'acube': 3}[geom]
    layered = geom.startswith('a')
    cnames = ['x', 'y', 'z'][:nc]
    vec = (['l'] if layered else []) + cnames
    while len(vec) not in (1, 2, 4):
        vec.append(vec[-1])
    handle = 't' if ref is None else ref
    regs = '{' + ', '.join(vec) + '}'
    ins = ([] if ref else ['t:obj']) + (['l:s32'] if layered else []) + \
        [f'{c}:{ctype}' for c in cnames]
    outs = ' '.join(f'{c}:{dtype}' for c in 'rgba')
    sampler = ''
    hdr = (f'tex.{geom}.v4.{dtype}.{ctype} {{r, g, b, a}}, [{handle}{sampler}, {regs}] :: '
           f'{outs} <- {" ".join(ins)} ; global {pad(len(img.bytes()))} ; '
           f'texture {ref or "t"} {img.clause()} {smp.clause()}{" ref" if ref else ""}{extra_hdr}')
    o.group(f'{geom} {img.ty}x{img.ch}, {smp.filter}, addr {",".join(smp.addr)}, '
            f'{"normalized" if smp.norm else "texel"} coordinates, {ctype} coordinates, '
            f'{dtype} results', hdr)
    o.case('', [(0, img)])
    for lane, r in enumerate(rows):
        layer = r[0] if layered else 0
        cs = r[1:] if layered else r
        if geom in ('cube', 'acube'):
            face, s, t = cube_face(*cs)
            res = sample(img, smp, 0, 6 * layer + face, (s, t), norm=True)
        elif ctype == 's32':
            # Integer coordinates: unnormalized texel indices, point-sampled.
            p = Sampler('point', smp.addr, False, smp.read, smp.border)
            res = sample(img, p, 0, layer, tuple(float(c) for c in cs))
        else:
            lay = min(max(layer, 0), img.layers - 1)
            res = sample(img, smp, 0, lay, cs)
        ins_v = ([] if ref else ['0']) + ([str(layer)] if layered else []) + \
            [fs(c) if ctype == 'f32' else str(c) for c in cs]
        o.row(lane, ins_v, out4(res, isf))


def f16_of(x):
    """x (an f32 value or an integer channel) rounded to f16, nearest even; overflow gives
    infinity."""
    try:
        return f16bits(float(x))
    except OverflowError:
        return 0x7c00 if x > 0 else 0xfc00


def tex_extras(o):
    """f16 results, texel offsets, depth compare, the residency predicate, linear memory."""
    # f16 results: each channel rounded to f16 (nearest even, overflow to infinity).
    vals = [[2049.0, 0.1, 70000.0, -3.3], [1.0009765625, 65519.0, -65520.0, 1e-8],
            [0.33333334, 2050.0, 3.0, -0.0], [1e-5, 6e-8, 3e-8, 65504.0]]
    imgp = Image('2d', 'f32', 4, (2, 2), texel=lambda l, m, x, y, z, c: f32(vals[2 * y + x][c]))
    pts = ((0, 0), (1, 0), (0, 1), (1, 1), (1.5, 0.5))
    smp = Sampler()
    o.group('tex .v2.f16x2 results: (r, g) and (b, a) rounded to f16, low half first',
            f'tex.2d.v2.f16x2.f32 {{d0, d1}}, [t, {{x, y}}] :: d0:b32 d1:b32 <- t:obj x:f32 y:f32 ; '
            f'global {pad(len(imgp.bytes()))} ; texture t {imgp.clause()} {smp.clause()}')
    o.case('', [(0, imgp)])
    for lane, (x, y) in enumerate(pts):
        t = sample(imgp, smp, 0, 0, (x, y))
        h = [f16_of(v) for v in t]
        o.row(lane, ['0', fs(x), fs(y)], [f'{h[0] | h[1] << 16:#x}', f'{h[2] | h[3] << 16:#x}'])
    o.group('tex .v4.f16 results',
            f'tex.2d.v4.f16.f32 {{r, g, b, a}}, [t, {{x, y}}] :: r:f16 g:f16 b:f16 a:f16 <- '
            f't:obj x:f32 y:f32 ; global {pad(len(imgp.bytes()))} ; '
            f'texture t {imgp.clause()} {smp.clause()}')
    o.case('', [(0, imgp)])
    for lane, (x, y) in enumerate(pts):
        t = sample(imgp, smp, 0, 0, (x, y))
        o.row(lane, ['0', fs(x), fs(y)], [f'{f16_of(v):#x}' for v in t])
    imgi = Image('2d', 's32', 2, (2, 1), texel=lambda l, m, x, y, z, c: (2049, -65520, 65519, 7)[2 * x + c])
    o.group('tex .v4.f16 results of an s32 texture: integers converted by their signedness',
            f'tex.2d.v4.f16.s32 {{r, g, b, a}}, [t, {{x, y}}] :: r:f16 g:f16 b:f16 a:f16 <- '
            f't:obj x:s32 y:s32 ; global {pad(len(imgi.bytes()))} ; '
            f'texture t {imgi.clause()} filter=point addr=clamp norm=0')
    o.case('', [(0, imgi)])
    for lane, x in enumerate((0, 1)):
        t = texel_value(imgi, Sampler(), 0, 0, (x, 0, 0))
        o.row(lane, ['0', str(x), '0'], [f'{f16_of(v):#x}' for v in t])

    # Texel offsets: added in texels after normalized coordinates are scaled, before the
    # linear filter's - 0.5 (a register's low four bits, signed).
    imgf = Image('2d', 'f32', 1, (6, 5), texel=small)
    for filt, norm in (('point', False), ('linear', False), ('linear', True)):
        smp = Sampler(filt, ('clamp',), norm)
        o.group(f'tex with a texel offset in registers ({filt}, '
                f'{"normalized" if norm else "texel"} coordinates)',
                f'tex.2d.v4.f32.f32 {{r, g, b, a}}, [t, {{x, y}}], {{ox, oy}} :: {OUT4F} <- '
                f't:obj x:f32 y:f32 ox:s32 oy:s32 ; global {pad(len(imgf.bytes()))} ; '
                f'texture t {imgf.clause()} {smp.clause()}')
        o.case('', [(0, imgf)])
        for lane, (x, y, ox, oy) in enumerate(((1.5, 1.5, 1, 0), (1.5, 1.5, 0, 2), (2.25, 3.75, -1, -1),
                                                (0.5, 0.5, 7, -8), (3.0, 2.0, 9, 0), (4.5, 0.5, 1, 15))):
            if norm:
                x, y = x / 8, y / 8
            sx = ox & 15
            sy = oy & 15
            sx, sy = (sx - 16 if sx > 7 else sx), (sy - 16 if sy > 7 else sy)
            dims = imgf.dims(0)
            u = f32(f32(f32(x) * dims[0]) + sx) if norm else f32(f32(x) + sx)
            v = f32(f32(f32(y) * dims[1]) + sy) if norm else f32(f32(y) + sy)
            res = sample(imgf, smp, 0, 0, (u, v), norm=False)
            o.row(lane, ['0', fs(x), fs(y), str(ox), str(oy)], out4(res, True))
    smp = Sampler('linear')
    o.group('tld4.r with an immediate texel offset',
            f'tld4.r.2d.v4.f32.f32 {{r, g, b, a}}, [t, {{x, y}}], {{-1, 2}} :: {OUT4F} <- '
            f't:obj x:f32 y:f32 ; global {pad(len(imgf.bytes()))} ; '
            f'texture t {imgf.clause()} {smp.clause()}')
    o.case('', [(0, imgf)])
    for lane, (x, y) in enumerate(((2.0, 1.0), (3.7, 0.2), (0.5, 2.5))):
        i, j = math.floor(f32(f32(x - 1) - 0.5)), math.floor(f32(f32(y + 2) - 0.5))
        res = [imgf.texel[0][0][0][min(max(b, 0), 4)][min(max(a, 0), 5)][0]
               for a, b in ((i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j))]
        o.row(lane, ['0', fs(x), fs(y)], [fs(v) for v in res])

    # Depth compare (docs/isa-notes.md: LEQUAL, the first channel of each texel fetched
    # replaced by 1.0 when f <= texel, else 0.0, before filtering) and the residency predicate.
    imgd = Image('2d', 'f32', 2, (4, 4), texel=lambda l, m, x, y, z, c: float(x + 4 * y) if c == 0 else 9.0 + x)
    for filt in ('point', 'linear'):
        smp = Sampler(filt)
        o.group(f'tex with a depth-compare value ({filt}) and the residency predicate',
                f'tex.2d.v4.f32.f32 {{r, g, b, a}}|p, [t, {{x, y}}], f :: {OUT4F} p:pred <- '
                f't:obj x:f32 y:f32 f:f32 ; global {pad(len(imgd.bytes()))} ; '
                f'texture t {imgd.clause()} {smp.clause()}')
        o.case('', [(0, imgd)])
        for lane, (x, y, f) in enumerate(((1.5, 1.5, 5.0), (1.5, 1.5, 5.5), (2.0, 2.0, 9.0),
                                          (2.0, 2.0, 10.0), (0.25, 3.75, 12.0), (3.6, 0.4, 2.5))):
            cmp = Image('2d', 'f32', 2, (4, 4), texel=lambda l, m, xx, yy, z, c:
                        (1.0 if f <= imgd.texel[0][0][0][yy][xx][0] else 0.0) if c == 0
                        else imgd.texel[0][0][0][yy][xx][c])
            res = sample(cmp, smp, 0, 0, (x, y))
            o.row(lane, ['0', fs(x), fs(y), fs(f)], out4(res, True) + ['1'])

    # Linear memory (tex1Dfetch): integer indices, out of range reads 0.
    imgl = Image('linear', 's32', 4, (5,), texel=lambda l, m, x, y, z, c: 100 * x - 7 * c)
    o.group('tex.1d.v4.s32.s32 on linear memory (tex1Dfetch): out of range reads 0',
            f'tex.1d.v4.s32.s32 {{r, g, b, a}}, [t, {{x}}] :: r:s32 g:s32 b:s32 a:s32 <- t:obj x:s32 ; '
            f'global {pad(len(imgl.bytes()))} ; texture t {imgl.clause()} filter=point addr=clamp norm=0')
    o.case('', [(0, imgl)])
    for lane, x in enumerate((0, 1, 4, 5, -1, 1000)):
        t = imgl.texel[0][0][0][0][x] if 0 <= x < 5 else (0, 0, 0, 0)
        o.row(lane, ['0', str(x)], [str(v) for v in t])


def texture_isa():
    o = Out('texture.isa', 'Texture instructions: tex, tld4, txq, istypep (PTX ISA 9.7.10).')
    o.raw('# Each case makes its textures over its global image (tests/isa/texture.rs);')
    o.raw('# expected values from the CUDA Programming Guide texture-fetching formulas.')

    # 1D f32, point, texel coordinates: floor and clamp-to-edge.
    img = Image('1d', 'f32', 4, (8,), texel=small)
    pt = Sampler()
    tex_rows(o, img, pt, '1d', 'f32', 'f32',
             [(x,) for x in (0.0, 0.5, 0.99, 1.0, 3.25, 7.5, 7.999, 8.0, 12.0, -0.25, -5.0)])
    # 1D linear: 9-bit weights (0.3 -> 77/256), clamp at both ends.
    lin = Sampler('linear')
    tex_rows(o, img, lin, '1d', 'f32', 'f32',
             [(x,) for x in (0.5, 1.0, 1.25, 1.8, 2.3, 3.5, 4.75, 0.0, -1.0, 7.75, 9.0,
                             1.2001953125, 5.5 + 0.3)])
    # 1D s32 coordinates.
    tex_rows(o, img, pt, '1d', 'f32', 's32', [(x,) for x in (0, 1, 5, 7, 8, -1, 100)])
    # Every address mode, normalized coordinates, point and linear.
    for mode in ('wrap', 'clamp', 'mirror', 'border'):
        for filt in ('point', 'linear'):
            s = Sampler(filt, (mode,) * 3, True, border=(90.0, 91.0, 92.0, 93.0))
            tex_rows(o, img, s, '1d', 'f32', 'f32',
                     [(x,) for x in (0.0625, 0.5, 0.96875, 1.0, 1.0625, 1.5, 2.25, -0.0625,
                                     -0.5, -1.25, 0.03125, 0.3)])
    # 2D u8x4, element-type reads: u32 results; s8x2 s32 results (missing b 0, a 1).
    img2 = Image('2d', 'u8', 4, (5, 4), texel=lambda l, m, x, y, z, c: (x * 40 + y * 9 + c * 61) % 256)
    tex_rows(o, img2, Sampler(), '2d', 'u32', 'f32',
             [(x, y) for x, y in ((0, 0), (4.5, 3.5), (2.25, 1.75), (5, 4), (-1, 2), (3, 9))])
    tex_rows(o, img2, Sampler(), '2d', 'u32', 's32',
             [(x, y) for x, y in ((0, 0), (4, 3), (2, 1), (5, 1), (-3, -3))])
    imgs = Image('2d', 's8', 2, (4, 3), texel=lambda l, m, x, y, z, c: (x * 37 - y * 50 + c * 11) % 256 - 128)
    tex_rows(o, imgs, Sampler(), '2d', 's32', 'f32',
             [(x, y) for x, y in ((0, 0), (3.5, 2.5), (1, 1), (2.9, 0.1))])
    # Normalized-float reads: u8 point, s8 (with -128 -> -1), u16.
    tex_rows(o, img2, Sampler(read='float'), '2d', 'f32', 'f32',
             [(x, y) for x, y in ((0, 0), (1, 0), (4, 3), (2.5, 1.5), (3, 2))])
    tex_rows(o, imgs, Sampler(read='float'), '2d', 'f32', 'f32',
             [(x, y) for x, y in ((0, 0), (1, 2), (3, 1), (2, 2))])
    img16 = Image('2d', 'u16', 1, (3, 3), texel=lambda l, m, x, y, z, c: (x * 30011 + y * 7001) % 65536)
    tex_rows(o, img16, Sampler(read='float'), '2d', 'f32', 'f32',
             [(x, y) for x, y in ((0, 0), (1, 0), (2, 2), (1, 2))])
    # Linear filtering of normalized u8 texels of 0 and 255 (exact 0.0 and 1.0).
    imgb = Image('2d', 'u8', 1, (4, 4), texel=lambda l, m, x, y, z, c: 255 if (x + y) % 2 else 0)
    tex_rows(o, imgb, Sampler('linear', read='float'), '2d', 'f32', 'f32',
             [(x, y) for x, y in ((1, 1), (1.25, 1), (1.5, 1.5), (2.2, 0.9), (0.3, 3.7))])
    # 2D f32 linear with mixed address modes (wrap x, mirror y), normalized.
    imgf = Image('2d', 'f32', 2, (4, 4), texel=small)
    tex_rows(o, imgf, Sampler('linear', ('wrap', 'mirror', 'clamp'), True), '2d', 'f32', 'f32',
             [(x, y) for x, y in ((0.125, 0.125), (0.0, 0.0), (0.3, 0.8), (1.1, 1.1),
                                  (-0.2, -0.2), (0.9375, 0.5))])
    tex_rows(o, imgf, Sampler('linear', ('border',) * 3, False, border=(-1.0, -2.0, -3.0, -4.0)),
             '2d', 'f32', 'f32',
             [(x, y) for x, y in ((0.5, 0.5), (0.0, 0.0), (4.0, 2.0), (3.75, 3.75), (-0.5, 1.5))])
    # f16 texels.
    imgh = Image('2d', 'f16', 4, (3, 2), texel=lambda l, m, x, y, z, c: (x - 2 * y + c) * 0.5)
    tex_rows(o, imgh, Sampler('linear'), '2d', 'f32', 'f32',
             [(x, y) for x, y in ((0.5, 0.5), (1.0, 1.0), (2.25, 0.75))])
    # 3D.
    img3 = Image('3d', 'f32', 1, (3, 3, 4), texel=small)
    tex_rows(o, img3, Sampler(), '3d', 'f32', 'f32',
             [(x, y, z) for x, y, z in ((0, 0, 0), (2.5, 1.5, 3.5), (1, 2, 3), (9, -1, 2))])
    tex_rows(o, img3, Sampler('linear'), '3d', 'f32', 'f32',
             [(x, y, z) for x, y, z in ((1, 1, 1), (1.25, 2, 2.5), (0.5, 0.5, 0.5), (2.9, 0.1, 3.7))])
    tex_rows(o, img3, Sampler(), '3d', 'f32', 's32',
             [(x, y, z) for x, y, z in ((0, 0, 0), (2, 1, 3), (1, 2, 4), (-1, 1, 1))])
    # Layered: a1d, a2d (the index clamped to the layers).
    imga = Image('a1d', 'f32', 1, (4,), layers=3, texel=small)
    tex_rows(o, imga, Sampler('linear'), 'a1d', 'f32', 'f32',
             [(l, x) for l, x in ((0, 0.5), (1, 1.5), (2, 2.25), (1, 3.9), (5, 1.5), (-1, 2.5))])
    imga2 = Image('a2d', 'f32', 2, (3, 2), layers=2, texel=small)
    tex_rows(o, imga2, Sampler(), 'a2d', 'f32', 'f32',
             [(l, x, y) for l, x, y in ((0, 0, 0), (1, 2.5, 1.5), (1, 0.5, 0.5), (3, 1, 1))])
    tex_rows(o, imga2, Sampler('linear', ('wrap', 'wrap'), True), 'a2d', 'f32', 'f32',
             [(l, x, y) for l, x, y in ((0, 0.5, 0.5), (1, 0.0, 0.0), (1, 0.9, 0.3))])
    tex_rows(o, imga2, Sampler(), 'a2d', 'f32', 's32',
             [(l, x, y) for l, x, y in ((0, 0, 0), (1, 2, 1), (1, 5, 0))])
    # Cube maps: each face by its major axis; acube.
    imgc = Image('cube', 'f32', 1, (4,), texel=small)
    dirs = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1),
            (2, 1, -0.5), (-2, 1.5, 0.25), (0.5, 2, -1.5), (-0.75, -2, 1), (1, -1.5, 2),
            (-1.25, 0.5, -2), (2, 2, 1), (1, 2, 2)]
    tex_rows(o, imgc, Sampler(), 'cube', 'f32', 'f32', dirs)
    tex_rows(o, imgc, Sampler('linear'), 'cube', 'f32', 'f32', dirs[:12])
    imgac = Image('acube', 'f32', 1, (2,), layers=2, texel=small)
    tex_rows(o, imgac, Sampler(), 'acube', 'f32', 'f32',
             [(l,) + d for l, d in zip((0, 1, 1, 0, 1, 1), dirs)])

    tex_extras(o)

    # tex.level and tex.grad on a mipmapped 2D texture.
    imgm = Image('2d', 'f32', 1, (8, 8), levels=4, texel=small)
    for mip in ('point', 'linear'):
        smp = Sampler('point', norm=True, mipfilter=mip)
        o.group(f'tex.level, mipmap filter {mip}',
                f'tex.level.2d.v4.f32.f32 {{r, g, b, a}}, [t, {{x, y}}], lod :: {OUT4F} <- '
                f't:obj x:f32 y:f32 lod:f32 ; global {pad(len(imgm.bytes()))} ; '
                f'texture t {imgm.clause()} {smp.clause()}')
        o.case('', [(0, imgm)])
        for lane, (x, y, lod) in enumerate(((0.3, 0.6, 0.0), (0.3, 0.6, 1.0), (0.3, 0.6, 1.25),
                                            (0.7, 0.1, 1.5), (0.7, 0.1, 2.0), (0.9, 0.9, 3.0),
                                            (0.9, 0.9, 7.0), (0.1, 0.4, -2.0),
                                            (0.55, 0.45, 2.75))):
            res = lod_sample(imgm, smp, 0, (x, y), lod)
            o.row(lane, ['0', fs(x), fs(y), fs(lod)], out4(res, True))
    smp = Sampler('point', norm=True)
    o.group('tex.grad: level of detail log2 of the longer gradient in texels (point mip filter)',
            f'tex.grad.2d.v4.f32.f32 {{r, g, b, a}}, [t, {{x, y}}], {{dx, dy}}, {{ex, ey}} :: '
            f'{OUT4F} <- t:obj x:f32 y:f32 dx:f32 dy:f32 ex:f32 ey:f32 ; '
            f'global {pad(len(imgm.bytes()))} ; texture t {imgm.clause()} {smp.clause()}')
    o.case('', [(0, imgm)])
    for lane, (x, y, g1, g2) in enumerate((((0.3, 0.6, (0.125, 0), (0, 0.125)),
                                            (0.3, 0.6, (0.25, 0), (0, 0.125)),
                                            (0.7, 0.2, (0.0, 0.5), (0.125, 0)),
                                            (0.7, 0.2, (1.0, 0.0), (0, 1.0)),
                                            (0.5, 0.5, (0.0625, 0), (0, 0.0625))))):
        texels = max(math.hypot(g1[0] * 8, g1[1] * 8), math.hypot(g2[0] * 8, g2[1] * 8))
        lod = math.log2(texels)
        res = lod_sample(imgm, smp, 0, (x, y), lod)
        o.row(lane, ['0', fs(x), fs(y), fs(g1[0]), fs(g1[1]), fs(g2[0]), fs(g2[1])],
              out4(res, True))

    # Independent mode: a .texref and a .samplerref (one case each: module variables).
    o.raw('')
    o.raw('.target sm_90, texmode_independent')
    smp = Sampler('linear', ('wrap', 'clamp'), True)
    o.group('independent mode: texref tx with samplerref sx (filter, wrap x, clamp y, normalized)',
            f'tex.2d.v4.f32.f32 {{r, g, b, a}}, [tx, sx, {{x, y}}] :: {OUT4F} <- x:f32 y:f32 ; '
            f'global {pad(len(imgf.bytes()))} ; texture tx {imgf.clause()} ref ; '
            f'sampler sx {smp.clause()} ref')
    o.case('', [(0, imgf)])
    for lane, (x, y) in enumerate(((0.125, 0.125), (0.0, 0.0), (1.3, 0.8), (-0.1, 1.5))):
        o.row(lane, [fs(x), fs(y)], out4(sample(imgf, smp, 0, 0, (x, y)), True))
    o.group('independent mode: txq of the sampler', 
            'txq.filter_mode.b32 f, [sx]; txq.addr_mode_0.b32 a0, [sx]; '
            'txq.addr_mode_1.b32 a1, [sx]; txq.width.b32 w, [tx] :: f:b32 a0:b32 a1:b32 w:b32 '
            f'<- ; global {pad(len(imgf.bytes()))} ; texture tx {imgf.clause()} ref ; '
            f'sampler sx {smp.clause()} ref')
    o.case('', [(0, imgf)])
    o.row(0, [], ['1', str(ADDR['wrap']), str(ADDR['clamp']), '4'])
    o.raw('')
    o.raw('.target sm_100')
    # Unified mode with a .texref variable.
    smp = Sampler('point', ('clamp',), False)
    o.group('unified mode: a .texref variable bound by the host',
            f'tex.1d.v4.f32.s32 {{r, g, b, a}}, [tr, {{x}}] :: {OUT4F} <- x:s32 ; '
            f'global {pad(len(img.bytes()))} ; texture tr {img.clause()} {smp.clause()} ref')
    o.case('', [(0, img)])
    for lane, x in enumerate((0, 3, 7, 9, -2)):
        o.row(lane, [str(x)], out4(sample(img, smp, 0, 0, (float(x),)), True))

    # tld4: each component's gather on 2D (texel and normalized coordinates, border).
    for comp_i, comp in enumerate('rgba'):
        imgg = Image('2d', 'f32', 4, (4, 3), texel=small)
        smp = Sampler('linear', ('border',) * 3, comp == 'b',
                      border=(70.0, 71.0, 72.0, 73.0)) if comp in 'gb' else Sampler('linear')
        o.group(f'tld4.{comp}: the footprint (i, j+1), (i+1, j+1), (i+1, j), (i, j)',
                f'tld4.{comp}.2d.v4.f32.f32 {{r, g, b, a}}, [t, {{x, y}}] :: {OUT4F} <- '
                f't:obj x:f32 y:f32 ; global {pad(len(imgg.bytes()))} ; '
                f'texture t {imgg.clause()} {smp.clause()}')
        o.case('', [(0, imgg)])
        pts = ((1.0, 1.0), (1.7, 2.2), (0.2, 0.1), (3.9, 2.9), (2.5, 1.5), (0.25, 0.5))
        for lane, (x, y) in enumerate(pts):
            dims = imgg.dims(0)
            u, v = (x * dims[0], y * dims[1]) if smp.norm else (x, y)
            i, j = math.floor(f32(f32(u) - 0.5)), math.floor(f32(f32(v) - 0.5))
            modes = smp.addr if smp.norm else tuple(
                'border' if m == 'border' else 'clamp' for m in smp.addr)
            res = []
            for (a, b) in ((i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j)):
                idx = (address(modes[0], a, dims[0]), address(modes[1], b, dims[1]), 0)
                res.append(texel_value(imgg, smp, 0, 0, idx)[comp_i])
            o.row(lane, ['0', fs(x), fs(y)], out4(res, True))
    # tld4 on a2d (s32 results of an s32 texture) and cube.
    imgi = Image('a2d', 's32', 2, (3, 3), layers=2, texel=lambda l, m, x, y, z, c: -1000 * m + 10 * y + x - 7 * c)
    o.group('tld4.g.a2d with s32 results',
            f'tld4.g.a2d.v4.s32.f32 {{r, g, b, a}}, [t, {{l, x, y, y}}] :: r:s32 g:s32 b:s32 a:s32 '
            f'<- t:obj l:s32 x:f32 y:f32 ; global {pad(len(imgi.bytes()))} ; '
            f'texture t {imgi.clause()} filter=point addr=clamp norm=0')
    o.case('', [(0, imgi)])
    for lane, (l, x, y) in enumerate(((0, 1, 1), (1, 1.5, 2.5), (1, 0.0, 0.0), (0, 3, 3))):
        i, j = math.floor(x - 0.5), math.floor(y - 0.5)
        res = [imgi.texel[0][l][0][min(max(b, 0), 2)][min(max(a, 0), 2)][1]
               for a, b in ((i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j))]
        o.row(lane, ['0', str(l), fs(x), fs(y)], [str(v) for v in res])
    o.group('tld4.r.cube: the footprint on the face the direction selects',
            f'tld4.r.cube.v4.f32.f32 {{r, g, b, a}}, [t, {{x, y, z, z}}] :: {OUT4F} <- '
            f't:obj x:f32 y:f32 z:f32 ; global {pad(len(imgc.bytes()))} ; '
            f'texture t {imgc.clause()} filter=linear addr=clamp norm=1')
    o.case('', [(0, imgc)])
    for lane, d in enumerate(dirs[:12]):
        face, s, t = cube_face(*d)
        i, j = math.floor(f32(f32(s * 4) - 0.5)), math.floor(f32(f32(t * 4) - 0.5))
        res = [imgc.texel[0][face][0][min(max(b, 0), 3)][min(max(a, 0), 3)][0]
               for a, b in ((i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j))]
        o.row(lane, ['0'] + [fs(c) for c in d], [fs(v) for v in res])

    # txq: every query on textures of every kind.
    queries = ['width', 'height', 'depth', 'channel_data_type', 'channel_order',
               'normalized_coords', 'filter_mode', 'addr_mode_0', 'addr_mode_1',
               'addr_mode_2', 'num_mipmap_levels', 'num_samples', 'array_size']
    texs = [
        (Image('1d', 'f32', 4, (8,), texel=small), Sampler()),
        (Image('2d', 'u8', 4, (5, 4), texel=small), Sampler('linear', ('wrap', 'mirror', 'border'), True, 'float')),
        (Image('3d', 's16', 2, (3, 5, 2), texel=small), Sampler('point', ('border', 'clamp', 'wrap'), True)),
        (Image('a2d', 'u16', 1, (6, 2), layers=3, texel=small), Sampler('point', ('mirror',), False, 'float')),
        (Image('cube', 'f16', 2, (4,), levels=3, texel=small), Sampler('linear', ('clamp',), True)),
        (Image('a1d', 's8', 4, (7,), layers=5, texel=small), Sampler()),
        (Image('2d', 'u32', 1, (16, 8), levels=5, texel=small), Sampler()),
    ]
    at, clauses, imgs_at = 0, [], []
    for k, (im, sm) in enumerate(texs):
        clauses.append(f'texture t{k} {im.clause()} {sm.clause()} at={at}')
        imgs_at.append((at, im))
        at += (len(im.bytes()) + 15) // 16 * 16
    outs = ' '.join(f'{q}:b32' for q in queries)
    ptx = '; '.join(f'txq.{q}.b32 {q}, [t]' for q in queries)
    o.group('txq: every texture query (OpenCL channel codes; CUDA enum orders for the modes)',
            f'{ptx} :: {outs} <- t:obj ; global {pad(at)} ; ' + ' ; '.join(clauses))
    o.case('', imgs_at)
    for k, (im, sm) in enumerate(texs):
        w, h, d = im.size
        layered = im.kind in ('a1d', 'a2d', 'acube')
        # A one-mode addr= stands for all three. The sizes a kind does not have and the
        # array size of a texture that is not layered are not defined: '*'.
        nd = {'1d': 1, 'a1d': 1, '2d': 2, 'a2d': 2, 'cube': 2, 'acube': 2, '3d': 3}[im.kind]
        vals = [w, h if nd > 1 else '*', d if nd > 2 else '*',
                CL_TYPE[(im.ty, sm.read == 'float' and not TYPES[im.ty][3])],
                CL_ORDER[im.ch], int(sm.norm), int(sm.filter == 'linear'),
                ADDR[sm.addr[0]], ADDR[sm.addr[1]], ADDR[sm.addr[2]],
                im.levels, 0, im.layers if layered else '*']
        o.row(k, [str(k)], [str(v) for v in vals])
    o.group('txq.level: the size of a mipmap level',
            'txq.level.width.b32 w, [t], l; txq.level.height.b32 h, [t], l; '
            'txq.level.depth.b32 d, [t], l :: w:b32 h:b32 d:b32 <- t:obj l:s32 ; '
            f'global {pad(len(texs[6][0].bytes()))} ; texture t {texs[6][0].clause()} filter=point addr=clamp norm=0')
    o.case('', [(0, texs[6][0])])
    for lane, l in enumerate(range(5)):
        w, h, d = texs[6][0].dims(l)
        o.row(lane, ['0', str(l)], [str(w), str(h), str(d)])

    # istypep: every kind of handle against every query.
    im = Image('2d', 'f32', 1, (2, 2), texel=small)
    o.group('istypep: a texture, a sampler and a surface handle',
            'istypep.texref p, h; istypep.samplerref q, h; istypep.surfref s, h :: '
            f'p:pred q:pred s:pred <- h:obj ; global 128 ; texture t {im.clause()} '
            f'filter=point addr=clamp norm=0 ; sampler m filter=linear addr=wrap norm=1 ; '
            f'surface s0 {im.clause()}')
    o.case('', [(0, im)])
    o.row(0, ['0'], ['1', '0', '0'])
    o.row(1, ['1'], ['0', '1', '0'])
    o.row(2, ['2'], ['0', '0', '1'])
    o.write()


# ---------------------------------------------------------------- surface.isa

def surface_isa():
    o = Out('surface.isa', 'Surface instructions: suld.b, sust.b, sust.p, sured.b, suq '
            '(PTX ISA 9.7.11).')
    o.raw('# x is in bytes for the .b forms; expected images from the same formulas.')

    def img_u32(kind, size, layers=1):
        return Image(kind, 'u32', 1, size, layers,
                     texel=lambda l, m, x, y, z, c: 0x01000000 * (m + 1) + 0x10000 * z + 0x100 * y + x)

    # suld.b.<geom>.b32 with each clamp mode, in range and out of range.
    geoms = [('1d', (6,), 1), ('2d', (5, 3), 1), ('3d', (3, 2, 4), 1), ('a1d', (4,), 3),
             ('a2d', (3, 3), 2)]
    for geom, size, layers in geoms:
        im = img_u32(geom, size, layers)
        w, h, d = im.size
        nc = {'1d': 1, '2d': 2, '3d': 3, 'a1d': 1, 'a2d': 2}[geom]
        layered = geom.startswith('a')
        names = (['l'] if layered else []) + ['x', 'y', 'z'][:nc]
        vec = list(names)
        while len(vec) not in (1, 2, 4):
            vec.append(vec[-1])
        for mode in ('trap', 'clamp', 'zero'):
            o.group(f'suld.b.{geom}.b32.{mode}',
                    f'suld.b.{geom}.b32.{mode} {{d}}, [s, {{{", ".join(vec)}}}] :: d:b32 <- '
                    f's:obj {" ".join(n + ":s32" for n in names)} ; global {pad(4 * len(im.words()))} ; '
                    f'surface s {im.clause()}')
            o.case('', [(0, im)])
            pts = [(0, 0, 0, 0), (layers - 1, w - 1, h - 1, d - 1), (layers // 2, 1, h // 2, d // 2)]
            if mode != 'trap':
                pts += [(0, w, 0, 0), (0, -1, h - 1, 0), (layers - 1, 2, h + 3, d),
                        (layers, 0, 0, 0), (-1, 1, -1, -2)]
            lane = 0
            for (l, x, y, z) in pts:
                coords = {'l': l, 'x': 4 * x, 'y': y, 'z': z}
                idx = [x, y, z][:nc]
                lims = [w, h, d][:nc]
                out_of = any(not 0 <= i < n for i, n in zip(idx, lims)) or \
                    (layered and not 0 <= l < layers)
                if out_of and not layered and l != 0:
                    continue
                if not layered and l != 0:
                    continue
                if out_of and mode == 'zero':
                    v = 0
                else:
                    ci = [min(max(i, 0), n - 1) for i, n in zip(idx, lims)] + [0] * (3 - nc)
                    cl = min(max(l, 0), layers - 1)
                    v = im.texel[0][cl][ci[2]][ci[1]][ci[0]][0]
                o.row(lane, ['0'] + [str(coords[n]) for n in names], [f'{v:#x}'])
                lane += 1

    # suld.b vector and narrow forms on a 2D u8x4 surface; .b64 and .v2.b64 on 2D u32x2... as bytes.
    im8 = Image('2d', 'u8', 4, (4, 2), texel=lambda l, m, x, y, z, c: (16 * (y * 4 + x) + c * 3 + 1) & 0xff)
    raw = im8.bytes()
    row_bytes = 16
    for ty, vec, nb in (('b8', 4, 1), ('b8', 2, 1), ('b16', 2, 2), ('b16', 4, 2), ('b32', 2, 4),
                        ('b32', 4, 4), ('b64', 1, 8), ('b64', 2, 8), ('b8', 1, 1), ('b16', 1, 2)):
        acc = nb * vec
        outs = [f'd{k}' for k in range(vec)]
        rty = 'b16' if nb <= 2 else f'b{8 * nb}'
        vs = 'v%d.' % vec if vec > 1 else ''
        for mode in ('clamp', 'zero'):
            o.group(f'suld.b.2d.{vs}{ty}.{mode}: {acc}-byte accesses, x in bytes',
                    f'suld.b.2d.{vs}{ty}.{mode} {{{", ".join(outs)}}}, [s, {{x, y}}] :: '
                    f'{" ".join(n + ":" + rty for n in outs)} <- s:obj x:s32 y:s32 ; '
                    f'global {pad(len(raw))} ; surface s {im8.clause()}')
            o.case('', [(0, im8)])
            lane = 0
            for (x, y) in ((0, 0), (row_bytes - acc, 1), (acc, 0), (row_bytes, 0), (-acc, 1),
                           (0, 2), (row_bytes + 2 * acc, -1)):
                if x % acc:
                    continue
                inside = 0 <= x < row_bytes and 0 <= y < 2
                if not inside and mode == 'zero':
                    vals = [0] * vec
                else:
                    cx = min(max(x, 0), row_bytes - acc) // acc * acc
                    cy = min(max(y, 0), 1)
                    base = cy * row_bytes + cx
                    vals = [int.from_bytes(raw[base + k * nb: base + (k + 1) * nb], 'little')
                            for k in range(vec)]
                o.row(lane, ['0', str(x), str(y)], [f'{v:#x}' for v in vals])
                lane += 1

    # sust.b: each lane stores to its own place; out of range .zero drops, .clamp clamps.
    for mode in ('trap', 'clamp', 'zero'):
        im = img_u32('2d', (4, 3))
        words = im.words()
        new = list(words)
        pts = [(0, 0), (3, 2), (1, 1), (2, 0)]
        if mode != 'trap':
            pts += [(7, 1), (-2, 2), (1, 9)]
        lanes = []
        for k, (x, y) in enumerate(pts):
            v = 0xA0000000 + k
            inside = 0 <= x < 4 and 0 <= y < 3
            if inside or mode == 'clamp':
                cx, cy = min(max(x, 0), 3), min(max(y, 0), 2)
                new[cy * 4 + cx] = v
            lanes.append((k, x, y, v))
        o.group(f'sust.b.2d.b32.{mode}',
                f'sust.b.2d.b32.{mode} [s, {{x, y}}], {{v}} :: <- s:obj x:s32 y:s32 v:b32 ; '
                f'global {pad(4 * len(words))} ; surface s {im.clause()}')
        o.case('', [(0, im)])
        for k, x, y, v in lanes:
            o.row(k, ['0', str(4 * x), str(y), f'{v:#x}'], [])
        o.raw('expect global 0x0: ' + ' '.join(f'{w:#010x}' for w in new))
    # sust.b vector forms on 3D, a1d, a2d.
    for geom, size, layers, ty, vec in (('3d', (2, 2, 2), 1, 'b16', 4), ('a1d', (4,), 2, 'b8', 4),
                                         ('a2d', (2, 2), 2, 'b64', 2), ('1d', (8,), 1, 'b32', 2)):
        nb = int(ty[1:]) // 8
        im = Image(geom, 'u8', 1, size, layers, texel=lambda l, m, x, y, z, c: 0)
        w, h, d = im.size
        acc = nb * vec
        texels_per = acc  # u8 texels: one byte each
        nc = {'1d': 1, '2d': 2, '3d': 3, 'a1d': 1, 'a2d': 2}[geom]
        layered = geom.startswith('a')
        names = (['l'] if layered else []) + ['x', 'y', 'z'][:nc]
        vecn = list(names)
        while len(vecn) not in (1, 2, 4):
            vecn.append(vecn[-1])
        rty = 'b16' if nb <= 2 else f'b{8 * nb}'
        srcs = [f'v{k}' for k in range(vec)]
        # A surface wide enough for the accesses: texel bytes w*1 must hold acc.
        size = (max(w, 2 * acc),) + size[1:]
        im = Image(geom, 'u8', 1, size, layers, texel=lambda l, m, x, y, z, c: 0)
        w, h, d = im.size
        mem = bytearray(im.bytes())
        o.group(f'sust.b.{geom}.v{vec}.{ty}.trap',
                f'sust.b.{geom}.v{vec}.{ty}.trap [s, {{{", ".join(vecn)}}}], {{{", ".join(srcs)}}} :: '
                f'<- s:obj {" ".join(n + ":s32" for n in names)} {" ".join(s + ":" + rty for s in srcs)} ; '
                f'global {pad(len(mem))} ; surface s {im.clause()}')
        o.case('', [(0, im)])
        lane = 0
        for (l, x, y, z) in ((0, 0, 0, 0), (layers - 1, w - acc, h - 1, d - 1)):
            vals = [(0x1111 * (lane + 1) * (k + 3)) & ((1 << (8 * nb)) - 1) for k in range(vec)]
            coords = {'l': l, 'x': x, 'y': y, 'z': z}
            base = l * w * h * d + z * w * h + y * w + x
            for k, v in enumerate(vals):
                mem[base + k * nb: base + (k + 1) * nb] = v.to_bytes(nb, 'little')
            o.row(lane, ['0'] + [str(coords[n]) for n in names] + [f'{v:#x}' for v in vals], [])
            lane += 1
        mem += b'\0' * (-len(mem) % 4)
        ws = [struct.unpack_from('<I', mem, i)[0] for i in range(0, len(mem), 4)]
        o.raw('expect global 0x0: ' + ' '.join(f'{v:#010x}' for v in ws))

    # sust.p: formatted stores (f32 data to a float surface, integers truncated to the
    # channel width); x in elements.
    for ty, ch, vals in (('f32', 4, [1.5, -2.0, 0.25, 1e10]), ('u8', 4, [0x1ff, 7, 0xabc, 255]),
                         ('s16', 2, [-1, 0x12345])):
        im = Image('2d', ty, ch, (3, 2), texel=lambda l, m, x, y, z, c: 0)
        isf = TYPES[ty][3]
        nb, code, _, _ = TYPES[ty]
        mem = bytearray(im.bytes())
        x, y = 2, 1
        base = (y * 3 + x) * nb * ch
        for c in range(ch):
            v = vals[c]
            if isf:
                mem[base + c * nb: base + (c + 1) * nb] = struct.pack('<' + code, v)
            else:
                mem[base + c * nb: base + (c + 1) * nb] = (v & ((1 << (8 * nb)) - 1)).to_bytes(nb, 'little')
        srcs = [f'v{k}' for k in range(ch)]
        vs = f'.v{ch}' if ch > 1 else ''
        o.group(f'sust.p.2d{vs}.b32 on a {ty}x{ch} surface',
                f'sust.p.2d{vs}.b32.trap [s, {{x, y}}], {{{", ".join(srcs)}}} :: <- s:obj x:s32 y:s32 '
                f'{" ".join(s + ":b32" for s in srcs)} ; global {pad(len(mem))} ; surface s {im.clause()}')
        o.case('', [(0, im)])
        o.row(0, ['0', str(x), str(y)] +
              [f'{f32bits(v):#x}' if isf else f'{v & 0xffffffff:#x}' for v in vals], [])
        mem += b'\0' * (-len(mem) % 4)
        ws = [struct.unpack_from('<I', mem, i)[0] for i in range(0, len(mem), 4)]
        o.raw('expect global 0x0: ' + ' '.join(f'{v:#010x}' for v in ws))

    # sured.b: every lane reduces into the same or its own element.
    ops = [('add', 'u32'), ('add', 's32'), ('min', 'u32'), ('min', 's32'), ('max', 'u32'),
           ('max', 's32'), ('and', 'b32'), ('or', 'b32'), ('add', 'u64'), ('min', 's64'),
           ('max', 'u64')]
    for op, ty in ops:
        nb = 8 if '64' in ty else 4
        signed = ty[0] == 's'
        mask = (1 << (8 * nb)) - 1
        init = [0x80000005, 7, 0xfffffff0, 3] if nb == 4 else \
            [0x8000000000000005, 7, 0xfffffffffffffff0, 3]
        im = Image('2d', 'u32' if nb == 4 else 'u32', 1 if nb == 4 else 2, (2, 2),
                   texel=lambda l, m, x, y, z, c: 0)
        cur = list(init)
        lanes = []
        for k in range(6):
            elem = k % 4 if k < 4 else 1
            v = [(3, -2, 0x7fffffff, 12, 1, 0x10)[k]][0] & mask
            a, b = cur[elem], v
            if signed:
                sa = a - (1 << (8 * nb)) if a >> (8 * nb - 1) else a
                sb = b - (1 << (8 * nb)) if b >> (8 * nb - 1) else b
            else:
                sa, sb = a, b
            if op == 'add':
                r = (a + b) & mask
            elif op == 'min':
                r = (sa if sa <= sb else sb) & mask
            elif op == 'max':
                r = (sa if sa >= sb else sb) & mask
            elif op == 'and':
                r = a & b
            else:
                r = a | b
            cur[elem] = r
            lanes.append((k, elem, v))
        rty = 'b64' if nb == 8 else 'b32'
        o.group(f'sured.b.{op}.2d.{ty}: lanes in order (one element reduced twice)',
                f'sured.b.{op}.2d.{ty}.trap [s, {{x, y}}], v :: <- s:obj x:s32 y:s32 v:{rty} ; '
                f'global 128 ; surface s {im.clause()}')
        # The element values go in as words.
        o.case('')
        words = []
        for v in init:
            words += [v & 0xffffffff] + ([v >> 32] if nb == 8 else [])
        o.raw('init global 0x0: ' + ' '.join(f'{v:#010x}' for v in words))
        for k, elem, v in lanes:
            o.row(k, ['0', str(nb * (elem % 2)), str(elem // 2), f'{v:#x}'], [])
        words = []
        for v in cur:
            words += [v & 0xffffffff] + ([v >> 32] if nb == 8 else [])
        o.raw('expect global 0x0: ' + ' '.join(f'{v:#010x}' for v in words))
    # sured.p: x in elements; .b32 data taken as u32 on a UINT surface, s32 on a SINT one.
    for op, ty, init, vs in (('add', 'u32', [5, 0xfffffffe, 9], [3, 4, 0x10]),
                             ('min', 's32', [5, -3, 9], [-7, 4, 0x7fffffff]),
                             ('max', 's32', [5, -3, 9], [-7, -2, 0x7fffffff]),
                             ('min', 'u32', [5, 0xfffffffd, 9], [0xffffffff, 4, 2]),
                             ('max', 'u32', [5, 0xfffffffd, 9], [0xffffffff, 4, 2])):
        signed = ty == 's32'
        im = Image('1d', ty, 1, (3,), texel=lambda l, m, x, y, z, c: init[x])
        cur = [v & 0xffffffff for v in init]
        for x, v in enumerate(vs):
            a, b = cur[x], v & 0xffffffff
            sa = a - (1 << 32) if signed and a >> 31 else a
            sb = b - (1 << 32) if signed and b >> 31 else b
            r = {'add': a + b, 'min': min(sa, sb), 'max': max(sa, sb)}[op]
            cur[x] = r & 0xffffffff
        o.group(f'sured.p.{op}.1d.b32 on a {ty} surface (x in elements)',
                f'sured.p.{op}.1d.b32.trap [s, {{x}}], v :: <- s:obj x:s32 v:b32 ; global 128 ; '
                f'surface s {im.clause()}')
        o.case('', [(0, im)])
        for x, v in enumerate(vs):
            o.row(x, ['0', str(x), f'{v & 0xffffffff:#x}'], [])
        o.raw('expect global 0x0: ' + ' '.join(f'{v:#010x}' for v in cur))
    # sured.p on .b64: 8-byte texels (two 32-bit channels), signed on a SINT surface.
    for op, ty in (('max', 's32'), ('min', 'u32'), ('min', 's32')):
        signed = ty == 's32'
        init = [5, (1 << 64) - 3, 1 << 40]
        vs = [(1 << 64) - 7, 4, (1 << 63) + 1]
        im = Image('1d', ty, 2, (3,), texel=lambda l, m, x, y, z, c: 0)
        cur = list(init)
        for x, v in enumerate(vs):
            a, b = cur[x], v
            sa = a - (1 << 64) if signed and a >> 63 else a
            sb = b - (1 << 64) if signed and b >> 63 else b
            cur[x] = (min(sa, sb) if op == 'min' else max(sa, sb)) & ((1 << 64) - 1)
        o.group(f'sured.p.{op}.1d.b64 on a {ty}x2 surface (x in elements)',
                f'sured.p.{op}.1d.b64.trap [s, {{x}}], v :: <- s:obj x:s32 v:b64 ; global 128 ; '
                f'surface s {im.clause()}')
        o.case('')
        words = []
        for v in init:
            words += [v & 0xffffffff, v >> 32]
        o.raw('init global 0x0: ' + ' '.join(f'{v:#010x}' for v in words))
        for x, v in enumerate(vs):
            o.row(x, ['0', str(x), f'{v:#x}'], [])
        words = []
        for v in cur:
            words += [v & 0xffffffff, v >> 32]
        o.raw('expect global 0x0: ' + ' '.join(f'{v:#010x}' for v in words))
    # sured.b out of range: .zero drops, .clamp reduces the nearest element.
    for mode in ('zero', 'clamp'):
        im = Image('1d', 'u32', 1, (4,), texel=lambda l, m, x, y, z, c: 10 * (x + 1))
        cur = [10, 20, 30, 40]
        pts = [(1, 5), (6, 100), (-1, 1000)]
        for x, v in pts:
            if 0 <= x < 4 or mode == 'clamp':
                cur[min(max(x, 0), 3)] += v
        o.group(f'sured.b.add.1d.u32.{mode} out of range',
                f'sured.b.add.1d.u32.{mode} [s, {{x}}], v :: <- s:obj x:s32 v:b32 ; global 128 ; '
                f'surface s {im.clause()}')
        o.case('', [(0, im)])
        for k, (x, v) in enumerate(pts):
            o.row(k, ['0', str(4 * x), str(v)], [])
        o.raw('expect global 0x0: ' + ' '.join(f'{v:#010x}' for v in cur))

    # sured.p on 8- and 16-bit channels: the .b32 data's low bits combined with the sample's
    # first (R) channel at the channel's width (.add wraps; .min/.max signed on s8/s16, unsigned
    # on u8/u16), as sust.p converts a 32-bit value to the channel; the neighbouring samples'
    # bytes (and the other channels of a two-channel sample) stay.
    narrow = [('add', 'u8', 1, [0x10, 0xf0, 0x7f, 0x01, 0x80, 0x33, 0xfe, 0x44], [(1, 0x1ff), (2, 0x81), (6, 3)]),
              ('max', 's8', 1, [0x10, 0xf0, 0x7f, 0x01, 0x80, 0x33, 0xfe, 0x44], [(1, 0xfffffff5), (4, 0x7), (6, 0x1fd)]),
              ('min', 'u8', 1, [0x10, 0xf0, 0x7f, 0x01, 0x80, 0x33, 0xfe, 0x44], [(1, 0x1ef), (3, 0), (7, 0x40)]),
              ('or', 'u8', 1, [0x10, 0xf0, 0x7f, 0x01, 0x80, 0x33, 0xfe, 0x44], [(0, 0x101), (5, 0xc0)]),
              ('and', 'u16', 1, [0x1234, 0xfedc, 0x8000, 0x0ff0], [(1, 0xffff00ff), (2, 0)]),
              ('min', 's16', 1, [0x1234, 0xfedc, 0x8000, 0x0ff0], [(0, 0xffff8001), (1, 0x10000), (3, 0x7fff)]),
              ('max', 'u16', 1, [0x1234, 0xfedc, 0x8000, 0x0ff0], [(0, 0x1ffff), (2, 0x7fff), (3, 0x0ff1)]),
              ('add', 'u8', 2, [0x10, 0xf0, 0x7f, 0x01, 0x80, 0x33, 0xfe, 0x44], [(0, 0x1f5), (2, 0x103)])]
    for op, ty, ch, init, pts in narrow:
        bits = 16 if '16' in ty else 8
        m = (1 << bits) - 1
        signed = ty[0] == 's'
        n = len(init) // ch
        im = Image('1d', ty, ch, (n,),
                   texel=lambda l, mm, x, y, z, c, init=init, ch=ch, signed=signed, bits=bits:
                   (init[x * ch + c] - (1 << bits)) if signed and init[x * ch + c] >> (bits - 1)
                   else init[x * ch + c])
        cur = list(init)

        def sx(v):
            return v - (1 << bits) if signed and v >> (bits - 1) else v

        for x, v in pts:
            a, b = cur[x * ch], v & m
            r = {'add': a + b, 'and': a & b, 'or': a | b, 'min': min(sx(a), sx(b)),
                 'max': max(sx(a), sx(b))}[op]
            cur[x * ch] = r & m
        raw = b''.join(struct.pack('<B' if bits == 8 else '<H', v) for v in cur)
        raw += b'\0' * (-len(raw) % 4)
        o.group(f'sured.p.{op}.1d.b32 on a {ty}x{ch} surface: the R channel alone, at its width '
                f'(the data\'s low {bits} bits); neighbouring bytes unchanged',
                f'sured.p.{op}.1d.b32.trap [s, {{x}}], v :: <- s:obj x:s32 v:b32 ; global 64 ; '
                f'surface s {im.clause()}')
        o.case('', [(0, im)])
        for k, (x, v) in enumerate(pts):
            o.row(k, ['0', str(x), f'{v:#x}'], [])
        o.raw('expect global 0x0: ' + ' '.join(f'{struct.unpack_from("<I", raw, i)[0]:#010x}'
                                               for i in range(0, len(raw), 4)))
    # sured .trap out of range (§9.7.11.3): the access faults; .b (x in bytes) and .p
    # (x in samples), each past the last element and before the first.
    for form, x, ty, fmt in (('b', 16, 'u32', 'u32'), ('p', -1, 'b32', 'u32'), ('p', 8, 'b32', 'u8')):
        im = Image('1d', fmt, 1, (4 if fmt == 'u32' else 8,), texel=lambda l, m, xx, y, z, c: xx)
        o.group(f'sured.{form}.add.1d.{ty}.trap at x = {x} (outside the {im.size[0]}-sample surface):'
                f' a fault',
                f'sured.{form}.add.1d.{ty}.trap [s, {{x}}], v :: <- s:obj x:s32 v:b32 ; global 64 ; '
                f'surface s {im.clause()} ; fault out of range (.trap)')
        o.case('', [(0, im)])
        o.row(0, ['0', str(x), '0x1'], [])

    # suq: every query.
    queries = ['width', 'height', 'depth', 'channel_data_type', 'channel_order', 'array_size',
               'memory_layout']
    sus = [Image('1d', 'f32', 4, (8,), texel=small), Image('2d', 'u8', 4, (5, 4), texel=small),
           Image('3d', 's16', 2, (3, 5, 2), texel=small),
           Image('a2d', 'u16', 1, (6, 2), layers=3, texel=small),
           Image('a1d', 's32', 1, (7,), layers=5, texel=small)]
    at, clauses, imgs_at = 0, [], []
    for k, im in enumerate(sus):
        clauses.append(f'surface s{k} {im.clause()} at={at}')
        imgs_at.append((at, im))
        at += (len(im.bytes()) + 15) // 16 * 16
    o.group('suq: every surface query (OpenCL channel codes; memory layout 1: pitch-linear)',
            '; '.join(f'suq.{q}.b32 {q}, [s]' for q in queries) + ' :: ' +
            ' '.join(f'{q}:b32' for q in queries) + f' <- s:obj ; global {pad(at)} ; ' +
            ' ; '.join(clauses))
    o.case('', imgs_at)
    for k, im in enumerate(sus):
        w, h, d = im.size
        nd = {'1d': 1, 'a1d': 1, '2d': 2, 'a2d': 2, '3d': 3}[im.kind]
        vals = [w, h if nd > 1 else '*', d if nd > 2 else '*', CL_TYPE[(im.ty, False)],
                CL_ORDER[im.ch], im.layers if im.kind.startswith('a') else '*', 1]
        o.row(k, [str(k)], [str(v) for v in vals])
    o.raw('')
    o.raw('.target sm_100')
    im = Image('2d', 'u32', 1, (4, 2), texel=lambda l, m, x, y, z, c: 100 + 4 * y + x)
    words = im.words()
    new = list(words)
    new[1 * 4 + 2] = 0xBEEF
    o.group('a .surfref variable: suld, sust and suq by name',
            'suld.b.2d.b32.trap {d}, [sr, {x, y}]; sust.b.2d.b32.trap [sr, {u, y}], {v}; '
            'suq.width.b32 w, [sr] :: d:b32 w:b32 <- x:s32 y:s32 u:s32 v:b32 ; '
            f'global {pad(4 * len(words))} ; surface sr {im.clause()} ref')
    o.case('', [(0, im)])
    o.row(0, ['4', '1', '8', '0xbeef'], [str(words[5]), '4'])
    o.raw('expect global 0x0: ' + ' '.join(f'{w:#010x}' for w in new))
    o.write()


if __name__ == '__main__':
    texture_isa()
    surface_isa()
