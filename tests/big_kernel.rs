//! A very large kernel: a straight-line chain of 150 000 32-bit integer operations (what a
//! fully unrolled loop becomes) loads, compiles and gives the answer computed on the host.
//! Its quick-tier code has a stack frame of about 2.4 MiB (the single-pass register
//! allocator gives each spilled value its own slot), more than a thread's default 2 MiB: the
//! launch's worker threads must have the stack for it (`runtime::workers`). Such a kernel
//! keeps its quick tier (`Kernel::compile_optimized` does not compile the optimized one).
//!
//! The kernel is generated here (as `benches/gen_big_straight.py` does for the measurements
//! in docs/performance.md, "Very large kernels"); the expected output is the same chain
//! evaluated with Rust's wrapping arithmetic.

use ptxjit::host::{Context, Engine, Error, Kernel, KernelArg, LaunchDims, LaunchOptions, Tier};

/// One operation: `%r{dst} = op(%r{x}, %r{y})`, or `op(%r{x}, imm)` for shifts.
#[derive(Clone, Copy)]
struct Op {
    kind: usize,
    x: usize,
    y: usize,
    imm: u32,
}

const KINDS: [&str; 8] = [
    "add.s32",
    "xor.b32",
    "mul.lo.s32",
    "sub.s32",
    "or.b32",
    "shl.b32",
    "and.b32",
    "shr.u32",
];

/// `n` operations, each reading two of the last 16 values (a pseudo-random choice).
fn chain(n: usize) -> Vec<Op> {
    let mut state: u32 = 0x9E37_79B9;
    (0..n)
        .map(|i| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let avail = i + 2; // %r0 = a[i], %r1 = b[i]
            Op {
                kind: (state >> 16) as usize % KINDS.len(),
                x: avail - 1 - ((state >> 4) & 15) as usize % avail,
                y: avail - 1 - ((state >> 8) & 15) as usize % avail,
                imm: (state >> 20) & 31,
            }
        })
        .collect()
}

/// Appends the chain's instructions: operation `i` writes `%r{i + 2}` from `%r0`, `%r1` and
/// the values before it.
fn write_chain(s: &mut String, ops: &[Op]) {
    use std::fmt::Write;
    for (i, op) in ops.iter().enumerate() {
        let k = KINDS[op.kind];
        if k.starts_with("sh") {
            writeln!(s, "{k} %r{}, %r{}, {};", i + 2, op.x, op.imm).unwrap();
        } else {
            writeln!(s, "{k} %r{}, %r{}, %r{};", i + 2, op.x, op.y).unwrap();
        }
    }
}

/// The kernel `big(a, b, out, n)`: `out[i] = chain(a[i], b[i])` for `i < n`.
fn ptx(ops: &[Op]) -> String {
    use std::fmt::Write;
    let last = ops.len() + 1;
    let mut s = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry big(.param .u64 pa, .param .u64 pb, .param .u64 pout, .param .u32 pn)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<{}>;\n.reg .b32 %t<4>;\n.reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [pa];\nld.param.u64 %rd2, [pb];\nld.param.u64 %rd3, [pout];\n\
         ld.param.u32 %t0, [pn];\nmov.u32 %t1, %ctaid.x;\nmov.u32 %t2, %ntid.x;\n\
         mov.u32 %t3, %tid.x;\nmad.lo.s32 %t1, %t1, %t2, %t3;\nsetp.ge.u32 %p1, %t1, %t0;\n\
         @%p1 bra DONE;\nmul.wide.u32 %rd4, %t1, 4;\nadd.s64 %rd5, %rd1, %rd4;\n\
         add.s64 %rd6, %rd2, %rd4;\nadd.s64 %rd7, %rd3, %rd4;\n\
         ld.global.u32 %r0, [%rd5];\nld.global.u32 %r1, [%rd6];\n",
        last + 1
    );
    write_chain(&mut s, ops);
    writeln!(s, "st.global.u32 [%rd7], %r{last};\nDONE:\nret;\n}}").unwrap();
    s
}

/// The chain on the host.
fn reference(ops: &[Op], a: u32, b: u32) -> u32 {
    let mut v = vec![a, b];
    for op in ops {
        let (p, q) = (v[op.x], v[op.y]);
        v.push(match KINDS[op.kind] {
            "add.s32" => p.wrapping_add(q),
            "sub.s32" => p.wrapping_sub(q),
            "xor.b32" => p ^ q,
            "and.b32" => p & q,
            "or.b32" => p | q,
            "mul.lo.s32" => p.wrapping_mul(q),
            "shl.b32" => p << op.imm,
            "shr.u32" => p >> op.imm,
            k => panic!("no reference for {k}"),
        });
    }
    *v.last().unwrap()
}

