//! Consecutive CTAs of a batch run by one engine call.
//!
//! A kernel whose CTAs end in their first scheduler round (no barrier terminators; see the
//! batch worker of [`super::launch::run_grid`]) runs its CTAs in batches of consecutive
//! linear indices. Between two CTAs of a batch the runtime has only a few things to do,
//! which [`CtaBatch::advance`] does for both engines:
//! - claim the next CTA's stop flag (`AbortControl::next`, without a fence: a fault in a
//!   lower CTA, a time limit or a deadlock elsewhere stops it before it starts);
//! - clear the CTA's shared and local memory (every CTA starts with them zero-filled, as the
//!   general worker's buffers are);
//! - advance `%ctaid` (x fastest, no divisions) and point [`CtaEnv::abort`] at the new flag.
//!
//! An engine that runs several CTAs per call ([`super::launch::WarpEngine::runs_batches`],
//! the JIT) calls [`cta_batch_next`] from its code when a CTA's round has stopped, and while
//! it answers 1 starts the warp states of the next CTA (as `start_cta` would) and runs its
//! round in the same call; its values derived from `%ctaid` are computed again for each CTA.
//! The interpreter's rounds are run one call per CTA, with [`CtaBatch::advance`] between them.

use super::env::CtaEnv;
use std::sync::atomic::AtomicU32;

/// The rest of a batch of consecutive CTAs, which [`CtaEnv::batch`] points to while an engine
/// call may run them.
#[derive(Debug)]
pub struct CtaBatch {
    /// The worker's stop-flag slot (`AbortControl::begin`).
    slot: usize,
    /// Linear index of the CTA running now.
    current: u64,
    /// Linear index one past the batch's last CTA.
    end: u64,
    /// Host buffers `(pointer, bytes)` zero-filled before each CTA after the first (the
    /// CTA's shared memory with the reserved region, and its local memory, which is
    /// `CtaEnv::local_base`'s and is zero-filled by [`CtaEnv::clear_local`]); a length of 0:
    /// none.
    clear: [(*mut u8, usize); 2],
    /// CTAs of the batch that ended and were followed by another (each one round of every
    /// warp), since [`CtaBatch::take_ended`] last read them.
    ended: u64,
    /// The batch was cut short: the next CTA must not start (a fault in a lower or equal
    /// CTA, or everything stopped).
    stopped: bool,
}

impl CtaBatch {
    /// The batch of CTAs `current..end` (linear indices), whose first CTA (`current`) has
    /// claimed stop-flag slot `slot`, runs with `%ctaid` set in the environment and shared
    /// and local memory zero-filled. `clear`: the buffers to zero-fill before each later CTA
    /// (pointer, bytes).
    pub fn new(slot: usize, current: u64, end: u64, clear: [(*mut u8, usize); 2]) -> CtaBatch {
        CtaBatch {
            slot,
            current,
            end,
            clear,
            ended: 0,
            stopped: false,
        }
    }

    /// Start the CTA after the current one, whose round has stopped (every lane exited):
    /// claim its stop flag, zero-fill the buffers and set `env.ctaid` (x fastest, within
    /// `env.nctaid`) and `env.abort`. Returns `false` when there is none to start: the batch
    /// is over, or its next CTA must not run ([`CtaBatch::stopped`]).
    #[inline]
    pub fn advance(&mut self, env: &mut CtaEnv) -> bool {
        let c = self.current + 1;
        if c >= self.end {
            return false;
        }
        // SAFETY: `control` points to the launch's stop flags, alive for the whole launch
        // (the scheduler builds every environment from them).
        let Some(control) = (unsafe { env.control.as_ref() }) else {
            self.stopped = true;
            return false;
        };
        // The slot holds the current CTA, `c - 1` (`new`'s caller claimed the first).
        let Some(flag) = control.next(self.slot, c) else {
            self.stopped = true;
            return false;
        };
        self.ended += 1;
        self.current = c;
        let [(p, n), (_, local)] = self.clear;
        if local != 0 {
            // The local memory is `env`'s: only what the last CTA used needs zero-filling.
            env.clear_local();
        }
        if n != 0 {
            // SAFETY: `p` is a buffer of `n` bytes the worker keeps allocated (and does
            // not otherwise touch) while the batch runs; `new`'s caller gave it.
            unsafe { std::ptr::write_bytes(p, 0, n) };
        }
        env.ctaid = next_ctaid(env.ctaid, env.nctaid);
        env.abort = flag as *const AtomicU32;
        true
    }

    /// Linear index of the CTA running now.
    pub fn current(&self) -> u64 {
        self.current
    }

    /// Whether the batch was cut short (a fault or a stop): no later CTA may start.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The CTAs that ended and were followed by another since the last call (each one
    /// scheduler round of every warp).
    pub fn take_ended(&mut self) -> u64 {
        std::mem::take(&mut self.ended)
    }
}

/// The `%ctaid` of the CTA after `id` in linear order (x fastest, then y, then z; PTX ISA
/// §10.5) in a grid of `nctaid` CTAs, without a division: x counted up, carried into y and
/// then z. Past the grid's last CTA it gives an id outside the grid (z = `nctaid.z`), which
/// callers never start.
#[inline]
pub fn next_ctaid(id: [u32; 3], nctaid: [u32; 3]) -> [u32; 3] {
    let [mut x, mut y, mut z] = id;
    x += 1;
    if x >= nctaid[0] {
        x = 0;
        y += 1;
        if y >= nctaid[1] {
            y = 0;
            z += 1;
        }
    }
    [x, y, z]
}

/// Called by compiled code when the round of a CTA has stopped: 1 when the next CTA of the
/// batch [`CtaEnv::batch`] points to was started ([`CtaBatch::advance`]) and its warps must
/// now be started and run, 0 when the call is over (no batch, or none left to run).
///
/// # Safety
/// `env` is null or the environment of the running CTA, whose `batch` field is null or
/// points to the worker's batch, neither of them borrowed elsewhere during the call.
pub unsafe extern "C" fn cta_batch_next(env: *mut CtaEnv) -> u32 {
    // SAFETY: see the function's contract.
    let Some(env) = (unsafe { env.as_mut() }) else {
        return 0;
    };
    // SAFETY: null, or the worker's batch, which outlives the call and is no part of `env`.
    let Some(batch) = (unsafe { env.batch.as_mut() }) else {
        return 0;
    };
    u32::from(batch.advance(env))
}
