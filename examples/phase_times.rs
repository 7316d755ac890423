//! Front-end and quick-tier compile time of every kernel of a PTX file, per phase: parse,
//! lowering to SSA (`lower::lower_module`, the whole module), verification (`ir::verify`)
//! and the JIT's quick tier (`jit::compile_tier`), each the median of `--runs` runs.
//!
//! ```sh
//! cargo run --release --example phase_times -- FILE.ptx [--runs N] [--optimized] [--no-host] [--kernel NAME_PART]
//! PTXJIT_COMPILE_TIMES=1 cargo run --release --example phase_times -- FILE.ptx --runs 1
//! ```
//! `PTXJIT_COMPILE_TIMES` splits the JIT's time further (our CLIF generation, Cranelift's
//! passes). Under valgrind, `--runs 1` counts one of each.

use ptxjit::host::{Context, Engine};
use ptxjit::jit::Tier;
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("phase_times: {e}");
        std::process::exit(1);
    }
}

/// The median of `v`, in milliseconds.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run() -> Result<(), String> {
    let mut runs = 5usize;
    let mut tier = Tier::Quick;
    let mut file = None;
    let mut with_host = true;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => {
                runs = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--runs needs a number ≥ 1")?
            }
            "--optimized" => tier = Tier::Optimized,
            "--no-host" => with_host = false,
            "--kernel" => only = Some(args.next().ok_or("--kernel needs a name part")?),
            "--bench" => {}
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => file = Some(s.to_string()),
        }
    }
    let file = file.ok_or(
        "usage: phase_times FILE.ptx [--runs N] [--optimized] [--no-host] [--kernel NAME_PART]",
    )?;
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
    let map = ptxjit::ptx::span::SourceMap::new(&file, &text);
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let (mut parse, mut lower) = (vec![], vec![]);
    let mut module = None;
    for _ in 0..runs {
        let t = Instant::now();
        let ast = ptxjit::ptx::parse(&text).map_err(|e| e.render(&map))?;
        parse.push(ms(t));
        let t = Instant::now();
        let m = ptxjit::lower::lower_module(&ast, &map).map_err(|e| e.render(&map))?;
        lower.push(ms(t));
        module = Some(m);
    }
    println!(
        "parse {:.3} ms, lower + SSA {:.3} ms (whole module)",
        median(&mut parse),
        median(&mut lower)
    );
    // The host's path: load the module into a fresh context (parse, lower, verify, schedule)
    // and compile every kernel (`PTXJIT_TIER` picks the tiers; unset, the quick tier is timed
    // and the optimized one then waited for outside the time).
    let mut host = vec![];
    for i in 0..if with_host { runs } else { 0 } {
        // A comment no earlier run added: the kernel cache keys on the text.
        let text = format!("{text}\n// phase_times run {i}\n");
        let t = Instant::now();
        let m = Context::new()
            .load_module(&text, &file, Engine::Jit)
            .and_then(|m| m.compile_all().map(|()| m))
            .map_err(|e| e.to_string())?;
        host.push(ms(t));
        m.compile_all_optimized().map_err(|e| e.to_string())?;
    }
    if with_host {
        println!("host load_module + compile_all {:.3} ms", median(&mut host));
    }
    let module = module.ok_or("no runs")?;
    for k in &module.kernels {
        if only.as_ref().is_some_and(|o| !k.name.contains(o.as_str())) {
            continue;
        }
        let (mut verify, mut jit) = (vec![], vec![]);
        let mut insts = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let v = ptxjit::ir::verify::verify(k.clone()).map_err(|e| e.to_string())?;
            verify.push(ms(t));
            insts = v.insts.len();
            let t = Instant::now();
            let j = ptxjit::jit::compile_tier(&v, false, false, tier)?;
            jit.push(ms(t));
            drop(j);
        }
        let name: String = k.name.chars().take(60).collect();
        println!(
            "{name:60} {insts:6} IR insts: verify {:8.3} ms, {} tier {:9.3} ms",
            median(&mut verify),
            tier.name(),
            median(&mut jit)
        );
    }
    Ok(())
}
