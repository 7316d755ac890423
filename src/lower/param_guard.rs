//! Guarded accesses to call-sequence parameters. A `.param` variable declared inside a
//! function body (PTX ISA §5.1.6.2: the argument and return-value space of a call sequence,
//! `{ .param .b32 a; .param .b32 q; st.param.b32 [a], %r1; call (q), f, (a); ld.param.b32
//! %r2, [q]; }`) is written and read unconditionally around the call: ptxas rejects an
//! `ld.param`/`st.param` on one under a guard ("Illegal to predicate instruction 'ld.param'
//! with operand 'q'"), though it accepts a guarded `call` and guarded accesses to a kernel's or
//! device function's own parameters. ptxjit refuses the same, for every function in the
//! module, called or not.

use super::LowerError;
use crate::ptx::ast::{self, Operand, StateSpace, Statement};
use std::collections::HashMap;

/// Checks every function body of `m`.
///
/// # Errors
/// A guarded `ld.param`/`st.param` whose address names a `.param` variable declared in the
/// function's body, at the instruction, naming the opcode and the variable.
pub(super) fn check(m: &ast::Module) -> Result<(), LowerError> {
    for item in &m.items {
        if let ast::Item::Function(f) = item {
            if let Some(body) = &f.body {
                // The formals: names that are not call-sequence variables.
                let formals: HashMap<&str, bool> = f
                    .returns
                    .iter()
                    .chain(&f.params)
                    .map(|p| (p.name.name.as_str(), false))
                    .collect();
                let mut scopes = vec![formals];
                walk(body, &mut scopes)?;
            }
        }
    }
    Ok(())
}

/// Walks one `{ }` scope; `scopes` maps each visible name to whether it is a `.param`
/// variable declared in the body (innermost scope last).
fn walk<'a>(
    stmts: &'a [Statement],
    scopes: &mut Vec<HashMap<&'a str, bool>>,
) -> Result<(), LowerError> {
    // PTX declarations are visible in their whole block (a label-like scope), so the block's
    // names are collected before its instructions are checked.
    let mut here = HashMap::new();
    for s in stmts {
        if let Statement::Decl(d) = s {
            here.insert(d.name.name.as_str(), d.space == StateSpace::Param);
        }
    }
    scopes.push(here);
    for s in stmts {
        match s {
            Statement::Instruction(i) => check_instruction(i, scopes)?,
            Statement::Block(inner, _) => walk(inner, scopes)?,
            Statement::Decl(_)
            | Statement::Label(_)
            | Statement::Loc { .. }
            | Statement::Directive(_) => {}
        }
    }
    scopes.pop();
    Ok(())
}

fn check_instruction(
    i: &ast::Instruction,
    scopes: &[HashMap<&str, bool>],
) -> Result<(), LowerError> {
    if i.guard.is_none() {
        return Ok(());
    }
    let addr = match i.opcode.name.as_str() {
        "ld" => 1,
        "st" => 0,
        _ => return Ok(()),
    };
    if !i.modifiers.iter().any(|m| m.text == "param") {
        return Ok(());
    }
    let Some(Operand::Address {
        base: Some(name), ..
    }) = i.operands.get(addr)
    else {
        return Ok(());
    };
    let call_param = scopes
        .iter()
        .rev()
        .find_map(|s| s.get(name.name.as_str()))
        .copied()
        .unwrap_or(false);
    if call_param {
        return Err(LowerError::new(
            i.span,
            format!(
                "illegal to predicate '{}.param' with operand '{}': a call sequence's .param \
                 variables are written and read unconditionally (guard the call instead)",
                i.opcode.name, name.name
            ),
        ));
    }
    Ok(())
}
