//! Control-flow facts: predecessors, reverse post-order, dominators, natural loops, and the
//! reducibility check.

use crate::ir::{Block, Function};

/// Derived control-flow facts of one function.
#[derive(Debug, Clone)]
pub struct Cfg {
    pub succs: Vec<Vec<Block>>,
    pub preds: Vec<Vec<Block>>,
    /// Reachable blocks in reverse post-order from the entry.
    pub rpo: Vec<Block>,
    /// Position of each block in `rpo` (`usize::MAX` if unreachable).
    pub rpo_index: Vec<usize>,
    /// Immediate dominator (the entry's is itself; unreachable: `None`).
    pub idom: Vec<Option<Block>>,
}

impl Cfg {
    pub fn new(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let succs: Vec<Vec<Block>> = (0..n).map(|b| f.successors(Block(b as u32))).collect();
        let mut preds = vec![vec![]; n];
        for (b, ss) in succs.iter().enumerate() {
            for s in ss {
                if s.index() < n && !preds[s.index()].contains(&Block(b as u32)) {
                    preds[s.index()].push(Block(b as u32));
                }
            }
        }
        // Iterative DFS post-order.
        let mut post = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack: Vec<(Block, usize)> = vec![];
        if f.entry.index() < n {
            seen[f.entry.index()] = true;
            stack.push((f.entry, 0));
        }
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            let ss = &succs[b.index()];
            if *k < ss.len() {
                let s = ss[*k];
                *k += 1;
                if s.index() < n && !seen[s.index()] {
                    seen[s.index()] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        let rpo: Vec<Block> = post.into_iter().rev().collect();
        let mut rpo_index = vec![usize::MAX; n];
        for (i, b) in rpo.iter().enumerate() {
            rpo_index[b.index()] = i;
        }
        // Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm".
        let mut idom: Vec<Option<Block>> = vec![None; n];
        if let Some(&e) = rpo.first() {
            idom[e.index()] = Some(e);
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new: Option<Block> = None;
                for &p in &preds[b.index()] {
                    if idom[p.index()].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(q) => {
                            let (mut x, mut y) = (p, q);
                            while x != y {
                                while rpo_index[x.index()] > rpo_index[y.index()] {
                                    x = idom[x.index()].unwrap_or(x);
                                }
                                while rpo_index[y.index()] > rpo_index[x.index()] {
                                    y = idom[y.index()].unwrap_or(y);
                                }
                            }
                            x
                        }
                    });
                }
                if new.is_some() && idom[b.index()] != new {
                    idom[b.index()] = new;
                    changed = true;
                }
            }
        }
        Cfg {
            succs,
            preds,
            rpo,
            rpo_index,
            idom,
        }
    }

    pub fn reachable(&self, b: Block) -> bool {
        self.rpo_index[b.index()] != usize::MAX
    }

    /// Whether `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        if !self.reachable(a) || !self.reachable(b) {
            return false;
        }
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match self.idom[x.index()] {
                Some(p) if p != x => x = p,
                _ => return false,
            }
        }
    }

    /// Back edges `(from, header)`: edges to a block earlier in RPO. The CFG is reducible iff
    /// every such header dominates its source; returns the first edge that breaks it as `Err`.
    pub fn back_edges(&self) -> Result<Vec<(Block, Block)>, (Block, Block)> {
        let mut out = vec![];
        for &b in &self.rpo {
            for &s in &self.succs[b.index()] {
                if self.rpo_index[s.index()] <= self.rpo_index[b.index()] {
                    if !self.dominates(s, b) {
                        return Err((b, s));
                    }
                    out.push((b, s));
                }
            }
        }
        Ok(out)
    }

    /// The natural loop body of each loop header (header included), merged over its back edges.
    pub fn loops(&self, back_edges: &[(Block, Block)]) -> Vec<(Block, Vec<bool>)> {
        let n = self.succs.len();
        let mut loops: Vec<(Block, Vec<bool>)> = vec![];
        for &(src, h) in back_edges {
            let idx = match loops.iter().position(|(hh, _)| *hh == h) {
                Some(i) => i,
                None => {
                    let mut body = vec![false; n];
                    body[h.index()] = true;
                    loops.push((h, body));
                    loops.len() - 1
                }
            };
            let body = &mut loops[idx].1;
            let mut work = vec![src];
            while let Some(b) = work.pop() {
                if body[b.index()] {
                    continue;
                }
                body[b.index()] = true;
                for &p in &self.preds[b.index()] {
                    if self.reachable(p) {
                        work.push(p);
                    }
                }
            }
        }
        loops
    }
}
