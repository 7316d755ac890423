//! racecheck: data races on shared memory (and, as an option, global memory) between the
//! threads of a CTA.
//!
//! ⚠ Model banner. Two accesses to the same shared byte race when they come from different
//! threads of one CTA, at least one is a plain write (an atomic races with a plain write, not
//! with another atomic nor with a plain read: reading a value other threads update atomically
//! is how CUDA's `atomicCAS` loops start, and how counters are polled), and neither is
//! ordered before the other by a synchronization between them. What orders accesses here:
//! - a CTA barrier (`bar.sync`/`barrier.sync`, named barriers with a thread count, `bar.red`)
//!   that completes: the accesses of every warp taking part before it are ordered before the
//!   accesses of every warp that *waited* at it after it (a warp that only `bar.arrive`d gives
//!   its earlier accesses to the waiters but learns nothing). Barriers complete per whole warp
//!   (`launch::complete_barriers`), so the clocks are per warp: `bar_epoch[w]` counts the
//!   barriers warp `w` took part in, and `bvc[w][v]` is the epoch of warp `v` that warp `w`
//!   has synchronized with (a vector clock per warp). An access of warp `v` at epoch `e` is
//!   ordered before the current access of warp `w` iff `e < bvc[w][v]`;
//! - a warp-level synchronization (`bar.warp.sync`, and the `.sync` collectives `shfl`,
//!   `vote`, `match`, `redux`, which wait on their membermask: `Op::WarpSync`), among the
//!   lanes of the warp that take part (the non-exited lanes of the membermask): a vector
//!   clock per lane over the lanes of its warp (`lane_epoch`, `lvc`), the same rule;
//! - an `mbarrier` phase (`cuda::barrier`, `cuda::pipeline`): the accesses of every warp that
//!   arrived on the object (`arrive`, `arrive_drop`, `complete_tx`,
//!   `cp.async.mbarrier.arrive`) before the phase completed are ordered before the accesses
//!   of a warp after its successful `test_wait`/`try_wait` on that phase
//!   ([`RaceCta::mbar_arrive`], [`RaceCta::mbar_waited`]): an arrival ticks the warp's
//!   barrier epoch and joins its clock into the object's phase, a completion keeps that join
//!   per phase parity, a successful wait joins it into the waiting warp's clock. Per warp,
//!   like barriers: an arrival orders the earlier accesses of all lanes of its warp, a wait
//!   teaches all of them (missed races among those lanes, never false ones);
//! - a release and an acquire of one location (PTX ISA §8, release and acquire patterns;
//!   [`MemSync`]): `st.release`, `red`/`atom` `.release`/`.acq_rel` publish their warp's
//!   accesses so far on the location they write ([`RaceState::sync`], a barrier vector clock
//!   per location, `bvc`'s shape: the release ticks the warp's barrier epoch and joins its
//!   clock into the location's), and `ld.acquire`, `atom` `.acquire`/`.acq_rel` of the
//!   location teach the acquiring warp what was published there. This is how multi-warp
//!   cooperative-groups tiles synchronize (`thread_block_tile<64>::sync()`: one lane per
//!   warp arrives with `atom.or.acq_rel` on a word of scratch, the last resets it, the others
//!   spin on `ld.acquire`; `bar.warp.sync` hands the order to the other lanes; the word lies
//!   in the CTA's reserved shared memory, whose bytes are not checked, [`RaceCta::sync_only`]). The location
//!   keeps everything published on it for the rest of the CTA (a later relaxed write does not
//!   end what it released: a missed race, never a false one); like the mbarrier, a release
//!   gives the accesses of all lanes of its warp and an acquire teaches all of them, and a
//!   release does not order the lanes of its own warp among themselves. Weak, `.relaxed`
//!   and `.volatile` accesses publish and learn nothing of their own;
//! - fences (PTX ISA §8: release and acquire patterns, Fence-SC order; `fence`/`membar`
//!   §9.7.13.4). A fence (`fence.sc`, `fence.acq_rel`, `fence.release`, `membar`,
//!   `__threadfence()`) followed in program order by a strong write of a location
//!   (`.relaxed`, `.volatile`: [`MemSync::Relaxed`]; an atomic) is a release pattern: the
//!   write publishes on the location, as a release does, the accesses its warp made before
//!   the fence. A strong read of a location followed by a fence (`fence.sc`,
//!   `fence.acq_rel`, `fence.acquire`) is an acquire pattern: the accesses after the fence
//!   learn what was published there by the time of the read. And `fence.sc` (`membar`,
//!   `__threadfence()`) fences are totally ordered: each synchronizes with every later one
//!   (in this execution's order) of the CTA, without a flag (`sc`, a clock joined by each SC
//!   fence's release and learned by each one's acquire). Fences call no race hook of either
//!   engine, so where they stand is found before the launch ([`fence_marks`]): for each
//!   pair of accesses a thread can make one after the other, the fences every path between
//!   them passes. At a thread's access, its previous access names the pair, and the fences
//!   between take effect: the release half (a tick of the warp's barrier epoch, kept per
//!   thread as the epoch its release patterns publish, `fence_epoch`; for `fence.sc` a join
//!   into `sc`) unless made already, then the acquire half (the strong reads' gleanings,
//!   `pending`; for `fence.sc` the `sc` clock, joined into the warp's clock). The release
//!   half is made right after the access before the fences when every way on passes them,
//!   up to the thread's exit (a thread that fences and exits: `data = x;
//!   __threadfence_block();`). No access comes between a fence and either point, so these
//!   are the fence's own effects. A release pattern's write publishes what its warp learned
//!   by the write rather than by the fence (a missed race at most), and a fence taken on
//!   some paths between two accesses only is not seen (a false report at most; such code
//!   is rare). `fence.mbarrier_init` and the proxy fences order nothing here;
//! - morally strong accesses (PTX ISA §8, "Data race": two strong accesses of threads in
//!   each other's scope do not race): two strong accesses of the same bytes do not race when
//!   one of them synchronizes (a release or acquire, an atomic, the write of a release
//!   pattern): the flag of a handover. Strong accesses that synchronize nothing still race
//!   with each other (a legacy warp-synchronous reduction through a `volatile` array, which
//!   compute-sanitizer reports too); partial overlaps count as complete (a missed race);
//! - program order within one thread.
//!
//! **Lanes of the same warp** are checked like any two threads: on sm_70 and later
//! (independent thread scheduling) lanes of a warp are not ordered between warp-synchronous
//! points (ptxjit runs them group by group there, `analysis::segment`), so legacy
//! warp-synchronous code (a `volatile` shared array read by its neighbour lane without
//! `__syncwarp`) is a real bug, and compute-sanitizer reports it as a hazard too. The same
//! holds under lockstep order (older targets, `--lockstep`), where ptxjit's answer is the
//! lockstep one: the race is still reported, as the code is not portable.
//!
//! **Global memory** (an option, [`RaceSink::with_global`]): the same rules between threads of
//! one CTA, over a shadow of the global bytes the CTA touched ([`RaceCta::access_global`], by
//! page of [`PAGE`] bytes). A barrier that every warp of the CTA waited at orders everything
//! before it before everything after, so the shadow is emptied there (which bounds it to one
//! barrier interval), and bytes a device `malloc` returns start afresh (the heap orders their
//! earlier life before the new one). Races between CTAs are not checked (each CTA has its
//! own shadow; CTAs may run at once on several host threads).
//!
//! What is not checked: local and const memory; races between CTAs; accesses made by
//! `ldmatrix`/`mma`-family and texture/surface units (they do not go through the checked
//! access path; a `cp.async` copy is a write of its thread when it executes). A `bar.arrive` orders the arriving warp's earlier accesses only once
//! the barrier completes, so accesses it makes between its arrival and the completion count
//! as before the barrier (a missed race, never a false one).
//!
//! Shadow state: one [`Cell`] per shared byte: the last write (thread, instruction, both
//! epochs, whether atomic) and up to two reads since it. A read replaces a read of the same
//! thread or one ordered before it (a later write that is ordered after the new read is
//! ordered after the old one too); two concurrent reads are both kept, and a third replaces
//! the second (a missed race, never a false one). A write checks the last write and the reads,
//! then clears the reads. Every cell carries the CTA generation it was written in, so a new
//! CTA starts with an empty shadow without clearing it.
//!
//! Concurrency: a CTA runs on one host thread at a time (its warps one after the other), so
//! its [`RaceCta`] is used by one thread at a time; the launch's [`RaceSink`] is shared.

