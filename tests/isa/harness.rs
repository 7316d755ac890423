//! The instruction-table runner: a group of rows (inputs → expected outputs) for one PTX
//! snippet becomes one tiny kernel, run on every engine twice: one thread per row, and one
//! single-thread CTA per row (every operand warp-uniform; [`Spread`]).
//!
//! Table file format (`ptx-tests/isa/*.isa`):
//! ```text
//! # comment
//! >> add.sat.s32 d, a, b :: d:s32 <- a:s32 b:s32
//! 0x7fffffff 1 -> 0x7fffffff
//! >> sin.approx.f32 d, a :: d:f32 <- a:f32 ~ abs 2^-20.5
//! 1 -> 0.8414709848078965
//! ```
//! A header gives the PTX (statements separated by `;`), its outputs and inputs as
//! `name:type` (types u8..u64, s8..s64, b8..b64 (registers of that bit-size type; u8 and s8 live in 16-bit registers), f16, bf16, f16x2, bf16x2, f32, f64, pred) and
//! optionally a tolerance for float outputs (`~ abs X`, `~ rel X`, `~ ulp N`; X may be `2^E`).
//! Values: integers (decimal, negative, `0x` hex), floats (decimal, `inf`, `-inf`, `-0`,
//! `nan` = the canonical NaN, `0x` = raw bits), packed halves `lo,hi`, predicates 0/1.
//! Expected values may also be `anynan` (any NaN) or `*` (unspecified by the ISA).
//! A line `.version X.Y` or `.target sm_NN` sets the module header of the groups after it
//! (default `.version 8.8`, `.target sm_100`), for forms that need a later PTX ISA or an
//! architecture-specific target.
//!
//! Expected values come from the PTX ISA text, IEEE 754 rules or an independent host
//! computation — never from this project's engines.
//!
//! Warp-wide groups (tensor cores, shuffles, votes, matrix loads) use a `>>>` header and
//! cases of per-lane rows; each case runs as one CTA of one warp:
//! ```text
//! >>> shfl.sync.idx.b32 d|p, a, b, 0x1f, 0xffffffff :: d:b32 p:pred <- a:b32 b:u32
//! case every lane reads lane 0
//! 0: 7 0 -> 7 1
//! 1: 8 0 -> 7 1
//! …
//! >>> ldmatrix.sync.aligned.m8n8.x1.shared.b16 {d0}, [p] :: d0:b32 <- p:sptr ; shared 256
//! case
//! init 0x0: 0x00010000 0x00030002 …
//! 0: 0x0 -> 0x00010000
//! …
//! expect 0x40: 0x12345678
//! ```
//! The header is a scalar one (outputs, inputs, no tolerance) with optional clauses: `; shared N`
//! and `; global N`, an N-byte memory image per case (a `.shared` array of the CTA, a global
//! buffer; one of each at most), and `; regs a[8]:b32 q:u64`, scratch registers the PTX uses
//! (`a0`…`a7`, `q`), declared but neither loaded nor stored (these may also be `b128`). Each `case` line starts a case; its lane rows `L: inputs -> outputs` (L = 0..31,
//! increasing) give a lane's inputs and expected outputs. A lane without a row does not execute
//! the PTX (it branches around it: partial member masks, `activemask`), and its outputs are not
//! checked. Input type `sptr` is a `.u32` offset into the case's `.shared` image (the register
//! holds the shared address), `gptr` a `.u64` offset into its global image (the register holds
//! the global address). `init OFF: w0 w1 …` sets 32-bit little-endian words of the image from
//! byte offset OFF before the PTX runs (the rest is zero); `expect OFF: w0 …` gives words the
//! image must hold afterwards (with two images, `init shared OFF: …`, `expect global OFF: …`;
//! a word `*` is not checked): every other byte must keep its initial value. Outputs compare bit
//! for bit (`*`: unchecked) on every engine, failures naming the table line, lane and register
//! (or the memory offset).
//!
//! Warp-group clauses (`tests/isa/warpgroup.rs`): `; warps N` runs each case as one CTA of N
//! warps (lane rows 0..32·N − 1), and input type `sdesc` is a shared-memory matrix descriptor
//! whose start-address field holds an offset into the `.shared` image; `tcgen05` snippets
//! allocate their own tensor memory.
//!
//! A clause `; cluster N` (N = 1..8) runs each case as a thread block cluster of N CTAs of one
//! warp each, or of `; warps W` warps each (a cluster launch, `.target sm_90` or later): each
//! CTA has its own images, and the lines `R.L: inputs -> outputs` (R = 0..N-1, L = 0..32·W-1;
//! `L:` alone is rank 0) and `init rank R …`,
//! `expect rank R …` give rank R's lanes and words. All ranks copy their images in before any
//! runs the PTX, and finish it before any copies out (cluster barriers around the PTX), so the
//! PTX may read and write other ranks' shared memory (`mapa`, `.shared::cluster`).
//!
//! The PTX may read `%isa_cta_bytes` (`.u32`), the bytes between the memories of two
//! consecutive CTAs: CTA c's images start c·`%isa_cta_bytes` after CTA 0's (with a cluster, its
//! rank's images), so a snippet that works on another CTA's images (`clusterlaunchcontrol`
//! doing a canceled CTA's work) finds them without knowing the harness's layout.
//!
//! Control clauses (`tests/isa/control.rs`): a line `func TEXT` before the first `case` puts
//! module-level PTX (a `.func` the snippet calls) before the kernel; `; fault TEXT` expects the
//! launch to fault with a report containing TEXT (nothing else checked); `; rejects TEXT`
//! expects the module to fail to load with an error containing TEXT (a group without cases).
//!
//! A clause `; tensormap dims=D0,D1,… box=B0,B1,… swizzle=none|32|64|128 elem=u8|u16|u32|s32|
//! u64|s64|f16|f32|f64|bf16|b4x16` (b4x16: the packed 4-bit type, `CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B`) describes the case's global image as a packed row-major tensor (dimension 0
//! innermost; the image must hold it) for `cp.async.bulk.tensor` and its kin: the harness
//! encodes each case's 128-byte map with the host API's `cuTensorMapEncodeTiled`, and an input
//! of type `tmap` holds the map's global address (its value: an offset added to it, normally
//! 0). The `.shared` image is then 1024-byte aligned (the swizzle patterns' period). Optional
//! fields: `estride=E0,E1,…` (traversal strides, default 1) and `mode=im2col|w|w128` with
//! `lower=…`, `upper=…` (pixel-box corners of the spatial dimensions W, H, D; W's alone in the
//! W-only modes), `channels=N` and `pixels=N` instead of `box=`: the map is then encoded by
//! `cuTensorMapEncodeIm2col` (`im2col`) or `cuTensorMapEncodeIm2colWide` in its W or W128 mode
//! (`w`, `w128`). The map's 128 bytes are never compared (they are opaque: `tensormap.replace`
//! rows check a rewritten map through a copy that uses it).
//!
//! Clauses `; texture NAME kind=… fmt=… size=… …`, `; surface NAME …` and `; sampler NAME …`
//! (`tests/isa/texture.rs`, which lists the keys) make a texture, surface or sampler object for
//! each case with the host API, its texels the case's global image (from offset `at=`); an
//! input of type `obj` with value k holds the handle of the header's k-th such clause. With
//! `ref` the clause is a module variable NAME (`.texref`, `.surfref`, `.samplerref`) bound
//! before the launch, which the PTX names; such a group has one case.

use ptxjit::host::{Context, Engine, KernelArg, LaunchDims};

/// The engines every table runs on.
pub const ENGINES: &[Engine] = &[Engine::Jit, Engine::Interp];

