//! Blackwell's fifth-generation tensor-core instructions (PTX ISA §9.7.16, `tcgen05.*`),
//! decoded to [`Op::Tcgen05`] (tensor memory, its allocator and the multiply:
//! `runtime::tcgen05`), to `mbarrier` arrivals (`commit`) and to warp waits.
//!
//! Forms implemented (`.cta_group::N` is `::1`, or `::2` for the CTA pair of a cluster where
//! shown; `alloc`/`dealloc ::2` become a loop that waits for the peer CTA's):
//! ```text
//! tcgen05.alloc.cta_group::N.sync.aligned{.shared::cta}.b32   [dst], nCols;
//! tcgen05.dealloc.cta_group::N.sync.aligned.b32               taddr, nCols;
//! tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned;
//! tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32            r, [taddr]{, immHalfSplitoff};
//! tcgen05.ld.red.sync.aligned.shape.num.redOp{.abs}{.NaN}.f32  r, redval, [taddr]{, imm…};
//! tcgen05.ld.red.sync.aligned.shape.num.redOp.{u32,s32}        r, redval, [taddr]{, imm…};
//! tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32          [taddr]{, immHalfSplitoff}, r;
//!     .shape = .32x32b, .16x64b, .16x128b, .16x256b, .16x32bx2 (.red: .32x32b, .16x32bx2)
//! tcgen05.wait::ld.sync.aligned;  tcgen05.wait::st.sync.aligned;
//! tcgen05.fence::before_thread_sync;  tcgen05.fence::after_thread_sync;
//! tcgen05.mma{.sp}.cta_group::N.kind{.collector::a::use}{.ashift} [d-tmem], a-desc|[a-tmem],
//!     b-desc, {[sp-meta],} idesc, {disable-output-lane,} enable-input-d{, scale-input-d};
//!     .kind = .kind::f16, .kind::tf32, .kind::f8f6f4, .kind::i8 (scale-input-d 0..15:
//!     .kind::f16, .kind::tf32; disable-output-lane 4 words, 8 with .cta_group::2)
//! tcgen05.mma{.sp}.cta_group::N.kind.block_scale{.scale_vectorsize}{.collector::a::use}
//!     [d-tmem], a-desc|[a-tmem], b-desc, {[sp-meta],} idesc, [scale-A-tmem], [scale-B-tmem],
//!     enable-input-d;
//!     .kind = .kind::mxf8f6f4 (.scale_vec::1X, .block32), .kind::mxf4 (.scale_vec::2X,
//!     .block32, the default), .kind::mxf4nvf4 (.scale_vec::2X, .scale_vec::4X, .block16,
//!     .block32)
//! tcgen05.mma.ws.cta_group::1.kind{.collector::bN::use} [d-tmem], a-desc|[a-tmem], b-desc,
//!     idesc, enable-input-d;           N = 0..3, use = fill, use, lastuse, discard
//!     (.kind::f16, ::tf32, ::f8f6f4, ::i8)
//! tcgen05.cp.cta_group::N.shape [taddr], s-desc;
//!     .shape = .128x256b, .4x256b, .128x128b, .64x128b.warpx2::02_13,
//!              .64x128b.warpx2::01_23, .32x128b.warpx4
//! tcgen05.shift.cta_group::N.down [taddr];     (also written .down.cta_group::N)
//! tcgen05.commit.cta_group::N.mbarrier::arrive::one{.shared::cluster}.b64 [mbar];
//! ```
//! `.num` is `.x1` … `.x128`: that many repetitions of the shape, at most 128 registers (with
//! `.pack::16b`/`.unpack::16b` each holds the 16-bit halves of two adjacent columns). ptxjit
//! runs `ld`, `st`, `mma`, `cp` and `shift` when they execute, so `wait::ld`/`wait::st` only
//! wait for the warp, the fences order nothing more than program order already does, and
//! `commit` arrives on its mbarrier at once (an arrive-on of count 1). `tcgen05.mma{.sp}`
//! takes `.collector::a::{fill,use,lastuse,discard}` and (A in tensor memory, no block
//! scaling, not with `::fill`/`::use`) `.ashift` after its kind and block scaling, in either
//! order. The forms whose layouts ptxjit does not know load, and fault naming the form when
//! they run (`runtime::tcgen05`: `.sp` with `.cta_group::2` M = 128, K = 96, a 4-bit A of
//! `.kind::mxf4`/`::mxf4nvf4` in tensor memory).

use super::super::build::{Builder, PTerm};
use super::super::LowerError;
use super::mma::{full_warp_wait, regs};
use super::Cx;
use crate::ir::{
    ICmp, MbarOp, Op, SReg, Sign, Space, Tc05Collector, Tc05CpShape, Tc05CpUnpack, Tc05Kind,
    Tc05Op, Tc05Red, Tc05RedType, Tc05Shape, Type,
};
use crate::ptx::ast::Operand;

type R = Result<(), LowerError>;

