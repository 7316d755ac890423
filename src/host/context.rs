//! The host API, in the shape of the CUDA driver API: a [`Context`] owns device memory; a
//! [`Module`] is loaded from PTX text (`cuModuleLoadData`) for one [`Engine`]; a [`Kernel`] is
//! looked up by name (`cuModuleGetFunction`); [`Context::launch`] runs it (`cuLaunchKernel`)
//! with typed arguments checked against the kernel's `.param` list.
//!
//! ```no_run
//! use ptxjit::host::{Context, Engine, KernelArg, LaunchDims};
//! let ptx = std::fs::read_to_string("saxpy.ptx").unwrap();
//! let mut ctx = Context::new();
//! let module = ctx.load_module(&ptx, "saxpy.ptx", Engine::Jit).unwrap();
//! let kernel = module.kernel("saxpy").unwrap();
//! let x = ctx.alloc(4 * 1024, Some("x")).unwrap();
//! ctx.copy_htod(x, &vec![0u8; 4096]).unwrap();
//! let dims = LaunchDims { grid: [4, 1, 1], block: [256, 1, 1], shared_bytes: 0 };
//! ctx.launch(&kernel, dims, &[KernelArg::U32(1024), KernelArg::F32(2.0), KernelArg::Ptr(x)],
//!            &Default::default()).unwrap();
//! ```

use crate::ir::{self, ParamKind, SrcLoc};
use crate::ptx::span::SourceMap;
use crate::runtime::env::{FaultKind, FaultRecord};
use crate::runtime::launch::{run_grid, LaunchDims, LaunchFailure, LaunchInput, Sites, WarpEngine};
use crate::runtime::memory::{DeviceMemory, DevicePtr};
use crate::runtime::texture::{ResourceDesc, TextureDesc};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which engine executes kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    /// The Cranelift JIT (default).
    #[default]
    Jit,
    /// The reference interpreter.
    Interp,
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Jit => "jit",
            Engine::Interp => "interp",
        })
    }
}

/// A fault, reported in kernel terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultReport {
    pub kernel: String,
    pub kind: FaultKind,
    pub space: ir::Space,
    pub addr: u64,
    pub size: u32,
    pub write: bool,
    pub ctaid: [u32; 3],
    pub tid: [u32; 3],
    /// PTX source location and instruction text.
    pub loc: SrcLoc,
    pub instruction: String,
    pub ptx_file: String,
    /// Memcheck: nearest allocation label and the address's offset from its start.
    pub nearest: Option<(String, i64, u64)>,
    /// How many faulting accesses were recorded in total. A lower bound on the faulting
    /// threads' accesses: the JIT performs a warp-uniform access (e.g. `ld.param`) once per
    /// warp, and a launch stops soon after its first fault.
    pub count: u64,
    /// Text the fault carries ([`FaultKind::Assert`]: the assertion, file, line, function).
    pub detail: Option<String>,
}

impl FaultReport {
    /// Whether two reports describe the same fault (everything but [`count`](Self::count)).
    pub fn same_fault(&self, other: &FaultReport) -> bool {
        FaultReport {
            count: other.count,
            ..self.clone()
        } == *other
    }
}

