//! Regions: runs of blocks that each group of lanes runs through entirely before the next
//! group, under group-major order. Both engines follow this rule, so they agree bit for bit
//! even on code whose result depends on the interleaving of lanes across blocks.
//!
//! # Model
//! Without regions a warp runs block by block (`analysis::schedule`): the pending block of
//! lowest priority runs for all its lanes, group by group (`analysis::segment`), and only
//! then does any lane move on to the next block. Under [`WarpOrder::GroupMajor`]
//! (independent thread scheduling, `.target sm_70` and later) lanes need not wait for each
//! other between warp-synchronous points, so a **region** — a run of blocks consecutive in
//! priority order — is run **group by group across its blocks**:
//!
//! ```text
//! mask = pending[head]; pending[head] = 0
//! for g in 0..8 (groups with a lane in mask, lanes 4g..4g+3):
//!     m[head] = the group's lanes of mask; m[b] = 0 for the other blocks of the region
//!     for b in the region's blocks, in priority order, with m[b] != 0:
//!         run b's instructions for the lanes of m[b] (each instruction for the group's
//!         lanes, lowest first, before the next — as a segment);
//!         each lane's terminator: into a block of the region (never the head) → m[target],
//!         out of the region (or back to the head) → pending[target] (block parameters
//!         written as at any terminator), `exit` → exited
//! ```
//!
//! Each lane still runs its own instructions in program order, and lanes of a group run
//! each instruction together, so this is one of the interleavings independent thread
//! scheduling allows. What other lanes can observe changes only across groups: lanes 0-3
//! may run the guarded body and the join of an `if` before lanes 4-7 evaluate its condition.
//!
//! # Which blocks form a region
//! Regions are made greedily along the priority order. Block `b` (priority `p`) can be in a
//! region at all when it has no warp operation (`Effect::Warp`: collectives, barriers,
//! `bar.warp.sync`, textures …) and its terminator is a jump, a branch or `exit` (no
//! barrier, which parks lanes, and no `trap`). A region starts at such a block (its
//! **head**) and takes in the block of the next priority while that block can be in a
//! region, lies in the same loops as the head (regions are acyclic and never span a loop
//! exit or entry), and has all its predecessors in the region already (one entry: lanes
//! reach the region's other blocks only through the head, in the same pass), up to
//! [`MAX_BLOCKS`] blocks. A region of one
//! block is no region: the block runs as before. Under [`WarpOrder::Lockstep`] there are no
//! regions, nor when the environment sets `PTXJIT_NO_REGIONS=1` (for measurements and
//! diagnosis: both engines then run block by block, as before regions).
//!
//! Since all predecessors of a non-head block precede it in the region, the region's edges
//! go forward in priority order (but for a loop region's back edges, below), and a non-head
//! block never has pending lanes between passes (nothing outside the region leads to it;
//! barrier continuations are never non-head blocks, as their predecessor ends in a barrier).
//!
//! # Loop regions
//! A region may also be a whole innermost loop, so that a group of lanes runs all its trips
//! before the next group starts rather than each trip going back through the warp's
//! dispatcher for the eight groups in turn. Where the block at priority `p` is the header of
//! a natural loop (`Cfg::loops`) that holds no other loop, whose blocks are the priorities
//! `p..p + n` (`n` ≤ [`MAX_BLOCKS`], one block allowed), each of which can be in a region,
//! and none of which has an `Effect::Memory` operation or a clock read (see `unordered` for why), these
//! blocks form a **loop region** ([`Regions::looped`]). Its pass differs from the one above
//! only in what happens to the lanes that take a back edge to the head: they form the head's
//! mask of the group's next pass (block parameters written as at any edge), and passes
//! repeat until no lane of the group is back at the head:
//!
//! ```text
//! for g in 0..8 (groups with a lane in mask):
//!     m[head] = the group's lanes of mask
//!     while m[head] != 0:
//!         m[b] = 0 for the other blocks; run the pass as above, except that lanes going
//!         to the head join m'[head]; then m[head] = m'[head]
//!         (launch aborted and m[head] != 0: those lanes → pending[head]; next group)
//! ```
//!
//! Loop regions are made unless the environment sets `PTXJIT_LOOP_REGIONS=0` (or another
//! off word). The JIT runs four groups' passes side by side (`jit::region`), so that their
//! dependency chains through the loop overlap as the eight groups' chains of a trip did
//! block by block (docs/performance.md, "Loop regions").
//!
//! Lanes leaving the loop become pending at their targets as from any region. The abort
//! test between passes is the dispatcher's before each block: a fault elsewhere, or an
//! endless loop stopped from outside, still ends the warp. Within a group, the lanes at the
//! head in one pass have all run the same number of trips, as under the dispatcher. Across
//! groups, only memory could tell the orders apart, and a loop region has no access.
//! Loops with accesses (sgemm's inner product) run as before; with them the JIT's passes
//! lacked its block code's access forms (see `unordered`).

