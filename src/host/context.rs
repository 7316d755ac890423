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

use super::buffer::{self, MemoryView, SharedArena};
use super::kernel_name::quoted;
use super::launch::LaunchBuilder;
use super::tiers::Tiers;
use crate::ir::{self, ParamKind, SrcLoc};
pub use crate::jit::Tier;
use crate::ptx::lineinfo::{LineTable, SourceLoc};
use crate::ptx::span::SourceMap;
use crate::runtime::env::{FaultKind, FaultRecord};
use crate::runtime::heap::HeapAccess;
use crate::runtime::launch::{run_grid, LaunchDims, LaunchFailure, LaunchInput, Sites, WarpEngine};
use crate::runtime::memory::{DeviceMemory, DevicePtr};
use crate::runtime::memory::{GLOBAL_BASE, MAX_ARENA, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::runtime::printf::{PrintfOutput, PrintfSink};
use crate::runtime::texture::{ResourceDesc, TextureDesc};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which engine executes kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
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

/// The allocations on either side of a faulting global address that is in no allocation
/// and near none ([`FaultReport::neighbours`]): each one's name as reports give it
/// ([`Allocation::report_name`](crate::runtime::memory::Allocation::report_name): `'x'`, or
/// `module variable '$str' (const string)`), size (bytes) and distance
/// (bytes from the end of `below` to the address; from the address to the start of `above`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultNeighbours {
    pub below: Option<(String, u64, u64)>,
    pub above: Option<(String, u64, u64)>,
}

impl std::fmt::Display for FaultNeighbours {
    /// `3145727 bytes after the end of 'g' (1 bytes), 1048576 bytes before the start of 'x'
    /// (4096 bytes)`, either side left out where there is no allocation.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let below = self
            .below
            .as_ref()
            .map(|(l, size, d)| format!("{d} bytes after the end of {l} ({size} bytes)"));
        let above = self
            .above
            .as_ref()
            .map(|(l, size, d)| format!("{d} bytes before the start of {l} ({size} bytes)"));
        let sides: Vec<String> = below.into_iter().chain(above).collect();
        f.write_str(&sides.join(", "))
    }
}

/// What the process has at a faulting address outside device memory
/// ([`FaultReport::outside_device`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutsideDevice {
    /// A host mapping of the process: its stack (`"the process's stack"`), heap, a file's
    /// name, or an anonymous mapping.
    Host(String),
    /// Nothing the process maps: a wild pointer.
    Unmapped,
}

impl std::fmt::Display for OutsideDevice {
    /// The words a fault report adds after the address ([`OutsideDevice::advice`] follows
    /// at the end of the report's line).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (lo, hi) = (GLOBAL_BASE, GLOBAL_BASE + MAX_ARENA);
        match self {
            OutsideDevice::Host(what) => {
                write!(f, "a host address ({what}), not device memory")
            }
            OutsideDevice::Unmapped => write!(
                f,
                "which is neither device memory ({lo:#x} to {hi:#x}) nor mapped by the \
                 process: a wild pointer"
            ),
        }
    }
}

impl OutsideDevice {
    /// What a program does instead, for a host address: where kernels reach host memory.
    pub fn advice(&self) -> &'static str {
        match self {
            OutsideDevice::Host(_) => {
                "; a kernel reaches host memory only where it is page-locked and mapped \
                 (cudaMallocHost, cudaHostAlloc, or a cudaHostRegister range through the \
                 pointer cudaHostGetDevicePointer gives) or managed (cudaMallocManaged): copy \
                 the data to a cudaMalloc buffer and pass that"
            }
            OutsideDevice::Unmapped => "",
        }
    }
}

/// Whether a faulting address of `space` lies outside device memory: a global (or generic)
/// address that is not in the first page (a null pointer, which reports call so), not in a
/// generic shared, local or parameter window, and not in the arena's range
/// (`GLOBAL_BASE` up to `MAX_ARENA` bytes past it); then what the process maps there
/// (`/proc/self/maps`), so that a report can say that a kernel was given a host pointer.
pub fn outside_device_memory(space: ir::Space, addr: u64) -> Option<OutsideDevice> {
    let windows = SHARED_WINDOW..PARAM_WINDOW + WINDOW_SIZE;
    let outside = match space {
        ir::Space::Global => true,
        ir::Space::Generic => !windows.contains(&addr),
        _ => false,
    } && addr >= 4096
        && !(GLOBAL_BASE..GLOBAL_BASE + MAX_ARENA).contains(&addr);
    if !outside {
        return None;
    }
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let found = maps.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let (lo, hi) = fields.next()?.split_once('-')?;
        let (lo, hi) = (
            u64::from_str_radix(lo, 16).ok()?,
            u64::from_str_radix(hi, 16).ok()?,
        );
        if !(lo..hi).contains(&addr) {
            return None;
        }
        // perms, offset, device, inode, then the path (which may hold spaces).
        let path = fields.skip(4).collect::<Vec<_>>().join(" ");
        Some(match path.as_str() {
            "[stack]" => "the process's stack".to_string(),
            "[heap]" => "the process's heap, where malloc and new allocate".to_string(),
            "" => "an anonymous mapping of the process, where large malloc and new blocks \
                   and thread stacks live"
                .to_string(),
            p => format!("mapped from {p}"),
        })
    });
    Some(found.map_or(OutsideDevice::Unmapped, OutsideDevice::Host))
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
    /// The access was an atomic (`atom`, `red`): reports call it an atomic, neither a load
    /// nor a store.
    pub atomic: bool,
    pub ctaid: [u32; 3],
    pub tid: [u32; 3],
    /// PTX source location and instruction text.
    pub loc: SrcLoc,
    /// The source location the instruction came from (the PTX's `.loc` line info), if any.
    pub source: Option<SourceLoc>,
    pub instruction: String,
    /// The PTX text, which names the locations ([`PtxFile::at`](super::PtxFile::at)).
    pub ptx_file: super::PtxFile,
    /// The allocation a global address is in or near
    /// ([`DeviceMemory::nearest_for_report`](crate::runtime::memory::DeviceMemory::nearest_for_report)):
    /// its name as reports give it (`'x'`, `module variable '$str$1' (const string)`), the
    /// address's offset from its start (negative: before it) and its size.
    pub nearest: Option<(String, i64, u64)>,
    /// A global address in no allocation and near none: the allocations on either side.
    pub neighbours: Option<FaultNeighbours>,
    /// A global (or generic) address outside device memory altogether (not null, not in a
    /// generic shared, local or parameter window): what the process has there
    /// ([`outside_device_memory`]), which the report says instead of the neighbours. A host
    /// pointer handed to a kernel (a `malloc` buffer, a stack array) lands here.
    pub outside_device: Option<OutsideDevice>,
    /// The access (or device `free`) hit memory freed earlier: with memcheck, still in
    /// quarantine ([`Context::set_memcheck`]); without, one of the latest frees whose bytes no
    /// later allocation took ([`DeviceMemory::freed_at`](crate::runtime::memory::DeviceMemory::freed_at)):
    /// a use after free (or a double free).
    pub freed: Option<Freed>,
    /// How many threads of the reported CTA faulted (each counted once, however many of its
    /// accesses faulted). A fault stops its CTA once the block it happened in has run for the
    /// warp's lanes, so these are the threads that faulted up to there; both engines count
    /// the same (a warp-uniform access the JIT makes once for the warp faults for each of
    /// its lanes). Faults of later CTAs, which a launch stops at no fixed point, are not
    /// counted.
    pub count: u64,
    /// Text the fault carries ([`FaultKind::Assert`]: the assertion, file, line, function).
    pub detail: Option<String>,
    /// The device functions (`.func`) the faulting instruction is inside, innermost first,
    /// each with the `call` that entered it; empty when the fault is in the kernel's own body.
    pub frames: Vec<DeviceFrame>,
    /// The access went past the static shared memory of a kernel that uses an `extern
    /// .shared` array while the launch gave no dynamic shared memory
    /// ([`LaunchDims::shared_bytes`] 0): the message says how to give some.
    pub no_dynamic_shared: bool,
    /// A shared-memory access that faulted: the CTA's shared memory, `(static, dynamic)`
    /// bytes (the kernel's `.shared` variables, the launch's dynamic size), which the report
    /// gives beside the address.
    pub shared: Option<(u64, u64)>,
}

impl FaultReport {
    /// What happened, and whether it was a memory access (which the report follows with the
    /// nearest allocation and the count).
    fn what(&self) -> (String, bool) {
        let access = match (self.atomic, self.write) {
            (true, _) => "atomic",
            (false, true) => "store",
            (false, false) => "load",
        };
        // What happened; memory accesses also name the nearest allocation and the count.
        let (what, memory) = match self.kind {
            // An operation ptxjit does not take (a block-scaled `mma`'s selectors that differ
            // across the warp, `atom .b128` without a 16-byte compare-and-swap): its text, not
            // an access.
            FaultKind::Unsupported if self.detail.is_some() => (
                format!(
                    "unsupported operation: {}",
                    self.detail.as_deref().unwrap_or_default()
                ),
                false,
            ),
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
                            format!("out of bounds ({over} bytes past the end of {label})")
                        })
                    }
                    _ => None,
                };
                // An access wholly outside the nearest allocation (in a red zone, or between
                // allocations) says on which side and how far.
                let flat_space = matches!(self.space, ir::Space::Global | ir::Space::Generic);
                let beside = match &self.nearest {
                    Some((label, off, asize)) if *off >= *asize as i64 => Some(format!(
                        "{} bytes after the end of {label}",
                        *off - *asize as i64
                    )),
                    Some((label, off, _)) if *off < 0 => {
                        Some(format!("{} bytes before the start of {label}", -*off))
                    }
                    _ => None,
                };
                let kind = match (self.kind, past_end, beside, &self.freed) {
                    (FaultKind::OutOfBounds | FaultKind::Unallocated, _, _, Some(fr)) => format!(
                        "use after free ({} bytes into '{}' ({} bytes), which was freed)",
                        fr.offset, fr.label, fr.size
                    ),
                    (FaultKind::Unallocated, Some(text), _, None) => text,
                    (FaultKind::Unallocated, None, Some(text), None) => {
                        format!("out of bounds ({text})")
                    }
                    (FaultKind::OutOfBounds, _, Some(text), None) if flat_space => {
                        format!("out of bounds ({text})")
                    }
                    (FaultKind::OutOfBounds, _, None, None)
                        if flat_space && self.neighbours.is_some() =>
                    {
                        "out of bounds (in no allocation)".into()
                    }
                    (FaultKind::OutOfBounds, _, _, None) => "out of bounds".into(),
                    (FaultKind::Misaligned, ..) => "misaligned".into(),
                    (FaultKind::Unallocated, None, None, None) if self.neighbours.is_some() => {
                        "out of bounds (in no allocation)".into()
                    }
                    (FaultKind::Unallocated, None, None, None) => {
                        "out of bounds (no live allocation)".into()
                    }
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
                let outside = match &self.outside_device {
                    Some(o) => format!(", {o}"),
                    None => String::new(),
                };
                let what = format!(
                    "{kind} {access} of {} bytes at {} address {:#x}{null}{outside}",
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
            FaultKind::PartialWarp => (
                format!(
                    "a warp-wide matrix instruction executed by lanes {:#010x} only: every lane \
                     of the warp must execute it (undefined in PTX)",
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
                     per-thread call stack (raise cudaLimitStackSize)",
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
                    "{}free of {:#x}, which is not a live device-heap block (never allocated, \
                     already freed, or inside a block)",
                    // Memcheck's quarantine knows a block freed already.
                    if self.freed.is_some() {
                        "double free: "
                    } else {
                        ""
                    },
                    self.addr
                ),
                false,
            ),
            FaultKind::MBarrier => (
                format!(
                    "invalid mbarrier operation: {} (undefined in PTX)",
                    self.detail.as_deref().unwrap_or("(no detail)")
                ),
                false,
            ),
            FaultKind::Cluster => (
                format!(
                    "invalid cluster operation: {} (undefined in PTX)",
                    self.detail.as_deref().unwrap_or("(no detail)")
                ),
                false,
            ),
            FaultKind::Wgmma => (
                format!(
                    "wgmma.mma_async: {}",
                    self.detail.as_deref().unwrap_or("(no detail)")
                ),
                false,
            ),
            FaultKind::TensorMemory => (
                format!(
                    "tcgen05: {}",
                    self.detail.as_deref().unwrap_or("(no detail)")
                ),
                false,
            ),
            FaultKind::TensorMap => (
                format!(
                    "tensor copy: {}",
                    self.detail.as_deref().unwrap_or("(no detail)")
                ),
                false,
            ),
            FaultKind::SparseMetadata => (
                format!(
                    "mma.sp: {} (undefined in PTX)",
                    self.detail.as_deref().unwrap_or("(no detail)")
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
        (what, memory)
    }

    /// What a memory fault's report says of the allocations around the address: `; nearest
    /// allocation 'x' (4096 bytes), offset 4100` for an address in or near one, `; neighbours:
    /// …` ([`FaultNeighbours`]) for one in no allocation and near none; nothing after a use
    /// after free (which names the freed allocation) or where no allocation is known.
    fn allocation_note(&self) -> String {
        if self.freed.is_some() {
            return String::new();
        }
        if let Some(o @ OutsideDevice::Host(_)) = &self.outside_device {
            return o.advice().to_string();
        }
        if let Some((fixed, dynamic)) = self.shared {
            return format!(
                "; the CTA has {} bytes of shared memory ({fixed} static + {dynamic} dynamic)",
                fixed + dynamic
            );
        }
        match (&self.nearest, &self.neighbours) {
            (Some((label, off, size)), _) => {
                format!("; nearest allocation {label} ({size} bytes), offset {off}")
            }
            (None, Some(n)) => format!("; neighbours: {n}"),
            (None, None) => String::new(),
        }
    }

    /// The report as a sanitizer tool gives it, one fact a line (compute-sanitizer's shape):
    /// what, where (source line, PTX line and instruction), who, and the address's story.
    pub fn sanitizer_text(&self) -> String {
        let (what, memory) = self.what();
        let mut out = if memory {
            let space = match self.space {
                ir::Space::Global => "__global__",
                ir::Space::Shared => "__shared__",
                ir::Space::Local => "__local__",
                ir::Space::Const => "__constant__",
                ir::Space::Param => "parameter",
                ir::Space::Generic => "generic",
            };
            let head = match (self.kind, &self.freed) {
                (FaultKind::Misaligned, _) => "Misaligned",
                (_, Some(_)) => "Use after free:",
                _ => "Invalid",
            };
            let rw = match (self.atomic, self.write) {
                (true, _) => "atomic",
                (false, true) => "write",
                (false, false) => "read",
            };
            format!("{head} {space} {rw} of size {} bytes\n", self.size)
        } else {
            format!("{what}\n")
        };
        out += &super::tool::site_lines(&super::tool::Site {
            kernel: &self.kernel,
            source: self.source.as_ref(),
            ptx_file: &self.ptx_file,
            loc: self.loc,
            instruction: &self.instruction,
            ctaid: self.ctaid,
            tid: self.tid,
            count: self.count,
        });
        if memory {
            out += &format!("    {what}{}\n", self.allocation_note());
        }
        out += &self.frames_text();
        out
    }
}

impl std::fmt::Display for FaultReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, memory) = self.what();
        // With line info, the source location follows the kernel's (and function's) name.
        let at = match &self.source {
            Some(src) => format!(" at {src}"),
            None => String::new(),
        };
        let function = match self.frames.first() {
            Some(fr) => format!(" in function {}", quoted(&fr.function)),
            None => String::new(),
        };
        write!(
            f,
            "{}: fault in kernel {}{function}{at}: {what} by CTA ({},{},{}) thread ({},{},{}) in '{}'",
            self.ptx_file.at(self.loc),
            quoted(&self.kernel),
            self.ctaid[0],
            self.ctaid[1],
            self.ctaid[2],
            self.tid[0],
            self.tid[1],
            self.tid[2],
            self.instruction
        )?;
        if memory {
            f.write_str(&self.allocation_note())?;
            if self.count > 1 {
                write!(f, " ({} threads of this CTA faulted)", self.count)?;
            }
            if self.no_dynamic_shared {
                write!(
                    f,
                    "; the kernel's extern .shared array has no memory: the launch gave 0 bytes \
                     of dynamic shared memory (give some with --shared-bytes N, or \
                     shared_bytes = N in the case file)"
                )?;
            }
        } else if self.kind == FaultKind::StackOverflow {
            write!(
                f,
                "; set the size before the launch with cudaDeviceSetLimit(cudaLimitStackSize, N) \
                 or cuCtxSetLimit(CU_LIMIT_STACK_SIZE, N), or stack_bytes = N in the case file \
                 (at most {} bytes per thread with the kernel's own local memory)",
                ir::MAX_LOCAL_BYTES
            )?;
        } else if self.kind == FaultKind::Trap {
            if self.count > 1 {
                write!(f, " ({} threads of this CTA trapped)", self.count)?;
            }
            match &self.detail {
                Some(d) => write!(f, "; {d}")?,
                // PTX ISA §9.7.19.4 (trap): the instruction aborts the kernel. Programs write
                // it (`__trap()`, `asm("trap;")`), and compilers emit it where they find
                // undefined behaviour at compile time: nvcc -O3 replaces a store through a null
                // pointer (`int *p = nullptr; *p = 1;`) with `trap`, keeping that line's `.loc`.
                None => write!(
                    f,
                    "; the kernel executed a `trap` instruction, which aborts it: either the \
                     program traps (__trap(), asm(\"trap;\")) or the compiler put the trap where \
                     the code has undefined behaviour it found at compile time, such as a load \
                     or store through a null pointer{}",
                    if self.source.is_some() {
                        " on that source line"
                    } else {
                        " (compile with -lineinfo to see the source line)"
                    }
                )?,
            }
        }
        let frames = self.frames_text();
        if !frames.is_empty() {
            write!(f, "\n{}", frames.trim_end())?;
        }
        Ok(())
    }
}

