//! `call` (PTX ISA §9.7.12.5) to device functions (`.func`, §11.3.2), by inlining: each call
//! site gets its own copy of the callee's blocks, decoded in a fresh register scope with fresh
//! labels, its `.local` frame laid out anew, and `ret` continuing after the call.
//!
//! Parameter passing (§5.1.6.2): a call sequence's `.param` variables, and the callee's
//! `.param` formals bound to them, live in per-thread local memory, so `st.param`/`ld.param`
//! on them are local accesses and byte offsets, vectors and arrays work as written. A `.reg`
//! formal becomes a register of the callee initialized from the argument; a register or
//! constant passed for a `.param` formal is stored to a fresh local slot first.
//!
//! Recursive functions, functions whose address is taken, and calls through a register are
//! not inlined: `lower::recurse` runs them on a per-thread call stack. Calls to functions
//! without a definition (`.extern`) are load-time errors naming the call.

use super::build::{self, Builder, PTerm, Sym, Var};
use super::decode::Cx;
use super::LowerError;
use crate::ir::{Op, Sign, Space, Type};
use crate::ptx::ast::{self, Operand, StateSpace};
use std::collections::HashMap;

/// Inlining nests direct calls at most this deep; a function whose chain of calls below is
/// longer runs on the call stack instead (`recurse::call_graph`).
pub(super) const MAX_DEPTH: usize = 32;

/// The space of an `ld.param`/`st.param` whose address names a call parameter: `Local`
/// (call parameters live in local memory); any other access keeps `space`.
pub(super) fn param_space(b: &Builder, cx: &Cx, k: usize, space: Space) -> Space {
    if space != Space::Param {
        return space;
    }
    if let Some(Operand::Address {
        base: Some(name), ..
    }) = cx.inst.operands.get(k)
    {
        if b.reg(&name.name).is_none() {
            if let Some(Sym::Local { .. }) = b.syms.get(&name.name) {
                return Space::Local;
            }
        }
    }
    space
}

/// The IR type of a `.reg` formal, or of the value stored to a `.param` formal.
pub(super) fn formal_ty(cx: &Cx, p: &ast::Param) -> Result<Type, LowerError> {
    if (p.vector.is_some() || !p.array.is_empty()) && p.space == StateSpace::Reg {
        return Err(cx.unsupported(&format!("vector or array .reg parameter '{}'", p.name.name)));
    }
    build::ir_type_of(p.ty)
        .ok_or_else(|| cx.unsupported(&format!("parameter '{}' of this type", p.name.name)))
}

/// The bytes and alignment of formal parameter `p` (a `.param` array's elements times their
/// size). A formal too large to lay out is an error at its declaration: an array dimension of
/// 2^32 or more (ptxas: "Constant overflow" there), or a size past 2^64 bytes.
pub(super) fn formal_size(p: &ast::Param) -> Result<(u64, u64), LowerError> {
    let too_large = |size: String| {
        LowerError::new(
            p.span,
            format!("parameter '{}' is too large: {size}", p.name.name),
        )
    };
    let mut dims = vec![];
    for d in &p.array {
        let d = d.unwrap_or(1);
        if d > u64::from(u32::MAX) {
            return Err(too_large(format!(
                "an array dimension of {d} elements, where ptxas allows less than 2^32 \
                 (it reports \"Constant overflow\")"
            )));
        }
        dims.push(d);
    }
    let elem = p.ty.size() as u64 * u64::from(p.vector.unwrap_or(1));
    let size = build::array_bytes(&dims, elem)
        .map_err(|size| too_large(format!("{size}, past every state space")))?;
    let align = p.align.unwrap_or(p.ty.size()).max(1) as u64;
    Ok((size, align))
}

/// How an actual argument reaches a formal.
enum Bind {
    /// The formal names this local offset (a call-sequence `.param` variable, or a slot the
    /// argument was stored to).
    Local(u64),
    /// A `.reg` formal: a register holding this value.
    Reg(Var),
}

