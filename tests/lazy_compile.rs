//! Kernels compile at their first launch, not when their module loads, and modules loaded
//! from the same PTX text for the same engine share their compiled kernels (`host::cache`).
//! Expected values come from the kernels' PTX read by hand.
//!
//! The cache is process-wide and tests run in parallel: each test loads a text of its own (a
//! distinct comment), so no other test can lend it kernels.

use ptxjit::host::{Context, Engine, KernelArg, LaunchDims, LaunchOptions, Module, Tier};
use std::sync::Arc;

/// Two kernels: `one` writes 1 to `out[tid]`, `two` writes 2; `two` also has static shared
/// memory (16 bytes) and a `.maxntid` of 64.
fn two_kernels(tag: &str) -> String {
    format!(
        "// {tag}
.version 8.0
.target sm_80
.address_size 64
.visible .entry one(.param .u64 out)
{{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r2, 1;
  st.global.u32 [%rd3], %r2;
  ret;
}}
.visible .entry two(.param .u64 out) .maxntid 64, 1, 1
{{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 scratch[16];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r2, 2;
  st.global.u32 [%rd3], %r2;
  ret;
}}
"
    )
}

fn compiled(m: &Module) -> Vec<bool> {
    m.kernels.iter().map(|k| k.is_compiled()).collect()
}

/// Launch `name` of `m` on 32 threads; the 32 words it wrote.
fn launch(ctx: &mut Context, m: &Module, name: &str) -> Vec<u32> {
    let k = m.kernel(name).expect("kernel");
    let out = ctx.alloc(128, Some("out")).expect("alloc");
    ctx.copy_htod(out, &[0u8; 128]).expect("copy");
    let dims = LaunchDims {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 0,
    };
    ctx.launch(&k, dims, &[KernelArg::Ptr(out)], &LaunchOptions::default())
        .expect("launch");
    let mut b = [0u8; 128];
    ctx.copy_dtoh(&mut b, out).expect("copy back");
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Loading compiles nothing, yet the kernels' attributes are there; launching one kernel
/// compiles it alone.
#[test]
fn loading_compiles_nothing_and_a_launch_compiles_its_kernel_only() {
    for engine in [Engine::Interp, Engine::Jit] {
        let ptx = two_kernels(&format!("first launch, {engine}"));
        let mut ctx = Context::new();
        let m = ctx.load_module(&ptx, "two.ptx", engine).expect("load");
        assert_eq!(compiled(&m), [false, false], "{engine}");
        let two = m.kernel("two").expect("kernel two");
        assert_eq!(two.compiled.params.len(), 1, "{engine}");
        assert_eq!(two.compiled.static_shared_bytes, 16, "{engine}");
        assert_eq!(two.compiled.max_threads, Some(64), "{engine}");
        assert_eq!(compiled(&m), [false, false], "{engine}");
        assert_eq!(launch(&mut ctx, &m, "one"), [1; 32], "{engine}");
        assert_eq!(compiled(&m), [true, false], "{engine}");
        two.compile().expect("compiles");
        assert_eq!(compiled(&m), [true, true], "{engine}");
        assert_eq!(launch(&mut ctx, &m, "two"), [2; 32], "{engine}");
    }
}

/// The same text for the same engine, loaded again while the first module lives (here in
/// another context, under another file name), shares its kernels, compiled or not; another
/// engine does not. Once every module of a text is gone, loading it again starts afresh.
#[test]
fn the_same_ptx_shares_compiled_kernels() {
    let ptx = two_kernels("shared");
    let mut ctx = Context::new();
    let a = ctx.load_module(&ptx, "a.ptx", Engine::Jit).expect("load a");
    assert_eq!(launch(&mut ctx, &a, "one"), [1; 32]);
    let mut other = Context::new();
    let b = other
        .load_module(&ptx, "b.ptx", Engine::Jit)
        .expect("load b");
    for (x, y) in a.kernels.iter().zip(&b.kernels) {
        assert!(Arc::ptr_eq(x, y), "kernel {} is not shared", x.name);
    }
    assert_eq!(compiled(&b), [true, false]);
    // b's launch runs the kernel a compiled, on b's context.
    assert_eq!(launch(&mut other, &b, "one"), [1; 32]);
    assert_eq!(launch(&mut other, &b, "two"), [2; 32]);
    assert_eq!(compiled(&a), [true, true]);
    let interp = ctx
        .load_module(&ptx, "a.ptx", Engine::Interp)
        .expect("load for the interpreter");
    assert_eq!(compiled(&interp), [false, false]);
    assert!(!Arc::ptr_eq(&a.kernels[0], &interp.kernels[0]));
    // A different text (one more comment) shares nothing.
    let changed = ctx
        .load_module(&format!("{ptx}// changed\n"), "a.ptx", Engine::Jit)
        .expect("load changed");
    assert_eq!(compiled(&changed), [false, false]);
    drop((a, b));
    let again = ctx
        .load_module(&ptx, "a.ptx", Engine::Jit)
        .expect("load again");
    assert_eq!(compiled(&again), [false, false]);
}

/// A kernel handle keeps its kernel alive, and shared, after its module is dropped; the
/// module's other kernel, which nothing holds, compiles anew.
#[test]
fn a_kernel_handle_keeps_its_kernel_shared() {
    let ptx = two_kernels("handle");
    let mut ctx = Context::new();
    let m = ctx.load_module(&ptx, "h.ptx", Engine::Jit).expect("load");
    let one = m.kernel("one").expect("kernel");
    one.compile().expect("compiles");
    m.kernel("two")
        .expect("kernel")
        .compile()
        .expect("compiles");
    drop(m);
    let again = ctx
        .load_module(&ptx, "h.ptx", Engine::Jit)
        .expect("load again");
    assert!(Arc::ptr_eq(&one.compiled, &again.kernels[0]));
    assert_eq!(compiled(&again), [true, false]);
    assert_eq!(launch(&mut ctx, &again, "two"), [2; 32]);
}

/// `squares` writes `out[tid] = 0² + 1² + … + tid²` (a loop with a per-lane trip count).
fn squares_kernel(tag: &str) -> String {
    format!(
        "// {tag}
.version 8.0
.target sm_80
.address_size 64
.visible .entry squares(.param .u64 out)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
LOOP:
  setp.gt.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  mad.lo.u32 %r3, %r2, %r2, %r3;
  add.u32 %r2, %r2, 1;
  bra LOOP;
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}}
"
    )
}

