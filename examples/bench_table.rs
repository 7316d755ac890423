//! Prints the benchmark table: per kernel, the interpreter, the JIT, an idiomatic native Rust
//! version (rayon) built for the default target and for this machine's vector extensions,
//! and the same kernel in OpenCL C through POCL, all in one run on the same inputs; their
//! ratios, geometric means, the JIT's load + compile time, and each performance target as
//! reached or not.
//!
//! ```sh
//! cargo run --release --example bench_table              # full size everywhere (several minutes on 2 cores)
//! cargo run --release --example bench_table -- --quick   # interpreter on 1/16 of the work, scaled by work
//! cargo run --release --example bench_table -- saxpy mandelbrot --runs 20
//! cargo run --release --example bench_table -- --pocl-jit saxpy reduce_shfl   # JIT and POCL only
//! cargo run --release --example bench_table -- empty   # only the launch-overhead table
//! ```
//! Options: `--quick`, `--pocl-jit` (only the JIT and POCL columns: no interpreter, no native
//! runs), `--no-pocl`, `--jit-only` (compile and JIT launches only, no table: for profiling),
//! `--runs N` (timed JIT, native and POCL runs, default 10, after one warm-up),
//! `--interp-runs N` (default 1, no warm-up), `--compile-runs N` (default 10), `--cpu-time`
//! (launch, native and POCL times as the CPU time of the whole process, not wall time: less
//! sensitive to other programs' load), `--launch-runs N` (timed launches of the empty kernel
//! per grid shape, default 2000), kernel names (`empty`: the launch-overhead table, which a
//! run without kernel names prints after the main table).
//! Times are medians. The kernels, inputs and timing rules are in `benches/suite/mod.rs`
//! (POCL's in `benches/suite/pocl.rs`; the OpenCL C sources in `benches/opencl/`). Without
//! OpenCL or POCL the POCL column is skipped with a message naming the package to install.

#[path = "../benches/suite/mod.rs"]
mod suite;

use ptxjit::host::Engine;
use std::time::Duration;
use suite::pocl::{Pocl, PoclKernel};
use suite::{
    agree, machine_isa, median, timed_launch, timed_load, timed_load_optimized, timed_native,
    timed_native_machine, Bench, Bound,
};

struct Opts {
    quick: bool,
    /// Only the JIT: compile and launch (for profiling: `perf record -- … --jit-only saxpy`).
    jit_only: bool,
    /// Only the JIT and POCL columns.
    pocl_jit: bool,
    no_pocl: bool,
    /// Launch, native and POCL times as process CPU time (`suite::use_cpu_time`).
    cpu_time: bool,
    runs: usize,
    interp_runs: usize,
    compile_runs: usize,
    /// Timed launches of the empty kernel per grid shape.
    launch_runs: usize,
    only: Vec<String>,
}

/// What `--help` prints.
const USAGE: &str = "\
Usage: bench_table [OPTIONS] [KERNEL ...]
Prints the benchmark table (interpreter, JIT, native Rust, POCL) of the kernels named, or of all.

Options:
  --quick            the interpreter on 1/16 of the work, scaled by work
  --pocl-jit         only the JIT and POCL columns (no interpreter, no native runs)
  --no-pocl          no POCL column
  --jit-only         compile and JIT launches only, no table (for profiling)
  --runs N           timed JIT, native and POCL runs (default 10, after one warm-up)
  --interp-runs N    timed interpreter runs (default 1, no warm-up)
  --compile-runs N   timed load + compile runs (default 10)
  --cpu-time         JIT, native and POCL times as the CPU time of every thread of the
                     process during the run, not wall time (for a loaded machine)
  --launch-runs N    timed launches of the empty kernel per grid shape (default 2000,
                     after 100 warm-ups; always wall time)
  -h, --help         print this
