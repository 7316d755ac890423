//! `mbarrier` objects (PTX ISA §9.7.13.15, "Parallel Synchronization and Communication
//! Instructions: mbarrier") and `cp.async.mbarrier.arrive` (§9.7.13.15.15): one implementation
//! that both engines reach through the warp-operation path (`runtime::warp`).
//!
//! # The object
//! An mbarrier object is 64 bits in shared memory, 8-byte aligned (§9.7.13.15.3). The ISA
//! names its contents (§9.7.13.15.4) and leaves their encoding to the implementation; ptxjit's:
//!
//! | bits  | field | range |
//! |-------|-------|-------|
//! | 0–19  | pending arrival count | 0 ..= 2^20 − 1 |
//! | 20–39 | expected arrival count | 0 ..= 2^20 − 1 (`init` sets 1 ..= 2^20 − 1; `arrive_drop` may lower it to 0) |
//! | 40–60 | tx-count, 21-bit two's complement | −(2^20 − 1) ..= 2^20 − 1 |
//! | 61    | 0 | |
//! | 62    | phase parity (current phase mod 2) | |
//! | 63    | valid: set by `init`, cleared by `inval` | |
//!
//! A word without the valid bit (shared memory is not zeroed by anything else, and `inval`
//! clears it) is no object: operations other than `init` and `inval` on it fault
//! ([`FaultKind::MBarrier`]), as do the other cases the ISA leaves undefined (below).
//!
//! # Operations
//! - *arrive-on* with count n (§9.7.13.15.5): pending −= n; when pending and tx-count are
//!   both 0 the current phase completes: the parity flips and pending = expected.
//! - *expect-tx* with n (§9.7.13.15.6): tx-count += n. *complete-tx* with n: tx-count −= n,
//!   then the phase completes if pending and tx-count are both 0.
//! - `arrive_drop`: expected −= n first, then the arrive-on.
//! - The state token of an arrive is the object's word before the arrive-on (its phase
//!   parity, and the pending count `pending_count` reads: "the pending count of the mbarrier
//!   object prior to the arrive-on operation", §9.7.13.15.17). `test_wait`/`try_wait` with a
//!   token: the token's phase is complete when the object's parity differs from the token's.
//!   With `.parity`: the phase of that parity is complete when the object's parity differs
//!   (§9.7.13.15.16: the operand names the current or the immediately preceding phase).
//!
//! The ISA leaves undefined, and ptxjit faults on: a count outside 1 ..= 2^20 − 1, a tx count
//! above 2^20 − 1 or a tx-count leaving its range, more arrivals than pending (or a drop below
//! 0 expected), a tx-count below 0 once every arrival of the phase is in (more bytes completed
//! than expected: the phase could never complete, `MbarState::check_underflow`), a `.noComplete` arrival that completes the phase, a token without the valid
//! bit, and an object address outside shared memory. The active lanes act one after another
//! in lane order; each lane's operation is whole before the next lane's.

use super::env::{CtaEnv, FaultKind};
use super::warp::{lanes, WarpDesc};
use crate::ir::{MbarOp, Space};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The largest arrival count and tx count (PTX ISA §9.7.13.15.4: 2^20 − 1).
pub const MAX_COUNT: u32 = (1 << 20) - 1;

const PENDING_SHIFT: u32 = 0;
const EXPECTED_SHIFT: u32 = 20;
const TX_SHIFT: u32 = 40;
const FIELD_MASK: u64 = (1 << 20) - 1;
const TX_MASK: u64 = (1 << 21) - 1;
const PHASE_BIT: u64 = 1 << 62;
const VALID_BIT: u64 = 1 << 63;

/// The fields of an mbarrier object (or of a state token).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MbarState {
    pub pending: u32,
    pub expected: u32,
    /// tx-count, −(2^20 − 1) ..= 2^20 − 1.
    pub tx: i32,
    /// Current phase parity (0 or 1).
    pub phase: u32,
    pub valid: bool,
}

