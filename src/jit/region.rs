//! The code of a region (`analysis::region`): one group loop that takes each group of four
//! lanes through all of the region's blocks before the next group.
//!
//! ```text
//! enter_head: mask = pending[head]; pending[head] = 0; mask == 0 → dispatch
//!             scalar sections of every block of the region; hoisted bounds checks
//!             out[t] = 0 for each target t outside the region; out[exit] = 0
//!             for g in groups of mask:
//!                 m[b] = the group's lanes for the blocks of the lead (`Regions::lead`: the
//!                 head and the blocks it jumps to, each the only way into the next);
//!                 m[b] = 0 for the other blocks
//!                 for b in the region, in priority order:
//!                     if m[b] != 0 { b's instructions for the lanes m[b];
//!                                    terminator: block arguments to parameter slots,
//!                                    lanes to m[target] (in the region) or out[target] }
//!             pending[t] |= out[t] (and the active bit); exited |= out[exit]
//!             → dispatch
//! ```
//! The lane masks `m` and `out` are Cranelift variables (registers), not warp state.
//!
//! # ⚠ Soundness
//! The code runs the same instructions for the same lanes in the order of
//! `analysis::region`, which the interpreter follows too. What differs from a block's code
//! (`vector.rs`, `gen_block_body`) is where facts are computed:
//! - **Scalar sections** of all the region's blocks run at its top, before any group entered
//!   them. `codegen::plan` keeps in the sections of the blocks after the head only pure
//!   operations (no load, no fault) on values of earlier sections or from before the region
//!   (uniform at the head too), so computing them for a block no lane enters has no effect;
//!   the blocks of the lead may also load parameters, as every lane runs them.
//!   Their results that other blocks read go to their slots per group, blended with the
//!   block's lanes, when the group runs the block (never for lanes that do not).
//! - **Values** of the lead stay in registers for the region's other blocks (every lane of
//!   a later block ran the lead in the same pass); values of other blocks go through their
//!   slots, blended, as across blocks (`codegen::plan` marks which). The lead's scalar
//!   sections are the head's: they run for the region's lanes (`uniform_mask`), with
//!   parameter loads.
//! - **Hoisted bounds checks** (`affine.rs`) are planned at the top for every block: their
//!   leaves are values of the scalar sections, slots written before the region (uniform at
//!   the head), `%tid.x`/`%laneid`, or chains of definitions replayed from those; a value a
//!   region block computes is never read from its slot there. The checks cover all 32
//!   lanes, so they hold for any block's lanes; a store after the head also tests that its
//!   group's four lanes are active (`Gen::region_store_check`), as the head's stores test
//!   the whole warp.
//! - A full warp whose hoisted checks all hold runs a second version of the loop
//!   (`Gen::region_loops`), as `fullwarp.rs` makes for blocks: the lead's lane masks are
//!   constant, accesses skip their tests and fallbacks, and a store after the lead is one
//!   vector store when its group's four lanes are active, else one store per active lane.
//! - That version may also decide branch conditions for the whole warp (`Spec`,
//!   `Gen::warp_cond`): an ordered integer `setp` of a lane-affine value against a uniform
//!   one, monotone across the lanes when the values do not wrap between lanes 0 and 31, so
//!   that one end lane's condition tells whether all 32 have a given value; or an `eq`/`ne`
//!   `setp` of such operands, true in at most one lane, decided only for "no lane equal"
//!   (`Gen::warp_unequal`; the version takes that direction, unless the skipping version
//!   below takes it for those warps already). The version is
//!   specialised for one direction and entered only where that end lane's condition has
//!   that value (and the values do not wrap), so every lane of every group takes that
//!   direction: blocks reached by all lanes (`Reach::All`) run as lead
//!   blocks do, blocks no lane reaches have no code, and the masks they would have added
//!   are known (a destination outside the region reached by all lanes gets the warp's whole
//!   mask once). The general version is unchanged and runs otherwise.
//! - Where the lead's branch (its last block's) is one so decided and its other direction
//!   leaves the region (a guard skipping its body before a barrier:
//!   `if (tid < s) …` for the warps past `s`), a skipping version (`Gen::region_skip`) comes
//!   first, after the lead's hoisted checks and before the other blocks': entered where the
//!   warp is full, the lead's checks hold, lane 0 takes that direction and the lanes agree,
//!   it runs the lead's instructions for all lanes, as the full-warp version does, and gives
//!   the whole warp to that destination. The other blocks have no code in it, so their
//!   checks (which may fail for such warps: the body's addresses past the end of an array)
//!   are not needed.
//! - In that version, a block all four lanes of the group run (the lead's, and those
//!   `Reach::All`) reads and writes lane-strided structs whole (`wide.rs`, `Spec::wide`,
//!   planned per block); a block some lanes run (`Reach::Some`) keeps one access per member
//!   and lane.
//! - Arguments of edges out of the region that all lanes of their block take together,
//!   whose values are all scalar-section values, the same on every edge to that
//!   destination, are written once after the group loops for the lanes sent there
//!   (`Gen::region_once_args`), not per group: nothing in the region reads a parameter
//!   slot of a block outside it (or of its head) during the pass.
//! - The group tier of `group.rs` is not used in regions.
//!
//! # Loop regions
//! (Made unless `PTXJIT_LOOP_REGIONS=0`, `analysis::region`.) A loop region
//! (`Regions::looped`) runs its passes in an inner loop (`Gen::region_passes`) for
//! `LOOP_GROUPS` groups side by side (`Gen::group_chunks`), its only version:
//! ```text
//! for each chunk of LOOP_GROUPS groups with a lane in mask:
//!     per group: values read from slots that are defined before the region; the head's
//!                carried parameters from their slots (written by the edges into the head)
//!     top(bits per group):
//!         per group: back = 0; bits == 0 → next group;
//!                    the pass as above for the lanes bits (carried parameters from the
//!                    group's variables); a back edge blends its arguments into the
//!                    group's carried variables for its lanes (the others to slots) and
//!                    adds its lanes to the group's back
//!         every back == 0 → next chunk
//!         abort flag set → per group: carried parameters to slots for back's lanes,
//!                          out[head] |= back (shifted to warp bits); next chunk
//!         → top(back per group)
//! ```
//! The groups' instructions are interleaved within a pass, not run group after group; the
//! region has no memory operation, so the order is unobservable, and the interpreter runs
//! each group's passes to the end before the next group's with the same results. One
//! group alone is a chain of dependent operations per trip (mandelbrot's `zr`, `zi`); the
//! groups' chains side by side are independent work the core overlaps.
//! What changes against an acyclic region, as the head's lanes and parameters change from
//! pass to pass:
//! - Nothing computed from the head's parameters is a scalar-section value (`codegen::plan`)
//!   or read at the top (`RegionCtx::hides` covers the head's parameters), the head's
//!   parameters are not carried into its direct body (`Gen::carry_params`), and no branch is
//!   decided per warp (no full-warp or skipping version, no per-warp tests: `Spec`).
//! - The lead runs for the pass's lanes, so its stores test the group's four lanes as the
//!   other blocks' do (`Gen::region_store_check`), and its hoisted checks are planned
//!   without the warp's mask.
//! - Carried parameters (`Gen::loop_carried`): the head's parameters of vector types that no
//!   block outside the region reads live in variables; their slots are written only where
//!   the pass loop stops early (abort). Other values defined in the loop go through slots as
//!   in any region, and arguments of edges out of the loop are written per pass for the
//!   lanes leaving.