/// The names of `all`, each after a dot, separated by spaces (`.32x32b .16x64b …`).
fn dotted<T: std::fmt::Display>(all: &[T]) -> String {
    all.iter()
        .map(|v| format!(".{v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `.kind::…` at modifier `k`, if it names a kind.
fn kind_of(cx: &Cx, k: usize) -> Option<Tc05Kind> {
    cx.mods
        .get(k)
        .and_then(|m| m.strip_prefix("kind::"))
        .and_then(Tc05Kind::from_name)
}

/// Check that the modifiers after the first are exactly `want` in order, with `.cta_group::1`
/// where `want` has `cta_group` (`::2` is an unsupported error here: [`grouped`] takes it).
fn exact(cx: &Cx, want: &[&str]) -> R {
    exact_group(cx, want, false, cx.mods.len()).map(|_| ())
}

/// As [`exact`], taking `.cta_group::1` or `.cta_group::2`: whether it was `::2` (the CTA
/// pair of PTX ISA §9.7.16.5).
fn grouped(cx: &Cx, want: &[&str]) -> Result<bool, LowerError> {
    exact_group(cx, want, true, cx.mods.len())
}

/// As [`grouped`] for the first `want.len()` modifiers after the first (the caller checks the
/// rest).
fn grouped_prefix(cx: &Cx, want: &[&str]) -> Result<bool, LowerError> {
    exact_group(cx, want, true, want.len() + 1)
}

fn exact_group(cx: &Cx, want: &[&str], pair_ok: bool, end: usize) -> Result<bool, LowerError> {
    let got = &cx.mods[1..end];
    let mut pair = false;
    for (i, w) in want.iter().enumerate() {
        let g = got.get(i).copied();
        if *w == "cta_group" {
            match g {
                Some("cta_group::1") => continue,
                Some("cta_group::2") if pair_ok => {
                    pair = true;
                    continue;
                }
                Some("cta_group::2") => {
                    let op = cx.mods.first().copied().unwrap_or("");
                    return Err(cx.unsupported(&format!(
                        "tcgen05.{op} .cta_group::2 is not supported yet (ptxjit runs \
                         .cta_group::2 alloc, dealloc, relinquish_alloc_permit, mma, cp, shift \
                         and commit)"
                    )));
                }
                _ => return Err(cx.bad("needs .cta_group::1 or .cta_group::2")),
            }
        }
        if g != Some(*w) {
            return Err(cx.bad(&format!(
                "expects .{} here{}",
                w,
                g.map_or(String::new(), |g| format!(", found .{g}"))
            )));
        }
    }
    if let Some(extra) = got.get(want.len()) {
        return Err(cx.bad(&format!("modifier '.{extra}' is not allowed here")));
    }
    Ok(pair)
}

/// Emit `op` (a `.cta_group::2` `alloc` or `dealloc`, whose one result says whether the peer
/// CTA's warp has asked too) in a loop that runs until it has: the first warp of the pair
/// waits for the second (PTX ISA §9.7.16.7.1: it "could block"), its lanes yielding to the
/// other warps and CTAs each time round (`lower::yields`).
fn pair_wait(b: &mut Builder, cx: &Cx, op: Tc05Op, args: Vec<super::super::build::Var>) {
    let head = b.new_block();
    super::cluster::set_term(b, PTerm::Jump(head), cx);
    b.cur = head;
    let done = b.emit1(Op::Tcgen05 { op }, args, Type::Pred, cx.loc, &cx.ptx);
    let cont = b.new_block();
    super::cluster::set_term(b, PTerm::Branch(done, cont, head), cx);
    b.cur = cont;
}

/// A tensor-memory address operand `[taddr]` (a 32-bit register, with an optional offset,
/// or a constant).
fn taddr(b: &mut Builder, cx: &Cx, k: usize) -> Result<super::super::build::Var, LowerError> {
    if let Operand::Address {
        base: None, offset, ..
    } = cx.opnd(k)?
    {
        return Ok(b.konst(cx, Type::I32, *offset as u32 as u64));
    }
    let v = b.address(cx, k, Space::Shared)?;
    if b.vars[v as usize] != Type::I32 {
        return Err(LowerError::new(
            cx.opnd(k)?.span(),
            format!("'{}': a tensor-memory address is a 32-bit register", cx.ptx),
        ));
    }
    Ok(v)
}

/// The operations of `tcgen05` (its first modifier) that [`tcgen05`] decodes, as the PTX
/// ISA names them (§9.7.16.7-12).
pub(crate) const OPERATIONS: &[&str] = &[
    "alloc",
    "dealloc",
    "relinquish_alloc_permit",
    "ld",
    "st",
    "wait::ld",
    "wait::st",
    "fence::before_thread_sync",
    "fence::after_thread_sync",
    "mma",
    "commit",
    "cp",
    "shift",
];

/// Decode `op` if it is `tcgen05`.
pub(super) fn tcgen05(b: &mut Builder, cx: &mut Cx) -> R {
    let first = cx.mods.first().copied().unwrap_or("");
    match first {
        "alloc" => {
            let shared = cx.mods.get(4) == Some(&"shared::cta");
            let pair = if shared {
                grouped(cx, &["cta_group", "sync", "aligned", "shared::cta", "b32"])?
            } else {
                grouped(cx, &["cta_group", "sync", "aligned", "b32"])?
            };
            cx.expect_operands(2)?;
            let sp = if shared {
                Space::Shared
            } else {
                Space::Generic
            };
            let dst = b.address(cx, 0, sp)?;
            let n = b.src(cx, 1, Type::I32)?;
            full_warp_wait(b, cx);
            let op = Tc05Op::Alloc { shared, pair };
            if pair {
                pair_wait(b, cx, op, vec![dst, n]);
            } else {
                b.emit(Op::Tcgen05 { op }, vec![dst, n], vec![], cx.loc, &cx.ptx);
            }
            Ok(())
        }
        "dealloc" => {
            let pair = grouped(cx, &["cta_group", "sync", "aligned", "b32"])?;
            cx.expect_operands(2)?;
            let t = b.src(cx, 0, Type::I32)?;
            let n = b.src(cx, 1, Type::I32)?;
            full_warp_wait(b, cx);
            let op = Tc05Op::Dealloc { pair };
            if pair {
                pair_wait(b, cx, op, vec![t, n]);
            } else {
                b.emit(Op::Tcgen05 { op }, vec![t, n], vec![], cx.loc, &cx.ptx);
            }
            Ok(())
        }
        "relinquish_alloc_permit" => {
            let pair = grouped(cx, &["cta_group", "sync", "aligned"])?;
            cx.expect_operands(0)?;
            full_warp_wait(b, cx);
            let op = Tc05Op::Relinquish { pair };
            b.emit(Op::Tcgen05 { op }, vec![], vec![], cx.loc, &cx.ptx);
            Ok(())
        }
        "ld" | "st" => ld_st(b, cx, first == "ld"),
        "wait::ld" | "wait::st" => {
            exact(cx, &["sync", "aligned"])?;
            cx.expect_operands(0)?;
            full_warp_wait(b, cx);
            Ok(())
        }
        "fence::before_thread_sync" | "fence::after_thread_sync" => {
            exact(cx, &[])?;
            cx.expect_operands(0)?;
            Ok(())
        }
        "mma" => mma(b, cx),
        "commit" => commit(b, cx),
        "cp" => cp(b, cx),
        "shift" => shift(b, cx),
        _ => Err(cx.bad(&format!("needs one of .{}", OPERATIONS.join(" .")))),
    }
}

/// `tcgen05.ld` / `tcgen05.st` (PTX ISA §9.7.16.8.3-4), with `tcgen05.ld.red`:
/// ```text
/// tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32            r, [taddr]{, immHalfSplitoff};
/// tcgen05.ld.red.sync.aligned.shape.num.redOp{.abs}{.NaN}.f32  r, redval, [taddr]{, imm…};
/// tcgen05.ld.red.sync.aligned.shape.num.redOp.type             r, redval, [taddr]{, imm…};
/// tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32          [taddr]{, immHalfSplitoff}, r;
/// ```
/// `.shape` is `.32x32b`, `.16x64b`, `.16x128b`, `.16x256b` or `.16x32bx2` (which alone takes
/// the immHalfSplitoff immediate); `.num` is `.x1` … `.x128` with at most 128 registers
/// (Table 49). `.red` takes `.32x32b` or `.16x32bx2`, `.num` at least `.x2`, `.min`/`.max` and
/// `.f32` (`.abs`, `.NaN`), `.u32` or `.s32`, in any order after `.num` (the ISA's grammar puts
/// the operation first, its example the type).
fn ld_st(b: &mut Builder, cx: &mut Cx, load: bool) -> R {
    let red_form = load && cx.mods.get(1) == Some(&"red");
    let at = usize::from(red_form);
    if cx.mods.get(1 + at..3 + at) != Some(&["sync", "aligned"][..]) {
        return Err(cx.bad("needs .sync.aligned"));
    }
    let Some(shape) = cx.mods.get(3 + at).and_then(|m| Tc05Shape::from_name(m)) else {
        return Err(cx.bad(&format!("needs a shape: {}", dotted(Tc05Shape::ALL))));
    };
    let num_mod = cx.mods.get(4 + at).copied().unwrap_or("");
    let num = match num_mod.strip_prefix('x') {
        Some(n @ ("1" | "2" | "4" | "8" | "16" | "32" | "64" | "128")) => {
            n.parse::<u8>().unwrap_or(1)
        }
        _ => return Err(cx.bad("needs a repetition count .x1 .x2 .x4 … .x128")),
    };
    if u32::from(num) > shape.max_num() {
        return Err(cx.bad(&format!(
            ".{shape} takes .x1 to .x{} ({} registers per repetition, at most 128)",
            shape.max_num(),
            shape.regs_per_num()
        )));
    }
    let mut pack = false;
    let mut red = None;
    if red_form {
        if !matches!(shape, Tc05Shape::S32x32b | Tc05Shape::S16x32bx2) {
            return Err(cx.bad("tcgen05.ld.red takes .32x32b or .16x32bx2"));
        }
        if num < 2 {
            return Err(cx.bad("tcgen05.ld.red needs .num of at least .x2"));
        }
        red = Some(red_mods(cx, &cx.mods[5 + at..])?);
    } else {
        let pk = if load { "pack::16b" } else { "unpack::16b" };
        pack = cx.mods.get(5) == Some(&pk);
        let mut want = vec!["sync", "aligned", cx.mods[3], num_mod];
        if pack {
            want.push(pk);
        }
        want.push("b32");
        exact(cx, &want)?;
    }
    let split_form = shape == Tc05Shape::S16x32bx2;
    // Operands: ld r, {redval,} [taddr]{, imm}; st [taddr]{, imm}, r.
    let extra = usize::from(split_form) + usize::from(red.is_some());
    cx.expect_operands(2 + extra)?;
    let (rk, ak, ik) = if load {
        (0, 1 + at, 2 + at)
    } else {
        (1 + usize::from(split_form), 0, 1)
    };
    if !matches!(cx.opnd(ak)?, Operand::Address { .. }) {
        return Err(cx.bad(&format!(
            "expects the tensor-memory address [taddr] as operand {}",
            ak + 1
        )));
    }
    let split = if split_form {
        match super::bulk::imm(cx, ik)? {
            Some(v) if (0..=i64::from(u32::MAX)).contains(&v) => v as u32,
            _ => {
                return Err(LowerError::new(
                    cx.opnd(ik)?.span(),
                    format!(
                        "'{}': .16x32bx2 needs immHalfSplitoff, a 32-bit immediate added to \
                         taddr for the second access",
                        cx.ptx
                    ),
                ))
            }
        }
    } else {
        0
    };
    let op = if load {
        Tc05Op::Ld {
            shape,
            num,
            pack,
            split,
            red,
        }
    } else {
        Tc05Op::St {
            shape,
            num,
            unpack: pack,
            split,
        }
    };
    let n = op.regs();
    let t = taddr(b, cx, ak)?;
    let r_ops = regs(cx, rk, n)?;
    full_warp_wait(b, cx);
    if load {
        let total = n + u32::from(red.is_some());
        let outs: Vec<_> = (0..total).map(|_| b.new_var(Type::I32)).collect();
        b.emit(Op::Tcgen05 { op }, vec![t], outs.clone(), cx.loc, &cx.ptx);
        let mut dsts = r_ops;
        if red.is_some() {
            match cx.opnd(1)? {
                o @ Operand::Reg { .. } => dsts.push(o.clone()),
                o => {
                    return Err(LowerError::new(
                        o.span(),
                        format!("'{}': redval is a 32-bit register", cx.ptx),
                    ))
                }
            }
        }
        for (o, v) in dsts.iter().zip(outs) {
            if let Some(d) = b.dst_rel(cx, o, Type::I32, None)? {
                b.copy(d, v, cx.loc, &cx.ptx);
            }
        }
    } else {
        let mut args = vec![t];
        for o in &r_ops {
            args.push(b.src_rel(cx, o, Type::I32, None)?);
        }
        b.emit(Op::Tcgen05 { op }, args, vec![], cx.loc, &cx.ptx);
    }
    Ok(())
}

/// The modifiers of `tcgen05.ld.red` after `.num`: `.min` or `.max`, and `.f32` (with
/// optional `.abs`, `.NaN`), `.u32` or `.s32`, each once, in any order.
fn red_mods(cx: &Cx, mods: &[&str]) -> Result<Tc05Red, LowerError> {
    let (mut op, mut ty, mut abs, mut nan) = (None, None, false, false);
    for &m in mods {
        let dup = match m {
            "min" | "max" => op.replace(m == "max").is_some(),
            "f32" | "u32" | "s32" => ty.replace(m).is_some(),
            "abs" => std::mem::replace(&mut abs, true),
            "NaN" => std::mem::replace(&mut nan, true),
            _ => {
                return Err(cx.bad(&format!(
                    "modifier '.{m}' is not allowed in tcgen05.ld.red (.min .max .abs .NaN \
                     .f32 .u32 .s32)"
                )))
            }
        };
        if dup {
            return Err(cx.bad(&format!("tcgen05.ld.red: a second .{m}-kind modifier")));
        }
    }
    let Some(max) = op else {
        return Err(cx.bad("tcgen05.ld.red needs .min or .max"));
    };
    let ty = match ty {
        Some("f32") => Tc05RedType::F32 { abs, nan },
        Some(t) if abs || nan => {
            return Err(cx.bad(&format!(
                "tcgen05.ld.red: .abs and .NaN are for .f32, not .{t}"
            )))
        }
        Some("u32") => Tc05RedType::U32,
        Some(_) => Tc05RedType::S32,
        None => return Err(cx.bad("tcgen05.ld.red needs a type: .f32 .u32 .s32")),
    };
    Ok(Tc05Red { max, ty })
}

/// `tcgen05.shift.cta_group.down [taddr]` (PTX ISA §9.7.16.9.3; the ISA's examples also
/// write `.down.cta_group::N`); `.cta_group::2` shifts the same rows in the peer CTA's tensor
/// memory too.
fn shift(b: &mut Builder, cx: &mut Cx) -> R {
    let pair = if cx.mods.get(1) == Some(&"down") {
        grouped(cx, &["down", "cta_group"])?
    } else {
        grouped(cx, &["cta_group", "down"])?
    };
    cx.expect_operands(1)?;
    if !matches!(cx.opnd(0)?, Operand::Address { .. }) {
        return Err(cx.bad("expects a tensor-memory address [taddr]"));
    }
    let t = taddr(b, cx, 0)?;
    let op = Tc05Op::Shift { pair };
    b.emit(Op::Tcgen05 { op }, vec![t], vec![], cx.loc, &cx.ptx);
    Ok(())
}

/// `tcgen05.cp.cta_group.shape{.multicast}{.b8x16.b6x16_p32|.b8x16.b4x16_p64} [taddr],
/// s-desc` (PTX ISA §9.7.16.9.2; `.cta_group::2` copies in both CTAs of the pair; the
/// decompression, §9.7.16.9.1, is [`Tc05CpUnpack`]).
fn cp(b: &mut Builder, cx: &mut Cx) -> R {
    let m = |i: usize| cx.mods.get(i).copied();
    // A shape is one modifier or two (`.64x128b.warpx2::02_13`).
    let found = Tc05CpShape::ALL.iter().copied().find_map(|sh| {
        let parts: Vec<&str> = sh.name().split('.').collect();
        (cx.mods.get(2..2 + parts.len()) == Some(&parts[..])).then_some((sh, 2 + parts.len()))
    });
    let (shape, n) = match (found, m(2)) {
        (Some(found), _) => found,
        (None, Some("64x128b")) => {
            return Err(cx.bad(".64x128b needs .warpx2::02_13 or .warpx2::01_23"))
        }
        (None, Some("32x128b")) => return Err(cx.bad(".32x128b needs .warpx4")),
        (None, _) => {
            return Err(cx.bad(&format!(
                "needs .cta_group::1 or ::2 then a shape: {}",
                dotted(Tc05CpShape::ALL)
            )))
        }
    };
    let unpack = match (m(n), m(n + 1)) {
        (Some("b8x16"), other) => {
            let u = other.and_then(|o| Tc05CpUnpack::from_name(&format!("b8x16.{o}")));
            if u.is_none() {
                return Err(cx.bad(&format!(
                    ".b8x16 needs a source format .b6x16_p32 or .b4x16_p64 after it{}",
                    other.map_or(String::new(), |o| format!(", not .{o}"))
                )));
            }
            u
        }
        _ => None,
    };
    let n = if unpack.is_some() { n + 2 } else { n };
    let want: Vec<&str> = ["cta_group"]
        .into_iter()
        .chain(cx.mods[2..n.min(cx.mods.len())].iter().copied())
        .collect();
    let pair = grouped(cx, &want)?;
    cx.expect_operands(2)?;
    if !matches!(cx.opnd(0)?, Operand::Address { .. }) {
        return Err(cx.bad("expects a tensor-memory address [taddr] first"));
    }
    let t = taddr(b, cx, 0)?;
    let d = b.src(cx, 1, Type::I64)?;
    let op = Tc05Op::Cp {
        shape,
        unpack,
        pair,
    };
    b.emit(Op::Tcgen05 { op }, vec![t, d], vec![], cx.loc, &cx.ptx);
    Ok(())
}

/// `tcgen05.mma.ws{.sp}.cta_group::1.kind{.collector::bN::{fill,use,lastuse,discard}}
/// [d-tmem], a-desc|[a-tmem], b-desc, {[sp-meta],} idesc, enable-input-d{,
/// zero-column-mask-desc}` (PTX ISA §9.7.16.10.9.3; the zero-column mask descriptor is
/// §9.7.16.4.3, read when it runs).
fn mma_ws(b: &mut Builder, cx: &mut Cx) -> R {
    let sparse = cx.mods.get(2) == Some(&"sp");
    let at = usize::from(sparse);
    // `.ws` has no block scaling.
    let Some(kind) = kind_of(cx, 3 + at).filter(|k| !k.block_scaled()) else {
        return Err(
            cx.bad("needs .cta_group::1 then .kind::f16, .kind::tf32, .kind::f8f6f4 or .kind::i8")
        );
    };
    let (buffer, collector) = match cx.mods.get(4 + at) {
        None => (0, Tc05Collector::Discard),
        Some(c) => {
            let parsed = c.strip_prefix("collector::b").and_then(|r| {
                let (n, u) = r.split_once("::")?;
                let n = match n {
                    "0" => 0,
                    "1" => 1,
                    "2" => 2,
                    "3" => 3,
                    _ => return None,
                };
                Some((n, Tc05Collector::from_name(u)?))
            });
            parsed.ok_or_else(|| {
                cx.bad(&format!(
                    "'.{c}': expects .collector::b0 … ::b3 with ::fill, ::use, ::lastuse or \
                     ::discard"
                ))
            })?
        }
    };
    if cx.mods.get(2 + at) == Some(&"cta_group::2") {
        return Err(cx.bad("tcgen05.mma.ws has .cta_group::1 only"));
    }
    let mut want = vec!["ws"];
    if sparse {
        want.push("sp");
    }
    want.extend(["cta_group", cx.mods[3 + at]]);
    if let Some(c) = cx.mods.get(4 + at) {
        want.push(c);
    }
    exact(cx, &want)?;
    let zero_mask = match cx.inst.operands.len().saturating_sub(at) {
        5 => false,
        6 => true,
        _ => {
            return Err(cx.bad(&format!(
                "expects [d-tmem], a-desc or [a-tmem], b-desc,{} idesc, enable-input-d and an \
                 optional zero-column-mask-desc; found {} operands",
                if sparse { " [sp-meta]," } else { "" },
                cx.inst.operands.len()
            )))
        }
    };
    if sparse && !matches!(cx.opnd(3)?, Operand::Address { .. }) {
        return Err(cx.bad("expects the metadata's tensor-memory address [sp-meta] as operand 4"));
    }
    let (d, a, a_tmem, bd, id, en) = mma_operands(b, cx, at, 0)?;
    let mut args = vec![d, a, bd, id, en];
    if sparse {
        args.push(taddr(b, cx, 3)?);
    }
    if zero_mask {
        args.push(b.src(cx, 5 + at, Type::I64)?);
    }
    b.emit(
        Op::Tcgen05 {
            op: Tc05Op::MmaWs {
                kind,
                a_tmem,
                sparse,
                buffer,
                collector,
                zero_mask,
            },
        },
        args,
        vec![],
        cx.loc,
        &cx.ptx,
    );
    Ok(())
}

type Var = super::super::build::Var;

/// The operands `[d-tmem], a-desc|[a-tmem], b-desc, idesc, enable-input-d` of a
/// `tcgen05.mma`, with `at` more operands (`.sp`'s `[sp-meta]`) before idesc and `en` more
/// (disable-output-lane) before enable-input-d: (d, a, whether A is in tensor memory, b,
/// idesc, enable).
fn mma_operands(
    b: &mut Builder,
    cx: &mut Cx,
    at: usize,
    en: usize,
) -> Result<(Var, Var, bool, Var, Var, Var), LowerError> {
    let d = taddr(b, cx, 0)?;
    let a_tmem = matches!(cx.opnd(1)?, Operand::Address { .. });
    let a = if a_tmem {
        taddr(b, cx, 1)?
    } else {
        b.src(cx, 1, Type::I64)?
    };
    let bd = b.src(cx, 2, Type::I64)?;
    let id = b.src(cx, 3 + at, Type::I32)?;
    let en = b.src(cx, 4 + at + en, Type::Pred)?;
    Ok((d, a, a_tmem, bd, id, en))
}

/// `tcgen05.mma` (PTX ISA §9.7.16.10.9.1), dense, and `tcgen05.mma.sp` (§9.7.16.10.9.2) with
/// the metadata's tensor-memory address after `b-desc` (the `.ws` forms: [`mma_ws`]); with
/// block scaling ([`block_scale`]) the scale_A and scale_B addresses follow idesc.
fn mma(b: &mut Builder, cx: &mut Cx) -> R {
    let sparse = cx.mods.get(1) == Some(&"sp");
    let at = if sparse { 1 } else { 0 };
    if cx.mods.get(1) == Some(&"ws") {
        return mma_ws(b, cx);
    }
    let Some(kind) = kind_of(cx, 2 + at) else {
        let names: Vec<&str> = Tc05Kind::ALL.iter().map(|k| k.name()).collect();
        let (last, rest) = names.split_last().unwrap_or((&"", &[]));
        return Err(cx.bad(&format!(
            "needs .cta_group::1 or ::2 then .kind::{} or ::{last}",
            rest.join(", ::")
        )));
    };
    let (scale_vec, n_mods) = if kind.block_scaled() {
        block_scale(b, cx, kind, 3 + at)?
    } else {
        if cx.has("block_scale") {
            return Err(cx.bad(&format!(
                ".block_scale is for .kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4, not \
                 .kind::{kind}"
            )));
        }
        (0, 3 + at)
    };
    let (collector, ashift) = a_usage(cx, &cx.mods[n_mods..], scale_vec != 0)?;
    let mut want: Vec<&str> = cx.mods[1..n_mods].to_vec();
    want[at] = "cta_group";
    let pair = grouped_prefix(cx, &want)?;
    if sparse && !matches!(cx.inst.operands.get(3), Some(Operand::Address { .. })) {
        return Err(cx.bad("expects the metadata's tensor-memory address [sp-meta] as operand 4"));
    }
    if scale_vec != 0 {
        // [d-tmem], a, b-desc, {[sp-meta],} idesc, [scale-A-tmem], [scale-B-tmem],
        // enable-input-d.
        let n = cx.inst.operands.len();
        if n != 7 + at {
            let meta = if sparse { " [sp-meta]," } else { "" };
            return Err(cx.bad(&format!(
                "expects [d-tmem], a-desc or [a-tmem], b-desc,{meta} idesc, [scale-A-tmem], \
                 [scale-B-tmem], enable-input-d; found {n} operands"
            )));
        }
        for k in [4 + at, 5 + at] {
            if !matches!(cx.opnd(k)?, Operand::Address { .. }) {
                return Err(cx.bad(&format!(
                    "expects the scale factors' tensor-memory address [{}] as operand {}",
                    if k == 4 + at {
                        "scale-A-tmem"
                    } else {
                        "scale-B-tmem"
                    },
                    k + 1
                )));
            }
        }
        let (d, a, a_tmem, bd, id, en) = mma_operands(b, cx, at, 2)?;
        let (sa, sb) = (taddr(b, cx, 4 + at)?, taddr(b, cx, 5 + at)?);
        let op = Tc05Op::Mma {
            kind,
            a_tmem,
            sparse,
            mask: false,
            scale_d: 0,
            scale_vec,
            pair,
            collector,
            ashift,
        };
        let mut args = vec![d, a, bd, id, en, sa, sb];
        if sparse {
            args.push(taddr(b, cx, 3)?);
        }
        b.emit(Op::Tcgen05 { op }, args, vec![], cx.loc, &cx.ptx);
        return Ok(());
    }
    // After idesc: {disable-output-lane (a vector of 4, 8 with .cta_group::2),}
    // enable-input-d{, scale-input-d}.
    let mask = matches!(cx.inst.operands.get(4 + at), Some(Operand::Vector(..)));
    let en_at = 4 + at + usize::from(mask);
    let scale_d = match cx.inst.operands.len() {
        n if n == en_at + 1 => 0,
        n if n == en_at + 2 => {
            // `.kind::i8`: refused as unsupported below, once the rest is checked.
            if !matches!(kind, Tc05Kind::F16 | Tc05Kind::Tf32 | Tc05Kind::I8) {
                return Err(cx.bad(&format!(
                    "scale-input-d is for .kind::f16 and .kind::tf32 only, not .kind::{kind}"
                )));
            }
            let range: Vec<i64> = (0..16).collect();
            super::wgmma::imm(cx, en_at + 1, "scale-input-d", &range)? as u8
        }
        n => {
            let meta = if sparse { " [sp-meta]," } else { "" };
            return Err(cx.bad(&format!(
                "expects [d-tmem], a-desc or [a-tmem], b-desc,{meta} idesc, \
                 {{disable-output-lane}}, enable-input-d{{, scale-input-d}}; found {n} operands"
            )));
        }
    };
    let (d, a, a_tmem, bd, id, en) = mma_operands(b, cx, at, usize::from(mask))?;
    let mut args = vec![d, a, bd, id, en];
    if sparse {
        args.push(taddr(b, cx, 3)?);
    }
    if mask {
        for o in &regs(cx, 4 + at, if pair { 8 } else { 4 })? {
            // ptxas 13.5 refuses immediates in the vector.
            if !matches!(o, Operand::Reg { .. }) {
                return Err(LowerError::new(
                    o.span(),
                    format!("'{}': disable-output-lane takes registers only", cx.ptx),
                ));
            }
            args.push(b.src_rel(cx, o, Type::I32, None)?);
        }
    }
    if kind == Tc05Kind::I8 && cx.inst.operands.len() == en_at + 2 {
        // ptxas 13.5 takes it, except on `.sp` with disable-output-lane; the ISA gives
        // scale-input-d (D · 2^-s) for the floating-point kinds only and says nothing of an
        // integer D.
        if sparse && mask {
            return Err(
                cx.bad("scale-input-d is for .kind::f16 and .kind::tf32 only, not .kind::i8")
            );
        }
        return Err(cx.unsupported(
            "scale-input-d with .kind::i8 (the ISA defines it for .kind::f16 and .kind::tf32 \
             only)",
        ));
    }
    b.emit(
        Op::Tcgen05 {
            op: Tc05Op::Mma {
                kind,
                a_tmem,
                sparse,
                mask,
                scale_d,
                scale_vec: 0,
                pair,
                collector,
                ashift,
            },
        },
        args,
        vec![],
        cx.loc,
        &cx.ptx,
    );
    Ok(())
}

/// The modifiers `mods` after a `tcgen05.mma{.sp}`'s kind (and block scaling, `scaled`): at
/// most one `.collector::a::{fill,use,lastuse,discard}` (the default `::discard`) and one
/// `.ashift`, in either order (PTX ISA §9.7.16.10.9.1-2; ptxas 13.5 takes both orders).
/// `.ashift` needs A in tensor memory and no block scaling, and cannot be combined with
/// `::fill` or `::use` ("It is illegal to specify either of .collector::a::use or
/// .collector::a::fill along with .ashift"; ptxas refuses it with block scaling too).
fn a_usage(cx: &Cx, mods: &[&str], scaled: bool) -> Result<(Tc05Collector, bool), LowerError> {
    let mut collector = None;
    let mut ashift = false;
    for m in mods {
        if *m == "ashift" {
            if ashift {
                return Err(cx.bad("modifier '.ashift' given twice"));
            }
            ashift = true;
            continue;
        }
        let usage = match m
            .strip_prefix("collector::a::")
            .and_then(Tc05Collector::from_name)
        {
            Some(usage) => usage,
            None if m.starts_with("collector::b") => {
                return Err(cx.bad(&format!(
                    "modifier '.{m}': the collector buffers b0-b3 (for B) are tcgen05.mma.ws's; \
                     tcgen05.mma{{.sp}} has .collector::a::fill, ::use, ::lastuse or ::discard"
                )))
            }
            None => return Err(cx.bad(&format!("modifier '.{m}' is not allowed here"))),
        };
        if collector.is_some() {
            return Err(cx.bad(&format!(
                "modifier '.{m}': a second collector usage (one .collector::a::… at most)"
            )));
        }
        collector = Some((usage, *m));
    }
    if ashift {
        if !matches!(cx.opnd(1)?, Operand::Address { .. }) {
            return Err(
                cx.bad("modifier '.ashift' needs A in tensor memory ([a-tmem]), not a descriptor")
            );
        }
        if scaled {
            return Err(cx.bad("modifier '.ashift' is not allowed with .block_scale"));
        }
        if let Some((Tc05Collector::Fill | Tc05Collector::Use, m)) = collector {
            return Err(cx.bad(&format!(
                "modifier '.ashift' cannot be combined with '.{m}' (only with \
                 .collector::a::lastuse or ::discard)"
            )));
        }
    }
    Ok((collector.map_or(Tc05Collector::Discard, |c| c.0), ashift))
}

/// The `.block_scale{.scale_vectorsize}` modifiers of a block-scaled `tcgen05.mma` from
/// modifier `at` (PTX ISA §9.7.16.10.7.1, Table 54, and §9.7.16.10.9.1): the scale factors
/// per row of A and column of B (`.scale_vec::NX`; `.block32` is `::1X` for
/// `.kind::mxf8f6f4` and `::2X` for the 4-bit kinds, `.block16` is `::4X`; without a size,
/// `.block32`, which `.kind::mxf4nvf4` does not allow) and the modifier count used. The ISA
/// notes: `.kind::mxf4nvf4` and `.scale_vec::4X` from PTX ISA 8.7 (the decoder table's forms),
/// `.block16`/`.block32`, and so the default, from 8.8 (as ptxas 12.9 reports: "Feature
/// '.block32' requires PTX ISA .version 8.8 or later").
fn block_scale(b: &Builder, cx: &Cx, kind: Tc05Kind, at: usize) -> Result<(u8, usize), LowerError> {
    if cx.mods.get(at) != Some(&"block_scale") {
        return Err(cx.bad(&format!(".kind::{kind} needs .block_scale")));
    }
    let four_bit = kind != Tc05Kind::Mxf8f6f4;
    let block32 = if four_bit { 2 } else { 1 };
    let (vec, given) = match cx.mods.get(at + 1).copied() {
        Some("scale_vec::1X") => (1, true),
        Some("scale_vec::2X") => (2, true),
        Some("scale_vec::4X") => (4, true),
        Some("block32") => (block32, true),
        Some("block16") => (4, true),
        _ if kind == Tc05Kind::Mxf4nvf4 => {
            return Err(cx.bad(
                ".kind::mxf4nvf4 needs a scale vector size: .scale_vec::2X, .scale_vec::4X, \
                 .block16 or .block32",
            ))
        }
        _ => (block32, false),
    };
    if !given && b.header.version < crate::ptx::target::Version(8, 8) {
        return Err(LowerError::new(
            cx.inst.span,
            format!(
                "{} (.block32, the default scale vector size) requires PTX ISA 8.8 (.version {} \
                 here)",
                cx.ptx, b.header.version
            ),
        ));
    }
    let ok = match kind {
        Tc05Kind::Mxf8f6f4 => vec == 1,
        Tc05Kind::Mxf4 => vec == 2,
        Tc05Kind::Mxf4nvf4 => vec == 2 || vec == 4,
        Tc05Kind::F16 | Tc05Kind::Tf32 | Tc05Kind::I8 | Tc05Kind::F8f6f4 => false,
    };
    if !ok {
        let m = cx.mods.get(at + 1).copied().unwrap_or("");
        return Err(cx.bad(&format!(
            ".kind::{kind} cannot be combined with .{m} (Table 54: .kind::mxf8f6f4 takes \
             .scale_vec::1X, .kind::mxf4 .scale_vec::2X, .kind::mxf4nvf4 .scale_vec::2X or ::4X)"
        )));
    }
    Ok((vec, at + 1 + usize::from(given)))
}

/// `tcgen05.commit.cta_group::1.mbarrier::arrive::one{.shared::cluster}.b64 [mbar]` (PTX ISA
/// §9.7.16.12.1): the tracked operations are done, so the arrive-on (count 1) happens now.
/// With `.shared::cluster.multicast::cluster` and a 16-bit `ctaMask` operand the arrive-on
/// happens on the mbarrier at `mbar`'s offset in the shared memory of each CTA of the cluster
/// whose rank's bit is set (bits of ranks outside the cluster name no CTA), as
/// `cp.async.bulk.tensor`'s multicast signals its mbarriers.
fn commit(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.has("multicast::cluster") {
        return commit_multicast(b, cx);
    }
    let shared = cx.mods.get(3) == Some(&"shared::cluster");
    // `.cta_group::2` tracks the same operations (those the thread issued, for the pair):
    // all done when they executed.
    if shared {
        grouped(
            cx,
            &[
                "cta_group",
                "mbarrier::arrive::one",
                "shared::cluster",
                "b64",
            ],
        )?;
    } else {
        grouped(cx, &["cta_group", "mbarrier::arrive::one", "b64"])?;
    }
    cx.expect_operands(1)?;
    // A CTA is a cluster of one: its `.shared::cluster` addresses are its shared addresses.
    let sp = if shared {
        Space::Shared
    } else {
        Space::Generic
    };
    let a = b.address(cx, 0, sp)?;
    arrive_one(b, cx, a, sp);
    Ok(())
}

/// One arrive-on (count 1, the token unused) on the mbarrier at `addr` in `space`: what a
/// `tcgen05.commit` signals when the CTA's earlier tcgen05 operations complete.
fn arrive_one(b: &mut Builder, cx: &Cx, addr: Var, space: Space) {
    let one = b.konst(cx, Type::I32, 1);
    let zero = b.konst(cx, Type::I32, 0);
    let tok = b.new_var(Type::I64);
    b.emit(
        Op::MBarrier {
            op: MbarOp::Arrive {
                drop: false,
                no_complete: false,
            },
            space,
        },
        vec![addr, one, zero],
        vec![tok],
        cx.loc,
        &cx.ptx,
    );
}

/// `tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
/// [mbar], ctaMask` (see [`commit`]): one arrive-on (count 1) per CTA named in the mask, in
/// rank order, each on the `mapa` of `mbar` to that rank.
fn commit_multicast(b: &mut Builder, cx: &mut Cx) -> R {
    grouped(
        cx,
        &[
            "cta_group",
            "mbarrier::arrive::one",
            "shared::cluster",
            "multicast::cluster",
            "b64",
        ],
    )?;
    cx.expect_operands(2)?;
    let a = b.address(cx, 0, Space::Shared)?;
    let a = b.coerce(cx, a, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
    let m = b.src(cx, 1, Type::I16)?;
    let m = b.coerce(cx, m, Type::I32, Some(Sign::Unsigned), cx.inst.span)?;
    let nrank = b.emit1(
        Op::SReg {
            reg: SReg::ClusterNctaRank,
        },
        vec![],
        Type::I32,
        cx.loc,
        &cx.ptx,
    );
    let ne = Op::ICmp {
        cc: ICmp::Ne,
        sign: Sign::Unsigned,
    };
    for rank in 0..16u64 {
        let bit = b.konst(cx, Type::I32, 1 << rank);
        let bit = b.emit1(Op::And {}, vec![m, bit], Type::I32, cx.loc, &cx.ptx);
        let zero = b.konst(cx, Type::I32, 0);
        let set = b.emit1(ne, vec![bit, zero], Type::Pred, cx.loc, &cx.ptx);
        let r = b.konst(cx, Type::I32, rank);
        let lt = Op::ICmp {
            cc: ICmp::Lt,
            sign: Sign::Unsigned,
        };
        let inside = b.emit1(lt, vec![r, nrank], Type::Pred, cx.loc, &cx.ptx);
        let on = b.emit1(Op::And {}, vec![set, inside], Type::Pred, cx.loc, &cx.ptx);
        super::copy_async::if_then(b, cx, on, |b| {
            let r = b.konst(cx, Type::I32, rank);
            let remote = b.emit1(
                Op::Mapa { generic: false },
                vec![a, r],
                Type::I64,
                cx.loc,
                &cx.ptx,
            );
            arrive_one(b, cx, remote, Space::Shared);
            Ok(())
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::OPERATIONS;

    /// A kernel whose body is `tcgen05.OP;` (no further modifiers or operands).
    fn bare(op: &str) -> String {
        format!(
            ".version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n\
             \ttcgen05.{op};\n\tret;\n}}\n"
        )
    }

    /// [`OPERATIONS`] is what the decoder dispatches on: each of them gets past the dispatch
    /// (its own error for the missing modifiers), an operation not listed does not.
    #[test]
    fn operations_list_is_the_dispatch() {
        for op in OPERATIONS {
            // The fences take nothing more, so they decode.
            if let Err(e) = crate::host::front_end(&bare(op), "t.ptx") {
                let e = e.to_string();
                assert!(
                    !e.contains("needs one of") && !e.contains("unknown modifier"),
                    "tcgen05.{op}: {e}"
                );
            }
        }
        // A modifier of other instructions, not an operation of tcgen05.
        let e = crate::host::front_end(&bare("sync"), "t.ptx")
            .map(|_| ())
            .unwrap_err();
        assert!(e.to_string().contains("needs one of .alloc"), "{e}");
    }
}