use crate::ir::{MemSync, Space};
use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::sync::Mutex;

/// Bytes of global memory per page of the global shadow.
const PAGE: usize = 64;

/// How an access touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Read,
    Write,
    /// An atomic read-modify-write (`atom`, `red`): races with plain writes only.
    Atomic,
}

impl AccessKind {
    /// `Read`, `Write`, `Atomic` (compute-sanitizer's words).
    pub fn name(self) -> &'static str {
        match self {
            AccessKind::Read => "Read",
            AccessKind::Write => "Write",
            AccessKind::Atomic => "Atomic",
        }
    }
}

/// One side of a race: who accessed, where in the kernel, how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RaceAccess {
    /// Linear thread index in the CTA.
    pub thread: u32,
    /// IR instruction index (mapped to PTX line and text by the host).
    pub inst: u32,
    pub kind: AccessKind,
}

/// A race found in a launch: the earlier and the later access of the first pair found (lowest
/// CTA, then first in that CTA's execution), and how many hazards of the same pair of
/// instructions and kinds the launch had (one per racing access and earlier access, each byte
/// range counted once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceFinding {
    pub first: RaceAccess,
    pub second: RaceAccess,
    /// Shared or global memory.
    pub space: Space,
    /// The first racing byte: its shared-memory offset, or its global address.
    pub offset: u64,
    /// Bytes of the later access.
    pub size: u32,
    pub ctaid: [u32; 3],
    pub count: u64,
}

/// The races of a launch, one entry per pair of instructions and access kinds.
#[derive(Debug, Default)]
pub struct RaceSink {
    found: Mutex<HashMap<(RaceAccessKey, RaceAccessKey), (u64, RaceFinding)>>,
    /// Check global memory too ([`RaceSink::with_global`]).
    global: bool,
    /// The memory-order qualifier of each IR instruction ([`RaceSink::with_sync`]).
    sync: Vec<MemSync>,
    /// Where the kernel's fences stand between its accesses ([`RaceSink::with_fences`]).
    fences: FenceMarks,
}

/// The instruction and kind of an access (what makes two hazards the same error).
type RaceAccessKey = (u32, AccessKind);

impl RaceSink {
    /// A sink for a launch that checks global memory as well as shared memory (races between
    /// threads of one CTA, as on shared memory; [`RaceCta::access_global`]) when `global`.
    pub fn with_global(global: bool) -> RaceSink {
        RaceSink {
            global,
            ..RaceSink::default()
        }
    }

    /// The sink with the memory-order qualifier of each IR instruction of the kernel
    /// (`ir::Function::inst_sync`, indexed by instruction): the releases and acquires that
    /// order accesses (an instruction beyond it orders nothing).
    pub fn with_sync(self, sync: Vec<MemSync>) -> RaceSink {
        RaceSink { sync, ..self }
    }

    /// The sink with where the kernel's fences stand between its accesses ([`fence_marks`];
    /// without them, fences order nothing).
    pub fn with_fences(self, fences: FenceMarks) -> RaceSink {
        RaceSink { fences, ..self }
    }

    /// The memory-order qualifier of instruction `inst`.
    fn sync_of(&self, inst: u32) -> MemSync {
        self.sync.get(inst as usize).copied().unwrap_or_default()
    }

    /// Whether the launch checks global memory too.
    pub fn global(&self) -> bool {
        self.global
    }

    fn record(&self, cta: u64, f: RaceFinding) {
        let Ok(mut m) = self.found.lock() else {
            return;
        };
        let key = ((f.first.inst, f.first.kind), (f.second.inst, f.second.kind));
        match m.get_mut(&key) {
            Some((c, old)) => {
                old.count += 1;
                // The report shows the lowest CTA's first hazard, whichever worker ran first.
                if cta < *c {
                    let count = old.count;
                    *old = RaceFinding { count, ..f };
                    *c = cta;
                }
            }
            None => {
                m.insert(key, (cta, RaceFinding { count: 1, ..f }));
            }
        }
    }

    /// The races found, in a fixed order (by the later access's instruction, then the
    /// earlier's).
    pub fn take(&self) -> Vec<RaceFinding> {
        let Ok(mut m) = self.found.lock() else {
            return vec![];
        };
        let mut v: Vec<RaceFinding> = m.drain().map(|(_, (_, f))| f).collect();
        v.sort_by_key(|f| {
            (
                f.second.inst,
                f.first.inst,
                f.second.kind.name(),
                f.first.kind.name(),
            )
        });
        v
    }
}

/// An access in the shadow: generation (0: none), thread, instruction, barrier and lane
/// epochs, and whether it is strong and synchronizes ([`STRONG`], [`SYNCS`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Acc {
    gen: u32,
    thread: u32,
    inst: u32,
    be: u32,
    le: u32,
    flags: u8,
}

/// [`Acc::flags`]: a strong access (`.relaxed`, `.volatile`, `.mmio`, an atomic, a release
/// or an acquire).
const STRONG: u8 = 1;
/// [`Acc::flags`]: a strong access that synchronizes (a release, an acquire, an atomic, the
/// write of a release pattern).
const SYNCS: u8 = 2;

/// Whether two accesses are morally strong and one of them synchronizes: no race between
/// them (see the module banner).
fn exempt(a: u8, b: u8) -> bool {
    a & b & STRONG != 0 && (a | b) & SYNCS != 0
}

/// The shadow of one shared byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Cell {
    w: Acc,
    w_atomic: bool,
    r: [Acc; 2],
}

/// What the arrivals on one mbarrier object released, as barrier vector clocks over the
/// warps (the join of the arriving warps' clocks, `bvc`'s shape): of the current phase so far,
/// and of the last completed phase of each parity.
#[derive(Debug, Default)]
struct MbarClocks {
    current: Vec<u32>,
    done: [Vec<u32>; 2],
}

/// The race-detection state of one CTA (reused for the CTAs a worker runs).
#[derive(Debug, Default)]
pub struct RaceCta {
    s: UnsafeCell<RaceState>,
}

