//! Interpreter tests: small PTX kernels with hand-computed expectations (never taken from an
//! engine), run through the whole host API.

use crate::host::{Context, DevicePtr, Engine, Error, KernelArg, LaunchDims, LaunchOptions};
use crate::runtime::env::FaultKind;

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

fn dims(grid: [u32; 3], block: [u32; 3]) -> LaunchDims {
    LaunchDims {
        grid,
        block,
        shared_bytes: 0,
    }
}

fn upload_u32(ctx: &mut Context, data: &[u32]) -> DevicePtr {
    let p = ctx.alloc(data.len() as u64 * 4, None).expect("alloc");
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    ctx.copy_htod(p, &bytes).expect("htod");
    p
}

fn download_u32(ctx: &Context, p: DevicePtr, n: usize) -> Vec<u32> {
    let mut bytes = vec![0u8; n * 4];
    ctx.copy_dtoh(&mut bytes, p).expect("dtoh");
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Load `body` (PTX after the header) and launch `kernel`.
fn launch(
    ctx: &mut Context,
    body: &str,
    kernel: &str,
    d: LaunchDims,
    args: &[KernelArg],
    opts: &LaunchOptions,
) -> Result<(), Error> {
    let ptx = format!("{HEADER}{body}");
    let m = ctx.load_module(&ptx, "t.ptx", Engine::Interp)?;
    let k = m.kernel(kernel)?;
    ctx.launch(&k, d, args, opts).map(|_| ())
}

fn run(ctx: &mut Context, body: &str, kernel: &str, d: LaunchDims, args: &[KernelArg]) {
    if let Err(e) = launch(ctx, body, kernel, d, args, &LaunchOptions::default()) {
        panic!("launch of {kernel} failed: {e}");
    }
}

const VADD: &str = r#"
.visible .entry vadd(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 pn)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pc];
    ld.param.u32 %r1, [pn];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra $L_done;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.s32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
$L_done:
    ret;
}
"#;

