//! IR → CLIF for one kernel: a native function `fn(states, env, first, count) -> status` that
//! runs `count` warps of a CTA one after the other (warp `first + i` on the warp state
//! `states[i]`), each until no lane of it is pending; for a kernel compiled for batches,
//! then the later CTAs of the batch the environment names, if any (`batch.rs`).
//!
//! Shape of the generated function (see `analysis::schedule` for the model):
//! ```text
//! entry:    table, count, first → the warp loop's stack frame (`EnvVals::frame`); compute
//!           the first block's CTA-uniform values (parameters, `%ctaid`/`%ntid`-derived) once
//!           per call (`preloop.rs`)
//! warp i:   i == count → return 0 (or the next CTA of a batch: `batch.rs`);
//!           state = states[i]; env.warp = first + i
//!           (if not already)
//! dispatch: if *env.abort != 0 → return i + 1
//!           find the lowest set bit of the active bitset → block priority p, clear it,
//!           br_table p → enter_p            (none set → warp i + 1)
//! enter_p:  mask = pending[p]; pending[p] = 0; mask == 0 → dispatch
//!           segments: a loop over the lanes of `mask` per run of per-lane operations,
//!           a helper call per warp operation (shfl); the terminator updates
//!           pending/parked/exited masks and block-parameter slots, then → dispatch
//! ```
//! Each block runs in two parts:
//! - the **scalar section**: operations the uniformity analysis proves warp-uniform (kernel
//!   parameters, `%ctaid`, loop counters, address bases …) are computed once, as scalars;
//! - **group loops**: everything else runs over the active lanes in groups of four, as SIMD
//!   vectors (`i32x4`/`f32x4`, `i64x2`/`f64x2` pairs; predicates as `i32x4` masks). Operations
//!   without a vector form run per lane inside the group (`scalar.rs`); loads and stores whose
//!   four addresses are consecutive become one vector access after one bounds check.
//!
//! Memory accesses take the first of these tiers that applies: addresses with a compile-time
//! lane stride over the whole warp (`affine.rs`: one check per block execution); addresses
//! affine within each group of four lanes (`group.rs`: one replay and check per group, and a
//! version of the group body without per-access tests where all of them pass); run-time
//! tests of the four addresses (consecutive, or one for all) per group and access; the
//! runtime helper, lane by lane (gathers, faults, checked memory).
//!
//! A block's segments (`analysis::segment`: warp operations, and under lockstep order
//! memory accesses whose order across lanes matters) are one group loop each; warp
//! operations are helper calls for the warp between them. Values used
//! outside their segment live in warp-state slots (`slot + lane * size`, structure of arrays);
//! values read by other blocks are stored with the lane mask blended in, so inactive lanes'
//! values survive.

use super::helpers::{self, PureDesc};
use crate::analysis::region::Regions;
use crate::analysis::schedule::WarpLayout;
use crate::analysis::segment::{SegmentSplit, WarpOrder};
use crate::analysis::uniform::{self, Uniformity};
use crate::ir::{self, Effect, Op, Terminator};
use crate::runtime::env::{CtaEnv, CHECK_INIT};
use crate::runtime::warp::{WarpDesc, WarpSlot};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, InstBuilder, JumpTableData, MemFlagsData, Signature, StackSlot,
    StackSlotData, StackSlotKind, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use std::mem::offset_of;

type CBlock = cranelift_codegen::ir::Block;
type CType = cranelift_codegen::ir::Type;

/// Data the generated code points into; owned by the `JitKernel`, never moved after codegen
/// (boxed contents).
#[derive(Default)]
#[allow(clippy::vec_box)] // boxed so their addresses, embedded in the code, never move
pub struct KernelData {
    pub pure: Vec<Box<PureDesc>>,
    pub shfl_slots: Vec<Box<[u32; 6]>>,
    pub warp_ops: Vec<Box<helpers::WarpOpDesc>>,
}

pub(super) fn ctype(t: ir::Type) -> CType {
    match t {
        ir::Type::Pred | ir::Type::I8 => types::I8,
        ir::Type::I16 => types::I16,
        ir::Type::I32 => types::I32,
        ir::Type::I64 => types::I64,
        ir::Type::F32 => types::F32,
        ir::Type::F64 => types::F64,
    }
}

/// The call's values that live across the warp loop. Only `env` is an SSA value there (and
/// `state` across a warp's run); the environment's fields are loaded from `env` near their
/// uses ([`Gen::env_val`]) and the warp loop's own values (state table, warp count, turn) sit
/// in the stack slot `frame` ([`FRAME_TABLE`] …), so that the register allocator has fewer
/// values to split and spill around every helper call and loop of the function.
pub(super) struct EnvVals {
    pub(super) env: Value,
    /// `env.param_base` and `env.param_size`, loaded in the entry block for the code before
    /// the warp loop (`preloop.rs`).
    pub(super) param_base: Value,
    pub(super) param_size: Value,
    /// The warp loop's head (reads the turn from `frame`).
    pub(super) warp_loop: CBlock,
    /// The warp loop's values ([`FRAME_TABLE`], [`FRAME_COUNT`], [`FRAME_FIRST`],
    /// [`FRAME_TURN`]).
    pub(super) frame: StackSlot,
    /// The running warp's state (pointer): the one value besides `env` that lives across the
    /// warp's whole run (its blocks read and write it everywhere; reloading it near each use
    /// made launches with many dispatcher rounds longer).
    pub(super) state: Value,
}

/// Byte offsets in [`EnvVals::frame`]: the call's warp-state table (pointer), the call's warp
/// count (`u32`), its first warp (`u32`), the running warp's turn in the warp loop (`u32`,
/// 0 for its first warp) and the stream loop's word for the next CTA of a batch (`u32`, 1:
/// every warp state of the call is fresh; see `stream.rs`, "Known-fresh CTAs"), and, in a
/// kernel whose calls run one CTA ([`Gen::abort_in_frame`]), the CTA's abort flag's address
/// (`CtaEnv::abort`, a pointer).
pub(super) const FRAME_TABLE: i32 = 0;
pub(super) const FRAME_COUNT: i32 = 8;
pub(super) const FRAME_FIRST: i32 = 12;
pub(super) const FRAME_TURN: i32 = 16;
pub(super) const FRAME_FRESH: i32 = 20;
const FRAME_ABORT: i32 = 24;
const FRAME_BYTES: u32 = 32;

/// A per-call value loaded near its uses ([`Gen::env_val`]): a `CtaEnv` field.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum EnvField {
    /// `env.global_base`: host address of global address `GLOBAL_BASE` (pointer).
    GlobalBase,
    /// `env.global_top`: bytes of the inline global window (`i64`).
    GlobalTop,
    /// `env.shared_base`: host address of the CTA's shared memory (pointer).
    SharedBase,
    /// Bytes of the inline shared window (`i64`): `env.shared_size`, or 0 under initcheck,
    /// where every shared access takes the runtime's path (which tests and sets the CTA's
    /// shadow).
    SharedSize,
    /// `env.param_base`: host address of the kernel parameters (pointer).
    ParamBase,
    /// `env.param_size`: bytes of the kernel parameters (`i64`).
    ParamSize,
    /// `env.memcheck`: the checks on (`i32` bit set, 0: none).
    Memcheck,
    /// `env.warp`: the running warp's index in its CTA (`%warpid`, `i32`).
    Warp,
    /// `env.red_table`: the thread's pending combined reductions (pointer, `combine.rs`).
    RedTable,
}

/// Number of [`EnvField`] variants (the size of [`Gen::env_cache`]).
pub(super) const ENV_FIELDS: usize = 9;

/// What the version of a self-loop's block in which every lane takes the back edge leaves
/// out (`Gen::stay_values`).
#[derive(Default)]
pub(super) struct StayVals {
    /// Results read by other blocks only (and in the block's own segment): not written to
    /// their slots. Every lane goes back into the block, which defines them again before
    /// any lane can reach a block that reads them.
    pub(super) unstored: std::collections::HashSet<ir::Value>,
    /// Results whose only readers in the loop are NaN-blind operations ([`nan_blind`]),
    /// directly or through the back edge's parameters: not made canonical (the reader makes
    /// its own result canonical, and the general version, where lanes leave, always does).
    pub(super) blind: std::collections::HashSet<ir::Value>,
}

