//! The warp schedule: how a warp of 32 lanes walks a kernel's CFG, and where its state lives.
//! Both engines follow it, which is what makes them agree on divergence, reconvergence and
//! barriers.
//!
//! # Divergence model
//! Each lane is "at" exactly one block (its program counter) or has exited. The warp keeps a
//! *pending mask* per block: the lanes waiting to run it. A step of the warp picks the pending
//! block of **lowest priority number**, runs it for exactly those lanes (the execution mask),
//! and each lane's terminator adds the lane to the pending mask of its successor. Priorities
//! are a topological order of the CFG's forward edges in which every natural loop is
//! contiguous (header first) and placed before every block reachable from its exits. Hence:
//! - both sides of an `if` run before their join, where the lanes meet again (reconvergence at
//!   the join, as with immediate post-dominator reconvergence on structured code);
//! - lanes that leave a loop early wait at the exit until the last lane leaves the loop;
//! - a branch on which all active lanes agree moves the whole mask, so uniform code never splits.
//!
//! This is the "thread frontier" discipline (Diamos et al., 2011) restricted to reducible CFGs:
//! the lowering gives every multiple-entry loop a dispatcher header first (`lower::reducible`),
//! and a CFG that is still irreducible (a loop through the kernel's entry block) is rejected
//! at load time.
//!
//! # Barriers
//! A `barrier` op (`BarArrive`) records the arriving lanes in the warp's barrier record of the
//! barrier id (arrived, waiting and predicate lanes, thread count, the arriving instruction);
//! the `Barrier` terminator that follows a waiting kind *parks* the lanes at its continuation
//! block instead of making them pending. When a warp has no pending lanes left it returns to
//! the CTA scheduler (`runtime::launch`), which, once every warp has stopped, completes the
//! barriers whose arrivals are complete, moves their waiting lanes from parked to pending and
//! resumes the warps ("split at barriers"); when no barrier can complete while lanes wait, the
//! launch fails with a deadlock error instead of hanging. Parked lanes with no record (IR
//! built without a `barrier` op) wait at barrier 0 for all threads.
//!
//! Warp-level synchronization (`bar.warp.sync`, the `.sync` collectives) parks the same way:
//! a `warpsync` op records the lanes that must wait for lanes of their membermask that are
//! not executing with them (`WSYNC_*`), and the CTA scheduler releases them once every
//! non-exited lane of the membermask waits too — lanes that reached the synchronization on
//! different paths, or in different loop iterations, meet there (`runtime::warp`).
//!
//! # Warp state layout
//! One byte buffer per warp, shared by both engines (offsets in [`WarpLayout`]):
//! - `0`: `u32` mask of exited lanes; `4`: `u32` mask of lanes that exist (a partial last warp);
//!   `8`: 8 bytes of scratch for the JIT;
//! - `BAR_OFF`: 16 barrier records of `BAR_REC` bytes (`u32` fields at `BAR_*` offsets);
//! - `BAR_RESULT_OFF`: `u32` per lane, the result of the lane's last completed `bar.red`;
//! - `WSYNC_*`: the lanes waiting at a warp-level synchronization, with their membermasks;
//! - `pending_off`: `u32` pending mask per block, by priority;
//! - `parked_off`: `u32` parked mask per block, by priority;
//! - `active_off`: `u64` words, bit `k` set when block `k` may have pending lanes;
//! - register slots: each value that needs storage has a slot of 32 lanes, lane `l` of a value
//!   of `n` bytes at `slot + l*n` (structure of arrays, so a slot is a row of SIMD vectors).
//!   Values live only inside one block share scratch slots with other blocks' locals.

use super::cfg::Cfg;
use crate::ir::{Block, Function, SrcLoc, Terminator, Value};

/// Lanes per warp (`WARP_SZ`).
pub const WARP_SIZE: u32 = 32;

