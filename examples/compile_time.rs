//! Load + compile time of the benchmark kernels (`benches/cases/*.toml`) on the JIT, without
//! generating inputs or launching: per kernel, the median wall time of loading its PTX into a
//! fresh context and compiling every kernel of the module (`Module::compile_all`), the figure
//! of the README's compile column.
//!
//! ```sh
//! cargo run --release --example compile_time                      # every kernel, 20 runs each
//! cargo run --release --example compile_time -- --runs 5 saxpy sgemm_tiled
//! ```
//! For an instruction count that does not depend on the machine's load, run one kernel under
//! valgrind twice and subtract: `valgrind --tool=cachegrind --cache-sim=no
//! target/release/examples/compile_time --runs 2 saxpy` minus the same with `--runs 1` is one
//! load + compile (each run loads the text again with a comment no earlier run added, so the
//! process's kernel cache (`host::cache`) lends nothing). `--runs 0` loads nothing.
//!
//! The time is until the first launch could start: the JIT's quick tier (`host::tiers`).
//! Each run then waits, untimed, for the optimized tier, so under valgrind set
//! `PTXJIT_TIER=quick` or `PTXJIT_TIER=optimized` to count one tier (unset, the count is
//! both). `PTXJIT_TIER=optimized` times the optimized tier alone.

use ptxjit::case::Case;
use ptxjit::host::{Context, Engine};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    if let Err(e) = run() {
        eprintln!("compile_time: {e}");
        std::process::exit(1);
    }
}

/// What `--help` prints.
const USAGE: &str = "\
Usage: compile_time [--runs N] [KERNEL ...]
Load + compile time on the JIT of the benchmark kernels (benches/cases/*.toml) named, or of all:
the median wall time of loading each module's PTX into a fresh context and compiling every kernel.

Options:
  --runs N     runs per kernel (default 20; 0 loads nothing)
  -h, --help   print this
";

fn run() -> Result<(), String> {
    let mut runs = 20usize;
    let mut only = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(());
            }
            "--runs" => {
                runs = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--runs needs a number")?
            }
            "--bench" => {} // cargo passes it to harness-less targets; ignore
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => only.push(s.to_string()),
        }
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/cases");
    if only.is_empty() {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let p = e.path();
                (p.extension()? == "toml").then(|| p.file_stem()?.to_str().map(String::from))?
            })
            .collect();
        names.sort();
        only = names;
    }
    let mut worst: Option<(String, Duration)> = None;
    for name in &only {
        let path = dir.join(format!("{name}.toml"));
        let case = Case::load(&path).map_err(|e| e.to_string())?;
        let ptx_path = case.dir.join(&case.spec.ptx);
        let ptx = std::fs::read_to_string(&ptx_path)
            .map_err(|e| format!("{}: {e}", ptx_path.display()))?;
        let file = ptx_path.display().to_string();
        let mut times = Vec::with_capacity(runs);
        for i in 0..runs {
            // A comment no earlier run added: the kernel cache keys on the text.
            let text = format!("{ptx}\n// compile_time run {i}\n");
            let t = Instant::now();
            let m = Context::new()
                .load_module(&text, &file, Engine::Jit)
                .and_then(|m| m.compile_all().map(|()| m))
                .map_err(|e| format!("{name}: {e}"))?;
            times.push(t.elapsed());
            // The optimized tier, compiling in the background meanwhile, is waited for outside
            // the time, so that it does not run during the next measurement.
            m.compile_all_optimized()
                .map_err(|e| format!("{name}: {e}"))?;
        }
        if runs == 0 {
            continue;
        }
        times.sort();
        let med = times[runs / 2];
        println!(
            "{name:18} load + compile {:7.3} ms (median of {runs}; min {:.3}, max {:.3})",
            med.as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            times[runs - 1].as_secs_f64() * 1e3
        );
        if worst.as_ref().is_none_or(|(_, w)| med > *w) {
            worst = Some((name.clone(), med));
        }
    }
    if let Some((name, w)) = worst {
        println!(
            "slowest: {name} {:.3} ms (target ≤ 5 ms per kernel)",
            w.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
