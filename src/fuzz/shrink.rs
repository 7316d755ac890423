//! Shrinking a failing generated kernel: greedy edits of the [`Kernel`] tree that keep it
//! valid by construction, kept while the failure persists.
//!
//! Edits, tried in order on every node (pre-order): delete the statement; replace an `if` by
//! its `then` or `else` branch, a `brx.idx` switch by its first or last arm; replace a loop by its body, drop its `break`, make its trip
//! count fixed at 1. Then launch edits: one CTA; a smaller block (still a multiple of 32 when
//! the kernel needs full warps, of 128 in the `sm_90a` and `sm_100a` flavours, whose `wgmma`
//! needs whole warpgroups and whose `tcgen05` all 128 lanes). Deleting or promoting never breaks validity: every register
//! is initialised in the prologue, labels are made at render time, barriers stay in uniform
//! control flow (a promoted body was already in control flow at least as uniform).

use std::time::{Duration, Instant};

use super::gen::{Kernel, Stmt, Trip};

/// One edit at a node of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit {
    Delete,
    Then,
    Else,
    Unloop,
    NoBreak,
    OneTrip,
}

const EDITS: &[Edit] = &[
    Edit::Delete,
    Edit::Then,
    Edit::Else,
    Edit::Unloop,
    Edit::NoBreak,
    Edit::OneTrip,
];

/// Number of statements in a tree (all levels).
pub fn count(body: &[Stmt]) -> usize {
    body.iter()
        .map(|s| {
            1 + match s {
                Stmt::If { then, els, .. } => count(then) + count(els),
                Stmt::Loop { body, .. } => count(body),
                Stmt::Switch { arms, .. } => arms.iter().map(|a| count(a)).sum(),
                _ => 0,
            }
        })
        .sum()
}

