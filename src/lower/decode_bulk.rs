//! Bulk asynchronous copies and the Hopper "async" stores (PTX ISA §9.7.9.25.4,
//! "Data Movement and Conversion Instructions: cp.async.bulk, cp.reduce.async.bulk,
//! cp.async.bulk.prefetch", §9.7.9.25.6 the bulk async-groups, §9.7.9.12 `st.async`,
//! §9.7.13.7 `red.async`), and the no-effect instructions `setmaxnreg` (§9.7.19.5) and
//! `griddepcontrol` (§9.7.13.12).
//!
//! As for `cp.async` (`decode_async.rs`), each copy is done when the instruction executes:
//! an asynchronous copy that completes at once is one legal schedule. Its completion is then
//! signalled as the ISA says: `.mbarrier::complete_tx::bytes` performs a complete-tx of the
//! copied byte count on the mbarrier object (`runtime::mbarrier`; a complete-tx before the
//! matching expect-tx leaves the tx-count negative until the expect-tx, which the object
//! allows), and `.bulk_group` copies are complete when `cp.async.bulk.commit_group` and
//! `cp.async.bulk.wait_group{.read}` run, which therefore have nothing to wait for.
//!
//! A `.shared::cluster` address may name another CTA's shared memory (`runtime::cluster`
//! defines the encoding), and `.multicast::cluster` copies to the same offset in the shared
//! memory of each CTA whose rank's bit is set in ctaMask, completing tx bytes on the mbarrier
//! at the same offset in each of them (`mapa` of both addresses per rank; a rank outside the
//! cluster are ignored).
//!
//! Forms (`.L2::cache_hint` and its cache-policy operand are dropped before decoding):
//! ```text
//! cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar];
//! cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}
//!                                                [dst], [src], size, [mbar]{, ctaMask};
//! cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dst], [src], size, [mbar];
//! cp.async.bulk.global.shared::cta.bulk_group{.cp_mask} [dst], [src], size{, byteMask};
//! cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.op.type
//!                                                [dst], [src], size, [mbar];
//! cp.reduce.async.bulk.global.shared::cta.bulk_group.op{.noftz}.type [dst], [src], size;
//! cp.async.bulk.prefetch.L2.global               [src], size;
//! cp.async.bulk.commit_group;   cp.async.bulk.wait_group{.read} N;
//! st.async{.weak}{.cluster}{.shared::cluster}{.mbarrier::complete_tx::bytes}{.v2,.v4}.type [a], b, [mbar];
//! red.async.relaxed.cluster{.shared::cluster}{.mbarrier::complete_tx::bytes}.op.type [a], b, [mbar];
//! setmaxnreg.{inc,dec}.sync.aligned.u32 N;       griddepcontrol.{launch_dependents,wait};
//! ```
//! Bulk copies need 16-byte aligned addresses and a size that is a multiple of 16 (§9.7.9.25.4.1):
//! a constant size that is not is a load error; at run time a violation traps (a fault naming
//! the instruction) rather than copying a wrong byte range.

use super::super::build::{Builder, PTerm, Var};
use super::super::LowerError;
use super::copy_async::if_then;
use super::Cx;
use crate::ir::{AtomOp, HalfFmt, ICmp, MbarOp, Op, Sign, Space, Type};
use crate::ptx::ast::{Literal, Operand};

type R = Result<(), LowerError>;

/// The state spaces among the modifiers, in order (the destination's first).
fn spaces<'a>(cx: &Cx<'a>) -> Vec<&'a str> {
    cx.mods
        .iter()
        .copied()
        .filter(|m| matches!(*m, "global" | "shared" | "shared::cta" | "shared::cluster"))
        .collect()
}

fn ir_space(s: &str) -> Space {
    if s == "global" {
        Space::Global
    } else {
        Space::Shared
    }
}

/// Every modifier of `cx` from index `from` is in `allowed`, none twice.
pub(super) fn only(cx: &Cx, from: usize, allowed: &[&str], name: &str) -> R {
    let rest = &cx.mods[from.min(cx.mods.len())..];
    for (k, m) in rest.iter().enumerate() {
        if !allowed.contains(m) {
            return Err(cx.bad(&format!("illegal modifier '.{m}' for '{name}'")));
        }
        if rest[..k].contains(m) {
            return Err(cx.bad(&format!("modifier '.{m}' given twice")));
        }
    }
    Ok(())
}

/// An integer constant operand.
pub(super) fn imm(cx: &Cx, k: usize) -> Result<Option<i64>, LowerError> {
    Ok(match cx.opnd(k)? {
        Operand::Imm(Literal::Int { value, .. }, _) => Some(*value),
        _ => None,
    })
}