#[derive(Debug, Default)]
struct RaceState {
    /// This CTA's generation (cells of others are empty).
    gen: u32,
    cells: Vec<Cell>,
    /// The global bytes this CTA touched since its last barrier that every warp waited at
    /// (before it, everything is ordered before everything after), by page of [`PAGE`].
    global: HashMap<u64, Box<[Cell; PAGE]>>,
    /// mbarrier objects by shared offset: what their arrivals released (see
    /// [`RaceCta::mbar_arrive`]).
    mbar: HashMap<u64, MbarClocks>,
    /// What releases published on each location (shared offset, or global address), as a
    /// barrier vector clock over the warps (`bvc`'s shape).
    sync: HashMap<(Space, u64), Vec<u32>>,
    nwarps: usize,
    /// Per warp: barriers taken part in (and releases made, [`RaceState::synchronize`]).
    bar_epoch: Vec<u32>,
    /// Per warp: its barrier epoch after the last synchronization that ordered all its lanes
    /// (a CTA barrier, an mbarrier arrival; not a release, which one lane makes): the
    /// accesses of its lanes in earlier epochs are ordered before those of all its lanes.
    lanes_epoch: Vec<u32>,
    /// `nwarps × nwarps`: `bvc[w * nwarps + v]`, the epoch of warp `v` warp `w` has seen.
    bvc: Vec<u32>,
    /// Per thread: warp-level synchronizations taken part in.
    lane_epoch: Vec<u32>,
    /// `threads × 32`: `lvc[t * 32 + l]`, the lane epoch of lane `l` of `t`'s warp `t` has seen.
    lvc: Vec<u32>,
    /// Per thread: the barrier epoch of its warp at its last fence that releases (0: none
    /// yet), which the writes of its release patterns publish.
    fence_epoch: Vec<u32>,
    /// Per thread: whether a releasing fence came before its current access (its strong
    /// writes make release patterns).
    fenced: Vec<bool>,
    /// Per thread: its last access of the fence analysis ([`FenceMarks`]; [`START`]: none).
    last: Vec<u32>,
    /// Per thread that made strong reads since its last acquiring fence: what was published
    /// on the locations read (`bvc`'s shape), learned at the fence.
    pending: HashMap<u32, Vec<u32>>,
    /// What the `fence.sc` fences so far released (`bvc`'s shape): each later one learns it.
    sc: Vec<u32>,
    /// Linear index of the CTA in the grid, and its `%ctaid`.
    cta: u64,
    ctaid: [u32; 3],
}

impl RaceState {
    /// Whether `a` is ordered before the current point of thread `t`.
    fn ordered(&self, a: &Acc, t: u32) -> bool {
        if a.thread == t {
            return true;
        }
        let (w, v) = ((t / 32) as usize, (a.thread / 32) as usize);
        if w != v {
            return a.be < self.bvc[w * self.nwarps + v];
        }
        a.be < self.lanes_epoch[w] || a.le < self.lvc[t as usize * 32 + (a.thread % 32) as usize]
    }

    /// Before access `inst` of thread `t`: the fences between its previous access and this
    /// one take effect (the release half unless the previous access made it already).
    fn fences_before(&mut self, marks: &FenceMarks, inst: u32, t: u32) {
        if !marks.is_access(inst) {
            return;
        }
        let prev = self.last[t as usize];
        let f = marks.between(prev, inst);
        if f == Fences::default() {
            return;
        }
        let done = if prev == START {
            Fences::default()
        } else {
            marks.after(prev)
        };
        self.fence_release(Fences(f.0 & !done.0), t);
        self.fence_acquire(f, t);
    }

    /// After access `inst` of thread `t`: the release half of the fences every way on passes
    /// before the next access.
    fn fences_after(&mut self, marks: &FenceMarks, inst: u32, t: u32) {
        if !marks.is_access(inst) {
            return;
        }
        self.fence_release(marks.after(inst), t);
        self.last[t as usize] = inst;
    }

    /// The acquire half of the fences `f` that came right before thread `t`'s current access
    /// ([`fence_marks`]): an acquiring fence teaches the warp what the thread's strong reads
    /// since its last such fence saw published, `fence.sc` what every earlier `fence.sc`
    /// released; after a releasing fence the thread's strong writes make release patterns.
    fn fence_acquire(&mut self, f: Fences, t: u32) {
        let (w, nw) = ((t / 32) as usize, self.nwarps);
        if f.releases() {
            self.fenced[t as usize] = true;
        }
        if f.acquires() {
            if let Some(p) = self.pending.remove(&t) {
                for (v, &e) in p.iter().enumerate().take(nw) {
                    let b = &mut self.bvc[w * nw + v];
                    *b = (*b).max(e);
                }
            }
        }
        if f.sc() {
            for (v, &e) in self.sc.iter().enumerate().take(nw) {
                let b = &mut self.bvc[w * nw + v];
                *b = (*b).max(e);
            }
        }
    }

    /// The release half of the fences `f` that come right after thread `t`'s current access
    /// ([`fence_marks`]): a releasing fence ticks the warp's barrier epoch (the accesses so far
    /// are in earlier epochs) and keeps the new epoch as what the thread's release patterns
    /// publish; `fence.sc` also joins what the warp knows into `sc`.
    fn fence_release(&mut self, f: Fences, t: u32) {
        let (w, nw) = ((t / 32) as usize, self.nwarps);
        if !f.releases() {
            return;
        }
        self.bar_epoch[w] += 1;
        self.fence_epoch[t as usize] = self.bar_epoch[w];
        if f.sc() {
            self.sc.resize(nw, 0);
            for v in 0..nw {
                self.sc[v] = self.sc[v].max(self.bvc[w * nw + v]);
            }
            self.sc[w] = self.sc[w].max(self.bar_epoch[w]);
        }
    }

    /// [`Acc::flags`] of access `kind` of thread `t` with memory order `sync`.
    fn flags(&self, sync: MemSync, t: u32, kind: AccessKind) -> u8 {
        let strong = sync != MemSync::None || kind == AccessKind::Atomic;
        if !strong {
            return 0;
        }
        let pattern = kind != AccessKind::Read && self.fenced[t as usize];
        let syncs = sync.acquires() || sync.releases() || kind == AccessKind::Atomic || pattern;
        STRONG | if syncs { SYNCS } else { 0 }
    }

    /// After access `kind` of thread `t` to the location at `at` in `space`, with memory
    /// order `sync`: an acquiring read or atomic learns what was published there, then a
    /// releasing write or atomic publishes its warp's accesses so far (an `.acq_rel` atomic
    /// does both, in that order, as it reads before it writes). Strong accesses without an
    /// order of their own take part in fences' patterns: a read keeps what was published
    /// there for the thread's next acquiring fence, a write after a releasing fence publishes
    /// what the fence released.
    fn synchronize(&mut self, sync: MemSync, space: Space, at: u64, t: u32, kind: AccessKind) {
        let (w, nw) = ((t / 32) as usize, self.nwarps);
        let (reads, writes) = match kind {
            AccessKind::Read => (true, false),
            AccessKind::Write => (false, true),
            AccessKind::Atomic => (true, true),
        };
        let strong = sync != MemSync::None || kind == AccessKind::Atomic;
        if sync.acquires() && reads {
            if let Some(c) = self.sync.get(&(space, at)) {
                for (v, &e) in c.iter().enumerate().take(nw) {
                    let b = &mut self.bvc[w * nw + v];
                    *b = (*b).max(e);
                }
            }
        } else if strong && reads {
            if let Some(c) = self.sync.get(&(space, at)) {
                let p = self.pending.entry(t).or_default();
                p.resize(nw, 0);
                for (v, &e) in c.iter().enumerate().take(nw) {
                    p[v] = p[v].max(e);
                }
            }
        }
        let fenced = self.fence_epoch[t as usize];
        if sync.releases() && writes {
            self.bar_epoch[w] += 1;
            let c = self.sync.entry((space, at)).or_default();
            c.resize(nw, 0);
            for (v, e) in c.iter_mut().enumerate() {
                *e = (*e).max(self.bvc[w * nw + v]);
            }
            c[w] = c[w].max(self.bar_epoch[w]);
        } else if strong && writes && fenced > 0 {
            let c = self.sync.entry((space, at)).or_default();
            c.resize(nw, 0);
            for (v, e) in c.iter_mut().enumerate() {
                *e = (*e).max(self.bvc[w * nw + v]);
            }
            c[w] = c[w].max(fenced);
        }
    }

    fn now(&self, t: u32, inst: u32, flags: u8) -> Acc {
        Acc {
            gen: self.gen,
            thread: t,
            inst,
            be: self.bar_epoch[(t / 32) as usize],
            le: self.lane_epoch[t as usize],
            flags,
        }
    }

