//! Full-warp versions of a segment's group loop.
//!
//! A segment's group loop is general: each group tests whether it has an active lane, blends
//! the values it stores for other blocks with its lane mask, and each memory access with a
//! hoisted bounds check (`affine.rs`) tests that check and keeps its fallback tiers (run-time
//! shape tests, the runtime helper) next to the fast access. Where the block runs for all 32
//! lanes and every hoisted check of the segment holds — the common case of straight-line
//! kernels such as `saxpy` or a copy — all of that is known once, before the loop. The
//! segment then gets a second loop:
//!
//! ```text
//! if mask == all lanes && ok(access 1) && ok(access 2) && … {
//!     for g in 0..8 { body(g) }      // constant lane masks, no blend, fast accesses only
//! } else {
//!     for g in 0..8 { if group g has an active lane { body(g) } }   // as before
//! }
//! ```
//!
//! # ⚠ Soundness
//! The full-warp loop runs the same instructions for the same lanes in the same order as the
//! general loop would under the same conditions; only tests whose outcome is known are left
//! out:
//! - `mask` has all 32 bits, so every group has all four lanes active: the general loop's
//!   per-group test is true, its lane masks are all-ones, and a blend with them keeps the new
//!   value in every lane;
//! - every access of the segment with a hoisted plan has its condition `ok` true (their
//!   conjunction is tested; stores' conditions include "all 32 lanes active"), so the
//!   general code would branch to the fast access each time; its fallback code is
//!   unreachable here and left out (`Gen::branch_ok`).
//!
//! Accesses without a hoisted plan, and every other instruction, are emitted exactly as in
//! the general loop, except the members of lane-strided structs read or written whole
//! (`wide.rs`, planned per segment for this version only, as regions plan them per block for
//! theirs: its soundness rests on the two facts above). The warp order (`analysis::segment`) is unchanged, so the interpreter,
//! which follows the same rule, needs nothing new.

use super::codegen::Gen;
use super::vector::Grp;
use crate::ir;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, StackSlotData, StackSlotKind, Value};

type CBlock = cranelift_codegen::ir::Block;

/// Largest body (IR instructions run per group, not counting the scalar section) whose
/// full-warp group loop is unrolled into straight-line code for the eight groups: the loop's
/// counter, test and index arithmetic (about five instructions per group) go, and the
/// group's slot and element offsets become constants in the accesses; the body's code is
/// there eight times (see [`Gen::unroll_fits`]).
pub(super) const UNROLL_MAX_INSTS: usize = 24;

/// In the quick tier (`jit::Tier::Quick`), a full-warp group loop is unrolled only while
/// the function has fewer CLIF instructions than this (the dispatcher and the code built
/// before the loop, in block priority order, dead code the dead-code pass removes later
/// included; since the full-warp versions build no access fallbacks, later loops of
/// `copy_float`, `saxpy`, `reduce_shared` and `histogram_shared` fit too): an unrolled body
/// is there eight times, and the quick tier's compile time is about 5 k instructions per
/// CLIF instruction, so the kernels with several unrolled loops (reduce_shared,
/// histogram_shared) lose about 40% of their CLIF without their later unrollings, while the
/// kernels' first loops keep it
/// (copy_float's and saxpy's quick-tier launches ran 18–21% longer without it, and
/// reduce_shfl's 20% without its third loop, which starts at 1 593; docs/performance.md,
/// "Fewer unrolled group loops in the quick tier").
pub(super) const QUICK_UNROLL_BUDGET: usize = 1900;

