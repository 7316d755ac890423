//! `mbarrier` (PTX ISA §9.7.13.15, "Parallel Synchronization and Communication Instructions:
//! mbarrier"), `cp.async.mbarrier.arrive` (§9.7.13.15.15) and the proxy fences
//! (`fence.proxy.*`, `membar.proxy.*`, §9.7.13.4), decoded to [`Op::MBarrier`] and
//! [`Op::Fence`]. Semantics, the object's layout and the tokens: `runtime::mbarrier`.
//!
//! Forms (`.sem` = `.release`/`.relaxed` for arrivals, `.acquire`/`.relaxed` for waits,
//! `.relaxed` for the tx operations; `.scope` = `.cta`/`.cluster`; without a `.shared`
//! qualifier the address is generic and must point into shared memory):
//! ```text
//! mbarrier.init{.shared{::cta}}.b64                    [addr], count;
//! mbarrier.inval{.shared{::cta}}.b64                   [addr];
//! mbarrier.expect_tx{.sem}{.scope}{.space}.b64         [addr], txCount;
//! mbarrier.complete_tx{.sem}{.scope}{.space}.b64       [addr], txCount;
//! mbarrier.arrive{.sem}{.scope}{.space}.b64            state|_, [addr]{, count};
//! mbarrier.arrive.expect_tx{.sem}{.scope}{.space}.b64  state|_, [addr], txCount;
//! mbarrier.arrive.noComplete{.sem}{.cta}{.shared{::cta}}.b64 state, [addr], count;
//! mbarrier.arrive_drop…                                (the same three forms)
//! mbarrier.test_wait{.parity}{.sem}{.scope}{.shared{::cta}}.b64 p, [addr], state|parity;
//! mbarrier.try_wait{.parity}{.sem}{.scope}{.shared{::cta}}.b64  p, [addr], state|parity{, hint};
//! mbarrier.pending_count.b64                           count, state;
//! cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr];
//! fence.proxy.{alias, async, async.global, async.shared::{cta,cluster}};  membar.proxy.…
//! ```
//! `.space` is `.shared{::cta}` or `.shared::cluster`; a `.shared::cluster` address may name
//! an object in another CTA of the cluster (`runtime::cluster`). `try_wait`'s suspend-time hint
//! is read and dropped (a loop around the wait yields to the other warps each time round,
//! `lower::yields`). Every thread runs its copies and memory accesses in one (the generic)
//! proxy, so the proxy fences order what `fence` orders.

use super::super::build::Builder;
use super::super::LowerError;
use super::Cx;
use crate::ir::{MbarOp, Op, Space, Type};

type R = Result<(), LowerError>;

/// The state space of the object: `.shared{::cta}` and `.shared::cluster` (when `cluster_ok`)
/// address shared memory, no qualifier a generic address.
fn space(cx: &Cx, cluster_ok: bool) -> Result<Space, LowerError> {
    let mut sp = Space::Generic;
    for m in &cx.mods {
        match *m {
            "shared" | "shared::cta" => sp = Space::Shared,
            "shared::cluster" if cluster_ok => sp = Space::Shared,
            "shared::cluster" => {
                return Err(cx.bad("this form takes .shared{::cta}, not .shared::cluster"))
            }
            _ => {}
        }
    }
    Ok(sp)
}

/// Check the modifiers after the operation's own words (`words`, already matched): `.b64`
/// once, and only the memory-ordering and scope words the form allows.
fn check_mods(cx: &Cx, words: usize, sems: &[&str], scopes: &[&str], cluster: bool) -> R {
    let mut b64 = false;
    let (mut sem, mut scope, mut sp) = (false, false, false);
    for m in &cx.mods[words..] {
        let dup = match *m {
            "b64" => std::mem::replace(&mut b64, true),
            m if sems.contains(&m) => std::mem::replace(&mut sem, true),
            m if scopes.contains(&m) => std::mem::replace(&mut scope, true),
            "shared" | "shared::cta" => std::mem::replace(&mut sp, true),
            "shared::cluster" if cluster => std::mem::replace(&mut sp, true),
            m => return Err(cx.bad(&format!("illegal modifier '.{m}'"))),
        };
        if dup {
            return Err(cx.bad(&format!(
                "modifier '.{m}' given twice or with another of its kind"
            )));
        }
    }
    if !b64 {
        return Err(cx.bad("needs .b64 (the mbarrier object is 64 bits)"));
    }
    Ok(())
}