pub(super) fn bulk(b: &mut Builder, cx: &mut Cx) -> R {
    match cx.mods.get(2).copied() {
        Some("commit_group") => {
            only(cx, 3, &[], "cp.async.bulk.commit_group")?;
            cx.expect_operands(0)
        }
        Some("wait_group") => {
            // `.sync_restrict::proxy::async` (PTX ISA 9.5) narrows what the wait orders to
            // the async proxy: with every copy complete it has nothing to wait for either.
            only(
                cx,
                3,
                &["read", "sync_restrict::proxy::async"],
                "cp.async.bulk.wait_group",
            )?;
            if cx.has("read") && cx.has("sync_restrict::proxy::async") {
                return Err(cx.bad(".read and .sync_restrict::proxy::async exclude each other"));
            }
            cx.expect_operands(1)?;
            match imm(cx, 0)? {
                Some(n) if n >= 0 => Ok(()),
                _ => Err(cx.bad(
                    "takes a non-negative integer constant (the bulk async-groups that may stay pending)",
                )),
            }
        }
        Some("prefetch") => {
            only(cx, 3, &["L2", "global"], "cp.async.bulk.prefetch")?;
            if !(cx.has("L2") && cx.has("global")) {
                return Err(cx.bad("needs .L2.global"));
            }
            cx.expect_operands(2)?;
            // A hint: the operands are read for their checks only.
            b.address(cx, 0, Space::Global)?;
            b.src(cx, 1, Type::I32)?;
            Ok(())
        }
        _ => copy(b, cx),
    }
}

/// How a bulk copy or reduction signals completion, from its spaces and modifiers.
struct Form {
    dst: Space,
    src: Space,
    /// `.mbarrier::complete_tx::bytes` (else `.bulk_group`).
    mbar: bool,
    multicast: bool,
    /// `.relaxed.<scope>.b128`: each 16-byte element one single-copy-atomic access.
    relaxed: bool,
}

/// The direction and completion mechanism of `cp{.reduce}.async.bulk` (the modifiers after
/// `words`, the operation's own words; `extra` the other modifiers the form allows).
fn form(cx: &Cx, words: usize, extra: &[&str], name: &str) -> Result<Form, LowerError> {
    let sp = spaces(cx);
    let (dst, src) = match sp.as_slice() {
        [d, s] => (*d, *s),
        _ => return Err(cx.bad("needs a destination and a source state space")),
    };
    let mbar = cx.has("mbarrier::complete_tx::bytes");
    let group = cx.has("bulk_group");
    let multicast = cx.has("multicast::cluster");
    let ok = match (dst, src) {
        ("shared::cta" | "shared::cluster", "global") => mbar && !group,
        ("shared::cluster", "shared::cta") => mbar && !group && !multicast,
        ("global", "shared::cta") => group && !mbar && !multicast,
        _ => false,
    };
    if !ok || (multicast && dst != "shared::cluster") {
        return Err(cx.bad(
            "copies .shared::{cta,cluster}.global or .shared::cluster.shared::cta with \
             .mbarrier::complete_tx::bytes, or .global.shared::cta with .bulk_group",
        ));
    }
    let mut allowed = vec![
        dst,
        src,
        "mbarrier::complete_tx::bytes",
        "bulk_group",
        "multicast::cluster",
    ];
    allowed.extend_from_slice(extra);
    only(cx, words, &allowed, name)?;
    Ok(Form {
        dst: ir_space(dst),
        src: ir_space(src),
        mbar,
        multicast,
        relaxed: false,
    })
}

/// The PTX ISA 9.3 element words of `cp.async.bulk` as ptxas 13.5 takes them, in every
/// direction: `.b128` (16-byte elements, which every bulk copy here moves anyway) alone, or
/// `.relaxed.<scope>.b128` (`.cta`, `.cluster`, `.gpu`, `.sys`), where each 16-byte element
/// is read and written as one relaxed access at that scope. ptxas refuses `.relaxed` without
/// a scope ("Modifier '.relaxed' requires scope"), a scope without `.relaxed` ("Modifier
/// '.cta' requires modifier '.order'"), `.release`/`.acquire`/`.weak`, and `.relaxed` with
/// any type but `.b128`. Returns whether the copy is `.relaxed`.
fn bulk_order(cx: &Cx) -> Result<bool, LowerError> {
    let relaxed = cx.has("relaxed");
    let scope = ["cta", "cluster", "gpu", "sys"]
        .iter()
        .filter(|s| cx.has(s))
        .count();
    for m in ["release", "acquire", "acq_rel", "weak", "volatile"] {
        if cx.has(m) {
            return Err(cx.bad(&format!(
                "illegal modifier '.{m}' for 'cp.async.bulk': its order is .relaxed (with a scope and .b128)"
            )));
        }
    }
    match (relaxed, scope) {
        (true, 0) => {
            Err(cx
                .bad("'.relaxed' on 'cp.async.bulk' needs a scope (.cta, .cluster, .gpu or .sys)"))
        }
        (false, 1..) => {
            Err(cx.bad("a scope on 'cp.async.bulk' needs the order .relaxed before it"))
        }
        (_, 2..) => Err(cx.bad("'cp.async.bulk' takes one scope")),
        (true, _) if !cx.has("b128") => {
            Err(cx.bad("'cp.async.bulk.relaxed' needs the element type .b128"))
        }
        _ => Ok(relaxed),
    }
}

