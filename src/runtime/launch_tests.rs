//! Reports of the CTA scheduler, on warp states set up by hand.

use super::*;

/// A warp that spins on a flag in global memory (`lower::yields` gives the loop a yield
/// point): the `bra` of the loop is line 13, its first instruction (the load) line 11.
const SPIN_ON_MEMORY: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a)
{
  .reg .pred %p1;
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [a];
$L:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $L;
  ret;
}
";

/// Lanes stopped by the time limit at the yield point of a loop without barriers are
/// reported as spinning in that loop, never as waiting at a barrier: warp 0 parked by the
/// yield (as `Op::Yield` parks lanes: each waiting for itself alone, `runtime::warp`), warp 1
/// about to run the yield point's counter.
#[test]
fn timeout_positions_name_spinning_loops() {
    let (_, kernels) = crate::host::front_end(SPIN_ON_MEMORY, "spin.ptx").expect("loads");
    let k = &kernels[0];
    let layout = crate::analysis::schedule::schedule(k).expect("schedules");
    let locs: Vec<SrcLoc> = k
        .inst_locs
        .iter()
        .copied()
        .chain(k.blocks.iter().map(|b| b.term_loc))
        .collect();
    let ptx: Vec<String> = k
        .inst_ptx
        .iter()
        .cloned()
        .chain(k.blocks.iter().map(|_| "bra".to_string()))
        .collect();
    let sites = Sites {
        locs: &locs,
        ptx: &ptx,
        sources: &[],
        shared_vars: &[],
    };
    let yield_inst = k
        .insts
        .iter()
        .position(|i| matches!(i.op, crate::ir::Op::Yield {}))
        .expect("the loop has a yield point") as u32;
    let header = *layout
        .barrier_targets
        .first()
        .expect("the yield parks lanes");
    let counter = (0..layout.order.len() as u32)
        .find(|&p| sites.is_yield(layout.block_site[p as usize]))
        .expect("a block of the yield point");
    let mut states = vec![vec![0u128; layout.size as usize / 16]; 2];
    for (w, st) in states.iter_mut().enumerate() {
        let s = bytes(st);
        wr32(s, LIVE_OFF, u32::MAX);
        if w == 0 {
            wr32(s, layout.parked(header), u32::MAX);
            wr32(s, WSYNC_WAIT_OFF, u32::MAX);
            for l in 0..WARP_SIZE {
                wr32(s, WSYNC_MASK_OFF + 4 * l, 1 << l);
                wr32(s, WSYNC_INST_OFF + 4 * l, yield_inst + 1);
            }
        } else {
            wr32(s, layout.pending(counter), u32::MAX);
        }
    }
    let text = positions(&layout, &mut states, [0, 0, 0], sites);
    assert!(
        text.contains(
            "warp 0: lanes 0-31 spinning in a loop at line 13, before \
             'ld.volatile.global.u32' at line 11"
        ),
        "{text}"
    );
    assert!(
        text.contains("warp 1: lanes 0-31 spinning in a loop at line 13"),
        "{text}"
    );
    assert!(!text.contains("barrier"), "{text}");
    assert!(!text.contains("yield point"), "{text}");
}

/// A kernel with barriers 0 (`bar.sync`, `bar.red.popc`) and 1 (for 64 threads): three
/// barrier terminators, so three blocks lanes can be parked at.
const BARRIERS: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 40;
  bar.sync 0;
  bar.red.popc.u32 %r2, 0, %p1;
  bar.sync 1, 64;
  ret;
}
";