impl FaultReport {
    /// The call stack of a fault inside device functions, as compute-sanitizer's device
    /// frames: each function at the faulting instruction or at its call into the next, then
    /// the kernel; one line each (ending in a newline), or nothing for a fault in the kernel's
    /// own body.
    pub fn frames_text(&self) -> String {
        if self.frames.is_empty() {
            return String::new();
        }
        let at = |loc: SrcLoc, src: Option<&SourceLoc>| {
            let mut s = self.ptx_file.at(loc);
            if let Some(src) = src {
                s += &format!(" ({src})");
            }
            s
        };
        let mut out = String::from("    device call stack, innermost first:\n");
        let mut here = Some((self.loc, self.source.clone()));
        for fr in &self.frames {
            match &here {
                Some((loc, src)) => {
                    out += &format!(
                        "      {} at {}\n",
                        quoted(&fr.function),
                        at(*loc, src.as_ref())
                    )
                }
                None => out += &format!("      {}\n", quoted(&fr.function)),
            }
            here = fr.call.clone();
        }
        match here {
            Some((loc, src)) => {
                out += &format!(
                    "      kernel {} at {}\n",
                    quoted(&self.kernel),
                    at(loc, src.as_ref())
                )
            }
            None => {
                out += "      (entered from the per-thread call stack of recursive and indirect \
                        calls, whose callers are not recorded)\n"
            }
        }
        out
    }
}

/// A device function (`.func`) a fault happened inside, and the `call` that entered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceFrame {
    /// The function's name as the PTX declares it.
    pub function: String,
    /// The PTX location of the `call` that entered it, and that location's source line
    /// (`.loc`), if any; `None` for a function run on the per-thread call stack (recursive,
    /// or called through a pointer), whose call site is not recorded.
    pub call: Option<(SrcLoc, Option<SourceLoc>)>,
}

/// The device functions the instruction at `loc` is inside, innermost first (see
/// [`FaultReport::frames`]), from the kernel's call frames with their call sites' sources.
pub fn device_frames(
    loc: SrcLoc,
    frames: &[(ir::CallFrame, Option<SourceLoc>)],
) -> Vec<DeviceFrame> {
    let mut out = Vec::new();
    let mut frame = loc.frame;
    // Each frame's call site is in an earlier-numbered frame (its caller was lowered first),
    // so the walk ends; the bound guards against a malformed table all the same.
    while frame > 0 && out.len() <= frames.len() {
        let Some((f, source)) = frames.get(frame as usize - 1) else {
            break;
        };
        out.push(DeviceFrame {
            function: f.function.clone(),
            call: f.site.map(|s| (s, source.clone())),
        });
        frame = match f.site {
            Some(s) => s.frame,
            None => 0,
        };
        if f.site.is_none() {
            break;
        }
    }
    out
}

/// A freed allocation or device-heap block that a memcheck report names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Freed {
    /// The allocation's label, or `device malloc block at 0x…`.
    pub label: String,
    /// The address's offset from its start (bytes).
    pub offset: u64,
    /// Its size (bytes; 0 where unknown).
    pub size: u64,
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
    /// A module with a device-side kernel launch (CUDA dynamic parallelism), which ptxjit
    /// does not support: `file:line:col: message`. Its kind is `unsupported`; the driver API
    /// reports it as `CUDA_ERROR_CDP_NOT_SUPPORTED`.
    #[error("{0}")]
    DeviceLaunch(String),
    /// Ill-formed PTX caught after parsing (undeclared register, type mismatch …).
    #[error("{0}")]
    Invalid(String),
    #[error("no kernel named '{name}' in {file} ({available})")]
    UnknownKernel {
        name: String,
        file: String,
        available: String,
    },
    /// A kernel name that several entries match (`transpose` for `transpose<float>` and
    /// `transpose<double>`); its kind is `unknown_kernel`.
    #[error("kernel name '{name}' is ambiguous in {file}: it matches {candidates}; give the mangled name or the demangled one with its template or parameter list")]
    AmbiguousKernel {
        name: String,
        file: String,
        candidates: String,
    },
    /// Wrong number or types of kernel arguments.
    #[error("{0}")]
    Argument(String),
    /// Launch configuration outside the device limits.
    #[error("{0}")]
    LaunchConfig(String),
    /// A cooperative grid larger than the device holds at once (CUDA's
    /// `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`); its kind is `launch_config`.
    #[error("{0}")]
    CooperativeTooLarge(String),
    /// Device memory API misuse (bad pointer, out of memory).
    #[error("{0}")]
    Memory(String),
    /// A kernel thread faulted.
    #[error("{0}")]
    Fault(Box<FaultReport>),
    /// The launch ran past its time limit (the second field): where it stopped.
    #[error(
        "{place}: kernel {k} exceeded the time limit of {limit:?}{warp}; the warps were at:\n{at}",
        place = .0.place, k = quoted(&.0.kernel), limit = .1, warp = .0.warp, at = .0.at
    )]
    Timeout(Box<StopReport>, Duration),
    /// The launch was interrupted (`runtime::launch::INTERRUPT`, Ctrl-C in the CLI): where it
    /// stopped.
    #[error(
        "{place}: kernel {k} interrupted{warp}; the warps were at:\n{at}",
        place = .0.place, k = quoted(&.0.kernel), warp = .0.warp, at = .0.at
    )]
    Interrupted(Box<StopReport>),
    /// A CTA could make no progress (a barrier that can never complete, a divergent
    /// `bar.sync`): `file: kernel 'k': report` naming the barriers' PTX lines and the warps.
    #[error("{0}")]
    Deadlock(String),
    /// An internal compiler error (JIT); a bug in ptxjit.
    #[error("internal error: {0}")]
    Internal(String),
    /// A sanitizer tool found errors that did not stop the kernel (synccheck's divergent
    /// barriers, for one; [`LaunchOptions::synccheck`]): the launch ran to its end (or to
    /// the deadlock the report names last), and its buffers hold what it wrote.
    #[error("{0}")]
    Sanitizer(Box<super::tool::SanitizerReport>),
}

impl Error {
    /// The error with the locations of `file`'s whole text in its message named by the
    /// input of a linked text each came from and that input's own line
    /// ([`PtxFile::relocate`](super::PtxFile::relocate)): the front end's errors (parse,
    /// unsupported, invalid, internal). Others are returned as they are.
    pub fn relocated(self, file: &super::PtxFile) -> Error {
        match self {
            Error::Parse(m) => Error::Parse(file.relocate(&m)),
            Error::Unsupported(m) => Error::Unsupported(file.relocate(&m)),
            Error::DeviceLaunch(m) => Error::DeviceLaunch(file.relocate(&m)),
            Error::Invalid(m) => Error::Invalid(file.relocate(&m)),
            Error::Internal(m) => Error::Internal(file.relocate(&m)),
            e @ (Error::UnknownKernel { .. }
            | Error::AmbiguousKernel { .. }
            | Error::Argument(_)
            | Error::LaunchConfig(_)
            | Error::CooperativeTooLarge(_)
            | Error::Memory(_)
            | Error::Fault(_)
            | Error::Timeout(..)
            | Error::Interrupted(..)
            | Error::Deadlock(_)
            | Error::Sanitizer(_)) => e,
        }
    }

    /// `parse`, `unsupported`, `invalid`, `unknown_kernel`, `argument`, `launch_config`,
    /// `memory`, `fault`, `timeout`, `interrupted`, `deadlock`, `internal`, `sanitizer`.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Parse(_) => "parse",
            Error::Unsupported(_) | Error::DeviceLaunch(_) => "unsupported",
            Error::Invalid(_) => "invalid",
            Error::UnknownKernel { .. } | Error::AmbiguousKernel { .. } => "unknown_kernel",
            Error::Argument(_) => "argument",
            Error::LaunchConfig(_) | Error::CooperativeTooLarge(_) => "launch_config",
            Error::Memory(_) => "memory",
            Error::Fault(_) => "fault",
            Error::Timeout(..) => "timeout",
            Error::Interrupted(..) => "interrupted",
            Error::Deadlock(_) => "deadlock",
            Error::Internal(_) => "internal",
            Error::Sanitizer(_) => "sanitizer",
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
    /// A tensor map by value (a `.param .align 64 .b8 name[128]` parameter: CUDA's
    /// `const __grid_constant__ CUtensorMap`), as `runtime::tensormap` lays it out.
    TensorMap(crate::runtime::tensormap::TensorMap),
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
            KernelArg::TensorMap(_) => "a tensor map (128 bytes)".into(),
        }
    }

    /// The bytes a parameter buffer holds for this argument (a struct laid out as in C).
    #[cfg(all(test, feature = "case"))]
    pub(crate) fn bytes_for_test(&self) -> Vec<u8> {
        self.bytes().0
    }

    /// The alignment of the value in a C struct (bytes).
    fn align(&self) -> usize {
        match self {
            KernelArg::Struct(fields) => fields.iter().map(KernelArg::align).max().unwrap_or(1),
            KernelArg::TensorMap(_) => 64,
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
            KernelArg::TensorMap(ref m) => (m.to_bytes().to_vec(), false, false),
        }
    }
}