/// Offset of the exited-lane mask in the warp state.
pub const EXITED_OFF: u32 = 0;
/// Offset of the existing-lane mask in the warp state.
pub const LIVE_OFF: u32 = 4;

/// Offset of the 16 barrier records in the warp state.
pub const BAR_OFF: u32 = 16;
/// Number of CTA barriers (PTX ISA §9.7.13.1: ids 0..15).
pub const BAR_COUNT: u32 = 16;
/// Bytes per barrier record.
pub const BAR_REC: u32 = 32;
/// Record field: `u32` mask of lanes that arrived in the current phase.
pub const BAR_ARRIVED: u32 = 0;
/// Record field: `u32` mask of arrived lanes that wait (parked) for completion.
pub const BAR_WAITING: u32 = 4;
/// Record field: `u32` mask of arrived lanes whose `bar.red` predicate is true.
pub const BAR_PRED: u32 = 8;
/// Record field: `u32` expected thread count (0: all threads of the CTA).
pub const BAR_THREADS: u32 = 12;
/// Record field: `u32` IR instruction index + 1 of the first arrival (0: none).
pub const BAR_INST: u32 = 16;
/// Record field: `u32` flags: `BarKind::code` in bits 0..7, [`BAR_ALIGNED`], [`BAR_SPLIT`].
pub const BAR_FLAGS: u32 = 20;
/// Record field: `u32` IR instruction index + 1 of an arrival from another instruction than
/// the first (0: none), for reports.
pub const BAR_INST2: u32 = 24;
/// Record field: `u32` mask of the lanes that arrived from instructions other than the first.
pub const BAR_LANES2: u32 = 28;
/// Flag: the arrival was `.aligned` (`bar.sync`): every lane of the warp must arrive at the
/// same instruction.
pub const BAR_ALIGNED: u32 = 1 << 8;
/// Flag: lanes of this warp arrived from different instructions in this phase.
pub const BAR_SPLIT: u32 = 1 << 9;
/// Offset of the per-lane `u32` results of the last completed `bar.red`.
pub const BAR_RESULT_OFF: u32 = BAR_OFF + BAR_COUNT * BAR_REC;
/// Offset of the `u32` mask of lanes waiting at a warp-level synchronization (`warpsync` op:
/// `bar.warp.sync` or a `.sync` collective); they are parked like barrier waiters.
pub const WSYNC_WAIT_OFF: u32 = BAR_RESULT_OFF + 4 * WARP_SIZE;
/// Offset of the per-lane `u32` membermask of each waiting lane.
pub const WSYNC_MASK_OFF: u32 = WSYNC_WAIT_OFF + 16;
/// Offset of the per-lane `u32` IR instruction index + 1 each waiting lane waits at.
pub const WSYNC_INST_OFF: u32 = WSYNC_MASK_OFF + 4 * WARP_SIZE;
/// End of the fixed warp-state header.
pub const HEADER_END: u32 = WSYNC_INST_OFF + 4 * WARP_SIZE;

/// Offset of field `field` of the record of barrier `id`.
pub const fn bar_field(id: u32, field: u32) -> u32 {
    BAR_OFF + id * BAR_REC + field
}

/// An error found while scheduling (the CFG shape is not supported).
#[derive(Debug, Clone)]
pub struct ScheduleError {
    pub message: String,
    pub loc: SrcLoc,
}