impl std::fmt::Display for FaultReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let access = if self.write { "store" } else { "load" };
        // What happened; memory accesses also name the nearest allocation and the count.
        let (what, memory) = match self.kind {
            FaultKind::OutOfBounds
            | FaultKind::Misaligned
            | FaultKind::Unallocated
            | FaultKind::Unsupported => {
                // An access that starts inside an allocation and runs past its end (a vector
                // straddling the end of a buffer) says by how much.
                let past_end = match &self.nearest {
                    Some((label, off, asize)) if *off >= 0 && (*off as u64) < *asize => {
                        let over = (*off as u64 + u64::from(self.size)).saturating_sub(*asize);
                        (over > 0).then(|| {
                            format!("out of bounds ({over} bytes past the end of '{label}')")
                        })
                    }
                    _ => None,
                };
                let kind = match (self.kind, past_end) {
                    (FaultKind::Unallocated, Some(text)) => text,
                    (FaultKind::OutOfBounds, _) => "out of bounds".into(),
                    (FaultKind::Misaligned, _) => "misaligned".into(),
                    (FaultKind::Unallocated, None) => "out of bounds (no live allocation)".into(),
                    _ => "unsupported address window".into(),
                };
                // Addresses in the first page are almost always a null pointer plus an offset.
                // (Shared, local and const addresses start at 0: no hint there.)
                let flat = matches!(self.space, ir::Space::Global | ir::Space::Generic);
                let null = if self.addr < 4096 && self.kind == FaultKind::OutOfBounds && flat {
                    " (a null pointer)"
                } else {
                    ""
                };
                let what = format!(
                    "{kind} {access} of {} bytes at {} address {:#x}{null}",
                    self.size, self.space, self.addr
                );
                (what, true)
            }
            FaultKind::Barrier => (
                format!(
                    "invalid barrier operand {} (ids are 0..15, thread counts multiples of 32)",
                    self.addr
                ),
                false,
            ),
            FaultKind::MemberMask => (
                format!(
                    "the executing thread is not in its membermask {:#010x} (undefined in PTX)",
                    self.addr
                ),
                false,
            ),
            FaultKind::StackOverflow => (
                format!(
                    "call stack overflow: a call at depth {} needs more than the {}-byte \
                     per-thread call stack",
                    self.addr, self.size
                ),
                false,
            ),
            FaultKind::BadCallTarget => (
                format!(
                    "indirect call through {:#x}, which is not the address of a function this \
                     call may reach",
                    self.addr
                ),
                false,
            ),
            FaultKind::BadHandle => (
                format!(
                    "invalid texture/surface handle {:#x} (never created, destroyed, or of \
                     another kind)",
                    self.addr
                ),
                false,
            ),
            FaultKind::SurfaceBounds => (
                format!(
                    "surface {access} of {} bytes out of range (.trap) at x = {} bytes",
                    self.size, self.addr as i64
                ),
                false,
            ),
            FaultKind::Trap => ("trap".to_string(), false),
            FaultKind::BadFree => (
                format!(
                    "free of {:#x}, which is not a live device-heap block (never allocated, \
                     already freed, or inside a block)",
                    self.addr
                ),
                false,
            ),
            FaultKind::Assert => (
                format!(
                    "assertion failed: {}",
                    self.detail.as_deref().unwrap_or("(no message)")
                ),
                false,
            ),
        };
        write!(
            f,
            "{}:{}:{}: fault in kernel '{}': {what} by CTA ({},{},{}) thread ({},{},{}) in '{}'",
            self.ptx_file,
            self.loc.line,
            self.loc.col,
            self.kernel,
            self.ctaid[0],
            self.ctaid[1],
            self.ctaid[2],
            self.tid[0],
            self.tid[1],
            self.tid[2],
            self.instruction
        )?;
        if memory {
            if let Some((label, off, size)) = &self.nearest {
                write!(
                    f,
                    "; nearest allocation '{label}' ({size} bytes), offset {off}"
                )?;
            }
            if self.count > 1 {
                write!(f, " ({} faulting accesses in all)", self.count)?;
            }
        } else if self.kind == FaultKind::Trap && self.count > 1 {
            write!(f, " ({} faults in all)", self.count)?;
        }
        Ok(())
    }
}

/// Every error of the host API. [`Error::kind`] gives the short name used by case files.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Malformed PTX: `file:line:col: message`.
    #[error("{0}")]
    Parse(String),
    /// Valid PTX that ptxjit does not support yet: `file:line:col: message`.
    #[error("{0}")]
    Unsupported(String),
    /// Ill-formed PTX caught after parsing (undeclared register, type mismatch …).
    #[error("{0}")]
    Invalid(String),
    #[error("no kernel named '{name}' in {file} ({available})")]
    UnknownKernel {
        name: String,
        file: String,
        available: String,
    },
    /// Wrong number or types of kernel arguments.
    #[error("{0}")]
    Argument(String),
    /// Launch configuration outside the device limits.
    #[error("{0}")]
    LaunchConfig(String),
    /// Device memory API misuse (bad pointer, out of memory).
    #[error("{0}")]
    Memory(String),
    /// A kernel thread faulted.
    #[error("{0}")]
    Fault(Box<FaultReport>),
    /// The launch ran past its time limit: kernel, limit, and where the warps were (PTX
    /// lines, one CTA per paragraph).
    #[error("kernel '{0}' exceeded the time limit of {1:?}; the warps were at:\n{2}")]
    Timeout(String, Duration, String),
    /// The launch was interrupted (`runtime::launch::INTERRUPT`, Ctrl-C in the CLI): kernel,
    /// and where the warps were.
    #[error("kernel '{0}' interrupted; the warps were at:\n{1}")]
    Interrupted(String, String),
    /// A CTA could make no progress (a barrier that can never complete, a divergent
    /// `bar.sync`): `file: kernel 'k': report` naming the barriers' PTX lines and the warps.
    #[error("{0}")]
    Deadlock(String),
    /// An internal compiler error (JIT); a bug in ptxjit.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// `parse`, `unsupported`, `invalid`, `unknown_kernel`, `argument`, `launch_config`,
    /// `memory`, `fault`, `timeout`, `interrupted`, `deadlock`, `internal`.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Parse(_) => "parse",
            Error::Unsupported(_) => "unsupported",
            Error::Invalid(_) => "invalid",
            Error::UnknownKernel { .. } => "unknown_kernel",
            Error::Argument(_) => "argument",
            Error::LaunchConfig(_) => "launch_config",
            Error::Memory(_) => "memory",
            Error::Fault(_) => "fault",
            Error::Timeout(..) => "timeout",
            Error::Interrupted(..) => "interrupted",
            Error::Deadlock(_) => "deadlock",
            Error::Internal(_) => "internal",
        }
    }
}

