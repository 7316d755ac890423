//! Uniformity (divergence) analysis: which values are the same in every lane of a warp that
//! computes them, and which branches all lanes take the same way.
//!
//! A value is **divergent** if
//! 1. it depends on a divergent value (data dependence);
//! 2. its operation is divergent by nature: `%tid`, `%laneid`, atomics (each lane sees a
//!    different old value), warp shuffles, loads from per-thread (local) or generic memory, or
//!    a load whose address is divergent;
//! 3. it is a parameter of a block where paths from a divergent branch meet (sync dependence:
//!    lanes arrive from different sides);
//! 4. it uses, from outside a loop with a divergent exit, a value defined inside the loop
//!    (temporal divergence: lanes left in different iterations). The value itself stays
//!    uniform inside the loop; [`Uniformity::temporal`] marks it.
//!
//! 5. it is defined inside a loop that holds a warp-level wait (`warpsync`: `bar.warp.sync`
//!    or a `.sync` collective): lanes parked there can be released together with lanes that
//!    reached the wait in another iteration, so lanes running together no longer share one
//!    iteration.
//!
//! Everything else is **uniform**. Uniform values can be computed once per warp as scalars
//! (GCN's SGPRs); a branch on a uniform condition moves the whole execution mask.
//! Loads from read-only spaces (param, const) with a uniform address are uniform; so are loads
//! from global/shared memory with a uniform address, since one `ld` instruction reads for all
//! its lanes at once.

use super::cfg::Cfg;
use crate::ir::{Block, Function, Inst, Op, SReg, Space, Terminator, Value};

/// The result: per value and per block (its branch).
#[derive(Debug, Clone)]
pub struct Uniformity {
    /// Indexed by [`Value`].
    pub divergent: Vec<bool>,
    /// Indexed by [`Block`]: the block ends in a branch on a divergent condition.
    pub divergent_branch: Vec<bool>,
    /// Indexed by [`Value`]: uniform where it is defined, but defined inside a loop that lanes
    /// can leave in different iterations — uses outside that loop see per-lane values, so
    /// an engine that computes it once must still keep a copy per lane.
    pub temporal: Vec<bool>,
    /// Block defining each value (`usize::MAX`: none).
    def_block: Vec<usize>,
    /// Bodies of the loops that lanes can leave in different iterations.
    div_exit_loops: Vec<Vec<bool>>,
}

impl Uniformity {
    pub fn is_uniform(&self, v: Value) -> bool {
        !self.divergent[v.index()]
    }

    /// Whether `v`, as seen by an instruction in block `user`, is the same for all lanes
    /// executing that instruction (uniform, and not temporally divergent there).
    pub fn uniform_at(&self, v: Value, user: Block) -> bool {
        if self.divergent[v.index()] {
            return false;
        }
        let db = self.def_block[v.index()];
        db == usize::MAX
            || !self
                .div_exit_loops
                .iter()
                .any(|body| body[db] && !body[user.index()])
    }
}

/// Whether instruction `i` is a constant (`Op::Const`).
fn is_const(f: &Function, i: Inst) -> bool {
    matches!(f.inst(i).op, Op::Const { .. })
}

fn op_divergent(op: &Op) -> bool {
    match op {
        Op::SReg { reg } => !reg.is_warp_uniform(),
        // Warp collectives: a lane's result depends on its own membermask, which may differ
        // between lanes (segmented masks), so they count as divergent.
        Op::Atom { .. } | Op::AtomCas { .. } | Op::Shfl { .. } | crate::warp_ops!() => true,
        Op::Load { space, .. } => matches!(space, Space::Local | Space::Generic),
        _ => false,
    }
}

/// Run the analysis.
pub fn analyze(f: &Function) -> Uniformity {
    analyze_impl(f, None)
}

