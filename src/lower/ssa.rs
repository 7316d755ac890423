//! Step 2 of lowering: variables → SSA values with block parameters.
//!
//! Every variable live on entry to a block becomes a parameter of that block (pruned SSA from
//! liveness); branches pass the current values. A variable read before any write (PTX leaves
//! it undefined) reads as zero. Afterwards, trivial parameters — all incoming arguments are the
//! parameter itself or one other value — are replaced by that value, repeatedly.

use super::build::{PTerm, PreKernel, Var};
use super::reducible::succs;
use super::LowerError;
use crate::ir::{self, Block, BlockCall, Op, SrcLoc, Terminator, Value, ValueDef};

struct BitSet(Vec<u64>);

impl BitSet {
    fn new(n: usize) -> BitSet {
        BitSet(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    /// The set members, in increasing order; a word's members cost one step each, an empty
    /// word one test (a set of a large kernel's thousands of variables is mostly empty).
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut rest = bits;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let b = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + b
                })
            })
        })
    }
}

/// Build the SSA function.
pub(crate) fn construct(k: PreKernel) -> Result<ir::Function, LowerError> {
    let nb = k.blocks.len();
    let nv = k.vars.len();
    // Reachable pre-blocks from block 0.
    let reach = super::reducible::reachable(&k);
    // Upward-exposed uses and definitions per block.
    let mut ue: Vec<BitSet> = (0..nb).map(|_| BitSet::new(nv)).collect();
    let mut defs: Vec<BitSet> = (0..nb).map(|_| BitSet::new(nv)).collect();
    for b in 0..nb {
        if !reach[b] {
            continue;
        }
        for i in &k.blocks[b].insts {
            for &a in &i.args {
                if !defs[b].get(a as usize) {
                    ue[b].set(a as usize);
                }
            }
            for &r in &i.results {
                defs[b].set(r as usize);
            }
        }
        if let PTerm::Branch(c, _, _) = k.blocks[b].term {
            if !defs[b].get(c as usize) {
                ue[b].set(c as usize);
            }
        }
    }
    // Live-in sets by backward iteration to a fixpoint.
    let mut live_in: Vec<BitSet> = (0..nb).map(|_| BitSet::new(nv)).collect();
    let mut out = BitSet::new(nv);
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            if !reach[b] {
                continue;
            }
            out.0.iter_mut().for_each(|w| *w = 0);
            for s in succs(&k.blocks[b].term) {
                for (w, x) in out.0.iter_mut().zip(&live_in[s as usize].0) {
                    *w |= x;
                }
            }
            for w in 0..out.0.len() {
                let new = ue[b].0[w] | (out.0[w] & !defs[b].0[w]);
                if new != live_in[b].0[w] {
                    live_in[b].0[w] = new;
                    changed = true;
                }
            }
        }
    }

    let mut f = ir::Function {
        name: k.name.clone(),
        params: k.params.clone(),
        param_bytes: k.param_bytes,
        values: vec![],
        insts: vec![],
        blocks: vec![],
        entry: Block(0),
        inst_locs: vec![],
        call_frames: k.call_frames.clone(),
        inst_ptx: vec![],
        inst_sync: vec![],
        static_shared_bytes: k.static_shared_bytes,
        dynamic_shared: k.dynamic_shared,
        local_bytes: k.local_bytes,
        call_stack: k.call_stack,
        local_past: k.local_past.clone(),
        max_threads: k.max_threads,
        req_ntid: k.req_ntid,
        cluster: k.cluster,
        shared_vars: k.shared_vars.clone(),
        lockstep: false,
    };
    let entry = f.new_block();
    let mut map = vec![Block(u32::MAX); nb];
    for b in 0..nb {
        if reach[b] {
            map[b] = f.new_block();
        }
    }
    // Block parameters: the live-in variables, in variable order.
    let mut params: Vec<Vec<usize>> = vec![vec![]; nb];
    for b in 0..nb {
        if !reach[b] {
            continue;
        }
        params[b] = live_in[b].iter().collect();
        for &v in &params[b] {
            f.push_block_param(map[b], k.vars[v]);
        }
    }
    // Entry: undefined registers read as zero.
    let mut entry_args = vec![];
    for &v in &params[0] {
        let inst = f.push_inst(
            entry,
            Op::Const { bits: 0 },
            vec![],
            &[k.vars[v]],
            SrcLoc::default(),
            "(undefined register)",
        );
        entry_args.push(f.inst(inst).results[0]);
    }
    f.blocks[entry.index()].term = Terminator::Jump(BlockCall {
        block: map[0],
        args: entry_args,
    });

    // Each variable's current value in the block being renamed; all `None` between blocks
    // (the block's writes, listed in `written`, are undone at its end: clearing all of it
    // per block would cost blocks × variables).
    let mut cur: Vec<Option<Value>> = vec![None; nv];
    let mut written: Vec<usize> = vec![];
    for b in 0..nb {
        if !reach[b] {
            continue;
        }
        for v in written.drain(..) {
            cur[v] = None;
        }
        let ib = map[b];
        for (n, &v) in params[b].iter().enumerate() {
            cur[v] = Some(f.block(ib).params[n]);
            written.push(v);
        }
        let get = |cur: &Vec<Option<Value>>, v: Var, loc: SrcLoc| -> Result<Value, LowerError> {
            cur[v as usize].ok_or_else(|| {
                LowerError::new(
                    k.span,
                    format!(
                        "internal error: variable {v} has no value (PTX line {})",
                        loc.line
                    ),
                )
            })
        };
        for pi in &k.blocks[b].insts {
            if pi.copy {
                let v = get(&cur, pi.args[0], pi.loc)?;
                cur[pi.results[0] as usize] = Some(v);
                written.push(pi.results[0] as usize);
                continue;
            }
            let args = pi
                .args
                .iter()
                .map(|&a| get(&cur, a, pi.loc))
                .collect::<Result<Vec<_>, _>>()?;
            let tys: Vec<ir::Type> = pi.results.iter().map(|&r| k.vars[r as usize]).collect();
            let inst = f.push_inst(ib, pi.op, args, &tys, pi.loc, &pi.ptx);
            f.inst_sync[inst.index()] = pi.sync;
            for (n, &r) in pi.results.iter().enumerate() {
                cur[r as usize] = Some(f.inst(inst).results[n]);
                written.push(r as usize);
            }
        }
        let call = |cur: &Vec<Option<Value>>, t: u32| -> Result<BlockCall, LowerError> {
            let args = params[t as usize]
                .iter()
                .map(|&v| get(cur, v as Var, k.blocks[b].term_loc))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(BlockCall {
                block: map[t as usize],
                args,
            })
        };
        let term = match &k.blocks[b].term {
            PTerm::Jump(t) => Terminator::Jump(call(&cur, *t)?),
            PTerm::Barrier(t) => Terminator::Barrier {
                next: call(&cur, *t)?,
            },
            PTerm::Branch(c, t, e) => Terminator::Branch {
                cond: get(&cur, *c, k.blocks[b].term_loc)?,
                then_: call(&cur, *t)?,
                else_: call(&cur, *e)?,
            },
            PTerm::Exit | PTerm::Open => Terminator::Exit,
            PTerm::Trap => Terminator::Trap,
        };
        f.blocks[ib.index()].term = term;
        f.blocks[ib.index()].term_loc = k.blocks[b].term_loc;
    }
    remove_trivial_params(&mut f);
    Ok(f)
}

