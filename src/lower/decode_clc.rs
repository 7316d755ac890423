//! Cluster launch control (PTX ISA §9.7.13.17): `clusterlaunchcontrol.try_cancel`
//! (§9.7.13.17.1) and `clusterlaunchcontrol.query_cancel` (§9.7.13.17.2). The scheduler side
//! (which cluster a request cancels, the response's encoding) is `runtime::clc`.
//!
//! Forms:
//! ```text
//! clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes
//!                                  {.multicast::cluster::all}.b128 [addr], [mbar];
//! clusterlaunchcontrol.query_cancel.is_canceled.pred.b128            p, resp;
//! clusterlaunchcontrol.query_cancel.get_first_ctaid::{x,y,z}.b32.b128 d, resp;
//! clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128      {x, y, z, w}, resp;
//! ```
//! `try_cancel` becomes [`Op::ClcTryCancel`] (the request, answered when it executes: an
//! asynchronous operation that completes at once), a 16-byte store of the response at `addr`
//! (naturally aligned, else the store faults) and a complete-tx of 16 bytes on the mbarrier
//! object at `mbar`, as `.mbarrier::complete_tx::bytes` says. Without `.shared::cta` both
//! addresses are generic and must fall in the shared window (the ISA leaves other addresses
//! undefined; ptxjit traps). `.multicast::cluster::all` writes the response to the same offset
//! in the shared memory of every CTA of the requesting cluster and completes the tx bytes on
//! the mbarrier at the same offset in each (`mapa` of both addresses per rank).
//!
//! `query_cancel` decodes a `.b128` register holding a response: `is_canceled` tests its
//! canceled bit, `get_first_ctaid` reads the first CTA's `%ctaid` components; the `.v4` form's
//! fourth destination (a sink `_` in the ISA's syntax) gets 0.

use super::super::build::{Builder, PTerm, Var};
use super::super::LowerError;
use super::copy_async::if_then;
use super::Cx;
use crate::ir::{ICmp, MbarOp, Op, SReg, Sign, Space, Type};
use crate::ptx::ast::Operand;

type R = Result<(), LowerError>;

/// Most CTAs a cluster can have (16, CUDA's non-portable size): the ranks a multicast visits.
const MAX_CLUSTER_CTAS: u64 = 16;

/// `clusterlaunchcontrol.*`, by its first modifier.
pub(super) fn clusterlaunchcontrol(b: &mut Builder, cx: &mut Cx) -> R {
    match cx.mods.first().copied() {
        Some("try_cancel") => try_cancel(b, cx),
        Some("query_cancel") => query_cancel(b, cx),
        _ => Err(cx.bad("expects .try_cancel or .query_cancel")),
    }
}

/// Each of `words` is among the modifiers after the first, and every modifier after the first
/// is in `words` or `optional`, none twice.
fn check_words(cx: &Cx, words: &[&str], optional: &[&str]) -> R {
    let rest = &cx.mods[1..];
    for (k, m) in rest.iter().enumerate() {
        if !words.contains(m) && !optional.contains(m) {
            return Err(cx.bad(&format!("illegal modifier '.{m}'")));
        }
        if rest[..k].contains(m) {
            return Err(cx.bad(&format!("modifier '.{m}' given twice")));
        }
    }
    if let Some(w) = words.iter().find(|w| !rest.contains(w)) {
        return Err(cx.bad(&format!("needs .{w}")));
    }
    Ok(())
}

/// `try_cancel` (§9.7.13.17.1).
fn try_cancel(b: &mut Builder, cx: &mut Cx) -> R {
    check_words(
        cx,
        &["async", "mbarrier::complete_tx::bytes", "b128"],
        &["shared::cta", "multicast::cluster::all"],
    )?;
    cx.expect_operands(2)?;
    let space = if cx.has("shared::cta") {
        Space::Shared
    } else {
        Space::Generic
    };
    let span = cx.inst.span;
    let mut addrs = [0; 2];
    for (k, a) in addrs.iter_mut().enumerate() {
        let v = b.address(cx, k, space)?;
        *a = b.coerce(cx, v, Type::I64, Some(Sign::Unsigned), span)?;
    }
    let [addr, mbar] = addrs;
    if space == Space::Generic {
        // Both must be shared-window addresses (the ISA leaves others undefined).
        let a = b.emit1(
            Op::IsSpace {
                space: Space::Shared,
            },
            vec![addr],
            Type::Pred,
            cx.loc,
            &cx.ptx,
        );
        let m = b.emit1(
            Op::IsSpace {
                space: Space::Shared,
            },
            vec![mbar],
            Type::Pred,
            cx.loc,
            &cx.ptx,
        );
        let both = b.emit1(Op::And {}, vec![a, m], Type::Pred, cx.loc, &cx.ptx);
        let (ok, trap) = (b.new_block(), b.new_block());
        let cur = b.cur as usize;
        b.blocks[cur].term = PTerm::Branch(both, ok, trap);
        b.blocks[cur].term_loc = cx.loc;
        b.blocks[trap as usize].term = PTerm::Trap;
        b.blocks[trap as usize].term_loc = cx.loc;
        b.cur = ok;
    }
    let (lo, hi) = (b.new_var(Type::I64), b.new_var(Type::I64));
    b.emit(Op::ClcTryCancel {}, vec![], vec![lo, hi], cx.loc, &cx.ptx);
    if !cx.has("multicast::cluster::all") {
        return deliver(b, cx, space, addr, mbar, lo, hi);
    }
    let sreg = Op::SReg {
        reg: SReg::ClusterNctaRank,
    };
    let n = b.emit1(sreg, vec![], Type::I32, cx.loc, &cx.ptx);
    for rank in 0..MAX_CLUSTER_CTAS {
        let r = b.konst(cx, Type::I32, rank);
        let cmp = Op::ICmp {
            cc: ICmp::Lt,
            sign: Sign::Unsigned,
        };
        let inside = b.emit1(cmp, vec![r, n], Type::Pred, cx.loc, &cx.ptx);
        if_then(b, cx, inside, |b| {
            let r = b.konst(cx, Type::I32, rank);
            let map = Op::Mapa {
                generic: space == Space::Generic,
            };
            let a = b.emit1(map, vec![addr, r], Type::I64, cx.loc, &cx.ptx);
            let m = b.emit1(map, vec![mbar, r], Type::I64, cx.loc, &cx.ptx);
            deliver(b, cx, space, a, m, lo, hi)
        })?;
    }
    Ok(())
}