/// Decode a `call`, guarded or not.
pub(super) fn call(b: &mut Builder, cx: &Cx, guard: Option<(Var, bool)>) -> Result<(), LowerError> {
    let ops = &cx.inst.operands;
    let mut k = 0;
    let rets: Vec<Operand> = match ops.first() {
        Some(Operand::List(items, _)) => {
            k = 1;
            items.clone()
        }
        _ => vec![],
    };
    let callee_op = ops.get(k);
    let (callee_name, through_register) = match callee_op {
        Some(Operand::Symbol { name, offset: 0 }) => (name.clone(), false),
        Some(Operand::Reg { name, .. }) => (name.clone(), b.reg(&name.name).is_some()),
        _ => return Err(cx.bad("missing the called function")),
    };
    // `call (ret), %fptr, (args), table_or_prototype;` (PTX ISA §9.7.12.4), where the
    // argument list may be left out: `call %fptr, proto;`.
    let no_args = through_register
        && matches!(
            ops.get(k + 1),
            Some(
                Operand::Symbol { offset: 0, .. }
                    | Operand::Reg {
                        component: None,
                        ..
                    }
            )
        );
    let args: Vec<Operand> = match ops.get(k + 1) {
        _ if no_args => vec![],
        Some(Operand::List(items, _)) => items.clone(),
        None => vec![],
        Some(o) => {
            return Err(LowerError::new(
                o.span(),
                "call arguments must be a parenthesized list",
            ))
        }
    };
    let t = if no_args { k + 1 } else { k + 2 };
    let table = match ops.get(t) {
        Some(Operand::Symbol { name, offset: 0 }) => Some(name.name.clone()),
        Some(Operand::Reg {
            name,
            component: None,
        }) => Some(name.name.clone()),
        Some(o) => {
            return Err(LowerError::new(
                o.span(),
                "expected a .calltargets or .callprototype label",
            ))
        }
        None => None,
    };
    if ops.len() > t + 1 {
        return Err(cx.bad("too many operands"));
    }
    if through_register {
        let Some(op) = callee_op else {
            return Err(cx.bad("missing the called function"));
        };
        let ptr = b.src_rel(cx, op, Type::I64, Some(Sign::Unsigned))?;
        let targets = super::recurse::indirect_targets(b, table.as_deref(), args.len(), rets.len());
        let callee = super::recurse::Callee::Indirect { ptr, targets };
        return super::recurse::region_call(b, cx, guard, callee, &args, &rets);
    }
    if table.is_some() {
        return Err(cx.bad("a direct call takes no .calltargets or .callprototype operand"));
    }
    let Some(&f) = b.funcs.get(&callee_name.name) else {
        return Err(LowerError::new(
            callee_name.span,
            format!("call to unknown function '{}'", callee_name.name),
        ));
    };
    if f.body.is_none() && callee_name.name == "vprintf" {
        return printf(b, cx, guard, &args, &rets);
    }
    if f.body.is_none() && callee_name.name == "__assertfail" {
        return assertfail(b, cx, guard, &args, &rets);
    }
    if f.body.is_none()
        && matches!(
            callee_name.name.as_str(),
            "malloc" | "free" | "__nv_aligned_device_malloc" | "__cuda_syscall_aligned_malloc"
        )
    {
        return heap_call(b, cx, guard, &callee_name.name, &args, &rets);
    }
    // A call compiled against a declaration with results (numba declares a `void` C function
    // as returning `.b64`) to a definition without any: as after nvlink, which does not
    // compare signatures, the results are undefined: the call writes none of them.
    let rets = if f.body.is_some()
        && f.returns.is_empty()
        && !rets.is_empty()
        && args.len() == f.params.len()
        && b.graph
            .declared_results
            .get(&callee_name.name)
            .is_some_and(|counts| counts.contains(&rets.len()))
    {
        vec![]
    } else {
        rets
    };
    let Some(body) = &f.body else {
        return Err(LowerError::new(
            callee_name.span,
            format!(
                "call to function '{}', which is declared{} but not defined in this module",
                callee_name.name,
                if f.linkage == ast::Linkage::Extern {
                    " .extern"
                } else {
                    ""
                }
            ),
        ));
    };
    if b.graph.shared.contains(&callee_name.name) {
        let callee = super::recurse::Callee::Direct(callee_name.name.clone());
        return super::recurse::region_call(b, cx, guard, callee, &args, &rets);
    }
    if b.inline_stack.contains(&callee_name.name) {
        return Err(LowerError::unsupported(
            callee_name.span,
            format!(
                "recursive call to '{}' is not supported yet (calls are inlined)",
                callee_name.name
            ),
        ));
    }
    if b.inline_stack.len() >= MAX_DEPTH {
        return Err(cx.unsupported(&format!("calls nested deeper than {MAX_DEPTH}")));
    }
    if args.len() != f.params.len() || rets.len() != f.returns.len() {
        return Err(cx.bad(&format!(
            "'{}' takes {} arguments and {} results, the call passes {} and {}",
            callee_name.name,
            f.params.len(),
            f.returns.len(),
            args.len(),
            rets.len()
        )));
    }
    // The guard branches around the whole call.
    let fall = guard.map(|(p, neg)| b.begin_guarded(p, neg, cx.loc));

    // Arguments, evaluated in the caller's scope.
    let mut binds: Vec<(String, Bind)> = vec![];
    for (formal, actual) in f.params.iter().zip(&args) {
        let bind = if formal.space == StateSpace::Reg {
            let ty = formal_ty(cx, formal)?;
            Bind::Reg(b.src_rel(cx, actual, ty, Some(Sign::Unsigned))?)
        } else if let Some(off) = param_symbol(b, actual) {
            Bind::Local(off)
        } else {
            let ty = formal_ty(cx, formal)?;
            let v = b.src_rel(cx, actual, ty, Some(Sign::Unsigned))?;
            let (size, align) = formal_size(formal)?;
            let off = b.alloc_local(size, align, cx.inst.span, || {
                format!(
                    "the argument slot for parameter '{}' of a call",
                    formal.name.name
                )
            })?;
            let a = b.local_addr(cx, off, Type::I64)?;
            let st = Op::Store {
                space: Space::Local,
                align: ty.bytes().min(align as u32) as u8,
            };
            b.emit(st, vec![a, v], vec![], cx.loc, &cx.ptx);
            Bind::Local(off)
        };
        binds.push((formal.name.name.clone(), bind));
    }
    // Results: `.param` formals bound to the caller's variables (or a fresh slot read back
    // into a register afterwards); `.reg` formals are registers copied out afterwards.
    let mut outs: Vec<(Operand, Bind, Type)> = vec![];
    let mut ret_regs: Vec<(String, Var)> = vec![];
    for (formal, actual) in f.returns.iter().zip(&rets) {
        let ty = formal_ty(cx, formal)?;
        if formal.space == StateSpace::Reg {
            let v = b.new_var(ty);
            ret_regs.push((formal.name.name.clone(), v));
            outs.push((actual.clone(), Bind::Reg(v), ty));
        } else if let Some(off) = param_symbol(b, actual) {
            binds.push((formal.name.name.clone(), Bind::Local(off)));
        } else {
            let (size, align) = formal_size(formal)?;
            let off = b.alloc_local(size, align, cx.inst.span, || {
                format!("the result slot for '{}' of a call", formal.name.name)
            })?;
            binds.push((formal.name.name.clone(), Bind::Local(off)));
            outs.push((actual.clone(), Bind::Local(off), ty));
        }
    }

    // The callee's own world: registers, labels, symbols, `ret` target.
    let after = b.new_block();
    let mut syms: HashMap<String, Sym> = b.callee_syms();
    let mut scope = build::Scope::default();
    for (name, bind) in &binds {
        match bind {
            Bind::Local(off) => {
                syms.insert(name.clone(), Sym::Local { offset: *off });
            }
            Bind::Reg(v) => {
                // A fresh register, so the callee may assign its parameter.
                let r = b.new_var(b.vars[*v as usize]);
                b.copy(r, *v, cx.loc, &cx.ptx);
                scope.insert(name.clone(), r);
            }
        }
    }
    // Result `.reg` formals are the registers made above.
    for (name, v) in ret_regs {
        scope.insert(name, v);
    }
    function_locals(b, body, &mut syms)?;
    let saved_scopes = std::mem::replace(&mut b.scopes, vec![scope]);
    let saved_syms = std::mem::replace(&mut b.syms, syms);
    let saved_labels = std::mem::take(&mut b.labels);
    let saved_tables = std::mem::replace(&mut b.branch_tables, build::branch_tables(body));
    let saved_protos = std::mem::replace(&mut b.prototypes, build::prototypes(body));
    let saved_ret = b.ret_target.replace(after);
    let saved_loc = b.loc_override;
    if super::devrt::is_supplied(f) {
        b.loc_override = Some(cx.loc);
    }
    b.inline_stack.push(callee_name.name.clone());
    let saved_frame = b.cur_frame;
    if !super::devrt::is_supplied(f) {
        b.call_frames.push(crate::ir::CallFrame {
            function: callee_name.name.clone(),
            site: Some(cx.loc),
        });
        b.cur_frame = b.call_frames.len() as u32;
    }
    let entry = b.new_block();
    let cur = b.cur as usize;
    b.blocks[cur].term = PTerm::Jump(entry);
    b.blocks[cur].term_loc = cx.loc;
    b.cur = entry;
    let walked = build::walk(b, body);
    let labels = std::mem::replace(&mut b.labels, saved_labels);
    b.scopes = saved_scopes;
    b.syms = saved_syms;
    b.ret_target = saved_ret;
    b.loc_override = saved_loc;
    b.branch_tables = saved_tables;
    b.prototypes = saved_protos;
    b.inline_stack.pop();
    b.cur_frame = saved_frame;
    walked?;
    for (name, (_, defined, span)) in &labels {
        if !defined {
            return Err(LowerError::new(
                *span,
                format!(
                    "branch to undefined label '{name}' in function '{}'",
                    callee_name.name
                ),
            ));
        }
    }
    // Falling off the end of the body returns.
    let cur = b.cur as usize;
    if matches!(b.blocks[cur].term, PTerm::Open) {
        b.blocks[cur].term = PTerm::Jump(after);
        b.blocks[cur].term_loc = cx.loc;
    }
    b.cur = after;
    for (actual, bind, ty) in outs {
        let v = match bind {
            Bind::Reg(v) => v,
            Bind::Local(off) => {
                let a = b.local_addr(cx, off, Type::I64)?;
                let ld = Op::Load {
                    space: Space::Local,
                    align: ty.bytes() as u8,
                };
                b.emit1(ld, vec![a], ty, cx.loc, &cx.ptx)
            }
        };
        write_reg(b, cx, &actual, v, ty)?;
    }
    if let Some(fall) = fall {
        b.join(fall, cx.loc);
    }
    Ok(())
}

