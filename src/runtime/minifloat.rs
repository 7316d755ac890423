//! The narrow floating-point formats of `cvt` (PTX ISA §9.7.9.21, "cvt" with `.e4m3x2`,
//! `.e5m2x2` and `.tf32`; formats as in §5.2.5 "Alternate Floating-Point Data Formats"):
//!
//! | format | exponent bits, bias | mantissa bits | largest finite | infinity | NaN |
//! |---|---|---|---|---|---|
//! | e4m3 | 4, 7 | 3 | 448 (`0x7e`) | none | `s.1111.111` |
//! | e5m2 | 5, 15 | 2 | 57344 (`0x7b`) | `s.11111.00` | `s.11111.xx`, xx ≠ 0 |
//! | tf32 | 8, 127 | 10 (held as an f32 with the low 13 bits 0) | (2 − 2⁻¹⁰)·2¹²⁷ | as f32 | as f32 |
//!
//! Conversions to e4m3/e5m2 round to nearest even and saturate to the largest finite value
//! (`.rn.satfinite`, both mandatory); a NaN converts to the NaN `0x7f`. Conversions back to
//! f16 are exact (every value of both formats is an f16); a NaN gives f16's canonical NaN.

use super::fp::{self, Fmt};
use crate::ir::{F8Fmt, HalfFmt, TfRound};

/// (exponent bits, bias, mantissa bits, largest finite encoding) of an 8-bit format.
fn params(f: F8Fmt) -> (u32, i32, u32, u8) {
    match f {
        F8Fmt::E4M3 => (4, 7, 3, 0x7e),
        F8Fmt::E5M2 => (5, 15, 2, 0x7b),
    }
}

/// The value of an 8-bit encoding (NaN for NaN encodings, ±∞ for e5m2's infinities).
pub fn f8_value(f: F8Fmt, bits: u8) -> f64 {
    let (ebits, bias, mbits, _) = params(f);
    let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = ((bits as u32) >> mbits) & ((1 << ebits) - 1);
    let m = (bits as u32) & ((1 << mbits) - 1);
    let emax_field = (1 << ebits) - 1;
    match f {
        F8Fmt::E4M3 if e == emax_field && m == (1 << mbits) - 1 => return f64::NAN,
        F8Fmt::E5M2 if e == emax_field => {
            return if m == 0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            };
        }
        _ => {}
    }
    let mag = if e == 0 {
        m as f64 * 2f64.powi(1 - bias - mbits as i32)
    } else {
        (((1 << mbits) + m) as f64) * 2f64.powi(e as i32 - bias - mbits as i32)
    };
    sign * mag
}

/// `cvt.rn.satfinite{.relu}.e4m3/e5m2` of one f32: round to nearest even, saturate to the
/// largest finite value (±∞ included), NaN → `0x7f`; `.relu` turns negative results into +0.
pub fn f32_to_f8(f: F8Fmt, x: f32, relu: bool) -> u8 {
    let (ebits, bias, mbits, max) = params(f);
    if x.is_nan() {
        return 0x7f;
    }
    if relu && x.is_sign_negative() {
        return 0;
    }
    let sign: u8 = if x.is_sign_negative() { 0x80 } else { 0 };
    let a = (x as f64).abs();
    let max_val = f8_value(f, max);
    if a >= max_val {
        return sign | max;
    }
    let emin = 1 - bias;
    // The spacing of representable values around `a` (subnormals share emin's spacing).
    let e = if a == 0.0 {
        emin
    } else {
        (a.log2().floor() as i32).max(emin)
    };
    // log2 of an f32 can be off by one at exact powers of two: fix up.
    let e = if a >= 2f64.powi(e + 1) {
        e + 1
    } else if e > emin && a < 2f64.powi(e) {
        e - 1
    } else {
        e
    };
    let quantum = 2f64.powi(e - mbits as i32);
    let r = (a / quantum).round_ties_even() * quantum;
    if r > max_val {
        return sign | max;
    }
    if r == 0.0 {
        return sign;
    }
    let bits = if r < 2f64.powi(emin) {
        (r / 2f64.powi(emin - mbits as i32)) as u32
    } else {
        let e = if r >= 2f64.powi(e + 1) { e + 1 } else { e };
        let m = (r / 2f64.powi(e - mbits as i32)) as u32 - (1 << mbits);
        (((e + bias) as u32) << mbits) | m
    };
    debug_assert!(bits < 1 << (ebits + mbits));
    sign | bits as u8
}

/// `cvt.rn{.relu}.f16x2.e4m3x2/e5m2x2` of one 8-bit value to f16 bits: exact; NaN → f16's
/// canonical NaN; `.relu` turns negative results into +0.
pub fn f8_to_f16(f: F8Fmt, bits: u8, relu: bool) -> u16 {
    let v = f8_value(f, bits);
    if v.is_nan() {
        return fp::Fmt::from(HalfFmt::F16).canonical_nan() as u16;
    }
    if relu && v.is_sign_negative() {
        return 0;
    }
    half::f16::from_f64(v).to_bits()
}