use super::codegen::Gen;
use super::vector::{GVal, Grp};
use crate::analysis::schedule::EXITED_OFF;
use crate::ir::{self, Terminator};
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};
use cranelift_frontend::Variable;
use std::collections::HashMap;
use std::ops::Range;

/// The region being emitted.
pub(super) struct RegionCtx {
    /// Its head block.
    pub(super) head: ir::Block,
    /// Its blocks, in priority order (the head first).
    pub(super) blocks: Vec<ir::Block>,
    /// A loop region: its head's parameters are written by the passes too.
    pub(super) looped: bool,
}

impl RegionCtx {
    /// Whether `v` is computed inside the region (a result of one of its blocks, or a
    /// parameter of a block after the head, or of a loop region's head): its slot is not
    /// written yet at the region's top, or changes during the passes.
    pub(super) fn hides(&self, g: &Gen<'_, '_>, v: ir::Value) -> bool {
        match g.f.values[v.index()].def {
            ir::ValueDef::Param(b, _) => {
                (b != self.head || self.looped) && self.blocks.contains(&b)
            }
            ir::ValueDef::Result(i, _) => self.blocks.contains(&ir::Block(g.inst_block[i.index()])),
        }
    }
}

/// Where the lanes leaving the region go: a block outside it (or its head), or `exit`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Out {
    Pending(u32),
    Exited,
}

/// Per-group state of the region pass.
#[derive(Clone)]
struct Pass {
    /// Lane masks of the region's blocks (`i32`, the group's 4 bits), by position; the
    /// head's is the group's own.
    masks: Vec<Variable>,
    /// Lanes leaving the region (`i32`, warp bits), by destination.
    outs: Vec<(Out, Variable)>,
    /// Priorities of the region.
    prios: Range<u32>,
    /// Blocks at its start that run for all of the group's lanes (`Regions::lead`).
    lead: usize,
    /// Edges to destinations outside the region whose arguments are written once for the
    /// lanes sent there, after the group loops (`Gen::region_once_args`), one per
    /// destination block.
    once: Vec<ir::BlockCall>,
    /// A loop region's lanes back at the head after a pass (`i32`, the group's 4 bits).
    back: Option<Variable>,
    /// A loop region's head parameters kept in registers across the passes
    /// (`Gen::loop_carried`): their values for the next pass, one variable per vector.
    carried: Vec<(ir::Value, Vec<Variable>)>,
    /// Values a loop region's blocks read that are defined before it, not scalar-section
    /// values: loaded from their slots once per group, before the passes.
    inputs: Vec<ir::Value>,
}

impl Pass {
    /// Whether the arguments of the region's edges to `b` are written once after the group
    /// loops (`Pass::once`) rather than per group.
    fn once_to(&self, b: ir::Block) -> bool {
        self.once.iter().any(|c| c.block == b)
    }

    /// The edge whose arguments are written once for the destination of priority `p`, if any.
    fn once_call(&self, g: &Gen<'_, '_>, p: u32) -> Option<ir::BlockCall> {
        self.once
            .iter()
            .find(|c| g.layout.prio[c.block.index()] == p)
            .cloned()
    }
}

