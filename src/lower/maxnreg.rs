//! The register counts of a kernel's `setmaxnreg` instructions (PTX ISA §9.7.19.5), checked
//! as ptxas 13.5 checks them (probed with `--gpu-name sm_100a` and `sm_90a`): a
//! `setmaxnreg.dec` whose count is larger than the largest register count the kernel can
//! have is refused ("(C7406) setmaxnreg.dec has register count (248) which is larger than the
//! largest temporal register count in the program (128)"). That largest count is the largest
//! of every `setmaxnreg.inc` count of the functions the kernel reaches (wherever they stand:
//! before or after the `.dec`, on any path) and of the kernel's `.maxnreg` directive; a
//! kernel with neither has no bound (ptxas then ignores the hints: "(C7508) … unable to
//! determine register count at entry"). Each kernel is checked on its own: an `.inc` in
//! another kernel of the module does not count.
//!
//! The functions a kernel reaches, as ptxas counts them (a syntactic rule: dead code counts):
//! - the kernel, and every function a reached body calls directly;
//! - every function whose address a reached body takes (an operand naming it other than a
//!   direct call's callee: `mov.u64 %rd1, f`), called or not;
//! - every function named in the initializer of a module variable a reached body names
//!   (`ld.global.u64 %rd1, [fptr]` with `.global .u64 fptr = f;`), not through a second
//!   variable (`.global .u64 g = generic(fptr);`); a variable declared inside a function
//!   body (in any block) counts only where a body in its scope names it: its functions then
//!   count as addresses that body takes (also for the next rule), and it hides a module
//!   variable of the same name;
//! - when a reached body calls through a register (`call %rd1, proto;`, with a
//!   `.callprototype` or a `.calltargets` table), every function whose address is taken
//!   anywhere in the module: in any function's body (another kernel's, or one never called)
//!   or in a module variable's initializer. A function named only in a `.calltargets` list
//!   is not counted.
//!
//! `setmaxnreg` has no effect in ptxjit (`decode_bulk::setmaxnreg`); this check only makes
//! the loader refuse what ptxas refuses.

use super::LowerError;
use crate::ptx::ast::{self, Initializer, Literal, Operand, Statement};
use crate::ptx::span::Span;
use std::collections::{HashMap, HashSet};

/// What one function body holds that the check needs: its `setmaxnreg` counts, the functions
/// it calls directly, the symbols its other operands name, and whether it calls through a
/// register.
#[derive(Default)]
struct Body<'a> {
    inc: Option<u64>,
    dec: Vec<(u64, Span)>,
    calls: Vec<&'a str>,
    names: Vec<&'a str>,
    indirect: bool,
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
    let mut bodies: HashMap<&str, Body> = HashMap::new();
    // Functions named in each module variable's initializer.
    let mut inits: HashMap<&str, Vec<&str>> = HashMap::new();
    // Functions whose address is taken anywhere in the module.
    let mut taken: Vec<&str> = Vec::new();
    for item in &m.items {
        match item {
            ast::Item::Function(f) => {
                if let Some(b) = &f.body {
                    let mut body = Body::default();
                    walk(b, funcs, &mut Vec::new(), &mut body);
                    taken.extend(body.names.iter().filter(|n| funcs.contains_key(**n)));
                    bodies.insert(&f.name.name, body);
                }
            }
            ast::Item::Var(d) => {
                let named = init_funcs(d, funcs);
                taken.extend(&named);
                inits.insert(&d.name.name, named);
            }
        }
    }
    for item in &m.items {
        let ast::Item::Function(f) = item else {
            continue;
        };
        if f.kind != ast::FunctionKind::Entry || f.body.is_none() {
            continue;
        }
        let (mut inc, mut dec) = (None::<u64>, Vec::new());
        let mut seen = HashSet::from([f.name.name.as_str()]);
        let mut todo = vec![f.name.name.as_str()];
        let mut all_taken = false;
        while let Some(name) = todo.pop() {
            let Some(body) = bodies.get(name) else {
                continue;
            };
            inc = inc.max(body.inc);
            dec.extend(&body.dec);
            let mut next: Vec<&str> = body.calls.clone();
            for n in &body.names {
                if funcs.contains_key(*n) {
                    next.push(n);
                } else if let Some(fs) = inits.get(n) {
                    next.extend(fs);
                }
            }
            if body.indirect && !all_taken {
                all_taken = true;
                next.extend(&taken);
            }
            for n in next {
                if seen.insert(n) {
                    todo.push(n);
                }
            }
        }
        let directive = f
            .directives
            .iter()
            .find(|d| d.name == "maxnreg")
            .and_then(|d| d.args.first().copied());
        let (bound, what) = match (inc, directive) {
            (Some(i), Some(d)) if d > i => (d, ".maxnreg"),
            (Some(i), _) => (i, "setmaxnreg.inc count"),
            (None, Some(d)) => (d, ".maxnreg"),
            (None, None) => continue,
        };
        // The first in source order of those above the bound.
        if let Some(&(n, span)) = dec
            .iter()
            .filter(|&&(n, _)| n > bound)
            .min_by_key(|(_, s)| s.start)
        {
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

/// The functions named in the initializer of variable `d` (not through another variable:
/// `generic(fptr)` names `fptr`, a variable).
fn init_funcs<'a>(d: &'a ast::VarDecl, funcs: &HashMap<String, &ast::Function>) -> Vec<&'a str> {
    let mut named = Vec::new();
    let mut stack: Vec<&Initializer> = d.init.iter().collect();
    while let Some(i) = stack.pop() {
        match i {
            Initializer::Symbol { name, .. } if funcs.contains_key(&name.name) => {
                named.push(name.name.as_str());
            }
            Initializer::List(items, _) => stack.extend(items),
            Initializer::Mask { inner, .. } => stack.push(inner),
            Initializer::Symbol { .. } | Initializer::Literal(_) | Initializer::Fields(..) => {}
        }
    }
    named
}