#[path = "cluster.rs"]
mod cluster;
#[path = "control.rs"]
pub mod control;
#[path = "texture.rs"]
mod texture;
#[path = "tma.rs"]
mod tma;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    U(u32),
    S(u32),
    F16,
    Bf16,
    F16x2,
    Bf16x2,
    F32,
    F64,
    Pred,
    /// An 8-bit `.b8` register (`u8` tables use 16-bit registers, as most PTX does).
    B8,
    /// A `.b16`, `.b32` or `.b64` register: an unsigned value in a register of the bit-size
    /// type the table names, which ptxas takes where an instruction's operand has another
    /// kind (a `.b16` result of `cvt.rn.satfinite.e4m3x2.f32`; PTX ISA §9.4).
    B(u32),
    /// A warp group's `.u32` offset into the case's `.shared` image; the register holds its
    /// shared address.
    SPtr,
    /// A warp group's `.u64` offset into the case's global image; the register holds its
    /// global address.
    GPtr,
    /// A warp group's 64-bit shared-memory matrix descriptor whose start-address field (bits
    /// 0-13, address >> 4) holds an offset into the case's `.shared` image; the register holds
    /// the descriptor of that shared address ([`crate::warpgroup`]).
    SDesc,
    /// A warp group's `.u64` offset into the case's tensor map (`; tensormap`); the register
    /// holds the map's global address plus it.
    TMap,
    /// A warp group's `.u64` texture, sampler or surface handle: the value k names the
    /// header's k-th object clause ([`crate::texture`]), the register holds its handle.
    Obj,
}

impl Ty {
    pub fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "u8" => Ty::U(8),
            "b8" => Ty::B8,
            "u16" => Ty::U(16),
            "u32" => Ty::U(32),
            "u64" => Ty::U(64),
            "b16" => Ty::B(16),
            "b32" => Ty::B(32),
            "b64" => Ty::B(64),
            "b128" => Ty::B(128),
            "s8" => Ty::S(8),
            "s16" => Ty::S(16),
            "s32" => Ty::S(32),
            "s64" => Ty::S(64),
            "f16" => Ty::F16,
            "bf16" => Ty::Bf16,
            "f16x2" => Ty::F16x2,
            "bf16x2" => Ty::Bf16x2,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "pred" => Ty::Pred,
            "sptr" => Ty::SPtr,
            "gptr" => Ty::GPtr,
            "sdesc" => Ty::SDesc,
            "tmap" => Ty::TMap,
            "obj" => Ty::Obj,
            _ => return None,
        })
    }
    pub fn bits(self) -> u32 {
        match self {
            Ty::U(b) | Ty::S(b) | Ty::B(b) => b,
            Ty::SPtr => 32,
            Ty::GPtr | Ty::SDesc | Ty::TMap | Ty::Obj => 64,
            Ty::B8 => 8,
            Ty::F16 | Ty::Bf16 => 16,
            Ty::F16x2 | Ty::Bf16x2 | Ty::F32 => 32,
            Ty::F64 => 64,
            Ty::Pred => 1,
        }
    }
    fn mask(self) -> u64 {
        if self.bits() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }
    /// Register declaration type and memory access type.
    fn reg(self) -> (&'static str, &'static str) {
        match self {
            Ty::U(8) => ("u16", "u8"),
            Ty::B8 => ("b8", "u8"),
            Ty::S(8) => ("s16", "s8"),
            Ty::U(16) => ("u16", "u16"),
            Ty::S(16) => ("s16", "s16"),
            Ty::U(32) => ("u32", "u32"),
            Ty::S(32) => ("s32", "s32"),
            Ty::U(_) => ("u64", "u64"),
            Ty::S(_) => ("s64", "s64"),
            Ty::B(16) => ("b16", "u16"),
            Ty::B(32) => ("b32", "u32"),
            Ty::B(128) => ("b128", "b128"),
            Ty::B(_) => ("b64", "u64"),
            Ty::F16 | Ty::Bf16 => ("b16", "b16"),
            Ty::F16x2 | Ty::Bf16x2 => ("b32", "b32"),
            Ty::F32 => ("f32", "f32"),
            Ty::F64 => ("f64", "f64"),
            Ty::Pred => ("pred", "u8"),
            Ty::SPtr => ("u32", "u32"),
            Ty::GPtr | Ty::TMap | Ty::Obj => ("u64", "u64"),
            Ty::SDesc => ("b64", "u64"),
        }
    }
    fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::Bf16 | Ty::F32 | Ty::F64)
    }
    /// The value as f64 (floats only).
    pub fn to_f64(self, bits: u64) -> f64 {
        match self {
            Ty::F16 => half::f16::from_bits(bits as u16).to_f64(),
            Ty::Bf16 => half::bf16::from_bits(bits as u16).to_f64(),
            Ty::F32 => f32::from_bits(bits as u32) as f64,
            _ => f64::from_bits(bits),
        }
    }
    fn canonical_nan(self) -> u64 {
        self.mask() >> 1
    }
    fn is_nan(self, bits: u64) -> bool {
        self.is_float() && self.to_f64(bits).is_nan()
    }
    fn encode(self, x: f64) -> u64 {
        match self {
            Ty::F16 => half::f16::from_f64(x).to_bits() as u64,
            Ty::Bf16 => half::bf16::from_f64(x).to_bits() as u64,
            Ty::F32 => (x as f32).to_bits() as u64,
            _ => x.to_bits(),
        }
    }
}

#[derive(Clone, Debug)]
pub enum Expect {
    Bits(u64),
    /// A float value compared within the group's tolerance.
    Approx(f64),
    AnyNan,
    Any,
}

#[derive(Clone, Copy, Debug)]
pub enum Tol {
    Abs(f64),
    Rel(f64),
    Ulp(u64),
}

#[derive(Clone, Debug)]
pub struct Row {
    pub ins: Vec<u64>,
    pub outs: Vec<Expect>,
    /// Source line (0 for generated rows).
    pub line: usize,
}

#[derive(Clone, Debug)]
pub struct Group {
    pub ptx: String,
    pub outs: Vec<(String, Ty)>,
    pub ins: Vec<(String, Ty)>,
    pub tol: Option<Tol>,
    pub rows: Vec<Row>,
    pub line: usize,
    /// The module's `.version` (`8.8`).
    pub version: String,
    /// The module's `.target` (`sm_100`).
    pub target: String,
}

fn parse_num(s: &str) -> Option<f64> {
    if let Some(e) = s.strip_prefix("2^") {
        return e.parse::<f64>().ok().map(|e| 2f64.powf(e));
    }
    s.parse().ok()
}