/// `cvt.{rna,rn,rz}{.satfinite}{.relu}.tf32.f32` (PTX ISA §9.7.9.21): `x` rounded to tf32's 10
/// mantissa bits (`.rna`: to nearest, ties away from zero), returned as f32 bits with the low 13
/// bits 0. NaN → the canonical NaN; overflow → ±∞, or the largest finite tf32 with
/// `.satfinite` (which also clamps ±∞); `.relu` turns negative results into +0.
pub fn f32_to_tf32(x: u32, rnd: TfRound, satfinite: bool, relu: bool) -> u32 {
    let f = f32::from_bits(x);
    if f.is_nan() {
        return Fmt::F32.canonical_nan() as u32;
    }
    if relu && f.is_sign_negative() {
        return 0;
    }
    let sign = x & 0x8000_0000;
    let mag = x & 0x7fff_ffff;
    let max = 0x7f7f_e000;
    if mag == 0x7f80_0000 {
        return if satfinite { sign | max } else { x };
    }
    let low = mag & 0x1fff;
    let trunc = mag & !0x1fff;
    let up = match rnd {
        TfRound::NearestAway => low >= 0x1000,
        TfRound::Nearest => low > 0x1000 || (low == 0x1000 && trunc & 0x2000 != 0),
        TfRound::Zero => false,
    };
    // A carry out of the mantissa increments the exponent (up to ∞): still the right value.
    let r = if up { trunc + 0x2000 } else { trunc };
    if r >= 0x7f80_0000 && satfinite {
        return sign | max;
    }
    sign | r
}

/// `.satfinite` on an f16/bf16 result: ±∞ becomes the largest finite value of that sign
/// (NaN stays NaN; finite values are unchanged).
pub fn half_satfinite(fmt: HalfFmt, bits: u16) -> u16 {
    let (inf, max) = match fmt {
        HalfFmt::F16 => (0x7c00, 0x7bff),
        HalfFmt::Bf16 => (0x7f80, 0x7f7f),
    };
    if bits & 0x7fff == inf {
        (bits & 0x8000) | max
    } else {
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every encoding round-trips: decode to f32, encode again (NaNs to 0x7f).
    #[test]
    fn every_f8_encoding_round_trips() {
        for f in [F8Fmt::E4M3, F8Fmt::E5M2] {
            for b in 0..=255u8 {
                let v = f8_value(f, b);
                let back = f32_to_f8(f, v as f32, false);
                if v.is_nan() {
                    assert_eq!(back, 0x7f, "{f:?} {b:#x}");
                } else if v.is_infinite() {
                    assert_eq!(back, (b & 0x80) | 0x7b, "{f:?} {b:#x}: inf saturates");
                } else {
                    assert_eq!(back, b, "{f:?} {b:#x} = {v}");
                }
            }
        }
    }

    /// Values from the format definitions (OCP 8-bit floating point, as the PTX ISA uses).
    #[test]
    fn f8_known_values() {
        use F8Fmt::*;
        assert_eq!(f8_value(E4M3, 0x7e), 448.0);
        assert_eq!(f8_value(E4M3, 0x01), 2f64.powi(-9));
        assert_eq!(f8_value(E4M3, 0x38), 1.0);
        assert_eq!(f8_value(E5M2, 0x7b), 57344.0);
        assert_eq!(f8_value(E5M2, 0x01), 2f64.powi(-16));
        assert_eq!(f8_value(E5M2, 0x3c), 1.0);
        assert!(f8_value(E5M2, 0x7c).is_infinite());
        // Rounding: 1 + 1/16 is halfway between 1 and 1.125 in e4m3 → even (1.0).
        assert_eq!(f32_to_f8(E4M3, 1.0625, false), 0x38);
        assert_eq!(f32_to_f8(E4M3, 1.1875, false), 0x3a); // halfway 1.125/1.25 → 1.25
        assert_eq!(f32_to_f8(E4M3, 1000.0, false), 0x7e);
        assert_eq!(f32_to_f8(E4M3, -f32::INFINITY, false), 0xfe);
        assert_eq!(f32_to_f8(E4M3, -3.0, true), 0);
        assert_eq!(f32_to_f8(E4M3, 2f32.powi(-11), false), 0); // a quarter of the least subnormal
        assert_eq!(f32_to_f8(E4M3, -2f32.powi(-10), false), 0x80); // half of it: ties to even (-0)
        assert_eq!(f32_to_f8(E4M3, 3.0 * 2f32.powi(-10), false), 0x02); // 1.5 ulp → 2
        assert_eq!(f32_to_f8(E5M2, 61440.0, false), 0x7b); // rounds past the max: saturates
        assert_eq!(f8_to_f16(E5M2, 0x7c, false), 0x7c00);
        assert_eq!(f8_to_f16(E4M3, 0xff, false), 0x7fff);
        assert_eq!(f8_to_f16(E4M3, 0xb8, true), 0);
    }

    #[test]
    fn tf32_rounding() {
        let one = 1f32.to_bits();
        assert_eq!(
            f32_to_tf32(one | 0x1000, TfRound::NearestAway, false, false),
            one + 0x2000
        );
        assert_eq!(
            f32_to_tf32(one | 0x1000, TfRound::Nearest, false, false),
            one
        );
        assert_eq!(
            f32_to_tf32(one | 0x3000, TfRound::Nearest, false, false),
            one + 0x4000
        );
        assert_eq!(f32_to_tf32(one | 0x1fff, TfRound::Zero, false, false), one);
        assert_eq!(
            f32_to_tf32(0x7f7f_ffff, TfRound::NearestAway, false, false),
            0x7f80_0000
        );
        assert_eq!(
            f32_to_tf32(0x7f7f_ffff, TfRound::NearestAway, true, false),
            0x7f7f_e000
        );
        assert_eq!(
            f32_to_tf32(0xff80_0000, TfRound::Nearest, true, false),
            0xff7f_e000
        );
        assert_eq!(f32_to_tf32(0xbf80_0000, TfRound::Nearest, false, true), 0);
        assert_eq!(
            f32_to_tf32(0x7fc0_0001, TfRound::Zero, false, false),
            0x7fff_ffff
        );
    }
}