/// The lane-affine variant ("residual uniformity"), given the plain result `real`: a value is
/// uniform here when it is `r + s · lane` with `r` the same in every lane computing it and
/// `s` the same for the whole warp, **assuming** each warp's `%tid.x` are consecutive
/// (`tid0 + lane`; a launch fact the user must check). `%tid.x` and `%laneid` count as
/// uniform, and only wrap-free integer operations pass it on: `add`, `sub`, `cvta`,
/// same-width or truncating `cvt` and bitcasts, `mul` by and `shl` by a (really) uniform
/// operand. Widening (`cvt` to 64 bits, `mul.wide`) and every other operation on a value
/// that is really divergent give a divergent result, as do all non-integer values that
/// `real` marks divergent; branches divergent in `real` are divergent here. The rules for
/// block parameters, sync dependence and loops are those of [`analyze`], so a loop counter
/// `i = tid + k · stride` stays affine inside its loop.
pub fn analyze_affine(f: &Function, real: &Uniformity) -> Uniformity {
    analyze_impl(f, Some(real))
}

/// Whether `op` maps `r + s · lane` (integer, wrapping) to `r' + s' · lane` given which of
/// its operands are really uniform (`uniform[k]`).
fn affine_op(op: &Op, uniform: &[bool]) -> bool {
    match op {
        Op::IAdd {} | Op::ISub {} | Op::Cvta { .. } | Op::Bitcast {} => true,
        Op::IMul {} => uniform.iter().any(|&u| u),
        Op::Shl {} => uniform.get(1).copied().unwrap_or(false),
        Op::Cvt {
            dst,
            src,
            rnd: crate::ir::CvtRound::None,
            sat: false,
            ftz: false,
        } => {
            matches!(src.ir(), crate::ir::Type::I32 | crate::ir::Type::I64)
                && matches!(dst.ir(), crate::ir::Type::I32 | crate::ir::Type::I64)
                && dst.ir().bits() <= src.ir().bits()
        }
        _ => false,
    }
}