    /// Decide access `a` against the shadows `cells` of consecutive bytes from address (or
    /// shared offset) `first`: report its races into `sink` (one per earlier instruction and
    /// kind, `seen`), and record it in the shadows.
    fn check(&self, sink: &RaceSink, seen: &mut Seen, a: &Access, cells: &mut [Cell], first: u64) {
        let (t, kind) = (a.t, a.kind);
        let now = self.now(t, a.inst, a.flags);
        let mut report = |prev: &Acc, pk: AccessKind, byte: u64| {
            if exempt(prev.flags, a.flags) || !seen.first_time(prev.inst, pk) {
                return;
            }
            sink.record(
                self.cta,
                RaceFinding {
                    first: RaceAccess {
                        thread: prev.thread,
                        inst: prev.inst,
                        kind: pk,
                    },
                    second: RaceAccess {
                        thread: t,
                        inst: a.inst,
                        kind,
                    },
                    space: a.space,
                    offset: byte,
                    size: a.size,
                    ctaid: self.ctaid,
                    count: 1,
                },
            );
        };
        let end = cells.len();
        let mut byte = 0;
        while byte < end {
            // The bytes from here on whose shadow is the same (the usual case: the earlier
            // accesses covered the whole range) get the same verdict and the same new shadow,
            // so they are decided once (a race is reported at the first byte, as a byte-by-byte
            // walk would report it).
            let c = cells[byte];
            let run = byte + 1 + cells[byte + 1..].iter().take_while(|&&d| d == c).count();
            let at = first + byte as u64;
            let w_live = c.w.gen == self.gen;
            let w_kind = if c.w_atomic {
                AccessKind::Atomic
            } else {
                AccessKind::Write
            };
            let new = match kind {
                AccessKind::Read => {
                    if w_live && !c.w_atomic && !self.ordered(&c.w, t) {
                        report(&c.w, w_kind, at);
                    }
                    // Keep the read: replace an empty slot, one of this thread or one ordered
                    // before this read; else the second slot.
                    let slot = (0..2)
                        .find(|&k| {
                            let r = &c.r[k];
                            r.gen != self.gen || r.thread == t || self.ordered(r, t)
                        })
                        .unwrap_or(1);
                    let mut n = c;
                    n.r[slot] = now;
                    n
                }
                AccessKind::Write => {
                    // Two plain writes of the same value (every lane of a warp storing the
                    // warp's reduced value to one word) leave memory the same in either
                    // order: not a hazard, as for compute-sanitizer.
                    let same = a.same_value && !c.w_atomic;
                    if w_live && !same && !self.ordered(&c.w, t) {
                        report(&c.w, w_kind, at);
                    }
                    for r in &c.r {
                        if r.gen == self.gen && !self.ordered(r, t) {
                            report(r, AccessKind::Read, at);
                        }
                    }
                    Cell {
                        w: now,
                        w_atomic: false,
                        r: [Acc::default(); 2],
                    }
                }
                AccessKind::Atomic => {
                    // Only a plain write races with an atomic; the reads stay for the next
                    // plain write.
                    if w_live && !c.w_atomic && !self.ordered(&c.w, t) {
                        report(&c.w, w_kind, at);
                    }
                    let mut n = c;
                    n.w = now;
                    n.w_atomic = true;
                    n
                }
            };
            cells[byte..run].fill(new);
            byte = run;
        }
    }
}

/// The earlier instructions (and kinds) one access has reported a race with (each once).
struct Seen {
    v: [(u32, AccessKind); 4],
    n: usize,
}

impl Default for Seen {
    fn default() -> Seen {
        Seen {
            v: [(u32::MAX, AccessKind::Read); 4],
            n: 0,
        }
    }
}

impl Seen {
    /// Whether `(inst, kind)` is new to this access (then remembered, up to four).
    fn first_time(&mut self, inst: u32, kind: AccessKind) -> bool {
        if self.v[..self.n].contains(&(inst, kind)) {
            return false;
        }
        if self.n < self.v.len() {
            self.v[self.n] = (inst, kind);
            self.n += 1;
        }
        true
    }
}

/// The access being checked.
struct Access {
    space: Space,
    t: u32,
    inst: u32,
    size: u32,
    kind: AccessKind,
    /// A write of the bytes memory already holds ([`RaceCta::access_with`]).
    same_value: bool,
    /// [`Acc::flags`].
    flags: u8,
}

/// Which fences (a set): acquiring, releasing, `fence.sc`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fences(u8);

impl Fences {
    const ACQUIRE: u8 = 1;
    const RELEASE: u8 = 2;
    const SC: u8 = 4;

    /// The fence whose [`crate::ir::Function::inst_sync`] is `sync` (`Op::Fence`'s:
    /// `SeqCst`, `AcqRel`, `Acquire`, `Release`, or `None` for a fence that orders nothing
    /// here).
    pub fn of(sync: MemSync) -> Fences {
        let sc = if sync == MemSync::SeqCst { Self::SC } else { 0 };
        let acq = if sync.acquires() { Self::ACQUIRE } else { 0 };
        let rel = if sync.releases() { Self::RELEASE } else { 0 };
        Fences(sc | acq | rel)
    }

    /// Every fence (the meet's identity).
    const ALL: Fences = Fences(Self::ACQUIRE | Self::RELEASE | Self::SC);

    fn join(self, o: Fences) -> Fences {
        Fences(self.0 | o.0)
    }

    fn meet(self, o: Fences) -> Fences {
        Fences(self.0 & o.0)
    }

    fn acquires(self) -> bool {
        self.0 & Self::ACQUIRE != 0
    }

    fn releases(self) -> bool {
        self.0 & Self::RELEASE != 0
    }

    fn sc(self) -> bool {
        self.0 & Self::SC != 0
    }
}

/// Where a kernel's fences stand between its memory accesses ([`fence_marks`]).
#[derive(Clone, Debug, Default)]
pub struct FenceMarks {
    /// Per IR instruction: whether it is an access of the analysis (`ld`, `st`, `atom`,
    /// `red`), the points between which fences are found.
    access: Vec<bool>,
    /// Per IR instruction: whether some pair of [`FenceMarks::between`] ends there (most
    /// accesses have none, and skip the look-up).
    fenced_into: Vec<bool>,
    /// `(previous access, next access)` → the fences every path from the one to the other
    /// passes, with no access between ([`START`] for the kernel's entry); pairs with none
    /// are left out.
    between: HashMap<(u32, u32), Fences>,
    /// Per access: the fences every path from it to the next access or to the kernel's exit
    /// passes.
    after: Vec<Fences>,
}

/// [`FenceMarks::between`]: the previous access of a thread that has made none.
const START: u32 = u32::MAX;

impl FenceMarks {
    fn is_access(&self, inst: u32) -> bool {
        self.access.get(inst as usize).copied().unwrap_or(false)
    }

    fn between(&self, prev: u32, next: u32) -> Fences {
        if !self
            .fenced_into
            .get(next as usize)
            .copied()
            .unwrap_or(false)
        {
            return Fences::default();
        }
        self.between.get(&(prev, next)).copied().unwrap_or_default()
    }

    fn after(&self, inst: u32) -> Fences {
        self.after.get(inst as usize).copied().unwrap_or_default()
    }
}

