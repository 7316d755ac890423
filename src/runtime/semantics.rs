//! The semantics of every IR operation, in one place (PTX ISA sections on each function).
//!
//! Values are carried as `u64` bit patterns, zero-extended from their type's width (a predicate
//! is 0 or 1). The interpreter calls [`eval_pure`] for every pure operation; the JIT emits CLIF
//! that computes the same bits, or calls the `extern "C"` wrappers in `jit::helpers` that call
//! these functions, so both engines agree bit for bit.

use super::bits;
use super::fp::{self, Arith, Fmt};
use crate::ir::{AtomOp, CvtRound, CvtType, FCmp, ICmp, Op, Round, Sign, Type};

/// Canonical NaN that PTX float operations produce (PTX ISA §9.7.3: "NaN results are
/// canonical": `0x7fffffff` for f32, `0x7fffffffffffffff` for f64).
pub const F32_CANONICAL_NAN: u32 = 0x7fff_ffff;
pub const F64_CANONICAL_NAN: u64 = 0x7fff_ffff_ffff_ffff;

fn sext(v: u64, ty: Type) -> i64 {
    let b = ty.bits();
    if b >= 64 {
        v as i64
    } else {
        ((v << (64 - b)) as i64) >> (64 - b)
    }
}

fn f32of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

/// Flush an f32 subnormal to a zero of the same sign (`.ftz`).
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// Integer division (PTX ISA §9.7.1.8). Division by zero does not trap: the result is all
/// ones for unsigned and -1 for signed (the value NVIDIA GPUs produce); `MIN / -1` is `MIN`.
pub fn idiv(ty: Type, sign: Sign, a: u64, b: u64) -> u64 {
    let m = ty.mask();
    match sign {
        Sign::Unsigned => a.checked_div(b).map_or(m, |q| q & m),
        Sign::Signed => {
            let (x, y) = (sext(a, ty), sext(b, ty));
            if y == 0 {
                m
            } else {
                (x.wrapping_div(y) as u64) & m
            }
        }
    }
}

/// Integer remainder (PTX ISA §9.7.1.9): sign of the dividend; `x % 0 = x`; `MIN % -1 = 0`.
pub fn irem(ty: Type, sign: Sign, a: u64, b: u64) -> u64 {
    let m = ty.mask();
    match sign {
        Sign::Unsigned => {
            if b == 0 {
                a & m
            } else {
                (a % b) & m
            }
        }
        Sign::Signed => {
            let (x, y) = (sext(a, ty), sext(b, ty));
            if y == 0 {
                a & m
            } else {
                (x.wrapping_rem(y) as u64) & m
            }
        }
    }
}

/// High half of the product (PTX ISA §9.7.1.3 `mul.hi`).
pub fn imulhi(ty: Type, sign: Sign, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let p: i128 = match sign {
        Sign::Unsigned => (a as u128 * b as u128) as i128,
        Sign::Signed => sext(a, ty) as i128 * sext(b, ty) as i128,
    };
    ((p >> bits) as u64) & ty.mask()
}

fn int_range(t: CvtType) -> (i128, i128) {
    match t {
        CvtType::U8 => (0, u8::MAX as i128),
        CvtType::U16 => (0, u16::MAX as i128),
        CvtType::U32 => (0, u32::MAX as i128),
        CvtType::U64 => (0, u64::MAX as i128),
        CvtType::S8 => (i8::MIN as i128, i8::MAX as i128),
        CvtType::S16 => (i16::MIN as i128, i16::MAX as i128),
        CvtType::S32 => (i32::MIN as i128, i32::MAX as i128),
        CvtType::S64 => (i64::MIN as i128, i64::MAX as i128),
        CvtType::F16 | CvtType::Bf16 | CvtType::F32 | CvtType::F64 => (0, 0),
    }
}

/// The float format of a float conversion type.
fn cvt_fmt(t: CvtType) -> Fmt {
    match t {
        CvtType::F16 => Fmt::F16,
        CvtType::Bf16 => Fmt::Bf16,
        CvtType::F64 => Fmt::F64,
        _ => Fmt::F32,
    }
}

