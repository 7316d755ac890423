//! Step 1 of lowering: statements → basic blocks of IR operations over variables.

use super::LowerError;
use crate::ir::{self, Op, SrcLoc, Type};
use crate::ptx::ast::{self, StateSpace};
use crate::ptx::span::{SourceMap, Span};
use crate::ptx::target::{Header, Version};
use std::collections::{HashMap, HashSet};

/// The bytes of `.const` data one module may hold: the constant bank's 64 KiB (CUDA's
/// `totalConstMem`).
pub(crate) const MAX_CONST_BYTES: u64 = 64 * 1024;

/// A variable: a PTX register or a lowering temporary. Index into `PreKernel::vars`.
pub(crate) type Var = u32;
/// A pre-SSA block index.
pub(crate) type PBlock = u32;

/// An operation over variables (pre-SSA).
#[derive(Debug, Clone)]
pub(crate) struct PInst {
    pub op: Op,
    pub args: Vec<Var>,
    pub results: Vec<Var>,
    pub loc: SrcLoc,
    pub ptx: String,
    /// A copy `results[0] := args[0]` (renaming only; no operation in SSA form).
    pub copy: bool,
    /// The memory-order qualifier ([`crate::ir::Function::inst_sync`]).
    pub sync: crate::ir::MemSync,
}

/// A pre-SSA terminator.
#[derive(Debug, Clone)]
pub(crate) enum PTerm {
    Open,
    Jump(PBlock),
    Branch(Var, PBlock, PBlock),
    Exit,
    Barrier(PBlock),
    /// `trap`: the thread faults.
    Trap,
}

#[derive(Debug, Clone)]
pub(crate) struct PBlockData {
    pub insts: Vec<PInst>,
    pub term: PTerm,
    pub term_loc: SrcLoc,
}

/// A kernel after step 1.
#[derive(Debug)]
pub(crate) struct PreKernel {
    pub name: String,
    pub params: Vec<ir::KernelParam>,
    pub param_bytes: u32,
    pub vars: Vec<Type>,
    pub blocks: Vec<PBlockData>,
    pub static_shared_bytes: u64,
    /// Whether the kernel (or a function it may call) names an `extern .shared` array
    /// (dynamic shared memory).
    pub dynamic_shared: bool,
    /// Bytes of local memory per thread (`.local` variables), the call stack not included.
    pub local_bytes: u64,
    /// Where the per-thread call stack begins ([`ir::Function::call_stack`]).
    pub call_stack: Option<u64>,
    /// What takes the kernel past [`ir::MAX_LOCAL_BYTES`] ([`ir::Function::local_past`]).
    pub local_past: Option<ir::LocalPast>,
    pub max_threads: Option<u32>,
    /// The CTA shape `.reqntid` requires ([`ir::Function::req_ntid`]).
    pub req_ntid: Option<[u32; 3]>,
    /// `.reqnctapercluster`, `.explicitcluster`, `.maxclusterrank`.
    pub cluster: ir::ClusterDirectives,
    /// The `.shared` variables, for reports (`ir::Function::shared_vars`).
    pub shared_vars: Vec<ir::SharedVar>,
    /// The device functions the kernel runs (`ir::Function::call_frames`).
    pub call_frames: Vec<ir::CallFrame>,
    /// Span of the kernel name, for errors about the kernel as a whole.
    pub span: Span,
}

/// Where a symbol lives and how to get its address.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Sym {
    /// Offset in the kernel's parameter buffer.
    Param { offset: u32 },
    /// Offset in the CTA's shared memory.
    Shared { offset: u64 },
    /// Offset in each thread's local memory.
    Local { offset: u64 },
    /// A module global or const variable (index into `Globals::vars`).
    Global { index: u32, space: ir::Space },
}

/// Module-scope variables.
pub(crate) struct Globals {
    pub vars: Vec<ir::Variable>,
    pub by_name: HashMap<String, u32>,
    pub global_bytes: u64,
    pub const_bytes: u64,
    /// Module-scope `.shared` declarations (laid out in every kernel).
    pub shared: Vec<ast::VarDecl>,
    /// `.global`/`.const` variables declared inside a function body (PTX ISA §5.1: static
    /// storage like module-scope ones, the name visible in that body only), by the span of
    /// their declaration: index into `vars`.
    pub statics: HashMap<Span, u32>,
    /// Element size in bytes of every module-scope variable by name (for `a[i]` operands).
    pub elem: HashMap<String, Option<u64>>,
    /// `shfl`/`vote` need `.sync`: PTX ISA 6.4 or later for `.target sm_70` or higher, where
    /// the forms without it are removed (ptxas rejects them).
    pub sync_required: bool,
    /// The module's `.version` and `.target` architecture, which instructions are checked
    /// against (`decode_table::REQUIRES`).
    pub header: Header,
    /// Bytes of kernel parameters a kernel of this module may take in total
    /// ([`param_limit`]).
    pub param_limit: u64,
}

/// The total size of a kernel's parameters the module's header allows (PTX ISA §5.1.6.1,
/// "Kernel Function Parameters"): 32764 bytes from PTX ISA 8.1 for `.target sm_70` or
/// higher, 4352 bytes otherwise (ptxas: "Feature 'Kernel parameter size larger than 4352
/// bytes' requires PTX ISA .version 8.1 or later" / "requires .target sm_70 or higher").
pub(crate) fn param_limit(m: &ast::Module) -> u64 {
    if target_sm(m).is_some_and(|n| n >= 70) && m.version >= Version(8, 1) {
        32764
    } else {
        4352
    }
}

/// Whether a module's header removes `shfl`/`vote` without `.sync` (PTX ISA §9.7.9.6,
/// §9.7.13.8: not supported on `sm_70`+ from PTX ISA 6.4).
fn sync_required(m: &ast::Module) -> bool {
    target_sm(m).is_some_and(|n| n >= 70) && m.version >= Version(6, 4)
}

/// The highest `sm_NN`/`compute_NN` architecture number of the module's `.target` list
/// (`sm_90a` → 90); `None` when it names none.
pub(crate) fn target_sm(m: &ast::Module) -> Option<u32> {
    m.target
        .iter()
        .filter_map(|t| {
            let digits: String = t
                .strip_prefix("sm_")
                .or_else(|| t.strip_prefix("compute_"))?
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse::<u32>().ok()
        })
        .max()
}

fn align_up(x: u64, a: u64) -> u64 {
    let a = a.max(1);
    // Saturating: a layout past u64 (refused afterwards) must not wrap to small offsets.
    x.div_ceil(a).saturating_mul(a)
}

/// `N bytes`, or `more than 2^64 bytes` for a byte count that saturated at `u64::MAX`.
fn bytes_text(n: u64) -> String {
    if n == u64::MAX {
        "more than 2^64 bytes".into()
    } else {
        format!("{n} bytes")
    }
}

/// Number of elements of a declaration's array dims (1 for a scalar); `None` if a dim is
/// unsized.
pub(crate) fn elements(d: &ast::VarDecl) -> Option<u64> {
    // A product past u64 saturates: such a variable is too large wherever it is declared (an
    // overflow must not read as an unsized `[]`, which would make it dynamic shared memory or
    // size it by its initializer).
    let mut n: u64 = d.vector.unwrap_or(1) as u64;
    for dim in &d.array {
        n = n.saturating_mul((*dim)?);
    }
    Some(n)
}

/// The bytes of an array of `dims` (sized dimensions) of `elem`-byte elements: `Ok(bytes)`,
/// or, where they do not fit in 64 bits, `Err` with the real size as text: `4294967296 x
/// 4294967296 x 4 bytes = 73786976294838206464 bytes`, or the product alone with "more than
/// 2^128 bytes" past 128 bits.
pub(crate) fn array_bytes(dims: &[u64], elem: u64) -> Result<u64, String> {
    let mut n: Option<u128> = Some(u128::from(elem));
    for &d in dims {
        n = n.and_then(|n| n.checked_mul(u128::from(d)));
    }
    if let Some(b) = n.and_then(|n| u64::try_from(n).ok()) {
        return Ok(b);
    }
    let product: Vec<String> = dims.iter().map(u64::to_string).collect();
    let product = format!("{} x {elem} bytes", product.join(" x "));
    Err(match n {
        Some(n) => format!("{product} = {n} bytes (more than 2^64)"),
        None => format!("{product}, more than 2^128 bytes"),
    })
}

/// The bytes a declaration with sized dimensions takes ([`array_bytes`] of its dimensions and
/// its `.vN` element); `None` when a dimension is unsized (`[]`). `Err`: a [`LowerError`] at
/// the declaration, naming it as `what` (`shared variable`), with its real size.
pub(crate) fn decl_bytes(d: &ast::VarDecl, what: &str) -> Option<Result<u64, LowerError>> {
    let dims: Option<Vec<u64>> = d.array.iter().copied().collect();
    let elem = d.ty.size() as u64 * u64::from(d.vector.unwrap_or(1));
    Some(array_bytes(&dims?, elem).map_err(|size| {
        LowerError::new(
            d.span,
            format!(
                "{what} '{}' is too large: {size}, past every state space",
                d.name.name
            ),
        )
    }))
}

/// How reports name `.local` declaration `d` ([`ir::LocalPast::what`]).
pub(crate) fn local_variable(d: &ast::VarDecl) -> String {
    format!(".local variable '{}'", d.name.name)
}

/// ptxas: "Non-external variable 'g' has incomplete type". An unsized dimension (`[]`) is
/// sized by the variable's initializer, or left open only by an `.extern` declaration (CUDA's
/// `extern __shared__` dynamic shared memory, a variable another module defines); `sized_by`
/// is the number of initializer elements.
fn check_open_size(d: &ast::VarDecl, sized_by: usize) -> Result<(), LowerError> {
    if d.linkage == ast::Linkage::Extern || sized_by > 0 || !d.array.iter().any(Option::is_none) {
        return Ok(());
    }
    Err(LowerError::new(
        d.span,
        format!(
            "variable '{}' has an unsized dimension '[]' and no initializer elements to size \
             it: give its size, or declare it .extern (dynamic shared memory is \
             '.extern .shared .align 16 .b8 {}[]')",
            d.name.name, d.name.name
        ),
    ))
}

