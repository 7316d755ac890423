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