#[test]
fn vector_add() {
    let n = 1000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    let mut ctx = Context::new();
    let pa = upload_u32(&mut ctx, &a.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    let pb = upload_u32(&mut ctx, &b.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    // One spare element after n: the guard must keep it untouched.
    let pc = upload_u32(&mut ctx, &vec![0xdead_beef; n as usize + 1]);
    let args = [
        KernelArg::Ptr(pa),
        KernelArg::Ptr(pb),
        KernelArg::Ptr(pc),
        KernelArg::U32(n),
    ];
    run(&mut ctx, VADD, "vadd", dims([8, 1, 1], [128, 1, 1]), &args);
    let c = download_u32(&ctx, pc, n as usize + 1);
    for i in 0..n as usize {
        assert_eq!(c[i], (a[i] + b[i]).to_bits(), "c[{i}]");
    }
    assert_eq!(c[n as usize], 0xdead_beef);
}

const IFELSE: &str = r#"
.visible .entry ifelse(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r5, %r1, %r2, %r3;
    rem.u32 %r6, %r5, 3;
    setp.eq.u32 %p1, %r6, 0;
    @%p1 bra $L_then;
    and.b32 %r8, %r5, 1;
    setp.eq.u32 %p2, %r8, 0;
    @%p2 bra $L_even;
    add.u32 %r7, %r5, 200;
    bra $L_join;
$L_even:
    add.u32 %r7, %r5, 100;
    bra $L_join;
$L_then:
    shl.b32 %r7, %r5, 1;
$L_join:
    add.u32 %r9, %r7, 1;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r9;
    ret;
}
"#;

#[test]
fn divergent_if_else() {
    let n = 2 * 96;
    let mut ctx = Context::new();
    let out = upload_u32(&mut ctx, &vec![0; n]);
    run(
        &mut ctx,
        IFELSE,
        "ifelse",
        dims([2, 1, 1], [96, 1, 1]),
        &[KernelArg::Ptr(out)],
    );
    let got = download_u32(&ctx, out, n);
    for (i, &g) in got.iter().enumerate() {
        let i = i as u32;
        let want = if i.is_multiple_of(3) {
            2 * i + 1
        } else if i.is_multiple_of(2) {
            i + 101
        } else {
            i + 201
        };
        assert_eq!(g, want, "out[{i}]");
    }
}

const LOOP: &str = r#"
.visible .entry loop(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mul.lo.u32 %r2, %r1, 5;
    rem.u32 %r3, %r2, 13;
    mov.u32 %r4, 0;
    mov.u32 %r5, 0;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 bra $L_after;
$L_loop:
    mad.lo.u32 %r6, %r5, %r5, 1;
    add.u32 %r4, %r4, %r6;
    setp.gt.u32 %p3, %r4, 300;
    @%p3 bra $L_after;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p2, %r5, %r3;
    @%p2 bra $L_loop;
$L_after:
    mad.lo.u32 %r7, %r4, 1000, %r5;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
    ret;
}
"#;

#[test]
fn loop_with_per_lane_trip_counts() {
    let n = 64;
    let mut ctx = Context::new();
    let out = upload_u32(&mut ctx, &vec![0; n]);
    run(
        &mut ctx,
        LOOP,
        "loop",
        dims([1, 1, 1], [n as u32, 1, 1]),
        &[KernelArg::Ptr(out)],
    );
    let got = download_u32(&ctx, out, n);
    for (tid, &g) in got.iter().enumerate() {
        let t = (tid as u32 * 5) % 13;
        let (mut sum, mut k) = (0u32, 0u32);
        while k < t {
            sum += k * k + 1;
            if sum > 300 {
                break;
            }
            k += 1;
        }
        assert_eq!(g, sum * 1000 + k, "out[{tid}] (trip count {t})");
    }
}

const REVERSE: &str = r#"
.visible .entry reverse(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<14>;
    .reg .b64 %rd<10>;
    .shared .align 4 .b8 sh[512];
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %ctaid.x;
    mad.lo.s32 %r4, %r3, %r2, %r1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mov.u32 %r6, sh;
    shl.b32 %r7, %r1, 2;
    add.u32 %r8, %r6, %r7;
    st.shared.u32 [%r8], %r5;
    bar.sync 0;
    sub.u32 %r9, %r2, %r1;
    sub.u32 %r9, %r9, 1;
    mul.wide.u32 %rd5, %r9, 4;
    mov.u64 %rd6, sh;
    cvta.shared.u64 %rd7, %rd6;
    add.s64 %rd8, %rd7, %rd5;
    ld.u32 %r12, [%rd8];
    add.s64 %rd9, %rd2, %rd3;
    st.global.u32 [%rd9], %r12;
    ret;
}
"#;

#[test]
fn barrier_reverses_through_shared_memory() {
    let (ctas, threads) = (3usize, 128usize);
    let input: Vec<u32> = (0..ctas * threads).map(|i| (i as u32) * 7 + 3).collect();
    let mut ctx = Context::new();
    let pin = upload_u32(&mut ctx, &input);
    let pout = upload_u32(&mut ctx, &vec![0; ctas * threads]);
    run(
        &mut ctx,
        REVERSE,
        "reverse",
        dims([ctas as u32, 1, 1], [threads as u32, 1, 1]),
        &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)],
    );
    let got = download_u32(&ctx, pout, ctas * threads);
    for c in 0..ctas {
        for t in 0..threads {
            assert_eq!(
                got[c * threads + t],
                input[c * threads + threads - 1 - t],
                "CTA {c} thread {t}"
            );
        }
    }
}

fn shfl_kernel(mode: &str) -> String {
    format!(
        r#"
.visible .entry shfl_{mode}(.param .u64 out, .param .u32 pb, .param .u32 pc)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u32 %r1, [pb];
    ld.param.u32 %r2, [pc];
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r4, %r3, 10, 7;
    shfl.sync.{mode}.b32 %r5|%p1, %r4, %r1, %r2, -1;
    selp.u32 %r6, 1, 0, %p1;
    mul.wide.u32 %rd2, %r3, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    st.global.u32 [%rd3+4], %r6;
    ret;
}}
"#
    )
}

