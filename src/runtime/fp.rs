//! Floating-point semantics beyond the host's round-to-nearest: directed rounding, the 16-bit
//! formats, the `.approx` functions, min/max variants and `testp` (PTX ISA §9.7.3, §9.7.4).
//!
//! Values are bit patterns (`u64`, zero-extended). Exact IEEE results in every rounding mode
//! come from `rustc_apfloat` (rust-lang's port of LLVM's APFloat); square roots with directed
//! rounding from the host's correctly rounded square root plus an exact residual. The `.approx`
//! functions are computed in f64 with the `libm` crate (the same bits on every host) and rounded
//! to nearest, well within the bound the ISA states for each.
//!
//! NaN results are canonical: `0x7fffffff` (f32), `0x7fffffffffffffff` (f64), `0x7fff` (f16
//! and bf16), as the ISA specifies for arithmetic.

use crate::ir::{ApproxFn, FCmp, HalfFmt, Round, TestProp};
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round as ARound};

/// A float format, for bit-level helpers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    F16,
    Bf16,
    F32,
    F64,
}

impl From<HalfFmt> for Fmt {
    fn from(h: HalfFmt) -> Fmt {
        match h {
            HalfFmt::F16 => Fmt::F16,
            HalfFmt::Bf16 => Fmt::Bf16,
        }
    }
}

impl Fmt {
    pub fn bits(self) -> u32 {
        match self {
            Fmt::F16 | Fmt::Bf16 => 16,
            Fmt::F32 => 32,
            Fmt::F64 => 64,
        }
    }
    fn mant_bits(self) -> u32 {
        match self {
            Fmt::F16 => 10,
            Fmt::Bf16 => 7,
            Fmt::F32 => 23,
            Fmt::F64 => 52,
        }
    }
    pub fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }
    pub fn sign(self) -> u64 {
        1u64 << (self.bits() - 1)
    }
    fn exp_mask(self) -> u64 {
        (self.mask() >> 1) & !((1u64 << self.mant_bits()) - 1)
    }
    /// The canonical NaN of the format.
    pub fn canonical_nan(self) -> u64 {
        self.mask() >> 1
    }
    pub fn is_nan(self, x: u64) -> bool {
        let e = self.exp_mask();
        x & e == e && x & ((1u64 << self.mant_bits()) - 1) != 0
    }
    pub fn is_inf(self, x: u64) -> bool {
        x & (self.mask() >> 1) == self.exp_mask()
    }
    pub fn is_zero(self, x: u64) -> bool {
        x & (self.mask() >> 1) == 0
    }
    pub fn is_subnormal(self, x: u64) -> bool {
        x & self.exp_mask() == 0 && !self.is_zero(x)
    }
    pub fn is_neg(self, x: u64) -> bool {
        x & self.sign() != 0
    }
    /// Flush a subnormal to a zero of the same sign when `ftz`.
    pub fn ftz(self, x: u64, ftz: bool) -> u64 {
        if ftz && self.is_subnormal(x) {
            x & self.sign()
        } else {
            x
        }
    }
    /// The value as an f64 (exact for every format here).
    pub fn to_f64(self, x: u64) -> f64 {
        match self {
            Fmt::F16 => half::f16::from_bits(x as u16).to_f64(),
            Fmt::Bf16 => half::bf16::from_bits(x as u16).to_f64(),
            Fmt::F32 => f32::from_bits(x as u32) as f64,
            Fmt::F64 => f64::from_bits(x),
        }
    }
    /// An f64 rounded to this format by `rnd`.
    pub fn from_f64(self, x: f64, rnd: Round) -> u64 {
        let d = Double::from_bits(x.to_bits() as u128);
        let r = ar(rnd);
        let mut lost = false;
        match self {
            Fmt::F16 => {
                let v: Half = d.convert_r(r, &mut lost).value;
                v.to_bits() as u64
            }
            Fmt::Bf16 => {
                let v: BFloat = d.convert_r(r, &mut lost).value;
                v.to_bits() as u64
            }
            Fmt::F32 => {
                let v: Single = d.convert_r(r, &mut lost).value;
                v.to_bits() as u64
            }
            Fmt::F64 => x.to_bits(),
        }
    }
    /// PTX's result rules: flush (`.ftz`), saturate to [0, 1] with NaN → +0 (`.sat`), and
    /// canonical NaN.
    pub fn finish(self, x: u64, ftz: bool, sat: bool) -> u64 {
        let x = self.ftz(x & self.mask(), ftz);
        if sat {
            if self.is_nan(x) {
                return 0;
            }
            if self.is_neg(x) && !self.is_zero(x) {
                return 0;
            }
            if self.to_f64(x) > 1.0 {
                return self.from_f64(1.0, Round::Nearest);
            }
            return x;
        }
        if self.is_nan(x) {
            self.canonical_nan()
        } else {
            x
        }
    }
}

