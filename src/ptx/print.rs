//! Printing an [`ast::Module`](super::ast::Module) back to PTX text.
//!
//! The printed text parses to the same AST up to source spans: `parse(print(m))` equals `m` once
//! every [`Span`] is cleared ([`same_modulo_spans`]). Comments, blank lines, module-scope
//! `.pragma`s and `.section` bodies are not in the AST and so are not printed; `.file`
//! directives come before the items. Everything else keeps its order.
//!
//! Literals print in a form the lexer reads back to the same [`Literal`] variant and value:
//! integers in decimal (negative values with a leading `-`, `U` suffix kept), decimal floats in
//! Rust's shortest round-trip form (always with a `.` or an exponent, infinities as `1e999`),
//! `0f`/`0d` bit literals in upper-case hex.

use std::fmt::{self, Write};

use super::ast::*;
use super::span::Span;

/// The PTX text of a module, one statement per line.
pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_module(&mut out, m);
    out
}

/// Writes the PTX text of `m` to `w` (see [`print_module`]).
pub fn write_module(w: &mut impl Write, m: &Module) -> fmt::Result {
    writeln!(w, ".version {}", m.version)?;
    writeln!(w, ".target {}", m.target.join(", "))?;
    if let Some(a) = m.address_size {
        writeln!(w, ".address_size {a}")?;
    }
    for (index, name) in &m.files {
        writeln!(w, ".file {index} {}", quote(name))?;
    }
    for item in &m.items {
        writeln!(w)?;
        match item {
            Item::Function(f) => write_function(w, f)?,
            Item::Var(v) => {
                write_var_decl(w, v)?;
                writeln!(w)?;
            }
        }
    }
    Ok(())
}

fn write_function(w: &mut impl Write, f: &Function) -> fmt::Result {
    write_linkage(w, f.linkage)?;
    w.write_str(match f.kind {
        FunctionKind::Entry => ".entry ",
        FunctionKind::Func => ".func ",
    })?;
    if !f.returns.is_empty() {
        write_params(w, &f.returns)?;
        w.write_char(' ')?;
    }
    w.write_str(&f.name.name)?;
    write_params(w, &f.params)?;
    for d in &f.directives {
        writeln!(w)?;
        write_directive(w, d)?;
    }
    match &f.body {
        None => writeln!(w, ";"),
        Some(body) => {
            writeln!(w, "\n{{")?;
            write_statements(w, body, 1)?;
            writeln!(w, "}}")
        }
    }
}

fn write_linkage(w: &mut impl Write, l: Linkage) -> fmt::Result {
    w.write_str(match l {
        Linkage::None => "",
        Linkage::Visible => ".visible ",
        Linkage::Extern => ".extern ",
        Linkage::Weak => ".weak ",
        Linkage::Common => ".common ",
    })
}

fn write_params(w: &mut impl Write, ps: &[Param]) -> fmt::Result {
    w.write_char('(')?;
    for (i, p) in ps.iter().enumerate() {
        w.write_str(if i == 0 { "\n\t" } else { ",\n\t" })?;
        write_param(w, p)?;
    }
    if !ps.is_empty() {
        w.write_char('\n')?;
    }
    w.write_char(')')
}

fn write_param(w: &mut impl Write, p: &Param) -> fmt::Result {
    write!(w, ".{}", space_name(p.space))?;
    if let Some(a) = p.align {
        write!(w, " .align {a}")?;
    }
    if let Some(n) = p.vector {
        write!(w, " .v{n}")?;
    }
    write!(w, " .{}", type_name(p.ty))?;
    if let Some(ptr) = &p.ptr {
        w.write_str(" .ptr")?;
        if let Some(s) = ptr.space {
            write!(w, ".{}", space_name(s))?;
        }
        if let Some(a) = ptr.align {
            write!(w, ".align {a}")?;
        }
    }
    write!(w, " {}", p.name.name)?;
    write_dims(w, &p.array)
}

fn write_dims(w: &mut impl Write, dims: &[Option<u64>]) -> fmt::Result {
    for d in dims {
        match d {
            Some(n) => write!(w, "[{n}]")?,
            None => w.write_str("[]")?,
        }
    }
    Ok(())
}

