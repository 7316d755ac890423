//! Warpgroup matrix instructions (PTX ISA §9.7.15): `wgmma.mma_async`, `wgmma.fence`,
//! `wgmma.commit_group` and `wgmma.wait_group`.
//!
//! - `wgmma.mma_async` becomes one `wgmma` op, a warp collective over the D registers (and A's
//!   when A comes from registers) that each warp of the warpgroup runs for its own 16 rows of
//!   D (`runtime::wgmma` holds the descriptors, the layouts and the arithmetic).
//! - ptxjit runs the multiply synchronously, so `wgmma.fence` (order register and shared
//!   memory accesses before the multiply), `wgmma.commit_group` and `wgmma.wait_group N` (wait
//!   until at most N groups are pending) have nothing left to order or wait for: each is the
//!   wait of a `.sync.aligned` warp instruction (the whole warp) and nothing else.
//!
//! - `wgmma.mma_async.sp` (§9.7.15.6) is the same op with a sparse A (`WgmmaSpec::sparse`,
//!   the selector) and the metadata register as its last operand.
//!
//! Every form needs `.sync` and may leave out the `.aligned` its syntax writes (ptxas takes it
//! without; ptxjit runs the warp together either way). `.e4m3`/`.e5m2` inputs (K = 32, two imm-scale operands,
//! no transpose) follow the 8-bit layouts; `.b1` inputs (`.m64nNk256.s32.b1.b1.and.popc`, no
//! scale or transpose operands) the 8-bit layouts of their bytes, 8 elements to a byte.

use super::super::build::{Builder, Var};
use super::super::LowerError;
use super::mma::{full_warp_wait, regs};
use super::Cx;
use crate::ir::{MmaElem, Op, Type, WgmmaA, WgmmaSpec};
use crate::ptx::ast::{Literal, Operand};

type R = Result<(), LowerError>;

pub(super) fn wgmma(b: &mut Builder, cx: &mut Cx) -> R {
    // The §9.7.15 syntax writes `.sync.aligned`; ptxas 13.5 (`-arch=sm_90a`) also assembles
    // every form without `.aligned` (`wgmma.fence.sync`, `wgmma.wait_group.sync 0`,
    // `wgmma.mma_async.sync.m64n8k16.f32.f16.f16 …`) and refuses it without `.sync` (".sync
    // modifier required for instruction 'wgmma.mma_async'"). The warpgroup runs the instruction
    // together either way, as ptxjit runs it.
    if !cx.has("sync") {
        return Err(cx.bad("needs .sync (wgmma….sync.aligned)"));
    }
    let words = 2 + cx.has("aligned") as usize;
    match cx.mods.first().copied() {
        Some("fence") | Some("commit_group") => {
            if cx.mods.len() != words {
                return Err(cx.bad("takes only .sync.aligned"));
            }
            cx.expect_operands(0)?;
            full_warp_wait(b, cx);
            Ok(())
        }
        Some("wait_group") => {
            if cx.mods.len() != words {
                return Err(cx.bad("takes only .sync.aligned"));
            }
            cx.expect_operands(1)?;
            match cx.opnd(0)? {
                Operand::Imm(Literal::Int { .. }, _) => {}
                o => return Err(LowerError::new(
                    o.span(),
                    "wgmma.wait_group takes an integer constant (the groups that may stay pending)",
                )),
            }
            full_warp_wait(b, cx);
            Ok(())
        }
        Some("mma_async") => mma_async(b, cx),
        _ => Err(cx.bad("needs one of .mma_async, .fence, .commit_group, .wait_group")),
    }
}

/// The `.m64nNkK` shape modifier: (N, K).
fn shape(cx: &Cx) -> Result<(u16, u16), LowerError> {
    let found = cx.mods.iter().find_map(|m| {
        let rest = m.strip_prefix("m64n")?;
        let (n, k) = rest.split_once('k')?;
        Some((n.parse().ok()?, k.parse().ok()?))
    });
    found.ok_or_else(|| cx.bad("missing shape .m64nNkK"))
}

/// Whether `n` is an N of the ISA's shapes for input type `a` (§9.7.15.5.2: multiples of 8 up
/// to 256; for 8-bit integers 8, 16, 24 and then multiples of 16).
fn n_ok(n: u16, a: MmaElem) -> bool {
    let step = n.is_multiple_of(8) && (8..=256).contains(&n);
    match a {
        MmaElem::S8 | MmaElem::U8 | MmaElem::B1 => step && (n <= 24 || n.is_multiple_of(16)),
        _ => step,
    }
}