fn copy(b: &mut Builder, cx: &mut Cx) -> R {
    let relaxed = bulk_order(cx)?;
    let words = ["cp_mask", "relaxed", "cta", "cluster", "gpu", "sys", "b128"];
    let f = form(cx, 2, &words, "cp.async.bulk")?;
    let f = Form { relaxed, ..f };
    let cp_mask = cx.has("cp_mask");
    if cp_mask && f.mbar {
        return Err(cx.bad(".cp_mask applies to .global.shared::cta copies (.bulk_group)"));
    }
    let n = cx.inst.operands.len();
    let want = match (f.mbar, f.multicast) {
        (true, true) => 5,
        (true, false) => 4,
        (false, _) => 3 + usize::from(cp_mask),
    };
    if n != want {
        return Err(cx.bad(&format!(
            "expects {want} operands ([dst], [src], size{}), found {n}",
            match (want, cp_mask) {
                (5, _) => ", [mbar], ctaMask",
                (4, false) => ", [mbar]",
                (4, true) => ", byteMask",
                _ => "",
            }
        )));
    }
    let (dst, src, size) = operands(b, cx, &f)?;
    if cp_mask {
        // §9.7.9.25.4.1: "The i-th bit in the 16-bit wide byteMask operand specifies whether
        // the i-th byte of each 16-byte wide chunk of source data is copied to the
        // destination. If the bit is set, the byte is copied." The other bytes of the
        // destination are not written.
        let m = b.src(cx, 3, Type::I16)?;
        let m = b.coerce(cx, m, Type::I32, Some(Sign::Unsigned), cx.inst.span)?;
        return masked_copy_body(b, cx, &f, dst, src, size, m);
    }
    if f.multicast {
        // One copy per CTA rank whose bit is set in ctaMask (16 bits: a cluster's most CTAs).
        let m = b.src(cx, 4, Type::I16)?;
        let mb = b.address(cx, 3, Space::Shared)?;
        let span = cx.inst.span;
        let mb = b.coerce(cx, mb, Type::I64, Some(Sign::Unsigned), span)?;
        let sreg = Op::SReg {
            reg: crate::ir::SReg::ClusterNctaRank,
        };
        let n = b.emit1(sreg, vec![], Type::I32, cx.loc, &cx.ptx);
        let m = b.coerce(cx, m, Type::I32, Some(Sign::Unsigned), span)?;
        for rank in 0..16u64 {
            // (Bits of ranks outside the cluster name no CTA: no copy.)
            let k = b.konst(cx, Type::I32, 1 << rank);
            let bit = b.emit1(Op::And {}, vec![m, k], Type::I32, cx.loc, &cx.ptx);
            let zero = b.konst(cx, Type::I32, 0);
            let set = cmp(b, cx, ICmp::Ne, bit, zero);
            let r = b.konst(cx, Type::I32, rank);
            let inside = cmp(b, cx, ICmp::Lt, r, n);
            let on = b.emit1(Op::And {}, vec![set, inside], Type::Pred, cx.loc, &cx.ptx);
            if_then(b, cx, on, |b| {
                let r = b.konst(cx, Type::I32, rank);
                let map = Op::Mapa { generic: false };
                let d = b.emit1(map, vec![dst, r], Type::I64, cx.loc, &cx.ptx);
                let mbr = b.emit1(map, vec![mb, r], Type::I64, cx.loc, &cx.ptx);
                copy_body(b, cx, &f, d, src, size)?;
                complete_tx_at(b, cx, mbr, size)
            })?;
        }
        return Ok(());
    }
    copy_body(b, cx, &f, dst, src, size)?;
    if f.mbar {
        complete_tx(b, cx, 3, size)?;
    }
    Ok(())
}