/// `cvt` (PTX ISA §9.7.9.21).
/// - integer → integer: truncate, or extend by the source's signedness; `.sat` clamps to the
///   destination's range.
/// - float → integer: round by `.rni/.rzi/.rmi/.rpi` (`.rzi` when none), then clamp to the
///   destination's range (the ISA saturates every float → integer conversion); NaN → 0.
/// - integer → float: round by `.rn/.rz/.rm/.rp`.
/// - float → float: narrowing rounds by `.rn/.rz/.rm/.rp`; widening is exact; the same type
///   with `.rni…` rounds to an integral value. f16/bf16 are 16-bit patterns.
///
/// `.ftz` flushes f32 subnormal inputs and results; `.sat` on a float result
/// clamps to [0, 1] with NaN → 0; NaN results are canonical.
pub fn cvt(dst: CvtType, src: CvtType, rnd: CvtRound, sat: bool, ftz: bool, a: u64) -> u64 {
    let dty = dst.ir();
    let sty = src.ir();
    let int_val = |a: u64| -> i128 {
        if src.is_signed() {
            sext(a, sty) as i128
        } else {
            (a & sty.mask()) as i128
        }
    };
    // `.ftz` applies to f32 operands and results only (PTX ISA §9.7.9.21).
    let flushes = |f: Fmt| ftz && f == Fmt::F32;
    match (src.is_float(), dst.is_float()) {
        (false, false) => {
            let v = int_val(a);
            if sat {
                let (lo, hi) = int_range(dst);
                (v.clamp(lo, hi) as u64) & dty.mask()
            } else {
                (v as u64) & dty.mask()
            }
        }
        (true, false) => {
            let sf = cvt_fmt(src);
            let x = sf.to_f64(sf.ftz(a & sf.mask(), flushes(sf)));
            if x.is_nan() {
                return 0;
            }
            let r = match rnd {
                CvtRound::Int(r) => r,
                _ => Round::Zero,
            };
            let y = match r {
                Round::Nearest => x.round_ties_even(),
                Round::Zero => x.trunc(),
                Round::Down => x.floor(),
                Round::Up => x.ceil(),
            };
            let (lo, hi) = int_range(dst);
            let v: i128 = if y <= lo as f64 {
                lo
            } else if y >= hi as f64 {
                hi
            } else {
                y as i128
            };
            (v as u64) & dty.mask()
        }
        (false, true) => {
            let df = cvt_fmt(dst);
            let r = match rnd {
                CvtRound::Float(r) => r,
                _ => Round::Nearest,
            };
            let bits = fp::from_int(df, int_val(a), r);
            df.finish(bits, flushes(df), sat)
        }
        (true, true) => {
            let (sf, df) = (cvt_fmt(src), cvt_fmt(dst));
            let x = sf.ftz(a & sf.mask(), flushes(sf));
            // Exact cases first (no rounding happens): the same format, or f32 → f64, for a
            // number (NaNs take the general path, which canonicalizes them).
            let exact = !sf.is_nan(x) && !matches!(rnd, CvtRound::Int(_));
            let bits = if exact && sf == df {
                x
            } else if exact && sf == Fmt::F32 && df == Fmt::F64 {
                (f32::from_bits(x as u32) as f64).to_bits()
            } else {
                match rnd {
                    CvtRound::Int(r) => {
                        fp::convert(sf, df, fp::round_integral(sf, x, r), Round::Nearest)
                    }
                    CvtRound::Float(r) => fp::convert(sf, df, x, r),
                    CvtRound::None => fp::convert(sf, df, x, Round::Nearest),
                }
            };
            df.finish(bits, flushes(df), sat)
        }
    }
}

fn icmp(cc: ICmp, sign: Sign, ty: Type, a: u64, b: u64) -> bool {
    let (x, y): (i128, i128) = match sign {
        Sign::Signed => (sext(a, ty) as i128, sext(b, ty) as i128),
        Sign::Unsigned => ((a & ty.mask()) as i128, (b & ty.mask()) as i128),
    };
    match cc {
        ICmp::Eq => x == y,
        ICmp::Ne => x != y,
        ICmp::Lt => x < y,
        ICmp::Le => x <= y,
        ICmp::Gt => x > y,
        ICmp::Ge => x >= y,
    }
}

/// Float comparison (PTX ISA §9.7.6.1, Table "Floating-point comparison operators") on
/// f32/f64 operands: `fp::cmp`, the one comparison for every float format.
pub fn fcmp(cc: FCmp, ty: Type, ftz: bool, a: u64, b: u64) -> bool {
    let fmt = if ty == Type::F32 {
        super::fp::Fmt::F32
    } else {
        super::fp::Fmt::F64
    };
    super::fp::cmp(fmt, cc, a, b, ftz)
}

