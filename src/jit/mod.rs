//! The Cranelift JIT backend: each kernel becomes one native function
//! `extern "C" fn(states: *const *mut u8, env: *mut CtaEnv, first: u32, count: u32) -> u32`
//! that runs `count` warps of 32 lanes of a CTA in turn (warp `first + i` on the state
//! `states[i]`), each until no lane of it is pending; it returns 0 when all of them have run,
//! or, when it sees the launch's abort flag, how many warps ran (the one that saw it
//! included). One call runs a scheduler round of a whole CTA ([`WarpEngine::run_round`]):
//! what is the same for every warp (the environment's fields) is loaded once per call. See
//! [`codegen`] for the shape of the code and `analysis::schedule` for the execution model
//! it follows.

mod affine;
mod batch;
mod bitops;
mod codegen;
mod collective;
mod combine;
mod ctabar;
mod ctacheck;
mod dead_code;
mod dloop;
mod fullwarp;
mod gatom;
mod group;
pub mod helpers;
mod preloop;
mod region;
mod scalar;
mod stream;
mod vector;
mod wide;

use crate::analysis::schedule::WarpLayout;
use crate::ir::verify::VerifiedFunction;
use crate::runtime::env::CtaEnv;
use crate::runtime::launch::{WarpEngine, WarpStatus};
use cranelift_codegen::ir::{types, AbiParam, UserFuncName};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};
use std::cell::Cell;
use std::sync::OnceLock;

/// The compiled kernel: `(states, env, first, count) -> status` (see the module docs).
type WarpFn = unsafe extern "C" fn(*const *mut u8, *mut CtaEnv, u32, u32) -> u32;

/// The warps of a round that get a pointer table on the stack (a CTA of 1024 threads);
/// larger rounds put it on the heap.
const ROUND_TABLE: usize = 32;

/// The Cranelift settings a kernel is compiled with, and how many of its full-warp group
/// loops are unrolled (the quick tier unrolls only the first ones, `fullwarp.rs`,
/// `QUICK_UNROLL_BUDGET`). An unrolled loop runs the same instructions for the same lanes
/// in the same order as the loop, so the code of both tiers computes the same results bit
/// for bit; they differ in how long compiling takes and how fast the code runs
/// (docs/performance.md, "Tiered compilation", "Fewer unrolled group loops in the quick
/// tier").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// `opt_level=none` and regalloc2's single-pass register allocator: about half the
    /// compile time of [`Tier::Optimized`], code that runs up to twice as long.
    Quick,
    /// `opt_level=speed` and regalloc2's backtracking register allocator.
    Optimized,
}

impl Tier {
    /// The tier's name in messages and switches (`quick`, `optimized`).
    pub fn name(self) -> &'static str {
        match self {
            Tier::Quick => "quick",
            Tier::Optimized => "optimized",
        }
    }
}

/// A kernel compiled to native code, with the data its code points into.
pub struct JitKernel {
    layout: WarpLayout,
    tier: Tier,
    /// What must be zero in a warp state at CTA start (`WarpEngine::zeroed_ranges`).
    zeroed: Vec<(u32, u32)>,
    /// Compiled for batches (`batch.rs`): a call given one in `CtaEnv::batch` runs its later
    /// CTAs too ([`WarpEngine::runs_batches`]).
    batches: bool,
    /// The code combines global reductions in the thread's pending table (`combine.rs`):
    /// every call ends with a flush.
    combine: bool,
    /// The code's native stack frame in bytes (at most `runtime::workers::max_frame`).
    frame: usize,
    func: WarpFn,
    /// Owns the code memory (freed on drop).
    module: Option<JITModule>,
    /// Descriptors the code refers to by address.
    _data: codegen::KernelData,
}

// SAFETY: after finalization the JIT module's code and data are immutable; the descriptors in
// `_data` are only read. Calling the compiled function from several threads at once is what it
// is built for (each call gets its own state and env).
unsafe impl Send for JitKernel {}
// SAFETY: see above.
unsafe impl Sync for JitKernel {}

impl Drop for JitKernel {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: no code of this module can run any more: the kernel is being dropped and
            // launches borrow it for their whole duration.
            unsafe { m.free_memory() };
        }
    }
}

impl WarpEngine for JitKernel {
    fn layout(&self) -> &WarpLayout {
        &self.layout
    }