fn ar(r: Round) -> ARound {
    match r {
        Round::Nearest => ARound::NearestTiesToEven,
        Round::Zero => ARound::TowardZero,
        Round::Down => ARound::TowardNegative,
        Round::Up => ARound::TowardPositive,
    }
}

/// An arithmetic operation with one rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    /// a * b + c, fused.
    Fma,
}

fn apply<F: Float>(op: Arith, a: F, b: F, c: F, r: ARound) -> F {
    match op {
        Arith::Add => a.add_r(b, r).value,
        Arith::Sub => a.sub_r(b, r).value,
        Arith::Mul => a.mul_r(b, r).value,
        Arith::Div => a.div_r(b, r).value,
        Arith::Fma => a.mul_add_r(b, c, r).value,
    }
}

/// The exactly rounded result of `op` in format `fmt` (no flushing; NaN not canonicalized).
pub fn arith_raw(fmt: Fmt, op: Arith, a: u64, b: u64, c: u64, rnd: Round) -> u64 {
    if rnd == Round::Nearest {
        match fmt {
            Fmt::F32 => {
                let (x, y, z) = (
                    f32::from_bits(a as u32),
                    f32::from_bits(b as u32),
                    f32::from_bits(c as u32),
                );
                let r = match op {
                    Arith::Add => x + y,
                    Arith::Sub => x - y,
                    Arith::Mul => x * y,
                    Arith::Div => x / y,
                    Arith::Fma => x.mul_add(y, z),
                };
                return r.to_bits() as u64;
            }
            Fmt::F64 => {
                let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
                let r = match op {
                    Arith::Add => x + y,
                    Arith::Sub => x - y,
                    Arith::Mul => x * y,
                    Arith::Div => x / y,
                    Arith::Fma => x.mul_add(y, z),
                };
                return r.to_bits();
            }
            _ => {}
        }
    }
    let r = ar(rnd);
    let (a, b, c) = (a as u128, b as u128, c as u128);
    match fmt {
        Fmt::F16 => apply(
            op,
            Half::from_bits(a),
            Half::from_bits(b),
            Half::from_bits(c),
            r,
        )
        .to_bits() as u64,
        Fmt::Bf16 => apply(
            op,
            BFloat::from_bits(a),
            BFloat::from_bits(b),
            BFloat::from_bits(c),
            r,
        )
        .to_bits() as u64,
        Fmt::F32 => apply(
            op,
            Single::from_bits(a),
            Single::from_bits(b),
            Single::from_bits(c),
            r,
        )
        .to_bits() as u64,
        Fmt::F64 => apply(
            op,
            Double::from_bits(a),
            Double::from_bits(b),
            Double::from_bits(c),
            r,
        )
        .to_bits() as u64,
    }
}

/// `op` with PTX's input flushing (`.ftz`), rounding, result flushing, saturation and
/// canonical NaN (PTX ISA §9.7.3.3-8, §9.7.4.1-4).
pub fn arith(fmt: Fmt, op: Arith, args: [u64; 3], rnd: Round, ftz: bool, sat: bool) -> u64 {
    let [a, b, c] = args.map(|x| fmt.ftz(x & fmt.mask(), ftz));
    fmt.finish(arith_raw(fmt, op, a, b, c, rnd), ftz, sat)
}