impl Gen<'_, '_> {
    /// Emit the region of priorities `r` (at least two blocks), entered through its head.
    pub(super) fn gen_region(&mut self, r: Range<u32>) -> Result<(), String> {
        let blocks: Vec<ir::Block> = r.clone().map(|p| self.layout.order[p as usize]).collect();
        let head = blocks[0];
        let looped = self.regions.is_loop(r.start);
        let lead = (self.regions.lead[r.start as usize] as usize).clamp(1, blocks.len());
        let pend = self.layout.pending(r.start);
        let (mask, first) = if let Some(st) = self.stream {
            // The stream loop's copy (`stream.rs`), at the current position: a fresh warp,
            // all 32 lanes pending (left so where the loop keeps the states fresh).
            let zero = self.iconst(types::I32, 0);
            if !st.fresh_states {
                self.state_store(zero, pend);
            }
            (self.iconst(types::I32, -1), zero)
        } else {
            let mask = self.enter_body(r.start)?;
            (mask, self.b.ins().ctz(mask))
        };

        // Scalar sections; the slot stores of the blocks after the head wait for their lanes.
        let mut sc: HashMap<ir::Value, Value> = HashMap::new();
        let mut deferred: Vec<Vec<(ir::Value, Value)>> = vec![vec![]; blocks.len()];
        for (k, &blk) in blocks.iter().enumerate() {
            if k < lead {
                self.uniform_mask = Some(mask);
                self.scalar_section(blk, first, &mut sc, None)?;
                self.uniform_mask = None;
            } else {
                self.scalar_section(blk, first, &mut sc, Some(&mut deferred[k]))?;
            }
        }
        self.region = Some(RegionCtx {
            head,
            blocks: blocks.clone(),
            looped,
        });
        // Uniform branch conditions, decided once: from the scalar sections, or from slots
        // written before the region.
        let mut uconds: Vec<Option<Value>> = vec![None; blocks.len()];
        for (k, &blk) in blocks.iter().enumerate() {
            let Terminator::Branch { cond, .. } = self.f.block(blk).term else {
                continue;
            };
            uconds[k] = match sc.get(&cond) {
                Some(&c) => Some(c),
                None => {
                    let ready = self.region.as_ref().is_some_and(|r| !r.hides(self, cond));
                    if ready && self.uni.uniform_at(cond, blk) && self.uni.uniform_at(cond, head) {
                        Some(self.uniform_get(cond, first)?)
                    } else {
                        None
                    }
                }
            };
        }
        // Destinations outside the region.
        let mut outs: Vec<(Out, Variable)> = vec![];
        for &blk in &blocks {
            let term = self.f.block(blk).term.clone();
            let dests: Vec<Out> = match &term {
                Terminator::Exit => vec![Out::Exited],
                t => t
                    .targets()
                    .iter()
                    .map(|c| self.layout.prio[c.block.index()])
                    // A back edge of a loop region stays inside it, as do its other blocks.
                    .filter(|&p| !((p > r.start && p < r.end) || (looped && p == r.start)))
                    .map(Out::Pending)
                    .collect(),
            };
            for d in dests {
                if !outs.iter().any(|(o, _)| *o == d) {
                    let v = self.b.declare_var(types::I32);
                    let z = self.iconst(types::I32, 0);
                    self.b.def_var(v, z);
                    outs.push((d, v));
                }
            }
        }
        // A loop region's lanes still at the head when the launch is aborted.
        if looped {
            let v = self.b.declare_var(types::I32);
            let z = self.iconst(types::I32, 0);
            self.b.def_var(v, z);
            outs.push((Out::Pending(r.start), v));
        }
        let masks: Vec<Variable> = blocks
            .iter()
            .map(|_| self.b.declare_var(types::I32))
            .collect();
        let once = match looped {
            true => vec![],
            false => self.region_once_args(&r, &blocks, &sc, &uconds),
        };
        let back = looped.then(|| self.b.declare_var(types::I32));
        let (carried, inputs) = match looped {
            true => self.loop_carried(&blocks, &sc, &uconds),
            false => (vec![], vec![]),
        };
        let carried = carried
            .into_iter()
            .map(|v| {
                let t = self.ty(v);
                let n = match t {
                    ir::Type::I64 | ir::Type::F64 => 2,
                    _ => 1,
                };
                let vt = super::vector::vty(t).unwrap_or(types::I32X4);
                (v, (0..n).map(|_| self.b.declare_var(vt)).collect())
            })
            .collect();
        let pass = Pass {
            masks,
            outs,
            prios: r.clone(),
            lead,
            once,
            back,
            carried,
            inputs,
        };
        // The per-warp tests the per-call flag covers are made only where the full-warp
        // version is not entered from the flag (`Gen::region_loops`), unless a skipping
        // version, whose test comes first, may need them (the stream loop's copy has none).
        let skip =
            self.stream.is_none() && !looped && self.skip_possible(&r, &blocks, lead, &uconds);
        if self.hoist.cta.ok.is_some() && !skip && !looped {
            let t = self.b.create_block();
            self.hoist.cta.deferred = Some(super::ctacheck::Deferred::new(t));
        }
        // Hoisted bounds checks, planned at the top for every block: the lead's first, then
        // (after the skipping version's test, which needs only those) the others'.
        let mut fast = super::affine::FastMem::default();
        for (k, &blk) in blocks.iter().enumerate() {
            if k == lead {
                self.fast = super::affine::FastMem {
                    access: fast.access.clone(),
                    ..Default::default()
                };
                self.gfast = Default::default();
                self.pinned.clear();
                if self.stream.is_none() && !looped {
                    self.region_skip(&r, mask, first, &blocks, &sc, &uconds, &deferred, &pass)?;
                }
            }
            let insts = self.f.block(blk).insts.clone();
            // A loop region's lead runs for part of the group's lanes after its first pass.
            let m = (k < lead && !looped).then_some(mask);
            let plan = self.plan_fast_mem(blk, &insts, &sc, first, m)?;
            fast.access.extend(plan.access);
        }
        self.fast = fast;
        self.gfast = Default::default();
        self.pinned.clear();
        // Branch conditions the full-warp version decides once per warp (`Gen::warp_cond`):
        // that version runs only where lane 0's condition has the value chosen here and all
        // lanes agree, so it follows one direction at compile time.
        let mut spec = Spec {
            conds: vec![None; blocks.len()],
            oks: vec![],
            all_out: vec![],
            wide: vec![],
        };
        if !self.no_warp_conds && !looped {
            for (k, &blk) in blocks.iter().enumerate() {
                let Terminator::Branch { cond, then_, else_ } = &self.f.block(blk).term else {
                    continue;
                };
                if uconds[k].is_some() {
                    continue;
                }
                let (cond, then_, else_) = (*cond, then_.block, else_.block);
                let spec_dir = self.spec_direction(&r, then_, else_);
                // An `eq`/`ne` compare can be decided in one direction only (no lane equal),
                // unless the skipping version (`Gen::region_skip`) takes the warps that go
                // that way out of the region already: this version then keeps the branch.
                let want = match self.unequal_direction(cond) {
                    Some(w) if w != spec_dir => {
                        let to = if w { then_ } else { else_ };
                        let p = self.layout.prio[to.index()];
                        let leaves = !(p > r.start && p < r.end);
                        if self.stream.is_none() && k + 1 == lead && lead < blocks.len() && leaves {
                            continue;
                        }
                        w
                    }
                    _ => spec_dir,
                };
                let Some(ok) = self.warp_cond(cond, blk, &sc, first, want)? else {
                    continue;
                };
                spec.oks.push(ok);
                spec.conds[k] = Some(want);
            }
        }
        let res = self.region_loops(mask, &blocks, &sc, &uconds, &deferred, &pass, spec);
        self.hoist.cta.deferred = None;
        self.region = None;
        self.region_store_check = false;
        res?;
        // Mask-level work, once for the warp; with one destination block, on to it
        // (`Gen::goto_prio`).
        let single = pass
            .outs
            .iter()
            .filter(|(o, _)| matches!(o, Out::Pending(_)))
            .count()
            == 1;
        let mut next = None;
        for &(o, v) in &pass.outs {
            let m = self.b.use_var(v);
            match o {
                Out::Pending(p) => {
                    if let Some(call) = pass.once_call(self, p) {
                        self.scalar_args_store(&call, m, &sc)?;
                    }
                    if single {
                        next = Some((p, m));
                    } else {
                        self.state_or32(self.layout.pending(p), m);
                        self.set_active(p);
                    }
                }
                // The stream loop that keeps the states fresh writes every lane's exit
                // when it leaves (`stream.rs`).
                Out::Exited if self.stream.is_some_and(|st| st.fresh_states) => {}
                Out::Exited => self.state_or32(EXITED_OFF, m),
            }
        }
        if let Some(st) = self.stream {
            // Every lane has exited (`Gen::stream_region`): on to the next turn.
            if next.is_some() || pass.outs.iter().any(|(o, _)| *o != Out::Exited) {
                return Err("internal: a stream loop's region leaves lanes pending".into());
            }
            self.b.ins().jump(st.tail, &[]);
            return Ok(());
        }
        match next {
            // The region's one destination block. Without an `exit` in the region every lane
            // of the mask goes there; with one, maybe none (through the pending mask, whose
            // entry goes back to the dispatcher for no lanes).
            Some((p, m)) => self.goto_prio_via(p, m, pass.outs.len() != 1),
            None => {
                self.b.ins().jump(self.dispatch, &[]);
            }
        }
        Ok(())
    }