#[test]
fn shfl_modes_against_host() {
    // (mode, b, segment width); c = ((32 - width) << 8) | (0x1f for all but up).
    let cases: [(&str, u32, u32); 8] = [
        ("down", 3, 32),
        ("down", 2, 8),
        ("up", 5, 32),
        ("up", 2, 8),
        ("bfly", 6, 32),
        ("bfly", 3, 8),
        ("idx", 7, 32),
        ("idx", 13, 8),
    ];
    let threads = 64u32;
    for (mode, b, w) in cases {
        let c = ((32 - w) << 8) | if mode == "up" { 0 } else { 0x1f };
        let mut ctx = Context::new();
        let out = upload_u32(&mut ctx, &vec![0xffff_ffff; 2 * threads as usize]);
        run(
            &mut ctx,
            &shfl_kernel(mode),
            &format!("shfl_{mode}"),
            dims([1, 1, 1], [threads, 1, 1]),
            &[KernelArg::Ptr(out), KernelArg::U32(b), KernelArg::U32(c)],
        );
        let got = download_u32(&ctx, out, 2 * threads as usize);
        for tid in 0..threads {
            let lane = (tid % 32) as i32;
            let warp0 = (tid - tid % 32) as i32;
            let base = lane - lane % w as i32;
            let (j, ok) = match mode {
                "down" => (lane + b as i32, lane + (b as i32) < base + w as i32),
                "up" => (lane - b as i32, lane - b as i32 >= base),
                "bfly" => (lane ^ b as i32, (lane ^ b as i32) < base + w as i32),
                _ => (base + (b % w) as i32, true),
            };
            let src = if ok { j } else { lane };
            let want = (warp0 + src) as u32 * 10 + 7;
            let i = 2 * tid as usize;
            assert_eq!(
                (got[i], got[i + 1]),
                (want, ok as u32),
                "shfl.{mode} b={b} width={w}: thread {tid}"
            );
        }
    }
}

const IDS: &str = r#"
.visible .entry ids(.param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %ctaid.x;
    mad.lo.s32 %r4, %r3, %r2, %r1;
    mul.lo.u32 %r5, %r4, 3;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r6, %laneid;
    mov.u32 %r7, %warpid;
    mov.u32 %r8, %nwarpid;
    mad.lo.u32 %r9, %r8, 100, %r7;
    st.global.u32 [%rd3], %r1;
    st.global.u32 [%rd3+4], %r6;
    st.global.u32 [%rd3+8], %r9;
    ret;
}
"#;

#[test]
fn partial_last_warp() {
    let (ctas, threads) = (2usize, 40usize);
    let n = ctas * threads * 3;
    let mut ctx = Context::new();
    let out = upload_u32(&mut ctx, &vec![0xdead_beef; n + 8]);
    run(
        &mut ctx,
        IDS,
        "ids",
        dims([ctas as u32, 1, 1], [threads as u32, 1, 1]),
        &[KernelArg::Ptr(out)],
    );
    let got = download_u32(&ctx, out, n + 8);
    for c in 0..ctas {
        for t in 0..threads {
            let i = 3 * (c * threads + t);
            let want = [t as u32, (t % 32) as u32, 2 * 100 + (t / 32) as u32];
            assert_eq!(got[i..i + 3], want, "CTA {c} thread {t}");
        }
    }
    assert!(
        got[n..].iter().all(|&v| v == 0xdead_beef),
        "past the last thread"
    );
}

const GRID3D: &str = r#"
.visible .entry grid3d(.param .u64 out)
{
    .reg .b32 %r<24>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %tid.z;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %ntid.y;
    mov.u32 %r6, %ctaid.x;
    mov.u32 %r7, %ctaid.y;
    mov.u32 %r8, %nctaid.x;
    mov.u32 %r9, %nctaid.y;
    mad.lo.u32 %r10, %r6, %r4, %r1;
    mad.lo.u32 %r11, %r7, %r5, %r2;
    mul.lo.u32 %r12, %r8, %r4;
    mul.lo.u32 %r13, %r9, %r5;
    mad.lo.u32 %r14, %r3, %r13, %r11;
    mad.lo.u32 %r15, %r14, %r12, %r10;
    mad.lo.u32 %r16, %r11, 100, %r10;
    mad.lo.u32 %r17, %r3, 10000, %r16;
    mul.wide.u32 %rd2, %r15, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r17;
    ret;
}
"#;