pub(super) struct Gen<'a, 'b> {
    pub(super) f: &'a ir::Function,
    pub(super) layout: &'a WarpLayout,
    pub(super) b: FunctionBuilder<'b>,
    pub(super) e: EnvVals,
    /// The last load of each [`EnvField`] and the Cranelift block it was emitted in: a use
    /// later in the same block takes it again (by `EnvField as usize`).
    pub(super) env_cache: [Option<(CBlock, Value)>; ENV_FIELDS],
    /// While a group loop's body is emitted (`vector.rs`, `group_loop`): the jump that ends
    /// its preheader, before which [`Gen::env_val`] loads the per-call values the loop uses
    /// (`env_loop_cache`, by `EnvField as usize`), once per loop.
    pub(super) env_loop: Option<cranelift_codegen::ir::Inst>,
    pub(super) env_loop_cache: [Option<Value>; ENV_FIELDS],
    /// While the stream loop's copy is emitted: the per-call values loaded at the loop's
    /// entry ([`Gen::env_val`], by `EnvField as usize`).
    pub(super) stream_env_cache: [Option<Value>; ENV_FIELDS],
    pub(super) ptr: CType,
    pub(super) data: &'a mut KernelData,
    pub(super) dispatch: CBlock,
    /// The end of the running warp's turn (the dispatcher's exit when no lane of the warp
    /// is pending: the next warp of the warp loop); made by `Gen::gen_dispatch`.
    pub(super) turn_end: Option<CBlock>,
    pub(super) uni: Uniformity,
    /// Lane-affine uniformity (`uniform::analyze_affine`), for `affine.rs`.
    pub(super) affine: Uniformity,
    /// Compile-time lane strides of affine values (`affine::static_strides`).
    pub(super) strides: Vec<Option<i64>>,
    /// Instructions computed once per block execution as scalars.
    pub(super) scalar: Vec<bool>,
    /// Group-computed values used outside their segment (stored to their slot).
    pub(super) escapes: Vec<bool>,
    /// Values read by other blocks (stores blend in the lane mask).
    pub(super) cross_block: Vec<bool>,
    /// Scalar values that must also be in their slot (read by other blocks or warp ops).
    pub(super) scalar_slot: Vec<bool>,
    pub(super) sig_pure: cranelift_codegen::ir::SigRef,
    pub(super) sig_access: cranelift_codegen::ir::SigRef,
    pub(super) sig_atom: cranelift_codegen::ir::SigRef,
    pub(super) sig_shfl: cranelift_codegen::ir::SigRef,
    pub(super) sig_trap: cranelift_codegen::ir::SigRef,
    pub(super) sig_warp: cranelift_codegen::ir::SigRef,
    pub(super) sig_sreg: cranelift_codegen::ir::SigRef,
    pub(super) sig_group: cranelift_codegen::ir::SigRef,
    pub(super) sig_bar: cranelift_codegen::ir::SigRef,
    /// IR block of each instruction.
    pub(super) inst_block: Vec<u32>,
    /// Group values used only by NaN-blind operations of their block ([`nan_blind`]): their
    /// NaN results stay as the hardware makes them; the last operation of the chain makes
    /// its result canonical.
    pub(super) nan_blind: Vec<bool>,
    /// Block parameters that only their own block's instructions (and branch condition)
    /// read: never a block call's argument, never read in another block. A lane that leaves
    /// the block for another one cannot read such a parameter before it enters the block
    /// again, through an edge that writes it.
    pub(super) body_params: Vec<bool>,
    /// racecheck: every shared-memory access and atomic goes through the runtime helpers
    /// (which record it, `runtime::race`), and warp-level synchronizations always call theirs;
    /// off, the code is the plain JIT's.
    pub(super) racecheck: bool,
    /// Global reductions with dead results are combined in the thread's pending table
    /// (`combine.rs`); the inline global paths test the pending range.
    pub(super) combine: bool,
    /// The signatures of the pending table's helpers, once imported (`combine.rs`).
    pub(super) red_sig: Option<(cranelift_codegen::ir::SigRef, cranelift_codegen::ir::SigRef)>,
    /// The warp's lane order: where a block's group loops split (`analysis::segment`).
    pub(super) order: WarpOrder,
    /// The blocks run group by group across blocks (`analysis::region`).
    pub(super) regions: Regions,
    /// While a region is emitted: its blocks (`region.rs`).
    pub(super) region: Option<super::region::RegionCtx>,
    /// While a block of a region other than its head is emitted: stores with a hoisted
    /// bounds check also test that the group's four lanes are active (`region.rs`).
    pub(super) region_store_check: bool,
    /// `PTXJIT_NO_WARP_CONDS` is set: a region's full-warp version decides no branch
    /// condition at compile time (`region.rs`, `Gen::warp_cond`; for measurements).
    pub(super) no_warp_conds: bool,
    /// While the version of a block's body in which every lane of the mask takes its loop
    /// branch's back edge is emitted (`vector.rs`, `Gen::gen_block_body`): that edge's
    /// direction (`true`: the then-edge), known when the code is generated.
    pub(super) one_way: Option<bool>,
    /// In that version of a self-loop's block (its back edge goes to the block itself, one
    /// segment): the values it need not write to their slots nor make canonical
    /// (`vector.rs`, `Gen::stay_values`).
    pub(super) stay: StayVals,
    /// While the trip of a decided self-loop run as a native loop is emitted
    /// (`vector.rs`, `Gen::decided_loop`): its register-carried parameters.
    pub(super) dloop: Option<super::dloop::DLoop>,
    /// The group index of the unrolled full-warp group loop's body being emitted
    /// (`Gen::group_straight`), known when the code is generated.
    pub(super) cur_group: Option<usize>,
    /// The next full-warp group loop (`Gen::group_loop` with `full`) is emitted unrolled,
    /// as straight-line code for the eight groups (set by its caller for small bodies).
    pub(super) unroll_groups: bool,
    /// The tier the code is compiled for (`Gen::unroll_fits`).
    pub(super) tier: super::Tier,
    /// Entry block of each block priority (filled by the dispatcher).
    pub(super) enter: Vec<CBlock>,
    /// Per block priority, the block after its entry's pending-mask load, with the mask as
    /// its one parameter (`u32`): where `Gen::goto_prio` enters it straight, with the lanes
    /// it sends, instead of adding them to the pending mask for the entry to read back.
    /// Made on first use (`Gen::direct_body`); `true` once its code is emitted. Not for the
    /// priorities in `no_direct`.
    pub(super) direct: Vec<Option<(CBlock, bool)>>,
    /// Per block priority with parameters carried as values (`Gen::carry_params`): the
    /// block after its direct body, with the mask and those values as its parameters, where
    /// `Gen::goto_prio_args` enters it with the values it has just written to their slots.
    /// Made on first use (`Gen::direct_vals`); emitted with the direct body.
    pub(super) direct_vals: Vec<Option<CBlock>>,
    /// While a block or region entered through `Gen::enter_body` is emitted: the values of
    /// its carried parameters (`Gen::carry_params`), which `Gen::uniform_get` returns instead
    /// of reading lane `first`'s slot (the same bits: every way in writes the slot first).
    pub(super) carried: Vec<(ir::Value, Value)>,
    /// Per block priority: entered through its pending mask only, never straight
    /// (`Gen::direct_targets`).
    pub(super) no_direct: Vec<bool>,
    /// The current block's memory accesses with a hoisted bounds check (`affine.rs`).
    pub(super) fast: super::affine::FastMem,
    /// The current block's group-level fast accesses (`group.rs`).
    pub(super) gfast: super::group::GroupMem,
    /// Emitting the version of a group body in which every group-level access's condition
    /// holds (`vector.rs`, `group_versions`).
    pub(super) group_fast_body: bool,
    /// In that version, group-uniform 32-bit loads served by one 16-byte load
    /// (`group.rs`, `Gen::plan_uniform_runs`): per load, the run's first load and the lane.
    pub(super) uniform_runs: super::group::UniformRuns,
    /// The 16-byte values loaded by the first loads of [`Self::uniform_runs`] in the
    /// current group.
    pub(super) uniform_vecs: std::collections::HashMap<ir::Inst, cranelift_codegen::ir::Value>,
    /// Emitting the other version of such a body, the one run where a condition fails
    /// (`const_group` makes its vector constants in place there).
    pub(super) group_slow_body: bool,
    /// Emitting the version of a segment's group loop for a full warp in which every
    /// hoisted bounds check of `fast` holds (`fullwarp.rs`).
    pub(super) warp_fast_body: bool,
    /// While the first loop of a split group loop is emitted (`fullwarp.rs`,
    /// `group_loop_split`): where a group's conditions fail, its body stores the group index
    /// and the accumulator (`i32`, `i32`) in this stack slot and jumps to this block instead
    /// of running its slow version.
    pub(super) group_bail: Option<(CBlock, cranelift_codegen::ir::StackSlot)>,
    /// The blocks of the entry chain (`fullwarp.rs`, `Gen::entry_chain`).
    pub(super) entry_chain: Vec<ir::Block>,
    /// Group operations of the current block kept in place (`vector.rs`, `pin`).
    pub(super) pinned: std::collections::HashSet<ir::Inst>,
    /// The stack slot pinned values are written to (made on first use).
    pub(super) pin_slot: Option<cranelift_codegen::ir::StackSlot>,
    /// The packed vector of a narrow load (`Grp::packed`) whose join has the fast access
    /// as its only way in, with the 32- or 64-bit word it was made from there
    /// (`Gen::vec_load`): its lanes are shifted out of the word itself, not out of the
    /// vector's lane 0.
    pub(super) packed_words: std::collections::HashMap<Value, Value>,
    /// The stack slot vector constants of slow group versions are made in (`const_group`).
    pub(super) const_slot: Option<cranelift_codegen::ir::StackSlot>,
    /// The stack slot the runtime's group accesses take their addresses and values in and
    /// give loaded values back in (`vector.rs`, `group_helper`; made on first use, one for
    /// the function: each call's use of it ends before the next access).
    pub(super) group_slot: Option<cranelift_codegen::ir::StackSlot>,
    /// The quick tier of a big kernel ([`BIG_KERNEL_INSTS`] IR instructions or more): blocks
    /// and regions get only their general version (`fullwarp.rs`, `region.rs`,
    /// `Gen::group_versions`), and a group access tests its four lanes' shape
    /// (`Gen::contiguous`) only where its address is lane-affine and has no hoisted check;
    /// any other goes from its hoisted check's fast path (if any) straight to the runtime.
    pub(super) big: bool,
    /// While the scalar section is emitted: the block's lane mask. A memory access there is
    /// made once for the warp, and a fault is recorded for each of these lanes, as the
    /// interpreter records it lane by lane (`FaultReport::count` counts faulting threads).
    pub(super) uniform_mask: Option<Value>,
    /// The first block's CTA-uniform values computed before the warp loop (`preloop.rs`).
    pub(super) hoist: super::preloop::Hoist,
    /// The per-pass count of full `bar.sync` arrivals, where the kernel completes uniform
    /// barriers inside the call (`ctabar.rs`).
    pub(super) bar_slot: Option<cranelift_codegen::ir::StackSlot>,
    /// The deferred arrivals at uniform barriers (`ctabar.rs`, "Deferred arrivals"), in a
    /// kernel whose turns start with the release at the turn (`Gen::gen_resume`).
    pub(super) lazy: Option<super::ctabar::Lazy>,
    /// Whether the abort flag's address is in the call's frame ([`FRAME_ABORT`]): a kernel
    /// with the in-call barrier completion whose calls run one CTA (not compiled for
    /// batches, whose next CTA has its own flag).
    pub(super) abort_in_frame: bool,
    /// How many times each value is read in the function: as an instruction operand, a
    /// branch condition or a block argument (`use_counts`).
    pub(super) uses: Vec<u32>,
    /// A kernel compiled for batches (`batch.rs`): where the next CTA of a batch starts (the
    /// prologue, or the warp loop) and the warp-state words it rewrites per warp; taken by
    /// the round's end.
    pub(super) next_cta: Option<(CBlock, Vec<u32>)>,
    /// A kernel compiled for batches: where the next CTA of a batch starts, for the stream
    /// loop's own way to it (`stream.rs`, "Warp states left fresh"); `next_cta`'s block.
    pub(super) batch_again: Option<CBlock>,
    /// While the stream loop's copy of the first region is emitted (`stream.rs`): the
    /// turn's values that replace the warp loop's.
    pub(super) stream: Option<super::stream::Stream>,
    /// The stream loop's hoisted values, loaded once at the loop's entry from the slot it
    /// stores them to (`stream.rs`; in the order of `Hoist::vals`).
    pub(super) stream_hoisted: Vec<Value>,
    /// A kernel compiled for batches: the round end's jump to the next CTA (`batch.rs`),
    /// before which the stream loop clears its word for known-fresh states
    /// ([`FRAME_FRESH`]; `stream.rs`, "Known-fresh CTAs").
    pub(super) restart_jump: Option<cranelift_codegen::ir::Inst>,
}

