//! `cp.async` (PTX ISA §9.7.9.25, "Data Movement and Conversion Instructions: cp.async"):
//! asynchronous copies from global to shared memory, and their groups.
//!
//! ptxjit performs each copy when the `cp.async` executes: a copy that is done early is one
//! legal schedule of an asynchronous copy (its destination may not be read before
//! `cp.async.wait_group`/`wait_all`, and other threads need a barrier after that anyway), so
//! `cp.async.commit_group`, `wait_group` and `wait_all` have nothing left to wait for.
//!
//! `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | , ignore-src}`:
//! cp-size is 4, 8 or 16 bytes (16 only for `.cg`); the first src-size bytes come from `src`
//! and the rest of the cp-size bytes are zeros; a true `ignore-src` predicate copies zeros
//! only. Source bytes past src-size are never read, so code may pass an out-of-range `src`
//! with src-size 0 (the usual boundary idiom).

use super::super::build::{Builder, PTerm, Var};
use super::super::LowerError;
use super::Cx;
use crate::ir::{ICmp, Op, Sign, Space, Type};
use crate::ptx::ast::{Literal, Operand};

type R = Result<(), LowerError>;

pub(super) fn cp(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.mods.first() != Some(&"async") {
        return Err(cx.unsupported("only cp.async is supported"));
    }
    if cx.mods.get(1) == Some(&"mbarrier") {
        return super::mbar::cp_async_arrive(b, cx);
    }
    match cx.mods.get(1).copied() {
        Some("commit_group") | Some("wait_all") => {
            if cx.mods.len() != 2 || !cx.inst.operands.is_empty() {
                return Err(cx.bad("takes no operands or modifiers"));
            }
            Ok(())
        }
        Some("wait_group") => {
            cx.expect_operands(1)?;
            match cx.opnd(0)? {
                Operand::Imm(Literal::Int { .. }, _) => Ok(()),
                o => Err(LowerError::new(
                    o.span(),
                    "cp.async.wait_group takes an integer constant (the groups that may stay pending)",
                )),
            }
        }
        _ => copy(b, cx),
    }
}

fn copy(b: &mut Builder, cx: &mut Cx) -> R {
    let cache_cg = cx.has("cg");
    if cache_cg == cx.has("ca") {
        return Err(cx.bad("needs one of .ca and .cg"));
    }
    let dst_shared = cx.has("shared") || cx.has("shared::cta");
    if !dst_shared || !cx.has("global") {
        return Err(cx.bad("copies .global to .shared{::cta}"));
    }
    for m in &cx.mods[1..] {
        let ok = matches!(
            *m,
            "ca" | "cg" | "shared" | "shared::cta" | "global" | "L2::64B" | "L2::128B" | "L2::256B"
        );
        // The rest of cp.async's grammar (PTX ISA §9.7.9.25.3.1) is `.L2::cache_hint`,
        // dropped before decoding: any other modifier is not cp.async's.
        if !ok {
            return Err(cx.bad(&format!("illegal modifier '.{m}' for 'cp.async'")));
        }
    }
    let n = cx.inst.operands.len();
    if !(3..=4).contains(&n) {
        return Err(cx.bad("expects [dst], [src], cp-size and an optional src-size or ignore-src"));
    }
    let size = match cx.opnd(2)? {
        Operand::Imm(Literal::Int { value, .. }, _) if matches!(*value, 4 | 8 | 16) => {
            *value as u32
        }
        o => {
            return Err(LowerError::new(
                o.span(),
                "cp-size must be the constant 4, 8 or 16",
            ))
        }
    };
    if cache_cg && size != 16 {
        return Err(cx.bad("cp.async.cg copies 16 bytes"));
    }
    let dst = b.address(cx, 0, Space::Shared)?;
    let src = b.address(cx, 1, Space::Global)?;
    // How many bytes come from src: a constant, or a value only known at run time.
    enum Count {
        Const(u32),
        Dynamic(Var),
    }
    let count = match cx.inst.operands.get(3) {
        None => Count::Const(size),
        Some(Operand::Imm(Literal::Int { value, .. }, span)) => {
            if *value < 0 || *value > size as i64 {
                return Err(LowerError::new(
                    *span,
                    format!("src-size {value} is outside 0..={size} (cp-size)"),
                ));
            }
            Count::Const(*value as u32)
        }
        Some(o) => {
            let o = o.clone();
            if is_pred(b, &o) {
                // ignore-src: a true predicate copies zeros only.
                let p = b.src_rel(cx, &o, Type::Pred, None)?;
                let full = b.konst(cx, Type::I32, size as u64);
                let zero = b.konst(cx, Type::I32, 0);
                let n = b.emit1(
                    Op::Select {},
                    vec![zero, full, p],
                    Type::I32,
                    cx.loc,
                    &cx.ptx,
                );
                Count::Dynamic(n)
            } else {
                Count::Dynamic(b.src_rel(cx, &o, Type::I32, Some(Sign::Unsigned))?)
            }
        }
    };
    match count {
        Count::Const(k) => copy_const(b, cx, dst, src, size, k),
        Count::Dynamic(k) => {
            // Zeros first, then every byte below src-size (a whole-copy fast path when
            // src-size covers all of it).
            zero_fill(b, cx, dst, 0, size);
            let full_k = b.konst(cx, Type::I32, size as u64);
            let ge = ICmp::Ge;
            let full = cmp(b, cx, ge, k, full_k);
            if_then(b, cx, full, |b| copy_const(b, cx, dst, src, size, size))?;
            let partial = b.emit1(Op::Not {}, vec![full], Type::Pred, cx.loc, &cx.ptx);
            if_then(b, cx, partial, |b| {
                for i in 0..size {
                    let iv = b.konst(cx, Type::I32, i as u64);
                    let lt = cmp(b, cx, ICmp::Lt, iv, k);
                    if_then(b, cx, lt, |b| {
                        copy_units(b, cx, dst, src, i, i + 1, Type::I8);
                        Ok(())
                    })?;
                }
                Ok(())
            })
        }
    }
}