#[test]
fn multi_dimensional_block_and_grid() {
    let (grid, block) = ([2u32, 3, 1], [5u32, 6, 2]);
    let (w, h, d) = (grid[0] * block[0], grid[1] * block[1], block[2]);
    let n = (w * h * d) as usize;
    let mut ctx = Context::new();
    let out = upload_u32(&mut ctx, &vec![0xdead_beef; n]);
    run(
        &mut ctx,
        GRID3D,
        "grid3d",
        dims(grid, block),
        &[KernelArg::Ptr(out)],
    );
    let got = download_u32(&ctx, out, n);
    for z in 0..d {
        for y in 0..h {
            for x in 0..w {
                let i = ((z * h + y) * w + x) as usize;
                assert_eq!(got[i], x + 100 * y + 10000 * z, "x {x} y {y} z {z}");
            }
        }
    }
}

const OOB: &str = r#"
.visible .entry oob(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %ctaid.x;
    mad.lo.s32 %r4, %r3, %r2, %r1;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    ret;
}
"#;

/// The 1-based line of the first line of `HEADER + body` containing `needle`.
fn line_of(body: &str, needle: &str) -> u32 {
    let ptx = format!("{HEADER}{body}");
    ptx.lines()
        .position(|l| l.contains(needle))
        .expect("needle") as u32
        + 1
}

#[test]
fn out_of_bounds_store_faults() {
    // 64 u32 = 256 bytes, the whole arena: CTA 1's stores are past its top.
    let mut ctx = Context::new();
    let out = upload_u32(&mut ctx, &[0; 64]);
    let err = launch(
        &mut ctx,
        OOB,
        "oob",
        dims([3, 1, 1], [64, 1, 1]),
        &[KernelArg::Ptr(out)],
        &LaunchOptions::default(),
    )
    .expect_err("must fault");
    let Error::Fault(r) = err else {
        panic!("expected a fault, got {err}");
    };
    assert_eq!(r.kind, FaultKind::OutOfBounds);
    assert_eq!((r.ctaid, r.tid), ([1, 0, 0], [0, 0, 0]));
    assert_eq!(r.addr, out.0 + 256);
    assert_eq!((r.size, r.write), (4, true));
    assert_eq!(r.loc.line, line_of(OOB, "st.global.u32"));
    assert!(
        r.instruction.starts_with("st.global.u32"),
        "{}",
        r.instruction
    );
    // The in-bounds stores of CTA 0 happened.
    let got = download_u32(&ctx, out, 64);
    assert_eq!(got, (0..64).collect::<Vec<u32>>());

    // With memcheck, exact allocation bounds: 50 elements, thread 50 of CTA 0 faults.
    let mut ctx = Context::new();
    let out = upload_u32(&mut ctx, &[0; 50]);
    let opts = LaunchOptions {
        memcheck: true,
        ..Default::default()
    };
    let err = launch(
        &mut ctx,
        OOB,
        "oob",
        dims([1, 1, 1], [64, 1, 1]),
        &[KernelArg::Ptr(out)],
        &opts,
    )
    .expect_err("must fault");
    let Error::Fault(r) = err else {
        panic!("expected a fault, got {err}");
    };
    assert_eq!(r.kind, FaultKind::Unallocated);
    assert_eq!((r.ctaid, r.tid), ([0, 0, 0], [50, 0, 0]));
    assert_eq!(r.count, 14);
}

const ATOMICS: &str = r#"
.visible .entry atomics(.param .u64 counters, .param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [counters];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %ctaid.x;
    mad.lo.s32 %r4, %r3, %r2, %r1;
    atom.global.add.u32 %r5, [%rd1], 1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r5;
$L_retry:
    ld.volatile.global.u32 %r6, [%rd1+4];
    add.u32 %r7, %r6, 3;
    atom.global.cas.b32 %r8, [%rd1+4], %r6, %r7;
    setp.ne.u32 %p1, %r8, %r6;
    @%p1 bra $L_retry;
    ret;
}
"#;