    /// The region's group loop; where the region has hoisted bounds checks, preceded by a
    /// version for a full warp in which all of them hold (as `fullwarp.rs` does for a
    /// block): no per-access test or fallback, and a store after the lead either all four
    /// lanes at once or, for a partial group, lane by lane.
    #[allow(clippy::too_many_arguments)]
    fn region_loops(
        &mut self,
        mask: Value,
        blocks: &[ir::Block],
        sc: &HashMap<ir::Value, Value>,
        uconds: &[Option<Value>],
        deferred: &[Vec<(ir::Value, Value)>],
        pass: &Pass,
        mut spec: Spec,
    ) -> Result<(), String> {
        let mut oks: Vec<Value> = std::mem::take(&mut spec.oks);
        for blk in blocks {
            let insts = self.f.block(*blk).insts.clone();
            self.fast_oks(insts, &mut oks);
        }
        if pass.back.is_some() {
            // A loop region: its general version only, its groups side by side.
            return self.group_chunks(mask, LOOP_GROUPS, |g: &mut Self, grps: &mut [Grp]| {
                g.region_passes(grps, blocks, sc, uconds, deferred, pass)
            });
        }
        let body = |g: &mut Self, grp: &mut Grp, acc: Value| {
            g.region_group(grp, blocks, sc, uconds, deferred, pass, None)?;
            Ok(acc)
        };
        let tests = self.hoist.cta.deferred.take();
        // A big kernel's quick tier (`Gen::big`): the general version only, unless the
        // region has per-warp tests that only a full-warp version's entry makes. A loop
        // region has only its general version (its lanes' masks change with each pass).
        if self.big && tests.as_ref().is_none_or(|t| t.is_empty()) {
            oks.clear();
        }
        if oks.is_empty() {
            if tests.as_ref().is_some_and(|t| !t.is_empty()) {
                return Err("internal: deferred tests without a full-warp version".into());
            }
            self.group_loop(mask, false, body)?;
            return Ok(());
        }
        let fast = self.b.create_block();
        let general = self.b.create_block();
        let join = self.b.create_block();
        // The stream loop's copy (`stream.rs`) runs only where the flag is 1 and the warp
        // full: where the flag covers every condition, the full-warp version alone.
        let mut general_needed = true;
        match (tests, self.hoist.cta.ok) {
            (Some(tests), Some(_))
                if self.stream.is_some()
                    && !tests.is_empty()
                    && oks.iter().all(|&o| tests.holds(self, o)) =>
            {
                general_needed = false;
                self.b.ins().jump(fast, &[]);
            }
            (Some(tests), Some(cta_ok)) if !tests.is_empty() => {
                // One test of the flag, the full mask and the conditions the flag does not
                // cover enters the full-warp version; the flag's per-warp tests only
                // otherwise, then the usual test.
                let rest: Vec<Value> = oks
                    .iter()
                    .copied()
                    .filter(|&o| !tests.holds(self, o))
                    .collect();
                let cond = self.full_warp_and(mask, rest);
                let cond = self.b.ins().band(cond, cta_ok);
                let per_warp = self.b.create_block();
                self.b.ins().brif(cond, fast, &[], per_warp, &[]);
                self.b.switch_to_block(per_warp);
                self.emit_deferred(tests)?;
                let cond = self.full_warp_and(mask, oks);
                self.b.ins().brif(cond, fast, &[], general, &[]);
            }
            _ => {
                let cond = self.full_warp_and(mask, oks);
                self.b.ins().brif(cond, fast, &[], general, &[]);
            }
        }
        self.b.switch_to_block(fast);
        self.warp_fast_body = true;
        let insts: Vec<ir::Inst> = blocks
            .iter()
            .flat_map(|b| self.f.block(*b).insts.iter().copied())
            .collect();
        // Whole-struct accesses (`wide.rs`), planned per block: used in the blocks every
        // lane of the group runs (the lead's, and those `Reach::All` at compile time).
        spec.wide = blocks
            .iter()
            .map(|b| {
                let insts = self.f.block(*b).insts.clone();
                self.plan_wide(&insts)
            })
            .collect();
        let wide = &spec.wide;
        self.unroll_groups =
            self.unroll_fits(insts.into_iter(), |i| wide.iter().any(|w| w.has_member(i)));
        let r = self.group_loop(mask, true, |g: &mut Self, grp: &mut Grp, acc: Value| {
            g.region_group(grp, blocks, sc, uconds, deferred, pass, Some(&mut spec))?;
            Ok(acc)
        });
        self.warp_fast_body = false;
        r?;
        // Destinations every lane of every group reached: the whole warp, once.
        for d in &spec.all_out {
            let Some(&(_, v)) = pass.outs.iter().find(|(o, _)| o == d) else {
                return Err("internal: a region's destination without a mask".into());
            };
            let old = self.b.use_var(v);
            let new = self.b.ins().bor(old, mask);
            self.b.def_var(v, new);
        }
        self.b.ins().jump(join, &[]);
        if general_needed {
            self.b.switch_to_block(general);
            self.group_loop(mask, false, body)?;
            self.b.ins().jump(join, &[]);
        }
        self.b.switch_to_block(join);
        Ok(())
    }

    /// Whether [`Self::region_skip`] may emit a skipping version for the region of
    /// priorities `r` (`blocks`, `lead` blocks in its lead, uniform conditions `uconds`):
    /// its conditions that do not depend on the code emitted.
    fn skip_possible(
        &self,
        r: &Range<u32>,
        blocks: &[ir::Block],
        lead: usize,
        uconds: &[Option<Value>],
    ) -> bool {
        if lead >= blocks.len() || self.no_warp_conds || lead == 0 {
            return false;
        }
        let kb = lead - 1;
        let Terminator::Branch { then_, else_, .. } = &self.f.block(blocks[kb]).term else {
            return false;
        };
        if uconds[kb].is_some() {
            return false;
        }
        [then_.block, else_.block].iter().any(|t| {
            let p = self.layout.prio[t.index()];
            !(p > r.start && p < r.end)
        })
    }

    /// A version for a warp whose lanes all take the lead's branch (the last block of
    /// `Regions::lead`) out of the region (a guard skipping
    /// its body: `if (tid < s) …` for the warps past `s`), emitted at the region's top after
    /// the lead's hoisted checks and before the other blocks' (which it does not need). It
    /// applies where that branch's condition is one `Gen::warp_cond` decides and the
    /// direction other than the full-warp version's (`spec_direction`) goes there, and is
    /// entered where the warp is full, the lead's hoisted checks hold, lane 0 takes that
    /// direction and the lanes agree: the lead's instructions run for all lanes as in the
    /// full-warp version, the whole warp goes to the branch's target once, and the
    /// dispatcher follows. Otherwise (or where it does not apply) nothing is emitted but the
    /// test, and the current block goes on with the region's other versions.
    #[allow(clippy::too_many_arguments)]
    fn region_skip(
        &mut self,
        r: &Range<u32>,
        mask: Value,
        first: Value,
        blocks: &[ir::Block],
        sc: &HashMap<ir::Value, Value>,
        uconds: &[Option<Value>],
        deferred: &[Vec<(ir::Value, Value)>],
        pass: &Pass,
    ) -> Result<(), String> {
        // The lead's last block: the branch every lane of the region runs.
        let kb = pass.lead - 1;
        let bb = blocks[kb];
        let Terminator::Branch { cond, then_, else_ } = &self.f.block(bb).term else {
            return Ok(());
        };
        if self.no_warp_conds || uconds[kb].is_some() {
            return Ok(());
        }
        let (cond, then_, else_) = (*cond, then_.block, else_.block);
        let dir = !self.spec_direction(r, then_, else_);
        let to = if dir { then_ } else { else_ };
        let target = self.layout.prio[to.index()];
        // Leaving the region only: an exit block inside it (`if (i < n) { … } return;`)
        // would put this version's test before the full-warp version of every streaming
        // warp (saxpy: +6% instructions per launch in a build that had it).
        if target > r.start && target < r.end {
            return Ok(());
        }
        let Some(ok) = self.warp_cond(cond, bb, sc, first, dir)? else {
            return Ok(());
        };
        // Every lane takes `dir`, and the lead's hoisted checks hold.
        let lead: Vec<ir::Inst> = blocks[..pass.lead]
            .iter()
            .flat_map(|b| self.f.block(*b).insts.iter().copied())
            .collect();
        let mut oks: Vec<Value> = vec![ok];
        self.fast_oks(lead.iter().copied(), &mut oks);
        let go = self.full_warp_and(mask, oks);
        let run = self.b.create_block();
        let rest = self.b.create_block();
        self.b.ins().brif(go, run, &[], rest, &[]);
        self.b.switch_to_block(run);
        let mut conds = vec![None; blocks.len()];
        conds[kb] = Some(dir);
        let mut spec = Spec {
            conds,
            oks: vec![],
            all_out: vec![],
            wide: vec![],
        };
        self.warp_fast_body = true;
        self.unroll_groups = self.unroll_fits(lead.into_iter(), |_| false);
        let res = self.group_loop(mask, true, |g: &mut Self, grp: &mut Grp, acc: Value| {
            g.region_group(grp, blocks, sc, uconds, deferred, pass, Some(&mut spec))?;
            Ok(acc)
        });
        self.warp_fast_body = false;
        res?;
        if spec.all_out.len() != 1 {
            return Err("internal: a skipped region left other than at its head".into());
        }
        match spec.all_out[0] {
            Out::Pending(p) => {
                self.goto_prio(p, mask);
            }
            Out::Exited => {
                self.state_or32(EXITED_OFF, mask);
                self.b.ins().jump(self.dispatch, &[]);
            }
        }
        self.b.switch_to_block(rest);
        self.gfast = Default::default();
        self.pinned.clear();
        Ok(())
    }

