//! Repeated definitions of one symbol in a module (PTX ISA §11.6.4 `.weak`, §11.6.5 `.common`).
//!
//! The driver's linker concatenates its PTX inputs into one module (`host::image::link_ptx`),
//! so a symbol that several inputs define — numba defines its device functions `.weak` in
//! every module that calls them — is defined several times there. As a linker does, one
//! definition is kept: the one that is neither `.weak` nor `.common` if there is one,
//! otherwise the first (for `.common` variables: the first of the largest size). Two
//! definitions of which neither is `.weak`/`.common` are an error. An `.extern` variable
//! declaration of a name the module defines is dropped: it names that definition.

use super::LowerError;
use crate::ptx::ast::{self, Item, Linkage, StateSpace};
use std::borrow::Cow;
use std::collections::HashMap;

/// `m` with the definitions a linker would drop removed (borrowed when there are none).
///
/// # Errors
/// A function or variable defined twice without `.weak`/`.common` on either.
pub(crate) fn resolve(m: &ast::Module) -> Result<Cow<'_, ast::Module>, LowerError> {
    // Per name: the indices of the items that define it.
    let mut defs: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, item) in m.items.iter().enumerate() {
        if let Some(name) = defined_name(item) {
            defs.entry(name).or_default().push(k);
        }
    }
    let mut drop = vec![false; m.items.len()];
    // An `.extern` variable declaration names the definition another input gives: one
    // variable, not two (PTX ISA §11.6.2 `.extern`). Without a definition it stays: sized,
    // it is the definition (ptxas: "Unresolved extern variable 'g' in whole program
    // compilation, ignoring extern qualifier"); unsized, it is unresolved.
    for (k, item) in m.items.iter().enumerate() {
        if let Item::Var(d) = item {
            if d.linkage != Linkage::Extern {
                continue;
            }
            if defs.contains_key(d.name.name.as_str()) {
                drop[k] = true;
            } else if unresolved(d) {
                // ptxas: "Unresolved extern variable 'g'".
                return Err(LowerError::new(
                    d.name.span,
                    format!(
                        "unresolved extern variable '{}': no linked input defines it, and its \
                         unsized dimension '[]' leaves its size unknown (PTX ISA §11.6.2 \
                         '.extern')",
                        d.name.name
                    ),
                ));
            }
        }
    }
    for ks in defs.values().filter(|ks| ks.len() > 1) {
        let strong: Vec<usize> = ks
            .iter()
            .copied()
            .filter(|&k| !matches!(linkage(&m.items[k]), Linkage::Weak | Linkage::Common))
            .collect();
        let keep = match strong.as_slice() {
            [] => pick_weak(m, ks),
            [one] => *one,
            [_, second, ..] => {
                let (name, span) = name_span(&m.items[*second]);
                return Err(LowerError::new(
                    span,
                    format!("'{name}' is defined twice in this module"),
                ));
            }
        };
        for &k in ks {
            drop[k] = k != keep;
        }
    }
    if !drop.contains(&true) {
        return Ok(Cow::Borrowed(m));
    }
    let mut out = m.clone();
    let mut k = 0;
    out.items.retain(|_| {
        k += 1;
        !drop[k - 1]
    });
    Ok(Cow::Owned(out))
}

/// Whether `.extern` variable `d`, which no item of the module defines, cannot stand as its
/// own definition: a `.global`/`.const` one with an unsized dimension (`[]`). An unsized
/// `.extern .shared` array is dynamic shared memory, sized by the launch.
fn unresolved(d: &ast::VarDecl) -> bool {
    let open = d.array.iter().any(Option::is_none);
    match d.space {
        StateSpace::Global | StateSpace::Const => open,
        StateSpace::Shared
        | StateSpace::Reg
        | StateSpace::Sreg
        | StateSpace::Local
        | StateSpace::Param
        | StateSpace::Tex
        | StateSpace::Generic => false,
    }
}

/// The name an item defines: a function or kernel with a body, or a variable that is not
/// `.extern`.
fn defined_name(item: &Item) -> Option<&str> {
    match item {
        Item::Function(f) => f.body.as_ref().map(|_| f.name.name.as_str()),
        Item::Var(d) => (d.linkage != Linkage::Extern).then_some(d.name.name.as_str()),
    }
}

fn linkage(item: &Item) -> Linkage {
    match item {
        Item::Function(f) => f.linkage,
        Item::Var(d) => d.linkage,
    }
}

fn name_span(item: &Item) -> (&str, crate::ptx::span::Span) {
    match item {
        Item::Function(f) => (&f.name.name, f.name.span),
        Item::Var(d) => (&d.name.name, d.name.span),
    }
}

