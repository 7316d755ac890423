//! `ptxjit check`: run one case on the interpreter (the oracle) and on the JIT from identical
//! inputs and compare everything they produce — every buffer bit for bit (any NaN equals any
//! NaN) unless its `[expect.NAME]` says otherwise (`order = "any"`: as multisets; `check =
//! "tolerance"`: within the table's tolerance; `check = "skip"`: not at all), and the error, if
//! any (same kind and same message, so a fault must have the same report on both; a time
//! limit or interrupt on both engines is never agreement, as it compared nothing). After an
//! error the buffers are not compared: a fault aborts the launch, and how far the other CTAs
//! and warps got is unspecified (as on a GPU, where a fault ends the context), so their
//! contents differ from run to run.
//!
//! The result also carries notes ([`super::notes`]) on atomics of the launched kernels whose
//! order of execution can legitimately change what a buffer holds: information for the reader
//! of a difference, never a failure.

use super::compare::{compare_ordered, Comparison};
use super::run::{run_prepared, CaseResult, RunOptions, KEEP_MISMATCHES};
use super::{Case, CaseError, CheckMode, Expected, HostBuffer, Order, Prepared, Tolerance};
use crate::host::Engine;

/// One buffer whose contents differ between the engines (`got` = JIT, `want` = interpreter).
#[derive(Clone, Debug)]
pub struct BufferDiff {
    pub buffer: String,
    pub comparison: Comparison,
}

/// Both runs and how they differ.
#[derive(Debug)]
pub struct CheckResult {
    pub interp: CaseResult,
    pub jit: CaseResult,
    pub diffs: Vec<BufferDiff>,
    /// The engines' errors differ, or a time limit or interrupt stopped both (nothing was
    /// compared): a description of both.
    pub error_diff: Option<String>,
    /// Buffers not compared (`check = "skip"`).
    pub skipped: Vec<String>,
    /// Atomics whose order can legitimately change results ([`super::notes`]).
    pub notes: Vec<String>,
}

impl CheckResult {
    /// The engines agree: same error (or none; never a time limit or interrupt on both) and
    /// the same buffers (as each buffer's `[expect.NAME]` says to compare them).
    pub fn agree(&self) -> bool {
        self.diffs.is_empty() && self.error_diff.is_none()
    }
}

/// Prepare `case` once and compare the two engines on it. A case that cannot be prepared
/// (bad data file …) is the same error on both sides.
pub fn check_case(case: &Case, opts: &RunOptions) -> Result<CheckResult, CaseError> {
    let prepared = case.prepare()?;
    Ok(check_prepared(case, &prepared, opts))
}

/// [`check_case`] on an already prepared case.
pub fn check_prepared(case: &Case, prepared: &Prepared, opts: &RunOptions) -> CheckResult {
    let interp = run_prepared(case, prepared, Engine::Interp, opts);
    let jit = run_prepared(case, prepared, Engine::Jit, opts);
    let describe = |e: &Option<CaseError>| match e {
        None => "no error".to_string(),
        Some(e) => format!("{} error: {e}", e.kind()),
    };
    let same_error = match (&interp.error, &jit.error) {
        (None, None) => true,
        // Faults: the same first fault, down to how many threads of its CTA faulted
        // (`FaultReport::count`), in the same launch.
        (Some(a), Some(b)) => match (a.runtime(), b.runtime()) {
            (Some(crate::host::Error::Fault(fa)), Some(crate::host::Error::Fault(fb))) => {
                fa == fb && launch_of(a) == launch_of(b)
            }
            _ => a.kind() == b.kind() && a.to_string() == b.to_string(),
        },
        _ => false,
    };
    // A time limit (or an interrupt) stops each engine at an arbitrary point: two such
    // reports compare nothing, however alike their text, and are no agreement.
    let stopped = |e: &Option<CaseError>| {
        matches!(
            e.as_ref().and_then(CaseError::runtime),
            Some(crate::host::Error::Timeout(..) | crate::host::Error::Interrupted(_))
        )
    };
    let both_stopped = stopped(&interp.error) && stopped(&jit.error);
    let error_diff = (!same_error || both_stopped).then(|| {
        format!(
            "{}interpreter: {}; jit: {}",
            if both_stopped {
                "both engines were stopped before the end, so nothing was compared: "
            } else {
                ""
            },
            describe(&interp.error),
            describe(&jit.error)
        )
    });
    let (diffs, skipped) = if interp.error.is_none() && jit.error.is_none() {
        compare_engines(&interp.buffers, &jit.buffers, &prepared.expects)
    } else {
        (vec![], vec![])
    };
    CheckResult {
        interp,
        jit,
        diffs,
        error_diff,
        skipped,
        notes: super::notes::order_notes(case, prepared),
    }
}

/// The launch an error names (`None` outside a pipeline).
fn launch_of(e: &CaseError) -> Option<&str> {
    match e {
        CaseError::InLaunch { at, .. } => Some(at),
        CaseError::Case(_)
        | CaseError::Unsupported(_)
        | CaseError::Io(_)
        | CaseError::Runtime(_)
        | CaseError::Sanitizer(_) => None,
    }
}

/// Compare the engines' final buffers (same order, same names), each as its `[expect.NAME]`
/// says (`order`, `check`; without a table: bit for bit, any NaN equal to any NaN, in index
/// order). Returns the buffers that differ and the names of those not compared
/// (`check = "skip"`).
pub fn compare_engines(
    interp: &[HostBuffer],
    jit: &[HostBuffer],
    expects: &[Expected],
) -> (Vec<BufferDiff>, Vec<String>) {
    let mut diffs = vec![];
    let mut skipped = vec![];
    for (a, b) in interp.iter().zip(jit) {
        let rule = expects.iter().find(|e| e.buffer == a.name);
        let order = rule.map_or(Order::Index, |e| e.order);
        let tolerance = match rule.map(|e| (e.check, e.tolerance)) {
            None | Some((CheckMode::Exact, _)) => Tolerance::default(),
            Some((CheckMode::Tolerance, t)) => t,
            Some((CheckMode::Skip, _)) => {
                skipped.push(a.name.clone());
                continue;
            }
        };
        let c = compare_ordered(
            a.dtype,
            &b.bytes,
            &a.bytes,
            &tolerance,
            order,
            KEEP_MISMATCHES,
        );
        if !c.passed() {
            diffs.push(BufferDiff {
                buffer: a.name.clone(),
                comparison: c,
            });
        }
    }
    (diffs, skipped)
}
