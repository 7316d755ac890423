//! The narrow floating-point formats of `cvt` (PTX ISA §9.7.9.21 with `.e4m3x2`, `.e5m2x2`,
//! `.e2m3x2`, `.e3m2x2`, `.e2m1x2`, `.ue8m0x2`, `.tf32`; formats of §5.2.5 "Alternate
//! Floating-Point Data Formats"):
//!
//! | format | bits | exponent bits, bias | mantissa bits | largest finite | infinity | NaN |
//! |---|---|---|---|---|---|---|
//! | e4m3 | 8 | 4, 7 | 3 | 448 (`0x7e`) | none | `s.1111.111` |
//! | e5m2 | 8 | 5, 15 | 2 | 57344 (`0x7b`) | `s.11111.00` | `s.11111.xx`, xx ≠ 0 |
//! | e2m3 | 6 | 2, 1 | 3 | 7.5 (`0x1f`) | none | none |
//! | e3m2 | 6 | 3, 3 | 2 | 28 (`0x1f`) | none | none |
//! | e2m1 | 4 | 2, 1 | 1 | 6 (`0x7`) | none | none |
//! | ue8m0 | 8 | 8, 127 (unsigned) | 0 | 2¹²⁷ (`0xfe`) | none | `0xff` |
//! | tf32 | 32 | 8, 127 | 10 (an f32 with the low 13 bits 0) | (2 − 2⁻¹⁰)·2¹²⁷ | as f32 | as f32 |
//!
//! Conversions to e4m3/e5m2/e2m3/e3m2/e2m1 round to nearest even and saturate (`.rn.satfinite`,
//! both mandatory): anything beyond the largest finite value, ±∞ included, becomes it with the
//! input's sign; a NaN becomes `0x7f` (e4m3, e5m2) or, in the formats without NaN, the
//! positive largest finite value. Conversions back to f16 are exact (every value of these
//! formats is an f16); a NaN gives f16's canonical NaN. These are the rules of NVIDIA's own
//! host implementations in `cuda_fp8.hpp`, `cuda_fp6.hpp` and `cuda_fp4.hpp`, which the tests
//! compare against (`ptx-tests/isa/narrow_ref.cpp`).

use super::fp::{self, Fmt};
use crate::ir::{HalfFmt, MiniFmt, TfRound};

/// (exponent bits, bias, mantissa bits, largest finite encoding) of a small format.
fn params(f: MiniFmt) -> (u32, i32, u32, u8) {
    match f {
        MiniFmt::E4M3 => (4, 7, 3, 0x7e),
        MiniFmt::E5M2 => (5, 15, 2, 0x7b),
        MiniFmt::E2M3 => (2, 1, 3, 0x1f),
        MiniFmt::E3M2 => (3, 3, 2, 0x1f),
        MiniFmt::E2M1 => (2, 1, 1, 0x7),
    }
}

/// Bits of one element (8, 6 or 4).
pub fn width(f: MiniFmt) -> u32 {
    let (e, _, m, _) = params(f);
    1 + e + m
}

