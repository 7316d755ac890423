//! Warp-level synchronization on both engines: `shfl.sync`'s membermask, the wait of
//! `bar.warp.sync` and the `.sync` collectives (lanes that reach them on different paths meet
//! there), faults for a thread outside its own membermask and for `bar.warp.sync` waiting on
//! exited threads, `redux.sync` on `.f32`, and `%envreg`/`%globaltimer_lo/hi`. Expected values
//! come from host code written here from the PTX ISA's definitions (and ptxjit's documented
//! choices where the ISA leaves a result undefined), never from an engine.

use ptxjit::host::{Context, Engine, Error, KernelArg, LaunchDims, LaunchOptions};

const HEADER: &str = ".version 8.6\n.target sm_100a\n.address_size 64\n";

/// Run `kernel` from `body` on `engine` with one zeroed u32 output buffer of `words` words as
/// its only parameter, one CTA of `threads` threads; returns the buffer.
fn run_on(
    engine: Engine,
    body: &str,
    kernel: &str,
    threads: u32,
    words: usize,
) -> Result<Vec<u32>, Error> {
    let ptx = format!("{HEADER}{body}");
    let mut ctx = Context::new();
    let m = ctx.load_module(&ptx, "w.ptx", engine)?;
    let k = m.kernel(kernel)?;
    let out = ctx.alloc((words * 4) as u64, Some("out"))?;
    ctx.copy_htod(out, &vec![0u8; words * 4])?;
    let dims = LaunchDims {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        shared_bytes: 0,
    };
    ctx.launch(&k, dims, &[KernelArg::Ptr(out)], &LaunchOptions::default())?;
    let mut bytes = vec![0u8; words * 4];
    ctx.copy_dtoh(&mut bytes, out)?;
    Ok(bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Run on both engines and compare each with `want`.
fn check(body: &str, kernel: &str, threads: u32, want: &[u32]) {
    for engine in [Engine::Interp, Engine::Jit] {
        let got = run_on(engine, body, kernel, threads, want.len())
            .unwrap_or_else(|e| panic!("{engine}: {kernel}: {e}"));
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert_eq!(
                g, w,
                "{engine}: {kernel}: word {i}: got {g:#x}, want {w:#x}"
            );
        }
    }
}

/// Run on both engines; each must fail with an error of `kind` whose text has every `needle`.
fn check_err(body: &str, kernel: &str, threads: u32, kinds: &[&str], needles: &[&str]) {
    for engine in [Engine::Interp, Engine::Jit] {
        let e = run_on(engine, body, kernel, threads, 64).expect_err("must fail");
        let msg = e.to_string();
        assert!(kinds.contains(&e.kind()), "{engine}: {kernel}: {msg}");
        for n in needles {
            assert!(msg.contains(n), "{engine}: {kernel}: want '{n}' in: {msg}");
        }
    }
}

const SHFL: &str = r#"
// out[lane] = value | pred << 31 of a shfl.sync.idx from lane + 1 with the membermask of the
// lane's half of the warp (lanes 0-15: 0x0000ffff, lanes 16-31: 0xffff0000).
.visible .entry halves(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    mul.lo.u32 %r2, %r1, 7;
    add.u32 %r2, %r2, 1;
    add.u32 %r3, %r1, 1;
    and.b32 %r3, %r3, 31;
    setp.lt.u32 %p1, %r1, 16;
    selp.u32 %r4, 0x0000ffff, 0xffff0000, %p1;
    shfl.sync.idx.b32 %r5|%p2, %r2, %r3, 31, %r4;
    selp.u32 %r6, 0x80000000, 0, %p2;
    or.b32 %r5, %r5, %r6;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    ret;
}

// Lanes 24-31 exit; the rest shuffle down by 4 with the full membermask, which does not wait
// for exited lanes. out[lane] = value | pred << 31.
.visible .entry after_exit(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.ge.u32 %p1, %r1, 24;
    @%p1 exit;
    mul.lo.u32 %r2, %r1, 3;
    add.u32 %r2, %r2, 100;
    shfl.sync.down.b32 %r5|%p2, %r2, 4, 31, -1;
    selp.u32 %r6, 0x80000000, 0, %p2;
    or.b32 %r5, %r5, %r6;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    ret;
}

// v = lane * 10; for i in 0..2 { if i == 0 && lane is odd { continue } v += shfl.idx(v, lane ^ 1) }.
// Even lanes reach the shuffle in iteration 0 and odd lanes in iteration 1: they wait for each
// other and meet there; then the even lanes' second shuffle finds the odd lanes exited.
.visible .entry meet(.param .u64 out)
{
    .reg .pred %p<6>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    mul.lo.u32 %r2, %r1, 10;
    and.b32 %r3, %r1, 1;
    xor.b32 %r4, %r1, 1;
    mov.u32 %r5, 0;
$L_loop:
    setp.eq.u32 %p1, %r5, 0;
    setp.eq.u32 %p2, %r3, 1;
    and.pred %p3, %p1, %p2;
    @%p3 bra $L_next;
    shfl.sync.idx.b32 %r6, %r2, %r4, 31, -1;
    add.u32 %r2, %r2, %r6;
$L_next:
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p4, %r5, 2;
    @%p4 bra $L_loop;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#;

/// `shfl.sync.idx` semantics (PTX ISA §9.7.8.6) for `lane` with operands b, c and membermask
/// `members` (restricted to the lanes executing): (source lane, p). A source outside
/// `members` gives the lane its own value (ptxjit's documented choice; undefined in PTX).
fn shfl_ref(mode: &str, lane: u32, b: u32, c: u32, members: u32) -> (u32, bool) {
    let bval = b & 31;
    let cval = c & 31;
    let segmask = (c >> 8) & 31;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, p) = match mode {
        "down" => (lane + bval, lane + bval <= max_lane),
        "idx" => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
        _ => unreachable!(),
    };
    if p && j < 32 && members >> j & 1 == 1 {
        (j, true)
    } else {
        (lane, p)
    }
}

#[test]
fn shfl_respects_the_membermask() {
    let want: Vec<u32> = (0..32)
        .map(|l| {
            let mask = if l < 16 { 0x0000_ffff } else { 0xffff_0000 };
            let (j, p) = shfl_ref("idx", l, (l + 1) & 31, 31, mask);
            (j * 7 + 1) | (p as u32) << 31
        })
        .collect();
    check(SHFL, "halves", 32, &want);
    let mut want: Vec<u32> = (0..24)
        .map(|l| {
            let (j, p) = shfl_ref("down", l, 4, 31, 0x00ff_ffff);
            (j * 3 + 100) | (p as u32) << 31
        })
        .collect();
    want.extend([0; 8]);
    check(SHFL, "after_exit", 32, &want);
}

#[test]
fn collectives_wait_for_their_membermask() {
    // Iteration 0: even lanes wait at the shuffle for the odd lanes, which reach it in
    // iteration 1; all 32 exchange. Iteration 1 of the even lanes: the odd lanes have exited,
    // so every source is outside the executing lanes and each lane reads its own value.
    let v0 = |l: u32| l * 10;
    let want: Vec<u32> = (0..32)
        .map(|l| {
            let partner = l ^ 1;
            let after_meet = v0(l) + v0(partner);
            if l % 2 == 0 {
                after_meet * 2
            } else {
                after_meet
            }
        })
        .collect();
    check(SHFL, "meet", 32, &want);
}

const WARP_SYNC: &str = r#"
// The lanes of each half write their shared word, synchronize with the whole warp from
// different bar.warp.sync instructions, then read the other half's word.
.visible .entry exchange(.param .u64 out)
{
    .shared .align 4 .b32 buf[32];
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    mov.u32 %r2, buf;
    shl.b32 %r3, %r1, 2;
    add.u32 %r4, %r2, %r3;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra $L_lo;
    mul.lo.u32 %r5, %r1, 5;
    st.shared.u32 [%r4], %r5;
    bar.warp.sync -1;
    ld.shared.u32 %r6, [%r4+-64];
    bra $L_end;
$L_lo:
    mul.lo.u32 %r5, %r1, 3;
    st.shared.u32 [%r4], %r5;
    bar.warp.sync -1;
    ld.shared.u32 %r6, [%r4+64];
$L_end:
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    ret;
}
"#;

#[test]
fn bar_warp_sync_meets_across_branches() {
    let want: Vec<u32> = (0..32)
        .map(|l| if l < 16 { (l + 16) * 5 } else { (l - 16) * 3 })
        .collect();
    check(WARP_SYNC, "exchange", 32, &want);
}

const PARTIAL: &str = r#"
// A partial last warp (48 threads): lanes 16-31 of warp 1 do not exist and count as exited,
// so bar.warp.sync and a shuffle with the full membermask complete.
.visible .entry partial(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    bar.warp.sync -1;
    shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#;

#[test]
fn partial_warp_lanes_count_as_exited() {
    let want: Vec<u32> = (0..48).map(|t| t ^ 1).collect();
    check(PARTIAL, "partial", 48, &want);
}

const EXITED: &str = r#"
// bar.warp.sync -1 by lanes whose warp-mates exit: exited lanes count as arrived (CUDA's
// __syncwarp: "all non-exited threads named in mask"). early_exit: lanes 16-31 exit first;
// lanes 0-15 then sync and store lane + 1. exit_later: lanes 0-1 sync while lanes 2-31 go on
// to store 7 and exit (numba's block reduction does this); lanes 0-1 store lane + 100.
.visible .entry early_exit(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 exit;
    bar.warp.sync -1;
    add.u32 %r2, %r1, 1;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
.visible .entry exit_later(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    setp.ge.u32 %p1, %r1, 2;
    @%p1 bra $L_rest;
    bar.warp.sync -1;
    add.u32 %r2, %r1, 100;
    st.global.u32 [%rd3], %r2;
    ret;
$L_rest:
    st.global.u32 [%rd3], 7;
    ret;
}
"#;

#[test]
fn exited_lanes_count_as_arrived_at_bar_warp_sync() {
    let want: Vec<u32> = (0..32).map(|l| if l < 16 { l + 1 } else { 0 }).collect();
    check(EXITED, "early_exit", 32, &want);
    let want: Vec<u32> = (0..32).map(|l| if l < 2 { l + 100 } else { 7 }).collect();
    check(EXITED, "exit_later", 32, &want);
}

const FAULTS: &str = r#"
.visible .entry shfl_not_member(.param .u64 out)
{
    .reg .b32 %r<4>;
    mov.u32 %r1, %laneid;
    shfl.sync.idx.b32 %r2, %r1, 0, 31, 0xfffffffe;
    ret;
}
.visible .entry vote_not_member(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    mov.u32 %r1, %laneid;
    setp.ne.u32 %p1, %r1, 3;
    vote.sync.ballot.b32 %r2, %p1, 0xfffffff7;
    ret;
}
.visible .entry warp_sync_not_member(.param .u64 out)
{
    bar.warp.sync 0x0000ff00;
    ret;
}
.visible .entry never_arrives(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    mov.u32 %r1, %laneid;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 bra $L_bar;
    bar.warp.sync -1;
    bra $L_end;
$L_bar:
    bar.sync 0;
$L_end:
    ret;
}
"#;

#[test]
fn warp_sync_faults_are_reported() {
    let not_member = "not in its membermask";
    check_err(
        FAULTS,
        "shfl_not_member",
        32,
        &["fault"],
        &[
            not_member,
            "thread (0,0,0)",
            "shfl.sync.idx.b32",
            "w.ptx:9:",
        ],
    );
    check_err(
        FAULTS,
        "vote_not_member",
        32,
        &["fault"],
        &[not_member, "thread (3,0,0)", "vote.sync.ballot.b32"],
    );
    check_err(
        FAULTS,
        "warp_sync_not_member",
        32,
        &["fault"],
        &[not_member, "thread (0,0,0)", "0x0000ff00"],
    );
    check_err(
        FAULTS,
        "never_arrives",
        32,
        &["deadlock"],
        &["membermask 0xffffffff", "line 33", "line 36", "warp 0"],
    );
}

const REDUX_F32: &str = r#"
// Lanes 0-15 and 16-31 reduce separately (segmented membermasks); the lane's input is
// in[lane] for the value sets in `inputs`; out[k * 32 + lane] for variant k.
.visible .entry redux_f32(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .f32 %f<12>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 16;
    selp.u32 %r2, 0x0000ffff, 0xffff0000, %p1;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    redux.sync.min.f32 %f2, %f1, %r2;
    redux.sync.max.f32 %f3, %f1, %r2;
    redux.sync.min.abs.f32 %f4, %f1, %r2;
    redux.sync.max.abs.f32 %f5, %f1, %r2;
    redux.sync.min.NaN.f32 %f6, %f1, %r2;
    redux.sync.max.abs.NaN.f32 %f7, %f1, %r2;
    st.global.f32 [%rd3+128], %f2;
    st.global.f32 [%rd3+256], %f3;
    st.global.f32 [%rd3+384], %f4;
    st.global.f32 [%rd3+512], %f5;
    st.global.f32 [%rd3+640], %f6;
    st.global.f32 [%rd3+768], %f7;
    ret;
}
"#;

/// The ISA's `redux.sync.{min,max}{.abs}{.NaN}.f32` over `xs` (PTX ISA §9.7.13.12), written
/// with plain comparisons: +0.0 > -0.0; NaNs are skipped unless `nan`, when any NaN gives the
/// canonical NaN; all NaN gives the canonical NaN.
fn redux_f32_ref(max: bool, abs: bool, nan: bool, xs: &[f32]) -> u32 {
    let canon = 0x7fff_ffffu32;
    let xs: Vec<f32> = xs.iter().map(|x| if abs { x.abs() } else { *x }).collect();
    if nan && xs.iter().any(|x| x.is_nan()) {
        return canon;
    }
    let mut best: Option<f32> = None;
    for &x in xs.iter().filter(|x| !x.is_nan()) {
        best = Some(match best {
            None => x,
            Some(b) => {
                let x_gt_b = x > b
                    || (x == 0.0 && b == 0.0 && b.is_sign_negative() && !x.is_sign_negative());
                let x_lt_b = x < b
                    || (x == 0.0 && b == 0.0 && x.is_sign_negative() && !b.is_sign_negative());
                if (max && x_gt_b) || (!max && x_lt_b) {
                    x
                } else {
                    b
                }
            }
        });
    }
    best.map(f32::to_bits).unwrap_or(canon)
}

#[test]
fn redux_sync_f32_min_max() {
    // Lanes 0-15: mixed signs, a NaN, both zeros; lanes 16-31: NaNs and zeros only, so that
    // the minimum is -0.0 and the maximum +0.0 (or NaN with .NaN).
    let input: Vec<f32> = (0..32u32)
        .map(|l| match l {
            3 => f32::NAN,
            5 => -0.0,
            6 => 0.0,
            0..=15 => (l as f32 - 7.5) * 1.5,
            20 => -0.0,
            21 => 0.0,
            _ => f32::from_bits(0xffc0_0001),
        })
        .collect();
    let variants = [
        (false, false, false),
        (true, false, false),
        (false, true, false),
        (true, true, false),
        (false, false, true),
        (true, true, true),
    ];
    let mut want: Vec<u32> = input.iter().map(|x| x.to_bits()).collect();
    for (max, abs, nan) in variants {
        for l in 0..32usize {
            let seg = if l < 16 { &input[..16] } else { &input[16..] };
            want.push(redux_f32_ref(max, abs, nan, seg));
        }
    }
    for engine in [Engine::Interp, Engine::Jit] {
        let ptx = format!("{HEADER}{REDUX_F32}");
        let mut ctx = Context::new();
        let m = ctx.load_module(&ptx, "r.ptx", engine).expect("load");
        let k = m.kernel("redux_f32").expect("kernel");
        let out = ctx.alloc((want.len() * 4) as u64, None).expect("alloc");
        let mut bytes = vec![0u8; want.len() * 4];
        for (i, x) in input.iter().enumerate() {
            bytes[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
        }
        ctx.copy_htod(out, &bytes).expect("htod");
        let dims = LaunchDims {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
        };
        ctx.launch(&k, dims, &[KernelArg::Ptr(out)], &LaunchOptions::default())
            .unwrap_or_else(|e| panic!("{engine}: {e}"));
        ctx.copy_dtoh(&mut bytes, out).expect("dtoh");
        for (i, w) in want.iter().enumerate() {
            let g = u32::from_le_bytes([
                bytes[4 * i],
                bytes[4 * i + 1],
                bytes[4 * i + 2],
                bytes[4 * i + 3],
            ]);
            assert_eq!(
                g,
                *w,
                "{engine}: word {i} (variant {}, lane {}): got {g:#x}, want {w:#x}",
                i / 32,
                i % 32
            );
        }
    }
}

const SREGS: &str = r#"
// out: envreg0, envreg7, envreg31, (pad), globaltimer (lo, hi), globaltimer_lo,
// globaltimer_hi, globaltimer (lo, hi).
.visible .entry sregs(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %envreg0;
    mov.u32 %r2, %envreg7;
    mov.u32 %r3, %envreg31;
    mov.u64 %rd2, %globaltimer;
    mov.u32 %r4, %globaltimer_lo;
    mov.u32 %r5, %globaltimer_hi;
    mov.u64 %rd3, %globaltimer;
    st.global.u32 [%rd1], %r1;
    st.global.u32 [%rd1+4], %r2;
    st.global.u32 [%rd1+8], %r3;
    st.global.u64 [%rd1+16], %rd2;
    st.global.u32 [%rd1+24], %r4;
    st.global.u32 [%rd1+28], %r5;
    st.global.u64 [%rd1+32], %rd3;
    ret;
}
"#;

#[test]
fn envreg_and_globaltimer_halves() {
    for engine in [Engine::Interp, Engine::Jit] {
        let w = run_on(engine, SREGS, "sregs", 1, 10).unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert_eq!(&w[..3], &[0, 0, 0], "{engine}: %envreg reads 0");
        let t1 = w[4] as u64 | (w[5] as u64) << 32;
        let t2 = w[8] as u64 | (w[9] as u64) << 32;
        let (lo, hi) = (w[6] as u64, w[7] as u64);
        assert!(t1 <= t2, "{engine}: %globaltimer went back: {t1} {t2}");
        // Nanoseconds since the Unix epoch: after 2020, and the halves read in between.
        assert!(
            t1 > 1_577_836_800_000_000_000,
            "{engine}: {t1} is not ns since 1970"
        );
        assert!(
            hi == t1 >> 32 || hi == t2 >> 32,
            "{engine}: hi {hi:#x} vs {t1:#x}..{t2:#x}"
        );
        let same_hi = (t1 & !0xffff_ffff) | lo;
        let next_hi = same_hi + (1 << 32);
        assert!(
            (t1..=t2).contains(&same_hi) || (t1..=t2).contains(&next_hi),
            "{engine}: lo {lo:#x} vs {t1:#x}..{t2:#x}"
        );
    }
}

const WARP_SZ: &str = r#"
// WARP_SZ, the predefined constant (PTX ISA: the warp size, 32), as an immediate operand:
// out[tid] = tid + WARP_SZ; the last word of each warp also gets WARP_SZ * 2 via mul.
.visible .entry warp_sz(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    add.u32 %r2, %r1, WARP_SZ;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#;

#[test]
fn warp_sz_is_the_warp_size() {
    let want: Vec<u32> = (0..64).map(|t| t + 32).collect();
    check(WARP_SZ, "warp_sz", 64, &want);
}
