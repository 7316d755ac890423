//! Group-affine addresses: memory accesses whose address is, within each aligned group of four
//! lanes (the unit of a group loop), `g + sx · %tid.x` with `g` the same for the four lanes and
//! `sx` known at compile time become one vector access (or one scalar load, broadcast) per
//! group after one bounds check per group, with no run-time test of the four addresses' shape.
//!
//! This is the tier between the warp-wide lane-stride path (`affine.rs`, which needs a warp's
//! `%tid.x` consecutive over all 32 lanes) and the general per-group tests (`vector.rs`,
//! `contiguous`). It serves 2D thread blocks whose rows are shorter than a warp, such as
//! 16×16 tiles: `Bs[k][tx]` (consecutive) and `As[ty][k]` (one address for the group).
//!
//! ```text
//! v = u                      (uniform here)                   stride 0, invariant
//! v = %tid.y, %tid.z                                          stride 0, group-varying
//! v = %tid.x, %laneid                                         stride 1, group-varying
//! v = const, %ntid.*, %ctaid.*, %nctaid.*, symbol address     stride 0, invariant
//! v = a + b, a - b           s(a) ± s(b)
//! v = a * c, a << c          (c a compile-time constant)      s(a) · c, s(a) << c
//! v = mul.wide a, c          (widens a: checked)              s(a) · c
//! v = cvt a                  (int widening: checked; truncation or same width: exact)
//! v = cvta a, bitcast a                                       s(a)
//! v = op(a, …)               (any other pure integer op, all operands stride 0)  stride 0
//! ```
//! Block parameters (unless uniform), loads and everything else have no group stride.
//!
//! # ⚠ Soundness: read before changing
//!
//! The fast path computes, per group, the address of the group's *virtual* lane 0 (lane
//! `4g`, active or not) as scalar code, by replaying the address's definition with lane
//! `4g`'s `%tid` (from the launch's `%tid` table) and `%laneid`, and then accesses
//! `p0 + sx · j` for lane `4g + j` **without** looking at the lanes' own addresses. This is
//! only correct because:
//! - every leaf is the same in all active lanes *as seen from this block* (`uniform_at`,
//!   temporal divergence included; read as the first active lane's value) or is a special
//!   register; by SSA, the leaves' latest values in a lane are exactly those its own
//!   definition of the address used (the argument of `affine.rs`), so replaying the
//!   definition chain with a lane's special registers gives that lane's address;
//! - when `ntid.x % 4 == 0` (checked per block execution from the launch shape, otherwise the
//!   path is off), the threads `32 w + 4 g + j`, j = 0..3, have the same
//!   `⌊linear / ntid.x⌋`, hence the same `%tid.y` and `%tid.z`, and `%tid.x = tid.x(4g) + j`;
//!   `%laneid = 4g + j`. Lanes exist as a prefix of the warp, so lane `4g` exists whenever a
//!   lane of its group is active, and its `%tid` table entries are real;
//! - so the replayed leaves differ between the group's lanes only in `%tid.x`/`%laneid`
//!   (by `j`), and arithmetic is exact modulo the value's width: every value is
//!   `v(4g) + s(v) · j`, except across widenings (`cvt` to 64 bits, `mul.wide`): each widened
//!   operand with a nonzero stride is checked per group to stay on one side of its
//!   wrap-around point between `j = 0` and `j = 3` (`|3 s| < 2^31`, so checking the end
//!   suffices), unless it is `%tid.x` or `%laneid` itself (0 ≤ `%tid.x` < 1024: launches
//!   reject larger blocks; `%laneid` < 32), which cannot wrap;
//! - the group's whole range (all four lanes, active or not) must pass the space's bounds
//!   check and alignment, and checked-memory mode must be off; otherwise the general path
//!   runs, so faults are reported exactly as before (lowest faulting lane, same message);
//! - stores take the fast path only with a consecutive address (never one address for all
//!   lanes: which lane's value wins is the general path's business) and only when all four
//!   lanes of the group are active (inactive lanes must not write); loads may read inactive
//!   lanes' in-bounds elements and discard them.
//!
//! **Lane `4g`'s value from its slot.** Where lane `4g` is active wherever the replay's result
//! is used (the fast version's conditions include all four lanes active, or the loop runs
//! whole warps: `GroupCache::lead_active`), a value computed in another block (before the
//! current region) and read by other blocks is not replayed but read from lane `4g`'s
//! element of its slot, which holds that lane's latest value — the value its own
//! definition gave, which the replay would recompute — provided its replay would add no
//! widening check (`Gen::lead_slot`). A root is taken at such a value rather than further
//! down its `+ constant` chain. Where lane `4g` may be inactive, its slot may hold an older
//! value or none, so the replay runs as before (`ptx-tests/kernels/lead_slot`).
//!
//! How the check is organised, keeping these conditions:
//! - **Segments a warp-wide plan serves.** Where every group-level access of a segment also
//!   has a warp-wide plan (`affine.rs`) over the same root, the group tier stays off there:
//!   those plans serve (they hold wherever a warp's `%tid.x` are consecutive, as in 1D
//!   blocks). In a segment that comes in two versions (below), a root is always replayed,
//!   even where a warp-wide plan would give its pointer: in 2D blocks that plan never holds,
//!   and testing it per group cost more than the replay it could save.
//! - **Two versions of a group body** (`vector.rs`, `group_versions`; not for segments whose
//!   group-level accesses all have warp-wide plans, which serve them as before, and with a
//!   test that all four lanes are active first where one is a store): the conditions of all
//!   group-level accesses of a segment are computed on the body's main line and tested once;
//!   where they all hold, a version without per-access tests or fallbacks runs (each such
//!   access is then exactly the fast access above); otherwise the code as without the group
//!   tier (warp-wide plans, per-group tests, the runtime helper), so the group tier's accesses
//!   run only where all its conditions were tested. Values made in one version are never used
//!   in the other or after the merge (the group's caches are restored).
//!
//! **Tested leaves of carried pointers.** An address without a group stride may still be
//! `p + u₁ + … + c` by `add.s64` steps, where `p` is a non-uniform parameter of the block
//! (typically a pointer carried around a loop, such as a naive SGEMM's `&B[k*N + col]`), each
//! `uᵢ` is warp-uniform here and `c` a constant (sgemm's unrolled `p`, `p + ldb`,
//! `p + 2 ldb`, …). Its lanes' shape is not known at compile time, so it is tested, once per
//! group for all the leaves of one `p` (the *chain*): `p`'s four lanes are read from its slot
//! and must be `a, a + e, a + 2e, a + 3e` (`e` the element size) with all four lanes active
//! and `a` a multiple of `e`. Then lane `j` of a leaf is `a + U + c + j e` modulo 2^64 (`U`
//! the uniform sum, computed at the top of the block), and the leaf's range check — one
//! unsigned compare of `a + U + lo - bias` against its root's bound, which is 0 unless
//! `U + lo` is a multiple of `e` and memcheck is off — puts the whole range inside the window
//! without wrapping, aligned. Leaves with other uniform addends are other roots of the same
//! chain (one more compare each). The shapes of all the chains a segment reads are tested
//! together, in one vector test per group (`tested_chains`). These conditions join the
//! segment's others, so where any fails the version without the group tier runs and faults
//! are reported exactly as before.
//! A leaf never takes a warp-wide plan's pointer (its check reads `p` on the main line).
//!
//! Every root's range check is one unsigned compare, `off < bound`, with the bound computed
//! once per block execution from the window's size and the root's span (`root_bound`); the
//! launch fact and memcheck are folded into it (a bound of 0 fails every compare).