/// Run `body` under the call's guard (branching around it when the guard is false).
fn guarded(
    b: &mut Builder,
    cx: &Cx,
    guard: Option<(Var, bool)>,
    body: impl FnOnce(&mut Builder) -> Result<(), LowerError>,
) -> Result<(), LowerError> {
    let fall = guard.map(|(p, neg)| b.begin_guarded(p, neg, cx.loc));
    body(b)?;
    if let Some(fall) = fall {
        b.join(fall, cx.loc);
    }
    Ok(())
}

/// A 64-bit argument: loaded from a call-sequence `.param` variable, or a register/constant.
fn arg64(b: &mut Builder, cx: &Cx, o: &Operand) -> Result<Var, LowerError> {
    arg_of(b, cx, o, Type::I64)
}

fn arg32(b: &mut Builder, cx: &Cx, o: &Operand) -> Result<Var, LowerError> {
    arg_of(b, cx, o, Type::I32)
}

/// A call argument of IR type `ty`: a call-sequence `.param` variable (loaded from the
/// thread's local memory) or a register or immediate.
fn arg_of(b: &mut Builder, cx: &Cx, o: &Operand, ty: Type) -> Result<Var, LowerError> {
    match param_symbol(b, o) {
        Some(off) => {
            let a = b.local_addr(cx, off, Type::I64)?;
            let ld = Op::Load {
                space: Space::Local,
                align: ty.bytes() as u8,
            };
            Ok(b.emit1(ld, vec![a], ty, cx.loc, &cx.ptx))
        }
        None => b.src_rel(cx, o, ty, Some(Sign::Unsigned)),
    }
}

