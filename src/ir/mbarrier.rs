//! The fixed modifiers of the `mbarrier` operations (PTX ISA §9.7.13.15, "Parallel
//! Synchronization and Communication Instructions: mbarrier") and of
//! `cp.async.mbarrier.arrive` (§9.7.13.15.15), which act on a 64-bit *mbarrier object* in
//! shared memory. The object's layout and the state tokens are ptxjit's choice (the ISA
//! leaves them opaque): `runtime::mbarrier` defines and documents them.
//!
//! Memory-ordering qualifiers (`.release`, `.acquire`, `.relaxed`) and scopes (`.cta`,
//! `.cluster`) are checked by the front end and not kept: the lanes of a CTA run on one host
//! thread, one warp at a time, so every `mbarrier` operation is already ordered with the
//! CTA's other memory accesses.

use std::fmt;

/// Which `mbarrier` operation. Operands of [`crate::ir::Op::MBarrier`], in order (the address
/// first: an `i32` or `i64` shared-space or generic address, per the op's `space`):
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MbarOp {
    /// `mbarrier.init`: args (addr, count i32). Phase 0, expected = pending = count, tx-count 0.
    Init,
    /// `mbarrier.inval`: args (addr). The object is no longer an mbarrier.
    Inval,
    /// `mbarrier.arrive{.expect_tx}{.noComplete}` and `mbarrier.arrive_drop…`: args (addr,
    /// count i32, tx i32) → state i64 (the object before the arrive-on operation). `drop`
    /// first lowers the expected count by `count`; `tx` (`.expect_tx`, else 0) is added to
    /// the tx-count before the arrive-on; `no_complete`: the arrival must not complete the
    /// phase (undefined in the ISA; ptxjit faults).
    Arrive { drop: bool, no_complete: bool },
    /// `mbarrier.expect_tx`: args (addr, tx i32): tx-count += tx.
    ExpectTx,
    /// `mbarrier.complete_tx`: args (addr, tx i32): tx-count -= tx; may complete the phase.
    CompleteTx,
    /// `mbarrier.test_wait` / `mbarrier.try_wait` (`try_`): args (addr, state i64 | parity
    /// i32 when `parity`) → pred: whether the phase the token (or parity) names is complete.
    /// `try_wait`'s optional suspend-time hint is dropped by the front end: a waiting loop
    /// yields to the CTA's other warps at every iteration (`lower::yields`).
    Wait { parity: bool, try_: bool },
    /// `mbarrier.pending_count`: args (state i64) → i32, the pending arrival count the token
    /// recorded. Reads no memory (no address operand).
    PendingCount,
    /// `cp.async.mbarrier.arrive{.noinc}`: args (addr). ptxjit's `cp.async` copies are done
    /// when they execute, so the asynchronous arrive-on happens at once: without `.noinc`
    /// (pending count + 1, then an arrive-on of 1) nothing changes; with `.noinc` it is an
    /// arrive-on of 1.
    CpAsyncArrive { noinc: bool },
}

impl MbarOp {
    /// Whether the operation reads the object to wait on it (a loop around it may be waiting
    /// for another warp: `lower::yields`).
    pub fn waits(self) -> bool {
        matches!(self, MbarOp::Wait { .. })
    }

    /// Whether args[0] is the object's address (all but `pending_count`).
    pub fn has_address(self) -> bool {
        !matches!(self, MbarOp::PendingCount)
    }
}

impl fmt::Display for MbarOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MbarOp::Init => f.write_str("init"),
            MbarOp::Inval => f.write_str("inval"),
            MbarOp::Arrive { drop, no_complete } => write!(
                f,
                "{}{}",
                if *drop { "arrive_drop" } else { "arrive" },
                if *no_complete { ".noComplete" } else { "" }
            ),
            MbarOp::ExpectTx => f.write_str("expect_tx"),
            MbarOp::CompleteTx => f.write_str("complete_tx"),
            MbarOp::Wait { parity, try_ } => write!(
                f,
                "{}{}",
                if *try_ { "try_wait" } else { "test_wait" },
                if *parity { ".parity" } else { "" }
            ),
            MbarOp::PendingCount => f.write_str("pending_count"),
            MbarOp::CpAsyncArrive { noinc } => {
                write!(f, "cp_async_arrive{}", if *noinc { ".noinc" } else { "" })
            }
        }
    }
}
