//! The generator's instruction table: every register-to-register PTX instruction form the
//! generated kernels use, described once. Grow it with the ISA ptxjit supports (the decoder's
//! table, `src/lower/decode_table.rs`, whose sections a test checks these against); memory, atomic, warp and control-flow instructions are constructs of
//! the generator ([`super::gen`]) because they need address masking or uniform control flow.
//!
//! A [`Form`] is an opcode, groups of modifiers (one choice from each group is appended in
//! order, e.g. `[["", ".rn"], ["", ".ftz"]]`), the instruction types it can take, and the shape
//! of its destination and sources. Operand kinds are relative to the chosen type string: for
//! `cvt` the type string is `"f32.s32"` and [`K::T`] is the class of `f32`, [`K::S`] that of
//! `s32`; [`K::W`] is the double-width class (`mul.wide`, `mad.wide`).

/// A register class of the generated kernels (declared `.b16`, `.b32`, `.b64`, `.f32`, `.f64`,
/// `.pred`; 8-bit types live in `.b16` registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    B16,
    B32,
    B64,
    F32,
    F64,
    Pred,
}

impl Class {
    /// The class of a PTX type suffix (`"s32"` → `B32`, `"u8"` → `B16`).
    pub fn of(ty: &str) -> Class {
        match ty {
            "u8" | "s8" | "b8" | "u16" | "s16" | "b16" => Class::B16,
            "u32" | "s32" | "b32" => Class::B32,
            "u64" | "s64" | "b64" => Class::B64,
            "f32" => Class::F32,
            "f64" => Class::F64,
            // Halves live in bit registers: `.b16` for one, `.b32` for a packed pair.
            "f16" | "bf16" => Class::B16,
            "f16x2" | "bf16x2" => Class::B32,
            // Packed 16-bit integer pairs (`min.s16x2`, `sm_90`).
            "u16x2" | "s16x2" => Class::B32,
            _ => Class::Pred,
        }
    }

    /// The class twice as wide (`B16` → `B32`, `B32` → `B64`).
    pub fn wide(self) -> Class {
        match self {
            Class::B16 => Class::B32,
            Class::B32 => Class::B64,
            other => other,
        }
    }
}

/// The class of an operand, relative to the form's chosen type string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum K {
    /// The (first) type's class.
    T,
    /// The second type's class (`cvt`'s source type).
    S,
    /// Twice the type's width.
    W,
    /// A fixed class.
    C(Class),
}

/// A source operand slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opnd {
    /// A register.
    R(K),
    /// A register or an immediate of the class.
    RI(K),
    /// A shift count or bit position/length (`bfe`, `bfi`): a `.b32` register or an immediate
    /// in 0..=70 (values ≥ width included; ptxas takes immediates in 0..=255).
    Sh,
    /// A predicate register, possibly negated (`!%p`): `setp`'s combining operand.
    NP,
    /// A vector `{a, b}` / `{a, b, c, d}` of distinct registers (`mov` pack).
    Vec(K, u8),
    /// An 8-bit immediate (`lop3`'s truth table).
    Imm8,
    /// A bit position in 0..=31: an immediate or `%ln` (`fns`'s base; a larger one is
    /// undefined).
    Bit,
}

/// A destination operand slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dst {
    R(K),
    /// A predicate, or the pair `%p|%q` (`setp`).
    PredPair,
    /// A vector of distinct registers (`mov` unpack).
    Vec(K, u8),
}

/// One instruction form.
#[derive(Clone, Copy, Debug)]
pub struct Form {
    pub op: &'static str,
    /// Modifier groups; one entry of each is appended in order (entries include their dots).
    pub mods: &'static [&'static [&'static str]],
    /// Instruction types (`"u32"`, or `"f32.s32"` for two-type instructions).
    pub tys: &'static [&'static str],
    pub dst: Dst,
    pub srcs: &'static [Opnd],
    /// Relative frequency.
    pub weight: u32,
    /// PTX ISA section (9.x numbering).
    pub section: &'static str,
}

use Opnd::{Sh, NP, RI};
use K::{C, S, T, W};

