//! Label scopes. A label is visible in the `{ }` block that defines it and in the blocks nested
//! in it, before and after its definition; an inner block's label hides an outer one of the same
//! name: the scoping of declarations in blocks, as ptxas 13.5 takes it ("Unknown symbol" for a
//! use outside the block, "Duplicate definition of label" only within one block). Triton's inline assembly repeats `{ .reg .pred complete; waitLoop: ...
//! @!complete bra.uni waitLoop; }` once per wait, so one name is defined in several blocks.
//!
//! The lowering keeps one label table per function body, so before it runs every label that is
//! defined in more than one block gets a name of its own per block (`waitLoop`, `waitLoop#2`,
//! ...: `#` is no PTX identifier character), and every use names the definition it sees. A use
//! that sees no definition of a label the body defines elsewhere (in a block that does not
//! enclose the use) is an error, as ptxas's "Unknown symbol".

use super::LowerError;
use crate::ptx::ast::{self, Item, Operand, Statement};
use std::borrow::Cow;
use std::collections::HashMap;

/// `m` with its labels renamed as the module doc says (borrowed when no label is defined in
/// two blocks of one body).
///
/// # Errors
/// A use of a label from outside the block that defines it.
pub(crate) fn scope(m: &ast::Module) -> Result<Cow<'_, ast::Module>, LowerError> {
    let mut renamed = None;
    for (k, item) in m.items.iter().enumerate() {
        let Item::Function(f) = item else { continue };
        let Some(body) = &f.body else { continue };
        let scopes = Scopes::of(body);
        scopes.check(body, &mut vec![0], &mut 0)?;
        if scopes.defs.values().any(|blocks| blocks.len() > 1) {
            let out = renamed.get_or_insert_with(|| m.clone());
            if let Item::Function(g) = &mut out.items[k] {
                if let Some(body) = &mut g.body {
                    scopes.rename(body, &mut vec![0], &mut 0);
                }
            }
        }
    }
    Ok(renamed.map_or(Cow::Borrowed(m), Cow::Owned))
}

/// The blocks of one body (numbered in source order of their `{`, the body itself 0) and the
/// blocks each label is defined in.
struct Scopes {
    /// Per label: the blocks that define it, in source order (each once).
    defs: HashMap<String, Vec<usize>>,
}

impl Scopes {
    fn of(body: &[Statement]) -> Scopes {
        fn walk(stmts: &[Statement], block: usize, next: &mut usize, s: &mut Scopes) {
            for st in stmts {
                match st {
                    Statement::Label(l) => {
                        let blocks = s.defs.entry(l.name.clone()).or_default();
                        if !blocks.contains(&block) {
                            blocks.push(block);
                        }
                    }
                    Statement::Block(inner, _) => {
                        *next += 1;
                        let id = *next;
                        walk(inner, id, next, s);
                    }
                    _ => {}
                }
            }
        }
        let mut s = Scopes {
            defs: HashMap::new(),
        };
        walk(body, 0, &mut 0, &mut s);
        s
    }

    /// The block whose definition of `name` a use inside the blocks `chain` (outermost first)
    /// sees: `None` when `name` is no label of the body, `Some(None)` when no block of the
    /// chain defines it.
    fn resolve(&self, name: &str, chain: &[usize]) -> Option<Option<usize>> {
        let blocks = self.defs.get(name)?;
        Some(chain.iter().rev().copied().find(|b| blocks.contains(b)))
    }

    /// The name the definition of `name` in `block` gets.
    fn new_name(&self, name: &str, block: usize) -> String {
        match self.defs[name].iter().position(|&b| b == block) {
            Some(0) | None => name.to_string(),
            Some(k) => format!("{name}#{}", k + 1),
        }
    }

    /// Every label use of `stmts` sees a definition.
    fn check(
        &self,
        stmts: &[Statement],
        chain: &mut Vec<usize>,
        next: &mut usize,
    ) -> Result<(), LowerError> {
        for st in stmts {
            match st {
                Statement::Instruction(i) => {
                    for o in &i.operands {
                        if let Some(id) = label_use(o) {
                            self.visible(id, chain)?;
                        }
                    }
                }
                Statement::Directive(d) if d.name == "branchtargets" => {
                    for id in &d.names {
                        self.visible(id, chain)?;
                    }
                }
                Statement::Block(inner, _) => {
                    *next += 1;
                    chain.push(*next);
                    let r = self.check(inner, chain, next);
                    chain.pop();
                    r?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn visible(&self, id: &ast::Ident, chain: &[usize]) -> Result<(), LowerError> {
        match self.resolve(&id.name, chain) {
            Some(None) => Err(LowerError::new(
                id.span,
                format!(
                    "label '{}' is not visible here: it is defined only inside {{ }} blocks \
                     that do not enclose this use (a label is scoped to its block)",
                    id.name
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Renames the definitions and uses of `stmts` (checked by [`Scopes::check`]).
    fn rename(&self, stmts: &mut [Statement], chain: &mut Vec<usize>, next: &mut usize) {
        let block = *chain.last().unwrap_or(&0);
        for st in stmts {
            match st {
                Statement::Label(l) => l.name = self.new_name(&l.name, block),
                Statement::Instruction(i) => {
                    for o in &mut i.operands {
                        if let Some(id) = label_use_mut(o) {
                            self.rename_use(id, chain);
                        }
                    }
                }
                Statement::Directive(d) if d.name == "branchtargets" => {
                    for id in &mut d.names {
                        self.rename_use(id, chain);
                    }
                }
                Statement::Block(inner, _) => {
                    *next += 1;
                    chain.push(*next);
                    self.rename(inner, chain, next);
                    chain.pop();
                }
                _ => {}
            }
        }
    }

    fn rename_use(&self, id: &mut ast::Ident, chain: &[usize]) {
        if let Some(Some(b)) = self.resolve(&id.name, chain) {
            id.name = self.new_name(&id.name, b);
        }
    }
}

/// The name an operand gives when it can be a label: a branch target, a `brx.idx` table, a
/// `call`'s prototype or target list (a bare name, or one starting with `%`).
fn label_use(o: &Operand) -> Option<&ast::Ident> {
    match o {
        Operand::Symbol { name, offset: 0 } => Some(name),
        Operand::Reg {
            name,
            component: None,
        } => Some(name),
        _ => None,
    }
}

fn label_use_mut(o: &mut Operand) -> Option<&mut ast::Ident> {
    match o {
        Operand::Symbol { name, offset: 0 } => Some(name),
        Operand::Reg {
            name,
            component: None,
        } => Some(name),
        _ => None,
    }
}