#[test]
fn global_atomics_from_many_ctas() {
    let (ctas, threads) = (50u32, 96u32);
    let n = (ctas * threads) as usize;
    let mut ctx = Context::new();
    let counters = upload_u32(&mut ctx, &[0, 0]);
    let out = upload_u32(&mut ctx, &vec![u32::MAX; n]);
    run(
        &mut ctx,
        ATOMICS,
        "atomics",
        dims([ctas, 1, 1], [threads, 1, 1]),
        &[KernelArg::Ptr(counters), KernelArg::Ptr(out)],
    );
    assert_eq!(
        download_u32(&ctx, counters, 2),
        vec![n as u32, 3 * n as u32]
    );
    // Every old value of the add is seen exactly once.
    let mut olds = download_u32(&ctx, out, n);
    olds.sort_unstable();
    assert_eq!(olds, (0..n as u32).collect::<Vec<_>>());
}

const SWAP_LOOP: &str = r#"
.visible .entry swaps(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 7;
    mov.u32 %r3, 0;
    mov.u32 %r4, %r1;
    add.u32 %r5, %r1, 100;
    add.u32 %r6, %r1, 200;
    add.u32 %r7, %r1, 300;
$L_loop:
    setp.ge.u32 %p1, %r3, %r2;
    @%p1 bra $L_done;
    mov.u32 %r8, %r4;
    mov.u32 %r4, %r5;
    mov.u32 %r5, %r8;
    mov.u32 %r9, %r6;
    mov.u32 %r6, %r7;
    mov.u32 %r7, %r9;
    mov.u32 %r9, %r4;
    mov.u32 %r4, %r6;
    mov.u32 %r6, %r9;
    add.u32 %r3, %r3, 1;
    bra $L_loop;
$L_done:
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r7};
    ret;
}
"#;

/// Loop-carried values permuted every iteration (block arguments that are parameters of the
/// same block, in a cycle), with per-lane trip counts.
#[test]
fn loop_permuting_block_parameters() {
    let n = 40usize;
    let mut ctx = Context::new();
    let out = upload_u32(&mut ctx, &vec![0; 4 * n]);
    run(
        &mut ctx,
        SWAP_LOOP,
        "swaps",
        dims([1, 1, 1], [n as u32, 1, 1]),
        &[KernelArg::Ptr(out)],
    );
    let got = download_u32(&ctx, out, 4 * n);
    for t in 0..n {
        let t32 = t as u32;
        let mut r = [t32, t32 + 100, t32 + 200, t32 + 300];
        for _ in 0..t % 7 {
            r.swap(0, 1);
            r.swap(2, 3);
            r.swap(0, 2);
        }
        assert_eq!(got[4 * t..4 * t + 4], r, "thread {t}");
    }
}

/// `trap` (built as IR: the front end does not lower it yet): the trapping lanes fault with
/// the terminator's index, the others exit normally.
#[test]
fn trap_terminator_faults() {
    use crate::analysis::schedule::schedule;
    use crate::ir::{BlockCall, ICmp, Op, SReg, Sign, SrcLoc, Terminator, Type};
    use crate::runtime::launch::{run_grid, LaunchFailure, LaunchInput};
    use crate::runtime::memory::DeviceMemory;

    let mut f = crate::ir::Function {
        name: "t".into(),
        params: vec![],
        param_bytes: 0,
        values: vec![],
        insts: vec![],
        blocks: vec![],
        entry: crate::ir::Block(0),
        inst_locs: vec![],
        call_frames: vec![],
        inst_ptx: vec![],
        inst_sync: vec![],
        static_shared_bytes: 0,
        dynamic_shared: false,
        local_bytes: 0,
        call_stack: None,
        local_past: None,
        max_threads: None,
        req_ntid: None,
        cluster: Default::default(),
        shared_vars: vec![],
        lockstep: false,
    };
    let (b0, b1, b2) = (f.new_block(), f.new_block(), f.new_block());
    let loc = SrcLoc {
        line: 1,
        col: 1,
        frame: 0,
    };
    let i = f.push_inst(
        b0,
        Op::SReg { reg: SReg::TidX },
        vec![],
        &[Type::I32],
        loc,
        "mov",
    );
    let tid = f.insts[i.index()].results[0];
    let i = f.push_inst(b0, Op::Const { bits: 5 }, vec![], &[Type::I32], loc, "mov");
    let five = f.insts[i.index()].results[0];
    let op = Op::ICmp {
        cc: ICmp::Lt,
        sign: Sign::Unsigned,
    };
    let i = f.push_inst(b0, op, vec![tid, five], &[Type::Pred], loc, "setp");
    let p = f.insts[i.index()].results[0];
    let call = |b| BlockCall {
        block: b,
        args: vec![],
    };
    f.blocks[b0.index()].term = Terminator::Branch {
        cond: p,
        then_: call(b1),
        else_: call(b2),
    };
    f.blocks[b1.index()].term = Terminator::Trap;
    f.blocks[b2.index()].term = Terminator::Exit;
    let n_insts = f.insts.len() as u32;
    let f = crate::ir::verify::verify(f).expect("verifies");
    let layout = schedule(&f).expect("schedules");
    let interp = super::Interpreter::new(&f, layout, false).expect("decodes");
    let memory = DeviceMemory::new();
    let mut params = vec![0u8; 1];
    let res = run_grid(
        &interp,
        LaunchInput::bare(dims([2, 1, 1], [40, 1, 1]), &mut params, &memory),
    );
    let Err(LaunchFailure::Fault(r, count)) = res else {
        panic!("expected a trap fault");
    };
    assert_eq!(r.kind, FaultKind::Trap);
    assert_eq!((r.ctaid, r.tid), ([0, 0, 0], [0, 0, 0]));
    assert_eq!(r.inst, n_insts + b1.0);
    // Threads 0..5 of whichever CTAs ran before the abort was seen.
    assert!(count == 5 || count == 10, "{count} traps");
}

