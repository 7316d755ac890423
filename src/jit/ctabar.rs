//! Uniform `bar.sync` completed inside the generated call: the arrival of a whole warp as a
//! few inline stores, and at the end of the warp loop an inline completion test and release,
//! after which the call runs the next round (the warp loop from turn 0) instead of returning
//! to the CTA scheduler (`runtime::launch::run_cta`).
//!
//! # Soundness
//! The CTA scheduler's one-pass completion (`launch::complete_uniform`) completes a barrier
//! when, with every warp stopped: no lane waits at a warp-level synchronization
//! (`WSYNC_WAIT_OFF`); every warp with non-exited lanes has exactly those lanes arrived,
//! waiting and parked at one barrier id with one thread count, with no `BAR_SPLIT` and no
//! other barrier record in use; the count is 0 or 32 × the number of such warps; and no
//! exited warp holds a record. It then, per warp, moves every barrier target's parked lanes
//! to pending (setting the target's active bit), writes `bar.red` results and clears the
//! barrier's record. This file establishes those conditions by construction, for one case:
//!
//! - **Full arrival** (`Gen::gen_bar_full`): a `bar.sync` (kind `Sync`) whose id is a
//!   constant, whose thread count and predicate are scalars, which is the last instruction of
//!   its block (the `Barrier` terminator follows and parks the block's lanes), reached by
//!   every non-exited lane of the warp at once (`mask == LIVE & !EXITED`), with the record
//!   of that id empty (`ARRIVED == WAITING == 0`), no other record of `bar_ids` in use and
//!   no lane at a warp-level synchronization, and a valid count (a multiple of 32). Its
//!   effect is that of `runtime::warp::bar_arrive_mask` in that state (the helper's fields,
//!   stored inline). Every other arrival calls the helper as before and is not counted.
//!   After a full arrival the warp's lanes are all parked at the barrier's target (parked
//!   lanes were none: they exist and are not in the mask), so no lane of it is pending and
//!   it runs no further in this pass of the warp loop: it satisfies the per-warp conditions
//!   above, and nothing else writes its state before the pass ends.
//! - **Count**: each full arrival adds one to a per-pass count in a stack slot and its key
//!   `threads | id` (a count is a multiple of 32, an id below 16, so the key names both) to
//!   the pass's OR and AND of keys; the two are equal after at least one arrival exactly
//!   when every arrival of the pass had the same key. A warp makes at most one full arrival
//!   per pass, so a count equal to the number of warps with equal OR and AND means every
//!   warp arrived fully at one barrier: no warp is exited (a warp with no non-exited lane
//!   cannot arrive), and all the conditions hold.
//! - **Completion** (`Gen::gen_round_end`, at the end of each pass): when the scheduler
//!   allows it (`CtaEnv::complete_in_call`: the call covers the whole CTA in warp order, no
//!   synccheck, racecheck or pausing schedule), the count equals the number of warps and the
//!   thread count is 0 or 32 × that number, every warp gets `complete_uniform`'s release
//!   (there are no `bar.red` results: kind `Sync`), the count is reset and the warp loop
//!   starts again; otherwise the call returns and the scheduler decides as before (a warp
//!   that exited, a named barrier for fewer warps, divergent arrivals, deadlocks).
//! - **One target** (`Gen::gen_release_one`): each full arrival also sets the bit of its
//!   barrier target (the `Barrier` terminator's block) in the pass's targets. When the pass
//!   completes with one bit there, every warp's non-exited lanes are parked at that one
//!   target and no lane is parked at another (each warp's lanes were all in its full
//!   arrival's mask), so `complete_uniform`'s release touches that target's masks and
//!   active bit only, and the release does just that (the active bit unconditionally: the
//!   warp's parked lanes are never none). With two or more bits the release is the general
//!   one over every target.
//! - **Release at the turn** (`Gen::gen_resume`): the one-target release is not made in a
//!   loop over the warps at the pass's end; the pass's end clears each warp's record and
//!   parked lanes (stores only), notes the target and the record (`RESUME`, `REC`) and
//!   starts the next pass, and each warp's turn starts with the rest of its part of the
//!   release (its non-exited lanes, which were the parked ones, taken) and the
//!   dispatcher's pick in one: the target is the only block of the warp with lanes, so the dispatcher would
//!   pick it first. Where no active bit of the warp up to the target's is set (bits of
//!   empty pending masks that a turn left may be set after it: the dispatcher would pick
//!   the target first and leave them) and the launch is not aborted, the lanes go straight
//!   into the target's block (`Gen::goto_prio_first`, or through its pending mask and entry
//!   where a loop follows, `loop_ahead`); otherwise they become pending with the target's
//!   active bit, as the release leaves them, and the dispatcher runs. Every turn of the pass passes its
//!   start once, so every warp is released before the next pass's end. The one return
//!   inside a pass, the dispatcher's abort return, first makes the releases of the warps
//!   after the current one (`Gen::gen_abort_release`; the current warp's was made at its
//!   turn's start), so the CTA scheduler finds every warp as the release in the loop would
//!   have left it.
//!
//! - **Turn end**: a full arrival whose `Barrier` terminator passes no block arguments parks
//!   the lanes itself and ends the warp's turn (`Gen::turn_end`) without the dispatcher's
//!   scan: no lane of the warp is pending (all were in the arrival's mask). Bits of the
//!   active bitset left set for empty pending masks stay for the warp's next turn, whose
//!   dispatcher clears them as it would have now; the abort flag is read again at the next
//!   warp's dispatch, or at the next pass's first, or the call returns.
//!
//! # Tests the lanes imply
//! The full arrival's lane test (`mask == LIVE & !EXITED`: every non-exited lane of the warp
//! runs the block) implies some of its state tests, which `arrival_tests` leaves out:
//!
//! - **Records**: in a kernel whose every `barrier` operation waits (no `bar.arrive`) and is
//!   the last instruction of a block with a `Barrier` terminator, a lane in a record's
//!   arrived (or waiting) lanes is parked at a barrier until the release that clears the
//!   whole record (`launch::complete_uniform`, the scheduler's other completions, the round
//!   end and the release at the turn above; the scheduler's record for lanes parked without
//!   a `barrier` operation is cleared the same way). A parked lane is neither exited nor in
//!   the mask of a block that runs, so a non-empty record of any id fails the lane test.
//! - **Warp-level synchronization**: a kernel without a warp operation other than the
//!   barrier operations (`jit::cross_lane`) never writes `WSYNC_WAIT_OFF`, which keeps the
//!   zero its states were made with (the reasoning of `jit::zeroed_ranges`).
//!
//! # Deferred arrivals
//! Where every warp of the CTA arrives fully at one `bar.sync` in a pass, nothing of the
//! arrival needs to be in the warp states while the call runs on: the next pass releases
//! every warp at its turn (above). It is written there only where the call returns:
//!
//! - **Deferred arrival**: in a kernel whose turns start with the release, a full arrival
//!   at a [`Site`] (a `bar.sync` with a constant thread count and predicate whose `Barrier`
//!   terminator passes no block arguments, so that the arrival ends the turn; at most
//!   [`MAX_SITES`] of them) sets the turn's bit in the site's word of [`LAZY`] and ends the
//!   turn: no record field, count, key or parked lane is written. Its test is the full
//!   arrival's; a turn past the 32nd takes the helper.
//! - **Completion** (`Gen::gen_round_end`): a pass in which one site's word holds every
//!   turn of the call, whose thread count is 0 or 32 × the warps, in a call that may
//!   complete barriers itself, is complete by the argument of "Count" (every warp arrived
//!   fully at one barrier; the call covers the CTA in warp order). The round end puts the
//!   site's target and record into [`RESUME`] and [`REC`] and starts the next pass; each
//!   warp's turn starts with its release as above (`Gen::gen_resume`), which takes the
//!   warp's non-exited lanes (its parked lanes after a full arrival written to the state,
//!   the lanes it arrived with after a deferred one: it has not run since). It clears
//!   nothing: after a deferred arrival the record is as the arrival found it, empty (its
//!   arrived and waiting lanes were tested to be none, and every write of another field
//!   comes with arrived lanes: `runtime::warp::arrive`, the full arrival above; every
//!   release clears the whole record), and nothing is parked (a full arrival's lanes are
//!   all of the warp's non-exited lanes, so none was parked before it).
//! - **Every return** (`Gen::gen_exit_value`: the round end's return to the scheduler, the
//!   dispatcher's abort return) first writes the pass's deferred arrivals into the warp
//!   states (`Gen::gen_lazy_flush`: record fields, predicate lanes and parked lanes, as the
//!   full arrival above writes them), so that the scheduler finds the states the full
//!   arrival leaves. A pass in which some arrival was deferred and not every warp arrived
//!   at that site (a warp that exited, arrivals at different sites, one not deferred)
//!   returns to the scheduler that way.
//!
//! What the scheduler does per round besides completing barriers is not needed then: the
//! shuffled order and the per-warp calls are excluded by the flag; the mbarrier deadlock
//! judgement and the cluster barrier's turn only act for kernels with mbarrier or
//! cluster-barrier operations, which get none of this code ([`in_call_completion`]); the
//! yield pause is excluded by the flag; the abort flag (faults, `--timeout`) is still read
//! by the dispatcher before every block, so a kernel that loops across barriers forever
//! stops as before, with its warps' states as consistent as at any dispatch.

