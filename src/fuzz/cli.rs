//! `ptxjit fuzz`: the differential loop on the command line, with a progress bar.
//!
//! ```text
//! ptxjit fuzz [--seed S] [--cases N | --seconds T] [--size K] [--emit DIR [--emit-only]]
//!             [--out DIR] [--keep-going] [--shrink-seconds T] [--lockstep]
//! ```
//! Exit code 0: every case agreed; 1: a failure was found (shrunk and written under `--out`,
//! default `ptx-tests/fuzz-regressions/`); 2: an error (a case file could not be written).

use std::path::PathBuf;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::diff::Verdict;
use super::{fuzz, headline, FuzzOptions};

/// Arguments of `ptxjit fuzz`.
#[derive(clap::Args, Debug, Clone)]
pub struct FuzzArgs {
    /// Seed of the case sequence (default: from the clock; printed so the run can be repeated).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of cases to run (default 200 when --seconds is not given).
    #[arg(long, conflicts_with = "seconds")]
    pub cases: Option<u64>,
    /// Run for this many seconds.
    #[arg(long)]
    pub seconds: Option<u64>,
    /// Size knob: about how many statements a kernel has at most (1 to 2000).
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u64).range(1..=2000))]
    pub size: u64,
    /// Also write every generated kernel as a case file (NAME.ptx + NAME.toml) into DIR.
    #[arg(long, value_name = "DIR")]
    pub emit: Option<PathBuf>,
    /// With --emit: only generate, do not run the engines.
    #[arg(long, requires = "emit")]
    pub emit_only: bool,
    /// Where shrunk failures are written as regression cases.
    #[arg(long, value_name = "DIR", default_value = "ptx-tests/fuzz-regressions")]
    pub out: PathBuf,
    /// Keep fuzzing after a failure.
    #[arg(long)]
    pub keep_going: bool,
    /// Time limit for shrinking one failure, in seconds.
    #[arg(long, default_value_t = 120)]
    pub shrink_seconds: u64,
    /// Run both engines in lockstep order (as `ptxjit run --lockstep`) instead of the
    /// group-major order of the generated kernels' sm_80 target.
    #[arg(long)]
    pub lockstep: bool,
}

/// Runs `ptxjit fuzz`; prints a summary on stdout and each failure on stderr. Returns the exit
/// code.
pub fn run(args: &FuzzArgs) -> u8 {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let cases = match (args.cases, args.seconds) {
        (None, None) => Some(200),
        (c, _) => c,
    };
    // The directories are tried now, so that a path that cannot be one fails at once, naming
    // its option, and not when the first case or failure is written (after a shrink of up
    // to --shrink-seconds). `--emit`'s is kept (every case goes there); `--out`'s is only
    // made where a failure is written, so levels made for the try are removed again.
    for (option, dir, keep) in [
        ("--emit", args.emit.as_ref(), true),
        ("--out", Some(&args.out), false),
    ] {
        let Some(dir) = dir else { continue };
        // The levels of `dir` that do not exist yet, deepest first.
        let missing: Vec<&std::path::Path> = dir
            .ancestors()
            .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
            .collect();
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!(
                "error: {option} {}: cannot make the directory: {e}",
                dir.display()
            );
            return 2;
        }
        if !keep {
            for level in missing {
                // (A level that cannot be removed stays, empty: nothing is lost.)
                let _ = std::fs::remove_dir(level);
            }
        }
    }
    let opts = FuzzOptions {
        seed,
        cases,
        time: args.seconds.map(Duration::from_secs),
        size: args.size as usize,
        emit: args.emit.clone(),
        emit_only: args.emit_only,
        out: args.out.clone(),
        shrink_time: Duration::from_secs(args.shrink_seconds),
        keep_going: args.keep_going,
        lockstep: args.lockstep,
    };
    let verifier = crate::switches::verify_clif_by_default();
    eprintln!(
        "ptxjit fuzz --seed {seed} --size {}{}{}",
        opts.size,
        if opts.lockstep { " --lockstep" } else { "" },
        match (cases, args.seconds) {
            (Some(n), _) => format!(" --cases {n}"),
            (None, Some(t)) => format!(" --seconds {t}"),
            _ => String::new(),
        }
    );
    eprintln!(
        "Cranelift's IR verifier {} (PTXJIT_VERIFY_CLIF)",
        if verifier { "on" } else { "off" }
    );
    let bar = match (cases, args.seconds) {
        (Some(n), _) => {
            let b = ProgressBar::new(n);
            b.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} cases  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            b
        }
        (None, Some(t)) => {
            let b = ProgressBar::new(t);
            b.set_style(
                ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} s  {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            b
        }
        _ => ProgressBar::hidden(),
    };
    let by_time = cases.is_none();
    let summary = fuzz(&opts, |p| {
        bar.set_position(if by_time {
            p.elapsed.as_secs()
        } else {
            p.cases
        });
        bar.set_message(format!(
            "{} cases, {} failures{}",
            p.cases,
            p.finds,
            if p.shrinking { " (shrinking…)" } else { "" }
        ));
    });
    bar.finish_and_clear();
    let mut write_failed = false;
    for f in &summary.finds {
        if let Some(e) = &f.write_error {
            eprintln!("error: {e}");
            write_failed = true;
            continue;
        }
        eprintln!(
            "FAIL case seed {:#018x}: {} (shrunk from {} to {} statements)",
            f.case_seed,
            headline(&f.verdict),
            f.statements.0,
            f.statements.1
        );
        if let Verdict::Mismatch { detail, .. }
        | Verdict::Rejected(detail)
        | Verdict::Timeout(detail)
        | Verdict::Deadlock(detail) = &f.verdict
        {
            for l in detail.lines() {
                eprintln!("    {l}");
            }
        }
        if let Some(p) = &f.file {
            eprintln!("    regression case written: {}", p.display());
        }
    }
    println!(
        "{} cases in {:.1} s ({:.1} cases/s), {} failures",
        summary.cases,
        summary.elapsed.as_secs_f64(),
        summary.cases as f64 / summary.elapsed.as_secs_f64().max(1e-9),
        summary
            .finds
            .iter()
            .filter(|f| f.write_error.is_none())
            .count()
    );
    if write_failed {
        2
    } else if summary.finds.is_empty() {
        0
    } else {
        1
    }
}
