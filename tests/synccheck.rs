//! synccheck through the host API on hand-written PTX, on both engines: a divergent
//! `bar.sync` that deadlocks (the findings come before the deadlock), mismatched barrier
//! thread counts, and membermasks that disagree. Expected findings follow from the PTX ISA
//! rules the kernels break (§9.7.13.1 `bar`, §9.7.13.2 `bar.warp.sync`).

use ptxjit::host::{Context, Engine, Error, KernelArg, LaunchDims, LaunchOptions};

const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry split(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra LOW;
    bar.sync 0;
    bra DONE;
LOW:
    bar.sync 0;
DONE:
    ret;
}
.visible .entry counts(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    selp.u32 %r2, 64, 32, %p1;
    bar.sync 1, %r2;
    ret;
}
.visible .entry masks(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    selp.b32 %r2, 65535, 0xffffffff, %p1;
    bar.warp.sync %r2;
    ret;
}
.visible .entry apart(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra LOW;
    shfl.sync.idx.b32 %r2, %r1, 3, 31, -1;
    bra DONE;
LOW:
    shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;
DONE:
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r2;
    ret;
}
.visible .entry syncwarps(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra LOW;
    bar.warp.sync -1;
    bra DONE;
LOW:
    bar.warp.sync -1;
DONE:
    ret;
}
"#;

/// Launch `kernel` with one CTA of `threads`, under synccheck or not.
fn launch(engine: Engine, kernel: &str, threads: u32, synccheck: bool) -> Result<(), Error> {
    let mut ctx = Context::new();
    let m = ctx.load_module(PTX, "sync.ptx", engine).expect("loads");
    let k = m.kernel(kernel).expect("kernel");
    let out = ctx.alloc(4 * threads as u64, Some("out")).expect("alloc");
    let dims = LaunchDims {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        shared_bytes: 0,
    };
    let opts = LaunchOptions {
        synccheck,
        ..Default::default()
    };
    ctx.launch(&k, dims, &[KernelArg::Ptr(out)], &opts)
        .map(|_| ())
}

fn report(r: Result<(), Error>) -> ptxjit::host::tool::SanitizerReport {
    match r {
        Err(Error::Sanitizer(rep)) => *rep,
        other => panic!("expected synccheck's report, got {other:?}"),
    }
}

/// Launches `kernel` with one CTA of `threads` on each engine, without the tool (it completes,
/// or fails with the error kind `plain`) and under synccheck, whose report must have `count`
/// findings, each "Barrier error detected. `what`". Gives each engine's report.
fn findings(
    kernel: &str,
    threads: u32,
    plain: Option<&str>,
    count: usize,
    what: &str,
) -> Vec<(Engine, ptxjit::host::tool::SanitizerReport)> {
    [Engine::Jit, Engine::Interp]
        .into_iter()
        .map(|engine| {
            match (launch(engine, kernel, threads, false), plain) {
                (Ok(()), None) => {}
                (Err(e), Some(kind)) => assert_eq!(e.kind(), kind, "{engine}: {e}"),
                (other, _) => panic!("{engine}: {kernel} without synccheck: {other:?}"),
            }
            let rep = report(launch(engine, kernel, threads, true));
            assert_eq!(rep.findings.len(), count, "{engine}: {rep}");
            for f in &rep.findings {
                assert_eq!(
                    f.what,
                    format!("Barrier error detected. {what}"),
                    "{engine}"
                );
            }
            (engine, rep)
        })
        .collect()
}

#[test]
fn a_divergent_bar_sync_is_reported_before_its_deadlock() {
    // Without the tool: the deadlock, as before.
    let what = "Divergent thread(s) in warp";
    for (engine, rep) in findings("split", 32, Some("deadlock"), 1, what) {
        let f = &rep.findings[0];
        assert!(
            f.detail.contains("wait at barrier 0 (line")
                && f.detail.contains("lanes 0-15")
                && f.detail.contains("lanes 16-31"),
            "{engine}: {}",
            f.detail
        );
        let stopped = rep.stopped.as_deref().unwrap_or_default();
        assert!(stopped.contains("divergent barrier"), "{engine}: {stopped}");
        assert_eq!(rep.errors(), 2);
    }
}

#[test]
fn mismatched_thread_counts_are_reported_and_the_kernel_completes() {
    let what = "Mismatched barrier thread counts";
    for (engine, rep) in findings("counts", 64, None, 1, what) {
        assert_eq!(rep.stopped, None);
        let f = &rep.findings[0];
        assert_eq!((f.tid, f.threads), ([32, 0, 0], 32));
        assert!(
            f.detail.contains("warp 1 waits at barrier 1")
                && f.detail.contains("for 32 threads")
                && f.detail.contains("for 64 threads"),
            "{engine}: {}",
            f.detail
        );
    }
}

#[test]
fn lanes_that_name_each_other_with_different_membermasks_are_reported() {
    for (engine, rep) in findings("masks", 32, None, 1, "Invalid arguments") {
        let f = &rep.findings[0];
        // Lanes 16-31 name lanes 0-15, which give 0x0000ffff.
        assert_eq!((f.tid, f.threads), ([16, 0, 0], 16));
        assert!(
            f.detail.contains(
                "lane 16 of warp 0 names lane 0 in membermask 0xffffffff, but lane 0 executes \
                 it with membermask 0x0000ffff"
            ),
            "{engine}: {}",
            f.detail
        );
    }
}

/// `__shfl_sync(0xffffffff, …)` in both branches of `if (lane < 16)`: each half executes its
/// own `shfl.sync` while the membermask names the other half, which executes the other one
/// (CUDA: every non-exited thread the mask names must execute the same intrinsic with the
/// same mask); each instruction is a finding. `bar.warp.sync` in both branches exchanges
/// nothing and is none.
#[test]
fn a_shuffle_whose_membermask_names_lanes_at_another_shuffle_is_reported() {
    for (engine, rep) in findings("apart", 32, None, 2, "Invalid arguments") {
        for f in &rep.findings {
            assert_eq!(f.threads, 16, "{engine}: {rep}");
        }
        let low = rep
            .findings
            .iter()
            .find(|f| f.tid == [0, 0, 0])
            .expect("lanes 0-15");
        assert!(
            low.detail.contains(
                "lanes 0-15 of warp 0 execute it with membermask 0xffffffff, whose lanes 16-31 \
                 execute 'shfl.sync.idx.b32' at line 47 instead"
            ),
            "{engine}: {}",
            low.detail
        );
        assert!(
            rep.findings.iter().any(|f| f.tid == [16, 0, 0]
                && f.detail.contains("lanes 16-31 of warp 0")
                && f.detail
                    .contains("whose lanes 0-15 execute 'shfl.sync.idx.b32' at line 50")),
            "{engine}: {rep}"
        );
        assert!(launch(engine, "syncwarps", 32, true).is_ok(), "{engine}");
    }
}