/// CUDA's `vprintf(format, args)` (declared `.extern`, supplied by the CUDA runtime): the
/// `printf` op.
fn printf(
    b: &mut Builder,
    cx: &Cx,
    guard: Option<(Var, bool)>,
    args: &[Operand],
    rets: &[Operand],
) -> Result<(), LowerError> {
    if args.len() != 2 || rets.len() > 1 {
        return Err(cx.bad("vprintf takes (format, arguments) and returns one value"));
    }
    guarded(b, cx, guard, |b| {
        let f = arg64(b, cx, &args[0])?;
        let a = arg64(b, cx, &args[1])?;
        let r = b.emit1(Op::Printf {}, vec![f, a], Type::I32, cx.loc, &cx.ptx);
        match rets.first() {
            Some(ret) => write_ret(b, cx, ret, r, Type::I32),
            None => Ok(()),
        }
    })
}

/// Write the result `v` (type `ty`) of a runtime-supplied function to the call's return
/// operand: a call-sequence `.param` variable (in the thread's local memory) or a register.
fn write_ret(b: &mut Builder, cx: &Cx, ret: &Operand, v: Var, ty: Type) -> Result<(), LowerError> {
    match param_symbol(b, ret) {
        Some(off) => {
            let p = b.local_addr(cx, off, Type::I64)?;
            let st = Op::Store {
                space: Space::Local,
                align: ty.bytes() as u8,
            };
            b.emit(st, vec![p, v], vec![], cx.loc, &cx.ptx);
            Ok(())
        }
        None => write_reg(b, cx, ret, v, ty),
    }
}