    fn zeroed_ranges(&self) -> Option<&[(u32, u32)]> {
        Some(&self.zeroed)
    }

    fn runs_batches(&self) -> bool {
        self.batches
    }

    fn frame_bytes(&self) -> Option<usize> {
        Some(self.frame)
    }

    fn run_warp(&self, state: &mut [u8], env: &CtaEnv) -> WarpStatus {
        if state.len() < self.layout.size as usize {
            return WarpStatus::Aborted;
        }
        let table = [state.as_mut_ptr()];
        // SAFETY: `state` is a warp state of this kernel's layout (checked size) and `env` a
        // valid CTA environment for the running launch; the code only touches memory through
        // them and through bounds-checked translations. With `first == env.warp` the code
        // never writes `env` (it writes `env.warp` only where it differs from the warp it
        // runs), so the shared reference is only read.
        let r = unsafe {
            (self.func)(
                table.as_ptr(),
                env as *const CtaEnv as *mut CtaEnv,
                env.warp,
                1,
            )
        };
        if self.combine {
            crate::runtime::redcombine::end_call(env);
        }
        if r == 0 {
            WarpStatus::Stopped
        } else {
            WarpStatus::Aborted
        }
    }

    fn run_round(&self, states: &mut [Vec<u128>], env: &mut CtaEnv) -> (WarpStatus, u32) {
        let size = self.layout.size as usize;
        let n = states.len();
        let mut inline = [std::ptr::null_mut::<u8>(); ROUND_TABLE];
        let mut heap = vec![];
        let table: &mut [*mut u8] = if n <= ROUND_TABLE {
            &mut inline[..n]
        } else {
            heap.resize(n, std::ptr::null_mut());
            &mut heap
        };
        for (t, st) in table.iter_mut().zip(states.iter_mut()) {
            if st.len() * 16 < size {
                return (WarpStatus::Aborted, 0);
            }
            *t = st.as_mut_ptr() as *mut u8;
        }
        // Rounds after barriers the call completes itself (`ctabar.rs`) run every warp.
        let barriers = env.complete_in_call != 0;
        if barriers {
            env.rounds_in_call = 0;
        }
        if self.combine {
            // The table of the thread that runs the call.
            env.red_table = crate::runtime::redcombine::table();
        }
        // SAFETY: each pointer of `table` is a distinct warp state of this kernel's layout
        // (checked sizes; `Vec<u128>` is 16-byte aligned), borrowed mutably for the call, and
        // `env` a valid CTA environment for the running launch, borrowed mutably (the code
        // writes its `warp` and `rounds_in_call` fields); the code only touches memory through
        // them and through bounds-checked translations.
        let r = unsafe { (self.func)(table.as_ptr(), env, 0, n as u32) };
        if self.combine {
            crate::runtime::redcombine::end_call(env);
        }
        let earlier = if barriers {
            env.rounds_in_call.saturating_mul(n as u32)
        } else {
            0
        };
        if r == 0 {
            (WarpStatus::Stopped, earlier.saturating_add(n as u32))
        } else {
            (WarpStatus::Aborted, earlier.saturating_add(r))
        }
    }
}

impl JitKernel {
    /// The Cranelift settings the kernel's code was compiled with.
    pub fn tier(&self) -> Tier {
        self.tier
    }
}

/// Compile a verified kernel ([`Tier::Optimized`]). The JIT lays out its own warp state
/// (predicates as 32-bit lanes). Errors are internal compiler errors, or an unsupported
/// control-flow shape.
pub fn compile(f: &VerifiedFunction) -> Result<JitKernel, String> {
    compile_with(f, false, false)
}

/// As [`compile`]; `racecheck`: instrument the code for racecheck (`runtime::race`): every
/// shared-memory access and atomic, and every warp-level synchronization, goes through the
/// runtime helpers, which record them when the launch has the tool on. Off, the code is the
/// same as [`compile`]'s. `lockstep`: keep lockstep order even where the module's target does
/// not ask for it (`analysis::segment::WarpOrder::of`): group loops then also split between
/// memory accesses whose order across lanes matters.
pub fn compile_with(
    f: &VerifiedFunction,
    racecheck: bool,
    lockstep: bool,
) -> Result<JitKernel, String> {
    compile_tier(f, racecheck, lockstep, Tier::Optimized)
}

