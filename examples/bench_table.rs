//! Prints the benchmark table of issue 8: per kernel, the interpreter, the JIT and an
//! idiomatic native Rust version (rayon), their ratios, POCL's numbers from the issue, and the
//! JIT's load + compile time; then each target of the issue as reached or not.
//!
//! ```sh
//! cargo run --release --example bench_table              # full size everywhere (~2-3 minutes on 2 cores)
//! cargo run --release --example bench_table -- --quick   # interpreter on 1/16 of the work, scaled by work
//! cargo run --release --example bench_table -- saxpy mandelbrot --runs 20
//! ```
//! Options: `--quick`, `--jit-only` (compile and JIT launches only, no table: for
//! profiling), `--runs N` (timed JIT and native runs, default 10, after one warm-up),
//! `--interp-runs N` (default 1, no warm-up), `--compile-runs N` (default 10), kernel names.
//! Times are medians. The kernels, inputs and timing rules are in `benches/suite/mod.rs`.

#[path = "../benches/suite/mod.rs"]
mod suite;

use ptxjit::host::Engine;
use std::time::Duration;
use suite::{median, timed_launch, timed_load, timed_native, Bench, Bound};

struct Opts {
    quick: bool,
    /// Only the JIT: compile and launch (for profiling: `perf record -- … --jit-only saxpy`).
    jit_only: bool,
    runs: usize,
    interp_runs: usize,
    compile_runs: usize,
    only: Vec<String>,
}

fn parse_args() -> Result<Opts, String> {
    let mut o = Opts {
        quick: false,
        jit_only: false,
        runs: 10,
        interp_runs: 1,
        compile_runs: 10,
        only: vec![],
    };
    let mut args = std::env::args().skip(1);
    let num = |v: Option<String>, what: &str| -> Result<usize, String> {
        v.and_then(|s| s.parse().ok())
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("{what} needs a positive number"))
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => o.quick = true,
            "--jit-only" => o.jit_only = true,
            "--runs" => o.runs = num(args.next(), "--runs")?,
            "--interp-runs" => o.interp_runs = num(args.next(), "--interp-runs")?,
            "--compile-runs" => o.compile_runs = num(args.next(), "--compile-runs")?,
            "--bench" => {} // cargo passes it to harness-less targets; ignore
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => o.only.push(s.to_string()),
        }
    }
    if o.quick {
        o.runs = o.runs.min(5);
        o.compile_runs = o.compile_runs.min(5);
    }
    Ok(o)
}

/// One measured row.
struct Row {
    name: &'static str,
    bound: Bound,
    interp: Duration,
    /// The interpreter ran a shrunk case; `interp` is scaled to the full work.
    interp_scaled: bool,
    jit: Duration,
    native: Duration,
    pocl_ms: Option<f64>,
    compile: Duration,
    /// Native vs JIT, and (full size only) interpreter vs JIT bit for bit.
    check: String,
    ok: bool,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One kernel's row (`None` with `--jit-only`, which prints the JIT's times instead).