/// Evaluate a pure operation. `args` hold operand bits, `arg_tys` their types, `res_ty` the
/// first result's type. Returns the result bits. Non-pure operations (memory, warp) are not
/// handled here and return 0 (callers never pass them).
pub fn eval_pure(op: &Op, args: &[u64], arg_tys: &[Type], res_ty: Type) -> u64 {
    let m = res_ty.mask();
    let a = args.first().copied().unwrap_or(0);
    let b = args.get(1).copied().unwrap_or(0);
    let c = args.get(2).copied().unwrap_or(0);
    let aty = arg_tys.first().copied().unwrap_or(res_ty);
    match *op {
        Op::Const { bits } => bits & m,
        Op::SReg { .. } | Op::SymAddr { .. } => 0,
        Op::Bitcast {} => a & m,
        Op::IAdd {} => a.wrapping_add(b) & m,
        Op::ISub {} => a.wrapping_sub(b) & m,
        Op::IMul {} => a.wrapping_mul(b) & m,
        Op::IMulHi { sign } => imulhi(res_ty, sign, a, b),
        Op::IMulWide { sign } => match sign {
            Sign::Unsigned => (a & aty.mask()).wrapping_mul(b & aty.mask()) & m,
            Sign::Signed => (sext(a, aty).wrapping_mul(sext(b, aty)) as u64) & m,
        },
        Op::IDiv { sign } => idiv(res_ty, sign, a, b),
        Op::IRem { sign } => irem(res_ty, sign, a, b),
        Op::IMin { sign } | Op::IMax { sign } => {
            let lt = icmp(ICmp::Lt, sign, res_ty, a, b);
            let want_a = lt == matches!(op, Op::IMin { .. });
            if want_a {
                a & m
            } else {
                b & m
            }
        }
        Op::INeg {} => a.wrapping_neg() & m,
        Op::IAbs {} => (sext(a, res_ty).wrapping_abs() as u64) & m,
        Op::And {} => a & b & m,
        Op::Or {} => (a | b) & m,
        Op::Xor {} => (a ^ b) & m,
        Op::Not {} => !a & m,
        Op::Shl {} => {
            let n = b as u32;
            if n >= res_ty.bits() {
                0
            } else {
                (a << n) & m
            }
        }
        Op::Shr { sign } => {
            let n = (b as u32).min(res_ty.bits() - 1 + (sign == Sign::Unsigned) as u32);
            match sign {
                Sign::Unsigned => {
                    if n >= res_ty.bits() {
                        0
                    } else {
                        (a & m) >> n
                    }
                }
                Sign::Signed => ((sext(a, res_ty) >> n) as u64) & m,
            }
        }
        Op::Popc {} => (a & aty.mask()).count_ones() as u64,
        Op::Clz {} => ((a & aty.mask()).leading_zeros() - (64 - aty.bits())) as u64,
        Op::FAdd { rnd, ftz, sat } => {
            fp::arith(fmt_of(res_ty), Arith::Add, [a, b, 0], rnd, ftz, sat)
        }
        Op::FSub { rnd, ftz, sat } => {
            fp::arith(fmt_of(res_ty), Arith::Sub, [a, b, 0], rnd, ftz, sat)
        }
        Op::FMul { rnd, ftz, sat } => {
            fp::arith(fmt_of(res_ty), Arith::Mul, [a, b, 0], rnd, ftz, sat)
        }
        Op::FDiv { rnd, approx, ftz } => {
            if approx && res_ty == Type::F32 {
                fp::div_approx32(a, b, ftz)
            } else {
                fp::arith(fmt_of(res_ty), Arith::Div, [a, b, 0], rnd, ftz, false)
            }
        }
        Op::FFma { rnd, ftz, sat } => {
            fp::arith(fmt_of(res_ty), Arith::Fma, [a, b, c], rnd, ftz, sat)
        }
        // neg/abs only touch the sign bit (NaN payloads preserved), after ftz.
        Op::FNeg { ftz } => match res_ty {
            Type::F32 => {
                let x = if ftz { ftz32(f32of(a)) } else { f32of(a) };
                (x.to_bits() ^ 0x8000_0000) as u64
            }
            _ => a ^ (1 << 63),
        },
        Op::FAbs { ftz } => match res_ty {
            Type::F32 => {
                let x = if ftz { ftz32(f32of(a)) } else { f32of(a) };
                (x.to_bits() & 0x7fff_ffff) as u64
            }
            _ => a & !(1 << 63),
        },
        Op::FSqrt { rnd, ftz, .. } => fp::sqrt(fmt_of(res_ty), a, rnd, ftz),
        Op::FRcp { rnd, ftz, .. } => {
            let f = fmt_of(res_ty);
            let one = f.from_f64(1.0, Round::Nearest);
            fp::arith(f, Arith::Div, [one, a, 0], rnd, ftz, false)
        }
        Op::ICmp { cc, sign } => icmp(cc, sign, aty, a, b) as u64,
        Op::FCmp { cc, ftz } => fcmp(cc, aty, ftz, a, b) as u64,
        Op::Select {} => {
            if c & 1 != 0 {
                a & m
            } else {
                b & m
            }
        }
        Op::Cvt {
            dst,
            src,
            rnd,
            sat,
            ftz,
        } => cvt(dst, src, rnd, sat, ftz, a),
        Op::Cvta { space, to_generic } => super::env::cvta(space, to_generic, a) & m,
        Op::IsSpace { space } => super::env::is_space(space, a) as u64,
        Op::IAddSat {} => bits::add_sat_s32(a, b, false),
        Op::ISubSat {} => bits::add_sat_s32(a, b, true),
        Op::AddCarry { sub } => bits::add_carry(a, b, c & 1 != 0, aty.bits(), sub).0,
        Op::CarryOut { sub } => bits::add_carry(a, b, c & 1 != 0, aty.bits(), sub).1 as u64,
        Op::IMul24 { hi, sign } => bits::mul24(a, b, hi, sign),
        Op::Sad { sign } => bits::sad(a, b, c, res_ty.bits(), sign),
        Op::Bfind { sign, shiftamt } => bits::bfind(a, aty.bits(), sign, shiftamt),
        Op::Fns {} => bits::fns(a, b, c),
        Op::Brev {} => bits::brev(a, res_ty.bits()),
        Op::Bfe { sign } => bits::bfe(a, b, c, res_ty.bits(), sign),
        Op::Bfi {} => bits::bfi(a, b, c, res_ty.bits()),
        Op::Bmsk { clamp } => bits::bmsk(a, b, clamp),
        Op::Szext { clamp, sign } => bits::szext(a, b, clamp, sign),
        Op::Dp4a { sa, sb } => bits::dp4a(a, b, c, sa, sb),
        Op::Dp2a { sa, sb, hi } => bits::dp2a(a, b, c, sa, sb, hi),
        Op::Lop3 { lut } => bits::lop3(a, b, c, lut) & m,
        Op::Shf { left, clamp } => bits::shf(a, b, c, left, clamp),
        Op::Prmt { mode } => bits::prmt(a, b, c, mode),
        Op::FMinMax {
            max,
            ftz,
            nan,
            xorsign,
        } => fp::minmax(fmt_of(res_ty), a, b, max, ftz, nan, xorsign),
        Op::CopySign {} => fp::copysign(fmt_of(res_ty), a, b),
        Op::TestP { prop } => fp::testp(fmt_of(aty), prop, a) as u64,
        Op::FApprox { f, ftz } => fp::approx(fmt_of(res_ty), f, a, ftz),
        Op::HAdd { fmt, rnd, ftz, sat } => {
            fp::arith(fmt.into(), Arith::Add, [a, b, 0], rnd, ftz, sat)
        }
        Op::HSub { fmt, rnd, ftz, sat } => {
            fp::arith(fmt.into(), Arith::Sub, [a, b, 0], rnd, ftz, sat)
        }
        Op::HMul { fmt, rnd, ftz, sat } => {
            fp::arith(fmt.into(), Arith::Mul, [a, b, 0], rnd, ftz, sat)
        }
        Op::HFma {
            fmt,
            rnd,
            ftz,
            sat,
            relu,
            oob,
        } => {
            let f: Fmt = fmt.into();
            let r = fp::arith(f, Arith::Fma, [a, b, c], rnd, ftz, sat);
            if oob && [a, b, c].iter().any(|&x| x & f.mask() == fp::oob_nan(f)) {
                0
            } else if relu {
                fp::relu(f, r)
            } else {
                r
            }
        }
        Op::HMinMax {
            fmt,
            max,
            ftz,
            nan,
            xorsign,
        } => fp::minmax(fmt.into(), a, b, max, ftz, nan, xorsign),
        Op::HNeg { fmt, ftz } => {
            let f: Fmt = fmt.into();
            f.ftz(a & f.mask(), ftz) ^ f.sign()
        }
        Op::HAbs { fmt, ftz } => {
            let f: Fmt = fmt.into();
            f.ftz(a & f.mask(), ftz) & !f.sign()
        }
        Op::HCmp { fmt, cc, ftz } => fp::cmp(fmt.into(), cc, a, b, ftz) as u64,
        Op::HApprox { fmt, f } => fp::approx(fmt.into(), f, a, fmt == crate::ir::HalfFmt::Bf16),
        Op::HRelu { fmt } => fp::relu(fmt.into(), a),
        Op::CvtNarrow { conv, relu } => {
            use super::minifloat as mf;
            use crate::ir::NarrowCvt;
            match conv {
                NarrowCvt::ToMiniX2(f) => {
                    let hi = mf::f32_to_mini(f, f32::from_bits(a as u32), relu);
                    let lo = mf::f32_to_mini(f, f32::from_bits(b as u32), relu);
                    // Elements are 8 bits apart (6-bit ones zero-padded), e2m1 4 bits.
                    let shift = if f == crate::ir::MiniFmt::E2M1 { 4 } else { 8 };
                    (hi as u64) << shift | lo as u64
                }
                NarrowCvt::FromMiniX2(f) => {
                    let shift = if f == crate::ir::MiniFmt::E2M1 { 4 } else { 8 };
                    let hi = mf::mini_to_f16(f, (a >> shift) as u8, relu);
                    let lo = mf::mini_to_f16(f, a as u8, relu);
                    (hi as u64) << 16 | lo as u64
                }
                NarrowCvt::ToUe8m0x2 { rp, satfinite } => {
                    let hi = mf::f32_to_ue8m0(f32::from_bits(a as u32), rp, satfinite);
                    let lo = mf::f32_to_ue8m0(f32::from_bits(b as u32), rp, satfinite);
                    (hi as u64) << 8 | lo as u64
                }
                NarrowCvt::FromUe8m0x2 => {
                    let hi = mf::ue8m0_to_bf16((a >> 8) as u8);
                    let lo = mf::ue8m0_to_bf16(a as u8);
                    (hi as u64) << 16 | lo as u64
                }
                NarrowCvt::ToTf32(rnd, satfinite) => {
                    mf::f32_to_tf32(a as u32, rnd, satfinite, relu) as u64
                }
                NarrowCvt::SatFinite(fmt) => mf::half_satfinite(fmt, a as u16) as u64,
                NarrowCvt::HalfX2Rs { fmt, satfinite } => {
                    let k = if fmt == crate::ir::HalfFmt::F16 {
                        13
                    } else {
                        16
                    };
                    let one = |x: u64, r: u64| {
                        let mut h = mf::f32_to_half_rs(fmt, f32::from_bits(x as u32), r as u32, k);
                        if satfinite {
                            h = mf::half_satfinite(fmt, h);
                        }
                        if relu {
                            h = fp::relu(fmt.into(), h as u64) as u16;
                        }
                        h as u64
                    };
                    one(a, c >> 16) << 16 | one(b, c & 0xffff)
                }
                NarrowCvt::MiniX2Rs { fmt, upper } => {
                    let e2m1 = fmt == crate::ir::MiniFmt::E2M1;
                    let (ra, rb) = match (upper, e2m1) {
                        (true, false) => (c >> 24, c >> 16),
                        (false, false) => (c >> 8, c),
                        (true, true) => (c >> 24, c >> 8),
                        (false, true) => (c >> 16, c),
                    };
                    let hi =
                        mf::f32_to_mini_rs(fmt, f32::from_bits(a as u32), relu, ra as u32 & 0xff);
                    let lo =
                        mf::f32_to_mini_rs(fmt, f32::from_bits(b as u32), relu, rb as u32 & 0xff);
                    let shift = if e2m1 { 4 } else { 8 };
                    (hi as u64) << shift | lo as u64
                }
                NarrowCvt::FromMiniX2Bf16 { fmt, satfinite } => {
                    let shift = if fmt == crate::ir::MiniFmt::E2M1 {
                        4
                    } else {
                        8
                    };
                    let one = |x: u64, s: u64| {
                        let v = mf::mini_value(fmt, x as u8);
                        mf::scaled_to_bf16(v, s as u8, satfinite, relu) as u64
                    };
                    one(a >> shift, b >> 8) << 16 | one(a, b)
                }
                NarrowCvt::ToS2f6x2 => {
                    let one = |x: u64, s: u64| {
                        mf::f32_to_s2f6(f32::from_bits(x as u32), s as u8, relu) as u64
                    };
                    one(a, c >> 8) << 8 | one(b, c)
                }
                NarrowCvt::FromS2f6x2 { satfinite } => {
                    let one = |x: u64, s: u64| {
                        let v = mf::s2f6_value(x as u8);
                        mf::scaled_to_bf16(v, s as u8, satfinite, relu) as u64
                    };
                    one(a >> 8, b >> 8) << 16 | one(a, b)
                }
            }
        }
        Op::Video {
            op,
            ty,
            sat,
            asel,
            bsel,
            dsel,
            sec,
        } => super::video::scalar(op, ty, sat, asel, bsel, dsel, sec, a, b, c),
        Op::VideoSimd {
            op,
            lanes,
            ty,
            sat,
            asel,
            bsel,
            mask,
            add,
        } => super::video::simd(op, lanes, ty, sat, asel, bsel, mask, add, a, b, c),
        Op::VMad {
            ty,
            sat,
            asel,
            bsel,
            po,
            shr,
            neg_ab,
            neg_c,
        } => super::video::vmad(ty, sat, (asel, bsel), po, shr, (neg_ab, neg_c), a, b, c),
        Op::Load { .. }
        | Op::Store { .. }
        | Op::Atom { .. }
        | Op::AtomCas { .. }
        | Op::Fence {}
        | Op::Shfl { .. }
        | crate::warp_ops!() => 0,
    }
}