    /// A loop region's head parameters kept in registers across its passes (vector types,
    /// read by no block outside the region, whose code reads slots), and the values its
    /// blocks read from slots that are defined before it (preloaded once per group; not
    /// scalar-section values, constants or values hidden before the warp loop).
    fn loop_carried(
        &self,
        blocks: &[ir::Block],
        sc: &HashMap<ir::Value, Value>,
        uconds: &[Option<Value>],
    ) -> (Vec<ir::Value>, Vec<ir::Value>) {
        let inside = |b: ir::Block| blocks.contains(&b);
        let def_inside = |v: ir::Value| match self.f.values[v.index()].def {
            ir::ValueDef::Param(b, _) => inside(b),
            ir::ValueDef::Result(i, _) => inside(ir::Block(self.inst_block[i.index()])),
        };
        let vector = |v: ir::Value| super::vector::vty(self.ty(v)).is_some();
        // Every value read by a block outside the region.
        let mut outside = std::collections::HashSet::new();
        for (bi, bd) in self.f.blocks.iter().enumerate() {
            if inside(ir::Block(bi as u32)) {
                continue;
            }
            for &i in &bd.insts {
                outside.extend(self.f.inst(i).args.iter().copied());
            }
            if let Terminator::Branch { cond, .. } = &bd.term {
                outside.insert(*cond);
            }
            for c in bd.term.targets() {
                outside.extend(c.args.iter().copied());
            }
        }
        let carried = self
            .f
            .block(blocks[0])
            .params
            .iter()
            .copied()
            .filter(|&v| {
                vector(v) && !outside.contains(&v) && self.layout.slot[v.index()] != u32::MAX
            })
            .collect();
        let mut inputs: Vec<ir::Value> = vec![];
        let add = |v: ir::Value, inputs: &mut Vec<ir::Value>| {
            let wanted = !def_inside(v)
                && vector(v)
                && !sc.contains_key(&v)
                && self.f.const_bits(v).is_none()
                && self.layout.slot[v.index()] != u32::MAX
                && !self.hoist.hides(v, self.f);
            if wanted && !inputs.contains(&v) {
                inputs.push(v);
            }
        };
        for (k, &b) in blocks.iter().enumerate() {
            let bd = self.f.block(b);
            for &i in &bd.insts {
                if self.scalar[i.index()] {
                    continue;
                }
                for &a in &self.f.inst(i).args {
                    add(a, &mut inputs);
                }
            }
            if let (Terminator::Branch { cond, .. }, None) = (&bd.term, uconds[k]) {
                add(*cond, &mut inputs);
            }
            for c in bd.term.targets() {
                for &a in &c.args {
                    add(a, &mut inputs);
                }
            }
        }
        (carried, inputs)
    }

    /// The vectors of carried parameter `v`'s group value `x`, one per variable of
    /// `Pass::carried` (per-lane `S4` values packed first).
    fn carried_parts(&mut self, v: ir::Value, x: GVal) -> Vec<Value> {
        let x = match x {
            GVal::S4(l) => self.pack_lanes(l, self.ty(v)),
            x => x,
        };
        gval_parts(x)
    }

    /// A carried parameter's group value from its variables (`Pass::carried`).
    fn carried_val(&mut self, vars: &[Variable]) -> Result<GVal, String> {
        let parts: Vec<Value> = vars.iter().map(|&var| self.b.use_var(var)).collect();
        match parts[..] {
            [a] => Ok(GVal::V1(a)),
            [a, b] => Ok(GVal::V2(a, b)),
            _ => Err("internal: a carried value's parts".into()),
        }
    }