fn analyze_impl(f: &Function, shadow: Option<&Uniformity>) -> Uniformity {
    let cfg = Cfg::new(f);
    let back = cfg.back_edges().unwrap_or_default();
    let loops = cfg.loops(&back);
    let nb = f.blocks.len();
    let mut div = vec![false; f.values.len()];
    // Rule 5: loops holding a warp-level wait.
    let waits = |b: usize| {
        f.blocks[b]
            .insts
            .iter()
            .any(|&i| matches!(f.inst(i).op, Op::WarpSync { .. }))
    };
    for (_, body) in &loops {
        if !(0..nb).any(|b| body[b] && waits(b)) {
            continue;
        }
        for b in (0..nb).filter(|&b| body[b]) {
            let bd = &f.blocks[b];
            for &p in &bd.params {
                div[p.index()] = true;
            }
            // A constant is the same in every iteration.
            for &i in bd.insts.iter().filter(|&&i| !is_const(f, i)) {
                for &r in &f.inst(i).results {
                    div[r.index()] = true;
                }
            }
        }
    }
    let mut div_branch = match shadow {
        Some(r) => r.divergent_branch.clone(),
        None => vec![false; nb],
    };
    // Affine mode: a really divergent value that is not a 32/64-bit integer is divergent.
    let int_ty = |v: Value| matches!(f.value_type(v), crate::ir::Type::I32 | crate::ir::Type::I64);
    if let Some(r) = shadow {
        for (v, d) in div.iter_mut().enumerate() {
            if r.divergent[v] && !int_ty(Value(v as u32)) {
                *d = true;
            }
        }
    }
    // Block of each value's definition; none for a constant, which is the same in every
    // iteration of a loop, so never temporally divergent.
    let mut def_block = vec![usize::MAX; f.values.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for &p in &b.params {
            def_block[p.index()] = bi;
        }
        for &i in b.insts.iter().filter(|&&i| !is_const(f, i)) {
            for &r in &f.inst(i).results {
                def_block[r.index()] = bi;
            }
        }
    }
    // Incoming arguments per block parameter.
    let mut incoming: Vec<Vec<Vec<Value>>> = f
        .blocks
        .iter()
        .map(|b| vec![vec![]; b.params.len()])
        .collect();
    for b in &f.blocks {
        for c in b.term.targets() {
            for (k, &a) in c.args.iter().enumerate() {
                if let Some(slot) = incoming[c.block.index()].get_mut(k) {
                    slot.push(a);
                }
            }
        }
    }
    let mut changed = true;
    // The joins of each branch (`branch_joins`), once computed.
    let mut sync_joins: Vec<Option<Vec<Block>>> = vec![None; nb];
    // Loops (bodies) that some lane can leave while others stay: rule 4.
    let mut div_exit_loops: Vec<&Vec<bool>> = vec![];
    while changed {
        changed = false;
        div_exit_loops = loops
            .iter()
            .filter(|(_, body)| {
                (0..nb).any(|x| {
                    body[x] && div_branch[x] && cfg.succs[x].iter().any(|s| !body[s.index()])
                })
            })
            .map(|(_, body)| body)
            .collect();
        // Whether `a` seen from block `user` is divergent: divergent at its definition, or
        // defined in a loop with a divergent exit that `user` is outside of.
        let seen_div = |a: Value, user: usize, div: &Vec<bool>| -> bool {
            if div[a.index()] {
                return true;
            }
            let db = def_block[a.index()];
            db != usize::MAX && div_exit_loops.iter().any(|body| body[db] && !body[user])
        };
        let mark = |v: Value, div: &mut Vec<bool>| {
            if !div[v.index()] {
                div[v.index()] = true;
                true
            } else {
                false
            }
        };
        // 1, 2, 4: data dependence (including temporal divergence) and divergent operations.
        for &b in &cfg.rpo {
            let bd = f.block(b);
            for (k, &p) in bd.params.iter().enumerate() {
                let from_div = cfg.preds[b.index()].iter().any(|&pb| {
                    f.block(pb).term.targets().iter().any(|c| {
                        c.block == b
                            && c.args.get(k).is_some_and(|&a| {
                                seen_div(a, pb.index(), &div) || seen_div(a, b.index(), &div)
                            })
                    })
                });
                if from_div || incoming[b.index()][k].iter().any(|a| div[a.index()]) {
                    changed |= mark(p, &mut div);
                }
            }
            for &i in &bd.insts {
                let d = f.inst(i);
                let src_div = d.args.iter().any(|&a| seen_div(a, b.index(), &div));
                let op_div = match shadow {
                    None => op_divergent(&d.op),
                    Some(r) => {
                        let really: Vec<bool> =
                            d.args.iter().map(|&a| r.uniform_at(a, b)).collect();
                        let lane_reg = matches!(
                            d.op,
                            Op::SReg {
                                reg: crate::ir::SReg::TidX | crate::ir::SReg::LaneId
                            }
                        );
                        let passes = d.results.iter().all(|&v| int_ty(v))
                            && (really.iter().all(|&u| u) || affine_op(&d.op, &really));
                        if lane_reg {
                            false
                        } else {
                            op_divergent(&d.op) || !passes
                        }
                    }
                };
                if src_div || op_div {
                    for &r in &d.results {
                        changed |= mark(r, &mut div);
                    }
                }
            }
            if let Terminator::Branch { cond, .. } = &bd.term {
                if seen_div(*cond, b.index(), &div) && !div_branch[b.index()] {
                    div_branch[b.index()] = true;
                    changed = true;
                }
            }
        }
        // 3: sync dependence: the parameters of the joins of each divergent branch. A
        // branch's joins depend on the CFG alone, so each is computed once, at the first
        // iteration that finds the branch divergent.
        for &b in &cfg.rpo {
            if !div_branch[b.index()] {
                continue;
            }
            let joins = sync_joins[b.index()].get_or_insert_with(|| branch_joins(&cfg, &loops, b));
            for &x in joins.iter() {
                for &p in &f.block(x).params {
                    changed |= mark(p, &mut div);
                }
            }
        }
    }
    let temporal: Vec<bool> = (0..f.values.len())
        .map(|v| {
            let db = def_block[v];
            !div[v] && db != usize::MAX && div_exit_loops.iter().any(|body| body[db])
        })
        .collect();
    Uniformity {
        divergent: div,
        divergent_branch: div_branch,
        temporal,
        def_block,
        div_exit_loops: div_exit_loops.into_iter().cloned().collect(),
    }
}