/// CUDA's device heap functions (declared `.extern`, supplied by the CUDA runtime):
/// `malloc(size)`, `__nv_aligned_device_malloc(size, align)` (which NVRTC emits as
/// `__cuda_syscall_aligned_malloc`) → pointer, and `free(ptr)`; the
/// `malloc` and `free` ops (`runtime::heap`).
fn heap_call(
    b: &mut Builder,
    cx: &Cx,
    guard: Option<(Var, bool)>,
    name: &str,
    args: &[Operand],
    rets: &[Operand],
) -> Result<(), LowerError> {
    let (nargs, nrets) = match name {
        "malloc" => (1, 1),
        "free" => (1, 0),
        _ => (2, 1),
    };
    if args.len() != nargs || rets.len() != nrets {
        return Err(cx.bad(&format!(
            "{name} takes {nargs} argument(s) and returns {nrets} value(s)"
        )));
    }
    guarded(b, cx, guard, |b| {
        let x = arg64(b, cx, &args[0])?;
        if name == "free" {
            b.emit(Op::Free {}, vec![x], vec![], cx.loc, &cx.ptx);
            return Ok(());
        }
        let align = match args.get(1) {
            Some(a) => arg64(b, cx, a)?,
            None => b.konst(cx, Type::I64, crate::runtime::heap::HEAP_ALIGN),
        };
        let p = b.emit1(Op::Malloc {}, vec![x, align], Type::I64, cx.loc, &cx.ptx);
        write_ret(b, cx, &rets[0], p, Type::I64)
    })
}