/// For each memory access of `f` (`ld`, `st`, `atom`, `red`), which fences come between it
/// and the next access of its thread, whichever path the thread takes: the fences every
/// path from one access to the next passes ([`FenceMarks`]). A thread's previous access and
/// its current one pin down its path better than either alone (a thread that skips the
/// producer's fenced branch does not take its fence), so racecheck makes a fence's effects
/// at the access after it, knowing the one before, or right after the access before it
/// when every way on passes the fence (which covers a fence followed by no access:
/// `data = x; __threadfence();` then the thread exits).
pub fn fence_marks(f: &crate::ir::Function) -> FenceMarks {
    use crate::ir::{Effect, Op};
    let n = f.insts.len();
    let is_access = |i: usize| match (&f.insts[i].op, f.insts[i].op.effect()) {
        (Op::Fence {}, _) => false,
        (_, Effect::Memory) => true,
        // Warp operations that access memory (`cp.async`, `mbarrier`) are checked, but
        // fences are found across them (their accesses count with the next access).
        (_, Effect::Pure | Effect::Warp) => false,
    };
    let access: Vec<bool> = (0..n).map(is_access).collect();
    // Where each instruction stands: its block and its index there.
    let mut pos = vec![(0usize, 0usize); n];
    for (b, bd) in f.blocks.iter().enumerate() {
        for (k, &i) in bd.insts.iter().enumerate() {
            pos[i.index()] = (b, k);
        }
    }
    let mut between: HashMap<(u32, u32), Fences> = HashMap::new();
    let mut after = vec![Fences::default(); n];
    let starts = std::iter::once((START, (f.entry.index(), 0usize))).chain(
        (0..n)
            .filter(|&i| access[i])
            .map(|i| (i as u32, (pos[i].0, pos[i].1 + 1))),
    );
    for (from, (b0, k0)) in starts {
        // Search the access-free ways on from `from`, with the fences passed so far; a
        // block is entered once per set of fences (eight at most).
        let mut seen = std::collections::HashSet::new();
        let mut work = vec![(b0, k0, Fences::default())];
        let mut reached: HashMap<u32, Fences> = HashMap::new();
        let mut exits = Fences::ALL;
        while let Some((b, k, mut now)) = work.pop() {
            let insts = &f.blocks[b].insts;
            let mut stopped = false;
            for &i in &insts[k.min(insts.len())..] {
                if access[i.index()] {
                    let r = reached.entry(i.0).or_insert(now);
                    *r = r.meet(now);
                    stopped = true;
                    break;
                }
                if matches!(f.insts[i.index()].op, Op::Fence {}) {
                    let sync = f.inst_sync.get(i.index()).copied().unwrap_or_default();
                    now = now.join(Fences::of(sync));
                }
            }
            if stopped {
                continue;
            }
            let succs = f.successors(crate::ir::Block(b as u32));
            if succs.is_empty() {
                // The thread exits here, having passed `now`.
                exits = exits.meet(now);
            }
            for succ in succs {
                if seen.insert((succ.index(), now)) {
                    work.push((succ.index(), 0, now));
                }
            }
        }
        if from != START {
            after[from as usize] = reached.values().fold(exits, |a, &r| a.meet(r));
        }
        for (to, r) in reached {
            if r != Fences::default() {
                between.insert((from, to), r);
            }
        }
    }
    let mut fenced_into = vec![false; n];
    for &(_, to) in between.keys() {
        fenced_into[to as usize] = true;
    }
    FenceMarks {
        access,
        fenced_into,
        between,
        after,
    }
}

impl RaceCta {
    /// Start CTA `cta` (linear index, `%ctaid` `ctaid`) of `threads` threads over
    /// `shared_size` bytes of shared memory.
    pub fn start(&mut self, cta: u64, ctaid: [u32; 3], threads: u32, shared_size: u64) {
        let s = self.s.get_mut();
        let nwarps = threads.div_ceil(32) as usize;
        s.gen = s.gen.wrapping_add(1);
        if s.gen == 0 {
            // Wrapped: old cells could look current.
            s.cells.iter_mut().for_each(|c| *c = Cell::default());
            s.gen = 1;
        }
        if s.cells.len() != shared_size as usize {
            s.cells.clear();
            s.cells.resize(shared_size as usize, Cell::default());
        }
        s.global.clear();
        s.mbar.clear();
        s.sync.clear();
        s.nwarps = nwarps;
        s.bar_epoch.clear();
        s.bar_epoch.resize(nwarps, 0);
        s.lanes_epoch.clear();
        s.lanes_epoch.resize(nwarps, 0);
        s.bvc.clear();
        s.bvc.resize(nwarps * nwarps, 0);
        s.lane_epoch.clear();
        s.lane_epoch.resize(nwarps * 32, 0);
        s.lvc.clear();
        s.lvc.resize(nwarps * 32 * 32, 0);
        s.fence_epoch.clear();
        s.fence_epoch.resize(nwarps * 32, 0);
        s.fenced.clear();
        s.fenced.resize(nwarps * 32, false);
        s.last.clear();
        s.last.resize(nwarps * 32, START);
        s.pending.clear();
        s.sc.clear();
        s.cta = cta;
        s.ctaid = ctaid;
    }

    #[allow(clippy::mut_from_ref)]
    fn state(&self) -> &mut RaceState {
        // SAFETY: a CTA runs on one host thread at a time and no caller keeps the reference
        // across calls (see the module banner); every method below takes it once.
        unsafe { &mut *self.s.get() }
    }

    /// An access of `size` bytes at shared offset `off` by thread `t` (linear in the CTA) at
    /// IR instruction `inst`; races are recorded in `sink`.
    pub fn access(
        &self,
        sink: &RaceSink,
        t: u32,
        inst: u32,
        off: u64,
        size: u32,
        kind: AccessKind,
    ) {
        self.access_with(sink, t, inst, off, size, kind, false);
    }

    /// [`access`](Self::access), where `same_value` says that a write stores the bytes
    /// memory already holds there: it does not race with an earlier plain write (whose value
    /// memory holds), only with reads.
    #[allow(clippy::too_many_arguments)]
    pub fn access_with(
        &self,
        sink: &RaceSink,
        t: u32,
        inst: u32,
        off: u64,
        size: u32,
        kind: AccessKind,
        same_value: bool,
    ) {
        let s = self.state();
        if (t / 32) as usize >= s.nwarps {
            return;
        }
        s.fences_before(&sink.fences, inst, t);
        let sync = sink.sync_of(inst);
        let mut cells = std::mem::take(&mut s.cells);
        let end = (off + size as u64).min(cells.len() as u64) as usize;
        let start = (off as usize).min(end);
        let mut seen = Seen::default();
        let a = Access {
            space: Space::Shared,
            t,
            inst,
            size,
            kind,
            same_value,
            flags: s.flags(sync, t, kind),
        };
        s.check(sink, &mut seen, &a, &mut cells[start..end], off);
        s.cells = cells;
        s.synchronize(sync, Space::Shared, off, t, kind);
        s.fences_after(&sink.fences, inst, t);
    }

    /// An access by thread `t` at IR instruction `inst` to shared offset `off` of memory
    /// racecheck does not check (the CTA's reserved region, `env::RESERVED_SMEM_BEGIN`): only
    /// the release or acquire it makes (cooperative groups synchronize multi-warp tiles
    /// there).
    pub fn sync_only(&self, sink: &RaceSink, t: u32, inst: u32, off: u64, kind: AccessKind) {
        let s = self.state();
        if (t / 32) as usize >= s.nwarps {
            return;
        }
        s.fences_before(&sink.fences, inst, t);
        s.synchronize(sink.sync_of(inst), Space::Shared, off, t, kind);
        s.fences_after(&sink.fences, inst, t);
    }

    /// An access of `size` bytes at global address `addr` by thread `t` at IR instruction
    /// `inst` (`--racecheck-global`: races on global memory between threads of this CTA);
    /// races are recorded in `sink`.
    pub fn access_global(
        &self,
        sink: &RaceSink,
        t: u32,
        inst: u32,
        addr: u64,
        size: u32,
        kind: AccessKind,
    ) {
        self.access_global_with(sink, t, inst, addr, size, kind, false);
    }

