//! Warp-group parts for control flow (`tests/isa/harness.rs`'s `>>>` format):
//!
//! - A line `func TEXT` (before the group's first `case`) puts `TEXT`, module-level PTX (a
//!   `.func` definition or declaration, several statements on the one line), before the kernel:
//!   the functions a snippet `call`s, directly or through a function pointer.
//! - A clause `; fault TEXT`: the launch of the group's cases must end in a fault whose report
//!   contains `TEXT` (`trap`); outputs and images are not checked (a fault ends the whole
//!   launch, so such a group normally has one case).
//! - A clause `; rejects TEXT`: the module must fail to load, with an error containing `TEXT`
//!   (an operand the ISA forbids, as ptxas refuses it); such a group has no cases.

use crate::harness::WarpGroup;

/// What a group expects of its launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Outcome {
    /// The launch completes; outputs and images are checked.
    #[default]
    Runs,
    /// The launch faults with a report containing the text.
    Faults(String),
    /// The module fails to load with an error containing the text.
    Rejected(String),
}

/// `fault TEXT` or `rejects TEXT` in a `>>>` header's clauses: the outcome; another clause:
/// `None`.
pub fn outcome_clause(clause: &str, line: usize) -> Result<Option<Outcome>, String> {
    let (outcome, text): (fn(String) -> Outcome, _) = if let Some(t) = clause.strip_prefix("fault")
    {
        (Outcome::Faults, t)
    } else if let Some(t) = clause.strip_prefix("rejects") {
        (Outcome::Rejected, t)
    } else {
        return Ok(None);
    };
    // `faults` or `rejected…` are not these clauses.
    if !text.is_empty() && !text.starts_with(' ') {
        return Ok(None);
    }
    let text = text.trim();
    if text.is_empty() {
        return Err(format!(
            "line {line}: '{}' needs the text the error must contain",
            clause.trim()
        ));
    }
    Ok(Some(outcome(text.to_string())))
}

/// A `func TEXT` line of a warp group: `Some(TEXT)`.
pub fn func_line(l: &str) -> Option<&str> {
    l.strip_prefix("func ").map(str::trim)
}

/// The module-level PTX of a group's `func` lines, one a line.
pub fn funcs_ptx(w: &WarpGroup) -> String {
    w.funcs.iter().map(|f| format!("{f}\n")).collect()
}

/// Checks a group's cases against its outcome at parse time: a `rejects` group has no cases,
/// every other group at least one.
pub fn check_cases(w: &WarpGroup) -> Result<(), String> {
    match (&w.outcome, w.cases.is_empty()) {
        (Outcome::Rejected(_), false) => {
            Err(format!("line {}: a 'rejects' group has no cases", w.line))
        }
        (Outcome::Rejected(_), true) | (_, false) => Ok(()),
        (_, true) => Err(format!("line {}: warp group without cases", w.line)),
    }
}

/// The result of loading a group's module against a `rejects` clause: `Ok(true)` when the
/// group expected the rejection and got it (nothing more to run), `Ok(false)` when it runs.
pub fn check_load<T, E: std::fmt::Display>(
    w: &WarpGroup,
    loaded: &Result<T, E>,
    engine: impl std::fmt::Display,
) -> Result<bool, String> {
    let Outcome::Rejected(want) = &w.outcome else {
        return Ok(false);
    };
    match loaded {
        Ok(_) => Err(format!(
            "`{}` on {engine} (table line {}): loaded; expected an error containing '{want}'",
            w.ptx, w.line
        )),
        Err(e) if !e.to_string().contains(want.as_str()) => Err(format!(
            "`{}` on {engine} (table line {}): error '{e}' lacks '{want}'",
            w.ptx, w.line
        )),
        Err(_) => Ok(true),
    }
}

/// The result of a group's launch against a `fault` clause: `Ok(true)` when the group expected
/// the fault and got it (nothing to check), `Ok(false)` when the launch completed as expected.
pub fn check_launch<T, E: std::fmt::Display>(
    w: &WarpGroup,
    launched: Result<T, E>,
    engine: impl std::fmt::Display,
) -> Result<bool, String> {
    match (&w.outcome, launched) {
        (Outcome::Faults(want), Err(e)) if e.to_string().contains(want.as_str()) => Ok(true),
        (Outcome::Faults(want), Err(e)) => Err(format!(
            "`{}` on {engine} (table line {}): fault '{e}' lacks '{want}'",
            w.ptx, w.line
        )),
        (Outcome::Faults(want), Ok(_)) => Err(format!(
            "`{}` on {engine} (table line {}): the launch completed; expected a fault containing '{want}'",
            w.ptx, w.line
        )),
        (_, Err(e)) => Err(format!(
            "`{}` on {engine} (table line {}): {e}",
            w.ptx, w.line
        )),
        (_, Ok(_)) => Ok(false),
    }
}