/// The 16-byte pieces of a bulk copy of `size` bytes from `src` to `dst`, after the
/// alignment check.
fn copy_body(b: &mut Builder, cx: &Cx, f: &Form, dst: Var, src: Var, size: Var) -> R {
    check_bulk(b, cx, &[dst, src], size)?;
    if f.relaxed {
        // One relaxed 16-byte load and store per element: neither tears against another
        // thread's 16-byte access of the same element.
        return for_each(b, cx, size, 16, |b, off| {
            let s = offset(b, cx, src, off, 0);
            let (l, h) = (b.new_var(Type::I64), b.new_var(Type::I64));
            let ld = Op::Strong128 {
                store: false,
                space: f.src,
            };
            b.emit(ld, vec![s], vec![l, h], cx.loc, &cx.ptx);
            let d = offset(b, cx, dst, off, 0);
            let st = Op::Strong128 {
                store: true,
                space: f.dst,
            };
            b.emit(st, vec![d, l, h], vec![], cx.loc, &cx.ptx);
            Ok(())
        });
    }
    for_each(b, cx, size, 16, |b, off| {
        for half in [0u64, 8] {
            let s = offset(b, cx, src, off, half);
            let v = b.emit1(
                Op::Load {
                    space: f.src,
                    align: 8,
                },
                vec![s],
                Type::I64,
                cx.loc,
                &cx.ptx,
            );
            let d = offset(b, cx, dst, off, half);
            let st = Op::Store {
                space: f.dst,
                align: 8,
            };
            b.emit(st, vec![d, v], vec![], cx.loc, &cx.ptx);
        }
        Ok(())
    })
}

/// [`copy_body`] with a byte mask (`.cp_mask`): byte `i` of each 16-byte chunk is copied when
/// bit `i` of `mask` (an i32 holding the 16-bit byteMask) is set, else left as it is.
fn masked_copy_body(
    b: &mut Builder,
    cx: &Cx,
    f: &Form,
    dst: Var,
    src: Var,
    size: Var,
    mask: Var,
) -> R {
    check_bulk(b, cx, &[dst, src], size)?;
    for_each(b, cx, size, 16, |b, off| {
        for i in 0..16u64 {
            let k = b.konst(cx, Type::I32, 1 << i);
            let bit = b.emit1(Op::And {}, vec![mask, k], Type::I32, cx.loc, &cx.ptx);
            let zero = b.konst(cx, Type::I32, 0);
            let set = cmp(b, cx, ICmp::Ne, bit, zero);
            if_then(b, cx, set, |b| {
                let s = offset(b, cx, src, off, i);
                let load = Op::Load {
                    space: f.src,
                    align: 1,
                };
                let v = b.emit1(load, vec![s], Type::I8, cx.loc, &cx.ptx);
                let d = offset(b, cx, dst, off, i);
                let st = Op::Store {
                    space: f.dst,
                    align: 1,
                };
                b.emit(st, vec![d, v], vec![], cx.loc, &cx.ptx);
                Ok(())
            })?;
        }
        Ok(())
    })
}

/// `[dst], [src], size` as 64-bit addresses and a 64-bit byte count.
fn operands(b: &mut Builder, cx: &mut Cx, f: &Form) -> Result<(Var, Var, Var), LowerError> {
    let d = b.address(cx, 0, f.dst)?;
    let s = b.address(cx, 1, f.src)?;
    if let Some(v) = imm(cx, 2)? {
        if v <= 0 || v % 16 != 0 {
            return Err(LowerError::new(
                cx.opnd(2)?.span(),
                format!("size {v} is not a positive multiple of 16 bytes"),
            ));
        }
    }
    let n = b.src(cx, 2, Type::I32)?;
    let span = cx.inst.span;
    let d = b.coerce(cx, d, Type::I64, Some(Sign::Unsigned), span)?;
    let s = b.coerce(cx, s, Type::I64, Some(Sign::Unsigned), span)?;
    let n = b.coerce(cx, n, Type::I64, Some(Sign::Unsigned), span)?;
    Ok((d, s, n))
}

/// Trap unless every address and the size are multiples of 16 (PTX ISA §9.7.9.25.4.1).
fn check_bulk(b: &mut Builder, cx: &Cx, addrs: &[Var], size: Var) -> R {
    let mut acc = size;
    for &a in addrs {
        acc = b.emit1(Op::Or {}, vec![acc, a], Type::I64, cx.loc, &cx.ptx);
    }
    let m = b.konst(cx, Type::I64, 15);
    let low = b.emit1(Op::And {}, vec![acc, m], Type::I64, cx.loc, &cx.ptx);
    let zero = b.konst(cx, Type::I64, 0);
    let bad = cmp(b, cx, ICmp::Ne, low, zero);
    let trap = b.new_block();
    let after = b.new_block();
    let cur = b.cur as usize;
    b.blocks[cur].term = PTerm::Branch(bad, trap, after);
    b.blocks[cur].term_loc = cx.loc;
    b.blocks[trap as usize].term = PTerm::Trap;
    b.blocks[trap as usize].term_loc = cx.loc;
    b.cur = after;
    Ok(())
}

/// complete-tx of `bytes` (an i64 or i32 value) on the mbarrier at operand `k`.
fn complete_tx(b: &mut Builder, cx: &Cx, k: usize, bytes: Var) -> R {
    let mb = b.address(cx, k, Space::Shared)?;
    complete_tx_at(b, cx, mb, bytes)
}