    /// [`access_global`](Self::access_global) with `same_value` as in
    /// [`access_with`](Self::access_with).
    #[allow(clippy::too_many_arguments)]
    pub fn access_global_with(
        &self,
        sink: &RaceSink,
        t: u32,
        inst: u32,
        addr: u64,
        size: u32,
        kind: AccessKind,
        same_value: bool,
    ) {
        let s = self.state();
        if (t / 32) as usize >= s.nwarps {
            return;
        }
        s.fences_before(&sink.fences, inst, t);
        let sync = sink.sync_of(inst);
        let mut global = std::mem::take(&mut s.global);
        let mut seen = Seen::default();
        let a = Access {
            space: Space::Global,
            t,
            inst,
            size,
            kind,
            same_value,
            flags: s.flags(sync, t, kind),
        };
        let end = addr.saturating_add(size as u64);
        let mut at = addr;
        while at < end {
            let page = at / PAGE as u64;
            let lo = (at % PAGE as u64) as usize;
            let hi = ((end - page * PAGE as u64).min(PAGE as u64)) as usize;
            let cells = global
                .entry(page)
                .or_insert_with(|| Box::new([Cell::default(); PAGE]));
            s.check(sink, &mut seen, &a, &mut cells[lo..hi], at);
            at = page * PAGE as u64 + hi as u64;
        }
        s.global = global;
        s.synchronize(sync, Space::Global, addr, t, kind);
        s.fences_after(&sink.fences, inst, t);
    }

    /// Global bytes `[addr, addr + size)` start a new life (a device `malloc` returned them):
    /// forget what was done to them.
    pub fn forget_global(&self, addr: u64, size: u64) {
        let s = self.state();
        if s.global.is_empty() {
            return;
        }
        let end = addr.saturating_add(size);
        let (first, last) = (addr / PAGE as u64, end.div_ceil(PAGE as u64));
        if last - first > s.global.len() as u64 {
            // A large block: walk the pages the CTA touched instead.
            s.global.retain(|&p, cells| {
                let (lo, hi) = (p * PAGE as u64, (p + 1) * PAGE as u64);
                let (a, b) = (addr.max(lo), end.min(hi));
                if a < b {
                    cells[(a - lo) as usize..(b - lo) as usize].fill(Cell::default());
                }
                true
            });
            return;
        }
        for p in first..last {
            if let Some(cells) = s.global.get_mut(&p) {
                let lo = p * PAGE as u64;
                let (a, b) = (addr.max(lo), end.min(lo + PAGE as u64));
                cells[(a - lo) as usize..(b - lo) as usize].fill(Cell::default());
            }
        }
    }

    /// Thread `t` arrived on the mbarrier object at shared offset `obj` (`mbarrier.arrive`,
    /// `arrive_drop`, `complete_tx`, `cp.async.mbarrier.arrive`); `completed`: the parity of
    /// the phase the arrival completed, if it did. Its warp's accesses so far are released to
    /// the threads that wait for the phase ([`RaceCta::mbar_waited`]): the warp's barrier
    /// epoch ticks, so they are ordered before whatever learns the new epoch, and the
    /// object's current phase joins what the warp knows.
    pub fn mbar_arrive(&self, obj: u64, t: u32, completed: Option<u32>) {
        let s = self.state();
        let (w, nw) = ((t / 32) as usize, s.nwarps);
        if w >= nw {
            return;
        }
        s.bar_epoch[w] += 1;
        s.lanes_epoch[w] = s.bar_epoch[w];
        let m = s.mbar.entry(obj).or_default();
        m.current.resize(nw, 0);
        for (v, c) in m.current.iter_mut().enumerate() {
            *c = (*c).max(s.bvc[w * nw + v]);
        }
        m.current[w] = m.current[w].max(s.bar_epoch[w]);
        if let Some(p) = completed {
            m.done[(p & 1) as usize] = std::mem::take(&mut m.current);
        }
    }

    /// The phase of parity `parity` of the synchronization object `obj` completed without an
    /// arrival of this CTA completing it (the cluster barrier, which another CTA's arrival
    /// or exits complete): what its arrivals released becomes what the phase's waiters learn.
    pub fn mbar_complete(&self, obj: u64, parity: u32) {
        let s = self.state();
        let m = s.mbar.entry(obj).or_default();
        m.done[(parity & 1) as usize] = std::mem::take(&mut m.current);
    }

    /// Thread `t` waited successfully for the completed phase of parity `parity` of the
    /// mbarrier object at shared offset `obj` (`test_wait`/`try_wait` returned true): every
    /// access released by that phase's arrivals is ordered before its warp's accesses from
    /// now on (the whole warp learns it: a missed race between its lanes, never a false one).
    pub fn mbar_waited(&self, obj: u64, t: u32, parity: u32) {
        let s = self.state();
        let (w, nw) = ((t / 32) as usize, s.nwarps);
        let Some(m) = s.mbar.get(&obj) else {
            return;
        };
        if w >= nw {
            return;
        }
        for (v, &c) in m.done[(parity & 1) as usize].iter().enumerate().take(nw) {
            let b = &mut s.bvc[w * nw + v];
            *b = (*b).max(c);
        }
    }

    /// A CTA barrier completed: the warps `(w, waited)` of `parts` took part (`waited`: the
    /// warp waited at it, rather than only arriving).
    pub fn barrier(&self, parts: impl Iterator<Item = (usize, bool)> + Clone) {
        let s = self.state();
        let nw = s.nwarps;
        for (w, _) in parts.clone() {
            if w < nw {
                s.bar_epoch[w] += 1;
                s.lanes_epoch[w] = s.bar_epoch[w];
            }
        }
        let mut join = vec![0u32; nw];
        for (w, _) in parts.clone() {
            if w >= nw {
                continue;
            }
            for (v, j) in join.iter_mut().enumerate() {
                *j = (*j).max(s.bvc[w * nw + v]);
            }
            join[w] = join[w].max(s.bar_epoch[w]);
        }
        // A barrier every warp waited at orders every access before it before every access
        // after it: the global shadow can start afresh (it holds nothing a later access
        // could race with), which bounds it to one barrier interval.
        let mut all = vec![false; nw];
        for (w, waited) in parts.clone() {
            if w < nw && waited {
                all[w] = true;
            }
        }
        if all.iter().all(|&b| b) {
            s.global.clear();
        }
        for (w, waited) in parts {
            if w >= nw || !waited {
                continue;
            }
            for (v, &j) in join.iter().enumerate() {
                let c = &mut s.bvc[w * nw + v];
                *c = (*c).max(j);
            }
        }
    }

    /// The lanes of `lanes` of warp `warp` synchronized with each other (a warp-level
    /// synchronization they all took part in).
    pub fn warp_sync(&self, warp: u32, lanes: u32) {
        let s = self.state();
        if warp as usize >= s.nwarps || lanes.count_ones() < 2 {
            return;
        }
        let base = warp as usize * 32;
        let mut join = [0u32; 32];
        for l in super::warp::lanes(lanes) {
            let t = base + l as usize;
            s.lane_epoch[t] += 1;
            for (k, j) in join.iter_mut().enumerate() {
                *j = (*j).max(s.lvc[t * 32 + k]);
            }
        }
        for l in super::warp::lanes(lanes) {
            join[l as usize] = join[l as usize].max(s.lane_epoch[base + l as usize]);
        }
        for l in super::warp::lanes(lanes) {
            let t = base + l as usize;
            for (k, &j) in join.iter().enumerate() {
                let c = &mut s.lvc[t * 32 + k];
                *c = (*c).max(j);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cta(threads: u32) -> RaceCta {
        let mut c = RaceCta::default();
        c.start(0, [0; 3], threads, 256);
        c
    }

    /// Write by thread 0, read by thread 33 (another warp): a race until a barrier both
    /// waited at; after it, none.
    #[test]
    fn barrier_orders_warps() {
        let sink = RaceSink::default();
        let c = cta(64);
        c.access(&sink, 0, 1, 0, 4, AccessKind::Write);
        c.access(&sink, 33, 2, 0, 4, AccessKind::Read);
        let f = sink.take();
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].first.inst, f[0].second.inst), (1, 2));
        assert_eq!(
            (f[0].first.kind, f[0].second.kind),
            (AccessKind::Write, AccessKind::Read)
        );
        c.barrier([(0, true), (1, true)].into_iter());
        c.access(&sink, 0, 3, 0, 4, AccessKind::Write);
        assert!(
            sink.take().is_empty(),
            "the barrier orders the read before the write"
        );
        c.barrier([(0, true), (1, true)].into_iter());
        c.access(&sink, 33, 4, 0, 4, AccessKind::Read);
        assert!(sink.take().is_empty());
    }