fn parse_int(s: &str) -> Option<u64> {
    let (neg, t) = match s.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, s),
    };
    let v = if let Some(h) = t.strip_prefix("0x") {
        u64::from_str_radix(&h.replace('_', ""), 16).ok()?
    } else {
        t.parse::<u64>().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// Parse a value of type `ty` (input: the bits; expected: an [`Expect`]).
pub fn parse_value(s: &str, ty: Ty) -> Option<Expect> {
    match s {
        "*" => return Some(Expect::Any),
        "anynan" => return Some(Expect::AnyNan),
        _ => {}
    }
    match ty {
        Ty::U(_) | Ty::S(_) | Ty::B8 | Ty::B(_) | Ty::SPtr | Ty::GPtr | Ty::TMap | Ty::Obj => {
            parse_int(s).map(|v| Expect::Bits(v & ty.mask()))
        }
        Ty::Pred => match s {
            "0" | "false" => Some(Expect::Bits(0)),
            "1" | "true" => Some(Expect::Bits(1)),
            _ => None,
        },
        Ty::F16x2 | Ty::Bf16x2 => {
            if s.starts_with("0x") && !s.contains(',') {
                return parse_int(s).map(|v| Expect::Bits(v & ty.mask()));
            }
            let (lo, hi) = s.split_once(',')?;
            let one = if ty == Ty::F16x2 { Ty::F16 } else { Ty::Bf16 };
            let (Expect::Bits(l), Expect::Bits(h)) = (parse_value(lo, one)?, parse_value(hi, one)?)
            else {
                return None;
            };
            Some(Expect::Bits(l | h << 16))
        }
        _ => {
            if s.starts_with("0x") {
                return parse_int(s).map(|v| Expect::Bits(v & ty.mask()));
            }
            let x = match s {
                "nan" => return Some(Expect::Bits(ty.canonical_nan())),
                "inf" | "+inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                _ => s.parse::<f64>().ok()?,
            };
            // Decimal literals are exact in the tables that use them without a tolerance.
            Some(match ty {
                Ty::F32 => Expect::Bits(
                    s.parse::<f32>()
                        .map(|f| f.to_bits() as u64)
                        .unwrap_or_else(|_| ty.encode(x)),
                ),
                _ => Expect::Bits(ty.encode(x)),
            })
        }
    }
}

fn parse_sig(s: &str) -> Result<Vec<(String, Ty)>, String> {
    s.split_whitespace()
        .map(|t| {
            let (n, ty) = t
                .split_once(':')
                .ok_or_else(|| format!("'{t}' needs name:type"))?;
            let ty = Ty::parse(ty).ok_or_else(|| format!("unknown type '{ty}'"))?;
            if ty == Ty::B(128) {
                return Err(format!(
                    "'{t}': b128 is for scratch registers ('; regs') only"
                ));
            }
            Ok((n.to_string(), ty))
        })
        .collect()
}

/// A table file: its scalar groups and its warp groups.
pub struct Table {
    pub groups: Vec<Group>,
    pub warps: Vec<WarpGroup>,
}

/// Parse a table file into scalar and warp groups.
pub fn parse_file(text: &str) -> Result<Table, String> {
    let mut groups: Vec<Group> = vec![];
    let mut warps: Vec<WarpGroup> = vec![];
    // Whether the lines after the last header belong to a warp group.
    let mut in_warp = false;
    let (mut version, mut target) = ("8.8".to_string(), "sm_100".to_string());
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let l = match raw.find('#') {
            Some(i) => &raw[..i],
            None => raw,
        }
        .trim();
        if l.is_empty() {
            continue;
        }
        if let Some(v) = l.strip_prefix(".version ") {
            version = v.trim().to_string();
            continue;
        }
        if let Some(t) = l.strip_prefix(".target ") {
            target = t.trim().to_string();
            continue;
        }
        if let Some(h) = l.strip_prefix(">>>") {
            warps.push(parse_warp_header(h, line, &version, &target)?);
            in_warp = true;
            continue;
        }
        if in_warp {
            let w = warps.last_mut().expect("a warp header was read");
            parse_warp_line(w, l, line)?;
            continue;
        }
        if let Some(h) = l.strip_prefix(">>") {
            in_warp = false;
            // The last `::`: the PTX may hold some (`.scaled::n2::ue8m0`), the signature none.
            let (ptx, sig) = h
                .rsplit_once("::")
                .ok_or_else(|| format!("line {line}: header needs '::'"))?;
            let (sig, tol) = match sig.split_once('~') {
                Some((a, b)) => (a, Some(b.trim())),
                None => (sig, None),
            };
            let (outs, ins) = sig
                .split_once("<-")
                .ok_or_else(|| format!("line {line}: signature needs '<-'"))?;
            let tol = match tol {
                None => None,
                Some(t) => {
                    let (kind, v) = t
                        .split_once(' ')
                        .ok_or_else(|| format!("line {line}: tolerance 'abs|rel|ulp X'"))?;
                    let x = parse_num(v.trim())
                        .ok_or_else(|| format!("line {line}: bad tolerance '{v}'"))?;
                    Some(match kind {
                        "abs" => Tol::Abs(x),
                        "rel" => Tol::Rel(x),
                        "ulp" => Tol::Ulp(x as u64),
                        _ => return Err(format!("line {line}: tolerance kind '{kind}'")),
                    })
                }
            };
            groups.push(Group {
                ptx: ptx.trim().to_string(),
                outs: parse_sig(outs).map_err(|e| format!("line {line}: {e}"))?,
                ins: parse_sig(ins).map_err(|e| format!("line {line}: {e}"))?,
                tol,
                rows: vec![],
                line,
                version: version.clone(),
                target: target.clone(),
            });
            continue;
        }
        let g = groups
            .last_mut()
            .ok_or_else(|| format!("line {line}: row before any '>>' header"))?;
        let (ins, ov) = split_row(line, l, &g.ins, g.outs.len())?;
        let mut outs = vec![];
        for (s, (_, ty)) in ov.iter().zip(&g.outs) {
            let e = if g.tol.is_some() && ty.is_float() && !s.starts_with("0x") {
                match *s {
                    "*" => Expect::Any,
                    "anynan" | "nan" => Expect::AnyNan,
                    _ => match parse_value(s, *ty) {
                        Some(Expect::Bits(b)) if s.parse::<f64>().is_err() => Expect::Bits(b),
                        _ => Expect::Approx(
                            s.parse::<f64>()
                                .map_err(|_| format!("line {line}: bad value '{s}'"))?,
                        ),
                    },
                }
            } else {
                parse_value(s, *ty).ok_or_else(|| format!("line {line}: bad output '{s}'"))?
            };
            outs.push(e);
        }
        g.rows.push(Row { ins, outs, line });
    }
    for w in &warps {
        control::check_cases(w)?;
    }
    Ok(Table { groups, warps })
}

/// A row `inputs -> outputs` of table line `line` (scalar and warp groups alike): the inputs
/// parsed as the header's `ins` types, and the `n_outs` output words unparsed (their parsing
/// differs: tolerances and `*` in scalar groups). Errors name the line.
fn split_row<'a>(
    line: usize,
    row: &'a str,
    ins: &[(String, Ty)],
    n_outs: usize,
) -> Result<(Vec<u64>, Vec<&'a str>), String> {
    let (i, o) = row
        .split_once("->")
        .ok_or_else(|| format!("line {line}: row needs '->'"))?;
    let iv: Vec<&str> = i.split_whitespace().collect();
    let ov: Vec<&str> = o.split_whitespace().collect();
    if iv.len() != ins.len() || ov.len() != n_outs {
        return Err(format!(
            "line {line}: expected {} inputs and {n_outs} outputs",
            ins.len()
        ));
    }
    let mut bits = vec![];
    for (s, (_, ty)) in iv.iter().zip(ins) {
        match parse_value(s, *ty) {
            Some(Expect::Bits(b)) => bits.push(b),
            _ => return Err(format!("line {line}: bad input '{s}'")),
        }
    }
    Ok((bits, ov))
}

/// Prefix the table's register names with `%` in one statement: every word of `names` gets
/// one (a guard's predicate after its `@` or `@!` too) but the opcode and a word after `.`,
/// `%` or `::`, which is a modifier or a part of one (`.shared::cta`, `.kind::f8f6f4`,
/// `.sp::ordered_metadata`) or a special register, never a register.
pub fn registers(stmt: &str, names: &[&str]) -> String {
    let mut out = String::new();
    let mut word = String::new();
    // The two characters before the current one.
    let (mut prev, mut prev2) = (' ', ' ');
    let mut seen_opcode = false;
    let flush = |word: &mut String, before: [char; 2], out: &mut String, seen: &mut bool| {
        if word.is_empty() {
            return;
        }
        let modifier = before[0] == '.' || before[0] == '%' || before == [':', ':'];
        // A word after `@` or `@!` is a guard predicate, never the opcode.
        let is_opcode = !*seen && !modifier && before[0] != '@' && before[0] != '!';
        if is_opcode {
            *seen = true;
        } else if !modifier && names.contains(&word.as_str()) {
            out.push('%');
        }
        out.push_str(word);
        word.clear();
    };
    let mut before = [' ', ' '];
    for ch in stmt.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' || ch == '$' {
            if word.is_empty() {
                before = [prev, prev2];
            }
            word.push(ch);
        } else {
            flush(&mut word, before, &mut out, &mut seen_opcode);
            out.push(ch);
        }
        prev2 = prev;
        prev = ch;
    }
    flush(&mut word, before, &mut out, &mut seen_opcode);
    out
}

