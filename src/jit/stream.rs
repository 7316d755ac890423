//! A run of fresh full warps through the first block's region without the per-warp
//! machinery: the warp loop's turn, the warp start, the dispatcher and the region's entry.
//!
//! A streaming kernel (`if (i < n) y[i] = a * x[i] + y[i]`) is one region (`region.rs`)
//! that starts at the entry block and ends every lane there; the per-call flag
//! (`ctacheck.rs`) says that each warp of the call passes that region's range checks and
//! branch tests. A warp of such a call still paid for its turn: state pointer, `env.warp`,
//! abort flag, entry bit, pending mask, hoisted values' merges, lane 0's address replay from
//! the `%tid` table, the region's end and the dispatcher's scan. Here a second copy of the
//! region (`Gen::gen_region` with [`Stream`]) runs in a loop over the call's turns:
//!
//! ```text
//! warp start (turn t): abort → dispatcher; entry bit clear → dispatcher
//!     flag && count > 1 && fresh(t) → entry               else the region as before
//! entry:    the prologue's hoisted values → a slot of their own and loaded back; the state
//!           table, first warp, warp count, the copy's per-call `env` fields (and the abort
//!           pointer where the copy calls) loaded (once per loop); → head(turn, 32 · (first + turn))
//! head(t, tid0):  state = table[t]; fresh(t)? else → leave(t)  (one branch per word; none
//!           where the states are known fresh, below)
//!           w = first + t; env.warp = w (only where the copy calls); active word 0 = 0
//!           the region (pending mask = 0 stored, mask = all lanes, first lane 0,
//!           %tid.x of lane 0 = tid0 = 32 · w, `%warpid` = w, hoisted values from the entry);
//!           exited |= the lanes that left
//!           abort → return t + 1                (the dispatcher's return; where it calls)
//!           t + 1 < count → head(t + 1, tid0 + 32)
//!           (no call: env.warp = first + count − 1; abort → return count)
//!           else leave(t + 1)
//! leave(t): turn = t → the warp loop                       (its test, or the warp's turn)
//! fresh(t): active word 0 == 1, the other active words 0, pending mask of priority 0 all lanes
//! ```
//!
//! Where the flag covers every condition of the region's full-warp version, the copy is that
//! version alone (`Gen::region_loops`); otherwise it keeps the per-warp tests and the general
//! version behind them, as the region has them.
//!
//! # Warp states left fresh (kernels compiled for batches)
//! In a kernel compiled for batches (`batch.rs`: `Gen::batch_again`) the loop does not write
//! the warp states it runs: no active word, pending mask or exited mask per turn, so each
//! state stays as `start_cta` or the batch restart left it. What the eager copy would have
//! written (active word 0 = 0, the head's pending mask = 0, every lane exited) is written
//! for the turns the loop ran, from the turn it started at, at each way out: `leave(t)`,
//! the abort return, and the end of the batch. Where the loop ran every warp of the CTA (it
//! started at turn 0) and the call has a batch, the end of its last turn calls
//! `cta_batch_next` itself: with 1 it sets the turn to 0 and goes to the prologue with the
//! states still fresh, skipping the restart's rewrite (the new CTA's states are exactly
//! what the restart would write); with 0 it writes the exits and returns 0 as the round's
//! end does. Otherwise it writes the exits and leaves with `t = count`.
//!
//! # Known-fresh CTAs
//! Where the loop chains to the batch's next CTA that way, every state of the call was
//! found fresh by `head` (or known so, below) in the CTA it ran, and none was written since:
//! not by the loop (states left fresh), nor by `cta_batch_next` or the prologue (they read
//! no warp state but the first's pending mask). So the chain stores 1 to the frame's
//! `FRAME_FRESH` word, and the loop's entry reads it and stores 0: where it read 1 and the
//! loop starts at turn 0 (straight from the prologue the chain jumped to, through the warp
//! start of turn 0, which writes nothing on its way to the loop), `head` runs each turn
//! without the freshness test, and loads the state only where the region's copy reads it.
//! The word is 0 at the call's start and the round end's restart (`batch.rs`) stores 0, so
//! it is 1 at an entry only after the chain. Every CTA of a batch has the same warps (one
//! block shape), and a state the test would find stale would have been found so in the
//! first CTA, which then does not chain.
//!
//! # ⚠ Soundness: read before changing
//! The copy must leave every warp state, the environment and memory as the warp loop,
//! the warp start, the region and the dispatcher leave them for the same turns:
//! - **Which kernels** ([`Gen::stream_region`]): warps entered only at their start (no
//!   barrier terminator or resume point), no racecheck, a per-call flag, and a region at
//!   priority 0 whose terminators only jump or branch to its other blocks or exit (no
//!   barrier, trap, nor an edge to its head or outside: every lane that enters it has
//!   exited when it ends, so the dispatcher after it would find no active block), with no
//!   warp operation (`Effect::Warp`: no vote, shuffle, warp sync, helper that reads other
//!   lanes or the warp's records).
//! - **Which warps**: a fresh one (`fresh(t)` above: what `start_cta` and `batch.rs`
//!   leave, with all 32 lanes live). The normal warp start tests the same before it enters
//!   `head`, on the same unchanged state, so a warp that `head` leaves for the warp loop
//!   takes the normal path there, and no turn loops. The flag holds for the whole call
//!   (it is the prologue's, which runs again for the next CTA of a batch).
//! - **State**: the normal path clears the entry bit (warp start), stores 0 to the pending
//!   mask (region entry), ORs the exiting lanes into the exited mask (region end), and the
//!   dispatcher then finds no active bit and takes the next turn; `head` does the same
//!   stores. Every other write of the region's code (slots, helper calls) is the same code
//!   on the same state pointer. With the states left fresh, those three stores are made
//!   at the loop's ways out instead (every lane exits: the region ends every lane, and the
//!   mask is all lanes); nothing in between reads them: the region's copy takes its mask
//!   as a constant, the dispatcher is not reached, and `cta_batch_next` reads no warp
//!   state. The restart's words (`batch::restart_words`) are the header's masks, which the
//!   region's copy writes only through those three stores (its value slots lie after the
//!   header), so a CTA whose warps all ran in the loop needs no restart. The freshness test
//!   at `head` reads the unchanged state: no turn is run twice, as the turn only grows.
//! - **Values**: with the flag 1 the CTA is 1-D and `%tid.x` linear (both in the flag), so
//!   lane 0's `%tid.x` of warp `w` is `32 · w`, the value the `%tid` table holds there
//!   (`Gen::tid0` takes it in the copy); the mask is all lanes, so its first lane is 0;
//!   the hoisted values are the prologue's without the test of its flag
//!   (`Gen::hoisted_section`), as the per-call flag is 1 only on the prologue's path that
//!   computed them; `entry` stores them to a slot each time the loop starts and loads them
//!   back from there, for every turn (nothing else writes the slot).
//! - **Environment**: `env.warp` is written for every turn (but see "Turns without calls"),
//!   as the warp loop writes it
//!   where it differs; only when the call runs more than one warp (`run_round`, whose
//!   environment is the code's to write; `run_warp` passes one warp and a shared one).
//! - **Abort**: a fault in the region's fallbacks (where a warp fails a test that the flag
//!   does not cover) stops the launch as before; after each warp the abort flag is read as
//!   the dispatcher reads it, and the call returns the number of warps that ran.
//! - **Registers**: the loop reads no value the code outside it reads after it leaves (the
//!   hoisted values are `entry`'s loads from its slot, the call's values `entry`'s loads), so
//!   the register allocator keeps the turn's values in registers where the loop makes no
//!   helper call; the frame slots and `env.abort` read once are the same for the whole call.
//! - **Turns without calls**: where no call instruction is reachable in the copy (from the
//!   turn's first block to its tail, `Gen::copy_calls`), nothing in a turn reads
//!   `env.warp` (helpers do; the copy's own `%warpid` is the turn's value, `Gen::env_val`)
//!   or can raise the abort flag (only helpers record faults). The loop then writes
//!   `env.warp` and reads the flag once, after its last turn: another worker's fault or a
//!   stop is seen at most one CTA's warps later, and `cta_batch_next` claims the next CTA's
//!   stop flag itself. A way out in the middle (`leave`) goes to the warp loop, which
//!   writes `env.warp` where it differs and whose warp start reads the flag.
//! - **Per-call values**: the copy's `env` fields other than `env.warp` (global and shared
//!   windows, parameters, memcheck) are the same for the whole call and are loaded at the
//!   entry, which runs again for each CTA of a batch (through the prologue).
//! - **Turn**: the frame's turn is stale inside the loop and written before anything reads
//!   it again (`leave`); the dispatcher, its only other reader, is not reached from the copy.

