//! Element-wise comparison of a buffer against its expectation.
//!
//! - exact (the default): bitwise equality, except that any NaN matches any NaN (of the same
//!   type — both sides always have the buffer's type). `-0.0` and `+0.0` differ.
//! - `abs`, `rel`, `ulp` (any combination): an element passes if *any* given bound holds, or if
//!   both values are equal (so infinities of the same sign pass), or both are NaN.
//!   `abs`: |got − want| ≤ abs; `rel`: |got − want| ≤ rel · |want| (in f64);
//!   `ulp`: the distance in representable values of the buffer's own type (f16, bf16, f32, f64;
//!   `+0` and `-0` are 0 apart) ≤ ulp. For integer buffers all three bound |got − want|.

use super::dtype::{DType, Elem};
use super::spec::Tolerance;

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
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
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
}