use super::codegen::{Gen, FRAME_COUNT, FRAME_TABLE, FRAME_TURN, TRUSTED};
use crate::analysis::schedule::{
    bar_field, BAR_ARRIVED, BAR_FLAGS, BAR_INST, BAR_OFF, BAR_PRED, BAR_REC, BAR_THREADS,
    BAR_WAITING, EXITED_OFF, LIVE_OFF, WARP_SIZE, WSYNC_WAIT_OFF,
};
use crate::ir::{self, BarKind, Op, Terminator};
use crate::runtime::env::CtaEnv;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, BlockArg, InstBuilder, StackSlot, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::FunctionBuilder;
use std::mem::offset_of;

/// Offset of the pass's full-arrival count in the stack slot.
const COUNT: i32 = 0;
/// Offset of the OR of the pass's barrier keys (`threads | id`) in the stack slot.
const KEY: i32 = 4;
/// Offset of the AND of the pass's barrier keys in the stack slot (all ones before the
/// pass's first arrival).
const KEY_AND: i32 = 12;
/// Offset of the pass's barrier targets in the stack slot: bit `k` set when a full arrival
/// parked its warp at `WarpLayout::barrier_targets[k]` (for kernels with at most
/// [`MAX_TARGETS`] of them).
const TARGETS: i32 = 8;
/// Offset of the pass's resume in the stack slot (`i32`): `k + 1` while the warps of the
/// pass are released one by one at their turns from the one-target release to target `k`
/// of `WarpLayout::barrier_targets` (`Gen::gen_resume`), 0 otherwise.
const RESUME: i32 = 16;
/// Offset of the released barrier record's offset from `BAR_OFF` (`i32`, the id times
/// `BAR_REC`) in the stack slot, while [`RESUME`] is set.
const REC: i32 = 20;
/// Offset of the pass's deferred arrivals in the stack slot: for the site of index `n`, the
/// `u32` at `LAZY + 4 n` has bit `j` set when the warp of turn `j` arrived there without
/// writing its state (module comment, "Deferred arrivals").
const LAZY: i32 = 24;
/// Bytes of the stack slot.
const SLOT_BYTES: u32 = 40;
/// At most this many `bar.sync` instructions get deferred arrivals.
const MAX_SITES: usize = 4;
/// At most this many barrier targets get a release of their own (`Gen::gen_round_end`).
const MAX_TARGETS: usize = 4;
/// At most this many barrier ids in use (`WarpLayout::bar_ids`) for the inline arrival: the
/// others' records are tested one by one.
const MAX_IDS: u32 = 4;

/// Whether the kernel gets the in-call completion: it has barrier terminators, and no
/// mbarrier or cluster-barrier operation (whose per-round judgement and turns the CTA
/// scheduler makes), and is not built for racecheck.
pub(super) fn in_call_completion(f: &ir::Function, racecheck: bool) -> bool {
    let barriers = f
        .blocks
        .iter()
        .any(|b| matches!(b.term, Terminator::Barrier { .. }));
    let excluded = f
        .insts
        .iter()
        .any(|d| matches!(d.op, Op::MBarrier { .. } | Op::ClusterBarrier { .. }));
    barriers && !excluded && !racecheck
}

/// [`Gen::resumes`] for a kernel of layout `layout` with the in-call completion's stack
/// slot (`slot`) or without.
pub(super) fn resumes(layout: &crate::analysis::schedule::WarpLayout, slot: bool) -> bool {
    slot && (1..=MAX_TARGETS).contains(&layout.barrier_targets.len())
}

/// Whether a loop (a cycle of the CFG through no barrier terminator) is reached from block
/// `start` without passing a barrier. [`Gen::gen_resume`] enters such a barrier target
/// through its pending mask and entry, as the dispatcher does, rather than straight into its
/// body: with a second way into the body, Cranelift allocated the registers of the loop
/// after it worse (histogram_shared's grid-stride loop: six instructions more per trip, +0.5%
/// per launch, docs/performance.md).
fn loop_ahead(f: &ir::Function, start: ir::Block) -> bool {
    let succs = |b: ir::Block| -> Vec<ir::Block> {
        match &f.block(b).term {
            Terminator::Barrier { .. } => vec![],
            t => t.targets().iter().map(|c| c.block).collect(),
        }
    };
    // Depth-first: 1 on the path from `start`, 2 done; an edge to a block on the path closes
    // a cycle.
    let mut state = vec![0u8; f.blocks.len()];
    state[start.index()] = 1;
    let mut path = vec![(start, succs(start), 0usize)];
    while let Some(top) = path.last_mut() {
        let k = top.2;
        if k == top.1.len() {
            state[top.0.index()] = 2;
            path.pop();
            continue;
        }
        top.2 += 1;
        let c = top.1[k];
        match state[c.index()] {
            0 => {
                state[c.index()] = 1;
                path.push((c, succs(c), 0));
            }
            1 => return true,
            _ => {}
        }
    }
    false
}

/// Whether block `start` lies on a cycle of the CFG, barrier terminators' edges included.
fn in_cycle(f: &ir::Function, start: ir::Block) -> bool {
    let mut seen = vec![false; f.blocks.len()];
    let mut stack: Vec<ir::Block> = f
        .block(start)
        .term
        .targets()
        .iter()
        .map(|c| c.block)
        .collect();
    while let Some(b) = stack.pop() {
        if b == start {
            return true;
        }
        if !std::mem::replace(&mut seen[b.index()], true) {
            stack.extend(f.block(b).term.targets().iter().map(|c| c.block));
        }
    }
    false
}