use super::codegen::{
    Gen, FRAME_COUNT, FRAME_FIRST, FRAME_FRESH, FRAME_TABLE, FRAME_TURN, TRUSTED,
};
use crate::analysis::schedule::EXITED_OFF;
use crate::ir::{self, Terminator};
use crate::runtime::env::CtaEnv;
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, StackSlotData, StackSlotKind, Value};
use std::mem::offset_of;
use std::ops::Range;

type CBlock = cranelift_codegen::ir::Block;

/// `PTXJIT_NO_STREAM` is set: no stream loop (for measurements).
pub(super) fn stream_off() -> bool {
    crate::switches::switches().no_stream
}

/// The values of the turn whose region copy is being emitted (`Gen::stream`).
#[derive(Clone, Copy)]
pub(super) struct Stream {
    /// Lane 0's `%tid.x`: 32 · the warp's index in its CTA (`i32`).
    pub(super) tid0: Value,
    /// The warp's index in its CTA (`i32`): what `env.warp` holds in the normal path, which
    /// the copy reads instead of the environment (`Gen::env_val`).
    pub(super) warp: Value,
    /// The jump that ends the loop's entry: the copy's per-call values are loaded before
    /// it, once per loop (`Gen::env_val`).
    pub(super) env_at: cranelift_codegen::ir::Inst,
    /// The end of the region: the block after the exited mask is written.
    pub(super) tail: CBlock,
    /// The loop keeps the warp states fresh (see the module docs, "Warp states left
    /// fresh"): the region's copy writes neither the pending mask nor the exited mask.
    pub(super) fresh_states: bool,
}