/// How a group's rows map onto threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// One thread per row: operands differ between the lanes of a warp (the SIMD code).
    PerThread,
    /// One single-thread CTA per row, the row indexed by `%ctaid.x`: every operand is
    /// warp-uniform, loaded from global memory.
    Uniform,
    /// As `Uniform`, the operands loaded from a `.const` variable: a uniform value read from
    /// read-only memory, which an engine may compute once per warp.
    UniformConst,
}

/// The bytes of `.const` data a module may declare (the constant bank).
const CONST_BANK_BYTES: usize = 64 * 1024;

/// Every spread a table runs under.
pub const SPREADS: &[Spread] = &[Spread::PerThread, Spread::Uniform, Spread::UniformConst];

/// The kernel for a group.
pub fn kernel_ptx(g: &Group, spread: Spread) -> String {
    // By default sm_100 and PTX ISA 8.8: the mixed-precision forms (`add.f32.f16`, §9.7.5)
    // need them.
    let mut s = format!(
        ".version {}\n.target {}\n.address_size 64\n",
        g.version, g.target
    );
    if spread == Spread::UniformConst {
        let bytes = g.rows.len().max(1) * 8 * g.ins.len().max(1);
        s += &format!(".const .align 8 .b8 isa_rows[{bytes}];\n");
    }
    s += ".visible .entry isa_case(.param .u64 pin, .param .u64 pout, .param .u32 pn)\n{\n\
         .reg .pred %isa_p;\n.reg .u16 %isa_h;\n.reg .u32 %isa_tid, %isa_n, %isa_t;\n\
         .reg .u64 %isa_in, %isa_out, %isa_off, %isa_a;\n";
    let mut declared = std::collections::HashSet::new();
    for (n, t) in g.outs.iter().chain(&g.ins) {
        if declared.insert(n.clone()) {
            s += &format!(".reg .{} %{n};\n", t.reg().0);
        }
    }
    s += "ld.param.u64 %isa_in, [pin];\nld.param.u64 %isa_out, [pout];\nld.param.u32 %isa_n, [pn];\n";
    let space = if spread == Spread::UniformConst {
        s += "mov.u64 %isa_in, isa_rows;\n";
        "const"
    } else {
        "global"
    };
    s += "mov.u32 %isa_tid, %ctaid.x;\n";
    if spread == Spread::PerThread {
        s += "mov.u32 %isa_t, %ntid.x;\nmul.lo.u32 %isa_tid, %isa_tid, %isa_t;\n";
        s += "mov.u32 %isa_t, %tid.x;\nadd.u32 %isa_tid, %isa_tid, %isa_t;\n";
    }
    s += "setp.ge.u32 %isa_p, %isa_tid, %isa_n;\n@%isa_p bra ISA_DONE;\n";
    s += &format!(
        "mul.wide.u32 %isa_off, %isa_tid, {};\nadd.u64 %isa_a, %isa_in, %isa_off;\n",
        8 * g.ins.len().max(1)
    );
    for (k, (n, t)) in g.ins.iter().enumerate() {
        if *t == Ty::Pred {
            s += &format!(
                "ld.{space}.u8 %isa_h, [%isa_a+{}];\nsetp.ne.u16 %{n}, %isa_h, 0;\n",
                8 * k
            );
        } else {
            s += &format!("ld.{space}.{} %{n}, [%isa_a+{}];\n", t.reg().1, 8 * k);
        }
    }
    let names: Vec<&str> = g
        .outs
        .iter()
        .chain(&g.ins)
        .map(|(n, _)| n.as_str())
        .collect();
    for stmt in g.ptx.split(';') {
        let stmt = stmt.trim();
        if !stmt.is_empty() {
            s += &registers(stmt, &names);
            s += ";\n";
        }
    }
    s += &format!(
        "mul.wide.u32 %isa_off, %isa_tid, {};\nadd.u64 %isa_a, %isa_out, %isa_off;\n",
        8 * g.outs.len().max(1)
    );
    for (k, (n, t)) in g.outs.iter().enumerate() {
        if *t == Ty::Pred {
            s += &format!(
                "selp.u16 %isa_h, 1, 0, %{n};\nst.global.u8 [%isa_a+{}], %isa_h;\n",
                8 * k
            );
        } else {
            s += &format!("st.global.{} [%isa_a+{}], %{n};\n", t.reg().1, 8 * k);
        }
    }
    s += "ISA_DONE:\nret;\n}\n";
    s
}