use super::codegen::{ctype, EnvField, Gen, TRUSTED};
use super::vector::{GVal, Grp};
use crate::ir::{self, Effect, Op};
use crate::runtime::env::CtaEnv;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, Value};
use std::collections::HashMap;
use std::mem::offset_of;

/// A segment's runs of group-uniform loads served by one 16-byte load
/// ([`Gen::plan_uniform_runs`]): per load in a run, the run's first load and the lane.
pub(super) type UniformRuns = HashMap<ir::Inst, (ir::Inst, u8)>;

/// Largest stride magnitude tracked: 3 · 2^24 < 2^31, so a widened operand's four lanes
/// cross its wrap-around point at most once (the check of lane 3 then covers all).
const MAX_STRIDE: i64 = 1 << 24;

/// Largest constant offset folded into one bounds check.
const MAX_MERGE: i64 = 1 << 20;

/// Deepest definition chain followed (compile time stays bounded).
const MAX_DEPTH: u32 = 12;

/// The group stride of a value: `v(4g + j) = v(4g) + stride · j` within every group.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct GStride {
    /// Per lane of the group, in the value's units, wrapped to its width.
    pub(super) stride: i64,
    /// Depends on `%tid`/`%laneid` (computed per group); otherwise warp-uniform here
    /// (computed once at the top of the block).
    pub(super) varies: bool,
}

/// A block's group-level fast accesses (planned at the top of the block).
#[derive(Default)]
pub(super) struct GroupMem {
    /// Per memory instruction: its root, constant offset and stride.
    pub(super) access: HashMap<ir::Inst, GroupAccess>,
    roots: Vec<Root>,
    /// Carried pointers whose lanes' shape is tested once per group (see [`RootKind::Leaf`]).
    chains: Vec<Chain>,
    /// Warp-uniform parts of the roots' definitions, computed at the top of the block.
    top: HashMap<ir::Value, Value>,
    /// The group strides found while planning.
    memo: HashMap<ir::Value, Option<GStride>>,
    /// `ntid.x % 4 == 0` (`i8`), and the same and memcheck off (global and const spaces).
    fact: Option<(Value, Value)>,
    /// `tid_table + 4 · 32 warp` and the bytes between the table's components (pointers).
    tids: Option<(Value, Value)>,
    /// The block planned for.
    blk: Option<ir::Block>,
}

/// One planned access.
#[derive(Clone, Copy)]
pub(super) struct GroupAccess {
    root: usize,
    off: i64,
    /// Bytes between lanes: the element size (consecutive), or 0 (one address for all).
    pub(super) stride: u32,
    store: bool,
}

/// How a root's address for the group's lane `4g` is found, and why its four lanes' addresses
/// have the root's stride.
#[derive(Clone, PartialEq, Eq)]
enum RootKind {
    /// Replayed from its definition: the group stride is known at compile time.
    Replay,
    /// A tested leaf: the address is `chain`'s per-lane pointer (a parameter of the block,
    /// such as a pointer carried around a loop) plus warp-uniform `addends` plus a constant.
    /// The chain's four lanes are tested once per group to be consecutive, aligned and all
    /// active; then every leaf's lanes are consecutive too (`p_j + u = (p_0 + u) + j · elem`
    /// modulo 2^64, and the range check below rules out wrap-around), so a leaf needs only
    /// its range check, one compare against its precomputed bound.
    Leaf {
        chain: usize,
        addends: Vec<ir::Value>,
    },
}

/// A carried pointer of the block whose group shape is tested at run time.
struct Chain {
    v: ir::Value,
    elem: i64,
}

/// Accesses at constant offsets from one address share its replay and one bounds check.
struct Root {
    kind: RootKind,
    /// `off < bound` (unsigned) is the whole range check of the group's window: computed at
    /// the top of the block by [`Gen::root_bound`] (a leaf's also folds in the alignment of
    /// its uniform part and memcheck being off).
    bound: Option<Value>,
    /// A leaf's warp-uniform part: the sum of its addends plus `lo` minus the window's bias.
    usum: Option<Value>,
    /// All of the root's accesses have a warp-wide plan (`affine.rs`) over the same root, so
    /// a segment whose roots are all such is left to those plans ([`Gen::group_planned`]).
    warp_served: bool,
    /// The alignment of the root's offset `lo` is tested once per block execution, folded
    /// into `bound` ([`Gen::varying_zeros`]), not per group.
    aligned: bool,
    v: ir::Value,
    space: ir::Space,
    elem: i64,
    stride: i64,
    lo: i64,
    hi: i64,
}

/// Per group (inside a group loop body): replayed values and checked roots. Everything here
/// is emitted on the body's main line, so it dominates the rest of the body.
#[derive(Default, Clone)]
pub(super) struct GroupCache {
    vals: HashMap<ir::Value, Value>,
    /// `%tid.x`, `%tid.y`, `%tid.z` of lane `4g`.
    tid: Option<[Value; 3]>,
    /// Per root: all conditions (`i8`) and the host pointer of lane `4g`'s element at `lo`.
    roots: HashMap<usize, (Value, Value)>,
    /// All four lanes active (`i8`).
    full: Option<Value>,
    /// Per root: the same with `full`.
    roots_full: HashMap<usize, Value>,
    /// Per carried chain: its shape test (`i8`) and lane `4g`'s pointer (a device address).
    chains: HashMap<usize, (Value, Value)>,
    /// Lane `4g` is active wherever the replays' results are used (the fast version's
    /// conditions include all four lanes active, or the loop runs whole warps): values of
    /// other blocks are read from lane `4g`'s slot rather than replayed ([`Gen::lead_slot`]).
    lead_active: bool,
}