/// A kernel argument (`cuLaunchKernel`'s `kernelParams`, typed).
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    S8(i8),
    S16(i16),
    S32(i32),
    S64(i64),
    F32(f32),
    F64(f64),
    /// A device pointer (a `.u64`/`.b64`/`.s64` parameter).
    Ptr(DevicePtr),
    /// A struct passed by value (a `.param .align A .b8 name[N]` parameter): the fields in
    /// declaration order, laid out as a C compiler lays out the struct: each field at the next
    /// multiple of its alignment (a scalar's or pointer's size; a nested struct's largest
    /// field alignment), the size rounded up to the struct's alignment. Its size must be `N`.
    Struct(Vec<KernelArg>),
}

impl KernelArg {
    fn describe(&self) -> String {
        match self {
            KernelArg::U8(_) => "a u8".into(),
            KernelArg::U16(_) => "a u16".into(),
            KernelArg::U32(_) => "a u32".into(),
            KernelArg::U64(_) => "a u64".into(),
            KernelArg::S8(_) => "an s8".into(),
            KernelArg::S16(_) => "an s16".into(),
            KernelArg::S32(_) => "an s32".into(),
            KernelArg::S64(_) => "an s64".into(),
            KernelArg::F32(_) => "an f32".into(),
            KernelArg::F64(_) => "an f64".into(),
            KernelArg::Ptr(_) => "a device pointer".into(),
            KernelArg::Struct(_) => format!("a struct of {} bytes", self.bytes().0.len()),
        }
    }

    /// The bytes a parameter buffer holds for this argument (a struct laid out as in C).
    #[cfg(test)]
    pub(crate) fn bytes_for_test(&self) -> Vec<u8> {
        self.bytes().0
    }

    /// The alignment of the value in a C struct (bytes).
    fn align(&self) -> usize {
        match self {
            KernelArg::Struct(fields) => fields.iter().map(KernelArg::align).max().unwrap_or(1),
            other => other.bytes().0.len(),
        }
    }

    /// (bytes, is_float, is_pointer).
    fn bytes(&self) -> (Vec<u8>, bool, bool) {
        match *self {
            KernelArg::Struct(ref fields) => {
                let mut out = vec![];
                for f in fields {
                    let a = f.align();
                    out.resize(out.len().div_ceil(a) * a, 0);
                    out.extend(f.bytes().0);
                }
                let a = self.align();
                out.resize(out.len().div_ceil(a) * a, 0);
                (out, false, false)
            }
            KernelArg::U8(v) => (v.to_le_bytes().to_vec(), false, false),
            KernelArg::U16(v) => (v.to_le_bytes().to_vec(), false, false),
            KernelArg::U32(v) => (v.to_le_bytes().to_vec(), false, false),
            KernelArg::U64(v) => (v.to_le_bytes().to_vec(), false, false),
            KernelArg::S8(v) => (v.to_le_bytes().to_vec(), false, false),
            KernelArg::S16(v) => (v.to_le_bytes().to_vec(), false, false),
            KernelArg::S32(v) => (v.to_le_bytes().to_vec(), false, false),
            KernelArg::S64(v) => (v.to_le_bytes().to_vec(), false, false),
            KernelArg::F32(v) => (v.to_le_bytes().to_vec(), true, false),
            KernelArg::F64(v) => (v.to_le_bytes().to_vec(), true, false),
            KernelArg::Ptr(p) => (p.0.to_le_bytes().to_vec(), false, true),
        }
    }
}

/// Launch options.
#[derive(Clone, Debug, Default)]
pub struct LaunchOptions {
    /// Check global accesses against live allocations (compute-sanitizer memcheck style).
    pub memcheck: bool,
    /// Stop the launch with [`Error::Timeout`] after this long.
    pub timeout: Option<Duration>,
}

/// What a successful launch reports.
#[derive(Clone, Copy, Debug)]
pub struct LaunchReport {
    /// Wall time of the launch.
    pub elapsed: Duration,
    /// Warp calls into the engine.
    pub warp_runs: u64,
    /// How many worker threads (cores) ran CTAs of this launch.
    pub workers: u32,
    /// Thread-instructions executed (IR instructions and terminators × active lanes), counted
    /// by the interpreter; 0 from the JIT.
    pub thread_instructions: u64,
}

/// One compiled kernel: IR facts the runtime needs and the engine that runs it.
pub struct CompiledKernel {
    pub name: String,
    pub params: Vec<ir::KernelParam>,
    pub param_bytes: u32,
    pub static_shared_bytes: u64,
    pub local_bytes: u64,
    pub max_threads: Option<u32>,
    /// PTX location of each IR instruction, then of each block's terminator (fault records
    /// index terminators as `env::terminator_fault_index`).
    pub inst_locs: Vec<SrcLoc>,
    /// PTX text of each IR instruction, then of each block's terminator.
    pub inst_ptx: Vec<String>,
    /// Whether the kernel calls `malloc`/`free` (a launch then needs the device heap).
    pub uses_heap: bool,
    pub engine: Box<dyn WarpEngine>,
}

