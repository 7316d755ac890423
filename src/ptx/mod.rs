//! The PTX front end: lexer, parser and AST with source spans.
//!
//! [`parse`] turns PTX text into an [`ast::Module`]; it never panics, and every error names the
//! construct and carries a [`span::Span`] that [`ParseError::render`] turns into `file:line:col`.
//!
//! The parser accepts PTX as NVCC, NVRTC and clang emit it (ISA 6.x–9.x): debug directives
//! (`.file`, `.loc`, `.section` — sections are skipped), `.pragma`, performance directives,
//! `%r<N>` declarations, `{ }` scopes, vector operands, `0f`/`0d` literals. Instructions are
//! kept generic (opcode, modifiers, operands) and are not checked against the instruction set
//! here: see [`parser`] for the grammar.

pub mod ast;
pub mod error;
pub mod lexer;
pub mod lineinfo;
pub mod names;
pub mod parser;
pub mod print;
pub mod span;
pub mod target;

pub use error::ParseError;

/// Parses one PTX module (the text of a `.ptx` file).
///
/// Returns the module's AST, every node with the byte [`span::Span`] of its source; or the
/// first syntax error, with a message naming the construct being parsed (instruction opcode,
/// directive, declaration) and what was found instead (PTX ISA §4 "Syntax", §11 "Directives").
/// Never panics, whatever the input; nesting deeper than [`parser::MAX_DEPTH`] is an error.
///
/// ```
/// let m = ptxjit::ptx::parse(".version 8.0\n.target sm_80\n.address_size 64\n").unwrap();
/// assert_eq!(m.version, ptxjit::ptx::target::Version(8, 0));
/// let text = ".version 8.0\n.target sm_80\n.entry k() { ret }";
/// let e = ptxjit::ptx::parse(text).unwrap_err();
/// let map = ptxjit::ptx::span::SourceMap::new("k.ptx", text);
/// assert_eq!(e.render(&map), "k.ptx:3:18: expected ';' or an operand after instruction 'ret', found '}'");
/// ```
pub fn parse(text: &str) -> Result<ast::Module, ParseError> {
    parser::parse_module(text)
}