/// One declaration, without a trailing newline.
fn write_var_decl(w: &mut impl Write, v: &VarDecl) -> fmt::Result {
    write_linkage(w, v.linkage)?;
    write!(w, ".{}", space_name(v.space))?;
    if v.managed {
        w.write_str(" .attribute(.managed)")?;
    }
    if let Some(a) = v.align {
        write!(w, " .align {a}")?;
    }
    if let Some(n) = v.vector {
        write!(w, " .v{n}")?;
    }
    write!(w, " .{} {}", type_name(v.ty), v.name.name)?;
    if let Some(n) = v.count {
        write!(w, "<{n}>")?;
    }
    write_dims(w, &v.array)?;
    if let Some(init) = &v.init {
        w.write_str(" = ")?;
        write_init(w, init)?;
    }
    w.write_char(';')
}

fn write_init(w: &mut impl Write, i: &Initializer) -> fmt::Result {
    match i {
        Initializer::Literal(l) => write_literal(w, *l),
        Initializer::Symbol {
            name,
            generic: true,
            offset,
        } => {
            write!(w, "generic({}", name.name)?;
            write_offset(w, *offset)?;
            w.write_char(')')
        }
        Initializer::Symbol {
            name,
            generic: false,
            offset,
        } => {
            w.write_str(&name.name)?;
            write_offset(w, *offset)
        }
        Initializer::Mask { mask, inner, .. } => {
            write!(w, "{mask:#X}(")?;
            write_init(w, inner)?;
            w.write_char(')')
        }
        Initializer::List(items, _) => {
            w.write_char('{')?;
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    w.write_str(", ")?;
                }
                write_init(w, item)?;
            }
            w.write_char('}')
        }
        Initializer::Fields(fields, _) => {
            w.write_char('{')?;
            for (k, (name, value)) in fields.iter().enumerate() {
                if k > 0 {
                    w.write_str(", ")?;
                }
                write!(w, "{} = ", name.name)?;
                write_init(w, value)?;
            }
            w.write_char('}')
        }
    }
}

/// A directive between a function's signature and body, or in a body.
fn write_directive(w: &mut impl Write, d: &Directive) -> fmt::Result {
    match d.name.as_str() {
        "pragma" => write!(w, ".pragma {};", quote(d.text.as_deref().unwrap_or(""))),
        // The raw signature text may end in a line comment: the `;` goes on the next line.
        "callprototype" => write!(w, ".callprototype {}\n;", d.text.as_deref().unwrap_or("")),
        "branchtargets" | "calltargets" => {
            write!(w, ".{} ", d.name)?;
            write_names(w, &d.names)?;
            w.write_char(';')
        }
        _ => {
            write!(w, ".{}", d.name)?;
            for (k, a) in d.args.iter().enumerate() {
                w.write_str(if k == 0 { " " } else { ", " })?;
                write!(w, "{a}")?;
            }
            Ok(())
        }
    }
}

fn write_names(w: &mut impl Write, names: &[Ident]) -> fmt::Result {
    for (k, n) in names.iter().enumerate() {
        if k > 0 {
            w.write_str(", ")?;
        }
        w.write_str(&n.name)?;
    }
    Ok(())
}

fn write_statements(w: &mut impl Write, body: &[Statement], depth: usize) -> fmt::Result {
    for s in body {
        match s {
            Statement::Label(l) => writeln!(w, "{}:", l.name)?,
            Statement::Decl(v) => {
                indent(w, depth)?;
                write_var_decl(w, v)?;
                writeln!(w)?;
            }
            Statement::Instruction(i) => {
                indent(w, depth)?;
                write_instruction(w, i)?;
                writeln!(w)?;
            }
            Statement::Block(inner, _) => {
                indent(w, depth)?;
                writeln!(w, "{{")?;
                write_statements(w, inner, depth + 1)?;
                indent(w, depth)?;
                writeln!(w, "}}")?;
            }
            Statement::Loc {
                file,
                line,
                col,
                inlined_at,
                ..
            } => {
                indent(w, depth)?;
                write!(w, ".loc {file} {line} {col}")?;
                if let Some((f, l, c)) = inlined_at {
                    write!(w, ", inlined_at {f} {l} {c}")?;
                }
                writeln!(w)?;
            }
            Statement::Directive(d) => {
                indent(w, depth)?;
                write_directive(w, d)?;
                writeln!(w)?;
            }
        }
    }
    Ok(())
}

fn indent(w: &mut impl Write, depth: usize) -> fmt::Result {
    for _ in 0..depth {
        w.write_char('\t')?;
    }
    Ok(())
}