/// Launch options.
#[derive(Clone, Debug, Default)]
pub struct LaunchOptions {
    /// Check global accesses against live allocations (compute-sanitizer memcheck style).
    pub memcheck: bool,
    /// synccheck (`runtime::synccheck`): barriers reached by part of a warp or block,
    /// mismatched barrier thread counts, membermasks that do not match the lanes that arrive.
    /// Findings end the launch with [`Error::Sanitizer`] once it has run (a fault or a
    /// deadlock still stops it first; a deadlock then comes last in the report).
    pub synccheck: bool,
    /// The order of CTAs and warps: [`Schedule::Shuffle`] runs the CTAs one at a time and
    /// the CTAs and the warps of each round in an order drawn from the seed
    /// (`runtime::shuffle` documents it exactly), so that order-dependent results show as
    /// different answers for different seeds, and a seed repeats its answer.
    ///
    /// [`Schedule::Shuffle`]: crate::runtime::shuffle::Schedule::Shuffle
    pub schedule: crate::runtime::shuffle::Schedule,
    /// initcheck: record loads of global and shared memory nobody has written
    /// ([`Context::take_init_reports`]); turns the context's tracking on
    /// ([`Context::set_initcheck`]) if it is not.
    pub initcheck: bool,
    /// racecheck: track the launch's shared-memory accesses and synchronizations and report
    /// data races between threads of a CTA (`runtime::race`). The launch runs to the end;
    /// its races are left in the context ([`Context::take_race_reports`]).
    pub racecheck: bool,
    /// Run every warp in lockstep order: each instruction's result as if it ran for the whole
    /// warp before the next (`analysis::segment::WarpOrder::Lockstep`), which warp-synchronous
    /// code without `__syncwarp` (pre-Volta style) relies on. Kernels whose module targets a
    /// GPU older than `sm_70` always run so; for `sm_70` and later (independent thread
    /// scheduling) a warp's lanes otherwise run in groups of four between warp-synchronous
    /// points, which is faster. The kernel compiles once more for the first such launch.
    pub lockstep: bool,
    /// With [`racecheck`](Self::racecheck): also races on global memory between threads of
    /// one CTA (not between CTAs), by the same rules as on shared memory. Every global
    /// access then goes through the runtime.
    pub racecheck_global: bool,
    /// Stop the launch with [`Error::Timeout`] after this long (a duration past what the
    /// clock can hold, such as `Duration::MAX`, is no limit).
    pub timeout: Option<Duration>,
    /// A cooperative launch (`cuLaunchCooperativeKernel`, `cudaLaunchCooperativeKernel`):
    /// every CTA of the grid is resident at once, so CTAs may wait for each other
    /// (`cooperative_groups::this_grid().sync()`, numba's `cg.this_grid().sync()`). The grid
    /// gets a zeroed grid workspace in device memory whose address `%envreg1`/`%envreg2`
    /// give (CUDA's cooperative groups ABI; null in other launches, where a grid sync traps).
    /// The grid may have at most [`occupancy::max_cooperative_ctas`](super::occupancy) CTAs
    /// (with this field's shared memory per SM), else [`Error::CooperativeTooLarge`].
    pub cooperative: Option<Cooperative>,
    /// The thread block cluster shape in CTAs (`cuLaunchKernelEx` with
    /// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`, case key `cluster`); `None`: the kernel's
    /// `.reqnctapercluster`, else clusters of one CTA. Each dimension must divide the grid's,
    /// and a cluster may have at most 8 CTAs (16 with
    /// [`cluster_non_portable`](Self::cluster_non_portable)) and at most the kernel's
    /// `.maxclusterrank`; a kernel with `.explicitcluster` needs a shape. The CTAs of a
    /// cluster run co-resident and share their shared memory (`runtime::cluster`). Not with
    /// [`cooperative`](Self::cooperative). Errors: [`Error::LaunchConfig`].
    pub cluster: Option<[u32; 3]>,
    /// Allow clusters of up to 16 CTAs (CUDA's
    /// `cudaFuncAttributeNonPortableClusterSizeAllowed`).
    pub cluster_non_portable: bool,
    /// Bytes of call stack per thread for recursive calls and calls through function
    /// pointers (CUDA's `cudaLimitStackSize` / `CU_LIMIT_STACK_SIZE`, case key
    /// `stack_bytes`); `None`: [`DEFAULT_STACK_BYTES`]. A kernel's local memory with its
    /// stack may be at most [`ir::MAX_LOCAL_BYTES`] per thread, else
    /// [`Error::LaunchConfig`]. A call that would pass the stack's end faults with "call
    /// stack overflow".
    pub stack_bytes: Option<u64>,
}

/// The per-thread call stack of a launch that does not size it
/// ([`LaunchOptions::stack_bytes`]): 16 KiB.
pub const DEFAULT_STACK_BYTES: u64 = 16 * 1024;

/// The bytes of local memory per thread a launch of `k` with `opts` needs: the kernel's own,
/// and its call stack if it has one. Errors: [`Error::LaunchConfig`] when the stack or the
/// whole is over [`ir::MAX_LOCAL_BYTES`].
fn launch_local_bytes(kernel: &Kernel, opts: &LaunchOptions) -> Result<u64, Error> {
    let k = &kernel.compiled;
    let stack = opts.stack_bytes.unwrap_or(DEFAULT_STACK_BYTES);
    let max = ir::MAX_LOCAL_BYTES;
    if stack > max {
        return Err(Error::LaunchConfig(format!(
            "a call stack of {stack} bytes per thread is larger than the {max}-byte limit of \
             local memory per thread (cudaLimitStackSize)"
        )));
    }
    match k.call_stack {
        // `FILE:LINE:COL: ...` at what took the kernel past the limit, as ptxjit's other
        // reports about the PTX begin.
        None if k.local_bytes > max => Err(Error::LaunchConfig(match &k.local_past {
            Some(p) => format!(
                "{}: kernel {} uses {} bytes of local memory per thread, more than the \
                 {max}-byte limit of a CUDA thread's local memory; its {} ({} bytes) takes it \
                 past the limit (ptxas compiles such a kernel; no launch of it can run)",
                kernel.module_file.at(p.loc),
                quoted(&k.name),
                k.local_bytes,
                p.what,
                p.bytes
            ),
            None => format!(
                "kernel {} uses {} bytes of local memory per thread, more than the {max}-byte \
                 limit of a CUDA thread's local memory",
                quoted(&k.name),
                k.local_bytes
            ),
        })),
        None => Ok(k.local_bytes),
        Some(base) if base + stack > max => Err(Error::LaunchConfig(format!(
            "kernel {}: {base} bytes of local memory per thread and a call stack of {stack} \
             bytes are more than the {max}-byte limit (lower cudaLimitStackSize)",
            quoted(&k.name)
        ))),
        Some(base) => Ok(base + stack),
    }
}

/// The limits a cooperative launch is checked against ([`LaunchOptions::cooperative`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cooperative {
    /// Shared memory per multiprocessor in bytes, for the residency limit.
    pub shared_per_sm: u64,
}

impl Default for Cooperative {
    fn default() -> Cooperative {
        Cooperative {
            shared_per_sm: super::occupancy::device_shared_limits().per_sm,
        }
    }
}

/// Bytes of a cooperative launch's grid workspace: CUDA's `grid_workspace { unsigned int
/// wsSize; unsigned int barrier; }` (cooperative_groups/details/driver_abi.h), padded.
const GRID_WORKSPACE_BYTES: u64 = 16;

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

/// One kernel of a loaded module: what the front end found (parameters, memory sizes, PTX
/// locations) and the engine that runs it, compiled at the kernel's first launch
/// ([`CompiledKernel::engine`]), not when its module loads. Modules loaded from the same PTX
/// text for the same engine share their `CompiledKernel`s while any of them lives
/// (`host::cache`), so such a kernel compiles once per process.
pub struct CompiledKernel {
    pub name: String,
    pub params: Vec<ir::KernelParam>,
    pub param_bytes: u32,
    pub static_shared_bytes: u64,
    /// Whether the kernel (or a function it may call) names an `extern .shared` array
    /// (dynamic shared memory; [`ir::Function::dynamic_shared`]).
    pub dynamic_shared: bool,
    /// Bytes of local memory per thread, the call stack not included (CUDA's
    /// `CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`).
    pub local_bytes: u64,
    /// Where each thread's call stack begins in its local memory, when the kernel has
    /// recursive or indirect calls ([`ir::Function::call_stack`]); a launch gives it
    /// [`LaunchOptions::stack_bytes`].
    pub call_stack: Option<u64>,
    /// What takes the kernel's own local memory past [`ir::MAX_LOCAL_BYTES`], when it is
    /// (its launches fail naming it: [`ir::Function::local_past`]).
    pub local_past: Option<ir::LocalPast>,
    pub max_threads: Option<u32>,
    /// The exact block shape the kernel's `.reqntid` requires (PTX ISA §11.4.3).
    pub req_ntid: Option<[u32; 3]>,
    /// The kernel's cluster directives (`.reqnctapercluster`, `.explicitcluster`,
    /// `.maxclusterrank`, PTX ISA §11.5).
    pub cluster: ir::ClusterDirectives,
    /// PTX location of each IR instruction, then of each block's terminator (fault records
    /// index terminators as `env::terminator_fault_index`).
    pub inst_locs: Vec<SrcLoc>,
    /// PTX text of each IR instruction, then of each block's terminator.
    pub inst_ptx: Vec<String>,
    /// Whether each IR instruction is an atomic (`atom`, `red`: a fault there is an atomic
    /// access's); terminators, after them, are not.
    pub inst_atomic: Vec<bool>,
    /// The memory-order qualifier of each IR instruction (`ir::Function::inst_sync`), which
    /// racecheck orders accesses by.
    pub inst_sync: Vec<ir::MemSync>,
    /// The fences that may come right before and right after each IR instruction
    /// (`runtime::race::fence_marks`), where racecheck makes their effects.
    pub inst_fences: crate::runtime::race::FenceMarks,
    /// Source location of each (from the PTX's `.loc` line info), indexed as `inst_locs`.
    pub inst_sources: Vec<Option<SourceLoc>>,
    /// The device functions the kernel runs ([`ir::Function::call_frames`]), each with its
    /// call site's source location.
    pub call_frames: Vec<(ir::CallFrame, Option<SourceLoc>)>,
    /// Whether the kernel calls `malloc`/`free` (a launch then needs the device heap).
    pub uses_heap: bool,
    /// Whether the kernel calls `vprintf` (device `printf`).
    pub uses_printf: bool,
    /// The per-CTA state (tensor memory, mbarrier waits) the kernel can touch.
    pub cta_state: crate::runtime::launch::CtaStateUse,
    /// Whether the kernel reads `%envreg1`/`%envreg2`, the grid workspace address of a
    /// cooperative launch (`cooperative_groups::this_grid()`; 0 in other launches).
    pub reads_grid_workspace: bool,
    /// The kernel's `.shared` variables, which racecheck's reports name.
    pub shared_vars: Vec<ir::SharedVar>,
    /// What the first launch compiles: the engine, the verified IR and its warp layout (for
    /// the interpreter), and the module file for messages. Kept after the first compilation:
    /// a launch under racecheck compiles the JIT's instrumented code from it as well.
    pending: std::sync::Mutex<Option<PendingCompile>>,
    /// The engine once compiled (the JIT's in tiers, `host::tiers`), or the compiler's error
    /// (an [`Error::Internal`] message).
    engine: std::sync::OnceLock<Result<Arc<Tiers>, String>>,
    /// The engines for other launch options, each compiled at its first use
    /// ([`engine_for`](Self::engine_for)): lockstep order on request; the JIT's code
    /// instrumented for racecheck; both.
    variants: [std::sync::OnceLock<Result<Arc<Tiers>, String>>; 3],
    /// Whether the module's target asks for lockstep order anyway (`ir::Function::lockstep`).
    lockstep_target: bool,
    /// Where the kernel looks written for lockstep warps (`analysis::lockstep_idiom`): the
    /// PTX location of its first `st.volatile.shared`.
    pub lockstep_idiom: Option<ir::SrcLoc>,
}

struct PendingCompile {
    engine: Engine,
    ir: Arc<ir::verify::VerifiedFunction>,
    layout: crate::analysis::schedule::WarpLayout,
    file: String,
}

impl CompiledKernel {
    /// The kernel's facts from its verified IR `k` and warp layout `layout` (from
    /// `analysis::schedule`); nothing is compiled yet.
    fn new(
        k: ir::verify::VerifiedFunction,
        layout: crate::analysis::schedule::WarpLayout,
        engine: Engine,
        file: &str,
        lines: &LineTable,
    ) -> CompiledKernel {
        let inst_sources = if lines.is_empty() {
            vec![]
        } else {
            k.inst_locs
                .iter()
                .chain(k.blocks.iter().map(|b| &b.term_loc))
                .map(|l| lines.get(l.line).cloned())
                .collect()
        };
        let call_frames = k
            .call_frames
            .iter()
            .map(|c| (c.clone(), c.site.and_then(|s| lines.get(s.line).cloned())))
            .collect();
        CompiledKernel {
            inst_sources,
            call_frames,
            name: k.name.clone(),
            params: k.params.clone(),
            param_bytes: k.param_bytes,
            static_shared_bytes: k.static_shared_bytes,
            dynamic_shared: k.dynamic_shared,
            local_bytes: k.local_bytes,
            call_stack: k.call_stack,
            local_past: k.local_past.clone(),
            max_threads: k.max_threads,
            req_ntid: k.req_ntid,
            cluster: k.cluster,
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
                .chain(terminator_names(&k))
                .collect(),
            inst_atomic: k
                .insts
                .iter()
                .map(|i| {
                    matches!(
                        i.op,
                        ir::Op::Atom { .. } | ir::Op::AtomCas { .. } | ir::Op::Atom128 { .. }
                    )
                })
                .collect(),
            inst_sync: k.inst_sync.clone(),
            inst_fences: crate::runtime::race::fence_marks(&k),
            uses_heap: k
                .insts
                .iter()
                .any(|i| matches!(i.op, ir::Op::Malloc {} | ir::Op::Free {})),
            uses_printf: k.insts.iter().any(|i| matches!(i.op, ir::Op::Printf {})),
            cta_state: crate::runtime::launch::CtaStateUse::of(&k),
            reads_grid_workspace: k.insts.iter().any(|i| {
                matches!(
                    i.op,
                    ir::Op::SReg {
                        reg: ir::SReg::EnvReg(1 | 2)
                    }
                )
            }),
            shared_vars: k.shared_vars.clone(),
            lockstep_target: k.lockstep,
            lockstep_idiom: crate::analysis::lockstep_idiom(&k),
            pending: std::sync::Mutex::new(Some(PendingCompile {
                engine,
                ir: Arc::new(k),
                layout,
                file: file.to_string(),
            })),
            engine: std::sync::OnceLock::new(),
            variants: Default::default(),
        }
    }