/// Adds what `stmts` (nested blocks included) hold to `body`. `scopes` holds, for each
/// enclosing block, its variables (`.global`/`.const` declared in a function body) and the
/// functions their initializers name: an operand naming such a variable counts as naming
/// those functions, as if the body took their addresses itself (ptxas 13.5: the variable's
/// initializer counts only where a body names it, and then also for the indirect-call rule;
/// a module variable of the same name is hidden).
fn walk<'a>(
    stmts: &'a [Statement],
    funcs: &HashMap<String, &ast::Function>,
    scopes: &mut Vec<HashMap<&'a str, Vec<&'a str>>>,
    body: &mut Body<'a>,
) {
    let scope = stmts
        .iter()
        .filter_map(|s| match s {
            Statement::Decl(d) => Some((d.name.name.as_str(), init_funcs(d, funcs))),
            _ => None,
        })
        .collect();
    scopes.push(scope);
    walk_scoped(stmts, funcs, scopes, body);
    scopes.pop();
}

/// [`walk`]'s statements, with their block's scope pushed.
fn walk_scoped<'a>(
    stmts: &'a [Statement],
    funcs: &HashMap<String, &ast::Function>,
    scopes: &mut Vec<HashMap<&'a str, Vec<&'a str>>>,
    body: &mut Body<'a>,
) {
    // The symbols an operand names, a body-scope variable replaced by the functions its
    // initializer names.
    let named =
        |o: &'a Operand, scopes: &[HashMap<&'a str, Vec<&'a str>>], out: &mut Vec<&'a str>| {
            let mut raw = Vec::new();
            names(o, &mut raw);
            for n in raw {
                match scopes.iter().rev().find_map(|s| s.get(n)) {
                    Some(fs) => out.extend(fs),
                    None => out.push(n),
                }
            }
        };
    for s in stmts {
        match s {
            Statement::Block(inner, _) => walk(inner, funcs, scopes, body),
            Statement::Instruction(i) if i.opcode.name == "call" => {
                let k = usize::from(matches!(i.operands.first(), Some(Operand::List(..))));
                match i.operands.get(k) {
                    Some(Operand::Symbol { name, offset: 0 }) => body.calls.push(&name.name),
                    Some(Operand::Reg { .. }) => body.indirect = true,
                    // Anything else is the decoder's error.
                    _ => {}
                }
                // The return and argument lists (a `.callprototype`/`.calltargets` label
                // names no function).
                for o in &i.operands {
                    if let Operand::List(..) = o {
                        named(o, scopes, &mut body.names);
                    }
                }
            }
            Statement::Instruction(i) => {
                for o in &i.operands {
                    named(o, scopes, &mut body.names);
                }
                if i.opcode.name != "setmaxnreg" {
                    continue;
                }
                // A count that is not an immediate is the decoder's error.
                let Some(Operand::Imm(Literal::Int { value, .. }, span)) = i.operands.first()
                else {
                    continue;
                };
                let n = *value as u64;
                match i.modifiers.first().map(|m| m.text.as_str()) {
                    Some("inc") => body.inc = Some(body.inc.map_or(n, |c| c.max(n))),
                    Some("dec") => body.dec.push((n, *span)),
                    // Anything else is the decoder's error.
                    _ => {}
                }
            }
            Statement::Decl(_)
            | Statement::Label(_)
            | Statement::Loc { .. }
            | Statement::Directive(_) => {}
        }
    }
}