    /// A loop region's passes for groups `grps` side by side (`Gen::group_chunks`): each
    /// pass runs the region's blocks (`Gen::region_group`) for each group that has lanes at
    /// the head, one group after the other in the code, each with its own lanes, back mask
    /// and carried parameters' variables (`Pass::back`, `Pass::carried`); a group with no
    /// lane there is skipped, its variables unchanged. The lanes that took a back edge
    /// (`back`) run the next pass, until no group's did. The region has no memory
    /// operation, so the order of the groups' instructions within a pass is unobservable;
    /// each group's chain of dependent operations is independent of the others', which the
    /// core overlaps. Before another pass the launch's abort flag is read, as the dispatcher
    /// reads it before each block: set, every group's lanes back at the head are left
    /// pending there (`Pass::outs`) and the passes end.
    fn region_passes(
        &mut self,
        grps: &mut [Grp],
        blocks: &[ir::Block],
        sc: &HashMap<ir::Value, Value>,
        uconds: &[Option<Value>],
        deferred: &[Vec<(ir::Value, Value)>],
        pass: &Pass,
    ) -> Result<(), String> {
        // Each group's own back mask and carried variables; the blocks' masks and the
        // destinations' masks are shared (a group's pass sets the former before reading them;
        // the latter are warp bits).
        let passes: Vec<Pass> = grps
            .iter()
            .map(|_| {
                let carried = pass
                    .carried
                    .iter()
                    .map(|(v, vars)| {
                        let vt = super::vector::vty(self.ty(*v)).unwrap_or(types::I32X4);
                        (*v, vars.iter().map(|_| self.b.declare_var(vt)).collect())
                    })
                    .collect();
                Pass {
                    back: Some(self.b.declare_var(types::I32)),
                    carried,
                    ..pass.clone()
                }
            })
            .collect();
        let mut saved = vec![];
        let mut outer = vec![];
        for (grp, p) in grps.iter_mut().zip(&passes) {
            saved.push((
                grp.m32,
                grp.m64,
                grp.bits,
                grp.full,
                grp.vals.clone(),
                grp.packed.clone(),
                std::mem::take(&mut grp.gcache),
            ));
            // Values from before the region, and the carried parameters' first values, from
            // their slots (written by the edges into the head).
            for &v in &p.inputs {
                self.gget(grp, sc, v)?;
            }
            for (v, vars) in &p.carried {
                let x = self.gget(grp, sc, *v)?;
                grp.vals.remove(v);
                for (&var, c) in vars.iter().zip(self.carried_parts(*v, x)) {
                    self.b.def_var(var, c);
                }
            }
            outer.push((grp.vals.clone(), grp.packed.clone()));
        }
        let top = self.b.create_block();
        let mut args = vec![];
        for grp in grps.iter() {
            self.b.append_block_param(top, types::I32);
            args.push(BlockArg::Value(grp.bits));
        }
        self.b.ins().jump(top, &args);
        self.b.switch_to_block(top);
        let bits: Vec<Value> = self.b.block_params(top).to_vec();
        for (j, (grp, p)) in grps.iter_mut().zip(&passes).enumerate() {
            let back = p.back.expect("a loop region's pass has a back mask");
            let z = self.iconst(types::I32, 0);
            self.b.def_var(back, z);
            let run = self.b.create_block();
            let skip = self.b.create_block();
            self.b.ins().brif(bits[j], run, &[], skip, &[]);
            self.b.switch_to_block(run);
            self.set_group_bits(grp, bits[j]);
            for (v, vars) in &p.carried {
                let x = self.carried_val(vars)?;
                grp.vals.insert(*v, x);
            }
            self.region_group(grp, blocks, sc, uconds, deferred, p, None)?;
            self.region_store_check = false;
            (grp.vals, grp.packed) = outer[j].clone();
            grp.gcache = Default::default();
            self.b.ins().jump(skip, &[]);
            self.b.switch_to_block(skip);
        }
        let again: Vec<Value> = passes
            .iter()
            .map(|p| self.b.use_var(p.back.expect("a back mask")))
            .collect();
        let mut any = again[0];
        for &a in &again[1..] {
            any = self.b.ins().bor(any, a);
        }
        let more = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(any, more, &[], done, &[]);
        self.b.switch_to_block(more);
        let abort = self.abort_flag();
        let stop = self.b.create_block();
        let args: Vec<BlockArg> = again.iter().map(|&a| BlockArg::Value(a)).collect();
        self.b.ins().brif(abort, stop, &[], top, &args);
        self.b.switch_to_block(stop);
        // The carried parameters to their slots, for the lanes left pending at the head.
        let head = Out::Pending(pass.prios.start);
        let Some(&(_, v)) = pass.outs.iter().find(|(o, _)| *o == head) else {
            return Err("internal: a loop region without its head's mask".into());
        };
        for ((grp, p), &a) in grps.iter_mut().zip(&passes).zip(&again) {
            self.set_group_bits(grp, a);
            for (cv, vars) in &p.carried {
                let x = self.carried_val(vars)?;
                self.gstore(grp, *cv, x, true)?;
            }
            let sh = self.b.ins().ishl_imm_s(grp.g, 2);
            let placed = self.b.ins().ishl(a, sh);
            let old = self.b.use_var(v);
            let new = self.b.ins().bor(old, placed);
            self.b.def_var(v, new);
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        for (grp, s) in grps.iter_mut().zip(saved) {
            (
                grp.m32, grp.m64, grp.bits, grp.full, grp.vals, grp.packed, grp.gcache,
            ) = s;
        }
        self.region_store_check = false;
        Ok(())
    }

    /// One group's pass through the region's blocks. With `spec` (the full-warp version, all
    /// four lanes of the group active), which blocks the group's lanes reach is followed at
    /// compile time through the lead, unconditional jumps and the branches `spec` decides
    /// ([`Reach`]): a block no lane reaches has no code, one all lanes reach runs as a lead
    /// block does (no mask test, four-lane stores), and destinations outside the region that
    /// all lanes reach are added for the whole warp after the loop (`Spec::all_out`).
    #[allow(clippy::too_many_arguments)]
    fn region_group(
        &mut self,
        grp: &mut Grp,
        blocks: &[ir::Block],
        sc: &HashMap<ir::Value, Value>,
        uconds: &[Option<Value>],
        deferred: &[Vec<(ir::Value, Value)>],
        pass: &Pass,
        mut spec: Option<&mut Spec>,
    ) -> Result<(), String> {
        let z = self.iconst(types::I32, 0);
        for &m in &pass.masks[pass.lead..] {
            self.b.def_var(m, z);
        }
        let mut reach: Vec<Reach> = (0..blocks.len())
            .map(|k| match (k < pass.lead, spec.is_some()) {
                (true, _) => Reach::All,
                (false, true) => Reach::Nothing,
                (false, false) => Reach::Some,
            })
            .collect();
        let saved = (grp.m32, grp.m64, grp.bits, grp.full);
        for (k, &blk) in blocks.iter().enumerate() {
            let bd = self.f.block(blk).clone();
            // A loop region's lead runs for part of the group's lanes after the first pass:
            // its stores test them, as the other blocks' do.
            if pass.back.is_some() {
                self.region_store_check = true;
            }
            let join = match (k < pass.lead, reach[k]) {
                (true, _) => None,
                (false, Reach::Nothing) => continue,
                (false, Reach::All) => Some((None, grp.vals.clone(), grp.packed.clone())),
                (false, Reach::Some) => {
                    let bits = self.b.use_var(pass.masks[k]);
                    let run = self.b.create_block();
                    let join = self.b.create_block();
                    self.b.ins().brif(bits, run, &[], join, &[]);
                    self.b.switch_to_block(run);
                    self.set_group_bits(grp, bits);
                    self.region_store_check = true;
                    Some((Some(join), grp.vals.clone(), grp.packed.clone()))
                }
            };
            // In the full-warp version, a block all four lanes run accesses its structs whole.
            let wide = match (spec.as_deref_mut(), k < pass.lead || reach[k] == Reach::All) {
                (Some(s), true) => s.wide.get_mut(k).map(std::mem::take),
                _ => None,
            };
            let wide_on = wide.is_some();
            if let Some(w) = wide {
                self.fast.wide = w;
            }
            // A branch decided for the whole warp needs no condition per group.
            let known = spec.as_ref().and_then(|s| s.conds[k]);
            let dead = match known {
                Some(_) => self.condition_only(blk),
                None => Default::default(),
            };
            let r = bd.insts.iter().try_for_each(|&i| {
                match self.scalar[i.index()] || dead.contains(&i) {
                    true => Ok(()),
                    false => self.ginst(grp, sc, i),
                }
            });
            if wide_on {
                let w = std::mem::take(&mut self.fast.wide);
                if let Some(s) = spec.as_deref_mut() {
                    s.wide[k] = w;
                }
            }
            r?;
            if !grp.wide.is_empty() {
                return Err(format!("internal: a struct run of {blk} left unfinished"));
            }
            for &(v, x) in &deferred[k] {
                let gv = self.splat_val(x, self.ty(v));
                self.gstore(grp, v, gv, true)?;
            }
            let from = reach[k];
            let mut route = Route {
                pass,
                reach: &mut reach,
                from,
                spec: spec.as_deref_mut(),
            };
            self.region_terminator(grp, sc, &bd.term, uconds[k], known, &mut route)?;
            if let Some((join, vals, packed)) = join {
                // The values of a block after the head do not reach the others in registers,
                // and neither do its packed narrow loads (their uses read the slots).
                grp.vals = vals;
                grp.packed = packed;
                (grp.m32, grp.m64, grp.bits, grp.full) = saved;
                self.region_store_check = false;
                if let Some(join) = join {
                    self.b.ins().jump(join, &[]);
                    self.b.switch_to_block(join);
                }
            }
        }
        Ok(())
    }

    /// The group instructions of block `blk` that only compute its branch condition: pure,
    /// not in the scalar section, and every result read only by that condition or by other
    /// such instructions, anywhere in the function (`Gen::uses`). Where the condition is
    /// decided for the whole warp (`Spec::conds`), they need no code: nothing else reads
    /// their values, in a register or a slot. (Their slot loads would stay otherwise:
    /// Cranelift keeps a load of the warp state even when its value is unused.)
    fn condition_only(&self, blk: ir::Block) -> std::collections::HashSet<ir::Inst> {
        let mut dead = std::collections::HashSet::new();
        let bd = self.f.block(blk);
        let Terminator::Branch { cond, .. } = &bd.term else {
            return dead;
        };
        // Reads by the condition and by the instructions found so far.
        let mut dead_reads: HashMap<ir::Value, u32> = HashMap::from([(*cond, 1)]);
        for &i in bd.insts.iter().rev() {
            let d = self.f.inst(i);
            let only = !d.results.is_empty()
                && d.results
                    .iter()
                    .all(|r| dead_reads.get(r).copied().unwrap_or(0) == self.uses[r.index()]);
            if only && !self.scalar[i.index()] && d.op.effect() == ir::Effect::Pure {
                dead.insert(i);
                for &a in &d.args {
                    *dead_reads.entry(a).or_default() += 1;
                }
            }
        }
        dead
    }

    /// Make `bits` (`i32`, the group's 4 lane bits) the group's active lanes.
    fn set_group_bits(&mut self, grp: &mut Grp, bits: Value) {
        let m32 = self.lane_mask(bits);
        grp.m32 = m32;
        grp.m64 = [self.b.ins().swiden_low(m32), self.b.ins().swiden_high(m32)];
        grp.bits = bits;
        grp.full = false;
    }

    /// A region block's terminator for the group's lanes: block arguments to the targets'
    /// parameter slots, and the lanes to the targets' masks. `known`: the branch condition's
    /// value in every lane (the full-warp version's decision, `Spec::conds`).
    fn region_terminator(
        &mut self,
        grp: &mut Grp,
        sc: &HashMap<ir::Value, Value>,
        term: &Terminator,
        ucond: Option<Value>,
        known: Option<bool>,
        route: &mut Route<'_, '_>,
    ) -> Result<(), String> {
        let bits = grp.bits;
        let from = route.from;
        match term {
            Terminator::Jump(c) => {
                if !c.args.is_empty() && !route.pass.once_to(c.block) {
                    self.region_args(grp, sc, c, None, route.pass)?;
                }
                let p = self.layout.prio[c.block.index()];
                self.region_route(grp, route, Out::Pending(p), bits, from)?;
            }
            Terminator::Branch { then_, else_, .. } if known.is_some() => {
                // Every lane takes the same direction: no condition per group.
                let taken = if known == Some(true) { then_ } else { else_ };
                if !taken.args.is_empty() && !route.pass.once_to(taken.block) {
                    self.region_args(grp, sc, taken, None, route.pass)?;
                }
                let p = self.layout.prio[taken.block.index()];
                self.region_route(grp, route, Out::Pending(p), bits, from)?;
            }
            Terminator::Branch { cond, then_, else_ } => {
                let (tm, tbits) = match ucond {
                    Some(u) => {
                        let w = self.b.ins().uextend(types::I32, u);
                        let m = self.b.ins().ineg(w);
                        let z = self.iconst(types::I32, 0);
                        (
                            self.b.ins().splat(types::I32X4, m),
                            self.b.ins().select(u, bits, z),
                        )
                    }
                    None => {
                        let GVal::V1(m) = self.gget(grp, sc, *cond)? else {
                            return Err("branch condition representation".into());
                        };
                        let hb = self.b.ins().vhigh_bits(types::I32, m);
                        (m, self.b.ins().band(hb, bits))
                    }
                };
                let ebits = self.b.ins().band_not(bits, tbits);
                if !then_.args.is_empty() && !route.pass.once_to(then_.block) {
                    self.region_args(grp, sc, then_, Some((tm, false)), route.pass)?;
                }
                if !else_.args.is_empty() && !route.pass.once_to(else_.block) {
                    self.region_args(grp, sc, else_, Some((tm, true)), route.pass)?;
                }
                let tp = self.layout.prio[then_.block.index()];
                let ep = self.layout.prio[else_.block.index()];
                // Either target may get any part of the lanes.
                let part = match from {
                    Reach::Nothing => Reach::Nothing,
                    Reach::All | Reach::Some => Reach::Some,
                };
                self.region_route(grp, route, Out::Pending(tp), tbits, part)?;
                self.region_route(grp, route, Out::Pending(ep), ebits, part)?;
            }
            Terminator::Exit => self.region_route(grp, route, Out::Exited, bits, from)?,
            Terminator::Barrier { .. } | Terminator::Trap => {
                return Err("internal: a barrier or trap in a region".into())
            }
        }
        Ok(())
    }

    /// A region edge's arguments for the group's lanes (restricted to lanes where `cond` is
    /// true, or false with `negate`): to the target's parameter slots, except a loop
    /// region's back edge's carried parameters (`Pass::carried`), blended into their
    /// variables for the next pass.
    fn region_args(
        &mut self,
        grp: &mut Grp,
        sc: &HashMap<ir::Value, Value>,
        call: &ir::BlockCall,
        cond: Option<(Value, bool)>,
        pass: &Pass,
    ) -> Result<(), String> {
        let back = pass.back.is_some()
            && self.layout.prio[call.block.index()] == pass.prios.start
            && !pass.carried.is_empty();
        if !back {
            return self.write_args(grp, sc, call, cond);
        }
        // Every argument is read before any parameter is written.
        let mut vals = vec![];
        for (&a, &p) in call.args.iter().zip(&self.f.block(call.block).params) {
            vals.push((p, self.gget(grp, sc, a)?));
        }
        let m32 = match cond {
            Some((c, false)) => self.b.ins().band(grp.m32, c),
            Some((c, true)) => self.b.ins().band_not(grp.m32, c),
            None => grp.m32,
        };
        let m64 = [self.b.ins().swiden_low(m32), self.b.ins().swiden_high(m32)];
        let mut slots = vec![];
        for (p, x) in vals {
            let Some((_, vars)) = pass.carried.iter().find(|(v, _)| *v == p) else {
                slots.push((p, x));
                continue;
            };
            let parts = self.carried_parts(p, x);
            for (k, (&var, new)) in vars.iter().zip(parts).enumerate() {
                let old = self.b.use_var(var);
                let vt = self.b.func.dfg.value_type(old);
                let m = match vars.len() {
                    1 => m32,
                    _ => m64[k],
                };
                let m = self.vbitcast(m, vt);
                let new = self.vbitcast(new, vt);
                let x = self.b.ins().bitselect(m, new, old);
                self.b.def_var(var, x);
            }
        }
        self.store_args(grp, slots, cond)
    }

    /// Add the group's lanes `bits` (which `lanes` describes at compile time) to destination
    /// `d`: a block of the region after the head (its mask), or a destination outside
    /// (shifted to the group's warp bits).
    fn region_route(
        &mut self,
        grp: &Grp,
        route: &mut Route<'_, '_>,
        d: Out,
        bits: Value,
        lanes: Reach,
    ) -> Result<(), String> {
        let pass = route.pass;
        if let (Out::Pending(p), Some(back)) = (d, pass.back) {
            // A loop region's back edge: the lanes run the next pass.
            if p == pass.prios.start {
                let old = self.b.use_var(back);
                let new = self.b.ins().bor(old, bits);
                self.b.def_var(back, new);
                return Ok(());
            }
        }
        if let Out::Pending(p) = d {
            // The lead's blocks run for the group's lanes anyway: a jump along it is no route.
            if p > pass.prios.start && p < pass.prios.start + pass.lead as u32 {
                return Ok(());
            }
            if p > pass.prios.start && p < pass.prios.end {
                let k = (p - pass.prios.start) as usize;
                // The general version keeps every block after the lead under its mask.
                if route.spec.is_some() {
                    route.reach[k] = route.reach[k].join(lanes);
                }
                let v = pass.masks[k];
                let old = self.b.use_var(v);
                let new = self.b.ins().bor(old, bits);
                self.b.def_var(v, new);
                return Ok(());
            }
        }
        let Some(&(_, v)) = pass.outs.iter().find(|(o, _)| *o == d) else {
            return Err("internal: a region's destination without a mask".into());
        };
        if let (Reach::All, Some(spec)) = (lanes, route.spec.as_deref_mut()) {
            if !spec.all_out.contains(&d) {
                spec.all_out.push(d);
            }
            return Ok(());
        }
        let sh = self.b.ins().ishl_imm_s(grp.g, 2);
        let placed = self.b.ins().ishl(bits, sh);
        let old = self.b.use_var(v);
        let new = self.b.ins().bor(old, placed);
        self.b.def_var(v, new);
        Ok(())
    }

    /// The edges out of region `r` (to a block outside it, or back to its head) whose
    /// arguments can be written once for the warp after the group loops, not per group with
    /// the group's lanes blended in: every edge of the region to that destination is one
    /// all lanes of its block take together (a jump, or a branch on a condition decided
    /// once, `uconds`) and passes the same values, each a scalar-section value (`sc`,
    /// computed at the region's top). The lanes that take those edges are the
    /// destination's mask (`Pass::outs`, with the whole warp where the full-warp version
    /// sends every lane there), and `Gen::scalar_args_store` writes the values for exactly
    /// those lanes, so each lane's parameter slots end as the per-group writes would leave
    /// them. Nothing in the region reads those slots in the meantime: a destination outside
    /// the region, or the head, is entered only from the dispatcher, after the pass. (The
    /// counter `s = ntid / 2` passed into a reduction's loop from the block after the first
    /// barrier.) An edge of a divergent branch keeps its per-group writes: part of a warp
    /// takes it, often none (a bounds guard), and the writes lane by lane for part of a
    /// warp cost more than the blended group stores (reduce_shfl: +0.2% instructions in a
    /// build that took such edges too); nor does the skipping version (`Gen::region_skip`)
    /// write any, as it leaves by a divergent branch.
    fn region_once_args(
        &self,
        r: &Range<u32>,
        blocks: &[ir::Block],
        sc: &HashMap<ir::Value, Value>,
        uconds: &[Option<Value>],
    ) -> Vec<ir::BlockCall> {
        let mut calls: Vec<ir::BlockCall> = vec![];
        let mut mixed: Vec<ir::Block> = vec![];
        for (k, &blk) in blocks.iter().enumerate() {
            let term = &self.f.block(blk).term;
            let together = match term {
                Terminator::Branch { .. } => uconds[k].is_some(),
                Terminator::Jump(_) | Terminator::Exit => true,
                Terminator::Barrier { .. } | Terminator::Trap => false,
            };
            for c in term.targets() {
                let p = self.layout.prio[c.block.index()];
                if c.args.is_empty() || (p > r.start && p < r.end) {
                    continue;
                }
                let scalar = together && c.args.iter().all(|a| sc.contains_key(a));
                match calls.iter().find(|o| o.block == c.block) {
                    Some(o) if o.args == c.args && scalar => {}
                    Some(_) => mixed.push(c.block),
                    None if scalar => calls.push(c.clone()),
                    None => mixed.push(c.block),
                }
            }
        }
        calls.retain(|c| !mixed.contains(&c.block));
        calls
    }

    /// The direction the full-warp version of region `r` specialises a branch of for
    /// (`Spec::conds`, the condition's value): towards the target inside the region with more
    /// instructions (the work a guard protects); `else` on a tie, as a guard's `@p bra` skips
    /// its body.
    fn spec_direction(&self, r: &Range<u32>, then_: ir::Block, else_: ir::Block) -> bool {
        let weight = |b: ir::Block| {
            let p = self.layout.prio[b.index()];
            if p > r.start && p < r.end {
                self.f.block(b).insts.len() + 1
            } else {
                0
            }
        };
        weight(then_) > weight(else_)
    }
}

/// How many groups a loop region's passes run side by side (`Gen::region_passes`).
/// mandelbrot's CPU time (`bench_table --pocl-jit --cpu-time`, two runs each): 147-158 ms
/// with 1, 90-94 with 2, 85 with 4, 83 with 8 (whose code is twice 4's, and compiles
/// longer); the block-by-block code took 102-109 ms.
const LOOP_GROUPS: usize = 4;

/// Whether `PTXJIT_NO_WARP_CONDS` turns off the branch decisions of full-warp region versions
/// (`Spec`; `crate::switches`). For measurements: the code without them is the general one,
/// as correct and slower.
pub(super) fn warp_conds_off() -> bool {
    crate::switches::switches().no_warp_conds
}

/// Which of a group's lanes reach a region block in the full-warp version, as known when the
/// code is generated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reach {
    /// No lane: the block has no code.
    Nothing,
    /// All four lanes.
    All,
    /// Known only at run time (the block's mask variable).
    Some,
}