/// A loaded PTX module.
pub struct Module {
    pub file: String,
    pub engine: Engine,
    pub kernels: Vec<Arc<CompiledKernel>>,
    /// Device addresses of the module's variables (SymAddr table).
    pub symbols: Arc<Vec<u64>>,
    /// Time spent parsing, lowering and compiling.
    pub compile_time: Duration,
    /// The verified IR of each kernel (for `dump --ir`).
    pub ir_text: Vec<String>,
    /// Module-scope `.texref`/`.samplerref`/`.surfref` variables: name, kind and the device
    /// address of the 8 bytes that hold the bound handle.
    pub handle_vars: Vec<(String, ir::HandleKind, u64)>,
    /// The sampler state of each initialized `.texref` (PTX ISA §5.3: unified mode's
    /// `filter_mode`, `addr_mode_N`, `normalized_coords`; other fields at CUDA's defaults).
    pub texref_samplers: Vec<(String, TextureDesc)>,
    /// Module-scope `.global` and `.const` variables: name, device address, size in bytes.
    pub globals: Vec<(String, DevicePtr, u64)>,
    /// Bytes of the module's `.const` variables (its user constant bank).
    pub const_bytes: u64,
}

/// A kernel handle (`CUfunction`).
#[derive(Clone)]
pub struct Kernel {
    pub module_file: String,
    pub compiled: Arc<CompiledKernel>,
    pub symbols: Arc<Vec<u64>>,
}

