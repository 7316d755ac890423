//! Several CTAs per call: the end of a round of a kernel whose CTAs end in their first round.
//!
//! ⚠ What the generated code does here must leave every warp state as the runtime's
//! `start_cta` leaves it (`runtime::launch`), for everything the code can read.
//!
//! When the CTA scheduler gives a call a batch (`CtaEnv::batch` not null, `runtime::batch`:
//! only for kernels without barrier terminators, whose CTAs end in their first round), the
//! end of the warp loop does not return once every warp of the CTA has stopped:
//! ```text
//! done:     env.batch == null → return 0
//!           cta_batch_next(env) == 0 → return 0     (no CTA left, or a stop)
//!           every warp state of the table: zero the words `start_cta` zeroes, then
//!           live mask → pending mask of the entry block (priority 0), entry's active bit
//!           turn = 0 → the per-call prologue (`preloop.rs`: the first block's CTA-uniform
//!           values, `%ctaid`-derived ones included, computed again) → the warp loop
//! ```
//! `cta_batch_next` claims the next CTA's stop flag, clears its shared and local memory and
//! sets `env.ctaid` and `env.abort`, which the code reads at their uses (nothing read from
//! them is kept across the warp loop). The environment's other fields and the call's frame
//! are the same for every CTA of the batch.
//!
//! The state words rewritten are those of `WarpEngine::zeroed_ranges` (the header's masks
//! and the block bitsets; never a warp operation's slots: a kernel with warp operations that
//! read other lanes is not compiled for batches), written as `start_cta` writes them: zeros, then the live mask
//! (unchanged, `start_cta` set it for the batch's first CTA and the block shape is the
//! launch's) at `LIVE_OFF` and at the entry block's pending mask, and bit 0 of the active
//! bitset. A kernel whose ranges are not whole 16-byte words, do not hold those three fields,
//! or are more than [`MAX_WORDS`] words, is not compiled for batches
//! ([`restart_words`]: the scheduler then runs one call per CTA).

use super::codegen::{Gen, TRUSTED};
use crate::analysis::schedule::{WarpLayout, LIVE_OFF};
use crate::ir;
use crate::runtime::env::CtaEnv;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature};
use cranelift_codegen::isa::CallConv;
use std::mem::offset_of;

type CBlock = cranelift_codegen::ir::Block;

/// The most warp-state words the code rewrites per warp and CTA.
pub(super) const MAX_WORDS: usize = 16;

/// The 16-byte words (offsets) of a warp state that the code rewrites to start the next CTA
/// of a batch, or `None` where the kernel is not compiled for batches: it has barrier
/// terminators (its CTAs need several rounds) or warp operations (`super::cross_lane`: the
/// header records they can write, and the slots of those that read other lanes, are zeroed
/// too), or its zeroed ranges (`zeroed`, as
/// `WarpEngine::zeroed_ranges`) are not whole words, miss the fields set at start or are more
/// than [`MAX_WORDS`].
pub(super) fn restart_words(
    f: &ir::Function,
    layout: &WarpLayout,
    zeroed: &[(u32, u32)],
) -> Option<Vec<u32>> {
    let barriers = f
        .blocks
        .iter()
        .any(|b| matches!(b.term, ir::Terminator::Barrier { .. }));
    let warp_ops = f.insts.iter().any(|d| super::cross_lane(&d.op));
    if barriers || warp_ops || !layout.barrier_targets.is_empty() {
        return None;
    }
    let mut words = vec![];
    for &(off, len) in zeroed {
        if off % 16 != 0 || len % 16 != 0 || off + len > layout.size {
            return None;
        }
        words.extend((off..off + len).step_by(16));
    }
    words.sort_unstable();
    words.dedup();
    let covered = |at: u32| words.contains(&(at / 16 * 16));
    let fields = [LIVE_OFF, layout.pending(0), layout.active_off];
    if words.len() > MAX_WORDS || !fields.iter().all(|&f| covered(f)) {
        return None;
    }
    Some(words)
}

impl Gen<'_, '_> {
    /// `runtime::batch::cta_batch_next(env)`: 1 (`i32`) when the batch's next CTA was
    /// started, 0 when the call is over.
    pub(super) fn call_cta_batch_next(&mut self) -> cranelift_codegen::ir::Value {
        let ptr = self.ptr;
        let env = self.e.env;
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(ptr));
        sig.returns.push(AbiParam::new(types::I32));
        let sig = self.b.import_signature(sig);
        let callee = self.fn_ptr(crate::runtime::batch::cta_batch_next as *const () as usize);
        let call = self.b.ins().call_indirect(sig, callee, &[env]);
        self.b.inst_results(call)[0]
    }

    /// The end of a round (the current block, reached when every warp of the call has
    /// stopped) for a kernel compiled for batches: the next CTA of the batch, if any, then
    /// `again` (the prologue, or the warp loop where there is none); else `ret` (see the
    /// module comment). `words`: [`restart_words`].
    pub(super) fn gen_next_cta(&mut self, ret: CBlock, again: CBlock, words: &[u32]) {
        let ptr = self.ptr;
        let env = self.e.env;
        let batch = self
            .b
            .ins()
            .load(ptr, TRUSTED(), env, offset_of!(CtaEnv, batch) as i32);
        let next = self.b.create_block();
        self.b.ins().brif(batch, next, &[], ret, &[]);

        self.b.switch_to_block(next);
        let started = self.call_cta_batch_next();
        let restart = self.b.create_block();
        self.b.ins().brif(started, restart, &[], ret, &[]);

        // Every warp of the table, as `start_cta` starts it.
        self.b.switch_to_block(restart);
        let frame = self.e.frame;
        let table = self
            .b
            .ins()
            .stack_load(ptr, ptr, frame, super::codegen::FRAME_TABLE);
        let count = self
            .b
            .ins()
            .stack_load(ptr, types::I32, frame, super::codegen::FRAME_COUNT);
        let after = self.b.create_block();
        let (head, j, s) = self.warp_table_loop(table, count, after);
        let live = self.b.ins().load(types::I32, TRUSTED(), s, LIVE_OFF as i32);
        let zero = self.b.ins().iconst(types::I64, 0);
        let zeros = self.b.ins().splat(types::I64X2, zero);
        for &w in words {
            self.b.ins().store(TRUSTED(), zeros, s, w as i32);
        }
        self.b.ins().store(TRUSTED(), live, s, LIVE_OFF as i32);
        self.b
            .ins()
            .store(TRUSTED(), live, s, self.layout.pending(0) as i32);
        let bit = self.b.ins().iconst(types::I64, 1);
        self.b
            .ins()
            .store(TRUSTED(), bit, s, self.layout.active_off as i32);
        self.warp_table_next(head, j);

        self.b.switch_to_block(after);
        let turn0 = self.b.ins().iconst(types::I32, 0);
        self.b
            .ins()
            .stack_store(ptr, turn0, frame, super::codegen::FRAME_TURN);
        self.restart_jump = Some(self.b.ins().jump(again, &[]));
    }
}
