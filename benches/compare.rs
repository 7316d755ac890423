//! The benchmark kernels at realistic sizes (`benches/suite/mod.rs`, cases in
//! `benches/cases/`): per kernel, the JIT, the interpreter, an idiomatic native Rust version
//! (for the default target and for this machine), the OpenCL C version through POCL, and the
//! JIT's load + compile time.
//!
//! - `<kernel>/jit`, `<kernel>/native`: the full-size launch (buffers reset outside the timing).
//! - `<kernel>/native_machine`: the native version built for this machine's vector extensions
//!   (`suite::machine_isa`); absent below x86-64-v3.
//! - `<kernel>/pocl`: `benches/opencl/<kernel>.cl` through POCL (`suite/pocl.rs`: program
//!   built outside the timing, buffers re-written outside it); absent without POCL (one message
//!   names the package) or without a `.cl` file.
//! - `<kernel>/interp`: the interpreter on a shrunk case (1/16 of the work, see
//!   `Bench::shrink`) so the bench stays within minutes; the throughput (work units per
//!   second: elements, FMAs, bytes, pixels) is comparable with the full-size rows. For the
//!   full-size interpreter, run `cargo run --release --example bench_table`.
//! - `compile/<kernel>`: `Context::load_module` with `Engine::Jit` and `Module::compile_all`
//!   (parse, lower, verify, Cranelift); throughput in PTX bytes.
//!
//! `cargo bench --bench compare` takes a few minutes on 2 cores; a filter runs fewer
//! (`cargo bench --bench compare -- saxpy/`).

#[path = "suite/mod.rs"]
mod suite;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptxjit::host::Engine;
use std::time::Duration;
use suite::{timed_launch, timed_load, timed_native, timed_native_machine};

fn kernels(c: &mut Criterion) {
    let pocl = suite::pocl::Pocl::open()
        .map_err(|e| eprintln!("skipping the POCL benches: {e}"))
        .ok();
    for b in suite::benches() {
        let full = match b.load() {
            Ok(l) => l,
            Err(e) => {
                eprintln!("skipping {}: {e}", b.name);
                continue;
            }
        };
        let mut g = c.benchmark_group(b.name);
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
        g.throughput(Throughput::Elements(b.work));

        // The JIT's figure is the optimized tier's: wait for it (`Kernel::compile_optimized`).
        let jit = full.session(Engine::Jit).and_then(|s| {
            for l in &s.launches {
                l.kernel.compile_optimized().map_err(|e| e.to_string())?;
            }
            Ok(s)
        });
        match jit {
            Ok(mut s) => {
                g.bench_function("jit", |bench| {
                    bench.iter_custom(|iters| {
                        (0..iters)
                            .map(|_| timed_launch(&mut s).expect("the bench case launches"))
                            .sum()
                    })
                });
            }
            Err(e) => eprintln!("skipping {}/jit: {e}", b.name),
        }

        let mut native = (b.native)(&full);
        g.bench_function("native", |bench| {
            bench.iter_custom(|iters| (0..iters).map(|_| timed_native(native.as_mut())).sum())
        });
        drop(native);

        if suite::machine_isa().is_some() {
            let mut native = (b.native)(&full);
            g.bench_function("native_machine", |bench| {
                bench.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| timed_native_machine(native.as_mut()))
                        .sum()
                })
            });
        }

        if let Some(p) = &pocl {
            match p.prepare(b.name, &full) {
                Ok(Some(mut k)) => {
                    g.bench_function("pocl", |bench| {
                        bench.iter_custom(|iters| {
                            (0..iters)
                                .map(|_| p.timed_launch(&mut k).expect("the POCL kernel launches"))
                                .sum()
                        })
                    });
                }
                Ok(None) => eprintln!("skipping {}/pocl: no benches/opencl/{}.cl", b.name, b.name),
                Err(e) => eprintln!("skipping {}/pocl: {e}", b.name),
            }
        }
        drop(full);

        match b.load_shrunk() {
            Ok((small, fraction)) => match small.session(Engine::Interp) {
                Ok(mut s) => {
                    g.throughput(Throughput::Elements((b.work as f64 * fraction) as u64));
                    g.warm_up_time(Duration::from_millis(1))
                        .measurement_time(Duration::from_secs(5));
                    g.bench_function("interp", |bench| {
                        bench.iter_custom(|iters| {
                            (0..iters)
                                .map(|_| timed_launch(&mut s).expect("the bench case launches"))
                                .sum()
                        })
                    });
                }
                Err(e) => eprintln!("skipping {}/interp: {e}", b.name),
            },
            Err(e) => eprintln!("skipping {}/interp: {e}", b.name),
        }
        g.finish();
    }
}

fn compile(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for b in suite::benches() {
        let case = match ptxjit::case::Case::load(&suite::case_path(b.name)) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("skipping compile/{}: {e}", b.name);
                continue;
            }
        };
        let path = case.dir.join(&case.spec.ptx);
        let Ok(ptx) = std::fs::read_to_string(&path) else {
            eprintln!(
                "skipping compile/{}: cannot read {}",
                b.name,
                path.display()
            );
            continue;
        };
        let file = path.display().to_string();
        if let Err(e) = timed_load(&ptx, &file, Engine::Jit) {
            eprintln!("skipping compile/{}: {e}", b.name);
            continue;
        }
        g.throughput(Throughput::Bytes(ptx.len() as u64));
        g.bench_function(b.name, |bench| {
            bench.iter_custom(|iters| {
                (0..iters)
                    .map(|_| timed_load(&ptx, &file, Engine::Jit).expect("loaded once"))
                    .sum()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, kernels, compile);
criterion_main!(benches);
