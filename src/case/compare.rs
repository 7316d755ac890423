//! Element-wise comparison of a buffer against its expectation.
//!
//! - exact (the default): bitwise equality, except that any NaN matches any NaN (of the same
//!   type — both sides always have the buffer's type). `-0.0` and `+0.0` differ.
//! - `abs`, `rel`, `ulp` (any combination): an element passes if *any* given bound holds, or if
//!   both values are equal (so infinities of the same sign pass), or both are NaN.
//!   `abs`: |got − want| ≤ abs; `rel`: |got − want| ≤ rel · |want| (in f64);
//!   `ulp`: the distance in representable values of the buffer's own type (f16, bf16, f32, f64;
//!   `+0` and `-0` are 0 apart) ≤ ulp. For integer buffers all three bound |got − want|.
//!
//! With `order = "any"` ([`compare_ordered`]) both sides are first sorted by value (integers
//! by their value in the buffer's type; floats by value with `-0` before `+0` and every NaN
//! last), so the buffers are compared as multisets; reported indices are then positions in
//! the sorted order.

use super::dtype::{DType, Elem};
use super::spec::{Order, Tolerance};
use std::cmp::Ordering;

/// One differing element, formatted as reports show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub index: u64,
    pub got: String,
    pub want: String,
}

/// The outcome of comparing one buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Elements compared.
    pub total: u64,
    /// Elements that differ.
    pub mismatches: u64,
    /// The first few differences, in index order.
    pub first: Vec<Mismatch>,
    /// Both sides were sorted first (`order = "any"`): indices are sorted positions.
    pub sorted: bool,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

/// [`compare`] in the given order: with [`Order::Any`] both sides are sorted by value first.
pub fn compare_ordered(
    dtype: DType,
    got: &[u8],
    want: &[u8],
    tol: &Tolerance,
    order: Order,
    keep: usize,
) -> Comparison {
    match order {
        Order::Index => compare(dtype, got, want, tol, keep),
        Order::Any => Comparison {
            sorted: true,
            ..compare(dtype, &sorted(dtype, got), &sorted(dtype, want), tol, keep)
        },
    }
}

/// The elements of `bytes` sorted by value (see the module doc); a trailing partial element
/// stays at the end.
fn sorted(dtype: DType, bytes: &[u8]) -> Vec<u8> {
    let sz = dtype.size();
    let mut elems: Vec<&[u8]> = bytes.chunks_exact(sz).collect();
    elems.sort_by(|a, b| value_order(dtype.decode(a), dtype.decode(b)));
    let mut out: Vec<u8> = elems.concat();
    out.extend_from_slice(bytes.chunks_exact(sz).remainder());
    out
}

/// The sort order of [`Order::Any`]: by value, `-0` before `+0`, every NaN after every number
/// (NaNs equal among themselves: any NaN matches any NaN).
fn value_order(a: Elem, b: Elem) -> Ordering {
    match (a, b) {
        (Elem::Int(x), Elem::Int(y)) => x.cmp(&y),
        (Elem::Float(x, _), Elem::Float(y, _)) => match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => x.total_cmp(&y),
        },
        // One buffer has one type: never mixed.
        (Elem::Int(_), Elem::Float(..)) => Ordering::Less,
        (Elem::Float(..), Elem::Int(_)) => Ordering::Greater,
    }
}

/// Compare `got` against `want` (same length, elements of `dtype`), keeping the first `keep`
/// differences.
pub fn compare(dtype: DType, got: &[u8], want: &[u8], tol: &Tolerance, keep: usize) -> Comparison {
    let sz = dtype.size();
    let mut c = Comparison {
        total: (want.len() / sz) as u64,
        ..Default::default()
    };
    for (i, (g, w)) in got.chunks_exact(sz).zip(want.chunks_exact(sz)).enumerate() {
        if g == w || element_matches(dtype, g, w, tol) {
            continue;
        }
        c.mismatches += 1;
        if c.first.len() < keep {
            let (mut gs, mut ws) = (dtype.format(g), dtype.format(w));
            if gs == ws {
                gs = format!("{gs} ({})", dtype.format_bits(g));
                ws = format!("{ws} ({})", dtype.format_bits(w));
            }
            c.first.push(Mismatch {
                index: i as u64,
                got: gs,
                want: ws,
            });
        }
    }
    // A length difference (never for prepared cases) counts every missing element.
    let common = (got.len().min(want.len()) / sz) as u64;
    c.mismatches += c.total.max((got.len() / sz) as u64) - common;
    c
}

/// Whether one element passes (the bytes already differ).
fn element_matches(dtype: DType, g: &[u8], w: &[u8], tol: &Tolerance) -> bool {
    match (dtype.decode(g), dtype.decode(w)) {
        (Elem::Float(gf, gb), Elem::Float(wf, wb)) => {
            if gf.is_nan() || wf.is_nan() {
                return gf.is_nan() && wf.is_nan();
            }
            if tol.is_exact() {
                return false;
            }
            if gf == wf {
                return true;
            }
            let d = (gf - wf).abs();
            tol.abs.is_some_and(|a| d <= a)
                || tol.rel.is_some_and(|r| d <= r * wf.abs())
                || tol
                    .ulp
                    .is_some_and(|u| ulp_distance(dtype, gb, wb) <= u as u128)
        }
        (Elem::Int(gi), Elem::Int(wi)) => {
            if tol.is_exact() {
                return false;
            }
            let d = (gi - wi).unsigned_abs();
            tol.abs.is_some_and(|a| d as f64 <= a)
                || tol.rel.is_some_and(|r| d as f64 <= r * (wi as f64).abs())
                || tol.ulp.is_some_and(|u| d <= u as u128)
        }
        _ => false,
    }
}

