#!/usr/bin/env python3
"""Writes the ldmatrix/stmatrix/movmatrix case: ldmatrix.ptx (hand-written PTX), in.npy and
out_expected.npy.

Four 8x8 matrices M0..M3 of random 16-bit elements sit in shared memory, rows 32 bytes apart
(row r of Mj at byte 256j + 32r). Lane l gives the address of row l % 8 of matrix l / 8.
Expected values follow the PTX ISA's description of the fragment (ldmatrix: "each thread
holds a fragment of a row": lane l holds row l / 4, elements 2(l % 4) and 2(l % 4) + 1, in the
low and high halves of register j for matrix j; with .trans the matrix is read column-major,
so lane l holds elements (2(l % 4), l / 4) and (2(l % 4) + 1, l / 4)); stmatrix is the
inverse; movmatrix.trans gives the fragment of the transposed matrix.

Output words (u32): 0 x1 (lane), 32 x2 (2 lane + j), 96 x4 (4 lane + j), 224 x4.trans,
352 x2.trans through a generic address, 416 movmatrix of the x4 register 0, 448 the shared
bytes stmatrix.x4 wrote (rows 16 bytes apart), 576 those of stmatrix.x4.trans of the
x4.trans registers.

Run: python3 gen.py (numpy)
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
words = rng.integers(0, 1 << 32, 256, dtype=np.uint64).astype(np.uint32)
h = words.view(np.uint16)  # little-endian halves: byte offset 2*i


def M(j, r, c):
    return int(h[j * 128 + r * 16 + c])


def frag(j, lane, trans):
    q, p = lane // 4, lane % 4
    if trans:
        lo, hi = M(j, 2 * p, q), M(j, 2 * p + 1, q)
    else:
        lo, hi = M(j, q, 2 * p), M(j, q, 2 * p + 1)
    return lo | (hi << 16)


out = []
out += [frag(0, l, False) for l in range(32)]
out += [frag(j, l, False) for l in range(32) for j in range(2)]
out += [frag(j, l, False) for l in range(32) for j in range(4)]
out += [frag(j, l, True) for l in range(32) for j in range(4)]
out += [frag(j, l, True) for l in range(32) for j in range(2)]
out += [frag(0, l, True) for l in range(32)]
# stmatrix.x4 of the fragments of M0..M3: row r of Mj at byte 128j + 16r.
st = np.zeros(256, dtype=np.uint16)
for j in range(4):
    for r in range(8):
        for c in range(8):
            st[j * 64 + r * 8 + c] = M(j, r, c)
out += list(st.view(np.uint32))
# stmatrix.x4.trans of the fragments of M0^T..M3^T stores (Mj^T)^T = Mj.
out += list(st.view(np.uint32))
np.save(os.path.join(HERE, "in.npy"), words)
np.save(os.path.join(HERE, "out_expected.npy"), np.array(out, dtype=np.uint32))

ptx = r"""// ldmatrix / stmatrix / movmatrix (PTX ISA 9.7.14.5.15-17); written by gen.py.
.version 8.0
.target sm_90
.address_size 64