Kernel names pick rows; `empty` is the launch-overhead table (an empty kernel on grids of
1, 64 and 1024 CTAs of 32 and 256 threads, µs per launch and per warp), which a run without
kernel names prints after the main table.
Times are medians; the kernels, inputs and timing rules are in benches/suite/mod.rs
(the empty kernel's in benches/suite/empty.rs).
";

fn parse_args() -> Result<Opts, String> {
    let mut o = Opts {
        quick: false,
        jit_only: false,
        pocl_jit: false,
        no_pocl: false,
        cpu_time: false,
        runs: 10,
        interp_runs: 1,
        compile_runs: 10,
        launch_runs: 2000,
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
            "-h" | "--help" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            "--quick" => o.quick = true,
            "--jit-only" => o.jit_only = true,
            "--pocl-jit" => o.pocl_jit = true,
            "--no-pocl" => o.no_pocl = true,
            "--cpu-time" => o.cpu_time = true,
            "--runs" => o.runs = num(args.next(), "--runs")?,
            "--interp-runs" => o.interp_runs = num(args.next(), "--interp-runs")?,
            "--compile-runs" => o.compile_runs = num(args.next(), "--compile-runs")?,
            "--launch-runs" => o.launch_runs = num(args.next(), "--launch-runs")?,
            "--bench" => {} // cargo passes it to harness-less targets; ignore
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => o.only.push(s.to_string()),
        }
    }
    if o.pocl_jit && o.no_pocl {
        return Err("--pocl-jit and --no-pocl exclude each other".into());
    }
    let mut known: Vec<&str> = suite::benches().iter().map(|b| b.name).collect();
    known.push(EMPTY);
    if let Some(bad) = o.only.iter().find(|n| !known.contains(&n.as_str())) {
        return Err(format!(
            "no benchmark kernel '{bad}' (there are: {})",
            known.join(", ")
        ));
    }
    if o.quick {
        o.runs = o.runs.min(5);
        o.compile_runs = o.compile_runs.min(5);
    }
    Ok(o)
}

/// POCL's result for one kernel.
enum PoclResult {
    /// Median launch time.
    Ran(Duration),
    /// The bench has no `benches/opencl/NAME.cl`.
    NoSource,
    /// POCL is not in this run (absent, or `--no-pocl`).
    Skipped,
}

/// One measured row; `None` for a column this run does not measure.
struct Row {
    name: &'static str,
    bound: Bound,
    interp: Option<Duration>,
    /// The interpreter ran a shrunk case; `interp` is scaled to the full work.
    interp_scaled: bool,
    jit: Duration,
    native: Option<Duration>,
    /// The native version built for this machine's vector extensions.
    native_machine: Option<Duration>,
    pocl: PoclResult,
    /// Load + compile until the first launch can start (the JIT's quick tier).
    compile: Duration,
    /// Load + compile of the optimized tier alone (what the JIT column runs).
    compile_optimized: Duration,
    /// Native and POCL vs JIT, and (full size only) interpreter vs JIT bit for bit.
    check: String,
    ok: bool,
}

