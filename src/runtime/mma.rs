//! Warp-wide matrix multiply-accumulate (`mma.sync`, `wmma.mma.sync`; PTX ISA §9.7.14): the
//! fragment layouts and the arithmetic, one routine that both engines call through
//! `runtime::warp::exec`, so they agree by construction.
//!
//! # Layouts
//! `mma` fragments follow the ISA's tables ("Matrix Fragments for mma.mMnNkK", §9.7.14.5.x).
//! With `g = %laneid >> 2`, `t = %laneid % 4`, `p` elements per 32-bit register (2 for
//! `.f16`/`.bf16`, 4 for 8-bit, 8 for 4-bit, 32 for `.b1`, 1 for `.tf32` and `.f64`), and
//! element `j` of register `r` (element index `r·p + j`), every shape the ISA lists reduces to:
//! - A (m = 16): row `g + 8·(r & 1)`, column `(r >> 1)·4p + t·p + j`; (m = 8): row `g`,
//!   column `t·p + j`;
//! - B: row `r·4p + t·p + j`, column `g`;
//! - C and D, element `i`: (m = 16) row `g + 8·(i >> 1)`, column `2t + (i & 1)`; (m = 8)
//!   row `g`, column `2t + i`.
//!
//! `.m8n8k4` with `.f16` is four independent 8×8×4 products, product q by lanes 4q..4q+3 (the
//! low group) and 16+4q..16+4q+3 (the high group, `h = 4`; else `h = 0`), with `l4 = %laneid % 4`
//! (§9.7.14.5.1): A `.row` (l4 + h, i), `.col` (i + h, l4); B `.row` (l4, i + h), `.col`
//! (i, l4 + h); C/D `.f16` (l4 + h, i), `.f32` ((laneid & 1) + (i & 2) + h,
//! (i & 4) + (laneid & 2) + (i & 1)).
//!
//! (For example, `.m16n8k16` `.f16` A: `a0,a1` at row g, columns 2t, 2t+1; `a2,a3` at row g+8;
//! `a4..a7` the same 8 columns further right — the ISA's table for that shape.)
//!
//! # Sparse A (`mma.sp`, §9.7.14.6)
//! A's fragment holds the stored half of A, an m×(k/2) matrix laid out as the dense A of that
//! shape above (the ISA's sparse A tables say the same: for `.m16n8k16` `.f16`, lane t of a
//! group holds the non-zero pair of chunk t of rows g and g+8). Each chunk of `w` columns of a
//! row (`w` = 4 for 16-bit, 8-bit and `.e4m3`/`.e5m2` inputs, 2 for `.tf32`, 8 for 4-bit
//! inputs; [`MmaSpec::chunk`]) has `w/2` stored elements and a 4-bit metadata field with two
//! 2-bit indices, the first in the low bits: 2:4 puts the two stored elements at columns `i0`
//! and `i1` of the chunk; `.tf32`'s 1:2 names 16-bit halves, so `0b0100` puts the element at
//! column 0 and `0b1110` at column 1; the 4-bit types' 4:8 in pairs puts the stored pairs at
//! pairs `i0` and `i1` (columns `2i0, 2i0+1` and `2i1, 2i1+1`). The rest of the row is zero.
//!
//! Each group of four lanes (`g = %laneid >> 2`) supplies the fields of rows g and g+8 from
//! [`MmaSpec::meta_threads`] `T` of its lanes, `4g + T·selector + j` for j < T: lane j's register holds
//! chunks `4j..4j+3` of row g in bits 0-15 (chunk `4j + c` in bits `4c..4c+3`) and the same
//! chunks of row g+8 in bits 16-31. The other lanes' metadata is not read. A field the ISA
//! leaves undefined (two equal indices; with `::ordered_metadata`, indices not increasing;
//! for `.tf32`, a field other than `0b0100` and `0b1110`) faults
//! ([`FaultKind::SparseMetadata`]) and the instruction writes nothing.
//!
//! `wmma` fragments are ptxjit's choice, as the ISA leaves them to the implementation: lane `l`
//! holds elements `e = 0..E` of the matrix in row-major order at linear index
//! `(l·E + e) mod (rows·cols)`, E being the fragment's element count ([`MmaSpec::elems`]);
//! where 32·E exceeds the matrix (`.f16` A and B hold 16 elements), later lanes repeat earlier
//! ones, and the multiply reads the lowest lane's copy. `wmma.load`/`wmma.store` use the same
//! map (`lower::decode::mma`).
//!
//! # Arithmetic
//! Products are exact; the sum runs over k in ascending order starting from C, rounded to
//! nearest-even in the accumulator type at each step: `d = fma(a_k, b_k, d)` in `.f32`
//! (`.f16`, `.bf16` and `.tf32` products are exact in `.f32`), in `.f16` (each step an
//! `fma.rn.f16`) and in `.f64`. `.tf32` inputs use their upper 19 bits (the low 13 mantissa
//! bits are ignored). NaN results are canonical. Integer sums are exact; the s32 result wraps,
//! or with `.satfinite` clamps to the s32 range. `.b1`: each product is `popc(a xor b)` or
//! `popc(a and b)` over the k bits. The ISA leaves the order and intermediate precision of the
//! floating-point sum unspecified (docs/isa-notes.md).

