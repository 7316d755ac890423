//! A decided self-loop as a native loop (`Gen::decided_loop`).
//!
//! A block emitted on its own whose divergent exit test every lane of the warp passes (the
//! decided version of `Gen::gen_block_body`) and whose back edge goes to the block itself
//! runs its decided trips in a Cranelift loop: the block's 32-bit parameters that the back
//! edge writes per lane are carried in variables (one `i32x4`/`f32x4` per group of four
//! lanes) from trip to trip instead of going through their slots, and a trip goes from
//! its back edge straight to the next one's exit test, without the block's entry. The
//! slots are written where the loop is left (to the general version, to the decided
//! version's per-trip code, or the dispatcher's way), so every path out of it finds them
//! as the per-trip code would have left them. The loop runs only a full warp's trips whose
//! accesses need no check (the full-warp version with its group loop unrolled), so no trip
//! of it faults or calls the runtime: any other trip is run by the per-trip code, which
//! reports faults as before.
//!
//! A carried parameter whose back-edge argument adds a trip-invariant uniform step to it
//! (`p + u`, `u + p`, `p - u`: a grid-stride loop's counter) is *stepped*: each lane's
//! value after `n` trips is its entry value plus `n · u` modulo 2^32, so lane `l` stays
//! `lane0 + (p_l − p_0)` with the differences of the entry. The loop carries lane 0's value
//! alone, in one `i32` variable advanced once per trip; the slots keep the entry values
//! while the loop runs, and a group's value is its entry vector plus the splatted
//! `lane0 − p_0` (both read from the slots), which is also what the exits write back.

use super::codegen::{Gen, TRUSTED};
use super::vector::{vty, GVal};
use crate::ir::{self, Effect, Terminator};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types;
use cranelift_codegen::ir::{Block as CBlock, InstBuilder, StackSlotData, StackSlotKind, Value};
use cranelift_frontend::Variable;
use std::collections::HashMap;

/// The state of a decided loop while its trip is emitted.
pub(super) struct DLoop {
    /// The carried parameters, each with its eight groups' variables.
    pub(super) vars: Vec<(ir::Value, Vec<Variable>)>,
    /// The stepped parameters (module documentation): lane 0's value (`i32` variable) and
    /// the per-trip step, a scalar defined before the loop, negated for `p - u`.
    pub(super) steps: Vec<Step>,
    /// The loop's head: the exit test of the next trip.
    pub(super) head: CBlock,
    /// The decided version's per-trip code, for a trip the loop does not run (its
    /// accesses' conditions fail), entered once the carried values are in their slots.
    pub(super) plain: CBlock,
    /// Uniform values of other blocks that the trip reads per group, splatted once before
    /// the loop (no trip writes them).
    pub(super) inv: HashMap<ir::Value, GVal>,
    /// The carried parameters whose new value is computed from a loaded one, kept where
    /// it is computed (`Gen::pin`).
    pub(super) pin: Vec<ir::Value>,
    /// The shared-memory atomics of the block whose offsets are known to fit a window of
    /// some size (`Gen::shared_known_end`), with the test that the CTA's window reaches the
    /// largest such end (`i8`, made once before the loop): a trip enters its fast groups
    /// only where it holds, and their atomics skip it.
    pub(super) fit: Option<(Value, Vec<ir::Inst>)>,
    /// Whether the trip's fast groups, entered with [`DLoop::fit`], are being emitted.
    pub(super) in_fast: bool,
    /// The combined reductions of the block at a uniform base of another block, with their
    /// dense-span test made once before the loop ([`Span`]).
    pub(super) spans: Vec<Span>,
    /// Whether the trip's fast groups are entered with [`DLoop::spans`]' tests (made where
    /// nothing else in them can change the pending table's windows, `Gen::dloop_groups`):
    /// their reductions then skip the test.
    pub(super) span_on: bool,
    /// The global loads of the block whose every trip after the first reads inside the
    /// range the exit test bounds ([`Ranged`]), with their tests made once before the loop.
    pub(super) ranged: Vec<Ranged>,
}

/// A global load of a decided loop's block at `b + zext(p) · e` (`e` the element size, `b`
/// uniform and defined outside the block, `p` a parameter whose back-edge argument `p'` the
/// exit test bounds: the back edge is taken only where `p' < n` unsigned, `n` the same in
/// every trip). The loop runs a trip only where every lane's exit test held in the trip
/// before (its head's test), so in every trip after the first each lane's `p` is below
/// `n` and its element lies in `b .. b + n · e`; the first trip's `p` is the entry's. So
/// the load's window test, the pending reductions' test and the checked hull's update
/// (`Gen::window_ok`) are made once before the loop for both, and the trip's fast groups
/// are entered on that test instead of the per-trip one (`Gen::dloop_ranged`). Only where
/// nothing in the fast groups can add a pending reduction, flush or change the table
/// (`Gen::loop_ranges`).
#[derive(Clone, Copy)]
pub(super) struct Ranged {
    /// The load.
    pub(super) inst: ir::Inst,
    /// Its address `b + zext(p) · e`.
    pub(super) addr: ir::Value,
    /// The test (`i8`), made before the loop.
    pub(super) ok: Value,
}