const INTS: &[&str] = &["u16", "s16", "u32", "s32", "u64", "s64"];
const INTS_16_32: &[&str] = &["u16", "s16", "u32", "s32"];
const SIGNED: &[&str] = &["s16", "s32", "s64"];
const BITS: &[&str] = &["b16", "b32", "b64"];
const SHR: &[&str] = &[
    "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64",
];
const F32: &[&str] = &["f32"];
const F64: &[&str] = &["f64"];
const NONE: &[&[&str]] = &[];
const R_RI: &[Opnd] = &[Opnd::R(T), RI(T)];
const R_R_RI: &[Opnd] = &[Opnd::R(T), Opnd::R(T), RI(T)];
const R1: &[Opnd] = &[Opnd::R(T)];
const R_R: &[Opnd] = &[Opnd::R(T), Opnd::R(T)];
const R_R_R: &[Opnd] = &[Opnd::R(T), Opnd::R(T), Opnd::R(T)];
const HALVES: &[&str] = &["f16", "f16x2"];
const BHALVES: &[&str] = &["bf16", "bf16x2"];
const OPT_NAN: &[&str] = &["", ".NaN"];

const CMP_S: &[&str] = &[".eq", ".ne", ".lt", ".le", ".gt", ".ge"];
const CMP_U: &[&str] = &[
    ".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs",
];
const CMP_B: &[&str] = &[".eq", ".ne"];
const CMP_F: &[&str] = &[
    ".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu",
    ".num", ".nan",
];
const BOOL: &[&str] = &[".and", ".or", ".xor"];
const OPT_FTZ: &[&str] = &["", ".ftz"];
const OPT_SAT: &[&str] = &["", ".sat"];
const OPT_RN: &[&str] = &["", ".rn"];
const RN: &[&str] = &[".rn"];
const FRND: &[&str] = &[".rn", ".rz", ".rm", ".rp"];
const IRND: &[&str] = &[".rni", ".rzi", ".rmi", ".rpi"];

/// Integer-to-integer conversions that can overflow: `.sat` is allowed (ptxas rejects it on the
/// others).
const CVT_II_SAT: &[&str] = &[
    "u8.s8", "u8.u16", "u8.s16", "u8.u32", "u8.s32", "u8.u64", "u8.s64", "s8.u8", "s8.u16",
    "s8.s16", "s8.u32", "s8.s32", "s8.u64", "s8.s64", "u16.s8", "u16.s16", "u16.u32", "u16.s32",
    "u16.u64", "u16.s64", "s16.u16", "s16.u32", "s16.s32", "s16.u64", "s16.s64", "u32.s8",
    "u32.s16", "u32.s32", "u32.u64", "u32.s64", "s32.u32", "s32.u64", "s32.s64", "u64.s8",
    "u64.s16", "u64.s32", "u64.s64", "s64.u64",
];
/// Integer-to-integer conversions that cannot overflow (no `.sat`).
const CVT_II_WIDEN: &[&str] = &[
    "u16.u8", "s16.u8", "s16.s8", "u32.u8", "u32.u16", "s32.u8", "s32.s8", "s32.u16", "s32.s16",
    "u64.u8", "u64.u16", "u64.u32", "s64.u8", "s64.s8", "s64.u16", "s64.s16", "s64.u32", "s64.s32",
];
const CVT_FI: &[&str] = &[
    "f32.u8", "f32.s8", "f32.u16", "f32.s16", "f32.u32", "f32.s32", "f32.u64", "f32.s64", "f64.u8",
    "f64.s8", "f64.u16", "f64.s16", "f64.u32", "f64.s32", "f64.u64", "f64.s64",
];
const CVT_IF32: &[&str] = &[
    "u8.f32", "s8.f32", "u16.f32", "s16.f32", "u32.f32", "s32.f32", "u64.f32", "s64.f32",
];
const CVT_IF64: &[&str] = &[
    "u8.f64", "s8.f64", "u16.f64", "s16.f64", "u32.f64", "s32.f64", "u64.f64", "s64.f64",
];

/// `set` (§9.7.6.1) destination and source types: `.u32`/`.s32`/`.f32` results of signed,
/// unsigned and bit-size comparisons.
const SET_S: &[&str] = &["u32.s16", "s32.s32", "f32.s32", "u32.s64"];
const SET_U: &[&str] = &["u32.u16", "s32.u32", "f32.u32", "u32.u64"];
const SET_B: &[&str] = &["u32.b16", "s32.b32", "f32.b64"];
/// `slct` (§9.7.6.4) types: `d`, `a` and `b` of the first, `c` of the second.
const SLCT_S32: &[&str] = &[
    "b16.s32", "u32.s32", "s32.s32", "b64.s32", "f32.s32", "f64.s32",
];
const SLCT_F32: &[&str] = &["u16.f32", "b32.f32", "s64.f32", "f32.f32", "f64.f32"];