/// One element of a flattened initializer.
enum InitElem {
    Lit(ast::Literal),
    /// The address of a module variable plus `offset` (`x`, `generic(x)+8`), optionally one
    /// byte of it (`mask()`), resolved once every variable is laid out.
    Addr {
        name: ast::Ident,
        offset: i64,
        byte: Option<u8>,
    },
}

/// The byte a `mask()` operator selects: the ISA allows `0xFF << 8k` for k in 0..8 (PTX ISA
/// §5.4.4).
fn mask_byte(mask: u64, span: Span) -> Result<u8, LowerError> {
    (0..8u8)
        .find(|k| mask == 0xff << (8 * u32::from(*k)))
        .ok_or_else(|| {
            LowerError::new(
                span,
                format!(
                    "invalid mask {mask:#x} in an initializer: a mask selects one byte \
                     (0xFF, 0xFF00, ... 0xFF00000000000000)"
                ),
            )
        })
}

/// Flatten the initializer of a variable of element type `ty` into elements (PTX ISA §5.4.4).
/// A function's name stands for its address (`fn_addr`, see `lower::recurse`), as in a table
/// of function pointers; a variable's name for its address. An address needs a `.u32` or
/// `.u64` element, or `.u8` under `mask()`, as ptxas requires; a function's address takes no
/// offset and no `generic()`. `byte` is the enclosing `mask()`'s byte.
fn flatten_init(
    init: &ast::Initializer,
    ty: ast::ScalarType,
    fn_addr: &HashMap<String, u64>,
    byte: Option<u8>,
    out: &mut Vec<InitElem>,
) -> Result<(), LowerError> {
    let addr_ok = |name: &ast::Ident| {
        let ok = matches!(ty, ast::ScalarType::U32 | ast::ScalarType::U64)
            || (ty == ast::ScalarType::U8 && byte.is_some());
        if ok {
            Ok(())
        } else {
            Err(LowerError::new(
                name.span,
                format!(
                    "the address of '{}' initializes a .u32 or .u64 element (.u8 under a \
                     mask such as 0xFF(...)), not .{}",
                    name.name,
                    format!("{ty:?}").to_lowercase()
                ),
            ))
        }
    };
    match init {
        ast::Initializer::Literal(l) => {
            let l = match (byte, *l) {
                (None, l) => l,
                (Some(k), ast::Literal::Int { value, .. }) => ast::Literal::Int {
                    value: ((value as u64 >> (8 * u32::from(k))) & 0xff) as i64,
                    unsigned: true,
                },
                // `flatten_init` of a mask() passes only integers and symbols.
                (Some(_), l) => l,
            };
            out.push(InitElem::Lit(l));
            Ok(())
        }
        ast::Initializer::Mask { mask, inner, span } => {
            if byte.is_some() {
                return Err(LowerError::new(
                    *span,
                    "a mask() inside a mask() is not valid",
                ));
            }
            let k = mask_byte(*mask, *span)?;
            match **inner {
                ast::Initializer::Literal(ast::Literal::Int { .. })
                | ast::Initializer::Symbol { .. } => flatten_init(inner, ty, fn_addr, Some(k), out),
                _ => Err(LowerError::new(
                    *span,
                    "a mask() in an initializer applies to an integer or an address",
                )),
            }
        }
        ast::Initializer::List(items, _) => {
            for i in items {
                flatten_init(i, ty, fn_addr, byte, out)?;
            }
            Ok(())
        }
        ast::Initializer::Fields(_, span) => Err(LowerError::new(
            *span,
            "field initializers ({ name = value }) belong to .samplerref variables",
        )),
        ast::Initializer::Symbol {
            name,
            generic,
            offset,
        } => {
            addr_ok(name)?;
            if let Some(&a) = fn_addr.get(&name.name) {
                if *generic || *offset != 0 {
                    return Err(LowerError::new(
                        name.span,
                        format!(
                            "the address of function '{}' takes no offset and no generic()",
                            name.name
                        ),
                    ));
                }
                let v = match byte {
                    Some(k) => (a >> (8 * u32::from(k))) & 0xff,
                    None => a,
                };
                out.push(InitElem::Lit(ast::Literal::Int {
                    value: v as i64,
                    unsigned: true,
                }));
                return Ok(());
            }
            out.push(InitElem::Addr {
                name: name.clone(),
                offset: *offset,
                byte,
            });
            Ok(())
        }
    }
}

/// The sampler state of a `.samplerref` or `.texref` initializer (PTX ISA §5.3, §5.3.2):
/// `addr_mode_0..2` = `wrap`, `mirror`, `clamp_ogl`, `clamp_to_edge`, `clamp_to_border`;
/// `filter_mode` = `nearest`, `linear`; for a `.samplerref` `force_unnormalized_coords` = 0 or
/// 1, for a `.texref` `normalized_coords` = 0 or 1 (default 0, CUDA's for texture
/// references). A `.texref`'s resource fields (`width`, `channel_order`, ...) come from the
/// texture the host binds and cannot be initialized. Unknown fields or values are errors at
/// their span.
fn sampler_fields(
    init: &ast::Initializer,
    var: &str,
    decl: Span,
    kind: ir::HandleKind,
) -> Result<ir::SamplerInit, LowerError> {
    let texref = kind == ir::HandleKind::Texture;
    let ast::Initializer::Fields(fields, _) = init else {
        return Err(LowerError::new(
            decl,
            format!("the initializer of .{kind} '{var}' is a list of field = value"),
        ));
    };
    let mut s = ir::SamplerInit {
        unnormalized: texref,
        ..ir::SamplerInit::default()
    };
    for (name, value) in fields {
        let word = match value {
            ast::Initializer::Symbol {
                name: v, offset: 0, ..
            } => v.name.as_str(),
            ast::Initializer::Literal(ast::Literal::Int { value: 0, .. }) => "0",
            ast::Initializer::Literal(ast::Literal::Int { value: 1, .. }) => "1",
            _ => "",
        };
        let bad = || {
            LowerError::new(
                name.span,
                format!(
                    "invalid value for '{}' in the initializer of '{var}'",
                    name.name
                ),
            )
        };
        match name.name.as_str() {
            f @ ("addr_mode_0" | "addr_mode_1" | "addr_mode_2") => {
                let k = (f.as_bytes()[10] - b'0') as usize;
                s.address[k] = match word {
                    "wrap" => ir::SamplerAddr::Wrap,
                    "mirror" => ir::SamplerAddr::Mirror,
                    "clamp_ogl" | "clamp_to_edge" => ir::SamplerAddr::Clamp,
                    "clamp_to_border" => ir::SamplerAddr::Border,
                    _ => return Err(bad()),
                };
            }
            "filter_mode" => {
                s.linear = match word {
                    "nearest" => false,
                    "linear" => true,
                    _ => return Err(bad()),
                }
            }
            "normalized_coords" if texref => {
                s.unnormalized = match word {
                    "0" => true,
                    "1" => false,
                    _ => return Err(bad()),
                }
            }
            f @ ("width" | "height" | "depth" | "channel_data_type" | "channel_order")
                if texref =>
            {
                return Err(LowerError::unsupported(
                    name.span,
                    format!(
                        "'{f}' in the initializer of .texref '{var}': the bound texture gives \
                         it; only filter_mode, addr_mode_0..2 and normalized_coords can be \
                         initialized"
                    ),
                ))
            }
            "force_unnormalized_coords" if !texref => {
                s.unnormalized = match word {
                    "0" => false,
                    "1" => true,
                    _ => return Err(bad()),
                }
            }
            other => {
                return Err(LowerError::unsupported(
                    name.span,
                    format!("sampler field '{other}' in the initializer of '{var}'"),
                ))
            }
        }
    }
    Ok(s)
}

/// The error for an initialized `.surfref`: its fields (PTX ISA §5.3.1: `width`, `height`,
/// `depth`, `channel_data_type`, `channel_order`) describe the surface the host binds, which
/// ptxjit takes from the binding alone.
fn surfref_init_error(init: &ast::Initializer, var: &str, decl: Span) -> LowerError {
    let (span, what) = match init {
        ast::Initializer::Fields(fields, _) => match fields.first() {
            Some((name, _)) => (name.span, format!("'{}'", name.name)),
            None => (decl, "the initializer".into()),
        },
        _ => (decl, "the initializer".into()),
    };
    LowerError::unsupported(
        span,
        format!(
            "{what} of .surfref '{var}': a surface's fields come from the surface the host \
             binds and cannot be initialized"
        ),
    )
}

/// Whether literal `l` may initialize a variable of type `ty`, as ptxas decides it (PTX ISA
/// §5.4.4; ptxas 12.9: "Initial value type mismatch", "No initial value is allowed for .f16
/// type"): integer types take integer literals, `.f32`/`.f64` floating-point ones, `.bN`
/// either; `.f16`/`.bf16` variables and their pairs take none.
fn initial_value_fits(
    l: &ast::Literal,
    ty: ast::ScalarType,
    var: &str,
    span: Span,
) -> Result<(), LowerError> {
    use ast::ScalarType as T;
    let int = matches!(l, ast::Literal::Int { .. });
    let ok = match ty {
        T::U8 | T::U16 | T::U32 | T::U64 | T::S8 | T::S16 | T::S32 | T::S64 => int,
        T::F32 | T::F64 => !int,
        T::B8 | T::B16 | T::B32 | T::B64 | T::B128 => true,
        T::F16 | T::F16x2 | T::Bf16 | T::Bf16x2 => {
            return Err(LowerError::new(
                span,
                format!(
                    "variable '{var}' of .{}: no initial value is allowed for a half-precision \
                     type (ptxas: \"No initial value is allowed for .f16 type\"); declare it \
                     .b16/.b32 and initialize the bits",
                    ptx_type_name(ty)
                ),
            ));
        }
        T::Pred | T::TexRef | T::SamplerRef | T::SurfRef => true,
    };
    if ok {
        return Ok(());
    }
    let (lit, kind) = if int {
        ("an integer", "a floating-point")
    } else {
        ("a floating-point", "an integer")
    };
    Err(LowerError::new(
        span,
        format!(
            "variable '{var}' of .{}: {lit} initial value for {kind} type (ptxas: \
             \"Initial value type mismatch\")",
            ptx_type_name(ty)
        ),
    ))
}

