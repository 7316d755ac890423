//! Thread block clusters (PTX ISA §2.2.2 "Cluster of Cooperative Thread Arrays", §5.1.5
//! "Shared State Space", §9.7.13.2 `barrier.cluster`, §9.7.9.23 `mapa`, §9.7.9.24
//! `getctarank`): how the CTAs of a cluster run together, the cluster barrier, and
//! distributed shared memory.
//!
//! # Execution
//! The CTAs of a cluster are co-resident: one worker of the CTA scheduler holds all their
//! states and takes turns at them (`launch::run_grid`), each turn running one CTA until it
//! ends or its lanes yield in a loop that waits (`lower::yields`; `barrier.cluster.wait` is
//! such a loop). So one host thread runs the whole cluster, one warp at a time, and an
//! access to another CTA's shared memory never races with that CTA on the host.
//!
//! # `.shared::cluster` addresses
//! ⚠ The ISA says only that `mapa` gives an address in the target CTA's shared memory and
//! that the executing CTA's `.shared::cta` window lies inside the `.shared::cluster` window.
//! ptxjit's encoding (32 bits, so the `.u32` forms hold it):
//! ```text
//! 0 .. shared_size                         the executing CTA's shared memory (.shared::cta)
//! CLUSTER_BIT | rank << 24 | offset        offset (< 16 MiB) in the shared memory of CTA `rank`
//! ```
//! `mapa` always gives the second form (also for the executing CTA's own rank); both forms
//! are valid `.shared::cluster` addresses, and generic addresses add `SHARED_WINDOW` to
//! either (`cvta`, `isspacep.shared` follow). Every access through a shared-space address
//! ([`translate`]) resolves the second form to the target CTA (an `ld.shared::cta` of it
//! works too, where the ISA leaves it undefined); an offset past the target's shared memory
//! or a rank outside the cluster faults like any out-of-range shared access, and `mapa` /
//! `getctarank` of such an address fault ([`FaultKind::Cluster`]).
//!
//! Sanitizers: initcheck tracks every CTA's shared memory, whoever writes it; racecheck
//! tracks the accesses of a CTA's threads to its own shared memory (an own-rank
//! `.shared::cluster` address included), not those to other CTAs' shared memory; for it the
//! cluster barrier orders a CTA's threads like a CTA barrier.
//!
//! # The barrier
//! `barrier.cluster.arrive` marks the thread arrived in the current phase;
//! `barrier.cluster.wait` waits until that phase completes, which happens once every thread
//! of the cluster has arrived or exited (`exit` does not hold the barrier up, as for
//! `bar.sync`). Arriving twice in a phase, or waiting without an arrive before it, faults.
//! A cluster in which every thread that has not exited waits (at the cluster barrier or at
//! a CTA barrier that needs a thread waiting at the cluster barrier) with at least one at
//! the cluster barrier is deadlocked: the launch stops with a report, like `bar.sync`'s.

use super::env::{CtaEnv, FaultKind};
use super::warp::{lanes, WarpDesc};
use crate::analysis::schedule::{WarpLayout, EXITED_OFF, LIVE_OFF, WSYNC_WAIT_OFF};
use crate::ir::{ClusterBarOp, Space};
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

/// The bit that marks a `.shared::cluster` address of a CTA named by rank.
pub const CLUSTER_BIT: u64 = 1 << 31;
/// The rank's position in such an address.
pub const RANK_SHIFT: u32 = 24;
/// Shared memory a CTA of a cluster may have (the offset field's range, 16 MiB).
pub const MAX_CLUSTER_SHARED: u64 = 1 << RANK_SHIFT;
/// The most CTAs a cluster may have (CUDA's non-portable limit on sm_90).
pub const MAX_CLUSTER_CTAS: u32 = 16;
/// The most CTAs a cluster may have without CUDA's non-portable opt-in.
pub const PORTABLE_CLUSTER_CTAS: u32 = 8;

/// The racecheck object key of the cluster barrier (no shared offset is this large).
const RACE_KEY: u64 = u64::MAX - 1;

/// A launch's cluster shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterShape {
    /// CTAs per cluster along x, y, z (each divides the grid's dimension).
    pub dims: [u32; 3],
    /// Whether the launch (or the kernel's `.reqnctapercluster`) gave the shape
    /// (`%is_explicit_cluster`); a launch without one runs clusters of one CTA.
    pub explicit: bool,
}

impl Default for ClusterShape {
    fn default() -> ClusterShape {
        ClusterShape {
            dims: [1, 1, 1],
            explicit: false,
        }
    }
}

impl ClusterShape {
    /// CTAs per cluster.
    pub fn size(&self) -> u32 {
        self.dims.iter().product()
    }
}

