//! Integer and bit-manipulation semantics (PTX ISA §9.7.1, §9.7.2, §9.7.8, §9.7.9.7), each a
//! transcription of the ISA's pseudo-code. Values are `u64` bit patterns zero-extended from
//! their width (`bits` = 32 or 64).

use crate::ir::{PrmtMode, Sign};

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// `add.sat.s32` / `sub.sat.s32` (PTX ISA §9.7.1.1-2): clamp to [MIN, MAX].
pub fn add_sat_s32(a: u64, b: u64, sub: bool) -> u64 {
    let (x, y) = (a as u32 as i32, b as u32 as i32);
    let r = if sub {
        x.saturating_sub(y)
    } else {
        x.saturating_add(y)
    };
    r as u32 as u64
}

/// `add.cc`/`addc`/`sub.cc`/`subc` (PTX ISA §9.7.2): (result, carry-out) of `a + b + cf`,
/// or for subtraction of `a + !b + cf`.
///
/// Subtraction uses the carry (= NOT borrow) convention of NVIDIA's hardware: `sub.cc` is
/// `subc` with `cf = 1`, and the flag it leaves is 1 when there was *no* borrow. The ISA's
/// pseudo-code (`d = a - (b + CC.CF)`, "borrow-out") gives the same results in a pure
/// `sub.cc`/`subc` chain, but nvcc's own code reads the flag after a subtraction with
/// `addc` and relies on this convention (its 128-bit division, `ptx-tests/kernels/int128`).
pub fn add_carry(a: u64, b: u64, cf: bool, bits: u32, sub: bool) -> (u64, bool) {
    let m = mask(bits);
    let b = if sub { !b & m } else { b & m };
    let s = (a & m) as u128 + b as u128 + cf as u128;
    (s as u64 & m, s >> bits != 0)
}

/// `mul24.lo/.hi` (PTX ISA §9.7.1.5): the 48-bit product of the low 24 bits of each operand
/// (sign-extended for `.s32`); `.lo` is bits 31..0, `.hi` bits 47..16.
pub fn mul24(a: u64, b: u64, hi: bool, sign: Sign) -> u64 {
    let (x, y) = match sign {
        Sign::Signed => (sext(a & 0xff_ffff, 24), sext(b & 0xff_ffff, 24)),
        Sign::Unsigned => ((a & 0xff_ffff) as i64, (b & 0xff_ffff) as i64),
    };
    let p = x * y;
    if hi {
        (p >> 16) as u64 & 0xffff_ffff
    } else {
        p as u64 & 0xffff_ffff
    }
}

/// `sad` (PTX ISA §9.7.1.7): `c + |a - b|`, wrapping.
pub fn sad(a: u64, b: u64, c: u64, bits: u32, sign: Sign) -> u64 {
    let d: u64 = match sign {
        Sign::Signed => {
            let (x, y) = (sext(a, bits) as i128, sext(b, bits) as i128);
            (x - y).unsigned_abs() as u64
        }
        Sign::Unsigned => {
            let (x, y) = (a & mask(bits), b & mask(bits));
            x.abs_diff(y)
        }
    };
    c.wrapping_add(d) & mask(bits)
}

/// `bfind` (PTX ISA §9.7.1.16).
pub fn bfind(a: u64, bits: u32, sign: Sign, shiftamt: bool) -> u64 {
    let msb = bits - 1;
    let mut a = a & mask(bits);
    if sign == Sign::Signed && (a >> msb) & 1 == 1 {
        a = !a & mask(bits);
    }
    if a == 0 {
        return 0xffff_ffff;
    }
    let d = 63 - a.leading_zeros();
    (if shiftamt { msb - d } else { d }) as u64
}

/// `fns` (PTX ISA §9.7.1.17). A base above 31 is undefined in the ISA; here the search starts
/// at that position, where no bit is set, so the result is 0xffffffff.
pub fn fns(mask: u64, base: u64, offset: u64) -> u64 {
    let mask = mask as u32;
    let base = base as u32 as i64;
    let offset = offset as u32 as i32 as i64;
    let bit = |p: i64| (0..32).contains(&p) && (mask >> p) & 1 == 1;
    if offset == 0 {
        return if bit(base) { base as u64 } else { 0xffff_ffff };
    }
    let inc = offset.signum();
    let mut count = offset.abs() - 1;
    let mut pos = base;
    while (0..32).contains(&pos) {
        if bit(pos) {
            if count == 0 {
                return pos as u64;
            }
            count -= 1;
        }
        pos += inc;
    }
    0xffff_ffff
}

/// `brev` (PTX ISA §9.7.1.18).
pub fn brev(a: u64, bits: u32) -> u64 {
    a.reverse_bits() >> (64 - bits)
}

/// `bfe` (PTX ISA §9.7.1.19).
pub fn bfe(a: u64, pos: u64, len: u64, bits: u32, sign: Sign) -> u64 {
    let msb = bits as u64 - 1;
    let pos = pos & 0xff;
    let len = len & 0xff;
    let sbit = if sign == Sign::Unsigned || len == 0 {
        0
    } else {
        (a >> (pos + len - 1).min(msb)) & 1
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let v = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= v << i;
    }
    d
}