/// The little-endian bytes of a literal stored as `ty`.
fn literal_bytes(l: &ast::Literal, ty: ast::ScalarType) -> Vec<u8> {
    let size = ty.size() as usize;
    let bits: u64 = match (*l, ty) {
        (ast::Literal::Int { value, .. }, ast::ScalarType::F32) => (value as f32).to_bits() as u64,
        (ast::Literal::Int { value, .. }, ast::ScalarType::F64) => (value as f64).to_bits(),
        (ast::Literal::Int { value, .. }, _) => value as u64,
        // ptxas stores a decimal literal in a `.b32` variable as its f32 bits (checked in the
        // `.nv.global.init` section of a ptxas 12.9 cubin: `.b32 g = 1.5` is 0x3fc00000).
        (ast::Literal::Float(x), ast::ScalarType::F32 | ast::ScalarType::B32) => {
            (x as f32).to_bits() as u64
        }
        (ast::Literal::Float(x), _) => x.to_bits(),
        (ast::Literal::F32Bits(b), ast::ScalarType::F64) => (f32::from_bits(b) as f64).to_bits(),
        (ast::Literal::F32Bits(b), _) => b as u64,
        (ast::Literal::F64Bits(b), ast::ScalarType::F32) => {
            (f64::from_bits(b) as f32).to_bits() as u64
        }
        (ast::Literal::F64Bits(b), _) => b,
    };
    bits.to_le_bytes()[..size.min(8)].to_vec()
}

impl Globals {
    /// Lay out the module-scope variables of `m`; `fn_addr` gives the functions' addresses
    /// for initializers that name them.
    pub fn new(m: &ast::Module, fn_addr: &HashMap<String, u64>) -> Result<Globals, LowerError> {
        let mut g = Globals {
            vars: vec![],
            by_name: HashMap::new(),
            global_bytes: 0,
            const_bytes: 0,
            shared: vec![],
            statics: HashMap::new(),
            elem: HashMap::new(),
            sync_required: sync_required(m),
            header: Header::of(m),
            param_limit: param_limit(m),
        };
        // Each address element, resolved below.
        struct Pending {
            var: usize,
            at: u64,
            size: u8,
            name: ast::Ident,
            addend: i64,
            byte: Option<u8>,
            /// For a function-scope variable: the function-scope variables its initializer
            /// can name (its block's and the enclosing blocks'), by name.
            scope: Option<std::rc::Rc<HashMap<String, String>>>,
        }
        let mut pending: Vec<Pending> = vec![];
        // The function-scope variables each function-scope variable's initializer sees, by
        // the declaration's span start.
        let mut scopes: HashMap<u32, std::rc::Rc<HashMap<String, String>>> = HashMap::new();
        // Module-scope variables under their names, then the `.global`/`.const` variables of
        // function bodies under `function::name@offset` (no PTX identifier has that form, so
        // neither a module-scope name nor the host's `cuModuleGetGlobal` can reach them).
        let mut decls: Vec<(&ast::VarDecl, Option<String>)> = vec![];
        for item in &m.items {
            if let ast::Item::Var(d) = item {
                decls.push((d, None));
            }
        }
        for item in &m.items {
            let ast::Item::Function(f) = item else {
                continue;
            };
            let Some(body) = &f.body else { continue };
            let mut inner = vec![];
            collect_decls(body, StateSpace::Global, &mut inner);
            collect_decls(body, StateSpace::Const, &mut inner);
            for d in inner {
                let name = format!("{}::{}@{}", f.name.name, d.name.name, d.span.start);
                decls.push((d, Some(name)));
            }
            fn_scopes(&f.name.name, body, &HashMap::new(), &mut scopes);
        }
        for (d, fn_scope) in decls {
            if fn_scope.is_none() {
                note_elem(&mut g.elem, d);
            }
            let space = match d.space {
                StateSpace::Global => ir::Space::Global,
                StateSpace::Const => ir::Space::Const,
                StateSpace::Shared => {
                    g.shared.push(d.clone());
                    continue;
                }
                // ptxas: "Module-scoped variables in .local state space are not allowed with
                // ABI" (PTX ISA §5.1.5: per-thread memory, declared inside functions).
                StateSpace::Local => {
                    return Err(LowerError::new(
                        d.span,
                        format!(
                            "module-scope .local variable '{}': .local variables are declared \
                             inside a function",
                            d.name.name
                        ),
                    ))
                }
                // The deprecated `.tex` space (PTX ISA §5.1.8): PTX ISA 1.5 replaced it with
                // `.global .texref`; ptxas 13.5 rejects it from then on ("Deprecated feature:
                // '.tex' not supported as of PTX version 1.5").
                StateSpace::Tex if m.version < Version(1, 5) => {
                    return Err(LowerError::unsupported(
                        d.span,
                        format!(
                            "module-scope .tex variable '{}' (PTX ISA before 1.5) is not \
                             supported: declare it .global .texref",
                            d.name.name
                        ),
                    ))
                }
                StateSpace::Tex => {
                    return Err(LowerError::new(
                        d.span,
                        format!(
                            ".tex variable '{}': the .tex state space is not supported as of \
                             PTX ISA 1.5 (declare it .global .texref)",
                            d.name.name
                        ),
                    ))
                }
                // ptxas 13.5: "Parameter variables may not be declared at module scope",
                // "Module-scoped variables in .reg state space are not allowed with ABI"; `.sreg`
                // is no declarable space (special registers are predefined, §10).
                StateSpace::Param | StateSpace::Reg | StateSpace::Sreg | StateSpace::Generic => {
                    return Err(LowerError::new(
                        d.span,
                        format!(
                            "module-scope variable '{}': {} variables may not be declared at \
                             module scope",
                            d.name.name,
                            space_word(d.space)
                        ),
                    ))
                }
            };
            // `.texref`/`.samplerref`/`.surfref` variables hold the 8-byte handle the host binds
            // to them (`Context::bind_texref`); 0 until bound.
            let handle = match d.ty {
                ast::ScalarType::TexRef => Some(ir::HandleKind::Texture),
                ast::ScalarType::SamplerRef => Some(ir::HandleKind::Sampler),
                ast::ScalarType::SurfRef => Some(ir::HandleKind::Surface),
                _ => None,
            };
            if handle.is_some() && !d.array.is_empty() {
                return Err(LowerError::unsupported(
                    d.span,
                    format!(
                        "an array of .texref/.samplerref/.surfref ('{}') is not supported yet",
                        d.name.name
                    ),
                ));
            }
            let mut sampler_init = None;
            if let (Some(kind), Some(init)) = (handle, &d.init) {
                sampler_init = Some(match kind {
                    ir::HandleKind::Sampler | ir::HandleKind::Texture => {
                        sampler_fields(init, &d.name.name, d.span, kind)?
                    }
                    ir::HandleKind::Surface => {
                        return Err(surfref_init_error(init, &d.name.name, d.span))
                    }
                });
            }
            let elem = d.ty.size() as u64;
            let mut lits = vec![];
            if let (Some(init), None) = (&d.init, &sampler_init) {
                flatten_init(init, d.ty, fn_addr, None, &mut lits)?;
            }
            check_open_size(d, lits.len())?;
            let n = match elements(d) {
                Some(n) => n,
                None => (lits.len() as u64).max(1),
            };
            if lits.len() as u64 > n {
                // ptxas: "Greater number of elements in array initializer".
                return Err(LowerError::new(
                    d.span,
                    format!(
                        "the initializer of '{}' has {} elements; the variable holds {n}",
                        d.name.name,
                        lits.len()
                    ),
                ));
            }
            let size = match decl_bytes(d, "variable") {
                Some(size) => size?,
                // `[]`: sized by the initializer.
                None => n * elem,
            };
            if size > (1 << 32) {
                return Err(LowerError::new(
                    d.span,
                    format!("variable '{}' is too large ({size} bytes)", d.name.name),
                ));
            }
            let align = d.align.unwrap_or(d.ty.size()).max(1) as u64;
            let total = if space == ir::Space::Global {
                &mut g.global_bytes
            } else {
                &mut g.const_bytes
            };
            let offset = align_up(*total, align);
            *total = offset + size;
            // The constant bank holds 64 KiB for the whole module, alignment padding included
            // (ptxas 13.5: "File uses too much global constant data (0x10001 bytes, 0x10000
            // max)", for variables the code never reads too).
            if space == ir::Space::Const && *total > MAX_CONST_BYTES {
                return Err(LowerError::new(
                    d.span,
                    format!(
                        "the module's .const variables take {} bytes with '{}'; the constant \
                         bank holds at most {MAX_CONST_BYTES}",
                        *total, d.name.name
                    ),
                ));
            }
            let mut init = vec![];
            for l in &lits {
                match l {
                    InitElem::Lit(l) => {
                        initial_value_fits(l, d.ty, &d.name.name, d.span)?;
                        init.extend(literal_bytes(l, d.ty))
                    }
                    InitElem::Addr { name, offset, byte } => {
                        pending.push(Pending {
                            var: g.vars.len(),
                            at: init.len() as u64,
                            size: elem as u8,
                            name: name.clone(),
                            addend: *offset,
                            byte: *byte,
                            scope: fn_scope
                                .as_ref()
                                .and_then(|_| scopes.get(&d.span.start))
                                .cloned(),
                        });
                        init.extend(std::iter::repeat_n(0, elem as usize));
                    }
                }
            }
            init.truncate(size as usize);
            let index = g.vars.len() as u32;
            let name = match fn_scope {
                Some(name) => {
                    g.statics.insert(d.span, index);
                    name
                }
                None => d.name.name.clone(),
            };
            g.by_name.insert(name.clone(), index);
            g.vars.push(ir::Variable {
                name,
                space,
                size,
                align: align as u32,
                offset,
                init,
                handle,
                sampler_init,
                relocs: vec![],
                managed: d.managed,
            });
        }
        // Addresses in initializers, now that every variable is known (a table may name a
        // variable declared after it).
        for p in pending {
            // A function-scope variable of the same function hides a module one.
            let inner = p.scope.as_ref().and_then(|sc| sc.get(&p.name.name));
            let target = match g.by_name.get(inner.unwrap_or(&p.name.name)) {
                Some(&t) if g.vars[t as usize].handle.is_none() => t,
                _ => {
                    let what = if g.shared.iter().any(|d| d.name.name == p.name.name) {
                        "is a .shared variable"
                    } else if g.by_name.contains_key(&p.name.name) {
                        "is a texture, sampler or surface reference"
                    } else {
                        "is not a variable or function of this module"
                    };
                    return Err(LowerError::new(
                        p.name.span,
                        format!(
                            "'{}' {what}: an initializer may hold the address of a .global or \
                             .const variable or of a function",
                            p.name.name
                        ),
                    ));
                }
            };
            let v = &mut g.vars[p.var];
            // Elements past the declared size were dropped with the initializer's tail.
            if p.at + u64::from(p.size) <= v.init.len() as u64 {
                v.relocs.push(ir::Reloc {
                    at: p.at,
                    size: p.size,
                    target,
                    addend: p.addend,
                    byte: p.byte,
                });
            }
        }
        Ok(g)
    }
}

