//! Generated checks: exhaustive over small input spaces, or seeded random inputs, with
//! expected values from host computations written here independently of the engines and of
//! `runtime::fp` (which uses `rustc_apfloat`): exact f64 arithmetic with error-free
//! transformations (TwoSum, FMA residuals), integer square roots, and bit-level formulas.

use super::harness::{Expect, Group, Row, Ty};

/// A named generated check.
pub type Check = (&'static str, fn() -> Vec<Group>);

/// Every generated check.
pub const ALL: &[Check] = &[
    ("prmt_every_selector", prmt_all),
    ("bfe_every_pos_len", bfe_all),
    ("bfi_every_pos_len", bfi_all),
    ("bmsk_szext_small", bmsk_szext),
    ("dp4a_dp2a_random", dot_random),
    ("f16_every_value", f16_all),
    ("bf16_every_value", bf16_all),
    ("cvt_int_every_s16", cvt_s16_all),
    ("f32_directed_random", f32_random),
    ("f64_directed_random", f64_random),
    ("cvt_directed_random", cvt_random),
];

fn group(
    ptx: &str,
    outs: &[(&str, Ty)],
    ins: &[(&str, Ty)],
    rows: Vec<(Vec<u64>, Vec<u64>)>,
) -> Group {
    Group {
        ptx: ptx.to_string(),
        outs: outs.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
        ins: ins.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
        tol: None,
        rows: rows
            .into_iter()
            .map(|(i, o)| Row {
                ins: i,
                outs: o.into_iter().map(Expect::Bits).collect(),
                line: 0,
            })
            .collect(),
        line: 0,
        version: "8.8".to_string(),
        target: "sm_100".to_string(),
    }
}

/// splitmix64, seeded.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

const U32: Ty = Ty::U(32);
const S32: Ty = Ty::S(32);

fn prmt_all() -> Vec<Group> {
    let (a, b) = (0x8a7b_6c5du64, 0x0f1e_2dc3u64);
    let bytes = [0x5d, 0x6c, 0x7b, 0x8a, 0xc3, 0x2d, 0x1e, 0x0f];
    let rows = (0..65536u64)
        .map(|c| {
            let mut d = 0u64;
            for i in 0..4 {
                let sel = (c >> (4 * i)) & 15;
                let byte: u64 = bytes[(sel & 7) as usize];
                let v = if sel >= 8 {
                    if byte >= 0x80 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    byte
                };
                d |= v << (8 * i);
            }
            (vec![a, b, c | 0xabcd_0000], vec![d])
        })
        .collect();
    vec![group(
        "prmt.b32 d, a, b, c",
        &[("d", U32)],
        &[("a", U32), ("b", U32), ("c", U32)],
        rows,
    )]
}

/// Bits [lo, hi) set.
fn span(lo: u64, hi: u64) -> u64 {
    let hi = hi.min(64);
    if lo >= hi {
        0
    } else {
        (if hi == 64 { u64::MAX } else { (1u64 << hi) - 1 }) & !((1u64 << lo) - 1)
    }
}

fn bfe_all() -> Vec<Group> {
    let a = 0x9234_5678u64;
    let mut u = vec![];
    let mut s = vec![];
    for pos in 0..256u64 {
        for len in 0..256u64 {
            // Unsigned: the field a[pos .. min(pos+len, 32)) moved down.
            let field = if pos >= 32 {
                0
            } else {
                (a & span(pos, (pos + len).min(32))) >> pos
            };
            u.push((vec![a, pos + 0x100 * (pos & 1), len], vec![field]));
            // Signed: the field's top bit (clipped at bit 31) fills everything above it.
            let sd = if len == 0 {
                0
            } else {
                let top = (pos + len - 1).min(31);
                let sbit = (a >> top) & 1;
                let width = if pos >= 32 { 0 } else { top + 1 - pos };
                if sbit == 1 {
                    field | (span(width, 32) & 0xffff_ffff)
                } else {
                    field
                }
            };
            s.push((vec![a, pos, len], vec![sd]));
        }
    }
    vec![
        group(
            "bfe.u32 d, a, p, l",
            &[("d", U32)],
            &[("a", U32), ("p", U32), ("l", U32)],
            u,
        ),
        group(
            "bfe.s32 d, a, p, l",
            &[("d", S32)],
            &[("a", S32), ("p", U32), ("l", U32)],
            s,
        ),
    ]
}

fn bfi_all() -> Vec<Group> {
    let (a, b) = (0x1357_9bdfu64, 0xeca8_6420u64);
    let mut rows = vec![];
    for pos in 0..256u64 {
        for len in 0..256u64 {
            let m = if pos >= 32 {
                0
            } else {
                span(pos, (pos + len).min(32))
            };
            let f = (b & !m) | ((a << pos.min(63)) & m);
            rows.push((vec![a, b, pos, len], vec![f & 0xffff_ffff]));
        }
    }
    vec![group(
        "bfi.b32 f, a, b, p, l",
        &[("f", U32)],
        &[("a", U32), ("b", U32), ("p", U32), ("l", U32)],
        rows,
    )]
}

fn bmsk_szext() -> Vec<Group> {
    let (mut wrap, mut clamp, mut sz_s, mut sz_u) = (vec![], vec![], vec![], vec![]);
    let a = 0x89ab_cdefu64;
    for p in 0..80u64 {
        for w in 0..80u64 {
            // wrap: position and width modulo 32; the mask stops at bit 31.
            let (p1, w1) = (p & 31, w & 31);
            wrap.push((vec![p, w], vec![span(p1, p1 + w1) & 0xffff_ffff]));
            // clamp: a position past 31 gives 0; a width past 31 runs to bit 31.
            let c = if p >= 32 {
                0
            } else if w >= 32 {
                span(p, 32)
            } else {
                span(p, p + w) & 0xffff_ffff
            };
            clamp.push((vec![p, w], vec![c]));
        }
    }
    for n in 0..80u64 {
        // szext.clamp: N >= 32 keeps a; N = 0 gives 0; else extend the low N bits.
        let keep = |n: u64| if n >= 32 { 32 } else { n };
        let k = keep(n);
        let low = a & span(0, k);
        let s = if k == 0 || k == 32 {
            low
        } else if (a >> (k - 1)) & 1 == 1 {
            low | span(k, 32)
        } else {
            low
        };
        sz_s.push((vec![a, n], vec![s]));
        sz_u.push((vec![a, n], vec![low]));
    }
    vec![
        group(
            "bmsk.wrap.b32 d, a, b",
            &[("d", U32)],
            &[("a", U32), ("b", U32)],
            wrap,
        ),
        group(
            "bmsk.clamp.b32 d, a, b",
            &[("d", U32)],
            &[("a", U32), ("b", U32)],
            clamp,
        ),
        group(
            "szext.clamp.s32 d, a, b",
            &[("d", S32)],
            &[("a", S32), ("b", U32)],
            sz_s,
        ),
        group(
            "szext.clamp.u32 d, a, b",
            &[("d", U32)],
            &[("a", U32), ("b", U32)],
            sz_u,
        ),
    ]
}

fn dot_random() -> Vec<Group> {
    let mut r = Rng(4);
    let mut g4 = vec![];
    let mut g2 = vec![];
    for _ in 0..4000 {
        let (a, b, c) = (
            r.next() & 0xffff_ffff,
            r.next() & 0xffff_ffff,
            r.next() & 0xffff_ffff,
        );
        let ab = a.to_le_bytes();
        let bb = b.to_le_bytes();
        let mut d = c as u32 as i64;
        for i in 0..4 {
            d += (ab[i] as i8 as i64) * (bb[i] as i64);
        }
        g4.push((vec![a, b, c], vec![d as u64 & 0xffff_ffff]));
        let (a0, a1) = (a as u16 as i64, (a >> 16) as u16 as i64);
        let d2 = (c as i64) + a0 * (bb[2] as i8 as i64) + a1 * (bb[3] as i8 as i64);
        g2.push((vec![a, b, c], vec![d2 as u64 & 0xffff_ffff]));
    }
    vec![
        group(
            "dp4a.s32.u32 d, a, b, c",
            &[("d", S32)],
            &[("a", S32), ("b", U32), ("c", S32)],
            g4,
        ),
        group(
            "dp2a.hi.u32.s32 d, a, b, c",
            &[("d", S32)],
            &[("a", U32), ("b", S32), ("c", S32)],
            g2,
        ),
    ]
}

/// An f16 bit pattern as f64, decoded from the IEEE binary16 layout.
fn f16_value(h: u64) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = (h >> 10) & 0x1f;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1.0 + m / 1024.0) * 2f64.powi(e as i32 - 15),
    }
}

