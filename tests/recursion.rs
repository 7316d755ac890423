//! Recursive and indirect calls (`lower::recurse`) on both engines, from hand-written PTX:
//! a recursive function with `.reg` formals whose loop holds the recursive call (each lane at
//! its own depth), a guarded call, indirect calls through a `.calltargets` list and through a
//! `.callprototype` (to functions with `.param` and with `.reg` formals), the fault for a
//! pointer that is no candidate, and a call that has no candidate at all. NVRTC-generated
//! recursion, function-pointer tables and stack overflow are cases in
//! `ptx-tests/kernels/recursion`. The call stack's size per launch
//! (`LaunchOptions::stack_bytes`, CUDA's `cudaLimitStackSize`) and its limits are tested here
//! too. Expected values come from host code written here, never from an engine. (The PTX was checked with ptxas -arch=sm_80.)

use ptxjit::host::{Context, Engine, Error, KernelArg, LaunchDims, LaunchOptions};

const PTX: &str = r#".version 8.0
.target sm_80
.address_size 64

.func (.reg .u32 %ret) walk(.reg .u32 %n)
{
    .reg .pred %p<3>;
    .reg .u32 %k, %acc, %d, %m, %sub;
    mov.u32 %ret, 1;
    setp.lt.u32 %p1, %n, 2;
    @%p1 bra $DONE;
    mov.u32 %acc, %n;
    mov.u32 %k, 0;
$LOOP:
    add.u32 %d, %k, 2;
    div.u32 %m, %n, %d;
    call (%sub), walk, (%m);
    add.u32 %acc, %acc, %sub;
    add.u32 %k, %k, 1;
    setp.lt.u32 %p2, %k, 3;
    @%p2 bra $LOOP;
    mov.u32 %ret, %acc;
$DONE:
    ret;
}

.visible .entry walks(.param .u64 out)
{
    .reg .u32 %r<6>;
    .reg .u64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.lo.u32 %r2, %r1, 7;
    add.u32 %r2, %r2, 1;
    mov.u32 %r3, 0;
    setp.ne.u32 %p1, %r1, 5;
    @%p1 call (%r3), walk, (%r2);
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}

.func (.param .b32 r) inc(.param .b32 x)
{
    .reg .u32 %a;
    ld.param.u32 %a, [x];
    add.u32 %a, %a, 1;
    st.param.u32 [r], %a;
    ret;
}

.func (.param .b32 r) negate(.param .b32 x)
{
    .reg .u32 %a;
    ld.param.u32 %a, [x];
    neg.s32 %a, %a;
    st.param.u32 [r], %a;
    ret;
}

.func (.param .b32 r) twice(.param .b32 x)
{
    .reg .u32 %a;
    ld.param.u32 %a, [x];
    shl.b32 %a, %a, 1;
    st.param.u32 [r], %a;
    ret;
}

.visible .entry table(.param .u64 out, .param .u32 bad)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<8>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    mov.u64 %rd4, inc;
    setp.eq.u32 %p1, %r2, 1;
    mov.u64 %rd5, negate;
    selp.b64 %rd4, %rd5, %rd4, %p1;
    setp.eq.u32 %p2, %r2, 2;
    mov.u64 %rd5, twice;
    selp.b64 %rd4, %rd5, %rd4, %p2;
    ld.param.u32 %r6, [bad];
    setp.eq.u32 %p1, %r1, %r6;
    @%p1 add.u64 %rd4, %rd4, 4;
    {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r1;
Ftab: .calltargets inc, negate, twice;
    call (r0), %rd4, (a0), Ftab;
    ld.param.b32 %r3, [r0];
    }
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}

.func (.param .b64 r) wide(.param .b64 x)
{
    .reg .u64 %a;
    ld.param.u64 %a, [x];
    add.u64 %a, %a, %a;
    st.param.u64 [r], %a;
    ret;
}

