//! The Rust host API as a library user sees it: typed device buffers, the launch builder,
//! memset and device-to-device copies, the printf sink, and the opt-in to more than 48 KiB of
//! dynamic shared memory. Expected values come from host computations in this file or from
//! the reference files next to the bundled kernels.

use ptxjit::host::{
    Context, DeviceBuffer, DevicePtr, Engine, Error, KernelArg, LaunchDims, PrintfSink,
};
use std::path::PathBuf;

const ENGINES: [Engine; 2] = [Engine::Interp, Engine::Jit];

fn kernels_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ptx-tests")
}

fn load(ctx: &mut Context, rel: &str, engine: Engine) -> ptxjit::host::Module {
    let path = kernels_dir().join(rel);
    let ptx = std::fs::read_to_string(&path).expect("bundled PTX");
    ctx.load_module(&ptx, rel, engine).expect("loads")
}

/// A host sequence of `n` floats that are exact in f32 (small multiples of 1/8).
fn floats(n: usize, seed: u32) -> Vec<f32> {
    (0..n as u32)
        .map(|i| ((i.wrapping_mul(2654435761).wrapping_add(seed) >> 20) % 512) as f32 / 8.0)
        .collect()
}

#[test]
fn buffer_round_trip() {
    let ctx = Context::new();
    let data: Vec<u32> = (0..1000).map(|i| i * 7 + 3).collect();
    let mut b = DeviceBuffer::from_slice(&ctx, &data).unwrap();
    assert_eq!((b.len(), b.byte_len()), (1000, 4000));
    assert_eq!(b.to_vec().unwrap(), data);
    let other: Vec<u32> = (0..1000).rev().collect();
    b.copy_from(&other).unwrap();
    let mut back = vec![0u32; 1000];
    b.copy_to(&mut back).unwrap();
    assert_eq!(back, other);
    // The untyped API sees the same bytes.
    let mut raw = [0u8; 8];
    ctx.copy_dtoh(&mut raw, b.as_device_ptr().offset(4))
        .unwrap();
    assert_eq!(
        raw,
        [0xe6, 3, 0, 0, 0xe5, 3, 0, 0],
        "elements 1 and 2: 998, 997"
    );
    // Zeroed buffers are zero.
    let z = DeviceBuffer::<[u16; 3]>::zeroed(&ctx, 5).unwrap();
    assert_eq!(z.to_vec().unwrap(), vec![[0u16; 3]; 5]);
}

#[test]
fn buffer_length_mismatch_is_an_error() {
    let ctx = Context::new();
    let mut b = DeviceBuffer::<f32>::zeroed(&ctx, 4).unwrap();
    let e = b.copy_from(&[1.0; 3]).unwrap_err();
    assert!(
        matches!(&e, Error::Memory(m) if m.contains("4 elements, the host slice 3")),
        "{e}"
    );
    let e = b.copy_to(&mut [0.0; 5]).unwrap_err();
    assert!(matches!(e, Error::Memory(_)), "{e}");
    assert_eq!(b.to_vec().unwrap(), vec![0.0; 4], "nothing was written");
    let e = DeviceBuffer::<f32>::zeroed(&ctx, 0).unwrap_err();
    assert!(matches!(e, Error::Memory(_)), "{e}");
    let e = DeviceBuffer::<u64>::zeroed(&ctx, usize::MAX / 4).unwrap_err();
    assert!(
        matches!(&e, Error::Memory(m) if m.contains("overflows")),
        "{e}"
    );
}

