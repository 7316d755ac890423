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
//! - **Count**: each full arrival adds one to a per-pass count in a stack slot, with the key
//!   `threads | id` (a count is a multiple of 32, an id below 16, so the key names both);
//!   an arrival with another key than the pass's first poisons the count (`POISON`). A warp
//!   makes at most one full arrival per pass, so a count equal to the number of warps means
//!   every warp arrived fully at one barrier: no warp is exited (a warp with no non-exited
//!   lane cannot arrive), and all the conditions hold.
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
//!
//! - **Turn end**: a full arrival whose `Barrier` terminator passes no block arguments parks
//!   the lanes itself and ends the warp's turn (`Gen::turn_end`) without the dispatcher's
//!   scan: no lane of the warp is pending (all were in the arrival's mask). Bits of the
//!   active bitset left set for empty pending masks stay for the warp's next turn, whose
//!   dispatcher clears them as it would have now; the abort flag is read again at the next
//!   warp's dispatch, or at the next pass's first, or the call returns.
//!
//! # Deferred arrivals and releases
//! Where the whole CTA arrives fully at one `bar.sync` in a pass, nothing of the arrival or
//! the release needs to be in the warp states while the call runs on; it is written there
//! only before the call returns:
//!
//! - **Deferred arrival**: a full arrival at a [`Site`] (a constant predicate, a `Barrier`
//!   terminator without block arguments: the arrival ends the turn), whose whole record is 0,
//!   in a call with [`LAZY_OK`] (the scheduler's flag, at most 32 warps), where the pass's
//!   earlier deferred arrivals had the same [`TAG`] (site and key), sets the turn's bit in
//!   [`LAZY`] and ends the turn. Other full arrivals are written as above.
//! - **Deferred release**: a pass whose [`LAZY`] holds every turn of the call, with a thread
//!   count of 0 or 32 × the warps, is complete by the argument above (every warp arrived
//!   fully at one barrier and site; the call covers the CTA). The round end writes nothing
//!   to the warps: it puts the site into [`RESUME`] and starts the next pass.
//! - **Resume**: a turn that starts with [`RESUME`] set does what the release and the
//!   dispatcher would: the warp's non-exited lanes pending at the site's target, the active
//!   bits up to the target cleared (every other pending mask is empty: the warp's lanes were
//!   all in its arrival's mask), and on to the target's entry; the abort flag is read first.
//! - **Every return** ([`Lazy::exit`]) writes the deferred work into the warp states: the
//!   releases of the turns not yet resumed in a resumed pass (those after the current turn;
//!   a warp whose resume finds the abort flag gets its release there), and the pass's
//!   deferred arrivals with the record fields and parking the eager arrival writes (a warp's
//!   arrival mask is its non-exited lanes: it has not run since). The scheduler thus sees the
//!   states the eager code leaves, at every return.
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

/// A count that can never equal a number of warps: arrivals at different barriers in one
/// pass.
const POISON: i64 = 1 << 30;
/// Offset of the pass's full-arrival count in the stack slot.
const COUNT: i32 = 0;
/// Offset of the pass's barrier key (`threads | id`) in the stack slot.
const KEY: i32 = 4;
/// Offset of the pass's barrier targets in the stack slot: bit `k` set when a full arrival
/// parked its warp at `WarpLayout::barrier_targets[k]` (for kernels with at most
/// [`MAX_TARGETS`] of them).
const TARGETS: i32 = 8;
/// Offset of the resume word in the stack slot: the [`Site::inst`] of the barrier whose
/// deferred release this pass's warps take at the start of their turns, 0 for none.
const RESUME: i32 = 12;
/// Offset of the pass's deferred arrivals in the stack slot: bit `j` set when the warp of
/// turn `j` arrived without writing its state.
const LAZY: i32 = 16;
/// Offset of the call's permission for deferred arrivals in the stack slot: 1 when the
/// scheduler allows the in-call completion and the call runs at most 32 warps.
const LAZY_OK: i32 = 20;
/// Offset of the deferred arrivals' tag in the stack slot (`u64`): the site's
/// [`Site::inst`] in the high word, the key `threads | id` in the low one.
const TAG: i32 = 24;
/// Bytes of the stack slot.
const SLOT_BYTES: u32 = 32;
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