/// Every register-to-register form, with its PTX ISA section.
#[rustfmt::skip]
pub const FORMS: &[Form] = &[
    // ---- integer arithmetic (§9.7.1) ----
    Form { op: "add", mods: NONE, tys: INTS, dst: Dst::R(T), srcs: R_RI, weight: 6, section: "9.7.1.1" },
    Form { op: "sub", mods: NONE, tys: INTS, dst: Dst::R(T), srcs: R_RI, weight: 4, section: "9.7.1.2" },
    Form { op: "mul", mods: &[&[".lo", ".hi"]], tys: INTS, dst: Dst::R(T), srcs: R_RI, weight: 4, section: "9.7.1.3" },
    Form { op: "mul", mods: &[&[".wide"]], tys: INTS_16_32, dst: Dst::R(W), srcs: R_RI, weight: 3, section: "9.7.1.3" },
    Form { op: "mad", mods: &[&[".lo", ".hi"]], tys: INTS, dst: Dst::R(T), srcs: R_R_RI, weight: 3, section: "9.7.1.4" },
    Form { op: "mad", mods: &[&[".wide"]], tys: INTS_16_32, dst: Dst::R(W), srcs: &[Opnd::R(T), Opnd::R(T), RI(W)], weight: 2, section: "9.7.1.4" },
    Form { op: "div", mods: NONE, tys: INTS, dst: Dst::R(T), srcs: R_RI, weight: 3, section: "9.7.1.8" },
    Form { op: "rem", mods: NONE, tys: INTS, dst: Dst::R(T), srcs: R_RI, weight: 3, section: "9.7.1.9" },
    Form { op: "min", mods: NONE, tys: INTS, dst: Dst::R(T), srcs: R_RI, weight: 2, section: "9.7.1.12" },
    Form { op: "max", mods: NONE, tys: INTS, dst: Dst::R(T), srcs: R_RI, weight: 2, section: "9.7.1.13" },
    Form { op: "neg", mods: NONE, tys: SIGNED, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.1.11" },
    Form { op: "abs", mods: NONE, tys: SIGNED, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.1.10" },
    Form { op: "popc", mods: NONE, tys: &["b32", "b64"], dst: Dst::R(C(Class::B32)), srcs: R1, weight: 1, section: "9.7.1.14" },
    Form { op: "clz", mods: NONE, tys: &["b32", "b64"], dst: Dst::R(C(Class::B32)), srcs: R1, weight: 1, section: "9.7.1.15" },
    Form { op: "add", mods: &[&[".sat"]], tys: &["s32"], dst: Dst::R(T), srcs: R_RI, weight: 1, section: "9.7.1.1" },
    Form { op: "sub", mods: &[&[".sat"]], tys: &["s32"], dst: Dst::R(T), srcs: R_RI, weight: 1, section: "9.7.1.2" },
    Form { op: "mul24", mods: &[&[".lo", ".hi"]], tys: &["u32", "s32"], dst: Dst::R(T), srcs: R_RI, weight: 1, section: "9.7.1.5" },
    Form { op: "mad24", mods: &[&[".lo", ".hi"]], tys: &["u32", "s32"], dst: Dst::R(T), srcs: R_R_RI, weight: 1, section: "9.7.1.6" },
    Form { op: "sad", mods: NONE, tys: INTS, dst: Dst::R(T), srcs: R_R_RI, weight: 1, section: "9.7.1.7" },
    Form { op: "bfind", mods: &[&["", ".shiftamt"]], tys: &["u32", "s32", "u64", "s64"], dst: Dst::R(C(Class::B32)), srcs: R1, weight: 1, section: "9.7.1.16" },
    Form { op: "brev", mods: NONE, tys: &["b32", "b64"], dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.1.18" },
    Form { op: "bfe", mods: NONE, tys: &["u32", "s32", "u64", "s64"], dst: Dst::R(T), srcs: &[Opnd::R(T), Opnd::Sh, Opnd::Sh], weight: 2, section: "9.7.1.19" },
    Form { op: "bfi", mods: NONE, tys: &["b32", "b64"], dst: Dst::R(T), srcs: &[Opnd::R(T), Opnd::R(T), Opnd::Sh, Opnd::Sh], weight: 2, section: "9.7.1.20" },
    Form { op: "szext", mods: &[&[".clamp", ".wrap"]], tys: &["u32", "s32"], dst: Dst::R(T), srcs: &[Opnd::R(T), RI(C(Class::B32))], weight: 1, section: "9.7.1.21" },
    Form { op: "bmsk", mods: &[&[".clamp", ".wrap"]], tys: &["b32"], dst: Dst::R(T), srcs: R_RI, weight: 1, section: "9.7.1.22" },
    Form { op: "dp4a", mods: NONE, tys: &["u32.u32", "s32.s32", "s32.u32", "u32.s32"], dst: Dst::R(C(Class::B32)), srcs: &[Opnd::R(C(Class::B32)), RI(C(Class::B32)), RI(C(Class::B32))], weight: 1, section: "9.7.1.23" },
    Form { op: "dp2a", mods: &[&[".lo", ".hi"]], tys: &["u32.u32", "s32.s32", "s32.u32", "u32.s32"], dst: Dst::R(C(Class::B32)), srcs: &[Opnd::R(C(Class::B32)), RI(C(Class::B32)), RI(C(Class::B32))], weight: 1, section: "9.7.1.24" },
    Form { op: "fns", mods: NONE, tys: &["b32"], dst: Dst::R(T), srcs: &[RI(T), Opnd::Bit, RI(T)], weight: 1, section: "9.7.1.17" },
    // ---- logic and shift (§9.7.8) ----
    Form { op: "cnot", mods: NONE, tys: BITS, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.8.5" },
    Form { op: "lop3", mods: NONE, tys: &["b32"], dst: Dst::R(T), srcs: &[Opnd::R(T), RI(T), RI(T), Opnd::Imm8], weight: 2, section: "9.7.8.6" },
    Form { op: "shf", mods: &[&[".l", ".r"], &[".clamp", ".wrap"]], tys: &["b32"], dst: Dst::R(T), srcs: &[Opnd::R(T), Opnd::R(T), Sh], weight: 2, section: "9.7.8.7" },
    Form { op: "prmt", mods: &[&["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]], tys: &["b32"], dst: Dst::R(T), srcs: &[Opnd::R(T), RI(T), RI(T)], weight: 2, section: "9.7.9.7" },
    Form { op: "and", mods: NONE, tys: BITS, dst: Dst::R(T), srcs: R_RI, weight: 3, section: "9.7.8.1" },
    Form { op: "or", mods: NONE, tys: BITS, dst: Dst::R(T), srcs: R_RI, weight: 3, section: "9.7.8.2" },
    Form { op: "xor", mods: NONE, tys: BITS, dst: Dst::R(T), srcs: R_RI, weight: 3, section: "9.7.8.3" },
    Form { op: "not", mods: NONE, tys: BITS, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.8.4" },
    Form { op: "and", mods: NONE, tys: &["pred"], dst: Dst::R(T), srcs: &[Opnd::R(T), Opnd::R(T)], weight: 1, section: "9.7.8.1" },
    Form { op: "or", mods: NONE, tys: &["pred"], dst: Dst::R(T), srcs: &[Opnd::R(T), Opnd::R(T)], weight: 1, section: "9.7.8.2" },
    Form { op: "xor", mods: NONE, tys: &["pred"], dst: Dst::R(T), srcs: &[Opnd::R(T), Opnd::R(T)], weight: 1, section: "9.7.8.3" },
    Form { op: "not", mods: NONE, tys: &["pred"], dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.8.4" },
    Form { op: "shl", mods: NONE, tys: BITS, dst: Dst::R(T), srcs: &[Opnd::R(T), Sh], weight: 3, section: "9.7.8.8" },
    Form { op: "shr", mods: NONE, tys: SHR, dst: Dst::R(T), srcs: &[Opnd::R(T), Sh], weight: 3, section: "9.7.8.9" },
    // ---- moves (§9.7.9.3) ----
    Form { op: "mov", mods: NONE, tys: &["b16", "u32", "s32", "b64", "f32", "f64"], dst: Dst::R(T), srcs: &[RI(T)], weight: 2, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["pred"], dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["b32"], dst: Dst::R(C(Class::B32)), srcs: &[Opnd::R(C(Class::F32))], weight: 2, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["b32"], dst: Dst::R(C(Class::F32)), srcs: &[Opnd::R(C(Class::B32))], weight: 2, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["b64"], dst: Dst::R(C(Class::B64)), srcs: &[Opnd::R(C(Class::F64))], weight: 1, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["b64"], dst: Dst::R(C(Class::F64)), srcs: &[Opnd::R(C(Class::B64))], weight: 1, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["b64"], dst: Dst::R(T), srcs: &[Opnd::Vec(C(Class::B32), 2)], weight: 1, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["b64"], dst: Dst::Vec(C(Class::B32), 2), srcs: R1, weight: 1, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["b32"], dst: Dst::R(T), srcs: &[Opnd::Vec(C(Class::B16), 2)], weight: 1, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["b32"], dst: Dst::Vec(C(Class::B16), 2), srcs: R1, weight: 1, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["b64"], dst: Dst::R(T), srcs: &[Opnd::Vec(C(Class::B16), 4)], weight: 1, section: "9.7.9.3" },
    Form { op: "mov", mods: NONE, tys: &["b64"], dst: Dst::Vec(C(Class::B16), 4), srcs: R1, weight: 1, section: "9.7.9.3" },
    // ---- comparison and selection (§9.7.6) ----
    Form { op: "setp", mods: &[CMP_S], tys: SIGNED, dst: Dst::PredPair, srcs: R_RI, weight: 2, section: "9.7.6.2" },
    Form { op: "setp", mods: &[CMP_U], tys: &["u16", "u32", "u64"], dst: Dst::PredPair, srcs: R_RI, weight: 2, section: "9.7.6.2" },
    Form { op: "setp", mods: &[CMP_B], tys: BITS, dst: Dst::PredPair, srcs: R_RI, weight: 1, section: "9.7.6.2" },
    Form { op: "setp", mods: &[CMP_S, BOOL], tys: &["s32", "s64"], dst: Dst::PredPair, srcs: &[Opnd::R(T), RI(T), NP], weight: 1, section: "9.7.6.2" },
    Form { op: "setp", mods: &[CMP_U, BOOL], tys: &["u32"], dst: Dst::PredPair, srcs: &[Opnd::R(T), RI(T), NP], weight: 1, section: "9.7.6.2" },
    Form { op: "setp", mods: &[CMP_F, OPT_FTZ], tys: F32, dst: Dst::PredPair, srcs: R_RI, weight: 2, section: "9.7.6.2" },
    Form { op: "setp", mods: &[CMP_F, BOOL, OPT_FTZ], tys: F32, dst: Dst::PredPair, srcs: &[Opnd::R(T), RI(T), NP], weight: 1, section: "9.7.6.2" },
    Form { op: "setp", mods: &[CMP_F], tys: F64, dst: Dst::PredPair, srcs: R_RI, weight: 1, section: "9.7.6.2" },
    Form { op: "set", mods: &[CMP_S], tys: SET_S, dst: Dst::R(T), srcs: &[Opnd::R(S), RI(S)], weight: 1, section: "9.7.6.1" },
    Form { op: "set", mods: &[CMP_U], tys: SET_U, dst: Dst::R(T), srcs: &[Opnd::R(S), RI(S)], weight: 1, section: "9.7.6.1" },
    Form { op: "set", mods: &[CMP_B], tys: SET_B, dst: Dst::R(T), srcs: &[Opnd::R(S), RI(S)], weight: 1, section: "9.7.6.1" },
    Form { op: "set", mods: &[CMP_F, OPT_FTZ], tys: &["u32.f32", "s32.f32", "f32.f32"], dst: Dst::R(T), srcs: &[Opnd::R(S), RI(S)], weight: 1, section: "9.7.6.1" },
    Form { op: "set", mods: &[CMP_F], tys: &["u32.f64", "s32.f64", "f32.f64"], dst: Dst::R(T), srcs: &[Opnd::R(S), RI(S)], weight: 1, section: "9.7.6.1" },
    Form { op: "set", mods: &[CMP_S, BOOL], tys: &["u32.s32", "f32.s64"], dst: Dst::R(T), srcs: &[Opnd::R(S), RI(S), NP], weight: 1, section: "9.7.6.1" },
    Form { op: "set", mods: &[CMP_F, BOOL, OPT_FTZ], tys: &["s32.f32", "f32.f32"], dst: Dst::R(T), srcs: &[Opnd::R(S), RI(S), NP], weight: 1, section: "9.7.6.1" },
    Form { op: "slct", mods: NONE, tys: SLCT_S32, dst: Dst::R(T), srcs: &[Opnd::R(T), RI(T), RI(S)], weight: 1, section: "9.7.6.4" },
    Form { op: "slct", mods: &[OPT_FTZ], tys: SLCT_F32, dst: Dst::R(T), srcs: &[Opnd::R(T), RI(T), RI(S)], weight: 1, section: "9.7.6.4" },
    Form { op: "selp", mods: NONE, tys: &["b16", "b32", "u64", "f32", "f64"], dst: Dst::R(T), srcs: &[Opnd::R(T), RI(T), Opnd::R(C(Class::Pred))], weight: 2, section: "9.7.6.3" },
    // ---- floating point (§9.7.3) ----
    Form { op: "add", mods: &[OPT_RN, OPT_FTZ, OPT_SAT], tys: F32, dst: Dst::R(T), srcs: R_RI, weight: 3, section: "9.7.3.3" },
    Form { op: "sub", mods: &[OPT_RN, OPT_FTZ, OPT_SAT], tys: F32, dst: Dst::R(T), srcs: R_RI, weight: 2, section: "9.7.3.4" },
    Form { op: "mul", mods: &[OPT_RN, OPT_FTZ, OPT_SAT], tys: F32, dst: Dst::R(T), srcs: R_RI, weight: 3, section: "9.7.3.5" },
    Form { op: "fma", mods: &[RN, OPT_FTZ, OPT_SAT], tys: F32, dst: Dst::R(T), srcs: R_R_RI, weight: 3, section: "9.7.3.6" },
    Form { op: "mad", mods: &[RN, OPT_FTZ, OPT_SAT], tys: F32, dst: Dst::R(T), srcs: R_R_RI, weight: 1, section: "9.7.3.7" },
    Form { op: "div", mods: &[&[".rn", ".approx", ".full"], OPT_FTZ], tys: F32, dst: Dst::R(T), srcs: R_RI, weight: 2, section: "9.7.3.8" },
    Form { op: "min", mods: &[OPT_FTZ, OPT_NAN], tys: F32, dst: Dst::R(T), srcs: R_RI, weight: 2, section: "9.7.3.11" },
    Form { op: "max", mods: &[OPT_FTZ, OPT_NAN], tys: F32, dst: Dst::R(T), srcs: R_RI, weight: 2, section: "9.7.3.12" },
    Form { op: "neg", mods: &[OPT_FTZ], tys: F32, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.10" },
    Form { op: "abs", mods: &[OPT_FTZ], tys: F32, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.9" },
    Form { op: "sqrt", mods: &[&[".rn", ".approx"], OPT_FTZ], tys: F32, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.15" },
    Form { op: "rcp", mods: &[&[".rn", ".approx"], OPT_FTZ], tys: F32, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.13" },
    Form { op: "testp", mods: &[&[".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal"]], tys: &["f32", "f64"], dst: Dst::R(C(Class::Pred)), srcs: R1, weight: 1, section: "9.7.3.1" },
    Form { op: "copysign", mods: NONE, tys: &["f32", "f64"], dst: Dst::R(T), srcs: &[Opnd::R(T), Opnd::R(T)], weight: 1, section: "9.7.3.2" },
    Form { op: "rsqrt", mods: &[&[".approx"], OPT_FTZ], tys: F32, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.16" },
    Form { op: "ex2", mods: &[&[".approx"], OPT_FTZ], tys: F32, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.21" },
    Form { op: "lg2", mods: &[&[".approx"], OPT_FTZ], tys: F32, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.20" },
    Form { op: "sin", mods: &[&[".approx"], OPT_FTZ], tys: F32, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.18" },
    Form { op: "cos", mods: &[&[".approx"], OPT_FTZ], tys: F32, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.19" },
    Form { op: "tanh", mods: &[&[".approx"]], tys: F32, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.22" },
    Form { op: "add", mods: &[OPT_RN], tys: F64, dst: Dst::R(T), srcs: R_RI, weight: 2, section: "9.7.3.3" },
    Form { op: "sub", mods: &[OPT_RN], tys: F64, dst: Dst::R(T), srcs: R_RI, weight: 1, section: "9.7.3.4" },
    Form { op: "mul", mods: &[OPT_RN], tys: F64, dst: Dst::R(T), srcs: R_RI, weight: 2, section: "9.7.3.5" },
    Form { op: "fma", mods: &[RN], tys: F64, dst: Dst::R(T), srcs: R_R_RI, weight: 2, section: "9.7.3.6" },
    Form { op: "div", mods: &[RN], tys: F64, dst: Dst::R(T), srcs: R_RI, weight: 1, section: "9.7.3.8" },
    Form { op: "min", mods: NONE, tys: F64, dst: Dst::R(T), srcs: R_RI, weight: 1, section: "9.7.3.11" },
    Form { op: "max", mods: NONE, tys: F64, dst: Dst::R(T), srcs: R_RI, weight: 1, section: "9.7.3.12" },
    Form { op: "neg", mods: NONE, tys: F64, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.10" },
    Form { op: "abs", mods: NONE, tys: F64, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.9" },
    Form { op: "sqrt", mods: &[RN], tys: F64, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.15" },
    Form { op: "rsqrt", mods: &[&[".approx.ftz"]], tys: F64, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.16" },
    Form { op: "rcp", mods: &[&[".rn", ".approx.ftz"]], tys: F64, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.13" },
    // `.ftz` on `rcp.rnd.f64`, which ptxas 13.5 takes (and compiles as without it).
    Form { op: "rcp", mods: &[FRND, &[".ftz"]], tys: F64, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.3.13" },
    // ---- half precision (§9.7.4; sm_80: no .bf16 add/sub/mul, which need sm_90) ----
    Form { op: "add", mods: &[OPT_RN, OPT_FTZ, OPT_SAT], tys: HALVES, dst: Dst::R(T), srcs: R_R, weight: 2, section: "9.7.4.1" },
    Form { op: "sub", mods: &[OPT_RN, OPT_FTZ, OPT_SAT], tys: HALVES, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.4.2" },
    Form { op: "mul", mods: &[OPT_RN, OPT_FTZ, OPT_SAT], tys: HALVES, dst: Dst::R(T), srcs: R_R, weight: 2, section: "9.7.4.3" },
    Form { op: "fma", mods: &[RN, OPT_FTZ, OPT_SAT], tys: HALVES, dst: Dst::R(T), srcs: R_R_R, weight: 2, section: "9.7.4.4" },
    Form { op: "fma", mods: &[RN, &["", ".relu"]], tys: &["f16", "f16x2", "bf16", "bf16x2"], dst: Dst::R(T), srcs: R_R_R, weight: 2, section: "9.7.4.4" },
    Form { op: "neg", mods: &[OPT_FTZ], tys: HALVES, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.4.5" },
    Form { op: "abs", mods: &[OPT_FTZ], tys: HALVES, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.4.6" },
    Form { op: "neg", mods: NONE, tys: BHALVES, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.4.5" },
    Form { op: "abs", mods: NONE, tys: BHALVES, dst: Dst::R(T), srcs: R1, weight: 1, section: "9.7.4.6" },
    Form { op: "min", mods: &[OPT_FTZ, OPT_NAN], tys: HALVES, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.4.7" },
    Form { op: "max", mods: &[OPT_FTZ, OPT_NAN], tys: HALVES, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.4.8" },
    Form { op: "min", mods: &[OPT_NAN], tys: BHALVES, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.4.7" },
    Form { op: "max", mods: &[OPT_NAN], tys: BHALVES, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.4.8" },
    // ---- conversions (§9.7.9.21) ----
    Form { op: "cvt", mods: &[FRND], tys: &["f16.f32"], dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 1, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[&[".rn", ".rz"], &["", ".relu"]], tys: &["f16.f32", "bf16.f32"], dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 1, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[OPT_FTZ], tys: &["f32.f16"], dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 1, section: "9.7.9.21" },
    Form { op: "cvt", mods: NONE, tys: &["f32.bf16", "f64.f16"], dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 1, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[&[".rn", ".rz"], &["", ".relu"]], tys: &["f16x2.f32", "bf16x2.f32"], dst: Dst::R(T), srcs: &[Opnd::R(S), Opnd::R(S)], weight: 1, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[OPT_SAT], tys: CVT_II_SAT, dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 3, section: "9.7.9.21" },
    Form { op: "cvt", mods: NONE, tys: CVT_II_WIDEN, dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 2, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[FRND], tys: CVT_FI, dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 3, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[IRND, OPT_FTZ], tys: CVT_IF32, dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 3, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[IRND], tys: CVT_IF64, dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 2, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[OPT_FTZ], tys: &["f64.f32"], dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 1, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[FRND, OPT_FTZ, OPT_SAT], tys: &["f32.f64"], dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 1, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[IRND, OPT_FTZ, OPT_SAT], tys: &["f32.f32"], dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 1, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[IRND, OPT_SAT], tys: &["f64.f64"], dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 1, section: "9.7.9.21" },
    // `cvt.pack` (§9.7.9.22; the decoder's `cvt` row): two `.s32` saturated to 16 bits, or
    // two (`.u8`/`.s8`) or two more (4- and 2-bit) into the low bits of `c` (`.b32`).
    Form { op: "cvt", mods: &[&[".pack.sat"]], tys: &["u16.s32", "s16.s32"], dst: Dst::R(C(Class::B32)), srcs: &[Opnd::R(S), RI(S)], weight: 1, section: "9.7.9.21" },
    Form { op: "cvt", mods: &[&[".pack.sat"], &[".u8", ".s8", ".u4", ".s4", ".u2", ".s2"]], tys: &["s32.b32"], dst: Dst::R(C(Class::B32)), srcs: &[Opnd::R(T), RI(T), RI(T)], weight: 1, section: "9.7.9.21" },
];

/// The forms of the `sm_90` kernel flavour on top of [`FORMS`]: `.bf16` arithmetic (PTX ISA
/// 7.8), `.xorsign.abs` minima and maxima (`sm_86`), the `.relu` and packed 16-bit integer
/// minima and maxima (PTX ISA 8.0), `fma.oob` (PTX ISA 8.1), and `cvt` between `.f16` and
/// `.bf16` (`sm_90`; without a rounding it rounds as `.rn`).
#[rustfmt::skip]
pub const FORMS_SM90: &[Form] = &[
    Form { op: "cvt", mods: &[&["", ".rn", ".rz", ".rm", ".rp"]], tys: &["bf16.f16", "f16.bf16"], dst: Dst::R(T), srcs: &[Opnd::R(S)], weight: 1, section: "9.7.9.21" },
    Form { op: "add", mods: &[OPT_RN], tys: BHALVES, dst: Dst::R(T), srcs: R_R, weight: 3, section: "9.7.4.1" },
    Form { op: "sub", mods: &[OPT_RN], tys: BHALVES, dst: Dst::R(T), srcs: R_R, weight: 2, section: "9.7.4.2" },
    Form { op: "mul", mods: &[OPT_RN], tys: BHALVES, dst: Dst::R(T), srcs: R_R, weight: 3, section: "9.7.4.3" },
    Form { op: "min", mods: &[OPT_FTZ, OPT_NAN, &[".xorsign.abs"]], tys: F32, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.3.11" },
    Form { op: "max", mods: &[OPT_FTZ, OPT_NAN, &[".xorsign.abs"]], tys: F32, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.3.12" },
    Form { op: "min", mods: &[OPT_FTZ, OPT_NAN, &[".xorsign.abs"]], tys: HALVES, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.4.7" },
    Form { op: "max", mods: &[OPT_FTZ, OPT_NAN, &[".xorsign.abs"]], tys: HALVES, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.4.8" },
    Form { op: "min", mods: &[OPT_NAN, &[".xorsign.abs"]], tys: BHALVES, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.4.7" },
    Form { op: "max", mods: &[OPT_NAN, &[".xorsign.abs"]], tys: BHALVES, dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.4.8" },
    Form { op: "min", mods: &[&["", ".relu"]], tys: &["s32", "s16x2"], dst: Dst::R(T), srcs: R_R, weight: 2, section: "9.7.1.12" },
    Form { op: "max", mods: &[&["", ".relu"]], tys: &["s32", "s16x2"], dst: Dst::R(T), srcs: R_R, weight: 2, section: "9.7.1.13" },
    Form { op: "min", mods: NONE, tys: &["u16x2"], dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.1.12" },
    Form { op: "max", mods: NONE, tys: &["u16x2"], dst: Dst::R(T), srcs: R_R, weight: 1, section: "9.7.1.13" },
    Form { op: "fma", mods: &[&[".rn.oob"], &["", ".relu"]], tys: &["f16", "f16x2", "bf16", "bf16x2"], dst: Dst::R(T), srcs: R_R_R, weight: 1, section: "9.7.4.4" },
];

/// The class an operand kind resolves to for type string `ty`.
pub fn resolve(k: K, ty: &str) -> Class {
    let (first, second) = ty.split_once('.').unwrap_or((ty, ty));
    match k {
        K::T => Class::of(first),
        K::S => Class::of(second),
        K::W => Class::of(first).wide(),
        K::C(c) => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_well_formed() {
        for f in FORMS.iter().chain(FORMS_SM90) {
            assert!(!f.tys.is_empty() && f.weight > 0, "{}", f.op);
            for g in f.mods {
                assert!(!g.is_empty(), "{}: empty modifier group", f.op);
            }
            let sections: Vec<&str> = crate::lower::instruction_sections()
                .filter(|(op, _)| *op == f.op)
                .map(|(_, s)| s)
                .collect();
            assert!(
                sections.contains(&f.section),
                "{}: section {} is not the decoder table's ({sections:?})",
                f.op,
                f.section
            );
            for ty in f.tys {
                for part in ty.split('.') {
                    // The packed 16-bit integer pairs are modifiers to the front end.
                    let packed = matches!(part, "u16x2" | "s16x2");
                    assert!(
                        packed || crate::ptx::ast::ScalarType::from_suffix(part).is_some(),
                        "{}: bad type {ty}",
                        f.op
                    );
                }
            }
        }
    }
}
