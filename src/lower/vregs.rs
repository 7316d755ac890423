//! Vector-typed registers (PTX ISA §5.4.2 "Vectors": `.reg .v4 .f32 %v;`).
//!
//! A vector register is one scalar variable per component: `%v` of `.v4 .f32` declares the
//! f32 variables `%v.x`, `%v.y`, `%v.z`, `%v.w` (in the scope where `%v` is declared; PTX
//! names cannot contain a dot, so these never clash). Before an instruction is decoded its
//! operands are rewritten: a component `%v.x` (or `.r/.g/.b/.a`, the same as `.x/.y/.z/.w`)
//! names that variable, and the whole register `%v` becomes the vector operand
//! `{%v.x, %v.y, %v.z, %v.w}`, so `ld.global.v4.f32 %v, [a]`, `st`, `mov` and `tex` take it
//! where they take a brace list, and any other instruction rejects it as ptxas does ("Vector
//! operand is not allowed").

use super::build::{Builder, Var};
use super::LowerError;
use crate::ptx::ast::{self, Operand};
use std::borrow::Cow;

/// The component suffixes in order.
const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// The scope name of component `k` of vector register `name`.
pub(crate) fn component_name(name: &str, k: usize) -> String {
    format!("{name}.{}", XYZW[k])
}

/// The vector register whose component `name` is (`%v` for `%v.y`), if `name` is a
/// component's name.
pub(crate) fn component_base(name: &str) -> Option<&str> {
    let (base, k) = name.rsplit_once('.')?;
    (k.len() == 1 && k.chars().all(|c| XYZW.contains(&c))).then_some(base)
}

/// The components of vector register `name` as the innermost declaration of `name` sees
/// them; `None` when that declaration is not a vector register (or there is none).
fn components(b: &Builder, name: &str) -> Option<Vec<Var>> {
    let x = component_name(name, 0);
    for scope in b.scopes.iter().rev() {
        if scope.contains_key(name) {
            return None;
        }
        if scope.contains_key(&x) {
            return Some(
                (0..4)
                    .map_while(|k| scope.get(&component_name(name, k)).copied())
                    .collect(),
            );
        }
    }
    None
}

/// Whether `name` is a vector register in the current scope.
pub(crate) fn is_vector(b: &Builder, name: &str) -> bool {
    components(b, name).is_some()
}

/// `i` with its vector-register operands rewritten (see the module docs); borrowed as is
/// when it has none. Errors: a component the register does not have (`.z` of a `.v2`).
pub(crate) fn expand<'i>(
    b: &Builder,
    i: &'i ast::Instruction,
) -> Result<Cow<'i, ast::Instruction>, LowerError> {
    if !b.has_vector_regs {
        return Ok(Cow::Borrowed(i));
    }
    let mut changed = false;
    let mut operands = Vec::with_capacity(i.operands.len());
    for o in &i.operands {
        operands.push(operand(b, o, &mut changed)?);
    }
    if !changed {
        return Ok(Cow::Borrowed(i));
    }
    Ok(Cow::Owned(ast::Instruction {
        operands,
        ..i.clone()
    }))
}

fn operand(b: &Builder, o: &Operand, changed: &mut bool) -> Result<Operand, LowerError> {
    let list = |items: &[Operand], changed: &mut bool| -> Result<Vec<Operand>, LowerError> {
        items.iter().map(|x| operand(b, x, changed)).collect()
    };
    Ok(match o {
        Operand::Reg { name, component } => {
            let Some(comps) = components(b, &name.name) else {
                return Ok(o.clone());
            };
            *changed = true;
            let reg = |k: usize| Operand::Reg {
                name: ast::Ident {
                    name: component_name(&name.name, k),
                    span: name.span,
                },
                component: None,
            };
            match component {
                None => Operand::Vector((0..comps.len()).map(reg).collect(), name.span),
                Some(c) => {
                    let k = match c {
                        'x' | 'r' => 0,
                        'y' | 'g' => 1,
                        'z' | 'b' => 2,
                        'w' | 'a' => 3,
                        other => {
                            return Err(LowerError::new(
                                name.span,
                                format!("'.{other}' is not a vector component"),
                            ))
                        }
                    };
                    if k >= comps.len() {
                        return Err(LowerError::new(
                            name.span,
                            format!(
                                "'{}' is a .v{} register: it has no component '.{c}'",
                                name.name,
                                comps.len()
                            ),
                        ));
                    }
                    reg(k)
                }
            }
        }
        Operand::Not(x, s) => Operand::Not(Box::new(operand(b, x, changed)?), *s),
        Operand::Neg(x, s) => Operand::Neg(Box::new(operand(b, x, changed)?), *s),
        Operand::Vector(items, s) => Operand::Vector(list(items, changed)?, *s),
        Operand::List(items, s) => Operand::List(list(items, changed)?, *s),
        Operand::Bracketed(items, s) => Operand::Bracketed(list(items, changed)?, *s),
        Operand::VecPred(items, p, s) => Operand::VecPred(list(items, changed)?, p.clone(), *s),
        Operand::Imm(..)
        | Operand::Symbol { .. }
        | Operand::Indexed { .. }
        | Operand::Address { .. }
        | Operand::PredPair(..)
        | Operand::Sink(_)
        | Operand::Select { .. } => o.clone(),
    })
}