impl Gen<'_, '_> {
    /// The group loop of a segment (`insts`, in block `blk` entered with `mask`): one general
    /// loop, preceded by a full-warp version (see the module docs) where the segment has no
    /// group-level accesses and either has accesses with a hoisted plan, belongs to the
    /// entry chain ([`Self::entry_chain`], which whole warps enter), or `blends`: writes
    /// values for other blocks with the lane mask blended in (results used by later blocks,
    /// a terminator's arguments written per group, such as a loop's back edge carrying
    /// per-lane pointers and accumulators), which the full-warp version writes whole. A
    /// segment whose group body comes in two versions (group-level accesses, `group.rs`)
    /// gets no full-warp version but a split loop ([`Self::group_loop_split`]).
    /// Returns the loop's accumulator (`group_loop`).
    pub(super) fn full_warp_versions(
        &mut self,
        blk: ir::Block,
        mask: Value,
        insts: &[ir::Inst],
        blends: bool,
        body: &mut impl FnMut(&mut Self, &mut Grp, Value) -> Result<Value, String>,
    ) -> Result<Value, String> {
        if self.dloop.is_some() {
            return self.dloop_groups(mask, insts, body);
        }
        let mut oks: Vec<Value> = vec![];
        self.fast_oks(insts.iter().copied(), &mut oks);
        let whole = self.entry_chain.contains(&blk) || blends;
        // A segment with group-level accesses (`group.rs`, 2D blocks) already has a
        // straight-line version of its body; a third copy would cost compile time for little
        // (measured: sgemm_tiled, 36% more code and the same instruction count). Its fast
        // version runs in a loop of its own first.
        // A big kernel's quick tier (`Gen::big`) has one version of each segment.
        if self.group_planned(insts).is_some() && !self.big {
            return self.group_loop_split(mask, body);
        }
        if (oks.is_empty() && !whole) || self.big {
            return self.group_loop(mask, false, body);
        }
        let cond = self.full_warp_and(mask, oks);
        let fast = self.b.create_block();
        let general = self.b.create_block();
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I32);
        self.b.ins().brif(cond, fast, &[], general, &[]);
        self.b.switch_to_block(fast);
        self.warp_fast_body = true;
        self.fast.wide = self.plan_wide(insts);
        self.unroll_groups =
            self.fast.wide.is_empty() && self.unroll_fits(insts.iter().copied(), |_| false);
        let acc = self.group_loop(mask, true, &mut *body);
        self.fast.wide = Default::default();
        self.warp_fast_body = false;
        self.b.ins().jump(join, &[BlockArg::Value(acc?)]);
        self.b.switch_to_block(general);
        let acc = self.group_loop(mask, false, body)?;
        self.b.ins().jump(join, &[BlockArg::Value(acc)]);
        self.b.switch_to_block(join);
        Ok(self.b.block_params(join)[0])
    }

    /// The group loop of a segment whose body comes in two versions (`vector.rs`,
    /// `group_versions`), in two loops: the first runs the fast version of each group and,
    /// at the first group whose conditions fail, jumps to the second, the general loop
    /// (both versions, as without the split) from that group on with the accumulator so
    /// far. Each group runs the version its conditions choose, in the same order, as in one
    /// loop; the first loop has no call to the runtime's helpers (its slow path leaves the
    /// loop), so the values it carries from group to group (the group index, the mask,
    /// vector constants, bounds, the windows' bases) can stay in registers, which the
    /// helpers' calls in a loop with both versions clobber. Returns the accumulator.
    pub(super) fn group_loop_split(
        &mut self,
        mask: Value,
        body: &mut impl FnMut(&mut Self, &mut Grp, Value) -> Result<Value, String>,
    ) -> Result<Value, String> {
        // The group index and the accumulator go to the second loop through a stack slot,
        // not as block arguments: the register allocator would give the first loop's
        // index the second loop's location (a stack slot, across its calls).
        let bail = self.b.create_block();
        let ss =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 2));
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I32);
        let outer = self.group_bail.replace((bail, ss));
        let first = self.group_loop_from(mask, false, None, &mut *body);
        self.group_bail = outer;
        self.b.ins().jump(join, &[BlockArg::Value(first?)]);
        self.b.switch_to_block(bail);
        let start = (
            self.b.ins().stack_load(self.ptr, types::I32, ss, 0),
            self.b.ins().stack_load(self.ptr, types::I32, ss, 4),
        );
        let rest = self.group_loop_from(mask, false, Some(start), body)?;
        self.b.ins().jump(join, &[BlockArg::Value(rest)]);
        self.b.switch_to_block(join);
        Ok(self.b.block_params(join)[0])
    }

    /// Whether a full-warp group loop running `insts` per group is unrolled: at most
    /// [`UNROLL_MAX_INSTS`] outside the scalar section, in the quick tier only before the
    /// function has [`QUICK_UNROLL_BUDGET`] CLIF instructions, and no struct member accessed lane by
    /// lane (`FastAccess::member`, unless `whole` says it is read or written with its whole
    /// struct, `wide.rs`: some ten machine instructions each, which made `copy_float4`'s
    /// compile time 44% longer for 7% fewer instructions per launch).
    pub(super) fn unroll_fits(
        &self,
        insts: impl Iterator<Item = ir::Inst>,
        whole: impl Fn(ir::Inst) -> bool,
    ) -> bool {
        let mut n = 0;
        for i in insts {
            if self.scalar[i.index()] {
                continue;
            }
            n += 1;
            if self.fast.access.get(&i).is_some_and(|fa| fa.member) && !whole(i) {
                return false;
            }
        }
        let budget = match self.tier {
            super::Tier::Quick => self.b.func.dfg.num_insts() < QUICK_UNROLL_BUDGET,
            super::Tier::Optimized => true,
        };
        n <= UNROLL_MAX_INSTS && budget
    }

    /// The blocks every lane of the warp runs once, at the start: the entry block and the
    /// blocks it leads to by unconditional jumps, each the only way in to the next.
    pub(super) fn entry_chain(f: &ir::Function) -> Vec<ir::Block> {
        let mut preds = vec![0u32; f.blocks.len()];
        for b in &f.blocks {
            for c in b.term.targets() {
                preds[c.block.index()] += 1;
            }
        }
        let mut out = vec![f.entry];
        let mut b = f.entry;
        while let ir::Terminator::Jump(c) = &f.block(b).term {
            if preds[c.block.index()] != 1 || out.contains(&c.block) {
                break;
            }
            b = c.block;
            out.push(b);
        }
        out
    }

    /// Branch on a hoisted access's condition `ok` (`affine.rs`) to its fast access or to
    /// its fallback; returns the fallback's block, where the caller builds the fallback. In
    /// the full-warp version, where every such condition is known to hold, straight to the
    /// fast access: no fallback is reached, and none is built (`None`).
    pub(super) fn branch_ok(&mut self, ok: Value, fast: CBlock) -> Option<CBlock> {
        if self.warp_fast_body {
            self.b.ins().jump(fast, &[]);
            None
        } else {
            let slow = self.b.create_block();
            self.b.ins().brif(ok, fast, &[], slow, &[]);
            Some(slow)
        }
    }

    /// Adds to `oks` the hoisted conditions of `insts`' planned fast accesses (`affine.rs`),
    /// each once: what a full-warp version needs to hold besides the full mask.
    pub(super) fn fast_oks(&self, insts: impl IntoIterator<Item = ir::Inst>, oks: &mut Vec<Value>) {
        for i in insts {
            if let Some(fa) = self.fast.access.get(&i) {
                if !oks.contains(&fa.ok) {
                    oks.push(fa.ok);
                }
            }
        }
    }

    /// The test that enters a full-warp version: all 32 lanes active (the mask is all ones)
    /// and every condition of `oks`.
    pub(super) fn full_warp_and(&mut self, mask: Value, oks: Vec<Value>) -> Value {
        let mut cond = self.b.ins().icmp_imm_s(IntCC::Equal, mask, -1);
        for ok in oks {
            cond = self.b.ins().band(cond, ok);
        }
        cond
    }
}