/// The one-pass completion ([`complete_uniform`]) decides as the general path does: on warp
/// states set up as a scheduler round can leave them (every lane parked at the same
/// barrier, then perturbed: lanes exited or not arrived, whole warps exited, a second
/// instruction, another thread count or barrier, a warp-level synchronization, `bar.red`
/// kinds and predicates), wherever it decides, the round's outcome and every byte of every
/// warp state equal the general path's ([`complete_general`]).
#[test]
fn uniform_completion_matches_general_path() {
    let (_, kernels) = crate::host::front_end(BARRIERS, "bar.ptx").expect("loads");
    let layout = crate::analysis::schedule::schedule(&kernels[0]).expect("schedules");
    assert!(layout.barrier_targets.len() >= 2, "{layout:?}");
    let words = (layout.size as usize).div_ceil(16);
    // A linear congruential generator (Knuth's MMIX constants).
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u32| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % u64::from(n)) as u32
    };
    let (mut decided, mut released) = (0, 0);
    for _ in 0..4000 {
        let nwarps = 1 + next(6) as usize;
        let threads = if next(4) == 0 {
            (nwarps as u32 - 1) * 32 + 1 + next(32)
        } else {
            nwarps as u32 * 32
        };
        let id = if next(4) == 0 { 1 } else { 0 };
        let kind = [
            BarKind::Sync,
            BarKind::RedPopc,
            BarKind::RedAnd,
            BarKind::RedOr,
        ][next(4) as usize];
        let count = match next(4) {
            0 => 32 * nwarps as u32,
            1 => 32 * (1 + next(nwarps as u32)),
            _ => 0,
        };
        let target = layout.barrier_targets[next(layout.barrier_targets.len() as u32) as usize];
        let mut states: Vec<Vec<u128>> = (0..nwarps).map(|_| vec![0u128; words]).collect();
        for (w, st) in states.iter_mut().enumerate() {
            let s = bytes(st);
            let lanes = (threads - w as u32 * 32).min(32);
            let live = if lanes == 32 {
                u32::MAX
            } else {
                (1 << lanes) - 1
            };
            let exited = match next(8) {
                0 => live,
                1 => 1 << next(32),
                _ => 0,
            } & live;
            let alive = live & !exited;
            let arrived = match next(16) {
                0 => alive & !(1 << next(32)),
                // A warp that arrived, then exited.
                1 if alive == 0 => live,
                _ => alive,
            };
            wr32(s, LIVE_OFF, live);
            wr32(s, EXITED_OFF, exited);
            if arrived != 0 {
                let f = |field| bar_field(id, field);
                wr32(s, f(BAR_ARRIVED), arrived);
                let waiting = arrived & !exited;
                wr32(s, f(BAR_WAITING), waiting);
                wr32(s, f(BAR_PRED), next(u32::MAX));
                let threads_field = if next(16) == 0 { 32 } else { count };
                wr32(s, f(BAR_THREADS), threads_field);
                wr32(s, f(BAR_INST), 3);
                let mut flags = kind.code() | if next(2) == 0 { BAR_ALIGNED } else { 0 };
                if next(16) == 0 {
                    flags |= BAR_SPLIT;
                    wr32(s, f(BAR_INST2), 4);
                    wr32(s, f(BAR_LANES2), waiting & 0xff);
                }
                wr32(s, f(BAR_FLAGS), flags);
                wr32(s, layout.parked(target), waiting);
            }
            match next(24) {
                0 => {
                    // Lanes of another barrier.
                    let other = 1 - id;
                    wr32(s, bar_field(other, BAR_ARRIVED), 1);
                    wr32(s, bar_field(other, BAR_WAITING), 1);
                }
                1 => {
                    // A lane at a warp-level synchronization.
                    wr32(s, WSYNC_WAIT_OFF, 2);
                    wr32(s, WSYNC_MASK_OFF + 4, 3);
                }
                _ => {}
            }
        }
        let mut general = states.clone();
        let Some(fast) = complete_uniform(&layout, &mut states) else {
            continue;
        };
        let slow = complete_general(&layout, &mut general, None, None);
        assert_eq!(format!("{fast:?}"), format!("{slow:?}"));
        assert!(states == general, "warp states differ");
        decided += 1;
        released += matches!(fast, Round::Released) as u32;
    }
    // The fast path must decide often, and release often, for the comparison to mean much.
    assert!(
        decided > 1000 && released > 500,
        "{decided} decided, {released} released"
    );
}
