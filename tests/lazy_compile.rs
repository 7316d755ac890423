//! Kernels compile at their first launch, not when their module loads, and modules loaded
//! from the same PTX text for the same engine share their compiled kernels (`host::cache`).
//! Expected values come from the kernels' PTX read by hand.
//!
//! The cache is process-wide and tests run in parallel: each test loads a text of its own (a
//! distinct comment), so no other test can lend it kernels.

use ptxjit::host::{Context, Engine, KernelArg, LaunchDims, LaunchOptions, Module};
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