/// The float format of an IR float type (f32 unless f64).
fn fmt_of(t: Type) -> Fmt {
    if t == Type::F64 {
        Fmt::F64
    } else {
        Fmt::F32
    }
}

/// One atomic operation's new value from the old one (PTX ISA §9.7.13.5 `atom`), on the low
/// `bits` bits: `old op b`. Float adds round to nearest even with canonical NaNs; `add.f32`
/// flushes subnormal inputs and results to sign-preserving zero when `global` (the ISA: "the
/// current implementation of atom.add.f32 on global memory flushes subnormal inputs and
/// results", while on shared memory it does not).
fn atom_apply(op: AtomOp, bits: u32, old: u64, b: u64, global: bool) -> u64 {
    let m = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let (old, b) = (old & m, b & m);
    let sx = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
    let r = match op {
        AtomOp::Add => old.wrapping_add(b),
        AtomOp::FAdd if bits == 32 => fp::arith(
            Fmt::F32,
            Arith::Add,
            [old, b, 0],
            Round::Nearest,
            global,
            false,
        ),
        AtomOp::FAdd => fp::arith(
            Fmt::F64,
            Arith::Add,
            [old, b, 0],
            Round::Nearest,
            false,
            false,
        ),
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Min(Sign::Unsigned) => old.min(b),
        AtomOp::Max(Sign::Unsigned) => old.max(b),
        AtomOp::Min(Sign::Signed) => sx(old).min(sx(b)) as u64,
        AtomOp::Max(Sign::Signed) => sx(old).max(sx(b)) as u64,
        AtomOp::Inc if bits == 32 => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec if bits == 32 => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::Inc | AtomOp::Dec => old,
        AtomOp::HAdd { fmt, pair } | AtomOp::HMinMax { fmt, pair, .. } => {
            let f = |x: u64, y: u64| {
                let r = match op {
                    AtomOp::HMinMax { max, .. } => {
                        fp::minmax(fmt.into(), x, y, max, false, false, false)
                    }
                    _ => fp::arith(
                        fmt.into(),
                        Arith::Add,
                        [x, y, 0],
                        Round::Nearest,
                        false,
                        false,
                    ),
                };
                r & 0xffff
            };
            if pair {
                f(old & 0xffff, b & 0xffff) | f(old >> 16, b >> 16) << 16
            } else {
                f(old, b)
            }
        }
    };
    r & m
}