/// Which of the full arrival's tests of the warp state its lane test (`mask == LIVE &
/// !EXITED`) does not imply in kernel `f` (module comment, "Tests the lanes imply"): the
/// barrier records' arrived and waiting lanes, unless every `barrier` operation of `f`
/// waits (no `bar.arrive`) and ends a block whose terminator parks its lanes; the lanes at
/// a warp-level synchronization, unless `f` has no warp operation that writes them (the
/// test `jit::zeroed_ranges` makes for leaving them unzeroed).
fn arrival_tests(f: &ir::Function) -> (bool, bool) {
    let parks_after = |b: &ir::BlockData, i: ir::Inst| {
        b.insts.last() == Some(&i) && matches!(b.term, Terminator::Barrier { .. })
    };
    let records = f.blocks.iter().any(|b| {
        b.insts.iter().any(|&i| match f.inst(i).op {
            Op::BarArrive { kind, .. } => !kind.waits() || !parks_after(b, i),
            _ => false,
        })
    });
    let wsync = f
        .insts
        .iter()
        .any(|d| super::cross_lane(&d.op) && !super::is_barrier(&d.op));
    (records, wsync)
}

/// A `bar.sync` whose full arrivals are deferred (module comment, "Deferred arrivals"):
/// what the write-out of such an arrival stores.
pub(super) struct Site {
    /// `BAR_INST`'s value: the IR instruction index + 1.
    inst: u32,
    /// The barrier id.
    id: u32,
    /// The (constant) thread count.
    threads: u32,
    /// `BAR_FLAGS`' value.
    flags: u32,
    /// Whether the arrival's (constant) predicate is true: its lanes go into `BAR_PRED`.
    pred: bool,
    /// The barrier target's block priority.
    target: u32,
}

/// The deferred arrivals of a kernel that releases its warps at their turns.
pub(super) struct Lazy {
    /// The round end's test of the deferred arrivals (`Gen::gen_lazy_end`).
    end: cranelift_codegen::ir::Block,
    /// The round end's start of the next pass, which `end` goes to for a complete pass.
    after: cranelift_codegen::ir::Block,
    /// The block that writes the pass's deferred arrivals into the warp states and returns
    /// its `i32` parameter (`Gen::gen_lazy_flush`, emitted after every block).
    flush: cranelift_codegen::ir::Block,
    /// The sites, in the order of their words in [`LAZY`] (noted as the blocks are
    /// generated, after the round end: its test of them is emitted after every block).
    sites: Vec<Site>,
}

impl Lazy {
    /// A kernel's deferred arrivals, with the flush block created in `b`.
    pub(super) fn new(b: &mut FunctionBuilder) -> Self {
        let flush = b.create_block();
        b.append_block_param(flush, types::I32);
        Lazy {
            end: b.create_block(),
            after: b.create_block(),
            flush,
            sites: Vec::new(),
        }
    }
}

/// The stack slot of the per-pass count and key, for a kernel with [`in_call_completion`],
/// zeroed in the function's entry block (the current block of `b`).
pub(super) fn new_slot(b: &mut FunctionBuilder, ptr: cranelift_codegen::ir::Type) -> StackSlot {
    let ss = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        SLOT_BYTES,
        3,
    ));
    let zero = b.ins().iconst(types::I64, 0);
    b.ins().stack_store(ptr, zero, ss, 0);
    b.ins().stack_store(ptr, zero, ss, TARGETS);
    b.ins().stack_store(ptr, zero, ss, RESUME);
    let ones = b.ins().iconst(types::I32, -1);
    b.ins().stack_store(ptr, ones, ss, KEY_AND);
    b.ins().stack_store(ptr, zero, ss, LAZY);
    b.ins().stack_store(ptr, zero, ss, LAZY + 8);
    ss
}

