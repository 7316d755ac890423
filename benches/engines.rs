//! Engine benchmarks over the real kernels of `ptx-tests/kernels` (data-driven: every case
//! file there is a benchmark).
//!
//! - `launch/<engine>/<case>`: one kernel launch (module loaded and buffers filled once,
//!   outside the timing); throughput in thread-instructions (IR instructions and terminators
//!   executed × active lanes, as counted by the interpreter on one launch of the case), so the
//!   two engines' rates compare directly and their ratio is the JIT's speedup.
//! - `load/<engine>/<case>`: parse + lower + verify + compile of the case's PTX module;
//!   throughput in PTX bytes.
//!
//! Small sample sizes keep `cargo bench` to a few minutes; pass a filter to run fewer
//! (`cargo bench --bench engines -- launch/jit`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ptxjit::case::{Case, Session};
use ptxjit::host::{Context, Engine, LaunchOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

const ENGINES: [Engine; 2] = [Engine::Interp, Engine::Jit];

/// Every kernel case with a short name (`saxpy`, `control_flow/grid3d`), sorted.
fn kernel_cases() -> Vec<(String, Case)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests/kernels");
    let mut paths = vec![];
    collect(&root, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(&root).ok()?.with_extension("");
            let mut parts: Vec<String> = rel
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if parts.len() == 2 && parts[0] == parts[1] {
                parts.pop();
            }
            match Case::load(&p) {
                Ok(c) if c.spec.expect_error.is_none() => Some((parts.join("/"), c)),
                Ok(_) => None,
                Err(e) => {
                    eprintln!("skipping {}: {e}", p.display());
                    None
                }
            }
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

/// Thread-instructions of one launch of `case`, counted by the interpreter.
fn thread_instructions(case: &Case) -> Option<u64> {
    let p = case.prepare().ok()?;
    let mut s = Session::new(case, &p, Engine::Interp).ok()?;
    Some(
        s.launch(&LaunchOptions::default())
            .ok()?
            .thread_instructions,
    )
}

fn launch(c: &mut Criterion) {
    let cases = kernel_cases();
    let counts: Vec<u64> = cases
        .iter()
        .map(|(_, c)| thread_instructions(c).unwrap_or(c.threads()))
        .collect();
    let mut g = c.benchmark_group("launch");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for engine in ENGINES {
        for ((name, case), &count) in cases.iter().zip(&counts) {
            let session = case
                .prepare()
                .and_then(|p| Session::new(case, &p, engine))
                .and_then(|mut s| s.launch(&LaunchOptions::default()).map(|_| s));
            let mut s = match session {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("skipping launch/{engine}/{name}: {e}");
                    continue;
                }
            };
            g.throughput(Throughput::Elements(count));
            g.bench_function(BenchmarkId::new(engine.to_string(), name), |b| {
                b.iter(|| {
                    s.launch(&LaunchOptions::default())
                        .expect("launch succeeded once")
                })
            });
        }
    }
    g.finish();
}

fn load(c: &mut Criterion) {
    let cases = kernel_cases();
    let mut g = c.benchmark_group("load");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for engine in ENGINES {
        for (name, case) in &cases {
            let Ok(prepared) = case.prepare() else {
                continue;
            };
            let ptx = prepared.modules[0].text.clone();
            // Load and compile every kernel (which their first launches would do); each
            // iteration drops its module, so the next one compiles anew.
            let load = || {
                let m = Context::new().load_module(&ptx, name, engine)?;
                m.compile_all().map(|()| m)
            };
            if let Err(e) = load() {
                eprintln!("skipping load/{engine}/{name}: {e}");
                continue;
            }
            g.throughput(Throughput::Bytes(ptx.len() as u64));
            g.bench_function(BenchmarkId::new(engine.to_string(), name), |b| {
                b.iter(|| load().expect("loaded once"))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, launch, load);
criterion_main!(benches);