#[test]
fn buffer_frees_on_drop_and_only_then() {
    let mut ctx = Context::new();
    let b = DeviceBuffer::<u8>::zeroed(&ctx, 256).unwrap();
    let p = b.as_device_ptr();
    ctx.copy_htod(p, &[1; 256]).unwrap();
    let e = ctx.free(p).unwrap_err();
    assert!(
        matches!(&e, Error::Memory(m) if m.contains("belongs to a DeviceBuffer")),
        "{e}"
    );
    assert_eq!(b.to_vec().unwrap(), vec![1; 256], "still live");
    drop(b);
    let e = ctx.copy_htod(p, &[1]).unwrap_err();
    assert!(
        matches!(&e, Error::Memory(m) if m.contains("not inside a live allocation")),
        "{e}"
    );
    // The untyped API still allocates and frees as before.
    let q = ctx.alloc(64, Some("q")).unwrap();
    ctx.free(q).unwrap();
    assert!(ctx.free(q).is_err(), "double free");
    assert_eq!(ctx.memory().allocations().count(), 0);
}

#[test]
fn buffer_outlives_its_context() {
    let ctx = Context::new();
    let b = DeviceBuffer::from_slice(&ctx, &[1.5f64, -2.0]).unwrap();
    drop(ctx);
    assert_eq!(b.to_vec().unwrap(), vec![1.5, -2.0]);
}

#[test]
fn buffers_and_copies_across_threads() {
    let ctx = Context::new();
    let bufs: Vec<DeviceBuffer<u32>> = (0..4)
        .map(|_| DeviceBuffer::zeroed(&ctx, 1000).unwrap())
        .collect();
    std::thread::scope(|s| {
        for (t, mut b) in bufs.into_iter().enumerate() {
            s.spawn(move || {
                let want: Vec<u32> = (0..1000).map(|i| i * (t as u32 + 1)).collect();
                b.copy_from(&want).unwrap();
                assert_eq!(b.to_vec().unwrap(), want);
            });
        }
    });
    assert_eq!(ctx.memory().allocations().count(), 0, "every buffer freed");
}

#[test]
fn device_to_device_copies() {
    let mut ctx = Context::new();
    let src: Vec<u8> = (0..=255).collect();
    let a = DeviceBuffer::from_slice(&ctx, &src).unwrap();
    let mut b = DeviceBuffer::<u8>::zeroed(&ctx, 256).unwrap();
    b.copy_from_buffer(&a).unwrap();
    assert_eq!(b.to_vec().unwrap(), src);
    // Overlapping ranges in one allocation act as memmove, both directions.
    let (pa, pb) = (a.as_device_ptr(), b.as_device_ptr());
    ctx.copy_dtod(pa.offset(10), pa, 100).unwrap();
    let mut want = src.clone();
    want.copy_within(0..100, 10);
    assert_eq!(a.to_vec().unwrap(), want);
    ctx.copy_dtod(pb, pb.offset(50), 200).unwrap();
    let mut want = src.clone();
    want.copy_within(50..250, 0);
    assert_eq!(b.to_vec().unwrap(), want);
    // A range past the end of the source writes nothing.
    let before = b.to_vec().unwrap();
    let e = ctx.copy_dtod(pb, pa.offset(200), 100).unwrap_err();
    assert!(
        matches!(&e, Error::Memory(m) if m.contains("run past the end")),
        "{e}"
    );
    assert_eq!(b.to_vec().unwrap(), before);
    // Buffers of different lengths or contexts are refused.
    let short = DeviceBuffer::<u8>::zeroed(&ctx, 10).unwrap();
    assert!(b.copy_from_buffer(&short).is_err());
    let other = Context::new();
    let elsewhere = DeviceBuffer::<u8>::zeroed(&other, 256).unwrap();
    let e = b.copy_from_buffer(&elsewhere).unwrap_err();
    assert!(
        matches!(&e, Error::Memory(m) if m.contains("different contexts")),
        "{e}"
    );
}

