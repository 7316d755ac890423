//! The PTX lexer: source text to [`Token`]s with byte [`Span`]s (PTX ISA §4 "Syntax").
//!
//! The lexer is total: it never fails and never panics. A character or literal it cannot read
//! becomes a [`Tok::Error`] token carrying the message, which the parser reports when it
//! reaches it (so errors come out in source order). Comments (`//`, `/* */`) and whitespace are
//! dropped. The token list always ends with one [`Tok::Eof`].
//!
//! Token classes:
//! - identifiers (§4.4): `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`, sigils kept
//!   (`%r12`, `$L__BB0_2`, `__cudart_i2opi_f`); a lone `_` is [`Tok::Underscore`] (the sink);
//! - dot-names (directives and modifiers): `.` followed by `[a-zA-Z0-9_$]+`, with `::`-joined
//!   parts kept together (`.L1::evict_last`, `.L2::128B`, `.shared::cta`);
//! - constants (§4.5): integers in decimal, `0x` hex, leading-`0` octal and `0b` binary with an
//!   optional `U` suffix; decimal floats (`1.5`, `1e-3`, `1.0E+2`); `0fXXXXXXXX` (exactly 8 hex
//!   digits, f32 bits) and `0dXXXXXXXXXXXXXXXX` (exactly 16 hex digits, f64 bits). A minus sign is
//!   a separate [`Tok::Punct`]; the parser applies it;
//! - strings `"..."` with `\"` and `\\` escapes (for `.file` and `.pragma`);
//! - punctuation `, ; : { } [ ] ( ) < > + - ! @ | =`.

use super::span::Span;

/// The kind of a token; its text is the source slice at its [`Token::span`].
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier; text is the span.
    Ident,
    /// `.name`: a directive or modifier; the name (without the dot) is the span minus its first
    /// byte.
    Dot,
    /// An integer literal's value (wrapping into 64 bits is an error) and whether it has a `U`
    /// suffix.
    Int { value: u64, unsigned: bool },
    /// A decimal floating-point literal.
    Float(f64),
    /// `0fXXXXXXXX`.
    F32Bits(u32),
    /// `0dXXXXXXXXXXXXXXXX`.
    F64Bits(u64),
    /// A string literal, escapes resolved.
    Str(String),
    /// One punctuation byte: one of `,;:{}[]()<>+-!@|=*/~&^?`, or `%` before a space or `(`
    /// (the operators of constant expressions are among them).
    Punct(u8),
    /// `_` on its own: the sink operand.
    Underscore,
    /// Something that is not a PTX token; the message says what.
    Error(String),
    /// End of input (always the last token, with an empty span at the end of the text).
    Eof,
}

/// A token and its byte span in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b == b'%'
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

const PUNCT: &[u8] = b",;:{}[]()<>+-!@|=*/~&^?";

/// Splits `text` into tokens. Never fails: unreadable input becomes [`Tok::Error`] tokens.
/// The result always ends with [`Tok::Eof`].
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut lx = Lexer {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        out: Vec::new(),
    };
    lx.run();
    lx.out
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    out: Vec<Token>,
}