/// The room of one hoisted value in the loop's slot of them (the widest scalar type).
pub(super) const HOISTED_BYTES: u32 = 8;

/// A planned stream loop: its entry from the warp start (no parameters) and the region's
/// priorities.
pub(super) struct StreamPlan {
    pub(super) entry: CBlock,
    pub(super) region: Range<u32>,
}

impl Gen<'_, '_> {
    /// The priorities of the region a stream loop runs, where the kernel qualifies (see the
    /// module docs): `starts_at_entry` is the warp loop's own test of the kernel's warps.
    pub(super) fn stream_region(&self, starts_at_entry: bool) -> Option<Range<u32>> {
        if !starts_at_entry || self.racecheck || self.hoist.cta.ok.is_none() {
            return None;
        }
        let r = self.regions.blocks_of(0);
        if r.len() < 2 || self.regions.is_loop(0) {
            return None;
        }
        let inside = |c: &ir::BlockCall| {
            let p = self.layout.prio[c.block.index()];
            p > r.start && p < r.end
        };
        for p in r.clone() {
            let blk = self.f.block(self.layout.order[p as usize]);
            let ends_inside = match &blk.term {
                Terminator::Jump(c) => inside(c),
                Terminator::Branch { then_, else_, .. } => inside(then_) && inside(else_),
                Terminator::Exit => true,
                Terminator::Barrier { .. } | Terminator::Trap => false,
            };
            let warp_op = blk
                .insts
                .iter()
                .any(|&i| self.f.inst(i).op.effect() == ir::Effect::Warp);
            if !ends_inside || warp_op {
                return None;
            }
        }
        Some(r)
    }