.visible .entry ldmatrix(.param .u64 pin, .param .u64 pout)
{
    .shared .align 16 .b8 smem[1024];
    .shared .align 16 .b8 sst[512];
    .shared .align 16 .b8 sst2[512];
    .reg .pred %p;
    .reg .b32 %t, %i, %w, %j, %row, %off, %a, %o, %o2, %x0, %y<2>, %z<4>, %q<4>, %v<2>, %mm, %s;
    .reg .b64 %in, %out, %e, %g, %ga;

    ld.param.u64 %in, [pin];
    ld.param.u64 %out, [pout];
    cvta.to.global.u64 %in, %in;
    cvta.to.global.u64 %out, %out;
    mov.u32 %t, %tid.x;
    mov.u32 %i, 0;
COPY:
    mad.lo.u32 %w, %i, 32, %t;
    mul.wide.u32 %e, %w, 4;
    add.s64 %g, %in, %e;
    ld.global.u32 %s, [%g];
    shl.b32 %off, %w, 2;
    mov.u32 %a, smem;
    add.u32 %a, %a, %off;
    st.shared.u32 [%a], %s;
    add.u32 %i, %i, 1;
    setp.lt.u32 %p, %i, 8;
    @%p bra COPY;
    bar.sync 0;

    shr.u32 %j, %t, 3;
    and.b32 %row, %t, 7;
    shl.b32 %off, %j, 8;
    mad.lo.u32 %off, %row, 32, %off;
    mov.u32 %a, smem;
    add.u32 %a, %a, %off;
    ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%x0}, [%a];
    ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%y0, %y1}, [%a];
    ldmatrix.sync.aligned.m8n8.x4.shared::cta.b16 {%z0, %z1, %z2, %z3}, [%a];
    ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%q0, %q1, %q2, %q3}, [%a];
    cvt.u64.u32 %ga, %a;
    cvta.shared.u64 %ga, %ga;
    ldmatrix.sync.aligned.m8n8.x2.trans.b16 {%v0, %v1}, [%ga];
    movmatrix.sync.aligned.m8n8.trans.b16 %mm, %z0;

    shl.b32 %off, %j, 7;
    mad.lo.u32 %off, %row, 16, %off;
    mov.u32 %o, sst;
    add.u32 %o, %o, %off;
    stmatrix.sync.aligned.m8n8.x4.shared.b16 [%o], {%z0, %z1, %z2, %z3};
    mov.u32 %o2, sst2;
    add.u32 %o2, %o2, %off;
    stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%o2], {%q0, %q1, %q2, %q3};
    bar.sync 0;

    mul.wide.u32 %e, %t, 4;
    add.s64 %g, %out, %e;
    st.global.u32 [%g], %x0;
    mul.wide.u32 %e, %t, 8;
    add.s64 %g, %out, %e;
    st.global.u32 [%g+128], %y0;
    st.global.u32 [%g+132], %y1;
    st.global.u32 [%g+1408], %v0;
    st.global.u32 [%g+1412], %v1;
    mul.wide.u32 %e, %t, 16;
    add.s64 %g, %out, %e;
    st.global.u32 [%g+384], %z0;
    st.global.u32 [%g+388], %z1;
    st.global.u32 [%g+392], %z2;
    st.global.u32 [%g+396], %z3;
    st.global.u32 [%g+896], %q0;
    st.global.u32 [%g+900], %q1;
    st.global.u32 [%g+904], %q2;
    st.global.u32 [%g+908], %q3;
    mul.wide.u32 %e, %t, 4;
    add.s64 %g, %out, %e;
    st.global.u32 [%g+1664], %mm;
    mov.u32 %i, 0;
OUT:
    mad.lo.u32 %w, %i, 32, %t;
    shl.b32 %off, %w, 2;
    mov.u32 %a, sst;
    add.u32 %a, %a, %off;
    ld.shared.u32 %s, [%a];
    mul.wide.u32 %e, %w, 4;
    add.s64 %g, %out, %e;
    st.global.u32 [%g+1792], %s;
    mov.u32 %a, sst2;
    add.u32 %a, %a, %off;
    ld.shared.u32 %s, [%a];
    st.global.u32 [%g+2304], %s;
    add.u32 %i, %i, 1;
    setp.lt.u32 %p, %i, 4;
    @%p bra OUT;
    ret;
}
"""
with open(os.path.join(HERE, "ldmatrix.ptx"), "w") as f:
    f.write(ptx)
with open(os.path.join(HERE, "ldmatrix.toml"), "w") as f:
    f.write("""# ldmatrix .x1/.x2/.x4 (.trans, shared and generic addresses), stmatrix .x4 (.trans),
# movmatrix.trans. Inputs and expected values written by gen.py (numpy, from the ISA's
# fragment description).
ptx = "ldmatrix.ptx"
kernel = "ldmatrix"
grid = [1]
block = [32]
args = [{ buffer = "in" }, { buffer = "out" }]

[buffers.in]
type = "u32"
init = { file = "in.npy" }

[buffers.out]
type = "u32"
len = 704

[expect.out]
file = "out_expected.npy"
tolerance = "exact"
""")