/// CUDA's `__assertfail(message, file, line, function, char_size)` (declared `.extern`,
/// supplied by the CUDA runtime; what a failed `assert` calls): the `assertfail` op.
fn assertfail(
    b: &mut Builder,
    cx: &Cx,
    guard: Option<(Var, bool)>,
    args: &[Operand],
    rets: &[Operand],
) -> Result<(), LowerError> {
    if args.len() != 5 || !rets.is_empty() {
        return Err(cx.bad(
            "__assertfail takes (message, file, line, function, char size) and returns nothing",
        ));
    }
    guarded(b, cx, guard, |b| {
        let msg = arg64(b, cx, &args[0])?;
        let file = arg64(b, cx, &args[1])?;
        let line = arg32(b, cx, &args[2])?;
        let func = arg64(b, cx, &args[3])?;
        b.emit(
            Op::AssertFail {},
            vec![msg, file, line, func],
            vec![],
            cx.loc,
            &cx.ptx,
        );
        // `__assertfail` does not return (the GPU traps): the thread ends here, and the
        // launch's other threads run on, so that each thread that fails an assertion reports
        // it (CUDA C++ Programming Guide, Assertion). What follows is unreachable.
        let cur = b.cur as usize;
        b.blocks[cur].term = PTerm::Exit;
        b.blocks[cur].term_loc = cx.loc;
        b.cur = b.new_block();
        Ok(())
    })
}

/// The local offset of a call-sequence `.param` variable named by `o`, if it is one.
pub(super) fn param_symbol(b: &Builder, o: &Operand) -> Option<u64> {
    let name = match o {
        Operand::Symbol { name, offset: 0 } => name,
        Operand::Reg {
            name,
            component: None,
        } => name,
        _ => return None,
    };
    if b.reg(&name.name).is_some() {
        return None;
    }
    match b.syms.get(&name.name) {
        Some(Sym::Local { offset }) => Some(*offset),
        _ => None,
    }
}

/// Copy `v` (type `ty`) into the caller's destination register `o` (`_` discards it).
pub(super) fn write_reg(
    b: &mut Builder,
    cx: &Cx,
    o: &Operand,
    v: Var,
    ty: Type,
) -> Result<(), LowerError> {
    match o {
        Operand::Sink(_) => Ok(()),
        Operand::Reg {
            name,
            component: None,
        } => {
            let r = b.reg_var(cx, name)?;
            let rt = b.vars[r as usize];
            let val = if rt == ty {
                v
            } else {
                b.coerce(cx, v, rt, Some(Sign::Unsigned), name.span)?
            };
            b.copy(r, val, cx.loc, &cx.ptx);
            Ok(())
        }
        other => Err(LowerError::new(
            other.span(),
            format!("call result of '{}' must go to a register", cx.ptx),
        )),
    }
}

