//! The PTX abstract syntax tree: what the parser produces, with a [`Span`] on every construct.
//!
//! The tree is deliberately close to the text. Instructions are kept in a generic shape
//! (opcode, dot-modifiers, operands); decoding modifiers into typed operations is the job of
//! the lowering to IR, which reports "unsupported instruction" with the instruction's span.
//! This keeps the parser total over the ISA's syntax: any well-formed PTX statement parses,
//! whether or not the rest of the pipeline supports it (PTX ISA §4 "Syntax", §5 "State Spaces,
//! Types, and Variables", §9 "Instruction Set" for the statement grammar).

use super::span::Span;

/// A name with its location. PTX identifiers (`%r1`, `$L__BB0_2`, `_Z3fooPf`, `%tid`) keep
/// their sigils.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole PTX module (one `.ptx` file).
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// `.version MAJOR.MINOR`, the module's first directive (PTX ISA §11.1.2).
    pub version: super::target::Version,
    /// `.target` list, e.g. `["sm_80"]` or `["sm_52", "texmode_independent"]`; never empty
    /// (PTX ISA §11.1.3: it follows `.version`).
    pub target: Vec<String>,
    /// `.address_size 32|64`; PTX's default is 32 when absent, compilers always emit 64.
    pub address_size: Option<u32>,
    /// `.file` directives: (index, file name).
    pub files: Vec<(u32, String)>,
    /// Functions, kernels and module-scope variables in source order.
    pub items: Vec<Item>,
}

/// A module-scope item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Function(Function),
    Var(VarDecl),
}

/// Linkage of a module-scope symbol (PTX ISA §11.6 "Linking Directives").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Linkage {
    #[default]
    None,
    Visible,
    Extern,
    Weak,
    Common,
}

/// `.entry` (a kernel) or `.func` (a device function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

/// A kernel or device function (PTX ISA §11.3 "Kernel and Function Directives").
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub linkage: Linkage,
    pub kind: FunctionKind,
    pub name: Ident,
    /// `.func (.param .b32 retval) name(...)`: the return parameters.
    pub returns: Vec<Param>,
    pub params: Vec<Param>,
    /// Performance-tuning directives (`.maxntid 256,1,1`, `.reqntid`, `.minnctapersm`,
    /// `.maxnreg`, `.noreturn`, `.pragma` …) as name and integer arguments.
    pub directives: Vec<Directive>,
    /// `None` for a prototype (`.extern .func foo(...);`).
    pub body: Option<Vec<Statement>>,
    pub span: Span,
}

/// A directive with integer arguments, e.g. `.maxntid 256, 1, 1` → name `maxntid`, args
/// `[256, 1, 1]`. `.pragma "nounroll"` has its string in `text`.
///
/// In a body, `L: .branchtargets $L0, $L1;` and `F: .calltargets f, g;` are a
/// [`Statement::Label`] followed by a directive whose `names` lists the targets;
/// `P: .callprototype (.param .b32 _) _ (.param .b64 _);` keeps its signature as raw text in
/// `text` (PTX ISA §11.3.3–§11.3.5, used by `brx.idx` and indirect `call`).
#[derive(Clone, Debug, PartialEq)]
pub struct Directive {
    pub name: String,
    pub args: Vec<u64>,
    pub text: Option<String>,
    /// Symbol arguments (`.branchtargets`, `.calltargets`); empty for other directives.
    pub names: Vec<Ident>,
    pub span: Span,
}

/// State spaces (PTX ISA §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    Tex,
    Generic,
}

/// Fundamental and opaque types (PTX ISA §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
    /// `.texref`, `.samplerref`, `.surfref` (opaque handles).
    TexRef,
    SamplerRef,
    SurfRef,
}

impl ScalarType {
    /// The type named by a dot-suffix without the dot (`"u32"` → `U32`).
    pub fn from_suffix(s: &str) -> Option<ScalarType> {
        use ScalarType::*;
        Some(match s {
            "pred" => Pred,
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            "b128" => B128,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "f16" => F16,
            "f16x2" => F16x2,
            "bf16" => Bf16,
            "bf16x2" => Bf16x2,
            "f32" => F32,
            "f64" => F64,
            "texref" => TexRef,
            "samplerref" => SamplerRef,
            "surfref" => SurfRef,
            _ => return None,
        })
    }

