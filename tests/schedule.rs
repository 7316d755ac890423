//! The seeded shuffled schedule: a kernel whose result depends on the order of its warps and
//! CTAs (the last writer wins into one global word) gives the answer that the documented
//! order (`runtime::shuffle`, re-implemented here from its description) predicts, on both
//! engines: the same seed the same answer, two seeds two different answers.

use ptxjit::host::{Context, Engine, KernelArg, LaunchDims, LaunchOptions, Schedule};

/// Lane 0 of every warp stores `4 * %ctaid.x + warp` into `out[0]`; nothing orders the
/// stores, so the last warp to run wins.
const LAST_WRITER: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry last_writer(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra DONE;
    shr.u32 %r3, %r1, 5;
    mov.u32 %r4, %ctaid.x;
    shl.b32 %r4, %r4, 2;
    add.u32 %r5, %r4, %r3;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r5;
DONE:
    ret;
}
"#;

const CTAS: usize = 8;
const WARPS: usize = 4;

// The documented order, written out again: SplitMix64 and Fisher–Yates.
fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
    z ^ (z >> 31)
}

fn perm(seed: u64, n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    let mut s = seed;
    for i in (1..n).rev() {
        s = s.wrapping_add(0x9E3779B97F4A7C15);
        v.swap(i, (mix(s) % (i as u64 + 1)) as usize);
    }
    v
}

/// The winner under `shuffle:seed`: the last warp (round 0: no barriers) of the last CTA.
fn expected(seed: u64) -> u32 {
    let cta = *perm(seed, CTAS).last().unwrap();
    let warp = *perm(seed ^ mix(cta as u64 + 1) ^ mix(mix(1)), WARPS)
        .last()
        .unwrap();
    (4 * cta + warp) as u32
}

fn run(engine: Engine, schedule: Schedule) -> u32 {
    let mut ctx = Context::new();
    let m = ctx
        .load_module(LAST_WRITER, "last_writer.ptx", engine)
        .expect("loads");
    let k = m.kernel("last_writer").expect("kernel");
    let out = ctx.alloc(4, Some("out")).expect("alloc");
    let dims = LaunchDims {
        grid: [CTAS as u32, 1, 1],
        block: [32 * WARPS as u32, 1, 1],
        shared_bytes: 0,
    };
    let opts = LaunchOptions {
        schedule,
        ..Default::default()
    };
    ctx.launch(&k, dims, &[KernelArg::Ptr(out)], &opts)
        .expect("runs");
    let mut b = [0u8; 4];
    ctx.copy_dtoh(&mut b, out).expect("reads");
    u32::from_le_bytes(b)
}

#[test]
fn the_seed_decides_the_last_writer_on_both_engines() {
    let (a, b) = (expected(1), expected(2));
    // The same numbers from the description in Python: seed 1 orders the CTAs
    // [4, 3, 2, 7, 5, 6, 0, 1] and CTA 1's warps end with warp 2 (4 * 1 + 2); seed 2 orders
    // them [5, 2, 7, 4, 1, 3, 0, 6] and CTA 6's warps end with warp 0 (4 * 6 + 0). The fixed
    // order's last warp of a CTA (3) wins in neither, so both warp and CTA order are tested.
    assert_eq!((a, b), (6, 24));
    for engine in [Engine::Jit, Engine::Interp] {
        for (seed, want) in [(1, a), (2, b)] {
            for _ in 0..2 {
                assert_eq!(
                    run(engine, Schedule::Shuffle(seed)),
                    want,
                    "{engine}, shuffle:{seed}"
                );
            }
        }
    }
}

#[test]
fn the_cli_prints_the_seed_so_a_run_repeats() {
    let run = |schedule: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ptxjit"))
            .args([
                "run",
                "--schedule",
                schedule,
                "ptx-tests/kernels/saxpy/saxpy.toml",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run ptxjit")
    };
    let o = run("shuffle:5");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("schedule: shuffle:5 (--schedule shuffle:5 repeats this order)"),
        "{err}"
    );
    let o = run("shuffle");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("schedule: shuffle:"), "{err}");
    let o = run("random");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(0));
    assert!(err.contains("bad schedule 'random'"), "{err}");
}