/// The state while building one kernel.
pub(crate) struct Builder<'a> {
    pub map: &'a SourceMap,
    /// While inlining a function ptxjit supplies (`lower::devrt`), whose spans are not in
    /// `map`: the call's location, which every instruction of the body takes.
    pub loc_override: Option<SrcLoc>,
    /// `Globals::sync_required` of the module.
    pub sync_required: bool,
    /// `Globals::header` of the module.
    pub header: Header,
    pub vars: Vec<Type>,
    /// Scopes of register names → variable, innermost last.
    pub scopes: Vec<Scope>,
    pub syms: HashMap<String, Sym>,
    pub blocks: Vec<PBlockData>,
    pub cur: PBlock,
    pub labels: HashMap<String, (PBlock, bool, Span)>,
    /// The module's device functions by name (definitions preferred over prototypes), for
    /// calls, which are inlined (`lower::call`).
    pub funcs: &'a HashMap<String, &'a ast::Function>,
    /// Inside an inlined function body: the block `ret` continues in.
    pub ret_target: Option<PBlock>,
    /// Names of the functions being inlined, outermost first (recursion check).
    pub inline_stack: Vec<String>,
    /// The device functions whose bodies were lowered into the kernel
    /// (`ir::Function::call_frames`), and the one being lowered now (its [`SrcLoc::frame`]).
    pub call_frames: Vec<ir::CallFrame>,
    pub cur_frame: u32,
    /// `.branchtargets` tables of the body being decoded: label → target labels (`brx.idx`).
    pub branch_tables: HashMap<String, Vec<ast::Ident>>,
    /// `.callprototype` signatures of the body being decoded: label → raw text.
    pub prototypes: HashMap<String, String>,
    /// Bytes of per-thread local memory laid out so far (kernel `.local` variables, then call
    /// parameters and inlined functions' frames as they are met).
    pub local_top: u64,
    /// The local memory laid out that first took `local_top` past [`ir::MAX_LOCAL_BYTES`].
    pub local_past: Option<ir::LocalPast>,
    /// Destination temporaries that extend or truncate into a register of another width, with
    /// the extension's signedness (`ld.u8` into a `.b32` register, `cvt.s8` into `.b16`).
    pub ext_sign: HashMap<Var, crate::ir::Sign>,
    /// Destination temporaries of `ld`/`cvt` written into a register wider than the
    /// instruction type, with the extension that applies (`lower::opsize`).
    pub ext_fit: HashMap<Var, super::opsize::Fit>,
    /// The declared PTX type of each register variable (`.u32` and `.b32` are both i32 in the
    /// IR; the operand-size rules of `lower::opsize` tell them apart).
    pub decl: HashMap<Var, ast::ScalarType>,
    /// The module's `.const` variables: (index into `Globals::vars`, size in bytes), for
    /// `isspacep.const`.
    pub const_vars: Vec<(u32, u64)>,
    /// `Globals::statics` of the module.
    pub statics: HashMap<Span, u32>,
    /// Names a function-scope `.global`/`.const` variable of the body being lowered hides,
    /// with what they named before (for [`Builder::callee_syms`]).
    pub hidden: HashMap<String, Option<Sym>>,
    /// `.b128` registers: each is two i64 variables, the low half under the register's name
    /// and the high half under `NAME#hi`; this holds the low halves, which only `ld`, `st` and
    /// `mov.b128` may use (`lower::decode::wide`).
    pub wide: std::collections::HashSet<Var>,
    /// Whether the kernel declares a vector register (`lower::vregs`), whose operands each
    /// instruction then has rewritten.
    pub has_vector_regs: bool,
    /// Element size in bytes of each variable name the kernel (or a function it calls) can
    /// see, for `a[i]` operands (PTX ISA §6.4.2); `None` when declarations of that name differ.
    pub elem_size: HashMap<String, Option<u64>>,
    /// The module's call graph: which functions are shared (`lower::recurse`), addresses.
    pub graph: &'a super::recurse::CallGraph,
    /// The region being built, while lowering a call to a shared function.
    pub region: Option<Box<super::recurse::Region>>,
    /// Inside a shared function's body: its frame (local symbols are frame-relative).
    pub frame: Option<super::recurse::Frame>,
    /// Constants and checks to patch with the call stack's place in local memory.
    pub stack: super::recurse::StackPatches,
    /// Shared-memory offsets of the `.shared` variables declared in the bodies of the
    /// functions the kernel may call, by the declaration's span start. Such a variable is
    /// allocated once per CTA, as a module-scope one, and named only inside its function.
    pub fn_shared: HashMap<u32, u64>,
    /// The per-thread stack of `alloca`/`stacksave`/`stackrestore` once one is used: its
    /// local-memory offset and the variable holding the bytes in use (`lower::decode_stack`).
    pub alloca: Option<(u64, Var)>,
}

impl<'a> Builder<'a> {
    /// The symbols a called function's body sees: the module's `.global`/`.const` variables
    /// and the CTA's `.shared` ones, not the caller's function-scope `.global`/`.const`
    /// variables (the names they hide name the module's variables again).
    pub fn callee_syms(&self) -> HashMap<String, Sym> {
        let mut syms: HashMap<String, Sym> = self
            .syms
            .iter()
            .filter(|(_, s)| matches!(s, Sym::Global { .. } | Sym::Shared { .. }))
            .map(|(n, s)| (n.clone(), *s))
            .collect();
        for (name, before) in &self.hidden {
            match before {
                Some(s @ (Sym::Global { .. } | Sym::Shared { .. })) => {
                    syms.insert(name.clone(), *s);
                }
                _ => {
                    syms.remove(name);
                }
            }
        }
        syms
    }

    pub fn loc(&self, span: Span) -> SrcLoc {
        if let Some(l) = self.loc_override {
            return l;
        }
        let (line, col) = self.map.line_col(span.start);
        SrcLoc {
            line,
            col,
            frame: self.cur_frame,
        }
    }

    pub fn new_var(&mut self, ty: Type) -> Var {
        self.vars.push(ty);
        self.vars.len() as u32 - 1
    }

    pub fn new_block(&mut self) -> PBlock {
        self.blocks.push(PBlockData {
            insts: vec![],
            term: PTerm::Open,
            term_loc: SrcLoc::default(),
        });
        self.blocks.len() as u32 - 1
    }

    /// Branch from the current block into a new one that runs only where guard `p` holds
    /// (fails, when `neg`); returns the block after it, to close with [`Builder::join`].
    pub fn begin_guarded(&mut self, p: Var, neg: bool, loc: SrcLoc) -> PBlock {
        let body = self.new_block();
        let after = self.new_block();
        let (t, e) = if neg { (after, body) } else { (body, after) };
        let cur = self.cur as usize;
        self.blocks[cur].term = PTerm::Branch(p, t, e);
        self.blocks[cur].term_loc = loc;
        self.cur = body;
        after
    }

    /// End the current block with a jump to `after` and continue there.
    pub fn join(&mut self, after: PBlock, loc: SrcLoc) {
        let cur = self.cur as usize;
        self.blocks[cur].term = PTerm::Jump(after);
        self.blocks[cur].term_loc = loc;
        self.cur = after;
    }

    /// Reserve `size` bytes of per-thread local memory aligned to `align`; returns the offset.
    /// Inside a shared function's body the offset is in its frame (`lower::recurse`).
    /// `what` names the memory (`.local variable 'buf'`), at `span` in the PTX, for the report
    /// of a kernel that needs too much of it ([`Builder::note_local`]). Errors: the kernel's
    /// local memory is past [`ir::MAX_LOCAL_BYTES_LOADED`] with it.
    pub fn alloc_local(
        &mut self,
        size: u64,
        align: u64,
        span: Span,
        what: impl FnOnce() -> String,
    ) -> Result<u64, LowerError> {
        if let Some(fr) = self.frame.as_mut() {
            let off = align_up(fr.top, align);
            fr.top = off.saturating_add(size.max(1));
            return Ok(off);
        }
        let off = align_up(self.local_top, align);
        self.local_top = off.saturating_add(size.max(1));
        self.note_local(self.local_top, size, span, what)?;
        Ok(off)
    }