#[test]
fn memset_widths() {
    let mut ctx = Context::new();
    let b = DeviceBuffer::<u8>::zeroed(&ctx, 64).unwrap();
    let p = b.as_device_ptr();
    ctx.memset_d8(p.offset(1), 0xab, 5).unwrap();
    ctx.memset_d16(p.offset(8), 0x1234, 3).unwrap();
    ctx.memset_d32(p.offset(16), 0xdead_beef, 4).unwrap();
    let mut want = vec![0u8; 64];
    want[1..6].fill(0xab);
    for i in 0..3 {
        want[8 + 2 * i..10 + 2 * i].copy_from_slice(&0x1234u16.to_le_bytes());
    }
    for i in 0..4 {
        want[16 + 4 * i..20 + 4 * i].copy_from_slice(&0xdead_beefu32.to_le_bytes());
    }
    assert_eq!(b.to_vec().unwrap(), want);
    // Misaligned D16/D32 and ranges past the end are errors that write nothing.
    for e in [
        ctx.memset_d16(p.offset(1), 1, 2).unwrap_err(),
        ctx.memset_d32(p.offset(2), 1, 2).unwrap_err(),
        ctx.memset_d32(p.offset(48), 7, 5).unwrap_err(),
    ] {
        assert!(matches!(e, Error::Memory(_)), "{e}");
    }
    assert_eq!(b.to_vec().unwrap(), want);
}

/// saxpy through the builder on both engines: y = a * x + y, NVRTC's one `fma.rn.f32`, so
/// the host's `f32::mul_add` gives the same bits.
/// saxpy through the launch builder on both engines, with `timeout` as the launch's time
/// limit when given, against the host's `a * x + y`.
fn run_saxpy(n: usize, a: f32, timeout: Option<std::time::Duration>) {
    let (x, y0) = (floats(n, 1), floats(n, 2));
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| a.mul_add(*x, *y)).collect();
    for engine in ENGINES {
        let mut ctx = Context::new();
        let module = load(&mut ctx, "kernels/saxpy/saxpy.ptx", engine);
        let kernel = module.kernel("saxpy").unwrap();
        let xb = DeviceBuffer::from_slice(&ctx, &x).unwrap();
        let mut yb = DeviceBuffer::from_slice(&ctx, &y0).unwrap();
        let mut launch = ctx
            .launch_builder(&kernel)
            .grid((n as u32).div_ceil(128))
            .block((128, 1, 1));
        if let Some(t) = timeout {
            launch = launch.timeout(t);
        }
        launch
            .arg(n as u32)
            .arg(a)
            .arg(&xb)
            .arg(&mut yb)
            .launch()
            .unwrap();
        assert_eq!(yb.to_vec().unwrap(), want, "{engine}");
    }
}

#[test]
fn builder_runs_saxpy() {
    run_saxpy(1000, 2.5, None);
}

/// A time limit too far ahead for the clock (`Duration::MAX`) is no limit: the launch runs
/// (it used to panic adding the limit to the clock).
#[test]
fn a_time_limit_past_the_clock_is_no_limit() {
    run_saxpy(256, 2.0, Some(std::time::Duration::MAX));
}

/// A kernel storing through a pointer to a buffer freed just before (the highest one, so the
/// bytes are in no allocation): without memcheck the fault still names the freed buffer, and
/// freeing it again is a double free that names it.
#[test]
fn a_store_to_a_freed_buffer_is_named_without_memcheck() {
    for engine in ENGINES {
        let mut ctx = Context::new();
        let module = load(&mut ctx, "kernels/saxpy/saxpy.ptx", engine);
        let kernel = module.kernel("saxpy").unwrap();
        let x = DeviceBuffer::<f32>::zeroed(&ctx, 64).unwrap();
        let y = ctx.alloc(256, Some("y")).unwrap();
        ctx.free(y).unwrap();
        let e = ctx
            .launch_builder(&kernel)
            .grid(1)
            .block((64, 1, 1))
            .arg(64u32)
            .arg(1.0f32)
            .arg(&x)
            .arg(y)
            .launch()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("use after free (0 bytes into 'y' (256 bytes), which was freed)"),
            "{engine}: {e}"
        );
        let e = ctx.free(y).unwrap_err().to_string();
        assert!(e.contains("double free"), "{engine}: {e}");
    }
}

