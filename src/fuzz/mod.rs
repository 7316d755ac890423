//! Differential fuzzing: random valid kernels run on the interpreter (the oracle) and on the
//! JIT, compared bit for bit; failures are shrunk and written as ready-to-commit cases.
//!
//! - [`gen`] builds kernels that are valid by construction and fully determined by the PTX ISA
//!   (every register initialised, masked in-bounds addresses, race-free memory, barriers and
//!   `shfl.sync` only in uniform control flow, bounded loops), from the instruction table in
//!   [`forms`] and a seeded or byte-fed choice stream ([`rng`]).
//! - [`case`] describes the launch (grid, block, buffers with deterministic contents) and writes
//!   it as a case file without expectations: the check is engine agreement (`ptxjit check`).
//! - [`diff`] runs a case on both engines and compares buffers and faults.
//! - [`shrink`] reduces a failing kernel while the failure persists.
//! - [`fuzz`] is the loop behind `ptxjit fuzz`, the smoke test and the regression writer; the
//!   cargo-fuzz targets in `fuzz/` call [`gen`] and [`diff`] directly.
//!
//! Everything here is deterministic: case `i` of seed `s` is the same kernel on every machine.

pub mod case;
#[cfg(feature = "cli")]
pub mod cli;
pub mod diff;
pub mod forms;
pub mod gen;
mod render;
pub mod rng;
pub mod shrink;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use case::LaunchCase;
use diff::Verdict;
use gen::{GenConfig, Kernel};
use rng::Rng;

/// Options of a fuzzing run.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// Seed of the case sequence.
    pub seed: u64,
    /// Stop after this many cases.
    pub cases: Option<u64>,
    /// Stop after this long.
    pub time: Option<Duration>,
    /// Upper bound of the size knob; each case draws its size in `size/4 ..= size`.
    pub size: usize,
    /// Write every generated case here (`NAME.ptx` + `NAME.toml`).
    pub emit: Option<PathBuf>,
    /// Only generate (and emit); do not run the engines.
    pub emit_only: bool,
    /// Where failures are written, shrunk.
    pub out: PathBuf,
    /// Time limit for shrinking one failure.
    pub shrink_time: Duration,
    /// Continue after a failure.
    pub keep_going: bool,
    /// Run both engines in lockstep order (`LaunchOptions::lockstep`) instead of the
    /// group-major order of the generated kernels' `sm_80` target.
    pub lockstep: bool,
}

impl Default for FuzzOptions {
    fn default() -> FuzzOptions {
        FuzzOptions {
            seed: 0,
            cases: Some(100),
            time: None,
            size: 40,
            emit: None,
            emit_only: false,
            out: PathBuf::from("ptx-tests/fuzz-regressions"),
            shrink_time: Duration::from_secs(120),
            keep_going: false,
            lockstep: false,
        }
    }
}

/// One failure found.
#[derive(Clone, Debug)]
pub struct Find {
    /// The case's own seed (reproduce with [`kernel_for_seed`]).
    pub case_seed: u64,
    pub verdict: Verdict,
    /// Statements before and after shrinking.
    pub statements: (usize, usize),
    /// The regression case written (`.toml`), if writing worked.
    pub file: Option<PathBuf>,
    /// Why it could not be written.
    pub write_error: Option<String>,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub cases: u64,
    pub finds: Vec<Find>,
    pub elapsed: Duration,
}

/// Progress, reported after every case.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub cases: u64,
    pub finds: usize,
    pub elapsed: Duration,
    /// Set while a failure is being shrunk.
    pub shrinking: bool,
}