/// The stack slot of the per-pass count and key, for a kernel with [`in_call_completion`],
/// zeroed in the function's entry block (the current block of `b`), with the call's
/// permission for deferred arrivals ([`LAZY_OK`]) from the environment `env` and the call's
/// warp count `count`.
pub(super) fn new_slot(
    b: &mut FunctionBuilder,
    ptr: cranelift_codegen::ir::Type,
    env: Value,
    count: Value,
) -> StackSlot {
    let ss = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        SLOT_BYTES,
        3,
    ));
    let zero = b.ins().iconst(types::I64, 0);
    for off in (0..SLOT_BYTES as i32).step_by(8) {
        b.ins().stack_store(ptr, zero, ss, off);
    }
    let allowed = b.ins().load(
        types::I32,
        TRUSTED(),
        env,
        offset_of!(CtaEnv, complete_in_call) as i32,
    );
    let small = b
        .ins()
        .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, count, i64::from(WARP_SIZE));
    let small = b.ins().uextend(types::I32, small);
    let ok = b.ins().band(allowed, small);
    b.ins().stack_store(ptr, ok, ss, LAZY_OK);
    ss
}

/// The resume word of the stack slot `ss` ([`RESUME`]), loaded at a turn's start.
pub(super) fn resume_word(
    b: &mut FunctionBuilder,
    ptr: cranelift_codegen::ir::Type,
    ss: StackSlot,
) -> Value {
    b.ins().stack_load(ptr, types::I32, ss, RESUME)
}

/// A `bar.sync` whose full arrivals may be deferred (the module comment's "Deferred
/// arrival"): what its record and parking would have been, for the code that writes them
/// later.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Site {
    /// The instruction's index plus one (its record's `BAR_INST`).
    inst: u32,
    /// The barrier id (a constant).
    id: u32,
    /// The record's `BAR_FLAGS`.
    flags: u32,
    /// The predicate is a constant other than 0: the record's `BAR_PRED` gets the lanes.
    pred: bool,
    /// The priority of the barrier's target block.
    target: u32,
}

/// The deferred arrivals of a kernel with [`in_call_completion`]: the sites found while
/// the blocks are generated, and two blocks filled after them ([`Gen::gen_lazy_blocks`]).
pub(super) struct Lazy {
    /// The sites, at most [`MAX_SITES`].
    pub(super) sites: Vec<Site>,
    /// The start of a turn whose pass began with a deferred release (parameter: the
    /// [`RESUME`] word, not 0).
    pub(super) resume: cranelift_codegen::ir::Block,
    /// Every return of the call (parameter: the status to return): writes the deferred
    /// arrivals and releases into the warp states first.
    pub(super) exit: cranelift_codegen::ir::Block,
}

impl Lazy {
    /// The blocks, with their parameters, for a kernel with [`in_call_completion`].
    pub(super) fn new(b: &mut FunctionBuilder) -> Lazy {
        let resume = b.create_block();
        b.append_block_param(resume, types::I32);
        let exit = b.create_block();
        b.append_block_param(exit, types::I32);
        Lazy {
            sites: vec![],
            resume,
            exit,
        }
    }
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
        let flags = kind.code()
            | if aligned {
                crate::analysis::schedule::BAR_ALIGNED
            } else {
                0
            };
        let site = self.lazy_site(i, id, flags, pred, &bd.term);
        let s = self.e.state;
        let ld = |g: &mut Self, off: u32| g.b.ins().load(types::I32, TRUSTED(), s, off as i32);
        let live = ld(self, LIVE_OFF);
        let exited = ld(self, EXITED_OFF);
        let alive = self.b.ins().band_not(live, exited);
        let partial = self.b.ins().bxor(mask, alive);
        let mut busy = self.b.ins().band_imm_s(threads, i64::from(WARP_SIZE - 1));
        busy = self.b.ins().bor(busy, partial);
        let mut offs = vec![WSYNC_WAIT_OFF];
        if site.is_some() {
            // A deferred arrival leaves the record as it is, and a deferred release does not
            // clear it: the whole record is 0 (as the release leaves it).
            let mut any = None;
            for k in (0..BAR_REC).step_by(8) {
                let off = (BAR_OFF + id * BAR_REC + k) as i32;
                let w = self.b.ins().load(types::I64, TRUSTED(), s, off);
                any = Some(match any {
                    Some(a) => self.b.ins().bor(a, w),
                    None => w,
                });
            }
            if let Some(any) = any {
                let nz = self.b.ins().icmp_imm_s(IntCC::NotEqual, any, 0);
                let nz = self.b.ins().uextend(types::I32, nz);
                busy = self.b.ins().bor(busy, nz);
            }
        } else {
            offs.push(bar_field(id, BAR_ARRIVED));
            offs.push(bar_field(id, BAR_WAITING));
        }
        for o in (0..16).filter(|&o| o != id && ids >> o & 1 != 0) {
            offs.push(bar_field(o, BAR_ARRIVED));
            offs.push(bar_field(o, BAR_WAITING));
        }
        for off in offs {
            let v = ld(self, off);
            busy = self.b.ins().bor(busy, v);
        }
        let fast = self.b.create_block();
        let slow_b = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(busy, slow_b, &[], fast, &[]);