    /// Size in bytes (predicates count as 1; opaque handles as 8).
    pub fn size(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred | B8 | U8 | S8 => 1,
            B16 | U16 | S16 | F16 | Bf16 => 2,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 => 4,
            B64 | U64 | S64 | F64 | TexRef | SamplerRef | SurfRef => 8,
            B128 => 16,
        }
    }
}

/// A kernel or function parameter (PTX ISA §5.1.6 "Parameter State Space").
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// `Param` for `.param`, `Reg` for `.reg` parameters of `.func`.
    pub space: StateSpace,
    pub ty: ScalarType,
    /// `.v2`/`.v4` element count, if a vector.
    pub vector: Option<u32>,
    pub align: Option<u32>,
    /// `.ptr` attributes: `.ptr.global.align 16` → `Some(PtrAttr{ space: Some(Global), align: Some(16) })`.
    pub ptr: Option<PtrAttr>,
    pub name: Ident,
    /// Array dimensions (`.param .b8 p[16]` → `[Some(16)]`; `[]` → `None`).
    pub array: Vec<Option<u64>>,
    pub span: Span,
}

/// The `.ptr` attribute of a kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    pub space: Option<StateSpace>,
    pub align: Option<u32>,
}

/// A variable declaration, at module scope or inside a function body (PTX ISA §5.4
/// "Variables"), including register declarations: `.reg .b32 %r<5>;` has `count = Some(5)` and
/// declares `%r0` … `%r4`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub linkage: Linkage,
    pub space: StateSpace,
    pub align: Option<u32>,
    pub ty: ScalarType,
    pub vector: Option<u32>,
    /// `.attribute(.managed)` (CUDA's `__managed__`): managed memory, which prefetching and
    /// memory advice accept.
    pub managed: bool,
    pub name: Ident,
    /// Parameterized register count `<N>`.
    pub count: Option<u32>,
    /// Array dimensions; `None` for `[]` (size from the initializer, or `extern .shared` dynamic).
    pub array: Vec<Option<u64>>,
    pub init: Option<Initializer>,
    pub span: Span,
}

/// A variable initializer (PTX ISA §5.4.4).
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Literal(Literal),
    /// A symbol's address, optionally `generic(sym)` and `sym+off`.
    Symbol {
        name: Ident,
        generic: bool,
        offset: i64,
    },
    /// `0xFF00(sym+4)`: the `mask()` operator (PTX ISA §5.4.4, PTX ISA 7.1+): the bits of
    /// the inner value that `mask` selects, moved down to bit 0. `mask` is one byte at a byte
    /// boundary (`0xFF`, `0xFF00`, … `0xFF00000000000000`); the lowering checks it. The inner
    /// value is a literal or a symbol's address.
    Mask {
        mask: u64,
        inner: Box<Initializer>,
        span: Span,
    },
    /// `{ a, b, c }`, possibly nested for multi-dimensional arrays.
    List(Vec<Initializer>, Span),
    /// `{ name = value, ... }`: the fields of a `.samplerref`/`.texref` initializer (PTX ISA
    /// §5.3 "Texture Sampler and Surface Types"); values are identifiers or literals.
    Fields(Vec<(Ident, Initializer)>, Span),
}

/// A numeric literal (PTX ISA §4.5 "Constants").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    /// An integer: decimal, `0x` hex, `0` octal, `0b` binary; `U` suffix allowed. Negative values
    /// are stored two's-complement; `unsigned` records the `U` suffix.
    Int { value: i64, unsigned: bool },
    /// A decimal floating-point literal such as `1.5` or `1e-3` (always double precision).
    Float(f64),
    /// `0fXXXXXXXX`: exact f32 bits.
    F32Bits(u32),
    /// `0dXXXXXXXXXXXXXXXX`: exact f64 bits.
    F64Bits(u64),
}

/// A statement in a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// `.reg`, `.local`, `.shared`, `.param` … declarations inside the body.
    Decl(VarDecl),
    /// `NAME:`
    Label(Ident),
    Instruction(Instruction),
    /// A `{ ... }` block: a nested scope for declarations.
    Block(Vec<Statement>, Span),
    /// `.loc FILE LINE COL` (debug line info; later instructions carry it for error messages).
    Loc {
        file: u32,
        line: u32,
        col: u32,
        /// `, inlined_at FILE LINE COL`: where the function this code was inlined from was
        /// called (one level; the call's own `.loc` carries the next).
        inlined_at: Option<(u32, u32, u32)>,
        span: Span,
    },
    /// `.pragma "..."` and other directives inside a body that have no effect here.
    Directive(Directive),
}