/// One instruction with its `;`, e.g. `@!%p1 ld.global.nc.f32 %f1, [%rd2+16];`.
pub fn write_instruction(w: &mut impl Write, i: &Instruction) -> fmt::Result {
    if let Some(g) = &i.guard {
        write!(w, "@{}{} ", if g.negated { "!" } else { "" }, g.pred.name)?;
    }
    w.write_str(&i.opcode.name)?;
    for m in &i.modifiers {
        write!(w, ".{}", m.text)?;
    }
    for (k, o) in i.operands.iter().enumerate() {
        w.write_str(if k == 0 { " " } else { ", " })?;
        write_operand(w, o)?;
    }
    w.write_char(';')
}

fn write_operand(w: &mut impl Write, o: &Operand) -> fmt::Result {
    match o {
        Operand::Reg { name, component } => {
            w.write_str(&name.name)?;
            if let Some(c) = component {
                write!(w, ".{c}")?;
            }
            Ok(())
        }
        Operand::Not(inner, _) => {
            w.write_char('!')?;
            write_operand(w, inner)
        }
        Operand::Neg(inner, _) => {
            w.write_char('-')?;
            write_operand(w, inner)
        }
        Operand::Indexed { name, index, .. } => write!(w, "{}[{index}]", name.name),
        Operand::Imm(l, _) => write_literal(w, *l),
        Operand::Symbol { name, offset } => {
            w.write_str(&name.name)?;
            write_offset(w, *offset)
        }
        Operand::Address { base, offset, .. } => {
            w.write_char('[')?;
            match base {
                Some(b) => {
                    w.write_str(&b.name)?;
                    write_offset(w, *offset)?;
                }
                None => write!(w, "{offset}")?,
            }
            w.write_char(']')
        }
        Operand::Vector(items, _) => write_seq(w, '{', items, '}'),
        Operand::List(items, _) => write_seq(w, '(', items, ')'),
        Operand::Bracketed(items, _) => write_seq(w, '[', items, ']'),
        Operand::PredPair(a, b) => write!(w, "{}|{}", a.name, b.name),
        Operand::VecPred(items, p, _) => {
            write_seq(w, '{', items, '}')?;
            write!(w, "|{}", p.name)
        }
        Operand::Sink(_) => w.write_char('_'),
        Operand::Select { name, sel, .. } => write!(w, "{}.{sel}", name.name),
    }
}

fn write_seq(w: &mut impl Write, open: char, items: &[Operand], close: char) -> fmt::Result {
    w.write_char(open)?;
    for (k, o) in items.iter().enumerate() {
        if k > 0 {
            w.write_str(", ")?;
        }
        write_operand(w, o)?;
    }
    w.write_char(close)
}

/// `+N` / `-N` after a base, nothing for 0.
fn write_offset(w: &mut impl Write, offset: i64) -> fmt::Result {
    match offset {
        0 => Ok(()),
        o if o < 0 => write!(w, "-{}", (o as i128).unsigned_abs()),
        o => write!(w, "+{o}"),
    }
}

/// A literal in a form the lexer reads back to the same variant and value.
pub fn write_literal(w: &mut impl Write, l: Literal) -> fmt::Result {
    match l {
        Literal::Int { value, unsigned } => {
            write!(w, "{value}")?;
            if unsigned {
                w.write_char('U')?;
            }
            Ok(())
        }
        Literal::Float(v) if v.is_finite() => write!(w, "{v:?}"),
        // Not produced by the parser (no decimal literal is NaN, and one past the doubles is
        // an error, as in ptxas); printed as its bits.
        Literal::Float(v) => write!(w, "0d{:016X}", v.to_bits()),
        Literal::F32Bits(b) => write!(w, "0f{b:08X}"),
        Literal::F64Bits(b) => write!(w, "0d{b:016X}"),
    }
}

/// A string literal with `"` and `\` escaped (the only escapes the lexer resolves).
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The directive name of a state space (`.global` → `"global"`).
pub fn space_name(s: StateSpace) -> &'static str {
    match s {
        StateSpace::Reg => "reg",
        StateSpace::Sreg => "sreg",
        StateSpace::Const => "const",
        StateSpace::Global => "global",
        StateSpace::Local => "local",
        StateSpace::Param => "param",
        StateSpace::Shared => "shared",
        StateSpace::Tex => "tex",
        // Not a declaration space (the parser never produces it in a declaration).
        StateSpace::Generic => "generic",
    }
}

