//! SIMT semantics on both engines: warp collectives with partial membermasks after divergence,
//! CTA barriers (ids, thread counts, `bar.arrive`, `bar.red`, exited threads), deadlock and
//! time-limit reports. Expected values come from host code written here from the PTX ISA's
//! definitions, never from an engine.

use ptxjit::host::{Context, Engine, Error, KernelArg, LaunchDims, LaunchOptions};
use std::time::{Duration, Instant};

/// Serializes the tests that measure time: launches share one worker pool, so a spinning
/// kernel in one test would delay another test's launch.
static TIMING: std::sync::Mutex<()> = std::sync::Mutex::new(());

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Run `kernel` from `body` on `engine` with one zeroed u32 output buffer of `words` words as
/// its only parameter; returns the buffer.
fn run_on(
    engine: Engine,
    body: &str,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    words: usize,
    opts: &LaunchOptions,
) -> Result<Vec<u32>, Error> {
    run_tier(engine, false, body, kernel, grid, block, words, opts)
}

/// [`run_on`]; with `optimized`, the JIT's optimized tier is compiled before the launch, here
/// (the background thread would swallow a compiler panic), so the launch runs it.
#[allow(clippy::too_many_arguments)]
fn run_tier(
    engine: Engine,
    optimized: bool,
    body: &str,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    words: usize,
    opts: &LaunchOptions,
) -> Result<Vec<u32>, Error> {
    let ptx = format!("{HEADER}{body}");
    let mut ctx = Context::new();
    let m = ctx.load_module(&ptx, "t.ptx", engine)?;
    let k = m.kernel(kernel)?;
    if optimized {
        k.compile_optimized_for(opts)?;
    }
    let out = ctx.alloc((words * 4) as u64, Some("out"))?;
    ctx.copy_htod(out, &vec![0u8; words * 4])?;
    let dims = LaunchDims {
        grid,
        block,
        shared_bytes: 0,
    };
    ctx.launch(&k, dims, &[KernelArg::Ptr(out)], opts)?;
    let mut bytes = vec![0u8; words * 4];
    ctx.copy_dtoh(&mut bytes, out)?;
    Ok(bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Run on both engines and compare each with `want`.
fn check(body: &str, kernel: &str, grid: [u32; 3], block: [u32; 3], want: &[u32]) {
    for engine in [Engine::Interp, Engine::Jit] {
        let got = run_on(
            engine,
            body,
            kernel,
            grid,
            block,
            want.len(),
            &LaunchOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{engine}: {kernel}: {e}"));
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert_eq!(
                g, w,
                "{engine}: {kernel}: word {i}: got {g:#x}, want {w:#x}"
            );
        }
    }
}

/// Each thread writes 10 words: collectives after divergence with partial and segmented
/// membermasks.
const COLLECTIVES: &str = r#"
.visible .entry coll(.param .u64 out)
{
    .reg .pred %p<8>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %laneid;
    mul.wide.u32 %rd2, %r1, 40;
    add.u64 %rd3, %rd1, %rd2;
    // p = tid % 3 == 0
    rem.u32 %r3, %r1, 3;
    setp.eq.u32 %p1, %r3, 0;
    // w0: ballot over the whole warp
    vote.sync.ballot.b32 %r4, %p1, -1;
    st.global.u32 [%rd3], %r4;
    // diverge: lanes < 20 and lanes >= 20 vote with their own masks
    setp.lt.u32 %p2, %r2, 20;
    @!%p2 bra $L_hi;
    vote.sync.ballot.b32 %r5, %p1, 0x000fffff;
    vote.sync.any.pred %p3, %p1, 0x000fffff;
    bra $L_join;
$L_hi:
    vote.sync.ballot.b32 %r5, !%p1, 0xfff00000;
    vote.sync.all.pred %p3, %p1, 0xfff00000;
$L_join:
    st.global.u32 [%rd3+4], %r5;
    selp.u32 %r6, 1, 0, %p3;
    st.global.u32 [%rd3+8], %r6;
    // w3: vote.uni in segments of 8 lanes on (tid < 44)
    and.b32 %r7, %r2, 24;
    mov.u32 %r8, 255;
    shl.b32 %r9, %r8, %r7;
    setp.lt.u32 %p4, %r1, 44;
    vote.sync.uni.pred %p5, %p4, %r9;
    selp.u32 %r10, 1, 0, %p5;
    st.global.u32 [%rd3+12], %r10;
    // w4: activemask where lane % 3 != 0
    mov.u32 %r11, 0xdead;
    @%p1 bra $L_skip;
    activemask.b32 %r11;
$L_skip:
    st.global.u32 [%rd3+16], %r11;
    // w5: match.any on tid / 5
    div.u32 %r12, %r1, 5;
    match.any.sync.b32 %r13, %r12, -1;
    st.global.u32 [%rd3+20], %r13;
    // w6: match.all on lane / 8 within segments (equal) -> mask; plus predicate bit 31
    shr.u32 %r14, %r2, 3;
    match.all.sync.b32 %r15|%p6, %r14, %r9;
    selp.u32 %r16, 0x80000000, 0, %p6;
    or.b32 %r17, %r15, %r16;
    st.global.u32 [%rd3+24], %r17;
    // w7: redux add of tid over the warp, min.s32 of (10 - tid) over segments
    redux.sync.add.u32 %r18, %r1, -1;
    sub.s32 %r19, 10, %r1;
    redux.sync.min.s32 %r20, %r19, %r9;
    xor.b32 %r21, %r18, %r20;
    st.global.u32 [%rd3+28], %r21;
    // w8: elect among lanes >= 5: leader lane, bit 31 when this lane leads
    mov.u32 %r22, 0xbeef;
    setp.lt.u32 %p7, %r2, 5;
    @%p7 bra $L_noelect;
    elect.sync %r22|%p6, -1;
    selp.u32 %r23, 0x80000000, 0, %p6;
    or.b32 %r22, %r22, %r23;
$L_noelect:
    st.global.u32 [%rd3+32], %r22;
    // w9: lanemasks mixed
    mov.u32 %r24, %lanemask_lt;
    mov.u32 %r25, %lanemask_ge;
    mov.u32 %r26, %lanemask_eq;
    xor.b32 %r27, %r24, %r26;
    add.u32 %r27, %r27, %r25;
    mov.u32 %r28, %lanemask_le;
    mov.u32 %r29, %lanemask_gt;
    xor.b32 %r27, %r27, %r28;
    xor.b32 %r27, %r27, %r29;
    st.global.u32 [%rd3+36], %r27;
    ret;
}
"#;

fn collectives_ref(n: u32) -> Vec<u32> {
    let mut out = vec![0u32; n as usize * 10];
    for w in 0..n.div_ceil(32) {
        let lanes: Vec<u32> = (0..32).filter(|l| w * 32 + l < n).collect();
        let live: u32 = lanes.iter().fold(0, |m, l| m | 1 << l);
        let tid = |l: u32| w * 32 + l;
        let p = |l: u32| tid(l) % 3 == 0;
        let ballot = |mask: u32, f: &dyn Fn(u32) -> bool| -> u32 {
            lanes
                .iter()
                .filter(|&&l| mask & (1 << l) != 0 && f(l))
                .fold(0, |m, l| m | 1 << l)
        };
        for &l in &lanes {
            let o = &mut out[tid(l) as usize * 10..tid(l) as usize * 10 + 10];
            o[0] = ballot(live, &p);
            let seg = 0xffu32 << (l & 24);
            if l < 20 {
                o[1] = ballot(0x000f_ffff, &p);
                o[2] = (ballot(0x000f_ffff, &p) != 0) as u32;
            } else {
                o[1] = ballot(0xfff0_0000, &|j| !p(j));
                let g = 0xfff0_0000 & live;
                o[2] = (ballot(g, &p) == g) as u32;
            }
            let g = seg & live;
            let t = ballot(g, &|j| tid(j) < 44);
            o[3] = (t == 0 || t == g) as u32;
            o[4] = if p(l) {
                0xdead
            } else {
                ballot(live, &|j| !p(j))
            };
            o[5] = ballot(live, &|j| tid(j) / 5 == tid(l) / 5);
            o[6] = g | 0x8000_0000; // lane / 8 is equal within a segment of 8
            let sum: u32 = lanes.iter().map(|&j| tid(j)).sum();
            let min = lanes
                .iter()
                .filter(|&&j| g & (1 << j) != 0)
                .map(|&j| 10 - tid(j) as i32)
                .min()
                .unwrap_or(i32::MAX);
            o[7] = sum ^ min as u32;
            o[8] = if l < 5 {
                0xbeef
            } else {
                let leader = lanes.iter().copied().find(|&j| j >= 5).unwrap_or(0);
                leader | if leader == l { 0x8000_0000 } else { 0 }
            };
            let eq = 1u32 << l;
            let lt = eq - 1;
            let le = lt | eq;
            o[9] = (((lt ^ eq).wrapping_add(!lt)) ^ le) ^ !le;
        }
    }
    out
}

#[test]
fn collectives_partial_masks_after_divergence() {
    // 48 threads: the second warp is partial (16 lanes).
    check(
        COLLECTIVES,
        "coll",
        [1, 1, 1],
        [48, 1, 1],
        &collectives_ref(48),
    );
    check(
        COLLECTIVES,
        "coll",
        [1, 1, 1],
        [64, 1, 1],
        &collectives_ref(64),
    );
}

/// `bar.red.{popc,and,or}` (`__syncthreads_count/and/or`) after a third of the threads
/// exited: exited threads neither hold up the barrier nor count.
const BAR_RED: &str = r#"
.visible .entry barred(.param .u64 out)
{
    .reg .pred %p<6>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 12;
    add.u64 %rd3, %rd1, %rd2;
    rem.u32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 2;
    @%p1 exit;
    // predicate: tid % 4 == 0
    and.b32 %r3, %r1, 3;
    setp.eq.u32 %p2, %r3, 0;
    bar.red.popc.u32 %r4, 0, %p2;
    st.global.u32 [%rd3], %r4;
    setp.lt.u32 %p3, %r1, 1000;
    bar.red.and.pred %p4, 0, %p3;
    selp.u32 %r5, 1, 0, %p4;
    barrier.red.or.pred %p5, 0, !%p3;
    selp.u32 %r6, 2, 0, %p5;
    or.b32 %r7, %r5, %r6;
    st.global.u32 [%rd3+4], %r7;
    bar.red.and.pred %p4, 0, %p2;
    selp.u32 %r8, 1, 0, %p4;
    st.global.u32 [%rd3+8], %r8;
    ret;
}
"#;

#[test]
fn bar_red_with_exited_threads() {
    let n = 80u32; // last warp partial
    let alive: Vec<u32> = (0..n).filter(|t| t % 3 != 2).collect();
    let popc = alive.iter().filter(|&&t| t % 4 == 0).count() as u32;
    let all4 = alive.iter().all(|&t| t % 4 == 0) as u32;
    let mut want = vec![0u32; n as usize * 3];
    for &t in &alive {
        want[t as usize * 3] = popc;
        want[t as usize * 3 + 1] = 1; // and(true) = 1, or(false) = 0
        want[t as usize * 3 + 2] = all4;
    }
    check(BAR_RED, "barred", [2, 1, 1], [n, 1, 1], &want);
}

/// Named barriers with thread counts: warps 0–1 and warps 2–3 synchronize separately
/// (barriers 1 and 2, 64 threads each); warp 0 produces for warp 1 through `bar.arrive 3, 64`
/// / `bar.sync 3, 64`; a barrier inside a loop whose trip count is uniform per CTA.
const NAMED: &str = r#"
.visible .entry named(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<6>;
    .shared .align 4 .b32 buf[128];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    shr.u32 %r3, %r1, 5;            // warp
    mov.u32 %r10, buf;
    shl.b32 %r11, %r1, 2;
    add.u32 %r12, %r10, %r11;       // &buf[tid]
    // group g = warp / 2, partner = tid ^ 32 (the other warp of the group)
    shr.u32 %r4, %r3, 1;
    xor.b32 %r5, %r1, 32;
    shl.b32 %r13, %r5, 2;
    add.u32 %r14, %r10, %r13;       // &buf[partner]
    add.u32 %r6, %r4, 1;            // barrier id 1 or 2
    mov.u32 %r7, 0;                 // acc
    mov.u32 %r8, 0;                 // i
$L_loop:
    mad.lo.u32 %r9, %r8, 1000, %r1;
    add.u32 %r9, %r9, %r2;
    st.shared.u32 [%r12], %r9;
    bar.sync %r6, 64;
    ld.shared.u32 %r15, [%r14];
    add.u32 %r7, %r7, %r15;
    bar.sync %r6, 64;
    add.u32 %r8, %r8, 1;
    add.u32 %r16, %r2, 3;
    setp.lt.u32 %p1, %r8, %r16;
    @%p1 bra $L_loop;
    // producer/consumer between warps 0 and 1 on barrier 3
    setp.eq.u32 %p2, %r3, 0;
    @!%p2 bra $L_consumer;
    add.u32 %r17, %r1, 7000;
    st.shared.u32 [%r12], %r17;
    bar.arrive 3, 64;
    bra $L_out;
$L_consumer:
    setp.ne.u32 %p3, %r3, 1;
    @%p3 bra $L_out;
    bar.sync 3, 64;
    ld.shared.u32 %r18, [%r14];
    add.u32 %r7, %r7, %r18;
$L_out:
    mul.wide.u32 %rd2, %r2, 128;
    cvt.u64.u32 %rd3, %r1;
    add.u64 %rd2, %rd2, %rd3;
    shl.b64 %rd2, %rd2, 2;
    add.u64 %rd4, %rd1, %rd2;
    st.global.u32 [%rd4], %r7;
    ret;
}
"#;

#[test]
fn named_barriers_counts_and_arrive() {
    let mut want = vec![0u32; 3 * 128];
    for c in 0..3u32 {
        for t in 0..128u32 {
            let partner = t ^ 32;
            let mut acc = 0u32;
            for i in 0..c + 3 {
                acc += i * 1000 + partner + c;
            }
            if t / 32 == 1 {
                acc += partner + 7000;
            }
            want[(c * 128 + t) as usize] = acc;
        }
    }
    check(NAMED, "named", [3, 1, 1], [128, 1, 1], &want);
}

/// Kernels that can never finish: each must fail with a deadlock error naming the barrier's
/// line, within a second, on both engines.
const DEADLOCKS: &str = r#"
.visible .entry count_never_reached(.param .u64 out)
{
    bar.sync 1, 96;
    ret;
}
.visible .entry divergent(.param .u64 out)
{
    .reg .pred %p1;
    .reg .b32 %r1;
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra $L_a;
    bar.sync 0;
    bra $L_end;
$L_a:
    bar.sync 0;
$L_end:
    ret;
}
.visible .entry different_ids(.param .u64 out)
{
    .reg .pred %p1;
    .reg .b32 %r1;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra $L_a;
    barrier.sync 1;
    bra $L_end;
$L_a:
    barrier.sync 0;
$L_end:
    ret;
}
.visible .entry arrive_only(.param .u64 out)
{
    .reg .pred %p1;
    .reg .b32 %r1;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra $L_a;
    bar.sync 2, 96;
    bra $L_end;
$L_a:
    bar.arrive 2, 96;
$L_end:
    ret;
}
"#;

#[test]
fn deadlocks_are_errors_naming_the_barrier_and_warps() {
    let _g = TIMING.lock().unwrap_or_else(|e| e.into_inner());
    let cases = [
        ("count_never_reached", "line 7", "barrier deadlock"),
        ("divergent", "line 20", "divergent barrier"),
        ("different_ids", "line 31", "barrier deadlock"),
        ("arrive_only", "line 45", "barrier deadlock"),
    ];
    for engine in [Engine::Interp, Engine::Jit] {
        for (k, line, what) in cases {
            // Deadlock detection is structural (no lane can run), not a timeout: a launch
            // that hung instead would hang this test. How fast it reports is measured in the
            // notes, not asserted here (no timed assertions in tests).
            let e = run_on(
                engine,
                DEADLOCKS,
                k,
                [4, 1, 1],
                [64, 1, 1],
                1,
                &LaunchOptions::default(),
            )
            .expect_err("must deadlock");
            let msg = e.to_string();
            assert_eq!(e.kind(), "deadlock", "{engine}: {k}: {msg}");
            assert!(msg.contains(what), "{engine}: {k}: {msg}");
            assert!(msg.contains(line), "{engine}: {k}: want {line}: {msg}");
            assert!(msg.contains("warp 1"), "{engine}: {k}: {msg}");
        }
    }
}

const SPIN: &str = r#"
.visible .entry spin(.param .u64 out)
{
    .reg .pred %p1;
    .reg .b32 %r<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
$L_loop:
    add.u32 %r2, %r2, %r1;
    setp.ne.u32 %p1, %r1, 1000000;
    @%p1 bra $L_loop;
    ret;
}
"#;

#[test]
fn endless_loop_stops_at_the_time_limit_with_positions() {
    let _g = TIMING.lock().unwrap_or_else(|e| e.into_inner());
    for engine in [Engine::Interp, Engine::Jit] {
        let t = Instant::now();
        let opts = LaunchOptions {
            timeout: Some(Duration::from_secs(2)),
            ..Default::default()
        };
        let e = run_on(engine, SPIN, "spin", [8, 1, 1], [64, 1, 1], 1, &opts)
            .expect_err("must time out");
        // The limit must not stop the launch early (a broken limit would hang the test
        // instead; how close to 2 s it stops is measured, not asserted).
        let el = t.elapsed();
        assert!(
            el >= Duration::from_millis(1990),
            "{engine}: stopped early: {el:?}"
        );
        let msg = e.to_string();
        assert_eq!(e.kind(), "timeout", "{engine}: {msg}");
        assert!(msg.contains("warp 0: lanes 0-31 at"), "{engine}: {msg}");
        assert!(msg.contains("line 12"), "{engine}: {msg}");
    }
}

/// Device-side `printf` (`vprintf`) prints each warp's lines in lane order, formatted as C's
/// printf; the expected text comes from `ptx-tests/kernels/printf/printf_ref.py`, and for
/// clang's lowering of printf (-O2 and -O0) from `ptx-tests/kernels/clang/gen.py`.
#[test]
fn printf_prints_in_lane_order() {
    let kernels = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-tests/kernels");
    for case in ["printf/printf", "clang/printf", "clang/printf_O0"] {
        let toml = kernels.join(format!("{case}.toml"));
        let expected = toml.with_file_name("printf_expected.txt");
        let want = std::fs::read_to_string(expected).expect("expected text");
        for engine in ["interp", "jit"] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxjit"))
                .args(["run", "--engine", engine])
                .arg(&toml)
                .output()
                .expect("runs ptxjit");
            assert!(out.status.success(), "{case} {engine}: {out:?}");
            let text = String::from_utf8_lossy(&out.stdout);
            let got: String = text
                .lines()
                .filter(|l| !l.contains(" time: ") && !l.starts_with("ran "))
                .map(|l| format!("{l}\n"))
                .collect();
            assert_eq!(got, want, "{case} {engine}");
        }
    }
}

/// `brx.idx` through a `.branchtargets` table with a per-lane index (divergent), reconverging
/// before `activemask` (checked with ptxas -arch=sm_80).
const JUMP_TABLE: &str = r#"
.visible .entry jt(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    mov.u32 %r3, 0;
$L_tab: .branchtargets $L_a, $L_b, $L_c;
    brx.idx %r2, $L_tab;
$L_a:
    add.u32 %r3, %r3, 100;
    bra.uni $L_end;
$L_b:
    add.u32 %r3, %r3, 200;
$L_c:
    add.u32 %r3, %r3, 7;
$L_end:
    activemask.b32 %r4;
    xor.b32 %r3, %r3, %r4;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"#;

#[test]
fn brx_idx_jump_table_diverges_and_reconverges() {
    let want: Vec<u32> = (0..80u32)
        .map(|t| {
            let v = match t % 3 {
                0 => 100,
                1 => 207,
                _ => 7,
            };
            let live = if t < 64 { u32::MAX } else { 0xffff };
            v ^ live
        })
        .collect();
    check(JUMP_TABLE, "jt", [1, 1, 1], [80, 1, 1], &want);
}

/// A narrow (`u16`) load in a block that only some lanes of a group may run (after a
/// predicated store, inside a region), read in a later block: the later block must read the
/// loaded value from its slot, not the group's packed vector of the earlier block, which does
/// not dominate it (Cranelift's verifier rejected that code and the optimized tier's egraph
/// pass panicked on it). Lanes below 5 store `0x8000 + tid` to their word first; every lane
/// then sign-extends the low half of its word (`cvt.s32.s16`): `0xffff_8000 + tid` for
/// those lanes, `tid` for the others. Both JIT tiers are compiled.
#[test]
fn narrow_loads_after_a_predicated_store_reach_later_blocks() {
    let body = "
.visible .entry narrow(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .b16 %h0;
  .reg .pred %p0;
  ld.param.u64 %rd1, [out];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd2, %r0, 4;
  add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r0;
  setp.lt.u32 %p0, %r0, 5;
  add.u32 %r1, %r0, 32768;
  @%p0 st.global.u32 [%rd2], %r1;
  ld.global.u16 %h0, [%rd2];
NEXT:
  cvt.s32.s16 %r2, %h0;
  st.global.u32 [%rd2], %r2;
  ret;
}
";
    let want: Vec<u32> = (0..32u32)
        .map(|t| if t < 5 { 0xffff_8000 + t } else { t })
        .collect();
    check(body, "narrow", [1, 1, 1], [32, 1, 1], &want);
    let got = run_tier(
        Engine::Jit,
        true,
        body,
        "narrow",
        [1, 1, 1],
        [32, 1, 1],
        want.len(),
        &LaunchOptions::default(),
    )
    .expect("the optimized tier compiles and runs");
    assert_eq!(got, want, "optimized tier");
}