/// The dense K of a `wgmma.mma_async` with inputs `a` and how many imm-scale-a/b and
/// imm-trans-a/b operands it takes (PTX ISA §9.7.15.5.2); `None` for types `wgmma` does not
/// take. The fuzz generator's forms are checked against it.
pub(crate) fn wgmma_operands(a: MmaElem) -> Option<(u16, usize, usize)> {
    use MmaElem::*;
    match a {
        F16 | Bf16 => Some((16, 2, 2)),
        Tf32 => Some((8, 2, 0)),
        S8 | U8 => Some((32, 0, 0)),
        E4m3 | E5m2 => Some((32, 2, 0)),
        B1 => Some((256, 0, 0)),
        F32 | F64 | S4 | U4 | S32 | E2m3 | E3m2 | E2m1 => None,
    }
}

/// An immediate operand that must be one of `allowed`.
pub(super) fn imm(cx: &Cx, k: usize, what: &str, allowed: &[i64]) -> Result<i64, LowerError> {
    let o = cx.opnd(k)?;
    match o {
        Operand::Imm(Literal::Int { value, .. }, _) if allowed.contains(value) => Ok(*value),
        _ => Err(LowerError::new(
            o.span(),
            format!(
                "'{}': {what} must be an integer constant in {allowed:?}",
                cx.ptx
            ),
        )),
    }
}

/// PTX ISA §9.7.15.5.2: `wgmma.mma_async.sync.aligned.shape.dtype.atype.btype d, a-desc|a,
/// b-desc, scale-d {, imm-scale-a, imm-scale-b {, imm-trans-a}, imm-trans-b}` (integer:
/// `…{.satfinite}.s32.atype.btype d, a-desc|a, b-desc, scale-d`), and §9.7.15.6.2's sparse
/// `wgmma.mma_async.sp…` with `sp-meta, sp-sel` after `b-desc` and K doubled.
///
/// Layout words: ptxas 13.5 takes up to two of `.row`/`.col` anywhere after `mma_async`
/// (A's then B's layout, "too many layout specifiers" past two) for every type, and they
/// change nothing: `.row.col`, `.col.row`, `.row.row`, `.col.col` and none give the same
/// cubin (sm_90a, `.f16` with imm-trans 0 or 1, `.tf32`), the imm-trans operands alone
/// deciding the layout of A and B in shared memory. So they are taken and ignored.
fn mma_async(b: &mut Builder, cx: &mut Cx) -> R {
    let sparse = cx.mods.get(1) == Some(&"sp");
    let layouts = cx
        .mods
        .iter()
        .filter(|m| matches!(**m, "row" | "col"))
        .count();
    if layouts > 2 {
        return Err(cx.bad(
            "too many layout words: wgmma.mma_async takes at most two (.row/.col for A, then B)",
        ));
    }
    for m in &cx.mods[if sparse { 2 } else { 1 }..] {
        let ok = matches!(
            *m,
            "sync" | "aligned" | "satfinite" | "and" | "popc" | "row" | "col"
        ) || m.starts_with("m64n")
            || MmaElem::from_modifier(m).is_some();
        if !ok {
            return Err(cx.bad(&format!("modifier '.{m}' is not allowed here")));
        }
    }
    mma_async_form(b, cx, sparse)
}

