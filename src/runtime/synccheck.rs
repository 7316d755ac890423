//! synccheck: barrier and warp-mask misuse that a launch survives, recorded while it runs.
//!
//! Both engines reach every barrier and warp-level synchronization through the same runtime
//! code (`runtime::warp` for arrivals, `runtime::launch` for completions and releases), so
//! the checks live there and the two engines find the same things. They run only when the
//! launch has a [`SyncSink`] (`LaunchInput::synccheck`); without one nothing here is called.
//!
//! What is checked (PTX ISA §9.7.13.1 `bar`/`barrier`, §9.7.13.2 `bar.warp.sync`, the `.sync`
//! collectives §9.7.9.6 and §9.7.13.9–14; CUDA C++ Programming Guide, "Synchronization
//! Functions" and "Warp Shuffle Functions"):
//! - [`SyncKind::DivergentWarp`]: a CTA barrier completes while lanes of a warp that took
//!   part had exited instead of arriving (`__syncthreads()` inside `if (tid < n)`), or — when
//!   the CTA is stuck — while they are elsewhere;
//! - [`SyncKind::DivergentBlock`]: warps meet at different instructions of one barrier id,
//!   or wait at different barriers and never meet, or a barrier for all threads completes
//!   because the warps that did not reach it exited (`__syncthreads()` inside
//!   `if (threadIdx.x < 32)`);
//! - [`SyncKind::ThreadCount`]: warps give one barrier different thread counts;
//! - [`SyncKind::MaskExited`]: a warp-level synchronization's membermask names lanes that
//!   have exited (lanes that do not exist, in a partial last warp, are no finding);
//! - [`SyncKind::MaskMismatch`]: lanes that execute one warp-level synchronization together
//!   name each other with different membermasks;
//! - [`SyncKind::MaskNeverArrives`]: lanes wait for members of their membermask that wait at
//!   something else, so the CTA can make no progress.
//!
//! A lane that executes a warp-level synchronization without its own bit in the membermask
//! is undefined in PTX and stays a fault (`FaultKind::MemberMask`), as without the tool.
//!
//! Findings are kept once per kind and instruction, with the first thread (lowest CTA, then
//! lowest thread) and the number of threads involved over the launch.

use super::launch::{bytes, fmt_lanes, parked_lanes, rec, Sites};
use super::warp::rd32;
use crate::analysis::schedule::{
    WarpLayout, BAR_ALIGNED, BAR_ARRIVED, BAR_COUNT, BAR_FLAGS, BAR_INST, BAR_INST2, BAR_LANES2,
    BAR_THREADS, BAR_WAITING, EXITED_OFF, LIVE_OFF, WSYNC_INST_OFF, WSYNC_MASK_OFF, WSYNC_WAIT_OFF,
};
use std::sync::Mutex;

/// What a synccheck finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SyncKind {
    /// Lanes of a warp reached a CTA barrier while other lanes of the warp had exited or
    /// were elsewhere.
    DivergentWarp,
    /// Warps of a CTA reached one barrier id at different instructions, or wait at
    /// different barriers.
    DivergentBlock,
    /// Warps gave one barrier different thread counts.
    ThreadCount,
    /// A membermask names lanes that have exited.
    MaskExited,
    /// Lanes executing one warp-level synchronization together name each other with
    /// different membermasks.
    MaskMismatch,
    /// Lanes wait for members of their membermask that wait elsewhere.
    MaskNeverArrives,
}

impl SyncKind {
    /// compute-sanitizer's headline for the kind.
    pub fn headline(self) -> &'static str {
        match self {
            SyncKind::DivergentWarp => "Barrier error detected. Divergent thread(s) in warp",
            SyncKind::DivergentBlock => "Barrier error detected. Divergent thread(s) in block",
            SyncKind::ThreadCount => "Barrier error detected. Mismatched barrier thread counts",
            SyncKind::MaskExited | SyncKind::MaskMismatch | SyncKind::MaskNeverArrives => {
                "Barrier error detected. Invalid arguments"
            }
        }
    }
}

/// One finding, in runtime terms (the host layer maps `inst` to PTX and source lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncFinding {
    pub kind: SyncKind,
    /// Fault-record index of the instruction (`env::terminator_fault_index` numbering).
    pub inst: u32,
    /// The first CTA and thread (lowest linear CTA, then thread) it was seen in.
    pub ctaid: [u32; 3],
    pub tid: [u32; 3],
    /// Threads involved, summed over every occurrence in the launch.
    pub threads: u64,
    /// What happened at the first occurrence, in words (lanes, warps, PTX lines).
    pub detail: String,
}

/// Where a launch's findings are collected (shared by its workers).
#[derive(Debug, Default)]
pub struct SyncSink {
    found: Mutex<Vec<Entry>>,
}