/// Launch `squares` of `m` on 100 threads (a partial last warp); the 100 words it wrote.
fn launch_squares(ctx: &mut Context, m: &Module) -> Vec<u32> {
    let k = m.kernel("squares").expect("kernel");
    let out = ctx.alloc(400, Some("out")).expect("alloc");
    ctx.copy_htod(out, &[0xffu8; 400]).expect("copy");
    let dims = LaunchDims {
        grid: [1, 1, 1],
        block: [100, 1, 1],
        shared_bytes: 0,
    };
    ctx.launch(&k, dims, &[KernelArg::Ptr(out)], &LaunchOptions::default())
        .expect("launch");
    let mut b = [0u8; 400];
    ctx.copy_dtoh(&mut b, out).expect("copy back");
    ctx.free(out).expect("free");
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// t(t+1)(2t+1)/6 for t = 0..100, computed on the host.
fn squares_expected() -> Vec<u32> {
    (0..100u32).map(|t| t * (t + 1) * (2 * t + 1) / 6).collect()
}

/// Whether `PTXJIT_TIER` forces one tier in this process (the tier tests then check only
/// the results).
fn tier_forced() -> bool {
    std::env::var("PTXJIT_TIER").is_ok_and(|v| !v.trim().is_empty())
}

/// The first compilation gives the quick tier; launches while the optimized tier is pending
/// run it; `compile_optimized` swaps in the optimized tier for later launches, and the quick
/// one is freed once nothing holds it. Every launch gives the host's answer.
#[test]
fn launches_before_and_after_the_optimized_tier_give_the_same_result() {
    let ptx = squares_kernel("tiers, paused");
    let mut ctx = Context::new();
    let m = ctx.load_module(&ptx, "sq.ptx", Engine::Jit).expect("load");
    let k = m.kernel("squares").expect("kernel");
    assert_eq!(k.jit_tier(), None);
    let pause = ptxjit::host::pause_optimizer();
    k.compile().expect("compiles");
    let quick = k.compiled.engine().expect("compiled");
    if !tier_forced() {
        assert_eq!(k.jit_tier(), Some(Tier::Quick));
    }
    for _ in 0..3 {
        assert_eq!(launch_squares(&mut ctx, &m), squares_expected());
    }
    // The background thread is paused: this compiles the optimized tier here.
    k.compile_optimized().expect("optimized tier");
    if !tier_forced() {
        assert_eq!(k.jit_tier(), Some(Tier::Optimized));
        let optimized = k.compiled.engine().expect("compiled");
        assert!(
            !Arc::ptr_eq(&quick, &optimized),
            "the engine was not swapped"
        );
        // Only this test still holds the quick tier's code.
        assert_eq!(Arc::strong_count(&quick), 1);
    }
    drop(quick);
    assert_eq!(launch_squares(&mut ctx, &m), squares_expected());
    drop(pause);
    assert_eq!(launch_squares(&mut ctx, &m), squares_expected());
}

/// Without `compile_optimized`, the background thread swaps the optimized tier in between
/// launches; every launch meanwhile gives the host's answer.
#[test]
fn the_background_thread_swaps_in_the_optimized_tier() {
    let ptx = squares_kernel("tiers, background");
    let mut ctx = Context::new();
    let m = ctx.load_module(&ptx, "sq.ptx", Engine::Jit).expect("load");
    let k = m.kernel("squares").expect("kernel");
    k.compile().expect("compiles");
    // A liveness bound (the optimized tier of a small kernel compiles in milliseconds), not
    // a measurement: another test may hold the background thread paused for a while.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while k.jit_tier() == Some(Tier::Quick) && std::time::Instant::now() < deadline {
        assert_eq!(launch_squares(&mut ctx, &m), squares_expected());
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    if !tier_forced() {
        assert_eq!(k.jit_tier(), Some(Tier::Optimized));
    }
    assert_eq!(launch_squares(&mut ctx, &m), squares_expected());
}

/// The interpreter has no tiers.
#[test]
fn the_interpreter_has_no_tier() {
    let ptx = squares_kernel("tiers, interpreter");
    let mut ctx = Context::new();
    let m = ctx
        .load_module(&ptx, "sq.ptx", Engine::Interp)
        .expect("load");
    let k = m.kernel("squares").expect("kernel");
    k.compile_optimized().expect("compiles");
    assert_eq!(k.jit_tier(), None);
    assert_eq!(launch_squares(&mut ctx, &m), squares_expected());
}