#[test]
fn builder_checks_arguments() {
    let mut ctx = Context::new();
    let module = load(&mut ctx, "kernels/saxpy/saxpy.ptx", Engine::Interp);
    let kernel = module.kernel("saxpy").unwrap();
    let x = DeviceBuffer::<f32>::zeroed(&ctx, 4).unwrap();
    // f64 for the .f32 parameter.
    let e = ctx
        .launch_builder(&kernel)
        .arg(4u32)
        .arg(2.0f64)
        .arg(&x)
        .arg(&x)
        .launch()
        .unwrap_err();
    assert!(
        matches!(&e, Error::Argument(m) if m.contains("argument 2") && m.contains("an f64")),
        "{e}"
    );
    // Too few arguments.
    let e = ctx.launch_builder(&kernel).arg(4u32).launch().unwrap_err();
    assert!(
        matches!(&e, Error::Argument(m) if m.contains("expects 4 arguments")),
        "{e}"
    );
    // A buffer of another context.
    let other = Context::new();
    let y = DeviceBuffer::<f32>::zeroed(&other, 4).unwrap();
    let e = ctx
        .launch_builder(&kernel)
        .arg(4u32)
        .arg(2.0f32)
        .arg(&x)
        .arg(&y)
        .launch()
        .unwrap_err();
    assert!(
        matches!(&e, Error::Argument(m) if m.contains("argument 4 is a buffer of another context")),
        "{e}"
    );
    // Raw pointers and untyped arguments mix with typed ones.
    ctx.launch_builder(&kernel)
        .arg(KernelArg::U32(4))
        .arg(2.0f32)
        .arg(x.as_device_ptr())
        .arg(DevicePtr(x.as_device_ptr().0))
        .launch()
        .unwrap();
}

/// Device printf into a captured sink: the text of `ptx-tests/kernels/printf`, whose expected
/// output printf_ref.py wrote with Python's %-formatting.
#[test]
fn printf_output_is_captured() {
    let dir = kernels_dir().join("kernels/printf");
    let want = std::fs::read_to_string(dir.join("printf_expected.txt")).unwrap();
    for engine in ENGINES {
        let mut ctx = Context::new();
        let module = load(&mut ctx, "kernels/printf/printf.ptx", engine);
        let kernel = module.kernel("hello").unwrap();
        let x: Vec<f32> = (0..40).map(|i| i as f32 * 0.25).collect();
        let xb = DeviceBuffer::from_slice(&ctx, &x).unwrap();
        ctx.set_printf_sink(PrintfSink::Capture);
        let run = |ctx: &mut Context| {
            ctx.launch_builder(&kernel)
                .block(40)
                .arg(&xb)
                .arg(40i32)
                .launch()
                .unwrap()
        };
        run(&mut ctx);
        assert_eq!(ctx.take_printf_output(), want, "{engine}");
        assert_eq!(ctx.take_printf_output(), "", "taking empties the capture");
        // A writer of the program's own.
        let shared = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
        struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let old = ctx.set_printf_sink(PrintfSink::Writer(Box::new(Shared(shared.clone()))));
        assert!(matches!(old, PrintfSink::Capture));
        run(&mut ctx);
        assert_eq!(
            String::from_utf8(shared.lock().unwrap().clone()).unwrap(),
            want
        );
        assert_eq!(ctx.take_printf_output(), "", "nothing captured meanwhile");
    }
}