fn measure(b: &Bench, o: &Opts) -> Result<Option<Row>, String> {
    eprintln!("{}: generating inputs", b.name);
    let full = b.load()?;
    let ptx = &full.prepared.modules[0].text;
    let file = &full.prepared.modules[0].name;

    eprintln!("{}: JIT compile ×{}", b.name, o.compile_runs);
    let compiles = (0..o.compile_runs)
        .map(|_| timed_load(ptx, file, Engine::Jit))
        .collect::<Result<Vec<_>, _>>()?;

    eprintln!("{}: JIT ×{} (+1 warm-up)", b.name, o.runs);
    let mut s = full.session(Engine::Jit)?;
    timed_launch(&mut s)?;
    let jit_times = (0..o.runs)
        .map(|_| timed_launch(&mut s))
        .collect::<Result<Vec<_>, _>>()?;
    let jit_out = s.read_back().map_err(|e| e.to_string())?;
    drop(s);
    if o.jit_only {
        println!(
            "{}: JIT {:.1} ms, load + compile {:.2} ms (medians)",
            b.name,
            ms(median(&jit_times)),
            ms(median(&compiles))
        );
        return Ok(None);
    }

    eprintln!("{}: native ×{} (+1 warm-up)", b.name, o.runs);
    let mut n = (b.native)(&full);
    timed_native(n.as_mut());
    let native_times: Vec<Duration> = (0..o.runs).map(|_| timed_native(n.as_mut())).collect();
    let native_check = n.check(&jit_out);
    drop(n);

    let (interp, interp_scaled, interp_check) = if o.quick {
        let (small, fraction) = b.load_shrunk()?;
        eprintln!(
            "{}: interpreter ×{} at {:.3} of the work",
            b.name, o.interp_runs, fraction
        );
        let mut s = small.session(Engine::Interp)?;
        let t = (0..o.interp_runs)
            .map(|_| timed_launch(&mut s))
            .collect::<Result<Vec<_>, _>>()?;
        (median(&t).div_f64(fraction), true, Ok(String::new()))
    } else {
        eprintln!("{}: interpreter ×{}", b.name, o.interp_runs);
        let mut s = full.session(Engine::Interp)?;
        let t = (0..o.interp_runs)
            .map(|_| timed_launch(&mut s))
            .collect::<Result<Vec<_>, _>>()?;
        let interp_out = s.read_back().map_err(|e| e.to_string())?;
        let same = interp_out
            .iter()
            .zip(&jit_out)
            .all(|(a, b)| a.bytes == b.bytes);
        let check = if same {
            Ok("; interp = JIT bit for bit".to_string())
        } else {
            Err("; interp and JIT DIFFER".to_string())
        };
        (median(&t), false, check)
    };

    let ok = native_check.is_ok() && interp_check.is_ok();
    let check = format!(
        "{}{}",
        native_check.unwrap_or_else(|e| format!("MISMATCH {e}")),
        interp_check.unwrap_or_else(|e| e)
    );
    Ok(Some(Row {
        name: b.name,
        bound: b.bound,
        interp,
        interp_scaled,
        jit: median(&jit_times),
        native: median(&native_times),
        pocl_ms: b.pocl_ms,
        compile: median(&compiles),
        check,
        ok,
    }))
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

fn main() -> std::process::ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load_before = load_average();
    let mut rows: Vec<Row> = vec![];
    let mut failed = false;
    for b in suite::benches() {
        if !o.only.is_empty() && !o.only.iter().any(|n| n == b.name) {
            continue;
        }
        match measure(&b, &o) {
            Ok(Some(r)) => {
                failed |= !r.ok;
                rows.push(r);
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("error: {}: {e}", b.name);
                failed = true;
            }
        }
    }
    if o.jit_only {
        return std::process::ExitCode::from(u8::from(failed));
    }

    println!(
        "{cores} worker threads; release build; median of {} JIT/native runs after a warm-up, \
         {} interpreter run(s){}; load average {load_before} before, {} after.\n",
        o.runs,
        o.interp_runs,
        if o.quick {
            " on a shrunk case, scaled to the full work (marked ~)"
        } else {
            " at full size"
        },
        load_average()
    );
    println!(
        "| kernel | bound | interpreter ms | JIT ms | native ms | POCL ms | JIT/native (target) \
         | JIT speed-up over interp | JIT vs POCL | compile ms |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|");
    for r in &rows {
        let (i, j, n) = (ms(r.interp), ms(r.jit), ms(r.native));
        println!(
            "| {} | {} | {}{:.1} | {:.1} | {:.1} | {} | {:.2}× (≤ {}×) | {:.0}× | {} | {:.2} |",
            r.name,
            r.bound.name(),
            if r.interp_scaled { "~" } else { "" },
            i,
            j,
            n,
            r.pocl_ms.map_or("–".into(), |p| format!("{p}")),
            j / n,
            r.bound.target(),
            i / j,
            r.pocl_ms
                .map_or("–".into(), |p| format!("{:.2}× POCL time", j / p)),
            ms(r.compile),
        );
    }
    for (name, why, pocl) in suite::PENDING {
        println!("| {name} | memory | {why} | | | {pocl} | | | | |");
    }

    if rows.is_empty() {
        return std::process::ExitCode::from(2);
    }
    println!("\nChecks (JIT output vs native, and vs the interpreter at full size):");
    for r in &rows {
        println!(
            "- {}: {}{}",
            r.name,
            if r.ok { "" } else { "FAILED: " },
            r.check
        );
    }

    let yes = |b: bool| if b { "reached" } else { "NOT reached" };
    let speedups: Vec<f64> = rows.iter().map(|r| ms(r.interp) / ms(r.jit)).collect();
    let g = geomean(&speedups);
    println!("\nTargets:");
    println!(
        "- JIT ≥ 100× the interpreter (geomean): {:.0}× — {}",
        g,
        yes(g >= 100.0)
    );
    for bound in [Bound::Memory, Bound::Compute] {
        let over: Vec<String> = rows
            .iter()
            .filter(|r| r.bound == bound && ms(r.jit) / ms(r.native) > bound.target())
            .map(|r| format!("{} {:.1}×", r.name, ms(r.jit) / ms(r.native)))
            .collect();
        println!(
            "- {}-bound within {}× of native: {}{}",
            bound.name(),
            bound.target(),
            yes(over.is_empty()),
            if over.is_empty() {
                String::new()
            } else {
                format!(" (over: {})", over.join(", "))
            }
        );
    }
    let slower: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let p = r.pocl_ms?;
            (ms(r.jit) >= p).then(|| format!("{} {:.1} vs {p} ms", r.name, ms(r.jit)))
        })
        .collect();
    println!(
        "- faster than POCL on every kernel: {}{}",
        yes(slower.is_empty()),
        if slower.is_empty() {
            String::new()
        } else {
            format!(" (not: {})", slower.join(", "))
        }
    );
    let worst = rows
        .iter()
        .max_by(|a, b| a.compile.cmp(&b.compile))
        .map(|r| (r.name, ms(r.compile)));
    if let Some((name, w)) = worst {
        println!(
            "- load + compile < 5 ms per kernel: {} (slowest {name} {w:.2} ms)",
            yes(w < 5.0)
        );
    }
    if failed {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    }
}