impl GroupCache {
    /// Take `full` (`i8`) as the group's all-four-lanes-active test (a constant 1 where a
    /// branch has already tested it).
    pub(super) fn set_full(&mut self, full: Value) {
        self.full = Some(full);
    }

    /// Say whether lane `4g` is active wherever the replays' results are used.
    pub(super) fn set_lead_active(&mut self, on: bool) {
        self.lead_active = on;
    }
}

/// The stride of `t`-typed value bits `s`, wrapped to the type's width (signed).
fn wrap(s: i64, t: ir::Type) -> i64 {
    match t {
        ir::Type::I32 => s as i32 as i64,
        _ => s,
    }
}

impl Gen<'_, '_> {
    /// The group stride of `v` as used in block `blk` (see the module docs); `None` when it
    /// has none. No code is emitted. `memo` caches results for one block.
    pub(super) fn group_stride(
        &self,
        v: ir::Value,
        blk: ir::Block,
        depth: u32,
        memo: &mut HashMap<ir::Value, Option<GStride>>,
    ) -> Option<GStride> {
        if let Some(&r) = memo.get(&v) {
            return r;
        }
        let r = self.group_stride_uncached(v, blk, depth, memo);
        memo.insert(v, r);
        r
    }

    fn group_stride_uncached(
        &self,
        v: ir::Value,
        blk: ir::Block,
        depth: u32,
        memo: &mut HashMap<ir::Value, Option<GStride>>,
    ) -> Option<GStride> {
        let t = self.ty(v);
        if !matches!(t, ir::Type::I32 | ir::Type::I64) || depth > MAX_DEPTH {
            return None;
        }
        let inv = GStride {
            stride: 0,
            varies: false,
        };
        if self.leaf_uniform(v, blk) {
            return Some(inv);
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
            return None;
        };
        let d = self.f.inst(i);
        if d.results.len() != 1 {
            return None;
        }
        let mut s = |k: usize| self.group_stride(d.args[k], blk, depth + 1, memo);
        let r = match d.op {
            Op::SReg {
                reg: ir::SReg::TidX | ir::SReg::LaneId,
            } => GStride {
                stride: 1,
                varies: true,
            },
            Op::SReg {
                reg: ir::SReg::TidY | ir::SReg::TidZ,
            } => GStride {
                stride: 0,
                varies: true,
            },
            Op::SReg { reg } if reg.is_cta_constant() => inv,
            Op::SReg { .. } => return None,
            _ => {
                // The linear rules on the operands' strides (`affine.rs`); otherwise any pure
                // operation of operands equal in the group's four lanes gives equal results.
                // The result varies between groups when an operand does.
                let linear = self.linear_stride(d, t, |k| Some(s(k)?.stride));
                if linear.is_none() && d.op.effect() != Effect::Pure {
                    return None;
                }
                let mut varies = false;
                for k in 0..d.args.len() {
                    let a = s(k)?;
                    if linear.is_none() && a.stride != 0 {
                        return None;
                    }
                    varies |= a.varies;
                }
                GStride {
                    stride: linear.unwrap_or(0),
                    varies,
                }
            }
        };
        let st = wrap(r.stride, t);
        (st.abs() <= MAX_STRIDE).then_some(GStride {
            stride: st,
            varies: r.varies,
        })
    }

