//! Decoding of warp collectives and CTA barriers (PTX ISA §9.7.13): `vote`, `activemask`,
//! `match`, `redux`, `elect`, and `bar`/`barrier` (`sync`, `arrive`, `red`, `warp.sync`).
//!
//! A barrier becomes a `barrier` op (the arrival, with id, thread count and the `bar.red`
//! predicate as operands) followed — for the waiting kinds — by a `Barrier` terminator that
//! parks the lanes; `bar.red`'s result is read after the barrier by a `barrier.result` op.

use super::build::{Builder, PTerm, Var};
use super::decode::Cx;
use super::LowerError;
use crate::ir::{BarKind, Op, ReduxOp, Sign, SrcLoc, Type, VoteMode};
use crate::ptx::ast::{Literal, Operand};

/// Split `d|p` into its two destinations (`_` is a sink).
fn pair(o: &Operand) -> (Operand, Option<Operand>) {
    let reg = |id: &crate::ptx::ast::Ident| {
        if id.name == "_" {
            Operand::Sink(id.span)
        } else {
            Operand::Reg {
                name: id.clone(),
                component: None,
            }
        }
    };
    match o {
        Operand::PredPair(d, p) => (reg(d), Some(reg(p))),
        other => (other.clone(), None),
    }
}

/// The membermask operand `k`, or all lanes for the legacy forms without one. With a
/// membermask, the lanes first synchronize on it ([`warp_wait`]).
fn membermask(b: &mut Builder, cx: &Cx, k: Option<usize>) -> Result<Var, LowerError> {
    match k {
        Some(k) => {
            b.check_u32_operand(cx, k)?;
            let m = b.src(cx, k, Type::I32)?;
            warp_wait(b, cx, m, false);
            Ok(m)
        }
        None => Ok(b.konst(cx, Type::I32, 0xffff_ffff)),
    }
}

/// The wait of a warp-level synchronization on membermask `m` (`bar.warp.sync`, or a `.sync`
/// collective when not `fence`): a `warpsync` op says which lanes must wait; those park at a
/// `Barrier` terminator until the CTA scheduler releases them (`runtime::warp`), the others
/// go straight on. Code that follows runs in a new current block.
pub(super) fn warp_wait(b: &mut Builder, cx: &Cx, m: Var, fence: bool) {
    let w = b.emit1(Op::WarpSync { fence }, vec![m], Type::Pred, cx.loc, &cx.ptx);
    let park = b.new_block();
    let cont = b.new_block();
    set_term(b, PTerm::Branch(w, park, cont), cx.loc);
    b.cur = park;
    set_term(b, PTerm::Barrier(cont), cx.loc);
    b.cur = cont;
}