/// Atomic read-modify-write on host memory (PTX ISA §9.7.13.5 `atom`) of a 16-, 32- or 64-bit
/// `ty`: returns the old value. `global`: the address resolved to the global state space
/// ([`super::env::resolves_to_global`]), which changes `add.f32`'s subnormal handling.
///
/// # Safety
/// `p` must be valid for reads and writes of `ty.bytes()` bytes and aligned to them (the
/// callers obtain it from `env::translate` with `align = size`).
pub unsafe fn atomic_rmw(p: *mut u8, op: AtomOp, ty: Type, b: u64, global: bool) -> u64 {
    use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::SeqCst};
    match ty.bits() {
        16 => {
            // SAFETY: caller guarantees validity and 2-byte alignment.
            let a = unsafe { AtomicU16::from_ptr(p as *mut u16) };
            let r = a.fetch_update(SeqCst, SeqCst, |old| {
                Some(atom_apply(op, 16, old as u64, b, global) as u16)
            });
            let (Ok(old) | Err(old)) = r;
            old as u64
        }
        32 => {
            // SAFETY: caller guarantees validity and 4-byte alignment.
            let a = unsafe { AtomicU32::from_ptr(p as *mut u32) };
            let r = a.fetch_update(SeqCst, SeqCst, |old| {
                Some(atom_apply(op, 32, old as u64, b, global) as u32)
            });
            let (Ok(old) | Err(old)) = r;
            old as u64
        }
        _ => {
            // SAFETY: caller guarantees validity and 8-byte alignment.
            let a = unsafe { AtomicU64::from_ptr(p as *mut u64) };
            let r = a.fetch_update(SeqCst, SeqCst, |old| {
                Some(atom_apply(op, 64, old, b, global))
            });
            let (Ok(old) | Err(old)) = r;
            old
        }
    }
}