    /// Decide the group-level fast accesses of block `blk` (at its top, after the scalar
    /// section and `plan_fast_mem`), emitting the warp-uniform parts of their addresses.
    pub(super) fn plan_group_mem(
        &mut self,
        blk: ir::Block,
        insts: &[ir::Inst],
        sc: &HashMap<ir::Value, Value>,
        first: Value,
    ) -> Result<GroupMem, String> {
        let mut out = GroupMem::default();
        let mut memo = HashMap::new();
        for &i in insts {
            if self.scalar[i.index()] {
                continue;
            }
            let d = self.f.inst(i);
            let (space, align, et, store) = match d.op {
                Op::Load { space, align } => match d.results.first() {
                    Some(&r) => (space, align, self.ty(r), false),
                    None => continue,
                },
                Op::Store { space, align } => match d.args.get(1) {
                    Some(&x) => (space, align, self.ty(x), true),
                    None => continue,
                },
                _ => continue,
            };
            if !matches!(
                et,
                ir::Type::I32 | ir::Type::F32 | ir::Type::I64 | ir::Type::F64
            ) || !matches!(
                space,
                ir::Space::Global | ir::Space::Const | ir::Space::Shared
            ) || self.racecheck && space == ir::Space::Shared
                || self.combine && space != ir::Space::Shared
            {
                continue;
            }
            let elem = et.bytes() as i64;
            let addr = d.args[0];
            // `align` beyond the element size would fault in some lane.
            if i64::from(align) > elem {
                continue;
            }
            let (kind, root, off, stride) = match self.group_stride(addr, blk, 0, &mut memo) {
                Some(gs) => {
                    // Consecutive elements, or (loads) one element for all lanes. Stride 0
                    // with a non-varying address is warp-uniform: affine.rs's business, or
                    // the general path's.
                    if !(gs.stride == elem || gs.stride == 0 && !store && gs.varies) {
                        continue;
                    }
                    // A root lane 4g's slot gives is read whole, not replayed from its parts.
                    let own = |v| self.in_own_slot(v, blk);
                    let (root, off) = match self.const_offset_root_until(addr, own) {
                        (r, o)
                            if o.abs() <= MAX_MERGE
                                && self.group_stride(r, blk, 0, &mut memo) == Some(gs) =>
                        {
                            (r, o)
                        }
                        _ => (addr, 0),
                    };
                    (RootKind::Replay, root, off, gs.stride)
                }
                None => {
                    let Some((p, addends, off)) = self.carried_chain(addr, blk, sc, &mut memo)
                    else {
                        continue;
                    };
                    let chain = match out.chains.iter().position(|c| c.v == p && c.elem == elem) {
                        Some(c) => c,
                        None => {
                            out.chains.push(Chain { v: p, elem });
                            out.chains.len() - 1
                        }
                    };
                    (RootKind::Leaf { chain, addends }, p, off, elem)
                }
            };
            let k = match out.roots.iter().position(|r| {
                r.v == root
                    && r.kind == kind
                    && r.space == space
                    && r.elem == elem
                    && r.stride == stride
                    && (r.lo - off).rem_euclid(elem) == 0
            }) {
                Some(k) => {
                    let r = &mut out.roots[k];
                    r.lo = r.lo.min(off);
                    r.hi = r.hi.max(off);
                    k
                }
                None => {
                    out.roots.push(Root {
                        kind,
                        bound: None,
                        usum: None,
                        warp_served: false,
                        aligned: false,
                        v: root,
                        space,
                        elem,
                        stride,
                        lo: off,
                        hi: off,
                    });
                    out.roots.len() - 1
                }
            };
            out.access.insert(
                i,
                GroupAccess {
                    root: k,
                    off,
                    stride: stride as u32,
                    store,
                },
            );
        }
        if out.roots.is_empty() {
            return Ok(out);
        }
        out.blk = Some(blk);
        // The launch fact, memcheck, the %tid table of this warp.
        let env = self.e.env;
        let nt = offset_of!(CtaEnv, ntid) as i32;
        let nx = self.b.ins().load(types::I32, TRUSTED(), env, nt);
        let low = self.b.ins().band_imm_s(nx, 3);
        let fact = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
        let checks = self.env_val(EnvField::Memcheck);
        let nm = self.b.ins().icmp_imm_s(IntCC::Equal, checks, 0);
        let fact_g = self.b.ins().band(fact, nm);
        out.fact = Some((fact, fact_g));
        let tbl = self.b.ins().load(
            self.ptr,
            TRUSTED(),
            env,
            offset_of!(CtaEnv, tid_table) as i32,
        );
        let warp = self.env_val(EnvField::Warp);
        let w = self.b.ins().uextend(self.ptr, warp);
        let woff = self.b.ins().ishl_imm_s(w, 7); // 32 lanes · 4 bytes
        let tb = self.b.ins().iadd(tbl, woff);
        let ts = self.b.ins().load(
            types::I32,
            TRUSTED(),
            env,
            offset_of!(CtaEnv, tid_stride) as i32,
        );
        let ts = self.b.ins().uextend(self.ptr, ts);
        let ts = self.b.ins().ishl_imm_s(ts, 2);
        out.tids = Some((tb, ts));
        // Roots whose accesses all have a warp-wide plan over the same root (a leaf's check
        // reads its chain, so leaves never count as served).
        for (r, root) in out.roots.iter_mut().enumerate() {
            let served = out
                .access
                .iter()
                .filter(|(_, ga)| ga.root == r)
                .all(|(i, ga)| {
                    self.fast
                        .access
                        .get(i)
                        .is_some_and(|fa| fa.root == root.v && fa.stride == ga.stride)
                });
            root.warp_served = served && root.kind == RootKind::Replay;
        }
        // Warp-uniform parts, once, and each root's bound.
        let mut top = HashMap::new();
        for root in out.roots.iter_mut() {
            let (_, limit, bias) = self.strided_window(root.space)?;
            let span = (root.hi - root.lo)
                + if root.stride == 0 {
                    root.elem
                } else {
                    4 * root.elem
                };
            let bound = self.root_bound(limit, span);
            root.bound = Some(match &root.kind {
                RootKind::Replay => {
                    self.hoist_invariant(root.v, blk, sc, first, &mut memo, &mut top)?;
                    // The launch fact (and memcheck being off), once per block.
                    let mut f = if root.space == ir::Space::Shared {
                        fact
                    } else {
                        fact_g
                    };
                    let k = root.elem.trailing_zeros();
                    if root.elem > 1 && self.varying_zeros(root.v, &memo, 0) >= k {
                        // Every group's offset is the zero replay's modulo the element size.
                        let mut zero = HashMap::new();
                        let z = self.replay_zero(root.v, &top, &mut zero)?;
                        let low = self.b.ins().band_imm_s(z, root.elem - 1);
                        let low = self.b.ins().iadd_imm_s(low, root.lo);
                        let low = self.b.ins().band_imm_s(low, root.elem - 1);
                        let ok = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
                        f = self.b.ins().band(f, ok);
                        root.aligned = true;
                    }
                    let zero = self.b.ins().iconst(types::I64, 0);
                    self.b.ins().select(f, bound, zero)
                }
                RootKind::Leaf { addends, .. } => {
                    let mut sum = self.b.ins().iconst(types::I64, root.lo);
                    for &a in addends {
                        let x = self.replay_top(a, blk, sc, first, &mut top)?;
                        sum = self.b.ins().iadd(sum, x);
                    }
                    root.usum = Some(self.b.ins().iadd_imm_s(sum, -bias));
                    // The uniform part keeps the chain's alignment; memcheck (global and
                    // const) wants every access through the runtime.
                    let low = self.b.ins().band_imm_s(sum, root.elem - 1);
                    let mut ok = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
                    if root.space != ir::Space::Shared {
                        ok = self.b.ins().band(ok, nm);
                    }
                    let zero = self.b.ins().iconst(types::I64, 0);
                    self.b.ins().select(ok, bound, zero)
                }
            });
        }
        out.top = top;
        out.memo = memo;
        Ok(out)
    }

    /// Emit the non-varying parts of `v`'s definition (group stride known) at the top of the
    /// block, into `top`.
    fn hoist_invariant(
        &mut self,
        v: ir::Value,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        memo: &mut HashMap<ir::Value, Option<GStride>>,
        top: &mut HashMap<ir::Value, Value>,
    ) -> Result<(), String> {
        if top.contains_key(&v) {
            return Ok(());
        }
        let gs = self
            .group_stride(v, blk, 0, memo)
            .ok_or_else(|| format!("internal: {v} has no group stride"))?;
        if !gs.varies {
            let x = self.replay_top(v, blk, sc, first, top)?;
            top.insert(v, x);
            return Ok(());
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
            return Err(format!("internal: {v} varies but is no result"));
        };
        // Every operand of a value with a group stride has one (see `group_stride`).
        for a in self.f.inst(i).args.clone() {
            self.hoist_invariant(a, blk, sc, first, memo, top)?;
        }
        Ok(())
    }