/// A failed device assert's message goes to the same sink, in CUDA's wording; the launch
/// ends with the fault.
#[test]
fn assert_message_is_captured() {
    let mut x: Vec<i32> = (0..128).collect();
    x[70] = 75; // thread (6,0,0) of CTA (2,0,0) sees x[70] > x[71]
    for engine in ENGINES {
        let mut ctx = Context::new();
        let module = load(&mut ctx, "errors/assert.ptx", engine);
        let kernel = module.kernel("check_sorted").unwrap();
        let xb = DeviceBuffer::from_slice(&ctx, &x).unwrap();
        let out = DeviceBuffer::<i32>::zeroed(&ctx, 128).unwrap();
        ctx.set_printf_sink(PrintfSink::Capture);
        let e = ctx
            .launch_builder(&kernel)
            .grid(4)
            .block(32)
            .arg(&xb)
            .arg(&out)
            .arg(128i32)
            .launch()
            .unwrap_err();
        assert!(matches!(e, Error::Fault(_)), "{engine}: {e}");
        assert_eq!(
            ctx.take_printf_output(),
            "assert.cu:9: check_sorted: block: [2,0,0], thread: [6,0,0] \
             Assertion `x[i] <= x[i + 1]` failed.\n",
            "{engine}"
        );
    }
}

/// 100 KiB of dynamic shared memory (`ptx-tests/kernels/big_shared`, kernel `reverse`):
/// out[i] = 2·in[n-1-i] only if all 100 KiB hold.
#[test]
fn dynamic_shared_above_48k_needs_the_opt_in() {
    let bytes = 100 * 1024u32;
    let n = (bytes / 4) as usize;
    let input = floats(n, 3);
    let want: Vec<f32> = (0..n).map(|i| 2.0 * input[n - 1 - i]).collect();
    for engine in ENGINES {
        let mut ctx = Context::new();
        let module = load(&mut ctx, "kernels/big_shared/big_shared.ptx", engine);
        let kernel = module.kernel("reverse").unwrap();
        let inb = DeviceBuffer::from_slice(&ctx, &input).unwrap();
        let out = DeviceBuffer::<f32>::zeroed(&ctx, n).unwrap();
        let launch = |ctx: &mut Context| {
            ctx.launch_builder(&kernel)
                .block(256)
                .shared_bytes(bytes)
                .arg(&inb)
                .arg(&out)
                .arg(n as u32)
                .launch()
        };
        assert_eq!(kernel.max_dynamic_shared_bytes(), 48 * 1024);
        let e = launch(&mut ctx).unwrap_err();
        assert!(
            matches!(&e, Error::LaunchConfig(m)
                if m.contains("102400 bytes of dynamic shared memory exceed the 49152 bytes")
                && m.contains("cudaFuncAttributeMaxDynamicSharedMemorySize")),
            "{engine}: {e}"
        );
        // Above the device's opt-in limit (227 KiB) the attribute itself is refused.
        let e = kernel
            .set_max_dynamic_shared_bytes(227 * 1024 + 1)
            .unwrap_err();
        assert!(matches!(e, Error::Argument(_)), "{e}");
        kernel.set_max_dynamic_shared_bytes(bytes).unwrap();
        // Every handle of the kernel sees the attribute.
        assert_eq!(
            module.kernel("reverse").unwrap().max_dynamic_shared_bytes(),
            102400
        );
        // Another load of the same PTX shares the compiled kernel, not the attribute (CUDA
        // keeps it per CUfunction).
        let again = load(&mut ctx, "kernels/big_shared/big_shared.ptx", engine);
        let other = again.kernel("reverse").unwrap();
        assert!(std::sync::Arc::ptr_eq(&other.compiled, &kernel.compiled));
        assert_eq!(other.max_dynamic_shared_bytes(), 48 * 1024, "{engine}");
        launch(&mut ctx).unwrap();
        assert_eq!(out.to_vec().unwrap(), want, "{engine}");
        // One byte more than the attribute is refused again.
        let e = ctx
            .launch(
                &kernel,
                LaunchDims {
                    grid: [1, 1, 1],
                    block: [256, 1, 1],
                    shared_bytes: bytes + 1,
                },
                &[
                    KernelArg::Ptr(inb.as_device_ptr()),
                    KernelArg::Ptr(out.as_device_ptr()),
                    KernelArg::U32(n as u32),
                ],
                &Default::default(),
            )
            .unwrap_err();
        assert!(matches!(e, Error::LaunchConfig(_)), "{engine}: {e}");
    }
}