    /// After laying out `size` bytes of local memory (`what`, at `span` in the PTX), up to
    /// `top` bytes per thread: remembers it when it is the first to take the kernel past
    /// [`ir::MAX_LOCAL_BYTES`] (the kernel loads, and its launches fail naming it: ptxas
    /// compiles such a kernel, and CUDA's limit of local memory per thread holds at launch);
    /// an error at it past [`ir::MAX_LOCAL_BYTES_LOADED`].
    pub fn note_local(
        &mut self,
        top: u64,
        size: u64,
        span: Span,
        what: impl FnOnce() -> String,
    ) -> Result<(), LowerError> {
        if top <= ir::MAX_LOCAL_BYTES {
            return Ok(());
        }
        if top > ir::MAX_LOCAL_BYTES_LOADED {
            return Err(LowerError::new(
                span,
                format!(
                    "{} takes {size} bytes, and with it the kernel uses {} of local memory per \
                     thread; a kernel may declare at most {} (and a launch needs at most {}: \
                     CUDA's 512 KiB per thread)",
                    what(),
                    bytes_text(top),
                    ir::MAX_LOCAL_BYTES_LOADED,
                    ir::MAX_LOCAL_BYTES
                ),
            ));
        }
        if self.local_past.is_none() {
            self.local_past = Some(ir::LocalPast {
                what: what(),
                bytes: size,
                loc: self.loc(span),
            });
        }
        Ok(())
    }

    /// Look up a register by name in the scope stack.
    pub fn reg(&self, name: &str) -> Option<Var> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// Append an operation to the current block.
    pub fn emit(&mut self, op: Op, args: Vec<Var>, results: Vec<Var>, loc: SrcLoc, ptx: &str) {
        self.blocks[self.cur as usize].insts.push(PInst {
            op,
            args,
            results,
            loc,
            ptx: ptx.to_string(),
            copy: false,
            sync: crate::ir::MemSync::None,
        });
    }

    /// Give the last operation emitted in the current block the memory-order qualifier
    /// `sync` (`ld.acquire`, `st.release`, `atom.acq_rel`, ...).
    pub fn mark_sync(&mut self, sync: crate::ir::MemSync) {
        if let Some(i) = self.blocks[self.cur as usize].insts.last_mut() {
            i.sync = sync;
        }
    }

    /// Emit an operation producing one fresh variable of type `ty`.
    pub fn emit1(&mut self, op: Op, args: Vec<Var>, ty: Type, loc: SrcLoc, ptx: &str) -> Var {
        let v = self.new_var(ty);
        self.emit(op, args, vec![v], loc, ptx);
        v
    }

    /// The block of a label (created on first reference).
    pub fn label_block(&mut self, name: &str, span: Span) -> PBlock {
        if let Some(&(b, _, _)) = self.labels.get(name) {
            return b;
        }
        let b = self.new_block();
        self.labels.insert(name.to_string(), (b, false, span));
        b
    }
}

pub(crate) fn ir_type_of(t: ast::ScalarType) -> Option<Type> {
    use ast::ScalarType::*;
    Some(match t {
        Pred => Type::Pred,
        B8 | U8 | S8 => Type::I8,
        B16 | U16 | S16 | F16 | Bf16 => Type::I16,
        B32 | U32 | S32 | F16x2 | Bf16x2 => Type::I32,
        B64 | U64 | S64 => Type::I64,
        F32 => Type::F32,
        F64 => Type::F64,
        B128 | TexRef | SamplerRef | SurfRef => return None,
    })
}

fn ptx_type_name(t: ast::ScalarType) -> String {
    format!("{t:?}").to_lowercase()
}

/// The register names of one `{ }` scope (PTX ISA §5.4): the names declared one by one
/// (vector components and `.b128` halves included, `lower::vregs`, `lower::decode::wide`)
/// and the parameterized declarations `.reg .T %r<N>` (§5.4.6), kept as ranges: a
/// parameterized scalar declaration gets a variable only for the names of the range that the
/// scope's instructions mention (`declare`), so that what lowering costs follows the
/// registers a kernel uses, not the number it declares.
#[derive(Debug, Default)]
pub struct Scope {
    /// Name → variable: the names declared one by one, and the names of the ranges that the
    /// scope's instructions mention.
    names: HashMap<String, Var>,
    /// The parameterized scalar declarations: (`%r`, N) declares `%r0` to `%r{N-1}`.
    ranges: Vec<(String, u32)>,
}

impl Scope {
    /// The variable of `name` when the scope has one for it.
    pub fn get(&self, name: &str) -> Option<&Var> {
        self.names.get(name)
    }

    /// Name `name` for variable `v` (replacing an earlier one).
    pub fn insert(&mut self, name: String, v: Var) -> Option<Var> {
        self.names.insert(name, v)
    }

    /// Forget the variable of `name`.
    pub fn remove(&mut self, name: &str) -> Option<Var> {
        self.names.remove(name)
    }

    /// Whether the scope declares `name`, one by one or in a range (used or not).
    pub fn contains_key(&self, name: &str) -> bool {
        self.names.contains_key(name)
            || self
                .ranges
                .iter()
                .any(|(p, n)| member(p, *n, name).is_some())
    }
}

/// `i` when `name` is `prefix` followed by `i < count` written as `format!("{prefix}{i}")`
/// writes it (decimal digits, no sign, no leading zero): a name parameterized declaration
/// `prefix<count>` declares (PTX ISA §5.4.6).
fn member(prefix: &str, count: u32, name: &str) -> Option<u32> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty()
        || !digits.bytes().all(|c| c.is_ascii_digit())
        || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    digits.parse::<u32>().ok().filter(|&i| i < count)
}

/// The smallest `i < count` for which `prefix{i}` is also a name of the range `(p, n)`
/// (`p0` to `p{n-1}`), if any. The names of two ranges meet only where one prefix extends the
/// other by digits `s` (no leading zero): `%r<20>` and `%r1<5>` share `%r10` to `%r14`; the
/// first shared name of the shorter prefix's range is `s` followed by 0.
fn range_overlap(prefix: &str, count: u32, p: &str, n: u32) -> Option<u32> {
    if count == 0 || n == 0 {
        return None;
    }
    // `s·0` as a number, when `s` is a run of digits without a leading zero.
    let tens = |s: &str| -> Option<u64> {
        if s.is_empty() || s.starts_with('0') || !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse::<u64>().ok()?.checked_mul(10)
    };
    if prefix == p {
        Some(0)
    } else if let Some(s) = p.strip_prefix(prefix) {
        // The range `(p, n)` holds `prefix{s·j}`: the first is `s·0`.
        tens(s).filter(|&i| i < count as u64).map(|i| i as u32)
    } else if let Some(s) = prefix.strip_prefix(p) {
        // `prefix{i}` is `p{s·i}`, in the range from `i = 0` when `s·0 < n`.
        tens(s).filter(|&j| j < n as u64).map(|_| 0)
    } else {
        None
    }
}

/// The name a declaration of `prefix` declares at index `i` (`prefix` itself when it is not
/// parameterized).
fn declared_name(prefix: &str, count: Option<u32>, i: u32) -> String {
    match count {
        Some(_) => format!("{prefix}{i}"),
        None => prefix.to_string(),
    }
}

/// The names every instruction of `stmts` (nested blocks included) mentions anywhere:
/// operands, predicate pairs, guards; each once, in the order of their first mention. A
/// superset of the registers the instructions look up.
fn mentioned_names(stmts: &[ast::Statement]) -> Vec<&str> {
    use ast::Operand;
    fn operand<'s>(o: &'s Operand, out: &mut Vec<&'s str>, seen: &mut HashSet<&'s str>) {
        let mut add = |n: &'s ast::Ident| {
            if seen.insert(n.name.as_str()) {
                out.push(n.name.as_str());
            }
        };
        match o {
            Operand::Reg { name, .. }
            | Operand::Symbol { name, .. }
            | Operand::Indexed { name, .. }
            | Operand::Select { name, .. } => add(name),
            Operand::Address { base, .. } => {
                if let Some(b) = base {
                    add(b);
                }
            }
            Operand::PredPair(a, c) => {
                add(a);
                add(c);
            }
            Operand::Not(x, _) | Operand::Neg(x, _) => operand(x, out, seen),
            Operand::VecPred(xs, p, _) => {
                add(p);
                for x in xs {
                    operand(x, out, seen);
                }
            }
            Operand::Vector(xs, _) | Operand::List(xs, _) | Operand::Bracketed(xs, _) => {
                for x in xs {
                    operand(x, out, seen);
                }
            }
            Operand::Imm(..) | Operand::Sink(_) => {}
        }
    }
    fn walk<'s>(stmts: &'s [ast::Statement], out: &mut Vec<&'s str>, seen: &mut HashSet<&'s str>) {
        for s in stmts {
            match s {
                ast::Statement::Instruction(i) => {
                    if let Some(g) = &i.guard {
                        if seen.insert(g.pred.name.as_str()) {
                            out.push(g.pred.name.as_str());
                        }
                    }
                    for o in &i.operands {
                        operand(o, out, seen);
                    }
                }
                ast::Statement::Block(inner, _) => walk(inner, out, seen),
                ast::Statement::Decl(_)
                | ast::Statement::Label(_)
                | ast::Statement::Loc { .. }
                | ast::Statement::Directive(_) => {}
            }
        }
    }
    let (mut out, mut seen) = (vec![], HashSet::new());
    walk(stmts, &mut out, &mut seen);
    out
}

/// Collect the declarations in state space `space` of a body (any nesting) in order.
/// Whether any instruction of `stmts` (nested blocks included) names `name` as an operand.
fn mentions(stmts: &[ast::Statement], name: &str) -> bool {
    use ast::Operand;
    fn operand(o: &Operand, name: &str) -> bool {
        match o {
            Operand::Reg { name: n, .. }
            | Operand::Symbol { name: n, .. }
            | Operand::Indexed { name: n, .. }
            | Operand::Select { name: n, .. } => n.name == name,
            Operand::Address { base, .. } => base.as_ref().is_some_and(|b| b.name == name),
            Operand::Not(x, _) | Operand::Neg(x, _) => operand(x, name),
            Operand::Vector(xs, _)
            | Operand::List(xs, _)
            | Operand::Bracketed(xs, _)
            | Operand::VecPred(xs, _, _) => xs.iter().any(|x| operand(x, name)),
            Operand::Imm(..) | Operand::PredPair(..) | Operand::Sink(_) => false,
        }
    }
    stmts.iter().any(|s| match s {
        ast::Statement::Instruction(i) => i.operands.iter().any(|o| operand(o, name)),
        ast::Statement::Block(inner, _) => mentions(inner, name),
        ast::Statement::Decl(_)
        | ast::Statement::Label(_)
        | ast::Statement::Loc { .. }
        | ast::Statement::Directive(_) => false,
    })
}

