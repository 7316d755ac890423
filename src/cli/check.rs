//! `ptxjit check`: interpreter vs JIT on one case, bit for bit.

use super::output::text_report;
use super::{fail, CheckArgs};
use crate::case::{check_case, Case, RunOptions};

/// Differences printed per buffer.
const SHOW_DIFFS: usize = 5;

pub fn check(a: &CheckArgs) -> u8 {
    let timeout = match super::timeout(a.timeout) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let case = match Case::load(&a.case) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let opts = RunOptions {
        memcheck: a.memcheck,
        repeat: 0,
        timeout,
        printf_to_stderr: false,
    };
    let c = match check_case(&case, &opts) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    print!("{}", text_report(&c.interp, "[interp] "));
    print!("{}", text_report(&c.jit, "[jit] "));
    for d in &c.diffs {
        for m in d.comparison.first.iter().take(SHOW_DIFFS) {
            println!(
                "DIFF {}: index {}: interp {}, jit {}",
                d.buffer, m.index, m.want, m.got
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
        let elems: usize = c.interp.buffers.iter().map(|b| b.len()).sum();
        match &c.interp.error {
            Some(e) => println!("SAME both engines report the same {} error", e.kind()),
            None => {
                let n = c.interp.buffers.len();
                let plural = if n == 1 { "" } else { "s" };
                println!("SAME {n} buffer{plural} ({elems} elements) identical bit for bit")
            }
        }
    }
    match (&c.interp.error, c.agree()) {
        (_, false) => 1,
        (Some(e), true) => fail(e),
        (None, true) if c.interp.passed() && c.jit.passed() => 0,
        (None, true) => 1,
    }
}