impl MbarState {
    /// Decode a 64-bit object word or token.
    pub fn decode(w: u64) -> MbarState {
        let tx_raw = (w >> TX_SHIFT) & TX_MASK;
        // Sign-extend the 21-bit field.
        let tx = ((tx_raw << 43) as i64 >> 43) as i32;
        MbarState {
            pending: ((w >> PENDING_SHIFT) & FIELD_MASK) as u32,
            expected: ((w >> EXPECTED_SHIFT) & FIELD_MASK) as u32,
            tx,
            phase: (w & PHASE_BIT != 0) as u32,
            valid: w & VALID_BIT != 0,
        }
    }

    /// Encode to the 64-bit word (fields must be in range).
    pub fn encode(self) -> u64 {
        (self.pending as u64 & FIELD_MASK) << PENDING_SHIFT
            | (self.expected as u64 & FIELD_MASK) << EXPECTED_SHIFT
            | (self.tx as i64 as u64 & TX_MASK) << TX_SHIFT
            | if self.phase & 1 != 0 { PHASE_BIT } else { 0 }
            | if self.valid { VALID_BIT } else { 0 }
    }

    /// A fresh object (`mbarrier.init`, §9.7.13.15.9): phase 0, pending = expected = count.
    pub fn init(count: u32) -> MbarState {
        MbarState {
            pending: count,
            expected: count,
            tx: 0,
            phase: 0,
            valid: true,
        }
    }

    /// Complete the current phase when pending and tx-count are both 0; whether it did.
    fn maybe_complete(&mut self) -> bool {
        if self.pending == 0 && self.tx == 0 {
            self.phase ^= 1;
            self.pending = self.expected;
            true
        } else {
            false
        }
    }

    /// The ISA's phase completes when pending and tx-count are both 0 (§9.7.13.15.4, "Phase
    /// Completion"). With every arrival in (pending 0) and tx-count below 0, more bytes were
    /// completed than the phase expects: no arrival can bring it back (one more is more than
    /// pending), so the phase would hang. ptxjit faults on it (tx-count underflow); a copy that
    /// completes before its expect-tx leaves tx-count negative with arrivals still pending,
    /// which is allowed.
    fn check_underflow(&self) -> Result<(), String> {
        if self.pending == 0 && self.tx < 0 {
            return Err(format!(
                "tx-count underflow: {} more bytes completed than the phase expects, with \
                 every arrival in (the phase can never complete)",
                -self.tx
            ));
        }
        Ok(())
    }

    /// tx-count += `delta`, within its range.
    fn add_tx(&mut self, delta: i64) -> Result<(), String> {
        let t = self.tx as i64 + delta;
        if t.unsigned_abs() > MAX_COUNT as u64 {
            return Err(format!(
                "tx-count {} + {delta} leaves the range -{MAX_COUNT}..={MAX_COUNT}",
                self.tx
            ));
        }
        self.tx = t as i32;
        Ok(())
    }

    /// The arrive-on operation with `count` (§9.7.13.15.5), after `drop` (`arrive_drop`) and
    /// an expect-tx of `tx`. Returns whether the phase completed.
    pub fn arrive(&mut self, count: u32, drop: bool, tx: u32) -> Result<bool, String> {
        check_count(count)?;
        if tx > MAX_COUNT {
            return Err(format!("tx count {tx} is above {MAX_COUNT}"));
        }
        if drop {
            if count > self.expected {
                return Err(format!(
                    "arrive_drop of {count} with an expected arrival count of {}",
                    self.expected
                ));
            }
            self.expected -= count;
        }
        self.add_tx(tx as i64)?;
        if count > self.pending {
            return Err(format!(
                "an arrival of {count} with {} arrivals pending",
                self.pending
            ));
        }
        self.pending -= count;
        self.check_underflow()?;
        Ok(self.maybe_complete())
    }

    /// complete-tx of `n` bytes (§9.7.13.15.6): tx-count −= n, then the phase completes if
    /// pending and tx-count are both 0. Returns whether it did.
    pub fn complete_tx(&mut self, n: u32) -> Result<bool, String> {
        self.add_tx(-(n as i64))?;
        self.check_underflow()?;
        Ok(self.maybe_complete())
    }