/// `vote`, `activemask`, `match`, `redux`, `elect`.
pub(super) fn collective(b: &mut Builder, cx: &mut Cx, op: &str) -> Result<(), LowerError> {
    match op {
        // PTX ISA §9.7.13.8–9: vote{.sync}.{all,any,uni}.pred d, {!}a{, membermask};
        // vote{.sync}.ballot.b32 d, {!}a{, membermask}.
        "vote" => {
            let sync = cx.has("sync");
            if !sync && b.sync_required {
                return Err(cx.bad(
                    "vote without .sync is not supported on .target sm_70 and higher from PTX \
                     ISA 6.4 (vote.sync takes a membermask)",
                ));
            }
            cx.expect_operands(if sync { 3 } else { 2 })?;
            let mode = if cx.has("all") {
                VoteMode::All
            } else if cx.has("any") {
                VoteMode::Any
            } else if cx.has("uni") {
                VoteMode::Uni
            } else if cx.has("ballot") {
                VoteMode::Ballot
            } else {
                return Err(cx.bad("missing vote mode (.all, .any, .uni, .ballot)"));
            };
            let a = b.src(cx, 1, Type::Pred)?;
            let m = membermask(b, cx, sync.then_some(2))?;
            let rt = if mode == VoteMode::Ballot {
                Type::I32
            } else {
                Type::Pred
            };
            b.unary_to_dst(cx, Op::Vote { mode }, vec![a, m], rt)
        }
        // PTX ISA §9.7.13.11: activemask.b32 d.
        "activemask" => {
            cx.expect_operands(1)?;
            b.unary_to_dst(cx, Op::Activemask {}, vec![], Type::I32)
        }
        // PTX ISA §9.7.13.10: match.any.sync.type d, a, membermask;
        // match.all.sync.type d{|p}, a, membermask.
        "match" => {
            cx.expect_operands(3)?;
            let all = cx.has("all");
            if !all && !cx.has("any") {
                return Err(cx.bad("missing .any or .all"));
            }
            if !cx.has("sync") {
                return Err(cx.bad("match needs .sync"));
            }
            let ty = if cx.has("b64") {
                Type::I64
            } else if cx.has("b32") {
                Type::I32
            } else {
                return Err(cx.bad("match needs .b32 or .b64"));
            };
            let a = b.src(cx, 1, ty)?;
            let m = membermask(b, cx, Some(2))?;
            let (d, p) = pair(cx.opnd(0)?);
            if p.is_some() && !all {
                return Err(cx.bad("match.any has no predicate destination"));
            }
            let r = b.new_var(Type::I32);
            let q = b.new_var(Type::Pred);
            b.emit(Op::Match { all }, vec![a, m], vec![r, q], cx.loc, &cx.ptx);
            commit(b, cx, &d, r, Type::I32)?;
            if let Some(p) = p {
                commit(b, cx, &p, q, Type::Pred)?;
            }
            Ok(())
        }
        // PTX ISA §9.7.13.12: redux.sync.op.type d, a, membermask (32-bit integer forms).
        "redux" => {
            cx.expect_operands(3)?;
            if !cx.has("sync") {
                return Err(cx.bad("redux needs .sync"));
            }
            if cx.has("f32") {
                let (abs, nan) = (cx.has("abs"), cx.has("NaN"));
                let rop = if cx.has("min") {
                    ReduxOp::FMin { abs, nan }
                } else if cx.has("max") {
                    ReduxOp::FMax { abs, nan }
                } else {
                    return Err(cx.bad("redux.sync on .f32 takes .min or .max"));
                };
                let a = b.src(cx, 1, Type::F32)?;
                let m = membermask(b, cx, Some(2))?;
                return b.unary_to_dst(cx, Op::Redux { op: rop }, vec![a, m], Type::F32);
            }
            if cx.has("abs") || cx.has("NaN") {
                return Err(cx.bad(".abs and .NaN need redux.sync.{min,max}.f32"));
            }
            let sign = if cx.has("s32") {
                Sign::Signed
            } else {
                Sign::Unsigned
            };
            let rop = if cx.has("add") {
                ReduxOp::Add
            } else if cx.has("min") {
                ReduxOp::Min(sign)
            } else if cx.has("max") {
                ReduxOp::Max(sign)
            } else if cx.has("and") {
                ReduxOp::And
            } else if cx.has("or") {
                ReduxOp::Or
            } else if cx.has("xor") {
                ReduxOp::Xor
            } else {
                return Err(cx.bad("missing reduction (.add .min .max .and .or .xor)"));
            };
            let a = b.src(cx, 1, Type::I32)?;
            let m = membermask(b, cx, Some(2))?;
            b.unary_to_dst(cx, Op::Redux { op: rop }, vec![a, m], Type::I32)
        }
        // PTX ISA §9.7.13.14: elect.sync d|p, membermask.
        "elect" => {
            cx.expect_operands(2)?;
            if !cx.has("sync") {
                return Err(cx.bad("elect needs .sync"));
            }
            let m = membermask(b, cx, Some(1))?;
            let (d, p) = pair(cx.opnd(0)?);
            let r = b.new_var(Type::I32);
            let q = b.new_var(Type::Pred);
            b.emit(Op::Elect {}, vec![m], vec![r, q], cx.loc, &cx.ptx);
            commit(b, cx, &d, r, Type::I32)?;
            if let Some(p) = p {
                commit(b, cx, &p, q, Type::Pred)?;
            }
            Ok(())
        }
        _ => Err(cx.unsupported("unknown collective")),
    }
}

/// Write `val` (type `ty`) to destination operand `o` through the instruction's commit.
fn commit(b: &mut Builder, cx: &mut Cx, o: &Operand, val: Var, ty: Type) -> Result<(), LowerError> {
    if let Some(t) = b.dst_rel(cx, o, ty, None)? {
        b.copy(t, val, cx.loc, &cx.ptx);
    }
    Ok(())
}

/// An immediate operand's value, if it is one.
fn imm(o: &Operand) -> Option<i64> {
    match o {
        Operand::Imm(Literal::Int { value, .. }, _) => Some(*value),
        _ => None,
    }
}

/// `bar`/`barrier` in all forms (PTX ISA §9.7.13.1–2), guarded or not.
pub(super) fn barrier(
    b: &mut Builder,
    cx: &Cx,
    guard: Option<(Var, bool)>,
) -> Result<(), LowerError> {
    let op = cx.inst.opcode.name.as_str();
    // The guard branches around the whole barrier.
    let fall = match guard {
        None => None,
        Some((p, neg)) => {
            let body = b.new_block();
            let fall = b.new_block();
            let (t, e) = if neg { (fall, body) } else { (body, fall) };
            set_term(b, PTerm::Branch(p, t, e), cx.loc);
            b.cur = body;
            Some(fall)
        }
    };
    barrier_body(b, cx, op)?;
    if let Some(fall) = fall {
        set_term(b, PTerm::Jump(fall), cx.loc);
        b.cur = fall;
    }
    Ok(())
}