/// As [`compile_with`], with the Cranelift settings of `tier`. The CLIF is the same for
/// every tier. Safe to call from any thread (each thread keeps its own scratch buffers).
pub fn compile_tier(
    f: &VerifiedFunction,
    racecheck: bool,
    lockstep: bool,
    tier: Tier,
) -> Result<JitKernel, String> {
    // The group loops' SIMD code is written for groups of four 32-bit lanes.
    const _: () = assert!(crate::analysis::segment::GROUP_LANES == 4);
    let times = crate::switches::switches().compile_times;
    // Before any code exists that a worker could run: the workers' stack bounds the frame.
    crate::runtime::workers::worker_stack();
    let t0 = std::time::Instant::now();
    let order = crate::analysis::segment::WarpOrder::of(f, lockstep);
    let combine = !racecheck && combine::eligible(f, &codegen::use_counts(f));
    let plan = codegen::plan(f, order)
        .with_racecheck(racecheck)
        .with_combine(combine)
        .with_tier(tier);
    let layout =
        crate::analysis::schedule::schedule_with(f, 4, &plan.scalar_slot).map_err(|e| e.message)?;
    if !helpers::header_ok(&layout) {
        return Err("warp-state header too small".into());
    }
    let isa = host_isa(tier)?;
    let ptr = isa.pointer_type();
    let frontend = isa.frontend_config();
    let builder = JITBuilder::with_isa(isa, default_libcall_names());
    let mut module = JITModule::new(builder);
    let Scratch { mut ctx, mut fctx } = SCRATCH.with(Cell::take).map_or_else(
        || Scratch {
            ctx: Context::new(),
            fctx: FunctionBuilderContext::new(),
        },
        |b| *b,
    );
    // Whatever an earlier compilation that failed left in it (the builder context is only
    // kept after a successful one, which leaves it empty).
    module.clear_context(&mut ctx);
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func.signature.params.push(AbiParam::new(types::I32));
    ctx.func.signature.params.push(AbiParam::new(types::I32));
    ctx.func.signature.returns.push(AbiParam::new(types::I32));
    ctx.func.name = UserFuncName::user(0, 0);
    let mut data = codegen::KernelData::default();
    let zeroed = zeroed_ranges(f, &layout);
    let restart = batch::restart_words(f, &layout, &zeroed);
    let batches = restart.is_some();
    codegen::generate(
        f,
        &layout,
        plan,
        &mut ctx.func,
        &mut fctx,
        &mut data,
        ptr,
        frontend,
        restart,
    )?;
    // Instructions and blocks as built, and what the dead-code pass leaves of them (what
    // Cranelift compiles).
    let built_insts = ctx.func.dfg.num_insts();
    let built_blocks = ctx.func.dfg.num_blocks();
    let removed = dead_code::remove_dead_code(&mut ctx.func);
    let t1 = std::time::Instant::now();
    let clif_insts = built_insts - removed.insts;
    // Blocks in the layout (not those created and never filled); counted only when printed.
    let clif_blocks = if times {
        ctx.func.layout.blocks().count()
    } else {
        0
    };
    if times {
        // Start Cranelift's pass timings afresh (they accumulate per thread).
        let _ = cranelift_codegen::timing::take_current();
    }
    let id = module
        .declare_function(
            &format!("ptx_{}", f.name),
            Linkage::Local,
            &ctx.func.signature,
        )
        .map_err(|e| e.to_string())?;
    let disasm = crate::switches::switches().disasm;
    if disasm {
        ctx.set_disasm(true);
    }
    module
        .define_function(id, &mut ctx)
        .map_err(|e| format!("Cranelift: {e:?}"))?;
    if disasm {
        if let Some(text) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
            let bytes = ctx.compiled_code().map_or(0, |c| c.code_info().total_size);
            eprintln!(
                "; ptx_{} ({bytes} bytes of code, warp state {} bytes)\n{text}",
                f.name, layout.size
            );
        }
    }
    let code_bytes = ctx.compiled_code().map_or(0, |c| c.code_info().total_size);
    let frame = ctx
        .compiled_code()
        .and_then(|c| c.buffer.frame_layout())
        .map_or(0, |l| l.frame_to_fp_offset as usize);
    let max_frame = crate::runtime::workers::max_frame();
    if frame > max_frame {
        return Err(format!(
            "the {} tier's code for this kernel needs a {frame}-byte stack frame, more than the \
             {max_frame} bytes a launch's worker thread has for it ({clif_insts} CLIF \
             instructions): the kernel is too large for the JIT; split it, or run it on the \
             interpreter",
            tier.name()
        ));
    }
    let t2 = std::time::Instant::now();
    module.clear_context(&mut ctx);
    SCRATCH.with(|s| s.set(Some(Box::new(Scratch { ctx, fctx }))));
    module.finalize_definitions().map_err(|e| e.to_string())?;
    let code = module.get_finalized_function(id);
    if let Some(dir) = crate::switches::switches().code_dir {
        write_code(dir, &f.name, tier, code, code_bytes as usize);
    }
    if times {
        let t3 = std::time::Instant::now();
        let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
        eprintln!(
            "ptx_{} ({} tier): plan + schedule + CLIF {:.3} ms ({built_insts} CLIF instructions \
             and {built_blocks} blocks created, {clif_insts} and {clif_blocks} left after dead \
             code), Cranelift {:.3} ms ({code_bytes} bytes of code), finalize {:.3} ms\n{}",
            f.name,
            tier.name(),
            ms(t0, t1),
            ms(t1, t2),
            ms(t2, t3),
            cranelift_codegen::timing::take_current()
        );
    }
    // SAFETY: the function was declared with exactly this signature (two pointers and two
    // i32 → i32) and the SystemV/host default calling convention of the ISA, matching
    // `extern "C"`.
    let func: WarpFn = unsafe { std::mem::transmute::<*const u8, WarpFn>(code) };
    Ok(JitKernel {
        zeroed,
        batches,
        combine,
        frame,
        layout,
        tier,
        func,
        module: Some(module),
        _data: data,
    })
}