/// The blocks whose parameters join the two sides of branch `b` if it diverges (rule 3, sync
/// dependence): propagating a label per side along forward edges, a block reached with two
/// different labels; with both sides the same block, that block; and the header of a loop
/// holding `b` that paths from different sides reach again through different back edges.
fn branch_joins(cfg: &Cfg, loops: &[(Block, Vec<bool>)], b: Block) -> Vec<Block> {
    let nb = cfg.succs.len();
    let succ = &cfg.succs[b.index()];
    if succ.len() < 2 || succ[0] == succ[1] {
        // Both sides reach the same block: its parameters are a join.
        return succ.iter().take(1).copied().collect();
    }
    let mut joins = vec![];
    let start = cfg.rpo_index[b.index()];
    let mut label: Vec<Option<Block>> = vec![None; nb];
    // A side that is a back edge arrives at its loop header labelled with `b` itself
    // (checked with the other latches below).
    let mut back_side: Option<Block> = None;
    for &s in succ {
        if cfg.rpo_index[s.index()] > start {
            label[s.index()] = Some(s);
        } else {
            back_side = Some(s);
        }
    }
    for &x in cfg.rpo.iter().skip(start + 1) {
        let mut seen: Option<Block> = label[x.index()];
        let mut join = false;
        for &p in &cfg.preds[x.index()] {
            if cfg.rpo_index[p.index()] >= cfg.rpo_index[x.index()] {
                continue; // back edge
            }
            let lp = if p == b { Some(x) } else { label[p.index()] };
            if let Some(lp) = lp {
                match seen {
                    None => seen = Some(lp),
                    Some(s) if s != lp => join = true,
                    _ => {}
                }
            }
        }
        if join {
            joins.push(x);
            label[x.index()] = Some(x);
        } else {
            label[x.index()] = seen;
        }
    }
    // Paths that meet again at a loop header through different back edges.
    for (h, body) in loops {
        if !body[b.index()] {
            continue;
        }
        let mut labels: Vec<Block> = cfg.preds[h.index()]
            .iter()
            .filter(|p| body[p.index()] && **p != b)
            .filter_map(|p| label[p.index()])
            .collect();
        if back_side == Some(*h) {
            labels.push(b);
        }
        labels.sort();
        labels.dedup();
        if labels.len() > 1 {
            joins.push(*h);
        }
    }
    joins
}

/// Whether special register `r` reads the same in every thread of a CTA for the whole
/// launch of that CTA (PTX ISA §10: `%ntid`, `%ctaid`, `%nctaid`, `%nwarpid` and the
/// `%envreg`s the runtime reads as 0). Registers read through the runtime helper (timers,
/// SM and cluster registers, `%envreg1/2`) count as not CTA-uniform here: the code that
/// computes values once per CTA ([`cta_uniform_entry`]) only takes registers it reads
/// from the CTA's environment.
pub fn cta_uniform_sreg(r: SReg) -> bool {
    match r {
        SReg::NtidX
        | SReg::NtidY
        | SReg::NtidZ
        | SReg::CtaidX
        | SReg::CtaidY
        | SReg::CtaidZ
        | SReg::NctaidX
        | SReg::NctaidY
        | SReg::NctaidZ
        | SReg::NWarpId
        | SReg::EnvReg(0 | 3..) => true,
        SReg::TidX
        | SReg::TidY
        | SReg::TidZ
        | SReg::LaneId
        | SReg::WarpId
        | SReg::LanemaskEq
        | SReg::LanemaskLe
        | SReg::LanemaskLt
        | SReg::LanemaskGe
        | SReg::LanemaskGt
        | SReg::Clock
        | SReg::ClockHi
        | SReg::Clock64
        | SReg::GlobalTimer
        | SReg::GlobalTimerLo
        | SReg::GlobalTimerHi
        | SReg::EnvReg(1 | 2)
        | SReg::SmId
        | SReg::NSmId
        | SReg::GridId
        | SReg::DynamicSmemSize
        | SReg::TotalSmemSize
        | SReg::AggrSmemSize
        | SReg::ReservedSmemBegin
        | SReg::ReservedSmemEnd
        | SReg::ReservedSmemCap
        | SReg::ReservedSmemOffset0
        | SReg::ReservedSmemOffset1
        | SReg::Pm(_)
        | SReg::Pm64(_)
        | SReg::CurrentGraphExec
        | SReg::LocalityDomainId
        | SReg::LocalityDomainSupplementalSm
        | SReg::ClusterIdX
        | SReg::ClusterIdY
        | SReg::ClusterIdZ
        | SReg::NClusterIdX
        | SReg::NClusterIdY
        | SReg::NClusterIdZ
        | SReg::ClusterCtaidX
        | SReg::ClusterCtaidY
        | SReg::ClusterCtaidZ
        | SReg::ClusterNctaidX
        | SReg::ClusterNctaidY
        | SReg::ClusterNctaidZ
        | SReg::ClusterCtaRank
        | SReg::ClusterNctaRank
        | SReg::IsExplicitCluster => false,
    }
}

