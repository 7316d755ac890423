//! Data movement instructions (PTX ISA §9.7.9, conversions apart: `decode_cvt.rs`): `mov`,
//! `shfl.sync`, `prmt`, `ld`, `ldu`, `st`, `prefetch`, `createpolicy`, `isspacep`, `cvta`, and
//! the routing of `cp` to its forms (`cp.async`: `decode_async.rs`; the bulk copies and
//! `st.async`: `decode_bulk.rs`).

use super::*;

/// `mov` (§9.7.9.3): `.b128` moves (pack/unpack of two `.b64` halves) or every other form.
pub(super) fn mov_any(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.ty().ok() == Some(ast::ScalarType::B128) {
        return wide(b, cx, "mov");
    }
    mov(b, cx)
}

/// `ld`, `ldu` (§9.7.9.8-10): `.b128` loads into `.b128` registers, or every other form.
pub(super) fn ld(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.ty().ok() == Some(ast::ScalarType::B128) {
        let op = cx.inst.opcode.name.as_str();
        return wide(b, cx, op);
    }
    load(b, cx)
}

/// `st` (§9.7.9.11), `st.async` (§9.7.9.12, `decode_bulk.rs`) and `st.bulk` (§9.7.9.13,
/// `decode_memops.rs`).
pub(super) fn st(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.has("bulk") {
        return memops::st_bulk(b, cx);
    }
    if cx.has("async") {
        return bulk::st_async(b, cx);
    }
    if cx.ty().ok() == Some(ast::ScalarType::B128) {
        return wide(b, cx, "st");
    }
    store(b, cx)
}

/// `cp` (§9.7.9.25): `cp.reduce.async.bulk` and `cp.async.bulk` (`decode_bulk.rs`), the
/// other `cp.async` forms (`decode_async.rs`).
// Merge point: `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor` and
// `cp.async.bulk.prefetch.tensor` (§9.7.9.25.5) are routed here.
pub(super) fn cp(b: &mut Builder, cx: &mut Cx) -> R {
    // A scope on the tensor copies: ptxas 13.5 takes one of `.cta`, `.cluster`, `.gpu`, `.sys`
    // on `cp{.reduce}.async.bulk.tensor` (PTX ISA 8.0 and on) and none elsewhere ("Illegal
    // modifier '.gpu' for instruction 'cp.async.bulk.prefetch.tensor'", "Modifier '.cta'
    // requires modifier '.order'" on `cp.async.bulk`, "Multiple scope modifiers specified").
    // ptxjit completes the copy when the instruction runs, so no scope changes what it does.
    let scopes: Vec<&str> = cx
        .mods
        .iter()
        .copied()
        .filter(|m| matches!(*m, "cta" | "cluster" | "gpu" | "sys"))
        .collect();
    // `cp.async.bulk` and `cp.reduce.async.bulk` (not `.tensor` or `.prefetch`) take their
    // scope after `.relaxed` (PTX ISA 9.3; `decode_bulk.rs` checks the words); `.b128` is a
    // word of the copy alone.
    let plain_bulk = cx.has("bulk") && !cx.has("tensor") && !cx.has("prefetch");
    if cx.has("relaxed") && !plain_bulk {
        return Err(cx.bad(
            "illegal modifier '.relaxed' for instruction 'cp' (it goes on \
             cp.reduce.async.bulk and cp.async.bulk only)",
        ));
    }
    if cx.has("b128") && (!plain_bulk || cx.has("reduce")) {
        return Err(
            cx.bad("illegal modifier '.b128' for instruction 'cp' (it goes on cp.async.bulk only)")
        );
    }
    if let Some(scope) = scopes.first().filter(|_| !plain_bulk) {
        if !cx.has("tensor") || cx.has("prefetch") {
            return Err(cx.bad(&format!(
                "illegal modifier '.{scope}' for instruction 'cp' (a scope goes on \
                 cp{{.reduce}}.async.bulk.tensor only)"
            )));
        }
        if scopes.len() > 1 {
            return Err(cx.bad("multiple scope modifiers"));
        }
        let mut inner = Cx {
            inst: cx.inst,
            loc: cx.loc,
            ptx: cx.ptx.clone(),
            mods: cx.mods.iter().copied().filter(|m| m != scope).collect(),
            writes: Vec::new(),
        };
        let r = cp(b, &mut inner);
        cx.writes.append(&mut inner.writes);
        return r;
    }
    if let Some(r) = tma::tensor_copy(b, cx) {
        return r;
    }
    match (cx.mods.first().copied(), cx.mods.get(1).copied()) {
        (Some("reduce"), _) => bulk::reduce(b, cx),
        (Some("async"), Some("bulk")) => bulk::bulk(b, cx),
        _ => copy_async::cp(b, cx),
    }
}

/// `cvta` (§9.7.9.20): to and from generic addresses of `.global`, `.shared`, `.local`,
/// `.const`.
pub(super) fn cvta(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let space = space_of(cx);
    if !matches!(
        space,
        Space::Global | Space::Shared | Space::Local | Space::Const | Space::Param
    ) {
        return Err(cx.bad("cvta needs a state space"));
    }
    // `cvta.u32` converts 32-bit addresses, which an `.address_size 64` module has not
    // (ptxas: "Program uses 32-bit address ... conflicting with .address_size 64", then
    // "32-Bit compilation is no longer supported"), for every state space.
    if cx.has("u32") {
        return Err(cx.bad(
            "a 32-bit address conversion in an `.address_size 64` module: generic addresses \
             are 64 bits (use .u64)",
        ));
    }
    let ty = Type::I64;
    let mut x = b.src(cx, 1, ty)?;
    let to_generic = !cx.has("to");
    if space == Space::Const && to_generic {
        x = const_address_widened(b, cx, x);
    }
    b.unary_to_dst(cx, Op::Cvta { space, to_generic }, vec![x], ty)
}