/// A cooperative launch through the builder: devrt_sync.ptx synchronises the grid twice
/// (numba's cudaCGSynchronize); expected from the host formulas in its header. Without
/// `.cooperative(true)` the grid workspace is null and the sync traps.
#[test]
fn cooperative_launch_synchronises_the_grid() {
    let (grid, block) = (6u32, 64u32);
    let n = (grid * block) as usize;
    let b: Vec<u32> = (0..n).map(|i| 5 * ((i + 1) % n) as u32 + 1).collect();
    let a: Vec<u32> = (0..n).map(|i| 2 * b[(i + 1) % n]).collect();
    for engine in ENGINES {
        let mut ctx = Context::new();
        let m = load(&mut ctx, "kernels/grid_sync/devrt_sync.ptx", engine);
        let k = m.kernel("devrt_sync").unwrap();
        let mut da = DeviceBuffer::<u32>::zeroed(&ctx, n).unwrap();
        let mut db = DeviceBuffer::<u32>::zeroed(&ctx, n).unwrap();
        ctx.launch_builder(&k)
            .grid(grid)
            .block(block)
            .cooperative(true)
            .arg(&mut da)
            .arg(&mut db)
            .launch()
            .unwrap();
        assert_eq!(da.to_vec().unwrap(), a, "{engine:?}");
        assert_eq!(db.to_vec().unwrap(), b, "{engine:?}");
        let e = ctx
            .launch_builder(&k)
            .grid(grid)
            .block(block)
            .arg(&mut da)
            .arg(&mut db)
            .launch()
            .unwrap_err();
        assert!(matches!(e, Error::Fault(_)), "{engine:?}: {e}");
    }
}

#[test]
fn extern_variable_is_the_definition_of_another_input() {
    // Two linked inputs: the first declares `g` `.extern` and takes its address and value,
    // the second defines it (as `nvcc -rdc=true` translation units do).
    let ptx = "\
.version 8.0
.target sm_80
.address_size 64
.extern .global .align 4 .u32 g;
.visible .entry addr(.param .u64 o)
{
    .reg .u64 %rd<4>;
    .reg .u32 %r<2>;
    ld.param.u64 %rd1, [o];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u64 %rd2, g;
    ld.global.u32 %r1, [g];
    cvt.u64.u32 %rd3, %r1;
    st.global.u64 [%rd1], %rd2;
    st.global.u64 [%rd1+8], %rd3;
    ret;
}
.visible .global .align 4 .u32 g = 42;
";
    for engine in ENGINES {
        let mut ctx = Context::new();
        let module = ctx.load_module(ptx, "linked.ptx", engine).unwrap();
        let (g, size) = module.global("g").expect("g is a module variable");
        assert_eq!(size, 4);
        let mut out = DeviceBuffer::<u64>::zeroed(&ctx, 2).unwrap();
        ctx.launch_builder(&module.kernel("addr").unwrap())
            .grid(1)
            .block((1, 1, 1))
            .arg(&mut out)
            .launch()
            .unwrap();
        assert_eq!(out.to_vec().unwrap(), [g.0, 42], "{engine}");
    }
}