/// Work stealing with `clusterlaunchcontrol` (ptx-tests/kernels/clc_steal): whatever the
/// schedule and engine, every CTA's work item is processed exactly once, and a CTA started
/// by the scheduler is never also canceled (launched + canceled CTAs = the grid).
mod clc_steal {
    use super::*;
    use ptxjit::host::Cooperative;

    const PTX: &str = include_str!("../ptx-tests/kernels/clc_steal/clc_steal.ptx");

    /// (launched, canceled requests) of one launch of `kernel` on `ctas` CTAs of 32 threads,
    /// after checking `out` and `count` against the kernel's definition of a work item.
    fn run(engine: Engine, kernel: &str, ctas: u32, opts: &LaunchOptions) -> (u32, u32) {
        let mut ctx = Context::new();
        let m = ctx
            .load_module(PTX, "clc_steal.ptx", engine)
            .expect("loads");
        let k = m.kernel(kernel).expect("kernel");
        let n = ctas as usize * 32;
        let out = ctx.alloc(4 * n as u64, Some("out")).expect("alloc");
        let count = ctx
            .alloc(4 * u64::from(ctas), Some("count"))
            .expect("alloc");
        let launched = ctx.alloc(4, Some("launched")).expect("alloc");
        let stolen = ctx.alloc(4, Some("stolen")).expect("alloc");
        for p in [out, count, launched, stolen] {
            let len = if p == out {
                4 * n
            } else if p == count {
                4 * ctas as usize
            } else {
                4
            };
            ctx.copy_htod(p, &vec![0u8; len]).expect("zeroes");
        }
        let dims = LaunchDims {
            grid: [ctas, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
        };
        let args = [
            KernelArg::Ptr(out),
            KernelArg::Ptr(count),
            KernelArg::Ptr(launched),
            KernelArg::Ptr(stolen),
        ];
        ctx.launch(&k, dims, &args, opts).expect("runs");
        let words = |p, len: usize| {
            let mut b = vec![0u8; 4 * len];
            ctx.copy_dtoh(&mut b, p).expect("reads");
            b.chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<u32>>()
        };
        let want: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(i).wrapping_add(7))
            .collect();
        assert_eq!(words(out, n), want, "{engine} {kernel} out");
        assert_eq!(
            words(count, ctas as usize),
            vec![1; ctas as usize],
            "{engine} {kernel}: every CTA's item once"
        );
        (words(launched, 1)[0], words(stolen, 1)[0])
    }

    #[test]
    fn every_cta_once_under_every_schedule() {
        for engine in [Engine::Jit, Engine::Interp] {
            for schedule in [Schedule::Fixed, Schedule::Shuffle(1), Schedule::Shuffle(9)] {
                let opts = LaunchOptions {
                    schedule,
                    ..Default::default()
                };
                let (l, s) = run(engine, "steal_x", 40, &opts);
                assert_eq!(
                    l + s,
                    40,
                    "{engine} {schedule:?}: launched {l}, canceled {s}"
                );
                // One CTA at a time (the shuffled schedule): the first CTA cancels every CTA
                // past the first batch (at most 32 CTAs).
                if schedule != Schedule::Fixed {
                    assert!(s >= 8, "{engine} {schedule:?}: canceled {s}");
                }
                // Clusters of two: a request cancels a whole cluster.
                let opts = LaunchOptions {
                    cluster: Some([2, 1, 1]),
                    ..opts
                };
                let (l, s) = run(engine, "steal_cluster", 16, &opts);
                assert_eq!(
                    l + 2 * s,
                    16,
                    "{engine} {schedule:?}: launched {l}, canceled {s}"
                );
                if schedule != Schedule::Fixed {
                    assert_eq!((l, s), (2, 7), "{engine} {schedule:?}: one worker");
                }
            }
        }
    }

    /// A cooperative launch has every CTA resident: nothing is left to cancel.
    #[test]
    fn a_cooperative_launch_cancels_nothing() {
        for engine in [Engine::Jit, Engine::Interp] {
            let opts = LaunchOptions {
                cooperative: Some(Cooperative::default()),
                ..Default::default()
            };
            assert_eq!(run(engine, "steal_x", 8, &opts), (8, 0), "{engine}");
        }
    }
}
