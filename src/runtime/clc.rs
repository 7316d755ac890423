//! Cluster launch control (PTX ISA §9.7.13.17, `clusterlaunchcontrol`): a running CTA asks
//! the CTA scheduler to cancel the launch of a cluster that has not started yet, and does
//! that cluster's work itself ("work stealing" of persistent kernels).
//!
//! ## How ptxjit schedules, and when a cancel succeeds
//! The launch hands out its work from one counter, [`LaunchControl::take`]: a grid without
//! clusters hands out CTAs in increasing linear order (`runtime::launch` takes them in batches
//! of consecutive slots), a grid of clusters hands out whole clusters in increasing order.
//! `try_cancel` ([`LaunchControl::claim`]) takes the next slot from the same counter with one
//! atomic read-modify-write, so a claim and a worker's batch never overlap: the canceled
//! cluster is one that no worker has taken, and it is never launched. A request succeeds
//! exactly when some slot is left; once one fails, every later one fails too (the ISA leaves a
//! request after a failed one undefined; ptxjit answers it "not canceled" again). A shuffled
//! schedule maps slots to CTAs through the same seeded permutation as its worker, so the
//! canceled CTA is the one that slot would have run. A cooperative launch has every CTA
//! resident from the start: nothing is left to cancel and every request fails. CTAs a worker
//! has taken in its batch but not started are never canceled (a request may fail on a GPU
//! while such CTAs wait; they run as usual).
//!
//! ## The response
//! The ISA calls the 16-byte response opaque. ptxjit's encoding, as four little-endian 32-bit
//! words (the low `.b64` half holds words 0 and 1):
//!
//! | word | canceled | not canceled |
//! | --- | --- | --- |
//! | 0, 1, 2 | `%ctaid.x`, `.y`, `.z` of the canceled cluster's first CTA | `0xffff_ffff` each |
//! | 3 | 1 | 0 |
//!
//! `query_cancel.is_canceled` tests bit 0 of word 3; `query_cancel.get_first_ctaid` reads
//! words 0 to 2 (undefined in the ISA after a failed request: ptxjit's `0xffff_ffff` makes a
//! kernel that uses it anyway fault on its first indexed access rather than redo CTA 0's work).

use super::env::CtaEnv;
use super::warp::{lanes, WarpDesc};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Bytes of a `try_cancel` response (the tx-count its complete-tx performs).
pub const RESPONSE_BYTES: u32 = 16;

/// A launch's work counter and what a slot of it means (see the module docs).
#[derive(Debug)]
pub struct LaunchControl {
    /// The next slot to hand out; past `units` nothing is left.
    next: AtomicU64,
    /// Slots in all: CTAs, or clusters when `cluster` has more than one CTA.
    units: u64,
    /// The grid, in CTAs along x, y, z.
    grid: [u32; 3],
    /// CTAs per cluster along x, y, z (`[1, 1, 1]` without clusters).
    cluster: [u32; 3],
    /// A shuffled schedule's seed (slots of CTAs only): slot → CTA through
    /// `shuffle::cta_block_order`.
    shuffle: Option<u64>,
    /// Whether a request can cancel anything (false in a cooperative launch).
    cancelable: bool,
    /// The permutation of the last block of slots a claim mapped (shuffled schedules).
    order: Mutex<(u64, Vec<u64>)>,
}

impl LaunchControl {
    /// The control of a launch of `grid` CTAs in clusters of `cluster` CTAs (each dimension
    /// dividing the grid's), with a shuffled schedule's seed; `cancelable` false for a
    /// cooperative launch.
    pub fn new(grid: [u32; 3], cluster: [u32; 3], shuffle: Option<u64>, cancelable: bool) -> Self {
        let cluster = cluster.map(|d| d.max(1));
        let ctas = grid.iter().map(|&g| u64::from(g)).product::<u64>();
        let size = cluster.iter().map(|&d| u64::from(d)).product::<u64>();
        LaunchControl {
            next: AtomicU64::new(0),
            units: ctas / size,
            grid,
            cluster,
            shuffle: shuffle.filter(|_| size == 1),
            cancelable,
            order: Mutex::new((u64::MAX, vec![])),
        }
    }

    /// Slots in all (CTAs, or clusters in a grid of clusters).
    pub fn units(&self) -> u64 {
        self.units
    }

    /// Take `n` consecutive slots for a worker: the first (at or past [`Self::units`] when
    /// nothing is left; the range may reach past it).
    pub fn take(&self, n: u64) -> u64 {
        self.next.fetch_add(n, Ordering::Relaxed)
    }