/// The type suffix of a scalar type (`U32` → `"u32"`).
pub fn type_name(t: ScalarType) -> &'static str {
    use ScalarType::*;
    match t {
        Pred => "pred",
        B8 => "b8",
        B16 => "b16",
        B32 => "b32",
        B64 => "b64",
        B128 => "b128",
        U8 => "u8",
        U16 => "u16",
        U32 => "u32",
        U64 => "u64",
        S8 => "s8",
        S16 => "s16",
        S32 => "s32",
        S64 => "s64",
        F16 => "f16",
        F16x2 => "f16x2",
        Bf16 => "bf16",
        Bf16x2 => "bf16x2",
        F32 => "f32",
        F64 => "f64",
        TexRef => "texref",
        SamplerRef => "samplerref",
        SurfRef => "surfref",
    }
}

impl fmt::Display for Module {
    /// The module as PTX text ([`print_module`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_module(f, self)
    }
}

// ---- span-insensitive comparison ----------------------------------------------------------

/// Sets every span in `m` to the empty span at 0.
pub fn clear_spans(m: &mut Module) {
    for item in &mut m.items {
        match item {
            Item::Function(f) => {
                f.span = Span::default();
                f.name.span = Span::default();
                for p in f.returns.iter_mut().chain(f.params.iter_mut()) {
                    p.span = Span::default();
                    p.name.span = Span::default();
                }
                for d in &mut f.directives {
                    clear_directive(d);
                }
                if let Some(body) = &mut f.body {
                    clear_statements(body);
                }
            }
            Item::Var(v) => clear_var(v),
        }
    }
}

fn clear_directive(d: &mut Directive) {
    d.span = Span::default();
    for n in &mut d.names {
        n.span = Span::default();
    }
}

fn clear_var(v: &mut VarDecl) {
    v.span = Span::default();
    v.name.span = Span::default();
    if let Some(i) = &mut v.init {
        clear_init(i);
    }
}

fn clear_init(i: &mut Initializer) {
    match i {
        Initializer::Literal(_) => {}
        Initializer::Symbol { name, .. } => name.span = Span::default(),
        Initializer::Mask { inner, span, .. } => {
            *span = Span::default();
            clear_init(inner);
        }
        Initializer::List(items, span) => {
            *span = Span::default();
            items.iter_mut().for_each(clear_init);
        }
        Initializer::Fields(fields, span) => {
            *span = Span::default();
            for (name, value) in fields {
                name.span = Span::default();
                clear_init(value);
            }
        }
    }
}

fn clear_statements(body: &mut [Statement]) {
    for s in body {
        match s {
            Statement::Decl(v) => clear_var(v),
            Statement::Label(l) => l.span = Span::default(),
            Statement::Instruction(i) => clear_instruction(i),
            Statement::Block(inner, span) => {
                *span = Span::default();
                clear_statements(inner);
            }
            Statement::Loc { span, .. } => *span = Span::default(),
            Statement::Directive(d) => clear_directive(d),
        }
    }
}

fn clear_instruction(i: &mut Instruction) {
    i.span = Span::default();
    i.opcode.span = Span::default();
    if let Some(g) = &mut i.guard {
        g.pred.span = Span::default();
    }
    for m in &mut i.modifiers {
        m.span = Span::default();
    }
    i.operands.iter_mut().for_each(clear_operand);
}

fn clear_operand(o: &mut Operand) {
    match o {
        Operand::Reg { name, .. } | Operand::Symbol { name, .. } => name.span = Span::default(),
        Operand::Not(inner, span) | Operand::Neg(inner, span) => {
            *span = Span::default();
            clear_operand(inner);
        }
        Operand::Imm(_, span) | Operand::Sink(span) => *span = Span::default(),
        Operand::Indexed { name, span, .. } => {
            name.span = Span::default();
            *span = Span::default();
        }
        Operand::Address { base, span, .. } => {
            *span = Span::default();
            if let Some(b) = base {
                b.span = Span::default();
            }
        }
        Operand::Vector(items, span)
        | Operand::List(items, span)
        | Operand::Bracketed(items, span) => {
            *span = Span::default();
            items.iter_mut().for_each(clear_operand);
        }
        Operand::PredPair(a, b) => {
            a.span = Span::default();
            b.span = Span::default();
        }
        Operand::VecPred(items, p, span) => {
            *span = Span::default();
            p.span = Span::default();
            items.iter_mut().for_each(clear_operand);
        }
        Operand::Select { name, span, .. } => {
            name.span = Span::default();
            *span = Span::default();
        }
    }
}

/// Whether two modules are the same AST apart from source spans. Floating-point literals compare
/// by bits (`-0.0` differs from `0.0`).
pub fn same_modulo_spans(a: &Module, b: &Module) -> bool {
    first_difference(a, b).is_none()
}