/// Square root in every rounding mode (PTX ISA §9.7.3.15): the host's correctly rounded
/// square root, corrected by the sign of the exact residual `x - q²` for directed modes.
pub fn sqrt(fmt: Fmt, x: u64, rnd: Round, ftz: bool) -> u64 {
    let x = fmt.ftz(x & fmt.mask(), ftz);
    let r = match fmt {
        Fmt::F32 => {
            let v = f32::from_bits(x as u32);
            let q = v.sqrt();
            if rnd == Round::Nearest || !q.is_finite() || q == 0.0 {
                q.to_bits() as u64
            } else {
                // q² is exact in f64 (48 bits), and so is the sign of x - q².
                let res = v as f64 - (q as f64) * (q as f64);
                directed32(q, res, rnd).to_bits() as u64
            }
        }
        _ => {
            let v = f64::from_bits(x);
            let q = v.sqrt();
            if rnd == Round::Nearest || !q.is_finite() || q == 0.0 {
                q.to_bits()
            } else {
                // Scale tiny inputs so the fused residual cannot underflow: sqrt(x·2^200) =
                // sqrt(x)·2^100 exactly, and every square root of a positive double is normal.
                let (v2, q2) = if v < f64::from_bits(0x0770_0000_0000_0000) {
                    let s = v * 2f64.powi(200);
                    (s, s.sqrt())
                } else {
                    (v, q)
                };
                let res = (-q2).mul_add(q2, v2);
                let d = directed64(q2, res, rnd);
                if v2 != v {
                    (d * 2f64.powi(-100)).to_bits()
                } else {
                    d.to_bits()
                }
            }
        }
    };
    fmt.finish(r, ftz, false)
}

/// Given the nearest value `q` and the sign of (exact - q), the value rounded by `rnd`
/// (positive results only).
fn directed32(q: f32, res: f64, rnd: Round) -> f32 {
    match (rnd, res.partial_cmp(&0.0)) {
        (Round::Up, Some(std::cmp::Ordering::Greater)) => q.next_up(),
        (Round::Down | Round::Zero, Some(std::cmp::Ordering::Less)) => q.next_down(),
        _ => q,
    }
}

fn directed64(q: f64, res: f64, rnd: Round) -> f64 {
    match (rnd, res.partial_cmp(&0.0)) {
        (Round::Up, Some(std::cmp::Ordering::Greater)) => q.next_up(),
        (Round::Down | Round::Zero, Some(std::cmp::Ordering::Less)) => q.next_down(),
        _ => q,
    }
}

/// `div.approx.f32` (PTX ISA §9.7.3.8): a * (1/b), here the IEEE quotient, except that for
/// 2^126 < |b| < 2^128 the ISA specifies 0 (and NaN for an infinite a).
pub fn div_approx32(a: u64, b: u64, ftz: bool) -> u64 {
    let f = Fmt::F32;
    let (x, y) = (f.ftz(a & f.mask(), ftz), f.ftz(b & f.mask(), ftz));
    let by = f32::from_bits(y as u32).abs();
    if by > 2f32.powi(126) && by.is_finite() {
        if f.is_inf(x) {
            return f.canonical_nan();
        }
        if f.is_nan(x) {
            return f.canonical_nan();
        }
        let neg = f.is_neg(x) != f.is_neg(y);
        return if neg { f.sign() } else { 0 };
    }
    arith(f, Arith::Div, [x, y, 0], Round::Nearest, ftz, false)
}

/// min/max (PTX ISA §9.7.3.11-12, §9.7.4.7-8): without `.NaN` a NaN input yields the other
/// input; with `.NaN` any NaN input yields the canonical NaN; -0 < +0; `.xorsign.abs` takes
/// the magnitudes and sets the sign to the xor of the input signs unless the result is NaN.
pub fn minmax(fmt: Fmt, a: u64, b: u64, max: bool, ftz: bool, nan: bool, xorsign: bool) -> u64 {
    let (mut x, mut y) = (fmt.ftz(a & fmt.mask(), ftz), fmt.ftz(b & fmt.mask(), ftz));
    let xs = fmt.is_neg(x) != fmt.is_neg(y);
    if xorsign {
        x &= !fmt.sign();
        y &= !fmt.sign();
    }
    let (xn, yn) = (fmt.is_nan(x), fmt.is_nan(y));
    let r = if xn && yn || (nan && (xn || yn)) {
        return fmt.canonical_nan();
    } else if xn {
        y
    } else if yn {
        x
    } else {
        let (fx, fy) = (fmt.to_f64(x), fmt.to_f64(y));
        let x_less = fx < fy || (fx == fy && fmt.is_neg(x) && !fmt.is_neg(y));
        if x_less != max {
            x
        } else {
            y
        }
    };
    let r = fmt.ftz(r, ftz);
    if xorsign {
        (r & !fmt.sign()) | if xs { fmt.sign() } else { 0 }
    } else {
        r
    }
}