impl Lexer<'_> {
    fn at(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    fn push(&mut self, tok: Tok, start: usize) {
        self.out.push(Token {
            tok,
            span: Span::new(start, self.pos),
        });
    }

    /// How messages name the character at `self.pos`: `end of input`, `a space`, `a line
    /// break`, or the character quoted.
    fn next_char(&self) -> String {
        match self.text.get(self.pos..).and_then(|s| s.chars().next()) {
            None => "end of input".to_string(),
            Some(' ' | '\t') => "a space".to_string(),
            Some('\n' | '\r') => "a line break".to_string(),
            Some(c) if c.is_control() => format!("{c:?}"),
            Some(c) => format!("'{c}'"),
        }
    }

    fn run(&mut self) {
        while self.pos < self.bytes.len() {
            let start = self.pos;
            let b = self.bytes[start];
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0c => self.pos += 1,
                b'/' if self.at(start + 1) == b'/' => {
                    while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'/' if self.at(start + 1) == b'*' => self.block_comment(),
                b'"' => self.string(),
                b'.' if is_ident_continue(self.at(start + 1)) => self.dot_name(),
                b'0'..=b'9' => self.number(),
                b'_' if !is_ident_continue(self.at(start + 1)) => {
                    self.pos += 1;
                    self.push(Tok::Underscore, start);
                }
                // `%` before a space or `(`: the remainder operator of a constant expression.
                b'%' if matches!(self.at(start + 1), b' ' | b'\t' | b'(') => {
                    self.pos += 1;
                    self.push(Tok::Punct(b), start);
                }
                b'%' | b'$' if !is_ident_continue(self.at(start + 1)) => {
                    self.pos += 1;
                    let msg = format!(
                        "'{}' must be followed by identifier characters, found {}",
                        b as char,
                        self.next_char()
                    );
                    self.push(Tok::Error(msg), start);
                }
                // A '.' that starts no directive or modifier name: a file cut short after
                // `cvta.to.global.`, or `. u32`.
                b'.' => {
                    self.pos += 1;
                    let msg = format!(
                        "'.' must be followed by a directive or modifier name, found {}",
                        self.next_char()
                    );
                    self.push(Tok::Error(msg), start);
                }
                _ if is_ident_start(b) => {
                    self.pos += 1;
                    self.skip_while(is_ident_continue);
                    self.push(Tok::Ident, start);
                }
                _ if PUNCT.contains(&b) => {
                    self.pos += 1;
                    self.push(Tok::Punct(b), start);
                }
                _ => {
                    // Step over one whole character so the span stays on a char boundary.
                    let c = self.text.get(start..).and_then(|s| s.chars().next());
                    let len = c.map_or(1, char::len_utf8);
                    self.pos += len;
                    let msg = match c {
                        Some('\u{feff}') => "unexpected byte-order mark (U+FEFF): PTX source is \
                                              ASCII; save the file without a BOM"
                            .to_string(),
                        Some(c) if c.is_control() => format!("unexpected character {:?}", c),
                        Some(c) if !c.is_ascii() => format!(
                            "unexpected non-ASCII character '{}' (U+{:04X}): PTX source is ASCII",
                            c, c as u32
                        ),
                        Some(c) => format!("unexpected character '{}'", c),
                        None => "unexpected byte".to_string(),
                    };
                    self.push(Tok::Error(msg), start);
                }
            }
        }
        let end = self.bytes.len();
        self.out.push(Token {
            tok: Tok::Eof,
            span: Span::new(end, end),
        });
    }

    fn skip_while(&mut self, f: impl Fn(u8) -> bool) {
        while self.pos < self.bytes.len() && f(self.bytes[self.pos]) {
            self.pos += 1;
        }
    }

    fn block_comment(&mut self) {
        let start = self.pos;
        self.pos += 2;
        loop {
            if self.pos >= self.bytes.len() {
                self.push(Tok::Error("unterminated block comment '/*'".into()), start);
                return;
            }
            if self.bytes[self.pos] == b'*' && self.at(self.pos + 1) == b'/' {
                self.pos += 2;
                return;
            }
            self.pos += 1;
        }
    }

    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let mut bytes = Vec::new();
        loop {
            match self.bytes.get(self.pos).copied() {
                None | Some(b'\n') => {
                    self.push(Tok::Error("unterminated string literal".into()), start);
                    return;
                }
                Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') if matches!(self.at(self.pos + 1), b'"' | b'\\') => {
                    bytes.push(self.bytes[self.pos + 1]);
                    self.pos += 2;
                }
                Some(b) => {
                    bytes.push(b);
                    self.pos += 1;
                }
            }
        }
        // Only ASCII bytes were dropped (backslashes), so the rest is still UTF-8.
        let s = String::from_utf8_lossy(&bytes).into_owned();
        self.push(Tok::Str(s), start);
    }

    /// `.name` or `.name::part::part` (compound modifiers such as `.L2::cache_hint`).
    fn dot_name(&mut self) {
        let start = self.pos;
        self.pos += 1;
        self.skip_while(is_ident_continue);
        while self.at(self.pos) == b':'
            && self.at(self.pos + 1) == b':'
            && is_ident_continue(self.at(self.pos + 2))
        {
            self.pos += 2;
            self.skip_while(is_ident_continue);
        }
        self.push(Tok::Dot, start);
    }

    fn number(&mut self) {
        let start = self.pos;
        let b0 = self.bytes[start];
        let b1 = self.at(start + 1);
        if b0 == b'0' && matches!(b1, b'f' | b'F' | b'd' | b'D') {
            self.pos += 2;
            self.skip_while(is_ident_continue);
            let digits = self.text.get(start + 2..self.pos).unwrap_or("");
            let (want, kind) = if b1 == b'f' || b1 == b'F' {
                (8, "0f")
            } else {
                (16, "0d")
            };
            let ok = digits.len() == want && digits.bytes().all(|b| b.is_ascii_hexdigit());
            let tok = match (ok, want) {
                (false, _) => Tok::Error(format!(
                    "'{kind}' floating-point literal needs exactly {want} hex digits, found '{digits}'"
                )),
                (true, 8) => match u32::from_str_radix(digits, 16) {
                    Ok(v) => Tok::F32Bits(v),
                    Err(e) => Tok::Error(e.to_string()),
                },
                (true, _) => match u64::from_str_radix(digits, 16) {
                    Ok(v) => Tok::F64Bits(v),
                    Err(e) => Tok::Error(e.to_string()),
                },
            };
            self.push(tok, start);
            return;
        }
        if b0 == b'0' && matches!(b1, b'x' | b'X' | b'b' | b'B') {
            self.pos += 2;
            let radix = if b1 == b'x' || b1 == b'X' { 16 } else { 2 };
            self.integer_tail(start, start + 2, radix);
            return;
        }
        self.skip_while(|b| b.is_ascii_digit());
        let mut is_float = false;
        if self.at(self.pos) == b'.' && self.at(self.pos + 1).is_ascii_digit() {
            is_float = true;
            self.pos += 1;
            self.skip_while(|b| b.is_ascii_digit());
        }
        if matches!(self.at(self.pos), b'e' | b'E') {
            let sign = usize::from(matches!(self.at(self.pos + 1), b'+' | b'-'));
            if self.at(self.pos + 1 + sign).is_ascii_digit() {
                is_float = true;
                self.pos += 1 + sign;
                self.skip_while(|b| b.is_ascii_digit());
            }
        }
        if is_float {
            let text = self.text.get(start..self.pos).unwrap_or("");
            let tok = if is_ident_continue(self.at(self.pos)) {
                self.skip_while(is_ident_continue);
                let all = self.text.get(start..self.pos).unwrap_or("");
                Tok::Error(format!("invalid floating-point literal '{all}'"))
            } else {
                // A decimal literal is a double (PTX ISA §4.5.2). ptxas rejects one outside
                // the normal doubles ("Constant overflow", as C's strtod reports a range
                // error): past the largest finite double, and a nonzero one below the
                // smallest normal double (subnormal or rounded to zero); so does ptxjit,
                // rather than give an infinity or a zero.
                let nonzero = || {
                    text.split(['e', 'E'])
                        .next()
                        .is_some_and(|m| m.bytes().any(|b| (b'1'..=b'9').contains(&b)))
                };
                match text.parse::<f64>() {
                    Ok(v) if v.is_infinite() => Tok::Error(format!(
                        "floating-point literal '{text}' overflows a double (the largest is \
                         about 1.8e308; write 0d7FF0000000000000 for an infinity)"
                    )),
                    Ok(v) if v.abs() < f64::MIN_POSITIVE && nonzero() => Tok::Error(format!(
                        "floating-point literal '{text}' is below the smallest normal double \
                         (about 2.2e-308; write a subnormal's bits as 0dXXXXXXXXXXXXXXXX)"
                    )),
                    Ok(v) => Tok::Float(v),
                    Err(_) => Tok::Error(format!("invalid floating-point literal '{text}'")),
                }
            };
            self.push(tok, start);
            return;
        }
        // Back up: the integer tail re-reads the digits with the right radix.
        self.pos = start;
        if b0 == b'0' && b1.is_ascii_digit() {
            self.integer_tail(start, start + 1, 8);
        } else {
            self.integer_tail(start, start, 10);
        }
    }

    /// Reads the digits of an integer from `digits_start` in `radix`, then an optional `U`.
    fn integer_tail(&mut self, start: usize, digits_start: usize, radix: u32) {
        self.pos = digits_start;
        self.skip_while(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$');
        let mut end = self.pos;
        // A trailing `U` is the unsigned suffix; in hex it must follow at least one digit.
        let min_len = if radix == 16 { 2 } else { 1 };
        let unsigned = end >= digits_start + min_len
            && self.at(end - 1) == b'U'
            && (radix != 16
                || self.bytes[digits_start..end - 1]
                    .iter()
                    .all(u8::is_ascii_hexdigit));
        if unsigned {
            end -= 1;
        }
        let digits = self.text.get(digits_start..end).unwrap_or("");
        let whole = self.text.get(start..self.pos).unwrap_or("");
        let base = match radix {
            16 => "hexadecimal",
            8 => "octal",
            2 => "binary",
            _ => "decimal",
        };
        let tok = if digits.is_empty() {
            Tok::Error(format!("{base} literal '{whole}' has no digits"))
        } else if !digits.bytes().all(|b| (b as char).is_digit(radix)) {
            Tok::Error(format!("invalid {base} integer literal '{whole}'"))
        } else {
            match u64::from_str_radix(digits, radix) {
                Ok(value) => Tok::Int { value, unsigned },
                Err(_) => Tok::Error(format!("integer literal '{whole}' does not fit in 64 bits")),
            }
        };
        self.push(tok, start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Tok> {
        tokenize(text).into_iter().map(|t| t.tok).collect()
    }

    fn texts(text: &str) -> Vec<&str> {
        tokenize(text)
            .iter()
            .map(|t| &text[t.span.start as usize..t.span.end as usize])
            .collect()
    }

    fn int(value: u64) -> Tok {
        Tok::Int {
            value,
            unsigned: false,
        }
    }

    #[test]
    fn identifiers_keep_sigils() {
        let src = "%r12 $L__BB0_2 __cudart_i2opi_f %tid _Z3fooPf a$b %1";
        assert_eq!(
            texts(src),
            vec![
                "%r12",
                "$L__BB0_2",
                "__cudart_i2opi_f",
                "%tid",
                "_Z3fooPf",
                "a$b",
                "%1",
                ""
            ]
        );
        assert!(kinds(src)[..7].iter().all(|t| *t == Tok::Ident));
    }

    #[test]
    fn lone_underscore_is_sink() {
        assert_eq!(kinds("_ _a"), vec![Tok::Underscore, Tok::Ident, Tok::Eof]);
    }

    #[test]
    fn dot_names_and_compound_modifiers() {
        let src = "ld.global.L1::evict_last.L2::128B.v4.u32 .L2::cache_hint .shared::cta .2d";
        assert_eq!(
            texts(src),
            vec![
                "ld",
                ".global",
                ".L1::evict_last",
                ".L2::128B",
                ".v4",
                ".u32",
                ".L2::cache_hint",
                ".shared::cta",
                ".2d",
                ""
            ]
        );
    }

    #[test]
    fn register_component() {
        assert_eq!(texts("%tid.x"), vec!["%tid", ".x", ""]);
    }

    #[test]
    fn integer_forms() {
        assert_eq!(kinds("0x1F")[0], int(31));
        assert_eq!(kinds("0X1f")[0], int(31));
        assert_eq!(kinds("017")[0], int(15));
        assert_eq!(kinds("0b101")[0], int(5));
        assert_eq!(kinds("0")[0], int(0));
        assert_eq!(kinds("42")[0], int(42));
        assert_eq!(
            kinds("1U")[0],
            Tok::Int {
                value: 1,
                unsigned: true
            }
        );
        assert_eq!(
            kinds("0xFFU")[0],
            Tok::Int {
                value: 255,
                unsigned: true
            }
        );
        assert_eq!(kinds("0xFFFFFFFFFFFFFFFF")[0], int(u64::MAX));
        assert_eq!(kinds("-1"), vec![Tok::Punct(b'-'), int(1), Tok::Eof]);
    }

    /// A sigil or a '.' that starts no name says what followed it: a file cut short after
    /// `cvta.to.global.` reads "found end of input", not a bare "unexpected character".
    #[test]
    fn a_sigil_or_dot_without_a_name_says_what_followed() {
        let msg = |text: &str| match tokenize(text).into_iter().find_map(|t| match t.tok {
            Tok::Error(m) => Some(m),
            _ => None,
        }) {
            Some(m) => m,
            None => panic!("{text:?} lexed without an error"),
        };
        assert_eq!(
            msg("cvta.to.global."),
            "'.' must be followed by a directive or modifier name, found end of input"
        );
        assert_eq!(
            msg("ld. u32"),
            "'.' must be followed by a directive or modifier name, found a space"
        );
        assert_eq!(
            msg("add.s32 %r1, %\n"),
            "'%' must be followed by identifier characters, found a line break"
        );
        assert_eq!(
            msg("bra $;"),
            "'$' must be followed by identifier characters, found ';'"
        );
        assert_eq!(
            msg("mov.u32 %r1, %"),
            "'%' must be followed by identifier characters, found end of input"
        );
    }

    #[test]
    fn integer_errors() {
        for bad in [
            "018",
            "0b102",
            "0x",
            "12ab",
            "0x1FFFFFFFFFFFFFFFF",
            "99999999999999999999",
        ] {
            assert!(
                matches!(kinds(bad)[0], Tok::Error(_)),
                "{bad} should be an error: {:?}",
                kinds(bad)
            );
            assert_eq!(kinds(bad).len(), 2, "{bad} is one token");
        }
    }

    #[test]
    fn float_forms() {
        assert_eq!(kinds("1.5")[0], Tok::Float(1.5));
        assert_eq!(kinds("1e-3")[0], Tok::Float(1e-3));
        assert_eq!(kinds("1.0E+2")[0], Tok::Float(100.0));
        assert_eq!(kinds("0f3F800000")[0], Tok::F32Bits(0x3F80_0000));
        assert_eq!(kinds("0F3f800000")[0], Tok::F32Bits(0x3F80_0000));
        assert_eq!(
            kinds("0d3FF0000000000000")[0],
            Tok::F64Bits(0x3FF0_0000_0000_0000)
        );
        assert!(matches!(kinds("0f3F80000")[0], Tok::Error(_)));
        assert!(matches!(kinds("0f3F8000000")[0], Tok::Error(_)));
        assert!(matches!(kinds("0d3FF00000000000")[0], Tok::Error(_)));
        assert!(matches!(kinds("0f3G800000")[0], Tok::Error(_)));
        assert!(matches!(kinds("1.5x")[0], Tok::Error(_)));
    }

    #[test]
    fn strings_and_comments() {
        let src = "\"a\\\"b\" // line\n /* block\n */ ; \"unterminated";
        let k = kinds(src);
        assert_eq!(k[0], Tok::Str("a\"b".into()));
        assert_eq!(k[1], Tok::Punct(b';'));
        assert!(matches!(k[2], Tok::Error(_)));
        assert!(matches!(kinds("/* open")[0], Tok::Error(_)));
    }

    #[test]
    fn punctuation() {
        let src = ", ; : { } [ ] ( ) < > + - ! @ | =";
        let k = kinds(src);
        assert_eq!(k.len(), 18);
        assert!(k[..17].iter().all(|t| matches!(t, Tok::Punct(_))));
    }

    #[test]
    fn bad_characters_are_error_tokens_with_char_spans() {
        let toks = tokenize("a # é");
        assert!(matches!(toks[1].tok, Tok::Error(_)));
        assert_eq!(toks[1].span, Span::new(2, 3));
        assert!(matches!(toks[2].tok, Tok::Error(_)));
        assert_eq!(toks[2].span, Span::new(4, 6));
        assert_eq!(toks[3].tok, Tok::Eof);
        assert!(matches!(kinds("%")[0], Tok::Error(_)));
        assert!(matches!(kinds("$ x")[0], Tok::Error(_)));
    }
}