/// Kernels of at least this many IR instructions are *big*: their quick tier
/// (`jit::Tier::Quick`) gets smaller code per block and per memory access, for compile time:
/// no second (full-warp or group-affine) version of a block or region, and a group access's
/// per-group shape test only where it can hold (see [`Gen::big`]). The benchmark kernels have
/// at most 300; a CUB radix sort's onesweep kernel 4460 (128 k CLIF instructions, 95 ms of
/// quick tier before), its single-tile kernel 1409 (docs/performance.md, "Big kernels' quick
/// tier: one version per block, shape tests only where they can hold"). The optimized tier,
/// which replaces the quick one in the background for kernels that run long, keeps it all.
pub(super) const BIG_KERNEL_INSTS: usize = 1000;

/// Whether `f`'s quick tier is compiled as a big kernel's ([`BIG_KERNEL_INSTS`]).
fn is_big(f: &ir::Function, tier: super::Tier) -> bool {
    match tier {
        super::Tier::Quick => {
            f.blocks.iter().map(|b| b.insts.len()).sum::<usize>() >= BIG_KERNEL_INSTS
        }
        super::Tier::Optimized => false,
    }
}

/// How many times each value of `f` is read: operands of instructions, branch conditions
/// and block arguments, each occurrence counted.
pub(super) fn use_counts(f: &ir::Function) -> Vec<u32> {
    let mut n = vec![0u32; f.values.len()];
    for blk in &f.blocks {
        for &i in &blk.insts {
            for &a in &f.inst(i).args {
                n[a.index()] += 1;
            }
        }
        if let Terminator::Branch { cond, .. } = &blk.term {
            n[cond.index()] += 1;
        }
        for c in blk.term.targets() {
            for &a in &c.args {
                n[a.index()] += 1;
            }
        }
    }
    n
}

pub(super) const TRUSTED: fn() -> MemFlagsData = MemFlagsData::trusted;

/// Emit the load of `field` at `pos` (see [`Gen::env_val`]); `env` and `ptr` are
/// [`EnvVals::env`] and the pointer type.
fn env_emit(field: EnvField, env: Value, ptr: CType, mut pos: FuncCursor) -> Value {
    let mut ld = |t: CType, off: usize| pos.ins().load(t, TRUSTED(), env, off as i32);
    match field {
        EnvField::GlobalBase => ld(ptr, offset_of!(CtaEnv, global_base)),
        EnvField::GlobalTop => ld(types::I64, offset_of!(CtaEnv, global_top)),
        EnvField::SharedBase => ld(ptr, offset_of!(CtaEnv, shared_base)),
        EnvField::SharedSize => {
            let size = ld(types::I64, offset_of!(CtaEnv, shared_size));
            let checks = ld(types::I32, offset_of!(CtaEnv, memcheck));
            let init = pos.ins().band_imm_s(checks, CHECK_INIT as i64);
            let zero = pos.ins().iconst(types::I64, 0);
            pos.ins().select(init, zero, size)
        }
        EnvField::ParamBase => ld(ptr, offset_of!(CtaEnv, param_base)),
        EnvField::ParamSize => ld(types::I64, offset_of!(CtaEnv, param_size)),
        EnvField::Memcheck => ld(types::I32, offset_of!(CtaEnv, memcheck)),
        EnvField::Warp => ld(types::I32, offset_of!(CtaEnv, warp)),
        EnvField::RedTable => ld(ptr, offset_of!(CtaEnv, red_table)),
    }
}

/// What the code generator decides before laying out the warp state: uniformity, which
/// instructions run in the scalar section, and which values need slots.
pub struct Plan {
    uni: Uniformity,
    affine: Uniformity,
    strides: Vec<Option<i64>>,
    scalar: Vec<bool>,
    escapes: Vec<bool>,
    cross_block: Vec<bool>,
    /// Scalar-section values stored to their slot: they are written at the top of the block,
    /// so they need slots of their own (not shared scratch).
    pub scalar_slot: Vec<bool>,
    inst_block: Vec<u32>,
    nan_blind: Vec<bool>,
    body_params: Vec<bool>,
    /// Instrument for racecheck ([`Gen::racecheck`]); set with [`Plan::with_racecheck`].
    racecheck: bool,
    /// Combine reductions (`combine.rs`, [`Gen::combine`]); set with [`Plan::with_combine`].
    combine: bool,
    /// The tier the code is compiled for ([`Plan::with_tier`]): the quick tier unrolls fewer
    /// group loops (`fullwarp.rs`, [`super::fullwarp::QUICK_UNROLL_BUDGET`]).
    tier: super::Tier,
    /// Where the group loops split (`analysis::segment`).
    pub(super) order: WarpOrder,
    /// The blocks run group by group across blocks (`analysis::region`).
    regions: Regions,
    /// CTA-uniform instructions of the first block computed once per call (`preloop.rs`).
    pub(super) hoist: super::preloop::Hoist,
}

/// Float operations whose SIMD form yields a NaN exactly when an operand is a NaN or the
/// operation is invalid (`inf - inf`, `0 × inf`, `0 / 0`, `sqrt(-1)`): which NaN an operand
/// is never changes the result's bits once that result is made canonical
/// (`vector.rs`, `vcanon`). PTX ISA §9.7.3 (`add`, `sub`, `mul`, `fma`, `div.rn`, `sqrt.rn`).
pub(super) fn nan_blind(op: &Op) -> bool {
    match *op {
        Op::FAdd { rnd, ftz, sat } | Op::FSub { rnd, ftz, sat } | Op::FMul { rnd, ftz, sat } => {
            rnd == ir::Round::Nearest && !ftz && !sat
        }
        Op::FFma { rnd, ftz, sat } => rnd == ir::Round::Nearest && !ftz && !sat,
        Op::FDiv {
            rnd,
            ftz,
            approx: false,
        } => rnd == ir::Round::Nearest && !ftz,
        Op::FSqrt { rnd, ftz, .. } => rnd == ir::Round::Nearest && !ftz,
        _ => false,
    }
}

/// Analyze a kernel for code generation.
impl Plan {
    /// The same plan, with racecheck's instrumentation on or off ([`Gen::racecheck`]).
    pub fn with_racecheck(self, on: bool) -> Plan {
        Plan {
            racecheck: on,
            ..self
        }
    }

    /// The same plan, combining global reductions or not ([`Gen::combine`]).
    pub fn with_combine(self, on: bool) -> Plan {
        Plan {
            combine: on,
            ..self
        }
    }

    /// The plan for the code of `tier` (the optimized tier without this).
    pub fn with_tier(self, tier: super::Tier) -> Plan {
        Plan { tier, ..self }
    }
}

