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
//! [`MmaSpec::meta_threads`] `T` of its lanes ([`meta_place`]). With T = 1 or 2 (at most 8
//! chunks a row), lanes `4g + T·selector + j` for j < T: lane j's register holds chunks
//! `4j..4j+3` of row g in bits 0-15 (chunk `4j + c` in bits `4c..4c+3`) and the same chunks
//! of row g+8 in bits 16-31. With T = 4 (16 chunks a row: 8-bit inputs at `.m16n8k64`, 4-bit
//! ones at `.m16n8k128`, selector 0), lane `4g + 2h + r` holds chunks `8h..8h+7` of row
//! `g + 8r` (chunk `8h + c` in bits `4c..4c+3`) (⚠ ptxjit's reading of the ISA's figures from
//! public sm_90/sm_120 code, docs/isa-notes.md). The other lanes' metadata is not read. A field the ISA
//! leaves undefined (two equal indices; with `::ordered_metadata`, indices not increasing;
//! for `.tf32`, a field other than `0b0100` and `0b1110`) faults
//! ([`FaultKind::SparseMetadata`]) and the instruction writes nothing.
//!
//! # Block scaling (`.block_scale`, §9.7.14.3)
//! `.kind::mxf8f6f4` (`.kind::f8f6f4`'s containers) and `.kind::mxf4`/`::mxf4nvf4` (`.e2m1`
//! packed eight to a register, the `.s4` `.m16n8k64` layout: [`MmaSpec::in_container`] is
//! false for them) compute `D = (A·scale_A)·(B·scale_B) + C`: each row of A (column of B) is
//! cut along K into `.scale_vec::NX` blocks, block `c` multiplied by its own `.ue8m0` or
//! `.ue4m3` factor. Six operands follow C (and `mma.sp`'s metadata): `scale-a-data`,
//! `byte-id-a`, `thread-id-a`, `scale-b-data`, `byte-id-b`, `thread-id-b`. Row i of A takes
//! block c's factor from byte `byte-id-a + c` of lane `4·(i % 8) + 2·thread-id-a + i / 8`'s
//! `scale-a-data`, column j of B from byte `byte-id-b + c` of lane `4·j + thread-id-b`'s
//! `scale-b-data` (ptxjit's reading of the ISA's figures, docs/isa-notes.md). The selectors
//! must be the same in every lane and in ptxas's ranges, and a `.ue4m3` factor must have bit
//! 7 clear; otherwise the instruction faults ([`FaultKind::Unsupported`]) and writes
//! nothing. Each element widens exactly to f32 and is multiplied by its factor (one f32
//! rounding), then the sum runs as for `.f32` inputs below.
//!
//! `wmma` fragments are ptxjit's choice, as the ISA leaves them to the implementation: lane `l`
//! holds elements `e = 0..E` of the matrix in row-major order at linear index
//! `(l·E + e) mod (rows·cols)`, E being the fragment's element count ([`MmaSpec::elems`]);
//! where 32·E exceeds the matrix (`.f16` A and B hold 16 elements), later lanes repeat earlier
//! ones, and the multiply reads the lowest lane's copy. The sub-byte B fragments (`.s4`/`.u4`
//! `.m8n8k32`, `.b1` `.m8n8k128`, whose B is `.col` only) take the elements in column-major
//! order instead, so each lane's register is 32 consecutive bits of one column of B, as its
//! A register is 32 consecutive bits of one row of A. `wmma.load`/`wmma.store` use the same
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
use crate::ir::{MiniFmt, MmaBitOp, MmaElem, MmaFamily, MmaFrag, MmaScale, MmaSpec, Round, Space};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::OnceLock;

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
            if f == MmaFrag::B && spec.b.bits() < 8 {
                // Sub-byte B (`.col` only): column-major, so a lane's register is 32
                // consecutive bits of one column in memory.
                (lin % rows, lin / rows)
            } else {
                (lin / cols, lin % cols)
            }
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
                    let p = spec.per_reg(spec.a);
                    let (r, j) = (i / p, i % p);
                    if spec.m == 16 {
                        (g + 8 * (r & 1), (r >> 1) * 4 * p + t * p + j)
                    } else {
                        (g, t * p + j)
                    }
                }
                MmaFrag::B => {
                    let p = spec.per_reg(spec.b);
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

/// Where the fragment elements go: entry `lane·E + i` (E = `spec.elems(f)`) is the index of
/// element `i` of `lane` in the matrices of [`gather`], `q·rows·cols + row·cols + col` for
/// product `q` ([`coord`]; [`NOWHERE`] for a place outside the matrix, which [`coord`] never
/// gives). Computed once per thread for each spec and fragment: an `mma` in a loop looks it up
/// instead of working out every element's place again.
fn layout(spec: &MmaSpec, f: MmaFrag) -> Rc<[u32]> {
    thread_local! {
        static CACHE: RefCell<Vec<LayoutEntry>> = const { RefCell::new(Vec::new()) };
    }
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some((_, _, t)) = cache.iter().find(|(s, g, _)| s == spec && *g == f) {
            return t.clone();
        }
        let (rows, cols) = spec.dims(f);
        let size = rows * cols;
        let e = spec.elems(f);
        let t: Rc<[u32]> = (0..32u32)
            .flat_map(|lane| (0..e).map(move |i| (lane, i)))
            .map(|(lane, i)| {
                let (row, col) = coord(spec, f, lane, i);
                if row < rows && col < cols {
                    batch(spec, lane) as u32 * size + row * cols + col
                } else {
                    NOWHERE
                }
            })
            .collect();
        // A program has a handful of matrix shapes; a bound keeps a pathological one small.
        if cache.len() >= 64 {
            cache.clear();
        }
        cache.push((*spec, f, t.clone()));
        t
    })
}