/// Among weak or common definitions `ks` (in order): the first, or for variables the first
/// of the largest size (a `.common` symbol takes the largest of its definitions).
fn pick_weak(m: &ast::Module, ks: &[usize]) -> usize {
    let size = |k: usize| -> u64 {
        match &m.items[k] {
            Item::Var(d) => super::build::elements(d)
                .unwrap_or(1)
                .saturating_mul(d.ty.size() as u64),
            Item::Function(_) => 0,
        }
    };
    let mut best = ks[0];
    for &k in &ks[1..] {
        if size(k) > size(best) {
            best = k;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use crate::ptx::ast::{Item, Literal, Operand, Statement};

    const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

    /// The immediates of the `mov`s in the kept definitions, and how many items remain.
    fn kept(text: &str) -> Result<(Vec<i64>, usize), String> {
        let m = crate::ptx::parse(&format!("{HEAD}{text}")).map_err(|e| e.message)?;
        let r = resolve(&m).map_err(|e| e.message)?;
        let mut movs = vec![];
        for item in &r.items {
            if let Item::Function(f) = item {
                for s in f.body.iter().flatten() {
                    if let Statement::Instruction(i) = s {
                        if let Some(Operand::Imm(Literal::Int { value, .. }, _)) = i.operands.get(1)
                        {
                            movs.push(*value);
                        }
                    }
                }
            }
        }
        Ok((movs, r.items.len()))
    }

    fn f(linkage: &str, value: u32) -> String {
        format!("{linkage} .func (.reg .u32 %r) f()\n{{\nmov.u32 %r, {value};\nret;\n}}\n")
    }

    #[test]
    fn the_first_of_several_weak_definitions_is_kept() {
        let (movs, n) = kept(&format!(
            "{}{}{}",
            f(".weak", 1),
            f(".weak", 2),
            f(".weak", 3)
        ))
        .expect("loads");
        assert_eq!((movs, n), (vec![1], 1));
    }

    #[test]
    fn a_strong_definition_wins_over_weak_ones() {
        let (movs, n) = kept(&format!(
            "{}{}{}",
            f(".weak", 1),
            f(".visible", 2),
            f(".weak", 3)
        ))
        .expect("loads");
        assert_eq!((movs, n), (vec![2], 1));
    }

    #[test]
    fn two_strong_definitions_are_an_error() {
        let e = kept(&format!(
            "{}{}{}",
            f(".weak", 1),
            f(".visible", 2),
            f("", 3)
        ))
        .expect_err("defined twice");
        assert!(e.contains("'f' is defined twice"), "{e}");
    }

    #[test]
    fn common_variables_keep_the_largest() {
        let m = crate::ptx::parse(&format!(
            "{HEAD}.common .global .align 4 .u32 c[2];\n.common .global .align 4 .u32 c[8];\n\
             .common .global .align 4 .u32 c[4];\n.extern .global .u32 d;\n.global .u32 d;\n"
        ))
        .expect("parses");
        let r = resolve(&m).expect("resolves");
        let sizes: Vec<String> = r
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Var(d) => Some(format!("{}{:?}", d.name.name, d.array)),
                Item::Function(_) => None,
            })
            .collect();
        assert_eq!(sizes, ["c[Some(8)]", "d[]"]);
    }
    /// ptxas 13.5 (`--gpu-name sm_80`): an unsized `.extern .global`/`.const` array no input
    /// defines is "Unresolved extern variable 'g'"; a sized one, or one another input
    /// defines, loads; an unsized `.extern .shared` array is dynamic shared memory.
    #[test]
    fn an_unsized_extern_variable_needs_a_definition() {
        let run = |text: &str| {
            let m = crate::ptx::parse(&format!("{HEAD}{text}")).expect("parses");
            resolve(&m).map(|r| r.items.len()).map_err(|e| e.message)
        };
        for space in [".global", ".const"] {
            let e = run(&format!(".extern {space} .u32 g[];\n")).expect_err("unresolved");
            assert!(e.starts_with("unresolved extern variable 'g'"), "{e}");
            assert_eq!(run(&format!(".extern {space} .u32 g[4];\n")), Ok(1));
            assert_eq!(
                run(&format!(".extern {space} .u32 g[];\n{space} .u32 g[8];\n")),
                Ok(1)
            );
            assert_eq!(
                run(&format!("{space} .u32 g[8];\n.extern {space} .u32 g[];\n")),
                Ok(1)
            );
        }
        assert_eq!(run(".extern .shared .align 16 .b8 dyn[];\n"), Ok(1));
    }
}