/// `order`: the warp's lane order (`analysis::segment`), which decides where segments end.
pub fn plan(f: &ir::Function, order: WarpOrder) -> Plan {
    let uni = uniform::analyze(f);
    let affine = uniform::analyze_affine(f, &uni);
    let strides = super::affine::static_strides(f, &uni);
    let nv = f.values.len();
    let mut def_blocks = vec![usize::MAX; nv];
    for (bi, blk) in f.blocks.iter().enumerate() {
        for &p in &blk.params {
            def_blocks[p.index()] = bi;
        }
        for &i in &blk.insts {
            for &r in &f.inst(i).results {
                def_blocks[r.index()] = bi;
            }
        }
    }
    let def_block_of = |_f: &ir::Function, v: ir::Value| -> Option<usize> {
        Some(def_blocks[v.index()]).filter(|&b| b != usize::MAX)
    };
    // Regions (`analysis::region`): the head priority of each block's region, by block
    // index (`u32::MAX`: none). A CFG the schedule rejects has none; the schedule reports it.
    let (blocks, prio) = crate::analysis::schedule::priorities(f).unwrap_or_default();
    let regions = Regions::new(f, &blocks, &prio, order)
        .retain(|r| !uniform_pure_blocks(f, &uni, &blocks[r.start as usize..r.end as usize]));
    let mut region_of = vec![u32::MAX; f.blocks.len()];
    // Blocks after the lead of their region (`Regions::lead`), blocks in a lead (the head
    // included), and blocks other than a head.
    let mut region_inside = vec![false; f.blocks.len()];
    let mut region_lead = vec![false; f.blocks.len()];
    let mut region_nonhead = vec![false; f.blocks.len()];
    // The head block of each block's region, by block index.
    let mut region_head: Vec<Option<ir::Block>> = vec![None; f.blocks.len()];
    // Blocks of loop regions, whose head parameters change with each pass of a group.
    let mut region_looped = vec![false; f.blocks.len()];
    for (p, &b) in blocks.iter().enumerate() {
        if let Some(h) = regions.head_of(p as u32) {
            region_looped[b.index()] = regions.is_loop(h);
            region_of[b.index()] = h;
            region_inside[b.index()] = !regions.in_lead(p as u32);
            region_lead[b.index()] = regions.in_lead(p as u32);
            region_nonhead[b.index()] = h != p as u32;
            region_head[b.index()] = blocks.get(h as usize).copied();
        }
    }
    let same_region = |a: usize, b: usize| region_of[a] != u32::MAX && region_of[a] == region_of[b];
    // Scalar instructions: uniform, pure (or reading read-only parameter/constant memory),
    // with operands that are scalar here or uniform values from elsewhere.
    let mut scalar = vec![false; f.insts.len()];
    let mut scalar_val = vec![false; nv];
    for (bi, blk) in f.blocks.iter().enumerate() {
        let here = ir::Block(bi as u32);
        for &i in &blk.insts {
            let d = f.inst(i);
            let readonly_load = matches!(
                d.op,
                Op::Load {
                    space: ir::Space::Param | ir::Space::Const,
                    ..
                }
            );
            // In a region, the scalar sections of all its blocks run at the top of the region,
            // before any group has entered them (`region.rs`): the blocks after its lead keep
            // only pure operations, and every block after the head only operations on values
            // computed in those sections or before the region. In a loop region, that holds
            // for the head too: its parameters change with each pass (group by group), so
            // neither they nor anything computed from them is a scalar there.
            let inside = region_inside[bi];
            let looped = region_looped[bi];
            let nonhead = region_nonhead[bi];
            let kind_ok = d.op.effect() == Effect::Pure || readonly_load && !inside;
            let uniform_results = d
                .results
                .iter()
                .all(|&r| !uni.divergent[r.index()] && !uni.temporal[r.index()]);
            let args_ok = d.args.iter().all(|&a| {
                let db = def_block_of(f, a);
                if nonhead {
                    let head = region_head[bi].unwrap_or(here);
                    let in_region = db.is_some_and(|x| same_region(x, bi));
                    let head_param = matches!(f.values[a.index()].def,
                        ir::ValueDef::Param(b, _) if b == head);
                    if in_region && (!head_param || looped) {
                        return scalar_val[a.index()];
                    }
                    return uni.uniform_at(a, here) && uni.uniform_at(a, head);
                }
                // A uniform parameter of this very block is in its slot at the block's top
                // (the terminators that enter it, a loop's back edge included, wrote it for
                // every lane they sent), so a loop's counters and uniform pointers are
                // scalars in the loop's own block too; other values of the block are
                // computed by its group loops, after the scalar section.
                let own_param = !looped
                    && matches!(f.values[a.index()].def, ir::ValueDef::Param(b, _) if b == here);
                scalar_val[a.index()] || (uni.uniform_at(a, here) && (db != Some(bi) || own_param))
            });
            if kind_ok && uniform_results && args_ok && !d.results.is_empty() {
                scalar[i.index()] = true;
                for &r in &d.results {
                    scalar_val[r.index()] = true;
                }
            }
        }
    }
    let mut inst_block = vec![0u32; f.insts.len()];
    for (bi, blk) in f.blocks.iter().enumerate() {
        for &i in &blk.insts {
            inst_block[i.index()] = bi as u32;
        }
    }
    // Segments: a warp op is its own segment; the terminator belongs to the last one.
    let mut def_seg = vec![usize::MAX; nv];
    let mut seg_of_inst = vec![0usize; f.insts.len()];
    let mut term_seg = vec![0usize; f.blocks.len()];
    let mut seg = 0usize;
    let mut split = SegmentSplit::new(order);
    for (bi, blk) in f.blocks.iter().enumerate() {
        seg += 1;
        split.reset();
        for &i in &blk.insts {
            let warp = f.inst(i).op.effect() == Effect::Warp;
            if warp {
                seg += 1;
                split.reset();
            } else if !scalar[i.index()] && split.before(&f.inst(i).op) {
                seg += 1;
            }
            seg_of_inst[i.index()] = seg;
            for &r in &f.inst(i).results {
                def_seg[r.index()] = seg;
            }
            if warp {
                seg += 1;
            }
        }
        term_seg[bi] = seg;
    }
    let mut escapes = vec![false; nv];
    let mut cross_block = vec![false; nv];
    let mut scalar_slot = vec![false; nv];
    for (bi, blk) in f.blocks.iter().enumerate() {
        let mut uses: Vec<(ir::Value, usize, bool)> = vec![];
        for &i in &blk.insts {
            let warp = f.inst(i).op.effect() == Effect::Warp;
            if warp && scalar_barrier(f, i, bi, &scalar_val, &def_blocks) {
                // Its operands are read from the block's scalar section, never from their
                // slots (`Gen::gen_warp_op`).
                continue;
            }
            for &a in &f.inst(i).args {
                uses.push((a, seg_of_inst[i.index()], warp));
            }
        }
        if let Terminator::Branch { cond, .. } = &blk.term {
            uses.push((*cond, term_seg[bi], false));
        }
        for c in blk.term.targets() {
            for &a in &c.args {
                uses.push((a, term_seg[bi], false));
            }
        }
        for (a, s, warp) in uses {
            let db = def_block_of(f, a);
            // Inside a region, the group values of its lead stay in registers for the region's
            // other blocks, and every scalar-section value is at hand (`region.rs`).
            let in_region = db.is_some_and(|x| x != bi && same_region(x, bi));
            let from_head = db.is_some_and(|x| in_region && region_lead[x]);
            if scalar_val[a.index()] && in_region || from_head && !warp {
                continue;
            }
            let other_block = db != Some(bi);
            if other_block {
                cross_block[a.index()] = true;
            }
            if def_seg[a.index()] != s || warp || other_block {
                escapes[a.index()] = true;
            }
            if scalar_val[a.index()] && (other_block || warp) {
                scalar_slot[a.index()] = true;
            }
        }
    }
    // Warp-op results are written to slots by helpers.
    for blk in &f.blocks {
        for &i in &blk.insts {
            if f.inst(i).op.effect() == Effect::Warp {
                for &r in &f.inst(i).results {
                    escapes[r.index()] = true;
                }
            }
        }
    }

    // Values whose every use is an operand of a NaN-blind float operation of the same block,
    // or of another block of the same region where the value stays in a register (a value of
    // the region's lead, which does not escape: mandelbrot's `zr²`, read by the loop's both
    // blocks), not stored, not passed on: their own NaN results need not be made canonical.
    let mut nan_only = vec![true; nv];
    let mut nan_used = vec![false; nv];
    for (bi, blk) in f.blocks.iter().enumerate() {
        for &i in &blk.insts {
            let d = f.inst(i);
            let blind = nan_blind(&d.op) && !scalar[i.index()];
            for &a in &d.args {
                nan_used[a.index()] = true;
                let db = def_blocks[a.index()];
                let here = db == bi || (db < f.blocks.len() && same_region(db, bi));
                if !blind || !here {
                    nan_only[a.index()] = false;
                }
            }
        }
        if let Terminator::Branch { cond, .. } = &blk.term {
            nan_only[cond.index()] = false;
        }
        for c in blk.term.targets() {
            for &a in &c.args {
                nan_only[a.index()] = false;
            }
        }
    }
    let nan_blind: Vec<bool> = (0..nv)
        .map(|v| nan_only[v] && nan_used[v] && !escapes[v])
        .collect();

    let mut body_params = vec![false; nv];
    for blk in &f.blocks {
        for &p in &blk.params {
            body_params[p.index()] = true;
        }
    }
    // Blocks whose instructions' integer or predicate results an instruction or branch of
    // some other block reads: such a value can be replayed there from the block's
    // parameters (`affine.rs`, `group.rs`, `ctacheck.rs` replay integer arithmetic and
    // compares, never a float operation), so these parameters are not left to their block
    // alone. A block call's argument is read from its slot (`Gen::gget`), never replayed.
    let mut exports = vec![false; f.blocks.len()];
    for (bi, blk) in f.blocks.iter().enumerate() {
        // `call`: an argument of a block call, which no parameter may be.
        let mut read = |a: ir::Value, call: bool| {
            if call || !blk.params.contains(&a) {
                body_params[a.index()] = false;
            }
            if let Some(db) = def_block_of(f, a) {
                if db != bi
                    && !call
                    && matches!(f.values[a.index()].def, ir::ValueDef::Result(..))
                    && !f.value_type(a).is_float()
                {
                    exports[db] = true;
                }
            }
        };
        for &i in &blk.insts {
            for &a in &f.inst(i).args {
                read(a, false);
            }
        }
        if let Terminator::Branch { cond, .. } = &blk.term {
            read(*cond, false);
        }
        for c in blk.term.targets() {
            for &a in &c.args {
                read(a, true);
            }
        }
    }
    for (bi, blk) in f.blocks.iter().enumerate() {
        if exports[bi] {
            for &p in &blk.params {
                body_params[p.index()] = false;
            }
        }
    }

    // In either warp order (`preloop.rs`).
    let hoist = super::preloop::Hoist::plan(f, &scalar);
    Plan {
        uni,
        affine,
        strides,
        scalar,
        escapes,
        cross_block,
        scalar_slot,
        inst_block,
        nan_blind,
        body_params,
        racecheck: false,
        combine: false,
        tier: super::Tier::Optimized,
        order,
        regions,
        hoist,
    }
}

