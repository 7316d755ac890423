//! Parallel synchronization and communication (PTX ISA §9.7.13) that is not a warp
//! collective (those are in `collective.rs`): `membar`/`fence`, `atom`, `red` (and the
//! routing of `red.async` to `decode_bulk.rs`).

use super::*;

/// Whether `cx`'s words are exactly `want`, in any order: ptxas 13.5 takes the words of a
/// fence in every order (`fence.release.mbarrier_init.cluster`,
/// `fence.cluster.release.mbarrier_init`, `fence.sync_restrict::shared::cta.release.cluster`
/// assemble).
fn words(cx: &Cx, want: &[&str]) -> bool {
    cx.mods.len() == want.len() && want.iter().all(|w| cx.has(w))
}

/// `membar`, `fence` (§9.7.13.4): order memory accesses; `fence.proxy.*` in
/// `decode_mbarrier.rs`.
pub(super) fn fence(b: &mut Builder, cx: &mut Cx) -> R {
    // `fence.mbarrier_init.release.cluster` (PTX ISA §9.7.13.4) orders prior
    // `mbarrier.init`s: a release fence. ptxas 13.5 also takes it with a
    // `.sync_restrict::shared::cta` or `::cluster` restriction, which narrows nothing more:
    // the fence orders the `mbarrier.init`s (of the CTA's shared memory) only.
    let mbarrier_init = words(cx, &["mbarrier_init", "release", "cluster"])
        || words(
            cx,
            &[
                "mbarrier_init",
                "release",
                "cluster",
                "sync_restrict::shared::cta",
            ],
        )
        || words(
            cx,
            &[
                "mbarrier_init",
                "release",
                "cluster",
                "sync_restrict::shared::cluster",
            ],
        );
    if let Some(r) = tma::tensormap_fence(b, cx) {
        return r;
    }
    if cx.mods.first() == Some(&"proxy") {
        return mbar::proxy_fence(b, cx);
    }
    // `fence.alias.sync_restrict::read.release.sys` (PTX ISA 9.5, its one form): a release
    // fence whose ordering is restricted; a full release fence orders at least as much.
    if cx.mods.first() == Some(&"alias") || cx.has("sync_restrict::read") {
        if cx.mods != ["alias", "sync_restrict::read", "release", "sys"] {
            return Err(cx.bad("the form is fence.alias.sync_restrict::read.release.sys"));
        }
        b.emit(Op::Fence {}, vec![], vec![], cx.loc, &cx.ptx);
        b.mark_sync(crate::ir::MemSync::Release);
        return Ok(());
    }
    if cx.mods.iter().any(|m| m.contains("mbarrier")) && !mbarrier_init {
        return Err(cx.bad("the operation fence is fence.mbarrier_init.release.cluster"));
    }
    // The uni-directional thread fences (§9.7.13.4): an acquire restricted to
    // .shared::cluster, a release restricted to .shared::cta, both at cluster scope.
    if cx.mods.iter().any(|m| m.starts_with("sync_restrict"))
        && !mbarrier_init
        && !words(
            cx,
            &["acquire", "sync_restrict::shared::cluster", "cluster"],
        )
        && !words(cx, &["release", "sync_restrict::shared::cta", "cluster"])
    {
        return Err(cx.bad(
            "fence.sync_restrict is .acquire.sync_restrict::shared::cluster.cluster or \
             .release.sync_restrict::shared::cta.cluster",
        ));
    }
    // What the fence takes part in for racecheck (PTX ISA §8, release and acquire patterns,
    // Fence-SC order): `membar` is `fence.sc`, a fence without a semantics qualifier is
    // `.acq_rel`; the `mbarrier_init` fence orders `mbarrier.init` only.
    let sync = if mbarrier_init {
        crate::ir::MemSync::None
    } else if cx.has("sc") || cx.ptx.starts_with("membar") {
        crate::ir::MemSync::SeqCst
    } else if cx.has("acquire") {
        crate::ir::MemSync::Acquire
    } else if cx.has("release") {
        crate::ir::MemSync::Release
    } else {
        crate::ir::MemSync::AcqRel
    };
    b.emit(Op::Fence {}, vec![], vec![], cx.loc, &cx.ptx);
    b.mark_sync(sync);
    Ok(())
}