impl Reach {
    /// The lanes of two routes into one block together.
    fn join(self, other: Reach) -> Reach {
        match (self, other) {
            (Reach::All, _) | (_, Reach::All) => Reach::All,
            (Reach::Nothing, x) | (x, Reach::Nothing) => x,
            (Reach::Some, Reach::Some) => Reach::Some,
        }
    }
}

/// What the full-warp version of a region decides at compile time.
struct Spec {
    /// Per block (by position): its branch condition's value in every lane, where decided.
    conds: Vec<Option<bool>>,
    /// The run-time conditions of those decisions (`i8`), part of the version's test.
    oks: Vec<Value>,
    /// Destinations outside the region that every lane of every group reaches.
    all_out: Vec<Out>,
    /// Per block (by position): its struct runs (`wide.rs`), used where all four lanes of
    /// the group run the block.
    wide: Vec<super::wide::WidePlan>,
}

/// A terminator's routing context: the region pass, the compile-time reach of its blocks,
/// the reach of the block being left, and the full-warp version's decisions.
struct Route<'a, 'b> {
    pass: &'a Pass,
    reach: &'a mut Vec<Reach>,
    from: Reach,
    spec: Option<&'b mut Spec>,
}

/// The vectors of a group value (one, or two for 64-bit lanes; `S4` values are packed first).
fn gval_parts(x: GVal) -> Vec<Value> {
    match x {
        GVal::V1(a) => vec![a],
        GVal::V2(a, b) => vec![a, b],
        GVal::S4(l) => l.to_vec(),
    }
}