#[derive(Debug)]
struct Entry {
    /// Linear CTA and thread of `f`'s first occurrence.
    order: (u64, u32),
    f: SyncFinding,
}

/// The CTA a finding is recorded for.
#[derive(Clone, Copy, Debug)]
pub struct CtaWho {
    pub ctaid: [u32; 3],
    pub nctaid: [u32; 3],
    pub ntid: [u32; 3],
}

impl CtaWho {
    fn linear(&self) -> u64 {
        let [x, y, z] = self.ctaid;
        let [gx, gy, _] = self.nctaid;
        (z as u64 * gy as u64 + y as u64) * gx as u64 + x as u64
    }

    /// `%tid` of linear thread `t`.
    fn tid(&self, t: u32) -> [u32; 3] {
        let (nx, ny) = (self.ntid[0].max(1), self.ntid[1].max(1));
        [t % nx, (t / nx) % ny, t / (nx * ny)]
    }
}

impl SyncSink {
    /// Record a finding of `kind` at instruction `inst` for the lanes `lanes` (not 0) of warp
    /// `warp` of CTA `who`.
    pub fn record(
        &self,
        who: &CtaWho,
        kind: SyncKind,
        inst: u32,
        warp: u32,
        lanes: u32,
        detail: impl FnOnce() -> String,
    ) {
        if lanes == 0 {
            return;
        }
        let thread = warp * 32 + lanes.trailing_zeros();
        let order = (who.linear(), thread);
        let Ok(mut g) = self.found.lock() else {
            return;
        };
        let n = u64::from(lanes.count_ones());
        match g.iter_mut().find(|e| e.f.kind == kind && e.f.inst == inst) {
            Some(e) => {
                e.f.threads += n;
                if order < e.order {
                    e.order = order;
                    e.f.ctaid = who.ctaid;
                    e.f.tid = who.tid(thread);
                    e.f.detail = detail();
                }
            }
            None => g.push(Entry {
                order,
                f: SyncFinding {
                    kind,
                    inst,
                    ctaid: who.ctaid,
                    tid: who.tid(thread),
                    threads: n,
                    detail: detail(),
                },
            }),
        }
    }

    /// The findings, by instruction then kind (the same order on every run).
    pub fn take(&self) -> Vec<SyncFinding> {
        let mut v: Vec<SyncFinding> = match self.found.lock() {
            Ok(mut g) => g.drain(..).map(|e| e.f).collect(),
            Err(_) => vec![],
        };
        v.sort_by_key(|f| (f.inst, f.kind));
        v
    }
}

// The checks the CTA scheduler makes (`runtime::launch`).

/// What synccheck's checks in the CTA scheduler need: the launch's sink, the CTA, and the
/// PTX locations its words name.
pub(super) struct SyncCheck<'a> {
    pub(super) sink: &'a SyncSink,
    pub(super) who: CtaWho,
    pub(super) sites: Sites<'a>,
}