/// Store the response (`lo`, `hi`) at `addr` and complete its 16 bytes of tx on `mbar`.
fn deliver(b: &mut Builder, cx: &Cx, space: Space, addr: Var, mbar: Var, lo: Var, hi: Var) -> R {
    b.store_b128(cx, space, addr, lo, hi);
    let bytes = b.konst(
        cx,
        Type::I32,
        u64::from(crate::runtime::clc::RESPONSE_BYTES),
    );
    b.emit(
        Op::MBarrier {
            op: MbarOp::CompleteTx,
            space,
        },
        vec![mbar, bytes],
        vec![],
        cx.loc,
        &cx.ptx,
    );
    Ok(())
}

/// `query_cancel` (§9.7.13.17.2).
fn query_cancel(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let query = cx.mods.get(1).copied().unwrap_or("");
    let (lo, hi) = b.wide_reg(cx, &cx.opnd(1)?.clone())?;
    match query {
        "is_canceled" => {
            check_words(cx, &["is_canceled", "pred", "b128"], &[])?;
            let k = b.konst(cx, Type::I32, 32);
            let w3 = b.emit1(
                Op::Shr {
                    sign: Sign::Unsigned,
                },
                vec![hi, k],
                Type::I64,
                cx.loc,
                &cx.ptx,
            );
            let one = b.konst(cx, Type::I64, 1);
            let bit = b.emit1(Op::And {}, vec![w3, one], Type::I64, cx.loc, &cx.ptx);
            let zero = b.konst(cx, Type::I64, 0);
            let cmp = Op::ICmp {
                cc: ICmp::Ne,
                sign: Sign::Unsigned,
            };
            let p = b.emit1(cmp, vec![bit, zero], Type::Pred, cx.loc, &cx.ptx);
            if let Some(d) = b.dst(cx, 0, Type::Pred)? {
                b.copy(d, p, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        "get_first_ctaid" => {
            check_words(cx, &["get_first_ctaid", "v4", "b32", "b128"], &[])?;
            let elems = match cx.opnd(0)? {
                Operand::Vector(e, _) if e.len() == 4 => e.clone(),
                _ => return Err(cx.bad(".v4 takes four destinations {x, y, z, _}")),
            };
            for (k, e) in elems.iter().enumerate() {
                let v = if k < 3 {
                    word(b, cx, lo, hi, k)?
                } else {
                    b.konst(cx, Type::I32, 0)
                };
                if let Some(d) = b.dst_rel(cx, e, Type::I32, None)? {
                    b.copy(d, v, cx.loc, &cx.ptx);
                }
            }
            Ok(())
        }
        q => {
            let k = match q {
                "get_first_ctaid::x" => 0,
                "get_first_ctaid::y" => 1,
                "get_first_ctaid::z" => 2,
                _ => {
                    return Err(cx.bad(
                        "expects .is_canceled, .get_first_ctaid or .get_first_ctaid::{x,y,z} \
                         after .query_cancel",
                    ))
                }
            };
            check_words(cx, &[q, "b32", "b128"], &[])?;
            let v = word(b, cx, lo, hi, k)?;
            if let Some(d) = b.dst(cx, 0, Type::I32)? {
                b.copy(d, v, cx.loc, &cx.ptx);
            }
            Ok(())
        }
    }
}

/// 32-bit word `k` (0..=2) of the response in (`lo`, `hi`).
fn word(b: &mut Builder, cx: &Cx, lo: Var, hi: Var, k: usize) -> Result<Var, LowerError> {
    let half = if k < 2 { lo } else { hi };
    let v = if k == 1 {
        let n = b.konst(cx, Type::I32, 32);
        let op = Op::Shr {
            sign: Sign::Unsigned,
        };
        b.emit1(op, vec![half, n], Type::I64, cx.loc, &cx.ptx)
    } else {
        half
    };
    b.coerce(cx, v, Type::I32, Some(Sign::Unsigned), cx.inst.span)
}