fn ulp_distance(ty: Ty, a: u64, b: u64) -> u64 {
    // Map sign-magnitude to a monotone integer line.
    let bits = ty.bits();
    let key = |x: u64| -> i128 {
        let sign = 1u64 << (bits - 1);
        if x & sign != 0 {
            -((x & !sign) as i128)
        } else {
            x as i128
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

fn check(ty: Ty, got: u64, e: &Expect, tol: Option<Tol>) -> bool {
    let got = got & ty.mask();
    match e {
        Expect::Any => true,
        Expect::AnyNan => ty.is_nan(got),
        Expect::Bits(b) => match (tol, ty.is_float()) {
            (Some(Tol::Ulp(n)), true) if !ty.is_nan(*b) => ulp_distance(ty, got, *b) <= n,
            _ => got == *b,
        },
        Expect::Approx(x) => {
            let g = ty.to_f64(got);
            if x.is_nan() {
                return g.is_nan();
            }
            if x.is_infinite() || g.is_infinite() {
                return g == *x;
            }
            match tol {
                Some(Tol::Abs(t)) => (g - x).abs() <= t,
                Some(Tol::Rel(t)) => (g - x).abs() <= t * x.abs(),
                Some(Tol::Ulp(n)) => ulp_distance(ty, got, ty.encode(*x)) <= n,
                None => got == ty.encode(*x),
            }
        }
    }
}

fn show(ty: Ty, bits: u64) -> String {
    if ty.is_float() {
        format!("{:#x} ({:e})", bits, ty.to_f64(bits))
    } else {
        format!("{bits:#x}")
    }
}

/// Run one group on one engine under one spread; returns failure descriptions (at most
/// `limit`).
pub fn run_group(g: &Group, engine: Engine, spread: Spread, limit: usize) -> Result<(), String> {
    if g.rows.is_empty() {
        return Ok(());
    }
    // A module's `.const` data is at most the 64 KiB constant bank (ptxas refuses more, and so
    // does ptxjit): a larger table runs under `UniformConst` in chunks of rows that fit.
    let per_launch = CONST_BANK_BYTES / (8 * g.ins.len().max(1));
    if spread == Spread::UniformConst && g.rows.len() > per_launch {
        let parts = g.rows.chunks(per_launch).map(|rows| {
            let part = Group {
                rows: rows.to_vec(),
                ptx: g.ptx.clone(),
                outs: g.outs.clone(),
                ins: g.ins.clone(),
                tol: g.tol,
                line: g.line,
                version: g.version.clone(),
                target: g.target.clone(),
            };
            run_group(&part, engine, spread, limit)
        });
        return join_errors(parts, "\n");
    }
    let ptx = kernel_ptx(g, spread);
    let mut ctx = Context::new();
    let m = ctx
        .load_module(&ptx, "isa_case.ptx", engine)
        .map_err(|e| format!("`{}`: {e}\n{ptx}", g.ptx))?;
    let k = m.kernel("isa_case").map_err(|e| e.to_string())?;
    let n = g.rows.len();
    let (ni, no) = (g.ins.len().max(1), g.outs.len().max(1));
    let mut inb = vec![0u8; n * ni * 8];
    for (r, row) in g.rows.iter().enumerate() {
        for (k, v) in row.ins.iter().enumerate() {
            let o = (r * ni + k) * 8;
            inb[o..o + 8].copy_from_slice(&v.to_le_bytes());
        }
    }
    let din = ctx
        .alloc(inb.len() as u64, Some("in"))
        .map_err(|e| e.to_string())?;
    let dout = ctx
        .alloc((n * no * 8) as u64, Some("out"))
        .map_err(|e| e.to_string())?;
    ctx.copy_htod(din, &inb).map_err(|e| e.to_string())?;
    if spread == Spread::UniformConst {
        let (rows, _) = m.global("isa_rows").ok_or("no isa_rows variable")?;
        ctx.copy_htod(rows, &inb).map_err(|e| e.to_string())?;
    }
    let block = match spread {
        Spread::PerThread => 128u32,
        Spread::Uniform | Spread::UniformConst => 1,
    };
    let dims = LaunchDims {
        grid: [(n as u32).div_ceil(block), 1, 1],
        block: [block, 1, 1],
        shared_bytes: 0,
    };
    ctx.launch(
        &k,
        dims,
        &[
            KernelArg::Ptr(din),
            KernelArg::Ptr(dout),
            KernelArg::U32(n as u32),
        ],
        &Default::default(),
    )
    .map_err(|e| format!("`{}` on {engine} ({spread:?}): {e}", g.ptx))?;
    let mut outb = vec![0u8; n * no * 8];
    ctx.copy_dtoh(&mut outb, dout).map_err(|e| e.to_string())?;
    let mut fails = Failures::new(limit);
    for (r, row) in g.rows.iter().enumerate() {
        for (k, ((name, ty), e)) in g.outs.iter().zip(&row.outs).enumerate() {
            let o = (r * no + k) * 8;
            let mut w = [0u8; 8];
            w.copy_from_slice(&outb[o..o + 8]);
            let got = u64::from_le_bytes(w) & ty.mask();
            if !check(*ty, got, e, g.tol) {
                fails.push(|| {
                    let ins: Vec<String> = row
                        .ins
                        .iter()
                        .zip(&g.ins)
                        .map(|(v, (n, t))| format!("{n}={}", show(*t, *v)))
                        .collect();
                    format!(
                        "  line {}: {} → {name} = {} (expected {})",
                        row.line,
                        ins.join(" "),
                        show(*ty, got),
                        wanted(*ty, e)
                    )
                });
            }
        }
    }
    fails.finish(|| {
        format!(
            "`{}` on {engine} ({spread:?}, table line {})",
            g.ptx, g.line
        )
    })
}

/// The expected value of a failed check, as a failure line shows it.
fn wanted(ty: Ty, e: &Expect) -> String {
    match e {
        Expect::Bits(b) => show(ty, *b),
        other => format!("{other:?}"),
    }
}

/// The wrong results of one run: every one counted, the first `limit` described.
struct Failures {
    count: usize,
    lines: Vec<String>,
    limit: usize,
}

impl Failures {
    fn new(limit: usize) -> Failures {
        Failures {
            count: 0,
            lines: vec![],
            limit,
        }
    }

    /// Count one wrong result; `line` describes it (called only while under the limit).
    fn push(&mut self, line: impl FnOnce() -> String) {
        self.count += 1;
        if self.lines.len() < self.limit {
            self.lines.push(line());
        }
    }

    /// `Ok` when nothing failed, else `heading` (the run: its PTX, engine and table line),
    /// the count and the described failures.
    fn finish(self, heading: impl FnOnce() -> String) -> Result<(), String> {
        if self.count == 0 {
            return Ok(());
        }
        Err(format!(
            "{}: {} wrong results\n{}",
            heading(),
            self.count,
            self.lines.join("\n")
        ))
    }
}

/// `Ok` when every run passed, else their errors joined by `sep`.
fn join_errors(
    runs: impl IntoIterator<Item = Result<(), String>>,
    sep: &str,
) -> Result<(), String> {
    let errs: Vec<String> = runs.into_iter().filter_map(Result::err).collect();
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join(sep))
    }
}

/// Run every group on every engine.
pub fn run_groups(groups: &[Group]) -> Result<(), String> {
    let runs = groups.iter().flat_map(|g| {
        ENGINES.iter().flat_map(move |&e| {
            SPREADS
                .iter()
                .map(move |&spread| run_group(g, e, spread, 12))
        })
    });
    join_errors(runs, "\n\n")
}

/// The memory a warp group's cases start from and are checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Shared,
    Global,
}

/// One lane's row of a warp case.
#[derive(Clone, Debug)]
pub struct LaneRow {
    pub ins: Vec<u64>,
    pub outs: Vec<Expect>,
    pub line: usize,
}

/// One case of a warp group: one warp's lanes, and its memory image before and after.
#[derive(Clone, Debug)]
pub struct WarpCase {
    /// The `case` line.
    pub line: usize,
    /// Each lane's row; `None`: the lane does not execute the PTX.
    pub lanes: Vec<Option<LaneRow>>,
    /// The memory image before the PTX runs: the `.shared` image, then the global one
    /// ([`WarpGroup::image_base`]).
    pub init: Vec<u8>,
    /// The memory image expected afterwards.
    pub expect: Vec<u8>,
    /// For each 32-bit word of the image, the `expect` line that gave it (0: none, the word
    /// must keep its initial value).
    pub expect_line: Vec<usize>,
    /// The words an `expect` line gave as `*` (not checked: an `mbarrier`'s opaque state).
    pub unchecked: Vec<bool>,
}

/// A warp-wide group: a `>>>` header and its cases.
#[derive(Clone, Debug)]
pub struct WarpGroup {
    pub ptx: String,
    pub outs: Vec<(String, Ty)>,
    pub ins: Vec<(String, Ty)>,
    /// Registers the PTX uses besides the inputs and outputs (`; regs a[8]:b32 p:pred`: `a0`…
    /// `a7` and `p`), declared and neither loaded nor stored.
    pub scratch: Vec<(String, Ty)>,
    /// The bytes of the `.shared` image (0: none; a multiple of 4).
    pub shared: usize,
    /// The bytes of the global image (0: none; a multiple of 4).
    pub global: usize,
    /// The CTAs of a case's cluster (`; cluster N`; 1: a plain launch). A case's lanes and
    /// images are its ranks' one after another.
    pub cluster: usize,
    /// The tensor map of each case (`; tensormap …`), after its images.
    pub tensormap: Option<tma::MapSpec>,
    pub cases: Vec<WarpCase>,
    pub line: usize,
    pub version: String,
    pub target: String,
    /// Warps in each case's CTA (`; warps N`, default 1); lane rows are numbered 0..32·N.
    pub warps: usize,
    /// Textures, samplers and surfaces over each case's global image (`; texture …`).
    pub objects: Vec<texture::ObjSpec>,
    /// Module-level PTX before the kernel (`func` lines: [`control`]).
    pub funcs: Vec<String>,
    /// What the launch must do (`; fault TEXT`, `; rejects TEXT`: [`control`]).
    pub outcome: control::Outcome,
}