/// The state of one cluster while its CTAs run, shared by them (through [`CtaEnv::cluster`]).
/// Only the host thread that runs the cluster touches it; atomics keep that sound.
#[derive(Default)]
pub struct ClusterState {
    /// Host pointer of each CTA's shared memory, by rank.
    shared: Vec<*mut u8>,
    /// racecheck's state of each CTA, by rank (null when the tool is off).
    races: Vec<*const super::race::RaceCta>,
    /// initcheck's shadow of each CTA's shared memory, by rank (null when the tool is off).
    inits: Vec<*const AtomicU8>,
    /// Threads per CTA.
    threads: u32,
    /// The barrier's current phase.
    phase: AtomicU32,
    /// Threads arrived in the current phase.
    arrived: AtomicU32,
    /// Per thread (rank * threads + thread): 0, or 1 + the phase it arrived in, until its
    /// wait returns.
    token: Vec<AtomicU32>,
    /// Per thread: 1 while its last wait test found the phase incomplete.
    waiting: Vec<AtomicU8>,
    /// Per rank: exited threads that have not arrived in the current phase (as of the
    /// CTA's last turn).
    exited_unarrived: Vec<AtomicU32>,
    /// Per rank: threads neither exited nor waiting at a barrier (as of the CTA's last
    /// turn; all of them before its first).
    running: Vec<AtomicU32>,
    /// Whether a thread has arrived on the barrier (until then the scheduler skips it).
    used: std::sync::atomic::AtomicBool,
    /// The CTA pairs' `tcgen05` `.cta_group::2` state (`runtime::tcgen05`): each CTA's
    /// tensor memory and the pairs' pending `alloc`/`dealloc`.
    pub(super) pairs: std::sync::Mutex<super::tcgen05::Pairs>,
}

// SAFETY: the raw pointers target the CTAs' shared memory and racecheck states, which the
// worker that owns the cluster keeps alive while it runs the cluster, on its own thread.
unsafe impl Send for ClusterState {}
// SAFETY: as above; the state is read and written on the cluster's host thread only.
unsafe impl Sync for ClusterState {}

impl ClusterState {
    /// Start a cluster whose CTAs (by rank) have their shared memory at `shared` and their
    /// racecheck states at `races` (null: off), `threads` threads each. The state's buffers
    /// are reused (no allocation once a worker has run a cluster of this shape), and the
    /// per-thread barrier records are cleared only when the previous cluster used the barrier
    /// (only `barrier.cluster.arrive` and the waits after it write them).
    pub fn reset(
        &mut self,
        shared: &[*mut u8],
        races: &[*const super::race::RaceCta],
        inits: &[*const AtomicU8],
        threads: u32,
    ) {
        let n = shared.len();
        self.pairs
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .reset(n);
        // A cluster whose threads never arrived on the barrier changed nothing since the
        // last reset (only `barrier.cluster.arrive` sets `used`, and every other write
        // follows an arrival): a next cluster of the same CTAs' buffers needs no reset.
        if !*self.used.get_mut()
            && self.threads == threads
            && self.shared == shared
            && self.races == races
            && self.inits == inits
        {
            return;
        }
        let total = n * threads as usize;
        self.shared.clear();
        self.shared.extend_from_slice(shared);
        self.races.clear();
        self.races.extend_from_slice(races);
        self.inits.clear();
        self.inits.extend_from_slice(inits);
        self.threads = threads;
        self.phase = AtomicU32::new(0);
        let used = std::mem::take(self.used.get_mut());
        self.arrived = AtomicU32::new(0);
        if used || self.token.len() != total || self.waiting.len() != total {
            self.token.clear();
            self.token.resize_with(total, Default::default);
            self.waiting.clear();
            self.waiting.resize_with(total, Default::default);
        }
        self.exited_unarrived.clear();
        self.exited_unarrived.resize_with(n, Default::default);
        self.running.clear();
        self.running
            .resize_with(n, || AtomicU32::new(threads.max(1)));
    }

    /// Whether a thread has arrived on the cluster barrier since the last [`Self::reset`].
    pub fn used(&self) -> bool {
        self.used.load(Ordering::Relaxed)
    }

    fn total(&self) -> u32 {
        self.shared.len() as u32 * self.threads
    }

    /// Complete the phase if every thread has arrived or exited.
    fn try_complete(&self) -> bool {
        let exited: u32 = self
            .exited_unarrived
            .iter()
            .map(|e| e.load(Ordering::Relaxed))
            .sum();
        let arrived = self.arrived.load(Ordering::Relaxed);
        if arrived == 0 || arrived + exited < self.total() {
            return false;
        }
        let p = self.phase.fetch_add(1, Ordering::Relaxed);
        self.arrived.store(0, Ordering::Relaxed);
        for e in &self.exited_unarrived {
            e.store(0, Ordering::Relaxed);
        }
        // The threads that waited for this phase run again: no CTA counts as stalled until
        // its next turn says so (a CTA whose last turn ended with all its threads waiting
        // here would otherwise look stalled, and the cluster deadlocked, when another CTA
        // waits at the next phase before that CTA's next turn).
        for r in &self.running {
            r.store(self.threads.max(1), Ordering::Relaxed);
        }
        for r in &self.races {
            // SAFETY: null or a CTA's racecheck state, alive while the cluster runs.
            if let Some(r) = unsafe { r.as_ref() } {
                r.mbar_complete(RACE_KEY, p);
            }
        }
        true
    }