/// `bfi` (PTX ISA §9.7.1.20): `poslen` = pos | len << 8.
pub fn bfi(a: u64, b: u64, poslen: u64, bits: u32) -> u64 {
    let msb = bits as u64 - 1;
    let pos = poslen & 0xff;
    let len = (poslen >> 8) & 0xff;
    let mut f = b & mask(bits);
    let mut i = 0;
    while i < len && pos + i <= msb {
        let bit = (a >> i) & 1;
        f = (f & !(1 << (pos + i))) | (bit << (pos + i));
        i += 1;
    }
    f
}

/// `bmsk` (PTX ISA §9.7.1.22).
pub fn bmsk(a: u64, b: u64, clamp: bool) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let a1 = a & 0x1f;
    let mut mask0: u32 = !0u32 << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1: u32 = if sum >= 32 { 0 } else { !0u32 << sum };
    let sum_overflow = sum >= 32;
    let (mut pos_overflow, mut width_overflow) = (false, false);
    if clamp {
        if a >= 32 {
            pos_overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            width_overflow = true;
        }
    }
    if sum_overflow || pos_overflow || width_overflow {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = !0;
    }
    (mask0 & !mask1) as u64
}

/// `szext` (PTX ISA §9.7.1.21).
pub fn szext(a: u64, b: u64, clamp: bool, sign: Sign) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let mask: u32 = if too_large { 0 } else { !0u32 << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign_bit = !(b1 == 0 || too_large || sign != Sign::Signed) && (a >> sign_pos) & 1 == 1;
    ((a & !mask) | if sign_bit { mask } else { 0 }) as u64
}

fn lane(v: u64, k: u32, width: u32, sign: Sign) -> i64 {
    let x = (v >> (k * width)) & mask(width);
    match sign {
        Sign::Signed => sext(x, width),
        Sign::Unsigned => x as i64,
    }
}

/// `dp4a` (PTX ISA §9.7.1.23): c + Σ a.byte[i] · b.byte[i], wrapping to 32 bits.
pub fn dp4a(a: u64, b: u64, c: u64, sa: Sign, sb: Sign) -> u64 {
    let mut d = c as u32 as i64;
    for i in 0..4 {
        d = d.wrapping_add(lane(a, i, 8, sa) * lane(b, i, 8, sb));
    }
    d as u64 & 0xffff_ffff
}

/// `dp2a.lo/.hi` (PTX ISA §9.7.1.24): c + Σ a.half[i] · b.byte[i + (hi ? 2 : 0)].
pub fn dp2a(a: u64, b: u64, c: u64, sa: Sign, sb: Sign, hi: bool) -> u64 {
    let mut d = c as u32 as i64;
    let sel = if hi { 2 } else { 0 };
    for i in 0..2 {
        d = d.wrapping_add(lane(a, i, 16, sa) * lane(b, sel + i, 8, sb));
    }
    d as u64 & 0xffff_ffff
}

/// `lop3` (PTX ISA §9.7.8.6): each result bit is `lut` indexed by (a, b, c) bits.
pub fn lop3(a: u64, b: u64, c: u64, lut: u8) -> u64 {
    let mut r = 0u64;
    for k in 0..8u32 {
        if (lut >> k) & 1 == 1 {
            let ta = if k & 4 != 0 { a } else { !a };
            let tb = if k & 2 != 0 { b } else { !b };
            let tc = if k & 1 != 0 { c } else { !c };
            r |= ta & tb & tc;
        }
    }
    r
}

/// `shf.l/.r` (PTX ISA §9.7.8.7): funnel shift of b:a by `.clamp`ed (min(c, 32)) or
/// `.wrap`ped (c & 31) counts.
pub fn shf(a: u64, b: u64, c: u64, left: bool, clamp: bool) -> u64 {
    let c = c as u32;
    let n = if clamp { c.min(32) } else { c & 0x1f };
    let v = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    if left {
        ((v << n) >> 32) & 0xffff_ffff
    } else {
        (v >> n) & 0xffff_ffff
    }
}

/// `prmt` (PTX ISA §9.7.9.7, the selector table).
pub fn prmt(a: u64, b: u64, c: u64, mode: PrmtMode) -> u64 {
    let src = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    let byte = |k: u64| (src >> ((k & 7) * 8)) & 0xff;
    let sel = c & 3;
    let mut d = 0u64;
    for i in 0..4u64 {
        let v = match mode {
            PrmtMode::Generic => {
                let ctl = (c >> (4 * i)) & 0xf;
                let v = byte(ctl & 7);
                if ctl & 8 != 0 {
                    if v & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    v
                }
            }
            PrmtMode::F4e => byte(sel + i),
            PrmtMode::B4e => byte(sel.wrapping_sub(i) & 7),
            PrmtMode::Rc8 => byte(sel),
            PrmtMode::Ecl => byte(i.max(sel)),
            PrmtMode::Ecr => byte(i.min(sel)),
            PrmtMode::Rc16 => byte(2 * (sel & 1) + (i & 1)),
        };
        d |= v << (8 * i);
    }
    d
}
