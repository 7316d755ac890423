//! Memory operations of PTX ISA §9.7.9.13-17 beside the plain loads and stores: `st.bulk`
//! (§9.7.9.13), `multimem.ld_reduce`, `multimem.st`, `multimem.red` (§9.7.9.14),
//! `applypriority` (§9.7.9.16) and `discard` (§9.7.9.17).
//!
//! Forms:
//! ```text
//! st.bulk{.weak}{.shared::cta} [a], size, initval;          // initval 0; size u32/u64
//! multimem.ld_reduce{.ldsem.scope | .weak}{.global}.op{.acc_prec}{.vec}.type  d, [a];
//! multimem.st{.stsem.scope | .weak}{.global}{.vec}.type                       [a], b;
//! multimem.red{.redsem.scope}{.global}.op{.vec}.type                          [a], b;
//! applypriority{.global}.L2::evict_normal [a], 128;
//! discard{.global}.L2 [a], 128;
//! ```
//!
//! `st.bulk` writes `size` zero bytes as 8-byte stores, so the memory checks, racecheck and
//! initcheck see it as the stores it is. A size that is not a multiple of 8 or is over
//! 16777216 (undefined in the ISA) traps; a constant one is a load error; a generic address
//! outside the shared window (undefined) traps; a misaligned address faults as an 8-byte
//! store does.
//!
//! ptxjit has one device: a global address given to `multimem.*` is a multicast object bound
//! to memory on that one device (docs/isa-notes.md). So `multimem.ld_reduce` loads the one
//! copy and its reduction over one value is that value (whatever `.op` and `.acc_prec`),
//! `multimem.st` is a store and `multimem.red` an atomic reduction, element by element. A
//! generic address outside the global window (undefined in the ISA) traps.
//!
//! `applypriority` and `discard` are cache hints. Their address must be 128-byte aligned and
//! (generic addressing) in the global window, else they trap; they access no memory. `discard`
//! writes "unstable indeterminate values" (§9.7.9.17): ptxjit's choice of indeterminate value
//! is the bytes already there.

use super::super::build::{Builder, PTerm, Var};
use super::super::LowerError;
use super::bulk::for_each;
use super::Cx;
use crate::ir::{AtomOp, HalfFmt, ICmp, Op, Sign, Space, Type};
use crate::ptx::ast::Operand;

type R = Result<(), LowerError>;

/// The largest `st.bulk` size (PTX ISA §9.7.9.13).
const BULK_MAX: u64 = 16_777_216;

/// Every modifier of `cx` is in `allowed` and none is given twice.
fn only(cx: &Cx, allowed: &[&str], name: &str) -> R {
    super::bulk::only(cx, 0, allowed, name)
}

/// End the current block with a trap when `bad` holds.
fn trap_if(b: &mut Builder, cx: &Cx, bad: Var) {
    branch_to_trap(b, cx, bad, true);
}

/// A two-way branch of the current block on `p` to a trap (when `p == trap_on`) or on.
fn branch_to_trap(b: &mut Builder, cx: &Cx, p: Var, trap_on: bool) {
    let trap = b.new_block();
    let after = b.new_block();
    let cur = b.cur as usize;
    let (t, e) = if trap_on {
        (trap, after)
    } else {
        (after, trap)
    };
    b.blocks[cur].term = PTerm::Branch(p, t, e);
    b.blocks[cur].term_loc = cx.loc;
    b.blocks[trap as usize].term = PTerm::Trap;
    b.blocks[trap as usize].term_loc = cx.loc;
    b.cur = after;
}

fn cmp(b: &mut Builder, cx: &Cx, cc: ICmp, x: Var, y: Var) -> Var {
    let op = Op::ICmp {
        cc,
        sign: Sign::Unsigned,
    };
    b.emit1(op, vec![x, y], Type::Pred, cx.loc, &cx.ptx)
}

/// Trap when the generic address `a` (i64) is outside `space`'s window.
fn trap_outside(b: &mut Builder, cx: &Cx, a: Var, space: Space) {
    let inside = b.emit1(Op::IsSpace { space }, vec![a], Type::Pred, cx.loc, &cx.ptx);
    branch_to_trap(b, cx, inside, false);
}

