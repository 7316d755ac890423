//! Tensor-memory allocation (`tcgen05.alloc`/`dealloc`, PTX ISA §9.7.16.7.1) and the CTA
//! pairs of `.cta_group::2` (§9.7.16.5): the allocator over one CTA's or a pair's tensor
//! memories, and the cluster's [`Pairs`] state through which the two CTAs' warps meet.

use super::{TensorMemory, COLS, LANES};
use crate::runtime::cluster::ClusterState;
use crate::runtime::env::CtaEnv;

/// Allocate `ncols` columns at the same place in each of `tms` (one CTA's tensor memory, or
/// a CTA pair's for `.cta_group::2`): the lowest multiple of `ncols` free in all of them.
pub(super) fn alloc_in(tms: &[&TensorMemory], ncols: u32) -> Result<u32, String> {
    if !(32..=COLS).contains(&ncols) || !ncols.is_power_of_two() {
        return Err(format!(
            "tcgen05.alloc of {ncols} columns (a power of two from 32 to 512)"
        ));
    }
    if tms.iter().any(|t| t.st.borrow().relinquished) {
        return Err(format!(
            "tcgen05.alloc after tcgen05.relinquish_alloc_permit{} (undefined in PTX)",
            if tms.len() > 1 {
                " by a CTA of the pair"
            } else {
                ""
            }
        ));
    }
    let free = |c: u32| {
        tms.iter().all(|t| {
            let s = t.st.borrow();
            s.allocs.iter().all(|&(a, n)| c + ncols <= a || a + n <= c)
        })
    };
    let Some(col) = (0..COLS / ncols).map(|i| i * ncols).find(|&c| free(c)) else {
        let used: Vec<u32> = tms
            .iter()
            .map(|t| t.st.borrow().allocs.iter().map(|a| a.1).sum::<u32>())
            .collect();
        return Err(format!(
            "tcgen05.alloc of {ncols} columns: no room left ({used:?} of 512 allocated); the \
             GPU would wait for a dealloc, ptxjit does not"
        ));
    };
    for t in tms {
        let mut s = t.st.borrow_mut();
        if s.cells.is_empty() {
            s.cells = vec![0; (LANES * COLS) as usize];
        }
        s.allocs.push((col, ncols));
    }
    Ok(col)
}

/// Free the allocation at `taddr` of `ncols` columns in each of `tms`; nothing is freed
/// unless every one has it.
pub(super) fn dealloc_in(tms: &[&TensorMemory], taddr: u32, ncols: u32) -> Result<(), String> {
    let col = taddr & 0xffff;
    let has = |t: &&TensorMemory| t.st.borrow().allocs.contains(&(col, ncols));
    if taddr >> 16 != 0 || !tms.iter().all(has) {
        return Err(format!(
            "tcgen05.dealloc of address {taddr:#x}, {ncols} columns: not an allocation of this \
             CTA{}",
            if tms.len() > 1 { " pair" } else { "" }
        ));
    }
    for t in tms {
        t.st.borrow_mut().allocs.retain(|&a| a != (col, ncols));
    }
    Ok(())
}

/// The `.cta_group::2` state of a cluster (PTX ISA §9.7.16.5, §9.7.16.7.1), kept in its
/// [`ClusterState`]: each CTA's tensor memory (registered by the CTA's `.cta_group::2`
/// operations; null until then) and, per CTA, the `alloc` or `dealloc` one of its warps
/// waits in for the peer CTA. Only the host thread that runs the cluster touches it.
#[derive(Debug, Default)]
pub struct Pairs {
    tmems: Vec<*const TensorMemory>,
    asks: Vec<Option<Ask>>,
}

/// A warp's `.cta_group::2` `alloc`/`dealloc` waiting for the peer CTA's, and its result
/// (the first column allocated, 0 for a dealloc) once the peer's has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ask {
    warp: u32,
    what: AskKind,
    done: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AskKind {
    Alloc { ncols: u32 },
    Dealloc { taddr: u32, ncols: u32 },
}

impl Pairs {
    /// Ready for a cluster of `ctas` CTAs: nothing registered, nothing waiting.
    pub(in crate::runtime) fn reset(&mut self, ctas: usize) {
        self.tmems.clear();
        self.tmems.resize(ctas, std::ptr::null());
        self.asks.clear();
        self.asks.resize(ctas, None);
    }
}

/// The executing CTA's pair: its cluster's state, its rank and the peer's (rank ^ 1), or
/// why it has none.
fn pair_of(env: &CtaEnv) -> Result<(&ClusterState, u32, u32), String> {
    let size: u32 = env.cluster_dims.iter().product();
    let rank = env.cluster_rank();
    let peer = rank ^ 1;
    match env.cluster_state() {
        Some(c) if peer < size => Ok((c, rank, peer)),
        _ => Err(format!(
            ".cta_group::2 pairs the CTAs of ranks {} and {} of a cluster; this CTA (rank \
             {rank}) is in a cluster of {size}",
            rank & !1,
            rank | 1
        )),
    }
}

/// The pair state of `cluster`, locked, with `tm` registered as `rank`'s tensor memory.
fn pairs_with<'a>(
    cluster: &'a ClusterState,
    rank: u32,
    tm: &TensorMemory,
) -> Result<std::sync::MutexGuard<'a, Pairs>, String> {
    let mut p = cluster.pairs.lock().unwrap_or_else(|e| e.into_inner());
    match p.tmems.get_mut(rank as usize) {
        Some(slot) => *slot = tm,
        None => return Err(format!("rank {rank} is outside the cluster's pair state")),
    }
    Ok(p)
}