    /// A warp that only arrives gives its earlier accesses to the waiters, not the reverse.
    #[test]
    fn arrive_orders_one_way() {
        let sink = RaceSink::default();
        let c = cta(64);
        c.access(&sink, 0, 1, 0, 4, AccessKind::Write); // producer, warp 0
        c.access(&sink, 40, 2, 8, 4, AccessKind::Read); // consumer, warp 1
        c.barrier([(0, false), (1, true)].into_iter());
        c.access(&sink, 40, 3, 0, 4, AccessKind::Read);
        assert!(sink.take().is_empty());
        c.access(&sink, 0, 4, 8, 4, AccessKind::Write);
        assert_eq!(
            sink.take().len(),
            1,
            "the producer learned nothing from arriving"
        );
    }

    /// Lanes of one warp: racy until a warp-level synchronization of both; atomics do not
    /// race with atomics but do with plain accesses.
    #[test]
    fn lanes_and_atomics() {
        let sink = RaceSink::default();
        let c = cta(32);
        c.access(&sink, 1, 1, 0, 4, AccessKind::Write);
        c.access(&sink, 0, 2, 0, 4, AccessKind::Read);
        assert_eq!(sink.take().len(), 1);
        c.warp_sync(0, 0b11);
        c.access(&sink, 1, 3, 0, 4, AccessKind::Write);
        assert!(sink.take().is_empty());
        c.warp_sync(0, 0b1);
        c.access(&sink, 2, 4, 16, 4, AccessKind::Atomic);
        c.access(&sink, 3, 4, 16, 4, AccessKind::Atomic);
        assert!(sink.take().is_empty(), "atomics do not race with atomics");
        c.access(&sink, 5, 5, 16, 4, AccessKind::Read);
        assert!(
            sink.take().is_empty(),
            "a read of an atomic's value is no race"
        );
        c.access(&sink, 6, 6, 16, 4, AccessKind::Write);
        let f = sink.take();
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(f[0].first.kind, AccessKind::Atomic);
        assert_eq!(f[1].first.kind, AccessKind::Read);
    }

