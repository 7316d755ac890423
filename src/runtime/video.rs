//! Video instruction semantics (PTX ISA §9.7.18), transcribed from the ISA's pseudo-code:
//! `partSelectSignExtend`, `optSaturate`, `optSecOp`, `optMerge` for the scalar forms, and
//! `extractAndSignExt_2/4` with merge or accumulate for the SIMD forms.

use crate::ir::{ICmp, Sign, VideoOp, VideoSec, VideoTypes};

fn ext(v: u64, bits: u32, sign: Sign) -> i64 {
    let m = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let x = v & m;
    match sign {
        Sign::Signed if bits < 64 => ((x << (64 - bits)) as i64) >> (64 - bits),
        _ => x as i64,
    }
}

/// `partSelectSignExtend`: sel 0-3 = byte, 4-5 = half-word, 6 = the word (→ s33).
fn part(x: u64, sign: Sign, sel: u8) -> i64 {
    match sel {
        0..=3 => ext(x >> (8 * sel as u32), 8, sign),
        4 | 5 => ext(x >> (16 * (sel as u32 - 4)), 16, sign),
        _ => ext(x, 32, sign),
    }
}

fn cmp(cc: ICmp, a: i64, b: i64) -> bool {
    match cc {
        ICmp::Eq => a == b,
        ICmp::Ne => a != b,
        ICmp::Lt => a < b,
        ICmp::Le => a <= b,
        ICmp::Gt => a > b,
        ICmp::Ge => a >= b,
    }
}

/// The primary operation on extended inputs (i128: shifts of 33-bit values by up to 32).
fn primary(op: VideoOp, a: i64, b: i64) -> i128 {
    let (a, b) = (a as i128, b as i128);
    match op {
        VideoOp::Add => a + b,
        VideoOp::Sub => a - b,
        VideoOp::Avrg => {
            let s = a + b;
            if s >= 0 {
                (s + 1) >> 1
            } else {
                s >> 1
            }
        }
        VideoOp::AbsDiff => (a - b).abs(),
        VideoOp::Min => a.min(b),
        VideoOp::Max => a.max(b),
        VideoOp::Shl { clamp } | VideoOp::Shr { clamp } => {
            // The count is b as .u32 (the caller extends it unsigned).
            let n = if clamp { b.min(32) } else { b & 0x1f };
            if matches!(op, VideoOp::Shl { .. }) {
                a << n
            } else {
                a >> n
            }
        }
        VideoOp::Set(cc) => cmp(cc, a as i64, b as i64) as i128,
    }
}

fn clamp_to(x: i128, bits: u32, sign: Sign) -> i128 {
    let (lo, hi) = match sign {
        Sign::Signed => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        Sign::Unsigned => (0, (1i128 << bits) - 1),
    };
    x.clamp(lo, hi)
}

/// A scalar video instruction (PTX ISA §9.7.18.1).
#[allow(clippy::too_many_arguments)]
pub fn scalar(
    op: VideoOp,
    ty: VideoTypes,
    sat: bool,
    asel: u8,
    bsel: u8,
    dsel: u8,
    sec: VideoSec,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let ta = part(a, ty.a, asel);
    let bsign = if matches!(op, VideoOp::Shl { .. } | VideoOp::Shr { .. }) {
        Sign::Unsigned
    } else {
        ty.b
    };
    let tb = part(b, bsign, bsel);
    let mut tmp = primary(op, ta, tb);
    // optSaturate (vset's result is 0/1 and never saturates).
    if sat && !matches!(op, VideoOp::Set(_)) {
        let bits = match dsel {
            0..=3 => 8,
            4 | 5 => 16,
            _ => 32,
        };
        tmp = clamp_to(tmp, bits, ty.d);
    }
    // The third operand's sign follows dtype (vset: unsigned).
    let csign = if matches!(op, VideoOp::Set(_)) {
        Sign::Unsigned
    } else {
        ty.d
    };
    let cv = ext(c, 32, csign) as i128;
    let r: i128 = match dsel {
        0..=3 => {
            let sh = 8 * dsel as u32;
            ((tmp & 0xff) << sh) | (cv & !(0xffi128 << sh) & 0xffff_ffff)
        }
        4 | 5 => {
            let sh = 16 * (dsel as u32 - 4);
            ((tmp & 0xffff) << sh) | (cv & !(0xffffi128 << sh) & 0xffff_ffff)
        }
        _ => match sec {
            VideoSec::None => tmp,
            VideoSec::Add => tmp + cv,
            VideoSec::Min => tmp.min(cv),
            VideoSec::Max => tmp.max(cv),
        },
    };
    r as u64 & 0xffff_ffff
}