/// Atomic compare-and-swap of a 16-, 32- or 64-bit `ty`: if `*p == cmp` store `new`; returns
/// the old value.
///
/// # Safety
/// As [`atomic_rmw`].
pub unsafe fn atomic_cas(p: *mut u8, ty: Type, cmp: u64, new: u64) -> u64 {
    use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::SeqCst};
    match ty.bits() {
        16 => {
            // SAFETY: caller guarantees validity and alignment.
            let a = unsafe { AtomicU16::from_ptr(p as *mut u16) };
            match a.compare_exchange(cmp as u16, new as u16, SeqCst, SeqCst) {
                Ok(v) | Err(v) => v as u64,
            }
        }
        32 => {
            // SAFETY: caller guarantees validity and alignment.
            let a = unsafe { AtomicU32::from_ptr(p as *mut u32) };
            match a.compare_exchange(cmp as u32, new as u32, SeqCst, SeqCst) {
                Ok(v) | Err(v) => v as u64,
            }
        }
        _ => {
            // SAFETY: caller guarantees validity and alignment.
            let a = unsafe { AtomicU64::from_ptr(p as *mut u64) };
            match a.compare_exchange(cmp, new, SeqCst, SeqCst) {
                Ok(v) | Err(v) => v,
            }
        }
    }
}