    /// Global memory: the same rules between threads of the CTA, across shadow pages; a
    /// barrier every warp waited at empties the shadow, and a new allocation forgets its bytes.
    #[test]
    fn global_races_barriers_and_fresh_blocks() {
        let sink = RaceSink::with_global(true);
        let c = cta(64);
        let a = 0x1000_0000_0000 + PAGE as u64 - 2; // straddles two shadow pages
        c.access_global(&sink, 0, 1, a, 4, AccessKind::Write);
        c.access_global(&sink, 40, 2, a + 2, 4, AccessKind::Read);
        let f = sink.take();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].space, f[0].offset), (Space::Global, a + 2));
        c.access(&sink, 40, 3, a % 256, 4, AccessKind::Read);
        assert!(sink.take().is_empty(), "shared offsets are another memory");
        c.barrier([(0, false), (1, true)].into_iter());
        assert!(!c.state().global.is_empty(), "warp 0 only arrived");
        c.barrier([(0, true), (1, true)].into_iter());
        assert!(c.state().global.is_empty(), "every warp waited");
        c.access_global(&sink, 0, 4, a, 4, AccessKind::Write);
        c.forget_global(a, 4);
        c.access_global(&sink, 33, 5, a, 4, AccessKind::Write);
        assert!(
            sink.take().is_empty(),
            "malloc'd afresh: no race with its past"
        );
        c.access_global(&sink, 34, 6, a, 4, AccessKind::Read);
        assert_eq!(sink.take().len(), 1);
    }

    /// mbarrier: the accesses of the threads that arrived before a phase completed are
    /// ordered before the accesses after a successful wait on it; nothing else is.
    #[test]
    fn mbarrier_phase_orders_arrivals_before_waits() {
        let sink = RaceSink::default();
        let c = cta(96);
        let obj = 200;
        c.access(&sink, 0, 1, 0, 4, AccessKind::Write); // producer, warp 0
        c.access(&sink, 40, 2, 8, 4, AccessKind::Write); // producer, warp 1
        c.mbar_arrive(obj, 0, None);
        c.mbar_arrive(obj, 40, Some(0)); // completes phase 0
        c.access(&sink, 70, 3, 16, 4, AccessKind::Write); // after the completion, warp 2
        c.mbar_waited(obj, 64, 0); // warp 2 waited for phase 0
        c.access(&sink, 65, 4, 0, 4, AccessKind::Read);
        c.access(&sink, 66, 5, 8, 4, AccessKind::Read);
        assert!(sink.take().is_empty(), "both arrivals precede the wait");
        c.access(&sink, 1, 6, 16, 4, AccessKind::Read);
        assert_eq!(
            sink.take().len(),
            1,
            "warp 0 never waited for warp 2's write"
        );
        c.mbar_waited(obj, 33, 1); // phase 1 has not completed: nothing learned
        c.access(&sink, 34, 7, 16, 4, AccessKind::Write);
        let f = sink.take();
        assert_eq!(f.len(), 2, "{f:?}");
    }

    /// Release/acquire on one location orders the releasing warp's earlier accesses before the
    /// acquiring warp's later ones; a relaxed read of the flag, an acquire before the
    /// release, or lanes of the releasing warp itself are not ordered by it.
    #[test]
    fn release_acquire_orders_warps() {
        use MemSync::{AcqRel, Acquire, None as Weak, Release};
        // Instructions: 1 data store, 2 `red.release` of the flag, 3 `ld.acquire` of it,
        // 4 `ld.relaxed` of it, 5 data load, 6 `atom.acq_rel` of the flag.
        let sync = vec![Weak, Weak, Release, Acquire, Weak, Weak, AcqRel];
        let (data, flag) = (0, 64);
        let run = |flag_read: u32, acquire_first: bool| {
            let sink = RaceSink::default().with_sync(sync.clone());
            let c = cta(64);
            if acquire_first {
                c.access(&sink, 32, flag_read, flag, 4, AccessKind::Read);
            }
            c.access(&sink, 0, 1, data, 4, AccessKind::Write);
            c.access(&sink, 0, 2, flag, 4, AccessKind::Atomic);
            if !acquire_first {
                c.access(&sink, 32, flag_read, flag, 4, AccessKind::Read);
            }
            c.access(&sink, 33, 5, data, 4, AccessKind::Read);
            sink.take()
        };
        assert!(run(3, false).is_empty(), "the acquire observed the release");
        let f = run(4, false);
        assert_eq!(f.len(), 1, "a relaxed read orders nothing: {f:?}");
        assert_eq!((f[0].first.inst, f[0].second.inst), (1, 5));
        assert_eq!(run(3, true).len(), 1, "the acquire came before the release");

        // An acq_rel atomic passes the order on (warp 0 → warp 1 → warp 2).
        let sink = RaceSink::default().with_sync(sync.clone());
        let c = cta(96);
        c.access(&sink, 0, 1, data, 4, AccessKind::Write);
        c.access(&sink, 0, 2, flag, 4, AccessKind::Atomic);
        c.access(&sink, 32, 6, flag, 4, AccessKind::Atomic);
        c.access(&sink, 64, 3, flag, 4, AccessKind::Read);
        c.access(&sink, 65, 5, data, 4, AccessKind::Read);
        assert!(sink.take().is_empty());

        // A release by lane 0 does not order lane 1's store before lane 2's load.
        let sink = RaceSink::default().with_sync(sync);
        let c = cta(64);
        c.access(&sink, 1, 1, data, 4, AccessKind::Write);
        c.access(&sink, 0, 2, flag, 4, AccessKind::Atomic);
        c.access(&sink, 2, 5, data, 4, AccessKind::Read);
        assert_eq!(sink.take().len(), 1, "lanes of one warp");
    }

    /// The fence marks of a kernel whose fences of kind `sync` each come between the
    /// accesses of a pair `(last access before, first access after)`, on every path.
    fn marks(n: usize, sync: MemSync, fences: &[(u32, u32)]) -> FenceMarks {
        let mut m = FenceMarks {
            access: vec![true; n],
            fenced_into: vec![false; n],
            between: HashMap::new(),
            after: vec![Fences::default(); n],
        };
        for &(a, b) in fences {
            m.after[a as usize] = Fences::of(sync);
            m.between.insert((a, b), Fences::of(sync));
            m.fenced_into[b as usize] = true;
        }
        m
    }

    fn pairs(f: &[RaceFinding]) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = f.iter().map(|x| (x.first.inst, x.second.inst)).collect();
        v.sort();
        v
    }

    /// Fences with strong flag accesses (PTX ISA §8, release and acquire patterns): a fence
    /// then a relaxed store of the flag releases the accesses before the fence; a relaxed load
    /// of the flag then a fence acquires them. Without either fence the data race stays, and
    /// the flag's own accesses race when neither synchronizes.
    #[test]
    fn fence_patterns_order_warps() {
        use MemSync::{AcqRel, None as Weak, Relaxed};
        // Instructions: 1 data store, 2 fence, 3 relaxed flag store, 4 relaxed flag load,
        // 5 fence, 6 data load, 7 another data store.
        let sync = vec![Weak, Weak, AcqRel, Relaxed, Relaxed, AcqRel, Weak, Weak];
        let (data, flag, other) = (0, 64, 128);
        let run = |producer: bool, consumer: bool| {
            let mut f = vec![];
            if producer {
                f.push((1, 3));
            }
            if consumer {
                f.push((4, 6));
            }
            let sink = RaceSink::default()
                .with_sync(sync.clone())
                .with_fences(marks(8, AcqRel, &f));
            let c = cta(64);
            c.access(&sink, 32, 4, flag, 4, AccessKind::Read); // the consumer looks: 0
            c.access(&sink, 0, 1, data, 4, AccessKind::Write);
            c.access(&sink, 0, 3, flag, 4, AccessKind::Write);
            c.access(&sink, 32, 4, flag, 4, AccessKind::Read); // sees the store
                                                               // The fence's effect comes with the first access after it (thread 32's, which
                                                               // read the flag); its warp learns, so thread 33's read is ordered too.
            c.access(&sink, 32, 6, data, 4, AccessKind::Read);
            c.access(&sink, 33, 6, data, 4, AccessKind::Read);
            pairs(&sink.take())
        };
        assert_eq!(run(true, true), vec![], "both patterns: ordered");
        assert_eq!(
            run(true, false),
            vec![(1, 6)],
            "no acquire pattern; the flag store after the fence synchronizes"
        );
        assert_eq!(
            run(false, true),
            vec![(1, 6), (3, 4), (4, 3)],
            "no release pattern; the relaxed flag accesses synchronize nothing"
        );
        assert_eq!(run(false, false), vec![(1, 6), (3, 4), (4, 3)]);

        // A store after the fence and before the flag store is not released.
        let sink = RaceSink::default()
            .with_sync(sync.clone())
            .with_fences(marks(8, AcqRel, &[(1, 7), (4, 6)]));
        let c = cta(64);
        c.access(&sink, 0, 1, data, 4, AccessKind::Write);
        c.access(&sink, 0, 7, other, 4, AccessKind::Write);
        c.access(&sink, 0, 3, flag, 4, AccessKind::Write);
        c.access(&sink, 32, 4, flag, 4, AccessKind::Read);
        c.access(&sink, 32, 6, data, 4, AccessKind::Read);
        c.access(&sink, 32, 6, other, 4, AccessKind::Read);
        assert_eq!(pairs(&sink.take()), vec![(7, 6)]);

        // A fence then a weak store of the flag is no release pattern.
        let sink = RaceSink::default()
            .with_sync(vec![Weak; 8])
            .with_fences(marks(8, AcqRel, &[(1, 3), (4, 6)]));
        let c = cta(64);
        c.access(&sink, 0, 1, data, 4, AccessKind::Write);
        c.access(&sink, 0, 3, flag, 4, AccessKind::Write);
        c.access(&sink, 32, 4, flag, 4, AccessKind::Read);
        c.access(&sink, 32, 6, data, 4, AccessKind::Read);
        assert_eq!(pairs(&sink.take()), vec![(1, 6), (3, 4)]);
    }

    /// `fence.sc` fences synchronize with every later one (PTX ISA §8, Fence-SC order),
    /// without a flag; `fence.acq_rel` fences do not.
    #[test]
    fn sc_fences_order_each_other() {
        use MemSync::None as Weak;
        // Instructions: thread 0 stores at 1, fences, stores again at 2; thread 32 stores an
        // unrelated word at 3, fences, then loads both of thread 0's words at 4.
        let run = |fence: MemSync| {
            let sink = RaceSink::default()
                .with_sync(vec![Weak; 5])
                .with_fences(marks(5, fence, &[(1, 2), (3, 4)]));
            let c = cta(64);
            c.access(&sink, 0, 1, 0, 4, AccessKind::Write);
            c.access(&sink, 0, 2, 64, 4, AccessKind::Write);
            c.access(&sink, 32, 3, 128, 4, AccessKind::Write);
            c.access(&sink, 32, 4, 0, 4, AccessKind::Read);
            c.access(&sink, 32, 4, 64, 4, AccessKind::Read);
            pairs(&sink.take())
        };
        assert_eq!(
            run(MemSync::SeqCst),
            vec![(2, 4)],
            "the store before thread 0's fence is ordered, the one after it is not"
        );
        assert_eq!(run(MemSync::AcqRel), vec![(1, 4), (2, 4)]);
    }

    /// Plain writes of the bytes memory holds already race with reads, not with writes.
    #[test]
    fn writes_of_the_value_memory_holds_do_not_race_with_writes() {
        let sink = RaceSink::default();
        let c = cta(64);
        // Lanes 0 and 1 store the same value to one word (the second store finds it there).
        c.access_with(&sink, 0, 1, 0, 4, AccessKind::Write, false);
        c.access_with(&sink, 1, 1, 0, 4, AccessKind::Write, true);
        assert!(sink.take().is_empty());
        // A different value races; and a same-value write still races with a read.
        c.access_with(&sink, 2, 1, 0, 4, AccessKind::Write, false);
        assert_eq!(sink.take().len(), 1);
        c.access(&sink, 3, 2, 0, 4, AccessKind::Read); // races with thread 2's write
        c.access_with(&sink, 4, 3, 0, 4, AccessKind::Write, true);
        let by4: Vec<_> = sink
            .take()
            .into_iter()
            .filter(|f| f.second.thread == 4)
            .collect();
        assert_eq!(by4.len(), 1);
        assert_eq!(
            (by4[0].first.kind, by4[0].first.thread),
            (AccessKind::Read, 3)
        );
    }

    /// Each hazard is counted; the report keeps one per pair of instructions.
    #[test]
    fn counts_hazards_per_instruction_pair() {
        let sink = RaceSink::default();
        let c = cta(64);
        for t in 0..32 {
            c.access(&sink, t, 1, 4 * t as u64, 4, AccessKind::Write);
        }
        for t in 32..64 {
            c.access(&sink, t, 2, 4 * (t - 32) as u64, 4, AccessKind::Read);
        }
        let f = sink.take();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].count, 32);
    }
}