/// The tensor memory of `rank`, registered in `p`.
///
/// SAFETY (of the returned reference): a registered pointer is a CTA's tensor memory of the
/// cluster now running (`Pairs::reset` clears them when the next cluster starts), which the
/// worker running the cluster owns and keeps alive while it runs, on this host thread.
fn registered<'a>(p: &Pairs, rank: u32) -> Option<&'a TensorMemory> {
    let t = *p.tmems.get(rank as usize)?;
    // SAFETY: see above; null (not registered yet) gives `None`.
    unsafe { t.as_ref() }
}

/// A `.cta_group::2` `alloc` or `dealloc` (`what`) by warp `warp` of the executing CTA
/// (tensor memory `tm`): `Ok(Some(result))` once it and the peer CTA's have both been
/// asked (the first column allocated, or 0 for a dealloc, done in both tensor memories
/// when the second comes), `Ok(None)` while this warp waits for the peer (or behind another
/// warp of its CTA that waits). The two must agree (both `alloc` of the same columns, or
/// both `dealloc` of the same allocation), else an error.
pub(super) fn pair_ask(
    env: &CtaEnv,
    tm: &TensorMemory,
    warp: u32,
    what: AskKind,
) -> Result<Option<u32>, String> {
    let (cluster, rank, peer) = pair_of(env)?;
    let mut p = pairs_with(cluster, rank, tm)?;
    let (r, o) = (rank as usize, peer as usize);
    match p.asks[r] {
        Some(a) if a.warp == warp => {
            if let Some(v) = a.done {
                p.asks[r] = None;
                return Ok(Some(v));
            }
            return Ok(None);
        }
        Some(_) => return Ok(None),
        None => {}
    }
    let Some(Ask {
        warp: pwarp,
        what: pwhat,
        done: None,
    }) = p.asks[o]
    else {
        p.asks[r] = Some(Ask {
            warp,
            what,
            done: None,
        });
        return Ok(None);
    };
    let Some(ptm) = registered(&p, peer) else {
        return Err(format!("the peer CTA (rank {peer}) has no tensor memory"));
    };
    let tms = [tm, ptm];
    let v = match (what, pwhat) {
        (AskKind::Alloc { ncols }, AskKind::Alloc { ncols: pn }) if ncols == pn => {
            alloc_in(&tms, ncols)?
        }
        (
            AskKind::Dealloc { taddr, ncols },
            AskKind::Dealloc {
                taddr: pt,
                ncols: pn,
            },
        ) if (taddr, ncols) == (pt, pn) => {
            dealloc_in(&tms, taddr, ncols)?;
            0
        }
        _ => {
            let say = |k: AskKind| match k {
                AskKind::Alloc { ncols } => format!("tcgen05.alloc of {ncols} columns"),
                AskKind::Dealloc { taddr, ncols } => {
                    format!("tcgen05.dealloc of {taddr:#x}, {ncols} columns")
                }
            };
            return Err(format!(
                "{} .cta_group::2 while the peer CTA (rank {peer}) waits in {} (the pair's \
                 warps must issue the same operation)",
                say(what),
                say(pwhat)
            ));
        }
    };
    p.asks[o] = Some(Ask {
        warp: pwarp,
        what: pwhat,
        done: Some(v),
    });
    Ok(Some(v))
}

/// The tensor memories of the executing CTA's pair, the even rank's first, and their ranks,
/// for a `.cta_group::2` `mma`, `cp` or `shift` issued by a CTA with tensor memory `tm`.
pub(super) fn pair_tmems<'a>(
    env: &CtaEnv,
    tm: &'a TensorMemory,
) -> Result<([&'a TensorMemory; 2], [u32; 2]), String> {
    let (cluster, rank, peer) = pair_of(env)?;
    let p = pairs_with(cluster, rank, tm)?;
    let Some(ptm) = registered(&p, peer) else {
        return Err(format!(
            "the peer CTA (rank {peer}) has no tensor memory (no tcgen05.alloc.cta_group::2 \
             of the pair)"
        ));
    };
    Ok(if rank & 1 == 0 {
        ([tm, ptm], [rank, peer])
    } else {
        ([ptm, tm], [peer, rank])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocation: powers of two from 32 to 512, aligned first fit, exact dealloc, the
    /// permit.
    #[test]
    fn allocator() {
        let t = TensorMemory::default();
        assert!(t.alloc(16).is_err());
        assert!(t.alloc(48).is_err());
        assert!(t.alloc(1024).is_err());
        assert_eq!(t.alloc(32), Ok(0));
        assert_eq!(t.alloc(64), Ok(64));
        assert_eq!(t.alloc(32), Ok(32));
        assert_eq!(t.alloc(256), Ok(256));
        assert!(t.alloc(256).is_err());
        assert!(t.check(0, 128, 64, 64).is_ok());
        assert!(t.check(0, 128, 60, 8).is_err(), "spans two allocations");
        assert!(t.check(0, 129, 0, 1).is_err());
        assert!(t.dealloc(64, 32).is_err(), "not the allocation's size");
        assert!(t.dealloc(1 << 16 | 64, 64).is_err(), "lane field set");
        assert_eq!(t.dealloc(64, 64), Ok(()));
        assert_eq!(t.alloc(64), Ok(64));
        t.relinquish();
        assert!(t.alloc(32).is_err());
        t.reset();
        assert_eq!(t.alloc(512), Ok(0));
    }
}