/// Records in `out`, for each `.global`/`.const` variable declared in `stmts` (a body or a
/// block of function `func`, nested blocks included), the function-scope variables its
/// initializer can name: those of its own block and of the enclosing blocks (`outer`), the
/// innermost declaration of a name winning, each under its `Globals` name
/// (`function::name@offset`).
fn fn_scopes(
    func: &str,
    stmts: &[ast::Statement],
    outer: &HashMap<String, String>,
    out: &mut HashMap<u32, std::rc::Rc<HashMap<String, String>>>,
) {
    let is_var = |d: &ast::VarDecl| matches!(d.space, StateSpace::Global | StateSpace::Const);
    let mut here = outer.clone();
    for s in stmts {
        if let ast::Statement::Decl(d) = s {
            if is_var(d) {
                let name = format!("{func}::{}@{}", d.name.name, d.span.start);
                here.insert(d.name.name.clone(), name);
            }
        }
    }
    let shared = std::rc::Rc::new(here);
    for s in stmts {
        match s {
            ast::Statement::Decl(d) if is_var(d) => {
                out.insert(d.span.start, shared.clone());
            }
            ast::Statement::Block(inner, _) => fn_scopes(func, inner, &shared, out),
            _ => {}
        }
    }
}

pub(crate) fn collect_decls<'b>(
    stmts: &'b [ast::Statement],
    space: StateSpace,
    out: &mut Vec<&'b ast::VarDecl>,
) {
    for s in stmts {
        match s {
            ast::Statement::Decl(d) if d.space == space => out.push(d),
            ast::Statement::Block(inner, _) => collect_decls(inner, space, out),
            _ => {}
        }
    }
}

/// Record `d`'s element size (its type times its vector length) under its name; a second
/// declaration of the name with another size makes it ambiguous (`None`).
fn note_elem(map: &mut HashMap<String, Option<u64>>, d: &ast::VarDecl) {
    note_elem_of(map, &d.name.name, d.ty, d.vector);
}

fn note_elem_of(
    map: &mut HashMap<String, Option<u64>>,
    name: &str,
    ty: ast::ScalarType,
    vector: Option<u32>,
) {
    let size = ty.size() as u64 * vector.unwrap_or(1) as u64;
    map.entry(name.to_string())
        .and_modify(|e| {
            if *e != Some(size) {
                *e = None;
            }
        })
        .or_insert(Some(size));
}

/// Element sizes of the module's variables and of every declaration in the kernel, its
/// parameters and the module's functions (which may be inlined into it).
fn elem_sizes(
    globals: &Globals,
    f: &ast::Function,
    body: &[ast::Statement],
    funcs: &HashMap<String, &ast::Function>,
) -> HashMap<String, Option<u64>> {
    fn walk(map: &mut HashMap<String, Option<u64>>, stmts: &[ast::Statement]) {
        for s in stmts {
            match s {
                ast::Statement::Decl(d) if d.space != StateSpace::Reg => note_elem(map, d),
                ast::Statement::Block(inner, _) => walk(map, inner),
                _ => {}
            }
        }
    }
    let mut map = globals.elem.clone();
    for p in &f.params {
        note_elem_of(&mut map, &p.name.name, p.ty, p.vector);
    }
    walk(&mut map, body);
    for g in funcs.values() {
        for p in g.params.iter().chain(&g.returns) {
            if p.space == StateSpace::Param {
                note_elem_of(&mut map, &p.name.name, p.ty, p.vector);
            }
        }
        if let Some(b) = &g.body {
            walk(&mut map, b);
        }
    }
    map
}

/// Build the pre-SSA form of one kernel.
/// What raises a kernel parameter limit of 4352 bytes ([`param_limit`]), for its error.
fn limit_note(limit: u64) -> &'static str {
    if limit < 32764 {
        " (32764 needs PTX ISA .version 8.1 or later and .target sm_70 or higher)"
    } else {
        ""
    }
}