    /// After a turn of CTA `rank` (warp states `states`): note which of its threads exited
    /// or wait at a barrier, and complete the phase if that was all it waited for. Returns
    /// whether the cluster is deadlocked at its barrier.
    pub(super) fn note_turn(&self, rank: u32, layout: &WarpLayout, states: &[Vec<u128>]) -> bool {
        let (r, phase) = (rank as usize, self.phase.load(Ordering::Relaxed));
        let (mut exited_unarrived, mut running) = (0u32, 0u32);
        for (w, st) in states.iter().enumerate() {
            let s = super::launch::bytes_ref(st);
            let live = super::warp::rd32(s, LIVE_OFF);
            let exited = super::warp::rd32(s, EXITED_OFF) & live;
            let parked = super::launch::parked_lanes(layout, s);
            let (yielded, _) = super::warp::yielded_lanes(s);
            let synced = super::warp::rd32(s, WSYNC_WAIT_OFF) & !yielded;
            for l in lanes(live) {
                let t = r * self.threads as usize + w * 32 + l as usize;
                let arrived = self
                    .token
                    .get(t)
                    .is_some_and(|k| k.load(Ordering::Relaxed) == phase + 1);
                // (A wait whose phase has completed since its last test is about to
                // return: that thread runs.)
                let at_cluster = arrived
                    && self
                        .waiting
                        .get(t)
                        .is_some_and(|k| k.load(Ordering::Relaxed) != 0);
                if exited & (1 << l) != 0 {
                    exited_unarrived += u32::from(!arrived);
                } else if (parked | synced) & (1 << l) == 0 && !at_cluster {
                    running += 1;
                }
            }
        }
        if let Some(e) = self.exited_unarrived.get(r) {
            e.store(exited_unarrived, Ordering::Relaxed);
        }
        if let Some(e) = self.running.get(r) {
            e.store(running, Ordering::Relaxed);
        }
        if self.try_complete() {
            return false;
        }
        let phase = self.phase.load(Ordering::Relaxed);
        let waiting =
            self.waiting.iter().zip(&self.token).any(|(w, k)| {
                w.load(Ordering::Relaxed) != 0 && k.load(Ordering::Relaxed) == phase + 1
            });
        waiting && self.running.iter().all(|x| x.load(Ordering::Relaxed) == 0)
    }

    /// Host pointer of `size` bytes at `offset` in the shared memory (of `shared_size`
    /// bytes) of the CTA of `rank`, if there is one.
    fn shared_ptr(&self, rank: u64, offset: u64, size: u64, shared_size: u64) -> Option<*mut u8> {
        let base = *self.shared.get(usize::try_from(rank).ok()?)?;
        if offset >= shared_size || shared_size - offset < size {
            return None;
        }
        // SAFETY: offset + size <= shared_size, the CTA's shared memory.
        Some(unsafe { base.add(offset as usize) })
    }
}

/// The rank and offset of shared-space address `addr` of the CTA running `env`: its own
/// shared memory (rank of `env`), or a `.shared::cluster` address naming a rank.
fn split(env: &CtaEnv, addr: u64) -> Option<(u64, u64)> {
    if addr < env.shared_size && addr & CLUSTER_BIT == 0 {
        return Some((u64::from(env.cluster_rank()), addr));
    }
    if addr & !(CLUSTER_BIT | 0x7f << RANK_SHIFT | (MAX_CLUSTER_SHARED - 1)) != 0
        || addr & CLUSTER_BIT == 0
    {
        return None;
    }
    Some(((addr >> RANK_SHIFT) & 0x7f, addr & (MAX_CLUSTER_SHARED - 1)))
}

/// The host pointer of a `size`-byte access at shared-space address `addr` in the form
/// `CLUSTER_BIT | rank << 24 | offset` (see the module docs), or `None` where it names no
/// CTA of the cluster or lies past that CTA's shared memory. (`env::translate` calls this
/// for shared addresses outside the CTA's own shared memory.)
pub fn translate(env: &CtaEnv, addr: u64, size: u64) -> Option<*mut u8> {
    if addr & CLUSTER_BIT == 0 {
        return None;
    }
    let (rank, off) = split(env, addr)?;
    env.cluster_state()?
        .shared_ptr(rank, off, size, env.shared_size)
}

