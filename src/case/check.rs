//! `ptxjit check`: run one case on the interpreter (the oracle) and on the JIT from identical
//! inputs and compare everything they produce — every buffer bit for bit (any NaN equals any
//! NaN), and the error, if any (same kind and same message, so a fault must have the same
//! report on both). After an error the buffers are not compared: a fault aborts the launch,
//! and how far the other CTAs and warps got is unspecified (as on a GPU, where a fault ends the
//! context), so their contents differ from run to run.

use super::compare::{compare, Comparison};
use super::run::{run_prepared, CaseResult, RunOptions, KEEP_MISMATCHES};
use super::{Case, CaseError, Prepared, Tolerance};
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
    /// The engines' errors differ: a description of both.
    pub error_diff: Option<String>,
}

impl CheckResult {
    /// The engines agree: same error (or none) and identical buffers.
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
        // Faults: the same first fault and the same faulting threads of its CTA
        // (`FaultReport::count`).
        (
            Some(CaseError::Runtime(crate::host::Error::Fault(a))),
            Some(CaseError::Runtime(crate::host::Error::Fault(b))),
        ) => a == b,
        (Some(a), Some(b)) => a.kind() == b.kind() && a.to_string() == b.to_string(),
        _ => false,
    };
    let error_diff = (!same_error).then(|| {
        format!(
            "interpreter: {}; jit: {}",
            describe(&interp.error),
            describe(&jit.error)
        )
    });
    let mut diffs = vec![];
    let completed = interp.error.is_none() && jit.error.is_none();
    for (a, b) in interp.buffers.iter().zip(&jit.buffers) {
        if !completed {
            break;
        }
        let c = compare(
            a.dtype,
            &b.bytes,
            &a.bytes,
            &Tolerance::default(),
            KEEP_MISMATCHES,
        );
        if !c.passed() {
            diffs.push(BufferDiff {
                buffer: a.name.clone(),
                comparison: c,
            });
        }
    }
    CheckResult {
        interp,
        jit,
        diffs,
        error_diff,
    }
}
