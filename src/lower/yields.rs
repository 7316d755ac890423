//! Forward progress between the warps of a CTA: yield points in loops that read memory.
//!
//! The CTA scheduler runs each warp until all its lanes wait (at a barrier or a warp-level
//! synchronization) or exit. A warp that spins on a flag another warp of its CTA has yet to
//! write (`while (flag == 0);` on a `volatile` shared or global variable, legal on Volta and
//! later) would therefore never let that warp run. So every loop that may be waiting on
//! memory — a loop whose exit depends on a value read from global, shared or generic memory
//! (or an atomic's result) inside it, and with a trip round it that passes no barrier (a
//! barrier on every trip already lets other warps run) — counts its iterations, and every [`YIELD_EVERY`]th time round (every time round a
//! loop around an mbarrier wait) its lanes *yield*: a `yield` op parks them at the loop header
//! the way a warp-level synchronization parks lanes (`runtime::warp`), and the scheduler
//! releases them at its next round, after the CTA's other warps have run. What each thread
//! computes is unchanged; only when warps take turns moves, the same way in both engines.

use super::build::{PInst, PTerm, PreKernel, Var};
use super::reducible::{inst as pinst, loop_regions, new_block, new_var, succs};
use crate::ir::{ICmp, Op, Sign, Space, SrcLoc, Type};

type PBlock = u32;

/// Iterations of a memory-reading loop between two yields of its lanes.
pub const YIELD_EVERY: u64 = 1024;

/// A yield-point instruction (named so in timeout and deadlock reports).
fn inst(op: Op, args: Vec<Var>, results: Vec<Var>, loc: SrcLoc, copy: bool) -> PInst {
    pinst(op, args, results, loc, copy, crate::ir::YIELD_POINT_PTX)
}

fn reads_shared_memory(op: &Op) -> bool {
    let visible = |s: &Space| matches!(s, Space::Global | Space::Shared | Space::Generic);
    match op {
        Op::Load { space, .. }
        | Op::Atom { space, .. }
        | Op::AtomCas { space }
        | Op::Atom128 { space, .. } => visible(space),
        Op::Strong128 { store, space } => !store && visible(space),
        Op::MBarrier { op, .. } => op.waits(),
        Op::ClusterBarrier { op } => op.waits(),
        Op::Tcgen05 { op } => op.waits(),
        _ => false,
    }
}

/// Whether the loop `members` waits on an mbarrier (`mbarrier.test_wait`/`try_wait`), the
/// cluster barrier or the peer CTA's `tcgen05.alloc`/`dealloc` `.cta_group::2`: such a loop
/// waits for other warps by design, so its lanes yield every time round.
fn waits_on_mbarrier(k: &PreKernel, members: &[PBlock]) -> bool {
    members.iter().any(|&b| {
        k.blocks[b as usize].insts.iter().any(|i| match i.op {
            Op::MBarrier { op, .. } => op.waits(),
            Op::ClusterBarrier { op } => op.waits(),
            Op::Tcgen05 { op } => op.waits(),
            _ => false,
        })
    })
}

/// Whether every trip round the loop with header `h` (membership `scc`) passes a barrier
/// (a block that ends in `PTerm::Barrier`: `bar.sync`, a warp-level synchronization): its
/// lanes then wait there, which lets the other warps run. A barrier on only some paths (a
/// predicated `@%p bar.warp.sync`, a `__syncwarp()` in one branch) does not: a trip that
/// skips it never returns to the scheduler.
fn every_trip_passes_barrier(k: &PreKernel, scc: &[bool], h: PBlock) -> bool {
    // Blocks reachable from the header's start without passing a barrier; a barrier-free
    // cycle is an edge from one of them back to the header.
    let mut seen = vec![false; k.blocks.len()];
    let mut stack = vec![h];
    seen[h as usize] = true;
    while let Some(b) = stack.pop() {
        let term = &k.blocks[b as usize].term;
        if matches!(term, PTerm::Barrier(_)) {
            continue;
        }
        for t in succs(term) {
            if t == h {
                return false;
            }
            if scc[t as usize] && !seen[t as usize] {
                seen[t as usize] = true;
                stack.push(t);
            }
        }
    }
    true
}