/// A cached [`layout`]: the spec, the fragment and the table.
type LayoutEntry = (MmaSpec, MmaFrag, Rc<[u32]>);

/// A [`layout`] entry for an element outside the matrix.
const NOWHERE: u32 = u32::MAX;

/// The matrices of fragment `f` (row-major element bits, one matrix per product, product q at
/// `q·rows·cols`) from the warp's registers: argument `first + r` of `d` is register `r` of
/// the fragment. An element held by several lanes comes from the lowest. A sparse A
/// (`mma.sp`) comes out as its stored m×(k/2) matrix.
fn gather(spec: &MmaSpec, f: MmaFrag, d: &WarpDesc, s: &[u8], first: usize) -> Vec<u64> {
    let spec = &if f == MmaFrag::A {
        spec.stored()
    } else {
        *spec
    };
    let (rows, cols) = spec.dims(f);
    let mut m = vec![0u64; (rows * cols * batches(spec)) as usize];
    let e = spec.elem(f);
    let (p, bits) = (spec.per_reg(e), spec.slot_bits(e));
    let container = spec.in_container(e);
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let (nregs, _) = spec.regs(f, false);
    let regs: Vec<[u64; 32]> = (0..nregs as usize)
        .map(|r| read_reg(d, s, first + r, p * bits > 32))
        .collect();
    let elems = spec.elems(f);
    let place = layout(spec, f);
    // Highest lane first, so that the lowest lane's copy is the one left.
    for lane in (0..32usize).rev() {
        let at = place
            .get(lane * elems as usize..(lane + 1) * elems as usize)
            .unwrap_or(&[]);
        for (i, &k) in at.iter().enumerate() {
            let (r, j) = (i / p as usize, i as u32 % p);
            let reg = regs.get(r).map_or(0, |v| v[lane]);
            if let Some(slot) = m.get_mut(k as usize) {
                *slot = if p == 1 {
                    reg
                } else {
                    (reg >> (j * bits)) & mask
                };
                if container {
                    *slot = from_container(e, *slot);
                }
            }
        }
    }
    m
}

/// The element of a `.kind::f8f6f4` 8-bit container (PTX ISA §9.7.14.5.14): a 4-bit `.e2m1`
/// at bits 2-5, a 6-bit `.e2m3`/`.e3m2` at bits 0-5; the other bits are not read (the
/// placement `tcgen05.mma` reads from tensor memory, docs/isa-notes.md).
fn from_container(e: MmaElem, byte: u64) -> u64 {
    match e.bits() {
        4 => (byte >> 2) & 0xf,
        6 => byte & 0x3f,
        _ => byte,
    }
}

/// Argument `k` of `d` for every lane: a 32-bit slot read as one block, a `wide` one
/// (64-bit registers) lane by lane.
fn read_reg(d: &WarpDesc, s: &[u8], k: usize, wide: bool) -> [u64; 32] {
    if wide {
        std::array::from_fn(|l| d.arg(s, k, l as u32))
    } else {
        d.gather32(s, k, u32::MAX).map(|w| w as u64)
    }
}