        self.b.switch_to_block(fast);
        if let (Some(site), Some(ss), Some(end)) = (site, self.bar_slot, self.turn_end) {
            // The deferred arrival, where the call allows it and the pass's earlier deferred
            // arrivals were at this barrier with this key: the turn's bit and the tag only.
            let ok = self.b.ins().stack_load(self.ptr, types::I32, ss, LAZY_OK);
            let lazy = self.b.ins().stack_load(self.ptr, types::I32, ss, LAZY);
            let old = self.b.ins().stack_load(self.ptr, types::I64, ss, TAG);
            let key = self.b.ins().bor_imm_s(threads, i64::from(id));
            let key = self.b.ins().uextend(types::I64, key);
            let tag = self.b.ins().bor_imm_s(key, i64::from(site.inst) << 32);
            let first = self.b.ins().icmp_imm_s(IntCC::Equal, lazy, 0);
            let same = self.b.ins().icmp(IntCC::Equal, old, tag);
            let fits = self.b.ins().bor(first, same);
            let fits = self.b.ins().uextend(types::I32, fits);
            let go = self.b.ins().band(ok, fits);
            let defer = self.b.create_block();
            let eager = self.b.create_block();
            self.b.ins().brif(go, defer, &[], eager, &[]);
            self.b.switch_to_block(defer);
            self.b.ins().stack_store(self.ptr, tag, ss, TAG);
            let turn = self
                .b
                .ins()
                .stack_load(self.ptr, types::I32, self.e.frame, FRAME_TURN);
            let one = self.b.ins().iconst(types::I32, 1);
            let bit = self.b.ins().ishl(one, turn);
            let lazy = self.b.ins().bor(lazy, bit);
            self.b.ins().stack_store(self.ptr, lazy, ss, LAZY);
            self.b.ins().jump(end, &[]);
            self.b.switch_to_block(eager);
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
            let key = self.b.ins().stack_load(self.ptr, types::I32, ss, KEY);
            let new_key = self.b.ins().bor_imm_s(threads, i64::from(id));
            let first = self.b.ins().icmp_imm_s(IntCC::Equal, count, 0);
            let same = self.b.ins().icmp(IntCC::Equal, key, new_key);
            let ok = self.b.ins().bor(first, same);
            let next = self.b.ins().iadd_imm_s(count, 1);
            let poison = self.b.ins().iconst(types::I32, POISON);
            let count = self.b.ins().select(ok, next, poison);
            self.b.ins().stack_store(self.ptr, count, ss, COUNT);
            self.b.ins().stack_store(self.ptr, new_key, ss, KEY);
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
        let count = self
            .b
            .ins()
            .stack_load(self.ptr, types::I32, frame, FRAME_COUNT);
        let table = self
            .b
            .ins()
            .stack_load(self.ptr, self.ptr, frame, FRAME_TABLE);
        let allowed = self.b.ins().load(
            types::I32,
            TRUSTED(),
            env,
            offset_of!(CtaEnv, complete_in_call) as i32,
        );
        // Every warp of the call arrived deferred (at one site, with one key), with a valid
        // thread count: the deferred release, taken by each warp at the start of its turn
        // in the next pass (`Gen::gen_lazy_blocks`).
        let lazy = self.b.ins().stack_load(self.ptr, types::I32, ss, LAZY);
        let tag = self.b.ins().stack_load(self.ptr, types::I64, ss, TAG);
        let n64 = self.b.ins().uextend(types::I64, count);
        let one = self.b.ins().iconst(types::I64, 1);
        let every = self.b.ins().ishl(one, n64);
        let every = self.b.ins().iadd_imm_s(every, -1);
        let every = self.b.ins().ireduce(types::I32, every);
        let all_lazy = self.b.ins().icmp(IntCC::Equal, lazy, every);
        let some = self.b.ins().icmp_imm_s(IntCC::NotEqual, lazy, 0);
        let lkey = self.b.ins().ireduce(types::I32, tag);
        let lthreads = self.b.ins().band_imm_s(lkey, !0xf);
        let lzero = self.b.ins().icmp_imm_s(IntCC::Equal, lthreads, 0);
        let lcta = self.b.ins().imul_imm_s(count, i64::from(WARP_SIZE));
        let lexact = self.b.ins().icmp(IntCC::Equal, lthreads, lcta);
        let lthr = self.b.ins().bor(lzero, lexact);
        let lgo = self.b.ins().band(all_lazy, some);
        let lgo = self.b.ins().band(lgo, lthr);
        let deferred = self.b.create_block();
        let eager = self.b.create_block();
        self.b.ins().brif(lgo, deferred, &[], eager, &[]);
        self.b.switch_to_block(deferred);
        let off = offset_of!(CtaEnv, rounds_in_call) as i32;
        let r = self.b.ins().load(types::I32, TRUSTED(), env, off);
        let r = self.b.ins().iadd_imm_s(r, 1);
        self.b.ins().store(TRUSTED(), r, env, off);
        let zero64 = self.b.ins().iconst(types::I64, 0);
        self.b.ins().stack_store(self.ptr, zero64, ss, COUNT);
        let zero32 = self.b.ins().iconst(types::I32, 0);
        self.b.ins().stack_store(self.ptr, zero32, ss, TARGETS);
        self.b.ins().stack_store(self.ptr, zero32, ss, LAZY);
        let site = self.b.ins().ushr_imm_u(tag, 32);
        let site = self.b.ins().ireduce(types::I32, site);
        self.b.ins().stack_store(self.ptr, site, ss, RESUME);
        self.b
            .ins()
            .stack_store(self.ptr, zero32, frame, FRAME_TURN);
        let warp_loop = self.e.warp_loop;
        self.b.ins().jump(warp_loop, &[]);
        self.b.switch_to_block(eager);

        let n = self.b.ins().stack_load(self.ptr, types::I32, ss, COUNT);
        let key = self.b.ins().stack_load(self.ptr, types::I32, ss, KEY);
        let all = self.b.ins().icmp(IntCC::Equal, n, count);
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
        let id = self.b.ins().uextend(self.ptr, id);
        let rec_off = self.b.ins().imul_imm_s(id, i64::from(BAR_REC));
        let after = self.b.create_block();
        let targets = self.layout.barrier_targets.clone();
        if targets.len() <= MAX_TARGETS {
            // Every warp parked at one target (one bit in the pass's targets): only its
            // masks change.
            let seen = self.b.ins().stack_load(self.ptr, types::I32, ss, TARGETS);
            for (k, &p) in targets.iter().enumerate() {
                let one = self.b.create_block();
                let next = self.b.create_block();
                let is = self.b.ins().icmp_imm_s(IntCC::Equal, seen, 1 << k);
                self.b.ins().brif(is, one, &[], next, &[]);
                self.b.switch_to_block(one);
                self.gen_release_one(p, table, count, rec_off, after);
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
        // (The targets and the resume word; no warp arrived deferred: each was counted.)
        let zero64 = self.b.ins().iconst(types::I64, 0);
        self.b.ins().stack_store(self.ptr, zero64, ss, 0);
        self.b.ins().stack_store(self.ptr, zero64, ss, TARGETS);
        let zero32 = self.b.ins().iconst(types::I32, 0);
        self.b.ins().stack_store(self.ptr, zero32, ss, LAZY);
        self.b
            .ins()
            .stack_store(self.ptr, zero32, frame, FRAME_TURN);
        let warp_loop = self.e.warp_loop;
        self.b.ins().jump(warp_loop, &[]);
        self.b.switch_to_block(ret);
        self.gen_exit(0);
    }

    /// Return `status` from the call, through [`Lazy::exit`] where the kernel has one.
    pub(super) fn gen_exit(&mut self, status: i64) {
        let v = self.b.ins().iconst(types::I32, status);
        self.gen_exit_value(v);
    }

    /// Return the `i32` `status` from the call, through [`Lazy::exit`] where the kernel has
    /// one.
    pub(super) fn gen_exit_value(&mut self, status: Value) {
        match &self.lazy {
            Some(l) => {
                let exit = l.exit;
                self.b.ins().jump(exit, &[BlockArg::Value(status)]);
            }
            None => {
                self.b.ins().return_(&[status]);
            }
        }
    }

    /// Whether the arrival `i` at barrier `id` (constant), whose record would get `flags`,
    /// with the predicate `pred` and the block terminator `term`, may be deferred: a kernel
    /// with [`Lazy`], a constant predicate, a `Barrier` terminator that passes no block
    /// arguments (the full arrival ends the warp's turn), and a free place among the
    /// [`MAX_SITES`] sites. Returns its site, recorded.
    fn lazy_site(
        &mut self,
        i: ir::Inst,
        id: u32,
        flags: u32,
        pred: Option<u64>,
        term: &Terminator,
    ) -> Option<Site> {
        self.turn_end?;
        let pred = pred?;
        let Terminator::Barrier { next } = term else {
            return None;
        };
        if !next.args.is_empty() {
            return None;
        }
        let site = Site {
            inst: i.0.checked_add(1)?,
            id,
            flags,
            pred: pred != 0,
            target: self.layout.prio[next.block.index()],
        };
        let lazy = self.lazy.as_mut()?;
        if !lazy.sites.contains(&site) {
            if lazy.sites.len() >= MAX_SITES || lazy.sites.iter().any(|o| o.inst == site.inst) {
                return None;
            }
            lazy.sites.push(site);
        }
        Some(site)
    }

    /// The warp's non-exited lanes, from its state `s`.
    fn alive_lanes(&mut self, s: Value) -> Value {
        let live = self.b.ins().load(types::I32, TRUSTED(), s, LIVE_OFF as i32);
        let exited = self
            .b
            .ins()
            .load(types::I32, TRUSTED(), s, EXITED_OFF as i32);
        self.b.ins().band_not(live, exited)
    }

    /// `state[off] |= v` for a `u32` mask word of the state `s`.
    fn or32_at(&mut self, s: Value, off: u32, v: Value) {
        let old = self.b.ins().load(types::I32, TRUSTED(), s, off as i32);
        let new = self.b.ins().bor(old, v);
        self.b.ins().store(TRUSTED(), new, s, off as i32);
    }

    /// One branch per site of `sites` on `word == Site::inst`, each running `body` and
    /// going on to `after`; no site: straight to `after`.
    fn per_site(
        &mut self,
        sites: &[Site],
        word: Value,
        after: cranelift_codegen::ir::Block,
        body: &mut dyn FnMut(&mut Self, Site),
    ) {
        for &site in sites {
            let here = self.b.create_block();
            let next = self.b.create_block();
            let is = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, word, i64::from(site.inst));
            self.b.ins().brif(is, here, &[], next, &[]);
            self.b.switch_to_block(here);
            body(self, site);
            self.b.ins().jump(after, &[]);
            self.b.switch_to_block(next);
        }
        self.b.ins().jump(after, &[]);
    }

    /// The release `complete_uniform` gives a warp (state `s`) whose lanes all arrived at
    /// `site` deferred: its non-exited lanes pending at the target, the target's active bit
    /// set (the record was 0 and stays so; nothing was parked).
    fn deferred_release(&mut self, s: Value, site: Site) {
        let alive = self.alive_lanes(s);
        self.or32_at(s, self.layout.pending(site.target), alive);
        let ao = (self.layout.active_off + 8 * (site.target / 64)) as i32;
        let word = self.b.ins().load(types::I64, TRUSTED(), s, ao);
        let word = self.b.ins().bor_imm_s(word, 1i64 << (site.target % 64));
        self.b.ins().store(TRUSTED(), word, s, ao);
    }

    /// What a full arrival at `site` with thread count `threads` writes into the warp's
    /// state `s` (`gen_bar_full`'s record fields and the terminator's parking), for a warp
    /// whose arrival was deferred: its lanes then were its non-exited lanes now (it has not
    /// run since).
    fn deferred_arrival(&mut self, s: Value, site: Site, threads: Value) {
        let alive = self.alive_lanes(s);
        let st = |g: &mut Self, v: Value, field: u32| {
            g.b.ins()
                .store(TRUSTED(), v, s, bar_field(site.id, field) as i32);
        };
        st(self, threads, BAR_THREADS);
        let inst = self.b.ins().iconst(types::I32, i64::from(site.inst));
        st(self, inst, BAR_INST);
        let flags = self.b.ins().iconst(types::I32, i64::from(site.flags));
        st(self, flags, BAR_FLAGS);
        st(self, alive, BAR_ARRIVED);
        st(self, alive, BAR_WAITING);
        if site.pred {
            self.or32_at(s, bar_field(site.id, BAR_PRED), alive);
        }
        self.or32_at(s, self.layout.parked(site.target), alive);
    }

    /// The blocks of [`Lazy`], once every block is generated (the sites are known):
    /// - `resume` (a turn's start in a pass that began with a deferred release, the site in
    ///   its parameter): the abort flag read as the dispatcher reads it before every block;
    ///   set, the warp gets its release and the dispatcher returns. Else the warp's lanes
    ///   pending at the target, the active bits up to the target's cleared (the dispatcher,
    ///   finding the target's bit the lowest with lanes, clears those: every other pending
    ///   mask of the warp is empty) and straight to the target's entry.
    /// - `exit` (every return): the releases of the warps after the current turn in such a
    ///   pass, and the arrivals deferred in this pass, written into the warp states as the
    ///   code without deferral would have left them; then the return.
    pub(super) fn gen_lazy_blocks(&mut self) {
        let (Some(lazy), Some(ss)) = (self.lazy.take(), self.bar_slot) else {
            return;
        };
        let sites = lazy.sites.clone();
        let frame = self.e.frame;
        let dispatch = self.dispatch;

        self.b.switch_to_block(lazy.resume);
        let word = self.b.block_params(lazy.resume)[0];
        let s = self.e.state;
        let abort = self.abort_flag();
        for &site in &sites {
            let here = self.b.create_block();
            let next = self.b.create_block();
            let is = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, word, i64::from(site.inst));
            self.b.ins().brif(is, here, &[], next, &[]);
            self.b.switch_to_block(here);
            let stop = self.b.create_block();
            let go = self.b.create_block();
            self.b.ins().brif(abort, stop, &[], go, &[]);
            self.b.switch_to_block(stop);
            self.deferred_release(s, site);
            self.b.ins().jump(dispatch, &[]);
            self.b.switch_to_block(go);
            let alive = self.alive_lanes(s);
            self.or32_at(s, self.layout.pending(site.target), alive);
            let p = site.target;
            for w in 0..=p / 64 {
                let ao = (self.layout.active_off + 8 * w) as i32;
                if w < p / 64 {
                    let zero = self.b.ins().iconst(types::I64, 0);
                    self.b.ins().store(TRUSTED(), zero, s, ao);
                } else {
                    let upto = if p % 64 == 63 {
                        -1i64
                    } else {
                        (1i64 << (p % 64 + 1)) - 1
                    };
                    let old = self.b.ins().load(types::I64, TRUSTED(), s, ao);
                    let new = self.b.ins().band_imm_s(old, !upto);
                    self.b.ins().store(TRUSTED(), new, s, ao);
                }
            }
            let enter = self.enter[p as usize];
            self.b.ins().jump(enter, &[]);
            self.b.switch_to_block(next);
        }
        // No site has this word (only sites write it): the dispatcher.
        self.b.ins().jump(dispatch, &[]);

        self.b.switch_to_block(lazy.exit);
        let status = self.b.block_params(lazy.exit)[0];
        let table = self
            .b
            .ins()
            .stack_load(self.ptr, self.ptr, frame, FRAME_TABLE);
        let count = self
            .b
            .ins()
            .stack_load(self.ptr, types::I32, frame, FRAME_COUNT);
        let resume = self.b.ins().stack_load(self.ptr, types::I32, ss, RESUME);
        let releases = self.b.create_block();
        let arrivals = self.b.create_block();
        self.b.ins().brif(resume, releases, &[], arrivals, &[]);
        self.b.switch_to_block(releases);
        let turn = self
            .b
            .ins()
            .stack_load(self.ptr, types::I32, frame, FRAME_TURN);
        let start = self.b.ins().iadd_imm_s(turn, 1);
        let (head, j, s) = self.warp_table_loop_from(table, start, count, arrivals);
        let cont = self.b.create_block();
        self.per_site(&sites, resume, cont, &mut |g, site| {
            g.deferred_release(s, site)
        });
        self.b.switch_to_block(cont);
        self.warp_table_next(head, j);

        self.b.switch_to_block(arrivals);
        let lazy_bits = self.b.ins().stack_load(self.ptr, types::I32, ss, LAZY);
        let some = self.b.create_block();
        let ret = self.b.create_block();
        self.b.ins().brif(lazy_bits, some, &[], ret, &[]);
        self.b.switch_to_block(some);
        let tag = self.b.ins().stack_load(self.ptr, types::I64, ss, TAG);
        let inst = self.b.ins().ushr_imm_u(tag, 32);
        let inst = self.b.ins().ireduce(types::I32, inst);
        let key = self.b.ins().ireduce(types::I32, tag);
        let threads = self.b.ins().band_imm_s(key, !0xf);
        let zero = self.b.ins().iconst(types::I32, 0);
        let (head, j, s) = self.warp_table_loop_from(table, zero, count, ret);
        let bit = self.b.ins().ushr(lazy_bits, j);
        let bit = self.b.ins().band_imm_s(bit, 1);
        let write = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(bit, write, &[], cont, &[]);
        self.b.switch_to_block(write);
        self.per_site(&sites, inst, cont, &mut |g, site| {
            g.deferred_arrival(s, site, threads)
        });
        self.b.switch_to_block(cont);
        self.warp_table_next(head, j);

        self.b.switch_to_block(ret);
        self.b.ins().return_(&[status]);
    }