/// Block priorities and the warp-state layout of one kernel.
#[derive(Debug, Clone)]
pub struct WarpLayout {
    /// Reachable blocks in priority order.
    pub order: Vec<Block>,
    /// Priority of each block (`u32::MAX` when unreachable), indexed by [`Block`].
    pub prio: Vec<u32>,
    /// Byte offset of each value's 32-lane slot (`u32::MAX`: none), indexed by [`Value`].
    pub slot: Vec<u32>,
    pub pending_off: u32,
    pub parked_off: u32,
    pub active_off: u32,
    /// Number of `u64` words in the active bitset.
    pub active_words: u32,
    /// Total size of the warp state in bytes (a multiple of 16).
    pub size: u32,
    /// Bytes per lane of a predicate slot.
    pub pred_bytes: u32,
    /// Where each block is, for reports (time limits, deadlocks), by priority: the fault-record
    /// index (`runtime::env::terminator_fault_index` numbering) of the block's first
    /// instruction, or of its terminator when it has none.
    pub block_site: Vec<u32>,
    /// Priorities of the blocks a barrier terminator continues at, ascending: the only blocks
    /// whose parked masks can be non-zero.
    pub barrier_targets: Vec<u32>,
    /// Barrier ids whose records can be in use, a bit per id: the constant ids of the
    /// kernel's `barrier` operations and id 0 (where lanes parked without a record wait);
    /// every id when one is not a constant.
    pub bar_ids: u32,
}

impl WarpLayout {
    /// Offset of the pending mask of the block with priority `p`.
    pub fn pending(&self, p: u32) -> u32 {
        self.pending_off + 4 * p
    }

    /// Offset of the parked mask of the block with priority `p`.
    pub fn parked(&self, p: u32) -> u32 {
        self.parked_off + 4 * p
    }
}

/// Compute block priorities and the state layout (predicates take 1 byte per lane).
pub fn schedule(f: &Function) -> Result<WarpLayout, ScheduleError> {
    schedule_with(f, 1, &[])
}