fn f32_bits_of(x: f64) -> u64 {
    if x.is_nan() {
        0x7fff_ffff
    } else {
        (x as f32).to_bits() as u64
    }
}

fn f16_all() -> Vec<Group> {
    let (mut widen, mut neg, mut back, mut to_int) = (vec![], vec![], vec![], vec![]);
    for h in 0..65536u64 {
        let v = f16_value(h);
        widen.push((vec![h], vec![f32_bits_of(v)]));
        neg.push((vec![h], vec![h ^ 0x8000]));
        back.push((
            vec![f32_bits_of(v)],
            vec![if v.is_nan() { 0x7fff } else { h }],
        ));
        let i = if v.is_nan() {
            0
        } else {
            v.round_ties_even().clamp(-128.0, 127.0) as i64 as u64 & 0xff
        };
        to_int.push((vec![h], vec![i]));
    }
    vec![
        group(
            "cvt.f32.f16 d, a",
            &[("d", Ty::F32)],
            &[("a", Ty::F16)],
            widen,
        ),
        group("neg.f16 d, a", &[("d", Ty::F16)], &[("a", Ty::F16)], {
            // NaN payloads: only the sign changes (see docs/isa-notes.md).
            neg
        }),
        group(
            "cvt.rn.f16.f32 d, a",
            &[("d", Ty::F16)],
            &[("a", Ty::F32)],
            back,
        ),
        group(
            "cvt.rni.s8.f16 d, a",
            &[("d", Ty::S(8))],
            &[("a", Ty::F16)],
            to_int,
        ),
    ]
}