/// complete-tx of `bytes` (an i64 or i32 value) on the mbarrier at shared address `mb`.
fn complete_tx_at(b: &mut Builder, cx: &Cx, mb: Var, bytes: Var) -> R {
    let n = b.coerce(cx, bytes, Type::I32, Some(Sign::Unsigned), cx.inst.span)?;
    b.emit(
        Op::MBarrier {
            op: MbarOp::CompleteTx,
            space: Space::Shared,
        },
        vec![mb, n],
        vec![],
        cx.loc,
        &cx.ptx,
    );
    Ok(())
}

fn cmp(b: &mut Builder, cx: &Cx, cc: ICmp, x: Var, y: Var) -> Var {
    let op = Op::ICmp {
        cc,
        sign: Sign::Unsigned,
    };
    b.emit1(op, vec![x, y], Type::Pred, cx.loc, &cx.ptx)
}

/// `base + off + k` (64-bit).
fn offset(b: &mut Builder, cx: &Cx, base: Var, off: Var, k: u64) -> Var {
    let a = b.emit1(Op::IAdd {}, vec![base, off], Type::I64, cx.loc, &cx.ptx);
    if k == 0 {
        return a;
    }
    let kv = b.konst(cx, Type::I64, k);
    b.emit1(Op::IAdd {}, vec![a, kv], Type::I64, cx.loc, &cx.ptx)
}

/// `for (off = 0; off < n; off += step) body(off)` (n, off: i64).
pub(super) fn for_each(
    b: &mut Builder,
    cx: &Cx,
    n: Var,
    step: u64,
    body: impl FnOnce(&mut Builder, Var) -> R,
) -> R {
    let off = b.new_var(Type::I64);
    let zero = b.konst(cx, Type::I64, 0);
    b.copy(off, zero, cx.loc, &cx.ptx);
    let head = b.new_block();
    let inner = b.new_block();
    let after = b.new_block();
    let cur = b.cur as usize;
    b.blocks[cur].term = PTerm::Jump(head);
    b.blocks[cur].term_loc = cx.loc;
    b.cur = head;
    let go = cmp(b, cx, ICmp::Lt, off, n);
    let h = b.cur as usize;
    b.blocks[h].term = PTerm::Branch(go, inner, after);
    b.blocks[h].term_loc = cx.loc;
    b.cur = inner;
    body(b, off)?;
    let st = b.konst(cx, Type::I64, step);
    let next = b.emit1(Op::IAdd {}, vec![off, st], Type::I64, cx.loc, &cx.ptx);
    b.copy(off, next, cx.loc, &cx.ptx);
    let cur = b.cur as usize;
    b.blocks[cur].term = PTerm::Jump(head);
    b.blocks[cur].term_loc = cx.loc;
    b.cur = after;
    Ok(())
}

/// The reduction operations of the bulk and tensor reductions (PTX ISA §9.7.9.25.4.2,
/// §9.7.9.25.5.2, §9.7.13.7).
pub(super) const REDUCTIONS: [&str; 8] = ["add", "min", "max", "inc", "dec", "and", "or", "xor"];

/// The one reduction operation among `cx`'s modifiers ([`REDUCTIONS`]).
pub(super) fn reduction<'a>(cx: &Cx<'a>) -> Result<&'static str, LowerError> {
    cx.one_word(&REDUCTIONS, "reduction operation")
}

/// The reduction of `cp.reduce.async.bulk` / `red.async`: the atomic operation and the IR
/// type of one element, checked against the ISA's table for the form (`global`: the
/// `.global.shared::cta` bulk reduction; else a `.shared::cluster` destination).
fn red_op(cx: &Cx, global: bool, name: &str) -> Result<(AtomOp, Type), LowerError> {
    let op = &reduction(cx)?;
    let tys = [
        "b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64", "f16", "bf16",
    ];
    let ty = &cx.one_word(&tys, "element type")?;
    let noftz = cx.has("noftz");
    // PTX ISA §9.7.9.25.4.2 (cp.reduce.async.bulk) and §9.7.13.7 (red.async): the types of
    // each operation; the .global destination of the bulk reduction allows more.
    let allowed: &[&str] = match (*op, global) {
        ("add", true) => &["u32", "s32", "u64", "f32", "f64", "f16", "bf16"],
        ("add", false) => &["u32", "s32", "u64"],
        ("min" | "max", true) => &["u32", "s32", "u64", "s64", "f16", "bf16"],
        ("min" | "max", false) => &["u32", "s32"],
        ("inc" | "dec", _) => &["u32"],
        ("and" | "or" | "xor", true) => &["b32", "b64"],
        ("and" | "or" | "xor", false) => &["b32"],
        _ => &[],
    };
    if !allowed.contains(ty) {
        return Err(cx.bad(&format!("'{name}' has no .{op}.{ty}")));
    }
    let half = match *ty {
        "f16" => Some(HalfFmt::F16),
        "bf16" => Some(HalfFmt::Bf16),
        _ => None,
    };
    if noftz != (half.is_some() && *op == "add") {
        return Err(cx.bad(".noftz goes with .add on .f16/.bf16, and only there"));
    }
    let sign = if ty.starts_with('s') {
        Sign::Signed
    } else {
        Sign::Unsigned
    };
    let ir_ty = match *ty {
        "b32" | "u32" | "s32" => Type::I32,
        "b64" | "u64" | "s64" => Type::I64,
        "f32" => Type::F32,
        "f64" => Type::F64,
        _ => Type::I16,
    };
    let aop = match (*op, half) {
        ("add", Some(fmt)) => AtomOp::HAdd { fmt, pair: false },
        ("min" | "max", Some(fmt)) => AtomOp::HMinMax {
            fmt,
            pair: false,
            max: *op == "max",
        },
        ("add", None) if matches!(*ty, "f32" | "f64") => AtomOp::FAdd,
        ("add", None) => AtomOp::Add,
        ("min", None) => AtomOp::Min(sign),
        ("max", None) => AtomOp::Max(sign),
        ("inc", None) => AtomOp::Inc,
        ("dec", None) => AtomOp::Dec,
        ("and", None) => AtomOp::And,
        ("or", None) => AtomOp::Or,
        ("xor", None) => AtomOp::Xor,
        _ => return Err(cx.bad("needs one reduction operation")),
    };
    Ok((aop, ir_ty))
}