    /// Whether the phase that token `tok` (or, with `parity`, the phase of parity `tok & 1`)
    /// belongs to is complete (§9.7.13.15.16).
    pub fn wait(&self, tok: u64, parity: bool) -> bool {
        let p = if parity {
            (tok & 1) as u32
        } else {
            MbarState::decode(tok).phase
        };
        self.phase != p
    }
}

fn check_count(count: u32) -> Result<(), String> {
    if count == 0 || count > MAX_COUNT {
        return Err(format!("count {count} is outside 1..={MAX_COUNT}"));
    }
    Ok(())
}

/// Execute `mbarrier` operation `op` (object address in `space`) for the lanes of `mask`.
pub(crate) fn exec(d: &WarpDesc, op: MbarOp, space: Space, mask: u32, s: &mut [u8], env: &CtaEnv) {
    for l in lanes(mask) {
        if let Err(what) = lane(d, op, space, l, s, env) {
            env.fault_detail(l, d.inst, FaultKind::MBarrier, what);
        }
    }
}

/// One lane's operation; an error is the fault's detail (an access fault is recorded here and
/// returns `Ok`).
fn lane(
    d: &WarpDesc,
    op: MbarOp,
    space: Space,
    l: u32,
    s: &mut [u8],
    env: &CtaEnv,
) -> Result<(), String> {
    if op == MbarOp::PendingCount {
        let tok = d.arg(s, 0, l);
        let st = MbarState::decode(tok);
        if !st.valid {
            return Err(format!(
                "pending_count of {tok:#x}, which is no mbarrier state"
            ));
        }
        d.set(s, 0, l, st.pending as u64);
        return Ok(());
    }
    let addr = d.arg(s, 0, l);
    if space == Space::Generic && !super::env::is_space(Space::Shared, addr) {
        return Err(format!(
            "the object's generic address {addr:#x} is not in shared memory"
        ));
    }
    let modifies = !matches!(op, MbarOp::Wait { .. });
    let p = match super::env::translate(env, space, addr, 8, 8, l) {
        Ok(p) => p,
        Err(e) => {
            env.access_fault(l, d.inst, e, addr, 8, 8, modifies);
            // A faulting operation yields 0 (no token, not complete).
            d.set(s, 0, l, 0);
            return Ok(());
        }
    };
    let off = super::env::cvta(Space::Shared, false, addr);
    // The object's shared offset (what racecheck keys it by).
    let shared = if space == Space::Generic { off } else { addr };
    let at = |what: String| {
        format!("{what} (mbarrier.{op} on the object at shared address {shared:#x})")
    };
    // SAFETY: `translate` checked 8 bytes at `p`, 8-byte aligned, inside the CTA's shared
    // memory; other warps of the CTA run on this host thread, so the word is read and written
    // atomically only for soundness.
    let cell = unsafe { AtomicU64::from_ptr(p as *mut u64) };
    let word = cell.load(Ordering::Acquire);
    let mut st = MbarState::decode(word);
    match op {
        MbarOp::Init => {
            let count = d.arg(s, 1, l) as u32;
            check_count(count).map_err(at)?;
            cell.store(MbarState::init(count).encode(), Ordering::Release);
            return Ok(());
        }
        MbarOp::Inval => {
            cell.store(0, Ordering::Release);
            return Ok(());
        }
        MbarOp::PendingCount => return Ok(()),
        MbarOp::Arrive { .. }
        | MbarOp::ExpectTx
        | MbarOp::CompleteTx
        | MbarOp::Wait { .. }
        | MbarOp::CpAsyncArrive { .. } => {}
    }
    if !st.valid {
        return Err(at(format!(
            "the word {word:#x} is not an initialized mbarrier object"
        )));
    }
    match op {
        MbarOp::Arrive { drop, no_complete } => {
            let (count, tx) = (d.arg(s, 1, l) as u32, d.arg(s, 2, l) as u32);
            let phase = st.phase;
            let done = st.arrive(count, drop, tx).map_err(at)?;
            if done && no_complete {
                return Err(at("a .noComplete arrival completed the phase".into()));
            }
            cell.store(st.encode(), Ordering::Release);
            env.race_mbar_arrive(l, shared, done.then_some(phase));
            d.set(s, 0, l, word);
        }
        MbarOp::ExpectTx | MbarOp::CompleteTx => {
            let n = d.arg(s, 1, l) as u32;
            if n > MAX_COUNT {
                return Err(at(format!("tx count {n} is above {MAX_COUNT}")));
            }
            if op == MbarOp::ExpectTx {
                st.add_tx(n as i64).map_err(at)?;
                cell.store(st.encode(), Ordering::Release);
            } else {
                let phase = st.phase;
                let done = st.complete_tx(n).map_err(at)?;
                cell.store(st.encode(), Ordering::Release);
                env.race_mbar_arrive(l, shared, done.then_some(phase));
            }
        }
        MbarOp::Wait { parity, .. } => {
            let tok = d.arg(s, 1, l);
            if !parity && !MbarState::decode(tok).valid {
                return Err(at(format!("the state {tok:#x} is no mbarrier state")));
            }
            let done = st.wait(tok, parity);
            if done {
                // The phase waited for has the parity the object no longer has.
                env.race_mbar_waited(l, shared, st.phase ^ 1);
            } else if let Some(waits) = env.mbar_waits() {
                // (An object of another CTA of the cluster is not this CTA's to judge.)
                let host = (p as usize).wrapping_sub(env.shared_base as usize) as u64;
                if host < env.shared_size {
                    waits.failed(env.warp * 32 + l, host as u32, d.inst);
                }
            }
            d.set(s, 0, l, done as u64);
        }
        MbarOp::CpAsyncArrive { noinc } => {
            // The copies are complete: the asynchronous arrive-on happens now. Without
            // `.noinc` the pending count was raised by one first: no net change.
            // The thread's copies so far (writes of the thread when they executed) are
            // released with the arrival.
            let phase = st.phase;
            let done = if noinc {
                let done = st.arrive(1, false, 0).map_err(at)?;
                cell.store(st.encode(), Ordering::Release);
                done
            } else {
                false
            };
            env.race_mbar_arrive(l, shared, done.then_some(phase));
        }
        MbarOp::Init | MbarOp::Inval | MbarOp::PendingCount => {}
    }
    Ok(())
}