pub(super) fn mbarrier(b: &mut Builder, cx: &mut Cx) -> R {
    let n = cx.inst.operands.len();
    let first = cx.mods.first().copied().unwrap_or("");
    match first {
        "init" | "inval" => {
            check_mods(cx, 1, &[], &[], false)?;
            let sp = space(cx, false)?;
            let init = first == "init";
            cx.expect_operands(if init { 2 } else { 1 })?;
            let a = b.address(cx, 0, sp)?;
            let mut args = vec![a];
            let op = if init {
                args.push(b.src(cx, 1, Type::I32)?);
                MbarOp::Init
            } else {
                MbarOp::Inval
            };
            b.emit(
                Op::MBarrier { op, space: sp },
                args,
                vec![],
                cx.loc,
                &cx.ptx,
            );
            Ok(())
        }
        "expect_tx" | "complete_tx" => {
            check_mods(cx, 1, &["relaxed"], &["cta", "cluster"], true)?;
            let sp = space(cx, true)?;
            cx.expect_operands(2)?;
            let a = b.address(cx, 0, sp)?;
            let t = b.src(cx, 1, Type::I32)?;
            let op = if first == "expect_tx" {
                MbarOp::ExpectTx
            } else {
                MbarOp::CompleteTx
            };
            b.emit(
                Op::MBarrier { op, space: sp },
                vec![a, t],
                vec![],
                cx.loc,
                &cx.ptx,
            );
            Ok(())
        }
        "arrive" | "arrive_drop" => {
            let drop = first == "arrive_drop";
            let second = cx.mods.get(1).copied();
            let (expect_tx, no_complete) =
                (second == Some("expect_tx"), second == Some("noComplete"));
            let words = if expect_tx || no_complete { 2 } else { 1 };
            let scopes: &[&str] = if no_complete {
                &["cta"]
            } else {
                &["cta", "cluster"]
            };
            check_mods(cx, words, &["release", "relaxed"], scopes, !no_complete)?;
            let sp = space(cx, !no_complete)?;
            if (expect_tx || no_complete) && n != 3 {
                return Err(cx.bad("expects state, [addr] and a count"));
            }
            if !(2..=3).contains(&n) {
                return Err(cx.bad("expects state, [addr] and an optional count"));
            }
            let a = b.address(cx, 1, sp)?;
            let one = b.konst(cx, Type::I32, 1);
            let zero = b.konst(cx, Type::I32, 0);
            let (count, tx) = match (expect_tx, n) {
                (true, _) => (one, b.src(cx, 2, Type::I32)?),
                (false, 3) => (b.src(cx, 2, Type::I32)?, zero),
                (false, _) => (one, zero),
            };
            let tok = b.new_var(Type::I64);
            let op = MbarOp::Arrive { drop, no_complete };
            b.emit(
                Op::MBarrier { op, space: sp },
                vec![a, count, tx],
                vec![tok],
                cx.loc,
                &cx.ptx,
            );
            if let Some(d) = b.dst(cx, 0, Type::I64)? {
                b.copy(d, tok, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        "test_wait" | "try_wait" => {
            let try_ = first == "try_wait";
            let parity = cx.mods.get(1) == Some(&"parity");
            let words = if parity { 2 } else { 1 };
            check_mods(
                cx,
                words,
                &["acquire", "relaxed"],
                &["cta", "cluster"],
                false,
            )?;
            let sp = space(cx, false)?;
            let max = if try_ { 4 } else { 3 };
            if !(3..=max).contains(&n) {
                return Err(cx.bad(if try_ {
                    "expects waitComplete, [addr], a state or parity, and an optional suspend-time hint"
                } else {
                    "expects waitComplete, [addr] and a state or parity"
                }));
            }
            let a = b.address(cx, 1, sp)?;
            let tok = b.src(cx, 2, if parity { Type::I32 } else { Type::I64 })?;
            if n == 4 {
                // The hint (a .u32 in nanoseconds) is read for its checks and not used.
                b.src(cx, 3, Type::I32)?;
            }
            let p = b.new_var(Type::Pred);
            let op = MbarOp::Wait { parity, try_ };
            b.emit(
                Op::MBarrier { op, space: sp },
                vec![a, tok],
                vec![p],
                cx.loc,
                &cx.ptx,
            );
            if let Some(d) = b.dst(cx, 0, Type::Pred)? {
                b.copy(d, p, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        "pending_count" => {
            check_mods(cx, 1, &[], &[], false)?;
            if cx.mods[1..].iter().any(|m| m.starts_with("shared")) {
                return Err(cx.bad("pending_count reads a state, not an object: no state space"));
            }
            cx.expect_operands(2)?;
            let tok = b.src(cx, 1, Type::I64)?;
            let c = b.new_var(Type::I32);
            let op = MbarOp::PendingCount;
            b.emit(
                Op::MBarrier {
                    op,
                    space: Space::Shared,
                },
                vec![tok],
                vec![c],
                cx.loc,
                &cx.ptx,
            );
            if let Some(d) = b.dst(cx, 0, Type::I32)? {
                b.copy(d, c, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        _ => Err(cx.bad(
            "needs one of .init .inval .arrive .arrive_drop .expect_tx .complete_tx \
             .test_wait .try_wait .pending_count",
        )),
    }
}

/// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]` (`cx.mods` starts with
/// `async`, `mbarrier`, `arrive`).
pub(crate) fn cp_async_arrive(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.mods.get(2) != Some(&"arrive") {
        return Err(cx.bad("expects cp.async.mbarrier.arrive"));
    }
    let noinc = cx.mods.get(3) == Some(&"noinc");
    check_mods(cx, if noinc { 4 } else { 3 }, &[], &[], false)?;
    let sp = space(cx, false)?;
    cx.expect_operands(1)?;
    let a = b.address(cx, 0, sp)?;
    let op = MbarOp::CpAsyncArrive { noinc };
    b.emit(
        Op::MBarrier { op, space: sp },
        vec![a],
        vec![],
        cx.loc,
        &cx.ptx,
    );
    Ok(())
}

/// `fence.proxy.proxykind` / `membar.proxy.proxykind` (PTX ISA §9.7.13.4), proxykind one of
/// `.alias`, `.async`, `.async.global`, `.async.shared::cta`, `.async.shared::cluster`
/// (`membar`: `.alias` and `.async` only, as ptxas takes), and the uni-directional
/// generic-to-async fences `fence.proxy.async::generic.acquire.sync_restrict::shared::cluster
/// .cluster` and `.release.sync_restrict::shared::{cta, cluster::read}.cluster`; `cx.mods`
/// starts with `proxy`. ptxjit performs async-proxy operations (bulk and tensor copies) when
/// they execute, on the one memory the generic proxy uses, so each is a plain fence.
pub(crate) fn proxy_fence(b: &mut Builder, cx: &mut Cx) -> R {
    let kinds: &[&[&str]] = &[
        &["proxy", "alias"],
        &["proxy", "async"],
        &["proxy", "async", "global"],
        &["proxy", "async", "shared::cta"],
        &["proxy", "async", "shared::cluster"],
        &["proxy", "async::global"],
        &["proxy", "async::shared::cta"],
        &["proxy", "async::shared::cluster"],
    ];
    let one_way: &[&[&str]] = &[
        &[
            "proxy",
            "async::generic",
            "acquire",
            "sync_restrict::shared::cluster",
            "cluster",
        ],
        &[
            "proxy",
            "async::generic",
            "release",
            "sync_restrict::shared::cta",
            "cluster",
        ],
        &[
            "proxy",
            "async::generic",
            "release",
            "sync_restrict::shared::cluster::read",
            "cluster",
        ],
    ];
    let membar = cx.inst.opcode.name == "membar";
    if membar && !(cx.mods == ["proxy", "alias"] || cx.mods == ["proxy", "async"]) {
        return Err(cx.bad("membar.proxy takes .alias or .async"));
    }
    if cx.has("async::generic") && !one_way.iter().any(|k| cx.mods == *k) {
        return Err(cx.bad(
            "fence.proxy.async::generic is .acquire.sync_restrict::shared::cluster.cluster or \
             .release.sync_restrict::shared::{cta, cluster::read}.cluster",
        ));
    }
    if !kinds.iter().chain(one_way).any(|k| cx.mods == *k) {
        return Err(cx.bad(
            "proxykind is .alias, .async, .async.global, .async.shared::cta or \
             .async.shared::cluster",
        ));
    }
    if !cx.inst.operands.is_empty() {
        return Err(cx.bad("takes no operands"));
    }
    b.emit(Op::Fence {}, vec![], vec![], cx.loc, &cx.ptx);
    Ok(())
}
