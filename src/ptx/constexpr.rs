//! Constant expressions (PTX ISA 4.6, "Constant Expressions"): C-like expressions over
//! integer and floating-point literals, folded at parse time to one [`Literal`] wherever an
//! instruction takes an immediate operand and in variable initializers:
//! `mov.u32 %r1, (1<<4) | 3;`, `.global .u64 g = 2*3;`.
//!
//! The rules are the ISA's (4.6.2, 4.6.3), which simplify C's to 64-bit integers and doubles
//! and define every case, with the restrictions `ptxas` (CUDA 12.9) enforces where the ISA
//! text is loose:
//! - An integer literal is signed (`.s64`) unless it has the `U` suffix or does not fit in
//!   `.s64` (`0xfabc123400000000`). A decimal floating-point literal (`1.5`) is a double;
//!   the bit-pattern literals (`0f3F800000`, `0d…`) stand only on their own, never inside an
//!   expression (`ptxas`: a syntax error).
//! - Unary `+`/`-` keep the operand's type; `!` gives a signed 0 or 1; `~` reads its operand
//!   as unsigned and gives an unsigned result; `(.s64)`/`(.u64)` reinterpret.
//! - `* / + -` take two integers (the usual conversions: unsigned if either is, and the
//!   result of that type) or two doubles; an integer with a double is an error ("type
//!   mismatch", as `ptxas` says). Comparisons take the same and give a signed 0 or 1.
//! - `% & | ^ << >> && || ! ~`, the casts and `?:` take integers only. `%` reads both
//!   operands as unsigned; `& | ^` apply the usual conversions; `<<`/`>>` read the count as
//!   unsigned and give the left operand's type (`>>` of a signed value is arithmetic; a count
//!   of 64 or more shifts every bit out); `==`, `!=`, `&&`, `||` give a signed 0 or 1;
//!   `c ? a : b` the usual conversions of `a` and `b`.
//! - Integer arithmetic wraps modulo 2^64; a division or remainder by zero (also of
//!   doubles) is an error.
//!
//! Precedence, highest first (ISA Table "Operator Precedence"): unary `+ - ! ~` and casts;
//! `* / %`; `+ -`; `<< >>`; `< > <= >=`; `== !=`; `&`; `^`; `|`; `&&`; `||`; `?:`. Binary
//! operators associate to the left, `?:` to the right. `&&`, `||` and `?:` evaluate every
//! operand (they have no side effects), but a division by zero in the branch `?:` does not
//! take is still an error.
//!
//! A single literal, with or without a sign, stays the literal it was (`0f3F800000` keeps
//! its f32 bits); any other expression becomes [`Literal::Int`] (its `unsigned` flag the
//! result's type) or [`Literal::Float`].

use super::Parser;
use crate::ptx::ast::Literal;
use crate::ptx::error::ParseError;
use crate::ptx::lexer::Tok;
use crate::ptx::span::Span;

type Result<T> = std::result::Result<T, ParseError>;

/// The value of a constant (sub)expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum CVal {
    /// A 64-bit integer: its bits and whether its type is `.u64` (else `.s64`).
    Int { bits: u64, unsigned: bool },
    /// A double.
    Float(f64),
}

impl CVal {
    fn signed(v: i64) -> CVal {
        CVal::Int {
            bits: v as u64,
            unsigned: false,
        }
    }

    fn truth(b: bool) -> CVal {
        CVal::signed(i64::from(b))
    }

    fn literal(self) -> Literal {
        match self {
            CVal::Int { bits, unsigned } => Literal::Int {
                value: bits as i64,
                unsigned,
            },
            CVal::Float(f) => Literal::Float(f),
        }
    }
}

/// A unary operator: `+ - ! ~`, or a cast to `.s64`/`.u64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unary {
    Plus,
    Minus,
    Not,
    Complement,
    ToS64,
    ToU64,
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Binary {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    And,
    Xor,
    Or,
    LogAnd,
    LogOr,
}