/// synccheck at the completion of barrier `id` by the warps `parts` (before their records
/// are cleared): lanes of a taking-part warp that exited instead of arriving, warps at
/// different instructions of the barrier, and different thread counts.
pub(super) fn check_barrier(states: &mut [Vec<u128>], id: u32, parts: &[usize], c: &SyncCheck) {
    let Some(&w0) = parts.first() else { return };
    let (inst0, threads0, aligned0) = {
        let s = bytes(&mut states[w0]);
        (
            rec(s, id, BAR_INST),
            rec(s, id, BAR_THREADS),
            rec(s, id, BAR_FLAGS) & BAR_ALIGNED != 0,
        )
    };
    let count = |n: u32| match n {
        0 => "all threads".to_string(),
        n => format!("{n} threads"),
    };
    for &w in parts {
        let s = bytes(&mut states[w]);
        let (arrived, live) = (rec(s, id, BAR_ARRIVED), rd32(s, LIVE_OFF));
        let (inst, threads) = (rec(s, id, BAR_INST), rec(s, id, BAR_THREADS));
        let at = inst.saturating_sub(1);
        let missing = live & !arrived;
        if missing != 0 {
            c.sink.record(
                &c.who,
                SyncKind::DivergentWarp,
                at,
                w as u32,
                arrived,
                || {
                    format!(
                        "lanes {} of warp {w} reached barrier {id} ({}) while lanes {} of the \
                         warp had exited: every thread of the warp must reach it",
                        fmt_lanes(arrived),
                        c.sites.line(at),
                        fmt_lanes(missing)
                    )
                },
            );
        }
        // Only an `.aligned` barrier (`bar.sync`, `barrier.sync.aligned`) requires every
        // thread of the CTA to execute the same instruction (PTX ISA §9.7.13.1); warps may
        // reach a `barrier.sync` through different instructions (warp-specialized code).
        let aligned = aligned0 || rec(s, id, BAR_FLAGS) & BAR_ALIGNED != 0;
        if inst != inst0 && aligned {
            c.sink.record(
                &c.who,
                SyncKind::DivergentBlock,
                at,
                w as u32,
                arrived,
                || {
                    format!(
                        "warp {w} reached barrier {id} at {}, warp {w0} at {}: the threads of \
                         a block must reach the same barrier instruction",
                        c.sites.line(at),
                        c.sites.line(inst0.saturating_sub(1))
                    )
                },
            );
        }
        if threads != threads0 {
            c.sink
                .record(&c.who, SyncKind::ThreadCount, at, w as u32, arrived, || {
                    format!(
                        "warp {w} waits at barrier {id} ({}) for {}, warp {w0} ({}) for {}",
                        c.sites.line(at),
                        count(threads),
                        c.sites.line(inst0.saturating_sub(1)),
                        count(threads0)
                    )
                });
        }
    }
    // A barrier for all threads completes only when every other warp has exited: those warps
    // exited instead of arriving (`if (threadIdx.x < 32) __syncthreads();` in a block of 64).
    // PTX releases the barrier then (§9.7.13.1, `exit`), but CUDA requires every thread of
    // the block to reach a `__syncthreads()`.
    if threads0 == 0 {
        let at = inst0.saturating_sub(1);
        // A CTA has at most 32 warps (1024 threads): the exited ones as a mask.
        let exited = (0..states.len().min(32))
            .filter(|w| !parts.contains(w) && rd32(bytes(&mut states[*w]), LIVE_OFF) != 0)
            .fold(0u32, |m, w| m | 1 << w);
        if exited != 0 {
            // Named by the first thread of the first warp that exited.
            let first = exited.trailing_zeros() as usize;
            let lanes = rd32(bytes(&mut states[first]), LIVE_OFF);
            c.sink.record(
                &c.who,
                SyncKind::DivergentBlock,
                at,
                first as u32,
                lanes,
                || {
                    format!(
                        "warp{} {} of the block exited instead of reaching barrier {id} ({}), \
                         which warp {w0} reached: every thread of a block must reach it",
                        if exited.count_ones() > 1 { "s" } else { "" },
                        fmt_lanes(exited),
                        c.sites.line(at),
                    )
                },
            );
        }
    }
}

/// synccheck when the lanes `free` of warp `w` leave their warp-level synchronizations
/// together (`launch::release_warp_syncs`, before their records are cleared): lanes of a
/// data-exchanging collective (`shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`) whose
/// membermask names lanes that were released from another instruction did not execute it
/// with them: `if (lane < 16) v = __shfl_sync(0xffffffff, v, 0); else v = __shfl_sync(…)`.
/// CUDA requires every non-exited thread the mask names to execute the same intrinsic with
/// the same mask (C++ Programming Guide, "Warp Shuffle Functions"); the lanes the mask names
/// have no value to give. `bar.warp.sync` carries no data: `__syncwarp()` at different
/// places of one warp is how independent thread scheduling meets (no finding).
pub(super) fn check_released_apart(s: &[u8], free: u32, w: u32, c: &SyncCheck) {
    use super::warp::lanes;
    let inst_of = |l: u32| rd32(s, WSYNC_INST_OFF + 4 * l);
    let mut m = free;
    while m != 0 {
        let inst = inst_of(m.trailing_zeros());
        let group = lanes(m)
            .filter(|&k| inst_of(k) == inst)
            .fold(0u32, |g, k| g | 1 << k);
        m &= !group;
        let at = inst.saturating_sub(1);
        let exchanges = c.sites.ptx.get(at as usize).is_some_and(|t| {
            ["shfl.", "vote.", "match.", "redux."]
                .iter()
                .any(|p| t.starts_with(p))
        });
        if !exchanges {
            continue;
        }
        let first = group.trailing_zeros();
        let mm = rd32(s, WSYNC_MASK_OFF + 4 * first);
        let apart = free & !group & mm;
        if apart == 0 {
            continue;
        }
        let other = inst_of(apart.trailing_zeros()).saturating_sub(1);
        c.sink
            .record(&c.who, SyncKind::MaskMismatch, at, w, group, || {
                format!(
                    "lanes {} of warp {w} execute it with membermask {mm:#010x}, whose lanes \
                     {} execute {} instead: every non-exited lane a membermask names must \
                     execute the same instruction with it, or the lanes get undefined values",
                    fmt_lanes(group),
                    fmt_lanes(apart),
                    c.sites.describe(other),
                )
            });
    }
}