pub(super) fn reduce(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.mods.get(1) != Some(&"async") || cx.mods.get(2) != Some(&"bulk") {
        return Err(cx.bad("expects cp.reduce.async.bulk"));
    }
    let extra = [
        "add", "min", "max", "inc", "dec", "and", "or", "xor", "noftz", "b32", "b64", "u32", "s32",
        "u64", "s64", "f32", "f64", "f16", "bf16", "relaxed", "cta", "cluster", "gpu", "sys",
    ];
    let f = form(cx, 3, &extra, "cp.reduce.async.bulk")?;
    reduce_order(cx, f.dst == Space::Global)?;
    if f.multicast || f.src != Space::Shared || (f.dst == Space::Shared) != f.mbar {
        return Err(cx.bad(
            "reduces .shared::cta into .shared::cluster (.mbarrier::complete_tx::bytes) or \
             into .global (.bulk_group)",
        ));
    }
    let (aop, ty) = red_op(cx, f.dst == Space::Global, "cp.reduce.async.bulk")?;
    cx.expect_operands(if f.mbar { 4 } else { 3 })?;
    let (dst, src, size) = operands(b, cx, &f)?;
    check_bulk(b, cx, &[dst, src], size)?;
    let w = ty.bytes() as u64;
    for_each(b, cx, size, w, |b, off| {
        let s = offset(b, cx, src, off, 0);
        let v = b.emit1(
            Op::Load {
                space: Space::Shared,
                align: w as u8,
            },
            vec![s],
            ty,
            cx.loc,
            &cx.ptx,
        );
        let d = offset(b, cx, dst, off, 0);
        let space = f.dst;
        b.emit1(Op::Atom { op: aop, space }, vec![d, v], ty, cx.loc, &cx.ptx);
        Ok(())
    })?;
    if f.mbar {
        complete_tx(b, cx, 3, size)?;
    }
    Ok(())
}

/// The memory order of `cp.reduce.async.bulk` (PTX ISA 9.3): none, or `.relaxed` with a scope,
/// `.cta`/`.cluster`/`.gpu`/`.sys` into `.global` (`global`), `.cta`/`.cluster` into
/// `.shared::cluster`, as ptxas 13.5 takes them ("Modifier '.relaxed' requires scope",
/// "Modifier '.gpu' requires modifier '.order'", "Illegal modifier '.sys' for instruction
/// 'cp.reduce.async.bulk' with '.relaxed.shared::cluster.shared::cta'", "Multiple scope
/// modifiers specified", "Illegal modifier '.weak'"). Each element's reduction is one atomic
/// operation in every form; a relaxed order at any of these scopes is what every atomic of
/// ptxjit already is (atomic in the whole process, ordering nothing else), so the words
/// change nothing in the lowering.
fn reduce_order(cx: &Cx, global: bool) -> R {
    for m in ["release", "acquire", "acq_rel", "weak", "volatile", "mmio"] {
        if cx.has(m) {
            return Err(cx.bad(&format!(
                "illegal modifier '.{m}' for 'cp.reduce.async.bulk': its order is .relaxed with a scope"
            )));
        }
    }
    let all = ["cta", "cluster", "gpu", "sys"];
    let scope = cx.word_of(&all, "scope")?;
    match (cx.has("relaxed"), scope) {
        (false, None) => Ok(()),
        (true, None) => Err(cx.bad(
            "'.relaxed' on 'cp.reduce.async.bulk' needs a scope (.cta, .cluster, .gpu or .sys)",
        )),
        (false, Some(s)) => Err(cx.bad(&format!(
            "scope '.{s}' on 'cp.reduce.async.bulk' needs the order .relaxed before it"
        ))),
        (true, Some(s @ ("gpu" | "sys"))) if !global => Err(cx.bad(&format!(
            "scope '.{s}' is no scope of a reduction into .shared::cluster (.cta or .cluster)"
        ))),
        (true, Some(_)) => Ok(()),
    }
}