/// The value of an encoding (its low [`width`] bits): NaN for NaN encodings, ±∞ for e5m2's
/// infinities.
pub fn mini_value(f: MiniFmt, bits: u8) -> f64 {
    let (ebits, bias, mbits, _) = params(f);
    let w = width(f);
    let bits = (bits as u32) & ((1 << w) - 1);
    let sign = if bits >> (w - 1) != 0 { -1.0 } else { 1.0 };
    let e = (bits >> mbits) & ((1 << ebits) - 1);
    let m = bits & ((1 << mbits) - 1);
    let emax_field = (1 << ebits) - 1;
    match f {
        MiniFmt::E4M3 if e == emax_field && m == (1 << mbits) - 1 => return f64::NAN,
        MiniFmt::E5M2 if e == emax_field => {
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

/// `cvt.rn.satfinite{.relu}` of one f32 to a small format (see the module docs); `.relu`
/// turns negative results into +0.
pub fn f32_to_mini(f: MiniFmt, x: f32, relu: bool) -> u8 {
    f32_to_mini_with(f, x, relu, |q| q.round_ties_even())
}

/// `cvt.rs{.relu}.satfinite` of one f32 to a small format: stochastic rounding with the
/// element's 8 random bits `r` ([`stochastic`]); otherwise as [`f32_to_mini`].
pub fn f32_to_mini_rs(f: MiniFmt, x: f32, relu: bool, r: u32) -> u8 {
    f32_to_mini_with(f, x, relu, |q| stochastic(q, r, 8))
}

/// Stochastic rounding of a non-negative magnitude `q` given in units of the result's spacing
/// (PTX ISA §9.7.9.21, `.rs`): the `k` random bits `r` are added to the discarded fraction
/// at its most significant end and the sum is truncated, so `q` rounds up exactly when
/// `floor(frac(q) · 2^k) + r ≥ 2^k`: with probability `frac(q)` (to `k` bits) for uniform `r`.
/// Fraction bits below the `k` random bits cannot carry into the result.
pub fn stochastic(q: f64, r: u32, k: u32) -> f64 {
    let n = q.floor();
    let scale = (1u64 << k) as f64;
    let top = ((q - n) * scale).floor() as u64;
    let r = r as u64 & ((1 << k) - 1);
    if top + r >= 1 << k {
        n + 1.0
    } else {
        n
    }
}

/// A small-format conversion with `round` applied to the magnitude in units of the result's
/// spacing (exact in f64: an f32 has 24 significant bits).
fn f32_to_mini_with(f: MiniFmt, x: f32, relu: bool, round: impl Fn(f64) -> f64) -> u8 {
    let (_, bias, mbits, max) = params(f);
    let w = width(f);
    if x.is_nan() {
        return match f {
            MiniFmt::E4M3 | MiniFmt::E5M2 => 0x7f,
            _ => max,
        };
    }
    if relu && x.is_sign_negative() {
        return 0;
    }
    let sign: u8 = if x.is_sign_negative() {
        1 << (w - 1)
    } else {
        0
    };
    let a = (x as f64).abs();
    let max_val = mini_value(f, max);
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
    let r = round(a / quantum) * quantum;
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
    sign | bits as u8
}

/// `cvt.rs` of one f32 to f16 or bf16 bits with `k` random bits `r` (13 for f16, 16 for bf16;
/// PTX ISA §9.7.9.21): the value truncated toward zero, then moved one step away from zero
/// when [`stochastic`] rounds up; a finite value past the largest finite one can so become
/// ±∞. NaN gives the canonical NaN, ±∞ stays ±∞. `.satfinite` and `.relu` are applied
/// afterwards by the caller.
pub fn f32_to_half_rs(fmt: HalfFmt, x: f32, r: u32, k: u32) -> u16 {
    let f: Fmt = fmt.into();
    if x.is_nan() {
        return f.canonical_nan() as u16;
    }
    let value = |bits: u16| match fmt {
        HalfFmt::F16 => half::f16::from_bits(bits).to_f64(),
        HalfFmt::Bf16 => half::bf16::from_bits(bits).to_f64(),
    };
    let (inf, max) = match fmt {
        HalfFmt::F16 => (0x7c00u16, 0x7bffu16),
        HalfFmt::Bf16 => (0x7f80, 0x7f7f),
    };
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = (x as f64).abs();
    if a.is_infinite() {
        return sign | inf;
    }
    // The largest magnitude encoding not above `a`: the conversion toward zero.
    let dst = match fmt {
        HalfFmt::F16 => crate::ir::CvtType::F16,
        HalfFmt::Bf16 => crate::ir::CvtType::Bf16,
    };
    let rz = crate::ir::CvtRound::Float(crate::ir::Round::Zero);
    let abs_bits = (x.to_bits() & 0x7fff_ffff) as u64;
    let lo = super::semantics::cvt(dst, crate::ir::CvtType::F32, rz, false, false, abs_bits) as u16;
    let t = value(lo);
    if t == a {
        return sign | lo;
    }
    // The spacing above `lo`: the step to the next encoding (max's own binade at the top).
    let step = if lo == max {
        value(max) - value(max - 1)
    } else {
        value(lo + 1) - t
    };
    let up = stochastic((a - t) / step, r, k) >= 1.0;
    sign | if up { lo + 1 } else { lo }
}

/// `cvt.rn{.relu}.f16x2.<fmt>x2` of one element to f16 bits: exact; NaN → f16's canonical
/// NaN; `.relu` turns negative results into +0.
pub fn mini_to_f16(f: MiniFmt, bits: u8, relu: bool) -> u16 {
    let v = mini_value(f, bits);
    if v.is_nan() {
        return fp::Fmt::from(HalfFmt::F16).canonical_nan() as u16;
    }
    if relu && v.is_sign_negative() {
        return 0;
    }
    half::f16::from_f64(v).to_bits()
}

/// `cvt.{rz,rp}{.satfinite}.ue8m0x2.f32` of one f32: the exponent of |x| (biased by 127) after
/// rounding |x| to a power of two toward zero (`.rz`) or up (`.rp`); NaN → `0xff`; without
/// `.satfinite` an infinite (or overflowing) input also gives `0xff`, with it `0xfe`. Values
/// below 2⁻¹²⁷ give 0 with `.rz` (0 stands for 2⁻¹²⁷). As NVIDIA's `__nv_cvt_float_to_e8m0`.
pub fn f32_to_ue8m0(x: f32, rp: bool, satfinite: bool) -> u8 {
    if x.is_nan() {
        return 0xff;
    }
    // |x| as bf16 bits, truncated (.rz) or rounded up (.rp).
    let ax = x.to_bits() & 0x7fff_ffff;
    let mut b = (ax >> 16) as u16;
    if rp && ax < 0x7f80_0000 && ax & 0xffff != 0 {
        b += 1;
    }
    let mut res = (b >> 7) as u8;
    if rp && b & 0x7f != 0 && b > 0x0040 && b < 0x7f80 {
        res = res.wrapping_add(1);
    }
    if satfinite && res == 0xff {
        res = 0xfe;
    }
    res
}

/// `cvt.rn.bf16x2.ue8m0x2` of one byte to bf16 bits: 2^(e − 127), with 0 → 2⁻¹²⁷ (`0x0040`)
/// and `0xff` → bf16's canonical NaN.
pub fn ue8m0_to_bf16(e: u8) -> u16 {
    match e {
        0xff => 0x7fff,
        0 => 0x0040,
        e => (e as u16) << 7,
    }
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

/// The value 2^(e − 127) of one `.ue8m0` scale factor of `.scaled::n2::ue8m0` (PTX ISA
/// §9.7.9.21); the NaN encoding `0xff` gives NaN.
pub fn ue8m0_value(e: u8) -> f64 {
    if e == 0xff {
        f64::NAN
    } else {
        2f64.powi(e as i32 - 127)
    }
}

/// An up-conversion to `.bf16` with a `.ue8m0` scale factor (PTX ISA §9.7.9.21,
/// `cvt.rn{.satfinite}{.relu}{.scaled::n2::ue8m0}.bf16x2.<fmt>x2`): the element's value `v`
/// (an e4m3/e5m2/e2m3/e3m2/e2m1 or s2f6 value: at most 8 significant bits) times
/// 2^(scale − 127), rounded once to bf16 to nearest even. The product is exact in f64 and
/// also in f32 wherever it is finite there (its least bit is never below 2⁻¹⁴⁹), so the f32 step
/// adds no rounding; overflow gives ±∞. NaN (also from the NaN scale `0xff`) → bf16's
/// canonical NaN; `.satfinite`: ±∞ → ±largest finite; `.relu`: negative → +0.
pub fn scaled_to_bf16(v: f64, scale: u8, satfinite: bool, relu: bool) -> u16 {
    let bf: Fmt = HalfFmt::Bf16.into();
    let x = v * ue8m0_value(scale);
    if x.is_nan() {
        return bf.canonical_nan() as u16;
    }
    let rn = crate::ir::CvtRound::Float(crate::ir::Round::Nearest);
    let f = (x as f32).to_bits() as u64;
    let mut h = super::semantics::cvt(
        crate::ir::CvtType::Bf16,
        crate::ir::CvtType::F32,
        rn,
        false,
        false,
        f,
    ) as u16;
    if satfinite {
        h = half_satfinite(HalfFmt::Bf16, h);
    }
    if relu {
        h = fp::relu(bf, h as u64) as u16;
    }
    h
}

/// The value of an `.s2f6` encoding (PTX ISA §5.2.4 "Fixed-point Data format"): the byte as
/// an 8-bit two's-complement integer times 2⁻⁶ (−2 to 127/64).
pub fn s2f6_value(bits: u8) -> f64 {
    (bits as i8) as f64 / 64.0
}

/// `cvt.rn.satfinite{.relu}{.scaled::n2::ue8m0}.s2f6x2` of one element (PTX ISA §9.7.9.21):
/// x divided by the scale 2^(scale − 127) (exact in f64), rounded to nearest even in steps of
/// 2⁻⁶ and clamped to the encodings' range −2 (`0x80`) … 127/64 (`0x7f`); NaN, also from the
/// NaN scale `0xff`, gives `0x7f` (the ISA's "positive MAX_NORM"); `.relu`: negative → 0.
pub fn f32_to_s2f6(x: f32, scale: u8, relu: bool) -> u8 {
    let q = x as f64 / ue8m0_value(scale) * 64.0;
    if q.is_nan() {
        return 0x7f;
    }
    let mut q = q.round_ties_even().clamp(-128.0, 127.0);
    if relu && q < 0.0 {
        q = 0.0;
    }
    (q as i8) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every encoding round-trips: decode to f32, encode again (NaNs to 0x7f).
    #[test]
    fn every_encoding_round_trips() {
        use MiniFmt::*;
        for f in [E4M3, E5M2, E2M3, E3M2, E2M1] {
            for b in 0..(1u32 << width(f)) {
                let b = b as u8;
                let v = mini_value(f, b);
                let back = f32_to_mini(f, v as f32, false);
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

    /// Stochastic rounding is unbiased to the random bits' resolution: over every value of
    /// the k random bits, a bf16 result rounds up exactly as often as the discarded 16 bits
    /// say (the ISA's "random bits added to the discarded bits"), and an f16 one as its 13.
    #[test]
    fn stochastic_rounding_counts() {
        for discarded in [0u32, 1, 0x7fff, 0x8000, 0xffff] {
            let x = f32::from_bits(0x3f80_0000 | discarded);
            let ups = (0..1u32 << 16)
                .filter(|&r| f32_to_half_rs(HalfFmt::Bf16, x, r, 16) == 0x3f81)
                .count();
            assert_eq!(ups as u32, discarded, "bf16 {discarded:#x}");
        }
        for discarded in [0u32, 1, 0x1000, 0x1fff] {
            let x = f32::from_bits(0x3f80_0000 | discarded);
            let ups = (0..1u32 << 13)
                .filter(|&r| f32_to_half_rs(HalfFmt::F16, x, r, 13) == 0x3c01)
                .count();
            assert_eq!(ups as u32, discarded, "f16 {discarded:#x}");
        }
        // e4m3 near 1 (spacing 1/8): 1 + 3/64 is 3/8 of the way up: 96 of the 256 bytes.
        let ups = (0..256)
            .filter(|&r| f32_to_mini_rs(MiniFmt::E4M3, 1.046875, false, r) == 0x39)
            .count();
        assert_eq!(ups, 96);
    }

    /// Values from the format definitions (OCP 8-bit floating point, as the PTX ISA uses).
    #[test]
    fn known_values() {
        use MiniFmt::*;
        assert_eq!(mini_value(E4M3, 0x7e), 448.0);
        assert_eq!(mini_value(E4M3, 0x01), 2f64.powi(-9));
        assert_eq!(mini_value(E4M3, 0x38), 1.0);
        assert_eq!(mini_value(E5M2, 0x7b), 57344.0);
        assert_eq!(mini_value(E5M2, 0x01), 2f64.powi(-16));
        assert_eq!(mini_value(E5M2, 0x3c), 1.0);
        assert!(mini_value(E5M2, 0x7c).is_infinite());
        assert_eq!(mini_value(E2M3, 0x1f), 7.5);
        assert_eq!(mini_value(E3M2, 0x1f), 28.0);
        assert_eq!(mini_value(E2M1, 0x7), 6.0);
        assert_eq!(mini_value(E2M1, 0x1), 0.5);
        assert_eq!(f32_to_mini(E2M1, f32::NAN, false), 0x7);
        assert_eq!(f32_to_mini(E2M1, -100.0, false), 0xf);
        assert_eq!(f32_to_ue8m0(1.0, false, false), 127);
        assert_eq!(f32_to_ue8m0(1.5, true, false), 128);
        assert_eq!(f32_to_ue8m0(f32::INFINITY, false, true), 0xfe);
        assert_eq!(ue8m0_to_bf16(127), 0x3f80);
        // Rounding: 1 + 1/16 is halfway between 1 and 1.125 in e4m3 → even (1.0).
        assert_eq!(f32_to_mini(E4M3, 1.0625, false), 0x38);
        assert_eq!(f32_to_mini(E4M3, 1.1875, false), 0x3a); // halfway 1.125/1.25 → 1.25
        assert_eq!(f32_to_mini(E4M3, 1000.0, false), 0x7e);
        assert_eq!(f32_to_mini(E4M3, -f32::INFINITY, false), 0xfe);
        assert_eq!(f32_to_mini(E4M3, -3.0, true), 0);
        assert_eq!(f32_to_mini(E4M3, 2f32.powi(-11), false), 0); // a quarter of the least subnormal
        assert_eq!(f32_to_mini(E4M3, -2f32.powi(-10), false), 0x80); // half of it: ties to even (-0)
        assert_eq!(f32_to_mini(E4M3, 3.0 * 2f32.powi(-10), false), 0x02); // 1.5 ulp → 2
        assert_eq!(f32_to_mini(E5M2, 61440.0, false), 0x7b); // rounds past the max: saturates
        assert_eq!(mini_to_f16(E5M2, 0x7c, false), 0x7c00);
        assert_eq!(mini_to_f16(E4M3, 0xff, false), 0x7fff);
        assert_eq!(mini_to_f16(E4M3, 0xb8, true), 0);
    }

    /// s2f6 and scaled bf16 values from the format definitions (PTX ISA §5.2.4, §9.7.9.21).
    #[test]
    fn s2f6_and_scaled_values() {
        assert_eq!(s2f6_value(0x7f), 1.984375);
        assert_eq!(s2f6_value(0x80), -2.0);
        assert_eq!(s2f6_value(0x40), 1.0);
        assert_eq!(f32_to_s2f6(1.0, 127, false), 0x40);
        assert_eq!(f32_to_s2f6(-5.0, 127, false), 0x80);
        assert_eq!(f32_to_s2f6(5.0, 127, false), 0x7f);
        assert_eq!(f32_to_s2f6(f32::NAN, 127, true), 0x7f);
        assert_eq!(f32_to_s2f6(-1.0, 127, true), 0);
        // 3/128 is halfway between 1/64 and 2/64: to even (2/64).
        assert_eq!(f32_to_s2f6(3.0 / 128.0, 127, false), 0x02);
        assert_eq!(f32_to_s2f6(64.0, 133, false), 0x40); // 64 / 2^6
        assert_eq!(scaled_to_bf16(1.0, 127, false, false), 0x3f80);
        assert_eq!(scaled_to_bf16(-2.0, 254, false, false), 0xff80);
        assert_eq!(scaled_to_bf16(-2.0, 254, true, false), 0xff7f);
        assert_eq!(scaled_to_bf16(1.0, 0xff, false, false), 0x7fff);
        assert_eq!(scaled_to_bf16(-1.0, 127, false, true), 0);
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