.visible .entry proto(.param .u64 out, .param .u32 bad)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<8>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    mov.u64 %rd4, inc;
    setp.eq.u32 %p1, %r2, 1;
    mov.u64 %rd5, negate;
    selp.b64 %rd4, %rd5, %rd4, %p1;
    setp.eq.u32 %p2, %r2, 2;
    mov.u64 %rd5, twice;
    selp.b64 %rd4, %rd5, %rd4, %p2;
    mov.u64 %rd6, wide;
    ld.param.u32 %r6, [bad];
    setp.eq.u32 %p1, %r1, %r6;
    @%p1 add.u64 %rd4, %rd4, 4;
    {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r1;
Fproto: .callprototype (.param .b32 _) _ (.param .b32 _);
    call (r0), %rd4, (a0), Fproto;
    ld.param.b32 %r3, [r0];
    }
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
.func (.reg .u32 %y) inc_r(.reg .u32 %x)
{
    add.u32 %y, %x, 1;
    ret;
}

.func (.reg .u32 %y) negate_r(.reg .u32 %x)
{
    neg.s32 %y, %x;
    ret;
}

.func (.reg .u32 %y) twice_r(.reg .u32 %x, .reg .u32 %q)
{
    shl.b32 %y, %x, 1;
    mul.lo.u32 %y, %y, %q;
    ret;
}

.func (.reg .u32 %y) thrice_q(.reg .u32 %x, .reg .u32 %q)
{
    mul.lo.u32 %y, %x, 3;
    mul.lo.u32 %y, %y, %q;
    ret;
}

.visible .entry reg_formals(.param .u64 out, .param .u32 bad)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<8>;
    .reg .pred %p<4>;
Rtab: .calltargets inc_r, negate_r;
Rproto: .callprototype (.reg .u32 _) _ (.reg .u32 _, .reg .u32 _);
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    mov.u64 %rd4, inc_r;
    setp.eq.u32 %p1, %r2, 1;
    mov.u64 %rd5, negate_r;
    selp.b64 %rd4, %rd5, %rd4, %p1;
    setp.eq.u32 %p2, %r2, 2;
    @%p2 bra $TWICE;
    call (%r3), %rd4, (%r1), Rtab;
    bra.uni $DONE;
$TWICE:
    mov.u64 %rd6, twice_r;
    and.b32 %r4, %r1, 1;
    setp.eq.u32 %p3, %r4, 1;
    mov.u64 %rd7, thrice_q;
    selp.b64 %rd6, %rd7, %rd6, %p3;
    setp.ne.u32 %p3, %r1, 5;
    selp.u32 %r5, 1, 0, %p3;
    call (%r3), %rd6, (%r1, %r5), Rproto;
$DONE:
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}

.visible .entry no_candidate(.param .u64 out, .param .u32 bad)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<8>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    ld.param.u32 %r6, [bad];
    mov.u64 %rd4, 0;
    setp.eq.u32 %p1, %r1, %r6;
    @%p1 mov.u64 %rd4, 4096;
    add.u32 %r3, %r1, 5;
    setp.eq.u64 %p2, %rd4, 0;
    @%p2 bra $SKIP;
    {
    .param .b64 a0;
    .param .b64 a1;
    .param .b64 a2;
    st.param.b64 [a0], %rd1;
    st.param.b64 [a1], %rd1;
    st.param.b64 [a2], 0;
Fnone: .callprototype ()_ (.param .b64 _, .param .b64 _, .param .b64 _);
    call %rd4, (a0, a1, a2), Fnone;
    }
$SKIP:
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
.func (.reg .u32 %ret) chain(.reg .u32 %n)
{
    .reg .pred %p;
    .reg .u32 %m, %s;
    mov.u32 %ret, 0;
    setp.eq.u32 %p, %n, 0;
    @%p bra $END;
    sub.u32 %m, %n, 1;
    call (%s), chain, (%m);
    mul.lo.u32 %s, %s, 3;
    add.u32 %ret, %s, %n;
$END:
    ret;
}

.visible .entry chains(.param .u64 out, .param .u32 depth)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [depth];
    mov.u32 %r1, %tid.x;
    add.u32 %r2, %r2, %r1;
    call (%r3), chain, (%r2);
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}