/// Float comparison on any format (PTX ISA §9.7.6.2, §9.7.7.2).
pub fn cmp(fmt: Fmt, cc: FCmp, a: u64, b: u64, ftz: bool) -> bool {
    let (x, y) = (
        fmt.to_f64(fmt.ftz(a & fmt.mask(), ftz)),
        fmt.to_f64(fmt.ftz(b & fmt.mask(), ftz)),
    );
    let nan = x.is_nan() || y.is_nan();
    match cc {
        FCmp::Eq => !nan && x == y,
        FCmp::Ne => !nan && x != y,
        FCmp::Lt => !nan && x < y,
        FCmp::Le => !nan && x <= y,
        FCmp::Gt => !nan && x > y,
        FCmp::Ge => !nan && x >= y,
        FCmp::Equ => nan || x == y,
        FCmp::Neu => nan || x != y,
        FCmp::Ltu => nan || x < y,
        FCmp::Leu => nan || x <= y,
        FCmp::Gtu => nan || x > y,
        FCmp::Geu => nan || x >= y,
        FCmp::Num => !nan,
        FCmp::Nan => nan,
    }
}

/// `testp` (PTX ISA §9.7.3.1).
pub fn testp(fmt: Fmt, prop: TestProp, x: u64) -> bool {
    let x = x & fmt.mask();
    match prop {
        TestProp::Finite => !fmt.is_nan(x) && !fmt.is_inf(x),
        TestProp::Infinite => fmt.is_inf(x),
        TestProp::Number => !fmt.is_nan(x),
        TestProp::NotANumber => fmt.is_nan(x),
        TestProp::Normal => {
            !fmt.is_nan(x) && !fmt.is_inf(x) && !fmt.is_zero(x) && !fmt.is_subnormal(x)
        }
        TestProp::Subnormal => fmt.is_subnormal(x),
    }
}

/// `copysign` (PTX ISA §9.7.3.2): b with the sign of a; a bit operation (NaN payloads kept).
pub fn copysign(fmt: Fmt, a: u64, b: u64) -> u64 {
    (b & fmt.mask() & !fmt.sign()) | (a & fmt.sign())
}

/// The "OOB NaN" of a format: the bits a tensor copy with a NaN OOB fill
/// (`CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA`) writes for out-of-bound elements and
/// `fma.oob` (PTX ISA §9.7.4.4) recognises. The ISA and CUDA name it without giving its bits;
/// ptxjit uses the canonical NaN (all payload bits set, as
/// [`TmapType::nan_bits`](super::tensormap::TmapType::nan_bits)), so a canonical NaN that
/// arithmetic produced also counts as OOB (docs/isa-notes.md).
pub fn oob_nan(fmt: Fmt) -> u64 {
    fmt.canonical_nan()
}

/// The `.relu` clamp (PTX ISA §9.7.4.4): negative → +0, NaN → canonical NaN.
pub fn relu(fmt: Fmt, x: u64) -> u64 {
    let x = x & fmt.mask();
    if fmt.is_nan(x) {
        fmt.canonical_nan()
    } else if fmt.is_neg(x) {
        0
    } else {
        x
    }
}