fn bf16_all() -> Vec<Group> {
    let rows = (0..65536u64)
        .map(|h| {
            let w = h << 16;
            let nan = (w & 0x7f80_0000) == 0x7f80_0000 && (w & 0x007f_ffff) != 0;
            (vec![h], vec![if nan { 0x7fff_ffff } else { w }])
        })
        .collect();
    vec![group(
        "cvt.f32.bf16 d, a",
        &[("d", Ty::F32)],
        &[("a", Ty::Bf16)],
        rows,
    )]
}

fn cvt_s16_all() -> Vec<Group> {
    let (mut sat_u8, mut s8) = (vec![], vec![]);
    for x in 0..65536u64 {
        let v = x as u16 as i16 as i64;
        sat_u8.push((vec![x], vec![v.clamp(0, 255) as u64]));
        s8.push((vec![x], vec![x & 0xff]));
    }
    vec![
        group(
            "cvt.sat.u8.s16 d, a",
            &[("d", Ty::U(8))],
            &[("a", Ty::S(16))],
            sat_u8,
        ),
        group(
            "cvt.s8.s16 d, a",
            &[("d", Ty::S(8))],
            &[("a", Ty::S(16))],
            s8,
        ),
    ]
}

#[derive(Clone, Copy)]
enum Mode {
    Rn,
    Rz,
    Rm,
    Rp,
}
const MODES: [(Mode, &str); 4] = [
    (Mode::Rn, "rn"),
    (Mode::Rz, "rz"),
    (Mode::Rm, "rm"),
    (Mode::Rp, "rp"),
];

/// Directed rounding from the nearest value `r` (a float whose exact value is `r + t` where
/// only the sign of `t` is known): move one step toward the mode's direction when needed.
fn direct32(r: f32, t_sign: i32, m: Mode) -> f32 {
    let up = match m {
        Mode::Rn => return r,
        // A zero already has the sign of the exact value and is toward zero.
        Mode::Rz if r == 0.0 => return r,
        Mode::Rz => r < 0.0,
        Mode::Rm => false,
        Mode::Rp => true,
    };
    match (up, t_sign) {
        (true, s) if s > 0 => r.next_up(),
        (false, s) if s < 0 => r.next_down(),
        _ => r,
    }
}