/// Scheduler rounds in a row after which a CTA whose non-exited threads all spin on failing
/// mbarrier waits, with none of the objects they wait on changing, is deadlocked
/// ([`MbarWaits::judge`]).
pub const MBAR_SPIN_ROUNDS: u64 = 1000;

/// The failing mbarrier waits of a CTA's threads, for the CTA scheduler's deadlock judgement
/// (`runtime::launch`). A wait loop (`mbarrier.try_wait` or `test_wait` until it returns
/// true) yields once per iteration (`lower::yields`), so each of the scheduler's rounds runs
/// every spinning thread's wait at least once. The objects live in the CTA's shared memory
/// (the others fault), and every arrival, expect-tx and complete-tx (`cp.async.bulk` and
/// TMA copies complete when they execute) comes from a thread of the CTA (of the cluster:
/// the judgement is not made for clusters of more than one CTA). So when, round after
/// round, every non-exited thread spins on a failing wait and no object waited on changes,
/// no thread is left to complete those phases. "Round after round" is
/// [`MBAR_SPIN_ROUNDS`] rounds, so that a loop that gives up after a bounded number of tries
/// is not judged a deadlock unless it tries more often than that.
#[derive(Default)]
pub struct MbarWaits {
    /// The scheduler round in progress (from 1; the scheduler's thread only writes it).
    round: AtomicU64,
    /// Per thread (`warp * 32 + lane`): the round of its last failing wait (0: none).
    stamp: Vec<AtomicU64>,
    /// Per thread: the object's offset in the CTA's shared memory (low 32 bits) and the
    /// wait's instruction (fault-record index, high 32 bits) of that wait.
    at: Vec<AtomicU64>,
    /// Whether a wait failed since the last [`Self::reset`].
    used: AtomicBool,
    /// Rounds in a row that ended with every non-exited thread spinning, and the words of
    /// the objects waited on (shared offset, word) when that began.
    spin: std::sync::Mutex<(u64, Vec<(u32, u64)>)>,
}