/// A 64-bit const-space address `x` that may hold the zero-extended 32-bit form (clang's
/// short pointers: `cvt.u64.u32 %t, %r; cvta.const.u64 %rd, %t`) in its 64-bit form: a value
/// below 4 GiB is an offset from `GLOBAL_BASE` (`Builder::const_address_from_32`); no global
/// address is that low.
fn const_address_widened(b: &mut Builder, cx: &mut Cx, x: Var) -> Var {
    let ty = Type::I64;
    let limit = b.konst(cx, ty, crate::runtime::memory::WINDOW_SIZE);
    let low = b.emit1(
        Op::ICmp {
            cc: ICmp::Lt,
            sign: Sign::Unsigned,
        },
        vec![x, limit],
        Type::Pred,
        cx.loc,
        &cx.ptx,
    );
    let base = b.konst(cx, ty, crate::runtime::memory::GLOBAL_BASE);
    let wide = b.emit1(Op::IAdd {}, vec![x, base], ty, cx.loc, &cx.ptx);
    b.emit1(Op::Select {}, vec![wide, x, low], ty, cx.loc, &cx.ptx)
}

/// `isspacep` (§9.7.9.19): whether a generic address is in a state space.
pub(super) fn isspacep(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let space = space_of(cx);
    if space == Space::Generic {
        return Err(cx.bad("isspacep needs .global, .shared, .local, .const or .param"));
    }
    let a = b.src(cx, 1, Type::I64)?;
    if space == Space::Global {
        // "isspacep.global returns 1 for Kernel Function Parameters as .param window is
        // contained within the .global window" (§9.7.9.19); ptxjit's parameter window is a
        // window of its own (`cvta.param`), so the global test takes it in.
        let global = b.emit1(Op::IsSpace { space }, vec![a], Type::Pred, cx.loc, &cx.ptx);
        let param = b.emit1(
            Op::IsSpace {
                space: Space::Param,
            },
            vec![a],
            Type::Pred,
            cx.loc,
            &cx.ptx,
        );
        let either = b.emit1(Op::Or {}, vec![global, param], Type::Pred, cx.loc, &cx.ptx);
        if let Some(d) = b.dst(cx, 0, Type::Pred)? {
            b.copy(d, either, cx.loc, &cx.ptx);
        }
        return Ok(());
    }
    if space == Space::Shared && !cx.has("shared::cluster") {
        return isspacep_shared_cta(b, cx, a);
    }
    if space != Space::Const {
        return b.unary_to_dst(cx, Op::IsSpace { space }, vec![a], Type::Pred);
    }
    // Const banks live in the global arena: a generic address is in the const space
    // when it falls inside one of the module's `.const` variables.
    let mut acc = b.konst(cx, Type::Pred, 0);
    for (index, size) in b.const_vars.clone() {
        let base = b.emit1(
            Op::SymAddr {
                sym: index,
                space: Space::Const,
            },
            vec![],
            Type::I64,
            cx.loc,
            &cx.ptx,
        );
        let off = b.emit1(Op::ISub {}, vec![a, base], Type::I64, cx.loc, &cx.ptx);
        let n = b.konst(cx, Type::I64, size);
        let inside = b.emit1(
            Op::ICmp {
                cc: ICmp::Lt,
                sign: Sign::Unsigned,
            },
            vec![off, n],
            Type::Pred,
            cx.loc,
            &cx.ptx,
        );
        acc = b.emit1(Op::Or {}, vec![acc, inside], Type::Pred, cx.loc, &cx.ptx);
    }
    if let Some(d) = b.dst(cx, 0, Type::Pred)? {
        b.copy(d, acc, cx.loc, &cx.ptx);
    }
    Ok(())
}