fn parse_warp_header(
    h: &str,
    line: usize,
    version: &str,
    target: &str,
) -> Result<WarpGroup, String> {
    let (ptx, sig) = h
        .rsplit_once("::")
        .ok_or_else(|| format!("line {line}: header needs '::'"))?;
    let mut clauses = sig.split(';');
    let sig = clauses.next().unwrap_or_default();
    let (mut shared, mut global) = (0, 0);
    let mut scratch = vec![];
    let mut warps = 1;
    let mut cluster = 1;
    let mut tensormap = None;
    let mut objects = vec![];
    let mut outcome = control::Outcome::Runs;
    for m in clauses.map(str::trim) {
        if let Some(o) = texture::clause(m, line)? {
            objects.push(o);
            continue;
        }
        if let Some(o) = control::outcome_clause(m, line)? {
            outcome = o;
            continue;
        }
        if let Some(n) = crate::warpgroup::warps_clause(m, line)? {
            warps = n;
            continue;
        }
        if let Some(spec) = m.strip_prefix("tensormap ") {
            tensormap = Some(tma::parse(spec).map_err(|e| format!("line {line}: {e}"))?);
            continue;
        }
        if let Some(n) = m.strip_prefix("cluster ") {
            cluster = cluster::size(n).ok_or_else(|| {
                format!(
                    "line {line}: cluster size '{n}' (1 to {} CTAs)",
                    cluster::MAX
                )
            })?;
            continue;
        }
        if let Some(regs) = m.strip_prefix("regs ") {
            for r in regs.split_whitespace() {
                let (name, ty) = r.split_once(':').ok_or_else(|| {
                    format!("line {line}: scratch register '{r}' needs name:type")
                })?;
                let ty =
                    Ty::parse(ty).ok_or_else(|| format!("line {line}: unknown type '{ty}'"))?;
                match name.strip_suffix(']').and_then(|n| n.split_once('[')) {
                    Some((base, count)) => {
                        let count: usize = count
                            .parse()
                            .map_err(|_| format!("line {line}: bad register count in '{r}'"))?;
                        scratch.extend((0..count).map(|k| (format!("{base}{k}"), ty)));
                    }
                    None => scratch.push((name.to_string(), ty)),
                }
            }
            continue;
        }
        let (space, bytes) = m
            .split_once(' ')
            .ok_or_else(|| format!("line {line}: memory 'shared N' or 'global N'"))?;
        let size = match space {
            "shared" => &mut shared,
            "global" => &mut global,
            _ => return Err(format!("line {line}: memory space '{space}'")),
        };
        if *size != 0 {
            return Err(format!("line {line}: two {space} images"));
        }
        *size = parse_int(bytes.trim())
            .filter(|n| *n > 0 && n % 4 == 0)
            .ok_or_else(|| format!("line {line}: memory bytes '{bytes}' (a multiple of 4)"))?
            as usize;
    }
    let (outs, ins) = sig
        .split_once("<-")
        .ok_or_else(|| format!("line {line}: signature needs '<-'"))?;
    let outs = parse_sig(outs).map_err(|e| format!("line {line}: {e}"))?;
    let ins = parse_sig(ins).map_err(|e| format!("line {line}: {e}"))?;
    for (n, t) in &ins {
        let missing = match t {
            Ty::SPtr | Ty::SDesc => shared == 0,
            Ty::GPtr => global == 0,
            Ty::TMap => tensormap.is_none(),
            Ty::Obj => objects.is_empty(),
            _ => false,
        };
        if missing {
            return Err(format!(
                "line {line}: '{n}' points into memory the header does not declare"
            ));
        }
    }
    if let Some(t) = &tensormap {
        if t.tensor_bytes() > global as u64 {
            return Err(format!(
                "line {line}: the tensor map's {} bytes do not fit the global image",
                t.tensor_bytes()
            ));
        }
    }
    texture::check(&objects, global, line)?;
    Ok(WarpGroup {
        ptx: ptx.trim().to_string(),
        outs,
        ins,
        scratch,
        shared,
        global,
        cluster,
        tensormap,
        cases: vec![],
        line,
        version: version.to_string(),
        target: target.to_string(),
        warps,
        objects,
        funcs: vec![],
        outcome,
    })
}