fn is_pred(b: &Builder, o: &Operand) -> bool {
    match o {
        Operand::Reg { name, .. } => {
            b.reg(&name.name).map(|r| b.vars[r as usize]) == Some(Type::Pred)
        }
        Operand::Not(..) => true,
        _ => false,
    }
}

fn cmp(b: &mut Builder, cx: &Cx, cc: ICmp, x: Var, y: Var) -> Var {
    let op = Op::ICmp {
        cc,
        sign: Sign::Unsigned,
    };
    b.emit1(op, vec![x, y], Type::Pred, cx.loc, &cx.ptx)
}

/// The first `k` of `size` bytes from `src`, the rest zeros: 4-byte words where whole, bytes
/// at the boundary.
fn copy_const(b: &mut Builder, cx: &Cx, dst: Var, src: Var, size: u32, k: u32) -> R {
    let whole = k / 4 * 4;
    copy_units(b, cx, dst, src, 0, whole, Type::I32);
    copy_units(b, cx, dst, src, whole, k, Type::I8);
    zero_fill(b, cx, dst, k, size);
    Ok(())
}

fn offset(b: &mut Builder, cx: &Cx, base: Var, off: u32) -> Var {
    if off == 0 {
        return base;
    }
    let t = b.vars[base as usize];
    let o = b.konst(cx, t, off as u64);
    b.emit1(Op::IAdd {}, vec![base, o], t, cx.loc, &cx.ptx)
}

/// Bytes `from..to` from `src` to `dst`, in units of `ty` (i32 or i8; the range a multiple
/// of the unit).
fn copy_units(b: &mut Builder, cx: &Cx, dst: Var, src: Var, from: u32, to: u32, ty: Type) {
    let w = ty.bytes();
    let mut at = from;
    while at < to {
        let s = offset(b, cx, src, at);
        let ld = Op::Load {
            space: Space::Global,
            align: w as u8,
        };
        let v = b.emit1(ld, vec![s], ty, cx.loc, &cx.ptx);
        let d = offset(b, cx, dst, at);
        let st = Op::Store {
            space: Space::Shared,
            align: w as u8,
        };
        b.emit(st, vec![d, v], vec![], cx.loc, &cx.ptx);
        at += w;
    }
}

/// Zeros at `dst + from .. dst + to`.
fn zero_fill(b: &mut Builder, cx: &Cx, dst: Var, from: u32, to: u32) {
    let mut i = from;
    while i < to {
        let (ty, w) = if i.is_multiple_of(4) && i + 4 <= to {
            (Type::I32, 4)
        } else {
            (Type::I8, 1)
        };
        let z = b.konst(cx, ty, 0);
        let d = offset(b, cx, dst, i);
        let st = Op::Store {
            space: Space::Shared,
            align: w as u8,
        };
        b.emit(st, vec![d, z], vec![], cx.loc, &cx.ptx);
        i += w;
    }
}

/// Run `body` only where `p` holds (a branch around it).
pub(super) fn if_then(b: &mut Builder, cx: &Cx, p: Var, body: impl FnOnce(&mut Builder) -> R) -> R {
    let then_b = b.new_block();
    let after = b.new_block();
    let cur = b.cur as usize;
    b.blocks[cur].term = PTerm::Branch(p, then_b, after);
    b.blocks[cur].term_loc = cx.loc;
    b.cur = then_b;
    body(b)?;
    let cur = b.cur as usize;
    b.blocks[cur].term = PTerm::Jump(after);
    b.blocks[cur].term_loc = cx.loc;
    b.cur = after;
    Ok(())
}