/// Write every lane's D fragment (results `0..` of `d`) from the row-major result matrices
/// `out` (one per product, as [`gather`] lays them out).
fn scatter(spec: &MmaSpec, out: &[u64], d: &WarpDesc, s: &mut [u8]) {
    // D's layout is the accumulator layout of its own type.
    let dspec = MmaSpec { c: spec.d, ..*spec };
    let (nregs, _) = dspec.regs(MmaFrag::C, true);
    let p = dspec.d.per_reg();
    let bits = dspec.d.bits();
    let elems = dspec.elems(MmaFrag::C);
    let place = layout(&dspec, MmaFrag::C);
    let mut regs = vec![[0u64; 32]; nregs as usize];
    for lane in 0..32usize {
        let at = place
            .get(lane * elems as usize..(lane + 1) * elems as usize)
            .unwrap_or(&[]);
        for (i, &k) in at.iter().enumerate() {
            let v = out.get(k as usize).copied().unwrap_or(0);
            let (r, j) = (i / p as usize, i as u32 % p);
            if let Some(reg) = regs.get_mut(r) {
                reg[lane] |= if p == 1 { v } else { v << (j * bits) };
            }
        }
    }
    for (k, v) in regs.iter().enumerate() {
        if p * bits > 32 {
            for (lane, &x) in v.iter().enumerate() {
                d.set(s, k, lane as u32, x);
            }
        } else {
            d.scatter32(s, k, u32::MAX, &v.map(|x| x as u32));
        }
    }
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

/// The narrow format of an `.e4m3`/`.e5m2`/`.e2m3`/`.e3m2`/`.e2m1` element type.
pub(crate) fn mini_fmt(e: MmaElem) -> Option<MiniFmt> {
    match e {
        MmaElem::E4m3 => Some(MiniFmt::E4M3),
        MmaElem::E5m2 => Some(MiniFmt::E5M2),
        MmaElem::E2m3 => Some(MiniFmt::E2M3),
        MmaElem::E3m2 => Some(MiniFmt::E3M2),
        MmaElem::E2m1 => Some(MiniFmt::E2M1),
        MmaElem::F16
        | MmaElem::Bf16
        | MmaElem::Tf32
        | MmaElem::F32
        | MmaElem::F64
        | MmaElem::S8
        | MmaElem::U8
        | MmaElem::S4
        | MmaElem::U4
        | MmaElem::B1
        | MmaElem::S32 => None,
    }
}

/// A float input element widened exactly to the accumulator format `to` (`.f16` or wider:
/// every `.e4m3`/`.e5m2`/`.e2m3`/`.e3m2`/`.e2m1` value is an `.f16`, and every
/// `.f16`/`.bf16`/`.tf32` an `.f32`). The soft-float path of [`multiply`].
fn widen(e: MmaElem, x: u64, to: Fmt) -> u64 {
    let Some(mini) = mini_fmt(e) else {
        return match float_fmt(e) {
            Some(f) => fp::convert(f, to, float_bits(e, x), Round::Nearest),
            None => x,
        };
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

/// The value of every encoding of a narrow format (a NaN for NaN encodings), built once.
fn mini_table(f: MiniFmt) -> &'static [f64; 256] {
    static TABLES: OnceLock<[[f64; 256]; 5]> = OnceLock::new();
    const FMTS: [MiniFmt; 5] = [
        MiniFmt::E4M3,
        MiniFmt::E5M2,
        MiniFmt::E2M3,
        MiniFmt::E3M2,
        MiniFmt::E2M1,
    ];
    let t = TABLES
        .get_or_init(|| FMTS.map(|f| std::array::from_fn(|b| minifloat::mini_value(f, b as u8))));
    let i = match f {
        MiniFmt::E4M3 => 0,
        MiniFmt::E5M2 => 1,
        MiniFmt::E2M3 => 2,
        MiniFmt::E3M2 => 3,
        MiniFmt::E2M1 => 4,
    };
    &t[i]
}

/// The value of float element bits `x` of type `e` (`.tf32`: its upper 19 bits,
/// [`float_bits`]) as an f64, exactly: every value of these types is an f64 (the 16-bit
/// formats by bit moves, the narrow ones from a 256-entry table). NaN encodings give a NaN;
/// the integer types give 0 (not float inputs).
#[inline]
fn float_value(e: MmaElem, x: u64) -> f64 {
    match e {
        MmaElem::F16 => half::f16::from_bits(x as u16).to_f64(),
        // A bf16 is the upper half of an f32.
        MmaElem::Bf16 => f32::from_bits((x as u32 & 0xffff) << 16) as f64,
        MmaElem::Tf32 | MmaElem::F32 => f32::from_bits(float_bits(e, x) as u32) as f64,
        MmaElem::F64 => f64::from_bits(x),
        MmaElem::E4m3 | MmaElem::E5m2 | MmaElem::E2m3 | MmaElem::E3m2 | MmaElem::E2m1 => {
            mini_fmt(e).map_or(0.0, |f| mini_table(f)[x as u8 as usize])
        }
        MmaElem::S8 | MmaElem::U8 | MmaElem::S4 | MmaElem::U4 | MmaElem::B1 | MmaElem::S32 => 0.0,
    }
}

/// Whether every value of float input type `e` has at most 11 significant bits and a
/// magnitude within [2⁻¹⁴⁹, 2¹²⁸] (or is 0, ±∞ or NaN): a product of two is then exact in
/// f64 (at most 22 significant bits, magnitude within [2⁻²⁹⁸, 2²⁵⁶]), which
/// [`fma_f32_narrow`] and [`fma_f16_narrow`] rely on.
fn narrow(e: MmaElem) -> bool {
    match e {
        MmaElem::F16
        | MmaElem::Bf16
        | MmaElem::Tf32
        | MmaElem::E4m3
        | MmaElem::E5m2
        | MmaElem::E2m3
        | MmaElem::E3m2
        | MmaElem::E2m1 => true,
        MmaElem::F32
        | MmaElem::F64
        | MmaElem::S8
        | MmaElem::U8
        | MmaElem::S4
        | MmaElem::U4
        | MmaElem::B1
        | MmaElem::S32 => false,
    }
}

// Why the f64 sums below are exact `fma.rn` steps.
//
// `x` and `y` are input values of a `narrow` type, `acc` a value of the accumulator format T
// (f32: 24 significant bits, f16: 11). (1) `p = x·y` is exact in f64 (`narrow`). (2) Let
// `s = p + acc` exactly, `big` the operand of larger magnitude, 2^E ≤ |big| < 2^(E+1),
// `small` the other. Both have at most 24 significant bits, so if |small| ≥ 2^(E−28) both
// are multiples of 2^(E−51) and |s| < 2^(E+2): s has at most 53 bits and the f64 sum is s
// itself. (3) Otherwise (|small| < 2^(E−28), small ≠ 0) the f64 sum ŝ may differ from s,
// but rounding to T decides only by where a value lies against T's rounding boundaries
// (the midpoints between neighbouring T values, and the overflow threshold: f32
// 2¹²⁸ − 2¹⁰³, f16 65520), all exact in f64; f64 rounding is monotonic and keeps those
// points, so ŝ rounds to T as s does unless a boundary lies within |small| of big. It does
// not: if big = acc (a T value), the nearest boundary is half a spacing of T away, at least
// 2^(E−25) (f32) or 2^(E−12) (f16), or, where E ≤ T's least normal exponent (−126, −14),
// half the least subnormal, 2⁻¹⁵⁰ (f32) or 2⁻²⁵ (f16), while |small| < 2^(E−28) ≤ 2⁻¹⁵⁴ or
// 2⁻⁴². If big = p (22 bits, a multiple of 2^(E−21)), small = acc is
// at least T's least subnormal: for f32, 2⁻¹⁴⁹ < 2^(E−28) gives E > −121, where the
// boundaries near p are odd multiples of 2^(E−25) or coarser, at least 2^(E−25) from p; for
// f16, acc and p are multiples of 2⁻²⁴ (E > 4 here) with |s| < 2^(E+2), exact unless
// E ≥ 28, and then p ≥ 2²⁸ and s both lie past the overflow threshold. Signs: a zero sum
// takes its sign by the same IEEE rule in f64, and f64 → T keeps it; ±∞ and NaN propagate
// the same way (NaN results are made canonical at the end, as `fp::arith` does each step).

/// One `fma.rn.f32` step `x·y + acc` for `narrow` inputs `x`, `y` (as f64): an exact f64
/// product, an f64 sum and one rounding to f32 give the correctly rounded fused result
/// (the comment above).
#[inline]
fn fma_f32_narrow(x: f64, y: f64, acc: f32) -> f32 {
    (x * y + acc as f64) as f32
}

/// One `fma.rn.f16` step `x·y + acc` for `narrow` inputs of at most 11 significant bits
/// within f16's range (`.f16`, `.e4m3`, …) and an `.f16` value `acc`, all as f64: the
/// correctly rounded fused result as an f64 (the comment above).
#[inline]
fn fma_f16_narrow(x: f64, y: f64, acc: f64) -> f64 {
    round_f16(x * y + acc)
}

/// `x` rounded to the nearest `.f16` value, ties to even, as an f64: ±∞ at and past the
/// overflow threshold (65520), a NaN stays a NaN (as `cvt.rn.f16.f64`).
fn round_f16(x: f64) -> f64 {
    let bits = x.to_bits();
    let sign = bits & (1 << 63);
    let a = bits & !(1 << 63);
    if a >= 0x7ff0_0000_0000_0000 {
        return x;
    }
    let e = (a >> 52) as i32 - 1023;
    if e > 15 {
        return f64::from_bits(sign | f64::INFINITY.to_bits());
    }
    // Below 2⁻²⁶ (a quarter of the least subnormal, 2⁻²⁴) everything rounds to zero; f64
    // subnormals included.
    if e < -26 {
        return f64::from_bits(sign);
    }
    let mant = (a & ((1 << 52) - 1)) | (1 << 52);
    // The result's spacing is 2^(eq − 10), with eq the binade's exponent (subnormals share
    // the least normal binade's); mant counts units of 2^(e − 52). shift ≤ 54 (e = −26).
    let eq = e.max(-14);
    let shift = (42 + eq - e) as u32;
    let half = 1u64 << (shift - 1);
    let rem = mant & ((1u64 << shift) - 1);
    let mut r = mant >> shift;
    if rem > half || (rem == half && r & 1 == 1) {
        r += 1;
    }
    // r ≤ 2¹¹ units of 2^(eq − 10), a normal f64 power of two: the product is exact.
    let v = r as f64 * f64::from_bits(((eq - 10 + 1023) as u64) << 52);
    let v = if v >= 65536.0 { f64::INFINITY } else { v };
    f64::from_bits(sign | v.to_bits())
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
    if let Some(df) = float_fmt(spec.d) {
        return multiply_float(spec, df, a, b, c);
    }
    let (m, n, k) = (spec.m as usize, spec.n as usize, spec.k as usize);
    let at = |i: usize, kk: usize| a.get(i * k + kk).copied().unwrap_or(0);
    let bt = |kk: usize, j: usize| b.get(kk * n + j).copied().unwrap_or(0);
    let mut d = vec![0u64; m * n];
    for i in 0..m {
        for j in 0..n {
            let c0 = c.get(i * n + j).copied().unwrap_or(0);
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
            d[i * n + j] = r as u32 as u64;
        }
    }
    d
}

/// [`multiply`] with a float accumulator of format `df`: each input element is decoded once
/// to its exact f64 value, then each sum runs over k from C, one fused multiply-add rounded
/// in `df` per step (f32 and f16 from `narrow` inputs by [`fma_f32_narrow`] and
/// [`fma_f16_narrow`]; f64 and f32 from `.f32` inputs by the host's fused multiply-add, as
/// `fp::arith`; anything else by `fp::arith` on the widened bits).
fn multiply_float(spec: &MmaSpec, df: Fmt, a: &[u64], b: &[u64], c: &[u64]) -> Vec<u64> {
    let (m, n, k) = (spec.m as usize, spec.n as usize, spec.k as usize);
    let el = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
    let av: Vec<f64> = (0..m * k).map(|i| float_value(spec.a, el(a, i))).collect();
    // B by columns, so that each sum reads both operands in order.
    let bv: Vec<f64> = (0..n * k)
        .map(|x| float_value(spec.b, el(b, (x % k) * n + x / k)))
        .collect();
    let fast = narrow(spec.a) && narrow(spec.b);
    let mut d = vec![0u64; m * n];
    for i in 0..m {
        let ar = &av[i * k..(i + 1) * k];
        for j in 0..n {
            let bc = &bv[j * k..(j + 1) * k];
            let c0 = el(c, i * n + j);
            let cv = float_value(spec.c, c0);
            let r = match df {
                Fmt::F32 if fast => {
                    // C widens exactly (or, were it wider, rounds to nearest as `cvt`).
                    let mut acc = cv as f32;
                    for (&x, &y) in ar.iter().zip(bc) {
                        acc = fma_f32_narrow(x, y, acc);
                    }
                    acc.to_bits() as u64
                }
                Fmt::F16 if fast => {
                    let mut acc = round_f16(cv);
                    for (&x, &y) in ar.iter().zip(bc) {
                        acc = fma_f16_narrow(x, y, acc);
                    }
                    // Exact: acc is an f16 value (or a NaN, made canonical below).
                    half::f16::from_f64(acc).to_bits() as u64
                }
                // `.f32` inputs (tcgen05's scaled elements): exact in f32, the host's fma.
                Fmt::F32 => {
                    let mut acc = cv as f32;
                    for (&x, &y) in ar.iter().zip(bc) {
                        acc = (x as f32).mul_add(y as f32, acc);
                    }
                    acc.to_bits() as u64
                }
                Fmt::F64 if spec.rnd == Round::Nearest => {
                    let mut acc = cv;
                    for (&x, &y) in ar.iter().zip(bc) {
                        acc = x.mul_add(y, acc);
                    }
                    acc.to_bits()
                }
                // `.rz/.rm/.rp` (f64 only): each step's fma rounded in that direction.
                Fmt::F64 => {
                    let mut acc = cv.to_bits();
                    for (&x, &y) in ar.iter().zip(bc) {
                        let args = [x.to_bits(), y.to_bits(), acc];
                        acc = fp::arith(df, Arith::Fma, args, spec.rnd, false, false);
                    }
                    acc
                }
                // Not an accumulator the ISA pairs with these inputs: soft float, per step.
                Fmt::F16 | Fmt::Bf16 => {
                    let widen = |e: MmaElem, x: u64| widen(e, x, df);
                    let mut acc = widen(spec.c, c0);
                    for kk in 0..k {
                        acc = fp::arith(
                            df,
                            Arith::Fma,
                            [
                                widen(spec.a, el(a, i * k + kk)),
                                widen(spec.b, el(b, kk * n + j)),
                                acc,
                            ],
                            Round::Nearest,
                            false,
                            false,
                        );
                    }
                    acc
                }
            };
            d[i * n + j] = df.finish(r, false, false);
        }
    }
    d
}

/// Where the 4-bit metadata field of chunk `chunk` of row `row` (0..16) of a sparse A sits:
/// the lane and the bit of its metadata register (module documentation). `threads` is
/// [`MmaSpec::meta_threads`], `selector` the sparsity selector. One or two lanes of a group of
/// four hold chunks `4j..4j+3` of row g in bits 0-15 and of row g+8 in bits 16-31; four lanes
/// (16 chunks a row: 8-bit inputs at K = 64, 4-bit ones at K = 128) hold eight chunks of one
/// row each, lane bit 0 choosing row g or g+8 and lane bit 1 the first or second eight chunks
/// (⚠ ptxjit's reading, docs/isa-notes.md).
pub(crate) fn meta_place(threads: u32, selector: u8, row: u32, chunk: u32) -> (u32, u32) {
    if threads == 4 {
        (4 * (row % 8) + 2 * (chunk / 8) + row / 8, 4 * (chunk % 8))
    } else {
        (
            4 * (row % 8) + threads * u32::from(selector) + chunk / 4,
            4 * (chunk % 4) + 16 * (row / 8),
        )
    }
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
            let (lane, shift) = meta_place(threads, sp.selector, row, chunk);
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

/// The f32 bits of a scale factor code (PTX ISA §5.2.5): `.ue8m0` `e` is 2^(e − 127), `0xff`
/// NaN; `.ue4m3` is e4m3 with the sign bit 0, `0x7f` NaN (bit 7 set: `Err`). Shared by the
/// block-scaled `mma` and `tcgen05.mma`.
pub(crate) fn scale_value(code: u8, ue8m0: bool) -> Result<u64, String> {
    let v = if ue8m0 {
        minifloat::ue8m0_value(code)
    } else if code & 0x80 != 0 {
        return Err(format!(
            "ue4m3 scale factor {code:#04x} has bit 7 set (an unsigned 7-bit format)"
        ));
    } else {
        minifloat::mini_value(MiniFmt::E4M3, code)
    };
    Ok(fp::convert(Fmt::F64, Fmt::F32, v.to_bits(), Round::Nearest))
}

/// The f32 bits of input element `x` of type `e` (a narrow float code) times the scale
/// factor `sf` (f32 bits): the element widens exactly, the product is rounded to nearest in
/// f32 (exact unless it overflows). Shared by the block-scaled `mma` and `tcgen05.mma`.
pub(crate) fn scaled(e: MmaElem, x: u64, sf: u64) -> u64 {
    // Block-scaled kinds take the narrow floats only (their decoders check it).
    let Some(f) = mini_fmt(e) else {
        return 0x7fff_ffff;
    };
    let v = minifloat::mini_value(f, x as u8);
    let w = fp::convert(Fmt::F64, Fmt::F32, v.to_bits(), Round::Nearest);
    fp::arith(
        Fmt::F32,
        Arith::Mul,
        [w, sf, 0],
        Round::Nearest,
        false,
        false,
    )
}

/// The scale factors of a block-scaled `mma` (f32 bits): scale_A (M rows × `vec`, row-major)
/// and scale_B (N columns × `vec`), from `args`, every lane's `scale-a-data`, `byte-id-a`,
/// `thread-id-a`, `scale-b-data`, `byte-id-b`, `thread-id-b` (module documentation). `Err`
/// for selectors that differ across the warp or are out of range, and for a `.ue4m3` factor
/// with bit 7 set.
fn block_factors(
    spec: &MmaSpec,
    sc: MmaScale,
    args: &[[u64; 32]],
) -> Result<(Vec<u64>, Vec<u64>), String> {
    let uniform = |k: usize, what: &str, max: u64| -> Result<u32, String> {
        let v = args[k][0] & 0xffff;
        if let Some(l) = (1..32).find(|&l| args[k][l] & 0xffff != v) {
            return Err(format!(
                "mma block_scale: {what} is {v} in lane 0 but {} in lane {l}; ptxjit takes one \
                 value per warp",
                args[k][l] & 0xffff
            ));
        }
        let step = if what.starts_with("byte") {
            u64::from(sc.vec)
        } else {
            1
        };
        if v > max || !v.is_multiple_of(step) {
            return Err(format!(
                "mma block_scale: {what} {v} is out of range with .scale_vec::{}X",
                sc.vec
            ));
        }
        Ok(v as u32)
    };
    let nv = u32::from(sc.vec);
    let factors = |which: char, data: usize, count: u32, lane: &dyn Fn(u32, u32) -> u32| {
        let bid = uniform(data + 1, &format!("byte-id-{which}"), u64::from(4 - nv))?;
        let tid = uniform(
            data + 2,
            &format!("thread-id-{which}"),
            if which == 'a' { 1 } else { 3 },
        )?;
        let mut out = Vec::with_capacity((count * nv) as usize);
        for i in 0..count {
            let l = lane(i, tid) as usize;
            for j in 0..nv {
                let code = (args[data][l] >> (8 * (bid + j))) as u8;
                out.push(scale_value(code, !sc.ue4m3).map_err(|e| {
                    format!("mma block_scale: scale-{which}-data of lane {l}: {e}")
                })?);
            }
        }
        Ok::<_, String>(out)
    };
    // Row i of A: the pair of lanes `thread-id-a` selects in quad i % 8, its first lane for
    // rows 0-7 and its second for rows 8-15; column i of B: lane `thread-id-b` of quad i.
    let sa = factors('a', 0, u32::from(spec.m), &|i, t| {
        4 * (i % 8) + 2 * t + i / 8
    })?;
    let sb = factors('b', 3, u32::from(spec.n), &|i, t| 4 * i + t)?;
    Ok((sa, sb))
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
    let (m, n, k) = (spec.m as usize, spec.n as usize, spec.k as usize);
    let products = batches(spec) as usize;
    let mut a = gather(spec, MmaFrag::A, d, s, 0);
    if spec.sparse.is_some() {
        let meta: Vec<u64> = (0..32u32).map(|l| d.arg(s, na + nb + nc, l)).collect();
        let stored = m * k / 2;
        let mut full = Vec::with_capacity(products * m * k);
        for q in 0..products {
            let part = a.get(q * stored..(q + 1) * stored).unwrap_or(&[]);
            match expand(spec, part, &meta) {
                Ok(x) => full.extend(x),
                Err((lane, msg)) => {
                    env.fault_detail(lane, d.inst, FaultKind::SparseMetadata, msg);
                    return;
                }
            }
        }
        a = full;
    }
    let mut b = gather(spec, MmaFrag::B, d, s, na);
    let c = gather(spec, MmaFrag::C, d, s, na + nb);
    let mut spec = *spec;
    if let Some(sc) = spec.scale {
        let first = na + nb + nc + usize::from(spec.sparse.is_some());
        let args: Vec<[u64; 32]> = (0..6)
            .map(|k| std::array::from_fn(|l| d.arg(s, first + k, l as u32)))
            .collect();
        match block_factors(&spec, sc, &args) {
            Ok((sa, sb)) => {
                let nv = sc.vec as usize;
                let blk = k / nv;
                for (i, x) in a.iter_mut().enumerate() {
                    *x = scaled(spec.a, *x, sa[(i / k) * nv + (i % k) / blk]);
                }
                for (i, x) in b.iter_mut().enumerate() {
                    *x = scaled(spec.b, *x, sb[(i % n) * nv + (i / n) / blk]);
                }
                // The scaled elements are f32 values: one fma.rn.f32 per k from C.
                spec = MmaSpec {
                    a: MmaElem::F32,
                    b: MmaElem::F32,
                    scale: None,
                    sparse: None,
                    ..spec
                };
            }
            Err(msg) => {
                env.fault_detail(0, d.inst, FaultKind::Unsupported, msg);
                return;
            }
        }
    }
    let spec = &spec;
    fn part(v: &[u64], size: usize, q: usize) -> &[u64] {
        v.get(q * size..(q + 1) * size).unwrap_or(&[])
    }
    let mut out = Vec::with_capacity(products * m * n);
    for q in 0..products {
        out.extend(multiply(
            spec,
            part(&a, m * k, q),
            part(&b, k * n, q),
            part(&c, m * n, q),
        ));
    }
    scatter(spec, &out, d, s);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(m: u8, n: u8, k: u16, a: MmaElem, c: MmaElem) -> MmaSpec {
        MmaSpec::new(MmaFamily::Mma, (m, n, k), a, c)
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

    /// A small deterministic generator (xorshift64*) for the checks below.
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    /// `round_f16` against rustc_apfloat's correctly rounded f64 → half conversion: every
    /// f16 value, the midpoints between neighbours and the f64 values next to them, and
    /// random values over f16's range and beyond.
    #[test]
    fn round_f16_matches_apfloat() {
        use rustc_apfloat::ieee::{Double, Half};
        use rustc_apfloat::{Float, FloatConvert};
        let reference = |x: f64| -> u16 {
            let mut lost = false;
            let h: Half = Double::from_bits(x.to_bits() as u128)
                .convert_r(rustc_apfloat::Round::NearestTiesToEven, &mut lost)
                .value;
            h.to_bits() as u16
        };
        let check = |x: f64| {
            let got = half::f16::from_f64(round_f16(x)).to_bits();
            assert_eq!(got, reference(x), "{x:e} ({:#x})", x.to_bits());
        };
        for h in 0..0x7c00u16 {
            let v = half::f16::from_bits(h).to_f64();
            let next = half::f16::from_bits(h + 1).to_f64();
            let mid = (v + next) / 2.0; // exact: 12 significant bits
            for x in [v, mid, mid.next_up(), mid.next_down()] {
                check(x);
                check(-x);
            }
        }
        let mut r = rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200_000 {
            // Exponents 2⁻³⁰ … 2¹⁸, random mantissas.
            let e = r() % 49 + 1023 - 30;
            let x = f64::from_bits(e << 52 | r() >> 12);
            check(x);
            check(-x);
        }
        for x in [
            0.0,
            -0.0,
            f64::INFINITY,
            65519.99,
            65520.0,
            1e300,
            1e-300,
            5e-324,
        ] {
            check(x);
        }
    }

    /// Inputs of a `narrow` type with the whole exponent range: mostly near 1, often far up
    /// or down, sometimes zero, subnormal or infinite.
    fn narrow_bits(r: &mut impl FnMut() -> u64, e: MmaElem) -> u64 {
        let x = r();
        let sign = x & 1;
        let pick = (x >> 1) % 16;
        match e {
            MmaElem::Bf16 => {
                let exp = match pick {
                    0 => 0,
                    1 => 0xff,
                    2..=5 => (x >> 8) % 255,
                    _ => 120 + (x >> 8) % 16,
                };
                if exp == 0xff {
                    return sign << 15 | 0x7f80;
                }
                sign << 15 | exp << 7 | (x >> 20) & 0x7f
            }
            MmaElem::F16 => {
                let exp = match pick {
                    0 => 0,
                    1..=5 => (x >> 8) % 32,
                    _ => 10 + (x >> 8) % 10,
                };
                sign << 15 | exp << 10 | (x >> 20) & 0x3ff
            }
            _ => unreachable!("bf16 and f16 only"),
        }
    }

    /// One accumulation step for `narrow` inputs against rustc_apfloat's correctly rounded
    /// fused multiply-add in the accumulator format: bf16 and f16 inputs into f32, f16 inputs
    /// into f16, with accumulators both near the product and far from it.
    #[test]
    fn narrow_fma_steps_match_apfloat() {
        use rustc_apfloat::ieee::{BFloat, Half, Single};
        use rustc_apfloat::{Float, FloatConvert, Round as AR};
        let to_single = |e: MmaElem, x: u64| -> Single {
            let mut lost = false;
            match e {
                MmaElem::Bf16 => {
                    BFloat::from_bits(x as u128)
                        .convert_r(AR::NearestTiesToEven, &mut lost)
                        .value
                }
                _ => {
                    Half::from_bits(x as u128)
                        .convert_r(AR::NearestTiesToEven, &mut lost)
                        .value
                }
            }
        };
        let canon32 = |b: u32| {
            if f32::from_bits(b).is_nan() {
                0x7fff_ffff
            } else {
                b
            }
        };
        let canon16 = |b: u16| if b & 0x7fff > 0x7c00 { 0x7fff } else { b };
        let mut r = rng(0x1234_5678_9abc_def1);
        for e in [MmaElem::Bf16, MmaElem::F16] {
            for _ in 0..300_000 {
                let (x, y) = (narrow_bits(&mut r, e), narrow_bits(&mut r, e));
                let p = float_value(e, x) * float_value(e, y);
                // The accumulator: near the product, a random f32, or tiny.
                let acc = match r() % 4 {
                    0 => (p * (1.0 + (r() % 1000) as f64 / 997.0)) as f32,
                    1 => -(p as f32) * f32::from_bits(0x3f80_0000 | (r() as u32 & 0x3f)),
                    2 => f32::from_bits(r() as u32),
                    _ => f32::from_bits(r() as u32 & 0x807f_ffff),
                };
                let want = to_single(e, x)
                    .mul_add_r(
                        to_single(e, y),
                        Single::from_bits(acc.to_bits() as u128),
                        AR::NearestTiesToEven,
                    )
                    .value
                    .to_bits() as u32;
                let got = fma_f32_narrow(float_value(e, x), float_value(e, y), acc).to_bits();
                assert_eq!(
                    canon32(got),
                    canon32(want),
                    "{e} {x:#x}·{y:#x} + {:#x}",
                    acc.to_bits()
                );
            }
        }
        for _ in 0..300_000 {
            let (x, y) = (
                narrow_bits(&mut r, MmaElem::F16),
                narrow_bits(&mut r, MmaElem::F16),
            );
            let p = float_value(MmaElem::F16, x) * float_value(MmaElem::F16, y);
            let acc = match r() % 4 {
                0 => half::f16::from_f64(p * (1.0 + (r() % 1000) as f64 / 997.0)).to_bits(),
                1 => half::f16::from_f64(-p).to_bits() ^ (r() as u16 & 7),
                2 => r() as u16,
                _ => r() as u16 & 0x83ff,
            };
            let (hx, hy, hc) = (
                Half::from_bits(x as u128),
                Half::from_bits(y as u128),
                Half::from_bits(acc as u128),
            );
            let want = hx.mul_add_r(hy, hc, AR::NearestTiesToEven).value.to_bits() as u16;
            let got = fma_f16_narrow(
                float_value(MmaElem::F16, x),
                float_value(MmaElem::F16, y),
                float_value(MmaElem::F16, acc as u64),
            );
            let got = half::f16::from_f64(got).to_bits();
            assert_eq!(canon16(got), canon16(want), "{x:#x}·{y:#x} + {acc:#x}");
        }
    }

    /// [`meta_place`] against the metadata layouts public CuTe code gives (docs/isa-notes.md):
    /// `SM120_SPARSE_16x8x128_TN_VS`'s ELayout ((2,2,8),64):((8,1024,1),16) over a 16×128 A
    /// (4:8 in pairs, 8 columns a field) and `SM120_SPARSE_16x8x64_TN`'s ((2,2,8),32):
    /// ((8,512,1),16) over 16×64 (2:4, 4 columns a field), both column-major (m + 16k),
    /// selector 0; and the first warp of `GMMA::ELayout_64x32` ((2,2,8),(16,2)):
    /// ((1024,0,1),(64,8)) over 64×32 (`.f16`, two lanes a group, lane bit 1 the selector).
    #[test]
    fn metadata_places_match_the_public_layouts() {
        for (k, cols, s1) in [(128u32, 8u32, 1024u32), (64, 4, 512)] {
            for t in 0..32u32 {
                let base = 8 * (t & 1) + s1 * ((t >> 1) & 1) + (t >> 2);
                for v in 0..k / 2 {
                    let idx = base + 16 * v;
                    let (m, kk) = (idx % 16, idx / 16);
                    assert!(kk < k);
                    let want = (t, 4 * (v / cols));
                    assert_eq!(meta_place(4, 0, m, kk / cols), want, "K {k} lane {t} v {v}");
                }
            }
        }
        for t in 0..32u32 {
            let base = 1024 * (t & 1) + (t >> 2);
            for v0 in 0..16u32 {
                for v1 in 0..2u32 {
                    let idx = base + 64 * v0 + 8 * v1;
                    let (m, kk) = (idx % 64, idx / 64);
                    let want = (t, 4 * (v0 / 4) + 16 * v1);
                    let sel = ((t >> 1) & 1) as u8;
                    assert_eq!(meta_place(2, sel, m, kk / 4), want, "lane {t} v {v0},{v1}");
                }
            }
        }
    }

    /// Block scaling's factor places (docs/isa-notes.md): row i of A from byte byte-id + j of
    /// lane 4·(i % 8) + 2·thread-id-a + i / 8, column i of B from lane 4·i + thread-id-b;
    /// selectors that differ across the warp, out of range, or a `.ue4m3` code with bit 7
    /// set are errors.
    #[test]
    fn block_scale_factors_come_from_the_selected_lanes_and_bytes() {
        use crate::ir::MmaScaleKind;
        let sp = MmaSpec {
            scale: Some(MmaScale {
                kind: MmaScaleKind::Mxf4,
                vec: 2,
                ue4m3: false,
            }),
            ..spec(16, 8, 64, MmaElem::E2m1, MmaElem::F32)
        };
        let sc = sp.scale.unwrap();
        // Every lane's bytes 2 and 3 hold 127 + lane and 127 - lane (bytes 0-1 junk).
        let data: [u64; 32] = std::array::from_fn(|l| {
            let l = l as u64;
            0x5a5a | (127 + l) << 16 | (127 - l) << 24
        });
        let args = [data, [2; 32], [1; 32], data, [2; 32], [3; 32]];
        let (sa, sb) = block_factors(&sp, sc, &args).unwrap();
        let f = |x: u64| f32::from_bits(x as u32);
        for i in 0..16u32 {
            let lane = 4 * (i % 8) + 2 + i / 8;
            assert_eq!(f(sa[2 * i as usize]), 2f32.powi(lane as i32), "row {i}");
            assert_eq!(
                f(sa[2 * i as usize + 1]),
                2f32.powi(-(lane as i32)),
                "row {i}"
            );
        }
        for i in 0..8u32 {
            assert_eq!(
                f(sb[2 * i as usize]),
                2f32.powi((4 * i + 3) as i32),
                "column {i}"
            );
        }
        let mut uneven = args;
        uneven[2][5] = 0;
        assert!(block_factors(&sp, sc, &uneven)
            .unwrap_err()
            .contains("lane 5"));
        let mut odd = args;
        odd[1] = [1; 32];
        assert!(block_factors(&sp, sc, &odd)
            .unwrap_err()
            .contains("out of range"));
        let nv = MmaScale {
            kind: MmaScaleKind::Mxf4nvf4,
            vec: 4,
            ue4m3: true,
        };
        let zero = [[0; 32]; 6];
        assert!(block_factors(&sp, nv, &zero).is_ok());
        let mut high = zero;
        high[0][0] = 0x80;
        assert!(block_factors(&sp, nv, &high).unwrap_err().contains("bit 7"));
    }
}