/// initcheck: the shadow (null when the tool is off) and the offset in it of a
/// `.shared::cluster` address of the form `CLUSTER_BIT | rank << 24 | offset`, or `None`
/// where it names no CTA of the cluster.
pub fn init_shadow(env: &CtaEnv, addr: u64) -> Option<(*const AtomicU8, u64)> {
    if addr & CLUSTER_BIT == 0 {
        return None;
    }
    let (rank, off) = split(env, addr)?;
    let shadow = *env
        .cluster_state()?
        .inits
        .get(usize::try_from(rank).ok()?)?;
    Some((shadow, off))
}

/// Execute a `barrier.cluster` step for the lanes of `mask`.
pub(crate) fn exec_barrier(d: &WarpDesc, op: ClusterBarOp, mask: u32, s: &mut [u8], env: &CtaEnv) {
    let Some(c) = env.cluster_state() else {
        for l in lanes(mask) {
            env.fault_detail(l, d.inst, FaultKind::Cluster, "no cluster state".into());
        }
        return;
    };
    let rank = env.cluster_rank() as usize;
    for l in lanes(mask) {
        let t = env.warp * 32 + l;
        let i = rank * c.threads as usize + t as usize;
        let (Some(tok), Some(wait)) = (c.token.get(i), c.waiting.get(i)) else {
            continue;
        };
        let phase = c.phase.load(Ordering::Relaxed);
        match op {
            ClusterBarOp::Arrive => {
                if tok.load(Ordering::Relaxed) == phase + 1 {
                    env.fault_detail(
                        l,
                        d.inst,
                        FaultKind::Cluster,
                        "barrier.cluster.arrive twice in one phase (without \
                         barrier.cluster.wait between)"
                            .into(),
                    );
                    continue;
                }
                tok.store(phase + 1, Ordering::Relaxed);
                c.used.store(true, Ordering::Relaxed);
                c.arrived.fetch_add(1, Ordering::Relaxed);
                env.race_mbar_arrive(l, RACE_KEY, None);
                c.try_complete();
            }
            ClusterBarOp::Wait => {
                let k = tok.load(Ordering::Relaxed);
                if k == 0 {
                    env.fault_detail(
                        l,
                        d.inst,
                        FaultKind::Cluster,
                        "barrier.cluster.wait without barrier.cluster.arrive before it".into(),
                    );
                    d.set(s, 0, l, 1);
                    continue;
                }
                let done = k - 1 != phase;
                if done {
                    tok.store(0, Ordering::Relaxed);
                    env.race_mbar_waited(l, RACE_KEY, k - 1);
                }
                wait.store(u8::from(!done), Ordering::Relaxed);
                d.set(s, 0, l, u64::from(done));
            }
        }
    }
}

/// Execute `mapa` (`map: true`: args address, rank → address) or `getctarank` (args address
/// → rank) for the lanes of `mask`; `generic`: the addresses are generic.
pub(crate) fn exec_map(
    d: &WarpDesc,
    map: bool,
    generic: bool,
    mask: u32,
    s: &mut [u8],
    env: &CtaEnv,
) {
    let n = env.cluster_dims.iter().product::<u32>();
    let name = if map { "mapa" } else { "getctarank" };
    for l in lanes(mask) {
        let a = d.arg(s, 0, l);
        let shared = if generic {
            super::env::is_space(Space::Shared, a)
                .then(|| super::env::cvta(Space::Shared, false, a))
        } else {
            Some(a)
        };
        let Some((rank, off)) = shared.and_then(|x| split(env, x)) else {
            env.fault_detail(
                l,
                d.inst,
                FaultKind::Cluster,
                format!("{name} of {a:#x}, which is no shared address of a CTA of the cluster"),
            );
            continue;
        };
        if rank >= u64::from(n) || off >= env.shared_size {
            env.fault_detail(
                l,
                d.inst,
                FaultKind::Cluster,
                format!(
                    "{name} of {a:#x}: CTA rank {rank}, offset {off:#x}, outside the cluster \
                     of {n} CTAs with {} bytes of shared memory each",
                    env.shared_size
                ),
            );
            continue;
        }
        if !map {
            d.set(s, 0, l, rank);
            continue;
        }
        let target = d.arg(s, 1, l) as u32;
        if target >= n {
            env.fault_detail(
                l,
                d.inst,
                FaultKind::Cluster,
                format!("mapa to CTA rank {target}, outside the cluster of {n} CTAs"),
            );
            continue;
        }
        let out = CLUSTER_BIT | u64::from(target) << RANK_SHIFT | off;
        let out = if generic {
            super::env::cvta(Space::Shared, true, out)
        } else {
            out
        };
        d.set(s, 0, l, out);
    }
}