/// `shfl.sync` source-lane selection (PTX ISA §9.7.9.6, the pseudo-code of the "Semantics"
/// section, literally): for `lane` with operands `b` and `c`, returns the lane `j` whose value
/// it receives and the predicate `p`. When `p` is false, `j` is the lane itself.
///
/// `members` is the lane's membermask restricted to the lanes executing the shuffle with it.
/// Reading from a source lane outside it (not in the membermask, exited, or not executing the
/// instruction) is undefined in PTX; ptxjit's deterministic choice: the lane receives its own
/// value, as when the source is out of range (`j` is the lane itself), with `p` as the ISA's
/// pseudo-code computes it.
pub fn shfl(mode: crate::ir::ShflMode, lane: u32, b: u32, c: u32, members: u32) -> (u32, bool) {
    use crate::ir::ShflMode::*;
    let lane = lane & 0x1f;
    let bval = (b & 0x1f) as i32;
    let cval = c & 0x1f;
    let segmask = (c >> 8) & 0x1f;
    let max_lane = ((lane & segmask) | (cval & !segmask)) as i32;
    let min_lane = (lane & segmask) as i32;
    let l = lane as i32;
    let (j, pval) = match mode {
        Up => {
            let j = l - bval;
            (j, j >= max_lane)
        }
        Down => {
            let j = l + bval;
            (j, j <= max_lane)
        }
        Bfly => {
            let j = l ^ bval;
            (j, j <= max_lane)
        }
        Idx => {
            let j = min_lane | (bval & !(segmask as i32));
            (j, j <= max_lane)
        }
    };
    let j = j as u32 & 0x1f;
    match (pval, members >> j & 1 != 0) {
        (true, true) => (j, true),
        (p, _) => (lane, p),
    }
}

// ---- Warp collectives (PTX ISA §9.7.13.9–13) ----------------------------------------------
//
// Each lane `l` executing a collective takes part with the lanes of `group(l) = membermask(l) &
// active`: the lanes executing the instruction together that its membermask names. A lane of
// the membermask that is not executing it (it exited, or diverged — undefined in PTX) does not
// take part. The functions below compute one lane's result from the group's values; the
// engines gather operands from their slots and call them for every active lane.

/// `vote.sync` / `vote` (PTX ISA §9.7.13.8–9) for one lane: `preds` has bit `j` set when
/// lane `j`'s predicate is true, `group` is the lane's participating lanes. Returns the
/// predicate (0/1) or, for `ballot`, the mask.
pub fn vote(mode: crate::ir::VoteMode, preds: u32, group: u32) -> u32 {
    use crate::ir::VoteMode::*;
    let t = preds & group;
    match mode {
        All => (t == group) as u32,
        Any => (t != 0) as u32,
        Uni => (t == 0 || t == group) as u32,
        Ballot => t,
    }
}

/// `match.any.sync` (PTX ISA §9.7.13.10) for lane `lane`: the lanes of `group` whose value
/// equals the lane's own.
pub fn match_any(vals: &[u64; 32], group: u32, lane: u32) -> u32 {
    let mine = vals[(lane & 31) as usize];
    let mut m = 0;
    let mut g = group;
    while g != 0 {
        let j = g.trailing_zeros();
        g &= g - 1;
        if vals[j as usize] == mine {
            m |= 1 << j;
        }
    }
    m
}