/// `brx.idx{.uni} index, tlist` (PTX ISA §9.7.12.3): a jump to entry `index` of the
/// `.branchtargets` list `tlist`, as a chain of compares; an index outside the list traps
/// (undefined behaviour in PTX).
pub(super) fn brx(b: &mut Builder, cx: &Cx, guard: Option<(Var, bool)>) -> Result<(), LowerError> {
    // `brx.idx{.uni} index, tlist` (PTX ISA §9.7.12.4): `.idx` comes first (ptxas 13.5 reads
    // `brx.uni.idx` as no instruction: "Not a name of any known instruction: 'brx'") and the
    // index is an untyped `.u32` ("Unexpected instruction types specified for 'brx.idx'" on
    // `brx.idx.u32`).
    if cx.mods.first() != Some(&"idx") {
        return Err(cx.bad("brx needs .idx as its first modifier (brx.idx{.uni})"));
    }
    if let Some(t) = cx
        .mods
        .iter()
        .find(|m| ast::ScalarType::from_suffix(m).is_some())
    {
        return Err(cx.bad(&format!(
            "unexpected instruction type .{t} for 'brx.idx': its index is a .u32 without a \
             type modifier"
        )));
    }
    cx.expect_operands(2)?;
    let table = match cx.opnd(1)? {
        Operand::Symbol { name, offset: 0 } => name.clone(),
        Operand::Reg {
            name,
            component: None,
        } => name.clone(),
        _ => return Err(cx.bad("the target list must be a .branchtargets label")),
    };
    let Some(targets) = b.branch_tables.get(&table.name).cloned() else {
        return Err(LowerError::new(
            table.span,
            format!("'{}' is not a .branchtargets list", table.name),
        ));
    };
    let index = b.src(cx, 0, Type::I32)?;
    let fall = b.new_block();
    let start = match guard {
        None => b.cur,
        Some((p, neg)) => {
            let body_b = b.new_block();
            let (t, e) = if neg { (fall, body_b) } else { (body_b, fall) };
            let cur = b.cur as usize;
            b.blocks[cur].term = PTerm::Branch(p, t, e);
            b.blocks[cur].term_loc = cx.loc;
            body_b
        }
    };
    b.cur = start;
    for (k, t) in targets.iter().enumerate() {
        let target = b.label_block(&t.name, t.span);
        let kv = b.konst(cx, Type::I32, k as u64);
        let op = Op::ICmp {
            cc: crate::ir::ICmp::Eq,
            sign: Sign::Unsigned,
        };
        let eq = b.emit1(op, vec![index, kv], Type::Pred, cx.loc, &cx.ptx);
        let next = b.new_block();
        let cur = b.cur as usize;
        b.blocks[cur].term = PTerm::Branch(eq, target, next);
        b.blocks[cur].term_loc = cx.loc;
        b.cur = next;
    }
    let cur = b.cur as usize;
    b.blocks[cur].term = PTerm::Trap;
    b.blocks[cur].term_loc = cx.loc;
    b.cur = fall;
    Ok(())
}

/// Lay out a function body's `.local` variables in the thread's local memory and name its
/// `.shared` variables (laid out with the kernel's: `Builder::fn_shared`), adding both to
/// `syms`.
pub(super) fn function_locals(
    b: &mut Builder,
    body: &[ast::Statement],
    syms: &mut HashMap<String, Sym>,
) -> Result<(), LowerError> {
    let mut locals: Vec<&ast::VarDecl> = vec![];
    build::collect_decls(body, StateSpace::Local, &mut locals);
    for d in locals {
        let size = build::decl_bytes(d, "local variable").ok_or_else(|| {
            LowerError::new(
                d.span,
                format!("local variable '{}' needs a size", d.name.name),
            )
        })??;
        let align = d.align.unwrap_or(d.ty.size()).max(1) as u64;
        let off = b.alloc_local(size, align, d.span, || build::local_variable(d))?;
        syms.insert(d.name.name.clone(), Sym::Local { offset: off });
    }
    let mut shared: Vec<&ast::VarDecl> = vec![];
    build::collect_decls(body, StateSpace::Shared, &mut shared);
    for d in shared {
        let Some(&offset) = b.fn_shared.get(&d.span.start) else {
            return Err(LowerError::new(
                d.span,
                format!(
                    "internal error: shared variable '{}' of a function the kernel reaches was not laid out",
                    d.name.name
                ),
            ));
        };
        syms.insert(d.name.name.clone(), Sym::Shared { offset });
    }
    Ok(())
}