/// The state of a CTA judged deadlocked on mbarrier waits ([`MbarWaits::judge`]).
pub struct MbarDeadlock {
    /// The objects waited on: shared offset and the object's word.
    pub objects: Vec<(u32, u64)>,
    /// The spinning threads: (warp, lanes, object offset, instruction), by warp, then
    /// object and instruction.
    pub waits: Vec<(u32, u32, u32, u32)>,
}

impl MbarWaits {
    /// Start a CTA of `threads` threads (the per-thread records are cleared only when the
    /// previous CTA had a failing wait).
    pub fn reset(&mut self, threads: u32) {
        let n = threads as usize;
        *self.round.get_mut() = 0;
        if std::mem::take(self.used.get_mut()) || self.stamp.len() != n {
            self.stamp.clear();
            self.stamp.resize_with(n, Default::default);
            self.at.clear();
            self.at.resize_with(n, Default::default);
        }
        if let Ok(spin) = self.spin.get_mut() {
            spin.0 = 0;
            spin.1.clear();
        }
    }

    /// A scheduler round begins.
    pub fn next_round(&self) {
        let r = self.round.load(Ordering::Relaxed);
        self.round.store(r + 1, Ordering::Relaxed);
    }

    /// Thread `thread`'s wait at instruction `inst` on the object at shared offset `off`
    /// found its phase incomplete.
    fn failed(&self, thread: u32, off: u32, inst: u32) {
        let (Some(stamp), Some(at)) = (
            self.stamp.get(thread as usize),
            self.at.get(thread as usize),
        ) else {
            return;
        };
        stamp.store(self.round.load(Ordering::Relaxed), Ordering::Relaxed);
        at.store(u64::from(inst) << 32 | u64::from(off), Ordering::Relaxed);
        self.used.store(true, Ordering::Relaxed);
    }