impl Row {
    fn pocl_ms(&self) -> Option<f64> {
        match self.pocl {
            PoclResult::Ran(d) => Some(ms(d)),
            PoclResult::NoSource | PoclResult::Skipped => None,
        }
    }
    /// JIT ÷ the native time the bound's target refers to.
    fn jit_over_target_native(&self) -> Option<f64> {
        let n = match self.bound {
            Bound::Memory => self.native_machine,
            Bound::Compute => self.native,
        }?;
        Some(ms(self.jit) / ms(n))
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// POCL's median time for one kernel and how its outputs compare with the JIT's.
fn measure_pocl(
    pocl: &Pocl,
    b: &Bench,
    full: &suite::Loaded,
    jit_out: &[ptxjit::case::HostBuffer],
    runs: usize,
) -> Result<(PoclResult, Result<String, String>), String> {
    eprintln!("{}: POCL build", b.name);
    let Some(mut k): Option<PoclKernel> = pocl.prepare(b.name, full)? else {
        return Ok((PoclResult::NoSource, Ok(String::new())));
    };
    eprintln!("{}: POCL ×{runs} (+1 warm-up)", b.name);
    pocl.timed_launch(&mut k)?;
    let times = (0..runs)
        .map(|_| pocl.timed_launch(&mut k))
        .collect::<Result<Vec<_>, _>>()?;
    let out = pocl.read_back(&k)?;
    Ok((
        PoclResult::Ran(median(&times)),
        agree(jit_out, &out, b.pocl_agree),
    ))
}

/// One kernel's row (`None` with `--jit-only`, which prints the JIT's times instead).
fn measure(b: &Bench, o: &Opts, pocl: Option<&Pocl>) -> Result<Option<Row>, String> {
    eprintln!("{}: generating inputs", b.name);
    let full = b.load()?;
    let ptx = &full.prepared.modules[0].text;
    let file = &full.prepared.modules[0].name;

    eprintln!("{}: JIT compile ×{}", b.name, o.compile_runs);
    let compiles = (0..o.compile_runs)
        .map(|_| timed_load(ptx, file, Engine::Jit))
        .collect::<Result<Vec<_>, _>>()?;

    let compiles_optimized = (0..o.compile_runs)
        .map(|_| timed_load_optimized(ptx, file, Engine::Jit))
        .collect::<Result<Vec<_>, _>>()?;

    eprintln!("{}: JIT ×{} (+1 warm-up)", b.name, o.runs);
    let mut s = full.session(Engine::Jit)?;
    // The JIT column times the optimized tier: wait for it (`Kernel::compile_optimized`).
    for l in &s.launches {
        l.kernel.compile_optimized().map_err(|e| e.to_string())?;
    }
    timed_launch(&mut s)?;
    let jit_times = (0..o.runs)
        .map(|_| timed_launch(&mut s))
        .collect::<Result<Vec<_>, _>>()?;
    let jit_out = s.read_back().map_err(|e| e.to_string())?;
    drop(s);
    if o.jit_only {
        let lo = jit_times.iter().min().copied().unwrap_or_default();
        let hi = jit_times.iter().max().copied().unwrap_or_default();
        println!(
            "{}: JIT {:.1} ms (runs {:.1}–{:.1}), load + compile {:.2} ms (medians)",
            b.name,
            ms(median(&jit_times)),
            ms(lo),
            ms(hi),
            ms(median(&compiles))
        );
        return Ok(None);
    }
    let mut checks: Vec<Result<String, String>> = vec![];

    let (pocl_result, pocl_check) = match pocl {
        Some(p) => measure_pocl(p, b, &full, &jit_out, o.runs)
            .unwrap_or_else(|e| (PoclResult::Skipped, Err(format!("POCL failed: {e}")))),
        None => (PoclResult::Skipped, Ok(String::new())),
    };
    if let PoclResult::Ran(_) = pocl_result {
        checks.push(
            pocl_check
                .map(|m| format!("POCL vs JIT: {m}"))
                .map_err(|m| format!("POCL vs JIT: {m}")),
        );
    } else if pocl_check.is_err() {
        checks.push(pocl_check);
    }

    let (mut native, mut native_machine) = (None, None);
    if !o.pocl_jit {
        eprintln!("{}: native ×{} (+1 warm-up)", b.name, o.runs);
        let mut n = (b.native)(&full);
        timed_native(n.as_mut());
        let times: Vec<Duration> = (0..o.runs).map(|_| timed_native(n.as_mut())).collect();
        native = Some(median(&times));
        checks.push(
            n.check(&jit_out)
                .map(|m| format!("native vs JIT: {m}"))
                .map_err(|m| format!("native vs JIT: MISMATCH {m}")),
        );
        if let Some(isa) = machine_isa() {
            eprintln!("{}: native {} ×{} (+1 warm-up)", b.name, isa.name(), o.runs);
            let mut n = (b.native)(&full);
            timed_native_machine(n.as_mut());
            let times: Vec<Duration> = (0..o.runs)
                .map(|_| timed_native_machine(n.as_mut()))
                .collect();
            native_machine = Some(median(&times));
            checks.push(
                n.check(&jit_out)
                    .map(|m| format!("native ({}) vs JIT: {m}", isa.name()))
                    .map_err(|m| format!("native ({}) vs JIT: MISMATCH {m}", isa.name())),
            );
        }
    }

    let (mut interp, mut interp_scaled) = (None, false);
    if o.pocl_jit {
        // No interpreter column.
    } else if o.quick {
        let (small, fraction) = b.load_shrunk()?;
        eprintln!(
            "{}: interpreter ×{} at {:.3} of the work",
            b.name, o.interp_runs, fraction
        );
        let mut s = small.session(Engine::Interp)?;
        let t = (0..o.interp_runs)
            .map(|_| timed_launch(&mut s))
            .collect::<Result<Vec<_>, _>>()?;
        interp = Some(median(&t).div_f64(fraction));
        interp_scaled = true;
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
        checks.push(if same {
            Ok("interp = JIT bit for bit".to_string())
        } else {
            Err("interp and JIT DIFFER".to_string())
        });
        interp = Some(median(&t));
    }

    let ok = checks.iter().all(Result::is_ok);
    let check = checks
        .into_iter()
        .map(|c| c.unwrap_or_else(|e| e))
        .filter(|c| !c.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    Ok(Some(Row {
        name: b.name,
        bound: b.bound,
        interp,
        interp_scaled,
        jit: median(&jit_times),
        native,
        native_machine,
        pocl: pocl_result,
        compile: median(&compiles),
        compile_optimized: median(&compiles_optimized),
        check,
        ok,
    }))
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn geomean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

/// "12.3" for a time, "—" for a column not measured.
fn cell(d: Option<f64>, digits: usize) -> String {
    d.map_or("—".into(), |v| format!("{v:.digits$}"))
}

/// The launch-overhead table's name among the kernel names.
const EMPTY: &str = "empty";

/// One grid shape's launch overhead: median wall time per launch of the empty kernel.
struct LaunchRow {
    ctas: u32,
    threads: u32,
    jit: Duration,
    /// `None`: POCL is not in this run.
    pocl: Option<Duration>,
}

impl LaunchRow {
    fn warps(&self) -> u64 {
        suite::empty::warps(self.ctas, self.threads)
    }
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The empty kernel's launches on every grid shape (`suite::empty::SHAPES`): the JIT's, and
/// POCL's where it is in the run.
fn measure_launches(o: &Opts, pocl: Option<&Pocl>) -> Result<Vec<LaunchRow>, String> {
    let mut rows = vec![];
    for &(ctas, threads) in &suite::empty::SHAPES {
        eprintln!(
            "{EMPTY} {ctas}×{threads}: {} launches (+{} warm-up)",
            o.launch_runs,
            suite::empty::WARM_UP
        );
        let jit = median(&suite::empty::jit_times(ctas, threads, o.launch_runs)?);
        let pocl = match pocl {
            Some(p) => Some(median(&p.empty_times(ctas, threads, o.launch_runs)?)),
            None => None,
        };
        rows.push(LaunchRow {
            ctas,
            threads,
            jit,
            pocl,
        });
    }
    Ok(rows)
}

/// The launch-overhead table.
fn print_launches(rows: &[LaunchRow], runs: usize) {
    println!(
        "\nLaunch overhead: an empty kernel (`ret;`), the median wall time of {runs} launches \
         back to back after {} warm-ups (JIT: `LaunchBuilder::launch`; POCL: \
         `clEnqueueNDRangeKernel` to the end of `clFinish`); per warp: that time ÷ the grid's \
         warps.\n",
        suite::empty::WARM_UP
    );
    println!(
        "| CTAs × threads | warps | JIT µs per launch | JIT µs per warp | POCL µs per launch \
         | POCL µs per warp |"
    );
    println!("|---|--:|--:|--:|--:|--:|");
    for r in rows {
        let w = r.warps() as f64;
        println!(
            "| {} × {} | {} | {:.1} | {:.3} | {} | {} |",
            r.ctas,
            r.threads,
            r.warps(),
            us(r.jit),
            us(r.jit) / w,
            r.pocl.map_or("—".into(), |p| format!("{:.1}", us(p))),
            r.pocl.map_or("—".into(), |p| format!("{:.3}", us(p) / w)),
        );
    }
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
    suite::use_cpu_time(o.cpu_time);
    let pocl = if o.no_pocl || o.jit_only {
        None
    } else {
        match Pocl::open() {
            Ok(p) => Some(p),
            Err(e) => {
                eprintln!("POCL column skipped: {e}");
                None
            }
        }
    };
    let load_before = load_average();
    let mut rows: Vec<Row> = vec![];
    let mut failed = false;
    for b in suite::benches() {
        if !o.only.is_empty() && !o.only.iter().any(|n| n == b.name) {
            continue;
        }
        match measure(&b, &o, pocl.as_ref()) {
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
    let launches = if o.only.is_empty() || o.only.iter().any(|n| n == EMPTY) {
        match measure_launches(&o, pocl.as_ref()) {
            Ok(l) => Some(l),
            Err(e) => {
                eprintln!("error: {EMPTY}: {e}");
                failed = true;
                None
            }
        }
    } else {
        None
    };
    if o.jit_only {
        for r in launches.iter().flatten() {
            println!(
                "{EMPTY} {}×{}: JIT {:.2} µs per launch, {:.4} µs per warp (medians)",
                r.ctas,
                r.threads,
                us(r.jit),
                us(r.jit) / r.warps() as f64
            );
        }
        return std::process::ExitCode::from(u8::from(failed));
    }

    // Only the launch-overhead table asked for (`bench_table empty`): its own header.
    if !o.only.is_empty() && o.only.iter().all(|n| n == EMPTY) {
        println!(
            "JIT: {cores} worker threads; release build; load average {load_before} before, {} \
             after.",
            load_average()
        );
    } else {
        println!(
        "JIT: {cores} worker threads; release build; median of {} JIT/native/POCL runs after a \
         warm-up{}, {}; load average {load_before} before, {} after.",
        o.runs,
        if o.cpu_time {
            " (their CPU time: --cpu-time)"
        } else {
            ""
        },
        if o.pocl_jit {
            "no interpreter or native runs (--pocl-jit)".to_string()
        } else {
            format!(
                "{} interpreter run(s){}",
                o.interp_runs,
                if o.quick {
                    " on a shrunk case, scaled to the full work (marked ~)"
                } else {
                    " at full size"
                }
            )
        },
        load_average()
    );
    }
    println!(
        "POCL: {}.",
        match &pocl {
            Some(p) => p.description.clone(),
            None if o.no_pocl => "not run (--no-pocl)".into(),
            None => format!(
                "not run: no OpenCL or no POCL platform; {}",
                suite::pocl::PACKAGE_HINT
            ),
        }
    );
    println!(
        "Native (machine): {}.\n",
        machine_isa().map_or("no x86-64-v3 or v4 on this CPU: not run", |i| i.name())
    );
    if rows.is_empty() {
        return match launches {
            Some(l) => {
                print_launches(&l, o.launch_runs);
                std::process::ExitCode::from(u8::from(failed))
            }
            None => std::process::ExitCode::from(2),
        };
    }
    println!(
        "| kernel | bound | interpreter ms | JIT ms | native ms | native (machine) ms | POCL ms \
         | JIT ÷ POCL | JIT ÷ native (target) | JIT speed-up over interp | compile ms \
         | optimized compile ms |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for r in &rows {
        let j = ms(r.jit);
        let target = match r.bound {
            Bound::Memory => "machine",
            Bound::Compute => "default",
        };
        println!(
            "| {} | {} | {}{} | {:.1} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} |",
            r.name,
            r.bound.name(),
            if r.interp_scaled { "~" } else { "" },
            cell(r.interp.map(ms), 0),
            j,
            cell(r.native.map(ms), 1),
            cell(r.native_machine.map(ms), 1),
            cell(r.pocl_ms(), 1),
            r.pocl_ms().map_or("—".into(), |p| format!("{:.2}×", j / p)),
            r.jit_over_target_native().map_or("—".into(), |x| format!(
                "{x:.2}× {target} (≤ {}×)",
                r.bound.target()
            )),
            r.interp
                .map_or("—".into(), |i| format!("{:.0}×", ms(i) / j)),
            ms(r.compile),
            ms(r.compile_optimized),
        );
    }
    let over_pocl: Vec<f64> = rows
        .iter()
        .filter_map(|r| Some(ms(r.jit) / r.pocl_ms()?))
        .collect();
    let speedups: Vec<f64> = rows
        .iter()
        .filter_map(|r| Some(ms(r.interp?) / ms(r.jit)))
        .collect();
    let g_pocl = geomean(&over_pocl);
    let g_interp = geomean(&speedups);
    println!(
        "| geometric mean | | | | | | | {} | | {} | |",
        g_pocl.map_or("—".into(), |g| format!("{g:.2}×")),
        g_interp.map_or("—".into(), |g| format!("{g:.0}×")),
    );

    println!(
        "\nChecks (native and POCL outputs vs the JIT's, and the interpreter's at full size):"
    );
    for r in &rows {
        println!(
            "- {}: {}{}",
            r.name,
            if r.ok { "" } else { "FAILED: " },
            if r.check.is_empty() {
                "nothing compared"
            } else {
                &r.check
            }
        );
    }

    let yes = |b: bool| if b { "reached" } else { "NOT reached" };
    println!("\nTargets:");
    if let Some(g) = g_interp {
        println!(
            "- JIT ≥ 100× the interpreter (geomean): {g:.0}× — {}",
            yes(g >= 100.0)
        );
    }
    for bound in [Bound::Memory, Bound::Compute] {
        let measured: Vec<(&Row, f64)> = rows
            .iter()
            .filter(|r| r.bound == bound)
            .filter_map(|r| Some((r, r.jit_over_target_native()?)))
            .collect();
        if measured.is_empty() {
            continue;
        }
        let over: Vec<String> = measured
            .iter()
            .filter(|(_, x)| *x > bound.target())
            .map(|(r, x)| format!("{} {x:.1}×", r.name))
            .collect();
        println!(
            "- {}-bound within {}× of native ({}): {}{}",
            bound.name(),
            bound.target(),
            match bound {
                Bound::Memory => "built for the machine",
                Bound::Compute => "default target, 128-bit vectors",
            },
            yes(over.is_empty()),
            if over.is_empty() {
                String::new()
            } else {
                format!(" (over: {})", over.join(", "))
            }
        );
    }
    if let Some(g) = g_pocl {
        let slower: Vec<String> = rows
            .iter()
            .filter_map(|r| {
                let p = r.pocl_ms()?;
                (ms(r.jit) >= p).then(|| format!("{} {:.1} vs {p:.1} ms", r.name, ms(r.jit)))
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
        println!(
            "- ≥ 3× POCL's speed (geomean of JIT ÷ POCL ≤ 0.33): {:.2}× POCL's time — {}",
            g,
            yes(g <= 1.0 / 3.0)
        );
    }
    let worst = rows
        .iter()
        .max_by(|a, b| a.compile.cmp(&b.compile))
        .map(|r| (r.name, ms(r.compile)));
    if let Some((name, w)) = worst {
        println!(
            "- load + compile ≤ 5 ms per kernel: {} (slowest {name} {w:.2} ms)",
            yes(w <= 5.0)
        );
    }
    if let Some(l) = &launches {
        print_launches(l, o.launch_runs);
    }
    if failed {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    }
}