/// A combined reduction (`combine.rs`) of a decided loop's block whose address is `b + o`
/// (`Gen::span_form`): `b` uniform and defined outside the block, so the same in every
/// trip, `o` known to lie in `0..=hi`. Its dense-span test (`Gen::in_dense_span`) is made
/// once before the loop, from lane 0's `b` read there.
#[derive(Clone, Copy)]
pub(super) struct Span {
    /// The reduction.
    pub(super) inst: ir::Inst,
    /// The offset `o`.
    pub(super) off: ir::Value,
    /// Lane 0's `b` (`i64`, read before the loop).
    pub(super) base: Value,
    /// The span test (`i8`), made before the loop.
    pub(super) ok: Value,
}

/// A stepped parameter of a decided loop (module documentation).
#[derive(Clone, Copy)]
pub(super) struct Step {
    /// The block parameter.
    pub(super) param: ir::Value,
    /// Lane 0's current value (`i32`).
    pub(super) lane0: Variable,
    /// The uniform step added per trip (`i32`, defined before the loop).
    pub(super) step: Value,
    /// Whether the step is subtracted (`p - u`).
    pub(super) sub: bool,
}

impl Gen<'_, '_> {
    /// The decided version of block `blk` (entered with `mask`, first active lane `first`,
    /// scalar section `sc`; every lane takes the back edge `dir`), emitted at the current
    /// block: a native loop where [`Self::loop_carry`] finds parameters to carry, the
    /// per-trip decided code otherwise. A trip of the loop whose exit test does not hold
    /// goes to `general` (the block's general version) with the slots written.
    pub(super) fn decided_loop(
        &mut self,
        blk: ir::Block,
        mask: Value,
        first: Value,
        sc: &HashMap<ir::Value, Value>,
        dir: bool,
        general: CBlock,
    ) -> Result<(), String> {
        let carry = self.loop_carry(blk, sc, dir);
        if carry.is_empty() {
            return self.gen_block_rest(blk, mask, first, sc, true);
        }
        let Terminator::Branch { cond, .. } = self.f.block(blk).term.clone() else {
            return Err("internal: a decided loop without a branch".into());
        };
        let plain = self.b.create_block();
        let pre = self.b.create_block();
        let head = self.b.create_block();
        // The loop runs full warps only: its lane 0 is the first active lane.
        let full = self.b.ins().icmp_imm_s(IntCC::Equal, mask, -1);
        self.b.ins().brif(full, pre, &[], plain, &[]);
        self.b.switch_to_block(pre);
        let state = self.state();
        let mut vars = Vec::with_capacity(carry.len());
        let mut steps = vec![];
        for p in carry {
            let slot = self.layout.slot[p.index()] as i32;
            if let Some((u, sub)) = self.step_of(blk, p, sc, dir) {
                let step = match sc.get(&u) {
                    Some(&x) => x,
                    None => match self.f.const_bits(u) {
                        Some(bits) => self.b.ins().iconst(types::I32, bits as u32 as i64),
                        None => self.uniform_get(u, first)?,
                    },
                };
                let lane0 = self.b.declare_var(types::I32);
                let x = self.b.ins().load(types::I32, TRUSTED(), state, slot);
                self.b.def_var(lane0, x);
                steps.push(Step {
                    param: p,
                    lane0,
                    step,
                    sub,
                });
                continue;
            }
            let vt = vty(self.ty(p)).ok_or("internal: a carried value without a vector type")?;
            let mut gv = Vec::with_capacity(crate::analysis::segment::GROUPS as usize);
            for k in 0..crate::analysis::segment::GROUPS {
                let var = self.b.declare_var(vt);
                let x = self
                    .b
                    .ins()
                    .load(vt, TRUSTED(), state, slot + 16 * k as i32);
                self.b.def_var(var, x);
                gv.push(var);
            }
            vars.push((p, gv));
        }
        let inv = self.loop_invariants(blk, first)?;
        let pin = self.loaded_args(blk, dir, &vars);
        let fit = self.loop_fits(blk);
        let spans = self.loop_spans(blk, first)?;
        let fit_insts = fit.as_ref().map(|(_, v)| v.clone()).unwrap_or_default();
        let ranged = self.loop_ranges(blk, sc, first, dir, &fit_insts, &spans)?;
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        self.dloop = Some(DLoop {
            vars,
            steps,
            head,
            plain,
            inv,
            pin,
            fit,
            in_fast: false,
            spans,
            span_on: false,
            ranged,
        });
        let zero = self.b.ins().iconst(types::I32, 0);
        let r = self.decided_trip(blk, mask, zero, sc, cond, dir, general);
        self.dloop = None;
        r?;
        self.stay = Default::default();
        self.b.switch_to_block(plain);
        self.gen_block_rest(blk, mask, first, sc, true)
    }

    /// One trip of the decided loop, at its head: the exit test again (from the carried
    /// values), then the trip's code (`Gen::gen_block_rest`, which ends in the back edge).
    #[allow(clippy::too_many_arguments)]
    fn decided_trip(
        &mut self,
        blk: ir::Block,
        mask: Value,
        zero: Value,
        sc: &HashMap<ir::Value, Value>,
        cond: ir::Value,
        dir: bool,
        general: CBlock,
    ) -> Result<(), String> {
        let Some(stay) = self.block_warp_cond(cond, blk, sc, zero, dir)? else {
            return Err("internal: a decided loop's test not decided again".into());
        };
        let (run, out) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(stay, run, &[], out, &[]);
        self.b.switch_to_block(out);
        self.dloop_store();
        self.b.ins().jump(general, &[]);
        self.b.switch_to_block(run);
        self.gen_block_rest(blk, mask, zero, sc, true)
    }