impl Binary {
    /// Binding strength: higher binds tighter.
    fn precedence(self) -> u8 {
        match self {
            Binary::Mul | Binary::Div | Binary::Rem => 10,
            Binary::Add | Binary::Sub => 9,
            Binary::Shl | Binary::Shr => 8,
            Binary::Lt | Binary::Gt | Binary::Le | Binary::Ge => 7,
            Binary::Eq | Binary::Ne => 6,
            Binary::And => 5,
            Binary::Xor => 4,
            Binary::Or => 3,
            Binary::LogAnd => 2,
            Binary::LogOr => 1,
        }
    }

    fn text(self) -> &'static str {
        match self {
            Binary::Mul => "*",
            Binary::Div => "/",
            Binary::Rem => "%",
            Binary::Add => "+",
            Binary::Sub => "-",
            Binary::Shl => "<<",
            Binary::Shr => ">>",
            Binary::Lt => "<",
            Binary::Gt => ">",
            Binary::Le => "<=",
            Binary::Ge => ">=",
            Binary::Eq => "==",
            Binary::Ne => "!=",
            Binary::And => "&",
            Binary::Xor => "^",
            Binary::Or => "|",
            Binary::LogAnd => "&&",
            Binary::LogOr => "||",
        }
    }
}

/// Apply a unary operator. Errors: `!`, `~` or a cast of a double.
pub(super) fn unary(op: Unary, v: CVal) -> std::result::Result<CVal, String> {
    Ok(match (op, v) {
        (Unary::Plus, v) => v,
        (Unary::Minus, CVal::Int { bits, unsigned }) => CVal::Int {
            bits: bits.wrapping_neg(),
            unsigned,
        },
        (Unary::Minus, CVal::Float(f)) => CVal::Float(-f),
        (Unary::Not, CVal::Int { bits, .. }) => CVal::truth(bits == 0),
        (Unary::Complement, CVal::Int { bits, .. }) => CVal::Int {
            bits: !bits,
            unsigned: true,
        },
        (Unary::ToS64, CVal::Int { bits, .. }) => CVal::Int {
            bits,
            unsigned: false,
        },
        (Unary::ToU64, CVal::Int { bits, .. }) => CVal::Int {
            bits,
            unsigned: true,
        },
        (Unary::Not | Unary::Complement | Unary::ToS64 | Unary::ToU64, CVal::Float(_)) => {
            let what = match op {
                Unary::Not => "'!'",
                Unary::Complement => "'~'",
                _ => "a cast",
            };
            return Err(format!(
                "{what} needs an integer operand, not a floating-point one"
            ));
        }
    })
}

/// The usual arithmetic conversions of two integers: unsigned if either is.
fn ints(a: CVal, b: CVal) -> Option<(u64, u64, bool)> {
    match (a, b) {
        (
            CVal::Int {
                bits: x,
                unsigned: ux,
            },
            CVal::Int {
                bits: y,
                unsigned: uy,
            },
        ) => Some((x, y, ux || uy)),
        _ => None,
    }
}

/// Two doubles, or the error for a double with an integer (`None`: two integers).
fn floats(a: CVal, b: CVal, op: Binary) -> std::result::Result<Option<(f64, f64)>, String> {
    match (a, b) {
        (CVal::Float(x), CVal::Float(y)) => Ok(Some((x, y))),
        (CVal::Int { .. }, CVal::Int { .. }) => Ok(None),
        _ => Err(format!(
            "type mismatch: '{}' between an integer and a floating-point operand",
            op.text()
        )),
    }
}