use super::env::{CtaEnv, FaultKind};
use super::fp::{self, Arith, Fmt};
use super::minifloat;
use super::warp::{lanes, WarpDesc};
use crate::ir::{MiniFmt, MmaBitOp, MmaElem, MmaFamily, MmaFrag, MmaSpec, Round, Space};

/// The (row, column) of element `i` (low to high across the fragment's registers) of fragment
/// `f` held by `lane`. See the module documentation for the maps.
///
/// For a sparse A (`mma.sp`) the coordinates are in the stored m×(k/2) matrix.
pub fn coord(spec: &MmaSpec, f: MmaFrag, lane: u32, i: u32) -> (u32, u32) {
    if f == MmaFrag::A && spec.sparse.is_some() {
        return coord(&spec.stored(), f, lane, i);
    }
    match spec.family {
        MmaFamily::Wmma => {
            let (rows, cols) = spec.dims(f);
            let lin = (lane * spec.elems(f) + i) % (rows * cols);
            (lin / cols, lin % cols)
        }
        MmaFamily::Mma if spec.quad_pairs() => {
            // PTX ISA §9.7.14.5.1: within the lane's quad pair, the low group (lanes < 16)
            // holds rows (or columns) 0-3 and the high group 4-7.
            let (l4, hi) = (lane % 4, if lane < 16 { 0 } else { 4 });
            match f {
                MmaFrag::A if spec.a_col => (i % 4 + hi, l4),
                MmaFrag::A => (l4 + hi, i),
                MmaFrag::B if spec.b_row => (l4, i + hi),
                MmaFrag::B => (i, l4 + hi),
                // The accumulator's layout follows its type (`spec.c`; `scatter` passes D's).
                MmaFrag::C if spec.c == MmaElem::F16 => (l4 + hi, i),
                MmaFrag::C => ((lane & 1) + (i & 2) + hi, (i & 4) + (lane & 2) + (i & 1)),
            }
        }
        MmaFamily::Mma => {
            let (g, t) = (lane >> 2, lane & 3);
            match f {
                MmaFrag::A => {
                    let p = spec.a.per_reg();
                    let (r, j) = (i / p, i % p);
                    if spec.m == 16 {
                        (g + 8 * (r & 1), (r >> 1) * 4 * p + t * p + j)
                    } else {
                        (g, t * p + j)
                    }
                }
                MmaFrag::B => {
                    let p = spec.b.per_reg();
                    let (r, j) = (i / p, i % p);
                    (r * 4 * p + t * p + j, g)
                }
                MmaFrag::C => {
                    if spec.m == 16 {
                        (g + 8 * (i >> 1), 2 * t + (i & 1))
                    } else {
                        (g, 2 * t + i)
                    }
                }
            }
        }
    }
}

/// Element `i` of a fragment whose registers are `regs` (element bits, zero-extended).
fn element(regs: &[u64], e: MmaElem, i: u32) -> u64 {
    let p = e.per_reg();
    let reg = regs.get((i / p) as usize).copied().unwrap_or(0);
    if p == 1 {
        return reg;
    }
    let bits = e.bits();
    (reg >> ((i % p) * bits)) & ((1u64 << bits) - 1)
}