    /// The parameters of block `blk` (scalar section `sc`) that a decided loop carries in
    /// variables (back edge `dir`): those of 32-bit vector types whose back-edge argument
    /// is computed per lane. Empty (no loop) unless the back edge goes to `blk` itself,
    /// the block is one segment without warp operations, its scalar section reads no
    /// parameter nor per-lane result of the block (so it holds for every trip), and the
    /// block has no parameters carried by its entry (`Gen::carry_params`) nor the first
    /// block's hoisted section.
    pub(super) fn loop_carry(
        &self,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        dir: bool,
    ) -> Vec<ir::Value> {
        let bd = self.f.block(blk);
        let Terminator::Branch { then_, else_, .. } = &bd.term else {
            return vec![];
        };
        let back = if dir { then_ } else { else_ };
        let prio = self.layout.prio[blk.index()];
        if back.block != blk
            || self.big
            || (blk == self.hoist.block && !self.hoist.is_empty())
            || !self.carry_params(prio).is_empty()
        {
            return vec![];
        }
        let mut split = crate::analysis::segment::SegmentSplit::new(self.order);
        for &i in &bd.insts {
            let d = self.f.inst(i);
            if self.scalar[i.index()] {
                let reads_lane = d.args.iter().any(|a| {
                    bd.params.contains(a)
                        || self.def_block(*a) == Some(blk)
                            && match self.f.values[a.index()].def {
                                ir::ValueDef::Result(j, _) => !self.scalar[j.index()],
                                ir::ValueDef::Param(..) => true,
                            }
                });
                if reads_lane {
                    return vec![];
                }
                continue;
            }
            if d.op.effect() == Effect::Warp || split.before(&d.op) {
                return vec![];
            }
        }
        bd.params
            .iter()
            .zip(&back.args)
            .filter(|&(p, a)| {
                !sc.contains_key(a)
                    && matches!(self.ty(*p), ir::Type::I32 | ir::Type::F32)
                    && self.layout.slot[p.index()] != u32::MAX
                    && !self.hoist.hides(*p, self.f)
            })
            .map(|(&p, _)| p)
            .collect()
    }

    /// For a parameter `p` of block `blk` that the decided loop carries (back edge `dir`,
    /// scalar section `sc`): the step `u` and whether it is subtracted, where the back
    /// edge's argument is `p + u`, `u + p` or `p - u` (`i32`, computed per lane in the
    /// block) and `u` holds for every trip: a constant, a result of the scalar section
    /// (which reads nothing of the block's trip, `Self::loop_carry`), or a uniform value
    /// of another block with a slot. `None` otherwise.
    fn step_of(
        &self,
        blk: ir::Block,
        p: ir::Value,
        sc: &HashMap<ir::Value, Value>,
        dir: bool,
    ) -> Option<(ir::Value, bool)> {
        let bd = self.f.block(blk);
        let Terminator::Branch { then_, else_, .. } = &bd.term else {
            return None;
        };
        let back = if dir { then_ } else { else_ };
        let k = bd.params.iter().position(|&q| q == p)?;
        let a = *back.args.get(k)?;
        if self.ty(p) != ir::Type::I32 || self.ty(a) != ir::Type::I32 {
            return None;
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[a.index()].def else {
            return None;
        };
        if self.def_block(a) != Some(blk) || self.scalar[i.index()] {
            return None;
        }
        let d = self.f.inst(i);
        let (u, sub) = match (&d.op, d.args.as_slice()) {
            (ir::Op::IAdd {}, &[x, y]) if x == p && y != p => (y, false),
            (ir::Op::IAdd {}, &[x, y]) if y == p && x != p => (x, false),
            (ir::Op::ISub {}, &[x, y]) if x == p && y != p => (y, true),
            _ => return None,
        };
        let invariant = sc.contains_key(&u)
            || self.f.const_bits(u).is_some()
            || (self.def_block(u) != Some(blk)
                && !bd.params.contains(&u)
                && self.uni.uniform_at(u, blk)
                && self.layout.slot[u.index()] != u32::MAX
                && !self.hoist.hides(u, self.f));
        (invariant && self.ty(u) == ir::Type::I32).then_some((u, sub))
    }

    /// [`DLoop::fit`] for block `blk`, emitted at the current point (before the loop);
    /// `None` where no atomic of the block has a known end or shared memory has no window.
    fn loop_fits(&mut self, blk: ir::Block) -> Option<(Value, Vec<ir::Inst>)> {
        let mut end = 0;
        let mut insts = vec![];
        for &i in &self.f.block(blk).insts {
            if self.scalar[i.index()] {
                continue;
            }
            if let Some(e) = self.shared_known_end(i) {
                end = end.max(e);
                insts.push(i);
            }
        }
        if insts.is_empty() {
            return None;
        }
        let (_, limit, _) = self.window(ir::Space::Shared)?;
        let fits = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, limit, end);
        self.keep_before_loop(fits);
        Some((fits, insts))
    }