const SPIN: &str = r#"
.visible .entry spin(.param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
$L_loop:
    add.u32 %r2, %r2, 1;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_loop;
    ret;
}
"#;

/// An endless loop stops at the time limit: the interpreter sees the abort flag at the next
/// block dispatch.
#[test]
fn endless_loop_times_out() {
    let mut ctx = Context::new();
    let opts = LaunchOptions {
        timeout: Some(std::time::Duration::from_millis(200)),
        ..Default::default()
    };
    let err = launch(
        &mut ctx,
        SPIN,
        "spin",
        dims([4, 1, 1], [64, 1, 1]),
        &[KernelArg::U32(1)],
        &opts,
    )
    .expect_err("must time out");
    assert_eq!(err.kind(), "timeout", "{err}");
}

/// A destroyed texture object's handle, passed to a kernel, faults instead of reading.
#[test]
fn stale_texture_handle_faults() {
    use crate::host::{Context, Engine, Error, KernelArg, LaunchDims};
    use crate::runtime::texture::{ChannelFormat, ChannelType, ResourceDesc, ResourceKind};
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .entry k(.param .u64 t, .param .u64 o) {\n\
        .reg .f32 %f<6>; .reg .b64 %rd<3>;\n\
        ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [o];\n\
        mov.f32 %f1, 0f3F000000;\n\
        tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1}];\n\
        st.global.f32 [%rd2], %f2;\n\
        ret; }\n";
    for engine in [Engine::Interp, Engine::Jit] {
        let mut ctx = Context::new();
        let m = ctx.load_module(ptx, "stale.ptx", engine).unwrap();
        let k = m.kernel("k").unwrap();
        let mem = ctx.alloc(16, Some("texels")).unwrap();
        ctx.copy_htod(mem, &2.5f32.to_le_bytes()).unwrap();
        let out = ctx.alloc(4, Some("out")).unwrap();
        let f = ChannelFormat {
            ty: ChannelType::F32,
            channels: 1,
        };
        let res = ResourceDesc::new(ResourceKind::D1, mem, f, [4, 1, 1]);
        let h = ctx.create_texture_object(res, Default::default()).unwrap();
        let dims = LaunchDims {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 0,
        };
        let args = [KernelArg::U64(h), KernelArg::Ptr(out)];
        ctx.launch(&k, dims, &args, &Default::default()).unwrap();
        let mut b = [0u8; 4];
        ctx.copy_dtoh(&mut b, out).unwrap();
        assert_eq!(f32::from_le_bytes(b), 2.5, "{engine}");
        ctx.destroy_object(h).unwrap();
        let e = ctx
            .launch(&k, dims, &args, &Default::default())
            .unwrap_err();
        let Error::Fault(r) = &e else {
            panic!("{engine}: expected a fault, got {e}");
        };
        assert_eq!(r.kind, FaultKind::BadHandle, "{engine}");
        assert_eq!(r.addr, h);
        assert!(e.to_string().contains("stale.ptx:8:"), "{engine}: {e}");
    }
}