/// An instruction in generic form. `@!%p1 ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd2+16];`
/// has guard `Some(Guard{ negated: true, pred: %p1 })`, opcode `ld`, modifiers
/// `["global", "nc", "v4", "f32"]` and two operands.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub guard: Option<Guard>,
    pub opcode: Ident,
    /// Dot-modifiers in order, without the dot. Compound ones keep their inner punctuation
    /// (`L1::evict_last`, `L2::128B`) as single modifiers.
    pub modifiers: Vec<Modifier>,
    pub operands: Vec<Operand>,
    pub span: Span,
}

/// One dot-modifier of an instruction, e.g. `nc` in `ld.global.nc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Modifier {
    pub text: String,
    pub span: Span,
}

/// `@%p` / `@!%p` (PTX ISA §9.3 "Predicated Execution").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    pub negated: bool,
    pub pred: Ident,
}

/// An instruction operand (PTX ISA §6 "Instruction Operands").
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register or special register, with an optional vector component: `%r1`, `%tid.x`
    /// (component `Some('x')`).
    Reg {
        name: Ident,
        component: Option<char>,
    },
    /// `!%p` — a negated predicate source (setp/selp/bool ops).
    Not(Box<Operand>, Span),
    /// `-%r1`, `-%r1.b0` — a negated register source: PTX allows it only in `vmad` (PTX ISA
    /// §9.7.18.1.3). A negative literal is an [`Operand::Imm`] instead.
    Neg(Box<Operand>, Span),
    /// An immediate: an integer or float literal (negative values included).
    Imm(Literal, Span),
    /// A symbol (variable, function or label name) with an optional byte offset: `smem`,
    /// `$L__BB0_3`, `gvar+8`.
    Symbol { name: Ident, offset: i64 },
    /// `a[i]` — element `i` of array variable `a` as a memory operand (PTX ISA §6.4.2 "Arrays as
    /// Operands"); the byte offset is `i` times the element size.
    Indexed { name: Ident, index: i64, span: Span },
    /// `[base]`, `[base+off]`, `[base-off]`, `[imm]`: base is a register or symbol name.
    Address {
        base: Option<Ident>,
        offset: i64,
        span: Span,
    },
    /// `{%r1, %r2, _}` vector operand.
    Vector(Vec<Operand>, Span),
    /// `%p|%q` — the two destinations of `setp` and `shfl`.
    PredPair(Ident, Ident),
    /// `{%f1, %f2, %f3, %f4}|%p` — a vector destination with a predicate: `tex`/`tld4` with
    /// the residency predicate (PTX ISA §9.7.10.3).
    VecPred(Vec<Operand>, Ident, Span),
    /// `_` sink.
    Sink(Span),
    /// `(a, b, c)` — call argument and return lists.
    List(Vec<Operand>, Span),
    /// `[tex, {%f1, %f2}]`, `[tex, smp, {%f1, %f2}]`, `[surf, {%r1}]`: the bracketed operand
    /// list of texture and surface instructions (PTX ISA §9.7.9). The first element is the
    /// texture/surface (a [`Operand::Symbol`] or a [`Operand::Reg`] holding a handle).
    Bracketed(Vec<Operand>, Span),
    /// A register with a video sub-word selector (PTX ISA §9.7.18): `%r2.b0`, `%r3.h1`,
    /// `%r1.h10`, `%r4.b3210`; `sel` is the selector without the dot.
    Select {
        name: Ident,
        sel: String,
        span: Span,
    },
}

impl Operand {
    /// The source span of the operand.
    pub fn span(&self) -> Span {
        match self {
            Operand::Reg { name, .. } => name.span,
            Operand::Not(_, s)
            | Operand::Neg(_, s)
            | Operand::Imm(_, s)
            | Operand::Address { span: s, .. }
            | Operand::Indexed { span: s, .. }
            | Operand::Vector(_, s)
            | Operand::Sink(s)
            | Operand::List(_, s)
            | Operand::Bracketed(_, s)
            | Operand::Select { span: s, .. } => *s,
            Operand::Symbol { name, .. } => name.span,
            Operand::PredPair(a, b) => a.span.join(b.span),
            Operand::VecPred(_, _, s) => *s,
        }
    }
}