    /// A warp-uniform value (no `%tid` in its definition) as a scalar at the top of `blk`.
    fn replay_top(
        &mut self,
        v: ir::Value,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        first: Value,
        top: &mut HashMap<ir::Value, Value>,
    ) -> Result<Value, String> {
        if let Some(&x) = sc.get(&v).or_else(|| top.get(&v)) {
            return Ok(x);
        }
        let x = if self.leaf_uniform(v, blk) {
            self.uniform_get(v, first)?
        } else {
            let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
                return Err(format!("internal: {v} is not invariant"));
            };
            let d = self.f.inst(i).clone();
            let mut argv = Vec::with_capacity(d.args.len());
            for &a in &d.args {
                argv.push(self.replay_top(a, blk, sc, first, top)?);
            }
            self.scalar_op(i, &argv, first)?
                .ok_or_else(|| format!("internal: {i} has no result"))?
        };
        top.insert(v, x);
        Ok(x)
    }

    /// How many low bits of `v` (a value with a group stride, found while planning: `memo`)
    /// are the same for every choice of the special registers it reads (`%tid.*`,
    /// `%laneid`), the warp-uniform leaves fixed: a lower bound of the trailing zeros of
    /// `v(L) - v(L')` modulo 2^width for any two such choices `L`, `L'`; 64 where `v` does
    /// not vary. Only the linear operations of [`Gen::linear_stride`] keep bits; any other
    /// operation of a varying operand keeps none.
    ///
    /// Why it holds, by the operation: a sum's or difference's change is the sum or
    /// difference of its operands' changes; a product by a constant `c` (`mul.lo`,
    /// `mul.wide`) or a shift left by `c` multiplies the change by `c` or `2^c`; a widening
    /// (`cvt`, `mul.wide`) keeps the operand's low `w` bits (`w` its width), so its change is
    /// the operand's modulo 2^w; a truncation keeps the low bits; `cvta` adds a constant and
    /// a same-width bitcast changes nothing. A change that is 0 modulo 2^width is no change.
    fn varying_zeros(
        &self,
        v: ir::Value,
        memo: &HashMap<ir::Value, Option<GStride>>,
        depth: u32,
    ) -> u32 {
        const NONE: u32 = 64;
        match memo.get(&v) {
            Some(Some(gs)) if !gs.varies => return NONE,
            Some(Some(_)) => {}
            _ => return 0,
        }
        if depth > MAX_DEPTH {
            return 0;
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
            return 0;
        };
        let d = self.f.inst(i);
        let width = self.ty(v).bits();
        let z = |k: usize| self.varying_zeros(d.args[k], memo, depth + 1);
        let r = match d.op {
            Op::SReg { .. } => 0,
            Op::IAdd {} | Op::ISub {} => z(0).min(z(1)),
            Op::IMul {} | Op::IMulWide { .. } => {
                let signed = !matches!(
                    d.op,
                    Op::IMulWide {
                        sign: ir::Sign::Unsigned
                    }
                );
                let (k, c) = match (
                    self.const_of(d.args[0], signed),
                    self.const_of(d.args[1], signed),
                ) {
                    (_, Some(c)) => (0, c),
                    (Some(c), None) => (1, c),
                    (None, None) => return 0,
                };
                if c == 0 {
                    return NONE;
                }
                let a = z(k).min(self.ty(d.args[k]).bits());
                a.saturating_add(c.trailing_zeros())
            }
            Op::Shl {} => match self.const_of(d.args[1], true) {
                Some(c) if (0..i64::from(width)).contains(&c) => {
                    z(0).min(self.ty(d.args[0]).bits()).saturating_add(c as u32)
                }
                _ => return 0,
            },
            Op::Cvt {
                dst,
                src,
                rnd: ir::CvtRound::None,
                sat: false,
                ftz: false,
            } if matches!(src.ir(), ir::Type::I32 | ir::Type::I64)
                && matches!(dst.ir(), ir::Type::I32 | ir::Type::I64) =>
            {
                z(0).min(src.ir().bits())
            }
            Op::Cvta { .. } => z(0),
            Op::Bitcast {} if self.ty(d.args[0]) == self.ty(v) => z(0),
            _ => 0,
        };
        if r >= width {
            NONE
        } else {
            r
        }
    }

    /// Replay `v` (a value [`Self::varying_zeros`] gives some bits) at the top of the block
    /// with every special register it reads set to 0 and its warp-uniform parts from `top`:
    /// its low bits are then every group's (see there).
    fn replay_zero(
        &mut self,
        v: ir::Value,
        top: &HashMap<ir::Value, Value>,
        zero: &mut HashMap<ir::Value, Value>,
    ) -> Result<Value, String> {
        if let Some(&x) = top.get(&v).or_else(|| zero.get(&v)) {
            return Ok(x);
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
            return Err(format!("internal: {v} has no zero replay"));
        };
        let d = self.f.inst(i).clone();
        let x = match d.op {
            Op::SReg { .. } => match self.ty(v) {
                ir::Type::I64 => self.b.ins().iconst(types::I64, 0),
                _ => self.b.ins().iconst(types::I32, 0),
            },
            _ => {
                let mut argv = Vec::with_capacity(d.args.len());
                for &a in &d.args {
                    argv.push(self.replay_zero(a, top, zero)?);
                }
                let lane = self.b.ins().iconst(types::I32, 0);
                self.scalar_op(i, &argv, lane)?
                    .ok_or_else(|| format!("internal: {i} has no result"))?
            }
        };
        zero.insert(v, x);
        Ok(x)
    }

    /// `%tid.x/y/z` of the group's lane `4g`, loaded once per group.
    fn group_tid(&mut self, grp: &mut Grp) -> Result<[Value; 3], String> {
        if let Some(t) = grp.gcache.tid {
            return Ok(t);
        }
        let (tb, ts) = self.gfast.tids.ok_or("internal: no %tid table planned")?;
        let g = self.b.ins().uextend(self.ptr, grp.g);
        let goff = self.b.ins().ishl_imm_s(g, 4); // 4 lanes · 4 bytes
        let px = self.b.ins().iadd(tb, goff);
        let py = self.b.ins().iadd(px, ts);
        let pz = self.b.ins().iadd(py, ts);
        let t = [px, py, pz].map(|p| self.b.ins().load(types::I32, TRUSTED(), p, 0));
        grp.gcache.tid = Some(t);
        Ok(t)
    }

    /// Replay `v`'s definition for the group's lane `4g` (values [`Self::group_stride`]
    /// accepts), adding the widening checks to `checks`.
    fn replay_group(
        &mut self,
        grp: &mut Grp,
        v: ir::Value,
        checks: &mut Vec<Value>,
    ) -> Result<Value, String> {
        if let Some(&x) = self.gfast.top.get(&v) {
            return Ok(x);
        }
        if let Some(&x) = grp.gcache.vals.get(&v) {
            return Ok(x);
        }
        if grp.gcache.lead_active && self.lead_slot(v) {
            let t = self.ty(v);
            let base = grp.slot_base(t);
            let slot = self.layout.slot[v.index()] as i32;
            let x = self.b.ins().load(ctype(t), TRUSTED(), base, slot);
            grp.gcache.vals.insert(v, x);
            return Ok(x);
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
            return Err(format!("internal: {v} has no group replay"));
        };
        let d = self.f.inst(i).clone();
        let lane = self.b.ins().ishl_imm_s(grp.g, 2);
        let x = match d.op {
            Op::SReg {
                reg: ir::SReg::LaneId,
            } => lane,
            Op::SReg {
                reg: r @ (ir::SReg::TidX | ir::SReg::TidY | ir::SReg::TidZ),
            } => {
                let t = self.group_tid(grp)?;
                match r {
                    ir::SReg::TidX => t[0],
                    ir::SReg::TidY => t[1],
                    _ => t[2],
                }
            }
            _ => {
                let mut argv = Vec::with_capacity(d.args.len());
                for &a in &d.args {
                    argv.push(self.replay_group(grp, a, checks)?);
                }
                // A widened operand must not wrap between lanes 0 and 3 of the group.
                if let Some((k, signed)) = self.widened_operand(&d) {
                    let s = self.widened_stride(d.args[k])?;
                    if s != 0 && !self.small_sreg(d.args[k]) {
                        let ok = self.no_wrap(argv[k], s, signed, 3);
                        checks.push(ok);
                    }
                }
                self.scalar_op(i, &argv, lane)?
                    .ok_or_else(|| format!("internal: {i} has no result"))?
            }
        };
        grp.gcache.vals.insert(v, x);
        Ok(x)
    }

    /// Whether the group replay of `v` (a value with a group stride that varies) may read
    /// lane `4g`'s value from `v`'s slot instead, where lane `4g` is active: `v` is computed
    /// in another block (before this one, outside the current region) and read by other
    /// blocks, so its slot holds each lane's latest value, and its replay would add no
    /// widening check (the replay's result is lane `4g`'s value then; without a widening,
    /// lane `4g + j`'s is that plus `j` times the stride, see the module docs).
    fn lead_slot(&self, v: ir::Value) -> bool {
        self.gfast
            .blk
            .is_some_and(|blk| self.in_own_slot(v, blk) && self.replay_unchecked(v, 0))
    }

    /// Whether `v` (`i32`/`i64`) is computed in another block than `blk` (and before the
    /// current region) and read by other blocks: its slot holds each lane's latest value.
    fn in_own_slot(&self, v: ir::Value, blk: ir::Block) -> bool {
        let ir::ValueDef::Result(i, _) = self.f.values[v.index()].def else {
            return false;
        };
        matches!(self.ty(v), ir::Type::I32 | ir::Type::I64)
            && self.inst_block[i.index()] != blk.0
            && self.cross_block[v.index()]
            && self.layout.slot[v.index()] != u32::MAX
            && !self.hoist.hides(v, self.f)
            && self.region.as_ref().is_none_or(|r| !r.hides(self, v))
    }

    /// Whether [`Self::replay_group`] of `v` adds no widening check.
    fn replay_unchecked(&self, v: ir::Value, depth: u32) -> bool {
        if self.gfast.top.contains_key(&v) {
            return true;
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
            return false;
        };
        let d = self.f.inst(i);
        if let Op::SReg { .. } = d.op {
            return true;
        }
        if let Some((k, _)) = self.widened_operand(d) {
            match self.gfast.memo.get(&d.args[k]) {
                Some(Some(s)) if s.stride == 0 || self.small_sreg(d.args[k]) => {}
                _ => return false,
            }
        }
        depth < MAX_DEPTH && d.args.iter().all(|&a| self.replay_unchecked(a, depth + 1))
    }

    /// The group stride of a widened operand (found while planning its address).
    fn widened_stride(&self, v: ir::Value) -> Result<i64, String> {
        match self.gfast.memo.get(&v) {
            Some(Some(s)) => Ok(s.stride),
            _ => Err("internal: widened operand without a group stride".into()),
        }
    }

    /// Whether `v` is `%tid.x` or `%laneid` itself: `0 ≤ v` and `v + 3 < 2^31` in every
    /// group (blocks have at most 1024 threads per dimension), so it never wraps.
    fn small_sreg(&self, v: ir::Value) -> bool {
        match self.f.values[v.index()].def {
            ir::ValueDef::Result(i, 0) => matches!(
                self.f.inst(i).op,
                Op::SReg {
                    reg: ir::SReg::TidX | ir::SReg::LaneId
                }
            ),
            _ => false,
        }
    }

    /// For a planned group access `i` inside a group loop body: its run-time condition
    /// (`i8`: all of the module docs' conditions hold) and the host pointer of lane `4g`'s
    /// element. Emitted on the body's main line, once per root and group.
    pub(super) fn group_access(
        &mut self,
        grp: &mut Grp,
        i: ir::Inst,
    ) -> Result<Option<(Value, Value, u32)>, String> {
        let Some(ga) = self.gfast.access.get(&i).copied() else {
            return Ok(None);
        };
        let (ok, p) = match grp.gcache.roots.get(&ga.root) {
            Some(&x) => x,
            None => {
                let x = self.root_check(grp, ga.root)?;
                grp.gcache.roots.insert(ga.root, x);
                x
            }
        };
        let ok = if ga.store {
            match grp.gcache.roots_full.get(&ga.root) {
                Some(&o) => o,
                None => {
                    let full = match grp.gcache.full {
                        Some(f) => f,
                        None => {
                            let f = self.b.ins().icmp_imm_s(IntCC::Equal, grp.bits, 0xf);
                            grp.gcache.full = Some(f);
                            f
                        }
                    };
                    let o = self.b.ins().band(ok, full);
                    grp.gcache.roots_full.insert(ga.root, o);
                    o
                }
            }
        } else {
            ok
        };
        let lo = self.gfast.roots[ga.root].lo;
        let p = if ga.off == lo {
            p
        } else {
            self.b.ins().iadd_imm_s(p, ga.off - lo)
        };
        Ok(Some((ok, p, ga.stride)))
    }

    /// The check of root `r` for the current group: replayed ([`Self::group_root`]) or a
    /// tested leaf ([`Self::tested_leaf`]).
    fn root_check(&mut self, grp: &mut Grp, r: usize) -> Result<(Value, Value), String> {
        match self.gfast.roots[r].kind {
            RootKind::Replay => self.group_root(grp, r),
            RootKind::Leaf { chain, .. } => self.tested_leaf(grp, r, chain),
        }
    }

    /// The bound (`i64`, at the top of the block) that makes a range check one compare:
    /// for any offset `off`, `off < bound` (unsigned) exactly when `off + span ≤ limit`
    /// without wrapping, that is `off < limit` and `limit - off ≥ span`. It is
    /// `limit - span + 1` where `limit ≥ span`, else 0 (nothing fits). `span` > 0.
    fn root_bound(&mut self, limit: Value, span: i64) -> Value {
        let b = self.b.ins().iadd_imm_s(limit, 1 - span);
        let room = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, limit, span);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().select(room, b, zero)
    }

    /// A carried chain for address `v` (64-bit, no group stride) as used in `blk`: a
    /// per-lane parameter `p` of `blk` (not uniform, with a slot, not in the scalar section
    /// `sc`), the warp-uniform addends and the constant offset with `v = p + Σ addends + c`
    /// in every lane, by `add.s64` steps. `None` when `v` is not of that form.
    fn carried_chain(
        &self,
        v: ir::Value,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        memo: &mut HashMap<ir::Value, Option<GStride>>,
    ) -> Option<(ir::Value, Vec<ir::Value>, i64)> {
        let inv = Some(GStride {
            stride: 0,
            varies: false,
        });
        let (mut v, mut addends, mut off) = (v, vec![], 0i64);
        for _ in 0..MAX_DEPTH {
            if self.ty(v) != ir::Type::I64 {
                return None;
            }
            match self.f.values[v.index()].def {
                ir::ValueDef::Param(b, _) => {
                    let ok = b == blk
                        && !self.leaf_uniform(v, blk)
                        && !sc.contains_key(&v)
                        && self.layout.slot[v.index()] != u32::MAX;
                    return ok.then_some((v, addends, off));
                }
                ir::ValueDef::Result(i, 0) => {
                    let d = self.f.inst(i);
                    let Op::IAdd {} = d.op else { return None };
                    let (a, b) = (d.args[0], d.args[1]);
                    let (next, add) = if self.group_stride(b, blk, 0, memo) == inv {
                        (a, b)
                    } else if self.group_stride(a, blk, 0, memo) == inv {
                        (b, a)
                    } else {
                        return None;
                    };
                    match self.const_of(add, true) {
                        Some(c) => off = off.checked_add(c).filter(|o| o.abs() <= MAX_MERGE)?,
                        None if self.top_replayable(add, blk, sc, 0) => addends.push(add),
                        None => return None,
                    }
                    v = next;
                }
                ir::ValueDef::Result(..) => return None,
            }
        }
        None
    }

    /// Whether [`Self::replay_top`] can compute warp-uniform `v` at the top of `blk`: every
    /// uniform leaf it reads has a slot that holds it (`Hoist::hides`), and every operation
    /// on the way is pure.
    fn top_replayable(
        &self,
        v: ir::Value,
        blk: ir::Block,
        sc: &HashMap<ir::Value, Value>,
        depth: u32,
    ) -> bool {
        if sc.contains_key(&v) {
            return true;
        }
        if depth > MAX_DEPTH {
            return false;
        }
        if self.leaf_uniform(v, blk) {
            return !self.hoist.hides(v, self.f) && self.layout.slot[v.index()] != u32::MAX;
        }
        let ir::ValueDef::Result(i, 0) = self.f.values[v.index()].def else {
            return false;
        };
        let d = self.f.inst(i);
        d.results.len() == 1
            && d.op.effect() == Effect::Pure
            && d.args
                .iter()
                .all(|&a| self.top_replayable(a, blk, sc, depth + 1))
    }

    /// The shape tests of carried chains `cs` for the current group, on the body's main
    /// line, once per chain, all in one vector test: all four lanes active, each chain's four
    /// lanes consecutive elements, lane `4g`'s aligned to the element size. Each chain's
    /// entry in the group cache gets the joint condition (`i8`; where one chain fails, the
    /// segment's slow version runs anyway) and its lane `4g`'s pointer (a device address).
    ///
    /// With a chain's lanes `x0 = [a0, a1]`, `x1 = [a2, a3]` and element size `e`:
    /// `y0 = x0 - [0, e] = [a0, a1 - e]` and `y1 = x1 - [2e, 3e]`; the lanes are `a0 + j e`
    /// (modulo 2^64) exactly when all four lanes of `y0`, `y1` equal `a0`, that is when
    /// `(y0 ^ y1) | (y0 ^ swap(y0))` is zero (lane 0 says `a2 - 2e = a0` and `a1 - e = a0`,
    /// lane 1 `a3 - 3e = a1 - e`), and `a0` is aligned when `y0 & (e - 1)` is zero as well
    /// (its lane 1 is `a0` again where the rest holds).
    fn tested_chains(&mut self, grp: &mut Grp, cs: &[usize]) -> Result<(), String> {
        let mut bad: Option<Value> = None;
        let mut a0s: Vec<(usize, Value)> = vec![];
        for &c in cs {
            if grp.gcache.chains.contains_key(&c) || a0s.iter().any(|&(k, _)| k == c) {
                continue;
            }
            let (v, elem) = (self.gfast.chains[c].v, self.gfast.chains[c].elem);
            // Not in the scalar section (checked while planning): read from its slot.
            let GVal::V2(x0, x1) = self.gget(grp, &HashMap::new(), v)? else {
                return Err(format!("internal: carried pointer {v} is not two i64x2"));
            };
            let a0 = self.b.ins().extractlane(x0, 0);
            let k0 = self.vconst_i64([0, elem]);
            let k1 = self.vconst_i64([2 * elem, 3 * elem]);
            let y0 = self.b.ins().isub(x0, k0);
            let y1 = self.b.ins().isub(x1, k1);
            let y8 = self.vbitcast(y0, types::I8X16);
            let idx: Vec<u8> = (8u8..16).chain(0..8).collect();
            let imm = self.b.func.dfg.immediates.push(ConstantData::from(idx));
            let sw = self.b.ins().shuffle(y8, y8, imm);
            let sw = self.vbitcast(sw, types::I64X2);
            let d0 = self.b.ins().bxor(y0, y1);
            let d1 = self.b.ins().bxor(y0, sw);
            let mut d = self.b.ins().bor(d0, d1);
            if elem > 1 {
                let m = self.vconst_i64([elem - 1; 2]);
                let low = self.b.ins().band(y0, m);
                d = self.b.ins().bor(d, low);
            }
            bad = Some(match bad {
                None => d,
                Some(x) => self.b.ins().bor(x, d),
            });
            a0s.push((c, a0));
        }
        let Some(bad) = bad else {
            return Ok(());
        };
        let any = self.b.ins().vany_true(bad);
        let shape = self.b.ins().icmp_imm_s(IntCC::Equal, any, 0);
        let full = match grp.gcache.full {
            Some(f) => f,
            None => {
                let f = self.b.ins().icmp_imm_s(IntCC::Equal, grp.bits, 0xf);
                grp.gcache.full = Some(f);
                f
            }
        };
        let ok = self.b.ins().band(shape, full);
        for (c, a0) in a0s {
            grp.gcache.chains.insert(c, (ok, a0));
        }
        Ok(())
    }

    /// Check tested leaf `r` of chain `c` for the current group: the chain's shape test and
    /// one compare of the leaf's lowest offset against its bound (`i8`), and the host pointer
    /// of lane `4g`'s element at the root's lowest offset.
    fn tested_leaf(&mut self, grp: &mut Grp, r: usize, c: usize) -> Result<(Value, Value), String> {
        let (space, usum, bound) = {
            let r = &self.gfast.roots[r];
            (r.space, r.usum, r.bound)
        };
        let (Some(usum), Some(bound)) = (usum, bound) else {
            return Err("internal: a tested leaf without its uniform part".into());
        };
        self.tested_chains(grp, &[c])?;
        let (shape, a0) = *grp
            .gcache
            .chains
            .get(&c)
            .ok_or("internal: a carried chain without its test")?;
        let (base, _, _) = self.strided_window(space)?;
        let off = self.b.ins().iadd(a0, usum);
        let inb = self.b.ins().icmp(IntCC::UnsignedLessThan, off, bound);
        let ok = self.b.ins().band(shape, inb);
        let p = self.b.ins().iadd(base, off);
        Ok((ok, p))
    }

    /// Replay root `r` for the current group and check its range: the condition (`i8`) and
    /// the host pointer of lane `4g`'s element at the root's lowest offset.
    fn group_root(&mut self, grp: &mut Grp, r: usize) -> Result<(Value, Value), String> {
        let (root, space, elem, lo, aligned) = {
            let r = &self.gfast.roots[r];
            (r.v, r.space, r.elem, r.lo, r.aligned)
        };
        let mut checks = vec![];
        let r0 = self.replay_group(grp, root, &mut checks)?;
        let r0 = if self.ty(root) == ir::Type::I32 {
            self.b.ins().uextend(types::I64, r0)
        } else {
            r0
        };
        let (base, _, bias) = self.strided_window(space)?;
        let bound = self.gfast.roots[r]
            .bound
            .ok_or("internal: a root without a bound")?;
        let a_lo = self.b.ins().iadd_imm_s(r0, lo);
        let off = self.b.ins().iadd_imm_s(a_lo, -bias);
        // The whole range [lo, hi + the group's last element) in the window (`root_bound`).
        let mut ok = self.b.ins().icmp(IntCC::UnsignedLessThan, off, bound);
        if elem > 1 && !aligned {
            // Every member's offset is lo modulo the element size.
            let low = self.b.ins().band_imm_s(a_lo, elem - 1);
            let z = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
            ok = self.b.ins().band(ok, z);
        }
        for c in checks {
            ok = self.b.ins().band(ok, c);
        }
        let p = self.b.ins().iadd(base, off);
        Ok((ok, p))
    }

    /// The conjunction (`i8`) of the group conditions of the planned accesses among `insts`
    /// for the current group, emitted on the body's main line; `None` when there are none.
    pub(super) fn group_all_ok(
        &mut self,
        grp: &mut Grp,
        insts: &[ir::Inst],
    ) -> Result<Option<Value>, String> {
        // The chains of the tested leaves among them, in one test.
        let mut chains = vec![];
        for i in insts {
            if let Some(ga) = self.gfast.access.get(i) {
                if let RootKind::Leaf { chain, .. } = self.gfast.roots[ga.root].kind {
                    chains.push(chain);
                }
            }
        }
        self.tested_chains(grp, &chains)?;
        let mut all: Option<Value> = None;
        for &i in insts {
            let Some((ok, _, _)) = self.group_access(grp, i)? else {
                continue;
            };
            all = Some(match all {
                None => ok,
                Some(x) if x == ok => x,
                Some(x) => self.b.ins().band(x, ok),
            });
        }
        Ok(all)
    }

    /// Group-uniform 32-bit loads of `insts` (one segment's fast version: every access's
    /// range check holds) served by one 16-byte load: a load at offset `o` of a root with
    /// one address for the group's four lanes starts a run when the root's checked window
    /// reaches `o + 16`; a later load of the same root at `o + 4j` (`j` < 4) with only loads
    /// and pure operations between (nothing that writes memory) takes lane `j` of that
    /// load. A strong load (`Function::inst_sync`) takes no part and ends every run. Returns,
    /// per load in a run of two or more, the run's first load and the lane.
    /// (sgemm_tiled's `As[ty][k]`, `As[ty][k + 1]`, …: one load and four lane broadcasts
    /// instead of four loads and four broadcasts.)
    pub(super) fn plan_uniform_runs(&self, insts: &[ir::Inst]) -> UniformRuns {
        let mut out = HashMap::new();
        // Per root: the load that starts its open run, and its offset.
        let mut open: HashMap<usize, (ir::Inst, i64)> = HashMap::new();
        for &i in insts {
            let d = self.f.inst(i);
            // A strong load (`.relaxed`, `.volatile`, `.acquire`: `inst_sync`) is its own
            // access, read alone and in program order with the loads around it, as a
            // write is.
            let strong = self
                .f
                .inst_sync
                .get(i.index())
                .is_some_and(|&s| s != ir::MemSync::None);
            match d.op {
                Op::Load { .. } if !strong => {}
                _ if d.op.effect() == Effect::Pure => continue,
                _ => {
                    open.clear();
                    continue;
                }
            }
            let Some(ga) = self.gfast.access.get(&i) else {
                continue;
            };
            let word = d
                .results
                .first()
                .is_some_and(|&r| matches!(self.f.value_type(r), ir::Type::I32 | ir::Type::F32));
            if ga.stride != 0 || ga.store || !word {
                continue;
            }
            if let Some(&(h, ho)) = open.get(&ga.root) {
                let j = ga.off - ho;
                if (0..16).contains(&j) && j % 4 == 0 {
                    out.insert(h, (h, 0));
                    out.insert(i, (h, (j / 4) as u8));
                    continue;
                }
            }
            let root = &self.gfast.roots[ga.root];
            if root.stride == 0 && ga.off + 16 <= root.hi + root.elem {
                open.insert(ga.root, (i, ga.off));
            } else {
                open.remove(&ga.root);
            }
        }
        out
    }

    /// Whether the group body for `insts` comes in two versions (`None`: no, it has no
    /// group-level accesses or all of them have warp-wide plans), and whether one of them is
    /// a store.
    pub(super) fn group_planned(&self, insts: &[ir::Inst]) -> Option<bool> {
        let mut any = None;
        let mut all_warp = true;
        for i in insts {
            if let Some(ga) = self.gfast.access.get(i) {
                any = Some(any.unwrap_or(false) || ga.store);
                all_warp &= self.gfast.roots[ga.root].warp_served;
            }
        }
        // Where every one has a warp-wide plan, those plans serve (they hold whenever a
        // warp's %tid.x are consecutive, as in 1D blocks), and the versions would only cost
        // (measured: saxpy); 2D blocks lose the group tier only for segments whose every
        // address is free of %tid.y/%tid.z.
        if all_warp {
            return None;
        }
        any
    }
}