/// As [`schedule`], with predicate slots of `pred_bytes` bytes per lane (the JIT keeps
/// predicates as 32-bit lanes so they load straight into SIMD masks), and dedicated (never
/// shared) slots for the values marked in `dedicated` (indexed by [`Value`]; shorter slices
/// mark nothing beyond their end).
pub fn schedule_with(
    f: &Function,
    pred_bytes: u32,
    dedicated: &[bool],
) -> Result<WarpLayout, ScheduleError> {
    let (order, prio) = priorities(f)?;
    let nb = order.len() as u32;

    // Header, pending, parked, active words.
    let pending_off = HEADER_END;
    let parked_off = pending_off + 4 * nb;
    let active_off = align16(parked_off + 4 * nb);
    let active_words = nb.div_ceil(64).max(1);
    let mut top = align16(active_off + 8 * active_words);

    // Which values need a slot and whether they cross blocks.
    let mut def_block = vec![u32::MAX; f.values.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for &p in &b.params {
            def_block[p.index()] = bi as u32;
        }
        for &i in &b.insts {
            for &r in &f.inst(i).results {
                def_block[r.index()] = bi as u32;
            }
        }
    }
    let mut cross = vec![false; f.values.len()];
    let mut used = vec![false; f.values.len()];
    let mut last_use: Vec<(u32, usize)> = vec![(u32::MAX, 0); f.values.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        if prio[bi] == u32::MAX {
            continue;
        }
        for &p in &b.params {
            cross[p.index()] = true;
        }
        let mut mark = |v: Value, pos: usize, cross: &mut Vec<bool>| {
            used[v.index()] = true;
            if def_block[v.index()] != bi as u32 {
                cross[v.index()] = true;
            }
            last_use[v.index()] = (bi as u32, pos);
        };
        for (k, &i) in b.insts.iter().enumerate() {
            for &a in &f.inst(i).args {
                mark(a, k, &mut cross);
            }
        }
        let end = b.insts.len();
        if let Terminator::Branch { cond, .. } = &b.term {
            mark(*cond, end, &mut cross);
        }
        for c in b.term.targets() {
            for &a in &c.args {
                mark(a, end, &mut cross);
            }
        }
    }
    let lane_bytes = |v: Value| match f.value_type(v) {
        crate::ir::Type::Pred => pred_bytes,
        t => t.bytes(),
    };
    let slot_bytes = |v: Value| align16(lane_bytes(v) * WARP_SIZE);
    let mut slot = vec![u32::MAX; f.values.len()];
    for v in 0..f.values.len() {
        if dedicated.get(v).copied().unwrap_or(false) && def_block[v] != u32::MAX {
            cross[v] = true;
        }
        if cross[v] && def_block[v] != u32::MAX && prio[def_block[v] as usize] != u32::MAX {
            slot[v] = top;
            top += slot_bytes(Value(v as u32));
        }
    }
    // Block-local values: scratch slots reused after their last use and across blocks.
    let scratch_base = top;
    let mut scratch_end = top;
    for (bi, b) in f.blocks.iter().enumerate() {
        if prio[bi] == u32::MAX {
            continue;
        }
        let mut free: Vec<(u32, u32)> = vec![]; // (offset, size)
        let mut next = scratch_base;
        let mut live: Vec<Value> = vec![];
        for (k, &i) in b.insts.iter().enumerate() {
            // Free the slots of values whose last use was before this instruction... but a
            // result must not share a slot with an operand of the same instruction, so free
            // only values last used strictly before position k.
            live.retain(|&v| {
                let (lb, lp) = last_use[v.index()];
                if lb == bi as u32 && lp < k {
                    free.push((slot[v.index()], slot_bytes(v)));
                    false
                } else {
                    true
                }
            });
            for &r in &f.inst(i).results {
                let ri = r.index();
                if cross[ri] {
                    continue;
                }
                // Results that are never used still get a slot: engines write them.
                let size = slot_bytes(r);
                let off = match free.iter().position(|&(_, s)| s == size) {
                    Some(p) => free.swap_remove(p).0,
                    None => {
                        let o = next;
                        next += size;
                        o
                    }
                };
                slot[ri] = off;
                if used[ri] {
                    live.push(r);
                } else {
                    free.push((off, size));
                }
            }
        }
        scratch_end = scratch_end.max(next);
    }
    let size = align16(scratch_end);
    let block_site = order.iter().map(|&b| site(f, b)).collect();
    let mut barrier_targets: Vec<u32> = order
        .iter()
        .filter_map(|&b| match &f.block(b).term {
            Terminator::Barrier { next } => Some(prio[next.block.index()]),
            _ => None,
        })
        .filter(|&p| p != u32::MAX)
        .collect();
    barrier_targets.sort_unstable();
    barrier_targets.dedup();
    let all_ids = ((1u64 << BAR_COUNT) - 1) as u32;
    let mut bar_ids = 1u32;
    for i in 0..f.insts.len() {
        let d = f.inst(crate::ir::Inst(i as u32));
        if !matches!(d.op, crate::ir::Op::BarArrive { .. }) {
            continue;
        }
        let id = d
            .args
            .first()
            .and_then(|&a| f.const_bits(a))
            .filter(|&id| id < u64::from(BAR_COUNT));
        bar_ids |= id.map_or(all_ids, |id| 1 << id);
    }
    Ok(WarpLayout {
        bar_ids,
        block_site,
        barrier_targets,
        order,
        prio,
        slot,
        pending_off,
        parked_off,
        active_off,
        active_words,
        size,
        pred_bytes,
    })
}

/// The reachable blocks in priority order, and the priority of each block (`u32::MAX` when
/// unreachable), indexed by [`Block`] (see the module docs). Errors: irreducible control flow.
pub fn priorities(f: &Function) -> Result<(Vec<Block>, Vec<u32>), ScheduleError> {
    let cfg = Cfg::new(f);
    let back = cfg.back_edges().map_err(|(b, h)| ScheduleError {
        message: format!(
            "irreducible control flow: a branch at the end of the block near line {} enters a loop \
             at line {} other than through its header",
            f.block(b).term_loc.line,
            first_line(f, h)
        ),
        loc: f.block(b).term_loc,
    })?;
    let loops = cfg.loops(&back);
    let n = f.blocks.len();
    let all: Vec<bool> = (0..n).map(|b| cfg.reachable(Block(b as u32))).collect();
    let mut order = Vec::with_capacity(n);
    order_region(&cfg, &loops, &all, f.entry, None, &mut order);
    let mut prio = vec![u32::MAX; n];
    for (i, b) in order.iter().enumerate() {
        prio[b.index()] = i as u32;
    }
    Ok((order, prio))
}

