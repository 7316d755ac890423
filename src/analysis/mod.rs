//! Analyses over verified IR whose results both engines share (side tables, never stored in
//! the IR itself).

pub mod cfg;
pub mod region;
pub mod schedule;
pub mod segment;
pub mod uniform;

/// Where kernel `f` looks written for warps that run in lockstep: the PTX location of its
/// first `st.volatile.shared`, when it also has a `ld.volatile.shared`, never executes
/// `bar.warp.sync` (`__syncwarp()`), and its module targets `sm_70` or later (so it runs
/// under independent thread scheduling). This is the shape of the classic warp-synchronous
/// reduction (`volatile` shared memory, no `__syncwarp()` between its steps), which the PTX
/// ISA leaves undefined from `sm_70` on (§9.7.13.2, "bar.warp.sync"; CUDA C++ Programming
/// Guide, "Independent Thread Scheduling"): GPUs usually still give the lockstep answer, and
/// ptxjit's default group-major order does not. `None` for every other kernel.
pub fn lockstep_idiom(f: &crate::ir::Function) -> Option<crate::ir::SrcLoc> {
    use crate::ir::{Op, Space};
    if f.lockstep {
        return None;
    }
    let volatile = |i: usize| f.inst_ptx.get(i).is_some_and(|p| p.contains(".volatile"));
    let (mut loads, mut store) = (false, None);
    for (i, inst) in f.insts.iter().enumerate() {
        match inst.op {
            Op::WarpSync { .. } => return None,
            Op::Load {
                space: Space::Shared,
                ..
            } if volatile(i) => loads = true,
            Op::Store {
                space: Space::Shared,
                ..
            } if volatile(i) => {
                store.get_or_insert(f.inst_locs[i]);
            }
            _ => {}
        }
    }
    store.filter(|_| loads)
}