.visible .entry chains_big_local(.param .u64 out, .param .u32 depth)
{
    .local .align 4 .b8 big[500000];
    .reg .u32 %r<4>;
    .reg .u64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [depth];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd2, big;
    st.local.u32 [%rd2], %r1;
    ld.local.u32 %r1, [%rd2];
    call (%r3), chain, (%r2);
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
.func (.reg .u32 %r) probe(.reg .u32 %n, .reg .u32 %w)
{
    .local .align 4 .b8 slot[4];
    .reg .pred %p;
    .reg .u32 %a, %m, %s;
    .reg .u64 %q, %g;
    mov.u64 %q, slot;
    cvta.local.u64 %g, %q;
    ld.u32 %a, [%g];
    st.u32 [%g], %w;
    mov.u32 %r, %a;
    setp.eq.u32 %p, %n, 0;
    @%p bra $END;
    sub.u32 %m, %n, 1;
    call (%s), probe, (%m, %w);
    or.b32 %r, %r, %s;
$END:
    ret;
}

.visible .entry probes(.param .u64 out, .param .u32 deep)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<4>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r5, [deep];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    and.b32 %r3, %r2, 1;
    setp.eq.u32 %p, %r3, 0;
    selp.u32 %r4, %r5, 3, %p;
    add.u32 %r6, %r2, 1;
    call (%r7), probe, (%r4, %r6);
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r1, %r2, %r3, %r1;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
    ret;
}

.global .u32 hits;

.func bump()
{
    .reg .u32 %a;
    atom.global.add.u32 %a, [hits], 1;
    ret;
}

.func (.param .b32 r) seven()
{
    st.param.b32 [r], 7;
    ret;
}

.visible .entry no_args(.param .u64 out)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<5>;
    Pnone: .callprototype _ ();
    Pret: .callprototype (.param .b32 _) _ ();
    mov.u64 %rd1, bump;
    call %rd1, Pnone;
    mov.u64 %rd2, seven;
    {
        .param .b32 rv;
        call (rv), %rd2, Pret;
        ld.param.b32 %r1, [rv];
    }
    bar.sync 0;
    ld.global.u32 %r2, [hits];
    add.u32 %r2, %r2, %r1;
    ld.param.u64 %rd3, [out];
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd4, %r3, 4;
    add.u64 %rd3, %rd3, %rd4;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#;

/// Run `kernel` with a zeroed u32 buffer of `n` words and then `extra` arguments, one CTA of
/// `n` threads.
fn run(engine: Engine, kernel: &str, n: u32, extra: &[KernelArg]) -> Result<Vec<u32>, Error> {
    run_with(engine, kernel, n, extra, &LaunchOptions::default())
}