pub(crate) fn build_kernel<'a>(
    f: &ast::Function,
    body: &[ast::Statement],
    globals: &mut Globals,
    map: &'a SourceMap,
    funcs: &'a HashMap<String, &'a ast::Function>,
    graph: &'a super::recurse::CallGraph,
) -> Result<PreKernel, LowerError> {
    let mut b = Builder {
        map,
        loc_override: None,
        sync_required: globals.sync_required,
        header: globals.header,
        funcs,
        graph,
        region: None,
        frame: None,
        stack: Default::default(),
        fn_shared: HashMap::new(),
        alloca: None,
        ret_target: None,
        inline_stack: vec![],
        call_frames: vec![],
        cur_frame: 0,
        branch_tables: branch_tables(body),
        prototypes: prototypes(body),
        local_top: 0,
        local_past: None,
        vars: vec![],
        scopes: vec![Scope::default()],
        syms: HashMap::new(),
        blocks: vec![],
        cur: 0,
        labels: HashMap::new(),
        ext_sign: HashMap::new(),
        ext_fit: HashMap::new(),
        decl: HashMap::new(),
        const_vars: vec![],
        statics: globals.statics.clone(),
        hidden: HashMap::new(),
        wide: Default::default(),
        has_vector_regs: false,
        elem_size: elem_sizes(globals, f, body, funcs),
    };
    for (i, v) in globals.vars.iter().enumerate() {
        if v.space == ir::Space::Const {
            b.const_vars.push((i as u32, v.size));
        }
        b.syms.insert(
            v.name.clone(),
            Sym::Global {
                index: i as u32,
                space: v.space,
            },
        );
    }
    // Parameters (PTX ISA §5.1.6.1: each at its natural or declared alignment).
    let mut params = vec![];
    let mut off: u64 = 0;
    for p in &f.params {
        if p.space != StateSpace::Param {
            return Err(LowerError::new(
                p.span,
                format!("kernel parameter '{}' must be in .param space", p.name.name),
            ));
        }
        let elem = p.ty.size() as u64 * p.vector.unwrap_or(1) as u64;
        let dims: Vec<u64> = p.array.iter().map(|d| d.unwrap_or(0)).collect();
        let size = array_bytes(&dims, elem).map_err(|size| {
            LowerError::new(
                p.span,
                format!(
                    "kernel parameter '{}' is too large: {size}; kernel parameters may take at \
                     most {} bytes in total{}",
                    p.name.name,
                    globals.param_limit,
                    limit_note(globals.param_limit)
                ),
            )
        })?;
        if size == 0 {
            return Err(LowerError::new(
                p.span,
                format!("kernel parameter '{}' has size 0", p.name.name),
            ));
        }
        let limit = globals.param_limit;
        if size > limit {
            return Err(LowerError::new(
                p.span,
                format!(
                    "kernel parameter '{}' takes {size} bytes; kernel parameters may take at most \
                     {limit} bytes in total{}",
                    p.name.name,
                    limit_note(limit)
                ),
            ));
        }
        let align = p.align.unwrap_or(p.ty.size()).max(1) as u64;
        off = align_up(off, align);
        let kind = if !p.array.is_empty() || p.vector.is_some() {
            ir::ParamKind::Bytes
        } else {
            use ast::ScalarType::*;
            match p.ty {
                F32 | F64 => ir::ParamKind::Float,
                S8 | S16 | S32 | S64 => ir::ParamKind::Int { signed: true },
                _ => ir::ParamKind::Int { signed: false },
            }
        };
        b.syms
            .insert(p.name.name.clone(), Sym::Param { offset: off as u32 });
        params.push(ir::KernelParam {
            name: p.name.name.clone(),
            ptx_type: ptx_type_name(p.ty),
            size: size as u32,
            align: align as u32,
            offset: off as u32,
            kind,
        });
        off += size;
    }
    if off > globals.param_limit {
        let limit = globals.param_limit;
        return Err(LowerError::new(
            f.name.span,
            format!(
                "kernel parameters take {off} bytes; the limit is {limit}{}",
                limit_note(limit)
            ),
        ));
    }
    // Shared memory layout: module-scope then body declarations; extern (unsized) arrays start
    // after all static ones (dynamic shared memory).
    let mut shared_decls: Vec<&ast::VarDecl> = globals.shared.iter().collect();
    collect_decls(body, StateSpace::Shared, &mut shared_decls);
    let mut shared_top: u64 = 0;
    let mut dynamic: Vec<&ast::VarDecl> = vec![];
    let mut shared_vars: Vec<ir::SharedVar> = vec![];
    for d in &shared_decls {
        if d.init.is_some() {
            return Err(LowerError::new(
                d.span,
                format!(
                    "shared variable '{}' cannot have an initializer",
                    d.name.name
                ),
            ));
        }
        let align = d.align.unwrap_or(d.ty.size()).max(1) as u64;
        match decl_bytes(d, "shared variable") {
            Some(size) => {
                let size = size?;
                shared_top = align_up(shared_top, align);
                b.syms
                    .insert(d.name.name.clone(), Sym::Shared { offset: shared_top });
                shared_vars.push(ir::SharedVar {
                    name: d.name.name.clone(),
                    offset: shared_top,
                    size,
                });
                shared_top = shared_top.saturating_add(size);
            }
            None => {
                check_open_size(d, 0)?;
                dynamic.push(d)
            }
        }
    }
    // `.shared` variables of the functions the kernel may call.
    let reachable = graph.reachable(body, funcs);
    for name in &reachable {
        let Some(fbody) = funcs.get(name).and_then(|g| g.body.as_ref()) else {
            continue;
        };
        let mut decls: Vec<&ast::VarDecl> = vec![];
        collect_decls(fbody, StateSpace::Shared, &mut decls);
        for d in decls {
            if d.init.is_some() {
                return Err(LowerError::new(
                    d.span,
                    format!(
                        "shared variable '{}' cannot have an initializer",
                        d.name.name
                    ),
                ));
            }
            let align = d.align.unwrap_or(d.ty.size()).max(1) as u64;
            let off = match decl_bytes(d, "shared variable") {
                Some(size) => {
                    let size = size?;
                    shared_top = align_up(shared_top, align);
                    let off = shared_top;
                    shared_vars.push(ir::SharedVar {
                        name: d.name.name.clone(),
                        offset: off,
                        size,
                    });
                    shared_top = shared_top.saturating_add(size);
                    off
                }
                // An unsized `.extern .shared` array: dynamic shared memory (placed below).
                None => {
                    check_open_size(d, 0)?;
                    u64::MAX
                }
            };
            b.fn_shared.insert(d.span.start, off);
        }
    }
    if shared_top > 48 * 1024 {
        return Err(LowerError::new(
            f.name.span,
            format!(
                "kernel {} uses {} of static shared memory; the limit is 49152 \
                 (more than 48 KiB must be dynamic shared memory: an `extern __shared__` array \
                 and the cudaFuncAttributeMaxDynamicSharedMemorySize opt-in)",
                crate::ptx::names::quoted(&f.name.name),
                bytes_text(shared_top)
            ),
        ));
    }
    let dyn_base = align_up(shared_top, 16);
    // Whether the kernel uses dynamic shared memory: an `extern .shared` array that its body
    // or a function it may call names. NVRTC and nvcc declare the array at module scope, so
    // every kernel of such a module sees it, used or not.
    let names_it = |d: &&ast::VarDecl| {
        mentions(body, &d.name.name)
            || reachable.iter().any(|n| {
                funcs
                    .get(n)
                    .and_then(|g| g.body.as_ref())
                    .is_some_and(|fb| mentions(fb, &d.name.name))
            })
    };
    let mut dynamic_shared = dynamic.iter().any(names_it);
    for off in b.fn_shared.values_mut() {
        if *off == u64::MAX {
            *off = dyn_base;
            dynamic_shared = true;
        }
    }
    for d in dynamic {
        b.syms
            .insert(d.name.name.clone(), Sym::Shared { offset: dyn_base });
        shared_vars.push(ir::SharedVar {
            name: d.name.name.clone(),
            offset: dyn_base,
            size: 0,
        });
    }
    // Local memory layout (PTX ISA §5.1.5): per-thread `.local` variables, e.g. NVRTC's
    // `__local_depot0` stack frame.
    let mut local_decls: Vec<&ast::VarDecl> = vec![];
    collect_decls(body, StateSpace::Local, &mut local_decls);
    let mut local_top: u64 = 0;
    for d in &local_decls {
        // ptxas: "No initial value is allowed for 'x' in this state space" (PTX ISA §5.4.4:
        // only .global and .const variables take initializers).
        if d.init.is_some() {
            return Err(LowerError::new(
                d.span,
                format!(
                    "local variable '{}' cannot have an initializer",
                    d.name.name
                ),
            ));
        }
        let align = d.align.unwrap_or(d.ty.size()).max(1) as u64;
        let Some(size) = decl_bytes(d, "local variable") else {
            return Err(LowerError::new(
                d.span,
                format!("local variable '{}' needs a size", d.name.name),
            ));
        };
        let size = size?;
        local_top = align_up(local_top, align);
        b.syms
            .insert(d.name.name.clone(), Sym::Local { offset: local_top });
        local_top = local_top.saturating_add(size);
        b.note_local(local_top, size, d.span, || local_variable(d))?;
    }
    let mut max_threads = None;
    let mut req_ntid = None;
    for d in &f.directives {
        if (d.name == "maxntid" || d.name == "reqntid") && !d.args.is_empty() {
            if d.args.len() > 3 {
                return Err(LowerError::new(
                    d.span,
                    format!(".{} takes at most 3 dimensions", d.name),
                ));
            }
            let t: u64 = d.args.iter().product();
            let t = t.min(u32::MAX as u64) as u32;
            // The parser allows one of the two (`.maxntid` twice: the tighter limit holds).
            max_threads = Some(max_threads.map_or(t, |m: u32| m.min(t)));
            if d.name == "reqntid" {
                // PTX ISA §11.4.3: `.reqntid nx{, ny{, nz}}`, the exact CTA shape.
                let mut shape = [1u32; 3];
                for (s, &a) in shape.iter_mut().zip(&d.args) {
                    *s = a.min(u32::MAX as u64) as u32;
                }
                req_ntid = Some(shape);
            }
        }
    }
    let cluster = cluster_directives(f)?;

    b.local_top = local_top;
    b.cur = b.new_block();
    walk(&mut b, body)?;
    let mut local_top = b.local_top;
    // The call stack of recursive and indirect calls (`lower::recurse`), after everything else;
    // the launch sizes it.
    let mut call_stack = None;
    if !b.stack.checks.is_empty() {
        let base = align_up(local_top, 16);
        for &(blk, i) in &b.stack.bases {
            b.blocks[blk as usize].insts[i].op = ir::Op::Const { bits: base };
        }
        for &(blk, i) in &b.stack.checks {
            b.blocks[blk as usize].insts[i].op = ir::Op::CallCheck { base: base as u32 };
        }
        local_top = base;
        call_stack = Some(base);
    }
    if local_top > ir::MAX_LOCAL_BYTES_LOADED {
        // Only the call stack's base can have passed the limit here (the declarations and
        // call slots are checked as they are laid out).
        return Err(LowerError::new(
            f.name.span,
            format!(
                "kernel {} uses {} of local memory per thread before its call stack; a \
                 kernel may declare at most {} (and a launch needs at most {}: CUDA's 512 KiB \
                 per thread)",
                crate::ptx::names::quoted(&f.name.name),
                bytes_text(local_top),
                ir::MAX_LOCAL_BYTES_LOADED,
                ir::MAX_LOCAL_BYTES
            ),
        ));
    }
    // Falling off the end of a kernel body is an implicit exit.
    let end_loc = b.loc(Span::new(f.span.end as usize, f.span.end as usize));
    let cur = b.cur as usize;
    if matches!(b.blocks[cur].term, PTerm::Open) {
        b.blocks[cur].term = PTerm::Exit;
        b.blocks[cur].term_loc = end_loc;
    }
    for (name, (_, defined, span)) in &b.labels {
        if !defined {
            return Err(LowerError::new(
                *span,
                format!("branch to undefined label '{name}'"),
            ));
        }
    }
    // Blocks that fell through to a label were linked when the label was seen; any other open
    // block is unreachable and ends the thread.
    for blk in &mut b.blocks {
        if matches!(blk.term, PTerm::Open) {
            blk.term = PTerm::Exit;
        }
    }
    Ok(PreKernel {
        name: f.name.name.clone(),
        params,
        param_bytes: off as u32,
        vars: b.vars,
        blocks: b.blocks,
        static_shared_bytes: shared_top,
        dynamic_shared,
        local_bytes: local_top,
        call_stack,
        local_past: b.local_past,
        max_threads,
        req_ntid,
        cluster,
        shared_vars,
        call_frames: b.call_frames,
        span: f.name.span,
    })
}

/// The `.branchtargets` tables of a body (any nesting): each is a label statement followed by
/// the directive.
/// The `.callprototype` signatures of a body (any nesting): label → raw signature text.
pub(crate) fn prototypes(stmts: &[ast::Statement]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut last_label: Option<&str> = None;
    for s in stmts {
        match s {
            ast::Statement::Label(l) => last_label = Some(&l.name),
            ast::Statement::Directive(d) if d.name == "callprototype" => {
                if let (Some(l), Some(t)) = (last_label.take(), &d.text) {
                    out.insert(l.to_string(), t.clone());
                }
            }
            ast::Statement::Block(inner, _) => {
                out.extend(prototypes(inner));
                last_label = None;
            }
            _ => last_label = None,
        }
    }
    out
}

pub(crate) fn branch_tables(stmts: &[ast::Statement]) -> HashMap<String, Vec<ast::Ident>> {
    let mut out = HashMap::new();
    let mut last_label: Option<&str> = None;
    for s in stmts {
        match s {
            ast::Statement::Label(l) => last_label = Some(&l.name),
            ast::Statement::Directive(d)
                if d.name == "branchtargets" || d.name == "calltargets" =>
            {
                if let Some(l) = last_label.take() {
                    out.insert(l.to_string(), d.names.clone());
                }
            }
            ast::Statement::Block(inner, _) => {
                out.extend(branch_tables(inner));
                last_label = None;
            }
            _ => last_label = None,
        }
    }
    out
}

pub(crate) fn walk(b: &mut Builder, stmts: &[ast::Statement]) -> Result<(), LowerError> {
    // The names the scope's instructions mention, found at its first parameterized
    // declaration (`declare`).
    let mut used: Option<Vec<&str>> = None;
    for s in stmts {
        match s {
            ast::Statement::Decl(d) => declare(b, d, stmts, &mut used)?,
            ast::Statement::Label(l) => {
                let target = b.label_block(&l.name, l.span);
                if let Some(entry) = b.labels.get_mut(&l.name) {
                    if entry.1 {
                        return Err(LowerError::new(
                            l.span,
                            format!("label '{}' defined twice", l.name),
                        ));
                    }
                    entry.1 = true;
                }
                let loc = b.loc(l.span);
                let cur = b.cur as usize;
                b.blocks[cur].term = PTerm::Jump(target);
                b.blocks[cur].term_loc = loc;
                b.cur = target;
            }
            ast::Statement::Instruction(i) => {
                let i = super::vregs::expand(b, i)?;
                super::decode::instruction(b, &i)?
            }
            ast::Statement::Block(inner, _) => {
                b.scopes.push(Scope::default());
                let r = walk(b, inner);
                b.scopes.pop();
                r?;
            }
            ast::Statement::Loc { .. } | ast::Statement::Directive(_) => {}
        }
    }
    Ok(())
}