/// The seed of case `i` of a run seeded with `seed`.
pub fn case_seed(seed: u64, i: u64) -> u64 {
    let mut r = Rng::seeded(seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    r.next_u64()
}

/// The kernel of a case seed, with its size drawn in `size/4 ..= size`.
pub fn kernel_for_seed(case_seed: u64, size: usize) -> Kernel {
    let mut rng = Rng::seeded(case_seed);
    let size = rng.range((size / 4).max(1) as u64, size.max(1) as u64) as usize;
    gen::generate(&mut rng, GenConfig { size })
}

/// The name files of a case seed are written under.
pub fn case_name(case_seed: u64) -> String {
    format!("fuzz_{case_seed:016x}")
}

/// Writes `case` as `DIR/NAME.ptx` and `DIR/NAME.toml` with `comment` at the top of the TOML.
pub fn write_case(
    dir: &Path,
    name: &str,
    case: &LaunchCase,
    comment: &str,
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let ptx_file = format!("{name}.ptx");
    let ptx_path = dir.join(&ptx_file);
    std::fs::write(&ptx_path, &case.ptx).map_err(|e| format!("{}: {e}", ptx_path.display()))?;
    let toml_path = dir.join(format!("{name}.toml"));
    std::fs::write(&toml_path, case.to_toml(&ptx_file, comment))
        .map_err(|e| format!("{}: {e}", toml_path.display()))?;
    Ok(toml_path)
}

/// A one-line description of a failing verdict.
pub fn headline(v: &Verdict) -> String {
    match v {
        Verdict::Agree => "engines agree".to_string(),
        Verdict::Rejected(e) => format!("generated kernel rejected by both engines: {e}"),
        Verdict::Timeout(_) => {
            "both engines ran past the time limit (a generated kernel must end)".to_string()
        }
        Verdict::Deadlock(_) => {
            "both engines report the same deadlock (a generated kernel's waits must complete)"
                .to_string()
        }
        Verdict::Mismatch { kind, .. } => format!("interpreter and JIT disagree ({kind:?})"),
    }
}

/// The time limit of each launch of a shrinking candidate, for a failure whose comparison took
/// `original` (every launch of it, both engines).
///
/// A candidate is the failing kernel with less in it, so it needs no more time than the
/// original did: twice the original comparison and a second more (at most
/// [`diff::TIMEOUT`]), past which it is not the same failure. A kernel that did not end
/// ([`Verdict::Timeout`]) ran to the limit, so its time says nothing: its candidates get a
/// tenth of [`diff::TIMEOUT`] (2 s), far past what a generated kernel that ends needs (the
/// slowest of 150 default-size cases took about a second on both engines together, compiles
/// included, on a loaded two-core host), and a candidate that runs past it on both engines
/// counts as not ending.
pub fn candidate_limit(verdict: &Verdict, original: Duration) -> Duration {
    match verdict {
        Verdict::Timeout(_) => diff::TIMEOUT / 10,
        Verdict::Agree | Verdict::Rejected(_) | Verdict::Deadlock(_) | Verdict::Mismatch { .. } => {
            (original * 2 + Duration::from_secs(1)).min(diff::TIMEOUT)
        }
    }
}

/// Shrinks the failing kernel of `case_seed` (run in lockstep order or not), whose comparison
/// took `original`, and writes it to `out` as a regression case.
///
/// The shrink keeps to `shrink_time`: each candidate's launches run under
/// [`candidate_limit`], and a candidate is tried only while three such launches (the
/// interpreter and both JIT tiers) fit in what is left of it. A candidate that ran past its
/// limit on an engine is the same failure only for a kernel that did not end.
pub fn shrink_and_write(
    kernel: &Kernel,
    case_seed: u64,
    verdict: &Verdict,
    out: &Path,
    shrink_time: Duration,
    original: Duration,
    lockstep: bool,
) -> Find {
    let before = shrink::count(&kernel.body);
    let limit = candidate_limit(verdict, original);
    let timeout_finding = matches!(verdict, Verdict::Timeout(_));
    // The verdict of the last candidate kept, the shrunk kernel's (its detail names the final
    // buffer words); the original one where no candidate was kept.
    let mut last = None;
    let (small, tried) = shrink::shrink(
        kernel,
        |v| {
            let got = diff::compare_with(&LaunchCase::of_kernel_in(v, lockstep), limit);
            let same = got.same_failure(verdict) && (timeout_finding || !got.hit_time_limit());
            if same {
                last = Some(got);
            }
            same
        },
        shrink_time,
        limit * 3,
    );
    let case = LaunchCase::of_kernel_in(&small, lockstep);
    let final_verdict = last.unwrap_or_else(|| verdict.clone());
    let after = shrink::count(&small.body);
    let detail = match &final_verdict {
        Verdict::Mismatch { detail, .. }
        | Verdict::Rejected(detail)
        | Verdict::Timeout(detail)
        | Verdict::Deadlock(detail) => detail.clone(),
        Verdict::Agree => String::new(),
    };
    let comment = format!(
        "Differential-fuzzing regression: {}.\n\
         Found by `ptxjit fuzz` (case seed {case_seed:#018x}); shrunk from {before} to {after} \
         statements ({tried} candidates tried, each launch limited to {limit:?}).\n\
         No [expect] tables: the check is that the interpreter and the JIT agree bit for bit on \
         every buffer and on faults.\n\
         Run: ptxjit check {}.toml   (tests/ptx_tests.rs runs it as a check:: trial; \
         PTXJIT_VERIFY_CLIF=1 for a failure of Cranelift's verifier)\n\
         {detail}",
        headline(&final_verdict),
        case_name(case_seed)
    );
    let (file, write_error) =
        match write_case(out, &case_name(case_seed), &case, comment.trim_end()) {
            Ok(p) => (Some(p), None),
            Err(e) => (None, Some(format!("--out: {e}"))),
        };
    Find {
        case_seed,
        verdict: final_verdict,
        statements: (before, after),
        file,
        write_error,
    }
}

/// The differential loop: generate, run both engines, compare; shrink and write each failure.
/// Stops after `opts.cases` cases or `opts.time`, or at the first failure unless
/// `opts.keep_going`. `progress` is called after every case.
pub fn fuzz(opts: &FuzzOptions, mut progress: impl FnMut(Progress)) -> Summary {
    let start = Instant::now();
    let mut s = Summary::default();
    for i in 0.. {
        if opts.cases.is_some_and(|n| i >= n) || opts.time.is_some_and(|t| start.elapsed() >= t) {
            break;
        }
        let cs = case_seed(opts.seed, i);
        let kernel = kernel_for_seed(cs, opts.size);
        let case = LaunchCase::of_kernel_in(&kernel, opts.lockstep);
        if let Some(dir) = &opts.emit {
            let comment = format!(
                "Generated by `ptxjit fuzz --seed {} --size {}` (case {i}, case seed {cs:#018x}).\n\
                 No [expect] tables: check it with `ptxjit check` (interpreter vs JIT).",
                opts.seed, opts.size
            );
            if let Err(e) = write_case(dir, &case_name(cs), &case, &comment) {
                s.finds.push(Find {
                    case_seed: cs,
                    verdict: Verdict::Agree,
                    statements: (0, 0),
                    file: None,
                    write_error: Some(format!("--emit: {e}")),
                });
                break;
            }
        }
        s.cases += 1;
        if !opts.emit_only {
            let compared = Instant::now();
            let verdict = diff::compare(&case);
            let original = compared.elapsed();
            if !verdict.is_agree() {
                progress(Progress {
                    cases: s.cases,
                    finds: s.finds.len() + 1,
                    elapsed: start.elapsed(),
                    shrinking: true,
                });
                s.finds.push(shrink_and_write(
                    &kernel,
                    cs,
                    &verdict,
                    &opts.out,
                    opts.shrink_time,
                    original,
                    opts.lockstep,
                ));
                if !opts.keep_going {
                    break;
                }
            }
        }
        progress(Progress {
            cases: s.cases,
            finds: s.finds.len(),
            elapsed: start.elapsed(),
            shrinking: false,
        });
    }
    s.elapsed = start.elapsed();
    s
}