/// The instructions of the kernel's first block whose results are **CTA-uniform**: the same
/// for every thread of a CTA, whichever warp computes them. These are CTA-uniform special
/// registers ([`cta_uniform_sreg`]), pure operations on CTA-uniform operands and
/// `ld.param` from a CTA-uniform address (parameter memory is read-only for the kernel, so
/// the load reads the same bytes in every warp; PTX ISA §5.1.6). `%tid`/`%warpid`-derived
/// values are warp-uniform at most and never CTA-uniform.
///
/// The first block is the first one with instructions on the path from the entry block
/// through unconditional jumps, each block the only way in to the next and without
/// parameters: every thread runs it exactly once, at its start. A kernel whose entry block is
/// the target of a branch gets none. Returns that block and the instructions; instructions
/// with more or less than one result are left out, and so are all `ld.param` of a kernel
/// with a store or atomic to parameter or generic memory (a generic address can point into
/// the parameter window, and one warp's store would then change what a later warp's load
/// reads). The list is in program order, each instruction after the ones defining its
/// operands.
pub fn cta_uniform_entry(f: &Function) -> Option<(Block, Vec<crate::ir::Inst>)> {
    let mut preds = vec![0u32; f.blocks.len()];
    for b in &f.blocks {
        for c in b.term.targets() {
            preds[c.block.index()] += 1;
        }
    }
    if preds.get(f.entry.index()).copied() != Some(0) {
        return None;
    }
    let mut blk = f.entry;
    let mut seen = vec![false; f.blocks.len()];
    while f.block(blk).insts.is_empty() {
        seen[blk.index()] = true;
        let Terminator::Jump(c) = &f.block(blk).term else {
            return None;
        };
        if preds[c.block.index()] != 1 || seen[c.block.index()] || !c.args.is_empty() {
            return None;
        }
        blk = c.block;
    }
    let bd = f.block(blk);
    if !bd.params.is_empty() {
        return None;
    }
    let param_written = f.blocks.iter().flat_map(|b| &b.insts).any(|&i| {
        let space = match f.inst(i).op {
            Op::Store { space, .. }
            | Op::Atom { space, .. }
            | Op::AtomCas { space }
            | Op::Atom128 { space, .. } => space,
            Op::Strong128 { store: true, space } => space,
            _ => return false,
        };
        matches!(space, Space::Param | Space::Generic)
    });
    let mut cta = vec![false; f.values.len()];
    let mut out = vec![];
    for &i in &bd.insts {
        let d = f.inst(i);
        let [r] = d.results[..] else {
            continue;
        };
        let kind = match d.op {
            Op::SReg { reg } => cta_uniform_sreg(reg),
            Op::Load {
                space: Space::Param,
                ..
            } => !param_written,
            _ => d.op.effect() == crate::ir::Effect::Pure,
        };
        if kind && d.args.iter().all(|a| cta[a.index()]) {
            cta[r.index()] = true;
            out.push(i);
        }
    }
    Some((blk, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mnemonics (IR op names) `cta_uniform_entry` picks in `kernel` of `ptx`.
    fn picked(ptx: &str) -> Option<Vec<String>> {
        let (_, fs) = crate::host::front_end(ptx, "t.ptx").expect("front end");
        let f = &fs[0];
        cta_uniform_entry(f).map(|(_, v)| {
            v.iter()
                .filter(|&&i| !matches!(f.inst(i).op, Op::Const { .. }))
                .map(|&i| match f.inst(i).op {
                    Op::SReg { reg } => format!("{reg:?}"),
                    op => op.mnemonic().to_string(),
                })
                .collect()
        })
    }

    const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

    #[test]
    fn parameters_and_cta_registers_but_not_tid() {
        // y[i] = a with i = ctaid.x * ntid.x + tid.x: the two parameter loads, %ctaid.x,
        // %ntid.x and their product are the same in every thread of a CTA; %tid.x and the
        // sum with it are not.
        let ptx = format!(
            "{HEAD}.visible .entry k(.param .u64 y, .param .u32 a)\n{{\n\
             .reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
             ld.param.u64 %rd1, [y];\nld.param.u32 %r1, [a];\n\
             mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n\
             mul.lo.s32 %r5, %r2, %r3;\nadd.s32 %r6, %r5, %r4;\n\
             mul.wide.s32 %rd2, %r6, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
             st.global.u32 [%rd3], %r1;\nret;\n}}\n"
        );
        let got = picked(&ptx).expect("a first block");
        assert_eq!(
            got.iter().filter(|m| m.starts_with("ld")).count(),
            2,
            "{got:?}"
        );
        assert!(got.contains(&"CtaidX".to_string()), "{got:?}");
        assert!(got.contains(&"NtidX".to_string()), "{got:?}");
        assert!(!got.contains(&"TidX".to_string()), "{got:?}");
        // ld, ld, ctaid, ntid, mul: nothing that depends on %tid.x.
        assert_eq!(got.len(), 5, "{got:?}");
    }

    #[test]
    fn no_parameter_load_with_a_generic_store() {
        // A generic store may write into the parameter window: no ld.param is taken.
        let ptx = format!(
            "{HEAD}.visible .entry k(.param .u64 y)\n{{\n\
             .reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n\
             ld.param.u64 %rd1, [y];\nmov.u32 %r1, %ctaid.x;\n\
             st.u32 [%rd1], %r1;\nret;\n}}\n"
        );
        let got = picked(&ptx).expect("a first block");
        assert_eq!(got, vec!["CtaidX".to_string()]);
    }

    #[test]
    fn none_when_the_first_block_is_a_loop_header() {
        // The first instruction is a branch target: threads can run it more than once.
        let ptx = format!(
            "{HEAD}.visible .entry k(.param .u32 n)\n{{\n\
             .reg .b32 %r<3>;\n.reg .pred %p;\n\
             $L: ld.param.u32 %r1, [n];\nadd.s32 %r2, %r1, 1;\n\
             setp.lt.u32 %p, %r2, %r1;\n@%p bra $L;\nret;\n}}\n"
        );
        assert_eq!(picked(&ptx), None);
    }

    #[test]
    fn a_constant_in_a_loop_with_a_warp_wait_and_a_divergent_exit_is_uniform() {
        // vote.sync.ballot with membermask -1 in a loop whose trip count depends on %tid.x:
        // rule 5 (a warp-level wait in the loop) and rule 4 (lanes leave in different
        // iterations) do not apply to a constant, the same in every iteration and lane.
        let ptx = format!(
            "{HEAD}.visible .entry k(.param .u64 y)\n{{\n\
             .reg .b32 %r<6>;\n.reg .pred %p<3>;\n.reg .b64 %rd<2>;\n\
             ld.param.u64 %rd1, [y];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, 0;\n\
             $L: and.b32 %r3, %r2, 1;\nsetp.ne.u32 %p1, %r3, 0;\n\
             vote.sync.ballot.b32 %r4, %p1, -1;\nadd.u32 %r2, %r2, %r4;\n\
             setp.lt.u32 %p2, %r2, %r1;\n@%p2 bra $L;\n\
             st.global.u32 [%rd1], %r2;\nret;\n}}\n"
        );
        let (_, fs) = crate::host::front_end(&ptx, "t.ptx").expect("front end");
        let f = &fs[0];
        let u = analyze(f);
        let mut constants = 0;
        for b in &f.blocks {
            for &i in &b.insts {
                if let Op::Const { .. } = f.inst(i).op {
                    let v = f.inst(i).results[0];
                    constants += 1;
                    for user in 0..f.blocks.len() {
                        assert!(u.uniform_at(v, Block(user as u32)), "{v:?} at block {user}");
                    }
                }
            }
        }
        assert!(constants > 0);
    }
}