/// Trap when `x & mask != 0` (i64).
fn trap_unless_multiple(b: &mut Builder, cx: &Cx, x: Var, mask: u64) {
    let m = b.konst(cx, Type::I64, mask);
    let low = b.emit1(Op::And {}, vec![x, m], Type::I64, cx.loc, &cx.ptx);
    let zero = b.konst(cx, Type::I64, 0);
    let bad = cmp(b, cx, ICmp::Ne, low, zero);
    trap_if(b, cx, bad);
}

/// The address operand `k` of an instruction whose only state space is `space` (`.global`
/// or `.shared::cta`, written as the modifier `word`, or generic addressing): the address as
/// an i64 and the space to access it in. A generic address outside `space`'s window traps.
fn address_in(
    b: &mut Builder,
    cx: &Cx,
    k: usize,
    space: Space,
    word: &str,
) -> Result<(Var, Space), LowerError> {
    let explicit = cx.has(word);
    let sp = if explicit { space } else { Space::Generic };
    let a = b.address(cx, k, sp)?;
    let a = b.coerce(cx, a, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
    if !explicit {
        trap_outside(b, cx, a, space);
    }
    Ok((a, sp))
}

/// `st.bulk{.weak}{.shared::cta} [a], size, initval` (PTX ISA §9.7.9.13): zero `size` bytes
/// of shared memory from `a`.
pub(super) fn st_bulk(b: &mut Builder, cx: &mut Cx) -> R {
    only(cx, &["bulk", "weak", "shared::cta"], "st.bulk")?;
    if cx.mods.first() != Some(&"bulk") {
        return Err(cx.bad("expects st.bulk{.weak}{.shared::cta}"));
    }
    cx.expect_operands(3)?;
    if super::bulk::imm(cx, 2)? != Some(0) {
        return Err(LowerError::new(
            cx.opnd(2)?.span(),
            format!(
                "invalid '{}': initval must be the integer constant 0",
                cx.ptx
            ),
        ));
    }
    if let Some(v) = super::bulk::imm(cx, 1)? {
        if v < 0 || v % 8 != 0 || v as u64 > BULK_MAX {
            return Err(LowerError::new(
                cx.opnd(1)?.span(),
                format!(
                    "invalid '{}': size {v} is not a multiple of 8 bytes in 0..={BULK_MAX}",
                    cx.ptx
                ),
            ));
        }
    }
    // The size: a 32-bit or 64-bit integer (§9.7.9.13).
    let size = match cx.opnd(1)? {
        Operand::Reg { name, .. } => {
            let r = b.reg_var(cx, name)?;
            match b.vars[r as usize] {
                Type::I32 => b.src(cx, 1, Type::I32)?,
                _ => b.src(cx, 1, Type::I64)?,
            }
        }
        _ => b.src(cx, 1, Type::I64)?,
    };
    let size = b.coerce(cx, size, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
    let (a, space) = address_in(b, cx, 0, Space::Shared, "shared::cta")?;
    trap_unless_multiple(b, cx, size, 7);
    let max = b.konst(cx, Type::I64, BULK_MAX);
    let over = cmp(b, cx, ICmp::Gt, size, max);
    trap_if(b, cx, over);
    // for (off = 0; off < size; off += 8) st.u64 [a + off], 0
    for_each(b, cx, size, 8, |b, off| {
        let at = b.emit1(Op::IAdd {}, vec![a, off], Type::I64, cx.loc, &cx.ptx);
        let z = b.konst(cx, Type::I64, 0);
        b.emit(
            Op::Store { space, align: 8 },
            vec![at, z],
            vec![],
            cx.loc,
            &cx.ptx,
        );
        Ok(())
    })
}

/// `applypriority{.global}.L2::evict_normal [a], 128` (PTX ISA §9.7.9.16) and
/// `discard{.global}.L2 [a], 128` (§9.7.9.17): hints with no effect on the CPU; the
/// operands are checked, and a misaligned address or a generic one outside the global
/// window traps.
pub(super) fn cache_hint(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    let level = if op == "discard" {
        "L2"
    } else {
        "L2::evict_normal"
    };
    only(cx, &["global", level], op)?;
    if !cx.has(level) {
        return Err(cx.bad(&format!("'{op}' needs .{level}")));
    }
    cx.expect_operands(2)?;
    if !matches!(
        cx.opnd(0)?,
        Operand::Address { .. } | Operand::Indexed { .. }
    ) {
        return Err(cx.bad("needs an address operand [a]"));
    }
    if super::bulk::imm(cx, 1)? != Some(128) {
        return Err(LowerError::new(
            cx.opnd(1)?.span(),
            format!(
                "invalid '{}': size must be the integer constant 128",
                cx.ptx
            ),
        ));
    }
    let (a, _) = address_in(b, cx, 0, Space::Global, "global")?;
    trap_unless_multiple(b, cx, a, 127);
    Ok(())
}

/// The kind of a `multimem` element type.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `.b32 .b64 .u32 .u64 .s32 .s64`.
    Int(Sign),
    F32,
    F64,
    /// `.f16 .bf16` (`pair` false), `.f16x2 .bf16x2`.
    Half {
        fmt: HalfFmt,
        pair: bool,
    },
    /// `.e5m2 .e4m3` (in `.b8` registers), `.e5m2x2 .e4m3x2`, `.e5m2x4 .e4m3x4`: bits only
    /// (every form of them is a load or store of the one copy).
    Fp8,
}

/// A `multimem` element type: its name, kind and IR type (its register's size).
fn elem_type(name: &str) -> Option<(Kind, Type)> {
    Some(match name {
        "b32" | "u32" => (Kind::Int(Sign::Unsigned), Type::I32),
        "b64" | "u64" => (Kind::Int(Sign::Unsigned), Type::I64),
        "s32" => (Kind::Int(Sign::Signed), Type::I32),
        "s64" => (Kind::Int(Sign::Signed), Type::I64),
        "f32" => (Kind::F32, Type::F32),
        "f64" => (Kind::F64, Type::F64),
        "f16" | "bf16" | "f16x2" | "bf16x2" => {
            let fmt = if name.starts_with("bf") {
                HalfFmt::Bf16
            } else {
                HalfFmt::F16
            };
            let pair = name.ends_with("x2");
            let ty = if pair { Type::I32 } else { Type::I16 };
            (Kind::Half { fmt, pair }, ty)
        }
        "e5m2" | "e4m3" => (Kind::Fp8, Type::I8),
        "e5m2x2" | "e4m3x2" => (Kind::Fp8, Type::I16),
        "e5m2x4" | "e4m3x4" => (Kind::Fp8, Type::I32),
        _ => return None,
    })
}

/// `multimem.cp.async.bulk.global.shared::cta.bulk_group{.cp_mask}` and
/// `multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.redOp.type` (PTX ISA 9.1,
/// §9.7.9.25.4.4-5): a bulk copy (reduction) from shared memory "to memory locations residing
/// on each GPU's memory referred to by the destination multimem address range". ptxjit has
/// one device, whose global addresses are multimem addresses bound on it alone, so each is
/// `cp.async.bulk.global.shared::cta.bulk_group{.cp_mask}` (`cp.reduce.async.bulk...`) on
/// that one copy: the same syntax after `multimem.`, the same operands, checks and bulk-group
/// completion (`docs/isa-notes.md`). No memory-order qualifier: the ISA's syntax has none.
fn multimem_bulk(b: &mut Builder, cx: &mut Cx) -> R {
    if let Some(m) = cx
        .mods
        .iter()
        .find(|m| super::table::ORDER_WORDS.contains(m))
    {
        return Err(cx.bad(&format!(
            "illegal modifier '.{m}' for '{}' (multimem.cp forms take no memory-order \
             qualifier)",
            cx.inst.opcode.name
        )));
    }
    if !(cx.has("global") && cx.has("shared::cta") && cx.has("bulk_group")) {
        return Err(cx.bad("copies .global.shared::cta with .bulk_group"));
    }
    let mut inner = Cx {
        inst: cx.inst,
        loc: cx.loc,
        ptx: cx.ptx.clone(),
        mods: cx.mods[1..].to_vec(),
        writes: Vec::new(),
    };
    let r = match (inner.mods.first().copied(), inner.mods.get(1).copied()) {
        (Some("reduce"), Some("async")) => super::bulk::reduce(b, &mut inner),
        (Some("async"), Some("bulk"))
            if !inner
                .mods
                .get(2)
                .is_some_and(|m| matches!(*m, "commit_group" | "wait_group" | "prefetch")) =>
        {
            super::bulk::bulk(b, &mut inner)
        }
        _ => Err(cx.bad("expects multimem.cp.async.bulk or multimem.cp.reduce.async.bulk")),
    };
    cx.writes.append(&mut inner.writes);
    r
}

const MM_TYPES: [&str; 18] = [
    "b32", "b64", "u32", "u64", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64",
    "e5m2", "e5m2x2", "e5m2x4", "e4m3", "e4m3x2", "e4m3x4",
];

/// The forms of `multimem.st.async` and `multimem.red.async` (PTX ISA 9.3) that ptxas 13.5
/// takes: `.release` with `.gpu` or `.sys` (".release modifier required for instruction
/// 'multimem.st.async'", "Illegal modifier '.cta'"), no vector ("Vector qualifier is not
/// allowed"); `.st` on `.b32/.b64/.u32/.u64/.s32/.s64/.f32/.f64`, `.red` `.add` on
/// `.u32/.s32/.u64` ("Unexpected instruction types specified", "Illegal reduction operation").
/// The PTX ISA 9.3 text was not at hand: it runs as the `.release` store or reduction without
/// `.async`, complete when it executes (docs/isa-notes.md).
fn async_form(
    cx: &Cx,
    name: &str,
    sem: Option<&str>,
    scope: Option<&str>,
    op: Option<&str>,
    tname: &str,
    n: u32,
) -> R {
    let name = format!("{name}.async");
    if sem != Some("release") {
        return Err(cx.bad(&format!(
            ".release modifier required for instruction '{name}'"
        )));
    }
    if let Some(s @ ("cta" | "cluster")) = scope {
        return Err(cx.bad(&format!(
            "illegal modifier '.{s}' for instruction '{name}' (.gpu or .sys)"
        )));
    }
    if n > 1 {
        return Err(cx.bad(&format!(
            "vector qualifier is not allowed for instruction '{name}'"
        )));
    }
    let ok = match op {
        None => matches!(
            tname,
            "b32" | "b64" | "u32" | "u64" | "s32" | "s64" | "f32" | "f64"
        ),
        Some("add") => matches!(tname, "u32" | "s32" | "u64"),
        Some(o) => {
            return Err(cx.bad(&format!(
                "illegal reduction operation '.{o}' for instruction '{name}' (.add only)"
            )))
        }
    };
    if !ok {
        return Err(cx.bad(&format!("'{name}' has no type .{tname}")));
    }
    Ok(())
}

/// `multimem.ld_reduce`, `multimem.st`, `multimem.red` (PTX ISA §9.7.9.14) on a multimem
/// address bound to this one device; `multimem.cp.async.bulk` and
/// `multimem.cp.reduce.async.bulk` (PTX ISA 9.1, §9.7.9.25.4.4-5) in [`multimem_bulk`].
pub(super) fn multimem(b: &mut Builder, cx: &mut Cx) -> R {
    let sub =
        match cx.mods.first().copied() {
            Some(s @ ("ld_reduce" | "st" | "red")) => s,
            Some("cp") => return multimem_bulk(b, cx),
            _ => return Err(cx.bad(
                "expects multimem.ld_reduce, multimem.st, multimem.red, multimem.cp.async.bulk \
                 or multimem.cp.reduce.async.bulk",
            )),
        };
    let name = format!("multimem.{sub}");
    // The memory-synchronizing qualifiers of each form.
    let sems: &[&str] = match sub {
        "ld_reduce" => &["weak", "relaxed", "acquire"],
        "st" => &["weak", "relaxed", "release"],
        _ => &["relaxed", "release"],
    };
    let scopes = ["cta", "cluster", "gpu", "sys"];
    let ops: &[&str] = match sub {
        "st" => &[],
        _ => &["min", "max", "add", "and", "or", "xor"],
    };
    // `multimem.st.async` / `multimem.red.async` (PTX ISA 9.3, sm_100): the store or
    // reduction as an asynchronous operation of the release pattern.
    let is_async = cx.has("async");
    let mut allowed = vec![sub, "global", "v2", "v4", "v8"];
    if sub != "ld_reduce" {
        allowed.push("async");
    }
    allowed.extend_from_slice(sems);
    allowed.extend_from_slice(&scopes);
    allowed.extend_from_slice(ops);
    allowed.extend_from_slice(&MM_TYPES);
    if sub == "ld_reduce" {
        allowed.extend_from_slice(&["acc::f32", "acc::f16"]);
    }
    let rest = &cx.mods[1..];
    for (k, m) in rest.iter().enumerate() {
        if !allowed.contains(m) || *m == sub {
            return Err(cx.bad(&format!("illegal modifier '.{m}' for '{name}'")));
        }
        if rest[..k].contains(m) {
            return Err(cx.bad(&format!("modifier '.{m}' given twice")));
        }
    }
    let pick = |words: &[&'static str], what: &str| cx.word_of(words, what);
    let sem = pick(sems, "memory-order qualifier")?;
    let scope = pick(&scopes, "scope")?;
    // `.weak` has no scope; `.relaxed/.acquire/.release` need one, and a scope needs one of
    // them (ptxas: "Modifier '.relaxed' requires scope", "Modifier '.gpu' requires order").
    match (sem, scope) {
        (None, None) | (Some("weak"), None) => {}
        (Some("weak"), Some(s)) => {
            return Err(cx.bad(&format!(
                "modifier '.weak' cannot be combined with modifier '.{s}'"
            )))
        }
        (Some(m), None) => return Err(cx.bad(&format!("modifier '.{m}' needs a scope"))),
        (None, Some(s)) => {
            return Err(cx.bad(&format!(
                "scope '.{s}' needs a memory-order qualifier ({})",
                sems.iter()
                    .filter(|m| **m != "weak")
                    .map(|m| format!(".{m}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )))
        }
        (Some(_), Some(_)) => {}
    }
    let tname = pick(&MM_TYPES, "type")?.ok_or_else(|| cx.bad("missing type"))?;
    let op = pick(ops, "operation")?;
    if sub != "st" && op.is_none() {
        return Err(cx.bad(&format!("'{name}' needs an operation")));
    }
    let Some((kind, ty)) = elem_type(tname) else {
        return Err(cx.bad(&format!("'{name}' has no type .{tname}")));
    };
    let n: u32 = match pick(&["v2", "v4", "v8"], "vector width")? {
        Some("v2") => 2,
        Some("v4") => 4,
        Some(_) => 8,
        None => 1,
    };
    if is_async {
        async_form(cx, &name, sem, scope, op, tname, n)?;
    }
    let int = matches!(kind, Kind::Int(_));
    if int && n > 1 {
        return Err(cx.bad("vector forms take floating-point types only"));
    }
    // Floating-point forms: 32, 64 or 128 bits in all, and .f64 without .vec (§9.7.9.14).
    let total = ty.bits() * n;
    if !int && (!matches!(total, 32 | 64 | 128) || (kind == Kind::F64 && n > 1)) {
        return Err(cx.bad(&format!(
            "{}.{tname} is not 32, 64 or 128 bits of a type .vec allows",
            if n > 1 {
                format!(".v{n}")
            } else {
                String::new()
            }
        )));
    }
    // The valid combinations of .op and type (§9.7.9.14); `multimem.red` on floats: `.add`
    // on .f16/.bf16 (x2), .f32, .f64.
    if let Some(o) = op {
        let fp8 = kind == Kind::Fp8;
        let half = matches!(kind, Kind::Half { .. });
        let ok = match o {
            "add" => match kind {
                Kind::Int(_) => matches!(tname, "u32" | "u64" | "s32"),
                Kind::Fp8 => sub == "ld_reduce",
                _ => true,
            },
            "and" | "or" | "xor" => matches!(tname, "b32" | "b64"),
            _ => match kind {
                Kind::Int(_) => matches!(tname, "u32" | "s32" | "u64" | "s64"),
                // `multimem.red.min/.max` on halves: ptxas 13.5 takes the vector forms
                // (`.v2/.v4/.v8` of `.f16`, `.bf16`, `.f16x2`, `.bf16x2`) and refuses the
                // scalar `.f16x2`/`.bf16x2` ones ("Unexpected instruction types"); the ISA
                // text's `.redop` lists `.add` only (docs/isa-notes.md).
                Kind::Half { .. } if sub == "red" => n > 1,
                _ => sub == "ld_reduce" && (half || fp8),
            },
        };
        if !ok {
            return Err(cx.bad(&format!("'{name}' has no .{o}.{tname}")));
        }
    }
    if let Some(acc) = pick(&["acc::f32", "acc::f16"], "accumulation precision")? {
        // An accumulation precision for `.add` only (ptxas: "Illegal reduction operation for
        // instruction 'multimem.ld_reduce.acc::f32'").
        let ok = op == Some("add")
            && match acc {
                "acc::f32" => matches!(kind, Kind::Half { .. }),
                _ => kind == Kind::Fp8,
            };
        if !ok {
            return Err(cx.bad(&format!(
                "illegal modifier '.{acc}' with .{}.{tname}",
                op.unwrap_or("")
            )));
        }
    }
    cx.expect_operands(2)?;
    let (ak, vk) = if sub == "ld_reduce" { (1, 0) } else { (0, 1) };
    let elems = match (cx.opnd(vk)?.clone(), n) {
        (Operand::Vector(e, _), n) if e.len() as u32 == n && n > 1 => e,
        (o @ Operand::Vector(..), _) => {
            return Err(LowerError::new(
                o.span(),
                format!(
                    "invalid '{}': vector width and operand list disagree",
                    cx.ptx
                ),
            ))
        }
        (o, 1) => vec![o],
        (o, _) => {
            return Err(LowerError::new(
                o.span(),
                format!("invalid '{}': needs a vector of {n} registers", cx.ptx),
            ))
        }
    };
    let (a, space) = address_in(b, cx, ak, Space::Global, "global")?;
    let w = ty.bytes() as u64;
    let aop = match (sub, op) {
        ("red", Some(o)) => Some(match (o, kind) {
            ("add", Kind::Int(_)) => AtomOp::Add,
            ("add", Kind::F32 | Kind::F64) => AtomOp::FAdd,
            ("add", Kind::Half { fmt, pair }) => AtomOp::HAdd { fmt, pair },
            ("min" | "max", Kind::Half { fmt, pair }) => AtomOp::HMinMax {
                fmt,
                pair,
                max: o == "max",
            },
            ("min", Kind::Int(s)) => AtomOp::Min(s),
            ("max", Kind::Int(s)) => AtomOp::Max(s),
            ("and", _) => AtomOp::And,
            ("or", _) => AtomOp::Or,
            ("xor", _) => AtomOp::Xor,
            _ => return Err(cx.bad(&format!("'{name}' has no .{o}.{tname}"))),
        }),
        _ => None,
    };
    for (k, e) in elems.iter().enumerate() {
        let at = if k == 0 {
            a
        } else {
            let o = b.konst(cx, Type::I64, k as u64 * w);
            b.emit1(Op::IAdd {}, vec![a, o], Type::I64, cx.loc, &cx.ptx)
        };
        // A vector is one access of its whole size, aligned to it.
        let align = if k == 0 { w * n as u64 } else { w } as u8;
        match (sub, aop) {
            ("ld_reduce", _) => {
                // The reduction over the one copy is the value loaded.
                let v = b.emit1(Op::Load { space, align }, vec![at], ty, cx.loc, &cx.ptx);
                if let Some(d) = b.dst_rel(cx, e, ty, None)? {
                    b.copy(d, v, cx.loc, &cx.ptx);
                }
            }
            (_, Some(aop)) => {
                let v = b.src_rel(cx, e, ty, None)?;
                b.emit1(
                    Op::Atom { op: aop, space },
                    vec![at, v],
                    ty,
                    cx.loc,
                    &cx.ptx,
                );
            }
            _ => {
                let v = b.src_rel(cx, e, ty, None)?;
                let st = Op::Store { space, align };
                b.emit(st, vec![at, v], vec![], cx.loc, &cx.ptx);
            }
        }
    }
    Ok(())
}