/// The number of independent products (4 quad pairs for `mma.m8n8k4` `.f16`, else 1), and
/// the one `lane` takes part in.
fn batches(spec: &MmaSpec) -> u32 {
    if spec.quad_pairs() {
        4
    } else {
        1
    }
}

fn batch(spec: &MmaSpec, lane: u32) -> usize {
    if spec.quad_pairs() {
        ((lane >> 2) & 3) as usize
    } else {
        0
    }
}

/// The matrices of fragment `f` (row-major element bits, one per product) from every lane's
/// registers `regs[lane]`; an element held by several lanes comes from the lowest.
/// A sparse A (`mma.sp`) comes out as its stored m×(k/2) matrix.
fn gather(spec: &MmaSpec, f: MmaFrag, regs: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let spec = &if f == MmaFrag::A {
        spec.stored()
    } else {
        *spec
    };
    let (rows, cols) = spec.dims(f);
    let size = (rows * cols) as usize;
    let mut m = vec![vec![0u64; size]; batches(spec) as usize];
    let mut set = vec![vec![false; size]; m.len()];
    let e = spec.elem(f);
    for (lane, r) in regs.iter().enumerate() {
        let q = batch(spec, lane as u32);
        for i in 0..spec.elems(f) {
            let (row, col) = coord(spec, f, lane as u32, i);
            let k = (row * cols + col) as usize;
            if let Some(false) = set[q].get(k) {
                m[q][k] = element(r, e, i);
                set[q][k] = true;
            }
        }
    }
    m
}

/// The registers of `lane`'s D fragment from the row-major result matrices `d` (one per
/// product).
fn scatter(spec: &MmaSpec, d: &[Vec<u64>], lane: u32) -> Vec<u64> {
    // D's layout is the accumulator layout of its own type.
    let out = MmaSpec { c: spec.d, ..*spec };
    let (_, cols) = out.dims(MmaFrag::C);
    let (nregs, _) = out.regs(MmaFrag::C, true);
    let p = out.d.per_reg();
    let bits = out.d.bits();
    let mut regs = vec![0u64; nregs as usize];
    let mat = &d[batch(spec, lane)];
    for i in 0..out.elems(MmaFrag::C) {
        let (row, col) = coord(&out, MmaFrag::C, lane, i);
        let v = mat.get((row * cols + col) as usize).copied().unwrap_or(0);
        if p == 1 {
            regs[(i / p) as usize] = v;
        } else {
            regs[(i / p) as usize] |= v << ((i % p) * bits);
        }
    }
    regs
}

/// The floating-point format of a float element type (`.tf32`: an `.f32` pattern whose low 13
/// mantissa bits are cleared first, [`float_bits`]).
fn float_fmt(e: MmaElem) -> Option<Fmt> {
    match e {
        MmaElem::F16 => Some(Fmt::F16),
        MmaElem::Bf16 => Some(Fmt::Bf16),
        MmaElem::Tf32 | MmaElem::F32 => Some(Fmt::F32),
        MmaElem::F64 => Some(Fmt::F64),
        MmaElem::S8
        | MmaElem::U8
        | MmaElem::S4
        | MmaElem::U4
        | MmaElem::B1
        | MmaElem::S32
        | MmaElem::E4m3
        | MmaElem::E5m2
        | MmaElem::E2m3
        | MmaElem::E3m2
        | MmaElem::E2m1 => None,
    }
}

/// A float input element widened exactly to the accumulator format `to` (`.f16` or wider:
/// every `.e4m3`/`.e5m2`/`.e2m3`/`.e3m2`/`.e2m1` value is an `.f16`, and every
/// `.f16`/`.bf16`/`.tf32` an `.f32`).
fn widen(e: MmaElem, x: u64, to: Fmt) -> u64 {
    let mini = match e {
        MmaElem::E4m3 => MiniFmt::E4M3,
        MmaElem::E5m2 => MiniFmt::E5M2,
        MmaElem::E2m3 => MiniFmt::E2M3,
        MmaElem::E3m2 => MiniFmt::E3M2,
        MmaElem::E2m1 => MiniFmt::E2M1,
        _ => match float_fmt(e) {
            Some(f) => return fp::convert(f, to, float_bits(e, x), Round::Nearest),
            None => return x,
        },
    };
    let h = minifloat::mini_to_f16(mini, x as u8, false) as u64;
    fp::convert(Fmt::F16, to, h, Round::Nearest)
}