    /// [`DLoop::spans`] for block `blk` (first active lane `first`), their tests emitted at
    /// the current point (before the loop): each combined reduction of the block at a
    /// uniform base defined outside it (`Gen::span_form`). Empty where the kernel does not
    /// combine reductions.
    fn loop_spans(&mut self, blk: ir::Block, first: Value) -> Result<Vec<Span>, String> {
        if !self.combine {
            return Ok(vec![]);
        }
        let insts = self.f.block(blk).insts.clone();
        let mut out = vec![];
        for i in insts {
            if self.scalar[i.index()] {
                continue;
            }
            let Some((op, t)) = super::combine::combinable(self.f, &self.uses, i) else {
                continue;
            };
            let Some((b, off, hi)) = self.span_form(i, u64::from(t.bytes())) else {
                continue;
            };
            if self.def_block(b) == Some(blk)
                || self.layout.slot[b.index()] == u32::MAX
                || self.hoist.hides(b, self.f)
            {
                continue;
            }
            let base = self.uniform_get(b, first)?;
            let ok = self.in_dense_span(op, t, base, hi);
            self.keep_before_loop(ok);
            out.push(Span {
                inst: i,
                off,
                base,
                ok,
            });
        }
        Ok(out)
    }

    /// Of block `blk`'s exit test (back edge `dir`): `(p', n)` where the back edge is taken
    /// only when `p' < n` unsigned (`i32` both): `setp.lt.u32 p', n` or `setp.gt.u32 n, p'`
    /// taken when true, `setp.ge.u32 p', n` or `setp.le.u32 n, p'` taken when false.
    fn exit_bound(&self, cond: ir::Value, dir: bool) -> Option<(ir::Value, ir::Value)> {
        let ir::ValueDef::Result(j, 0) = self.f.values[cond.index()].def else {
            return None;
        };
        let d = self.f.inst(j);
        let ir::Op::ICmp {
            cc,
            sign: ir::Sign::Unsigned,
        } = d.op
        else {
            return None;
        };
        let &[x, y] = d.args.as_slice() else {
            return None;
        };
        let (next, n) = match (cc, dir) {
            (ir::ICmp::Lt, true) | (ir::ICmp::Ge, false) => (x, y),
            (ir::ICmp::Gt, true) | (ir::ICmp::Le, false) => (y, x),
            (ir::ICmp::Eq | ir::ICmp::Ne | ir::ICmp::Le | ir::ICmp::Ge, true)
            | (ir::ICmp::Eq | ir::ICmp::Ne | ir::ICmp::Lt | ir::ICmp::Gt, false) => return None,
        };
        (self.ty(next) == ir::Type::I32 && self.ty(n) == ir::Type::I32).then_some((next, n))
    }

    /// Whether `v` holds the same value in every trip of a decided loop over block `blk`
    /// (scalar section `sc`) and can be read before it: a constant, a result of the scalar
    /// section, or a uniform value of another block with a slot.
    fn trip_invariant(&self, v: ir::Value, blk: ir::Block, sc: &HashMap<ir::Value, Value>) -> bool {
        sc.contains_key(&v)
            || self.f.const_bits(v).is_some()
            || (self.def_block(v) != Some(blk)
                && !self.f.block(blk).params.contains(&v)
                && self.uni.uniform_at(v, blk)
                && self.layout.slot[v.index()] != u32::MAX
                && !self.hoist.hides(v, self.f))
    }

    /// The value of a [`Self::trip_invariant`] `v`, at the current point (first active
    /// lane `first`).
    fn invariant_val(
        &mut self,
        v: ir::Value,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
    ) -> Result<Value, String> {
        if let Some(&x) = sc.get(&v) {
            return Ok(x);
        }
        if let Some(bits) = self.f.const_bits(v) {
            let ct = super::codegen::ctype(self.ty(v));
            return Ok(self.iconst(ct, bits as i64));
        }
        self.uniform_get(v, first)
    }

    /// Where address `a` (of `elem`-byte elements) is `b + zext(p) · elem` with `p` one of
    /// `bounded` and `b` a 64-bit [`Self::trip_invariant`] value (`add.s64` of `b` and
    /// `cvt.u64.u32 p` for bytes, or of `mul.wide.u32 p, elem`): `b`.
    fn bounded_base(
        &self,
        a: ir::Value,
        elem: i64,
        bounded: &[ir::Value],
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
    ) -> Option<ir::Value> {
        let ir::ValueDef::Result(j, 0) = self.f.values[a.index()].def else {
            return None;
        };
        let d = self.f.inst(j);
        let (ir::Op::IAdd {}, &[x, y]) = (&d.op, d.args.as_slice()) else {
            return None;
        };
        let scaled = |o: ir::Value| -> bool {
            let ir::ValueDef::Result(k, 0) = self.f.values[o.index()].def else {
                return false;
            };
            let e = self.f.inst(k);
            match (&e.op, e.args.as_slice()) {
                (
                    ir::Op::Cvt {
                        dst,
                        src,
                        rnd: ir::CvtRound::None,
                        sat: false,
                        ..
                    },
                    &[p],
                ) => {
                    elem == 1
                        && !src.is_signed()
                        && !src.is_float()
                        && !dst.is_float()
                        && src.ir() == ir::Type::I32
                        && dst.ir() == ir::Type::I64
                        && bounded.contains(&p)
                }
                (
                    ir::Op::IMulWide {
                        sign: ir::Sign::Unsigned,
                    },
                    &[u, v],
                ) => [(u, v), (v, u)].into_iter().any(|(p, c)| {
                    bounded.contains(&p) && self.f.const_bits(c) == Some(elem as u64)
                }),
                _ => false,
            }
        };
        [(x, y), (y, x)].into_iter().find_map(|(b, o)| {
            (self.ty(b) == ir::Type::I64 && self.trip_invariant(b, blk, sc) && scaled(o))
                .then_some(b)
        })
    }