/// The first line where the span-free debug dumps of `a` and `b` differ, as
/// `(line number, line of a, line of b)`; `None` if the modules are the same modulo spans.
pub fn first_difference(a: &Module, b: &Module) -> Option<(usize, String, String)> {
    let (mut a, mut b) = (a.clone(), b.clone());
    clear_spans(&mut a);
    clear_spans(&mut b);
    // Debug output distinguishes float bit patterns PartialEq would equate (-0.0 == 0.0).
    let (da, db) = (format!("{a:#?}"), format!("{b:#?}"));
    if da == db {
        return None;
    }
    let mut la = da.lines();
    let mut lb = db.lines();
    let mut n = 1;
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            (x, y) => {
                return Some((
                    n,
                    x.unwrap_or("<end>").to_string(),
                    y.unwrap_or("<end>").to_string(),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse;

    fn roundtrip(src: &str) {
        let m = parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        let text = print_module(&m);
        let back =
            parse(&text).unwrap_or_else(|e| panic!("printed text fails to parse: {e}\n{text}"));
        if let Some((line, x, y)) = first_difference(&m, &back) {
            panic!("round trip differs at dump line {line}:\n  {x}\n  {y}\nprinted:\n{text}");
        }
    }

    #[test]
    fn literals_and_operands_round_trip() {
        roundtrip(
            ".version 8.0\n.target sm_80, texmode_independent\n.address_size 64\n.file 1 \"a\\\\b \\\"c\\\"\"\n\
             .global .align 8 .u64 g[2] = {0xFFFFFFFFFFFFFFFF, -9223372036854775808};\n\
             .const .f64 c[3] = {1.5, -0.0, 1e300};\n\
             .global .u64 p = generic(g+8);\n\
             .global .u8 b[3] = {0xFF00(generic(g)+8), 0XFF(g), 0xFF(3)};\n\
             .global .samplerref smp = {addr_mode_0 = clamp_to_border, filter_mode = linear, force_unnormalized_coords = 1};\n\
             .visible .entry k(.param .align 8 .u64 .ptr.global.align 16 a, .param .b8 s[16][])\n\
             .maxntid 256, 1, 1\n.pragma \"nounroll\";\n{\n\
             .reg .b32 %r<5>; .reg .pred %p;\n\
             .loc 1 2 3\n.loc 1 4 5, function_name f, inlined_at 1 2 3\n\
             L: .branchtargets L, M;\n\
             M: @!%p add.s32 %r1, %r2, -5;\n\
             mov.f32 %r1, 0f7FC00001; mov.f64 %r1, 0dFFF0000000000000; mov.f32 %r1, -1.0E-7;\n\
             mov.f64 %r1, 1.7976931348623157e308; mov.f64 %r1, 2.2250738585072014e-308;\n\
             ld.global.v4.u32 {%r1, %r2, _, %r3}, [%r4+-16]; ld.global.u32 %r1, [%r4-9223372036854775808];\n\
             ld.const.u32 %r1, [c+4]; ld.u32 %r1, [-8]; mov.u64 %r1, g-4;\n\
             setp.lt.and.s32 %p|%q, %r1, 7U, !%p; mov.u32 %r1, %tid.x;\n\
             tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, s, {%f5, %f6}];\n\
             call.uni (%r1), f, (%r2, %r3); call f, ();\n\
             { .reg .b32 %x; { ret; } }\n\
             P: .callprototype (.param .b32 _) _ (.param .b64 _) // trailing\n;\n\
             }\n\
             .extern .func (.param .b32 r) f(.param .b32 a);\n\
             .entry e { exit; }\n",
        );
    }

    #[test]
    fn negative_zero_differs() {
        let a = parse(".version 8.0\n.target sm_80\n.global .f64 x = 0.0;").unwrap();
        let b = parse(".version 8.0\n.target sm_80\n.global .f64 x = -0.0;").unwrap();
        assert!(!same_modulo_spans(&a, &b));
        let c = parse(".version 8.0 .target sm_80  .global  .f64 x =\n 0.0 ;").unwrap();
        assert!(same_modulo_spans(&a, &c));
    }

    #[test]
    fn real_kernels_round_trip() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/ptx-tests");
        let mut n = 0;
        let mut stack = vec![std::path::PathBuf::from(root)];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "ptx") {
                    let src = std::fs::read_to_string(&p).unwrap();
                    if parse(&src).is_ok() {
                        roundtrip(&src);
                        n += 1;
                    }
                }
            }
        }
        assert!(n >= 9, "only {n} parseable .ptx files under ptx-tests");
    }
}