use super::cfg::Cfg;
use super::segment::WarpOrder;
use crate::ir::{Block, Effect, Function, MemSync, Op, Terminator};

/// Whether `PTXJIT_NO_REGIONS` turns regions off (`crate::switches`).
fn disabled() -> bool {
    crate::switches::switches().no_regions
}

/// Most blocks in one region (the engines keep a lane mask per block of a region: the
/// interpreter in a fixed array, the JIT in registers).
pub const MAX_BLOCKS: usize = 32;

/// The regions of a kernel, by block priority (`analysis::schedule`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Regions {
    /// For each priority: the number of blocks of the region it heads (priorities
    /// `p..p + len[p]`), at least 2; 0 for blocks that head no region (inside one, or on
    /// their own).
    pub len: Vec<u32>,
    /// For each priority: the priority of the head of the region holding it (`u32::MAX`:
    /// none).
    pub head: Vec<u32>,
    /// For each head priority: how many blocks at the start of its region every lane that
    /// enters it runs — the head and the blocks it jumps to unconditionally, each the only
    /// way into the next (0 for blocks that head no region). Their lane masks are the
    /// head's.
    pub lead: Vec<u32>,
    /// For each priority: whether it heads a **loop region** (see the module doc): its blocks
    /// are exactly an innermost loop's, and each group runs passes over them until none of
    /// its lanes takes a back edge. Such a region may have a single block (`len` 1).
    pub looped: Vec<bool>,
}

impl Regions {
    /// The regions of `f` under `order`; `blocks` are the reachable blocks in priority order
    /// and `prio` each block's priority (`schedule::priorities`).
    pub fn new(f: &Function, blocks: &[Block], prio: &[u32], order: WarpOrder) -> Regions {
        let loops = crate::switches::switches().loop_regions;
        Regions::build(f, blocks, prio, order, loops)
    }

    /// [`Regions::new`], with loop regions where `with_loops` (`PTXJIT_LOOP_REGIONS`).
    fn build(
        f: &Function,
        blocks: &[Block],
        prio: &[u32],
        order: WarpOrder,
        with_loops: bool,
    ) -> Regions {
        let nb = blocks.len();
        let mut len = vec![0u32; nb];
        let mut lead = vec![0u32; nb];
        let mut looped = vec![false; nb];
        if order == WarpOrder::Lockstep || disabled() {
            return Regions::from_len(len, lead, looped);
        }
        let cfg = Cfg::new(f);
        // The loops each block lies in (natural loops of the back edges; the schedule has
        // already rejected irreducible control flow, so none is missed).
        let loops = match cfg.back_edges() {
            Ok(back) => cfg.loops(&back),
            Err(_) => return Regions::from_len(len, lead, looped),
        };
        let loops_of =
            |b: Block| -> Vec<bool> { loops.iter().map(|(_, body)| body[b.index()]).collect() };
        let eligible = |b: Block| -> bool {
            let bd = f.block(b);
            let plain_term = match bd.term {
                Terminator::Jump(_) | Terminator::Branch { .. } | Terminator::Exit => true,
                Terminator::Barrier { .. } | Terminator::Trap => false,
            };
            plain_term
                && bd
                    .insts
                    .iter()
                    .all(|&i| f.inst(i).op.effect() != Effect::Warp)
        };
        let lead_of = |p: usize, end: usize| -> u32 {
            let mut k = p + 1;
            while k < end {
                let (prev, b) = (blocks[k - 1], blocks[k]);
                let jumps = matches!(&f.block(prev).term, Terminator::Jump(c) if c.block == b);
                if !(jumps && cfg.preds[b.index()] == [prev]) {
                    break;
                }
                k += 1;
            }
            (k - p) as u32
        };
        // A loop region at `p`: the blocks of the innermost loop headed by `blocks[p]`, when
        // they are the next priorities, can all be in a region and keep no other group's
        // write from being awaited (`unordered`).
        let loop_region = |p: usize| -> Option<usize> {
            if !with_loops {
                return None;
            }
            let head = blocks[p];
            let (_, body) = loops.iter().find(|(h, _)| *h == head)?;
            let n = body.iter().filter(|&&x| x).count();
            let innermost = loops.iter().all(|(h, _)| *h == head || !body[h.index()]);
            let consecutive = p + n <= nb && blocks[p..p + n].iter().all(|b| body[b.index()]);
            (innermost
                && consecutive
                && n <= MAX_BLOCKS
                && blocks[p..p + n]
                    .iter()
                    .all(|&b| eligible(b) && unordered(f, b)))
            .then_some(n)
        };
        let mut p = 0usize;
        while p < nb {
            let head = blocks[p];
            if !eligible(head) {
                p += 1;
                continue;
            }
            if let Some(n) = loop_region(p) {
                len[p] = n as u32;
                lead[p] = lead_of(p, p + n);
                looped[p] = true;
                p += n;
                continue;
            }
            let head_loops = loops_of(head);
            let mut end = p + 1;
            while end < nb && end - p < MAX_BLOCKS {
                let b = blocks[end];
                let preds_in = cfg.preds[b.index()].iter().all(|&q| {
                    let qp = prio[q.index()];
                    qp != u32::MAX && (p as u32..end as u32).contains(&qp)
                });
                if !(preds_in && eligible(b) && loops_of(b) == head_loops) {
                    break;
                }
                end += 1;
            }
            if end - p >= 2 {
                len[p] = (end - p) as u32;
                lead[p] = lead_of(p, end);
            }
            p = end;
        }
        Regions::from_len(len, lead, looped)
    }

