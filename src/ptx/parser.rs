//! Recursive-descent parser from [`Token`]s to the [`ast`](super::ast) (PTX ISA §4 "Syntax",
//! §5 "State Spaces, Types, and Variables", §11 "Directives").
//!
//! The parser knows the directive grammar but not the instruction set: any
//! `[@[!]pred] opcode(.modifier)* operand, ...;` statement parses, and deciding whether the
//! instruction exists is left to the lowering (which then reports it with the span).
//!
//! Grammar accepted, in the manual's notation (`[]` optional, `*` repetition):
//! ```text
//! module    := .version N.M .target name(, name)* ( .address_size N
//!              | .file N "path" (, N)* | .section .name ... { skipped }
//!              | .pragma "s"(, "s")* ; | item )*
//! item      := [linkage] (function | var-decl)       linkage := .visible|.extern|.weak|.common
//! function  := (.entry|.func) [( params )] name [( params )] perf-dir* ( ; | { stmt* } )
//! perf-dir  := .maxntid N(,N)* | .reqntid ... | .minnctapersm N | .maxnreg N | .noreturn
//!            | .pragma "s" ;  | (a few more cluster directives, integer arguments)
//! param     := (.param|.reg) (.align N | .vN | .type | .ptr [.space] [.align N])* name ([N])*
//! var-decl  := .space (.align N | .vN | .type)* declarator (, declarator)* ;
//! declarator:= name [<N>] ([N] | [])* [= init]
//! init      := literal | -literal | sym [±N] | generic(sym [±N]) [±N] | { init (, init)* }
//!            | N ( init )                                          (mask(), PTX ISA §5.4.4)
//! stmt      := var-decl | name : | { stmt* } | .loc F L C [, extras to end of line]
//!            | .pragma "s" ; | .branchtargets l(,l)* ; | .calltargets f(,f)* ;
//!            | .callprototype ... ; | [@[!]pred] opcode(.mod)* [operand (, operand)*] ;
//! operand   := %reg[.x] | sym [±N] | literal | -literal | !operand | a|b | _
//!            | [ base [±N]* ] | [ N ] | [ operand (, operand)+ ] | { operand, ... } | ( operand, ... )
//! ```
//! `.callprototype`, `.calltargets` and `.branchtargets` become [`Statement::Directive`]s that
//! follow the [`Statement::Label`] naming them: `.branchtargets` and `.calltargets` list their
//! symbols in [`Directive::names`]; `.callprototype` keeps its raw signature text in
//! [`Directive::text`] (the call's own operands carry the types).
//!
//! Nesting (`{ }` scopes, initializer lists, vector/list operands, `!` chains) is capped at
//! [`MAX_DEPTH`] levels, so no input can overflow the stack.

use super::ast::*;
use super::error::ParseError;
use super::lexer::{tokenize, Tok, Token};
use super::span::Span;
use super::target::{self, Version};

/// The largest `<N>` of a parameterized register declaration (`.reg .b32 %r<N>;`).
const MAX_REG_COUNT: u32 = 1 << 20;

/// The deepest nesting of `{ }` blocks, initializer lists or operand lists the parser accepts.
pub const MAX_DEPTH: usize = 256;

type Result<T> = std::result::Result<T, ParseError>;

/// Parses a whole module. See the module docs for the grammar.
pub fn parse_module(text: &str) -> Result<Module> {
    let toks = tokenize(text);
    let end = text.len();
    let mut p = Parser {
        src: text,
        toks,
        pos: 0,
        eof: Token {
            tok: Tok::Eof,
            span: Span::new(end, end),
        },
        version: target::NEWEST,
        locs: Default::default(),
    };
    p.module()
}

const STATE_SPACES: &[(&str, StateSpace)] = &[
    ("reg", StateSpace::Reg),
    ("sreg", StateSpace::Sreg),
    ("const", StateSpace::Const),
    ("global", StateSpace::Global),
    ("local", StateSpace::Local),
    ("param", StateSpace::Param),
    ("shared", StateSpace::Shared),
    ("shared::cta", StateSpace::Shared),
    ("tex", StateSpace::Tex),
];

fn state_space(name: &str) -> Option<StateSpace> {
    STATE_SPACES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
}

/// Directives allowed between a function's signature and its body (PTX ISA §11.4
/// "Performance-Tuning Directives", §11.5 cluster directives).
const PERF_DIRECTIVES: &[&str] = &[
    "maxntid",
    "reqntid",
    "minnctapersm",
    "maxnctapersm",
    "maxnreg",
    "noreturn",
    "pragma",
    "maxclusterrank",
    "reqnctapercluster",
    "explicitcluster",
    "blocksareclusters",
];

/// Checks one performance-tuning directive of a function (PTX ISA §11.4) against the ones
/// before it, as ptxas does: `.maxntid` and `.reqntid` take one to three thread counts,
/// `.minnctapersm`, `.maxnctapersm` and `.maxnreg` one count, each at least 1 ("Positive
/// non-zero value expected"); `.maxntid` and `.reqntid` exclude each other (§11.4.3);
/// `.noreturn` is for `.func` only and takes nothing.
/// The cluster directives are checked where the kernel is lowered.
fn check_tuning_directive(d: &Directive, kind: FunctionKind, before: &[Directive]) -> Result<()> {
    let err = |msg: String| Err(ParseError::new(msg, d.span));
    let name = d.name.as_str();
    let counts = match name {
        "maxntid" | "reqntid" => Some(1..=3),
        "minnctapersm" | "maxnctapersm" | "maxnreg" => Some(1..=1),
        "noreturn" => Some(0..=0),
        _ => None,
    };
    let Some(counts) = counts else {
        return Ok(());
    };
    if !counts.contains(&d.args.len()) {
        let want = match (counts.start(), counts.end()) {
            (0, _) => "no arguments".to_string(),
            (1, 1) => "one integer".to_string(),
            (lo, hi) => format!("{lo} to {hi} integers"),
        };
        return err(format!(".{name} takes {want}, found {}", d.args.len()));
    }
    if d.args.contains(&0) {
        return err(format!(".{name} needs positive (non-zero) values"));
    }
    if name == "noreturn" && kind == FunctionKind::Entry {
        return err(".noreturn applies to '.func' functions, not to a kernel ('.entry')".into());
    }
    let other = match name {
        "maxntid" => "reqntid",
        "reqntid" => "maxntid",
        _ => return Ok(()),
    };
    if before.iter().any(|b| b.name == other) {
        return err(
            ".maxntid and .reqntid cannot both be given (PTX ISA §11.4.3; .reqntid \
                    already bounds the block)"
                .to_string(),
        );
    }
    Ok(())
}

