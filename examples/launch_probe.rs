//! Latency of an empty kernel's launch through the host API (`Context::launch_builder`):
//! min, 10th percentile, median and mean of N timed launches after 100 warm-ups.
//! `cargo run --release --example launch_probe -- [N=5000] [GRID=1] [BLOCK=32]`; under
//! `valgrind --tool=callgrind`, two runs' difference gives the instructions per launch.
use ptxjit::host::{Context, Engine};
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ptx =
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry empty()\n{\nret;\n}\n";
    let n: usize = std::env::args().nth(1).map_or(5000, |s| s.parse().unwrap());
    let grid: u32 = std::env::args().nth(2).map_or(1, |s| s.parse().unwrap());
    let block: u32 = std::env::args().nth(3).map_or(32, |s| s.parse().unwrap());
    let mut ctx = Context::new();
    let module = ctx.load_module(ptx, "e.ptx", Engine::Jit)?;
    let kernel = module.kernel("empty")?;
    for _ in 0..100 {
        ctx.launch_builder(&kernel)
            .grid(grid)
            .block(block)
            .launch()?;
    }
    let mut v = vec![];
    for _ in 0..n {
        let t = std::time::Instant::now();
        ctx.launch_builder(&kernel)
            .grid(grid)
            .block(block)
            .launch()?;
        v.push(t.elapsed().as_secs_f64() * 1e6);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{grid}x{block}: min {:.1} us, p10 {:.1}, median {:.1} us, mean {:.1}",
        v[0],
        v[n / 10],
        v[n / 2],
        v.iter().sum::<f64>() / n as f64
    );
    Ok(())
}