/// `PTXJIT_CODE_DIR`: writes the `len` bytes of finalized machine code at `code` (kernel
/// `name`, compiled for `tier`) to `dir/<name>.<tier>.<address in hex>.bin`; a failed write is
/// reported on stderr and changes nothing else (a diagnostic).
fn write_code(dir: &std::path::Path, name: &str, tier: Tier, code: *const u8, len: usize) {
    // SAFETY: `code` is the start of a function that cranelift-jit finalized (mapped
    // readable and executable, never unmapped while the module lives) and `len` is the
    // size Cranelift reported for its code and constants, which lie there contiguously.
    let bytes = unsafe { std::slice::from_raw_parts(code, len) };
    let path = dir.join(format!("{name}.{}.{:x}.bin", tier.name(), code as usize));
    if let Err(e) = std::fs::write(&path, bytes) {
        eprintln!(
            "ptxjit: PTXJIT_CODE_DIR: cannot write {}: {e}",
            path.display()
        );
    }
}

/// The host's Cranelift target for `tier`: the host's CPU features (detected once per
/// process and tier) and these flags. Errors: the host is not a Cranelift target, or a flag
/// is rejected.
fn host_isa(tier: Tier) -> Result<OwnedTargetIsa, String> {
    static ISA: [OnceLock<Result<OwnedTargetIsa, String>>; 2] = [OnceLock::new(), OnceLock::new()];
    let (index, opt_level, regalloc) = match tier {
        Tier::Quick => (0, "none", "single_pass"),
        Tier::Optimized => (1, "speed", "backtracking"),
    };
    ISA[index]
        .get_or_init(|| {
            let mut flags = settings::builder();
            let mut set = |k: &str, v: &str| flags.set(k, v).map_err(|e| format!("{k}: {e}"));
            // The single-pass allocator and no egraph pass compile in about half the time of the
            // optimized tier, but the code runs up to twice as long (docs/performance.md, "Load +
            // compile time", "Tiered compilation").
            set("opt_level", opt_level)?;
            set("regalloc_algorithm", regalloc)?;
            set("use_colocated_libcalls", "false")?;
            set("is_pic", "false")?;
            // Cranelift's own IR verifier: on in debug builds and tests and with
            // `PTXJIT_VERIFY_CLIF`, off in release (compile time).
            let verify = cfg!(debug_assertions) || crate::switches::switches().verify_clif;
            set("enable_verifier", if verify { "true" } else { "false" })?;
            let isa_builder =
                cranelift_native::builder().map_err(|e| format!("host not supported: {e}"))?;
            isa_builder
                .finish(settings::Flags::new(flags))
                .map_err(|e| e.to_string())
        })
        .clone()
}