/// Whether a region of `blocks` (`analysis::region`) is better run block by block: every
/// instruction is pure (no memory access, no fault, no warp operation, no clock or timer
/// read) with uniform results, every parameter of a block after the head is uniform, and
/// every terminator is a jump, `exit` or a branch on a uniform condition (not temporally
/// divergent either). Such a region does
/// no per-lane work for its group loop to keep in registers (its values are scalar-section
/// values), and running it block by block is indistinguishable from running it group by
/// group, the order the interpreter follows: its instructions have no effect another lane
/// can observe, and as every lane that enters the head takes the same path, the lanes
/// leave it for one destination together, each block of the path being the lowest pending
/// priority when it runs (the region's priorities are consecutive, no block after its head
/// has lanes pending between passes, and the dispatcher took the head as the lowest). A
/// post-barrier block that computes a loop's uniform start and tests it (reduce_shared's
/// `s = blockDim.x / 2`, `s > 0`) so skips a group loop that only distributed lane masks.
fn uniform_pure_blocks(f: &ir::Function, uni: &Uniformity, blocks: &[ir::Block]) -> bool {
    let uniform = |v: ir::Value| !uni.divergent[v.index()] && !uni.temporal[v.index()];
    blocks.iter().enumerate().all(|(k, &b)| {
        let bd = f.block(b);
        let term = match &bd.term {
            Terminator::Jump(_) | Terminator::Exit => true,
            Terminator::Branch { cond, .. } => !uni.divergent_branch[b.index()] && uniform(*cond),
            Terminator::Barrier { .. } | Terminator::Trap => false,
        };
        let insts = bd.insts.iter().all(|&i| {
            let d = f.inst(i);
            let op_ok = match d.op {
                Op::SReg { reg } => uniform::cta_uniform_sreg(reg),
                _ => d.op.effect() == Effect::Pure,
            };
            op_ok && d.results.iter().all(|&r| uniform(r))
        });
        term && insts && (k == 0 || bd.params.iter().all(|&p| uniform(p)))
    })
}

/// Whether warp operation `i` of block `bi` is a barrier arrival whose three operands (id,
/// thread count, predicate) are all scalar-section values of that block: `Gen::gen_warp_op`
/// then passes them as scalars (the inline arrival of `ctabar.rs` or
/// `helpers::bar_uniform_helper`), and no helper reads their slots.
fn scalar_barrier(
    f: &ir::Function,
    i: ir::Inst,
    bi: usize,
    scalar_val: &[bool],
    def_blocks: &[usize],
) -> bool {
    let d = f.inst(i);
    matches!(d.op, Op::BarArrive { .. })
        && d.args.len() == 3
        && d.args
            .iter()
            .all(|&a| scalar_val[a.index()] && def_blocks[a.index()] == bi)
}

/// Generate the CLIF function body into `func`.
#[allow(clippy::too_many_arguments)]
pub fn generate(
    f: &ir::Function,
    layout: &WarpLayout,
    plan: Plan,
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    data: &mut KernelData,
    ptr: CType,
    frontend: cranelift_codegen::isa::TargetFrontendConfig,
    restart: Option<Vec<u32>>,
) -> Result<(), String> {
    let mut plan = plan;
    let mut b = FunctionBuilder::new(func, fctx);
    let sig = |params: &[CType], rets: &[CType]| {
        let mut s = Signature::new(CallConv::SystemV);
        for &p in params {
            s.params.push(AbiParam::new(p));
        }
        for &r in rets {
            s.returns.push(AbiParam::new(r));
        }
        s
    };
    let sig_pure = b.import_signature(sig(
        &[ptr, types::I64, types::I64, types::I64],
        &[types::I64],
    ));
    let sig_access = b.import_signature(sig(
        &[ptr, ptr, types::I64, types::I32, types::I32, types::I32],
        &[ptr],
    ));
    let sig_atom = b.import_signature(sig(
        &[
            ptr,
            ptr,
            types::I64,
            types::I64,
            types::I64,
            types::I32,
            types::I32,
        ],
        &[types::I64],
    ));
    let sig_shfl = b.import_signature(sig(&[ptr, types::I32, types::I32, ptr], &[]));
    let sig_trap = b.import_signature(sig(&[ptr, types::I32, types::I32], &[]));
    let sig_warp = b.import_signature(sig(&[ptr, ptr, types::I32, ptr], &[]));
    let sig_sreg = b.import_signature(sig(&[ptr, types::I32, types::I32], &[types::I64]));
    let sig_group = b.import_signature(sig(
        &[
            ptr,
            ptr,
            ptr,
            types::I32,
            types::I32,
            types::I32,
            types::I32,
        ],
        &[],
    ));
    let sig_bar = b.import_signature(sig(
        &[
            ptr,
            ptr,
            types::I32,
            types::I32,
            types::I32,
            types::I32,
            ptr,
        ],
        &[],
    ));

    // Entry: the warp loop's values to its frame; the parameter window for `pre`.
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let [table, env, first, count] = [0, 1, 2, 3].map(|k| b.block_params(entry)[k]);
    let ld =
        |b: &mut FunctionBuilder, t: CType, off: usize| b.ins().load(t, TRUSTED(), env, off as i32);
    let frame = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        FRAME_BYTES,
        3,
    ));
    b.ins().stack_store(ptr, table, frame, FRAME_TABLE);
    b.ins().stack_store(ptr, count, frame, FRAME_COUNT);
    b.ins().stack_store(ptr, first, frame, FRAME_FIRST);
    let zero = b.ins().iconst(types::I32, 0);
    b.ins().stack_store(ptr, zero, frame, FRAME_TURN);
    let param_base = ld(&mut b, ptr, offset_of!(CtaEnv, param_base));
    let param_size = ld(&mut b, types::I64, offset_of!(CtaEnv, param_size));
    // Uniform barriers completed inside the call (`ctabar.rs`): the pass's arrival count.
    let bar_slot = super::ctabar::in_call_completion(f, plan.racecheck)
        .then(|| super::ctabar::new_slot(&mut b, ptr));
    // The abort flag's address, read by every goto test and dispatch: one stack load there
    // instead of the environment pointer's reload and the field's load. A call of a kernel
    // compiled for batches changes it between CTAs (`batch.rs`), so it stays in `env` there.
    let abort_in_frame = bar_slot.is_some() && restart.is_none();
    if abort_in_frame {
        let a = ld(&mut b, ptr, offset_of!(CtaEnv, abort));
        b.ins().stack_store(ptr, a, frame, FRAME_ABORT);
    }
    // The warp loop: its `i`-th turn runs warp `first + i` on the state `table[i]` until
    // no lane of it is pending (the dispatcher's exit), then takes the next warp.
    let warp_loop = b.create_block();
    // With CTA-uniform values to compute once per call: entry → `pre` (emitted last,
    // `Gen::gen_preloop`) → `join`, whose parameters carry them into the warp loop.
    let preloop = if plan.hoist.is_empty() {
        None
    } else {
        let pre = b.create_block();
        let join = b.create_block();
        plan.hoist.add_params(&mut b, f, join);
        b.ins().jump(pre, &[]);
        b.switch_to_block(join);
        Some((pre, join))
    };
    b.ins().jump(warp_loop, &[]);
    b.switch_to_block(warp_loop);
    let i = b.ins().stack_load(ptr, types::I32, frame, FRAME_TURN);
    let n = b.ins().stack_load(ptr, types::I32, frame, FRAME_COUNT);
    let more = b.ins().icmp(IntCC::UnsignedLessThan, i, n);
    let run = b.create_block();
    let done = b.create_block();
    b.ins().brif(more, run, &[], done, &[]);
    b.switch_to_block(run);
    let i_ptr = b.ins().uextend(ptr, i);
    let i_off = b.ins().imul_imm_s(i_ptr, i64::from(ptr.bytes()));
    let states = b.ins().stack_load(ptr, ptr, frame, FRAME_TABLE);
    let slot = b.ins().iadd(states, i_off);
    let state = b.ins().load(ptr, TRUSTED(), slot, 0);
    let first_warp = b.ins().stack_load(ptr, types::I32, frame, FRAME_FIRST);
    let warp = b.ins().iadd(first_warp, i);
    // `env.warp` names the running warp to the helpers. A call for one warp
    // (`WarpEngine::run_warp`) finds it set already and never writes the environment.
    let cur = ld(&mut b, types::I32, offset_of!(CtaEnv, warp));
    let differs = b.ins().icmp(IntCC::NotEqual, cur, warp);
    let set = b.create_block();
    let dispatch = b.create_block();
    // The warp's first block: straight to the entry block where the kernel has no resume
    // point but the start (`Gen::gen_warp_start`), else the dispatcher.
    let warp_start = if starts_only_at_entry(f, layout) {
        b.create_block()
    } else {
        dispatch
    };
    // A kernel that releases its warps from a barrier at their turns (`ctabar.rs`,
    // `Gen::gen_resume`): the turn starts with that release.
    let turn_start = if warp_start == dispatch && super::ctabar::resumes(layout, bar_slot.is_some())
    {
        b.create_block()
    } else {
        warp_start
    };
    let lazy = (turn_start != warp_start).then(|| super::ctabar::Lazy::new(&mut b));
    b.ins().brif(differs, set, &[], turn_start, &[]);
    b.switch_to_block(set);
    b.ins()
        .store(TRUSTED(), warp, env, offset_of!(CtaEnv, warp) as i32);
    b.ins().jump(turn_start, &[]);
    let e = EnvVals {
        env,
        param_base,
        param_size,
        warp_loop,
        frame,
        state,
    };

    let Plan {
        uni,
        affine,
        strides,
        scalar,
        escapes,
        cross_block,
        scalar_slot,
        inst_block,
        nan_blind,
        body_params,
        racecheck,
        combine,
        tier,
        order,
        regions,
        hoist,
    } = plan;
    let mut g = Gen {
        f,
        layout,
        b,
        e,
        env_cache: [None; ENV_FIELDS],
        env_loop: None,
        env_loop_cache: [None; ENV_FIELDS],
        stream_env_cache: [None; ENV_FIELDS],
        ptr,
        data,
        dispatch,
        turn_end: None,
        uni,
        affine,
        strides,
        scalar,
        escapes,
        cross_block,
        scalar_slot,
        inst_block,
        nan_blind,
        body_params,
        racecheck,
        combine,
        red_sig: None,
        order,
        regions,
        region: None,
        region_store_check: false,
        no_warp_conds: super::region::warp_conds_off(),
        one_way: None,
        stay: StayVals::default(),
        dloop: None,
        cur_group: None,
        unroll_groups: false,
        tier,
        sig_pure,
        sig_access,
        sig_atom,
        sig_shfl,
        sig_trap,
        sig_warp,
        sig_sreg,
        sig_group,
        sig_bar,
        enter: vec![],
        direct: vec![],
        direct_vals: vec![],
        carried: vec![],
        no_direct: vec![],
        fast: Default::default(),
        gfast: Default::default(),
        group_fast_body: false,
        uniform_runs: Default::default(),
        uniform_vecs: Default::default(),
        group_slow_body: false,
        warp_fast_body: false,
        group_bail: None,
        entry_chain: Gen::entry_chain(f),
        pinned: Default::default(),
        pin_slot: None,
        packed_words: std::collections::HashMap::new(),
        const_slot: None,
        group_slot: None,
        big: is_big(f, tier),
        uniform_mask: None,
        hoist,
        bar_slot,
        lazy,
        abort_in_frame,
        uses: use_counts(f),
        next_cta: restart.map(|w| (preloop.map_or(warp_loop, |(pre, _)| pre), w)),
        batch_again: None,
        stream: None,
        stream_hoisted: Vec::new(),
        restart_jump: None,
    };
    g.no_direct = g.direct_targets();
    g.batch_again = g.next_cta.as_ref().map(|(again, _)| *again);
    g.gen_round_end(done);
    if let Some((pre, join)) = preloop {
        g.gen_preloop(pre, join, table, count)?;
    }
    g.gen_dispatch()?;
    if turn_start != warp_start {
        g.gen_resume(turn_start);
    }
    // A run of fresh full warps through the first region (`stream.rs`).
    let stream = g
        .stream_region(warp_start != dispatch && !super::stream::stream_off())
        .map(|region| super::stream::StreamPlan {
            entry: g.b.create_block(),
            region,
        });
    if warp_start != dispatch {
        g.gen_warp_start(warp_start, stream.as_ref().map(|s| s.entry));
    }
    // The per-call checks asked for by the region's blocks (`ctacheck.rs`): the stream
    // loop's copy asks for the same again, which the first ones cover.
    let mut asked = (g.hoist.cta.counts(), g.hoist.cta.counts());
    for (p, &blk) in layout.order.iter().enumerate() {
        let r = g.regions.blocks_of(p as u32);
        if g.regions.is_region(p as u32) {
            let first_region = stream.as_ref().is_some_and(|s| s.region == r);
            if first_region {
                asked.0 = g.hoist.cta.counts();
            }
            g.gen_region(r)?;
            g.carried.clear();
            if first_region {
                asked.1 = g.hoist.cta.counts();
            }
        } else if r.is_empty() {
            // Never entered through the dispatcher: no lane is pending at a region's
            // blocks other than its head.
            let enter = g.enter[p];
            g.b.switch_to_block(enter);
            g.b.ins().jump(g.dispatch, &[]);
        } else {
            g.gen_block(blk)?;
            g.carried.clear();
        }
    }
    if let Some(plan) = stream {
        g.gen_stream(plan)?;
        g.hoist.cta.drop_repeats(asked.0, asked.1);
    }
    g.check_direct()?;
    // After every block: the per-call range checks they asked for (`ctacheck.rs`), the
    // write-out of deferred barrier arrivals (`ctabar.rs`).
    g.gen_cta_checks()?;
    g.gen_lazy_flush();
    g.b.seal_all_blocks();
    g.b.finalize(frontend);
    Ok(())
}