/// Malformed texel offsets, depth-compare values, `.f16x2` shapes, multisample coordinates and
/// handle-variable initializers are load errors at their line, never a wrong answer (PTX ISA
/// §9.7.10.3, §9.7.10.4, §5.3).
#[test]
fn bad_texture_forms_are_load_errors() {
    use crate::host::{Context, Engine};
    let cases: &[(&str, &str, &str)] = &[
        (
            "",
            "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], {9, 0};",
            "texel offset 9",
        ),
        (
            "",
            "tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f5, %f6}], %f5;",
            "3d textures take no depth-compare value",
        ),
        (
            "",
            "tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f5, %f6}], {%r1, %r1};",
            "cube maps take no offset vector",
        ),
        (
            "",
            "tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r1}], %f5;",
            "the coordinates are .f32",
        ),
        (
            "",
            "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f5, {%r1, %r1};",
            "the offset vector comes before",
        ),
        (
            "",
            "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], {%r1}, %f5;",
            "offset vector has 2 elements",
        ),
        (
            "",
            "tex.2d.v4.f16x2.f32 {%r1, %r2}, [%rd1, {%f5, %f6}];",
            ".f16x2 results take .v2",
        ),
        (
            "",
            "tex.2dms.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5, %f6, %f6}];",
            "multisample textures take .s32 coordinates",
        ),
        (
            "",
            "tex.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r1, %r1, %r1}], %f5;",
            "2dms textures take no depth-compare value",
        ),
        (
            "",
            "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], {-9, 0};",
            "texel offset -9",
        ),
        (
            "",
            "suld.b.2d.b32.trap {%r1}|%p1, [%rd1, {%r1, %r1}];",
            "has no residency predicate",
        ),
        (
            "",
            "tld4.r.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f5, %f6}], {%r1, %r1};",
            "cube maps take no offset vector",
        ),
        (
            "",
            "tld4.r.2d.v4.f16.f32 {%h1, %h2, %h3, %h4}, [%rd1, {%f5, %f6}];",
            "tld4 results are .v4.u32, .v4.s32 or .v4.f32",
        ),
        (
            "",
            "tld4.r.2d.v2.f16x2.f32 {%r1, %r2}, [%rd1, {%f5, %f6}];",
            "tld4 results are .v4.u32, .v4.s32 or .v4.f32",
        ),
        (
            "",
            "tld4.r.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f5, %f6}];",
            "tld4 has no 3d geometry",
        ),
        (
            "",
            "tex.2d.v4.f64.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];",
            "the destination type is .u32, .s32, .f16 or .f32",
        ),
        (
            ".global .texref t = { width = 4 };",
            "ret;",
            "'width' in the initializer of .texref 't'",
        ),
        (
            ".global .texref t = { normalized_coords = 2 };",
            "ret;",
            "invalid value for 'normalized_coords'",
        ),
        (
            ".global .texref t = { force_unnormalized_coords = 1 };",
            "ret;",
            "force_unnormalized_coords",
        ),
        (
            ".global .surfref s = { width = 4 };",
            "ret;",
            "'width' of .surfref 's'",
        ),
    ];
    for (decl, inst, want) in cases {
        let ptx = format!(
            ".version 7.1\n.target sm_80\n.address_size 64\n{decl}\n\
             .visible .entry k(.param .u64 t) {{\n\
             .reg .f32 %f<8>; .reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .pred %p<2>; .reg .b16 %h<5>;\n\
             ld.param.u64 %rd1, [t];\n\
             {inst}\n\
             ret; }}\n"
        );
        let line = if decl.is_empty() { 8 } else { 4 };
        for engine in [Engine::Interp, Engine::Jit] {
            let mut ctx = Context::new();
            let err = match ctx.load_module(&ptx, "bad.ptx", engine) {
                Ok(_) => panic!("{inst} {decl}: loaded, want an error containing {want:?}"),
                Err(e) => e.to_string(),
            };
            assert!(err.contains(want), "{inst} {decl}: {err}");
            assert!(
                err.contains(&format!("bad.ptx:{line}:")),
                "{inst} {decl}: {err}"
            );
        }
    }
}