/// The exact value of a `.approx` function at `x` (computed in f64), with the ISA's special
/// cases (PTX ISA §9.7.3.16-22 tables).
fn approx_f64(f: ApproxFn, x: f64) -> f64 {
    match f {
        ApproxFn::Rsqrt => {
            if x == 0.0 {
                if x.is_sign_negative() {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            } else {
                1.0 / libm::sqrt(x)
            }
        }
        ApproxFn::Rcp => 1.0 / x,
        ApproxFn::Sin => libm::sin(x),
        ApproxFn::Cos => libm::cos(x),
        // In cycles: the whole turns dropped exactly first (`x - round(x)` is exact in f64
        // for an f32 `x`), so large inputs keep their fraction; a zero keeps its sign.
        ApproxFn::Sin2Pi if x == 0.0 => x,
        ApproxFn::Sin2Pi => libm::sin(std::f64::consts::TAU * (x - libm::round(x))),
        ApproxFn::Cos2Pi => libm::cos(std::f64::consts::TAU * (x - libm::round(x))),
        ApproxFn::Lg2 => {
            if x == 0.0 {
                f64::NEG_INFINITY
            } else {
                libm::log2(x)
            }
        }
        ApproxFn::Ex2 => libm::exp2(x),
        ApproxFn::Tanh => libm::tanh(x),
    }
}

/// A `.approx` function on f32, f16 or bf16 (input and result flushed when `ftz`).
pub fn approx(fmt: Fmt, f: ApproxFn, x: u64, ftz: bool) -> u64 {
    if fmt == Fmt::F64 {
        return approx64(f, x, ftz);
    }
    let x = fmt.ftz(x & fmt.mask(), ftz);
    let v = approx_f64(f, fmt.to_f64(x));
    fmt.finish(fmt.from_f64(v, Round::Nearest), ftz, false)
}

/// f64 `.approx` forms: `rsqrt.approx.f64` (full precision here); `rcp.approx.ftz.f64` and
/// `rsqrt.approx.ftz.f64` work in the 1.11.20 format of the upper word (PTX ISA §9.7.3.14,
/// §9.7.3.17): the low 32 bits of the input are ignored, the result is rounded to nearest at
/// 20 mantissa bits and its low 32 bits are zero; NaN gives 0x7fffffff00000000.
fn approx64(f: ApproxFn, x: u64, ftz: bool) -> u64 {
    if !ftz {
        let v = approx_f64(f, f64::from_bits(x));
        return Fmt::F64.finish(v.to_bits(), false, false);
    }
    let hi = x & 0xffff_ffff_0000_0000;
    let hi = Fmt::F64.ftz(hi, true);
    let v = f64::from_bits(hi);
    if v.is_nan() {
        return 0x7fff_ffff_0000_0000;
    }
    let r = approx_f64(f, v);
    if r.is_nan() {
        return 0x7fff_ffff_0000_0000;
    }
    let bits = Fmt::F64.ftz(r.to_bits(), true);
    if !f64::from_bits(bits).is_finite() {
        return bits;
    }
    // Round to nearest even at bit 32.
    let low = bits & 0xffff_ffff;
    let mut up = bits & 0xffff_ffff_0000_0000;
    if low > 0x8000_0000 || (low == 0x8000_0000 && (up >> 32) & 1 == 1) {
        up += 1 << 32;
    }
    Fmt::F64.ftz(up, true)
}

/// Float → float conversion with rounding (`cvt`, PTX ISA §9.7.9.21), no flushing.
pub fn convert(src: Fmt, dst: Fmt, x: u64, rnd: Round) -> u64 {
    // Every f16/bf16/f32/f64 value is exact in f64, so one rounding from f64 is exact.
    let v = src.to_f64(x & src.mask());
    if dst == Fmt::F64 {
        return v.to_bits();
    }
    dst.from_f64(v, rnd)
}

/// Round a float to an integral value of the same format (`cvt.rni` etc.).
pub fn round_integral(fmt: Fmt, x: u64, rnd: Round) -> u64 {
    let r = ar(rnd);
    let x = x as u128;
    (match fmt {
        Fmt::F16 => Half::from_bits(x).round_to_integral(r).value.to_bits(),
        Fmt::Bf16 => BFloat::from_bits(x).round_to_integral(r).value.to_bits(),
        Fmt::F32 => Single::from_bits(x).round_to_integral(r).value.to_bits(),
        Fmt::F64 => Double::from_bits(x).round_to_integral(r).value.to_bits(),
    }) as u64
}

/// Integer → float with rounding (`cvt.rnd.f.s/u`).
pub fn from_int(dst: Fmt, v: i128, rnd: Round) -> u64 {
    let r = ar(rnd);
    (match dst {
        Fmt::F16 => Half::from_i128_r(v, r).value.to_bits(),
        Fmt::Bf16 => BFloat::from_i128_r(v, r).value.to_bits(),
        Fmt::F32 => Single::from_i128_r(v, r).value.to_bits(),
        Fmt::F64 => Double::from_i128_r(v, r).value.to_bits(),
    }) as u64
}