    /// Take a run of consecutive slots whose length shrinks with what is left ("guided"
    /// self-scheduling): `left / share` slots when `left` are left, no fewer than `min` and no
    /// more than `max` (nor than are left; `min` and `share` count as at least 1, `max` as at
    /// least `min`). Returns the first slot and the run's length; the length is 0 (and the
    /// first at or past [`Self::units`]) when nothing is left. Runs are taken in increasing
    /// order, as [`Self::take`]'s are, and never overlap a claim's slot.
    pub fn take_guided(&self, min: u64, share: u64, max: u64) -> (u64, u64) {
        let (min, share) = (min.max(1), share.max(1));
        let max = max.max(min);
        let mut n = 0;
        let first = self
            .next
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                let left = self.units.saturating_sub(v);
                n = (left / share).clamp(min, max).min(left);
                (n != 0).then_some(v + n)
            });
        match first {
            Ok(v) => (v, n),
            Err(v) => (v, 0),
        }
    }

    /// `try_cancel`: take one slot that no worker took, if any is left, and give the
    /// `%ctaid` of its first CTA. The slot is never launched.
    pub fn claim(&self) -> Option<[u32; 3]> {
        if !self.cancelable {
            return None;
        }
        let units = self.units;
        let slot = self
            .next
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                (v < units).then_some(v + 1)
            })
            .ok()?;
        Some(self.first_ctaid(slot))
    }

    /// The `%ctaid` of the first CTA of slot `slot` (the cluster's CTA of rank 0).
    fn first_ctaid(&self, slot: u64) -> [u32; 3] {
        let [gx, gy, _] = self.grid.map(u64::from);
        let [dx, dy, dz] = self.cluster.map(u64::from);
        if let Some(seed) = self.shuffle {
            let c = self.shuffled(seed, slot);
            return [
                (c % gx) as u32,
                ((c / gx) % gy) as u32,
                (c / (gx * gy)) as u32,
            ];
        }
        let (ngx, ngy) = (gx / dx, gy / dy);
        [
            ((slot % ngx) * dx) as u32,
            (((slot / ngx) % ngy) * dy) as u32,
            ((slot / (ngx * ngy)) * dz) as u32,
        ]
    }

    /// The linear CTA index a shuffled schedule runs in slot `slot`.
    fn shuffled(&self, seed: u64, slot: u64) -> u64 {
        use super::shuffle::{cta_block_order, MAX_SHUFFLED_CTAS};
        let block = slot / MAX_SHUFFLED_CTAS;
        let Ok(mut order) = self.order.lock() else {
            // (A poisoned lock: compute the block afresh.)
            let start = block * MAX_SHUFFLED_CTAS;
            let n = (self.units - start).min(MAX_SHUFFLED_CTAS);
            return cta_block_order(seed, start, n as usize)[(slot % MAX_SHUFFLED_CTAS) as usize];
        };
        if order.0 != block {
            let start = block * MAX_SHUFFLED_CTAS;
            let n = (self.units - start).min(MAX_SHUFFLED_CTAS);
            *order = (block, cta_block_order(seed, start, n as usize));
        }
        order.1[(slot % MAX_SHUFFLED_CTAS) as usize]
    }
}

/// The response to a request as (low, high) 64-bit halves: the canceled cluster's first
/// `%ctaid`, or `None` when nothing was canceled (encoding in the module docs).
pub fn response(first: Option<[u32; 3]>) -> (u64, u64) {
    let ([x, y, z], w3) = match first {
        Some(id) => (id, 1u64),
        None => ([u32::MAX; 3], 0),
    };
    (u64::from(x) | u64::from(y) << 32, u64::from(z) | w3 << 32)
}

