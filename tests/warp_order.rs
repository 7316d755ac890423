//! The order of a warp's lanes between warp-synchronous points (`analysis::segment`), on both
//! engines: group-major for `sm_70` and later, lockstep for older targets and on request
//! (`LaunchOptions::lockstep`). Expected values come from host code written here from that
//! documented rule (lanes 0-3 run a segment, then 4-7 …; each instruction for a group's lanes
//! before the next; a warp operation ends a segment), never from an engine.

use ptxjit::host::{Context, Engine, KernelArg, LaunchDims, LaunchOptions};

/// Every lane zeroes its shared word, `bar.sync`, then stores `lane + 1` to it and (with
/// `SYNC` replaced by a warp-synchronous point or nothing) reads the word of lane
/// `(lane + 4) % 32` into `out[lane]`.
const ROTATE: &str = r#"
.visible .entry rotate(.param .u64 out)
{
    .reg .b32 %r<9>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b32 s[32];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, s;
    add.s32 %r4, %r3, %r2;
    mov.u32 %r8, 0;
    st.shared.u32 [%r4], %r8;
    bar.sync 0;
    add.s32 %r5, %r1, 1;
    st.volatile.shared.u32 [%r4], %r5;
    SYNC
    add.s32 %r6, %r1, 4;
    and.b32 %r6, %r6, 31;
    shl.b32 %r6, %r6, 2;
    add.s32 %r6, %r3, %r6;
    ld.volatile.shared.u32 %r7, [%r6];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r7;
    ret;
}
"#;

fn run(engine: Engine, target: &str, sync: &str, lockstep: bool) -> Vec<u32> {
    let ptx = format!(
        ".version 7.0\n.target {target}\n.address_size 64\n{}",
        ROTATE.replace("SYNC", sync)
    );
    let mut ctx = Context::new();
    let m = ctx.load_module(&ptx, "rotate.ptx", engine).expect("loads");
    let k = m.kernel("rotate").expect("kernel");
    let out = ctx.alloc(128, Some("out")).expect("alloc");
    ctx.copy_htod(out, &[0xffu8; 128]).expect("copy");
    let dims = LaunchDims {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 0,
    };
    let opts = LaunchOptions {
        lockstep,
        ..LaunchOptions::default()
    };
    ctx.launch(&k, dims, &[KernelArg::Ptr(out)], &opts)
        .expect("launch");
    let mut bytes = vec![0u8; 128];
    ctx.copy_dtoh(&mut bytes, out).expect("copy back");
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Lockstep: every store before every load.
fn lockstep_answer() -> Vec<u32> {
    (0..32).map(|l| (l + 4) % 32 + 1).collect()
}

/// Group-major: lane `l` (group `l / 4`) sees lane `m`'s store when `m`'s group ran the
/// segment before its own or is its own (stores before loads within a group); else the 0
/// written before the barrier.
fn group_major_answer() -> Vec<u32> {
    (0..32u32)
        .map(|l| {
            let m = (l + 4) % 32;
            if m / 4 <= l / 4 {
                m + 1
            } else {
                0
            }
        })
        .collect()
}

fn check(target: &str, sync: &str, lockstep: bool, want: &[u32]) {
    for engine in [Engine::Interp, Engine::Jit] {
        let got = run(engine, target, sync, lockstep);
        assert_eq!(
            got, want,
            "{engine}: target {target}, sync {sync:?}, lockstep {lockstep}"
        );
    }
}

#[test]
fn sm70_and_later_run_group_major() {
    check("sm_80", "", false, &group_major_answer());
    check("sm_70", "", false, &group_major_answer());
}

#[test]
fn lockstep_on_request() {
    check("sm_80", "", true, &lockstep_answer());
}

#[test]
fn older_targets_run_in_lockstep() {
    check("sm_60", "", false, &lockstep_answer());
    check("sm_52", "", false, &lockstep_answer());
}

/// A warp-synchronous point between the store and the load ends the segment: every lane's
/// store comes first in either order.
#[test]
fn warp_sync_points_converge_the_warp() {
    check("sm_80", "bar.warp.sync -1;", false, &lockstep_answer());
    check("sm_80", "activemask.b32 %r8;", false, &lockstep_answer());
}