#[cfg(test)]
mod tests {
    use crate::host::{front_end, Error};

    /// Lowers `decl` and `inst` in a kernel that also has `%f1` (f32), `%r1` (b32) and
    /// `%rd1` (b64) registers.
    fn load(decl: &str, inst: &str) -> Result<(), Error> {
        let ptx = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .entry k(.param .u64 p)\n{{\n.reg .f32 %f1;\n.reg .b32 %r1;\n.reg .b64 %rd1;\n\
             {decl}\nld.param.u64 %rd1, [p];\n{inst};\nret;\n}}\n"
        );
        front_end(&ptx, "k.ptx").map(|_| ())
    }

    /// Forms ptxas 12.9 assembles load; the ones it rejects are errors naming the register
    /// (ptxas's message in the comment).
    #[test]
    fn vector_register_forms() {
        let v4 = ".reg .v4 .f32 %v;";
        let w2 = ".reg .v2 .u32 %w<2>;";
        for (decl, inst) in [
            (v4, "ld.global.v4.f32 %v, [%rd1]"),
            (v4, "st.global.v4.f32 [%rd1], %v"),
            (v4, "add.f32 %v.x, %v.y, %v.a"),
            (v4, "setp.eq.f32 %p, %v.r, %v.b"),
            (v4, "mov.v4.f32 %v, {%f1, %f1, %f1, %f1}"),
            (w2, "mov.v2.u32 %w0, %w1"),
            (w2, "mov.b64 %rd1, %w0"),
            (w2, "mov.b64 %w1, %rd1"),
            (w2, "cvt.rn.f32.u32 %f1, %w0.g"),
        ] {
            let decl = format!("{decl}\n.reg .pred %p;");
            load(&decl, inst).unwrap_or_else(|e| panic!("{inst}: {e}"));
        }
        let invalid = |decl: &str, inst: &str, want: &str| match load(decl, inst) {
            Err(Error::Invalid(m)) => assert!(m.contains(want), "{inst}: {m}"),
            other => panic!("{decl} {inst}: {other:?}"),
        };
        // "Arguments mismatch for instruction 'mov'"
        invalid(
            w2,
            "mov.u32 %r1, %w0.z",
            "'%w0' is a .v2 register: it has no component '.z'",
        );
        // "Vector operand is not allowed for instruction 'add'"
        invalid(
            v4,
            "add.f32 %f1, %v, %f1",
            "a vector operand is not allowed here",
        );
        invalid(
            v4,
            "ld.global.f32 %f1, [%v]",
            "'%v' is a vector register: name a component (.x)",
        );
        // "Argument vector size mismatch for instruction 'ld'"
        invalid(w2, "ld.global.v4.u32 %w1, [%rd1]", "ld.global.v4.u32");
        invalid(
            ".reg .v4 .f64 %d;",
            "ret",
            "vector register '%d' of .v4 .f64: a vector has 2 or 4 elements",
        );
        invalid(
            ".reg .v2 .pred %q;",
            "ret",
            "vector register '%q' of .v2 .pred",
        );
        invalid(
            ".reg .b32 %a[4];",
            "ret",
            "register '%a' is declared as an array",
        );
    }
}
