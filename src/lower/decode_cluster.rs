//! Thread block clusters: `barrier.cluster` (PTX ISA §9.7.13.2), `mapa` (§9.7.9.23) and
//! `getctarank` (§9.7.9.24), decoded to [`Op::ClusterBarrier`], [`Op::Mapa`] and
//! [`Op::GetCtaRank`]. Semantics, the `.shared::cluster` address encoding and how a
//! cluster's CTAs run: `runtime::cluster`.
//!
//! Forms:
//! ```text
//! barrier.cluster.arrive{.release|.relaxed}{.aligned};
//! barrier.cluster.wait{.acquire}{.aligned};
//! mapa{.shared::cluster}.{u32,u64}        d, a, b;      (no space: generic addresses)
//! getctarank{.shared::cluster}.{u32,u64}  d, a;         (d is 32 bits)
//! ```
//! `barrier.cluster.wait` becomes a loop around one test of the barrier: its lanes yield to
//! the other warps and CTAs each time round (`lower::yields`) until the phase they arrived
//! in completes.

use super::super::build::{Builder, PTerm};
use super::super::LowerError;
use super::Cx;
use crate::ir::{ClusterBarOp, Op, Type};

type R = Result<(), LowerError>;

/// End the current block with `t` at the instruction's location.
pub(super) fn set_term(b: &mut Builder, t: PTerm, cx: &Cx) {
    let cur = b.cur as usize;
    b.blocks[cur].term = t;
    b.blocks[cur].term_loc = cx.loc;
}

/// `barrier.cluster.arrive` / `.wait` (PTX ISA §9.7.13.3).
pub(super) fn barrier(b: &mut Builder, cx: &Cx) -> R {
    cx.expect_operands(0)?;
    let step = cx.mods.get(1).copied().unwrap_or("");
    let (op, sems): (ClusterBarOp, &[&str]) = match step {
        "arrive" => (ClusterBarOp::Arrive, &["release", "relaxed"]),
        "wait" => (ClusterBarOp::Wait, &["acquire"]),
        _ => return Err(cx.bad("expects .arrive or .wait after .cluster")),
    };
    let (mut sem, mut aligned) = (false, false);
    for m in &cx.mods[2..] {
        let dup = match *m {
            "aligned" => std::mem::replace(&mut aligned, true),
            m if sems.contains(&m) => std::mem::replace(&mut sem, true),
            m => return Err(cx.bad(&format!("illegal modifier '.{m}'"))),
        };
        if dup {
            return Err(cx.bad(&format!(
                "modifier '.{m}' given twice or with another of its kind"
            )));
        }
    }
    match op {
        ClusterBarOp::Arrive => {
            b.emit(Op::ClusterBarrier { op }, vec![], vec![], cx.loc, &cx.ptx);
        }
        ClusterBarOp::Wait => {
            let head = b.new_block();
            set_term(b, PTerm::Jump(head), cx);
            b.cur = head;
            let done = b.emit1(
                Op::ClusterBarrier { op },
                vec![],
                Type::Pred,
                cx.loc,
                &cx.ptx,
            );
            let cont = b.new_block();
            set_term(b, PTerm::Branch(done, cont, head), cx);
            b.cur = cont;
        }
    }
    Ok(())
}

/// `mapa` (`is_mapa`) or `getctarank`.
/// `mapa` (§9.7.9.23) when `is_mapa`, else `getctarank` (§9.7.9.24).
pub(super) fn map(b: &mut Builder, cx: &mut Cx, is_mapa: bool) -> R {
    let (mut space, mut ty) = (false, None);
    for m in &cx.mods {
        let dup = match *m {
            "shared::cluster" => std::mem::replace(&mut space, true),
            "u32" => ty.replace(Type::I32).is_some(),
            "u64" => ty.replace(Type::I64).is_some(),
            m => return Err(cx.bad(&format!("illegal modifier '.{m}'"))),
        };
        if dup {
            return Err(cx.bad(&format!(
                "modifier '.{m}' given twice or with another of its kind"
            )));
        }
    }
    let Some(ty) = ty else {
        return Err(cx.bad("needs .u32 or .u64"));
    };
    let generic = !space;
    cx.expect_operands(if is_mapa { 3 } else { 2 })?;
    let a = b.src(cx, 1, ty)?;
    if is_mapa {
        let rank = b.src(cx, 2, Type::I32)?;
        let r = b.new_var(ty);
        b.emit(
            Op::Mapa { generic },
            vec![a, rank],
            vec![r],
            cx.loc,
            &cx.ptx,
        );
        if let Some(d) = b.dst(cx, 0, ty)? {
            b.copy(d, r, cx.loc, &cx.ptx);
        }
    } else {
        let r = b.new_var(Type::I32);
        b.emit(
            Op::GetCtaRank { generic },
            vec![a],
            vec![r],
            cx.loc,
            &cx.ptx,
        );
        if let Some(d) = b.dst(cx, 0, Type::I32)? {
            b.copy(d, r, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}