/// `OFFSET: words` (a word `*`: unchecked, as `None`).
fn parse_words(s: &str, line: usize) -> Result<(usize, Vec<Option<u32>>), String> {
    let (off, words) = s
        .split_once(':')
        .ok_or_else(|| format!("line {line}: 'OFFSET: words'"))?;
    let off = parse_int(off.trim()).ok_or_else(|| format!("line {line}: bad offset '{off}'"))?;
    if off % 4 != 0 {
        return Err(format!(
            "line {line}: offset {off:#x} is not a multiple of 4"
        ));
    }
    let words = words
        .split_whitespace()
        .map(|w| {
            if w == "*" {
                return Ok(None);
            }
            parse_int(w)
                .filter(|v| *v <= u32::MAX as u64)
                .map(|v| Some(v as u32))
                .ok_or_else(|| format!("line {line}: bad word '{w}'"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((off as usize, words))
}

impl WarpGroup {
    /// Where each image starts in a case's memory (`.shared` at 0, the global one 128-byte
    /// aligned after it), and the bytes a case's memory takes (a multiple of 128).
    pub fn image_base(&self, space: Space) -> usize {
        match space {
            Space::Shared => 0,
            Space::Global => self.shared.next_multiple_of(128),
        }
    }

    /// The bytes of one case's memory: both images, each 128-byte aligned, then its tensor
    /// map if it has one.
    pub fn case_bytes(&self) -> usize {
        self.map_base() + self.tensormap.as_ref().map_or(0, |_| tma::MAP_BYTES)
    }

    /// Where a case's tensor map starts in its memory (after both images).
    pub fn map_base(&self) -> usize {
        self.shared.next_multiple_of(128) + self.global.next_multiple_of(128)
    }

    /// The image and offset a byte of a case's memory belongs to.
    fn locate(&self, at: usize) -> (&'static str, usize) {
        let g = self.image_base(Space::Global);
        if at < g {
            ("shared", at)
        } else {
            ("global", at - g)
        }
    }
}

fn parse_warp_line(w: &mut WarpGroup, l: &str, line: usize) -> Result<(), String> {
    let bytes = w.case_bytes() * w.cluster;
    if let Some(f) = control::func_line(l) {
        if !w.cases.is_empty() {
            return Err(format!("line {line}: 'func' after a 'case'"));
        }
        w.funcs.push(f.to_string());
        return Ok(());
    }
    if l == "case" || l.starts_with("case ") {
        w.cases.push(WarpCase {
            line,
            lanes: vec![None; 32 * w.warps * w.cluster],
            init: vec![0; bytes],
            expect: vec![0; bytes],
            expect_line: vec![0; bytes / 4],
            unchecked: vec![false; bytes / 4],
        });
        return Ok(());
    }
    if w.cases.is_empty() {
        return Err(format!("line {line}: row before any 'case'"));
    }
    for (key, is_init) in [("init ", true), ("expect ", false)] {
        if let Some(rest) = l.strip_prefix(key) {
            let (rank, rest) = cluster::rank_prefix(rest, w.cluster, line)?;
            // `init [shared|global] OFF: words`: the space may be left out with one image.
            let (space, rest) = match rest.split_once(' ') {
                Some(("shared", r)) => (Some(Space::Shared), r),
                Some(("global", r)) => (Some(Space::Global), r),
                _ => (None, rest),
            };
            let space = match (space, w.shared, w.global) {
                (Some(s), _, _) => s,
                (None, _, 0) => Space::Shared,
                (None, 0, _) => Space::Global,
                (None, _, _) => {
                    return Err(format!("line {line}: two images: say 'shared' or 'global'"))
                }
            };
            let size = match space {
                Space::Shared => w.shared,
                Space::Global => w.global,
            };
            let (off, words) = parse_words(rest, line)?;
            if off + 4 * words.len() > size {
                return Err(format!("line {line}: words past the {size}-byte image"));
            }
            let base = w.image_base(space) + rank * w.case_bytes();
            let c = w.cases.last_mut().expect("a case was checked above");
            for (k, v) in words.iter().enumerate() {
                let o = base + off + 4 * k;
                let Some(v) = v else {
                    if is_init {
                        return Err(format!("line {line}: '*' in an init line"));
                    }
                    c.unchecked[o / 4] = true;
                    c.expect_line[o / 4] = line;
                    continue;
                };
                if is_init {
                    c.init[o..o + 4].copy_from_slice(&v.to_le_bytes());
                }
                if !is_init || c.expect_line[o / 4] == 0 {
                    c.expect[o..o + 4].copy_from_slice(&v.to_le_bytes());
                }
                if !is_init {
                    c.expect_line[o / 4] = line;
                }
            }
            return Ok(());
        }
    }
    let (lane, row) = l
        .split_once(':')
        .ok_or_else(|| format!("line {line}: lane row 'L: inputs -> outputs'"))?;
    let lane = if w.cluster > 1 {
        cluster::lane_index(lane.trim(), w.cluster, 32 * w.warps)
    } else {
        lane.trim()
            .parse::<usize>()
            .ok()
            .filter(|l| *l < 32 * w.warps)
    }
    .ok_or_else(|| format!("line {line}: bad lane '{lane}'"))?;
    let (ins, ov) = split_row(line, row, &w.ins, w.outs.len())?;
    let mut outs = vec![];
    for (s, (_, ty)) in ov.iter().zip(&w.outs) {
        outs.push(parse_value(s, *ty).ok_or_else(|| format!("line {line}: bad output '{s}'"))?);
    }
    let c = w.cases.last_mut().expect("a case was checked above");
    if c.lanes[lane..].iter().any(Option::is_some) {
        return Err(format!("line {line}: lane {lane} after a later lane"));
    }
    c.lanes[lane] = Some(LaneRow { ins, outs, line });
    Ok(())
}

/// The one-warp kernel of a warp group: CTA c runs case c. Each lane reads its row (an
/// active flag, then its inputs), copies its share of a `.shared` image in, runs the PTX when
/// active, stores its outputs, and copies the image back out.
pub fn warp_kernel_ptx(w: &WarpGroup) -> String {
    let (ni, no) = (w.ins.len() + 1, w.outs.len().max(1));
    let mut s = format!(
        ".version {}\n.target {}\n.address_size 64\n",
        w.version, w.target
    );
    if w.shared > 0 {
        let align = if w.tensormap.is_some() {
            1024
        } else {
            crate::warpgroup::shared_align(w)
        };
        s += &format!(".shared .align {align} .b8 isa_smem[{}];\n", w.shared);
    }
    s += &texture::declarations(&w.objects);
    s += &control::funcs_ptx(w);
    s += ".visible .entry isa_warp(.param .u64 pin, .param .u64 pout, .param .u64 pmem)\n{\n\
         .reg .pred %isa_p, %isa_skip;\n.reg .u16 %isa_h;\n\
         .reg .u32 %isa_lane, %isa_row, %isa_i, %isa_w, %isa_s, %isa_t;\n\
         .reg .u64 %isa_in, %isa_out, %isa_mem, %isa_a, %isa_off;\n";
    let mut declared = std::collections::HashSet::new();
    for (n, t) in w.outs.iter().chain(&w.ins).chain(&w.scratch) {
        if declared.insert(n.clone()) {
            s += &format!(".reg .{} %{n};\n", t.reg().0);
        }
    }
    s += "ld.param.u64 %isa_in, [pin];\nld.param.u64 %isa_out, [pout];\nld.param.u64 %isa_mem, [pmem];\n";
    s += &format!(
        ".reg .u32 %isa_cta_bytes;\nmov.u32 %isa_cta_bytes, {};\n",
        w.case_bytes()
    );
    s += "mov.u32 %isa_lane, %tid.x;\nmov.u32 %isa_row, %ctaid.x;\n";
    s += &format!(
        "mul.lo.u32 %isa_row, %isa_row, {};\nadd.u32 %isa_row, %isa_row, %isa_lane;\n",
        32 * w.warps
    );
    s += &format!(
        "mul.wide.u32 %isa_off, %isa_row, {};\nadd.u64 %isa_a, %isa_in, %isa_off;\n",
        8 * ni
    );
    s += "ld.global.u8 %isa_h, [%isa_a];\nsetp.eq.u16 %isa_skip, %isa_h, 0;\n";
    for (k, (n, t)) in w.ins.iter().enumerate() {
        let at = 8 * (k + 1);
        if *t == Ty::Pred {
            s += &format!("ld.global.u8 %isa_h, [%isa_a+{at}];\nsetp.ne.u16 %{n}, %isa_h, 0;\n");
        } else {
            s += &format!("ld.global.{} %{n}, [%isa_a+{at}];\n", t.reg().1);
        }
    }
    if w.shared + w.global > 0 {
        s += &format!(
            "mov.u32 %isa_s, %ctaid.x;\nmul.wide.u32 %isa_off, %isa_s, {};\nadd.u64 %isa_mem, %isa_mem, %isa_off;\n",
            w.case_bytes()
        );
        if w.shared > 0 {
            s += "mov.u32 %isa_s, isa_smem;\n";
            s += &copy_loop("IN", w.shared, true, w.warps);
            s += "bar.sync 0;\n";
        }
        s += cluster::barrier(w.cluster);
        let global = w.image_base(Space::Global);
        for (name, t) in &w.ins {
            match t {
                Ty::SPtr => s += &format!("add.u32 %{name}, %{name}, %isa_s;\n"),
                Ty::SDesc => s += &crate::warpgroup::desc_fixup(name),
                Ty::GPtr => {
                    s += &format!(
                        "add.u64 %{name}, %{name}, %isa_mem;\nadd.u64 %{name}, %{name}, {global};\n"
                    )
                }
                Ty::TMap => {
                    s += &format!(
                        "add.u64 %{name}, %{name}, %isa_mem;\nadd.u64 %{name}, %{name}, {};\n",
                        w.map_base()
                    )
                }
                _ => {}
            }
        }
    }
    s += "@%isa_skip bra ISA_SKIP;\n";
    let names: Vec<&str> = w
        .outs
        .iter()
        .chain(&w.ins)
        .chain(&w.scratch)
        .map(|(n, _)| n.as_str())
        .collect();
    for stmt in w.ptx.split(';') {
        let stmt = stmt.trim();
        if !stmt.is_empty() {
            s += &registers(stmt, &names);
            s += ";\n";
        }
    }
    s += &format!(
        "mul.wide.u32 %isa_off, %isa_row, {};\nadd.u64 %isa_a, %isa_out, %isa_off;\n",
        8 * no
    );
    for (k, (n, t)) in w.outs.iter().enumerate() {
        if *t == Ty::Pred {
            s += &format!(
                "selp.u16 %isa_h, 1, 0, %{n};\nst.global.u8 [%isa_a+{}], %isa_h;\n",
                8 * k
            );
        } else {
            s += &format!("st.global.{} [%isa_a+{}], %{n};\n", t.reg().1, 8 * k);
        }
    }
    s += "ISA_SKIP:\n";
    s += cluster::barrier(w.cluster);
    if w.shared > 0 {
        let n = w.shared;
        s += "bar.sync 0;\n";
        s += &copy_loop("OUT", n, false, w.warps);
    }
    s += "ret;\n}\n";
    s
}

/// A loop copying an `n`-byte image between the case's global region (`%isa_mem`) and the
/// `.shared` array (`%isa_s`), one word a thread of the `warps`-warp CTA per step.
fn copy_loop(tag: &str, n: usize, to_shared: bool, warps: usize) -> String {
    let mut s = format!("shl.b32 %isa_i, %isa_lane, 2;\nISA_{tag}_LOOP:\n");
    s += &format!("setp.ge.u32 %isa_p, %isa_i, {n};\n@%isa_p bra ISA_{tag}_DONE;\n");
    s += "cvt.u64.u32 %isa_off, %isa_i;\nadd.u64 %isa_a, %isa_mem, %isa_off;\nadd.u32 %isa_t, %isa_s, %isa_i;\n";
    if to_shared {
        s += "ld.global.u32 %isa_w, [%isa_a];\nst.shared.u32 [%isa_t], %isa_w;\n";
    } else {
        s += "ld.shared.u32 %isa_w, [%isa_t];\nst.global.u32 [%isa_a], %isa_w;\n";
    }
    s += &format!(
        "add.u32 %isa_i, %isa_i, {};\nbra ISA_{tag}_LOOP;\nISA_{tag}_DONE:\n",
        128 * warps
    );
    s
}

/// Run one warp group on one engine; returns failure descriptions (at most `limit`).
///
/// With `ISA_PTX_DIR` set, the kernel is also written there (`warp_LINE.ptx`, LINE the header's
/// table line), for checking the tables' PTX with ptxas.
pub fn run_warp_group(w: &WarpGroup, engine: Engine, limit: usize) -> Result<(), String> {
    let ptx = warp_kernel_ptx(w);
    if let Some(dir) = std::env::var_os("ISA_PTX_DIR") {
        let path = std::path::Path::new(&dir).join(format!("warp_{}.ptx", w.line));
        std::fs::write(&path, &ptx).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let mut ctx = Context::new();
    let loaded = ctx.load_module(&ptx, "isa_warp.ptx", engine);
    if control::check_load(w, &loaded, engine)? {
        return Ok(());
    }
    let m = loaded.map_err(|e| format!("`{}` (table line {}): {e}\n{ptx}", w.ptx, w.line))?;
    let k = m.kernel("isa_warp").map_err(|e| e.to_string())?;
    // CTA c·N + r runs rank r of case c (N = the cluster size): its rows and image are the
    // case's rank r ones.
    let n = w.cases.len() * w.cluster;
    let (ni, no) = (w.ins.len() + 1, w.outs.len().max(1));
    let bytes = w.case_bytes().max(4) * w.cluster;
    let lanes = 32 * w.warps;
    let mut inb = vec![0u8; n * lanes * ni * 8];
    let mut memb = vec![0u8; w.cases.len() * bytes];
    for (c, case) in w.cases.iter().enumerate() {
        for (lane, row) in case.lanes.iter().enumerate() {
            let Some(row) = row else { continue };
            let o = (c * case.lanes.len() + lane) * ni * 8;
            inb[o] = 1;
            for (k, v) in row.ins.iter().enumerate() {
                let o = o + 8 * (k + 1);
                inb[o..o + 8].copy_from_slice(&v.to_le_bytes());
            }
        }
        if w.case_bytes() > 0 {
            memb[c * bytes..(c + 1) * bytes].copy_from_slice(&case.init);
        }
    }
    let din = ctx
        .alloc(inb.len() as u64, Some("in"))
        .map_err(|e| e.to_string())?;
    let dout = ctx
        .alloc((n * lanes * no * 8) as u64, Some("out"))
        .map_err(|e| e.to_string())?;
    let dmem = ctx
        .alloc(memb.len() as u64, Some("mem"))
        .map_err(|e| e.to_string())?;
    ctx.copy_htod(din, &inb).map_err(|e| e.to_string())?;
    if let Some(spec) = &w.tensormap {
        // Each case's map, of its global image at its device address.
        for c in 0..w.cases.len() {
            let at = c * bytes + w.map_base();
            let tensor = dmem.0 + (c * bytes + w.image_base(Space::Global)) as u64;
            let map = spec
                .encode(tensor)
                .map_err(|e| format!("table line {}: {e}", w.line))?;
            memb[at..at + tma::MAP_BYTES].copy_from_slice(&map);
        }
    }
    ctx.copy_htod(dmem, &memb).map_err(|e| e.to_string())?;
    if !w.objects.is_empty() {
        // Each case's objects over its global image; `obj` inputs get their handles.
        let images: Vec<u64> = (0..w.cases.len())
            .map(|c| dmem.0 + (c * bytes + w.image_base(Space::Global)) as u64)
            .collect();
        let objs: Vec<usize> = (0..w.ins.len())
            .filter(|&k| w.ins[k].1 == Ty::Obj)
            .collect();
        let rows: Vec<Vec<Option<usize>>> = w
            .cases
            .iter()
            .enumerate()
            .map(|(c, case)| {
                (0..case.lanes.len())
                    .map(|l| {
                        case.lanes[l]
                            .as_ref()
                            .map(|_| (c * case.lanes.len() + l) * ni * 8 + 8)
                    })
                    .collect()
            })
            .collect();
        texture::bind(&mut ctx, &m, &w.objects, &images, &objs, &rows, &mut inb)
            .map_err(|e| format!("table line {}: {e}", w.line))?;
        ctx.copy_htod(din, &inb).map_err(|e| e.to_string())?;
    }
    let dims = LaunchDims {
        grid: [n as u32, 1, 1],
        block: [lanes as u32, 1, 1],
        shared_bytes: 0,
    };
    let launched = ctx.launch(
        &k,
        dims,
        &[
            KernelArg::Ptr(din),
            KernelArg::Ptr(dout),
            KernelArg::Ptr(dmem),
        ],
        &cluster::launch_options(w.cluster),
    );
    if control::check_launch(w, launched, engine)? {
        return Ok(());
    }
    let mut outb = vec![0u8; n * lanes * no * 8];
    ctx.copy_dtoh(&mut outb, dout).map_err(|e| e.to_string())?;
    ctx.copy_dtoh(&mut memb, dmem).map_err(|e| e.to_string())?;
    let mut fails = Failures::new(limit);
    for (c, case) in w.cases.iter().enumerate() {
        for (lane, row) in case.lanes.iter().enumerate() {
            let Some(row) = row else { continue };
            for (k, ((name, ty), e)) in w.outs.iter().zip(&row.outs).enumerate() {
                let o = ((c * case.lanes.len() + lane) * no + k) * 8;
                let mut b = [0u8; 8];
                b.copy_from_slice(&outb[o..o + 8]);
                let got = u64::from_le_bytes(b) & ty.mask();
                if !check(*ty, got, e, None) {
                    fails.push(|| {
                        format!(
                            "  line {} (case of line {}, lane {}): {name} = {} (expected {})",
                            row.line,
                            case.line,
                            cluster::lane_name(lane, w.cluster, 32 * w.warps),
                            show(*ty, got),
                            wanted(*ty, e)
                        )
                    });
                }
            }
        }
        if w.case_bytes() > 0 {
            let got = &memb[c * bytes..(c + 1) * bytes];
            for (word, at) in case.expect_line.iter().enumerate() {
                let o = 4 * word;
                let g = u32::from_le_bytes(got[o..o + 4].try_into().expect("4 bytes"));
                let e = u32::from_le_bytes(case.expect[o..o + 4].try_into().expect("4 bytes"));
                let map = w.tensormap.is_some() && o % w.case_bytes() >= w.map_base();
                if g != e && !case.unchecked[word] && !map {
                    let from = if *at == 0 {
                        "unchanged".to_string()
                    } else {
                        format!("expect line {at}")
                    };
                    let rank = cluster::rank_name(o / w.case_bytes(), w.cluster);
                    let (space, off) = w.locate(o % w.case_bytes());
                    fails.push(|| {
                        format!(
                            "  case of line {}: {rank}{space} byte {off:#x} = {g:#010x} (expected {e:#010x}, {from})",
                            case.line
                        )
                    });
                }
            }
        }
    }
    fails.finish(|| format!("`{}` on {engine} (table line {})", w.ptx, w.line))
}

/// Run every warp group on every engine.
pub fn run_warp_groups(warps: &[WarpGroup]) -> Result<(), String> {
    let runs = warps
        .iter()
        .flat_map(|w| ENGINES.iter().map(move |&e| run_warp_group(w, e, 12)));
    join_errors(runs, "\n\n")
}