/// A SIMD video instruction on 2 half-word or 4 byte lanes (PTX ISA §9.7.18.2-3).
#[allow(clippy::too_many_arguments)]
pub fn simd(
    op: VideoOp,
    lanes: u8,
    ty: VideoTypes,
    sat: bool,
    asel: u16,
    bsel: u16,
    mask: u8,
    add: bool,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let width = 32 / lanes as u32;
    let src = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    let elem = |k: u16, sign: Sign| ext(src >> (width * k as u32), width, sign);
    let lane_mask = (1u64 << width) - 1;
    let mut d: u64 = if add { c & 0xffff_ffff } else { 0 };
    for i in 0..lanes as u32 {
        let va = elem((asel >> (4 * i)) & 0xf, ty.a);
        let bsign = if matches!(op, VideoOp::Shl { .. } | VideoOp::Shr { .. }) {
            Sign::Unsigned
        } else {
            ty.b
        };
        let vb = elem((bsel >> (4 * i)) & 0xf, bsign);
        let mut t = primary(op, va, vb);
        if sat && !matches!(op, VideoOp::Set(_)) {
            t = clamp_to(t, width, ty.d);
        }
        let on = (mask >> i) & 1 == 1;
        if add {
            if on {
                d = d.wrapping_add(t as i64 as u64);
            }
        } else {
            let v = if on {
                t as u64 & lane_mask
            } else {
                (c >> (width * i)) & lane_mask
            };
            d |= v << (width * i);
        }
    }
    d & 0xffff_ffff
}

/// `vmad` (PTX ISA §9.7.18.1.3), following the ISA's pseudo-code: ±(ta·tb) ± c (+1 with
/// `.po`), scaled by `shr` (0, 7 or 15) and saturated to the 32-bit range of the final
/// signedness. `neg_ab`: exactly one of `-a`, `-b` (the product is negated, as `~tmp + 1` in
/// 128 bits); `neg_c`: `-c` (as `~c + 1`, with `~c` taken on 32 bits and then extended). The
/// result is signed when a or b is signed or anything is negated; c is sign-extended then.
#[allow(clippy::too_many_arguments)]
pub fn vmad(
    ty: VideoTypes,
    sat: bool,
    (asel, bsel): (u8, u8),
    po: bool,
    shr: u8,
    (neg_ab, neg_c): (bool, bool),
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let ta = part(a, ty.a, asel) as i128;
    let tb = part(b, ty.b, bsel) as i128;
    let signed = ty.a == Sign::Signed || ty.b == Sign::Signed || neg_ab || neg_c;
    let mut tmp = ta * tb;
    let mut c = c & 0xffff_ffff;
    let lsb = if po {
        1
    } else if neg_ab {
        tmp = !tmp;
        1
    } else if neg_c {
        c = !c & 0xffff_ffff;
        1
    } else {
        0
    };
    let c128 = if signed {
        ext(c, 32, Sign::Signed) as i128
    } else {
        c as i128
    };
    let tmp = tmp + c128 + lsb;
    // The ISA keeps the low 64 bits of the scaled result.
    let r64 = (tmp >> shr) as u64;
    let mut r = if signed {
        r64 as i64 as i128
    } else {
        r64 as i128
    };
    if sat {
        r = clamp_to(r, 32, if signed { Sign::Signed } else { Sign::Unsigned });
    }
    r as u64 & 0xffff_ffff
}