    /// `complete_uniform`'s release for a pass in which every warp fully arrived at a barrier
    /// whose target is block priority `p` (the pass's targets hold that one bit): each warp's
    /// lanes are all parked at `p` (none is parked elsewhere, none is pending: see the
    /// module comment), so only `p`'s masks and active bit change, and the barrier's record
    /// (at `rec_off` in the state) is cleared. Then on to `after`.
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
        self.warp_table_loop_from(table, zero32, count, after)
    }

    /// [`Self::warp_table_loop`] from the warp with index `start` (an `i32`; none when it is
    /// `count` or more).
    pub(super) fn warp_table_loop_from(
        &mut self,
        table: Value,
        start: Value,
        count: Value,
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

    fn gen_release_one(
        &mut self,
        p: u32,
        table: Value,
        count: Value,
        rec_off: Value,
        after: cranelift_codegen::ir::Block,
    ) {
        let (head, j, s) = self.warp_table_loop(table, count, after);
        let (po, qo) = (self.layout.parked(p) as i32, self.layout.pending(p) as i32);
        let parked = self.b.ins().load(types::I32, TRUSTED(), s, po);
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

    /// `ret`: return 0 (every warp stopped), for a kernel compiled for batches.
    fn gen_return_zero(&mut self, ret: cranelift_codegen::ir::Block) {
        self.b.switch_to_block(ret);
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().return_(&[zero]);
    }
}