/// A float element's bits as the matrix unit reads them: `.tf32` keeps the sign, the
/// exponent and the upper 10 mantissa bits.
fn float_bits(e: MmaElem, x: u64) -> u64 {
    if e == MmaElem::Tf32 {
        x & 0xffff_e000
    } else {
        x
    }
}

/// An integer input element, sign- or zero-extended.
fn to_int(e: MmaElem, x: u64) -> i64 {
    match e {
        MmaElem::S8 => x as u8 as i8 as i64,
        MmaElem::S4 => ((x as u8) << 4) as i8 as i64 >> 4,
        MmaElem::S32 => x as u32 as i32 as i64,
        _ => x as i64,
    }
}

/// `D = A·B + C` for one product, on row-major element bits: `a` is m×k, `b` k×n, `c` m×n
/// (the module documentation gives the arithmetic). Returns D's m×n element bits.
pub fn multiply(spec: &MmaSpec, a: &[u64], b: &[u64], c: &[u64]) -> Vec<u64> {
    let (m, n, k) = (spec.m as usize, spec.n as usize, spec.k as usize);
    let at = |i: usize, kk: usize| a.get(i * k + kk).copied().unwrap_or(0);
    let bt = |kk: usize, j: usize| b.get(kk * n + j).copied().unwrap_or(0);
    let mut d = vec![0u64; m * n];
    for i in 0..m {
        for j in 0..n {
            let c0 = c.get(i * n + j).copied().unwrap_or(0);
            d[i * n + j] = match float_fmt(spec.d) {
                // Floats: inputs widened exactly to the accumulator's format, then one
                // fma.rn per step in that format (fp::arith: the engines' own fma).
                Some(df) => {
                    let widen = |e: MmaElem, x: u64| widen(e, x, df);
                    let mut acc = widen(spec.c, c0);
                    for kk in 0..k {
                        acc = fp::arith(
                            df,
                            Arith::Fma,
                            [widen(spec.a, at(i, kk)), widen(spec.b, bt(kk, j)), acc],
                            Round::Nearest,
                            false,
                            false,
                        );
                    }
                    acc
                }
                None => {
                    let mut acc = to_int(MmaElem::S32, c0);
                    for kk in 0..k {
                        let (x, y) = (at(i, kk), bt(kk, j));
                        let p = match spec.bop {
                            MmaBitOp::Xor => ((x ^ y) & 1) as i64,
                            MmaBitOp::And => (x & y & 1) as i64,
                            MmaBitOp::None => to_int(spec.a, x) * to_int(spec.b, y),
                        };
                        acc += p;
                    }
                    let r = if spec.satfinite {
                        acc.clamp(i32::MIN as i64, i32::MAX as i64)
                    } else {
                        acc
                    };
                    r as u32 as u64
                }
            };
        }
    }
    d
}

/// The m×k A of a sparse `mma.sp` from its stored m×(k/2) half and every lane's metadata
/// register `meta[lane]` (module documentation). `Err((lane, message))` for a metadata field
/// the ISA leaves undefined.
pub fn expand(spec: &MmaSpec, stored: &[u64], meta: &[u64]) -> Result<Vec<u64>, (u32, String)> {
    let Some(sp) = spec.sparse else {
        return Ok(stored.to_vec());
    };
    let (m, k) = (spec.m as u32, spec.k as u32);
    let (w, threads) = (spec.chunk(), spec.meta_threads());
    let mut a = vec![0u64; (m * k) as usize];
    for row in 0..m {
        for chunk in 0..k / w {
            let lane = 4 * (row % 8) + threads * sp.selector as u32 + chunk / 4;
            let shift = 4 * (chunk % 4) + 16 * (row / 8);
            let field = (meta.get(lane as usize).copied().unwrap_or(0) >> shift) & 0xf;
            let (i0, i1) = ((field & 3) as u32, (field >> 2) as u32);
            let bad = |what: &str| {
                Err((
                    lane,
                    format!(
                        "sparsity metadata {field:#06b} for row {row}, columns {}..{} of A {what} \
                         (bits {}..{} of lane {lane}'s metadata)",
                        chunk * w,
                        chunk * w + w - 1,
                        shift + 3,
                        shift
                    ),
                ))
            };
            // (stored element offset within the chunk, column within the chunk) pairs.
            let places: Vec<(u32, u32)> = if w == 2 {
                match field {
                    0b0100 => vec![(0, 0)],
                    0b1110 => vec![(0, 1)],
                    _ => return bad("is not 0b0100 or 0b1110 (.tf32 takes only these)"),
                }
            } else {
                if i0 == i1 {
                    return bad("names one place twice");
                }
                if sp.ordered && i0 > i1 {
                    return bad("is not in increasing order (::ordered_metadata)");
                }
                if w == 8 {
                    vec![(0, 2 * i0), (1, 2 * i0 + 1), (2, 2 * i1), (3, 2 * i1 + 1)]
                } else {
                    vec![(0, i0), (1, i1)]
                }
            };
            for (e, col) in places {
                let src = row * (k / 2) + chunk * (w / 2) + e;
                let v = stored.get(src as usize).copied().unwrap_or(0);
                a[(row * k + chunk * w + col) as usize] = v;
            }
        }
    }
    Ok(a)
}

