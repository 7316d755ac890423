//! Irreducible control flow made reducible, before SSA construction.
//!
//! The warp schedule (`analysis::schedule`) needs every loop to have a single header. PTX from
//! `goto`-heavy CUDA code (or from optimisations such as jump threading) can contain loops
//! entered at more than one block. Each such strongly connected region gets a *dispatcher*:
//! a new header block that branches on a new selector variable to the region's former entry
//! blocks; every edge that entered one of them, from outside the region or from inside it,
//! now sets the selector and jumps to the dispatcher instead. The region then has one entry,
//! and the paths through it are unchanged (each lane follows the branch its selector names),
//! so the rewrite changes no result. It repeats, inside each region too, until every loop of
//! the kernel has a single header.
//!
//! A region that contains the kernel's entry block is left alone (the schedule then reports
//! it as irreducible): PTX that branches back to the kernel's first instruction is rare.

use super::build::{PBlockData, PInst, PTerm, PreKernel, Var};
use crate::ir::{ICmp, Op, Sign, SrcLoc, Type};

type PBlock = u32;

pub(super) fn succs(t: &PTerm) -> Vec<PBlock> {
    match t {
        PTerm::Jump(b) | PTerm::Barrier(b) => vec![*b],
        PTerm::Branch(_, a, b) => vec![*a, *b],
        PTerm::Open | PTerm::Exit | PTerm::Trap => vec![],
    }
}

/// Rewrite every multiple-entry loop of `k` through a dispatcher (see the module docs).
pub(crate) fn make_reducible(k: &mut PreKernel) {
    // Each rewrite makes one region single-entry and adds blocks that are not loop entries,
    // so this ends; the bound is a guard against a bug looping forever.
    for _ in 0..4 * k.blocks.len() + 16 {
        match find_multi_entry_region(k) {
            Some(entries) => add_dispatcher(k, &entries),
            None => return,
        }
    }
}

/// The entry blocks, in block order, of a strongly connected region with more than one (and
/// not containing the kernel entry); searched from the outermost regions inwards.
fn find_multi_entry_region(k: &PreKernel) -> Option<Vec<PBlock>> {
    loop_regions(k)
        .into_iter()
        .map(|r| r.entries)
        .find(|e| e.len() > 1 && !e.contains(&0))
}

/// A loop of the pre-SSA CFG: a strongly connected region (with a cycle) and the member
/// blocks entered from outside it (the kernel entry counts as entered).
pub(super) struct Region {
    /// Membership by block index.
    pub members: Vec<bool>,
    /// Entry blocks in block order; exactly one for a natural loop (its header).
    pub entries: Vec<PBlock>,
}

/// The blocks reachable from the kernel entry (block 0).
pub(super) fn reachable(k: &PreKernel) -> Vec<bool> {
    let mut reach = vec![false; k.blocks.len()];
    let mut work = vec![0u32];
    while let Some(b) = work.pop() {
        if !std::mem::replace(&mut reach[b as usize], true) {
            work.extend(succs(&k.blocks[b as usize].term));
        }
    }
    reach
}

/// Every loop of `k`, outermost first: the strongly connected regions of the reachable
/// blocks, then, inside each region with a single header, those of the region without its
/// header (regions with several entries are not looked into).
pub(super) fn loop_regions(k: &PreKernel) -> Vec<Region> {
    let n = k.blocks.len();
    let reach = reachable(k);
    let mut preds = vec![vec![]; n];
    for (b, _) in reach.iter().enumerate().filter(|(_, &r)| r) {
        for s in succs(&k.blocks[b].term) {
            preds[s as usize].push(b as PBlock);
        }
    }
    let mut out = vec![];
    let mut todo = vec![reach];
    while let Some(allowed) = todo.pop() {
        for scc in sccs(k, &allowed) {
            let member = |b: PBlock| scc[b as usize];
            let first = scc.iter().position(|&x| x).unwrap_or(0) as PBlock;
            let single = scc.iter().filter(|&&x| x).count() == 1;
            if single && !succs(&k.blocks[first as usize].term).contains(&first) {
                continue;
            }
            let entries: Vec<PBlock> = (0..n as PBlock)
                .filter(|&b| member(b) && (b == 0 || preds[b as usize].iter().any(|&p| !member(p))))
                .collect();
            if let [h] = entries[..] {
                let mut inner = scc.clone();
                inner[h as usize] = false;
                todo.push(inner);
            }
            out.push(Region {
                members: scc,
                entries,
            });
        }
    }
    out
}