/// Replace parameters whose incoming arguments are all the parameter itself or one other
/// value by that value (Braun et al. 2013, "trivial φ" removal), until none is left.
fn remove_trivial_params(f: &mut ir::Function) {
    let nv = f.values.len();
    let mut alias: Vec<Value> = (0..nv as u32).map(Value).collect();
    fn resolve(alias: &[Value], mut v: Value) -> Value {
        while alias[v.index()] != v {
            v = alias[v.index()];
        }
        v
    }
    // The edges into each block: (predecessor, index of the edge among its targets).
    let mut preds: Vec<Vec<(usize, usize)>> = vec![vec![]; f.blocks.len()];
    for (pb, blk) in f.blocks.iter().enumerate() {
        for (slot, c) in blk.term.targets().into_iter().enumerate() {
            preds[c.block.index()].push((pb, slot));
        }
    }
    loop {
        let mut changed = false;
        for (b, into) in preds.iter().enumerate() {
            let mut k = 0;
            while k < f.blocks[b].params.len() {
                let p = f.blocks[b].params[k];
                let mut same: Option<Value> = None;
                let mut trivial = true;
                for &(pb, slot) in into {
                    let Some(c) = f.blocks[pb].term.target(slot) else {
                        continue;
                    };
                    let a = resolve(&alias, c.args[k]);
                    if a == p || Some(a) == same {
                        continue;
                    }
                    if same.is_some() {
                        trivial = false;
                    }
                    same = Some(a);
                }
                match (trivial, same) {
                    (true, Some(v)) => {
                        alias[p.index()] = v;
                        f.blocks[b].params.remove(k);
                        for &(pb, slot) in into {
                            if let Some(c) = f.blocks[pb].term.target_mut(slot) {
                                c.args.remove(k);
                            }
                        }
                        changed = true;
                    }
                    _ => k += 1,
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Rewrite uses and renumber parameter definitions.
    for d in &mut f.insts {
        for a in &mut d.args {
            *a = resolve(&alias, *a);
        }
    }
    for b in 0..f.blocks.len() {
        let blk = &mut f.blocks[b];
        if let Terminator::Branch { cond, .. } = &mut blk.term {
            *cond = resolve(&alias, *cond);
        }
        for c in blk.term.targets_mut() {
            for a in &mut c.args {
                *a = resolve(&alias, *a);
            }
        }
        for (n, &p) in blk.params.iter().enumerate() {
            f.values[p.index()].def = ValueDef::Param(Block(b as u32), n as u16);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BitSet;
    use crate::ir::{Block, BlockCall, Terminator, Value};

    /// The members come out in increasing order, each once, across word boundaries and in
    /// the last bit of a word; an empty set yields nothing.
    #[test]
    fn bitset_iter_lists_members_in_order() {
        let mut s = BitSet::new(200);
        assert_eq!(s.iter().count(), 0);
        let members = [0, 1, 63, 64, 127, 130, 199];
        for &m in members.iter().rev() {
            s.set(m);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), members);
    }

    /// `target(slot)` and `target_mut(slot)` are `targets()[slot]` for every terminator,
    /// `None` past the end.
    #[test]
    fn target_by_index_matches_the_list() {
        let call = |b: u32| BlockCall {
            block: Block(b),
            args: vec![Value(b)],
        };
        let mut terms = vec![
            Terminator::Jump(call(1)),
            Terminator::Branch {
                cond: Value(9),
                then_: call(2),
                else_: call(3),
            },
            Terminator::Barrier { next: call(4) },
            Terminator::Exit,
            Terminator::Trap,
        ];
        for t in &mut terms {
            let list: Vec<BlockCall> = t.targets().into_iter().cloned().collect();
            for slot in 0..3 {
                assert_eq!(t.target(slot), list.get(slot));
                assert_eq!(
                    t.target_mut(slot).map(|c| c.clone()),
                    list.get(slot).cloned()
                );
            }
        }
    }
}