impl Gen<'_, '_> {
    /// A `bar.sync` arrival with scalar operands `u` (id, thread count, predicate): the
    /// inline full arrival where it applies (see the module comment), else `slow`, the
    /// helper call. Returns `false` (emitting nothing) when the instruction is not of that
    /// shape, so the caller emits the helper call alone.
    pub(super) fn gen_bar_full(
        &mut self,
        i: ir::Inst,
        mask: Value,
        u: &[Value],
        slow: &mut dyn FnMut(&mut Self),
    ) -> bool {
        let d = self.f.inst(i);
        let Op::BarArrive { kind, aligned } = d.op else {
            return false;
        };
        let blk = ir::Block(self.inst_block[i.index()]);
        let bd = self.f.block(blk);
        let last = bd.insts.last() == Some(&i);
        let parks = matches!(bd.term, Terminator::Barrier { .. });
        let id = d.args.first().and_then(|&a| self.f.const_bits(a));
        let pred = d.args.get(2).and_then(|&a| self.f.const_bits(a));
        let ids = self.layout.bar_ids;
        let Some(id) = id.filter(|&id| id < 16 && ids >> id & 1 != 0) else {
            return false;
        };
        let id = id as u32;
        if kind != BarKind::Sync || !last || !parks || u.len() != 3 || ids.count_ones() > MAX_IDS {
            return false;
        }
        let [threads, pred_v] = [u[1], u[2]];
        let s = self.e.state;
        let ld = |g: &mut Self, off: u32| g.b.ins().load(types::I32, TRUSTED(), s, off as i32);
        let live = ld(self, LIVE_OFF);
        let exited = ld(self, EXITED_OFF);
        let alive = self.b.ins().band_not(live, exited);
        let partial = self.b.ins().bxor(mask, alive);
        let mut busy = self.b.ins().band_imm_s(threads, i64::from(WARP_SIZE - 1));
        busy = self.b.ins().bor(busy, partial);
        // The state tests that `partial` does not imply (module comment, "Tests the lanes
        // imply").
        let (records, wsync) = arrival_tests(self.f);
        let mut offs = vec![];
        if records {
            offs.push(bar_field(id, BAR_ARRIVED));
            offs.push(bar_field(id, BAR_WAITING));
        }
        if wsync {
            offs.push(WSYNC_WAIT_OFF);
        }
        for o in (0..16).filter(|&o| records && o != id && ids >> o & 1 != 0) {
            offs.push(bar_field(o, BAR_ARRIVED));
            offs.push(bar_field(o, BAR_WAITING));
        }
        for off in offs {
            let v = ld(self, off);
            busy = self.b.ins().bor(busy, v);
        }
        let flags = kind.code()
            | if aligned {
                crate::analysis::schedule::BAR_ALIGNED
            } else {
                0
            };
        let threads_c = d.args.get(1).and_then(|&a| self.f.const_bits(a));
        let site = self.lazy_site(i, id, threads_c, flags, pred, &bd.term);
        let fast = self.b.create_block();
        let slow_b = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(busy, slow_b, &[], fast, &[]);
        self.b.switch_to_block(fast);
        if let (Some(n), Some(ss), Some(end)) = (site, self.bar_slot, self.turn_end) {
            // The deferred arrival: the turn's bit in the site's word, the turn's end; a turn
            // past the word's bits takes the helper.
            let turn = self
                .b
                .ins()
                .stack_load(self.ptr, types::I32, self.e.frame, FRAME_TURN);
            let big = self.b.ins().icmp_imm_s(
                IntCC::UnsignedGreaterThanOrEqual,
                turn,
                i64::from(WARP_SIZE),
            );
            let defer = self.b.create_block();
            self.b.ins().brif(big, slow_b, &[], defer, &[]);
            self.b.switch_to_block(defer);
            let one = self.b.ins().iconst(types::I32, 1);
            let bit = self.b.ins().ishl(one, turn);
            let off = LAZY + 4 * n as i32;
            let lazy = self.b.ins().stack_load(self.ptr, types::I32, ss, off);
            let lazy = self.b.ins().bor(lazy, bit);
            self.b.ins().stack_store(self.ptr, lazy, ss, off);
            self.b.ins().jump(end, &[]);
            self.b.switch_to_block(slow_b);
            slow(self);
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(join);
            return true;
        }

        // `runtime::warp::arrive` for a first arrival: fields, arrived and waiting lanes
        // (both were 0), predicate lanes.
        let st = |g: &mut Self, v: Value, off: u32| {
            g.b.ins().store(TRUSTED(), v, s, off as i32);
        };
        st(self, threads, bar_field(id, BAR_THREADS));
        let inst = self.b.ins().iconst(types::I32, i64::from(i.0) + 1);
        st(self, inst, bar_field(id, BAR_INST));
        let flags = self.b.ins().iconst(types::I32, i64::from(flags));
        st(self, flags, bar_field(id, BAR_FLAGS));
        st(self, mask, bar_field(id, BAR_ARRIVED));
        st(self, mask, bar_field(id, BAR_WAITING));
        if pred != Some(0) {
            let bits = if pred.is_some() {
                mask
            } else {
                let zero = self.b.ins().iconst(types::I32, 0);
                self.b.ins().select(pred_v, mask, zero)
            };
            let old = ld(self, bar_field(id, BAR_PRED));
            let new = self.b.ins().bor(old, bits);
            st(self, new, bar_field(id, BAR_PRED));
        }
        if let Some(ss) = self.bar_slot {
            let count = self.b.ins().stack_load(self.ptr, types::I32, ss, COUNT);
            let count = self.b.ins().iadd_imm_s(count, 1);
            self.b.ins().stack_store(self.ptr, count, ss, COUNT);
            let new_key = self.b.ins().bor_imm_s(threads, i64::from(id));
            let key = self.b.ins().stack_load(self.ptr, types::I32, ss, KEY);
            let key = self.b.ins().bor(key, new_key);
            self.b.ins().stack_store(self.ptr, key, ss, KEY);
            let key = self.b.ins().stack_load(self.ptr, types::I32, ss, KEY_AND);
            let key = self.b.ins().band(key, new_key);
            self.b.ins().stack_store(self.ptr, key, ss, KEY_AND);
            let targets = &self.layout.barrier_targets;
            let p = match &bd.term {
                Terminator::Barrier { next } => Some(self.layout.prio[next.block.index()]),
                _ => None,
            };
            let k = p.and_then(|p| targets.iter().position(|&t| t == p));
            if let Some(k) = k.filter(|_| targets.len() <= MAX_TARGETS) {
                let seen = self.b.ins().stack_load(self.ptr, types::I32, ss, TARGETS);
                let seen = self.b.ins().bor_imm_s(seen, 1 << k);
                self.b.ins().stack_store(self.ptr, seen, ss, TARGETS);
            }
        }
        // The `Barrier` terminator's parking for a full arrival, when it writes no block
        // arguments, and the end of the warp's turn: every lane of the warp is parked now,
        // so the dispatcher would find none pending (see the module comment).
        match (&bd.term, self.turn_end) {
            (Terminator::Barrier { next }, Some(end)) if next.args.is_empty() => {
                let p = self.layout.prio[next.block.index()];
                self.state_or32(self.layout.parked(p), mask);
                self.b.ins().jump(end, &[]);
            }
            _ => {
                self.b.ins().jump(join, &[]);
            }
        }

        self.b.switch_to_block(slow_b);
        slow(self);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        true
    }

    /// Where the full arrival of instruction `i` (barrier `id`, constant thread count
    /// `threads` and predicate `pred` if they are constants, flags `flags`, its block's
    /// terminator `term`) is deferred (module comment, "Deferred arrivals"): the index of
    /// its site, noted for the write-out. `None` where it is not.
    fn lazy_site(
        &mut self,
        i: ir::Inst,
        id: u32,
        threads: Option<u64>,
        flags: u32,
        pred: Option<u64>,
        term: &Terminator,
    ) -> Option<usize> {
        let (pred, threads) = (pred?, u32::try_from(threads?).ok()?);
        let Terminator::Barrier { next } = term else {
            return None;
        };
        if !next.args.is_empty() || self.turn_end.is_none() || self.bar_slot.is_none() {
            return None;
        }
        let target = self.layout.prio[next.block.index()];
        self.layout
            .barrier_targets
            .iter()
            .position(|&t| t == target)?;
        let lazy = self.lazy.as_mut()?;
        let inst = i.0 + 1;
        match lazy.sites.iter().position(|s| s.inst == inst) {
            Some(n) => Some(n),
            None if lazy.sites.len() < MAX_SITES => {
                lazy.sites.push(Site {
                    inst,
                    id,
                    threads,
                    flags,
                    pred: pred != 0,
                    target,
                });
                Some(lazy.sites.len() - 1)
            }
            None => None,
        }
    }

    /// Returns `v` (`i32`) from the generated function, the pass's deferred arrivals first
    /// written into the warp states where the kernel has them (`Gen::gen_lazy_flush`).
    pub(super) fn gen_exit_value(&mut self, v: Value) {
        match &self.lazy {
            Some(l) => {
                let flush = l.flush;
                self.b.ins().jump(flush, &[BlockArg::Value(v)]);
            }
            None => {
                self.b.ins().return_(&[v]);
            }
        }
    }

    /// The flush block of [`Lazy`]: each warp of each site's word of [`LAZY`] gets the
    /// record fields, predicate lanes and parked lanes the full arrival at the site writes
    /// (its arrival mask: its non-exited lanes, as it has not run since), then the function
    /// returns the block's parameter.
    pub(super) fn gen_lazy_flush(&mut self) {
        let (Some(lazy), Some(ss)) = (self.lazy.take(), self.bar_slot) else {
            return;
        };
        self.gen_lazy_end(&lazy);
        self.b.switch_to_block(lazy.flush);
        let v = self.b.block_params(lazy.flush)[0];
        let frame = self.e.frame;
        let (_, table) = self.warp_count_and_table(frame);
        for (n, site) in lazy.sites.iter().enumerate() {
            let bits = self
                .b
                .ins()
                .stack_load(self.ptr, types::I32, ss, LAZY + 4 * n as i32);
            // One warp per set bit, lowest first.
            let head = self.b.create_block();
            let rest = self.b.append_block_param(head, types::I32);
            let next = self.b.create_block();
            self.b.ins().jump(head, &[BlockArg::Value(bits)]);
            self.b.switch_to_block(head);
            let body = self.b.create_block();
            self.b.ins().brif(rest, body, &[], next, &[]);
            self.b.switch_to_block(body);
            let j = self.b.ins().ctz(rest);
            let less = self.b.ins().iadd_imm_s(rest, -1);
            let left = self.b.ins().band(rest, less);
            let jp = self.b.ins().uextend(self.ptr, j);
            let joff = self.b.ins().imul_imm_s(jp, i64::from(self.ptr.bytes()));
            let slot = self.b.ins().iadd(table, joff);
            let s = self.b.ins().load(self.ptr, TRUSTED(), slot, 0);
            let ld = |g: &mut Self, off: u32| g.b.ins().load(types::I32, TRUSTED(), s, off as i32);
            let st = |g: &mut Self, v: Value, off: u32| {
                g.b.ins().store(TRUSTED(), v, s, off as i32);
            };
            let live = ld(self, LIVE_OFF);
            let exited = ld(self, EXITED_OFF);
            let mask = self.b.ins().band_not(live, exited);
            let id = site.id;
            let threads = self.b.ins().iconst(types::I32, i64::from(site.threads));
            st(self, threads, bar_field(id, BAR_THREADS));
            let inst = self.b.ins().iconst(types::I32, i64::from(site.inst));
            st(self, inst, bar_field(id, BAR_INST));
            let flags = self.b.ins().iconst(types::I32, i64::from(site.flags));
            st(self, flags, bar_field(id, BAR_FLAGS));
            st(self, mask, bar_field(id, BAR_ARRIVED));
            st(self, mask, bar_field(id, BAR_WAITING));
            if site.pred {
                let old = ld(self, bar_field(id, BAR_PRED));
                let new = self.b.ins().bor(old, mask);
                st(self, new, bar_field(id, BAR_PRED));
            }
            let po = self.layout.parked(site.target);
            let old = ld(self, po);
            let new = self.b.ins().bor(old, mask);
            st(self, new, po);
            self.b.ins().jump(head, &[BlockArg::Value(left)]);
            self.b.switch_to_block(next);
        }
        self.b.ins().return_(&[v]);
    }

