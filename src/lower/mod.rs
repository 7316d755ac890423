//! Lowering: PTX AST → IR.
//!
//! Two steps per kernel:
//! 1. [`build`]: walk the statements, decode every instruction (opcode + modifiers + operands)
//!    into IR operations over *PTX registers* ("variables"), splitting the body into basic blocks
//!    at labels, branches and barriers. Guarded (`@p`) pure operations become `select`s;
//!    guarded operations with effects become a branch around them.
//! 2. [`ssa`]: turn variables into SSA values with block parameters (live-in variables become
//!    parameters; trivial parameters are removed).
//!
//! Errors name the construct and carry the PTX span (`file:line:col` when rendered).

mod build;
mod call;
mod collective;
mod decode;
mod devrt;
#[cfg(test)]
mod init_tests;
mod labels;
mod maxnreg;
#[cfg(test)]
mod memops_tests;
mod opsize;
#[cfg(test)]
mod opsize_tests;
mod param_guard;
mod recurse;
mod reducible;
#[cfg(test)]
mod regs_tests;
mod ssa;
#[cfg(test)]
mod video_tests;
mod vregs;
mod weak;
mod yields;

pub(crate) use decode::decoder_table;
#[cfg(test)]
pub(crate) use decode::instruction_sections;
/// `wgmma`'s K and immediate operands per input type (the fuzz generator's forms are checked
/// against it).
#[cfg(test)]
pub(crate) use decode::wgmma_operands;
/// The `tcgen05` operations the decoder dispatches on (the fuzz generator's coverage test).
#[cfg(test)]
pub(crate) use decode::TCGEN05_OPERATIONS;
/// The `mma` and matrix-move forms the decoder takes and whether a module header admits an
/// instruction (the fuzz generator draws its matrix forms from these).
#[cfg(feature = "fuzz")]
pub(crate) use decode::{admits, mma_forms, MoveTrans, MATRIX_MOVES};
/// What the decoder knows of matrix shapes and fragments (the fuzz generator's `mma`/`wmma`
/// forms take it from here).
#[cfg(feature = "fuzz")]
pub(crate) use decode::{wmma_accumulators, wmma_spec_of, WMMA_SHAPES};

use crate::ir;
use crate::ptx::ast;
use crate::ptx::span::{SourceMap, Span};

/// A lowering error: an unsupported or ill-formed construct, with its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerError {
    pub message: String,
    pub span: Span,
    /// True when the construct is valid PTX that ptxjit does not implement yet.
    pub unsupported: bool,
    /// True when the construct is a device-side kernel launch (CUDA dynamic parallelism),
    /// which ptxjit does not support; `unsupported` is true too. The driver API reports it
    /// as `CUDA_ERROR_CDP_NOT_SUPPORTED`.
    pub device_launch: bool,
}

impl LowerError {
    pub(crate) fn new(span: Span, message: impl Into<String>) -> LowerError {
        LowerError {
            message: message.into(),
            span,
            unsupported: false,
            device_launch: false,
        }
    }

    pub(crate) fn unsupported(span: Span, message: impl Into<String>) -> LowerError {
        LowerError {
            message: message.into(),
            span,
            unsupported: true,
            device_launch: false,
        }
    }

    /// A device-side kernel launch (CUDA dynamic parallelism), which ptxjit does not support.
    pub(crate) fn device_launch(span: Span, message: impl Into<String>) -> LowerError {
        LowerError {
            device_launch: true,
            ..LowerError::unsupported(span, message)
        }
    }

    /// `file:line:col: message`.
    pub fn render(&self, map: &SourceMap) -> String {
        let (l, c) = map.line_col(self.span.start);
        format!("{}:{l}:{c}: {}", map.name, self.message)
    }
}

/// Lower every `.entry` of a parsed module. Module-scope `.global`/`.const` variables are laid
/// out in `ir::Module::globals`.
pub fn lower_module(m: &ast::Module, map: &SourceMap) -> Result<ir::Module, LowerError> {
    // A name may be defined once (kernels, functions and variables share one namespace),
    // except that a linker keeps one of several `.weak`/`.common` definitions.
    let m = weak::resolve(m)?;
    let m: &ast::Module = &m;
    // Labels defined in several `{ }` blocks of one body: one name per block (and messages
    // name them as written).
    let m = labels::scope(m)?;
    lower_scoped(&m, map).map_err(labels::as_written)
}

/// [`lower_module`] after the weak definitions are resolved and the labels scoped.
fn lower_scoped(m: &ast::Module, map: &SourceMap) -> Result<ir::Module, LowerError> {
    lower_scoped_with(m, map, &mut |_| ())
}

/// How many variables (SSA construction's input, one per register a kernel's instructions
/// name, and temporaries) lowering made for each kernel of `m`, in order.
#[cfg(test)]
pub(crate) fn variables_per_kernel(
    m: &ast::Module,
    map: &SourceMap,
) -> Result<Vec<usize>, LowerError> {
    let m = weak::resolve(m)?;
    let m = labels::scope(&m)?;
    let mut out = vec![];
    lower_scoped_with(&m, map, &mut |k| out.push(k.vars.len())).map_err(labels::as_written)?;
    Ok(out)
}

/// [`lower_scoped`], showing `seen` each kernel as built, before SSA construction.
fn lower_scoped_with(
    m: &ast::Module,
    map: &SourceMap,
    seen: &mut dyn FnMut(&build::PreKernel),
) -> Result<ir::Module, LowerError> {
    param_guard::check(m)?;
    // Device functions by name: a definition wins over a prototype.
    let mut funcs: std::collections::HashMap<String, &ast::Function> =
        std::collections::HashMap::new();
    for item in &m.items {
        if let ast::Item::Function(f) = item {
            if f.kind == ast::FunctionKind::Func
                && (f.body.is_some() || !funcs.contains_key(&f.name.name))
            {
                funcs.insert(f.name.name.clone(), f);
            }
        }
    }
    // Device-runtime functions the module declares and does not define: ptxjit's own.
    for (name, f) in funcs.iter_mut() {
        if f.body.is_none() {
            if let Some(d) = devrt::function(name) {
                *f = d;
            }
        }
    }
    maxnreg::check(m, &funcs)?;
    let graph = recurse::call_graph(m, &funcs);
    let mut globals = build::Globals::new(m, &graph.addr)?;
    let mut kernels = vec![];
    for item in &m.items {
        if let ast::Item::Function(f) = item {
            if f.kind == ast::FunctionKind::Entry {
                let Some(body) = &f.body else {
                    continue;
                };
                let mut pre = build::build_kernel(f, body, &mut globals, map, &funcs, &graph)?;
                seen(&pre);
                reducible::make_reducible(&mut pre);
                yields::add_yields(&mut pre);
                let mut func = ssa::construct(pre)?;
                func.lockstep = build::target_sm(m).is_none_or(|sm| sm < 70);
                kernels.push(func);
            }
        }
    }
    Ok(ir::Module {
        kernels,
        global_bytes: globals.global_bytes,
        const_bytes: globals.const_bytes,
        globals: globals.vars,
        target_sm: build::target_sm(m),
    })
}