/// `clc.try_cancel` for the lanes of `mask`, in lane order: each makes one request and gets
/// its response in results 0 (low half) and 1 (high half).
pub(crate) fn exec(d: &WarpDesc, mask: u32, s: &mut [u8], env: &CtaEnv) {
    for l in lanes(mask) {
        let (lo, hi) = response(env.launch_control().and_then(|c| c.claim()));
        d.set(s, 0, l, lo);
        d.set(s, 1, l, hi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every slot goes to exactly one taker, whether workers take batches or requests claim
    /// single slots, from several threads at once.
    #[test]
    fn claims_and_batches_share_out_every_cta_once() {
        let grid = [37, 3, 2];
        let lc = LaunchControl::new(grid, [1, 1, 1], None, true);
        let n = 37 * 3 * 2;
        let seen: Vec<std::sync::atomic::AtomicU32> = (0..n).map(|_| Default::default()).collect();
        let linear = |id: [u32; 3]| (id[0] + 37 * (id[1] + 3 * id[2])) as usize;
        std::thread::scope(|s| {
            for t in 0..4 {
                let (lc, seen) = (&lc, &seen);
                s.spawn(move || loop {
                    if t % 2 == 0 {
                        let c = lc.take(5);
                        if c >= n as u64 {
                            break;
                        }
                        for k in c..(c + 5).min(n as u64) {
                            seen[k as usize].fetch_add(1, Ordering::Relaxed);
                        }
                    } else {
                        match lc.claim() {
                            Some(id) => {
                                seen[linear(id)].fetch_add(1, Ordering::Relaxed);
                            }
                            None => break,
                        }
                    }
                });
            }
        });
        assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        assert_eq!(lc.claim(), None, "a request after the last slot fails");
    }

    /// Guided runs: a quarter of what is left, within 8 and 20 slots, the last one what is
    /// left (lengths worked out by hand: 100/4 capped to 20, 80/4, 60/4, 45/4, 34/4, then the
    /// minimum of 8 until 2 are left).
    #[test]
    fn guided_runs_shrink_with_what_is_left() {
        let lc = LaunchControl::new([100, 1, 1], [1, 1, 1], None, true);
        let runs: Vec<(u64, u64)> = std::iter::from_fn(|| Some(lc.take_guided(8, 4, 20)))
            .take_while(|&(_, n)| n != 0)
            .collect();
        let lens: Vec<u64> = runs.iter().map(|r| r.1).collect();
        assert_eq!(lens, [20, 20, 15, 11, 8, 8, 8, 8, 2]);
        let firsts: Vec<u64> = runs.iter().map(|r| r.0).collect();
        assert_eq!(firsts, [0, 20, 40, 55, 66, 74, 82, 90, 98]);
        assert_eq!(lc.take_guided(8, 4, 20).1, 0, "nothing is left");
        assert_eq!(lc.claim(), None);
        // One slot: one run of it, whatever the minimum.
        let one = LaunchControl::new([1, 1, 1], [1, 1, 1], None, true);
        assert_eq!(one.take_guided(32, 4, 512), (0, 1));
        assert_eq!(one.take_guided(32, 4, 512).1, 0);
    }

    /// Guided runs and claims from several threads at once share out every slot once.
    #[test]
    fn guided_runs_and_claims_share_out_every_slot_once() {
        let n = 10_007u64;
        let lc = LaunchControl::new([n as u32, 1, 1], [1, 1, 1], None, true);
        let seen: Vec<std::sync::atomic::AtomicU32> = (0..n).map(|_| Default::default()).collect();
        std::thread::scope(|s| {
            for t in 0..4 {
                let (lc, seen) = (&lc, &seen);
                s.spawn(move || loop {
                    if t < 3 {
                        let (first, len) = lc.take_guided(3, 8, 700);
                        if len == 0 {
                            break;
                        }
                        for k in first..first + len {
                            seen[k as usize].fetch_add(1, Ordering::Relaxed);
                        }
                    } else {
                        match lc.claim() {
                            Some(id) => {
                                seen[id[0] as usize].fetch_add(1, Ordering::Relaxed);
                            }
                            None => break,
                        }
                    }
                });
            }
        });
        assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    }

    /// A grid of 2x2 clusters: a claim names each cluster's rank-0 CTA, x fastest.
    #[test]
    fn cluster_claims_name_first_ctas() {
        let lc = LaunchControl::new([4, 4, 2], [2, 2, 1], None, true);
        assert_eq!(lc.units(), 8);
        let got: Vec<[u32; 3]> = std::iter::from_fn(|| lc.claim()).collect();
        let want: Vec<[u32; 3]> = (0..2)
            .flat_map(|z| (0..2).flat_map(move |y| (0..2).map(move |x| [2 * x, 2 * y, z])))
            .collect();
        assert_eq!(got, want);
    }

    /// A shuffled schedule cancels the CTA its worker would have run in that slot: every CTA
    /// once, in the permuted order.
    #[test]
    fn shuffled_claims_follow_the_permutation() {
        let lc = LaunchControl::new([10, 1, 1], [1, 1, 1], Some(7), true);
        let want = super::super::shuffle::cta_block_order(7, 0, 10);
        let got: Vec<u64> = std::iter::from_fn(|| lc.claim())
            .map(|id| u64::from(id[0]))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn cooperative_requests_fail_and_responses_encode() {
        let lc = LaunchControl::new([4, 1, 1], [1, 1, 1], None, false);
        assert_eq!(lc.claim(), None);
        assert_eq!(lc.take(1), 0);
        // Words 0..3 little-endian: x, y, z, canceled.
        assert_eq!(response(Some([5, 6, 7])), (5 | 6 << 32, 7 | 1 << 32));
        assert_eq!(response(None), (u64::MAX, 0xffff_ffff));
    }
}