    /// The round end's test of the pass's deferred arrivals (block [`Lazy::end`], which
    /// the round end enters when some word of [`LAZY`] is set; emitted after every block,
    /// when the sites are known): one site's word with every turn of the call, in a call
    /// that may complete barriers itself (`CtaEnv::complete_in_call`), with a thread count
    /// of 0 or 32 × the warps: the release at the turns noted ([`RESUME`], [`REC`]) and on
    /// to the next pass ([`Lazy::after`]); else the write-out and the return of 0.
    fn gen_lazy_end(&mut self, lazy: &Lazy) {
        let Some(ss) = self.bar_slot else {
            return;
        };
        self.b.switch_to_block(lazy.end);
        let env = self.e.env;
        let frame = self.e.frame;
        let (count, _) = self.warp_count_and_table(frame);
        let allowed = self.b.ins().load(
            types::I32,
            TRUSTED(),
            env,
            offset_of!(CtaEnv, complete_in_call) as i32,
        );
        // Every turn's bit; none for a call of more than 32 warps (whose later turns are
        // never deferred).
        let small =
            self.b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, count, i64::from(WARP_SIZE));
        let small = self.b.ins().uextend(types::I32, small);
        let allowed = self.b.ins().band(allowed, small);
        let one = self.b.ins().iconst(types::I64, 1);
        let count64 = self.b.ins().uextend(types::I64, count);
        let all = self.b.ins().ishl(one, count64);
        let all = self.b.ins().iadd_imm_s(all, -1);
        let all = self.b.ins().ireduce(types::I32, all);
        let cta = self.b.ins().imul_imm_s(count, i64::from(WARP_SIZE));
        for (n, site) in lazy.sites.iter().enumerate() {
            let w = self
                .b
                .ins()
                .stack_load(self.ptr, types::I32, ss, LAZY + 4 * n as i32);
            let full = self.b.ins().icmp(IntCC::Equal, w, all);
            let full = self.b.ins().uextend(types::I32, full);
            let mut ok = self.b.ins().band(full, allowed);
            if site.threads != 0 {
                let exact = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::Equal, cta, i64::from(site.threads));
                let exact = self.b.ins().uextend(types::I32, exact);
                ok = self.b.ins().band(ok, exact);
            }
            let go = self.b.create_block();
            let next = self.b.create_block();
            self.b.ins().brif(ok, go, &[], next, &[]);
            self.b.switch_to_block(go);
            let k = self
                .layout
                .barrier_targets
                .iter()
                .position(|&t| t == site.target)
                .expect("a site's target is a barrier target");
            let r = self.b.ins().iconst(types::I32, k as i64 + 1);
            self.b.ins().stack_store(self.ptr, r, ss, RESUME);
            let rec = self
                .b
                .ins()
                .iconst(types::I32, i64::from(site.id * BAR_REC));
            self.b.ins().stack_store(self.ptr, rec, ss, REC);
            self.b.ins().jump(lazy.after, &[]);
            self.b.switch_to_block(next);
        }
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().jump(lazy.flush, &[BlockArg::Value(zero)]);
    }

    /// The end of a pass of the warp loop (block `done`, every warp has run): complete the
    /// pass's barrier and start the next pass where the module comment's conditions hold,
    /// else return 0 (every warp stopped) to the CTA scheduler. The warp-state table and
    /// warp count come from the call's frame (`codegen::FRAME_*`).
    pub(super) fn gen_round_end(&mut self, done: cranelift_codegen::ir::Block) {
        self.b.switch_to_block(done);
        let ret = self.b.create_block();
        let Some(ss) = self.bar_slot else {
            // A kernel compiled for batches: the next CTA of the batch first (`batch.rs`).
            match self.next_cta.take() {
                Some((again, words)) => self.gen_next_cta(ret, again, &words),
                None => {
                    self.b.ins().jump(ret, &[]);
                }
            }
            self.gen_return_zero(ret);
            return;
        };
        let env = self.e.env;
        let frame = self.e.frame;
        // Every turn of the pass has run, so every release of a resumed pass is made.
        if self.resumes() {
            let zero32 = self.b.ins().iconst(types::I32, 0);
            self.b.ins().stack_store(self.ptr, zero32, ss, RESUME);
        }
        let (count, table) = self.warp_count_and_table(frame);
        let after = match &self.lazy {
            Some(l) => {
                // Deferred arrivals: tested after the blocks have noted their sites.
                let (end, after) = (l.end, l.after);
                let w0 = self.b.ins().stack_load(self.ptr, types::I64, ss, LAZY);
                let w1 = self.b.ins().stack_load(self.ptr, types::I64, ss, LAZY + 8);
                let any = self.b.ins().bor(w0, w1);
                let eager = self.b.create_block();
                self.b.ins().brif(any, end, &[], eager, &[]);
                self.b.switch_to_block(eager);
                after
            }
            None => self.b.create_block(),
        };
        let allowed = self.b.ins().load(
            types::I32,
            TRUSTED(),
            env,
            offset_of!(CtaEnv, complete_in_call) as i32,
        );
        let n = self.b.ins().stack_load(self.ptr, types::I32, ss, COUNT);
        let key = self.b.ins().stack_load(self.ptr, types::I32, ss, KEY);
        let key_and = self.b.ins().stack_load(self.ptr, types::I32, ss, KEY_AND);
        let every_warp = self.b.ins().icmp(IntCC::Equal, n, count);
        let one_key = self.b.ins().icmp(IntCC::Equal, key, key_and);
        let all = self.b.ins().band(every_warp, one_key);
        let threads = self.b.ins().band_imm_s(key, !0xf);
        let every = self.b.ins().icmp_imm_s(IntCC::Equal, threads, 0);
        let cta = self.b.ins().imul_imm_s(count, i64::from(WARP_SIZE));
        let exact = self.b.ins().icmp(IntCC::Equal, threads, cta);
        let thr_ok = self.b.ins().bor(every, exact);
        let ok = self.b.ins().band(all, thr_ok);
        let ok = self.b.ins().uextend(types::I32, ok);
        let go = self.b.ins().band(ok, allowed);
        let release = self.b.create_block();
        self.b.ins().brif(go, release, &[], ret, &[]);

        // `complete_uniform`'s release, warp by warp.
        self.b.switch_to_block(release);
        let id = self.b.ins().band_imm_s(key, 0xf);
        let rec32 = self.b.ins().imul_imm_s(id, i64::from(BAR_REC));
        let rec_off = self.b.ins().uextend(self.ptr, rec32);
        let targets = self.layout.barrier_targets.clone();
        if self.resumes() {
            // Every warp parked at one target (one bit in the pass's targets): each warp is
            // released at its next turn (`Gen::gen_resume`).
            let seen = self.b.ins().stack_load(self.ptr, types::I32, ss, TARGETS);
            for (k, &p) in targets.iter().enumerate() {
                let one = self.b.create_block();
                let next = self.b.create_block();
                let is = self.b.ins().icmp_imm_s(IntCC::Equal, seen, 1 << k);
                self.b.ins().brif(is, one, &[], next, &[]);
                self.b.switch_to_block(one);
                let r = self.b.ins().iconst(types::I32, k as i64 + 1);
                self.b.ins().stack_store(self.ptr, r, ss, RESUME);
                self.b.ins().stack_store(self.ptr, rec32, ss, REC);
                // The arrivals' writes undone here, warp by warp (the record and the parked
                // lanes), so that the release at the turn has none to undo (the deferred
                // arrivals write none: module comment, "Deferred arrivals").
                let po = self.layout.parked(p) as i32;
                let (head, j, s) = self.warp_table_loop(table, count, after);
                let zero = self.b.ins().iconst(types::I32, 0);
                self.b.ins().store(TRUSTED(), zero, s, po);
                let rec = self.b.ins().iadd(s, rec_off);
                let zero64 = self.b.ins().iconst(types::I64, 0);
                for f in (0..BAR_REC).step_by(8) {
                    self.b
                        .ins()
                        .store(TRUSTED(), zero64, rec, (BAR_OFF + f) as i32);
                }
                self.warp_table_next(head, j);
                self.b.switch_to_block(next);
            }
        }
        let (head, j, s) = self.warp_table_loop(table, count, after);
        let zero = self.b.ins().iconst(types::I32, 0);
        let targets = self.layout.barrier_targets.clone();
        // Each target's active bit, gathered per active word: one write per word.
        let mut words: Vec<(u32, Value)> = vec![];
        for p in targets {
            let (po, qo) = (self.layout.parked(p) as i32, self.layout.pending(p) as i32);
            let parked = self.b.ins().load(types::I32, TRUSTED(), s, po);
            let pend = self.b.ins().load(types::I32, TRUSTED(), s, qo);
            let pend = self.b.ins().bor(pend, parked);
            self.b.ins().store(TRUSTED(), pend, s, qo);
            self.b.ins().store(TRUSTED(), zero, s, po);
            let nz = self.b.ins().icmp_imm_s(IntCC::NotEqual, parked, 0);
            let bit = self.b.ins().uextend(types::I64, nz);
            let bit = self.b.ins().ishl_imm_s(bit, i64::from(p % 64));
            match words.iter_mut().find(|(w, _)| *w == p / 64) {
                Some((_, bits)) => *bits = self.b.ins().bor(*bits, bit),
                None => words.push((p / 64, bit)),
            }
        }
        for (w, bits) in words {
            let ao = (self.layout.active_off + 8 * w) as i32;
            let word = self.b.ins().load(types::I64, TRUSTED(), s, ao);
            let word = self.b.ins().bor(word, bits);
            self.b.ins().store(TRUSTED(), word, s, ao);
        }
        let rec = self.b.ins().iadd(s, rec_off);
        let zero64 = self.b.ins().iconst(types::I64, 0);
        for k in (0..BAR_REC).step_by(8) {
            self.b
                .ins()
                .store(TRUSTED(), zero64, rec, (BAR_OFF + k) as i32);
        }
        self.warp_table_next(head, j);

        // The next round: count it for the scheduler's statistics, reset the pass's count.
        self.b.switch_to_block(after);
        let off = offset_of!(CtaEnv, rounds_in_call) as i32;
        let r = self.b.ins().load(types::I32, TRUSTED(), env, off);
        let r = self.b.ins().iadd_imm_s(r, 1);
        self.b.ins().store(TRUSTED(), r, env, off);
        let zero64 = self.b.ins().iconst(types::I64, 0);
        self.b.ins().stack_store(self.ptr, zero64, ss, 0);
        self.b.ins().stack_store(self.ptr, zero64, ss, TARGETS);
        let ones = self.b.ins().iconst(types::I32, -1);
        self.b.ins().stack_store(self.ptr, ones, ss, KEY_AND);
        if self.lazy.is_some() {
            self.b.ins().stack_store(self.ptr, zero64, ss, LAZY);
            self.b.ins().stack_store(self.ptr, zero64, ss, LAZY + 8);
        }
        let zero32 = self.b.ins().iconst(types::I32, 0);
        self.b
            .ins()
            .stack_store(self.ptr, zero32, frame, FRAME_TURN);
        let warp_loop = self.e.warp_loop;
        self.b.ins().jump(warp_loop, &[]);
        self.gen_return_zero(ret);
    }

    /// The head of a loop over the call's warp table (`count` warp-state pointers at
    /// `table`), which goes to `after` once every warp is done: returns the loop's head
    /// block, the warp's index `j` and its warp-state pointer, with the builder in the body.
    /// The body ends with [`Self::warp_table_next`].
    pub(super) fn warp_table_loop(
        &mut self,
        table: Value,
        count: Value,
        after: cranelift_codegen::ir::Block,
    ) -> (cranelift_codegen::ir::Block, Value, Value) {
        let zero32 = self.b.ins().iconst(types::I32, 0);
        self.warp_table_loop_from(table, count, zero32, after)
    }

    /// [`Self::warp_table_loop`] from the warp of index `start` (`u32`) on.
    fn warp_table_loop_from(
        &mut self,
        table: Value,
        count: Value,
        start: Value,
        after: cranelift_codegen::ir::Block,
    ) -> (cranelift_codegen::ir::Block, Value, Value) {
        let head = self.b.create_block();
        let j = self.b.append_block_param(head, types::I32);
        self.b.ins().jump(head, &[BlockArg::Value(start)]);
        self.b.switch_to_block(head);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, j, count);
        let body = self.b.create_block();
        self.b.ins().brif(more, body, &[], after, &[]);

        self.b.switch_to_block(body);
        let jp = self.b.ins().uextend(self.ptr, j);
        let joff = self.b.ins().imul_imm_s(jp, i64::from(self.ptr.bytes()));
        let slot = self.b.ins().iadd(table, joff);
        let s = self.b.ins().load(self.ptr, TRUSTED(), slot, 0);
        (head, j, s)
    }

    /// The end of a [`Self::warp_table_loop`] body: on to warp `j + 1`.
    pub(super) fn warp_table_next(&mut self, head: cranelift_codegen::ir::Block, j: Value) {
        let next = self.b.ins().iadd_imm_s(j, 1);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);
    }

    /// `complete_uniform`'s release for a pass in which every warp fully arrived at a barrier
    /// whose target is block priority `p` (the pass's targets hold that one bit): each warp's
    /// lanes are all parked at `p` (none is parked elsewhere, none is pending: see the
    /// module comment), so only `p`'s masks and active bit change, and the barrier's record
    /// (at `rec_off` in the state) is cleared. For the warps of index `start` (`u32`) on;
    /// then on to `after`. In a kernel with deferred arrivals, the lanes released are the
    /// warp's non-exited lanes (its parked lanes after a full arrival written to its state,
    /// the lanes it arrived with after a deferred one: module comment, "Deferred arrivals").
    #[allow(clippy::too_many_arguments)]
    fn gen_release_one(
        &mut self,
        p: u32,
        table: Value,
        count: Value,
        start: Value,
        rec_off: Value,
        after: cranelift_codegen::ir::Block,
    ) {
        let (head, j, s) = self.warp_table_loop_from(table, count, start, after);
        let (po, qo) = (self.layout.parked(p) as i32, self.layout.pending(p) as i32);
        let parked = if self.lazy.is_some() {
            let live = self.b.ins().load(types::I32, TRUSTED(), s, LIVE_OFF as i32);
            let exited = self
                .b
                .ins()
                .load(types::I32, TRUSTED(), s, EXITED_OFF as i32);
            self.b.ins().band_not(live, exited)
        } else {
            self.b.ins().load(types::I32, TRUSTED(), s, po)
        };
        let pend = self.b.ins().load(types::I32, TRUSTED(), s, qo);
        let pend = self.b.ins().bor(pend, parked);
        self.b.ins().store(TRUSTED(), pend, s, qo);
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().store(TRUSTED(), zero, s, po);
        // Its parked lanes are the warp's non-exited lanes, never none.
        let ao = (self.layout.active_off + 8 * (p / 64)) as i32;
        let word = self.b.ins().load(types::I64, TRUSTED(), s, ao);
        let word = self.b.ins().bor_imm_s(word, 1i64 << (p % 64));
        self.b.ins().store(TRUSTED(), word, s, ao);
        let rec = self.b.ins().iadd(s, rec_off);
        let zero64 = self.b.ins().iconst(types::I64, 0);
        for k in (0..BAR_REC).step_by(8) {
            self.b
                .ins()
                .store(TRUSTED(), zero64, rec, (BAR_OFF + k) as i32);
        }
        self.warp_table_next(head, j);
    }

    /// Whether a pass whose warps all fully arrived at one barrier target releases each warp
    /// at its next turn ([`RESUME`], `Gen::gen_resume`): the kernel completes barriers in
    /// the call and has at most [`MAX_TARGETS`] barrier targets.
    pub(super) fn resumes(&self) -> bool {
        resumes(self.layout, self.bar_slot.is_some())
    }

    /// The start of a warp's turn (block `start`, the warp's state loaded) in a kernel that
    /// [`Self::resumes`]: in a resumed pass, the warp's part of the one-target release
    /// (`gen_release_one`'s, for this warp) and the dispatcher's pick of the target made in
    /// one (`Gen::goto_prio_first`: into the target's block with the released lanes when no
    /// active bit of the warp up to the target's is set and the launch is not aborted, else
    /// its pending mask and active bit and the dispatcher); otherwise the dispatcher.
    pub(super) fn gen_resume(&mut self, start: cranelift_codegen::ir::Block) {
        let Some(ss) = self.bar_slot else {
            return;
        };
        self.b.switch_to_block(start);
        let r = self.b.ins().stack_load(self.ptr, types::I32, ss, RESUME);
        let chain = self.b.create_block();
        self.b.ins().brif(r, chain, &[], self.dispatch, &[]);
        self.b.switch_to_block(chain);
        self.branch_on_resume(r, |g, p| {
            // The parked lanes taken off the barrier: the warp's non-exited lanes, never none
            // (the lanes it arrived with; it has not run since). Nothing is left to clear:
            // a deferred arrival wrote no record field and parked no lane, and the round end
            // cleared the record and the parked lanes of arrivals written to the states.
            let live = g.state_load(types::I32, LIVE_OFF);
            let exited = g.state_load(types::I32, EXITED_OFF);
            let parked = g.b.ins().band_not(live, exited);
            if g.regions.blocks_of(p).is_empty() {
                // Not entered straight (a barrier target is a block or a region's head).
                g.state_or32(g.layout.pending(p), parked);
                g.set_active(p);
                g.b.ins().jump(g.dispatch, &[]);
            } else {
                // Straight into the target's block where no loop follows it; else through its
                // pending mask and entry, the dispatcher's way in (see `loop_ahead`).
                let blk = g.layout.order[p as usize];
                g.goto_prio_first(p, parked, loop_ahead(g.f, blk));
            }
        });
    }

    /// The CTA's warp count ([`FRAME_COUNT`], `i32`) and the pointer to its warp-state table
    /// ([`FRAME_TABLE`]), reloaded from the warp loop's stack slot `frame`.
    fn warp_count_and_table(&mut self, frame: StackSlot) -> (Value, Value) {
        let count = self
            .b
            .ins()
            .stack_load(self.ptr, types::I32, frame, FRAME_COUNT);
        let table = self
            .b
            .ins()
            .stack_load(self.ptr, self.ptr, frame, FRAME_TABLE);
        (count, table)
    }

    /// Where the dispatcher returns for an abort during warp `turn`'s turn (block `ret`,
    /// which returns): in a resumed pass, the releases of the warps after it (this warp's
    /// was made at its turn's start), so the scheduler sees every warp as the release at
    /// the pass's end would have left it. Leaves the builder in a block that returns.
    pub(super) fn gen_abort_release(&mut self, turn: Value, ret: cranelift_codegen::ir::Block) {
        let Some(ss) = self.bar_slot.filter(|_| self.resumes()) else {
            self.b.ins().jump(ret, &[]);
            return;
        };
        let r = self.b.ins().stack_load(self.ptr, types::I32, ss, RESUME);
        let chain = self.b.create_block();
        self.b.ins().brif(r, chain, &[], ret, &[]);
        self.b.switch_to_block(chain);
        let frame = self.e.frame;
        let (count, table) = self.warp_count_and_table(frame);
        let rec = self.b.ins().stack_load(self.ptr, types::I32, ss, REC);
        let rec_off = self.b.ins().uextend(self.ptr, rec);
        let start = self.b.ins().iadd_imm_s(turn, 1);
        self.branch_on_resume(r, |g, p| {
            g.gen_release_one(p, table, count, start, rec_off, ret)
        });
    }

    /// Branches on a resumed pass's record `r` (1 + the index of its target in
    /// `layout.barrier_targets`, never 0 here: [`RESUME`] holds no other value): `arm`
    /// generates the code for target block `p` (ending its block). The targets in a cycle
    /// of the CFG (barrier rounds in a loop, which resume again and again) are tested
    /// first; the last target tested needs no test.
    fn branch_on_resume(&mut self, r: Value, mut arm: impl FnMut(&mut Self, u32)) {
        let targets = self.layout.barrier_targets.clone();
        let mut order: Vec<usize> = (0..targets.len()).collect();
        order.sort_by_key(|&k| !in_cycle(self.f, self.layout.order[targets[k] as usize]));
        for (n, &k) in order.iter().enumerate() {
            let p = targets[k];
            if n + 1 == order.len() {
                arm(self, p);
                break;
            }
            let one = self.b.create_block();
            let next = self.b.create_block();
            let is = self.b.ins().icmp_imm_s(IntCC::Equal, r, k as i64 + 1);
            self.b.ins().brif(is, one, &[], next, &[]);
            self.b.switch_to_block(one);
            arm(self, p);
            self.b.switch_to_block(next);
        }
    }

    /// `ret`: return 0 (every warp stopped).
    fn gen_return_zero(&mut self, ret: cranelift_codegen::ir::Block) {
        self.b.switch_to_block(ret);
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().return_(&[zero]);
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::schedule::WarpLayout;
    use crate::runtime::env::CtaEnv;
    use crate::runtime::launch::{run_grid, LaunchDims, LaunchInput, WarpEngine, WarpStatus};
    use crate::runtime::memory::DeviceMemory;
    use std::sync::Mutex;

    /// The JIT's engine, noting each `run_round` call's rounds completed inside it
    /// (`CtaEnv::rounds_in_call`) and how it ended.
    struct Rounds {
        inner: crate::jit::JitKernel,
        calls: Mutex<Vec<(u32, WarpStatus)>>,
    }

    impl WarpEngine for Rounds {
        fn layout(&self) -> &WarpLayout {
            self.inner.layout()
        }
        fn zeroed_ranges(&self) -> Option<&[(u32, u32)]> {
            self.inner.zeroed_ranges()
        }
        fn runs_batches(&self) -> bool {
            self.inner.runs_batches()
        }
        fn frame_bytes(&self) -> Option<usize> {
            self.inner.frame_bytes()
        }
        fn run_warp(&self, state: &mut [u8], env: &CtaEnv) -> WarpStatus {
            self.inner.run_warp(state, env)
        }
        fn run_round(&self, states: &mut [Vec<u128>], env: &mut CtaEnv) -> (WarpStatus, u32) {
            let r = self.inner.run_round(states, env);
            let rounds = if env.complete_in_call != 0 {
                env.rounds_in_call
            } else {
                0
            };
            self.calls.lock().expect("not poisoned").push((rounds, r.0));
            r
        }
    }

    /// `bar_defer.ptx`'s kernel `name` (`two_ids` or `two_ids_ntid`,
    /// `ptx-tests/kernels/bar_defer`) on the JIT, `grid` CTAs of 96 threads with `k` loop
    /// trips: the output and each `run_round` call's rounds.
    fn two_ids(name: &str, grid: u32, k: u32) -> (Vec<u32>, Vec<(u32, WarpStatus)>) {
        let ptx = include_str!("../../ptx-tests/kernels/bar_defer/bar_defer.ptx");
        let (_, kernels) = crate::host::front_end(ptx, "bar_defer.ptx").expect("loads");
        let f = kernels.iter().find(|f| f.name == name).expect("the kernel");
        let engine = Rounds {
            inner: crate::jit::compile(f).expect("compiles"),
            calls: Mutex::new(vec![]),
        };
        let n = (grid * 96) as usize;
        let mut memory = DeviceMemory::new();
        let out = memory.alloc(4 * n as u64, None).expect("allocates");
        let mut params = vec![0u8; 16];
        params[..8].copy_from_slice(&out.0.to_le_bytes());
        params[8..12].copy_from_slice(&k.to_le_bytes());
        let dims = LaunchDims {
            grid: [grid, 1, 1],
            block: [96, 1, 1],
            shared_bytes: 0,
        };
        let mut input = LaunchInput::bare(dims, &mut params, &memory);
        input.static_shared = f.static_shared_bytes;
        run_grid(&engine, input).expect("runs");
        let mut bytes = vec![0u8; 4 * n];
        memory.read(out, &mut bytes).expect("reads");
        let got = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        (got, engine.calls.into_inner().expect("not poisoned"))
    }

    /// `arrival_tests` of the kernel `.entry k(.param .u64 p)` with `body`.
    fn tests_of(body: &str) -> (bool, bool) {
        let ptx = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 p)\n{{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<8>;\n{body}\nret;\n}}\n"
        );
        let (_, kernels) = crate::host::front_end(&ptx, "k.ptx").expect("loads");
        super::arrival_tests(&kernels[0])
    }

    /// The full arrival tests a barrier record only where a `bar.arrive` may leave one
    /// with lanes that still run, and the warp-level synchronization's lanes only where a
    /// warp operation may write them; reduce_shared needs neither.
    #[test]
    fn arrival_tests_follow_the_kernel() {
        let ptx = include_str!("../../ptx-tests/kernels/reduce_shared/reduce_shared.ptx");
        let (_, kernels) = crate::host::front_end(ptx, "reduce_shared.ptx").expect("loads");
        assert_eq!(super::arrival_tests(&kernels[0]), (false, false));
        let sync = "bar.sync 0;\nbar.sync 1, 64;\nbarrier.sync.aligned 2;";
        assert_eq!(tests_of(sync), (false, false));
        let red = "mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 7;\n\
                   bar.red.popc.u32 %r2, 0, %p1;\nbar.sync 0;";
        assert_eq!(tests_of(red), (false, false));
        let arrive = "mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 32;\n\
                      @%p1 bar.arrive 1, 64;\nbar.sync 0;";
        assert_eq!(tests_of(arrive), (true, false));
        let wsync = "bar.warp.sync -1;\nbar.sync 0;";
        assert_eq!(tests_of(wsync), (false, true));
        let shfl = "mov.u32 %r1, %tid.x;\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\nbar.sync 0;";
        assert_eq!(tests_of(shfl), (false, true));
    }

    /// The host's `two_ids` (the PTX's comment; `gen.py`).
    fn two_ids_host(grid: u32, k: u32) -> Vec<u32> {
        let mut out = vec![];
        for c in 0..grid {
            let b: Vec<u32> = (0..96).map(|t| 5 * t).collect();
            let mut r: Vec<u32> = (0..96)
                .map(|t| (t + 100 * c).wrapping_add(b[95 - t as usize]))
                .collect();
            for i in 1..=k {
                let a = r.clone();
                r = (0..96)
                    .map(|t| r[t].wrapping_add(a[(t + 5) % 96].wrapping_mul(i)))
                    .collect();
                let b = r.clone();
                r = (0..96)
                    .map(|t| r[t].wrapping_mul(3).wrapping_add(b[95 - t]))
                    .collect();
            }
            out.extend(r);
        }
        out
    }

    /// Every barrier round of `two_ids` (`bar.sync 3` once, then `bar.sync 1` and `bar.sync
    /// 2` per trip: 1 + 2 k rounds, each with every thread) completes inside the one call
    /// per CTA, with the arrivals deferred (`two_ids`) or written to the warp states
    /// (`two_ids_ntid`, whose thread counts are in a register): each release clears the
    /// record of the barrier the round's arrivals wrote. A release that cleared another
    /// record would leave the arrivals of one id, which make the next round's arrivals take
    /// the helper and the call return to the CTA scheduler (more calls; for `two_ids_ntid`
    /// a deadlock report, the stale record's lanes waiting at two barriers).
    #[test]
    fn two_ids_rounds_complete_in_the_call() {
        let (grid, k) = (3, 7);
        for name in ["two_ids", "two_ids_ntid"] {
            let (got, calls) = two_ids(name, grid, k);
            assert_eq!(got, two_ids_host(grid, k), "{name}");
            assert_eq!(
                calls.len(),
                grid as usize,
                "{name}: one call per CTA: {calls:?}"
            );
            for (rounds, status) in calls {
                assert_eq!((rounds, status), (1 + 2 * k, WarpStatus::Stopped), "{name}");
            }
        }
    }
}
