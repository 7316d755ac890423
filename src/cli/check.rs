//! `ptxjit check`: interpreter vs JIT on one case, bit for bit unless the case's
//! `[expect.NAME]` tables say otherwise.

use super::output::{index_word, text_report};
use super::{fail, CheckArgs};
use crate::case::{check_case, Case, CheckMode, CheckResult, Order, RunOptions};

/// Differences printed per buffer.
const SHOW_DIFFS: usize = 5;

pub fn check(a: &CheckArgs) -> u8 {
    let timeout = match super::timeout(a.timeout) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    if super::run::is_kernel_file(&a.case) {
        return fail(format!(
            "{} is a {} file, not a case file: ptxjit check compares the engines on a case \
             (write one: docs/case-format.md); `ptxjit run --ptx {} --kernel NAME ..` runs the \
             kernel once",
            a.case.display(),
            super::run::kernel_file_kind(&a.case),
            a.case.display()
        ));
    }
    let case = match Case::load(&a.case) {
        Ok(c) => c.with_nvrtc(a.cuda.options()),
        Err(e) => return fail(e),
    };
    let opts = RunOptions {
        memcheck: a.memcheck,
        synccheck: false,
        schedule: a.schedule,
        lockstep: a.lockstep,
        initcheck: false,
        racecheck: false,
        racecheck_global: false,
        repeat: 0,
        timeout,
        printf_to_stderr: false,
    };
    super::print_schedule(a.schedule);
    let c = match check_case(&case, &opts) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    print!("{}", text_report(&c.interp, "[interp] "));
    print!("{}", text_report(&c.jit, "[jit] "));
    for n in &c.jit.notes {
        eprintln!("{n}");
    }
    for d in &c.diffs {
        for m in d.comparison.first.iter().take(SHOW_DIFFS) {
            println!(
                "DIFF {}: {} {}: interp {}, jit {}",
                d.buffer,
                index_word(&d.comparison),
                m.index,
                m.want,
                m.got
            );
        }
        println!(
            "DIFF {}: {} of {} elements differ",
            d.buffer, d.comparison.mismatches, d.comparison.total
        );
    }
    if let Some(e) = &c.error_diff {
        println!("DIFF error: {e}");
    }
    if c.agree() {
        match &c.interp.error {
            Some(e) => println!("SAME both engines report the same {} error", e.kind()),
            None => println!("SAME {}", same_line(&c, &case)),
        }
    }
    for n in &c.notes {
        println!("NOTE {n}");
    }
    match (&c.interp.error, c.agree()) {
        (_, false) => 1,
        (Some(e), true) => fail(e),
        (None, true) if c.interp.passed() && c.jit.passed() => 0,
        (None, true) => 1,
    }
}

/// What agreed: `2 buffers (1024 elements) identical bit for bit`, or, when `[expect]` tables
/// say otherwise, `2 buffers (1024 elements) agree (bit for bit, except out: as multisets;
/// log: not compared)` (skipped buffers are not counted).
fn same_line(c: &CheckResult, case: &Case) -> String {
    let compared: Vec<_> = c
        .interp
        .buffers
        .iter()
        .filter(|b| !c.skipped.contains(&b.name))
        .collect();
    let elems: usize = compared.iter().map(|b| b.len()).sum();
    let n = compared.len();
    let plural = if n == 1 { "" } else { "s" };
    let mut rules = vec![];
    for (name, e) in &case.spec.expect {
        let how = match (e.check, e.order) {
            (CheckMode::Skip, _) => "not compared".to_string(),
            (CheckMode::Exact, Order::Index) => continue,
            (CheckMode::Exact, Order::Any) => "as multisets".to_string(),
            (CheckMode::Tolerance, Order::Index) => format!("within tolerance {}", e.tolerance),
            (CheckMode::Tolerance, Order::Any) => {
                format!("as multisets within tolerance {}", e.tolerance)
            }
        };
        rules.push(format!("{name}: {how}"));
    }
    if rules.is_empty() {
        format!("{n} buffer{plural} ({elems} elements) identical bit for bit")
    } else {
        format!(
            "{n} buffer{plural} ({elems} elements) agree (bit for bit, except {})",
            rules.join("; ")
        )
    }
}