/// As [`run`], with launch options `opts`.
fn run_with(
    engine: Engine,
    kernel: &str,
    n: u32,
    extra: &[KernelArg],
    opts: &LaunchOptions,
) -> Result<Vec<u32>, Error> {
    let mut ctx = Context::new();
    let m = ctx.load_module(PTX, "calls.ptx", engine)?;
    let k = m.kernel(kernel)?;
    let out = ctx.alloc(4 * n as u64, Some("out"))?;
    ctx.copy_htod(out, &vec![0u8; 4 * n as usize])?;
    let mut args = vec![KernelArg::Ptr(out)];
    args.extend_from_slice(extra);
    let dims = LaunchDims {
        grid: [1, 1, 1],
        block: [n, 1, 1],
        shared_bytes: 0,
    };
    ctx.launch(&k, dims, &args, opts)?;
    let mut bytes = vec![0u8; 4 * n as usize];
    ctx.copy_dtoh(&mut bytes, out)?;
    Ok(bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// walk(n) = 1 for n < 2, else n + walk(n / 2) + walk(n / 3) + walk(n / 4).
fn walk(n: u32) -> u32 {
    if n < 2 {
        return 1;
    }
    (0..3).fold(n, |acc, k| acc.wrapping_add(walk(n / (k + 2))))
}

/// `kernel` on both engines gives `want`.
fn expect_both(kernel: &str, extra: &[KernelArg], want: &[u32]) {
    for engine in [Engine::Interp, Engine::Jit] {
        let got = run(engine, kernel, 64, extra).unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert_eq!(got, want, "{engine}: {kernel}");
    }
}

/// What the `table` and `proto` kernels compute through their function pointers.
fn table_results() -> Vec<u32> {
    (0..64u32)
        .map(|t| match t % 3 {
            0 => t + 1,
            1 => t.wrapping_neg(),
            _ => 2 * t,
        })
        .collect()
}

#[test]
fn recursion_in_a_loop_with_reg_formals_and_a_guard() {
    let want: Vec<u32> = (0..64)
        .map(|t| if t == 5 { 0 } else { walk(7 * t + 1) })
        .collect();
    expect_both("walks", &[], &want);
}

#[test]
fn indirect_call_through_calltargets() {
    expect_both("table", &[KernelArg::U32(1000)], &table_results());
}

/// With a `.callprototype`, the candidates are the address-taken functions of the prototype's
/// sizes: `wide` (b64 → b64) has its address taken too, but is no candidate.
#[test]
fn indirect_call_through_a_prototype() {
    expect_both("proto", &[KernelArg::U32(1000)], &table_results());
}

/// `call fptr, flist;` and `call (ret), fptr, flist;`: an indirect call with no argument list
/// (PTX ISA §9.7.12.5's syntax; ptxas takes both). Each of the 64 threads bumps `hits` once
/// through one, then reads 64 plus the 7 the other returns.
#[test]
fn indirect_calls_without_arguments() {
    expect_both("no_args", &[], &[64 + 7; 64]);
}

#[test]
fn indirect_call_through_a_bad_pointer_faults() {
    for engine in [Engine::Interp, Engine::Jit] {
        let e = run(engine, "table", 64, &[KernelArg::U32(7)]).expect_err("must fault");
        let msg = e.to_string();
        assert_eq!(e.kind(), "fault", "{engine}: {msg}");
        for want in ["indirect call through", "thread (7,0,0)", "calls.ptx:95:"] {
            assert!(msg.contains(want), "{engine}: want '{want}' in: {msg}");
        }
    }
}

/// Indirect calls to functions with `.reg` formals, through a `.calltargets` list (`inc_r`,
/// `negate_r`) and through a `.callprototype` with two candidates (`twice_r`, `thrice_q`).
#[test]
fn indirect_calls_to_functions_with_reg_formals() {
    let want: Vec<u32> = (0..64u32)
        .map(|t| match t % 3 {
            0 => t + 1,
            1 => t.wrapping_neg(),
            _ if t == 5 => 0,
            _ if t % 2 == 1 => 3 * t,
            _ => 2 * t,
        })
        .collect();
    expect_both("reg_formals", &[KernelArg::U32(1000)], &want);
}

/// An indirect call whose prototype no address-taken function of the module has (numba's
/// runtime calls a destructor pointer that is null unless the program set one): the module
/// loads, threads that skip the call run, and a thread that makes it faults.
#[test]
fn indirect_call_without_candidates_loads_and_faults_when_made() {
    let want: Vec<u32> = (0..64u32).map(|t| t + 5).collect();
    expect_both("no_candidate", &[KernelArg::U32(1000)], &want);
    for engine in [Engine::Interp, Engine::Jit] {
        let e = run(engine, "no_candidate", 64, &[KernelArg::U32(9)]).expect_err("must fault");
        let msg = e.to_string();
        assert_eq!(e.kind(), "fault", "{engine}: {msg}");
        for want in ["indirect call through 0x1000", "thread (9,0,0)"] {
            assert!(msg.contains(want), "{engine}: want '{want}' in: {msg}");
        }
    }
}

/// chain(n) = 0 for n = 0, else 3 · chain(n - 1) + n (mod 2³²): n calls deep.
fn chain(n: u32) -> u32 {
    (1..=n).fold(0u32, |acc, k| acc.wrapping_mul(3).wrapping_add(k))
}

/// Launch options with a call stack of `bytes` per thread.
fn stack(bytes: u64) -> LaunchOptions {
    LaunchOptions {
        stack_bytes: Some(bytes),
        ..Default::default()
    }
}

/// Recursion 2000 to 2031 calls deep needs more than the default 16 KiB of call stack (every
/// frame holds at least a return state, a stack pointer and the argument: more than 8 bytes)
/// and fits in 256 KiB: the stack is the launch's.
#[test]
fn the_launch_sizes_the_call_stack() {
    let want: Vec<u32> = (0..32).map(|t| chain(2000 + t)).collect();
    for engine in [Engine::Interp, Engine::Jit] {
        let e = run(engine, "chains", 32, &[KernelArg::U32(2000)]).expect_err("must overflow");
        let msg = e.to_string();
        assert_eq!(e.kind(), "fault", "{engine}: {msg}");
        for want in [
            "call stack overflow: a call at depth",
            "needs more than the 16384-byte per-thread call stack (raise cudaLimitStackSize)",
            "kernel 'chains'",
            "thread (",
            "cudaDeviceSetLimit(cudaLimitStackSize, N)",
        ] {
            assert!(msg.contains(want), "{engine}: want '{want}' in: {msg}");
        }
        let got = run_with(
            engine,
            "chains",
            32,
            &[KernelArg::U32(2000)],
            &stack(256 << 10),
        )
        .unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert_eq!(got, want, "{engine}");
    }
}

/// A stack smaller than the default is the launch's too: a shallow recursion fits in 4 KiB
/// and a deeper one overflows it, with the stack's size in the fault.
#[test]
fn a_small_call_stack_overflows_sooner() {
    for engine in [Engine::Interp, Engine::Jit] {
        let got = run_with(engine, "chains", 32, &[KernelArg::U32(1)], &stack(4096))
            .unwrap_or_else(|e| panic!("{engine}: {e}"));
        let want: Vec<u32> = (0..32).map(|t| chain(1 + t)).collect();
        assert_eq!(got, want, "{engine}");
        let e = run_with(engine, "chains", 32, &[KernelArg::U32(200)], &stack(4096))
            .expect_err("must overflow");
        let msg = e.to_string();
        assert!(
            msg.contains("needs more than the 4096-byte per-thread call stack"),
            "{engine}: {msg}"
        );
    }
}

/// More than 512 KiB of stack per thread is a launch error, for any kernel; so is a stack
/// that, with the kernel's own local memory, passes 512 KiB.
#[test]
fn a_call_stack_past_the_local_memory_limit_is_a_launch_error() {
    for engine in [Engine::Interp, Engine::Jit] {
        for (kernel, extra) in [("chains", &[KernelArg::U32(1)][..]), ("walks", &[][..])] {
            let e =
                run_with(engine, kernel, 32, extra, &stack(512 * 1024 + 1)).expect_err("too large");
            assert_eq!(e.kind(), "launch_config", "{engine}: {e}");
            assert!(e.to_string().contains("524289 bytes"), "{engine}: {e}");
        }
        let e = run_with(
            engine,
            "chains_big_local",
            32,
            &[KernelArg::U32(3)],
            &stack(32 << 10),
        )
        .expect_err("too large with the kernel's local memory");
        assert_eq!(e.kind(), "launch_config", "{engine}: {e}");
        assert!(
            e.to_string().contains("lower cudaLimitStackSize"),
            "{engine}: {e}"
        );
        // 500 000 bytes of `.local` leave room for a 16 KiB stack.
        let got = run_with(
            engine,
            "chains_big_local",
            32,
            &[KernelArg::U32(3)],
            &stack(16 << 10),
        )
        .unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert_eq!(got, vec![chain(3); 32], "{engine}");
    }
}

/// Every CTA's call stack starts zero-filled, however deep an earlier CTA on the same host
/// thread went: each call of `probe` reads its frame's `.local` slot (through a generic
/// pointer) before writing the CTA's
/// number + 1 there, and ORs what it read into the result, which must stay 0 (the scheduler
/// zero-fills only what the last CTA used of a large stack, `CtaEnv::clear_local`). Even CTAs
/// recurse `deep` calls, odd ones 3; run with a large stack, in many CTAs.
#[test]
fn every_cta_call_stack_starts_zero_filled() {
    for engine in [Engine::Interp, Engine::Jit] {
        for stack_bytes in [16 << 10, 256 << 10] {
            let mut ctx = Context::new();
            let m = ctx.load_module(PTX, "calls.ptx", engine).expect("load");
            let k = m.kernel("probes").expect("kernel");
            let (ctas, threads) = (24u32, 32u32);
            let n = (ctas * threads) as usize;
            let out = ctx.alloc(4 * n as u64, Some("out")).expect("alloc");
            ctx.copy_htod(out, &vec![0xffu8; 4 * n]).expect("copy");
            let dims = LaunchDims {
                grid: [ctas, 1, 1],
                block: [threads, 1, 1],
                shared_bytes: 0,
            };
            let args = [KernelArg::Ptr(out), KernelArg::U32(40)];
            ctx.launch(&k, dims, &args, &stack(stack_bytes))
                .unwrap_or_else(|e| panic!("{engine}: {e}"));
            let mut bytes = vec![0u8; 4 * n];
            ctx.copy_dtoh(&mut bytes, out).expect("copy");
            assert!(
                bytes.iter().all(|&b| b == 0),
                "{engine}, {stack_bytes}: {bytes:?}"
            );
        }
    }
}