/// Adds the symbols operand `o` names (a variable, function or label) to `out`.
fn names<'a>(o: &'a Operand, out: &mut Vec<&'a str>) {
    match o {
        Operand::Symbol { name, .. }
        | Operand::Indexed { name, .. }
        | Operand::Address {
            base: Some(name), ..
        } => out.push(&name.name),
        Operand::List(items, _)
        | Operand::Vector(items, _)
        | Operand::Bracketed(items, _)
        | Operand::VecPred(items, _, _) => {
            for x in items {
                names(x, out);
            }
        }
        Operand::Not(inner, _) | Operand::Neg(inner, _) => names(inner, out),
        Operand::Reg { .. }
        | Operand::Imm(..)
        | Operand::Address { base: None, .. }
        | Operand::PredPair(..)
        | Operand::Sink(_)
        | Operand::Select { .. } => {}
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
        // Through taken addresses and indirect calls (ptxas 13.5's verdicts;
        // tests/ptxas_forms/setmaxnreg_calls.tsv has the full family).
        let f = ".func f() { setmaxnreg.inc.sync.aligned.u32 128; ret; }";
        let fp = ".global .u64 fp = f;";
        let proto = ".reg .b64 %rd<2>; proto: .callprototype _ ();";
        let via_param = format!("{proto} ld.global.u64 %rd0, [%rd1]; call %rd0, proto;");
        for (funcs, body, refused) in [
            // The address taken in the kernel, called or not.
            (
                f.to_string(),
                format!("{proto} mov.u64 %rd0, f; call %rd0, proto;"),
                true,
            ),
            (f.to_string(), format!("{proto} mov.u64 %rd0, f;"), true),
            // An indirect call with no function's address taken anywhere, or one named
            // only in a .calltargets list.
            (f.to_string(), via_param.clone(), false),
            (
                f.to_string(),
                ".reg .b64 %rd<2>; t: .calltargets f; ld.global.u64 %rd0, [%rd1]; call %rd0, t;"
                    .to_string(),
                false,
            ),
            // A module variable's initializer: counted when the kernel names the variable
            // or calls through a register.
            (format!("{f} {fp}"), String::new(), false),
            (format!("{f} {fp}"), via_param.clone(), true),
            (
                format!("{f} {fp}"),
                ".reg .b64 %rd<2>; ld.global.u64 %rd0, [fp];".to_string(),
                true,
            ),
            (
                format!("{f} {fp} .global .u64 gp = generic(fp);"),
                ".reg .b64 %rd<2>; ld.global.u64 %rd0, [gp];".to_string(),
                false,
            ),
            // The address taken in a function the kernel never calls: counted only with an
            // indirect call.
            (
                format!("{f} .func h() {{ .reg .b64 %q; mov.u64 %q, f; ret; }}"),
                String::new(),
                false,
            ),
            (
                format!("{f} .func h() {{ .reg .b64 %q; mov.u64 %q, f; ret; }}"),
                via_param.clone(),
                true,
            ),
        ] {
            let r = load(&funcs, "", &format!("{body} {DEC} 248;"));
            match &r {
                Ok(()) => assert!(!refused, "{funcs} | {body}: loads"),
                Err(e) => assert!(refused && e.contains("C7406"), "{funcs} | {body}: {e}"),
            }
        }
        // Another kernel's .inc does not bound this one.
        let two = ".version 8.8\n.target sm_100a\n.address_size 64\n\
                   .visible .entry a() { setmaxnreg.inc.sync.aligned.u32 128; ret; }\n\
                   .visible .entry b() { setmaxnreg.dec.sync.aligned.u32 248; ret; }\n";
        assert!(front_end(two, "m.ptx").is_ok());
    }
}
