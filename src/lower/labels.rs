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
//!
//! Labels and variables share one namespace per block (ptxas 13.5): a name that the nearest
//! enclosing block declaring it declares as a variable (`.reg`, `.local`, ...; or, outside all
//! blocks that declare it, a parameter or module-scope variable) is that variable, not a label,
//! even where another block defines a label of that name; a label and a variable of one name in
//! one block are a duplicate definition ("Duplicate definition of label"). Messages name the
//! label as written: [`as_written`] drops the `#N` of a renamed one.

use super::LowerError;
use crate::ptx::ast::{self, Item, Operand, Statement};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// `m` with its labels renamed as the module doc says (borrowed when no label is defined in
/// two blocks of one body).
///
/// # Errors
/// A use of a label from outside the block that defines it.
pub(crate) fn scope(m: &ast::Module) -> Result<Cow<'_, ast::Module>, LowerError> {
    let mut renamed = None;
    // Names declared outside every body: module-scope variables and functions.
    let mut module_names = HashSet::new();
    for item in &m.items {
        let name = match item {
            Item::Var(v) => &v.name.name,
            Item::Function(f) => &f.name.name,
        };
        module_names.insert(name.clone());
    }
    for (k, item) in m.items.iter().enumerate() {
        let Item::Function(f) = item else { continue };
        let Some(body) = &f.body else { continue };
        let mut outer = module_names.clone();
        for p in f.params.iter().chain(&f.returns) {
            outer.insert(p.name.name.clone());
        }
        let scopes = Scopes::of(body, outer)?;
        scopes.check(body, &mut vec![0], &mut 0)?;
        if scopes.defs.values().any(|blocks| blocks.len() > 1) || scopes.shared_names() {
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

/// The blocks of one body (numbered in source order of their `{`, the body itself 0), the
/// blocks each label is defined in and the blocks that declare variables of the same names.
struct Scopes {
    /// Per label: the blocks that define it, in source order (each once).
    defs: HashMap<String, Vec<usize>>,
    /// Per label name: the blocks that declare a variable of that name.
    vars: HashMap<String, Vec<usize>>,
    /// Parameters, module-scope variables and functions (seen where no block declares the
    /// name).
    outer: HashSet<String>,
}

/// What a name used inside some blocks refers to.
enum Seen {
    /// A label: the block of the definition seen.
    Label(usize),
    /// Not a label of the body (none has the name, or a variable hides it).
    Other,
    /// A label of the body that no enclosing block defines.
    Hidden,
}

/// Whether `d` declares `name` (a parameterized `%r<4>` declares `%r0` to `%r3`).
fn declares(d: &ast::VarDecl, name: &str) -> bool {
    match d.count {
        None => d.name.name == name,
        Some(n) => name
            .strip_prefix(d.name.name.as_str())
            .and_then(|i| i.parse::<u32>().ok())
            .is_some_and(|i| i < n),
    }
}

impl Scopes {
    fn of(body: &[Statement], outer: HashSet<String>) -> Result<Scopes, LowerError> {
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
        /// The variables named like labels, per block; a label and a variable of one name in
        /// one block are an error.
        fn walk_vars(
            stmts: &[Statement],
            block: usize,
            next: &mut usize,
            s: &mut Scopes,
        ) -> Result<(), LowerError> {
            for st in stmts {
                match st {
                    Statement::Decl(d) => {
                        for (name, blocks) in &s.defs {
                            if !declares(d, name) {
                                continue;
                            }
                            if blocks.contains(&block) {
                                return Err(LowerError::new(
                                    d.name.span,
                                    format!(
                                        "duplicate definition of '{name}': a label and a \
                                         variable of one block share a name"
                                    ),
                                ));
                            }
                            let v = s.vars.entry(name.clone()).or_default();
                            if !v.contains(&block) {
                                v.push(block);
                            }
                        }
                    }
                    Statement::Block(inner, _) => {
                        *next += 1;
                        let id = *next;
                        walk_vars(inner, id, next, s)?;
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        let mut s = Scopes {
            defs: HashMap::new(),
            vars: HashMap::new(),
            outer,
        };
        walk(body, 0, &mut 0, &mut s);
        walk_vars(body, 0, &mut 0, &mut s)?;
        Ok(s)
    }

    /// Some label is named like a variable of the body, a parameter or a module-scope name
    /// (so [`Scopes::rename`] must run to tell their uses apart).
    fn shared_names(&self) -> bool {
        self.defs
            .keys()
            .any(|n| self.vars.contains_key(n) || self.outer.contains(n))
    }

    /// What `name`, used inside the blocks `chain` (outermost first), refers to: the nearest
    /// block that defines it as a label or declares it as a variable decides.
    fn resolve(&self, name: &str, chain: &[usize]) -> Seen {
        let Some(blocks) = self.defs.get(name) else {
            return Seen::Other;
        };
        let vars = self.vars.get(name);
        for b in chain.iter().rev() {
            if blocks.contains(b) {
                return Seen::Label(*b);
            }
            if vars.is_some_and(|v| v.contains(b)) {
                return Seen::Other;
            }
        }
        if self.outer.contains(name) {
            Seen::Other
        } else {
            Seen::Hidden
        }
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
                    let branch = i.opcode.name == "bra";
                    for (k, o) in i.operands.iter().enumerate() {
                        if let Some(id) = label_use(o) {
                            self.visible(id, chain)?;
                            self.same_kind(id, chain, branch && k == 0)?;
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

    /// A name that is a label in some block and a variable in another: a branch target must
    /// see the label, any other operand the variable (ptxas 13.5: "Label expected for argument
    /// 0 of instruction 'bra'", "Arguments mismatch").
    fn same_kind(&self, id: &ast::Ident, chain: &[usize], target: bool) -> Result<(), LowerError> {
        let variable = self.outer.contains(&id.name) || self.vars.contains_key(&id.name);
        if !variable || !self.defs.contains_key(&id.name) {
            return Ok(());
        }
        match (self.resolve(&id.name, chain), target) {
            (Seen::Label(_), false) => Err(LowerError::new(
                id.span,
                format!(
                    "'{}' here is the label of an enclosing block, which hides the variable of \
                     that name",
                    id.name
                ),
            )),
            (Seen::Other, true) => Err(LowerError::new(
                id.span,
                format!(
                    "branch target '{}' here is a variable (declared in a block nearer than \
                     the label's), not a label",
                    id.name
                ),
            )),
            _ => Ok(()),
        }
    }

    fn visible(&self, id: &ast::Ident, chain: &[usize]) -> Result<(), LowerError> {
        match self.resolve(&id.name, chain) {
            Seen::Hidden => Err(LowerError::new(
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
                    let branch = i.opcode.name == "bra";
                    for (k, o) in i.operands.iter_mut().enumerate() {
                        // A branch target that the parser took for a register (a variable of
                        // that name is declared somewhere) and that names a label here.
                        if let (
                            true,
                            0,
                            Operand::Reg {
                                name,
                                component: None,
                            },
                        ) = (branch, k, &*o)
                        {
                            if let Seen::Label(_) = self.resolve(&name.name, chain) {
                                *o = Operand::Symbol {
                                    name: name.clone(),
                                    offset: 0,
                                };
                            }
                        }
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
        if let Seen::Label(b) = self.resolve(&id.name, chain) {
            id.name = self.new_name(&id.name, b);
        }
    }
}

/// `e` with every label name as written: the `#N` that [`scope`] appends to a label defined
/// in several blocks dropped (`#` is no PTX identifier character, so no other name has one).
pub(crate) fn as_written(mut e: LowerError) -> LowerError {
    let m = &e.message;
    if !m.contains('#') {
        return e;
    }
    let mut out = String::with_capacity(m.len());
    let mut chars = m.char_indices().peekable();
    let mut prev_ident = false;
    while let Some((_, c)) = chars.next() {
        if c == '#' && prev_ident && chars.peek().is_some_and(|(_, d)| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|(_, d)| d.is_ascii_digit()) {
                chars.next();
            }
            continue;
        }
        prev_ident = c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%');
        out.push(c);
    }
    e.message = out;
    e
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