fn to_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs `k(in0, in1, out, n)` on one CTA of 128 threads, `ins` uploaded as the first two
/// arguments and `out` (n words) zeroed; gives `out` or the launch's error.
fn run_128(
    ctx: &mut Context,
    k: &Kernel,
    ins: [(&[u32], &str); 2],
    n: u32,
) -> Result<Vec<u32>, Error> {
    let mut ptrs = vec![];
    for (data, name) in ins {
        let p = ctx.alloc(4 * data.len() as u64, Some(name)).unwrap();
        ctx.copy_htod(p, &to_bytes(data)).unwrap();
        ptrs.push(KernelArg::Ptr(p));
    }
    let dout = ctx.alloc(4 * n as u64, Some("out")).unwrap();
    ctx.copy_htod(dout, &vec![0u8; 4 * n as usize]).unwrap();
    ptrs.extend([KernelArg::Ptr(dout), KernelArg::U32(n)]);
    let dims = LaunchDims {
        grid: [1, 1, 1],
        block: [128, 1, 1],
        shared_bytes: 0,
    };
    ctx.launch(k, dims, &ptrs, &LaunchOptions::default())?;
    let mut out = vec![0u8; 4 * n as usize];
    ctx.copy_dtoh(&mut out, dout).unwrap();
    Ok(out
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[test]
fn a_150k_instruction_kernel_runs_on_the_jit() {
    let ops = chain(150_000);
    let n = 100u32; // three warps of a 128-thread CTA, the last one partial
    let a: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9E37_79B1) | 1).collect();
    let b: Vec<u32> = (0..n)
        .map(|i| (i ^ 0x5555_AAAA).rotate_left(i) | 1)
        .collect();
    let expected: Vec<u32> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| reference(&ops, x, y))
        .collect();
    let mut ctx = Context::new();
    let m = ctx
        .load_module(&ptx(&ops), "big.ptx", Engine::Jit)
        .expect("load");
    let k = m.kernel("big").expect("kernel");
    let got = run_128(&mut ctx, &k, [(&a, "a"), (&b, "b")], n).expect("launch");
    assert_eq!(got, expected);
    if std::env::var_os("PTXJIT_TIER").is_none() {
        // Too large for the optimized tier: it keeps the quick one.
        k.compile_optimized().expect("compile_optimized");
        assert_eq!(k.compiled.tier_for(false, false), Some(Tier::Quick));
    }
}

/// The kernel `gather(idx, src, out, n)`: `out[i] = chain(src[idx[i]], i)` for `i < n`, with
/// `ops` long enough that the kernel is big (the JIT's quick tier gives it one version per
/// block and sends a data-dependent group load straight to the runtime, `jit::codegen`'s
/// `BIG_KERNEL_INSTS`) and above `OPTIMIZE_MAX_INSTS`, so the quick tier is the one that
/// runs. Returns the text and the 1-based line of the gather load.
fn gather_ptx(ops: &[Op]) -> (String, usize) {
    use std::fmt::Write;
    let last = ops.len() + 1;
    let mut s = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry gather(.param .u64 pidx, .param .u64 psrc, .param .u64 pout, .param .u32 pn)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<{}>;\n.reg .b32 %t<5>;\n.reg .b64 %rd<10>;\n\
         ld.param.u64 %rd1, [pidx];\nld.param.u64 %rd2, [psrc];\nld.param.u64 %rd3, [pout];\n\
         ld.param.u32 %t0, [pn];\nmov.u32 %t1, %ctaid.x;\nmov.u32 %t2, %ntid.x;\n\
         mov.u32 %t3, %tid.x;\nmad.lo.s32 %t1, %t1, %t2, %t3;\nsetp.ge.u32 %p1, %t1, %t0;\n\
         @%p1 bra DONE;\nmul.wide.u32 %rd4, %t1, 4;\nadd.s64 %rd5, %rd1, %rd4;\n\
         ld.global.u32 %t4, [%rd5];\nmul.wide.u32 %rd6, %t4, 4;\nadd.s64 %rd7, %rd2, %rd6;\n",
        last + 1
    );
    let line = s.lines().count() + 1;
    s.push_str("ld.global.u32 %r0, [%rd7];\nmov.u32 %r1, %t1;\n");
    write_chain(&mut s, ops);
    writeln!(
        s,
        "add.s64 %rd8, %rd3, %rd4;\nst.global.u32 [%rd8], %r{last};\nDONE:\nret;\n}}"
    )
    .unwrap();
    (s, line)
}

/// A big kernel's quick tier: a data-dependent load (no per-group shape test there, the
/// runtime does the lanes), consecutive loads and stores with hoisted checks and a partial
/// last warp give the host's answers, and an out-of-bounds index is reported as the
/// interpreter reports it: the lowest faulting thread, the load and its source line.
#[test]
fn a_big_kernels_quick_tier_gathers_and_reports_the_faulting_thread() {
    let ops = chain(9_000);
    let (text, line) = gather_ptx(&ops);
    let n = 100u32; // a partial last warp
    let src: Vec<u32> = (0..256u32)
        .map(|i| i.wrapping_mul(0x2545_F491) ^ 0x1234)
        .collect();
    let mut idx: Vec<u32> = (0..n).map(|i| (i * 37 + 11) % 256).collect();
    let expected: Vec<u32> = (0..n)
        .map(|i| reference(&ops, src[idx[i as usize] as usize], i))
        .collect();
    let mut ctx = Context::new();
    let m = ctx
        .load_module(&text, "gather.ptx", Engine::Jit)
        .expect("load");
    let k = m.kernel("gather").expect("kernel");
    let got = run_128(&mut ctx, &k, [(&idx, "idx"), (&src, "src")], n).expect("launch");
    assert_eq!(got, expected);
    if std::env::var_os("PTXJIT_TIER").is_none() {
        assert_eq!(k.jit_tier(), Some(Tier::Quick));
    }
    // Threads 37 and 70 read far past every buffer: the lower one is reported.
    idx[37] = 0x4000_0000;
    idx[70] = 0x4000_0001;
    let e = run_128(&mut ctx, &k, [(&idx, "idx"), (&src, "src")], n)
        .expect_err("an out-of-bounds gather");
    let msg = e.to_string();
    assert!(
        msg.contains(&format!("gather.ptx:{line}:"))
            && msg.contains("by CTA (0,0,0) thread (37,0,0)")
            && msg.contains("ld.global.u32"),
        "{msg}"
    );
}