/// `match.all.sync` (PTX ISA §9.7.13.10): `(group, true)` when every lane of `group` has the
/// same value, else `(0, false)`.
pub fn match_all(vals: &[u64; 32], group: u32) -> (u32, bool) {
    let first = vals[(group.trailing_zeros() & 31) as usize];
    let mut g = group;
    while g != 0 {
        let j = g.trailing_zeros();
        g &= g - 1;
        if vals[j as usize] != first {
            return (0, false);
        }
    }
    (group, true)
}

/// `redux.sync` (PTX ISA §9.7.13.12) over the lanes of `group` (32-bit values; the bits of
/// `f32`s for the float forms). An empty group (not reachable from PTX: a lane is in its own
/// group) gives the operation's identity (the canonical NaN for the float forms).
pub fn redux(op: crate::ir::ReduxOp, vals: &[u32; 32], group: u32) -> u32 {
    use crate::ir::ReduxOp::*;
    if let FMin { abs, nan } | FMax { abs, nan } = op {
        return redux_f32(matches!(op, FMax { .. }), abs, nan, vals, group);
    }
    let mut acc: Option<u32> = None;
    let mut g = group;
    while g != 0 {
        let j = g.trailing_zeros();
        g &= g - 1;
        let v = vals[j as usize];
        acc = Some(match acc {
            None => v,
            Some(a) => match op {
                Add => a.wrapping_add(v),
                Min(Sign::Signed) => (a as i32).min(v as i32) as u32,
                Min(Sign::Unsigned) => a.min(v),
                Max(Sign::Signed) => (a as i32).max(v as i32) as u32,
                Max(Sign::Unsigned) => a.max(v),
                And => a & v,
                Or => a | v,
                Xor => a ^ v,
                FMin { .. } | FMax { .. } => a,
            },
        });
    }
    acc.unwrap_or(match op {
        And | Min(Sign::Unsigned) => u32::MAX,
        Min(Sign::Signed) => i32::MAX as u32,
        Max(Sign::Signed) => i32::MIN as u32,
        _ => 0,
    })
}

/// `redux.sync.{min,max}{.abs}{.NaN}.f32` (PTX ISA §9.7.13.12, PTX ISA 8.6): with `abs` the
/// magnitudes are reduced; +0.0 counts as greater than -0.0; with `nan` any NaN input gives
/// the canonical NaN (`0x7fffffff`), without it NaN inputs are skipped and the result is the
/// canonical NaN only when every input is NaN.
fn redux_f32(max: bool, abs: bool, nan: bool, vals: &[u32; 32], group: u32) -> u32 {
    const CANONICAL_NAN: u32 = 0x7fff_ffff;
    let mut acc: Option<f32> = None;
    let mut saw_nan = false;
    let mut g = group;
    while g != 0 {
        let j = g.trailing_zeros();
        g &= g - 1;
        let bits = vals[j as usize];
        let x = f32::from_bits(if abs { bits & 0x7fff_ffff } else { bits });
        if x.is_nan() {
            saw_nan = true;
            continue;
        }
        // `total_cmp` orders -0.0 below +0.0, as the ISA asks, and agrees with `<` elsewhere
        // on non-NaN values.
        acc = Some(match acc {
            None => x,
            Some(a) => {
                let x_wins = if max {
                    x.total_cmp(&a).is_gt()
                } else {
                    x.total_cmp(&a).is_lt()
                };
                if x_wins {
                    x
                } else {
                    a
                }
            }
        });
    }
    match acc {
        Some(a) if !(nan && saw_nan) => a.to_bits(),
        _ => CANONICAL_NAN,
    }
}

/// `elect.sync` (PTX ISA §9.7.13.14) for lane `lane`: the leader (the lowest lane of `group`)
/// and whether `lane` is it.
pub fn elect(group: u32, lane: u32) -> (u32, bool) {
    let leader = group.trailing_zeros() & 31;
    (leader, group != 0 && leader == lane)
}

/// The `%lanemask_*` registers (PTX ISA §10.8–10.12) of `lane`.
pub fn lanemask(reg: crate::ir::SReg, lane: u32) -> u32 {
    use crate::ir::SReg::*;
    let eq = 1u32 << (lane & 31);
    let lt = eq - 1;
    match reg {
        LanemaskEq => eq,
        LanemaskLt => lt,
        LanemaskLe => lt | eq,
        LanemaskGe => !lt,
        LanemaskGt => !(lt | eq),
        _ => 0,
    }
}