/// Strongly connected components of the subgraph of `allowed` blocks (Tarjan, iterative), as
/// membership vectors.
pub(super) fn sccs(k: &PreKernel, allowed: &[bool]) -> Vec<Vec<bool>> {
    let n = k.blocks.len();
    let mut index = vec![u32::MAX; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack = vec![];
    let mut out = vec![];
    let mut next = 0u32;
    let edges = |b: usize| -> Vec<PBlock> {
        succs(&k.blocks[b].term)
            .into_iter()
            .filter(|&s| allowed[s as usize])
            .collect()
    };
    for root in 0..n {
        if !allowed[root] || index[root] != u32::MAX {
            continue;
        }
        // (block, its successors, how many of them are done)
        let mut call: Vec<(usize, Vec<PBlock>, usize)> = vec![(root, edges(root), 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some((v, ss, i)) = call.last_mut() {
            let v = *v;
            if *i < ss.len() {
                let w = ss[*i] as usize;
                *i += 1;
                if index[w] == u32::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    let e = edges(w);
                    call.push((w, e, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some((u, _, _)) = call.last() {
                low[*u] = low[*u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = vec![false; n];
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = true;
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
}

/// A new pre-SSA variable of type `ty`.
pub(super) fn new_var(k: &mut PreKernel, ty: Type) -> Var {
    k.vars.push(ty);
    (k.vars.len() - 1) as Var
}

/// A pre-SSA instruction the lowering adds (`ptx`: what reports call it).
pub(super) fn inst(
    op: Op,
    args: Vec<Var>,
    results: Vec<Var>,
    loc: SrcLoc,
    copy: bool,
    ptx: &str,
) -> PInst {
    PInst {
        op,
        args,
        results,
        loc,
        ptx: ptx.to_string(),
        copy,
        sync: crate::ir::MemSync::None,
    }
}

/// A new block holding `insts` and ending in `term`.
pub(super) fn new_block(k: &mut PreKernel, insts: Vec<PInst>, term: PTerm, loc: SrcLoc) -> PBlock {
    k.blocks.push(PBlockData {
        insts,
        term,
        term_loc: loc,
    });
    (k.blocks.len() - 1) as PBlock
}

/// Route every edge into `entries` through a new dispatcher block that branches on a selector.
fn add_dispatcher(k: &mut PreKernel, entries: &[PBlock]) {
    let sel = new_var(k, Type::I32);
    let loc = k.blocks[entries[0] as usize].term_loc;
    // The dispatcher: a chain of tests `sel == j`, the last entry taken without one.
    let last = *entries.last().unwrap_or(&0);
    let mut next = last;
    let mut head = last;
    for (j, &e) in entries.iter().enumerate().rev().skip(1) {
        let kv = new_var(k, Type::I32);
        let p = new_var(k, Type::Pred);
        let insts = vec![
            inst(
                Op::Const { bits: j as u64 },
                vec![],
                vec![kv],
                loc,
                false,
                "",
            ),
            inst(
                Op::ICmp {
                    cc: ICmp::Eq,
                    sign: Sign::Unsigned,
                },
                vec![sel, kv],
                vec![p],
                loc,
                false,
                "",
            ),
        ];
        head = new_block(k, insts, PTerm::Branch(p, e, next), loc);
        next = head;
    }
    // Every edge into an entry (from any reachable block but the new ones) sets the selector.
    let n_old = k.blocks.len();
    for b in 0..n_old {
        let targets = succs(&k.blocks[b].term);
        if !targets.iter().any(|t| entries.contains(t)) || is_dispatch(k, b, sel) {
            continue;
        }
        let tloc = k.blocks[b].term_loc;
        let redirect = |t: PBlock, k: &mut PreKernel| -> PBlock {
            match entries.iter().position(|&e| e == t) {
                Some(j) => {
                    let tmp = new_var(k, Type::I32);
                    let insts = vec![
                        inst(
                            Op::Const { bits: j as u64 },
                            vec![],
                            vec![tmp],
                            tloc,
                            false,
                            "",
                        ),
                        inst(Op::Bitcast {}, vec![tmp], vec![sel], tloc, true, ""),
                    ];
                    new_block(k, insts, PTerm::Jump(head), tloc)
                }
                None => t,
            }
        };
        let term = k.blocks[b].term.clone();
        let new_term = match term {
            PTerm::Jump(t) => PTerm::Jump(redirect(t, k)),
            PTerm::Barrier(t) => PTerm::Barrier(redirect(t, k)),
            PTerm::Branch(p, t, e) => {
                let t2 = redirect(t, k);
                let e2 = redirect(e, k);
                PTerm::Branch(p, t2, e2)
            }
            other => other,
        };
        k.blocks[b].term = new_term;
    }
}

/// Whether block `b` is one of a dispatcher's test blocks for selector `sel`.
fn is_dispatch(k: &PreKernel, b: usize, sel: Var) -> bool {
    k.blocks[b]
        .insts
        .iter()
        .any(|i| !i.copy && i.args.first() == Some(&sel))
}