/// A 32-bit const-space address (clang's short pointers) is a `.const` variable's offset from
/// the global arena's base; a module loaded after more than 4 GiB of allocations puts its
/// variables where no 32-bit address reaches, and must say so at load instead of reading
/// another allocation. 64-bit const addresses (NVRTC's) still load there.
#[test]
fn short_const_addresses_past_4_gib_are_a_load_error() {
    for engine in ENGINES {
        let mut ctx = Context::new();
        let big = ctx.alloc(5 << 30, Some("big")).expect("5 GiB reserve");
        let ptx =
            std::fs::read_to_string(kernels_dir().join("kernels/const_addr32/const_addr32.ptx"))
                .expect("bundled PTX");
        let err = match ctx.load_module(&ptx, "const_addr32.ptx", engine) {
            Ok(_) => panic!("a short const address past 4 GiB loaded"),
            Err(e) => e.to_string(),
        };
        // `mov.u32 %r5, ctab;` is line 25 of the file.
        assert!(err.contains("const_addr32.ptx:25:"), "{err}");
        assert!(err.contains("past the first 4 GiB"), "{err}");
        load(&mut ctx, "kernels/clang/const_table.ptx", engine);
        ctx.free(big).unwrap();
    }
}

/// A module linked from several inputs (`nvcc -rdc=true`'s translation units) names each
/// location by its input and that input's own line, in a compile error and in the report of
/// a launch stopped at its time limit, as fault reports do, never by a line of the linked
/// text, which the user never sees.
#[test]
fn a_linked_modules_errors_and_time_limit_reports_name_each_inputs_own_line() {
    let a = ".version 8.0\n.target sm_80\n.address_size 64\n\
             .extern .func spin(.param .u64 f);\n\
             .visible .entry k(.param .u64 f)\n{\n.reg .u64 %rd<2>;\nld.param.u64 %rd1, [f];\n\
             { .param .u64 p; st.param.u64 [p], %rd1; call.uni spin, (p); }\nret;\n}\n";
    // Line 11 loads the flag, line 13 branches back while it is 0.
    let b = ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .func spin(.param .u64 f)\n{\n.reg .u64 %rd<2>;\n.reg .u32 %r<2>;\n\
             .reg .pred %p<2>;\nld.param.u64 %rd1, [f];\n$L:\nld.volatile.global.u32 %r1, [%rd1];\n\
             setp.eq.u32 %p1, %r1, 0;\n@%p1 bra $L;\nret;\n}\n";
    let link = |b: &str| {
        ptxjit::host::image::link_ptx(&[("a.ptx".into(), a.into()), ("b.ptx".into(), b.into())])
            .expect("links")
    };
    for engine in ENGINES {
        // An undeclared register on b.ptx's line 12.
        let (text, file) = link(&b.replace("setp.eq.u32 %p1, %r1", "setp.eq.u32 %p1, %r7"));
        let err = match Context::new().load_module(&text, file, engine) {
            Ok(_) => panic!("{engine:?}: an undeclared register loaded"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("b.ptx:12:"), "{engine:?}: {err}");
        assert!(!err.contains("a.ptx+b.ptx:"), "{engine:?}: {err}");

        let (text, file) = link(b);
        let mut ctx = Context::new();
        let module = ctx.load_module(&text, file, engine).unwrap();
        let mut flag = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
        let e = ctx
            .launch_builder(&module.kernel("k").unwrap())
            .grid(1)
            .block((32, 1, 1))
            .timeout(std::time::Duration::from_millis(300))
            .arg(&mut flag)
            .launch()
            .unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, Error::Timeout(..)), "{engine:?}: {text}");
        assert!(
            ["b.ptx:11", "b.ptx:12", "b.ptx:13"]
                .iter()
                .any(|at| text.contains(at)),
            "{engine:?}: {text}"
        );
        assert!(!text.contains(" line "), "{engine:?}: {text}");
        // The header names the input and line where the warp was (b.ptx's loop), not
        // every input joined.
        assert!(
            [
                "b.ptx:11:1: kernel 'k'",
                "b.ptx:12:1: kernel 'k'",
                "b.ptx:13:1: kernel 'k'"
            ]
            .iter()
            .any(|at| text.starts_with(at)),
            "{engine:?}: {text}"
        );
    }
}