/// The operands and spec of a dense or (`sparse`) sparse `wgmma.mma_async`.
fn mma_async_form(b: &mut Builder, cx: &mut Cx, sparse: bool) -> R {
    let (n, k) = shape(cx)?;
    let types: Vec<MmaElem> = cx
        .mods
        .iter()
        .filter_map(|m| MmaElem::from_modifier(m))
        .collect();
    let [d, a, bt] = types[..] else {
        return Err(cx.bad("needs three types: .dtype.atype.btype"));
    };
    use MmaElem::*;
    let form_ok = match a {
        F16 => bt == F16 && matches!(d, F16 | F32),
        Bf16 => bt == Bf16 && d == F32,
        Tf32 => bt == Tf32 && d == F32,
        S8 | U8 => matches!(bt, S8 | U8) && d == S32,
        E4m3 | E5m2 => matches!(bt, E4m3 | E5m2) && matches!(d, F16 | F32),
        // `.s32.b1.b1.and.popc` (the only bit operation wgmma has).
        B1 => bt == B1 && d == S32 && !sparse,
        F32 | F64 | S4 | U4 | S32 | E2m3 | E3m2 | E2m1 => false,
    };
    let (want_k, nscale, ntrans) = wgmma_operands(a).unwrap_or((0, 0, 0));
    let bitop = cx.has("and") || cx.has("popc");
    if (a == B1) != (cx.has("and") && cx.has("popc")) || (a != B1 && bitop) {
        return Err(cx.bad(".b1 inputs take .and.popc (and only they do)"));
    }
    // A sparse A's K is twice the dense one's (§9.7.15.6.2: m64nNk32 for `.f16`/`.bf16`,
    // k16 for `.tf32`, k64 for 8-bit inputs).
    let want_k = if sparse { 2 * want_k } else { want_k };
    if !form_ok || k != want_k || !n_ok(n, a) {
        let sp = if sparse { ".sp" } else { "" };
        return Err(cx.bad(&format!("no wgmma{sp} form .m64n{n}k{k}.{d}.{a}.{bt}")));
    }
    let satfinite = cx.has("satfinite");
    if satfinite && (!a.is_int() || a == B1) {
        return Err(cx.bad(".satfinite applies to 8-bit integer wgmma only"));
    }
    let a_regs = matches!(cx.opnd(1)?, Operand::Vector(..));
    // A from registers takes no imm-trans-a.
    let ntrans = if a_regs && ntrans == 2 { 1 } else { ntrans };
    // `sp-meta, sp-sel` follow b-desc in a sparse form.
    let sp = if sparse { 2 } else { 0 };
    cx.expect_operands(4 + sp + nscale + ntrans)?;
    let selector = if sparse {
        // §9.7.15.6.1: a thread pair (selector 0 or 1) of each group of four gives the
        // metadata of 16-bit and `.tf32` inputs; all four threads (selector 0) for 8-bit ones.
        let allowed: &[i64] = if a.bits() == 8 { &[0] } else { &[0, 1] };
        Some(imm(cx, 4, "sp-sel (the sparsity selector)", allowed)? as u8)
    } else {
        None
    };
    let mut spec = WgmmaSpec {
        n,
        k,
        a,
        b: bt,
        d,
        a_src: WgmmaA::Regs,
        trans_b: false,
        neg_a: false,
        neg_b: false,
        satfinite,
        sparse: selector,
    };
    if nscale == 2 {
        spec.neg_a = imm(cx, 4 + sp, "imm-scale-a", &[1, -1])? == -1;
        spec.neg_b = imm(cx, 5 + sp, "imm-scale-b", &[1, -1])? == -1;
    }
    let trans_a = match ntrans {
        2 => {
            spec.trans_b = imm(cx, 7 + sp, "imm-trans-b", &[0, 1])? == 1;
            imm(cx, 6 + sp, "imm-trans-a", &[0, 1])? == 1
        }
        1 => {
            spec.trans_b = imm(cx, 6 + sp, "imm-trans-b", &[0, 1])? == 1;
            false
        }
        _ => false,
    };
    if !a_regs {
        spec.a_src = WgmmaA::Desc { trans: trans_a };
    }
    let (nd, td) = spec.d_regs();
    let mut args = vec![];
    let d_ops = regs(cx, 0, nd)?;
    for o in &d_ops {
        args.push(b.src_rel(cx, o, td, None)?);
    }
    if a_regs {
        for o in regs(cx, 1, spec.a_regs())? {
            args.push(b.src_rel(cx, &o, Type::I32, None)?);
        }
    } else {
        args.push(b.src(cx, 1, Type::I64)?);
    }
    args.push(b.src(cx, 2, Type::I64)?);
    args.push(b.src(cx, 3 + sp, Type::Pred)?);
    if sparse {
        args.push(b.src(cx, 3, Type::I32)?);
    }
    full_warp_wait(b, cx);
    let outs: Vec<Var> = (0..nd).map(|_| b.new_var(td)).collect();
    b.emit(Op::Wgmma { spec }, args, outs.clone(), cx.loc, &cx.ptx);
    for (o, v) in d_ops.iter().zip(outs) {
        if let Some(t) = b.dst_rel(cx, o, td, None)? {
            b.copy(t, v, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}