    /// [`DLoop::ranged`] for block `blk` (scalar section `sc`, first active lane `first`,
    /// back edge `dir`), the tests emitted at the current point (before the loop). Empty
    /// unless the exit test bounds a parameter ([`Self::exit_bound`]), every per-lane
    /// instruction of the block is pure, a global load of that form ([`Ranged`]) that needs
    /// no flush, a combined reduction of `spans` (no shared atomic of `fit`, so the spans'
    /// fast form is taken: `Gen::spans_hold`) or an inline shared atomic of `fit` (no span),
    /// so that the fast groups call nothing that could add a pending reduction inside the
    /// loads' ranges or change the table; the trip uses the tests only where every such
    /// load gets a fast access (`Gen::dloop_ranged`).
    fn loop_ranges(
        &mut self,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        dir: bool,
        fit: &[ir::Inst],
        spans: &[Span],
    ) -> Result<Vec<Ranged>, String> {
        let bd = self.f.block(blk).clone();
        let Terminator::Branch { cond, then_, else_ } = &bd.term else {
            return Ok(vec![]);
        };
        let back = if dir { then_ } else { else_ };
        let Some((next, n)) = self.exit_bound(*cond, dir) else {
            return Ok(vec![]);
        };
        if !self.trip_invariant(n, blk, sc) {
            return Ok(vec![]);
        }
        let bounded: Vec<ir::Value> = bd
            .params
            .iter()
            .zip(&back.args)
            .filter(|&(_, &a)| a == next)
            .map(|(&p, _)| p)
            .collect();
        if bounded.is_empty() {
            return Ok(vec![]);
        }
        let mut cands = vec![];
        for &i in &bd.insts {
            if self.scalar[i.index()] {
                continue;
            }
            let d = self.f.inst(i);
            match d.op {
                ir::Op::Load {
                    space: ir::Space::Global,
                    align,
                } => {
                    let (Some(&r), Some(&a)) = (d.results.first(), d.args.first()) else {
                        return Ok(vec![]);
                    };
                    let elem = match self.ty(r) {
                        t @ (ir::Type::I8
                        | ir::Type::I16
                        | ir::Type::I32
                        | ir::Type::F32
                        | ir::Type::I64
                        | ir::Type::F64) => i64::from(t.bytes()),
                        _ => return Ok(vec![]),
                    };
                    if i64::from(align) > elem
                        || self.needs_flush(i, true)
                        || self.ty(a) != ir::Type::I64
                        || self.lane_stride(a, blk, 0) != Some(elem)
                    {
                        return Ok(vec![]);
                    }
                    let Some(b) = self.bounded_base(a, elem, &bounded, blk, sc) else {
                        return Ok(vec![]);
                    };
                    cands.push((i, a, b, elem));
                }
                ir::Op::Atom { .. } if fit.is_empty() && spans.iter().any(|s| s.inst == i) => {}
                ir::Op::Atom {
                    space: ir::Space::Shared,
                    ..
                } if spans.is_empty()
                    && fit.contains(&i)
                    && !self.needs_flush(i, true)
                    && self.inline_atomic_form(i).is_some() => {}
                _ if d.op.effect() == Effect::Pure => {}
                _ => return Ok(vec![]),
            }
        }
        let mut out = Vec::with_capacity(cands.len());
        for (i, a, b, elem) in cands {
            let first_trip = self.lane0_window_ok(a, blk, sc, first, ir::Space::Global, elem)?;
            let b0 = self.invariant_val(b, sc, first)?;
            let n0 = self.invariant_val(n, sc, first)?;
            let len = self.b.ins().uextend(types::I64, n0);
            let len = if elem > 1 {
                self.b
                    .ins()
                    .ishl_imm_s(len, i64::from(elem.trailing_zeros()))
            } else {
                len
            };
            // `b .. b + n · e` in the window (`Gen::window_ok`'s test of a range whose
            // length is known only at run time), aligned, memcheck off.
            let (_, limit, bias) = self.strided_window(ir::Space::Global)?;
            let off = self.b.ins().iadd_imm_s(b0, -bias);
            let lt = self.b.ins().icmp(IntCC::UnsignedLessThan, off, limit);
            let room = self.b.ins().isub(limit, off);
            let fits = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, room, len);
            let mut ok = self.b.ins().band(lt, fits);
            ok = self.b.ins().band(ok, first_trip);
            if elem > 1 {
                let low = self.b.ins().band_imm_s(b0, elem - 1);
                let z = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
                ok = self.b.ins().band(ok, z);
            }
            let checks = self.env_val(super::codegen::EnvField::Memcheck);
            let nm = self.b.ins().icmp_imm_s(IntCC::Equal, checks, 0);
            ok = self.b.ins().band(ok, nm);
            if self.combine {
                let end = self.b.ins().iadd(b0, len);
                let clear = self.pending_clear_to(b0, end);
                ok = self.b.ins().band(ok, clear);
                self.approve_to(b0, end);
            }
            self.keep_before_loop(ok);
            out.push(Ranged {
                inst: i,
                addr: a,
                ok,
            });
        }
        Ok(out)
    }

    /// In a decided loop's trip (outside its fast groups), the tests of [`DLoop::ranged`]
    /// for the fast accesses' groups `groups` (root, space, element size, stride, members
    /// as instruction, offset, store), one per group, where every group is one of those
    /// loads at its own address and every such load is in a group; `None` otherwise (the
    /// groups are tested per trip).
    pub(super) fn dloop_ranged(
        &self,
        groups: impl Iterator<Item = (ir::Value, ir::Space, i64, i64, Vec<(ir::Inst, i64, bool)>)>,
    ) -> Option<Vec<Value>> {
        let lp = self.dloop.as_ref()?;
        if lp.in_fast || lp.ranged.is_empty() {
            return None;
        }
        let mut oks = vec![];
        let mut covered = 0;
        for (root, space, elem, stride, members) in groups {
            if space != ir::Space::Global || stride != elem {
                return None;
            }
            let mut ok = None;
            for &(i, off, store) in &members {
                let r = lp.ranged.iter().find(|r| r.inst == i)?;
                if store || off != 0 || r.addr != root {
                    return None;
                }
                ok.get_or_insert(r.ok);
            }
            oks.push(ok?);
            covered += members.len();
        }
        (covered == lp.ranged.len()).then_some(oks)
    }

    /// Makes the loop-invariant test `x` (`i8`) where it is built, before the decided loop:
    /// a store of it to a scratch stack slot is a use in place. Cranelift computes a pure
    /// value at its first use and makes the cheap operations with an immediate (`iadd_imm`,
    /// `band_imm`, `iconst` …) again in every block that uses them, so a test built from
    /// them and first read in the trip was computed again in every trip.
    fn keep_before_loop(&mut self, x: Value) {
        let ss =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 1, 0));
        self.b.ins().stack_store(self.ptr, x, ss, 0);
    }

    /// The decided loop's [`Span`] of combined reduction `i` where the trip's fast groups,
    /// entered with its test passed (`DLoop::span_on`), are being emitted.
    pub(super) fn dloop_span(&self, i: ir::Inst) -> Option<Span> {
        let lp = self.dloop.as_ref()?;
        if !(lp.in_fast && lp.span_on) {
            return None;
        }
        lp.spans.iter().find(|s| s.inst == i).copied()
    }

    /// Whether the fast groups of a decided loop's trip running `insts` leave the pending
    /// reductions' table (`runtime::redcombine`) alone, except through the combined
    /// reductions of `spans`, which take their dense path there (`Gen::group_atomic`):
    /// every other instruction is pure or a load with a planned fast access (`affine.rs`,
    /// whose full-warp form has no fallback: no runtime call, which could flush the table
    /// and end its dense windows) that needs no flush, its address 64-bit (held as vectors,
    /// so the group load is made inline). Then the windows the spans' tests read before the
    /// loop hold in every fast group of every trip.
    fn spans_hold(&self, insts: &[ir::Inst], spans: &[Span]) -> bool {
        insts.iter().all(|&i| {
            if self.scalar[i.index()] {
                return true;
            }
            let d = self.f.inst(i);
            match d.op {
                ir::Op::Load { .. } => {
                    self.fast.access.contains_key(&i)
                        && !self.needs_flush(i, true)
                        && d.args.first().is_some_and(|&a| self.ty(a) == ir::Type::I64)
                }
                ir::Op::Atom { .. } => spans.iter().any(|s| s.inst == i),
                _ => d.op.effect() == Effect::Pure,
            }
        })
    }

    /// Whether atomic `i` is emitted in the decided loop's fast groups, which the trip
    /// entered with its window test ([`DLoop::fit`]) passed.
    pub(super) fn dloop_fits(&self, i: ir::Inst) -> bool {
        self.dloop.as_ref().is_some_and(|l| {
            l.in_fast && l.fit.as_ref().is_some_and(|(_, insts)| insts.contains(&i))
        })
    }

    /// Of the carried parameters `vars` of block `blk`, those whose back-edge (`dir`)
    /// argument is computed from a value loaded in the block.
    fn loaded_args(
        &self,
        blk: ir::Block,
        dir: bool,
        vars: &[(ir::Value, Vec<Variable>)],
    ) -> Vec<ir::Value> {
        let bd = self.f.block(blk);
        let Terminator::Branch { then_, else_, .. } = &bd.term else {
            return vec![];
        };
        let back = if dir { then_ } else { else_ };
        let loaded = |v: ir::Value| match self.f.values[v.index()].def {
            ir::ValueDef::Result(i, _) => matches!(self.f.inst(i).op, crate::ir::Op::Load { .. }),
            ir::ValueDef::Param(..) => false,
        };
        bd.params
            .iter()
            .zip(&back.args)
            .filter(|&(p, &a)| {
                vars.iter().any(|(q, _)| q == p)
                    && match self.f.values[a.index()].def {
                        ir::ValueDef::Result(i, _) => {
                            self.f.inst(i).args.iter().any(|&x| loaded(x))
                        }
                        ir::ValueDef::Param(..) => false,
                    }
            })
            .map(|(&p, _)| p)
            .collect()
    }

    /// The uniform 32-bit values of other blocks that block `blk`'s per-lane instructions
    /// or its back edge read, each read from its slot at lane `first` and splatted (at the
    /// current point, before the decided loop).
    fn loop_invariants(
        &mut self,
        blk: ir::Block,
        first: Value,
    ) -> Result<HashMap<ir::Value, GVal>, String> {
        let bd = self.f.block(blk).clone();
        let mut reads: Vec<ir::Value> = vec![];
        for &i in &bd.insts {
            if !self.scalar[i.index()] {
                reads.extend(self.f.inst(i).args.iter().copied());
            }
        }
        for c in bd.term.targets() {
            reads.extend(c.args.iter().copied());
        }
        let mut inv = HashMap::new();
        for v in reads {
            if inv.contains_key(&v)
                || bd.params.contains(&v)
                || self.def_block(v) == Some(blk)
                || self.f.const_bits(v).is_some()
                || !matches!(self.ty(v), ir::Type::I32 | ir::Type::F32)
                || !self.uni.uniform_at(v, blk)
                || self.layout.slot[v.index()] == u32::MAX
                || self.hoist.hides(v, self.f)
            {
                continue;
            }
            let x = self.uniform_get(v, first)?;
            let t = self.ty(v);
            let g = self.splat_val(x, t);
            inv.insert(v, g);
        }
        Ok(inv)
    }

    /// The group value of `v` where it is a carried parameter of the decided loop whose
    /// trip is emitted, in the unrolled group loop's group (`Gen::cur_group`).
    pub(super) fn dloop_read(&mut self, v: ir::Value) -> Result<Option<GVal>, String> {
        let Some(lp) = &self.dloop else {
            return Ok(None);
        };
        if let Some(&x) = lp.inv.get(&v) {
            return Ok(Some(x));
        }
        if let Some(st) = lp.steps.iter().find(|s| s.param == v).copied() {
            let Some(k) = self.cur_group else {
                return Err(format!(
                    "internal: stepped value {v} read outside its group"
                ));
            };
            return Ok(Some(GVal::V1(self.stepped_group(st, k))));
        }
        let Some((_, gv)) = lp.vars.iter().find(|(p, _)| *p == v) else {
            return Ok(None);
        };
        let Some(k) = self.cur_group else {
            return Err(format!(
                "internal: carried value {v} read outside its group"
            ));
        };
        let var = gv[k];
        Ok(Some(GVal::V1(self.b.use_var(var))))
    }

    /// Lane 0's value of `v` where it is a carried parameter of the decided loop (whose
    /// warp is full, so lane 0 is the first active lane).
    pub(super) fn dloop_lane0(&mut self, v: ir::Value) -> Option<Value> {
        let lp = self.dloop.as_ref()?;
        if let Some(st) = lp.steps.iter().find(|s| s.param == v) {
            let lane0 = st.lane0;
            return Some(self.b.use_var(lane0));
        }
        let (_, gv) = lp.vars.iter().find(|(p, _)| *p == v)?;
        let var = gv[0];
        let x = self.b.use_var(var);
        Some(self.b.ins().extractlane(x, 0))
    }

    /// Of the back edge's parameters and group values `vals`, defines the carried ones'
    /// variables for the current group and returns the others, which go to their slots.
    pub(super) fn dloop_def(
        &mut self,
        vals: Vec<(ir::Value, GVal)>,
    ) -> Result<Vec<(ir::Value, GVal)>, String> {
        let Some(lp) = &self.dloop else {
            return Ok(vals);
        };
        let mut defs = vec![];
        let mut rest = vec![];
        for (p, x) in vals {
            if lp.steps.iter().any(|s| s.param == p) {
                // Advanced once per trip, at the back edge (`Gen::dloop_step`).
                continue;
            }
            match lp.vars.iter().find(|(q, _)| *q == p) {
                Some((_, gv)) => defs.push((p, gv.clone(), x)),
                None => rest.push((p, x)),
            }
        }
        let Some(k) = self.cur_group else {
            if defs.is_empty() {
                return Ok(rest);
            }
            return Err("internal: carried value written outside its group".into());
        };
        for (p, gv, x) in defs {
            let t = self.ty(p);
            let x = match x {
                GVal::S4(s) => self.pack_lanes(s, t),
                x => x,
            };
            let GVal::V1(x) = x else {
                return Err(format!("internal: carried value {p} not one vector"));
            };
            let vt = vty(t).ok_or("internal: a carried value without a vector type")?;
            let x = if self.b.func.dfg.value_type(x) == vt {
                x
            } else {
                self.vbitcast(x, vt)
            };
            if self.dloop.as_ref().is_some_and(|l| l.pin.contains(&p)) {
                // Cranelift computes a pure value where it is first used, which for a
                // variable is the back edge: each group's new value would be computed
                // after the last group's loads, with every loaded value live (spilled)
                // until then. A store to the scratch slot uses it here.
                self.pin(GVal::V1(x));
            }
            self.b.def_var(gv[k], x);
        }
        Ok(rest)
    }

    /// Writes the decided loop's carried values to their slots (all 32 lanes: its warp is
    /// full).
    pub(super) fn dloop_store(&mut self) {
        let Some(lp) = &self.dloop else {
            return;
        };
        let vars: Vec<(u32, Vec<Variable>)> = lp
            .vars
            .iter()
            .map(|(p, gv)| (self.layout.slot[p.index()], gv.clone()))
            .collect();
        let steps = lp.steps.clone();
        let state = self.state();
        for (slot, gv) in vars {
            for (k, var) in gv.into_iter().enumerate() {
                let x = self.b.use_var(var);
                self.b
                    .ins()
                    .store(TRUSTED(), x, state, slot as i32 + 16 * k as i32);
            }
        }
        for st in steps {
            let slot = self.layout.slot[st.param.index()] as i32;
            let delta = self.stepped_delta(st);
            let d = self.b.ins().splat(types::I32X4, delta);
            for k in 0..crate::analysis::segment::GROUPS as i32 {
                let x = self
                    .b
                    .ins()
                    .load(types::I32X4, TRUSTED(), state, slot + 16 * k);
                let x = self.b.ins().iadd(x, d);
                self.b.ins().store(TRUSTED(), x, state, slot + 16 * k);
            }
        }
    }

    /// How far the stepped parameter `st` has moved since the loop was entered: lane 0's
    /// value less its slot's (the entry value, kept in the slot while the loop runs).
    fn stepped_delta(&mut self, st: Step) -> Value {
        let slot = self.layout.slot[st.param.index()] as i32;
        let state = self.state();
        let entry = self.b.ins().load(types::I32, TRUSTED(), state, slot);
        let lane0 = self.b.use_var(st.lane0);
        self.b.ins().isub(lane0, entry)
    }

    /// Group `k`'s value of the stepped parameter `st` (`i32x4`): its entry vector plus the
    /// distance lane 0 has moved (module documentation).
    fn stepped_group(&mut self, st: Step, k: usize) -> Value {
        let slot = self.layout.slot[st.param.index()] as i32;
        let delta = self.stepped_delta(st);
        let state = self.state();
        let x = self
            .b
            .ins()
            .load(types::I32X4, TRUSTED(), state, slot + 16 * k as i32);
        let d = self.b.ins().splat(types::I32X4, delta);
        self.b.ins().iadd(x, d)
    }

    /// Advances the stepped parameters by one trip, at the decided loop's back edge.
    pub(super) fn dloop_step(&mut self) {
        let Some(lp) = &self.dloop else {
            return;
        };
        for st in lp.steps.clone() {
            let x = self.b.use_var(st.lane0);
            let x = if st.sub {
                self.b.ins().isub(x, st.step)
            } else {
                self.b.ins().iadd(x, st.step)
            };
            self.b.def_var(st.lane0, x);
        }
    }

    /// Whether a warp's back edge to priority `prio` may not go straight into its block
    /// (`Gen::goto_prio_first`): the launch is aborted or a block up to `prio` is active
    /// (`i64`, non-zero then).
    pub(super) fn busy_upto(&mut self, prio: u32) -> Value {
        let mut busy = None;
        for w in 0..=prio / 64 {
            let mut word = self.state_load(types::I64, self.layout.active_off + 8 * w);
            if w == prio / 64 {
                let upto = u64::MAX >> (63 - prio % 64);
                word = self.b.ins().band_imm_s(word, upto as i64);
            }
            busy = Some(match busy {
                Some(o) => self.b.ins().bor(o, word),
                None => word,
            });
        }
        let abort = self.abort_flag();
        let abort = self.b.ins().uextend(types::I64, abort);
        match busy {
            Some(b) => self.b.ins().bor(b, abort),
            None => abort,
        }
    }

    /// The group loop of the decided loop's trip (segment `insts`, `mask` all 32 lanes):
    /// the full-warp version unrolled, entered where its accesses' conditions hold; the
    /// trip goes to the per-trip code ([`DLoop::plain`]) with the slots written otherwise,
    /// and on every trip where the body cannot be unrolled. Returns the accumulator.
    pub(super) fn dloop_groups(
        &mut self,
        mask: Value,
        insts: &[ir::Inst],
        body: &mut impl FnMut(&mut Self, &mut super::vector::Grp, Value) -> Result<Value, String>,
    ) -> Result<Value, String> {
        let (plain, fit, spans) = match &self.dloop {
            Some(lp) => (lp.plain, lp.fit.as_ref().map(|(v, _)| *v), lp.spans.clone()),
            None => return Err("internal: no decided loop".into()),
        };
        let mut oks: Vec<Value> = vec![];
        self.fast_oks(insts.iter().copied(), &mut oks);
        oks.extend(fit);
        let span_on = !spans.is_empty() && self.spans_hold(insts, &spans);
        if span_on {
            oks.extend(spans.iter().map(|s| s.ok));
        }
        let wide = self.plan_wide(insts);
        let unroll = self.group_planned(insts).is_none()
            && wide.is_empty()
            && self.unroll_fits(insts.iter().copied(), |_| false);
        if !unroll {
            self.dloop_store();
            self.b.ins().jump(plain, &[]);
            let dead = self.b.create_block();
            self.b.switch_to_block(dead);
            return Ok(self.b.ins().iconst(types::I32, 0));
        }
        let (fast, leave) = (self.b.create_block(), self.b.create_block());
        match oks.split_first() {
            Some((&c, rest)) => {
                let mut c = c;
                for &ok in rest {
                    c = self.b.ins().band(c, ok);
                }
                self.b.ins().brif(c, fast, &[], leave, &[]);
            }
            None => {
                self.b.ins().jump(fast, &[]);
            }
        }
        self.b.switch_to_block(leave);
        self.dloop_store();
        self.b.ins().jump(plain, &[]);
        self.b.switch_to_block(fast);
        self.warp_fast_body = true;
        self.fast.wide = wide;
        self.unroll_groups = true;
        let set_fast = |g: &mut Self, on: bool| {
            if let Some(lp) = g.dloop.as_mut() {
                lp.in_fast = on;
                lp.span_on = on && span_on;
            }
        };
        set_fast(self, true);
        let acc = self.group_loop(mask, true, &mut *body);
        set_fast(self, false);
        self.unroll_groups = false;
        self.fast.wide = Default::default();
        self.warp_fast_body = false;
        acc
    }
}