    /// The engine that runs the kernel, compiled now if this is the first call (the JIT's
    /// Cranelift code, or the interpreter's decoded program); calls from several threads at
    /// once compile once. The JIT compiles its quick tier here and its optimized tier on a
    /// background thread (`host::tiers`); the engine returned is the one a launch starting
    /// now runs, which holds it to its end. Errors: [`Error::Internal`] (a compiler bug), on
    /// every call.
    pub fn engine(&self) -> Result<Arc<dyn WarpEngine>, Error> {
        self.engine_for(false, false)
    }

    /// As [`engine`](Self::engine), for a launch's options, each compiled at its first use:
    /// `racecheck`: the engine for a launch under racecheck (the JIT's instrumented code; the
    /// interpreter's own engine); `lockstep`: lockstep order ([`LaunchOptions::lockstep`];
    /// the same engine where the module's target asks for lockstep order anyway).
    pub fn engine_for(
        &self,
        racecheck: bool,
        lockstep: bool,
    ) -> Result<Arc<dyn WarpEngine>, Error> {
        self.tiers(racecheck, lockstep, crate::switches::switches().tier)
            .map(|t| t.current())
    }

    /// As [`engine_for`](Self::engine_for), the optimized tier: compiled now on this thread
    /// if no compilation has started (without a quick tier first), waited for if the
    /// background thread is compiling it; launches from now on run it. With
    /// `PTXJIT_TIER=quick` only the quick tier is ever compiled. Errors: [`Error::Internal`].
    pub fn engine_optimized(
        &self,
        racecheck: bool,
        lockstep: bool,
    ) -> Result<Arc<dyn WarpEngine>, Error> {
        let forced = crate::switches::switches().tier;
        let t = self.tiers(racecheck, lockstep, forced.or(Some(Tier::Optimized)))?;
        t.optimize().map_err(Error::Internal)?;
        Ok(t.current())
    }

    /// The JIT tier a launch with these options starting now would run: `None` before the
    /// first compilation and on the interpreter.
    pub fn tier_for(&self, racecheck: bool, lockstep: bool) -> Option<Tier> {
        let (cell, _, _) = self.cell(racecheck, lockstep);
        cell.get()?.as_ref().ok()?.tier()
    }

    /// The cell of the engine for these launch options, with the options it is compiled
    /// for (racecheck instrumentation, lockstep order).
    #[allow(clippy::type_complexity)]
    fn cell(
        &self,
        racecheck: bool,
        lockstep: bool,
    ) -> (&std::sync::OnceLock<Result<Arc<Tiers>, String>>, bool, bool) {
        let instrumented = racecheck && self.engine_kind() == Some(Engine::Jit);
        let lockstep = lockstep && !self.lockstep_target;
        let cell = match (instrumented, lockstep) {
            (false, false) => &self.engine,
            (false, true) => &self.variants[0],
            (true, false) => &self.variants[1],
            (true, true) => &self.variants[2],
        };
        (cell, instrumented, lockstep)
    }

    /// The engine's tiers for these launch options, compiled now if they are not yet: for
    /// the JIT, `tier` only, or with `None` the quick tier now and the optimized one in the
    /// background.
    fn tiers(&self, racecheck: bool, lockstep: bool, tier: Option<Tier>) -> Result<&Tiers, Error> {
        let (cell, instrumented, lockstep) = self.cell(racecheck, lockstep);
        let compiled = cell.get_or_init(|| {
            let Ok(pending) = self.pending.lock() else {
                return Err(format!("kernel {}: nothing to compile", quoted(&self.name)));
            };
            let Some(p) = pending.as_ref() else {
                return Err(format!("kernel {}: nothing to compile", quoted(&self.name)));
            };
            let context = format!("{}: kernel {}: ", p.file, quoted(&self.name));
            match p.engine {
                Engine::Jit => Tiers::jit(p.ir.clone(), instrumented, lockstep, context, tier),
                Engine::Interp => {
                    crate::interp::Interpreter::new(&p.ir, p.layout.clone(), lockstep)
                        .map(|i| Arc::new(Tiers::single(Arc::new(i))))
                        .map_err(|e| format!("{context}{e}"))
                }
            }
        });
        match compiled {
            Ok(t) => Ok(t),
            Err(m) => Err(Error::Internal(m.clone())),
        }
    }

    /// The engine the kernel was loaded for.
    fn engine_kind(&self) -> Option<Engine> {
        self.pending.lock().ok()?.as_ref().map(|p| p.engine)
    }

    /// Whether the engine has been compiled (or its compilation has failed): by a launch or
    /// [`Kernel::compile`] of this kernel or of one sharing it.
    pub fn is_compiled(&self) -> bool {
        self.engine.get().is_some()
    }
}

/// The part of a launch's configuration a [`Kernel::check_launch`] error is about (the case
/// key that sets it: `grid`, `block`, `shared_bytes`, `cluster`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchPart {
    Grid,
    Block,
    SharedBytes,
    Cluster,
}

impl LaunchPart {
    /// The case-file key that sets this part.
    pub fn key(self) -> &'static str {
        match self {
            LaunchPart::Grid => "grid",
            LaunchPart::Block => "block",
            LaunchPart::SharedBytes => "shared_bytes",
            LaunchPart::Cluster => "cluster",
        }
    }
}

impl Kernel {
    /// Check `args` against the kernel's parameters (their count, then each one's kind and
    /// size) as [`Context::launch`] does, with the same errors ([`Error::Argument`]), from
    /// the parsed signature alone: the kernel need not be compiled.
    pub fn check_args(&self, args: &[KernelArg]) -> Result<(), Error> {
        pack_args(&self.compiled, args).map(|_| ())
    }

    /// As [`Kernel::check_args`], with the index in `args` of the argument at fault: the
    /// first whose kind or size differs from its parameter's, or the first one too many;
    /// `None` when arguments are missing.
    pub fn check_args_at(&self, args: &[KernelArg]) -> Result<(), (Option<usize>, Error)> {
        pack_args_at(&self.compiled, args).map(|_| ())
    }

    /// Check a launch's shape as [`Context::launch`] does, from the kernel's directives alone
    /// (no compile): grid, block (and `.reqntid`/`.maxntid`), dynamic shared memory, and the
    /// cluster shape of `opts` (CUDA C++ Programming Guide, "Thread Block Clusters"). Errors:
    /// the part of the launch at fault with the launch's error ([`Error::LaunchConfig`],
    /// [`Error::Unsupported`] for a cooperative launch of multi-CTA clusters).
    pub fn check_launch(
        &self,
        dims: LaunchDims,
        opts: &LaunchOptions,
    ) -> Result<(), (LaunchPart, Error)> {
        check_dims(self, dims)?;
        cluster_shape(self, dims, opts)
            .map(|_| ())
            .map_err(|e| (LaunchPart::Cluster, e))
    }

    /// Compile the kernel's engine now, if no launch has yet (the first launch does it
    /// otherwise): to keep compilation out of a timed launch, or to meet a compiler error
    /// before launching. Errors: [`Error::Internal`] (a compiler bug).
    pub fn compile(&self) -> Result<(), Error> {
        self.compiled.engine().map(|_| ())
    }

    /// As [`compile`](Self::compile), the engine for launches in lockstep order or not
    /// ([`LaunchOptions::lockstep`]): each order is compiled at its first use.
    pub fn compile_for(&self, lockstep: bool) -> Result<(), Error> {
        self.compiled.engine_for(false, lockstep).map(|_| ())
    }

    /// Compile the JIT's optimized tier of the kernel now, or wait until the background
    /// thread has compiled it: launches that start after this returns run the optimized code
    /// (to time launches of the optimized code, as the benchmarks do). A kernel not compiled
    /// yet gets the optimized tier directly, without a quick tier first. Nothing more for
    /// the interpreter, or with `PTXJIT_TIER=quick` (which compiles only the quick tier), or
    /// for a kernel of more than 8 000 IR instructions (about as many PTX instructions), which
    /// gets the quick tier only unless `PTXJIT_TIER=optimized`: the optimized tier's register
    /// allocation takes time that grows faster than the function.
    /// Errors: [`Error::Internal`] (a compiler bug); launches then keep the quick tier.
    pub fn compile_optimized(&self) -> Result<(), Error> {
        self.compile_optimized_for(&LaunchOptions::default())
    }

    /// As [`compile_optimized`](Self::compile_optimized), the engine for launches with
    /// `opts` (racecheck's instrumented code, lockstep order; the other options share it).
    pub fn compile_optimized_for(&self, opts: &LaunchOptions) -> Result<(), Error> {
        self.compiled
            .engine_optimized(opts.racecheck, opts.lockstep)
            .map(|_| ())
    }

    /// A note for a launch of this kernel in group-major order (`lockstep` false) when the
    /// kernel looks written for warps in lockstep ([`crate::analysis::lockstep_idiom`]): what
    /// it does, where, and how to run it as written. `None` otherwise.
    pub fn lockstep_note(&self, lockstep: bool) -> Option<String> {
        let at = self.compiled.lockstep_idiom.filter(|_| !lockstep)?;
        Some(format!(
            "note: kernel {} ({}) reads and writes shared memory through volatile \
             accesses and never calls __syncwarp(), the shape of warp-synchronous code written \
             for warps in lockstep. Its module targets sm_70 or later, where ptxjit runs the lanes of a warp \
             in groups (independent thread scheduling), so such code can give another result \
             than a GPU usually does; add __syncwarp() between its steps, or run its warps in \
             lockstep with --lockstep (PTXJIT_LOCKSTEP=1, LaunchOptions::lockstep); \
             --tool racecheck shows the races",
            crate::host::kernel_name::quoted(&self.compiled.name),
            self.module_file.at(at)
        ))
    }

    /// The JIT tier a launch with default options starting now runs ([`Tier::Quick`] until
    /// the optimized tier is compiled); `None` before the kernel is compiled, and on the
    /// interpreter.
    pub fn jit_tier(&self) -> Option<Tier> {
        self.compiled.tier_for(false, false)
    }
}

impl Module {
    /// Compile every kernel's engine now ([`Kernel::compile`] for each), as loading a module
    /// once did. Errors: the first kernel's [`Error::Internal`].
    pub fn compile_all(&self) -> Result<(), Error> {
        self.kernels.iter().try_for_each(|k| k.engine().map(|_| ()))
    }

    /// [`Kernel::compile_optimized`] for every kernel: compile (or wait for) each one's
    /// optimized tier. Errors: the first kernel's [`Error::Internal`].
    pub fn compile_all_optimized(&self) -> Result<(), Error> {
        self.kernels
            .iter()
            .try_for_each(|k| k.engine_optimized(false, false).map(|_| ()))
    }
}

/// A loaded PTX module.
pub struct Module {
    pub file: String,
    /// The PTX text as reports name its locations (for a linked text, each input's own
    /// lines).
    pub ptx_file: super::PtxFile,
    pub engine: Engine,
    pub kernels: Vec<Arc<CompiledKernel>>,
    /// Each kernel's `cudaFuncAttributeMaxDynamicSharedMemorySize` in bytes (`u32::MAX`: not
    /// set), indexed like `kernels`: this module's own, not shared with other loads of the
    /// same PTX (which share the `CompiledKernel`s), as CUDA keeps it per `CUfunction`.
    pub max_dynamic_shared: Vec<Arc<AtomicU32>>,
    /// Device addresses of the module's variables (SymAddr table).
    pub symbols: Arc<Vec<u64>>,
    /// Time spent in the front end (parsing, lowering, verifying, scheduling every kernel);
    /// each kernel's engine compiles at its first launch ([`Kernel::compile`]).
    pub compile_time: Duration,
    /// Module-scope `.texref`/`.samplerref`/`.surfref` variables: name, kind and the device
    /// address of the 8 bytes that hold the bound handle.
    pub handle_vars: Vec<(String, ir::HandleKind, u64)>,
    /// The sampler state of each initialized `.texref` (PTX ISA §5.3: unified mode's
    /// `filter_mode`, `addr_mode_N`, `normalized_coords`; other fields at CUDA's defaults).
    pub texref_samplers: Vec<(String, TextureDesc)>,
    /// Module-scope `.global` and `.const` variables: name, device address, size in bytes.
    pub globals: Vec<(String, DevicePtr, u64)>,
    /// The device addresses of the module's `.attribute(.managed)` variables (CUDA's
    /// `__managed__`), a subset of `globals`.
    pub managed: Vec<DevicePtr>,
    /// Bytes of the module's `.const` variables (its user constant bank).
    pub const_bytes: u64,
    /// The architecture number of the module's `.target` (`sm_75` → 75; the highest when it
    /// names several), which CUDA reports as a function's PTX version
    /// (`CU_FUNC_ATTRIBUTE_PTX_VERSION`); `None` when it names none.
    pub target_sm: Option<u32>,
}