fn direct64(r: f64, t_sign: i32, m: Mode) -> f64 {
    let up = match m {
        Mode::Rn => return r,
        Mode::Rz if r == 0.0 => return r,
        Mode::Rz => r < 0.0,
        Mode::Rm => false,
        Mode::Rp => true,
    };
    match (up, t_sign) {
        (true, s) if s > 0 => r.next_up(),
        (false, s) if s < 0 => r.next_down(),
        _ => r,
    }
}

fn sign(x: f64) -> i32 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// Round an exact f64 value to f32 by `m` (`as` is the correctly rounded nearest).
fn round32(x: f64, m: Mode) -> u64 {
    let r = x as f32;
    if r.is_infinite() && x.is_finite() {
        // Past the largest finite value by at least half an ulp: the nearest is infinity;
        // toward zero (and away from the infinity's direction) it is the largest finite.
        let r = match (m, x > 0.0) {
            (Mode::Rz | Mode::Rm, true) => f32::MAX,
            (Mode::Rz | Mode::Rp, false) => f32::MIN,
            _ => r,
        };
        return r.to_bits() as u64;
    }
    direct32(r, sign(x - r as f64), m).to_bits() as u64
}

/// A random f32 with exponent in [lo, hi] (biased 1..254 normal, 0 subnormal).
fn rand_f32(r: &mut Rng, lo: u64, hi: u64) -> f32 {
    let v = r.next();
    let e = lo + (v >> 40) % (hi - lo + 1);
    let bits = (v & 0x8000_0000) | (e << 23) | (v & 0x7f_ffff);
    f32::from_bits(bits as u32)
}