/// Whether every warp of the kernel is entered only at its start: no barrier terminator and
/// no block a barrier resumes at (`WarpLayout::barrier_targets`). A call then runs each of
/// its warps from the state `start_cta` (or the next CTA of a batch, `batch.rs`) leaves:
/// the entry block (priority 0) pending for the live lanes and its active bit set, and the
/// warp runs until it exits or the launch stops.
fn starts_only_at_entry(f: &ir::Function, layout: &WarpLayout) -> bool {
    let barriers = f
        .blocks
        .iter()
        .any(|b| matches!(b.term, Terminator::Barrier { .. }));
    !barriers && layout.barrier_targets.is_empty() && !layout.order.is_empty()
}

impl Gen<'_, '_> {
    pub(super) fn iconst(&mut self, t: CType, v: i64) -> Value {
        self.b.ins().iconst(t, v)
    }

    /// A per-call value ([`EnvField`]). Inside a group loop ([`Gen::env_loop`]) it is loaded
    /// once, in the loop's preheader, for the whole loop; elsewhere once per Cranelift block:
    /// the first use in a block loads it, later uses in the same block take that load.
    pub(super) fn env_val(&mut self, field: EnvField) -> Value {
        if let Some(st) = self.stream {
            // The stream loop's copy of the region: `env.warp` is the turn's warp (which the
            // loop may leave unwritten in the environment), every other field is the same
            // for the loop's whole run and is loaded once, at its entry (`stream.rs`).
            if field == EnvField::Warp {
                return st.warp;
            }
            if let Some(v) = self.stream_env_cache[field as usize] {
                return v;
            }
            let (env, ptr) = (self.e.env, self.ptr);
            let pos = FuncCursor::new(self.b.func).at_inst(st.env_at);
            let v = env_emit(field, env, ptr, pos);
            self.stream_env_cache[field as usize] = Some(v);
            return v;
        }
        if let Some(at) = self.env_loop {
            if let Some(v) = self.env_loop_cache[field as usize] {
                return v;
            }
            let (env, ptr) = (self.e.env, self.ptr);
            let pos = FuncCursor::new(self.b.func).at_inst(at);
            let v = env_emit(field, env, ptr, pos);
            self.env_loop_cache[field as usize] = Some(v);
            return v;
        }
        let Some(cur) = self.b.current_block() else {
            // Not reached: code is always emitted into a block. Loaded as in one.
            let blk = self.b.create_block();
            self.b.switch_to_block(blk);
            return self.env_val(field);
        };
        if let Some((blk, v)) = self.env_cache[field as usize] {
            if blk == cur {
                return v;
            }
        }
        let (env, ptr) = (self.e.env, self.ptr);
        let v = env_emit(field, env, ptr, FuncCursor::new(self.b.func).at_bottom(cur));
        self.env_cache[field as usize] = Some((cur, v));
        v
    }

    /// The running warp's state pointer ([`EnvVals::state`]).
    pub(super) fn state(&mut self) -> Value {
        self.e.state
    }

    pub(super) fn state_load(&mut self, t: CType, off: u32) -> Value {
        let s = self.state();
        self.b.ins().load(t, TRUSTED(), s, off as i32)
    }

    pub(super) fn state_store(&mut self, v: Value, off: u32) {
        let s = self.state();
        self.b.ins().store(TRUSTED(), v, s, off as i32);
    }

    /// `state[off] |= v` for a u32 mask word.
    pub(super) fn state_or32(&mut self, off: u32, v: Value) {
        let old = self.state_load(types::I32, off);
        let n = self.b.ins().bor(old, v);
        self.state_store(n, off);
    }

    pub(super) fn set_active(&mut self, prio: u32) {
        let off = self.layout.active_off + 8 * (prio / 64);
        let old = self.state_load(types::I64, off);
        let n = self.b.ins().bor_imm_s(old, 1i64 << (prio % 64));
        self.state_store(n, off);
    }

    /// Send the lanes `mask` (`u32`) to priority `prio` and leave the current block (in
    /// place of adding them to its pending mask, `set_active(prio)` and a jump to the
    /// dispatcher): straight into its body with the mask (`Gen::direct`; for a priority of
    /// `Gen::no_direct`, into its entry through the pending mask) when no block of the warp
    /// is active and the launch is not aborted, else as before. The dispatcher would
    /// pick `prio` then (the lowest active priority, and the only one), read its pending
    /// mask, which holds no other lanes (a block with pending lanes has its active bit set),
    /// and clear it, so the direct jump leaves the warp's state as the dispatcher would, and
    /// the abort flag is still read before the block.
    pub(super) fn goto_prio(&mut self, prio: u32, mask: Value) {
        self.goto_prio_via(prio, mask, false);
    }

    /// [`Gen::goto_prio`] for a mask that may be empty (`through_pending`): always through
    /// the pending mask, whose entry goes back to the dispatcher for no lanes.
    pub(super) fn goto_prio_via(&mut self, prio: u32, mask: Value, through_pending: bool) {
        self.goto_prio_when(prio, mask, through_pending, false, None);
    }

    /// [`Gen::goto_prio`] for lanes whose jump has just written the values `vals` of the
    /// target's carried parameters (`Gen::carry_params`, in that order) to their slots for
    /// every lane of `mask`: the direct way enters `Gen::direct_vals`' block with them, so
    /// the target does not read the slots back.
    pub(super) fn goto_prio_args(&mut self, prio: u32, mask: Value, vals: &[Value]) {
        self.goto_prio_when(prio, mask, false, false, Some(vals));
    }

    /// [`Gen::goto_prio_via`] where the warp's active bits of priorities after `prio` may be
    /// set (bits of empty pending masks that a turn left: `ctabar.rs`): the dispatcher would
    /// still pick `prio` first when no bit up to it is set, read its pending mask (which
    /// holds no lanes: its bit is clear), clear it and enter it, leaving the later bits as
    /// they are, so the code goes straight in then. Returns as `goto_prio_via` does.
    pub(super) fn goto_prio_first(&mut self, prio: u32, mask: Value, through_pending: bool) {
        self.goto_prio_when(prio, mask, through_pending, true, None);
    }