/// synccheck's findings in a CTA that can make no progress: per warp, lanes waiting at a
/// barrier while other live lanes of the warp are elsewhere (or at another instruction),
/// warps whose lanes all wait at different barriers than other warps, and lanes waiting at a
/// warp-level synchronization for members that wait at something else.
pub(super) fn stuck_findings(layout: &WarpLayout, states: &mut [Vec<u128>], c: &SyncCheck) {
    // (warp, id, instruction) of the first warp waiting whole at a barrier.
    let mut whole: Option<(usize, u32, u32)> = None;
    for (w, st) in states.iter_mut().enumerate() {
        let s = bytes(st);
        let alive = rd32(s, LIVE_OFF) & !rd32(s, EXITED_OFF);
        let parked = parked_lanes(layout, s);
        let wsync = rd32(s, WSYNC_WAIT_OFF);
        for id in 0..BAR_COUNT {
            let waiting = rec(s, id, BAR_WAITING);
            if waiting == 0 {
                continue;
            }
            let inst = rec(s, id, BAR_INST).saturating_sub(1);
            let lanes2 = rec(s, id, BAR_LANES2) & waiting;
            let inst2 = rec(s, id, BAR_INST2);
            let split = lanes2 != 0 && inst2 != 0;
            let elsewhere = alive & !waiting;
            if split {
                let first = waiting & !lanes2;
                c.sink.record(
                    &c.who,
                    SyncKind::DivergentWarp,
                    inst,
                    w as u32,
                    first,
                    || {
                        format!(
                            "lanes {} of warp {w} wait at barrier {id} ({}) and lanes {} at \
                             barrier {id} ({}): every thread of the warp must reach the same \
                             barrier instruction",
                            fmt_lanes(first),
                            c.sites.line(inst),
                            fmt_lanes(lanes2),
                            c.sites.line(inst2 - 1)
                        )
                    },
                );
            } else if elsewhere != 0 {
                c.sink.record(
                    &c.who,
                    SyncKind::DivergentWarp,
                    inst,
                    w as u32,
                    waiting,
                    || {
                        format!(
                            "lanes {} of warp {w} wait at barrier {id} ({}) while lanes {} of \
                             the warp are elsewhere and never arrive",
                            fmt_lanes(waiting),
                            c.sites.line(inst),
                            fmt_lanes(elsewhere)
                        )
                    },
                );
            } else {
                match whole {
                    None => whole = Some((w, id, inst)),
                    Some((w0, id0, inst0)) if (id0, inst0) != (id, inst) => {
                        c.sink.record(
                            &c.who,
                            SyncKind::DivergentBlock,
                            inst,
                            w as u32,
                            waiting,
                            || {
                                format!(
                                    "warp {w} waits at barrier {id} ({}) while warp {w0} waits \
                                     at barrier {id0} ({}): they never meet",
                                    c.sites.line(inst),
                                    c.sites.line(inst0)
                                )
                            },
                        );
                    }
                    Some(_) => {}
                }
            }
        }
        // Lanes at a warp-level synchronization whose members wait at something else.
        for l in super::warp::lanes(wsync) {
            let mm = rd32(s, WSYNC_MASK_OFF + 4 * l);
            let blocked = mm & alive & !wsync & parked;
            if blocked == 0 {
                continue;
            }
            let inst = rd32(s, WSYNC_INST_OFF + 4 * l).saturating_sub(1);
            c.sink.record(
                &c.who,
                SyncKind::MaskNeverArrives,
                inst,
                w as u32,
                1 << l,
                || {
                    format!(
                        "lane {l} of warp {w} waits ({}) for the lanes of membermask {mm:#010x}, \
                         but lanes {} wait at a barrier and never arrive",
                        c.sites.line(inst),
                        fmt_lanes(blocked)
                    )
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_entry_per_kind_and_instruction_with_the_lowest_thread_first() {
        let s = SyncSink::default();
        let who = |x| CtaWho {
            ctaid: [x, 0, 0],
            nctaid: [4, 1, 1],
            ntid: [64, 1, 1],
        };
        s.record(&who(2), SyncKind::DivergentWarp, 7, 1, 0xff, || {
            "late".into()
        });
        s.record(&who(1), SyncKind::DivergentWarp, 7, 1, 0xf0, || {
            "early".into()
        });
        s.record(&who(0), SyncKind::MaskExited, 3, 0, 0b100, || "mask".into());
        s.record(&who(0), SyncKind::MaskExited, 3, 0, 0, || "none".into());
        let v = s.take();
        assert_eq!(v.len(), 2);
        assert_eq!(
            (v[0].kind, v[0].tid, v[0].threads),
            (SyncKind::MaskExited, [2, 0, 0], 1)
        );
        // Lane 4 of warp 1 is thread 36; 8 + 4 threads in all.
        assert_eq!(
            (v[1].ctaid, v[1].tid, v[1].threads, v[1].detail.as_str()),
            ([1, 0, 0], [36, 0, 0], 12, "early")
        );
    }
}