/// The report site of block `b`: its first instruction, else its terminator when that has a
/// location; an empty block without one (a fall-through into a label) reports where its jump
/// leads, followed a few steps.
fn site(f: &Function, mut b: Block) -> u32 {
    for _ in 0..8 {
        let bd = f.block(b);
        if let Some(i) = bd.insts.first() {
            return i.0;
        }
        match &bd.term {
            Terminator::Jump(c) if bd.term_loc.line == 0 => b = c.block,
            _ => break,
        }
    }
    (f.insts.len() + b.index()) as u32
}

fn align16(x: u32) -> u32 {
    (x + 15) & !15
}

fn first_line(f: &Function, b: Block) -> u32 {
    let bd = f.block(b);
    bd.insts
        .first()
        .map(|&i| f.inst_locs[i.index()].line)
        .unwrap_or(bd.term_loc.line)
}

/// Append the blocks of a region (the whole function, or one loop body with `header`) to
/// `out` in priority order: a topological order of the region's forward edges in which each
/// inner loop is collapsed to one node and then expanded recursively.
fn order_region(
    cfg: &Cfg,
    loops: &[(Block, Vec<bool>)],
    region: &[bool],
    start: Block,
    header: Option<Block>,
    out: &mut Vec<Block>,
) {
    let n = region.len();
    let size = |body: &Vec<bool>| body.iter().filter(|&&x| x).count();
    // Inner loops of this region: loops whose body is inside the region, other than the region
    // itself. The representative of a block is the header of the outermost such loop holding it.
    let inner: Vec<&(Block, Vec<bool>)> = loops
        .iter()
        .filter(|(h, body)| {
            Some(*h) != header && region[h.index()] && (0..n).all(|b| !body[b] || region[b])
        })
        .collect();
    let mut rep: Vec<Block> = (0..n).map(|b| Block(b as u32)).collect();
    let mut rep_size = vec![usize::MAX; n];
    for (h, body) in &inner {
        let s = size(body);
        for b in 0..n {
            if body[b] && (rep_size[b] == usize::MAX || s > rep_size[b]) {
                rep[b] = *h;
                rep_size[b] = s;
            }
        }
    }
    // Collapsed graph over representatives, by Kahn's algorithm with RPO tie-breaking.
    let mut indeg = vec![0usize; n];
    let mut edges: Vec<Vec<Block>> = vec![vec![]; n];
    for b in 0..n {
        if !region[b] {
            continue;
        }
        for &s in &cfg.succs[b] {
            if !region[s.index()] || Some(s) == header {
                continue;
            }
            let (rb, rs) = (rep[b], rep[s.index()]);
            if rb != rs && !edges[rb.index()].contains(&rs) {
                edges[rb.index()].push(rs);
                indeg[rs.index()] += 1;
            }
        }
    }
    let mut ready: Vec<Block> = vec![rep[start.index()]];
    let mut emitted = vec![false; n];
    while !ready.is_empty() {
        // Pick the ready node earliest in RPO.
        let (k, _) = ready
            .iter()
            .enumerate()
            .min_by_key(|(_, b)| cfg.rpo_index[b.index()])
            .unwrap_or((0, &start));
        let node = ready.swap_remove(k);
        if emitted[node.index()] {
            continue;
        }
        emitted[node.index()] = true;
        if let Some((h, body)) = inner.iter().find(|(h, _)| *h == node).map(|l| (l.0, &l.1)) {
            order_region(cfg, loops, body, h, Some(h), out);
        } else {
            out.push(node);
        }
        for &s in &edges[node.index()] {
            indeg[s.index()] -= 1;
            if indeg[s.index()] == 0 {
                ready.push(s);
            }
        }
    }
}