    /// [`Gen::goto_prio_via`], or with `first` [`Gen::goto_prio_first`]: which active bits
    /// keep the lanes from going straight in (all, or those up to `prio`); with `vals`,
    /// [`Gen::goto_prio_args`].
    fn goto_prio_when(
        &mut self,
        prio: u32,
        mask: Value,
        through_pending: bool,
        first: bool,
        vals: Option<&[Value]>,
    ) {
        let mut others: Option<Value> = None;
        let mut own = None;
        for w in 0..self.layout.active_words {
            if first && w > prio / 64 {
                break;
            }
            let mut word = self.state_load(types::I64, self.layout.active_off + 8 * w);
            if w == prio / 64 {
                own = Some(word);
                if first {
                    // Bits 0 ..= prio % 64.
                    let upto = u64::MAX >> (63 - prio % 64);
                    word = self.b.ins().band_imm_s(word, upto as i64);
                }
            }
            others = Some(match others {
                Some(o) => self.b.ins().bor(o, word),
                None => word,
            });
        }
        let (Some(others), Some(own)) = (others, own) else {
            // No active word holds `prio` (cannot happen for a laid-out block): the
            // dispatcher's way.
            self.state_or32(self.layout.pending(prio), mask);
            self.set_active(prio);
            self.b.ins().jump(self.dispatch, &[]);
            return;
        };
        let abort = self.abort_flag();
        let abort = self.b.ins().uextend(types::I64, abort);
        let busy = self.b.ins().bor(others, abort);
        let slow = self.b.create_block();
        let through = through_pending || self.no_direct[prio as usize];
        if through {
            // Through the pending mask, on both ways: the entry reads it back.
            self.state_or32(self.layout.pending(prio), mask);
            let enter = self.enter[prio as usize];
            self.b.ins().brif(busy, slow, &[], enter, &[]);
        } else if let Some(vals) = vals {
            let body = self.direct_vals(prio);
            let args: Vec<BlockArg> = std::iter::once(mask)
                .chain(vals.iter().copied())
                .map(BlockArg::Value)
                .collect();
            self.b.ins().brif(busy, slow, &[], body, &args);
        } else {
            let body = self.direct_body(prio);
            self.b
                .ins()
                .brif(busy, slow, &[], body, &[BlockArg::Value(mask)]);
        }
        self.b.switch_to_block(slow);
        if !through {
            self.state_or32(self.layout.pending(prio), mask);
        }
        let set = self.b.ins().bor_imm_s(own, 1i64 << (prio % 64));
        self.state_store(set, self.layout.active_off + 8 * (prio / 64));
        self.b.ins().jump(self.dispatch, &[]);
    }

    /// Set the active bit of each priority of `targets` whose lane mask (`u32`) is not
    /// empty, one read-modify-write per active word: a branch whose lanes all go one way
    /// leaves the other target inactive, so the dispatcher does not enter it for nothing.
    pub(super) fn set_active_when(&mut self, targets: &[(u32, Value)]) {
        let mut words: Vec<u32> = targets.iter().map(|&(p, _)| p / 64).collect();
        words.sort_unstable();
        words.dedup();
        for w in words {
            let off = self.layout.active_off + 8 * w;
            let mut word = self.state_load(types::I64, off);
            for &(p, m) in targets.iter().filter(|&&(p, _)| p / 64 == w) {
                let nz = self.b.ins().icmp_imm_s(IntCC::NotEqual, m, 0);
                let bit = self.b.ins().uextend(types::I64, nz);
                let bit = self.b.ins().ishl_imm_s(bit, i64::from(p % 64));
                word = self.b.ins().bor(word, bit);
            }
            self.state_store(word, off);
        }
    }

    /// The CTA's abort flag (`*CtaEnv::abort`, an `i32`: non-zero once the launch stops).
    pub(super) fn abort_flag(&mut self) -> Value {
        let abort_ptr = if self.abort_in_frame {
            self.b
                .ins()
                .stack_load(self.ptr, self.ptr, self.e.frame, FRAME_ABORT)
        } else {
            self.b.ins().load(
                self.ptr,
                TRUSTED(),
                self.e.env,
                offset_of!(CtaEnv, abort) as i32,
            )
        };
        self.b
            .ins()
            .load(types::I32, MemFlagsData::new().with_notrap(), abort_ptr, 0)
    }

    /// The start of a warp's turn in a kernel whose warps are entered only at their start
    /// ([`starts_only_at_entry`]): what the dispatcher would do there, without its search.
    /// The abort flag is read first, as the dispatcher reads it before every block (set, the
    /// dispatcher returns); then, where the entry block's active bit (priority 0, bit 0 of
    /// the first active word) is set, the dispatcher would pick it (the lowest priority) and
    /// clear it, so the code clears it and jumps to the entry block's `enter`. Any other
    /// state (the bit clear) goes through the dispatcher. A warp at its start has exactly
    /// that bit set (`start_cta`, `batch.rs`), so the dispatcher is skipped once per warp.
    fn gen_warp_start(&mut self, start: CBlock, stream: Option<CBlock>) {
        self.b.switch_to_block(start);
        let abort = self.abort_flag();
        let check = self.b.create_block();
        self.b.ins().brif(abort, self.dispatch, &[], check, &[]);
        self.b.switch_to_block(check);
        let off = self.layout.active_off;
        let word = self.state_load(types::I64, off);
        let entry_bit = self.b.ins().band_imm_s(word, 1);
        let enter = self.b.create_block();
        self.b.ins().brif(entry_bit, enter, &[], self.dispatch, &[]);
        self.b.switch_to_block(enter);
        if let Some(head) = stream {
            // A fresh warp of a call the stream loop takes (`stream.rs`).
            let normal = self.b.create_block();
            self.stream_entry(head, word, normal);
            self.b.switch_to_block(normal);
        }
        let cleared = self.b.ins().band_imm_s(word, !1i64);
        self.state_store(cleared, off);
        let entry = self.enter[0];
        self.b.ins().jump(entry, &[]);
    }

    fn gen_dispatch(&mut self) -> Result<(), String> {
        let dispatch = self.dispatch;
        self.b.switch_to_block(dispatch);
        // Abort check.
        let abort = self.abort_flag();
        let ret_abort = self.b.create_block();
        let scan = self.b.create_block();
        self.b.ins().brif(abort, ret_abort, &[], scan, &[]);
        // Aborted: the number of warps that ran, this one included.
        self.b.switch_to_block(ret_abort);
        let turn = self
            .b
            .ins()
            .stack_load(self.ptr, types::I32, self.e.frame, FRAME_TURN);
        let ran = self.b.ins().iadd_imm_s(turn, 1);
        if self.resumes() {
            // The releases a resumed pass has not made yet (`ctabar.rs`).
            let ret = self.b.create_block();
            self.gen_abort_release(turn, ret);
            self.b.switch_to_block(ret);
        }
        // The pass's deferred arrivals written out first (`ctabar.rs`).
        self.gen_exit_value(ran);

        // Scan the active words.
        self.b.switch_to_block(scan);
        let found = self.b.create_block();
        self.b.append_block_param(found, types::I64); // word
        self.b.append_block_param(found, types::I32); // word index
        for w in 0..self.layout.active_words {
            let word = self.state_load(types::I64, self.layout.active_off + 8 * w);
            let next = self.b.create_block();
            let wi = self.iconst(types::I32, w as i64);
            self.b.ins().brif(
                word,
                found,
                &[BlockArg::Value(word), BlockArg::Value(wi)],
                next,
                &[],
            );
            self.b.switch_to_block(next);
        }
        // No lane of this warp is pending: the next warp.
        let turn_end = self.b.create_block();
        self.b.ins().jump(turn_end, &[]);
        self.turn_end = Some(turn_end);
        self.b.switch_to_block(turn_end);
        let turn = self
            .b
            .ins()
            .stack_load(self.ptr, types::I32, self.e.frame, FRAME_TURN);
        let next = self.b.ins().iadd_imm_s(turn, 1);
        self.b
            .ins()
            .stack_store(self.ptr, next, self.e.frame, FRAME_TURN);
        self.b.ins().jump(self.e.warp_loop, &[]);

        self.b.switch_to_block(found);
        let word = self.b.block_params(found)[0];
        let wi = self.b.block_params(found)[1];
        let bit = self.b.ins().ctz(word);
        let bit32 = self.b.ins().ireduce(types::I32, bit);
        // Clear the bit in its word.
        let one64 = self.iconst(types::I64, 1);
        let m = self.b.ins().ishl(one64, bit);
        let cleared = self.b.ins().band_not(word, m);
        let wi64 = self.b.ins().uextend(types::I64, wi);
        let woff = self.b.ins().imul_imm_s(wi64, 8);
        let s = self.state();
        let waddr = self.b.ins().iadd(s, woff);
        self.b
            .ins()
            .store(TRUSTED(), cleared, waddr, self.layout.active_off as i32);
        let base = self.b.ins().imul_imm_s(wi, 64);
        let prio = self.b.ins().iadd(base, bit32);
        // Jump table over block priorities.
        let n = self.layout.order.len();
        let mut entries = Vec::with_capacity(n);
        let mut enter = Vec::with_capacity(n);
        for _ in 0..n {
            let blk = self.b.create_block();
            enter.push(blk);
            entries.push(self.b.func.dfg.block_call(blk, &[]));
        }
        let def = self.b.func.dfg.block_call(dispatch, &[]);
        let jt = self.b.create_jump_table(JumpTableData::new(def, &entries));
        self.b.ins().br_table(prio, jt);
        self.enter = enter;
        Ok(())
    }

    fn gen_block(&mut self, blk: ir::Block) -> Result<(), String> {
        let prio = self.layout.prio[blk.index()];
        let mask = self.enter_body(prio)?;
        self.gen_block_body(blk, mask)
    }

