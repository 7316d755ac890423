//! The order in which a warp's lanes run the instructions of a block: the rule both engines
//! follow, so that they agree bit for bit even on code whose result depends on it.
//!
//! # Model
//! A block's instructions are cut into **segments**. A warp operation (`Effect::Warp`:
//! `shfl`, `vote`, `bar.warp.sync`, `activemask`, textures …) is a segment of its own, run for
//! all active lanes together. Every other segment runs **group by group**: lanes 0-3 run the
//! whole segment, then lanes 4-7, and so on ([`GROUP_LANES`] lanes a group, ascending); within
//! a group, each instruction runs for the group's active lanes (lowest first) before the next.
//! The terminator runs for the whole warp after the last segment. Blocks themselves are
//! scheduled for the warp as a whole (`analysis::schedule`).
//!
//! Where the segments end depends on the warp's [`WarpOrder`]:
//! - [`WarpOrder::GroupMajor`] (independent thread scheduling, `.target sm_70` and later, PTX
//!   ISA §9.7.13 and the CUDA Programming Guide's "Independent Thread Scheduling"): lanes of a
//!   warp converge only at warp-synchronous points, so segments end only at warp operations.
//!   Group-major order is one of the interleavings such a target allows.
//! - [`WarpOrder::Lockstep`] (older targets, or on request): the result must be the one of
//!   running each instruction for the whole warp before the next, which warp-synchronous code
//!   without `__syncwarp` relies on (a `volatile` shared array read by a neighbour lane). Group
//!   order differs from that only between two accesses other lanes can see (global, shared or
//!   generic memory) of which one writes; so such an access also starts a new segment when the
//!   segment already holds one and either of them writes (stores, atomics and fences count as
//!   writes). Loads alone, and thread-private local memory, never split. Accesses of
//!   different spaces split too, although global and shared memory are disjoint: letting a
//!   global load and a shared atomic share a loop measured slower in the JIT
//!   (histogram_shared 40 → 50 ms of CPU per launch) and gained nothing elsewhere.

use crate::ir::{self, Effect, Op};

/// Lanes in a group: the unit of group-major order, and the JIT's SIMD width for 32-bit
/// values (`i32x4`). The interpreter runs groups of the same size.
pub const GROUP_LANES: u32 = 4;

/// Groups in a warp of [`super::schedule::WARP_SIZE`] lanes.
pub const GROUPS: u32 = super::schedule::WARP_SIZE / GROUP_LANES;

/// How the lanes of a warp are ordered between warp operations (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarpOrder {
    /// Each instruction's result as if run for the whole warp before the next.
    Lockstep,
    /// Each group of [`GROUP_LANES`] lanes runs a whole segment before the next group.
    GroupMajor,
}

impl WarpOrder {
    /// The order of a kernel: lockstep when its module's target asks for it
    /// (`Function::lockstep`) or the launch does (`--lockstep`); group-major otherwise.
    pub fn of(f: &ir::Function, lockstep: bool) -> WarpOrder {
        if lockstep || f.lockstep {
            WarpOrder::Lockstep
        } else {
            WarpOrder::GroupMajor
        }
    }
}

/// Where a block's segments end: feed the block's instructions in order to
/// [`SegmentSplit::before`] (warp operations through [`SegmentSplit::reset`]).
pub struct SegmentSplit {
    order: WarpOrder,
    /// The current segment holds an access other lanes can see.
    visible: bool,
    /// … and one of its accesses writes.
    writes: bool,
}

impl SegmentSplit {
    /// A split for the start of a block.
    pub fn new(order: WarpOrder) -> SegmentSplit {
        SegmentSplit {
            order,
            visible: false,
            writes: false,
        }
    }

    /// Whether a new segment must start before `op` (not a warp operation); records `op` in
    /// the segment it joins.
    pub fn before(&mut self, op: &Op) -> bool {
        if self.order == WarpOrder::GroupMajor {
            return false;
        }
        let visible = |s: &ir::Space| {
            matches!(
                s,
                ir::Space::Global | ir::Space::Shared | ir::Space::Generic
            )
        };
        let (touches, writes) = match op {
            Op::Load { space, .. } => (visible(space), false),
            Op::Store { space, .. } | Op::Atom { space, .. } | Op::AtomCas { space } => {
                (visible(space), true)
            }
            Op::Fence {} => (true, true),
            _ => (false, false),
        };
        if !touches {
            return false;
        }
        let split = self.visible && (writes || self.writes);
        if split {
            self.visible = false;
            self.writes = false;
        }
        self.visible = true;
        self.writes |= writes;
        split
    }

    /// A warp operation or the start of a block ends the segment.
    pub fn reset(&mut self) {
        self.visible = false;
        self.writes = false;
    }
}

/// Whether `op` is a segment of its own, run for the whole warp at once.
pub fn is_warp_op(op: &Op) -> bool {
    op.effect() == Effect::Warp
}

/// A segment of a block: instructions `start..end` (indices into the block's instruction
/// list); `warp`: a warp operation (one instruction) run for all active lanes together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub start: u32,
    pub end: u32,
    pub warp: bool,
}

/// The segments of `insts` (a block's instructions, in order) under `order`; empty segments
/// are left out.
pub fn segments(f: &ir::Function, insts: &[ir::Inst], order: WarpOrder) -> Vec<Segment> {
    let mut out = vec![];
    let mut split = SegmentSplit::new(order);
    let mut start = 0u32;
    for (k, &i) in insts.iter().enumerate() {
        let k = k as u32;
        let op = &f.inst(i).op;
        if is_warp_op(op) {
            if start < k {
                out.push(Segment {
                    start,
                    end: k,
                    warp: false,
                });
            }
            out.push(Segment {
                start: k,
                end: k + 1,
                warp: true,
            });
            start = k + 1;
            split.reset();
        } else if split.before(op) && start < k {
            out.push(Segment {
                start,
                end: k,
                warp: false,
            });
            start = k;
        }
    }
    let end = insts.len() as u32;
    if start < end {
        out.push(Segment {
            start,
            end,
            warp: false,
        });
    }
    out
}
