//! Prints the sanitizer tools' cost on the JIT: per benchmark kernel (`benches/cases`), the
//! plain JIT's launch time and each tool's (memcheck, racecheck, initcheck, synccheck), their
//! slowdowns over the plain JIT, and the geometric means. A benchmark, not a test.
//!
//! ```sh
//! cargo run --release --example tool_overhead              # full size (a few minutes on 2 cores)
//! cargo run --release --example tool_overhead -- --quick   # the benches' shrunk cases, 3 runs
//! cargo run --release --example tool_overhead -- saxpy reduce_shared --runs 5
//! ```
//! Options: `--quick`, `--runs N` (timed runs per column after one warm-up, default 5), kernel
//! names. Times are medians of [`ptxjit::host::LaunchReport::elapsed`] (the whole launch), with
//! every buffer reset before each run outside the timing; the kernels and inputs are those of
//! `examples/bench_table.rs` (`benches/suite/mod.rs`). Each tool's session is built as
//! `ptxjit run --tool` builds it: memcheck places buffers with red zones, initcheck tracks the
//! written bytes from the start (every buffer counts as written by the host, as each run
//! copies it in). Every tool must find nothing on these (correct) kernels; a
//! finding is printed and makes the exit status 1.

#[path = "../benches/suite/mod.rs"]
mod suite;

use ptxjit::case::Session;
use ptxjit::host::tool::Tool;
use ptxjit::host::{Engine, LaunchOptions};
use std::time::Duration;
use suite::{median, Bench};

struct Opts {
    quick: bool,
    runs: usize,
    only: Vec<String>,
}

fn parse_args() -> Result<Opts, String> {
    let mut o = Opts {
        quick: false,
        runs: 5,
        only: vec![],
    };
    let mut runs_given = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => o.quick = true,
            "--runs" => {
                o.runs = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--runs needs a positive number")?;
                runs_given = true;
            }
            "--bench" => {} // cargo passes it to harness-less targets; ignore
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => o.only.push(s.to_string()),
        }
    }
    if o.quick && !runs_given {
        o.runs = 3;
    }
    let known: Vec<&str> = suite::benches().iter().map(|b| b.name).collect();
    if let Some(bad) = o.only.iter().find(|n| !known.contains(&n.as_str())) {
        return Err(format!(
            "no benchmark kernel '{bad}' (there are: {})",
            known.join(", ")
        ));
    }
    Ok(o)
}

/// One kernel's medians: the plain JIT, then one per tool of [`Tool::ALL`].
struct Row {
    name: &'static str,
    plain: Duration,
    tools: Vec<Duration>,
}

/// The median launch time of `runs` runs after a warm-up (which compiles the instrumented
/// code), under `tool` (`None`: plain); errors name what the tool found.
fn time_under(
    b: &Bench,
    loaded: &suite::Loaded,
    tool: Option<Tool>,
    runs: usize,
) -> Result<Duration, String> {
    let on = |t: Tool| tool == Some(t);
    let mut s = Session::with_tools(
        &loaded.case,
        &loaded.prepared,
        Engine::Jit,
        on(Tool::Memcheck),
        on(Tool::Initcheck),
        loaded.case.spec.lockstep,
    )
    .map_err(|e| e.to_string())?;
    let opts = LaunchOptions {
        memcheck: on(Tool::Memcheck),
        synccheck: on(Tool::Synccheck),
        initcheck: on(Tool::Initcheck),
        racecheck: on(Tool::Racecheck),
        lockstep: loaded.case.spec.lockstep,
        ..LaunchOptions::default()
    };
    let what = tool.map_or("plain JIT".to_string(), |t| t.name().to_string());
    let mut times = Vec::with_capacity(runs);
    for i in 0..=runs {
        // Every buffer is copied from the host before each run, the warm-up's too: a bench
        // case's buffer without `init` stands for a zeroed one (a `cudaMemset`), not for a
        // never-written `cudaMalloc` that initcheck would report.
        s.reset().map_err(|e| e.to_string())?;
        let r = s.launch(&opts).map_err(|e| format!("{what}: {e}"))?;
        let mut found: Vec<String> = s
            .ctx
            .take_race_reports()
            .iter()
            .map(|r| r.to_string())
            .collect();
        found.extend(s.ctx.take_init_reports().iter().map(|r| r.to_string()));
        if !found.is_empty() {
            return Err(format!(
                "{what} found {} error(s) in {}:\n  {}",
                found.len(),
                b.name,
                found.join("\n  ")
            ));
        }
        if i > 0 {
            times.push(r.elapsed);
        }
    }
    Ok(median(&times))
}

fn measure(b: &Bench, o: &Opts) -> Result<Row, String> {
    let loaded = if o.quick {
        b.load_shrunk()?.0
    } else {
        b.load()?
    };
    eprintln!("{}: plain JIT ×{}", b.name, o.runs);
    let plain = time_under(b, &loaded, None, o.runs)?;
    let mut tools = vec![];
    for t in Tool::ALL {
        eprintln!("{}: {t} ×{}", b.name, o.runs);
        tools.push(time_under(b, &loaded, Some(t), o.runs)?);
    }
    Ok(Row {
        name: b.name,
        plain,
        tools,
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn geomean(v: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    (sum / n.max(1) as f64).exp()
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn main() -> std::process::ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let load_before = load_average();
    let mut rows = vec![];
    let mut failed = false;
    for b in suite::benches() {
        if !o.only.is_empty() && !o.only.iter().any(|n| n == b.name) {
            continue;
        }
        match measure(&b, &o) {
            Ok(r) => rows.push(r),
            Err(e) => {
                eprintln!("error: {}: {e}", b.name);
                failed = true;
            }
        }
    }
    if rows.is_empty() {
        return std::process::ExitCode::from(2);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "JIT: {cores} worker threads; release build; {}; median of {} runs after a warm-up; \
         load average {load_before} before, {} after.\n",
        if o.quick {
            "shrunk cases (--quick)"
        } else {
            "full-size cases"
        },
        o.runs,
        load_average()
    );
    let mut head = "| kernel | JIT ms |".to_string();
    let mut rule = "|---|--:|".to_string();
    for t in Tool::ALL {
        head += &format!(" {t} ms | {t} × |");
        rule += "--:|--:|";
    }
    println!("{head}\n{rule}");
    for r in &rows {
        let p = ms(r.plain);
        let mut line = format!("| {} | {p:.2} |", r.name);
        for t in &r.tools {
            line += &format!(" {:.2} | {:.2}× |", ms(*t), ms(*t) / p);
        }
        println!("{line}");
    }
    let mut line = format!(
        "| geometric mean | {:.2} |",
        geomean(rows.iter().map(|r| ms(r.plain)))
    );
    for i in 0..Tool::ALL.len() {
        line += &format!(
            " {:.2} | {:.2}× |",
            geomean(rows.iter().map(|r| ms(r.tools[i]))),
            geomean(rows.iter().map(|r| ms(r.tools[i]) / ms(r.plain)))
        );
    }
    println!("{line}");
    std::process::ExitCode::from(u8::from(failed))
}