/// Number of representable values between two non-NaN floats of `dtype` given as raw bits.
fn ulp_distance(dtype: DType, a: u64, b: u64) -> u128 {
    let bits = 8 * dtype.size() as u32;
    let sign = 1u64 << (bits - 1);
    // Map sign-magnitude onto a line: -x → -(magnitude), +x → magnitude; ±0 → 0.
    let key = |x: u64| -> i128 {
        let mag = (x & (sign - 1)) as i128;
        if x & sign != 0 {
            -mag
        } else {
            mag
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn exact_is_bitwise_but_nan_matches_nan() {
        let t = Tolerance::default();
        let nan2 = f32::from_bits(0x7fc0_0002);
        let c = compare(
            DType::F32,
            &f32s(&[1.0, f32::NAN, 0.0]),
            &f32s(&[1.0, nan2, -0.0]),
            &t,
            10,
        );
        assert_eq!(c.mismatches, 1);
        assert_eq!(
            c.first[0],
            Mismatch {
                index: 2,
                got: "0".into(),
                want: "-0".into()
            }
        );
    }

    #[test]
    fn abs_rel_ulp() {
        let want = f32s(&[1.0, 100.0, f32::INFINITY]);
        let got = f32s(&[1.0 + 1e-6, 100.01, f32::INFINITY]);
        let abs = Tolerance {
            abs: Some(1e-5),
            ..Default::default()
        };
        assert_eq!(compare(DType::F32, &got, &want, &abs, 10).mismatches, 1);
        let both = Tolerance {
            abs: Some(1e-5),
            rel: Some(1e-3),
            ..Default::default()
        };
        assert_eq!(compare(DType::F32, &got, &want, &both, 10).mismatches, 0);
        let one = f32s(&[1.0]);
        let next = f32s(&[f32::from_bits(1.0f32.to_bits() + 2)]);
        let ulp1 = Tolerance {
            ulp: Some(1),
            ..Default::default()
        };
        let ulp2 = Tolerance {
            ulp: Some(2),
            ..Default::default()
        };
        assert_eq!(compare(DType::F32, &next, &one, &ulp1, 10).mismatches, 1);
        assert_eq!(compare(DType::F32, &next, &one, &ulp2, 10).mismatches, 0);
        // Across zero: the smallest positive and negative subnormals are 2 apart.
        assert_eq!(ulp_distance(DType::F32, 1, 0x8000_0001), 2);
        let nan = f32s(&[f32::NAN]);
        assert_eq!(compare(DType::F32, &nan, &one, &both, 10).mismatches, 1);
    }

    #[test]
    fn integers() {
        let w: Vec<u8> = [10i32, -5].iter().flat_map(|x| x.to_le_bytes()).collect();
        let g: Vec<u8> = [12i32, -5].iter().flat_map(|x| x.to_le_bytes()).collect();
        let c = compare(DType::S32, &g, &w, &Tolerance::default(), 10);
        assert!(!c.sorted);
        assert_eq!(
            (
                c.mismatches,
                c.first[0].got.as_str(),
                c.first[0].want.as_str()
            ),
            (1, "12", "10")
        );
        let abs = Tolerance {
            abs: Some(2.0),
            ..Default::default()
        };
        assert!(compare(DType::S32, &g, &w, &abs, 10).passed());
    }

    /// Output appended through an atomic counter: the same elements in another order fail
    /// in index order and pass as multisets; a different multiset still fails.
    #[test]
    fn any_order_compares_multisets() {
        let t = Tolerance::default();
        let want = f32s(&[3.0, -0.0, f32::NAN, 1.0, 0.0, -2.0]);
        let perm = f32s(&[0.0, 1.0, -2.0, f32::from_bits(0xffc0_0001), 3.0, -0.0]);
        assert_eq!(compare(DType::F32, &perm, &want, &t, 10).mismatches, 6);
        let c = compare_ordered(DType::F32, &perm, &want, &t, Order::Any, 10);
        assert!(c.passed() && c.sorted, "{c:?}");
        // One element changed: -0 became +0, so sorted position 1 (after -2) differs.
        let other = f32s(&[0.0, 1.0, -2.0, f32::NAN, 3.0, 0.0]);
        let c = compare_ordered(DType::F32, &other, &want, &t, Order::Any, 10);
        assert_eq!(c.mismatches, 1);
        assert_eq!(
            c.first[0],
            Mismatch {
                index: 1,
                got: "0".into(),
                want: "-0".into()
            }
        );
        // Within a tolerance after sorting.
        let near = f32s(&[0.0, 1.0, -2.0, f32::NAN, 3.000001, -0.0]);
        let abs = Tolerance {
            abs: Some(1e-5),
            ..Default::default()
        };
        assert!(!compare_ordered(DType::F32, &near, &want, &t, Order::Any, 10).passed());
        assert!(compare_ordered(DType::F32, &near, &want, &abs, Order::Any, 10).passed());
        // Integers sort by their value in the type: u32 0xffffffff is the largest.
        let u = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let c = compare_ordered(
            DType::U32,
            &u(&[u32::MAX, 5, 0, 7]),
            &u(&[0, 5, 7, u32::MAX]),
            &t,
            Order::Any,
            10,
        );
        assert!(c.passed());
        let c = compare_ordered(
            DType::U32,
            &u(&[5, 5, 0, 7]),
            &u(&[0, 5, 7, 7]),
            &t,
            Order::Any,
            10,
        );
        assert_eq!(c.mismatches, 1);
    }
}