/// Applies `edit` to node number `*n` (pre-order) of `body`. `None`: the node is not in this
/// subtree (`*n` is reduced by the subtree's size); `Some(applied)`: it is, and whether the edit
/// made sense for it.
fn apply_at(body: &mut Vec<Stmt>, n: &mut usize, edit: Edit) -> Option<bool> {
    let mut i = 0;
    while i < body.len() {
        if *n == 0 {
            let s = body[i].clone();
            let replacement: Option<Vec<Stmt>> = match (edit, s) {
                (Edit::Delete, _) => Some(vec![]),
                (Edit::Then, Stmt::If { then, .. }) => Some(then),
                (Edit::Else, Stmt::If { els, .. }) => Some(els),
                (Edit::Then, Stmt::Switch { mut arms, .. }) => Some(arms.swap_remove(0)),
                (Edit::Else, Stmt::Switch { mut arms, .. }) => arms.pop(),
                (Edit::Unloop, Stmt::Loop { body, .. }) => Some(body),
                (
                    Edit::NoBreak,
                    Stmt::Loop {
                        level,
                        trip,
                        test_first,
                        body,
                        brk: Some(_),
                    },
                ) => Some(vec![Stmt::Loop {
                    level,
                    trip,
                    test_first,
                    body,
                    brk: None,
                }]),
                (
                    Edit::OneTrip,
                    Stmt::Loop {
                        level,
                        trip,
                        test_first,
                        body,
                        brk,
                    },
                ) if trip != Trip::Fixed(1) => Some(vec![Stmt::Loop {
                    level,
                    trip: Trip::Fixed(1),
                    test_first,
                    body,
                    brk,
                }]),
                _ => None,
            };
            return Some(match replacement {
                Some(r) => {
                    body.splice(i..=i, r);
                    true
                }
                None => false,
            });
        }
        *n -= 1;
        let found = match &mut body[i] {
            Stmt::If { then, els, .. } => {
                apply_at(then, n, edit).or_else(|| apply_at(els, n, edit))
            }
            Stmt::Loop { body, .. } => apply_at(body, n, edit),
            Stmt::Switch { arms, .. } => arms.iter_mut().find_map(|a| apply_at(a, n, edit)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
        i += 1;
    }
    None
}

/// Applies `edit` to node number `n` (pre-order); whether it applied.
fn apply(body: &mut Vec<Stmt>, n: usize, edit: Edit) -> bool {
    let mut n = n;
    apply_at(body, &mut n, edit) == Some(true)
}

/// All single-edit variants of `k`, most reducing first.
fn variants(k: &Kernel) -> Vec<Kernel> {
    let mut out = Vec::new();
    let nodes = count(&k.body);
    for &edit in EDITS {
        for node in 0..nodes {
            let mut v = k.clone();
            if apply(&mut v.body, node, edit) {
                out.push(v);
            }
        }
    }
    if k.grid != [1, 1, 1] {
        let mut v = k.clone();
        v.grid = [1, 1, 1];
        out.push(v);
    }
    let nt = k.threads_per_cta();
    let needs_full = nt.is_multiple_of(32);
    for block in [[128, 1, 1], [32, 1, 1], [1, 1, 1], [2, 1, 1]] {
        let t: u32 = block.iter().product();
        // `wgmma` kernels need whole warpgroups.
        let unit = if k.sm90a || k.sm100a {
            128
        } else if needs_full {
            32
        } else {
            1
        };
        if t < nt && t.is_multiple_of(unit) {
            let mut v = k.clone();
            v.block = block;
            out.push(v);
        }
    }
    if k.input.iter().any(|&w| w != 0) {
        let mut v = k.clone();
        let half = v.input.len() / 2;
        v.input[half..].iter_mut().for_each(|w| *w = 0);
        if v.input != k.input {
            out.push(v);
        }
    }
    out
}

/// Shrinks `k` while `fails` holds for the result, within `budget`: a candidate is tried only
/// while `per_candidate` (the most one call of `fails` can take) still fits in what is left,
/// so the whole shrink ends within `budget` when every call keeps to `per_candidate`. `fails(k)`
/// must be true for the input. Returns the smallest failing kernel found and how many
/// candidates were tried.
pub fn shrink(
    k: &Kernel,
    mut fails: impl FnMut(&Kernel) -> bool,
    budget: Duration,
    per_candidate: Duration,
) -> (Kernel, usize) {
    let start = Instant::now();
    let mut best = k.clone();
    let mut tried = 0;
    'outer: loop {
        for v in variants(&best) {
            if start.elapsed() + per_candidate > budget {
                break 'outer;
            }
            tried += 1;
            if fails(&v) {
                best = v;
                continue 'outer;
            }
        }
        break;
    }
    (best, tried)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::gen::{generate, GenConfig};
    use crate::fuzz::rng::Rng;

    #[test]
    fn edits_reach_every_node() {
        let k = generate(&mut Rng::seeded(5), GenConfig { size: 40 });
        let n = count(&k.body);
        for node in 0..n {
            let mut v = k.clone();
            assert!(apply(&mut v.body, node, Edit::Delete), "node {node} of {n}");
            assert!(count(&v.body) < n);
        }
        let mut v = k.clone();
        assert!(!apply(&mut v.body, n, Edit::Delete));
    }

    #[test]
    fn shrinks_to_the_statement_that_matters() {
        let k = generate(&mut Rng::seeded(11), GenConfig { size: 60 });
        // "Fails" while some statement mentions a mul: expect one statement left.
        let has = |b: &[Stmt]| -> bool {
            fn any(b: &[Stmt]) -> bool {
                b.iter().any(|s| match s {
                    Stmt::Code(l) => l.iter().any(|x| x.contains("mul")),
                    Stmt::If { then, els, .. } => any(then) || any(els),
                    Stmt::Loop { body, .. } => any(body),
                    _ => false,
                })
            }
            any(b)
        };
        if !has(&k.body) {
            return;
        }
        let (small, _) = shrink(
            &k,
            |v| has(&v.body),
            Duration::from_secs(30),
            Duration::ZERO,
        );
        assert_eq!(count(&small.body), 1, "{:#?}", small.body);
    }

    /// A candidate is tried only while its cost still fits in the budget: with each one
    /// taking `cost`, at most `budget / cost` run and the shrink ends within the budget (where
    /// the old check, made before each candidate against the budget alone, started one more
    /// once the budget was nearly spent and ended up to a candidate's cost past it).
    #[test]
    fn candidates_stay_within_the_budget() {
        let k = generate(&mut Rng::seeded(11), GenConfig { size: 60 });
        let (cost, budget) = (Duration::from_millis(200), Duration::from_millis(1100));
        let start = Instant::now();
        let (_, tried) = shrink(
            &k,
            |_| {
                std::thread::sleep(cost);
                true
            },
            budget,
            cost,
        );
        let took = start.elapsed();
        // Candidate n starts at n · cost or later and must end by the budget: n ≤ 4.
        assert!((1..=5).contains(&tried), "{tried} candidates");
        assert!(
            took <= budget + cost / 2,
            "{took:?} for a budget of {budget:?}"
        );
    }
}