fn set_term(b: &mut Builder, t: PTerm, loc: SrcLoc) {
    let cur = b.cur as usize;
    b.blocks[cur].term = t;
    b.blocks[cur].term_loc = loc;
}

fn barrier_body(b: &mut Builder, cx: &Cx, op: &str) -> Result<(), LowerError> {
    // bar.warp.sync membermask (`__syncwarp`).
    if cx.has("warp") {
        cx.expect_operands(1)?;
        b.check_u32_operand(cx, 0)?;
        let m = b.src(cx, 0, Type::I32)?;
        warp_wait(b, cx, m, true);
        return Ok(());
    }
    for m in &cx.mods {
        let ok = matches!(
            *m,
            "cta" | "sync" | "arrive" | "red" | "aligned" | "popc" | "and" | "or" | "u32" | "pred"
        );
        if !ok {
            return Err(cx.unsupported(&format!("modifier .{m} is not supported")));
        }
    }
    // `bar.*` is `barrier.*.aligned`.
    let aligned = op == "bar" || cx.has("aligned");
    let kind = if cx.has("arrive") {
        BarKind::Arrive
    } else if cx.has("red") {
        if cx.has("popc") {
            BarKind::RedPopc
        } else if cx.has("and") {
            BarKind::RedAnd
        } else if cx.has("or") {
            BarKind::RedOr
        } else {
            return Err(cx.bad("bar.red needs .popc, .and or .or"));
        }
    } else if cx.has("sync") || op == "barrier" {
        BarKind::Sync
    } else {
        return Err(cx.bad("missing .sync, .arrive or .red"));
    };
    let red = matches!(kind, BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr);
    // Operands: [d,] a [, b] [, {!}c].
    let first = red as usize;
    let n = cx.inst.operands.len();
    let (min, max) = if red {
        (3, 4)
    } else if op == "barrier" {
        (0, 2)
    } else {
        (1, 2)
    };
    if n < min || n > max {
        return Err(cx.bad(&format!("expects {min} to {max} operands, found {n}")));
    }
    let id = if n == 0 {
        b.konst(cx, Type::I32, 0)
    } else {
        if let Some(v) = imm(cx.opnd(first)?) {
            if !(0..16).contains(&v) {
                return Err(cx.bad(&format!("barrier id {v} is outside 0..15")));
            }
        }
        b.check_u32_operand(cx, first)?;
        b.src(cx, first, Type::I32)?
    };
    let count_k = first + 1;
    let has_count = n == max;
    let count = if has_count {
        if let Some(v) = imm(cx.opnd(count_k)?) {
            if v <= 0 || v % 32 != 0 {
                return Err(cx.bad(&format!(
                    "thread count {v} is not a positive multiple of the warp size"
                )));
            }
        }
        b.check_u32_operand(cx, count_k)?;
        b.src(cx, count_k, Type::I32)?
    } else {
        if kind == BarKind::Arrive {
            return Err(cx.bad("bar.arrive needs a thread count"));
        }
        b.konst(cx, Type::I32, 0)
    };
    let pred = if red {
        b.src(cx, n - 1, Type::Pred)?
    } else {
        b.konst(cx, Type::Pred, 1)
    };
    b.emit(
        Op::BarArrive { kind, aligned },
        vec![id, count, pred],
        vec![],
        cx.loc,
        &cx.ptx,
    );
    if !kind.waits() {
        return Ok(());
    }
    let next = b.new_block();
    set_term(b, PTerm::Barrier(next), cx.loc);
    b.cur = next;
    if red {
        let rt = if kind == BarKind::RedPopc {
            Type::I32
        } else {
            Type::Pred
        };
        let r = b.emit1(Op::BarResult { kind }, vec![], rt, cx.loc, &cx.ptx);
        // The destination is written directly (the barrier's continuation has no commit
        // step): it must be a register of the result's type.
        match cx.opnd(0)? {
            Operand::Sink(_) => {}
            Operand::Reg {
                name,
                component: None,
            } => {
                let reg = b.reg_var(cx, name)?;
                let t = b.vars[reg as usize];
                let ok = t == rt || (rt == Type::I32 && t.is_int() && t.bits() == 32);
                if !ok {
                    return Err(LowerError::new(
                        name.span,
                        format!(
                            "destination '{}' has type {t}, '{}' produces {rt}",
                            name.name, cx.ptx
                        ),
                    ));
                }
                b.copy(reg, r, cx.loc, &cx.ptx);
            }
            other => {
                return Err(LowerError::new(
                    other.span(),
                    format!("destination of '{}' must be a register", cx.ptx),
                ))
            }
        }
    }
    Ok(())
}