/// Apply a binary operator. Errors: a division or remainder by zero; an integer with a
/// double; a double where only integers go.
pub(super) fn binary(op: Binary, a: CVal, b: CVal) -> std::result::Result<CVal, String> {
    let int_only = || {
        format!(
            "'{}' needs integer operands, not floating-point ones",
            op.text()
        )
    };
    let int = |bits: u64, unsigned: bool| CVal::Int { bits, unsigned };
    Ok(match op {
        Binary::LogAnd | Binary::LogOr => {
            let (x, y, _) = ints(a, b).ok_or_else(int_only)?;
            CVal::truth(if op == Binary::LogAnd {
                x != 0 && y != 0
            } else {
                x != 0 || y != 0
            })
        }
        Binary::Rem => {
            let (CVal::Int { bits: x, .. }, CVal::Int { bits: y, .. }) = (a, b) else {
                return Err(int_only());
            };
            if y == 0 {
                return Err("remainder by zero in a constant expression".into());
            }
            int(x % y, true)
        }
        Binary::Shl | Binary::Shr => {
            let (
                CVal::Int {
                    bits: x,
                    unsigned: ux,
                },
                CVal::Int { bits: n, .. },
            ) = (a, b)
            else {
                return Err(int_only());
            };
            let r = match (op, ux) {
                (Binary::Shl, _) if n >= 64 => 0,
                (Binary::Shl, _) => x << n,
                (_, true) if n >= 64 => 0,
                (_, true) => x >> n,
                (_, false) => ((x as i64) >> n.min(63)) as u64,
            };
            int(r, ux)
        }
        Binary::And | Binary::Xor | Binary::Or => {
            let (x, y, u) = ints(a, b).ok_or_else(int_only)?;
            let r = match op {
                Binary::And => x & y,
                Binary::Xor => x ^ y,
                _ => x | y,
            };
            int(r, u)
        }
        Binary::Mul | Binary::Div | Binary::Add | Binary::Sub => match floats(a, b, op)? {
            Some((x, y)) => CVal::Float(match op {
                Binary::Mul => x * y,
                Binary::Add => x + y,
                Binary::Sub => x - y,
                _ if y == 0.0 => return Err("division by zero in a constant expression".into()),
                _ => x / y,
            }),
            None => {
                let (x, y, u) = ints(a, b).ok_or_else(int_only)?;
                let r = match op {
                    Binary::Mul => x.wrapping_mul(y),
                    Binary::Add => x.wrapping_add(y),
                    Binary::Sub => x.wrapping_sub(y),
                    _ if y == 0 => {
                        return Err("division by zero in a constant expression".into());
                    }
                    _ if u => x / y,
                    // i64::MIN / -1 wraps to i64::MIN.
                    _ => (x as i64).wrapping_div(y as i64) as u64,
                };
                int(r, u)
            }
        },
        Binary::Lt | Binary::Gt | Binary::Le | Binary::Ge | Binary::Eq | Binary::Ne => {
            let ord = match (floats(a, b, op)?, ints(a, b)) {
                (Some((x, y)), _) => x.partial_cmp(&y),
                (None, Some((x, y, true))) => x.partial_cmp(&y),
                (None, Some((x, y, false))) => (x as i64).partial_cmp(&(y as i64)),
                (None, None) => return Err(int_only()),
            };
            use std::cmp::Ordering::{Equal, Greater, Less};
            CVal::truth(match op {
                Binary::Lt => ord == Some(Less),
                Binary::Gt => ord == Some(Greater),
                Binary::Le => matches!(ord, Some(Less | Equal)),
                Binary::Ge => matches!(ord, Some(Greater | Equal)),
                Binary::Eq => ord == Some(Equal),
                _ => ord != Some(Equal),
            })
        }
    })
}

/// `c ? a : b`. Errors: a floating-point operand.
pub(super) fn conditional(c: CVal, a: CVal, b: CVal) -> std::result::Result<CVal, String> {
    let (CVal::Int { bits: c, .. }, Some((x, y, u))) = (c, ints(a, b)) else {
        return Err("'?:' needs integer operands, not floating-point ones".into());
    };
    Ok(CVal::Int {
        bits: if c != 0 { x } else { y },
        unsigned: u,
    })
}

/// Whether `t` is a numeric literal token.
fn is_literal(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Int { .. } | Tok::Float(_) | Tok::F32Bits(_) | Tok::F64Bits(_)
    )
}