    /// The entry of priority `prio` from the dispatcher (its pending mask read and cleared;
    /// none: back to the dispatcher), then its direct body (`Gen::direct_body`), where this
    /// leaves the builder. Returns the mask (the body's parameter); for a priority with
    /// carried parameters (`Gen::carry_params`), the builder is left in `Gen::direct_vals`'
    /// block, the mask is its parameter and `Gen::carried` holds the values.
    ///
    /// # Errors
    /// `Gen::uniform_get`'s, for a carried parameter.
    pub(super) fn enter_body(&mut self, prio: u32) -> Result<Value, String> {
        let enter = self.enter[prio as usize];
        self.b.switch_to_block(enter);
        let mask = self.state_load(types::I32, self.layout.pending(prio));
        let zero = self.iconst(types::I32, 0);
        self.state_store(zero, self.layout.pending(prio));
        if self.no_direct[prio as usize] {
            let body = self.b.create_block();
            self.b.ins().brif(mask, body, &[], self.dispatch, &[]);
            self.b.switch_to_block(body);
            return Ok(mask);
        }
        let body = self.direct_body(prio);
        self.direct[prio as usize] = Some((body, true));
        self.b
            .ins()
            .brif(mask, body, &[BlockArg::Value(mask)], self.dispatch, &[]);
        self.b.switch_to_block(body);
        let mask = self.b.block_params(body)[0];
        self.carried.clear();
        let carry = self.carry_params(prio);
        if carry.is_empty() {
            return Ok(mask);
        }
        // The carried parameters from their slots (lane `first`, as `Gen::uniform_get`
        // reads them), then on to the block that `Gen::goto_prio_args` enters with them.
        let first = self.b.ins().ctz(mask);
        let mut args = vec![BlockArg::Value(mask)];
        for &v in &carry {
            args.push(BlockArg::Value(self.uniform_get(v, first)?));
        }
        let vals = self.direct_vals(prio);
        self.b.ins().jump(vals, &args);
        self.b.switch_to_block(vals);
        let params = self.b.block_params(vals).to_vec();
        self.carried = carry.into_iter().zip(params[1..].iter().copied()).collect();
        Ok(params[0])
    }

    /// The parameters of priority `prio`'s block that its direct body carries as values
    /// (`Gen::direct_vals`): warp-uniform at the block, read somewhere, with a slot, not
    /// hidden before the warp loop (`preloop.rs`) and not predicates (at most four). A
    /// jump that has just written them for its lanes passes them on in registers, so the
    /// block does not load back lane `first`'s 32-bit slot right after the 16-byte stores
    /// that wrote it (a store-to-load forward that stalls). None for a priority entered
    /// only through its pending mask (`Gen::no_direct`) or a region's other blocks.
    pub(super) fn carry_params(&self, prio: u32) -> Vec<ir::Value> {
        // A loop region's head parameters change with every pass, group by group.
        if self.no_direct[prio as usize]
            || self.regions.blocks_of(prio).is_empty()
            || self.regions.is_loop(prio)
        {
            return vec![];
        }
        let blk = self.layout.order[prio as usize];
        self.f
            .block(blk)
            .params
            .iter()
            .copied()
            .filter(|&v| {
                self.uni.uniform_at(v, blk)
                    && self.uses[v.index()] > 0
                    && self.layout.slot[v.index()] != u32::MAX
                    && !self.hoist.hides(v, self.f)
                    && self.ty(v) != ir::Type::Pred
            })
            .take(4)
            .collect()
    }

    /// The block after priority `prio`'s direct body that takes its carried parameters
    /// (`Gen::carry_params`) as values: the mask (`u32`), then one parameter per value of
    /// its type. Made on first use; its direct body is made with it, so that
    /// `Gen::check_direct` finds it when it has no code.
    fn direct_vals(&mut self, prio: u32) -> CBlock {
        self.direct_body(prio);
        let p = prio as usize;
        if self.direct_vals.len() <= p {
            self.direct_vals.resize(p + 1, None);
        }
        if let Some(b) = self.direct_vals[p] {
            return b;
        }
        let b = self.b.create_block();
        self.b.append_block_param(b, types::I32);
        for v in self.carry_params(prio) {
            self.b.append_block_param(b, ctype(self.ty(v)));
        }
        self.direct_vals[p] = Some(b);
        b
    }

    /// Which block priorities are entered only through their pending mask (`Gen::no_direct`):
    /// the targets of a divergent branch of a block emitted on its own (outside a region),
    /// such as a loop whose trips lanes leave at different times. The dispatcher enters
    /// them on every trip, and their code is allocated better (fewer reloads from the
    /// stack frame) where the mask has that one definition.
    fn direct_targets(&self) -> Vec<bool> {
        let mut no = vec![false; self.layout.order.len()];
        for (p, &blk) in self.layout.order.iter().enumerate() {
            if self.regions.blocks_of(p as u32).len() != 1 || self.regions.is_region(p as u32) {
                continue;
            }
            let bd = self.f.block(blk);
            let Terminator::Branch { cond, then_, else_ } = &bd.term else {
                continue;
            };
            if self.uni.uniform_at(*cond, blk) {
                continue;
            }
            for c in [then_, else_] {
                no[self.layout.prio[c.block.index()] as usize] = true;
            }
        }
        no
    }

    /// The body block of priority `prio` (`Gen::direct`), made with its mask parameter on
    /// first use.
    fn direct_body(&mut self, prio: u32) -> CBlock {
        let p = prio as usize;
        if self.direct.len() <= p {
            self.direct.resize(p + 1, None);
        }
        if let Some((b, _)) = self.direct[p] {
            return b;
        }
        let b = self.b.create_block();
        self.b.append_block_param(b, types::I32);
        self.direct[p] = Some((b, false));
        b
    }

    /// Whether every body block that `Gen::goto_prio` made has its code: a destination
    /// of `goto_prio` is a block or a region's head, each emitted with its entry
    /// (`Gen::enter_body`), never a region's other block (its lanes come from inside the
    /// region only).
    fn check_direct(&self) -> Result<(), String> {
        match self
            .direct
            .iter()
            .position(|d| matches!(d, Some((_, false))))
        {
            Some(p) => Err(format!(
                "internal: block priority {p} is entered directly but has no code of its own"
            )),
            None => Ok(()),
        }
    }

    /// A warp operation over the active lanes, through a runtime helper on the slots.
    /// `sc` holds the block's scalar-section values: a barrier arrival whose operands are all
    /// there takes the whole mask at once (`helpers::bar_uniform_helper`).
    pub(super) fn gen_warp_op(
        &mut self,
        i: ir::Inst,
        mask: Value,
        sc: &std::collections::HashMap<ir::Value, Value>,
    ) -> Result<(), String> {
        let d = self.f.inst(i).clone();
        match d.op {
            Op::Shfl { mode } => {
                let slot = |v: ir::Value| self.layout.slot[v.index()];
                let slots = Box::new([
                    slot(d.args[0]),
                    slot(d.args[1]),
                    slot(d.args[2]),
                    slot(d.results[0]),
                    slot(d.results[1]),
                    slot(d.args[3]),
                ]);
                if slots.contains(&u32::MAX) {
                    return Err(format!("shfl operand without a slot at {i}"));
                }
                let sp = slots.as_ptr() as usize;
                self.data.shfl_slots.push(slots);
                let callee = self.fn_ptr(helpers::shfl_helper as *const () as usize);
                let modev = self.iconst(types::I32, helpers::shfl_mode_code(mode) as i64);
                let spv = self.fn_ptr(sp);
                let s = self.state();
                self.b
                    .ins()
                    .call_indirect(self.sig_shfl, callee, &[s, mask, modev, spv]);
                Ok(())
            }
            crate::warp_ops!() => {
                let slot = |v: ir::Value| -> Result<WarpSlot, String> {
                    let off = self.layout.slot[v.index()];
                    if off == u32::MAX {
                        return Err(format!("warp-op operand {v} without a slot at {i}"));
                    }
                    let bytes = match self.f.value_type(v) {
                        ir::Type::Pred => self.layout.pred_bytes,
                        t => t.bytes(),
                    };
                    Ok(WarpSlot { off, bytes })
                };
                let desc = Box::new(helpers::WarpOpDesc {
                    desc: WarpDesc {
                        op: d.op,
                        inst: i.0,
                        args: d.args.iter().map(|&a| slot(a)).collect::<Result<_, _>>()?,
                        res: d
                            .results
                            .iter()
                            .map(|&r| slot(r))
                            .collect::<Result<_, _>>()?,
                    },
                    state_size: self.layout.size,
                });
                let dp = &*desc as *const helpers::WarpOpDesc as usize;
                self.data.warp_ops.push(desc);
                let uniform: Option<Vec<Value>> = match d.op {
                    Op::BarArrive { .. } => d.args.iter().map(|a| sc.get(a).copied()).collect(),
                    _ => None,
                };
                if let Some(u) = uniform.filter(|u| u.len() == 3) {
                    let (id, threads, pred) = (u[0], u[1], u[2]);
                    let mut call = move |g: &mut Self| {
                        let pred = g.b.ins().uextend(types::I32, pred);
                        let callee = g.fn_ptr(helpers::bar_uniform_helper as *const () as usize);
                        let dv = g.fn_ptr(dp);
                        let st = g.state();
                        let args = [g.e.env, st, mask, id, threads, pred, dv];
                        g.b.ins().call_indirect(g.sig_bar, callee, &args);
                    };
                    // A whole warp's arrival inline where it can be (`ctabar.rs`).
                    if !self.gen_bar_full(i, mask, &u, &mut call) {
                        call(self);
                    }
                    return Ok(());
                }
                let callee = self.fn_ptr(helpers::warp_helper as *const () as usize);
                let dv = self.fn_ptr(dp);
                let s = self.state();
                self.b
                    .ins()
                    .call_indirect(self.sig_warp, callee, &[self.e.env, s, mask, dv]);
                Ok(())
            }
            _ => Err(format!("internal: {} is not a warp op", d.op.mnemonic())),
        }
    }
}