/// The address operand of `st.async`/`red.async` in `.shared::cluster` (its only space; a
/// missing qualifier means the same, PTX ISA §9.7.9.12).
fn cluster_form(cx: &Cx, name: &str) -> R {
    let sp = spaces(cx);
    if sp.iter().any(|s| *s != "shared::cluster") || sp.len() > 1 {
        return Err(cx.bad(&format!("'{name}' writes .shared::cluster memory")));
    }
    if !cx.has("mbarrier::complete_tx::bytes") {
        return Err(cx.bad("needs .mbarrier::complete_tx::bytes"));
    }
    Ok(())
}

/// `st.async{.weak}.shared::cta{.mbarrier::complete_tx::bytes}.type [a], b{, [mbar]}`: the
/// form ptxas 13.5 takes into the executing CTA's own shared memory (the PTX ISA's syntax
/// lists `.shared::cluster` only). What ptxas makes of it decides its meaning:
/// - with an mbarrier operand it compiles to the same cubin as the `.shared::cluster` form
///   with `.mbarrier::complete_tx::bytes` (sm_90a), with or without that word: the store,
///   then a complete-tx of its size on `[mbar]`. A `.shared::cta` address is a
///   `.shared::cluster` address of the executing CTA (PTX ISA §5.1.4), so it is that form;
/// - without one (the word alone changes nothing in the cubin) it is a store with no
///   completion signal, done when the instruction executes, as every async store here.
///
/// ptxas refuses vectors ("Vector qualifier is not allowed for instruction 'st.async'"), the
/// `.cluster` scope ("Modifier '.cluster' requires '.shared::cluster' space"), 8-bit types
/// and `.b16`/`.u16` with an mbarrier ("Arguments mismatch"), and `.f16`/`.bf16`/`.b128`.
fn st_async_cta(b: &mut Builder, cx: &mut Cx) -> R {
    if spaces(cx).len() != 1 {
        return Err(cx.bad("'st.async' takes one state space (.shared::cta or .shared::cluster)"));
    }
    if cx.has("cluster") {
        return Err(
            cx.bad("'st.async.shared::cta' takes no .cluster scope: it needs .shared::cluster")
        );
    }
    if cx.has("v2") || cx.has("v4") || cx.has("v8") {
        return Err(cx.bad("'st.async.shared::cta' takes no vector qualifier"));
    }
    let with_mbar = cx.inst.operands.len() == 3;
    let tys: &[&str] = if with_mbar {
        &["b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64"]
    } else {
        &[
            "b16", "u16", "b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64",
        ]
    };
    let mut allowed = vec![
        "async",
        "weak",
        "shared::cta",
        "mbarrier::complete_tx::bytes",
    ];
    allowed.extend_from_slice(tys);
    only(cx, 0, &allowed, "st.async.shared::cta")?;
    let ty = st_async_type(cx, tys, "type for this operand count")?;
    if !with_mbar {
        cx.expect_operands(2)?;
    }
    let a = b.address(cx, 0, Space::Shared)?;
    let v = b.src(cx, 1, ty)?;
    let st = Op::Store {
        space: Space::Shared,
        align: ty.bytes() as u8,
    };
    b.emit(st, vec![a, v], vec![], cx.loc, &cx.ptx);
    if with_mbar {
        let bytes = b.konst(cx, Type::I32, ty.bytes() as u64);
        complete_tx(b, cx, 2, bytes)?;
    }
    Ok(())
}

/// The one type word of `tys` among an `st.async`'s modifiers, as the IR type it stores
/// (`.b16`/`.u16` 16-bit, `.f32`/`.f64` floats, the other 64-bit words 64-bit integers, the
/// rest 32-bit). Errors: none or more than one of `tys` (`what` names them in the message).
fn st_async_type(cx: &Cx, tys: &[&str], what: &str) -> Result<Type, LowerError> {
    Ok(match cx.one_word(tys, what)? {
        "f32" => Type::F32,
        "f64" => Type::F64,
        "b16" | "u16" => Type::I16,
        t if t.ends_with("64") => Type::I64,
        _ => Type::I32,
    })
}