/// Cranelift's per-function scratch: the `Context` (with the buffers of lowering and of the
/// register allocator) and the `FunctionBuilderContext`.
struct Scratch {
    ctx: Context,
    fctx: FunctionBuilderContext,
}

thread_local! {
    /// The scratch of this thread's last successful compilation, so that the next one reuses
    /// its allocations.
    static SCRATCH: Cell<Option<Box<Scratch>>> = const { Cell::new(None) };
}

/// The parts of a warp state the compiled code may read before writing (in the lanes that
/// read them): the header's masks and block bitsets, the barrier and warp-synchronization
/// records the kernel can write, and the slots of warp operations' operands and results,
/// which helpers read in lanes other than the running ones (a `shfl` from a lane that never
/// wrote the register reads 0, as in the interpreter). Every other slot is written by a lane
/// before that lane reads it (SSA: a definition dominates its uses), and what inactive lanes
/// hold is never observed, so a state reused from a previous CTA need not be cleared there.
/// Sorted by offset, without overlaps (adjacent ranges are joined).
///
/// The header's records (`BAR_OFF..HEADER_END`) are written only by warp operations'
/// helpers, by the inline barrier arrival (`ctabar.rs`) and by the CTA scheduler for lanes
/// parked at a barrier or a warp-level synchronization (`runtime::launch`, `runtime::warp`),
/// and only these parts of it:
/// - the record of a barrier id of `WarpLayout::bar_ids` (every id where one is not a
///   constant; id 0 for lanes parked without a record), where the kernel has barrier
///   terminators, `barrier` operations or other warp operations ([`cross_lane`]);
/// - the per-lane `bar.red` results (`BAR_RESULT_OFF`), where a `barrier` operation is a
///   reduction (`BarKind::RedPopc`, `RedAnd`, `RedOr`, the only kinds whose completion
///   writes them) or a `barrier.result` reads them;
/// - the warp-synchronization records (`WSYNC_WAIT_OFF..HEADER_END`), where the kernel has a
///   warp operation other than a barrier's ([`cross_lane`]: `bar.warp.sync`, the `.sync`
///   collectives, yields, mbarrier and cluster operations).
///
/// The parts a kernel cannot write keep the zeros its states were made with (states are
/// reused only by CTAs of the same launch: `start_cta` zero-fills a state emptied between
/// launches), so they are not cleared; every reader of a record (the scheduler's scans over
/// all sixteen ids in reports and synccheck included) finds them empty.
///
/// Texture and surface operations are warp operations whose routine (`runtime::texwarp`)
/// reads and writes only the lanes of the execution mask, in their own slots; so do the
/// barrier operations (`runtime::warp::exec`: the operands of the mask's lanes, the `bar.red`
/// results of the mask's lanes). Their slots are not cleared ([`reads_other_lanes`]).
fn zeroed_ranges(f: &VerifiedFunction, layout: &WarpLayout) -> Vec<(u32, u32)> {
    use crate::analysis::schedule::{
        bar_field, BAR_COUNT, BAR_OFF, BAR_REC, BAR_RESULT_OFF, HEADER_END, WARP_SIZE,
        WSYNC_WAIT_OFF,
    };
    use crate::ir::{BarKind, Op, Terminator};
    let header = (layout.active_off + 8 * layout.active_words).div_ceil(16) * 16;
    let barriers = f
        .blocks
        .iter()
        .any(|b| matches!(b.term, Terminator::Barrier { .. }))
        || f.insts.iter().any(|d| matches!(d.op, Op::BarArrive { .. }));
    // The kinds whose completion writes the per-lane results (`runtime::launch`).
    let reduces = |kind: BarKind| match kind {
        BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr => true,
        BarKind::Sync | BarKind::Arrive => false,
    };
    let reductions = f.insts.iter().any(|d| {
        matches!(d.op, Op::BarArrive { kind, .. } if reduces(kind))
            || matches!(d.op, Op::BarResult { .. })
    });
    let warp_syncs = f
        .insts
        .iter()
        .any(|d| cross_lane(&d.op) && !is_barrier(&d.op));
    let mut out: Vec<(u32, u32)> = vec![];
    if header < HEADER_END {
        out.push((0, header));
    } else {
        out.push((0, BAR_OFF));
        if barriers || warp_syncs {
            for id in (0..BAR_COUNT).filter(|&id| layout.bar_ids >> id & 1 != 0) {
                out.push((bar_field(id, 0), BAR_REC));
            }
        }
        if reductions {
            out.push((BAR_RESULT_OFF, 4 * WARP_SIZE));
        }
        if warp_syncs {
            out.push((WSYNC_WAIT_OFF, HEADER_END - WSYNC_WAIT_OFF));
        }
        out.push((HEADER_END, header - HEADER_END));
    }
    for i in 0..f.insts.len() {
        let d = f.inst(crate::ir::Inst(i as u32));
        if !reads_other_lanes(&d.op) {
            continue;
        }
        for &v in d.args.iter().chain(&d.results) {
            let off = layout.slot[v.index()];
            if off == u32::MAX {
                continue;
            }
            let lane = match f.value_type(v) {
                crate::ir::Type::Pred => layout.pred_bytes,
                t => t.bytes(),
            };
            out.push((off, (32 * lane).div_ceil(16) * 16));
        }
    }
    // Inside the state, sorted, overlapping and adjacent ranges joined.
    let mut ranges: Vec<(u32, u32)> = out
        .into_iter()
        .filter_map(|(off, len)| {
            let end = off.saturating_add(len).min(layout.size);
            (off < end).then_some((off, end))
        })
        .collect();
    ranges.sort_unstable();
    let mut joined: Vec<(u32, u32)> = vec![];
    for (off, end) in ranges {
        match joined.last_mut() {
            Some(last) if off <= last.1 => last.1 = last.1.max(end),
            _ => joined.push((off, end)),
        }
    }
    joined
        .into_iter()
        .map(|(off, end)| (off, end - off))
        .collect()
}