    /// The same regions less those `keep` rejects (called with each region's priorities):
    /// the blocks of a rejected region run on their own, block by block. Only an engine
    /// for which that order is indistinguishable from the region's may use this (the JIT's
    /// regions of pure blocks that every lane passes the same way, `jit::codegen::plan`).
    pub fn retain(&self, mut keep: impl FnMut(std::ops::Range<u32>) -> bool) -> Regions {
        let mut len = self.len.clone();
        let mut lead = self.lead.clone();
        let mut looped = self.looped.clone();
        for h in 0..len.len() {
            if self.is_region(h as u32) && !keep(h as u32..h as u32 + len[h]) {
                len[h] = 0;
                lead[h] = 0;
                looped[h] = false;
            }
        }
        Regions::from_len(len, lead, looped)
    }

    fn from_len(len: Vec<u32>, lead: Vec<u32>, looped: Vec<bool>) -> Regions {
        let mut head = vec![u32::MAX; len.len()];
        for (h, &n) in len.iter().enumerate() {
            if n >= 2 || looped[h] {
                for x in &mut head[h..h + n as usize] {
                    *x = h as u32;
                }
            }
        }
        Regions {
            len,
            head,
            lead,
            looped,
        }
    }

    /// Whether `p` heads a region (of two blocks or more, or a loop region).
    pub fn is_region(&self, p: u32) -> bool {
        let p = p as usize;
        self.len.get(p).is_some_and(|&n| n >= 2) || self.looped.get(p).copied().unwrap_or(false)
    }

    /// Whether `p` heads a loop region.
    pub fn is_loop(&self, p: u32) -> bool {
        self.looped.get(p as usize).copied().unwrap_or(false)
    }

    /// The priorities of the region headed by `p` (`p..p + 1` for a block on its own, or a
    /// loop region of one block; empty for a block inside another block's region).
    pub fn blocks_of(&self, p: u32) -> std::ops::Range<u32> {
        match self.len.get(p as usize) {
            Some(&n) if self.is_region(p) => p..p + n,
            _ if self.inside(p) => p..p,
            _ => p..p + 1,
        }
    }

    /// Whether `p` is in the lead of its region (see [`Regions::lead`]; the head included).
    pub fn in_lead(&self, p: u32) -> bool {
        self.head_of(p)
            .is_some_and(|h| p < h + self.lead[h as usize])
    }

    /// Whether `p` is a non-head block of some region.
    pub fn inside(&self, p: u32) -> bool {
        self.head_of(p).is_some_and(|h| h != p)
    }

    /// The head of the region holding priority `p`, if any.
    pub fn head_of(&self, p: u32) -> Option<u32> {
        self.head
            .get(p as usize)
            .copied()
            .filter(|&h| h != u32::MAX)
    }
}