/// `atom` (§9.7.13.5).
pub(super) fn atom_any(b: &mut Builder, cx: &mut Cx) -> R {
    atom(b, cx, false)
}

/// `red` (§9.7.13.6), and `red.async` (§9.7.13.7, `decode_bulk.rs`).
pub(super) fn red(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.has("async") {
        return bulk::red_async(b, cx);
    }
    atom(b, cx, true)
}

/// `atom` and `red` (PTX ISA §9.7.13.5, §9.7.13.6): scalar forms on b16 (`cas`), b32/b64
/// integers, f32/f64 (`add`) and f16/bf16/f16x2/bf16x2 (`add.noftz`); vector forms (`.v2/.v4`
/// `.f32` `add`, `.v2/.v4/.v8` halves and `.v2/.v4` packed halves `add.noftz`), which are one
/// atomic operation per element.
pub(super) fn atom(b: &mut Builder, cx: &mut Cx, red: bool) -> Result<(), LowerError> {
    let space = space_of(cx);
    if !matches!(space, Space::Global | Space::Shared | Space::Generic) {
        return Err(cx.bad("atom needs .global, .shared or generic addressing"));
    }
    let st = cx.ty()?;
    if st == ast::ScalarType::B128 {
        return atom_b128(b, cx, red, space);
    }
    let half = match st {
        ast::ScalarType::F16 => Some((HalfFmt::F16, false)),
        ast::ScalarType::Bf16 => Some((HalfFmt::Bf16, false)),
        ast::ScalarType::F16x2 => Some((HalfFmt::F16, true)),
        ast::ScalarType::Bf16x2 => Some((HalfFmt::Bf16, true)),
        _ => None,
    };
    let (ty, sign, float) = match half {
        Some((_, pair)) => (
            if pair { Type::I32 } else { Type::I16 },
            Sign::Unsigned,
            true,
        ),
        None => int_or_float(cx)?,
    };
    let opname = cx
        .mods
        .iter()
        .copied()
        .find(|m| {
            matches!(
                *m,
                "add" | "and" | "or" | "xor" | "exch" | "cas" | "min" | "max" | "inc" | "dec"
            )
        })
        .ok_or_else(|| cx.bad("missing atomic operation"))?;
    let k0 = if red { 0 } else { 1 };
    let n = vec_len(cx);
    if opname == "cas" {
        if red {
            return Err(cx.bad("red has no .cas"));
        }
        cx.expect_operands(4)?;
        if float || n > 1 || ty.bits() < 16 {
            return Err(cx.bad("atom.cas needs .b16, .b32 or .b64"));
        }
        let addr = b.address(cx, k0, space)?;
        let c = b.src(cx, 2, ty)?;
        let nv = b.src(cx, 3, ty)?;
        if let Some(t) = b.dst(cx, 0, ty)? {
            b.emit(
                Op::AtomCas { space },
                vec![addr, c, nv],
                vec![t],
                cx.loc,
                &cx.ptx,
            );
            b.mark_sync(cx.mem_sync());
        }
        return Ok(());
    }
    cx.expect_operands(if red { 2 } else { 3 })?;
    let aop = match (opname, half, float) {
        ("add" | "min" | "max", Some((fmt, pair)), _) => {
            if !cx.has("noftz") {
                return Err(cx.bad(&format!("{opname} on f16/bf16 types needs .noftz")));
            }
            match opname {
                "add" => AtomOp::HAdd { fmt, pair },
                _ if vec_len(cx) > 1 => AtomOp::HMinMax {
                    fmt,
                    pair,
                    max: opname == "max",
                },
                _ => return Err(cx.bad("min/max on halves exist only in the vector forms")),
            }
        }
        (_, Some(_), _) => {
            return Err(cx.unsupported(&format!(
                "atom.{opname} on a half type (only add, and min/max in vector forms)"
            )))
        }
        ("add", None, false) => AtomOp::Add,
        ("add", None, true) => AtomOp::FAdd,
        ("and", None, false) => AtomOp::And,
        ("or", None, false) => AtomOp::Or,
        ("xor", None, false) => AtomOp::Xor,
        ("exch", None, false) => AtomOp::Exch,
        ("min", None, false) => AtomOp::Min(sign),
        ("max", None, false) => AtomOp::Max(sign),
        ("inc", None, false) => AtomOp::Inc,
        ("dec", None, false) => AtomOp::Dec,
        _ => return Err(cx.unsupported(&format!("atom.{opname} on a float type"))),
    };
    if ty == Type::Pred || (half.is_none() && ty.bits() < 32) {
        return Err(cx.unsupported("atomics on types narrower than 32 bits"));
    }
    if n > 1 {
        let ok = space != Space::Shared
            && match half {
                Some((_, false)) => true,
                Some((_, true)) => n <= 4,
                None => ty == Type::F32 && n <= 4,
            };
        if !ok {
            return Err(cx.bad(
                "vector atomics are .v2/.v4 .f32 add, .v2/.v4/.v8 .f16/.bf16 or .v2/.v4 \
                 .f16x2/.bf16x2, on global or generic addresses",
            ));
        }
    }
    let addr = b.address(cx, k0, space)?;
    let elems = |cx: &Cx, k: usize| -> Result<Vec<Operand>, LowerError> {
        let o = cx.opnd(k)?.clone();
        match (&o, n) {
            (Operand::Vector(e, _), n) if e.len() as u32 == n && n > 1 => Ok(e.clone()),
            (_, 1) => Ok(vec![o]),
            _ => Err(cx.bad("vector width and operand list disagree")),
        }
    };
    let bs = elems(cx, k0 + 1)?;
    let ds = if red { vec![] } else { elems(cx, 0)? };
    let at = b.vars[addr as usize];
    for (k, bop) in bs.iter().enumerate() {
        let v = b.src_rel(cx, bop, ty, None)?;
        let a = if k == 0 {
            addr
        } else {
            let o = b.konst(cx, at, (k as u64) * ty.bytes() as u64);
            b.emit1(Op::IAdd {}, vec![addr, o], at, cx.loc, &cx.ptx)
        };
        let old = b.emit1(Op::Atom { op: aop, space }, vec![a, v], ty, cx.loc, &cx.ptx);
        b.mark_sync(cx.mem_sync());
        if let Some(dop) = ds.get(k) {
            if let Some(t) = b.dst_rel(cx, dop, ty, None)? {
                b.copy(t, old, cx.loc, &cx.ptx);
            }
        }
    }
    Ok(())
}