/// Whether `op` is a CTA barrier operation (`barrier`, `barrier.result`: PTX ISA §9.7.13.1),
/// whose routine reads the operands and writes the results of the execution mask's lanes
/// only, and of the header only the barrier records and `bar.red` results.
fn is_barrier(op: &crate::ir::Op) -> bool {
    matches!(
        op,
        crate::ir::Op::BarArrive { .. } | crate::ir::Op::BarResult { .. }
    )
}

/// Whether `op` is a warp operation whose routine may read its operands' or results' slots
/// in lanes other than those of its execution mask: [`cross_lane`] but the barrier
/// operations ([`is_barrier`]).
fn reads_other_lanes(op: &crate::ir::Op) -> bool {
    cross_lane(op) && !is_barrier(op)
}

/// Whether `op` is a warp operation whose routine may read lanes other than those of its
/// execution mask, or the warp-state header's barrier and warp-synchronization records:
/// every warp operation ([`crate::ir::Effect::Warp`]) but the texture and surface ones
/// (`Op::is_texture`: `runtime::texwarp` reads each lane of the mask's operands and writes
/// its results, nothing else of the state).
fn cross_lane(op: &crate::ir::Op) -> bool {
    op.effect() == crate::ir::Effect::Warp && !op.is_texture()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::schedule::{
        bar_field, BAR_COUNT, BAR_OFF, BAR_REC, BAR_RESULT_OFF, HEADER_END, WSYNC_WAIT_OFF,
    };

    /// The zeroed ranges and layout of a kernel of one `.u64` parameter with `body`.
    fn ranges_of(body: &str) -> (Vec<(u32, u32)>, WarpLayout) {
        let ptx = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 a)\n\
             {{\n  .reg .pred %p<3>;\n  .reg .b32 %r<5>;\n  mov.u32 %r1, %tid.x;\n{body}\n  ret;\n}}\n"
        );
        let (_, kernels) = crate::host::front_end(&ptx, "k.ptx").expect("loads");
        let jit = compile(&kernels[0]).expect("compiles");
        (jit.zeroed.clone(), jit.layout.clone())
    }

    fn covers(r: &[(u32, u32)], off: u32, len: u32) -> bool {
        r.iter().any(|&(o, l)| o <= off && off + len <= o + l)
    }

    fn touches(r: &[(u32, u32)], off: u32, len: u32) -> bool {
        r.iter().any(|&(o, l)| o < off + len && off < o + l)
    }

    /// Sorted, apart (not even adjacent), inside the state; the masks and block bitsets
    /// always cleared.
    fn well_formed(r: &[(u32, u32)], layout: &WarpLayout) {
        for w in r.windows(2) {
            assert!(w[0].0 + w[0].1 < w[1].0, "{r:?}");
        }
        assert!(
            r.iter().all(|&(o, l)| l > 0 && o + l <= layout.size),
            "{r:?}"
        );
        assert!(covers(r, 0, BAR_OFF), "{r:?}");
        let bitsets = layout.active_off + 8 * layout.active_words - HEADER_END;
        assert!(covers(r, HEADER_END, bitsets), "{r:?}");
    }

    /// `bar.sync 0`: record 0 only; neither the `bar.red` results nor the
    /// warp-synchronization records, which nothing in the kernel writes.
    #[test]
    fn one_barrier_clears_its_record_alone() {
        let (r, layout) = ranges_of("  bar.sync 0;\n  add.u32 %r2, %r1, 1;\n  bar.sync 0;");
        well_formed(&r, &layout);
        assert!(covers(&r, bar_field(0, 0), BAR_REC), "{r:?}");
        for id in 1..BAR_COUNT {
            assert!(
                !touches(&r, bar_field(id, 0), BAR_REC),
                "record {id}: {r:?}"
            );
        }
        assert!(
            !touches(&r, BAR_RESULT_OFF, HEADER_END - BAR_RESULT_OFF),
            "{r:?}"
        );
    }

    /// Barriers 0 and 1 and `bar.red`: both records and the `bar.red` results.
    #[test]
    fn reductions_clear_their_results() {
        let (r, layout) = ranges_of(
            "  setp.lt.u32 %p1, %r1, 40;\n  bar.red.popc.u32 %r2, 0, %p1;\n  bar.sync 1, 64;",
        );
        well_formed(&r, &layout);
        assert!(covers(&r, bar_field(0, 0), 2 * BAR_REC), "{r:?}");
        assert!(!touches(&r, bar_field(2, 0), BAR_REC), "{r:?}");
        assert!(covers(&r, BAR_RESULT_OFF, 128), "{r:?}");
        assert!(
            !touches(&r, WSYNC_WAIT_OFF, HEADER_END - WSYNC_WAIT_OFF),
            "{r:?}"
        );
    }

    /// A barrier id from a register may be any of the sixteen.
    #[test]
    fn a_register_id_clears_every_record() {
        let (r, layout) = ranges_of("  and.b32 %r2, %r1, 1;\n  bar.sync %r2;");
        well_formed(&r, &layout);
        assert!(covers(&r, BAR_OFF, BAR_COUNT * BAR_REC), "{r:?}");
    }

    /// `shfl.sync` reads other lanes' operands and can park lanes at a warp-level
    /// synchronization: its slots and the warp-synchronization records are cleared.
    #[test]
    fn warp_syncs_clear_their_records_and_slots() {
        let (r, layout) = ranges_of(
            "  shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;\n  bar.sync 0;\n  add.u32 %r3, %r2, 1;\n  \
             shfl.sync.idx.b32 %r4, %r3, 1, 31, -1;",
        );
        well_formed(&r, &layout);
        assert!(covers(&r, bar_field(0, 0), BAR_REC), "{r:?}");
        assert!(
            covers(&r, WSYNC_WAIT_OFF, HEADER_END - WSYNC_WAIT_OFF),
            "{r:?}"
        );
        let header = (layout.active_off + 8 * layout.active_words).div_ceil(16) * 16;
        assert!(
            r.iter().any(|&(o, l)| o + l > header),
            "a slot of the shuffles: {r:?}"
        );
    }

    /// No barrier and no warp operation: the records are never written, only the masks and
    /// bitsets are cleared.
    #[test]
    fn no_warp_operations_clear_no_records() {
        let (r, layout) = ranges_of("  add.u32 %r2, %r1, 1;");
        well_formed(&r, &layout);
        assert!(!touches(&r, BAR_OFF, HEADER_END - BAR_OFF), "{r:?}");
    }
}