fn f32_random() -> Vec<Group> {
    let mut r = Rng(32);
    let mut groups = vec![];
    let n = 1500;
    for (m, ms) in MODES {
        let (mut add, mut mul, mut div, mut fma, mut sqrt) =
            (vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..n {
            // add: exponents within 29 of each other, so the f64 sum is exact.
            let a = rand_f32(&mut r, 1, 254);
            let ea = (a.to_bits() >> 23) & 0xff;
            let lo = ea.saturating_sub(29).max(1) as u64;
            let hi = (ea as u64 + 29).min(254);
            let b = rand_f32(&mut r, lo, hi);
            add.push((
                vec![a.to_bits() as u64, b.to_bits() as u64],
                vec![round32(a as f64 + b as f64, m)],
            ));
            // mul: any two f32 (the 48-bit product is exact in f64), subnormals included.
            let (x, y) = (rand_f32(&mut r, 0, 254), rand_f32(&mut r, 0, 254));
            mul.push((
                vec![x.to_bits() as u64, y.to_bits() as u64],
                vec![round32(x as f64 * y as f64, m)],
            ));
            // div: the nearest quotient plus the sign of the exact remainder a - q*b.
            let (x, y) = (rand_f32(&mut r, 80, 174), rand_f32(&mut r, 80, 174));
            let q = x / y;
            let rem = x as f64 - q as f64 * y as f64;
            let t = sign(rem) * sign(y as f64);
            div.push((
                vec![x.to_bits() as u64, y.to_bits() as u64],
                vec![direct32(q, t, m).to_bits() as u64],
            ));
            // fma: 12-bit significands make a*b 24 bits; c within 29 exponents → exact in f64.
            let trunc = |f: f32| f32::from_bits(f.to_bits() & 0xffff_f000);
            let (x, y) = (
                trunc(rand_f32(&mut r, 80, 170)),
                trunc(rand_f32(&mut r, 80, 170)),
            );
            let p = x as f64 * y as f64;
            let ep = ((p.abs().log2().floor() as i64) + 127).clamp(30, 224) as u64;
            let z = rand_f32(&mut r, ep - 29, ep + 29);
            fma.push((
                vec![x.to_bits() as u64, y.to_bits() as u64, z.to_bits() as u64],
                vec![round32(p + z as f64, m)],
            ));
            // sqrt: nearest root plus the sign of the exact residual x - q².
            let x = rand_f32(&mut r, 0, 254).abs();
            let q = x.sqrt();
            let t = sign(x as f64 - q as f64 * q as f64);
            sqrt.push((
                vec![x.to_bits() as u64],
                vec![direct32(q, t, m).to_bits() as u64],
            ));
        }
        let f = Ty::F32;
        groups.push(group(
            &format!("add.{ms}.f32 d, a, b"),
            &[("d", f)],
            &[("a", f), ("b", f)],
            add,
        ));
        groups.push(group(
            &format!("mul.{ms}.f32 d, a, b"),
            &[("d", f)],
            &[("a", f), ("b", f)],
            mul,
        ));
        groups.push(group(
            &format!("div.{ms}.f32 d, a, b"),
            &[("d", f)],
            &[("a", f), ("b", f)],
            div,
        ));
        groups.push(group(
            &format!("fma.{ms}.f32 d, a, b, c"),
            &[("d", f)],
            &[("a", f), ("b", f), ("c", f)],
            fma,
        ));
        groups.push(group(
            &format!("sqrt.{ms}.f32 d, a"),
            &[("d", f)],
            &[("a", f)],
            sqrt,
        ));
    }
    groups
}

fn rand_f64(r: &mut Rng, lo: u64, hi: u64) -> f64 {
    let v = r.next();
    let e = lo + (r.next() >> 20) % (hi - lo + 1);
    f64::from_bits((v & 0x8000_0000_0000_0000) | (e << 52) | (v & 0xf_ffff_ffff_ffff))
}

fn f64_random() -> Vec<Group> {
    let mut r = Rng(64);
    let mut groups = vec![];
    for (m, ms) in MODES {
        let (mut add, mut mul, mut div) = (vec![], vec![], vec![]);
        for _ in 0..1500 {
            let (a, b) = (rand_f64(&mut r, 900, 1150), rand_f64(&mut r, 900, 1150));
            // TwoSum: s + e == a + b exactly.
            let s = a + b;
            let bb = s - a;
            let e = (a - (s - bb)) + (b - bb);
            add.push((
                vec![a.to_bits(), b.to_bits()],
                vec![direct64(s, sign(e), m).to_bits()],
            ));
            // TwoProduct with fma: p + e == a * b exactly.
            let p = a * b;
            let e = a.mul_add(b, -p);
            mul.push((
                vec![a.to_bits(), b.to_bits()],
                vec![direct64(p, sign(e), m).to_bits()],
            ));
            // Division: the remainder a - q*b is exact with fma.
            let q = a / b;
            let rem = (-q).mul_add(b, a);
            div.push((
                vec![a.to_bits(), b.to_bits()],
                vec![direct64(q, sign(rem) * sign(b), m).to_bits()],
            ));
        }
        let f = Ty::F64;
        groups.push(group(
            &format!("add.{ms}.f64 d, a, b"),
            &[("d", f)],
            &[("a", f), ("b", f)],
            add,
        ));
        groups.push(group(
            &format!("mul.{ms}.f64 d, a, b"),
            &[("d", f)],
            &[("a", f), ("b", f)],
            mul,
        ));
        groups.push(group(
            &format!("div.{ms}.f64 d, a, b"),
            &[("d", f)],
            &[("a", f), ("b", f)],
            div,
        ));
    }
    groups
}

fn cvt_random() -> Vec<Group> {
    let mut r = Rng(99);
    let mut groups = vec![];
    for (m, ms) in MODES {
        let (mut narrow, mut from_s64) = (vec![], vec![]);
        for _ in 0..2000 {
            let x = rand_f64(&mut r, 850, 1200);
            narrow.push((vec![x.to_bits()], vec![round32(x, m)]));
            // s64 → f32: compare the nearest f32 with the integer exactly (in i128).
            let v = r.next() as i64 >> (r.next() % 40);
            let near = v as f32;
            let t = ((v as i128) - (near as f64 as i128)).signum() as i32;
            let d = direct32(near, t, m);
            from_s64.push((vec![v as u64], vec![d.to_bits() as u64]));
        }
        groups.push(group(
            &format!("cvt.{ms}.f32.f64 d, a"),
            &[("d", Ty::F32)],
            &[("a", Ty::F64)],
            narrow,
        ));
        groups.push(group(
            &format!("cvt.{ms}.f32.s64 d, a"),
            &[("d", Ty::F32)],
            &[("a", Ty::S(64))],
            from_s64,
        ));
    }
    groups
}