    /// After the warps of a round have run, before their yielded lanes are released:
    /// `alive_yielded` gives per warp its non-exited lanes and those parked at a yield
    /// point; `word` reads the object at a shared offset. Returns the deadlock once every
    /// non-exited thread has spun on a failing wait [`MBAR_SPIN_ROUNDS`] rounds in a row
    /// with the objects waited on unchanged.
    pub fn judge(
        &self,
        alive_yielded: impl Iterator<Item = (u32, u32)>,
        word: impl Fn(u32) -> Option<u64>,
    ) -> Option<MbarDeadlock> {
        if !self.used.load(Ordering::Relaxed) {
            return None;
        }
        let mut spin = self.spin.lock().ok()?;
        let round = self.round.load(Ordering::Relaxed);
        let mut waits: Vec<(u32, u32, u32, u32)> = vec![];
        let mut any = false;
        for (w, (alive, yielded)) in alive_yielded.enumerate() {
            if alive & !yielded != 0 {
                spin.0 = 0;
                return None;
            }
            for l in lanes(alive) {
                let t = w * 32 + l as usize;
                let (Some(stamp), Some(at)) = (self.stamp.get(t), self.at.get(t)) else {
                    spin.0 = 0;
                    return None;
                };
                if stamp.load(Ordering::Relaxed) != round {
                    spin.0 = 0;
                    return None;
                }
                let at = at.load(Ordering::Relaxed);
                let (off, inst) = (at as u32, (at >> 32) as u32);
                any = true;
                match waits
                    .iter_mut()
                    .find(|x| x.0 == w as u32 && x.2 == off && x.3 == inst)
                {
                    Some(x) => x.1 |= 1 << l,
                    None => waits.push((w as u32, 1 << l, off, inst)),
                }
            }
        }
        if !any {
            spin.0 = 0;
            return None;
        }
        let mut objects: Vec<(u32, u64)> = vec![];
        for &(_, _, off, _) in &waits {
            if !objects.iter().any(|o| o.0 == off) {
                objects.push((off, word(off)?));
            }
        }
        objects.sort_unstable();
        if spin.0 == 0 || spin.1 != objects {
            *spin = (1, objects);
            return None;
        }
        spin.0 += 1;
        if spin.0 < MBAR_SPIN_ROUNDS {
            return None;
        }
        waits.sort_unstable();
        Some(MbarDeadlock { objects, waits })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_round_trips() {
        for st in [
            MbarState::init(1),
            MbarState::init(MAX_COUNT),
            MbarState {
                pending: 3,
                expected: 7,
                tx: -(MAX_COUNT as i32),
                phase: 1,
                valid: true,
            },
            MbarState {
                pending: 0,
                expected: 0,
                tx: MAX_COUNT as i32,
                phase: 0,
                valid: true,
            },
        ] {
            assert_eq!(MbarState::decode(st.encode()), st);
        }
        assert_eq!(MbarState::init(5).encode(), VALID_BIT | 5 << 20 | 5);
    }

    /// The ISA's phase rules, worked by hand: 2 expected arrivals, tx bytes outstanding.
    #[test]
    fn phases_tokens_and_tx() {
        let mut b = MbarState::init(2);
        let tok0 = b.encode();
        assert!(!b.wait(tok0, false) && !b.wait(0, true));
        assert_eq!(b.arrive(1, false, 0), Ok(false));
        assert_eq!(b.pending, 1);
        // The last arrival with 16 bytes expected: pending 0, tx 16, not complete.
        assert_eq!(b.arrive(1, false, 16), Ok(false));
        assert_eq!((b.pending, b.tx), (0, 16));
        assert!(!b.wait(tok0, false));
        // complete-tx of the 16 bytes completes phase 0.
        b.add_tx(-16).unwrap();
        assert!(b.maybe_complete());
        assert_eq!((b.phase, b.pending, b.tx), (1, 2, 0));
        assert!(b.wait(tok0, false) && b.wait(0, true) && !b.wait(1, true));
        // arrive_drop: phase 1 completes with one arrival short, phase 2 needs one.
        assert_eq!(b.arrive(1, true, 0), Ok(false));
        assert_eq!((b.expected, b.pending), (1, 1));
        assert_eq!(b.arrive(1, false, 0), Ok(true));
        assert_eq!((b.phase, b.pending, b.expected), (0, 1, 1));
        // Too many arrivals, counts out of range.
        assert!(b.arrive(2, false, 0).is_err());
        assert!(b.arrive(0, false, 0).is_err());
        assert!(b.arrive(1, false, MAX_COUNT + 1).is_err());
    }

    /// More bytes completed than the phase expects, once every arrival is in: a fault (the
    /// phase could never complete), whichever came first; a copy ahead of its expect-tx with
    /// an arrival still pending is not one.
    #[test]
    fn tx_count_underflow_faults() {
        let underflow = |r: Result<bool, String>| r.is_err_and(|e| e.contains("underflow"));
        // expect-tx 16 with the last arrival, then 32 bytes complete.
        let mut b = MbarState::init(1);
        assert_eq!(b.arrive(1, false, 16), Ok(false));
        assert!(underflow(b.complete_tx(32)));
        // 32 bytes complete first (tx-count -32, one arrival pending: allowed), then the last
        // arrival expects only 16.
        let mut b = MbarState::init(1);
        assert_eq!(b.complete_tx(32), Ok(false));
        assert_eq!((b.pending, b.tx), (1, -32));
        assert!(underflow(b.arrive(1, false, 16)));
        // The same copy ahead of an arrival that expects all of it completes the phase.
        let mut b = MbarState::init(1);
        assert_eq!(b.complete_tx(32), Ok(false));
        assert_eq!(b.arrive(1, false, 32), Ok(true));
        assert_eq!((b.phase, b.tx), (1, 0));
    }
}