#[path = "constexpr.rs"]
mod constexpr;

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    eof: Token,
    /// The module's `.version`, once the header is parsed (types and forms that need a
    /// later version are checked against it).
    version: Version,
    /// The source locations `.loc` directives have named so far, in text order over the
    /// whole module: an `inlined_at` location must be one of them.
    locs: std::collections::HashSet<(u32, u32, u32)>,
}

impl<'a> Parser<'a> {
    // ---- token access -------------------------------------------------------------------

    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> &Token {
        self.toks.get(self.pos + n).unwrap_or(&self.eof)
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn slice(&self, span: Span) -> &'a str {
        self.src
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// The name of a dot token (without the dot), or `None` if `t` is not one.
    fn dot_name(&self, t: &Token) -> Option<&'a str> {
        match t.tok {
            Tok::Dot => self.slice(t.span).get(1..),
            _ => None,
        }
    }

    fn peek_dot(&self) -> Option<&'a str> {
        self.dot_name(self.peek())
    }

    fn is_punct(&self, c: u8) -> bool {
        self.peek().tok == Tok::Punct(c)
    }

    fn eat_punct(&mut self, c: u8) -> Option<Span> {
        if self.is_punct(c) {
            Some(self.bump().span)
        } else {
            None
        }
    }

    /// Consumes punctuation `c`, or fails with "expected '`c`' `what`, found ...".
    fn expect_punct(&mut self, c: u8, what: &str) -> Result<Span> {
        match self.eat_punct(c) {
            Some(s) => Ok(s),
            None => Err(self.unexpected(&format!("'{}' {}", c as char, what))),
        }
    }

    /// How a token is named in messages.
    fn describe(&self, t: &Token) -> String {
        match &t.tok {
            Tok::Eof => "end of input".to_string(),
            Tok::Str(s) => format!("string \"{}\"", clip(s)),
            _ => format!("'{}'", clip(self.slice(t.span))),
        }
    }

    /// "expected `what`, found `<current token>`" at the current token; a lexical error token
    /// reports its own message instead.
    fn unexpected(&self, what: &str) -> ParseError {
        let t = self.peek();
        match &t.tok {
            Tok::Error(msg) => ParseError::new(msg.clone(), t.span),
            _ => ParseError::new(
                format!("expected {}, found {}", what, self.describe(t)),
                t.span,
            ),
        }
    }

    fn expect_ident(&mut self, what: &str) -> Result<Ident> {
        if self.peek().tok == Tok::Ident {
            let t = self.bump();
            Ok(Ident {
                name: self.slice(t.span).to_string(),
                span: t.span,
            })
        } else {
            Err(self.unexpected(what))
        }
    }

    /// An unsigned integer token that fits in `T`.
    fn expect_uint<T: TryFrom<u64>>(&mut self, what: &str) -> Result<T> {
        match self.peek().tok {
            Tok::Int { value, .. } => {
                let t = self.bump();
                T::try_from(value).map_err(|_| {
                    ParseError::new(
                        format!("{} is out of range for {}", self.slice(t.span), what),
                        t.span,
                    )
                })
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// The byte count after `.align` or `.ptr.align` (named by `after`): a power of two
    /// (as ptxas requires: "Alignment must be a power of two"), so 0 and 3 are errors.
    fn expect_align<T: TryFrom<u64>>(&mut self, after: &str) -> Result<T> {
        let span = self.peek().span;
        let value = match self.peek().tok {
            Tok::Int { value, .. } => Some(value),
            _ => None,
        };
        let align = self.expect_uint(&format!("an alignment after {after}"))?;
        match value {
            Some(v) if !v.is_power_of_two() => Err(ParseError::new(
                format!(
                    "alignment {} after {after} is not a power of two",
                    self.slice(span)
                ),
                span,
            )),
            _ => Ok(align),
        }
    }

    /// Span of the last consumed token.
    fn prev_span(&self) -> Span {
        match self.pos.checked_sub(1).and_then(|i| self.toks.get(i)) {
            Some(t) => t.span,
            None => self.eof.span,
        }
    }

    // ---- module level --------------------------------------------------------------------

    fn module(&mut self) -> Result<Module> {
        let (version, target) = self.header()?;
        let mut m = Module {
            version,
            target,
            address_size: None,
            files: Vec::new(),
            items: Vec::new(),
        };
        loop {
            let t = self.peek().clone();
            if t.tok == Tok::Eof {
                return Ok(m);
            }
            let Some(name) = self.dot_name(&t) else {
                return Err(self
                    .unexpected("a directive, function or variable declaration at module scope"));
            };
            match name {
                // PTX ISA §11.1.2: "no other .version directive is allowed anywhere else
                // within the module" (ptxas: a syntax error); likewise one `.target`.
                "version" | "target" => {
                    return Err(ParseError::new(
                        format!(
                            "a second '.{name}' directive: a module has one, at its start \
                             (PTX ISA §11.1.2)"
                        ),
                        t.span,
                    ))
                }
                "address_size" => {
                    self.bump();
                    let at = self.peek().span;
                    let a = self.expect_uint("'.address_size' (32 or 64)")?;
                    // PTX ISA §11.3: 32 or 64. ptxjit's memory model is 64-bit, and NVIDIA's
                    // own assembler (ptxas, CUDA 12) rejects 32-bit modules for every target
                    // it builds for: "32-Bit compilation is no longer supported" (sm_50 to
                    // sm_89), "32-Bit ABI (--machine 32 or 32-Bit addressing) is not
                    // supported on sm_90 or higher architectures".
                    if a != 64 {
                        return Err(ParseError::new(
                            if a == 32 {
                                "'.address_size 32' (32-bit addressing) is not supported: \
                                 ptxjit runs 64-bit PTX, and NVIDIA's ptxas (CUDA 12) rejects \
                                 32-bit modules for every target (\"32-Bit compilation is no \
                                 longer supported\")"
                                    .to_string()
                            } else {
                                format!("'.address_size {a}': the address size is 32 or 64")
                            },
                            at,
                        ));
                    }
                    m.address_size = Some(a);
                }
                "file" => {
                    self.bump();
                    m.files.push(self.file()?);
                }
                "section" => self.skip_section()?,
                "pragma" => {
                    self.pragma()?;
                }
                "visible" | "extern" | "weak" | "common" | "entry" | "func" => self.item(&mut m)?,
                _ if state_space(name).is_some() => self.item(&mut m)?,
                _ => {
                    return Err(ParseError::new(
                        format!("unknown module-scope directive '.{name}'"),
                        t.span,
                    ))
                }
            }
        }
    }

    /// The module's header (PTX ISA §11.1.2): `.version` first, then `.target`, as ptxas
    /// requires ("Missing .version directive at start of file"); the version must be a
    /// released one ptxjit knows (at most [`target::NEWEST`]) and at least the one that
    /// introduced each architecture `.target` names.
    fn header(&mut self) -> Result<(Version, Vec<String>)> {
        let t = self.peek().clone();
        if let Tok::Error(msg) = &t.tok {
            // A lexical error (a byte-order mark, a stray character) names the real cause.
            return Err(ParseError::new(msg.clone(), t.span));
        }
        if self.dot_name(&t) != Some("version") {
            return Err(ParseError::new(
                format!(
                    "missing '.version' directive at the start of the module (PTX ISA §11.1.2: \
                     every module begins with '.version' and '.target'), found {}",
                    self.describe(&t)
                ),
                t.span,
            ));
        }
        self.bump();
        let at = self.peek().span;
        let v = self.version()?;
        self.version = v;
        if !target::is_released(v) {
            // ptxas: "Unsupported .version 9.9; current version is '8.8'".
            return Err(ParseError::new(
                format!(
                    "unsupported .version {v}: not a PTX ISA version ptxjit knows (the newest \
                     is {})",
                    target::NEWEST
                ),
                at,
            ));
        }
        let t = self.peek().clone();
        if let Tok::Error(msg) = &t.tok {
            return Err(ParseError::new(msg.clone(), t.span));
        }
        if self.dot_name(&t) != Some("target") {
            // ptxas: "Missing .target directive at start of file". The token found there is
            // named: a stray word after the version number, another directive, the end.
            return Err(ParseError::new(
                format!(
                    "missing '.target' directive after '.version' (PTX ISA §11.1.3), found {}",
                    self.describe(&t)
                ),
                t.span,
            ));
        }
        self.bump();
        let mut names = Vec::new();
        loop {
            let id = self.expect_ident("a target name in '.target'")?;
            if !target::MODIFIERS.contains(&id.name.as_str()) {
                let Some(since) = target::parse_arch(&id.name).and_then(target::arch_since) else {
                    return Err(ParseError::new(
                        format!(
                            "unknown target '{}' (sm_NN or compute_NN of an NVIDIA \
                             architecture with an optional a/f suffix, texmode_unified, \
                             texmode_independent, debug, map_f64_to_f32)",
                            id.name
                        ),
                        id.span,
                    ));
                };
                if v < since {
                    // ptxas: "PTX .version 7.0 does not support .target sm_90".
                    return Err(ParseError::new(
                        format!(
                            "PTX .version {v} does not support .target {} (it needs PTX ISA \
                             {since})",
                            id.name
                        ),
                        id.span,
                    ));
                }
            }
            names.push(id.name);
            if self.eat_punct(b',').is_none() {
                break;
            }
        }
        Ok((v, names))
    }

    fn version(&mut self) -> Result<Version> {
        let t = self.peek().clone();
        let text = self.slice(t.span);
        let parsed = match t.tok {
            Tok::Float(_) => text
                .split_once('.')
                .and_then(|(a, b)| Some(Version(a.parse().ok()?, b.parse().ok()?))),
            _ => None,
        };
        match parsed {
            Some(v) => {
                self.bump();
                Ok(v)
            }
            None => Err(self.unexpected("a version 'MAJOR.MINOR' after '.version'")),
        }
    }

    /// `.file N "path" [, timestamp, size]` (after the `.file` token).
    fn file(&mut self) -> Result<(u32, String)> {
        let index = self.expect_uint("a file index after '.file'")?;
        let name = match &self.peek().tok {
            Tok::Str(s) => s.clone(),
            _ => return Err(self.unexpected("a file name string in '.file'")),
        };
        self.bump();
        while self.eat_punct(b',').is_some() {
            self.expect_uint::<u64>("a number in '.file'")?;
        }
        Ok((index, name))
    }

    /// `.section .debug_xxx { ... }`: the whole body is skipped (balanced braces).
    fn skip_section(&mut self) -> Result<()> {
        let start = self.bump().span;
        while !self.is_punct(b'{') {
            match self.peek().tok {
                Tok::Eof | Tok::Error(_) | Tok::Punct(b';') | Tok::Punct(b'}') => {
                    return Err(self.unexpected("'{' to open the '.section' body"))
                }
                _ => {
                    self.bump();
                }
            }
        }
        let mut depth = 0usize;
        loop {
            let t = self.bump();
            match t.tok {
                Tok::Punct(b'{') => depth += 1,
                Tok::Punct(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Tok::Error(msg) => return Err(ParseError::new(msg, t.span)),
                Tok::Eof => {
                    return Err(ParseError::new(
                        "unterminated '.section': expected '}', found end of input",
                        start,
                    ))
                }
                _ => {}
            }
        }
    }

    /// `.pragma "s"(, "s")* ;` (from the `.pragma` token).
    fn pragma(&mut self) -> Result<Directive> {
        let start = self.bump().span;
        let mut texts = Vec::new();
        loop {
            match &self.peek().tok {
                Tok::Str(s) => texts.push(s.clone()),
                _ => return Err(self.unexpected("a string after '.pragma'")),
            }
            self.bump();
            if self.eat_punct(b',').is_none() {
                break;
            }
        }
        let end = self.expect_punct(b';', "after '.pragma'")?;
        Ok(Directive {
            name: "pragma".to_string(),
            args: Vec::new(),
            text: Some(texts.join(", ")),
            names: Vec::new(),
            span: start.join(end),
        })
    }

    /// A function or module-scope variable, with optional linkage.
    fn item(&mut self, m: &mut Module) -> Result<()> {
        let start = self.peek().span;
        let linkage = match self.peek_dot() {
            Some("visible") => Linkage::Visible,
            Some("extern") => Linkage::Extern,
            Some("weak") => Linkage::Weak,
            Some("common") => Linkage::Common,
            _ => Linkage::None,
        };
        if linkage != Linkage::None {
            self.bump();
        }
        match self.peek_dot() {
            Some("entry") | Some("func") => {
                let f = self.function(linkage, start)?;
                m.items.push(Item::Function(f));
            }
            Some(s) if state_space(s).is_some() => {
                for v in self.var_decls(linkage, start)? {
                    m.items.push(Item::Var(v));
                }
            }
            _ => {
                return Err(self.unexpected(
                    "'.entry', '.func' or a state space ('.global', '.const', '.shared' ...) after linkage",
                ))
            }
        }
        Ok(())
    }

    // ---- functions -----------------------------------------------------------------------

    fn function(&mut self, linkage: Linkage, start: Span) -> Result<Function> {
        let kind_tok = self.bump();
        let (kind, kw) = match self.dot_name(&kind_tok) {
            Some("entry") => (FunctionKind::Entry, ".entry"),
            _ => (FunctionKind::Func, ".func"),
        };
        let mut returns = Vec::new();
        if self.is_punct(b'(') {
            returns = self.param_list(&format!("return parameter list of '{kw}'"))?;
        }
        let name = self.expect_ident(&format!("a function name after '{kw}'"))?;
        // ptxas: "Multiple return parameters require .register state space" (one `.param`
        // return value is the ABI's; several are `.reg` ones).
        if returns.len() > 1 {
            if let Some(p) = returns.iter().find(|p| p.space == StateSpace::Param) {
                return Err(ParseError::new(
                    format!(
                        "function '{}' has several return parameters, so '{}' must be a .reg \
                         one, not .param (as ptxas requires)",
                        name.name, p.name.name
                    ),
                    p.span,
                ));
            }
        }
        let mut params = Vec::new();
        if self.is_punct(b'(') {
            params = self.param_list(&format!("parameter list of function '{}'", name.name))?;
        }
        // Parameter names (the return parameters' too) are variables of the function's
        // scope: one name, one parameter, as ptxas requires ("Duplicate definition").
        // `_` is the placeholder name of a prototype's parameters.
        let mut seen = std::collections::HashSet::new();
        for p in returns.iter().chain(&params) {
            if p.name.name != "_" && !seen.insert(p.name.name.as_str()) {
                return Err(ParseError::new(
                    format!(
                        "parameter '{}' of function '{}' is declared twice",
                        p.name.name, name.name
                    ),
                    p.name.span,
                ));
            }
        }
        let mut directives = Vec::new();
        while let Some(d) = self.peek_dot() {
            if !PERF_DIRECTIVES.contains(&d) {
                return Err(ParseError::new(
                    format!(
                        "unexpected directive '.{d}' after the signature of function '{}' \
                         (expected '{{', ';' or a performance directive)",
                        name.name
                    ),
                    self.peek().span,
                ));
            }
            let d = self.perf_directive()?;
            check_tuning_directive(&d, kind, &directives)?;
            directives.push(d);
        }
        let body = if let Some(end) = self.eat_punct(b';') {
            return Ok(Function {
                linkage,
                kind,
                name,
                returns,
                params,
                directives,
                body: None,
                span: start.join(end),
            });
        } else if self.eat_punct(b'{').is_some() {
            self.statements(1, &name.name)?
        } else {
            return Err(self.unexpected(&format!(
                "'{{' or ';' after the signature of function '{}'",
                name.name
            )));
        };
        Ok(Function {
            linkage,
            kind,
            name,
            returns,
            params,
            directives,
            body: Some(body),
            span: start.join(self.prev_span()),
        })
    }

    /// `.maxntid 256, 1, 1`, `.noreturn`, `.pragma "nounroll";` ...
    fn perf_directive(&mut self) -> Result<Directive> {
        if self.peek_dot() == Some("pragma") {
            return self.pragma();
        }
        let t = self.bump();
        let name = self.dot_name(&t).unwrap_or("").to_string();
        let mut args = Vec::new();
        if matches!(self.peek().tok, Tok::Int { .. }) {
            loop {
                args.push(self.expect_uint(&format!("an integer argument of '.{name}'"))?);
                if self.eat_punct(b',').is_none() {
                    break;
                }
            }
        }
        Ok(Directive {
            name,
            args,
            text: None,
            names: Vec::new(),
            span: t.span.join(self.prev_span()),
        })
    }

    fn param_list(&mut self, what: &str) -> Result<Vec<Param>> {
        self.expect_punct(b'(', &format!("to open the {what}"))?;
        let mut params = Vec::new();
        if self.eat_punct(b')').is_some() {
            return Ok(params);
        }
        loop {
            params.push(self.param(what)?);
            if self.eat_punct(b',').is_none() {
                break;
            }
        }
        self.expect_punct(b')', &format!("or ',' in the {what}"))?;
        Ok(params)
    }

    fn param(&mut self, what: &str) -> Result<Param> {
        let start = self.peek().span;
        let space = match self.peek_dot() {
            Some("param") => StateSpace::Param,
            Some("reg") => StateSpace::Reg,
            _ => return Err(self.unexpected(&format!("'.param' or '.reg' in the {what}"))),
        };
        self.bump();
        let (mut align, mut vector, mut ty, mut ptr) = (None, None, None, None);
        while let Some(d) = self.peek_dot() {
            let t = self.bump();
            match d {
                "align" => align = Some(self.expect_align("'.align'")?),
                "ptr" => {
                    let mut attr = PtrAttr {
                        space: None,
                        align: None,
                    };
                    if let Some(s) = self.peek_dot().and_then(state_space) {
                        self.bump();
                        attr.space = Some(s);
                    }
                    if self.peek_dot() == Some("align") {
                        self.bump();
                        attr.align = Some(self.expect_align("'.ptr.align'")?);
                    }
                    ptr = Some(attr);
                }
                _ => {
                    if let Some(n) = vector_width(d) {
                        vector = Some(n);
                    } else if let Some(st) = ScalarType::from_suffix(d) {
                        ty = Some(self.declared_type(st, t.span)?);
                    } else {
                        return Err(ParseError::new(
                            format!("unknown attribute '.{d}' in a parameter of the {what}"),
                            t.span,
                        ));
                    }
                }
            }
        }
        let Some(ty) = ty else {
            return Err(self.unexpected(&format!("a type for a parameter in the {what}")));
        };
        let name = if self.peek().tok == Tok::Underscore {
            let t = self.bump();
            Ident {
                name: "_".to_string(),
                span: t.span,
            }
        } else {
            self.expect_ident(&format!("a parameter name in the {what}"))?
        };
        let array = self.array_dims(&name.name)?;
        Ok(Param {
            space,
            ty,
            vector,
            align,
            ptr,
            name,
            array,
            span: start.join(self.prev_span()),
        })
    }

    /// `[N]`, `[]`, repeated.
    fn array_dims(&mut self, name: &str) -> Result<Vec<Option<u64>>> {
        let mut dims = Vec::new();
        while self.eat_punct(b'[').is_some() {
            if self.eat_punct(b']').is_some() {
                dims.push(None);
                continue;
            }
            dims.push(Some(
                self.expect_uint(&format!("an array size for '{name}'"))?,
            ));
            self.expect_punct(b']', &format!("after the array size of '{name}'"))?;
        }
        Ok(dims)
    }

    // ---- declarations --------------------------------------------------------------------

    /// The list of `.attribute(...)` after its `.attribute` token (PTX ISA 5.4.8, "Variable
    /// Attribute Directive"): `.managed` (CUDA's `__managed__`: memory the host reaches at
    /// the same address) and `.unified(uuid1, uuid2)`. Both describe what every ptxjit
    /// global already is (device memory is host memory at one address), so only `.managed`
    /// is kept (managed memory is what prefetching and memory advice accept). Returns whether
    /// `.managed` is in the list.
    fn variable_attributes(&mut self) -> Result<bool> {
        self.expect_punct(b'(', "after '.attribute'")?;
        let mut managed = false;
        loop {
            let t = self.bump();
            match self.dot_name(&t) {
                Some("managed") => managed = true,
                Some("unified") => {
                    self.expect_punct(b'(', "after '.unified'")?;
                    self.expect_uint::<u64>("the first UUID half of '.unified'")?;
                    self.expect_punct(b',', "between the UUID halves of '.unified'")?;
                    self.expect_uint::<u64>("the second UUID half of '.unified'")?;
                    self.expect_punct(b')', "after the UUID of '.unified'")?;
                }
                _ => {
                    return Err(ParseError::new(
                        "expected '.managed' or '.unified(...)' in '.attribute(...)'",
                        t.span,
                    ))
                }
            }
            if self.eat_punct(b',').is_none() {
                break;
            }
        }
        self.expect_punct(b')', "after the attributes of '.attribute'")?;
        Ok(managed)
    }

    /// `.space (.align N | .vN | .type | .attribute(...))* declarator (, declarator)* ;`
    /// from the space token.
    /// The type of a declaration (variable or parameter) checked against the module's
    /// `.version`: `.b128` needs PTX ISA 8.3 (PTX ISA §5.2.2; ptxas: "Feature 'Type .b128'
    /// requires PTX ISA .version 8.3 or later").
    fn declared_type(&self, st: ScalarType, at: Span) -> Result<ScalarType> {
        const B128_SINCE: Version = Version(8, 3);
        if st == ScalarType::B128 && self.version < B128_SINCE {
            return Err(ParseError::new(
                format!(
                    "type .b128 requires PTX ISA {B128_SINCE} (.version {} here)",
                    self.version
                ),
                at,
            ));
        }
        Ok(st)
    }

    fn var_decls(&mut self, linkage: Linkage, start: Span) -> Result<Vec<VarDecl>> {
        let space_tok = self.bump();
        let space_name = self.dot_name(&space_tok).unwrap_or("");
        let space = state_space(space_name).unwrap_or(StateSpace::Global);
        let what = format!("'.{space_name}' declaration");
        let (mut align, mut vector, mut ty) = (None, None, None);
        let mut managed = false;
        while let Some(d) = self.peek_dot() {
            let t = self.bump();
            if d == "align" {
                align = Some(self.expect_align("'.align'")?);
            } else if d == "attribute" && space == StateSpace::Global {
                managed |= self.variable_attributes()?;
            } else if let Some(n) = vector_width(d) {
                vector = Some(n);
            } else if let Some(st) = ScalarType::from_suffix(d) {
                ty = Some(self.declared_type(st, t.span)?);
            } else {
                return Err(ParseError::new(
                    format!("unknown attribute '.{d}' in {what}"),
                    t.span,
                ));
            }
        }
        let Some(ty) = ty else {
            return Err(self.unexpected(&format!("a type in {what}")));
        };
        let mut decls = Vec::new();
        loop {
            let name = self.expect_ident(&format!("a variable name in {what}"))?;
            let mut count = None;
            if self.eat_punct(b'<').is_some() {
                let at = self.peek().span;
                let n = self.expect_uint(&format!("a register count in '{}<N>'", name.name))?;
                // ptxas's own limit is far lower; this keeps a typo from exhausting memory.
                if n > MAX_REG_COUNT {
                    return Err(ParseError::new(
                        format!(
                            "register count {n} in '{}<{n}>' is too large (at most {MAX_REG_COUNT})",
                            name.name
                        ),
                        at,
                    ));
                }
                count = Some(n);
                self.expect_punct(
                    b'>',
                    &format!("after the register count of '{}'", name.name),
                )?;
            }
            let array = self.array_dims(&name.name)?;
            let init = if self.eat_punct(b'=').is_some() {
                Some(self.initializer(0, &name.name)?)
            } else {
                None
            };
            decls.push(VarDecl {
                linkage,
                space,
                align,
                ty,
                vector,
                managed,
                name,
                count,
                array,
                init,
                span: start.join(self.prev_span()),
            });
            if self.eat_punct(b',').is_none() {
                break;
            }
        }
        let name = decls
            .last()
            .map_or("", |d| d.name.name.as_str())
            .to_string();
        self.expect_punct(b';', &format!("after {what} of '{name}'"))?;
        Ok(decls)
    }

    fn initializer(&mut self, depth: usize, var: &str) -> Result<Initializer> {
        if depth >= MAX_DEPTH {
            return Err(ParseError::new(
                format!("initializer of '{var}' nested deeper than {MAX_DEPTH} levels"),
                self.peek().span,
            ));
        }
        let what = format!("in the initializer of '{var}'");
        if let Some(open) = self.eat_punct(b'{') {
            let mut items = Vec::new();
            if let Some(close) = self.eat_punct(b'}') {
                return Ok(Initializer::List(items, open.join(close)));
            }
            if self.peek().tok == Tok::Ident && self.peek_at(1).tok == Tok::Punct(b'=') {
                let mut fields = Vec::new();
                loop {
                    let name = self.expect_ident(&format!("a field name {what}"))?;
                    self.expect_punct(b'=', &format!("after '{}' {what}", name.name))?;
                    let value = self.initializer(depth + 1, var)?;
                    fields.push((name, value));
                    if self.eat_punct(b',').is_none() {
                        break;
                    }
                }
                let close = self.expect_punct(b'}', &format!("or ',' {what}"))?;
                return Ok(Initializer::Fields(fields, open.join(close)));
            }
            loop {
                items.push(self.initializer(depth + 1, var)?);
                if self.eat_punct(b',').is_none() {
                    break;
                }
            }
            let close = self.expect_punct(b'}', &format!("or ',' {what}"))?;
            return Ok(Initializer::List(items, open.join(close)));
        }
        if self.starts_constant() {
            let (lit, lit_span, single) = self.const_expr(&what)?;
            // `0xFF00(generic(x)+4)`: the mask() operator.
            if single && self.is_punct(b'(') {
                let Literal::Int { value, .. } = lit else {
                    return Err(ParseError::new(
                        format!("a mask before '(' must be an integer {what}"),
                        lit_span,
                    ));
                };
                self.bump();
                let inner = self.initializer(depth + 1, var)?;
                let close = self.expect_punct(b')', &format!("after the masked value {what}"))?;
                return Ok(Initializer::Mask {
                    mask: value as u64,
                    inner: Box::new(inner),
                    span: lit_span.join(close),
                });
            }
            return Ok(Initializer::Literal(lit));
        }
        if self.peek().tok == Tok::Ident
            && self.slice(self.peek().span) == "generic"
            && self.peek_at(1).tok == Tok::Punct(b'(')
        {
            self.bump();
            self.bump();
            let name = self.expect_ident(&format!("a symbol in 'generic(...)' {what}"))?;
            let inner = self.offset_terms(&what)?;
            self.expect_punct(b')', &format!("after 'generic({}' {what}", name.name))?;
            let outer = self.offset_terms(&what)?;
            return Ok(Initializer::Symbol {
                name,
                generic: true,
                offset: inner.wrapping_add(outer),
            });
        }
        let name = self.expect_ident(&format!("a constant, symbol or '{{' {what}"))?;
        let offset = self.offset_terms(&what)?;
        Ok(Initializer::Symbol {
            name,
            generic: false,
            offset,
        })
    }

    /// A numeric literal, with an optional leading minus. `Ok(None)` if the next token does not
    /// start one.
    fn literal(&mut self, what: &str) -> Result<Option<(Literal, Span)>> {
        let neg = if self.is_punct(b'-') {
            Some(self.bump().span)
        } else {
            None
        };
        let t = self.peek().clone();
        let lit = match t.tok {
            Tok::Int { value, unsigned } => Literal::Int {
                value: value as i64,
                unsigned,
            },
            Tok::Float(v) => Literal::Float(v),
            Tok::F32Bits(b) => Literal::F32Bits(b),
            Tok::F64Bits(b) => Literal::F64Bits(b),
            _ if neg.is_some() => {
                return Err(self.unexpected(&format!("a number after '-' {what}")));
            }
            _ => return Ok(None),
        };
        self.bump();
        let Some(minus) = neg else {
            return Ok(Some((lit, t.span)));
        };
        let negated = match lit {
            Literal::Int { value, unsigned } => Literal::Int {
                value: value.wrapping_neg(),
                unsigned,
            },
            Literal::Float(v) => Literal::Float(-v),
            Literal::F32Bits(b) => Literal::F32Bits(b ^ 0x8000_0000),
            Literal::F64Bits(b) => Literal::F64Bits(b ^ (1 << 63)),
        };
        Ok(Some((negated, minus.join(t.span))))
    }

    /// `(+T | -T)*`, summed (wrapping), each term `T` an integer constant expression of
    /// multiplicative level (`+4*2`, `+(1<<3)`, `+~0`; PTX ISA 4.6).
    fn offset_terms(&mut self, what: &str) -> Result<i64> {
        let mut total = 0i64;
        loop {
            let term_start =
                |t: &Tok| matches!(t, Tok::Int { .. } | Tok::Punct(b'(' | b'~' | b'!'));
            let negative = if self.eat_punct(b'+').is_some() {
                // `+-4`: the term's own unary minus.
                false
            } else if self.is_punct(b'-') && term_start(&self.peek_at(1).tok) {
                self.bump();
                true
            } else {
                return Ok(total);
            };
            if !(term_start(&self.peek().tok) || self.is_punct(b'-')) {
                return Err(self.unexpected(&format!("an integer offset {what}")));
            }
            let v = self.offset_term(what)?;
            total = if negative {
                total.wrapping_sub(v)
            } else {
                total.wrapping_add(v)
            };
        }
    }

    // ---- function bodies -----------------------------------------------------------------

    /// Statements up to and including the closing `}` (the `{` is already consumed).
    fn statements(&mut self, depth: usize, func: &str) -> Result<Vec<Statement>> {
        let mut out = Vec::new();
        loop {
            let t = self.peek().clone();
            match t.tok {
                Tok::Punct(b'}') => {
                    self.bump();
                    return Ok(out);
                }
                Tok::Punct(b'{') => {
                    if depth >= MAX_DEPTH {
                        return Err(ParseError::new(
                            format!(
                                "blocks in function '{func}' nested deeper than {MAX_DEPTH} levels"
                            ),
                            t.span,
                        ));
                    }
                    self.bump();
                    let inner = self.statements(depth + 1, func)?;
                    out.push(Statement::Block(inner, t.span.join(self.prev_span())));
                }
                Tok::Punct(b';') => {
                    self.bump();
                }
                Tok::Punct(b'@') => out.push(Statement::Instruction(self.instruction()?)),
                Tok::Ident if self.peek_at(1).tok == Tok::Punct(b':') => {
                    let name = self.expect_ident("a label")?;
                    self.bump();
                    out.push(Statement::Label(name));
                }
                Tok::Ident => out.push(Statement::Instruction(self.instruction()?)),
                Tok::Dot => self.body_directive(func, &mut out)?,
                Tok::Eof => {
                    return Err(
                        self.unexpected(&format!("'}}' to close the body of function '{func}'"))
                    )
                }
                _ => {
                    return Err(self.unexpected(&format!(
                    "an instruction, label, declaration or '}}' in the body of function '{func}'"
                )))
                }
            }
        }
    }

    fn body_directive(&mut self, func: &str, out: &mut Vec<Statement>) -> Result<()> {
        let t = self.peek().clone();
        let name = self.dot_name(&t).unwrap_or("");
        match name {
            _ if state_space(name).is_some() => {
                for d in self.var_decls(Linkage::None, t.span)? {
                    out.push(Statement::Decl(d));
                }
            }
            "loc" => out.push(self.loc()?),
            "pragma" => out.push(Statement::Directive(self.pragma()?)),
            "branchtargets" | "calltargets" => {
                self.bump();
                let mut names = Vec::new();
                loop {
                    names.push(
                        self.expect_ident(&format!("a label or function name in '.{name}'"))?,
                    );
                    if self.eat_punct(b',').is_none() {
                        break;
                    }
                }
                let end = self.expect_punct(b';', &format!("after '.{name}'"))?;
                out.push(Statement::Directive(Directive {
                    name: name.to_string(),
                    args: Vec::new(),
                    text: None,
                    names,
                    span: t.span.join(end),
                }));
            }
            "callprototype" => {
                self.bump();
                let body_start = self.peek().span.start;
                loop {
                    match self.peek().tok {
                        Tok::Punct(b';') => break,
                        Tok::Eof | Tok::Error(_) | Tok::Punct(b'{') | Tok::Punct(b'}') => {
                            return Err(self.unexpected("';' after '.callprototype'"))
                        }
                        _ => {
                            self.bump();
                        }
                    }
                }
                let end = self.bump().span;
                let text = self
                    .src
                    .get(body_start as usize..end.start as usize)
                    .unwrap_or("")
                    .trim()
                    .to_string();
                out.push(Statement::Directive(Directive {
                    name: name.to_string(),
                    args: Vec::new(),
                    text: Some(text),
                    names: Vec::new(),
                    span: t.span.join(end),
                }));
            }
            _ => {
                return Err(ParseError::new(
                    format!("unexpected directive '.{name}' in the body of function '{func}'"),
                    t.span,
                ))
            }
        }
        Ok(())
    }

    /// `.loc FILE LINE COL`, then any `, function_name ..., inlined_at F L C` extras up to the
    /// end of the line, of which `inlined_at` is kept. `.loc` has no terminating `;`.
    fn loc(&mut self) -> Result<Statement> {
        let start = self.bump().span;
        let file = self.expect_uint("a file index after '.loc'")?;
        let line = self.expect_uint("a line number in '.loc'")?;
        let col = self.expect_uint("a column number in '.loc'")?;
        let line_end = self
            .src
            .get(start.start as usize..)
            .and_then(|s| s.find('\n'))
            .map_or(self.src.len(), |i| start.start as usize + i);
        let mut span = start.join(self.prev_span());
        let mut inlined_at = None;
        if self.is_punct(b',') {
            while (self.peek().span.start as usize) < line_end && self.peek().tok != Tok::Eof {
                if let Tok::Error(_) = self.peek().tok {
                    return Err(self.unexpected("'.loc' arguments"));
                }
                let t = self.bump();
                span = span.join(t.span);
                if t.tok == Tok::Ident && self.slice(t.span) == "inlined_at" {
                    let f = self.expect_uint("a file index after 'inlined_at'")?;
                    let l = self.expect_uint("a line number after 'inlined_at'")?;
                    let c = self.expect_uint("a column number after 'inlined_at'")?;
                    // ptxas: "Source location 1 30 7 used in inlined_at directive must be
                    // used in a preceding .loc directive".
                    if !self.locs.contains(&(f, l, c)) {
                        return Err(ParseError::new(
                            format!(
                                "source location {f} {l} {c} used in 'inlined_at' must be used \
                                 in a preceding '.loc' directive"
                            ),
                            t.span.join(self.prev_span()),
                        ));
                    }
                    inlined_at = Some((f, l, c));
                    span = span.join(self.prev_span());
                }
            }
        }
        self.locs.insert((file, line, col));
        Ok(Statement::Loc {
            file,
            line,
            col,
            inlined_at,
            span,
        })
    }

    /// `[@[!]pred] opcode(.modifier)* [operand (, operand)*] ;`
    fn instruction(&mut self) -> Result<Instruction> {
        let start = self.peek().span;
        let mut guard = None;
        if self.eat_punct(b'@').is_some() {
            let negated = self.eat_punct(b'!').is_some();
            let pred = self.expect_ident("a predicate register after '@'")?;
            guard = Some(Guard { negated, pred });
        }
        if self.peek().tok != Tok::Ident {
            return Err(self.unexpected(match guard {
                Some(_) => "an instruction after the guard predicate",
                None => "an instruction",
            }));
        }
        if self.slice(self.peek().span).starts_with('%') {
            return Err(self.unexpected("an instruction opcode"));
        }
        let opcode = self.expect_ident("an instruction opcode")?;
        let mut modifiers = Vec::new();
        while let Some(text) = self.peek_dot() {
            let t = self.bump();
            modifiers.push(Modifier {
                text: text.to_string(),
                span: t.span,
            });
        }
        let op = opcode.name.clone();
        let mut operands = Vec::new();
        // A bare name followed by a modifier cannot be an operand: it is the next instruction
        // (`ret` then `mul.lo.s32 ...` on the next line), so the ';' is missing.
        let next_is_instruction = self.peek().tok == Tok::Ident
            && !self.slice(self.peek().span).starts_with('%')
            && self.peek_at(1).tok == Tok::Dot;
        let starts_operand = matches!(
            self.peek().tok,
            Tok::Ident
                | Tok::Underscore
                | Tok::Int { .. }
                | Tok::Float(_)
                | Tok::F32Bits(_)
                | Tok::F64Bits(_)
                | Tok::Punct(b'!' | b'-' | b'[' | b'{' | b'(')
        );
        if next_is_instruction || !starts_operand {
            let end =
                self.expect_punct(b';', &format!("or an operand after instruction '{op}'"))?;
            return Ok(Instruction {
                guard,
                opcode,
                modifiers,
                operands,
                span: start.join(end),
            });
        }
        {
            loop {
                operands.push(self.operand(0, &op)?);
                if self.eat_punct(b',').is_none() {
                    break;
                }
            }
        }
        // A single register in braces where a scalar `ld`/`st` takes a register (Triton writes
        // `ld.global.b32 { %r1 }, [ %rd1 + 0 ];`; ptxas accepts it) is that register.
        let vector = modifiers
            .iter()
            .any(|m| matches!(m.text.as_str(), "v2" | "v4" | "v8"));
        if matches!(op.as_str(), "ld" | "ldu" | "st") && !vector {
            for o in &mut operands {
                if let Operand::Vector(items, _) = o {
                    if let [one @ Operand::Reg { .. }] = items.as_slice() {
                        *o = one.clone();
                    }
                }
            }
        }
        // The message is made only when the ';' is missing.
        let end = match self.eat_punct(b';') {
            Some(end) => Ok(end),
            None => self.expect_punct(b';', &format!("after instruction '{op}'")),
        }
        .map_err(|e| match self.peek().tok {
            Tok::Error(_) => e,
            _ => ParseError::new(
                format!(
                    "expected ',' between operands or ';' after instruction '{op}', found {}",
                    self.describe(self.peek())
                ),
                e.span,
            ),
        })?;
        Ok(Instruction {
            guard,
            opcode,
            modifiers,
            operands,
            span: start.join(end),
        })
    }

    fn operand(&mut self, depth: usize, op: &str) -> Result<Operand> {
        // Made only where it is used (errors, constant expressions, offsets): most operands
        // are registers.
        let what = || format!("in an operand of instruction '{op}'");
        if depth >= MAX_DEPTH {
            return Err(ParseError::new(
                format!("operands of instruction '{op}' nested deeper than {MAX_DEPTH} levels"),
                self.peek().span,
            ));
        }
        // A constant expression (PTX ISA 4.6); `call`'s parenthesized lists are argument lists.
        if !op.starts_with("call") && self.starts_constant() {
            let (lit, span, _) = self.const_expr(&what())?;
            return Ok(Operand::Imm(lit, span));
        }
        let t = self.peek().clone();
        match t.tok {
            Tok::Ident => {
                let name = self.expect_ident("an operand")?;
                if self.eat_punct(b'|').is_some() {
                    let second =
                        self.expect_ident(&format!("a second predicate after '|' {}", what()))?;
                    return Ok(Operand::PredPair(name, second));
                }
                if name.name.starts_with('%') {
                    if let Some(sel) = self.peek_dot().filter(|d| video_selector(d)) {
                        let sel = sel.to_string();
                        self.bump();
                        let span = name.span.join(self.prev_span());
                        return Ok(Operand::Select { name, sel, span });
                    }
                    let mut component = None;
                    if let Some(c) = self.peek_dot().and_then(vector_component) {
                        self.bump();
                        component = Some(c);
                    }
                    return Ok(Operand::Reg { name, component });
                }
                // `a[i]`: an array element with a constant index.
                if self.is_punct(b'[')
                    && matches!(self.peek_at(1).tok, Tok::Int { .. })
                    && self.peek_at(2).tok == Tok::Punct(b']')
                {
                    self.bump();
                    let index = match self.bump().tok {
                        Tok::Int { value, .. } => value as i64,
                        _ => 0,
                    };
                    self.bump();
                    let span = name.span.join(self.prev_span());
                    return Ok(Operand::Indexed { name, index, span });
                }
                let offset = self.offset_terms(&what())?;
                Ok(Operand::Symbol { name, offset })
            }
            Tok::Punct(b'-') if self.peek_at(1).tok == Tok::Ident => {
                self.bump();
                let inner = self.operand(depth + 1, op)?;
                let span = t.span.join(inner.span());
                Ok(Operand::Neg(Box::new(inner), span))
            }
            Tok::Punct(b'!') => {
                self.bump();
                let inner = self.operand(depth + 1, op)?;
                let span = t.span.join(inner.span());
                Ok(Operand::Not(Box::new(inner), span))
            }
            Tok::Punct(b'[') => self.address(depth, op),
            Tok::Punct(b'{') => {
                self.bump();
                let items = self.operand_seq(depth, op, b'}')?;
                if self.eat_punct(b'|').is_some() {
                    let p = self.expect_ident(&format!("a predicate after '|' {}", what()))?;
                    let span = t.span.join(p.span);
                    return Ok(Operand::VecPred(items, p, span));
                }
                Ok(Operand::Vector(items, t.span.join(self.prev_span())))
            }
            Tok::Punct(b'(') => {
                self.bump();
                let items = self.operand_seq(depth, op, b')')?;
                Ok(Operand::List(items, t.span.join(self.prev_span())))
            }
            Tok::Underscore => {
                self.bump();
                // `_|%p` (elect.sync): a sink paired with a predicate; the sink is named `_`.
                if self.eat_punct(b'|').is_some() {
                    let second =
                        self.expect_ident(&format!("a second predicate after '|' {}", what()))?;
                    let sink = Ident {
                        name: "_".into(),
                        span: t.span,
                    };
                    return Ok(Operand::PredPair(sink, second));
                }
                Ok(Operand::Sink(t.span))
            }
            // Literals and signs before them start constant expressions (above).
            _ => Err(self.unexpected(&format!("an operand of instruction '{op}'"))),
        }
    }

    /// Operands separated by `,` up to and including `close` (the opener is consumed).
    fn operand_seq(&mut self, depth: usize, op: &str, close: u8) -> Result<Vec<Operand>> {
        let mut items = Vec::new();
        if self.eat_punct(close).is_some() {
            return Ok(items);
        }
        loop {
            items.push(self.operand(depth + 1, op)?);
            if self.eat_punct(b',').is_none() {
                break;
            }
        }
        self.expect_punct(
            close,
            &format!("or ',' in an operand list of instruction '{op}'"),
        )?;
        Ok(items)
    }

    /// `[%rd1]`, `[%rd1+16]`, `[%rd1+-4]`, `[%rd1-4]`, `[sym+8]`, `[1024]`, and the texture /
    /// surface form `[tex, {%f1, %f2}]` ([`Operand::Bracketed`]).
    fn address(&mut self, depth: usize, op: &str) -> Result<Operand> {
        let open = self.bump().span;
        let what = format!("in an address operand of instruction '{op}'");
        let base = if self.peek().tok == Tok::Ident {
            Some(self.expect_ident("an address base")?)
        } else {
            None
        };
        let mut offset = 0i64;
        if base.is_none() {
            match self.literal(&what)? {
                Some((Literal::Int { value, .. }, _)) => offset = value,
                Some((_, span)) => {
                    return Err(ParseError::new(
                        format!(
                            "expected an integer address {what}, found a floating-point literal"
                        ),
                        span,
                    ))
                }
                None => {
                    return Err(self.unexpected(&format!("a register, symbol or integer {what}")))
                }
            }
        }
        offset = offset.wrapping_add(self.offset_terms(&what)?);
        if let (Some(name), 0, true) = (&base, offset, self.is_punct(b',')) {
            let first = if name.name.starts_with('%') {
                Operand::Reg {
                    name: name.clone(),
                    component: None,
                }
            } else {
                Operand::Symbol {
                    name: name.clone(),
                    offset: 0,
                }
            };
            let mut items = vec![first];
            while self.eat_punct(b',').is_some() {
                items.push(self.operand(depth + 1, op)?);
            }
            let close = self.expect_punct(b']', &format!("or ',' {what}"))?;
            return Ok(Operand::Bracketed(items, open.join(close)));
        }
        let close = self.expect_punct(b']', &format!("to close the address {what}"))?;
        Ok(Operand::Address {
            base,
            offset,
            span: open.join(close),
        })
    }
}

/// `v2` → 2, `v4` → 4, `v8` → 8.
fn vector_width(d: &str) -> Option<u32> {
    match d {
        "v2" => Some(2),
        "v4" => Some(4),
        "v8" => Some(8),
        _ => None,
    }
}

/// A video sub-word selector (PTX ISA §9.7.18): `b` with 1-4 byte digits 0-7, or `h` with
/// 1-2 half-word digits 0-3.
fn video_selector(d: &str) -> bool {
    let (kind, digits) = d.split_at(d.len().min(1));
    match kind {
        "b" => {
            (1..=4).contains(&digits.len()) && digits.bytes().all(|c| (b'0'..=b'7').contains(&c))
        }
        "h" => {
            (1..=2).contains(&digits.len()) && digits.bytes().all(|c| (b'0'..=b'3').contains(&c))
        }
        _ => false,
    }
}

/// A vector component suffix: `.x .y .z .w` or `.r .g .b .a` (PTX ISA §5.2.3 "Vectors").
fn vector_component(d: &str) -> Option<char> {
    match d {
        "x" | "y" | "z" | "w" | "r" | "g" | "b" | "a" => d.chars().next(),
        _ => None,
    }
}

/// At most 40 characters of `s`, for messages.
fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().nth(40).is_some() {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
#[path = "parser_tests.rs"]
mod tests;