/// A kernel handle (`CUfunction`).
#[derive(Clone)]
pub struct Kernel {
    /// The module's PTX text, which names the kernel's locations in reports.
    pub module_file: super::PtxFile,
    pub compiled: Arc<CompiledKernel>,
    pub symbols: Arc<Vec<u64>>,
    /// The kernel's `cudaFuncAttributeMaxDynamicSharedMemorySize` in its module
    /// ([`Module::max_dynamic_shared`]).
    max_dynamic_shared: Arc<AtomicU32>,
}

/// Shared memory a block may use without opting in, static and dynamic together (bytes;
/// CUDA C++ Programming Guide, "Technical Specifications per Compute Capability": 48 KB).
pub const SHARED_BYTES_PER_BLOCK: u64 = 48 * 1024;

impl Kernel {
    /// The PTX text that holds this kernel, as the headers of its time-limit, interrupt and
    /// deadlock reports name it: the module's, or for a module linked from several inputs the
    /// input the first instruction of its own body came from (not of a device function
    /// inlined into it; [`PtxFile::locate`](super::PtxFile::locate)), not the names of every
    /// input joined.
    pub fn ptx_name(&self) -> String {
        match self.compiled.inst_locs.iter().find(|l| l.frame == 0) {
            Some(l) if self.module_file.is_linked() => {
                self.module_file.locate(l.line).0.to_string()
            }
            _ => self.module_file.to_string(),
        }
    }

    /// Set the most dynamic shared memory a launch of this kernel may ask for, in bytes
    /// (`cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)`,
    /// `cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)`): what
    /// a kernel needs to use more than 48 KiB of shared memory. The attribute belongs to the
    /// kernel of its module, so every handle of it (clones, other lookups of the same module)
    /// sees it, and no other module's (another load of the same PTX included), as CUDA keeps
    /// it per `CUfunction`.
    ///
    /// Errors ([`Error::Argument`], CUDA's `cudaErrorInvalidValue`): `bytes` plus the kernel's
    /// static shared memory exceeds the opt-in limit of the reported compute capability
    /// ([`occupancy::device_shared_limits`](super::occupancy::device_shared_limits): 163 KiB
    /// at 8.0, 227 KiB at 9.0).
    pub fn set_max_dynamic_shared_bytes(&self, bytes: u32) -> Result<(), Error> {
        let k = &self.compiled;
        let optin = super::occupancy::device_shared_limits().per_block_optin;
        let limit = optin.saturating_sub(k.static_shared_bytes);
        if u64::from(bytes) > limit {
            return Err(Error::Argument(format!(
                "kernel {}: cudaFuncAttributeMaxDynamicSharedMemorySize of {bytes} bytes \
                 exceeds the {limit} bytes the device allows ({optin} \
                 bytes per block opt-in less {} static)",
                quoted(&k.name),
                k.static_shared_bytes
            )));
        }
        self.max_dynamic_shared.store(bytes, Ordering::Relaxed);
        Ok(())
    }

    /// The most dynamic shared memory a launch of this kernel may ask for (bytes): the
    /// `cudaFuncAttributeMaxDynamicSharedMemorySize` attribute when set
    /// ([`set_max_dynamic_shared_bytes`](Self::set_max_dynamic_shared_bytes)), otherwise
    /// [`SHARED_BYTES_PER_BLOCK`] less the static shared memory (CUDA's default value).
    pub fn max_dynamic_shared_bytes(&self) -> u64 {
        match self.max_dynamic_shared.load(Ordering::Relaxed) {
            u32::MAX => SHARED_BYTES_PER_BLOCK.saturating_sub(self.compiled.static_shared_bytes),
            n => u64::from(n),
        }
    }
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