/// Lower declaration `d` of the scope whose statements are `stmts`; `used` caches the names
/// those statements mention ([`mentioned_names`]) for the scope's parameterized scalar
/// registers, which get a variable only for those names (see [`Scope`]).
fn declare<'s>(
    b: &mut Builder,
    d: &ast::VarDecl,
    stmts: &'s [ast::Statement],
    used: &mut Option<Vec<&'s str>>,
) -> Result<(), LowerError> {
    match d.space {
        StateSpace::Reg => {
            if !d.array.is_empty() {
                return Err(LowerError::new(
                    d.span,
                    format!(
                        "register '{}' is declared as an array: registers are scalars or \
                         vectors (.v2, .v4)",
                        d.name.name
                    ),
                ));
            }
            let lanes = d.vector.unwrap_or(1) as usize;
            // PTX ISA §5.4: a name is declared once in a scope (ptxas: "Duplicate definition
            // of variable '%r1'"); an inner `{ }` scope may declare it again. The names
            // declared: `d.name` alone, or `d.name` followed by 0 to count − 1 (§5.4.6),
            // compared as ranges (a kernel may declare a million registers and use a few).
            let (prefix, count) = (d.name.name.as_str(), d.count);
            let first_of = |n: &str| match count {
                Some(c) => member(prefix, c, n),
                None => (n == prefix).then_some(0),
            };
            // Component names (`lower::vregs`) exist only once a vector register has been
            // declared: without one, no name of the scope is one.
            let vectors = b.has_vector_regs;
            if let Some(scope) = b.scopes.last() {
                let named = scope.names.keys().filter_map(|n| {
                    let base = match vectors {
                        true => super::vregs::component_base(n).unwrap_or(n),
                        false => n,
                    };
                    first_of(base)
                });
                let ranged = scope.ranges.iter().filter_map(|(p, c)| match count {
                    Some(n) => range_overlap(prefix, n, p, *c),
                    None => member(p, *c, prefix).map(|_| 0),
                });
                if let Some(i) = named.chain(ranged).min() {
                    return Err(LowerError::new(
                        d.name.span,
                        format!(
                            "register '{}' is declared twice in this scope",
                            declared_name(prefix, count, i)
                        ),
                    ));
                }
            }
            // A kernel's parameters share the scope of its body's outermost block (ptxas:
            // "Duplicate definition of variable"); an inner `{ }` block may reuse the name.
            if b.scopes.len() == 1 {
                let first = b
                    .syms
                    .iter()
                    .filter(|(_, s)| matches!(s, Sym::Param { .. }))
                    .filter_map(|(n, _)| first_of(n))
                    .min();
                if let Some(i) = first {
                    return Err(LowerError::new(
                        d.name.span,
                        format!(
                            "register '{}' has the name of a parameter of this kernel",
                            declared_name(prefix, count, i)
                        ),
                    ));
                }
            }
            if d.vector.is_some() {
                // PTX ISA §5.4.2: .v2/.v4 of a non-predicate type, at most 128 bits.
                let bits = lanes * d.ty.size() as usize * 8;
                if d.ty == ast::ScalarType::Pred || bits > 128 || ![2, 4].contains(&lanes) {
                    return Err(LowerError::new(
                        d.span,
                        format!(
                            "vector register '{}' of .v{lanes} .{}: a vector has 2 or 4 \
                             elements of a non-predicate type, 128 bits at most",
                            d.name.name,
                            ptx_type_name(d.ty)
                        ),
                    ));
                }
                b.has_vector_regs = true;
            }
            if d.ty == ast::ScalarType::B128 {
                let names: Vec<String> = match d.count {
                    Some(n) => (0..n).map(|i| format!("{}{i}", d.name.name)).collect(),
                    None => vec![d.name.name.clone()],
                };
                for n in names {
                    let (lo, hi) = (b.new_var(Type::I64), b.new_var(Type::I64));
                    b.wide.insert(lo);
                    if let Some(scope) = b.scopes.last_mut() {
                        scope.insert(format!("{n}#hi"), hi);
                        scope.insert(n, lo);
                    }
                }
                return Ok(());
            }
            let ty = ir_type_of(d.ty).ok_or_else(|| {
                LowerError::unsupported(
                    d.span,
                    format!(
                        "register '{}' of type .{} is not supported yet",
                        d.name.name,
                        ptx_type_name(d.ty)
                    ),
                )
            })?;
            if let (Some(n), None) = (d.count, d.vector) {
                // A parameterized scalar: a range in the scope, and a variable for each of its
                // names the scope's instructions mention, in the order they first do (the
                // others are never looked up).
                let used = used.get_or_insert_with(|| mentioned_names(stmts));
                for name in used.iter().filter(|u| member(prefix, n, u).is_some()) {
                    let v = b.new_var(ty);
                    b.decl.insert(v, d.ty);
                    if let Some(scope) = b.scopes.last_mut() {
                        scope.names.insert(name.to_string(), v);
                    }
                }
                if let Some(scope) = b.scopes.last_mut() {
                    scope.ranges.push((prefix.to_string(), n));
                }
                return Ok(());
            }
            let names: Vec<String> = match d.count {
                Some(n) => (0..n).map(|i| format!("{}{i}", d.name.name)).collect(),
                None => vec![d.name.name.clone()],
            };
            for n in names {
                if d.vector.is_some() {
                    // One variable per component (`lower::vregs`).
                    for k in 0..lanes {
                        let v = b.new_var(ty);
                        b.decl.insert(v, d.ty);
                        if let Some(scope) = b.scopes.last_mut() {
                            scope.remove(&n);
                            scope.insert(super::vregs::component_name(&n, k), v);
                        }
                    }
                    continue;
                }
                let v = b.new_var(ty);
                b.decl.insert(v, d.ty);
                if let Some(scope) = b.scopes.last_mut() {
                    if vectors {
                        for k in 0..4 {
                            scope.remove(&super::vregs::component_name(&n, k));
                        }
                    }
                    scope.insert(n, v);
                }
            }
            Ok(())
        }
        // Shared and local declarations were laid out before the walk.
        StateSpace::Shared | StateSpace::Local => Ok(()),
        // Call parameters (`.param .b32 param0;` in a call sequence) live in per-thread local
        // memory; `ld.param`/`st.param` on them become local accesses.
        StateSpace::Param => {
            let size = match decl_bytes(d, "parameter") {
                Some(size) => size?,
                None => d.ty.size() as u64,
            };
            let align = d.align.unwrap_or(d.ty.size()).max(1) as u64;
            let off = b.alloc_local(size, align, d.span, || {
                format!(".param variable '{}'", d.name.name)
            })?;
            b.syms
                .insert(d.name.name.clone(), Sym::Local { offset: off });
            Ok(())
        }
        // Laid out with the module's variables (`Globals::statics`); the name now refers to it.
        StateSpace::Global | StateSpace::Const => {
            let Some(&index) = b.statics.get(&d.span) else {
                return Err(LowerError::new(
                    d.span,
                    format!("variable '{}' was not laid out", d.name.name),
                ));
            };
            let space = if d.space == StateSpace::Global {
                ir::Space::Global
            } else {
                ir::Space::Const
            };
            let before = b
                .syms
                .insert(d.name.name.clone(), Sym::Global { index, space });
            b.hidden.entry(d.name.name.clone()).or_insert(before);
            Ok(())
        }
        // ptxas 13.5: "Texture variables must be declared at module scope"; `.sreg` is no
        // declarable space (special registers are predefined, PTX ISA §10).
        StateSpace::Tex | StateSpace::Sreg | StateSpace::Generic => Err(LowerError::new(
            d.span,
            format!(
                "variable '{}': {} variables cannot be declared inside a function",
                d.name.name,
                space_word(d.space)
            ),
        )),
    }
}

/// The PTX name of a variable's state space (`.tex`), for errors.
fn space_word(s: StateSpace) -> &'static str {
    match s {
        StateSpace::Reg => ".reg",
        StateSpace::Sreg => ".sreg",
        StateSpace::Const => ".const",
        StateSpace::Global => ".global",
        StateSpace::Local => ".local",
        StateSpace::Param => ".param",
        StateSpace::Shared => ".shared",
        StateSpace::Tex => ".tex",
        StateSpace::Generic => "generic-space",
    }
}

/// A kernel's cluster directives (PTX ISA §11.5): `.reqnctapercluster` with one to three
/// dimensions, each at least 1 (missing ones 1), `.explicitcluster`, `.maxclusterrank n`
/// with n ≥ 1.
fn cluster_directives(f: &ast::Function) -> Result<ir::ClusterDirectives, LowerError> {
    let mut c = ir::ClusterDirectives::default();
    for d in &f.directives {
        let bad = |what: &str| {
            LowerError::new(
                f.name.span,
                format!("kernel '{}': .{} {what}", f.name.name, d.name),
            )
        };
        match d.name.as_str() {
            "reqnctapercluster" => {
                if d.args.is_empty() || d.args.len() > 3 {
                    return Err(bad("takes one to three dimensions"));
                }
                let mut dims = [1u32; 3];
                for (k, &a) in d.args.iter().enumerate() {
                    dims[k] = u32::try_from(a)
                        .ok()
                        .filter(|&x| x >= 1)
                        .ok_or_else(|| bad("needs dimensions of at least 1"))?;
                }
                c.reqnctapercluster = Some(dims);
            }
            "explicitcluster" => c.explicit = true,
            "maxclusterrank" => {
                let n = d
                    .args
                    .first()
                    .and_then(|&a| u32::try_from(a).ok())
                    .filter(|&x| x >= 1 && d.args.len() == 1)
                    .ok_or_else(|| bad("takes one count of at least 1"))?;
                c.max_rank = Some(n);
            }
            _ => {}
        }
    }
    Ok(c)
}