impl Parser<'_> {
    /// Whether the tokens from the current one (a `(`) to its matching `)` can only be a
    /// constant expression: literals, operators, parentheses and casts, no name and no `,`.
    pub(super) fn parenthesized_constant(&self) -> bool {
        let mut depth = 0usize;
        for n in 0.. {
            let t = self.peek_at(n);
            match &t.tok {
                Tok::Punct(b'(') => depth += 1,
                Tok::Punct(b')') => {
                    depth -= 1;
                    if depth == 0 {
                        return n > 1;
                    }
                }
                Tok::Punct(c) if b"+-*/%<>=!~&|^?:".contains(c) => {}
                t if is_literal(t) => {}
                Tok::Dot if matches!(self.dot_name(t), Some("s64" | "u64")) => {}
                _ => return false,
            }
        }
        false
    }

    /// Whether the current token starts a constant expression in an operand or initializer
    /// (a literal, a sign or `~` before anything but a name, `!` before a literal or `(`, or
    /// a `(` that [`parenthesized_constant`](Self::parenthesized_constant) accepts).
    pub(super) fn starts_constant(&self) -> bool {
        match &self.peek().tok {
            t if is_literal(t) => true,
            Tok::Punct(b'-' | b'+' | b'~') => self.peek_at(1).tok != Tok::Ident,
            Tok::Punct(b'!') => {
                is_literal(&self.peek_at(1).tok) || self.peek_at(1).tok == Tok::Punct(b'(')
            }
            Tok::Punct(b'(') => self.parenthesized_constant(),
            _ => false,
        }
    }

    /// A constant expression, folded: its value as a literal, its span, and whether it was a
    /// single literal (with an optional sign). `what` says where, for errors.
    pub(super) fn const_expr(&mut self, what: &str) -> Result<(Literal, Span, bool)> {
        let start = self.peek().span;
        if let Some((lit, span)) = self.plain_literal()? {
            return Ok((lit, span, true));
        }
        let v = self.conditional_expr(what, 0)?;
        Ok((v.literal(), start.join(self.prev_span()), false))
    }

    /// A literal with an optional sign that is not followed by an operator: kept as written.
    fn plain_literal(&mut self) -> Result<Option<(Literal, Span)>> {
        let n = usize::from(self.is_punct(b'-'));
        if !is_literal(&self.peek_at(n).tok)
            || self.binary_at(n + 1).is_some()
            || self.peek_at(n + 1).tok == Tok::Punct(b'?')
        {
            return Ok(None);
        }
        // A sign and a literal, or a literal: `literal` takes exactly these.
        self.literal("in a constant expression")
    }

    /// The binary operator whose first token is `n` tokens ahead, and how many tokens it
    /// has (`<<` is two `<` tokens side by side).
    fn binary_at(&self, n: usize) -> Option<(Binary, usize)> {
        let t = self.peek_at(n);
        let next = self.peek_at(n + 1);
        let joined = |c: u8| next.tok == Tok::Punct(c) && next.span.start == t.span.end;
        let Tok::Punct(c) = t.tok else {
            return None;
        };
        Some(match c {
            b'*' => (Binary::Mul, 1),
            b'/' => (Binary::Div, 1),
            b'%' => (Binary::Rem, 1),
            b'+' => (Binary::Add, 1),
            b'-' => (Binary::Sub, 1),
            b'<' if joined(b'<') => (Binary::Shl, 2),
            b'>' if joined(b'>') => (Binary::Shr, 2),
            b'<' if joined(b'=') => (Binary::Le, 2),
            b'>' if joined(b'=') => (Binary::Ge, 2),
            b'<' => (Binary::Lt, 1),
            b'>' => (Binary::Gt, 1),
            b'=' if joined(b'=') => (Binary::Eq, 2),
            b'!' if joined(b'=') => (Binary::Ne, 2),
            b'&' if joined(b'&') => (Binary::LogAnd, 2),
            b'|' if joined(b'|') => (Binary::LogOr, 2),
            b'&' => (Binary::And, 1),
            b'^' => (Binary::Xor, 1),
            b'|' => (Binary::Or, 1),
            _ => return None,
        })
    }

    /// One term of an address or symbol offset (`[%rd1+4*2]`, `arr+(1<<3)`): an integer
    /// expression of multiplicative level, so that `+4-2` is two terms.
    pub(super) fn offset_term(&mut self, what: &str) -> Result<i64> {
        let start = self.peek().span;
        match self.binary_expr(what, Binary::Mul.precedence(), 0)? {
            CVal::Int { bits, .. } => Ok(bits as i64),
            CVal::Float(_) => Err(ParseError::new(
                format!("an offset must be an integer {what}"),
                start.join(self.prev_span()),
            )),
        }
    }

    /// `binary ('?' conditional ':' conditional)?`.
    fn conditional_expr(&mut self, what: &str, depth: usize) -> Result<CVal> {
        let start = self.peek().span;
        let c = self.binary_expr(what, 1, depth + 1)?;
        if self.eat_punct(b'?').is_none() {
            return Ok(c);
        }
        let a = self.conditional_expr(what, depth + 1)?;
        self.expect_punct(b':', &format!("in '?:' {what}"))?;
        let b = self.conditional_expr(what, depth + 1)?;
        conditional(c, a, b).map_err(|m| ParseError::new(m, start.join(self.prev_span())))
    }

    /// Operators of at least precedence `min`, by precedence climbing.
    fn binary_expr(&mut self, what: &str, min: u8, depth: usize) -> Result<CVal> {
        let start = self.peek().span;
        let mut lhs = self.unary_expr(what, depth + 1)?;
        while let Some((op, len)) = self.binary_at(0).filter(|(op, _)| op.precedence() >= min) {
            for _ in 0..len {
                self.bump();
            }
            let rhs = self.binary_expr(what, op.precedence() + 1, depth + 1)?;
            lhs = binary(op, lhs, rhs)
                .map_err(|m| ParseError::new(m, start.join(self.prev_span())))?;
        }
        Ok(lhs)
    }

    /// Unary operators and casts, then a literal or a parenthesized expression.
    fn unary_expr(&mut self, what: &str, depth: usize) -> Result<CVal> {
        if depth >= super::MAX_DEPTH {
            return Err(ParseError::new(
                format!(
                    "constant expression nested deeper than {} levels {what}",
                    super::MAX_DEPTH
                ),
                self.peek().span,
            ));
        }
        let t = self.peek().clone();
        let op = match t.tok {
            Tok::Punct(b'+') => Some(Unary::Plus),
            Tok::Punct(b'-') => Some(Unary::Minus),
            Tok::Punct(b'!') => Some(Unary::Not),
            Tok::Punct(b'~') => Some(Unary::Complement),
            Tok::Punct(b'(') => match self.dot_name(self.peek_at(1)) {
                Some("s64") if self.peek_at(2).tok == Tok::Punct(b')') => Some(Unary::ToS64),
                Some("u64") if self.peek_at(2).tok == Tok::Punct(b')') => Some(Unary::ToU64),
                _ => None,
            },
            _ => None,
        };
        if let Some(op) = op {
            let cast = matches!(op, Unary::ToS64 | Unary::ToU64);
            for _ in 0..if cast { 3 } else { 1 } {
                self.bump();
            }
            let v = self.unary_expr(what, depth + 1)?;
            return unary(op, v).map_err(|m| ParseError::new(m, t.span.join(self.prev_span())));
        }
        if self.eat_punct(b'(').is_some() {
            let v = self.conditional_expr(what, depth + 1)?;
            self.expect_punct(b')', &format!("in a constant expression {what}"))?;
            return Ok(v);
        }
        let v = match t.tok {
            Tok::Int { value, unsigned } => CVal::Int {
                bits: value,
                // A literal that does not fit in .s64 is unsigned (ISA 4.6.2).
                unsigned: unsigned || value > i64::MAX as u64,
            },
            Tok::Float(f) => CVal::Float(f),
            Tok::F32Bits(_) | Tok::F64Bits(_) => {
                return Err(ParseError::new(
                    format!(
                        "a bit-pattern literal ({}) stands only on its own, not in a constant \
                         expression {what}",
                        self.slice(t.span)
                    ),
                    t.span,
                ))
            }
            _ => {
                return Err(
                    self.unexpected(&format!("a number or '(' in a constant expression {what}"))
                )
            }
        };
        self.bump();
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: i64) -> CVal {
        CVal::signed(v)
    }

    fn u(v: u64) -> CVal {
        CVal::Int {
            bits: v,
            unsigned: true,
        }
    }

    /// The ISA's typing rules (4.6.2), one case each.
    #[test]
    fn typing_follows_the_isa() {
        // Usual conversions: unsigned if either operand is.
        assert_eq!(binary(Binary::Add, s(-1), u(1)), Ok(u(0)));
        assert_eq!(binary(Binary::Div, s(-7), s(2)), Ok(s(-3)));
        assert_eq!(binary(Binary::Div, s(-7), u(2)), Ok(u((-7i64 as u64) / 2)));
        // % reads both operands as unsigned.
        assert_eq!(binary(Binary::Rem, s(-1), s(10)), Ok(u(u64::MAX % 10)));
        // Shifts: the left operand's type; >> of a signed value is arithmetic.
        assert_eq!(binary(Binary::Shr, s(-16), u(2)), Ok(s(-4)));
        assert_eq!(binary(Binary::Shr, u(1 << 63), s(63)), Ok(u(1)));
        assert_eq!(binary(Binary::Shl, s(1), s(70)), Ok(s(0)));
        assert_eq!(binary(Binary::Shr, s(-1), s(70)), Ok(s(-1)));
        // ~ gives unsigned; ! and the comparisons signed 0/1.
        assert_eq!(unary(Unary::Complement, s(0)), Ok(u(u64::MAX)));
        assert_eq!(unary(Unary::Not, s(5)), Ok(s(0)));
        assert_eq!(binary(Binary::Lt, s(-1), s(0)), Ok(s(1)));
        assert_eq!(
            binary(Binary::Lt, s(-1), u(0)),
            Ok(s(0)),
            "-1 converted to unsigned"
        );
        assert_eq!(binary(Binary::LogOr, s(0), s(2)), Ok(s(1)));
        assert_eq!(binary(Binary::LogAnd, s(3), u(0)), Ok(s(0)));
        // Doubles: arithmetic and comparisons with doubles only; the integer operators refuse.
        let f = CVal::Float;
        assert_eq!(binary(Binary::Mul, f(3.0), f(0.5)), Ok(f(1.5)));
        assert_eq!(binary(Binary::Lt, f(1.5), f(2.5)), Ok(s(1)));
        assert!(binary(Binary::Mul, s(3), f(0.5)).is_err(), "type mismatch");
        assert!(binary(Binary::Lt, f(1.5), s(2)).is_err(), "type mismatch");
        assert!(binary(Binary::Div, f(1.5), f(0.0)).is_err());
        assert!(binary(Binary::And, s(3), f(1.0)).is_err());
        assert!(binary(Binary::LogAnd, f(1.0), f(2.0)).is_err());
        assert!(unary(Unary::Complement, f(1.0)).is_err());
        assert!(unary(Unary::Not, f(1.5)).is_err());
        assert!(unary(Unary::ToS64, f(1.5)).is_err());
        assert_eq!(unary(Unary::Minus, f(1.5)), Ok(f(-1.5)));
        // Casts reinterpret.
        assert_eq!(unary(Unary::ToS64, u(u64::MAX)), Ok(s(-1)));
        assert_eq!(unary(Unary::ToU64, s(-1)), Ok(u(u64::MAX)));
        // Division by zero is an error; wrapping arithmetic otherwise.
        assert!(binary(Binary::Div, s(1), s(0)).is_err());
        assert!(binary(Binary::Rem, s(1), u(0)).is_err());
        assert_eq!(binary(Binary::Div, s(i64::MIN), s(-1)), Ok(s(i64::MIN)));
        assert_eq!(binary(Binary::Mul, u(1 << 63), s(2)), Ok(u(0)));
        // ?:
        assert_eq!(conditional(s(0), s(1), u(2)), Ok(u(2)));
        assert_eq!(conditional(s(3), s(1), s(2)), Ok(s(1)));
        assert!(conditional(s(1), f(1.0), f(2.0)).is_err());
        assert!(conditional(f(1.0), s(1), s(2)).is_err());
    }
}