/// Whether the loop `members` (membership `scc`, header `h`) may wait on memory: a trip round
/// it that passes no barrier ([`every_trip_passes_barrier`]), and an exit branch whose
/// condition depends, inside the loop, on a load or atomic of global, shared or generic
/// memory. Loops that count to a bound (grid-stride loops, tiles) never qualify, so they pay
/// nothing.
fn waits_on_memory(k: &PreKernel, scc: &[bool], members: &[PBlock], h: PBlock) -> bool {
    if every_trip_passes_barrier(k, scc, h) {
        return false;
    }
    // Variables that carry a value read from memory in the loop (to a fixpoint: the loop's
    // assignments can feed each other around the back edge).
    let mut tainted = vec![false; k.vars.len()];
    loop {
        let mut changed = false;
        for &b in members {
            for i in &k.blocks[b as usize].insts {
                let t = reads_shared_memory(&i.op) || i.args.iter().any(|&a| tainted[a as usize]);
                for &r in &i.results {
                    if t && !tainted[r as usize] {
                        tainted[r as usize] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    members.iter().any(|&b| match k.blocks[b as usize].term {
        PTerm::Branch(c, t, e) => tainted[c as usize] && (!scc[t as usize] || !scc[e as usize]),
        _ => false,
    })
}

/// Add a yield point on the back edges of every loop (with a single header) that may wait
/// on memory ([`waits_on_memory`]): every [`YIELD_EVERY`]th time round, or every time for a
/// loop around an mbarrier wait ([`waits_on_mbarrier`]).
pub(crate) fn add_yields(k: &mut PreKernel) {
    // Outermost loops first (`reducible::loop_regions`); each loop gets its own counter.
    let mut loops: Vec<(PBlock, Vec<PBlock>, u64)> = vec![];
    for r in loop_regions(k) {
        let [h] = r.entries[..] else { continue };
        if h == 0 {
            // A loop through the kernel's entry block: no place to start its counter.
            continue;
        }
        let members: Vec<PBlock> = (0..k.blocks.len() as PBlock)
            .filter(|&b| r.members[b as usize])
            .collect();
        if waits_on_memory(k, &r.members, &members, h) {
            let back: Vec<PBlock> = members
                .iter()
                .copied()
                .filter(|&u| succs(&k.blocks[u as usize].term).contains(&h))
                .collect();
            let every = if waits_on_mbarrier(k, &members) {
                1
            } else {
                YIELD_EVERY
            };
            loops.push((h, back, every));
        }
    }
    for (h, back, every) in loops {
        let loc = k.blocks[h as usize].term_loc;
        // The counter starts at 0 in the kernel's entry block.
        let cnt = new_var(k, Type::I32);
        let zero = new_var(k, Type::I32);
        let init = [
            inst(Op::Const { bits: 0 }, vec![], vec![zero], loc, false),
            inst(Op::Bitcast {}, vec![zero], vec![cnt], loc, true),
        ];
        k.blocks[0].insts.splice(0..0, init);
        for u in back {
            // u → h becomes u → count → (every YIELD_EVERY-th time) yield → h.
            let (one, sum, mask, low, z, p) = (
                new_var(k, Type::I32),
                new_var(k, Type::I32),
                new_var(k, Type::I32),
                new_var(k, Type::I32),
                new_var(k, Type::I32),
                new_var(k, Type::Pred),
            );
            let w = new_var(k, Type::Pred);
            let park = new_block(k, vec![], PTerm::Barrier(h), loc);
            let yield_b = new_block(
                k,
                vec![inst(Op::Yield {}, vec![], vec![w], loc, false)],
                PTerm::Branch(w, park, h),
                loc,
            );
            let count_insts = vec![
                inst(Op::Const { bits: 1 }, vec![], vec![one], loc, false),
                inst(Op::IAdd {}, vec![cnt, one], vec![sum], loc, false),
                inst(Op::Bitcast {}, vec![sum], vec![cnt], loc, true),
                inst(
                    Op::Const { bits: every - 1 },
                    vec![],
                    vec![mask],
                    loc,
                    false,
                ),
                inst(Op::And {}, vec![sum, mask], vec![low], loc, false),
                inst(Op::Const { bits: 0 }, vec![], vec![z], loc, false),
                inst(
                    Op::ICmp {
                        cc: ICmp::Eq,
                        sign: Sign::Unsigned,
                    },
                    vec![low, z],
                    vec![p],
                    loc,
                    false,
                ),
            ];
            let count = new_block(k, count_insts, PTerm::Branch(p, yield_b, h), loc);
            let redirect = |t: PBlock| if t == h { count } else { t };
            k.blocks[u as usize].term = match k.blocks[u as usize].term.clone() {
                PTerm::Jump(t) => PTerm::Jump(redirect(t)),
                PTerm::Barrier(t) => PTerm::Barrier(redirect(t)),
                PTerm::Branch(c, t, e) => PTerm::Branch(c, redirect(t), redirect(e)),
                other => other,
            };
        }
    }
}