impl Module {
    /// The sampler state the initializer of `.texref` `name` gives (PTX ISA §5.3), `None`
    /// when it has none. [`Context::bind_texref`] takes the sampler state whole: pass this one
    /// (changed where the binding should differ) to keep the initializer's.
    pub fn texref_sampler(&self, name: &str) -> Option<TextureDesc> {
        self.texref_samplers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| *d)
    }

    /// The device address and size in bytes of the module's `.global` or `.const` variable
    /// `name` (`cuModuleGetGlobal`; a `__device__` or `__constant__` variable), to fill or read
    /// with [`Context::copy_htod`]/[`Context::copy_dtoh`] as `cudaMemcpyToSymbol` would.
    pub fn global(&self, name: &str) -> Option<(DevicePtr, u64)> {
        self.globals
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, p, s)| (*p, *s))
    }

    /// The kernel named `name`. Errors: [`Error::UnknownKernel`] listing the kernels there are.
    pub fn kernel(&self, name: &str) -> Result<Kernel, Error> {
        match self.kernels.iter().find(|k| k.name == name) {
            Some(k) => Ok(Kernel {
                module_file: self.file.clone(),
                compiled: k.clone(),
                symbols: self.symbols.clone(),
            }),
            None => Err(Error::UnknownKernel {
                name: name.to_string(),
                file: self.file.clone(),
                available: if self.kernels.is_empty() {
                    "the module has no .entry kernels".to_string()
                } else {
                    format!(
                        "kernels: {}",
                        self.kernels
                            .iter()
                            .map(|k| k.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
            }),
        }
    }
}

/// A device context: global memory and loaded modules' data.
#[derive(Default)]
pub struct Context {
    pub memory: DeviceMemory,
    /// Texture, sampler and surface objects (`runtime::texture`).
    pub textures: crate::runtime::texture::TextureTable,
    /// The device heap, made before the first launch of a kernel that uses `malloc`/`free`.
    heap: Option<crate::runtime::heap::DeviceHeap>,
    /// Its size when made (`None`: [`crate::runtime::heap::DEFAULT_HEAP_BYTES`]).
    heap_bytes: Option<u64>,
}

/// Parse, lower and verify PTX text. `file` names it in messages.
pub fn front_end(
    ptx: &str,
    file: &str,
) -> Result<(ir::Module, Vec<ir::verify::VerifiedFunction>), Error> {
    let map = SourceMap::new(file, ptx);
    let ast = crate::ptx::parse(ptx).map_err(|e| Error::Parse(e.render(&map)))?;
    let mut m = crate::lower::lower_module(&ast, &map).map_err(|e| {
        if e.unsupported {
            Error::Unsupported(e.render(&map))
        } else {
            Error::Invalid(e.render(&map))
        }
    })?;
    let kernels = std::mem::take(&mut m.kernels);
    let mut verified = vec![];
    for k in kernels {
        let v = ir::verify::verify(k).map_err(|e| Error::Internal(format!("{file}: {e}")))?;
        verified.push(v);
    }
    Ok((m, verified))
}

impl Context {
    pub fn new() -> Context {
        Context::default()
    }

    /// Load a module from PTX text for `engine` (`cuModuleLoadData`): parse, lower, verify and
    /// compile every kernel, and allocate and initialize the module's `.global` variables.
    ///
    /// Errors: [`Error::Parse`], [`Error::Unsupported`], [`Error::Invalid`] with
    /// `file:line:col`; [`Error::Internal`] for a compiler bug.
    pub fn load_module(&mut self, ptx: &str, file: &str, engine: Engine) -> Result<Module, Error> {
        let start = Instant::now();
        let (m, kernels) = front_end(ptx, file)?;
        let mut symbols = vec![0u64; m.globals.len()];
        for (i, g) in m.globals.iter().enumerate() {
            // Const banks live in the global arena too (see runtime::env).
            if g.space == ir::Space::Global || g.space == ir::Space::Const {
                let p = self
                    .memory
                    .alloc(g.size.max(1), Some(&g.name))
                    .map_err(Error::Memory)?;
                if !g.init.is_empty() {
                    self.memory.write(p, &g.init).map_err(Error::Memory)?;
                }
                symbols[i] = p.0;
            }
        }
        let mut compiled = vec![];
        let mut ir_text = vec![];
        for k in kernels {
            ir_text.push(ir::print::print_function(&k));
            let layout = crate::analysis::schedule::schedule(&k).map_err(|e| {
                Error::Unsupported(format!(
                    "{file}:{}:{}: {}",
                    e.loc.line, e.loc.col, e.message
                ))
            })?;
            let engine_box: Box<dyn WarpEngine> =
                match engine {
                    Engine::Jit => Box::new(crate::jit::compile(&k).map_err(|e| {
                        Error::Internal(format!("{file}: kernel '{}': {e}", k.name))
                    })?),
                    Engine::Interp => {
                        Box::new(crate::interp::Interpreter::new(&k, layout).map_err(|e| {
                            Error::Internal(format!("{file}: kernel '{}': {e}", k.name))
                        })?)
                    }
                };
            compiled.push(Arc::new(CompiledKernel {
                name: k.name.clone(),
                params: k.params.clone(),
                param_bytes: k.param_bytes,
                static_shared_bytes: k.static_shared_bytes,
                local_bytes: k.local_bytes,
                max_threads: k.max_threads,
                inst_locs: k
                    .inst_locs
                    .iter()
                    .copied()
                    .chain(k.blocks.iter().map(|b| b.term_loc))
                    .collect(),
                inst_ptx: k
                    .inst_ptx
                    .iter()
                    .cloned()
                    .chain(k.blocks.iter().map(|b| terminator_ptx(&b.term).to_string()))
                    .collect(),
                uses_heap: k
                    .insts
                    .iter()
                    .any(|i| matches!(i.op, ir::Op::Malloc {} | ir::Op::Free {})),
                engine: engine_box,
            }));
        }
        // Initialized `.samplerref` variables: create the sampler now. Initialized `.texref`
        // variables: keep the state for their binding.
        let mut texref_samplers = vec![];
        for (g, &a) in m.globals.iter().zip(&symbols) {
            let Some(init) = g.sampler_init else { continue };
            match g.handle {
                Some(ir::HandleKind::Sampler) => {
                    let h = self.create_sampler(sampler_state(init));
                    self.copy_htod(DevicePtr(a), &h.to_le_bytes())?;
                }
                Some(ir::HandleKind::Texture) => {
                    texref_samplers.push((g.name.clone(), sampler_state(init)))
                }
                Some(ir::HandleKind::Surface) | None => {}
            }
        }
        let handle_vars = m
            .globals
            .iter()
            .zip(&symbols)
            .filter_map(|(g, &a)| g.handle.map(|k| (g.name.clone(), k, a)))
            .collect();
        let globals = m
            .globals
            .iter()
            .zip(&symbols)
            .filter(|(g, _)| matches!(g.space, ir::Space::Global | ir::Space::Const))
            .filter(|(g, _)| g.handle.is_none())
            .map(|(g, &a)| (g.name.clone(), DevicePtr(a), g.size))
            .collect();
        Ok(Module {
            file: file.to_string(),
            engine,
            kernels: compiled,
            globals,
            const_bytes: m.const_bytes,
            symbols: Arc::new(symbols),
            compile_time: start.elapsed(),
            ir_text,
            handle_vars,
            texref_samplers,
        })
    }

    /// Allocate `bytes` of zeroed device memory (`cuMemAlloc`); `label` names it in memcheck
    /// reports. Errors: [`Error::Memory`].
    pub fn alloc(&mut self, bytes: u64, label: Option<&str>) -> Result<DevicePtr, Error> {
        self.memory.alloc(bytes, label).map_err(Error::Memory)
    }

    /// Free device memory (`cuMemFree`).
    pub fn free(&mut self, p: DevicePtr) -> Result<(), Error> {
        self.memory.free(p).map_err(Error::Memory)
    }

    /// Copy host → device (`cuMemcpyHtoD`).
    pub fn copy_htod(&mut self, dst: DevicePtr, src: &[u8]) -> Result<(), Error> {
        self.memory.write(dst, src).map_err(Error::Memory)
    }

    /// Copy device → host (`cuMemcpyDtoH`).
    pub fn copy_dtoh(&self, dst: &mut [u8], src: DevicePtr) -> Result<(), Error> {
        self.memory.read(src, dst).map_err(Error::Memory)
    }

    /// Create a texture object (`cudaCreateTextureObject`): its handle is the value of a
    /// `.u64` kernel parameter (`cudaTextureObject_t`). Errors: [`Error::Argument`] for an
    /// invalid resource or sampler state (see `TextureTable::create_texture`).
    pub fn create_texture_object(
        &mut self,
        res: ResourceDesc,
        tex: TextureDesc,
    ) -> Result<u64, Error> {
        self.textures
            .create_texture(&self.memory, res, tex)
            .map_err(|e| Error::Argument(format!("texture object: {e}")))
    }

    /// Allocate device memory for a resource of this shape (`cudaMalloc3DArray` /
    /// `cudaMallocMipmappedArray`): dense rows, `levels` mipmap levels one after the other.
    /// Returns the resource, whose memory is filled with [`Context::copy_htod`] at `ptr`.
    /// Errors: [`Error::Argument`] for an invalid shape, [`Error::Memory`].
    #[allow(clippy::too_many_arguments)]
    pub fn alloc_array(
        &mut self,
        kind: crate::runtime::texture::ResourceKind,
        format: crate::runtime::texture::ChannelFormat,
        dims: [u32; 3],
        layers: u32,
        levels: u32,
        label: Option<&str>,
    ) -> Result<ResourceDesc, Error> {
        let mut desc = ResourceDesc::new(kind, DevicePtr(0), format, dims);
        desc.layers = layers;
        desc.mip_levels = levels;
        let size = crate::runtime::texture::Resource::layout(desc)
            .map_err(|e| Error::Argument(format!("array: {e}")))?
            .size_bytes();
        desc.ptr = self.alloc(size.max(1), label)?;
        Ok(desc)
    }

    /// Create a surface object (`cudaCreateSurfaceObject`). Errors: [`Error::Argument`].
    pub fn create_surface_object(&mut self, res: ResourceDesc) -> Result<u64, Error> {
        self.textures
            .create_surface(&self.memory, res)
            .map_err(|e| Error::Argument(format!("surface object: {e}")))
    }

    /// Create a sampler (the state of an independent-mode `.samplerref`).
    pub fn create_sampler(&mut self, tex: TextureDesc) -> u64 {
        self.textures.create_sampler(tex)
    }

    /// Destroy a texture, sampler or surface object; kernels that still use its handle fault.
    /// Errors: [`Error::Argument`] when `handle` is not live.
    pub fn destroy_object(&mut self, handle: u64) -> Result<(), Error> {
        self.textures.destroy(handle).map_err(Error::Argument)
    }

    /// The address of `module`'s handle variable `name` of `kind`.
    fn handle_var(&self, module: &Module, name: &str, kind: ir::HandleKind) -> Result<u64, Error> {
        match module.handle_vars.iter().find(|(n, _, _)| n == name) {
            Some((_, k, a)) if *k == kind => Ok(*a),
            Some((_, k, _)) => Err(Error::Argument(format!(
                "'{name}' in {} is a .{k}, not a .{kind}",
                module.file
            ))),
            None => Err(Error::Argument(format!(
                "no .{kind} variable '{name}' in {} (there are: {})",
                module.file,
                module
                    .handle_vars
                    .iter()
                    .map(|(n, k, _)| format!("{n} (.{k})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Bind a texture to `module`'s `.texref` variable `name` (`cuTexRefSetArray` and the
    /// sampler setters; in unified mode the sampler state comes with it): creates a texture
    /// object and stores its handle in the variable. Returns the handle. `tex` is the whole
    /// sampler state, so it wins over the variable's initializer; start from
    /// [`Module::texref_sampler`] to keep the initializer's fields.
    pub fn bind_texref(
        &mut self,
        module: &Module,
        name: &str,
        res: ResourceDesc,
        tex: TextureDesc,
    ) -> Result<u64, Error> {
        let addr = self.handle_var(module, name, ir::HandleKind::Texture)?;
        let h = self.create_texture_object(res, tex)?;
        self.copy_htod(DevicePtr(addr), &h.to_le_bytes())?;
        Ok(h)
    }

    /// Bind sampler state to `module`'s `.samplerref` variable `name` (independent mode).
    pub fn bind_samplerref(
        &mut self,
        module: &Module,
        name: &str,
        tex: TextureDesc,
    ) -> Result<u64, Error> {
        let addr = self.handle_var(module, name, ir::HandleKind::Sampler)?;
        let h = self.create_sampler(tex);
        self.copy_htod(DevicePtr(addr), &h.to_le_bytes())?;
        Ok(h)
    }

    /// Bind a surface to `module`'s `.surfref` variable `name`.
    pub fn bind_surfref(
        &mut self,
        module: &Module,
        name: &str,
        res: ResourceDesc,
    ) -> Result<u64, Error> {
        let addr = self.handle_var(module, name, ir::HandleKind::Surface)?;
        let h = self.create_surface_object(res)?;
        self.copy_htod(DevicePtr(addr), &h.to_le_bytes())?;
        Ok(h)
    }

    /// Set the device heap's size in bytes (CUDA's `cudaDeviceSetLimit(cudaLimitMallocHeapSize,
    /// bytes)`; 8 MiB by default). Errors ([`Error::Memory`]): after a kernel using `malloc`
    /// has run (the heap exists), as in CUDA.
    pub fn set_heap_size(&mut self, bytes: u64) -> Result<(), Error> {
        if self.heap.is_some() {
            return Err(Error::Memory(
                "the device heap size can only be set before a kernel using malloc runs".into(),
            ));
        }
        self.heap_bytes = Some(bytes);
        Ok(())
    }

    /// Free every block of the device heap (blocks that kernels allocated and never freed
    /// included); the heap keeps its size. The case runner does this before each `--repeat`
    /// launch, so each starts as the first did.
    pub fn reset_heap(&mut self) {
        if let Some(h) = &mut self.heap {
            *h = crate::runtime::heap::DeviceHeap::new(h.base(), h.size());
        }
    }

    /// Launch `kernel` (`cuLaunchKernel`) and wait for it.
    ///
    /// Checks: grid dimensions ≥ 1 (x < 2³¹, y and z ≤ 65535), block dimensions ≥ 1 with
    /// x, y ≤ 1024, z ≤ 64 and at most 1024 threads (or the kernel's `.maxntid`), dynamic +
    /// static shared memory ≤ 48 KiB, and `args` against the kernel's parameters (count, then
    /// each one's kind and size). Errors: [`Error::LaunchConfig`], [`Error::Argument`],
    /// [`Error::Fault`] with the first fault's report, [`Error::Timeout`].
    pub fn launch(
        &mut self,
        kernel: &Kernel,
        dims: LaunchDims,
        args: &[KernelArg],
        opts: &LaunchOptions,
    ) -> Result<LaunchReport, Error> {
        let params = pack_args(&kernel.compiled, args)?;
        self.launch_with_params(kernel, dims, params, opts)
    }

    /// Launch `kernel` with its parameter buffer as bytes (`cuLaunchKernel`'s view: each
    /// parameter at its `.param` offset, [`CompiledKernel::params`]); the buffer must be
    /// [`CompiledKernel::param_bytes`] long. Checks and errors as [`Context::launch`], without
    /// the per-argument type check (the bytes have no types).
    pub fn launch_with_params(
        &mut self,
        kernel: &Kernel,
        dims: LaunchDims,
        mut params: Vec<u8>,
        opts: &LaunchOptions,
    ) -> Result<LaunchReport, Error> {
        let k = &kernel.compiled;
        check_dims(k, dims)?;
        let want = k.param_bytes.max(1) as usize;
        if params.len() < want {
            if params.len() as u32 == k.param_bytes {
                params.resize(want, 0);
            } else {
                return Err(Error::Argument(format!(
                    "kernel '{}' takes {} bytes of parameters, got {}",
                    k.name,
                    k.param_bytes,
                    params.len()
                )));
            }
        }
        if k.uses_heap && self.heap.is_none() {
            let bytes = self
                .heap_bytes
                .unwrap_or(crate::runtime::heap::DEFAULT_HEAP_BYTES)
                .max(crate::runtime::heap::HEAP_ALIGN);
            let p = self
                .memory
                .alloc(bytes, Some("device heap"))
                .map_err(Error::Memory)?;
            self.heap = Some(crate::runtime::heap::DeviceHeap::new(p.0, bytes));
        }
        let start = Instant::now();
        let res = run_grid(
            k.engine.as_ref(),
            LaunchInput {
                dims,
                static_shared: k.static_shared_bytes,
                local_bytes: k.local_bytes,
                params: &mut params,
                symbols: &kernel.symbols,
                memory: &self.memory,
                textures: &self.textures,
                heap: self.heap.as_ref().filter(|_| k.uses_heap),
                memcheck: opts.memcheck,
                timeout: opts.timeout,
                sites: Sites {
                    locs: &k.inst_locs,
                    ptx: &k.inst_ptx,
                },
            },
        );
        match res {
            Ok(stats) => Ok(LaunchReport {
                elapsed: start.elapsed(),
                warp_runs: stats.warp_runs,
                workers: stats.workers,
                thread_instructions: stats.thread_instructions,
            }),
            Err(LaunchFailure::Timeout(at)) => Err(Error::Timeout(
                k.name.clone(),
                opts.timeout.unwrap_or_default(),
                at,
            )),
            Err(LaunchFailure::Interrupted(at)) => Err(Error::Interrupted(k.name.clone(), at)),
            Err(LaunchFailure::Deadlock(report)) => Err(Error::Deadlock(format!(
                "{}: kernel '{}': {report}",
                kernel.module_file, k.name
            ))),
            Err(LaunchFailure::Fault(r, count)) => {
                Err(Error::Fault(Box::new(self.report(kernel, r, count))))
            }
        }
    }

    fn report(&self, kernel: &Kernel, r: FaultRecord, count: u64) -> FaultReport {
        let k = &kernel.compiled;
        let i = r.inst as usize;
        // The nearest allocation is worth naming only for addresses near one (within 64 MiB).
        let nearest = if matches!(r.space, ir::Space::Global | ir::Space::Const) {
            self.memory
                .nearest(r.addr)
                .filter(|(a, off)| *off > -(64 << 20) && *off < a.size as i64 + (64 << 20))
                .map(|(a, off)| (a.label.clone(), off, a.size))
        } else {
            None
        };
        FaultReport {
            kernel: k.name.clone(),
            kind: r.kind,
            space: r.space,
            addr: r.addr,
            size: r.size,
            write: r.write,
            ctaid: r.ctaid,
            tid: r.tid,
            loc: k.inst_locs.get(i).copied().unwrap_or_default(),
            instruction: k.inst_ptx.get(i).cloned().unwrap_or_default(),
            ptx_file: kernel.module_file.clone(),
            nearest,
            count,
            detail: r.detail,
        }
    }
}

/// The PTX instruction a terminator stands for, in fault reports.
fn terminator_ptx(t: &ir::Terminator) -> &'static str {
    match t {
        ir::Terminator::Jump(_) | ir::Terminator::Branch { .. } => "bra",
        ir::Terminator::Exit => "exit",
        ir::Terminator::Barrier { .. } => "barrier wait",
        ir::Terminator::Trap => "trap",
    }
}

fn check_dims(k: &CompiledKernel, d: LaunchDims) -> Result<(), Error> {
    let [gx, gy, gz] = d.grid;
    let [bx, by, bz] = d.block;
    let bad = |m: String| Err(Error::LaunchConfig(format!("kernel '{}': {m}", k.name)));
    if gx == 0 || gy == 0 || gz == 0 || gx > i32::MAX as u32 || gy > 65535 || gz > 65535 {
        return bad(format!(
            "invalid grid [{gx}, {gy}, {gz}]: each dimension must be at least 1, x at most 2147483647, y and z at most 65535"
        ));
    }
    if bx == 0 || by == 0 || bz == 0 || bx > 1024 || by > 1024 || bz > 64 {
        return bad(format!(
            "invalid block [{bx}, {by}, {bz}]: each dimension must be at least 1, x and y at most 1024, z at most 64"
        ));
    }
    let threads = bx as u64 * by as u64 * bz as u64;
    let limit = k.max_threads.unwrap_or(1024).min(1024) as u64;
    if threads > limit {
        return bad(format!(
            "block [{bx}, {by}, {bz}] has {threads} threads; the limit is {limit} threads per block"
        ));
    }
    let shared = k.static_shared_bytes + d.shared_bytes as u64;
    if shared > 48 * 1024 {
        return bad(format!(
            "{shared} bytes of shared memory ({} static + {} dynamic) exceed the 49152-byte limit",
            k.static_shared_bytes, d.shared_bytes
        ));
    }
    Ok(())
}

/// Check arguments against the parameter list and lay them out in a parameter buffer.
fn pack_args(k: &CompiledKernel, args: &[KernelArg]) -> Result<Vec<u8>, Error> {
    if args.len() != k.params.len() {
        return Err(Error::Argument(format!(
            "kernel '{}' expects {} arguments ({}), got {}",
            k.name,
            k.params.len(),
            k.params
                .iter()
                .map(|p| format!("{}: .{}", p.name, p.ptx_type))
                .collect::<Vec<_>>()
                .join(", "),
            args.len()
        )));
    }
    let mut buf = vec![0u8; k.param_bytes.max(1) as usize];
    for (n, (p, a)) in k.params.iter().zip(args).enumerate() {
        let (bytes, is_float, is_ptr) = a.bytes();
        let is_struct = matches!(a, KernelArg::Struct(_));
        let ok = match p.kind {
            _ if is_struct => p.kind == ParamKind::Bytes && bytes.len() as u32 == p.size,
            ParamKind::Float => is_float && bytes.len() as u32 == p.size,
            ParamKind::Int { .. } => {
                !is_float && bytes.len() as u32 == p.size && (!is_ptr || p.size == 8)
            }
            ParamKind::Bytes => false,
        };
        if !ok {
            return Err(Error::Argument(format!(
                "kernel '{}' argument {} ('{}') is a .{} parameter of {} bytes, but the value given is {}",
                k.name,
                n + 1,
                p.name,
                p.ptx_type,
                p.size,
                a.describe()
            )));
        }
        let o = p.offset as usize;
        buf[o..o + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(buf)
}

/// The sampler state of a `.samplerref`/`.texref` initializer (PTX ISA §5.3.2); what it does
/// not name keeps [`TextureDesc::default`]'s value.
fn sampler_state(init: ir::SamplerInit) -> TextureDesc {
    use crate::runtime::texture::{AddressMode, FilterMode};
    let mode = |s: ir::SamplerAddr| match s {
        ir::SamplerAddr::Wrap => AddressMode::Wrap,
        ir::SamplerAddr::Mirror => AddressMode::Mirror,
        ir::SamplerAddr::Clamp => AddressMode::Clamp,
        ir::SamplerAddr::Border => AddressMode::Border,
    };
    let filter = if init.linear {
        FilterMode::Linear
    } else {
        FilterMode::Point
    };
    TextureDesc {
        address: init.address.map(mode),
        filter,
        mip_filter: filter,
        normalized_coords: !init.unnormalized,
        ..TextureDesc::default()
    }
}