    /// The kernel named `name`: its entry name as the PTX spells it (mangled or `extern "C"`),
    /// or a demangled C++ name with or without its parameter list (`transpose<float>`,
    /// `ns::scale(float*, int)`; the rules are in `host/kernel_name.rs`). Errors:
    /// [`Error::UnknownKernel`] listing the kernels there are, [`Error::AmbiguousKernel`]
    /// listing the kernels a name matches.
    pub fn kernel(&self, name: &str) -> Result<Kernel, Error> {
        let entries: Vec<&str> = self.kernels.iter().map(|k| k.name.as_str()).collect();
        let list = |ix: &mut dyn Iterator<Item = usize>| {
            ix.map(|i| super::kernel_name::describe(entries[i]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match super::kernel_name::find(&entries, name) {
            Ok(i) => Ok(Kernel {
                module_file: self.ptx_file.clone(),
                compiled: self.kernels[i].clone(),
                symbols: self.symbols.clone(),
                max_dynamic_shared: self.max_dynamic_shared[i].clone(),
            }),
            Err(super::kernel_name::Miss::Ambiguous(hits)) => Err(Error::AmbiguousKernel {
                name: name.to_string(),
                file: self.file.clone(),
                candidates: list(&mut hits.into_iter()),
            }),
            Err(super::kernel_name::Miss::None) => Err(Error::UnknownKernel {
                name: name.to_string(),
                file: self.file.clone(),
                available: if entries.is_empty() {
                    "the module has no .entry kernels".to_string()
                } else {
                    format!("kernels: {}", list(&mut (0..entries.len())))
                },
            }),
        }
    }
}

/// A device context: global memory and loaded modules' data.
///
/// Device memory is shared with the context's [`DeviceBuffer`](super::DeviceBuffer)s (see
/// `host::buffer`): every method that touches it takes a lock, held exclusively for the whole
/// of a launch, so host copies (on any thread) and kernels never overlap.
#[derive(Default)]
pub struct Context {
    arena: SharedArena,
    /// Where device `printf` and failed-`assert` text goes.
    printf: PrintfOutput,
    /// Texture, sampler and surface objects (`runtime::texture`).
    pub textures: crate::runtime::texture::TextureTable,
    /// The device heap, made before the first launch of a kernel that uses `malloc`/`free`.
    heap: Option<crate::runtime::heap::DeviceHeap>,
    /// Its size when made (`None`: [`crate::runtime::heap::DEFAULT_HEAP_BYTES`]).
    heap_bytes: Option<u64>,
    /// Whether a kernel that calls `printf` has been launched ([`Context::printf_used`]).
    printf_used: bool,
    /// Memcheck's placement ([`Context::set_memcheck`]).
    memcheck: bool,
    /// initcheck's findings of the launches since the last
    /// [`take_init_reports`](Context::take_init_reports).
    init_reports: Vec<super::initcheck::InitReport>,
    /// The races of launches under racecheck not yet taken ([`Context::take_race_reports`]).
    race_reports: Vec<super::race::RaceReport>,
}

/// Parse, lower and verify PTX text. `file` names it in messages.
pub fn front_end(
    ptx: &str,
    file: &str,
) -> Result<(ir::Module, Vec<ir::verify::VerifiedFunction>), Error> {
    front_end_with_lines(ptx, file).map(|(m, v, _)| (m, v))
}

/// As [`front_end`], with the source location of each PTX line from the module's `.loc`
/// line info.
#[allow(clippy::type_complexity)]
/// Checks that every `.const` variable whose address `k` narrows to 32 bits (`mov.u32 %r,
/// ctab`, or `cvt.u32.u64` of a 64-bit const address after address arithmetic: clang's short
/// pointers) has a 32-bit address: that is the variable's offset from the global arena's base
/// (`docs/isa-notes.md`), so a variable placed past the arena's first 4 GiB (after that much
/// device memory was allocated) cannot be named that way. The address is followed through
/// `add`/`sub`/`cvta`/`selp`/bit casts and widening `cvt`s in instruction order. Errors:
/// [`Error::Unsupported`] naming the kernel and the narrowing instruction's PTX line and column.
fn const_addresses_fit_32(k: &ir::Function, symbols: &[u64], file: &str) -> Result<(), Error> {
    use crate::runtime::memory::{GLOBAL_BASE, WINDOW_SIZE};
    let far = |sym: u32| {
        symbols
            .get(sym as usize)
            .is_some_and(|&a| a != 0 && a.wrapping_sub(GLOBAL_BASE) >= WINDOW_SIZE)
    };
    // The usual case, every variable within reach (0: not in device memory, e.g. `.shared`):
    // nothing to follow.
    if !(0..symbols.len() as u32).any(far) {
        return Ok(());
    }
    let mut tainted = vec![false; k.values.len()];
    for (i, inst) in k.insts.iter().enumerate() {
        let from_far = match inst.op {
            ir::Op::SymAddr {
                sym,
                space: ir::Space::Const,
            } => far(sym),
            _ => false,
        };
        let reads_far = inst.args.iter().any(|a| tainted[a.index()]);
        if !(from_far || reads_far) {
            continue;
        }
        let narrows = inst
            .results
            .iter()
            .any(|&d| k.values[d.index()].ty.bits() < 64);
        let arithmetic = matches!(
            inst.op,
            ir::Op::IAdd {}
                | ir::Op::ISub {}
                | ir::Op::Cvta { .. }
                | ir::Op::Select {}
                | ir::Op::Bitcast {}
                | ir::Op::Cvt { .. }
        );
        if reads_far && narrows && matches!(inst.op, ir::Op::Cvt { .. }) {
            let loc = k.inst_locs.get(i).copied().unwrap_or_default();
            return Err(Error::Unsupported(format!(
                "{file}:{}:{}: a 32-bit address of a .const variable in kernel '{}': the \
                 variable lies past the first 4 GiB of device memory, where 32-bit const-space \
                 addresses do not reach (load the module before allocating that much, or use \
                 64-bit addresses)",
                loc.line, loc.col, k.name
            )));
        }
        if from_far || (arithmetic && !narrows) {
            for &d in &inst.results {
                tainted[d.index()] = true;
            }
        }
    }
    Ok(())
}

pub fn front_end_with_lines(
    ptx: &str,
    file: &str,
) -> Result<(ir::Module, Vec<ir::verify::VerifiedFunction>, LineTable), Error> {
    let map = SourceMap::new(file, ptx);
    let ast = crate::ptx::parse(ptx).map_err(|e| Error::Parse(e.render(&map)))?;
    let mut m = crate::lower::lower_module(&ast, &map).map_err(|e| {
        if e.device_launch {
            Error::DeviceLaunch(e.render(&map))
        } else if e.unsupported {
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
    let lines = LineTable::new(&ast, &map);
    Ok((m, verified, lines))
}

impl Context {
    pub fn new() -> Context {
        Context::default()
    }

    /// A context over `memory` (e.g. `DeviceMemory::with_identity_mapping`, whose device
    /// addresses are host addresses) instead of a new arena.
    pub fn with_memory(memory: DeviceMemory) -> Context {
        let c = Context::default();
        c.arena.write().memory = memory;
        c
    }

    /// Load a module from PTX text for `engine` (`cuModuleLoadData`): parse, lower, verify and
    /// schedule every kernel, and allocate and initialize the module's `.global` variables.
    /// Each kernel's engine compiles at its first launch (or [`Kernel::compile`]); kernels of
    /// a module loaded from the same text for the same engine, while one is alive, are shared
    /// (`host::cache`), so they compile once.
    ///
    /// Errors: [`Error::Parse`], [`Error::Unsupported`], [`Error::Invalid`] with
    /// `file:line:col`; [`Error::Internal`] for a front-end bug (a compiler bug is reported by
    /// the first launch).
    ///
    /// `file` names the text in messages: a name (`&str`), or a
    /// [`PtxFile`](super::PtxFile) that also maps the lines of a linked text to its inputs'
    /// own ([`image::link_ptx`](super::image::link_ptx)).
    pub fn load_module(
        &mut self,
        ptx: &str,
        file: impl Into<super::PtxFile>,
        engine: Engine,
    ) -> Result<Module, Error> {
        let ptx_file: super::PtxFile = file.into();
        let file = ptx_file.name();
        let start = Instant::now();
        // The launches' worker threads get the stack a large kernel's code needs, if the
        // pool is not there yet (`runtime::workers`).
        crate::runtime::workers::worker_stack();
        // A linked text's errors name each input's own line (`PtxFile::relocate`).
        let (m, kernels, lines) =
            front_end_with_lines(ptx, file).map_err(|e| e.relocated(&ptx_file))?;
        let mut symbols = vec![0u64; m.globals.len()];
        for (i, g) in m.globals.iter().enumerate() {
            // Const banks live in the global arena too (see runtime::env).
            if g.space == ir::Space::Global || g.space == ir::Space::Const {
                let p = self.alloc(g.size.max(1), Some(&g.name))?;
                self.arena
                    .write()
                    .memory
                    .set_module_variable(p, g.space == ir::Space::Const);
                if !g.init.is_empty() {
                    self.copy_htod(p, &g.init)?;
                }
                // initcheck: a module variable has static storage: its initializer, and
                // zeros past it or without one (PTX ISA §5.4.4), are written at load.
                self.arena.read().memory.mark_written(p, g.size.max(1));
                symbols[i] = p.0;
            }
        }
        // Initializers that hold variables' addresses (PTX ISA §5.4.4), now that every
        // variable has one.
        for (g, &a) in m.globals.iter().zip(&symbols) {
            for r in &g.relocs {
                let base = symbols.get(r.target as usize).copied().unwrap_or(0);
                self.copy_htod(DevicePtr(a + r.at), &r.bytes(base))?;
            }
        }
        for k in &kernels {
            const_addresses_fit_32(k, &symbols, file).map_err(|e| e.relocated(&ptx_file))?;
        }
        let mut scheduled = vec![];
        for k in kernels {
            let layout = crate::analysis::schedule::schedule(&k).map_err(|e| {
                Error::Unsupported(format!("{}: {}", ptx_file.at(e.loc), e.message))
            })?;
            scheduled.push((k, layout));
        }
        // Engines compile at each kernel's first launch; kernels of a module loaded before
        // from the same text for the same engine, where still held, are shared.
        let fresh = scheduled
            .into_iter()
            .map(|(k, layout)| Arc::new(CompiledKernel::new(k, layout, engine, file, &lines)))
            .collect();
        let compiled = super::cache::kernels(ptx, engine, fresh);
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
        let managed = m
            .globals
            .iter()
            .zip(&symbols)
            .filter(|(g, _)| g.managed)
            .map(|(_, &a)| DevicePtr(a))
            .collect();
        Ok(Module {
            file: file.to_string(),
            ptx_file: ptx_file.clone(),
            engine,
            max_dynamic_shared: compiled
                .iter()
                .map(|_| Arc::new(AtomicU32::new(u32::MAX)))
                .collect(),
            kernels: compiled,
            globals,
            managed,
            const_bytes: m.const_bytes,
            target_sm: m.target_sm,
            symbols: Arc::new(symbols),
            compile_time: start.elapsed(),
            handle_vars,
            texref_samplers,
        })
    }

    /// The shared device memory (for [`DeviceBuffer`](super::DeviceBuffer)s and launches).
    pub(crate) fn arena(&self) -> &SharedArena {
        &self.arena
    }

    /// A read-only view of the device memory (its allocations, for reports). Launches, writes
    /// and frees wait while it is held.
    pub fn memory(&self) -> MemoryView<'_> {
        MemoryView(self.arena.read())
    }

    /// Allocate `bytes` of zeroed device memory (`cuMemAlloc`); `label` names it in memcheck
    /// reports. Errors: [`Error::Memory`].
    pub fn alloc(&mut self, bytes: u64, label: Option<&str>) -> Result<DevicePtr, Error> {
        self.arena
            .write()
            .memory
            .alloc(bytes, label)
            .map_err(Error::Memory)
    }

    /// Rename the allocation that starts at `p` to `label` in memcheck, fault and leak
    /// reports (the drop-in runtime names its `cudaMalloc` buffers so). Errors
    /// ([`Error::Memory`]): no live allocation starts at `p`.
    pub fn set_label(&mut self, p: DevicePtr, label: &str) -> Result<(), Error> {
        self.arena
            .write()
            .memory
            .set_label(p, label)
            .map_err(Error::Memory)
    }

    /// Free device memory (`cuMemFree`). Errors ([`Error::Memory`]): `p` is not the start of
    /// a live allocation, or belongs to a [`DeviceBuffer`](super::DeviceBuffer) (freed when
    /// the buffer is dropped).
    pub fn free(&mut self, p: DevicePtr) -> Result<(), Error> {
        self.arena.write().free_untyped(p)
    }

    /// Copy host → device (`cuMemcpyHtoD`). Errors ([`Error::Memory`]): the range is not
    /// inside one live allocation.
    pub fn copy_htod(&mut self, dst: DevicePtr, src: &[u8]) -> Result<(), Error> {
        self.arena
            .write()
            .memory
            .write(dst, src)
            .map_err(Error::Memory)
    }

    /// Copy device → host (`cuMemcpyDtoH`). Errors as [`copy_htod`](Self::copy_htod).
    pub fn copy_dtoh(&self, dst: &mut [u8], src: DevicePtr) -> Result<(), Error> {
        self.arena
            .read()
            .memory
            .read(src, dst)
            .map_err(Error::Memory)
    }

    /// Copy `bytes` bytes device → device (`cuMemcpyDtoD`); the ranges may overlap (the
    /// result is as if copied through a host buffer). Errors ([`Error::Memory`]): either range
    /// is not inside one live allocation (nothing is written then).
    pub fn copy_dtod(&mut self, dst: DevicePtr, src: DevicePtr, bytes: u64) -> Result<(), Error> {
        buffer::copy_dtod(&mut self.arena.write().memory, dst, src, bytes)
    }

    /// Set `count` bytes at `dst` to `value` (`cuMemsetD8`). Errors ([`Error::Memory`]): the
    /// range is not inside one live allocation (nothing is written then).
    pub fn memset_d8(&mut self, dst: DevicePtr, value: u8, count: usize) -> Result<(), Error> {
        buffer::memset(&mut self.arena.write().memory, dst, value.into(), 1, count)
    }

    /// Set `count` 16-bit values at `dst` to `value` (`cuMemsetD16`). Errors
    /// ([`Error::Memory`]): `dst` is not 2-byte aligned, or the range is not inside one live
    /// allocation (nothing is written then).
    pub fn memset_d16(&mut self, dst: DevicePtr, value: u16, count: usize) -> Result<(), Error> {
        buffer::memset(&mut self.arena.write().memory, dst, value.into(), 2, count)
    }

    /// Set `count` 32-bit values at `dst` to `value` (`cuMemsetD32`). Errors
    /// ([`Error::Memory`]): `dst` is not 4-byte aligned, or the range is not inside one live
    /// allocation (nothing is written then).
    pub fn memset_d32(&mut self, dst: DevicePtr, value: u32, count: usize) -> Result<(), Error> {
        buffer::memset(&mut self.arena.write().memory, dst, value, 4, count)
    }

    /// Send device `printf` output and failed-`assert` messages of later launches to `sink`
    /// (the default is [`PrintfSink::Stdout`], as CUDA's); returns the previous sink.
    pub fn set_printf_sink(&mut self, sink: PrintfSink) -> PrintfSink {
        self.printf.set_sink(sink)
    }

    /// The device `printf` (and failed-`assert`) text captured with [`PrintfSink::Capture`]
    /// since the last call, warps in the order they printed; the capture is emptied.
    pub fn take_printf_output(&mut self) -> String {
        self.printf.take_captured()
    }

    /// [`take_printf_output`](Self::take_printf_output) as runs of one stream each, in the
    /// order written: `printf` text, which CUDA writes to standard output, and failed-assert
    /// lines, which it writes to standard error.
    pub fn take_printf_streams(&mut self) -> Vec<(crate::host::DeviceStream, String)> {
        self.printf.take_captured_streams()
    }

    /// Describe a launch of `kernel` with typed arguments, then run it with
    /// [`LaunchBuilder::launch`] (see [`LaunchBuilder`]).
    pub fn launch_builder<'a>(&'a mut self, kernel: &'a Kernel) -> LaunchBuilder<'a> {
        LaunchBuilder::new(self, kernel)
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
            .create_texture(&self.arena.read().memory, res, tex)
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
            .create_surface(&self.arena.read().memory, res)
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

    /// Whether a kernel that calls device `printf` has been launched in this context: CUDA
    /// refuses a new printf buffer size (`CU_LIMIT_PRINTF_FIFO_SIZE`) from then on.
    pub fn printf_used(&self) -> bool {
        self.printf_used
    }

    /// Forget the printf kernels launched so far, as when the CUDA context they ran in is
    /// reset (`cuDevicePrimaryCtxReset`): [`Context::printf_used`] is false again.
    pub fn clear_printf_used(&mut self) {
        self.printf_used = false;
    }

    /// Free the device heap and forget its size, as when the CUDA context it served is reset:
    /// the next kernel that calls `malloc` makes a heap of the default size, or of the size
    /// [`Context::set_heap_size`] gives before it (every block kernels left allocated is gone).
    pub fn drop_heap(&mut self) -> Result<(), Error> {
        self.heap_bytes = None;
        match self.heap.take() {
            Some(h) => self.free(DevicePtr(h.base())),
            None => Ok(()),
        }
    }

    /// Free every block of the device heap (blocks that kernels allocated and never freed
    /// included); the heap keeps its size. The case runner does this before each `--repeat`
    /// launch, so each starts as the first did.
    pub fn reset_heap(&mut self) {
        if let Some(h) = &mut self.heap {
            *h = if h.is_checked() {
                crate::runtime::heap::DeviceHeap::new_checked(h.base(), h.size())
            } else {
                crate::runtime::heap::DeviceHeap::new(h.base(), h.size())
            };
        }
    }

    /// Turn memcheck's placement on (or off) for allocations made from now on: red zones
    /// around every device allocation and device-heap block, and a quarantine that keeps
    /// freed ones poisoned, so that an access just past a buffer, a use after free and a
    /// double free are found and named ([`DeviceMemory::set_checked`]). Launches check
    /// accesses when their [`LaunchOptions::memcheck`] says so; turn this on before
    /// allocating the buffers they use (a case runner, `PTXJIT_TOOL=memcheck` at `cuInit`).
    pub fn set_memcheck(&mut self, on: bool) {
        self.arena.write().memory.set_checked(on);
        self.memcheck = on;
    }

    /// The races found by launches under racecheck ([`LaunchOptions::racecheck`]) since the
    /// last call, in launch order; each launch's in a fixed order.
    pub fn take_race_reports(&mut self) -> Vec<super::race::RaceReport> {
        std::mem::take(&mut self.race_reports)
    }

    /// Whether memcheck's placement is on ([`Context::set_memcheck`]).
    pub fn memcheck(&self) -> bool {
        self.memcheck
    }

    /// Track which bytes of device memory have been written (initcheck), from now on (or
    /// stop). Bytes of allocations live now count as written; later allocations start
    /// unwritten, and host copies, memsets and kernel stores write them. Turn it on before
    /// allocating (a case runner, `PTXJIT_TOOL=initcheck` at `cuInit`); launches check loads
    /// when their [`LaunchOptions::initcheck`] says so. Errors ([`Error::Memory`]): the
    /// shadow's address range cannot be reserved.
    pub fn set_initcheck(&mut self, on: bool) -> Result<(), Error> {
        self.arena
            .write()
            .memory
            .set_initcheck(on)
            .map_err(Error::Memory)
    }

    /// initcheck's findings of the launches since the last call, in launch order, each
    /// launch's by instruction (each distinct uninitialised read once, with its count).
    pub fn take_init_reports(&mut self) -> Vec<super::initcheck::InitReport> {
        std::mem::take(&mut self.init_reports)
    }

    /// Launch `kernel` (`cuLaunchKernel`) and wait for it.
    ///
    /// Checks: grid dimensions ≥ 1 (x < 2³¹, y and z ≤ 65535), block dimensions ≥ 1 with
    /// x, y ≤ 1024, z ≤ 64 and at most 1024 threads (or the kernel's `.maxntid`), exactly
    /// the kernel's `.reqntid` shape if it declares one, dynamic
    /// shared memory ≤ [`Kernel::max_dynamic_shared_bytes`] (48 KiB less the static shared
    /// memory unless the kernel opted in to more), and `args` against the kernel's parameters
    /// (count, then
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
        check_dims(kernel, dims).map_err(|(_, e)| e)?;
        let cluster = cluster_shape(kernel, dims, opts)?;
        let local_bytes = launch_local_bytes(kernel, opts)?;
        let want = k.param_bytes.max(1) as usize;
        if params.len() < want {
            if params.len() as u32 == k.param_bytes {
                params.resize(want, 0);
            } else {
                return Err(Error::Argument(format!(
                    "kernel {} takes {} bytes of parameters, got {}",
                    quoted(&k.name),
                    k.param_bytes,
                    params.len()
                )));
            }
        }
        // The first launch compiles the kernel (outside the launch's time, and before the
        // arena is locked: compiling does not touch it).
        // The launch holds this engine to its end: a tier swap reaches only later launches.
        let engine = k.engine_for(opts.racecheck, opts.lockstep)?;
        let race_sink = opts.racecheck.then(|| {
            crate::runtime::race::RaceSink::with_global(opts.racecheck_global)
                .with_sync(k.inst_sync.clone())
                .with_fences(k.inst_fences.clone())
        });
        // Held for the whole launch: kernel code on the worker threads reads and writes the
        // arena, and no host copy, allocation or buffer drop may run meanwhile.
        let mut arena = self.arena.write();
        self.printf_used |= k.uses_printf;
        if k.uses_heap && self.heap.is_none() {
            let bytes = self
                .heap_bytes
                .unwrap_or(crate::runtime::heap::DEFAULT_HEAP_BYTES)
                .max(crate::runtime::heap::HEAP_ALIGN);
            let p = arena
                .memory
                .alloc(bytes, Some("device heap"))
                .map_err(Error::Memory)?;
            self.heap = Some(if self.memcheck {
                crate::runtime::heap::DeviceHeap::new_checked(p.0, bytes)
            } else {
                crate::runtime::heap::DeviceHeap::new(p.0, bytes)
            });
        }
        let cooperative = opts.cooperative.is_some();
        let workspace = match opts.cooperative {
            Some(c) => Some(grid_workspace(&mut arena.memory, k, dims, c)?),
            None => None,
        };
        if opts.initcheck && arena.memory.init_shadow().is_none() {
            arena.memory.set_initcheck(true).map_err(Error::Memory)?;
        }
        let init_findings = crate::runtime::initcheck::InitFindings::default();
        let memory = &arena.memory;
        let sync_sink = opts
            .synccheck
            .then(crate::runtime::synccheck::SyncSink::default);
        let start = Instant::now();
        // A launch that runs long says so on stderr (`hang_note`), unless it has a time limit.
        let _watch =
            super::hang_note::watch(|| quoted(&k.name).to_string(), opts.timeout.is_some());
        let res = run_grid(
            &*engine,
            LaunchInput {
                dims,
                static_shared: k.static_shared_bytes,
                local_bytes,
                stack_base: k.call_stack.unwrap_or(local_bytes),
                params: &mut params,
                symbols: &kernel.symbols,
                memory,
                textures: &self.textures,
                // With memcheck, accesses into the heap are checked against its blocks.
                heap: self.heap.as_ref().filter(|_| k.uses_heap || opts.memcheck),
                printf: &self.printf,
                memcheck: opts.memcheck,
                synccheck: sync_sink.as_ref(),
                schedule: opts.schedule,
                initcheck: opts.initcheck.then_some(&init_findings),
                timeout: opts.timeout,
                sites: Sites {
                    locs: &k.inst_locs,
                    ptx: &k.inst_ptx,
                    sources: &k.inst_sources,
                    shared_vars: &k.shared_vars,
                    file: Some(&kernel.module_file),
                },
                cooperative: workspace.map(|p| p.0),
                race: race_sink.as_ref(),
                cluster,
                uses: k.cta_state,
            },
        );
        if let Some(sink) = &race_sink {
            self.race_reports.extend(
                sink.take()
                    .into_iter()
                    .map(|f| super::race::report(&arena.memory, kernel, dims, f)),
            );
        }
        if let Some(p) = workspace {
            arena
                .memory
                .free(p)
                .map_err(|e| Error::Memory(e.to_string()))?;
        }
        let memory = &arena.memory;
        for (r, count) in init_findings.take() {
            self.init_reports
                .push(super::initcheck::InitReport::new(memory, kernel, r, count));
        }
        let findings: Vec<_> = sync_sink
            .map(|s| s.take())
            .unwrap_or_default()
            .into_iter()
            .map(|f| sync_finding(kernel, f))
            .collect();
        if !findings.is_empty() {
            let stopped = match res {
                Ok(_) => None,
                Err(LaunchFailure::Deadlock(report, site)) => {
                    Some(deadlock_message(kernel, &k.name, &report, site))
                }
                Err(LaunchFailure::Fault(r, count)) => Some(
                    report(
                        memory,
                        self.heap.as_ref(),
                        kernel,
                        dims,
                        cooperative,
                        r,
                        count,
                    )
                    .to_string(),
                ),
                Err(LaunchFailure::Timeout(at)) => Some(
                    Error::Timeout(
                        stop_report(kernel, dims, at),
                        opts.timeout.unwrap_or_default(),
                    )
                    .to_string(),
                ),
                Err(LaunchFailure::Interrupted(at)) => {
                    Some(Error::Interrupted(stop_report(kernel, dims, at)).to_string())
                }
            };
            return Err(Error::Sanitizer(Box::new(super::tool::SanitizerReport {
                findings,
                stopped,
            })));
        }
        match res {
            Ok(stats) => Ok(LaunchReport {
                elapsed: start.elapsed(),
                warp_runs: stats.warp_runs,
                workers: stats.workers,
                thread_instructions: stats.thread_instructions,
            }),
            Err(LaunchFailure::Timeout(mut stopped)) => {
                let at = &mut stopped.at;
                // A CTA waiting for another CTA (a flag in global memory) never sees it under
                // the shuffled schedule, which runs the CTAs of a non-cooperative grid one
                // at a time: say so, as the likely reason.
                let one_at_a_time =
                    matches!(opts.schedule, crate::runtime::shuffle::Schedule::Shuffle(_))
                        && opts.cooperative.is_none();
                if one_at_a_time {
                    at.push_str(
                        "\n(the shuffled schedule runs one CTA at a time: a CTA that waits for \
                         another CTA's write never sees it unless the launch is cooperative)",
                    );
                }
                Err(Error::Timeout(
                    stop_report(kernel, dims, stopped),
                    opts.timeout.unwrap_or_default(),
                ))
            }
            Err(LaunchFailure::Interrupted(at)) => {
                Err(Error::Interrupted(stop_report(kernel, dims, at)))
            }
            Err(LaunchFailure::Deadlock(report, site)) => Err(Error::Deadlock(deadlock_message(
                kernel, &k.name, &report, site,
            ))),
            Err(LaunchFailure::Fault(r, count)) => Err(Error::Fault(Box::new(report(
                memory,
                self.heap.as_ref(),
                kernel,
                dims,
                cooperative,
                r,
                count,
            )))),
        }
    }
}

/// Where a launch stopped by its time limit or an interrupt was ([`Error::Timeout`],
/// [`Error::Interrupted`]), begun as a fault report is: the place, the kernel, the thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopReport {
    /// The kernel's name.
    pub kernel: String,
    /// `FILE:LINE:COL` of the instruction where the first running warp (lowest CTA, then
    /// warp) was; the PTX file alone when no warp had started.
    pub place: String,
    /// That warp: `: CTA (0,0,0) warp 0, threads (0,0,0) to (31,0,0) (lanes 0-31), was at
    /// 'add.u32'`; empty when no warp had started.
    pub warp: String,
    /// Where every warp was (PTX lines), one CTA per paragraph.
    pub at: String,
}

/// The [`StopReport`] of a launch of `kernel` stopped with `stopped`.
fn stop_report(
    kernel: &Kernel,
    dims: LaunchDims,
    stopped: crate::runtime::launch::Stopped,
) -> Box<StopReport> {
    let (place, warp) = stop_place(kernel, dims, stopped.first);
    Box::new(StopReport {
        kernel: kernel.compiled.name.clone(),
        place,
        warp,
        at: stopped.at,
    })
}

/// A deadlock's message: `FILE:LINE:COL` of the barrier instruction `site` (fault-record
/// index) the first waiting warp waits at, as a fault report begins (the PTX file alone where
/// no barrier record names one), the kernel `name`, then the runtime's `report`.
fn deadlock_message(kernel: &Kernel, name: &str, report: &str, site: Option<u32>) -> String {
    let place = match site.and_then(|i| kernel.compiled.inst_locs.get(i as usize)) {
        Some(&l) => kernel.module_file.at(l),
        None => kernel.ptx_name(),
    };
    format!("{place}: kernel {}: {report}", quoted(name))
}

/// [`StopReport::place`] and [`StopReport::warp`] for the first stopped warp.
fn stop_place(
    kernel: &Kernel,
    dims: LaunchDims,
    first: Option<crate::runtime::launch::StopSite>,
) -> (String, String) {
    use crate::runtime::launch::{fmt_lanes, StopState};
    let k = &kernel.compiled;
    let Some(f) = first else {
        return (kernel.ptx_name(), String::new());
    };
    let place = match k.inst_locs.get(f.site as usize) {
        Some(&l) => kernel.module_file.at(l),
        None => kernel.ptx_name(),
    };
    let [bx, by, _] = dims.block;
    let thread = |lane: u32| {
        let t = f.warp * 32 + lane;
        let (x, y, z) = (t % bx, t / bx % by, t / (bx * by));
        format!("({x},{y},{z})")
    };
    let (lo, hi) = (f.lanes.trailing_zeros(), 31 - f.lanes.leading_zeros());
    let threads = if lo == hi {
        format!("thread {} (lane {lo})", thread(lo))
    } else {
        format!(
            "threads {} to {} (lanes {})",
            thread(lo),
            thread(hi),
            fmt_lanes(f.lanes)
        )
    };
    let inst = k
        .inst_ptx
        .get(f.site as usize)
        .filter(|t| *t != ir::YIELD_POINT_PTX);
    let what = match (f.state, inst) {
        (StopState::At, Some(t)) => format!("was at '{t}'"),
        (StopState::Spinning, _) | (StopState::At, None) => "was spinning in a loop".into(),
        (StopState::Waiting, Some(t)) => format!("was waiting at '{t}'"),
        (StopState::WaitingBefore, Some(t)) => format!("was waiting at a barrier before '{t}'"),
        (StopState::Waiting | StopState::WaitingBefore, None) => "was waiting at a barrier".into(),
    };
    let [cx, cy, cz] = f.ctaid;
    (
        place,
        format!(": CTA ({cx},{cy},{cz}) warp {}, {threads}, {what}", f.warp),
    )
}

/// Check a cooperative grid's size against the residency limit and allocate its zeroed grid
/// workspace ([`LaunchOptions::cooperative`]).
fn grid_workspace(
    memory: &mut crate::runtime::memory::DeviceMemory,
    k: &CompiledKernel,
    dims: LaunchDims,
    c: Cooperative,
) -> Result<DevicePtr, Error> {
    let [gx, gy, gz] = dims.grid;
    let ctas = u64::from(gx) * u64::from(gy) * u64::from(gz);
    let threads = dims.block[0] * dims.block[1] * dims.block[2];
    let dynamic = u64::from(dims.shared_bytes);
    let limit = super::occupancy::max_cooperative_ctas(k, threads, dynamic, c.shared_per_sm);
    if ctas > limit {
        return Err(Error::CooperativeTooLarge(format!(
            "kernel {}: a cooperative grid of {ctas} CTAs exceeds the {limit} the device \
             holds at once ({} per multiprocessor with {threads} threads and {} bytes of \
             shared memory each, × {} multiprocessors)",
            quoted(&k.name),
            super::occupancy::max_active_ctas_per_sm(k, threads, dynamic, c.shared_per_sm),
            k.static_shared_bytes + dynamic,
            super::occupancy::sm_count()
        )));
    }
    let p = memory
        .alloc(GRID_WORKSPACE_BYTES, Some("cooperative grid workspace"))
        .map_err(Error::Memory)?;
    let mut init = [0u8; GRID_WORKSPACE_BYTES as usize];
    init[..4].copy_from_slice(&(GRID_WORKSPACE_BYTES as u32).to_le_bytes());
    memory.write(p, &init).map_err(Error::Memory)?;
    Ok(p)
}

/// The report of a fault record, in kernel terms.
fn report(
    memory: &DeviceMemory,
    heap: Option<&crate::runtime::heap::DeviceHeap>,
    kernel: &Kernel,
    dims: LaunchDims,
    cooperative: bool,
    r: FaultRecord,
    count: u64,
) -> FaultReport {
    let k = &kernel.compiled;
    // A grid sync in a launch without a grid workspace: cooperative groups trap there.
    let detail = match r.detail {
        None if r.kind == FaultKind::Trap && k.reads_grid_workspace && !cooperative => Some(
            "the kernel reads the grid workspace (%envreg1/%envreg2) that \
             cooperative_groups::this_grid() needs, and this launch is not cooperative: a grid \
             sync traps outside a cooperative launch, as on a GPU (launch with \
             cudaLaunchCooperativeKernel, or cooperative = true in a case file)"
                .to_string(),
        ),
        d => d,
    };
    let no_dynamic_shared = r.space == ir::Space::Shared
        && r.kind == FaultKind::OutOfBounds
        && k.dynamic_shared
        && dims.shared_bytes == 0
        && r.addr >= k.static_shared_bytes;
    let i = r.inst as usize;
    let global = matches!(r.space, ir::Space::Global | ir::Space::Const);
    // The nearest allocation is named only for an address in or near it (the rule of
    // `memory::is_near`); an address near no allocation gets the allocations on either side
    // instead, except in the first page (a null pointer plus an offset, which the report
    // calls so).
    let near = memory
        .nearest_for_report(r.addr)
        .filter(|_| global)
        .map(|(a, off)| (a.report_name(), off, a.size));
    let neighbours = if global && near.is_none() && r.addr >= 4096 {
        // numba's environment objects (a module variable for each function, which its
        // kernels never touch) and nvcc's own strings (`$str$1`, a printf format) are no
        // neighbour worth naming: the next allocation is.
        let n = memory.neighbours_where(r.addr, |a| {
            !super::kernel_name::is_numba_environment(&a.label)
                && !super::kernel_name::is_compiler_internal(&a.label)
        });
        let side = |x: Option<(&crate::runtime::memory::Allocation, u64)>| {
            x.map(|(a, d)| (a.report_name(), a.size, d))
        };
        Some(FaultNeighbours {
            below: side(n.below),
            above: side(n.above),
        })
        .filter(|n| n.below.is_some() || n.above.is_some())
    } else {
        None
    };
    let nearest = near;
    // A freed allocation (memcheck: still in quarantine; else one of the latest frees no
    // allocation took since) or a heap block still in quarantine (a use after free), or
    // the heap block a heap access missed; a free of a quarantined heap block (double free).
    let heap_at = |a: u64| heap.filter(|h| h.is_checked() && h.contains(a));
    let freed = match r.kind {
        FaultKind::OutOfBounds | FaultKind::Unallocated if global => {
            match heap_at(r.addr).map(|h| h.check(r.addr, u64::from(r.size))) {
                Some(HeapAccess::Freed { block, size }) => Some(Freed {
                    label: format!("device malloc block at {block:#x}"),
                    offset: r.addr - block,
                    size,
                }),
                Some(HeapAccess::Outside { .. }) | Some(HeapAccess::Live) | None => {
                    memory.freed_at(r.addr).map(|(a, offset)| Freed {
                        label: a.label.clone(),
                        offset,
                        size: a.size,
                    })
                }
            }
        }
        FaultKind::BadFree => heap_at(r.addr)
            .filter(|h| h.freed_block(r.addr))
            .map(|_| Freed {
                label: format!("device malloc block at {:#x}", r.addr),
                offset: 0,
                size: 0,
            }),
        _ => None,
    };
    // A heap access outside every live block names the block before it, not the heap.
    let nearest = match heap_at(r.addr).map(|h| h.check(r.addr, u64::from(r.size))) {
        Some(HeapAccess::Outside {
            before: Some((block, size)),
        }) if global && freed.is_none() => Some((
            format!("'device malloc block at {block:#x}'"),
            (r.addr - block) as i64,
            size,
        )),
        _ => nearest,
    };
    let outside_device = outside_device_memory(r.space, r.addr);
    // A host pointer's neighbours in device memory are terabytes away: the report says what
    // the host has there instead. A wild pointer outside every mapping keeps those no
    // farther than the arena's size (an index 64 MiB before a buffer still names it).
    let host = matches!(outside_device, Some(OutsideDevice::Host(_)));
    let near_side = |x: Option<(String, u64, u64)>| x.filter(|s| s.2 <= MAX_ARENA);
    let neighbours = neighbours
        .filter(|_| nearest.is_none() && !host)
        .map(|n| match outside_device {
            Some(OutsideDevice::Unmapped) => FaultNeighbours {
                below: near_side(n.below),
                above: near_side(n.above),
            },
            _ => n,
        })
        .filter(|n| n.below.is_some() || n.above.is_some());
    FaultReport {
        kernel: k.name.clone(),
        kind: r.kind,
        space: r.space,
        addr: r.addr,
        size: r.size,
        write: r.write,
        atomic: k.inst_atomic.get(i).copied().unwrap_or(false),
        ctaid: r.ctaid,
        tid: r.tid,
        loc: k.inst_locs.get(i).copied().unwrap_or_default(),
        source: k.inst_sources.get(i).cloned().flatten(),
        instruction: k.inst_ptx.get(i).cloned().unwrap_or_default(),
        ptx_file: kernel.module_file.clone(),
        nearest,
        neighbours,
        outside_device,
        freed,
        count,
        detail,
        no_dynamic_shared,
        shared: (r.space == ir::Space::Shared)
            .then_some((k.static_shared_bytes, u64::from(dims.shared_bytes))),
        frames: device_frames(
            k.inst_locs.get(i).copied().unwrap_or_default(),
            &k.call_frames,
        ),
    }
}

/// A synccheck finding in kernel terms.
fn sync_finding(
    kernel: &Kernel,
    f: crate::runtime::synccheck::SyncFinding,
) -> super::tool::Finding {
    let k = &kernel.compiled;
    let i = f.inst as usize;
    super::tool::Finding {
        tool: super::tool::Tool::Synccheck,
        what: f.kind.headline().to_string(),
        detail: f.detail,
        kernel: k.name.clone(),
        ptx_file: kernel.module_file.clone(),
        loc: k.inst_locs.get(i).copied().unwrap_or_default(),
        instruction: k.inst_ptx.get(i).cloned().unwrap_or_default(),
        source: k.inst_sources.get(i).cloned().flatten(),
        ctaid: f.ctaid,
        tid: f.tid,
        threads: f.threads,
    }
}

/// The PTX instruction each block's terminator stands for, in fault and time-limit reports:
/// a barrier terminator is the instruction at its PTX location where one is there (the
/// `bar.sync` it ends, or the `barrier.cluster.wait` or mbarrier wait whose loop parks its
/// lanes at it, `lower::yields`), so that a warp stopped at it is named as at the
/// instruction's other blocks; else [`terminator_ptx`]'s word.
fn terminator_names(k: &ir::Function) -> Vec<String> {
    let mut at: std::collections::HashMap<ir::SrcLoc, &str> = std::collections::HashMap::new();
    for (loc, ptx) in k.inst_locs.iter().zip(&k.inst_ptx) {
        // Not the yield point's own instructions (`lower::yields`), which share the loop's
        // location.
        if loc.line != 0 && ptx != ir::YIELD_POINT_PTX {
            at.insert(*loc, ptx);
        }
    }
    k.blocks
        .iter()
        .map(|b| match (&b.term, at.get(&b.term_loc)) {
            (ir::Terminator::Barrier { .. }, Some(ptx)) => ptx.to_string(),
            _ => terminator_ptx(&b.term).to_string(),
        })
        .collect()
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

/// The cluster shape of a launch ([`LaunchOptions::cluster`], CUDA C++ Programming Guide
/// "Thread Block Clusters"; PTX ISA §11.5 for the kernel's directives).
fn cluster_shape(
    kernel: &Kernel,
    d: LaunchDims,
    opts: &LaunchOptions,
) -> Result<crate::runtime::cluster::ClusterShape, Error> {
    use crate::runtime::cluster::{ClusterShape, MAX_CLUSTER_CTAS, PORTABLE_CLUSTER_CTAS};
    let k = &kernel.compiled;
    let bad = |m: String| {
        Err(Error::LaunchConfig(format!(
            "kernel {}: {m}",
            quoted(&k.name)
        )))
    };
    let req = k.cluster.reqnctapercluster;
    let dims = match (opts.cluster, req) {
        (Some(c), Some(r)) if c != r => {
            return bad(format!(
                "the launch's cluster shape {c:?} differs from the kernel's \
                 .reqnctapercluster {r:?}"
            ))
        }
        (Some(c), _) => c,
        (None, Some(r)) => r,
        (None, None) if k.cluster.explicit => {
            return bad(
                "the kernel declares .explicitcluster and needs a cluster shape at launch \
                 (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, case key cluster)"
                    .into(),
            )
        }
        (None, None) => return Ok(ClusterShape::default()),
    };
    if dims.contains(&0) {
        return bad(format!(
            "invalid cluster shape {dims:?}: each dimension must be at least 1"
        ));
    }
    if (0..3).any(|i| !d.grid[i].is_multiple_of(dims[i])) {
        return bad(format!(
            "the grid {:?} is not a whole number of clusters of {dims:?} \
             (each grid dimension must be a multiple of the cluster's)",
            d.grid
        ));
    }
    let n = dims.iter().map(|&x| u64::from(x)).product::<u64>();
    let limit = if opts.cluster_non_portable {
        MAX_CLUSTER_CTAS
    } else {
        PORTABLE_CLUSTER_CTAS
    };
    if n > u64::from(limit) {
        let more = if opts.cluster_non_portable {
            String::new()
        } else {
            format!(" (up to {MAX_CLUSTER_CTAS} with the non-portable cluster size allowed)")
        };
        return bad(format!(
            "a cluster of {dims:?} has {n} CTAs; the limit is {limit}{more}"
        ));
    }
    if let Some(m) = k.cluster.max_rank {
        if n > u64::from(m) {
            return bad(format!(
                "a cluster of {dims:?} has {n} CTAs; the kernel's .maxclusterrank is {m}"
            ));
        }
    }
    if n > 1 && opts.cooperative.is_some() {
        return Err(Error::Unsupported(format!(
            "kernel {}: a cooperative launch with clusters of more than one CTA",
            quoted(&k.name)
        )));
    }
    Ok(ClusterShape {
        dims,
        explicit: true,
    })
}

/// The grid, block and dynamic shared memory checks of [`Context::launch`]; errors are
/// [`Error::LaunchConfig`] with the part of the launch they are about.
fn check_dims(kernel: &Kernel, d: LaunchDims) -> Result<(), (LaunchPart, Error)> {
    let k = &kernel.compiled;
    let [gx, gy, gz] = d.grid;
    let [bx, by, bz] = d.block;
    let err = |part: LaunchPart, m: String| {
        Err((
            part,
            Error::LaunchConfig(format!("kernel {}: {m}", quoted(&k.name))),
        ))
    };
    let bad = |m: String| err(LaunchPart::Block, m);
    if gx == 0 || gy == 0 || gz == 0 || gx > i32::MAX as u32 || gy > 65535 || gz > 65535 {
        return err(LaunchPart::Grid, format!(
            "invalid grid [{gx}, {gy}, {gz}]: each dimension must be at least 1, x at most 2147483647, y and z at most 65535"
        ));
    }
    if bx == 0 || by == 0 || bz == 0 || bx > 1024 || by > 1024 || bz > 64 {
        return bad(format!(
            "invalid block [{bx}, {by}, {bz}]: each dimension must be at least 1, x and y at most 1024, z at most 64"
        ));
    }
    if let Some(req @ [rx, ry, rz]) = k.req_ntid {
        if req != d.block {
            return bad(format!(
                "block [{bx}, {by}, {bz}] differs from the kernel's .reqntid {rx}, {ry}, {rz} \
                 (the exact block shape it must be launched with)"
            ));
        }
    }
    let threads = bx as u64 * by as u64 * bz as u64;
    let limit = k.max_threads.unwrap_or(1024).min(1024) as u64;
    if threads > limit {
        return bad(format!(
            "block [{bx}, {by}, {bz}] has {threads} threads; the limit is {limit} threads per block"
        ));
    }
    let max_dynamic = kernel.max_dynamic_shared_bytes();
    if u64::from(d.shared_bytes) > max_dynamic {
        let optin = super::occupancy::device_shared_limits()
            .per_block_optin
            .saturating_sub(k.static_shared_bytes);
        let numba = super::kernel_name::numba_name(&k.name).is_some();
        let default = kernel.max_dynamic_shared.load(Ordering::Relaxed) == u32::MAX;
        let how = if default && numba {
            // numba-cuda has no call of its own for the attribute (cudaFuncSetAttribute is
            // the C++ runtime's): the way there is cuda-python's driver on numba's handle.
            format!(
                "the default maximum ({SHARED_BYTES_PER_BLOCK} bytes per block less {} static); \
                 numba-cuda has no option that raises it: launch with fewer bytes (the fourth \
                 value of kernel[blocks, threads, stream, bytes]), or, after the kernel's first \
                 compile, raise its CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES through \
                 cuda-python, up to {optin} bytes: \
                 cuda.bindings.driver.cuKernelSetAttribute(\
                 CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, BYTES, \
                 kernel.overloads[kernel.signatures[0]]._codelibrary.get_cufunc().handle, 0)",
                k.static_shared_bytes,
            )
        } else if numba {
            "the kernel's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES attribute".to_string()
        } else if default {
            format!(
                "the default maximum ({SHARED_BYTES_PER_BLOCK} bytes per block less {} static); \
                 more needs the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize attribute \
                 set first (cudaFuncSetAttribute, or cuFuncSetAttribute with \
                 CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), up to {optin} bytes",
                k.static_shared_bytes,
            )
        } else {
            "the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize attribute".to_string()
        };
        return err(
            LaunchPart::SharedBytes,
            format!(
                "{} bytes of dynamic shared memory exceed the {max_dynamic} bytes of {how}",
                d.shared_bytes
            ),
        );
    }
    Ok(())
}

/// Check arguments against the parameter list and lay them out in a parameter buffer.
fn pack_args(k: &CompiledKernel, args: &[KernelArg]) -> Result<Vec<u8>, Error> {
    pack_args_at(k, args).map_err(|(_, e)| e)
}

/// As [`pack_args`]; an error comes with the index of the argument at fault
/// ([`Kernel::check_args_at`]).
fn pack_args_at(k: &CompiledKernel, args: &[KernelArg]) -> Result<Vec<u8>, (Option<usize>, Error)> {
    if args.len() != k.params.len() {
        let at = (args.len() > k.params.len()).then_some(k.params.len());
        return Err((
            at,
            Error::Argument(format!(
                "kernel {} expects {} arguments ({}), got {}",
                quoted(&k.name),
                k.params.len(),
                k.params
                    .iter()
                    .map(|p| {
                        let name = super::kernel_name::param_label(&k.name, &p.name);
                        match p.kind {
                            ParamKind::Bytes => format!(
                                "{name}: {} bytes by value (.align {} .{} array: a struct)",
                                p.size, p.align, p.ptx_type
                            ),
                            ParamKind::Int { .. } | ParamKind::Float => {
                                format!("{name}: .{}", p.ptx_type)
                            }
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                args.len()
            )),
        ));
    }
    let mut buf = vec![0u8; k.param_bytes.max(1) as usize];
    for (n, (p, a)) in k.params.iter().zip(args).enumerate() {
        let (bytes, is_float, is_ptr) = a.bytes();
        let is_struct = matches!(a, KernelArg::Struct(_) | KernelArg::TensorMap(_));
        let ok = match p.kind {
            _ if is_struct => p.kind == ParamKind::Bytes && bytes.len() as u32 == p.size,
            ParamKind::Float => is_float && bytes.len() as u32 == p.size,
            ParamKind::Int { .. } => {
                !is_float && bytes.len() as u32 == p.size && (!is_ptr || p.size == 8)
            }
            ParamKind::Bytes => false,
        };
        if !ok {
            return Err((
                Some(n),
                Error::Argument(format!(
                    "kernel {} argument {} ('{}') is a .{} parameter of {} bytes, but the value \
                     given is {}",
                    quoted(&k.name),
                    n + 1,
                    super::kernel_name::param_label(&k.name, &p.name),
                    p.ptx_type,
                    p.size,
                    a.describe()
                )),
            ));
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

#[cfg(test)]
mod tests {
    /// A barrier terminator is named by the instruction at its PTX location in reports: the
    /// loop that `barrier.cluster.wait` becomes parks its lanes at a block of its own whose
    /// only content is that terminator, and a warp stopped there during its turn was named
    /// 'barrier wait' by the interpreter (whose report goes by the block's first site) where
    /// the JIT named the instruction. `bar.sync`'s terminator is named `bar.sync`.
    #[test]
    fn barrier_terminators_are_named_by_their_instruction() {
        let src = ".version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  bar.sync 0;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
";
        let (_, kernels) = super::front_end(src, "k.ptx").expect("loads");
        let k = &kernels[0];
        let names = super::terminator_names(k);
        let mut barriers = vec![];
        for (b, name) in k.blocks.iter().zip(&names) {
            if matches!(b.term, crate::ir::Terminator::Barrier { .. }) {
                barriers.push((b.term_loc.line, name.as_str()));
            }
        }
        assert!(barriers.contains(&(6, "bar.sync")), "{barriers:?}");
        assert!(
            barriers.contains(&(8, "barrier.cluster.wait")),
            "{barriers:?}"
        );
        assert!(
            barriers.iter().all(|(_, n)| *n != "barrier wait"),
            "{barriers:?}"
        );
    }
}