/// `isspacep.shared{::cta}`: the executing CTA's shared-memory window, which holds its own
/// shared addresses and the `.shared::cluster` form naming its own rank, not another CTA's
/// (`runtime::cluster`'s encoding: `CLUSTER_BIT | rank << RANK_SHIFT | offset`).
fn isspacep_shared_cta(b: &mut Builder, cx: &mut Cx, a: Var) -> R {
    use crate::runtime::cluster::{CLUSTER_BIT, MAX_CLUSTER_SHARED, RANK_SHIFT};
    let (loc, ptx) = (cx.loc, cx.ptx.clone());
    let inside = b.emit1(
        Op::IsSpace {
            space: Space::Shared,
        },
        vec![a],
        Type::Pred,
        loc,
        &ptx,
    );
    let window = b.konst(cx, Type::I64, crate::runtime::memory::SHARED_WINDOW);
    let off = b.emit1(Op::ISub {}, vec![a, window], Type::I64, loc, &ptx);
    let high = b.konst(cx, Type::I64, !(MAX_CLUSTER_SHARED - 1));
    let tag = b.emit1(Op::And {}, vec![off, high], Type::I64, loc, &ptx);
    let own = b.emit1(
        Op::SReg {
            reg: crate::ir::SReg::ClusterCtaRank,
        },
        vec![],
        Type::I32,
        loc,
        &ptx,
    );
    let own = b.coerce(cx, own, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
    let shift = b.konst(cx, Type::I64, 1 << RANK_SHIFT);
    let own = b.emit1(Op::IMul {}, vec![own, shift], Type::I64, loc, &ptx);
    let bit = b.konst(cx, Type::I64, CLUSTER_BIT);
    let own = b.emit1(Op::Or {}, vec![own, bit], Type::I64, loc, &ptx);
    let eq = |b: &mut Builder, x: Var, y: Var| {
        let op = Op::ICmp {
            cc: ICmp::Eq,
            sign: Sign::Unsigned,
        };
        b.emit1(op, vec![x, y], Type::Pred, loc, &ptx)
    };
    let zero = b.konst(cx, Type::I64, 0);
    let plain = eq(b, tag, zero);
    let mine = eq(b, tag, own);
    let ours = b.emit1(Op::Or {}, vec![plain, mine], Type::Pred, loc, &ptx);
    let cta = b.emit1(Op::And {}, vec![inside, ours], Type::Pred, loc, &ptx);
    if let Some(d) = b.dst(cx, 0, Type::Pred)? {
        b.copy(d, cta, loc, &ptx);
    }
    Ok(())
}

/// `createpolicy` (§9.7.9.18): the cache eviction policy is an opaque 64-bit value used only
/// as a hint; ptxjit's policies are all 0 (see docs/isa-notes.md). Source operands are still
/// checked. The operand counts are the ISA's: `.range` takes `policy, [a], primary-size,
/// total-size`, `.fractional` `policy{, fraction}` (the fraction defaults to 1.0), `.cvt`
/// `policy, access-property`.
///
/// `.cvt.L2` converts an access property made by the CUDA APIs (an opaque 64-bit value, a
/// 64-bit register or an integer constant) into a policy: every policy being 0, so is the
/// converted one, whatever the property. The form takes `.L2` and `.b64` and no other word
/// (ptxas 13.5: ".L2 modifier required", "Illegal modifier '.L1'", "No state space
/// qualifier expected"), and `.L2` belongs to it alone.
pub(super) fn createpolicy(b: &mut Builder, cx: &mut Cx) -> R {
    let cvt = cx.has("cvt");
    if cvt {
        // Each word once (the other forms may name one priority twice: primary and
        // secondary).
        super::bulk::only(cx, 0, &["cvt", "L2", "b64"], "createpolicy.cvt.L2.b64")?;
        if !cx.has("L2") {
            return Err(cx.bad("createpolicy.cvt needs .L2"));
        }
    } else {
        range_fractional_words(cx)?;
    }
    let n = cx.inst.operands.len();
    let counts = if cx.has("range") {
        4..=4
    } else if cx.has("fractional") {
        1..=2
    } else {
        2..=2
    };
    if !counts.contains(&n) || !cx.has("b64") {
        return Err(cx.bad(
            "expects createpolicy.range.*.b64 policy, [a], primary-size, total-size; \
             createpolicy.fractional.*.b64 policy{, fraction}; or \
             createpolicy.cvt.L2.b64 policy, access-property",
        ));
    }
    if cvt && !b.is_policy(cx.opnd(1)?) {
        return Err(cx.bad("the access property is a 64-bit register or an integer constant"));
    }
    for k in 1..n {
        match cx.opnd(k)?.clone() {
            Operand::Address { .. } => {
                b.address(cx, k, Space::Global)?;
            }
            Operand::Imm(..) => {}
            Operand::Reg {
                name,
                component: None,
            } => {
                b.reg_var(cx, &name)?;
            }
            o => {
                return Err(LowerError::new(
                    o.span(),
                    format!("this operand form is not allowed here in '{}'", cx.ptx),
                ))
            }
        }
    }
    let z = b.konst(cx, Type::I64, 0);
    if let Some(d) = b.dst(cx, 0, Type::I64)? {
        b.copy(d, z, cx.loc, &cx.ptx);
    }
    Ok(())
}

/// The words of `createpolicy.range` and `.fractional` (§9.7.9.18), as ptxas 13.5 judges them:
/// the kind first; one primary eviction priority (`.L2::evict_last`, `_normal`, `_first`,
/// `_unchanged`) and at most one secondary (`.L2::evict_first` or `_unchanged`, "Unsupported
/// modifier ... as secondary_priority"), in that order; `.b64` once; `.global` at most once and
/// for `.range` only ("No state space qualifier expected"; any other space: "State space
/// incorrect"); no `.L1::*` priority ("requires cache level L2") and no other word.
fn range_fractional_words(cx: &Cx) -> R {
    const PRIMARY: [&str; 4] = [
        "L2::evict_last",
        "L2::evict_normal",
        "L2::evict_first",
        "L2::evict_unchanged",
    ];
    const SECONDARY: [&str; 2] = ["L2::evict_first", "L2::evict_unchanged"];
    const SPACES: [&str; 9] = [
        "global",
        "shared",
        "shared::cta",
        "shared::cluster",
        "local",
        "const",
        "param",
        "tex",
        "generic",
    ];
    let kind = match cx.mods.first().copied() {
        Some(k @ ("range" | "fractional")) => k,
        _ => {
            return Err(
                cx.bad("createpolicy takes .range, .fractional or .cvt right after the opcode")
            )
        }
    };
    let name = format!("createpolicy.{kind}");
    let (mut priorities, mut b64, mut global) = (Vec::new(), 0, 0);
    for &m in &cx.mods[1..] {
        if PRIMARY.contains(&m) {
            priorities.push(m);
        } else if m == "b64" {
            b64 += 1;
        } else if m == "global" && kind == "range" {
            global += 1;
        } else if SPACES.contains(&m) {
            return Err(cx.bad(&if kind == "range" {
                format!("the state space of '{name}' is .global, not '.{m}'")
            } else {
                format!("no state space ('.{m}') for '{name}'")
            }));
        } else if m == "L2" {
            return Err(cx.bad("'.L2' is a word of createpolicy.cvt only"));
        } else if m.starts_with("L1::evict_") {
            return Err(cx.bad(&format!(
                "the eviction priority '.{m}' of '{name}' must be of cache level L2"
            )));
        } else {
            return Err(cx.bad(&format!("illegal modifier '.{m}' for '{name}'")));
        }
    }
    if global > 1 {
        return Err(cx.bad(&format!("'.global' given twice in '{name}'")));
    }
    if b64 != 1 {
        return Err(cx.bad(&format!("'{name}' takes the type .b64 once")));
    }
    match priorities.as_slice() {
        [] => Err(cx.bad(&format!(
            "'{name}' needs an eviction priority ({})",
            super::dotted(&PRIMARY)
        ))),
        [_] => Ok(()),
        [_, second] if SECONDARY.contains(second) => Ok(()),
        [_, second] => Err(cx.bad(&format!(
            "the secondary eviction priority of '{name}' is one of {}, not '.{second}'",
            super::dotted(&SECONDARY)
        ))),
        _ => Err(cx.bad(&format!(
            "'{name}' takes at most two eviction priorities (primary, secondary)"
        ))),
    }
}

/// `prefetch`, `prefetchu` (§9.7.9.15): cache hints have no effect on the CPU; the address
/// operand is still checked for form.
pub(super) fn prefetch(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(1)?;
    let Operand::Address { base, .. } = cx.opnd(0)? else {
        return Err(cx.bad("needs an address operand"));
    };
    // A register base is checked as a load's would be (a 32-bit global or generic address
    // is an error); the prefetch itself does nothing.
    if let Some(name) = base {
        if let Some(r) = b.reg(&name.name) {
            let r = b.not_wide(cx, name, r)?;
            let rt = b.vars[r as usize];
            if !(rt == Type::I64 || rt == Type::I32) {
                return Err(LowerError::new(
                    name.span,
                    format!(
                        "address register '{}' of '{}' must be a 32- or 64-bit integer \
                         register",
                        name.name, cx.ptx
                    ),
                ));
            }
            b.check_address_width(cx, name, rt, space_of(cx))?;
        } else if !b.syms.contains_key(&name.name) {
            // ptxas: "Unknown symbol '%r9'", as for the address of a load.
            return Err(LowerError::new(
                name.span,
                format!("unknown symbol '{}' in '{}'", name.name, cx.ptx),
            ));
        }
    }
    Ok(())
}

pub(super) fn mov(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    cx.expect_operands(2)?;
    let t = cx.ty()?;
    let (ty, _, _) = ir_ty(t).ok_or_else(|| cx.unsupported("type not supported yet"))?;
    let d = cx.opnd(0)?.clone();
    let s = cx.opnd(1)?.clone();
    // mov.v2/.v4: element-wise copy of vector operands (brace lists or vector registers).
    if let Some(n) = [("v2", 2), ("v4", 4)]
        .iter()
        .find(|(m, _)| cx.has(m))
        .map(|&(_, n)| n)
    {
        let (Operand::Vector(ds, _), Operand::Vector(ss, _)) = (&d, &s) else {
            return Err(cx.bad(&format!(
                "mov.v{n} needs two vector operands of {n} elements"
            )));
        };
        if ds.len() != n || ss.len() != n {
            return Err(cx.bad(&format!(
                "mov.v{n} needs two vector operands of {n} elements"
            )));
        }
        for e in ds.iter().chain(ss) {
            b.check_general(cx, e, t)?;
        }
        // Read every source before writing: `mov.v2.u32 {%a, %b}, {%b, %a}` swaps.
        let vals = ss
            .iter()
            .map(|e| b.src_rel(cx, e, ty, None))
            .collect::<Result<Vec<_>, _>>()?;
        for (e, v) in ds.iter().zip(vals) {
            if let Some(dv) = b.dst_rel(cx, e, ty, None)? {
                b.copy(dv, v, cx.loc, &cx.ptx);
            }
        }
        return Ok(());
    }
    match (&d, &s) {
        // Pack: mov.b64 %rd, {%r1, %r2} (element 0 in the low bits).
        (_, Operand::Vector(elems, _)) => {
            let n = elems.len() as u32;
            if n == 0 || ty.bits() % n != 0 || !ty.is_int() {
                return Err(cx.bad("vector pack needs .b16/.b32/.b64 and 2 or 4 elements"));
            }
            let et =
                Type::int_of_bytes(ty.bytes() / n).ok_or_else(|| cx.bad("bad element size"))?;
            let mut acc = b.konst(cx, ty, 0);
            for (k, e) in elems.iter().enumerate() {
                let v = b.src_rel(cx, e, et, None)?;
                let w = b.coerce(cx, v, ty, Some(Sign::Unsigned), e.span())?;
                let sh = b.konst(cx, Type::I32, (k as u64) * et.bits() as u64);
                let w = b.emit1(Op::Shl {}, vec![w, sh], ty, cx.loc, &cx.ptx);
                acc = b.emit1(Op::Or {}, vec![acc, w], ty, cx.loc, &cx.ptx);
            }
            let dst = b.dst_rel(cx, &d, ty, None)?;
            if let Some(dv) = dst {
                b.copy(dv, acc, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        // Unpack: mov.b64 {%r1, %r2}, %rd.
        (Operand::Vector(elems, _), _) => {
            let n = elems.len() as u32;
            if n == 0 || ty.bits() % n != 0 || !ty.is_int() {
                return Err(cx.bad("vector unpack needs .b16/.b32/.b64 and 2 or 4 elements"));
            }
            let et =
                Type::int_of_bytes(ty.bytes() / n).ok_or_else(|| cx.bad("bad element size"))?;
            let v = b.src_rel(cx, &s, ty, None)?;
            for (k, e) in elems.iter().enumerate() {
                let sh = b.konst(cx, Type::I32, (k as u64) * et.bits() as u64);
                let w = b.emit1(
                    Op::Shr {
                        sign: Sign::Unsigned,
                    },
                    vec![v, sh],
                    ty,
                    cx.loc,
                    &cx.ptx,
                );
                let part = b.coerce(cx, w, et, Some(Sign::Unsigned), e.span())?;
                if let Some(dv) = b.dst_rel(cx, e, et, None)? {
                    b.copy(dv, part, cx.loc, &cx.ptx);
                }
            }
            Ok(())
        }
        _ => {
            b.check_general(cx, &s, t)?;
            b.check_general(cx, &d, t)?;
            let v = b.src_rel(cx, &s, ty, None)?;
            if let Some(dv) = b.dst_rel(cx, &d, ty, None)? {
                b.copy(dv, v, cx.loc, &cx.ptx);
            }
            Ok(())
        }
    }
}

/// `ld.b128`, `st.b128` and `mov.b128` (PTX ISA §5.2.1, 128-bit data): a `.b128` register is
/// two i64 halves, accessed as two 8-byte accesses with the 16-byte alignment checked on the
/// first; `mov.b128` packs or unpacks `{lo, hi}` pairs of 64-bit registers.
pub(super) fn wide(b: &mut Builder, cx: &mut Cx, op: &str) -> Result<(), LowerError> {
    cx.expect_operands(2)?;
    if vec_len(cx) != 1 {
        return Err(cx.bad(".b128 has no vector forms"));
    }
    let (d, s) = (cx.opnd(0)?.clone(), cx.opnd(1)?.clone());
    match op {
        "ld" | "ldu" => {
            check_space_mods(cx)?;
            let space = func_param_space(b, cx, 1)?;
            let (lo, hi) = b.wide_reg(cx, &d)?;
            let addr = b.address(cx, 1, space)?;
            if strong_16_bytes(cx, space, Type::I64, 2) {
                let (l, h) = (b.new_var(Type::I64), b.new_var(Type::I64));
                let op = Op::Strong128 {
                    store: false,
                    space,
                };
                b.emit(op, vec![addr], vec![l, h], cx.loc, &cx.ptx);
                b.mark_sync(cx.mem_sync());
                for (r, v) in [(lo, l), (hi, h)] {
                    let t = b.new_var(Type::I64);
                    cx.writes.push((r, t));
                    b.copy(t, v, cx.loc, &cx.ptx);
                }
                return Ok(());
            }
            let at = b.vars[addr as usize];
            let eight = b.konst(cx, at, 8);
            let a8 = b.emit1(Op::IAdd {}, vec![addr, eight], at, cx.loc, &cx.ptx);
            let l = b.emit1(
                Op::Load { space, align: 16 },
                vec![addr],
                Type::I64,
                cx.loc,
                &cx.ptx,
            );
            let h = b.emit1(
                Op::Load { space, align: 8 },
                vec![a8],
                Type::I64,
                cx.loc,
                &cx.ptx,
            );
            for (r, v) in [(lo, l), (hi, h)] {
                let t = b.new_var(Type::I64);
                cx.writes.push((r, t));
                b.copy(t, v, cx.loc, &cx.ptx);
            }
            Ok(())
        }
        "st" => {
            check_space_mods(cx)?;
            let space = super::super::call::param_space(b, cx, 0, space_of(cx));
            if space == Space::Const || space == Space::Param {
                return Err(cx.bad(&format!("st to the read-only {space} state space")));
            }
            let (lo, hi) = b.wide_reg(cx, &s)?;
            let addr = b.address(cx, 0, space)?;
            if strong_16_bytes(cx, space, Type::I64, 2) {
                let op = Op::Strong128 { store: true, space };
                b.emit(op, vec![addr, lo, hi], vec![], cx.loc, &cx.ptx);
                b.mark_sync(cx.mem_sync());
                return Ok(());
            }
            b.store_b128(cx, space, addr, lo, hi);
            Ok(())
        }
        _ => {
            // mov.b128 d, {lo, hi} | mov.b128 {lo, hi}, s | mov.b128 d, s
            let halves = |b: &mut Builder, cx: &Cx, o: &Operand| match o {
                Operand::Vector(e, _) if e.len() == 2 => Ok(Err((e[0].clone(), e[1].clone()))),
                _ => b.wide_reg(cx, o).map(Ok),
            };
            let src = match halves(b, cx, &s)? {
                Ok(pair) => pair,
                Err((l, h)) => (
                    b.src_rel(cx, &l, Type::I64, None)?,
                    b.src_rel(cx, &h, Type::I64, None)?,
                ),
            };
            match halves(b, cx, &d)? {
                Ok((lo, hi)) => {
                    for (r, v) in [(lo, src.0), (hi, src.1)] {
                        let t = b.new_var(Type::I64);
                        cx.writes.push((r, t));
                        b.copy(t, v, cx.loc, &cx.ptx);
                    }
                }
                Err((l, h)) => {
                    for (o, v) in [(l, src.0), (h, src.1)] {
                        if let Some(t) = b.dst_rel(cx, &o, Type::I64, None)? {
                            b.copy(t, v, cx.loc, &cx.ptx);
                        }
                    }
                }
            }
            Ok(())
        }
    }
}

/// The state-space modifiers of `ld`/`st` (PTX ISA §9.7.9.8-9 `.ss`), `.shared` and
/// `.param` with their sub-spaces.
const LD_SPACES: [&str; 9] = [
    "global",
    "shared",
    "shared::cta",
    "shared::cluster",
    "local",
    "const",
    "param",
    "param::entry",
    "param::func",
];

/// The modifiers of ld, ldu and st (PTX ISA §9.7.9.8 to §9.7.9.10): those ptxjit decodes
/// pass; those of the grammar it does not implement are "unsupported"; any other PTX modifier
/// is illegal here (ptxas: "Illegal modifier '.rn' for instruction 'ld'"). (A word that is no
/// PTX modifier at all was rejected before decoding.)
pub(super) fn check_space_mods(cx: &Cx) -> Result<(), LowerError> {
    for m in &cx.mods {
        let decoded = matches!(
            *m,
            "global"
                | "shared"
                | "shared::cta"
                | "local"
                | "const"
                | "param"
                | "param::entry"
                // A device function's parameter (PTX ISA §9.7.9.8): checked by
                // `func_param_space`.
                | "param::func"
                | "v2"
                | "v4"
                | "v8"
                | "nc"
                | "ca"
                | "cg"
                | "cs"
                | "lu"
                | "cv"
                | "wb"
                | "wt"
                | "volatile"
                | "relaxed"
                | "acquire"
                | "release"
                | "weak"
                | "cta"
                | "gpu"
                | "sys"
                // A scope narrower than .gpu is implied by it: all of ptxjit's memory is
                // coherent, and ordering at .gpu scope orders for every smaller scope.
                | "cluster"
                // Another CTA's shared memory in the cluster, or this CTA's (`runtime::cluster`).
                | "shared::cluster"
                // `.mmio.relaxed.sys` (PTX ISA §9.7.9.8, §9.7.9.11): an access ptxjit performs
                // exactly once, as every access.
                | "mmio"
                | "L2::64B"
                | "L2::128B"
                | "L2::256B"
                | "L1::evict_normal"
                | "L1::evict_unchanged"
                | "L1::evict_first"
                | "L1::evict_last"
                | "L1::no_allocate"
                | "L2::evict_first"
                | "L2::evict_last"
                | "L2::evict_normal"
        ) || ast::ScalarType::from_suffix(m).is_some()
            // `ld.proxy::readonly` (PTX ISA 9.4), checked below.
            || (*m == "proxy::readonly" && cx.inst.opcode.name == "ld");
        if decoded {
            continue;
        }
        // `st.async` (PTX ISA §9.7.9.12), decoded apart. (`.L2::evict_unchanged` is no
        // `.level2::eviction_priority` of ld/st: illegal, as ptxas 13.5 says.)
        let unimplemented = *m == "async";
        if unimplemented {
            return Err(cx.unsupported(&format!("modifier .{m} is not supported yet")));
        }
        return Err(cx.bad(&format!(
            "illegal modifier '.{m}' for '{}'",
            cx.inst.opcode.name
        )));
    }
    // One state space (PTX ISA §9.7.9.8 `.ss`; ptxas 13.5: "Unexpected number of state spaces
    // specified in instruction 'ld'" on `ld.shared.global.u32`).
    let mut spaces = cx.mods.iter().filter(|m| LD_SPACES.contains(*m));
    if let (Some(a), Some(b)) = (spaces.next(), spaces.next()) {
        return Err(cx.bad(&format!("two state spaces ('.{a}', '.{b}')")));
    }
    // `ld{.global}{.nc}.proxy::readonly{.vec}.type` (PTX ISA 9.4; the 9.4 text was not at
    // hand): a load through the read-only proxy, which ptxjit, with one proxy, performs as a
    // plain load (docs/isa-notes.md). ptxas 13.5 takes it on global and generic addresses
    // only ("Modifier '.proxy::readonly' cannot be applied to '.shared' space") and without
    // a memory order, cache operator or eviction hint ("... cannot be combined with modifier
    // '.weak'", "'.ca'", "'.L2::64B'", "'.evict_last'").
    if cx.has("proxy::readonly") {
        if let Some(m) = cx
            .mods
            .iter()
            .find(|m| **m != "global" && LD_SPACES.contains(*m))
        {
            return Err(cx.bad(&format!(
                "modifier '.proxy::readonly' cannot be applied to the .{m} space (.global or \
                 a generic address)"
            )));
        }
        if let Some(m) = cx.mods.iter().find(|m| {
            matches!(
                **m,
                "weak"
                    | "volatile"
                    | "relaxed"
                    | "acquire"
                    | "mmio"
                    | "cta"
                    | "cluster"
                    | "gpu"
                    | "sys"
                    | "ca"
                    | "cg"
                    | "cs"
                    | "lu"
                    | "cv"
            ) || m.starts_with("L1::")
                || m.starts_with("L2::")
        }) {
            return Err(cx.bad(&format!(
                "modifier '.proxy::readonly' cannot be combined with modifier '.{m}'"
            )));
        }
    }
    // `ld.global{.cop}.nc` (PTX ISA §9.7.9.9): the non-coherent load is of the global space
    // only (ptxas 13.5: "Modifier '.nc' requires .global space" on `ld.nc.f32`).
    if cx.has("nc") && !cx.has("global") {
        return Err(cx.bad(".nc requires the .global state space (ld.global.nc)"));
    }
    // A scope qualifies a memory order (§9.7.9.8 `.relaxed.scope`, `.acquire.scope`; §9.7.9.11
    // `.release.scope`): ptxas 13.5 says "Modifier '.cta' requires memory order with 'ld'
    // instruction" on `ld.cta.global.u32` and "Modifier '.weak' cannot be combined with
    // modifier '.cta'" on `ld.weak.cta.global.u32`.
    let op = cx.inst.opcode.name.as_str();
    if let Some(scope) = cx
        .mods
        .iter()
        .find(|m| matches!(**m, "cta" | "cluster" | "gpu" | "sys"))
    {
        if cx.has("weak") {
            return Err(cx.bad(&format!(
                "modifier '.weak' cannot be combined with modifier '.{scope}'"
            )));
        }
        if !["relaxed", "acquire", "release"].iter().any(|o| cx.has(o)) {
            return Err(cx.bad(&format!(
                "modifier '.{scope}' requires a memory order (.relaxed, .acquire or .release) \
                 on '{op}'"
            )));
        }
    }
    // `.level::eviction_priority` of L2 (§9.7.9.8, §9.7.9.11: `.L2::evict_first`,
    // `.L2::evict_last`, `.L2::evict_normal`) goes with a 256-bit access of the global space:
    // ptxas 13.5 says "Instruction 'ld' requires '.v8.b32/.v4.b64' type with
    // '.L2::evict_last' modifier" on `ld.global.L2::evict_last.u32` and "global state space
    // expected for feature '256 bit wide load/store'" on `st.shared.L2::evict_last.v8.s32`.
    if let Some(l2) = cx.mods.iter().find(|m| {
        matches!(
            **m,
            "L2::evict_first" | "L2::evict_last" | "L2::evict_normal"
        )
    }) {
        let count = if cx.has("v8") {
            8
        } else if cx.has("v4") {
            4
        } else if cx.has("v2") {
            2
        } else {
            1
        };
        let bits = cx
            .mods
            .iter()
            .rev()
            .find_map(|m| ast::ScalarType::from_suffix(m))
            .map_or(0, |t| t.size() * 8);
        if !matches!((count, bits), (8, 32) | (4, 64)) {
            return Err(cx.bad(&format!(
                "'{op}' with '.{l2}' needs a .v8 of 32-bit or a .v4 of 64-bit elements (256 bits)"
            )));
        }
        if !cx.has("global") {
            return Err(cx.bad(&format!(
                "'{op}' with '.{l2}' (a 256-bit access) needs the .global state space"
            )));
        }
    }
    Ok(())
}

/// The state space of an ld/st whose address is operand `k`, call parameters resolved
/// ([`call::param_space`](super::super::call::param_space)). `.param::func` (PTX ISA
/// §9.7.9.8, §9.7.9.10) must name a device function's parameter; on anything else ptxas
/// reports "Illegal state space for address operand '::func'".
fn func_param_space(b: &Builder, cx: &Cx, k: usize) -> Result<Space, LowerError> {
    let space = super::super::call::param_space(b, cx, k, space_of(cx));
    if cx.has("param::func") && space != Space::Local {
        return Err(cx.bad(".param::func needs the address of a device function parameter"));
    }
    Ok(space)
}

pub(super) fn mem_ty(cx: &Cx) -> Result<(Type, Sign, ast::ScalarType), LowerError> {
    let t = cx.ty()?;
    if t == ast::ScalarType::Pred {
        return Err(cx.bad("memory operations cannot use .pred"));
    }
    let (ty, sign, _) = ir_ty(t).ok_or_else(|| {
        cx.unsupported(&format!(
            "type .{} is not supported yet",
            format!("{t:?}").to_lowercase()
        ))
    })?;
    Ok((ty, sign, t))
}

pub(super) fn load(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    check_space_mods(cx)?;
    cx.expect_operands(2)?;
    let space = func_param_space(b, cx, 1)?;
    let (ty, sign, pt) = mem_ty(cx)?;
    let n = mem_vec_len(cx, ty)?;
    let addr = b.address(cx, 1, space)?;
    let d = cx.opnd(0)?.clone();
    let dests: Vec<Operand> = match (&d, n) {
        (Operand::Vector(e, _), n) if e.len() as u32 == n && n > 1 => e.clone(),
        (_, 1) => vec![d.clone()],
        _ => return Err(cx.bad("vector width and destination list disagree")),
    };
    let at = b.vars[addr as usize];
    if strong_16_bytes(cx, space, ty, n) {
        let (lo, hi) = (b.new_var(Type::I64), b.new_var(Type::I64));
        let op = Op::Strong128 {
            store: false,
            space,
        };
        b.emit(op, vec![addr], vec![lo, hi], cx.loc, &cx.ptx);
        b.mark_sync(cx.mem_sync());
        // Element k in bits k·w..(k+1)·w of the 16 little-endian bytes.
        let per_half = 8 / ty.bytes() as usize;
        for (k, dop) in dests.iter().enumerate() {
            let half = if k < per_half { lo } else { hi };
            let part = if k % per_half == 0 {
                half
            } else {
                let c = b.konst(cx, Type::I32, ty.bits() as u64);
                let op = Op::Shr {
                    sign: Sign::Unsigned,
                };
                b.emit1(op, vec![half, c], Type::I64, cx.loc, &cx.ptx)
            };
            let v = b.coerce(cx, part, ty, Some(Sign::Unsigned), cx.inst.span)?;
            if let Some(t) = b.dst_sized(cx, dop, ty, pt, sign)? {
                b.copy(t, v, cx.loc, &cx.ptx);
            }
        }
        return Ok(());
    }
    if let Some(wt) = packed_vector(space, ty, n) {
        // One access of the whole vector, split into its elements (element k in bits
        // k·w..(k+1)·w: little-endian memory).
        let whole = b.emit1(
            Op::Load {
                space,
                align: wt.bytes() as u8,
            },
            vec![addr],
            wt,
            cx.loc,
            &cx.ptx,
        );
        b.mark_sync(cx.mem_sync());
        for (k, dop) in dests.iter().enumerate() {
            let part = if k == 0 {
                whole
            } else {
                let c = b.konst(cx, Type::I32, k as u64 * ty.bits() as u64);
                let op = Op::Shr {
                    sign: Sign::Unsigned,
                };
                b.emit1(op, vec![whole, c], wt, cx.loc, &cx.ptx)
            };
            // Truncate, then reinterpret as a float element.
            let v = b.coerce(cx, part, ty, Some(Sign::Unsigned), cx.inst.span)?;
            if let Some(t) = b.dst_sized(cx, dop, ty, pt, sign)? {
                b.copy(t, v, cx.loc, &cx.ptx);
            }
        }
        return Ok(());
    }
    for (k, dop) in dests.iter().enumerate() {
        let a = if k == 0 {
            addr
        } else {
            let o = b.konst(cx, at, (k as u64) * ty.bytes() as u64);
            b.emit1(Op::IAdd {}, vec![addr, o], at, cx.loc, &cx.ptx)
        };
        let align = if k == 0 { ty.bytes() * n } else { ty.bytes() } as u8;
        let v = b.emit1(Op::Load { space, align }, vec![a], ty, cx.loc, &cx.ptx);
        b.mark_sync(cx.mem_sync());
        if let Some(t) = b.dst_sized(cx, dop, ty, pt, sign)? {
            b.copy(t, v, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}

/// Whether an `ld`/`st` is a strong (`.relaxed`, `.volatile`, `.mmio`, `.acquire`,
/// `.release`) vector access of 16 bytes in memory other threads can see (global, shared,
/// generic): one [`Op::Strong128`], which does not tear, instead of element accesses.
fn strong_16_bytes(cx: &Cx, space: Space, ty: Type, n: u32) -> bool {
    n >= 2
        && ty.bytes() * n == 16
        && cx.mem_sync() != crate::ir::MemSync::None
        && matches!(space, Space::Global | Space::Shared | Space::Generic)
}

/// The integer type of a whole `ld`/`st` vector accessed at once: vectors of at most 8
/// bytes (`.v2/.v4` of 8- and 16-bit elements, `.v2` of 32-bit ones) in memory that threads
/// address directly (global, shared, local, generic). A vector access is one access of its
/// whole size, aligned to it (PTX ISA §6.4.2, §9.7.9.8): so it faults as a whole, and the
/// engines see one lane-consecutive access instead of strided element accesses.
pub(super) fn packed_vector(space: Space, ty: Type, n: u32) -> Option<Type> {
    let direct = matches!(
        space,
        Space::Global | Space::Shared | Space::Local | Space::Generic
    );
    let total = ty.bytes() * n;
    if !direct || n < 2 || total > 8 || !matches!(ty.bits(), 8 | 16 | 32) {
        return None;
    }
    Type::int_of_bytes(total)
}

pub(super) fn store(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    check_space_mods(cx)?;
    cx.expect_operands(2)?;
    let space = func_param_space(b, cx, 0)?;
    if space == Space::Const || space == Space::Param {
        return Err(cx.bad(&format!("st to the read-only {space} state space")));
    }
    let (ty, _sign, pt) = mem_ty(cx)?;
    let n = mem_vec_len(cx, ty)?;
    let addr = b.address(cx, 0, space)?;
    let s = cx.opnd(1)?.clone();
    let srcs: Vec<Operand> = match (&s, n) {
        (Operand::Vector(e, _), n) if e.len() as u32 == n && n > 1 => e.clone(),
        (_, 1) => vec![s.clone()],
        _ => return Err(cx.bad("vector width and source list disagree")),
    };
    let at = b.vars[addr as usize];
    if strong_16_bytes(cx, space, ty, n) {
        // The elements packed into two 64-bit halves (element k in bits k·w..(k+1)·w of
        // the 16 little-endian bytes), one store.
        let per_half = 8 / ty.bytes() as usize;
        let mut halves = vec![];
        for (k, sop) in srcs.iter().enumerate() {
            let v = b.src_sized(cx, sop, ty, pt, Sign::Unsigned)?;
            // A float element's bits, zero-extended.
            let v = b.coerce(cx, v, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
            if k % per_half == 0 {
                halves.push(v);
            } else if let Some(h) = halves.last_mut() {
                let c = b.konst(cx, Type::I32, ty.bits() as u64);
                let v = b.emit1(Op::Shl {}, vec![v, c], Type::I64, cx.loc, &cx.ptx);
                *h = b.emit1(Op::Or {}, vec![*h, v], Type::I64, cx.loc, &cx.ptx);
            }
        }
        let op = Op::Strong128 { store: true, space };
        b.emit(op, [vec![addr], halves].concat(), vec![], cx.loc, &cx.ptx);
        b.mark_sync(cx.mem_sync());
        return Ok(());
    }
    if let Some(wt) = packed_vector(space, ty, n) {
        // The elements packed into one integer (element k in bits k·w..(k+1)·w), one store.
        let mut acc = None;
        for (k, sop) in srcs.iter().enumerate() {
            let v = b.src_sized(cx, sop, ty, pt, Sign::Unsigned)?;
            // A float element's bits, zero-extended.
            let v = b.coerce(cx, v, wt, Some(Sign::Unsigned), cx.inst.span)?;
            let v = if k == 0 {
                v
            } else {
                let c = b.konst(cx, Type::I32, k as u64 * ty.bits() as u64);
                b.emit1(Op::Shl {}, vec![v, c], wt, cx.loc, &cx.ptx)
            };
            acc = Some(match acc {
                None => v,
                Some(a) => b.emit1(Op::Or {}, vec![a, v], wt, cx.loc, &cx.ptx),
            });
        }
        if let Some(v) = acc {
            let op = Op::Store {
                space,
                align: wt.bytes() as u8,
            };
            b.emit(op, vec![addr, v], vec![], cx.loc, &cx.ptx);
            b.mark_sync(cx.mem_sync());
        }
        return Ok(());
    }
    for (k, sop) in srcs.iter().enumerate() {
        let v = b.src_sized(cx, sop, ty, pt, Sign::Unsigned)?;
        let a = if k == 0 {
            addr
        } else {
            let o = b.konst(cx, at, (k as u64) * ty.bytes() as u64);
            b.emit1(Op::IAdd {}, vec![addr, o], at, cx.loc, &cx.ptx)
        };
        let align = if k == 0 { ty.bytes() * n } else { ty.bytes() } as u8;
        b.emit(
            Op::Store { space, align },
            vec![a, v],
            vec![],
            cx.loc,
            &cx.ptx,
        );
        b.mark_sync(cx.mem_sync());
    }
    Ok(())
}

pub(super) fn shfl(b: &mut Builder, cx: &mut Cx) -> Result<(), LowerError> {
    let mode = cx
        .mods
        .iter()
        .find_map(|m| match *m {
            "up" => Some(ShflMode::Up),
            "down" => Some(ShflMode::Down),
            "bfly" => Some(ShflMode::Bfly),
            "idx" => Some(ShflMode::Idx),
            _ => None,
        })
        .ok_or_else(|| cx.bad("missing shuffle mode"))?;
    let sync = cx.has("sync");
    if !sync && b.sync_required {
        return Err(cx.bad(
            "shfl without .sync is not supported on .target sm_70 and higher from PTX ISA 6.4 \
             (shfl.sync takes a membermask)",
        ));
    }
    cx.expect_operands(if sync { 5 } else { 4 })?;
    let v = b.src(cx, 1, Type::I32)?;
    let lane = b.src(cx, 2, Type::I32)?;
    let c = b.src(cx, 3, Type::I32)?;
    let mask = if sync {
        b.check_u32_operand(cx, 4)?;
        let m = b.src(cx, 4, Type::I32)?;
        super::super::collective::warp_wait(b, cx, m, false);
        m
    } else {
        b.konst(cx, Type::I32, 0xffff_ffff)
    };
    let d = cx.opnd(0)?.clone();
    let (dv, dp) = match &d {
        Operand::PredPair(p, q) => (
            Operand::Reg {
                name: p.clone(),
                component: None,
            },
            Some(Operand::Reg {
                name: q.clone(),
                component: None,
            }),
        ),
        other => (other.clone(), None),
    };
    let r = b.new_var(Type::I32);
    let p = b.new_var(Type::Pred);
    b.emit(
        Op::Shfl { mode },
        vec![v, lane, c, mask],
        vec![r, p],
        cx.loc,
        &cx.ptx,
    );
    if let Some(t) = b.dst_rel(cx, &dv, Type::I32, None)? {
        b.copy(t, r, cx.loc, &cx.ptx);
    }
    if let Some(q) = dp {
        if let Some(t) = b.dst_rel(cx, &q, Type::Pred, None)? {
            b.copy(t, p, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}

pub(super) fn prmt(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(4)?;
    let mode = cx
        .mods
        .iter()
        .find_map(|m| match *m {
            "f4e" => Some(PrmtMode::F4e),
            "b4e" => Some(PrmtMode::B4e),
            "rc8" => Some(PrmtMode::Rc8),
            "ecl" => Some(PrmtMode::Ecl),
            "ecr" => Some(PrmtMode::Ecr),
            "rc16" => Some(PrmtMode::Rc16),
            _ => None,
        })
        .unwrap_or(PrmtMode::Generic);
    let x = b.src(cx, 1, Type::I32)?;
    let y = b.src(cx, 2, Type::I32)?;
    let z = b.src(cx, 3, Type::I32)?;
    b.unary_to_dst(cx, Op::Prmt { mode }, vec![x, y, z], Type::I32)
}