pub(super) fn st_async(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.has("shared::cta") {
        return st_async_cta(b, cx);
    }
    cluster_form(cx, "st.async")?;
    let tys = ["b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64"];
    // `.weak` (the default) or the `.cluster` scope, not both (PTX ISA §9.7.9.12; ptxas
    // 13.5: "Modifier '.weak' cannot be combined with modifier '.cluster'").
    if cx.has("weak") && cx.has("cluster") {
        return Err(cx.bad("'st.async' takes .weak or .cluster, not both"));
    }
    let mut allowed = vec![
        "async",
        "weak",
        "cluster",
        "shared::cluster",
        "mbarrier::complete_tx::bytes",
        "v2",
        "v4",
    ];
    allowed.extend_from_slice(&tys);
    only(cx, 0, &allowed, "st.async")?;
    let ty = st_async_type(cx, &tys, "type")?;
    let n = if cx.has("v4") {
        4
    } else if cx.has("v2") {
        2
    } else {
        1
    };
    if n == 4 && ty.bits() == 64 {
        return Err(cx.bad(".v4 takes 32-bit elements"));
    }
    cx.expect_operands(3)?;
    let a = b.address(cx, 0, Space::Shared)?;
    let elems = match (cx.opnd(1)?.clone(), n) {
        (Operand::Vector(e, _), n) if e.len() == n && n > 1 => e,
        (o, 1) => vec![o],
        _ => return Err(cx.bad("vector width and operand list disagree")),
    };
    let at = b.vars[a as usize];
    let w = ty.bytes() as u64;
    for (k, e) in elems.iter().enumerate() {
        let v = b.src_rel(cx, e, ty, None)?;
        let addr = if k == 0 {
            a
        } else {
            let o = b.konst(cx, at, k as u64 * w);
            b.emit1(Op::IAdd {}, vec![a, o], at, cx.loc, &cx.ptx)
        };
        // A vector is one access of its whole size, aligned to it: the first element's
        // store checks that alignment, the others lie inside it.
        let align = if k == 0 { w * n as u64 } else { w } as u8;
        let st = Op::Store {
            space: Space::Shared,
            align,
        };
        b.emit(st, vec![addr, v], vec![], cx.loc, &cx.ptx);
    }
    let bytes = b.konst(cx, Type::I32, w * n as u64);
    complete_tx(b, cx, 2, bytes)
}

pub(super) fn red_async(b: &mut Builder, cx: &mut Cx) -> R {
    cluster_form(cx, "red.async")?;
    let extra = [
        "async",
        "relaxed",
        "cluster",
        "shared::cluster",
        "mbarrier::complete_tx::bytes",
        "add",
        "min",
        "max",
        "inc",
        "dec",
        "and",
        "or",
        "xor",
        "b32",
        "u32",
        "s32",
        "u64",
    ];
    only(cx, 0, &extra, "red.async")?;
    if !(cx.has("relaxed") && cx.has("cluster")) {
        return Err(cx.bad("needs .relaxed.cluster"));
    }
    let (aop, ty) = red_op(cx, false, "red.async")?;
    cx.expect_operands(3)?;
    let a = b.address(cx, 0, Space::Shared)?;
    let v = b.src(cx, 1, ty)?;
    b.emit1(
        Op::Atom {
            op: aop,
            space: Space::Shared,
        },
        vec![a, v],
        ty,
        cx.loc,
        &cx.ptx,
    );
    let bytes = b.konst(cx, Type::I32, ty.bytes() as u64);
    complete_tx(b, cx, 2, bytes)
}

/// `setmaxnreg.{inc,dec}.sync.aligned.u32 imm` (PTX ISA §9.7.19.5): a register-allocation
/// hint for the warpgroup; registers are not a limited resource on the CPU, so it has no
/// effect. The count must be a constant multiple of 8 in 24 ..= 256.
pub(super) fn setmaxnreg(cx: &Cx) -> R {
    let dir = cx.mods.first().copied();
    if !matches!(dir, Some("inc" | "dec")) {
        return Err(cx.bad("needs .inc or .dec"));
    }
    only(cx, 1, &["sync", "aligned", "u32"], "setmaxnreg")?;
    if !(cx.has("sync") && cx.has("aligned") && cx.has("u32")) {
        return Err(cx.bad("needs .sync.aligned.u32"));
    }
    cx.expect_operands(1)?;
    match imm(cx, 0)? {
        Some(n) if (24..=256).contains(&n) && n % 8 == 0 => Ok(()),
        _ => Err(LowerError::new(
            cx.opnd(0)?.span(),
            "setmaxnreg's register count must be a constant multiple of 8 in 24..=256",
        )),
    }
}

/// `griddepcontrol.launch_dependents` / `griddepcontrol.wait` (PTX ISA §9.7.13.12): ptxjit
/// runs launches one after another, so a dependent grid never starts early and its
/// prerequisite grids are complete when it starts: neither has anything to do.
pub(super) fn griddepcontrol(cx: &Cx) -> R {
    match cx.mods.as_slice() {
        ["launch_dependents"] | ["wait"] => cx.expect_operands(0),
        _ => Err(cx.bad("needs exactly one of .launch_dependents and .wait")),
    }
}