/// `atom{.sem}{.scope}{.space}.cas.b128 d, [a], b, c` and `atom….exch.b128 d, [a], b` (PTX ISA
/// §9.7.13.5; PTX ISA 8.3, `.sys` scope from 8.4: the `atom` row's forms): `.b128` register
/// operands, one [`Op::Atom128`] whose (low, high) result halves become `d`.
fn atom_b128(b: &mut Builder, cx: &mut Cx, red: bool, space: Space) -> R {
    let cas = cx.has("cas");
    if red || !(cas || cx.has("exch")) {
        return Err(cx.bad(".b128 atomics are atom.cas.b128 and atom.exch.b128 only"));
    }
    if vec_len(cx) != 1 {
        return Err(cx.bad(".b128 atomics have no vector forms"));
    }
    cx.expect_operands(if cas { 4 } else { 3 })?;
    let d = cx.opnd(0)?.clone();
    let (dlo, dhi) = b.wide_reg(cx, &d)?;
    let addr = b.address(cx, 1, space)?;
    let mut args = vec![addr];
    for k in 2..cx.inst.operands.len() {
        let o = cx.opnd(k)?.clone();
        let (lo, hi) = b.wide_reg(cx, &o)?;
        args.extend([lo, hi]);
    }
    let (lo, hi) = (b.new_var(Type::I64), b.new_var(Type::I64));
    b.emit(
        Op::Atom128 { cas, space },
        args,
        vec![lo, hi],
        cx.loc,
        &cx.ptx,
    );
    for (r, v) in [(dlo, lo), (dhi, hi)] {
        let t = b.new_var(Type::I64);
        cx.writes.push((r, t));
        b.copy(t, v, cx.loc, &cx.ptx);
    }
    Ok(())
}
