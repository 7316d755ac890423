//! The register counts of a kernel's `setmaxnreg` instructions (PTX ISA §9.7.19.5), checked
//! as ptxas 13.5 checks them (probed with `--gpu-name sm_100a` and `sm_90a`): a
//! `setmaxnreg.dec` whose count is larger than the largest register count the kernel can
//! have is refused ("(C7406) setmaxnreg.dec has register count (248) which is larger than the
//! largest temporal register count in the program (128)"). That largest count is the largest
//! of every `setmaxnreg.inc` count of the kernel and of the device functions it calls
//! directly or through other calls (wherever they stand: before or after the `.dec`, on any
//! path), and of the kernel's `.maxnreg` directive; a kernel with neither has no bound (ptxas
//! then ignores the hints: "(C7508) … unable to determine register count at entry"). Each
//! kernel is checked on its own: an `.inc` in another kernel of the module does not count.
//! Indirect calls are not followed.
//!
//! `setmaxnreg` has no effect in ptxjit (`decode_bulk::setmaxnreg`); this check only makes
//! the loader refuse what ptxas refuses.

use super::LowerError;
use crate::ptx::ast::{self, Literal, Operand, Statement};
use crate::ptx::span::Span;
use std::collections::{HashMap, HashSet};

/// The `setmaxnreg` instructions one kernel reaches: the largest `.inc` count, and every
/// `.dec` count with its operand's span.
#[derive(Default)]
struct Counts {
    inc: Option<u64>,
    dec: Vec<(u64, Span)>,
}

/// Checks every kernel of `m` (`funcs`: the device functions by name).
///
/// # Errors
/// A `setmaxnreg.dec` whose count is above the kernel's largest `setmaxnreg.inc` count or
/// `.maxnreg`, at its count operand, naming both counts and the kernel.
pub(super) fn check(
    m: &ast::Module,
    funcs: &HashMap<String, &ast::Function>,
) -> Result<(), LowerError> {
    for item in &m.items {
        let ast::Item::Function(f) = item else {
            continue;
        };
        let (ast::FunctionKind::Entry, Some(body)) = (f.kind, &f.body) else {
            continue;
        };
        let mut counts = Counts::default();
        let mut seen = HashSet::new();
        let mut todo: Vec<&[Statement]> = vec![body];
        while let Some(stmts) = todo.pop() {
            walk(stmts, &mut counts, &mut |callee| {
                if let Some(g) = funcs.get(callee) {
                    if seen.insert(callee.to_string()) {
                        if let Some(b) = &g.body {
                            todo.push(b);
                        }
                    }
                }
            });
        }
        let directive = f
            .directives
            .iter()
            .find(|d| d.name == "maxnreg")
            .and_then(|d| d.args.first().copied());
        let (bound, what) = match (counts.inc, directive) {
            (Some(i), Some(d)) if d > i => (d, ".maxnreg"),
            (Some(i), _) => (i, "setmaxnreg.inc count"),
            (None, Some(d)) => (d, ".maxnreg"),
            (None, None) => continue,
        };
        if let Some(&(n, span)) = counts.dec.iter().find(|&&(n, _)| n > bound) {
            return Err(LowerError::new(
                span,
                format!(
                    "setmaxnreg.dec's register count {n} is larger than the largest register \
                     count kernel '{}' can have ({bound}, its largest {what}); ptxas refuses it \
                     (C7406)",
                    f.name.name
                ),
            ));
        }
    }
    Ok(())
}

/// Adds the `setmaxnreg` counts of `stmts` (nested blocks included) to `counts` and calls
/// `call` with the name of each directly called function.
fn walk(stmts: &[Statement], counts: &mut Counts, call: &mut dyn FnMut(&str)) {
    for s in stmts {
        match s {
            Statement::Block(inner, _) => walk(inner, counts, call),
            Statement::Instruction(i) if i.opcode.name == "call" => {
                let k = usize::from(matches!(i.operands.first(), Some(Operand::List(..))));
                if let Some(Operand::Symbol { name, offset: 0 }) = i.operands.get(k) {
                    call(&name.name);
                }
            }
            Statement::Instruction(i) if i.opcode.name == "setmaxnreg" => {
                // A count that is not an immediate is the decoder's error.
                let Some(Operand::Imm(Literal::Int { value, .. }, span)) = i.operands.first()
                else {
                    continue;
                };
                let n = *value as u64;
                match i.modifiers.first().map(|m| m.text.as_str()) {
                    Some("inc") => counts.inc = Some(counts.inc.map_or(n, |c| c.max(n))),
                    Some("dec") => counts.dec.push((n, *span)),
                    // Anything else is the decoder's error.
                    _ => {}
                }
            }
            Statement::Instruction(_)
            | Statement::Decl(_)
            | Statement::Label(_)
            | Statement::Loc { .. }
            | Statement::Directive(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::host::front_end;

    /// One `sm_100a` module: `funcs` before the kernel, `body` in it, `dirs` after its
    /// parameter list.
    fn load(funcs: &str, dirs: &str, body: &str) -> Result<(), String> {
        let text = format!(
            ".version 8.8\n.target sm_100a\n.address_size 64\n{funcs}\n\
             .visible .entry k() {dirs}\n{{\n{body}\nret;\n}}\n"
        );
        front_end(&text, "m.ptx")
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    const INC: &str = "setmaxnreg.inc.sync.aligned.u32";
    const DEC: &str = "setmaxnreg.dec.sync.aligned.u32";

    /// What ptxas 13.5 takes and refuses (the module documentation's probe).
    #[test]
    fn dec_above_the_largest_inc_or_maxnreg_is_refused() {
        // No bound: any .dec.
        assert_eq!(load("", "", &format!("{DEC} 248;")), Ok(()));
        // At or below the largest .inc, before or after it.
        assert_eq!(load("", "", &format!("{INC} 128; {DEC} 128;")), Ok(()));
        assert_eq!(load("", "", &format!("{INC} 128; {DEC} 64;")), Ok(()));
        assert_eq!(
            load("", "", &format!("{INC} 64; {INC} 200; {DEC} 200;")),
            Ok(())
        );
        for (funcs, dirs, body, n, bound) in [
            ("", "", format!("{INC} 128; {DEC} 136;"), 136, 128),
            ("", "", format!("{DEC} 248; {INC} 128;"), 248, 128),
            ("", "", format!("{INC} 64; {INC} 200; {DEC} 232;"), 232, 200),
            ("", ".maxnreg 64", format!("{DEC} 128;"), 128, 64),
            (
                ".func f() { setmaxnreg.inc.sync.aligned.u32 128; ret; }",
                "",
                format!("call f; {DEC} 248;"),
                248,
                128,
            ),
        ] {
            let e = load(funcs, dirs, &body).unwrap_err();
            assert!(
                e.contains(&format!("register count {n} is larger"))
                    && e.contains(&format!("({bound}, its largest"))
                    && e.contains("C7406"),
                "{body}: {e}"
            );
        }
        // Another kernel's .inc does not bound this one.
        let two = ".version 8.8\n.target sm_100a\n.address_size 64\n\
                   .visible .entry a() { setmaxnreg.inc.sync.aligned.u32 128; ret; }\n\
                   .visible .entry b() { setmaxnreg.dec.sync.aligned.u32 248; ret; }\n";
        assert!(front_end(two, "m.ptx").is_ok());
    }
}