/// Whether the whole warp takes part in the `.aligned` matrix instruction `d`; if not, each
/// lane of `mask` faults with [`FaultKind::PartialWarp`] (the fault's address is the mask).
pub(super) fn whole_warp(d: &WarpDesc, mask: u32, env: &CtaEnv) -> bool {
    if mask == u32::MAX {
        return true;
    }
    for l in lanes(mask) {
        env.fault(
            l,
            d.inst,
            FaultKind::PartialWarp,
            Space::Generic,
            mask as u64,
            0,
            false,
        );
    }
    false
}

/// Execute `Op::Mma { spec }` (described by `d`) for the lanes of `mask`: the whole warp must
/// take part (`.aligned`); otherwise each lane faults and no result is written.
pub fn exec(d: &WarpDesc, spec: &MmaSpec, mask: u32, s: &mut [u8], env: &CtaEnv) {
    if !whole_warp(d, mask, env) {
        return;
    }
    let (na, _) = spec.regs(MmaFrag::A, false);
    let (nb, _) = spec.regs(MmaFrag::B, false);
    let (nc, _) = spec.regs(MmaFrag::C, false);
    let (na, nb, nc) = (na as usize, nb as usize, nc as usize);
    let regs = |from: usize, count: usize| -> Vec<Vec<u64>> {
        (0..32u32)
            .map(|l| (from..from + count).map(|k| d.arg(s, k, l)).collect())
            .collect()
    };
    let mut a = gather(spec, MmaFrag::A, &regs(0, na));
    if spec.sparse.is_some() {
        let meta: Vec<u64> = (0..32u32).map(|l| d.arg(s, na + nb + nc, l)).collect();
        for m in a.iter_mut() {
            match expand(spec, m, &meta) {
                Ok(full) => *m = full,
                Err((lane, msg)) => {
                    env.fault_detail(lane, d.inst, FaultKind::SparseMetadata, msg);
                    return;
                }
            }
        }
    }
    let b = gather(spec, MmaFrag::B, &regs(na, nb));
    let c = gather(spec, MmaFrag::C, &regs(na + nb, nc));
    let out: Vec<Vec<u64>> = (0..a.len())
        .map(|q| multiply(spec, &a[q], &b[q], &c[q]))
        .collect();
    for l in 0..32u32 {
        for (k, v) in scatter(spec, &out, l).into_iter().enumerate() {
            d.set(s, k, l, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(m: u8, n: u8, k: u16, a: MmaElem, c: MmaElem) -> MmaSpec {
        MmaSpec {
            family: MmaFamily::Mma,
            m,
            n,
            k,
            a,
            b: a,
            c,
            d: c,
            a_col: false,
            b_row: false,
            satfinite: false,
            bop: MmaBitOp::None,
            sparse: None,
        }
    }

    /// Every element of each matrix (of each quad pair's matrices for `.m8n8k4` `.f16`) is held
    /// by exactly one lane (mma), or by at least one (wmma), and no lane holds an element
    /// outside the matrix.
    #[test]
    fn layouts_cover_each_matrix() {
        use MmaElem::*;
        let mut specs = vec![];
        for (m, n, k, a, c) in [
            (16, 8, 16, F16, F32),
            (16, 8, 8, Bf16, F32),
            (16, 8, 8, Tf32, F32),
            (16, 8, 4, Tf32, F32),
            (8, 8, 4, F64, F64),
            (16, 8, 4, F64, F64),
            (16, 8, 8, F64, F64),
            (16, 8, 16, F64, F64),
            (16, 8, 32, S8, S32),
            (16, 8, 16, U8, S32),
            (8, 8, 16, S8, S32),
            (8, 8, 32, S4, S32),
            (16, 8, 64, U4, S32),
            (16, 8, 32, S4, S32),
            (8, 8, 128, B1, S32),
            (16, 8, 128, B1, S32),
            (16, 8, 256, B1, S32),
        ] {
            specs.push(spec(m, n, k, a, c));
        }
        for (m, n, k, a, c) in [
            (16, 16, 16, F16, F32),
            (32, 8, 16, F16, F16),
            (8, 32, 16, Bf16, F32),
            (16, 16, 8, Tf32, F32),
            (8, 8, 4, F64, F64),
            (16, 16, 16, S8, S32),
            (8, 8, 32, U4, S32),
            (8, 8, 128, B1, S32),
        ] {
            let mut s = spec(m, n, k, a, c);
            s.family = MmaFamily::Wmma;
            specs.push(s);
        }
        for (a_col, b_row, c) in [(false, false, F32), (true, true, F16), (true, false, F32)] {
            let mut s = spec(8, 8, 4, F16, c);
            (s.a_col, s.b_row) = (a_col, b_row);
            specs.push(s);
        }
        for s in specs {
            for f in [MmaFrag::A, MmaFrag::B, MmaFrag::C] {
                let (rows, cols) = s.dims(f);
                let size = (rows * cols) as usize;
                let mut seen = vec![0u32; size * batches(&s) as usize];
                for l in 0..32 {
                    for i in 0..s.elems(f) {
                        let (r, c) = coord(&s, f, l, i);
                        assert!(r < rows && c < cols, "{s} {f:?} lane {l} element {i}");
                        seen[batch(&s, l) * size + (r * cols + c) as usize] += 1;
                    }
                }
                let once = seen.iter().all(|&n| n == 1);
                let some = seen.iter().all(|&n| n >= 1);
                match s.family {
                    MmaFamily::Mma => assert!(once, "{s} {f:?}: {seen:?}"),
                    MmaFamily::Wmma => assert!(some, "{s} {f:?}: {seen:?}"),
                }
            }
        }
    }

    /// The ISA's own example rows for `.m16n8k16` `.f16` (PTX ISA §9.7.14.5.8): lane 5 (g = 1,
    /// t = 1) holds a0 at (1, 2), a3 at (9, 3), a4 at (1, 10), a7 at (9, 11); b2 at (10, 1);
    /// c3 at (9, 3).
    #[test]
    fn m16n8k16_f16_rows_from_the_isa() {
        let s = spec(16, 8, 16, MmaElem::F16, MmaElem::F32);
        assert_eq!(coord(&s, MmaFrag::A, 5, 0), (1, 2));
        assert_eq!(coord(&s, MmaFrag::A, 5, 3), (9, 3));
        assert_eq!(coord(&s, MmaFrag::A, 5, 4), (1, 10));
        assert_eq!(coord(&s, MmaFrag::A, 5, 7), (9, 11));
        assert_eq!(coord(&s, MmaFrag::B, 5, 2), (10, 1));
        assert_eq!(coord(&s, MmaFrag::C, 5, 3), (9, 3));
    }

    #[test]
    fn integer_saturation_and_wrap() {
        let mut s = spec(8, 8, 16, MmaElem::S8, MmaElem::S32);
        let a = vec![0x80u64; 8 * 16]; // -128
        let b = vec![0x80u64; 16 * 8];
        let c = vec![i32::MAX as u32 as u64; 64];
        // c + 16 * 16384 overflows.
        let wrap = multiply(&s, &a, &b, &c);
        assert_eq!(wrap[0], (i32::MAX as i64 + 16 * 16384) as u32 as u64);
        s.satfinite = true;
        let sat = multiply(&s, &a, &b, &c);
        assert_eq!(sat[0], i32::MAX as u32 as u64);
    }
}
