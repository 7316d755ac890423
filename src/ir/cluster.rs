//! Thread block clusters (PTX ISA §2.2.2 "Cluster of Cooperative Thread Arrays"): the fixed
//! modifiers of `barrier.cluster` (§9.7.13.2), `mapa` (§9.7.9.23) and `getctarank`
//! (§9.7.9.24), and a kernel's cluster directives (§11.5). The runtime side (how a cluster's
//! CTAs run together, the barrier's state and the `.shared::cluster` address encoding) is
//! `runtime::cluster`.
//!
//! Memory-ordering qualifiers (`.release`/`.relaxed` on arrive, `.acquire` on wait) and
//! `.aligned` are checked by the front end and not kept: the CTAs of a cluster run on one host
//! thread, one warp at a time, so every access before an arrive is visible after the wait
//! that it releases.

use std::fmt;

/// A `barrier.cluster` step. [`crate::ir::Op::ClusterBarrier`]'s operands, per step:
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterBarOp {
    /// `barrier.cluster.arrive`: no operands. Each active lane arrives on the cluster's
    /// barrier in its current phase.
    Arrive,
    /// One test of `barrier.cluster.wait`: no operands → pred, whether the phase the lane
    /// arrived in has completed. The front end loops on it (a loop that yields to the other
    /// warps and CTAs each time round, `lower::yields`) until it is true.
    Wait,
}

impl ClusterBarOp {
    /// Whether the step tests the barrier (a loop around it waits for other threads).
    pub fn waits(self) -> bool {
        matches!(self, ClusterBarOp::Wait)
    }
}

impl fmt::Display for ClusterBarOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterBarOp::Arrive => f.write_str("arrive"),
            ClusterBarOp::Wait => f.write_str("wait"),
        }
    }
}

/// A kernel's cluster directives (PTX ISA §11.5 "Cluster Dimension Directives"):
/// `.reqnctapercluster nx, ny, nz` (the launch's cluster shape when the launch gives none),
/// `.explicitcluster` (the kernel must be launched with a cluster shape) and
/// `.maxclusterrank n` (at most `n` CTAs per cluster).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterDirectives {
    /// `.reqnctapercluster`, missing dimensions 1.
    pub reqnctapercluster: Option<[u32; 3]>,
    /// `.explicitcluster`.
    pub explicit: bool,
    /// `.maxclusterrank`.
    pub max_rank: Option<u32>,
}