    /// At the warp start's entry to the entry block (state word `word`, the first active
    /// word, already loaded): to the stream loop's head where the flag holds, the call runs
    /// more than one warp and the warp is fresh; else to `normal`.
    pub(super) fn stream_entry(&mut self, entry: CBlock, word: Value, normal: CBlock) {
        let Some(flag) = self.hoist.cta.ok else {
            self.b.ins().jump(normal, &[]);
            return;
        };
        let (ptr, frame) = (self.ptr, self.e.frame);
        let count = self.b.ins().stack_load(ptr, types::I32, frame, FRAME_COUNT);
        let many = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThan, count, 1);
        let state = self.e.state;
        let fresh = self.fresh(state, word);
        let go = self.b.ins().band(fresh, many);
        let go = self.b.ins().band(go, flag);
        self.b.ins().brif(go, entry, &[], normal, &[]);
    }

    /// Whether the warp of state `state` is fresh (`i8`): its first active word `word` is 1
    /// (the entry block's bit alone), the other active words are 0 and the entry block's
    /// pending mask holds all 32 lanes.
    fn fresh(&mut self, state: Value, word: Value) -> Value {
        let mut ok = self.b.ins().icmp_imm_s(IntCC::Equal, word, 1);
        for w in 1..self.layout.active_words {
            let off = (self.layout.active_off + 8 * w) as i32;
            let other = self.b.ins().load(types::I64, TRUSTED(), state, off);
            let zero = self.b.ins().icmp_imm_s(IntCC::Equal, other, 0);
            ok = self.b.ins().band(ok, zero);
        }
        let pend = self.layout.pending(0) as i32;
        let mask = self.b.ins().load(types::I32, TRUSTED(), state, pend);
        let all = self.b.ins().icmp_imm_s(IntCC::Equal, mask, -1);
        self.b.ins().band(ok, all)
    }

    /// Emit the stream loop `plan` (see the module docs).
    pub(super) fn gen_stream(&mut self, plan: StreamPlan) -> Result<(), String> {
        let StreamPlan { entry, region } = plan;
        let (ptr, frame, env) = (self.ptr, self.e.frame, self.e.env);
        let head = self.b.create_block();
        // The entry: the hoisted values stored to a slot of their own and loaded back, once
        // per loop, so that the loop reads values of its own that live only in the loop, not
        // the prologue's, live across the whole warp loop and its helper calls (the register
        // allocator then split and spilled those inside the loop). Cranelift's alias
        // analysis forwards a load from the last store before it alone, so a store of a
        // word after the values keeps it from forwarding the last value's (were it to, the
        // loop would read the prologue's value again: slower, not wrong).
        self.b.switch_to_block(entry);
        let vals = self.hoist.vals().to_vec();
        let hoisted = (!vals.is_empty()).then(|| {
            self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                HOISTED_BYTES * (vals.len() as u32 + 1),
                3,
            ))
        });
        if let Some(slot) = hoisted {
            for (k, &v) in vals.iter().enumerate() {
                let off = (HOISTED_BYTES as usize * k) as i32;
                self.b.ins().stack_store(ptr, v, slot, off);
            }
            let zero = self.b.ins().iconst(types::I64, 0);
            let off = (HOISTED_BYTES as usize * vals.len()) as i32;
            self.b.ins().stack_store(ptr, zero, slot, off);
            let mut loaded = Vec::with_capacity(vals.len());
            for (k, &v) in vals.iter().enumerate() {
                let off = (HOISTED_BYTES as usize * k) as i32;
                let t = self.b.func.dfg.value_type(v);
                loaded.push(self.b.ins().stack_load(ptr, t, slot, off));
            }
            self.stream_hoisted = loaded;
        }
        // The call's values every turn reads, loaded once here (they are the same for the
        // whole call and live only in the loop).
        let turn = self.b.ins().stack_load(ptr, types::I32, frame, FRAME_TURN);
        let table = self.b.ins().stack_load(ptr, ptr, frame, FRAME_TABLE);
        let first = self.b.ins().stack_load(ptr, types::I32, frame, FRAME_FIRST);
        let count = self.b.ins().stack_load(ptr, types::I32, frame, FRAME_COUNT);
        // The turn the loop started at: the states of the turns from there on are left
        // fresh until the loop leaves (`fresh_states`).
        let start = turn;
        let fresh_states = self.batch_again.is_some();
        // Every state of the call known fresh (see the module docs, "Known-fresh CTAs"):
        // the chain's word, read and cleared here, and the loop entered at turn 0. The word
        // is 0 at the call's start and after the round end's restart.
        if fresh_states {
            let func = &mut *self.b.func;
            let start_at = func
                .layout
                .entry_block()
                .and_then(|b| func.layout.last_inst(b));
            for at in [start_at, self.restart_jump].into_iter().flatten() {
                let mut pos = FuncCursor::new(self.b.func).at_inst(at);
                let zero = pos.ins().iconst(types::I32, 0);
                pos.ins().stack_store(ptr, zero, frame, FRAME_FRESH);
            }
        }
        let known = fresh_states.then(|| {
            let word = self.b.ins().stack_load(ptr, types::I32, frame, FRAME_FRESH);
            let zero = self.b.ins().iconst(types::I32, 0);
            self.b.ins().stack_store(ptr, zero, frame, FRAME_FRESH);
            let chained = self.b.ins().icmp_imm_s(IntCC::NotEqual, word, 0);
            let at0 = self.b.ins().icmp_imm_s(IntCC::Equal, start, 0);
            self.b.ins().band(chained, at0)
        });
        // Lane 0's `%tid.x`, 32 · (first + turn), carried from turn to turn (+32 each).
        let warp0 = self.b.ins().iadd(first, turn);
        let tid0 = self.b.ins().ishl_imm_s(warp0, 5);
        let env_at = self
            .b
            .ins()
            .jump(head, &[BlockArg::Value(turn), BlockArg::Value(tid0)]);
        let pend = self.layout.pending(region.start);

        let leave = self.b.create_block();
        self.b.append_block_param(leave, types::I32);
        self.b.switch_to_block(leave);
        let t = self.b.block_params(leave)[0];
        if fresh_states {
            self.write_exits(table, start, t, pend);
        }
        self.b.ins().stack_store(ptr, t, frame, FRAME_TURN);
        self.b.ins().jump(self.e.warp_loop, &[]);

        self.b.switch_to_block(head);
        let turn = self.b.append_block_param(head, types::I32);
        let tid0 = self.b.append_block_param(head, types::I32);
        let run = self.b.create_block();
        let state_at = |g: &mut Self| {
            let i = g.b.ins().uextend(ptr, turn);
            let at = g.b.ins().imul_imm_s(i, i64::from(ptr.bytes()));
            let slot = g.b.ins().iadd(table, at);
            g.b.ins().load(ptr, TRUSTED(), slot, 0)
        };
        let state = match known {
            // Known fresh: no test, and the state loaded in `run` (left out where the
            // region's copy does not read it).
            Some(known) => {
                let tested = self.b.create_block();
                self.b.ins().brif(known, run, &[], tested, &[]);
                self.b.switch_to_block(tested);
                let state = state_at(self);
                self.fresh_branches(state, [BlockArg::Value(turn)], leave, run);
                self.b.switch_to_block(run);
                state_at(self)
            }
            None => {
                let state = state_at(self);
                self.fresh_branches(state, [BlockArg::Value(turn)], leave, run);
                self.b.switch_to_block(run);
                state
            }
        };
        let off = self.layout.active_off as i32;
        let warp = self.b.ins().iadd(first, turn);
        let warp_store = self
            .b
            .ins()
            .store(TRUSTED(), warp, env, offset_of!(CtaEnv, warp) as i32);
        if !fresh_states {
            let zero = self.b.ins().iconst(types::I64, 0);
            self.b.ins().store(TRUSTED(), zero, state, off);
        }
        let tail = self.b.create_block();
        let normal_state = std::mem::replace(&mut self.e.state, state);
        self.stream = Some(Stream {
            tid0,
            warp,
            env_at,
            tail,
            fresh_states,
        });
        let res = self.gen_region(region);
        self.stream = None;
        self.stream_env_cache = [None; super::codegen::ENV_FIELDS];
        self.e.state = normal_state;
        res?;
        // A copy without calls cannot raise the abort flag itself nor read `env.warp`
        // (helpers read it; the copy's own reads take `warp`): the flag, which only another
        // worker's fault or a stop can raise then, is read once after the last turn, and
        // `env.warp` written there (see the module docs, "Turns without calls").
        let calls = self.copy_calls(run, tail);
        let abort_at = offset_of!(CtaEnv, abort) as i32;
        let abort_ptr = if calls {
            // Read in every turn: loaded once, at the entry.
            let mut pos = FuncCursor::new(self.b.func).at_inst(env_at);
            Some(pos.ins().load(ptr, TRUSTED(), env, abort_at))
        } else {
            self.b.func.layout.remove_inst(warp_store);
            None
        };

        let t1 = self.b.create_block();
        let stop = self.b.create_block();
        self.b.switch_to_block(tail);
        if let Some(abort_ptr) = abort_ptr {
            // After the warp: the dispatcher's abort test, then the next turn.
            self.abort_test(abort_ptr, stop, t1);
        } else {
            self.b.ins().jump(t1, &[]);
        }
        self.b.switch_to_block(stop);
        let ran = self.b.ins().iadd_imm_s(turn, 1);
        if fresh_states {
            self.write_exits(table, start, ran, pend);
        }
        self.b.ins().return_(&[ran]);
        self.b.switch_to_block(t1);
        let t1 = self.b.ins().iadd_imm_s(turn, 1);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, t1, count);
        let args = [BlockArg::Value(t1)];
        let tid1 = self.b.ins().iadd_imm_s(tid0, 32);
        let end = self.b.create_block();
        self.b
            .ins()
            .brif(more, head, &[args[0], BlockArg::Value(tid1)], end, &[]);
        self.b.switch_to_block(end);
        if abort_ptr.is_none() {
            // The last turn's warp, `first + count − 1` here (not the turn's own value,
            // which would then stay in a register through every turn).
            let last = self.b.ins().iadd(first, count);
            let last = self.b.ins().iadd_imm_s(last, -1);
            self.b
                .ins()
                .store(TRUSTED(), last, env, offset_of!(CtaEnv, warp) as i32);
            let abort_ptr = self.b.ins().load(ptr, TRUSTED(), env, abort_at);
            let go_on = self.b.create_block();
            self.abort_test(abort_ptr, stop, go_on);
            self.b.switch_to_block(go_on);
        }
        match self.batch_again {
            Some(again) => self.gen_stream_next_cta(again, start, table, count, leave, pend),
            None => {
                self.b.ins().jump(leave, &args);
            }
        }
        Ok(())
    }

    /// The dispatcher's abort test: the flag at `abort_ptr` set → `stop`, else → `go_on`.
    fn abort_test(&mut self, abort_ptr: Value, stop: CBlock, go_on: CBlock) {
        let abort = self.b.ins().load(
            types::I32,
            cranelift_codegen::ir::MemFlagsData::new().with_notrap(),
            abort_ptr,
            0,
        );
        self.b.ins().brif(abort, stop, &[], go_on, &[]);
    }

    /// The freshness test of `head` as two branches (the active word, then the pending
    /// mask; each a compare with the state in memory): to `run` where the warp is fresh,
    /// `leave(args)` where it is not. The same conditions as [`Gen::fresh`].
    fn fresh_branches(&mut self, state: Value, args: [BlockArg; 1], leave: CBlock, run: CBlock) {
        let mut next = self.b.create_block();
        let off = self.layout.active_off as i32;
        let word = self.b.ins().load(types::I64, TRUSTED(), state, off);
        let one = self.b.ins().icmp_imm_s(IntCC::Equal, word, 1);
        self.b.ins().brif(one, next, &[], leave, &args);
        for w in 1..self.layout.active_words {
            self.b.switch_to_block(next);
            next = self.b.create_block();
            let off = (self.layout.active_off + 8 * w) as i32;
            let other = self.b.ins().load(types::I64, TRUSTED(), state, off);
            self.b.ins().brif(other, leave, &args, next, &[]);
        }
        self.b.switch_to_block(next);
        let pend = self.layout.pending(0) as i32;
        let mask = self.b.ins().load(types::I32, TRUSTED(), state, pend);
        let all = self.b.ins().icmp_imm_s(IntCC::Equal, mask, -1);
        self.b.ins().brif(all, run, &[], leave, &args);
    }

    /// Whether a call instruction is reachable from `from` without passing `tail` (the
    /// region's copy, emitted completely): a block reached that holds no instruction yet
    /// counts as one (it could be filled later).
    fn copy_calls(&self, from: CBlock, tail: CBlock) -> bool {
        let func = &*self.b.func;
        let dfg = &func.dfg;
        let mut seen = std::collections::HashSet::from([from, tail]);
        let mut work = vec![from];
        while let Some(block) = work.pop() {
            if !func.layout.is_block_inserted(block) || func.layout.first_inst(block).is_none() {
                return true;
            }
            for inst in func.layout.block_insts(block) {
                let data = &dfg.insts[inst];
                if data.opcode().is_call() {
                    return true;
                }
                for call in data.branch_destination(&dfg.jump_tables, &dfg.exception_tables) {
                    let to = call.block(&dfg.value_lists);
                    if seen.insert(to) {
                        work.push(to);
                    }
                }
            }
        }
        false
    }

    /// The end of the stream loop's last turn where it keeps the warp states fresh (the
    /// current block): where the loop ran every warp of the CTA (it started at turn 0) and
    /// the call has a batch, the batch's next CTA straight away, its warps already fresh, at
    /// `again` (the prologue); else the exits written and `leave(count)`. When no CTA is
    /// left, the exits written and 0 returned, as the round's end returns it.
    fn gen_stream_next_cta(
        &mut self,
        again: CBlock,
        start: Value,
        table: Value,
        count: Value,
        leave: CBlock,
        pend: u32,
    ) {
        let (ptr, frame, env) = (self.ptr, self.e.frame, self.e.env);
        let leave_all = [BlockArg::Value(count)];
        let whole = self.b.ins().icmp_imm_s(IntCC::Equal, start, 0);
        let has_batch = self.b.create_block();
        self.b.ins().brif(whole, has_batch, &[], leave, &leave_all);
        self.b.switch_to_block(has_batch);
        let batch = self
            .b
            .ins()
            .load(ptr, TRUSTED(), env, offset_of!(CtaEnv, batch) as i32);
        let call = self.b.create_block();
        self.b.ins().brif(batch, call, &[], leave, &leave_all);
        self.b.switch_to_block(call);
        let started = self.call_cta_batch_next();
        let go = self.b.create_block();
        let over = self.b.create_block();
        self.b.ins().brif(started, go, &[], over, &[]);
        self.b.switch_to_block(go);
        let turn0 = self.b.ins().iconst(types::I32, 0);
        self.b.ins().stack_store(ptr, turn0, frame, FRAME_TURN);
        // Every turn of this CTA ran here on a state found fresh (tested, or known so from
        // the CTA before) and left unwritten: the next CTA's are the same (see the module
        // docs, "Known-fresh CTAs").
        let one = self.b.ins().iconst(types::I32, 1);
        self.b.ins().stack_store(ptr, one, frame, FRAME_FRESH);
        self.b.ins().jump(again, &[]);
        self.b.switch_to_block(over);
        self.write_exits(table, start, count, pend);
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().return_(&[zero]);
    }

    /// What the eager copy writes for each warp it ran, for the turns `from..to` (`u32`) of
    /// the state table: the entry's active word 0, the pending mask `pend` (the region's
    /// head's) 0, every lane exited. Ends in a new current block.
    fn write_exits(&mut self, table: Value, from: Value, to: Value, pend: u32) {
        let head = self.b.create_block();
        let k = self.b.append_block_param(head, types::I32);
        let body = self.b.create_block();
        let after = self.b.create_block();
        self.b.ins().jump(head, &[BlockArg::Value(from)]);
        self.b.switch_to_block(head);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, k, to);
        self.b.ins().brif(more, body, &[], after, &[]);
        self.b.switch_to_block(body);
        let i = self.b.ins().uextend(self.ptr, k);
        let at = self.b.ins().imul_imm_s(i, i64::from(self.ptr.bytes()));
        let slot = self.b.ins().iadd(table, at);
        let state = self.b.ins().load(self.ptr, TRUSTED(), slot, 0);
        let zero = self.b.ins().iconst(types::I64, 0);
        let off = self.layout.active_off as i32;
        self.b.ins().store(TRUSTED(), zero, state, off);
        let zero32 = self.b.ins().iconst(types::I32, 0);
        self.b.ins().store(TRUSTED(), zero32, state, pend as i32);
        let all = self.b.ins().iconst(types::I32, -1);
        let exited = self
            .b
            .ins()
            .load(types::I32, TRUSTED(), state, EXITED_OFF as i32);
        let exited = self.b.ins().bor(exited, all);
        self.b
            .ins()
            .store(TRUSTED(), exited, state, EXITED_OFF as i32);
        let k1 = self.b.ins().iadd_imm_s(k, 1);
        self.b.ins().jump(head, &[BlockArg::Value(k1)]);
        self.b.switch_to_block(after);
    }
}