/// Whether block `b` of `f` has no memory access, fence or atomic (no `Effect::Memory`
/// operation) and reads no clock (`SReg::is_clock`), as a loop region's blocks must have.
///
/// A loop region runs one group's passes to the end before the next group starts, so a loop
/// spinning until another group of its warp writes (through an atomic, a fence, or a strong
/// `.volatile`/`.relaxed`/`.acquire` load) would never end; those must stay out. Weak loads
/// and stores could be let in (the memory model does not promise that a loop of weak loads
/// ever sees another thread's write, PTX ISA §8), but the JIT's region passes do not yet
/// have the forms its block code has for accesses in loops (group-level and full-warp
/// versions with hoisted checks): with them, sgemm_naive's inner loop ran 3.4 times the
/// instructions per launch. Loops with any memory operation therefore run block by block as
/// before.
fn unordered(f: &Function, b: Block) -> bool {
    f.block(b).insts.iter().all(|&i| {
        // Warp operations keep a block out of any region (`eligible`).
        let access = match f.inst(i).op.effect() {
            Effect::Pure | Effect::Warp => false,
            Effect::Memory => true,
        };
        // A clock read runs in a block's scalar section, which the JIT computes once at the
        // region's top (`jit::region`): in a loop region a loop polling the clock would
        // never see it move.
        let clock = matches!(f.inst(i).op, Op::SReg { reg } if reg.is_clock());
        !access && !clock && f.inst_sync[i.index()] == MemSync::None
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::schedule::priorities;

    /// The regions of `kernel` in ptx-tests/kernels/regions/regions.ptx: (head priority,
    /// blocks, lead) for each region.
    fn regions_of(kernel: &str, order: WarpOrder) -> Vec<(u32, u32, u32)> {
        let ptx = include_str!("../../ptx-tests/kernels/regions/regions.ptx");
        let (_, fs) = crate::host::front_end(ptx, "regions.ptx").expect("front end");
        let f = fs.iter().find(|f| f.name == kernel).expect("kernel");
        let (blocks, prio) = priorities(f).expect("schedules");
        let r = Regions::new(f, &blocks, &prio, order);
        (0..blocks.len() as u32)
            .filter(|&p| r.len[p as usize] >= 2)
            .map(|p| (p, r.len[p as usize], r.lead[p as usize]))
            .collect()
    }

    #[test]
    fn guard_body_and_join_form_one_region() {
        // ifelse: no loop, no warp operation: every reachable block is in the region at
        // priority 0; the lead is the entry's jump into the guard's block.
        let got = regions_of("ifelse", WarpOrder::GroupMajor);
        assert_eq!(got.len(), 1, "{got:?}");
        let (head, len, lead) = got[0];
        assert_eq!(head, 0);
        assert!(
            len >= 6,
            "guard, two ifs, their joins and the exit: {got:?}"
        );
        assert_eq!(lead, 2, "the entry block and the guard's block: {got:?}");
    }

    #[test]
    fn a_loop_ends_a_region() {
        // into_loop: the guard's region stops at the loop header (it has a back edge); the
        // loop's own blocks lie in another loop nest than what follows the loop.
        let got = regions_of("into_loop", WarpOrder::GroupMajor);
        let (head, len, _) = *got.first().expect("the guard's region");
        assert_eq!(head, 0);
        let ptx = include_str!("../../ptx-tests/kernels/regions/regions.ptx");
        let (_, fs) = crate::host::front_end(ptx, "regions.ptx").expect("front end");
        let f = fs.iter().find(|f| f.name == "into_loop").expect("kernel");
        let (blocks, _) = priorities(f).expect("schedules");
        let cfg = Cfg::new(f);
        let back = cfg.back_edges().expect("reducible");
        for &b in &blocks[..len as usize] {
            assert!(
                back.iter().all(|&(_, h)| h != b),
                "a loop header in the region: {got:?}"
            );
        }
    }

    #[test]
    fn lockstep_has_no_regions() {
        assert!(regions_of("ifelse", WarpOrder::Lockstep).is_empty());
        assert!(regions_of("racy_order", WarpOrder::Lockstep).is_empty());
    }

    /// The loop regions of `kernel` in ptx-tests/kernels/loop_region/loop_region.ptx: (head
    /// priority, blocks) for each.
    fn loop_regions_of(kernel: &str, order: WarpOrder) -> Vec<(u32, u32)> {
        let ptx = include_str!("../../ptx-tests/kernels/loop_region/loop_region.ptx");
        let (_, fs) = crate::host::front_end(ptx, "loop_region.ptx").expect("front end");
        let f = fs.iter().find(|f| f.name == kernel).expect("kernel");
        let (blocks, prio) = priorities(f).expect("schedules");
        let r = Regions::build(f, &blocks, &prio, order, true);
        (0..blocks.len() as u32)
            .filter(|&p| r.is_loop(p))
            .map(|p| (p, r.len[p as usize]))
            .collect()
    }

    #[test]
    fn innermost_loops_without_memory_accesses_are_loop_regions() {
        // mixed: one loop of two blocks (the early exit's branch ends the first).
        let got = loop_regions_of("mixed", WarpOrder::GroupMajor);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].1, 2, "{got:?}");
        // nested: the inner loop only (the outer one holds it).
        let got = loop_regions_of("nested", WarpOrder::GroupMajor);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].1, 1, "{got:?}");
        // written: its loop stores to memory.
        assert!(loop_regions_of("written", WarpOrder::GroupMajor).is_empty());
        assert!(loop_regions_of("mixed", WarpOrder::Lockstep).is_empty());
    }
}
