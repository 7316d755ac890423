//! Moving data into and out of tensor memory: `tcgen05.ld`/`st` (PTX ISA §9.7.16.8.3-4, with
//! `ld.red`), `tcgen05.shift` (§9.7.16.9.3) and `tcgen05.cp` (§9.7.16.9.2).

use super::desc::smem_desc;
use super::operand::in_cta;
use super::TensorMemory;
use crate::ir::{Tc05CpShape, Tc05CpUnpack, Tc05LdSt, Tc05Op, Tc05Red, Tc05RedType, Tc05Shape};
use crate::runtime::env::{read_shared, CtaEnv};
use crate::runtime::fp::{self, Fmt};

/// The cells a `tcgen05.ld`/`st` (`op`) at `taddr` by warp `warp` reaches: (lane, column) of
/// thread `t`'s register `i` at index `t·regs + i` (with `.pack::16b`/`.unpack::16b`, the first
/// of its two columns). Each access (two for `.16x32bx2`, the second at `taddr +
/// immHalfSplitoff`) must lie in the warp's 32 lanes (`32·(warp % 4)`; `.32x32b` starts at
/// the first, a 16-lane shape anywhere its 16 lanes fit) and inside one allocation.
pub(super) fn ld_st_cells(
    tm: &TensorMemory,
    warp: u32,
    op: Tc05Op,
    taddr: u32,
) -> Result<Vec<(u32, u32)>, String> {
    let Some(Tc05LdSt {
        shape,
        split,
        packed,
        ..
    }) = op.ld_st()
    else {
        return Err("not a tcgen05.ld/st".into());
    };
    let quarter = 32 * (warp % 4);
    let nlanes = shape.lanes();
    let bases = if shape == Tc05Shape::S16x32bx2 {
        vec![taddr, taddr.wrapping_add(split)]
    } else {
        vec![taddr]
    };
    for &base in &bases {
        let (lane0, col0) = (base >> 16, base & 0xffff);
        let fits = if nlanes == 32 {
            lane0 == quarter
        } else {
            (quarter..=quarter + 32 - nlanes).contains(&lane0)
        };
        if !fits {
            return Err(format!(
                "an access at lane {lane0}: warp {warp} reaches lanes {quarter}..{} (.{shape} \
                 takes {nlanes} lanes{})",
                quarter + 32,
                if nlanes == 32 {
                    " from the first"
                } else {
                    " inside them"
                }
            ));
        }
        tm.check(lane0, nlanes, col0, op.columns())?;
    }
    let n = op.regs();
    let step = if packed { 2 } else { 1 };
    let mut cells = Vec::with_capacity(32 * n as usize);
    for t in 0..32 {
        for i in 0..n {
            let (l, c, second) = shape.cell(t, i);
            let base = bases[usize::from(second) % bases.len()];
            cells.push(((base >> 16) + l, (base & 0xffff) + step * c));
        }
    }
    Ok(cells)
}

/// `tcgen05.ld.red`'s reduction of one thread's loaded registers (§9.7.16.8.3): `.min` or
/// `.max` over them, as f32 (`.abs` compares magnitudes; NaN as `min`/`max.f32`: a NaN loses
/// to a number, with `.NaN` it wins and the result is the canonical NaN; -0 < +0), u32 or s32.
pub(super) fn reduce(r: Tc05Red, vals: &[u32]) -> u32 {
    let mut it = vals.iter().copied();
    let first = it.next().unwrap_or(0);
    match r.ty {
        Tc05RedType::F32 { abs, nan } => {
            let m = |x: u32| if abs { x & 0x7fff_ffff } else { x };
            let mut acc = u64::from(m(first));
            for v in it {
                acc = fp::minmax(Fmt::F32, acc, u64::from(m(v)), r.max, false, nan, false);
            }
            acc as u32
        }
        Tc05RedType::U32 => it.fold(first, |a, v| if r.max { a.max(v) } else { a.min(v) }),
        Tc05RedType::S32 => it.fold(first, |a, v| {
            let (a, v) = (a as i32, v as i32);
            (if r.max { a.max(v) } else { a.min(v) }) as u32
        }),
    }
}

/// `tcgen05.shift.cta_group::1.down [taddr]` (§9.7.16.9.3, shape `.31x256b`): the lane of
/// `taddr` is a multiple of 32; for the 8 columns (256 bits) from its column, lane
/// `lane0 + i + 1` takes the value lane `lane0 + i` held, for `i` in `0..31`. The first lane
/// keeps its value (the ISA does not say what it holds; ptxjit leaves it).
pub(super) fn shift(tm: &TensorMemory, taddr: u32) -> Result<(), String> {
    let (lane0, col0) = (taddr >> 16, taddr & 0xffff);
    if lane0 % 32 != 0 {
        return Err(format!(
            "tcgen05.shift at lane {lane0}: the lane must be a multiple of 32"
        ));
    }
    tm.check(lane0, 32, col0, 8)
        .map_err(|e| format!("tcgen05.shift: {e}"))?;
    for i in (0..31).rev() {
        for c in 0..8 {
            tm.set(lane0 + i + 1, col0 + c, tm.get(lane0 + i, col0 + c));
        }
    }
    Ok(())
}

/// Read the 32-bit word at shared address `addr` for `what`.
fn smem_u32(env: &CtaEnv, inst: u32, lane: u32, addr: u64, what: &str) -> Result<u32, String> {
    read_shared(env, addr, 4, lane, inst)
        .map(|v| v as u32)
        .map_err(|_| {
            format!(
                "{what} reads shared address {addr:#x} (4 bytes), outside shared memory or \
                 misaligned"
            )
        })
}

/// `tcgen05.cp.cta_group.shape [taddr], s-desc` (§9.7.16.9.2) issued by `lane`, copying into
/// each of `dsts`: a tensor memory and the CTA whose shared memory it copies from (`None`:
/// the executing CTA; with `.cta_group::2` each CTA of the pair copies from its own shared
/// memory at s-desc's offsets into its own tensor memory at `taddr`, ⚠ ptxjit's reading). The
/// source matrix has the shape's rows, each of 16 or 32 bytes, in the K-major canonical
/// layout of the descriptor (row `r` as the M/N index, its bytes as K: `wgmma::Desc::addr`
/// with 1-byte elements); 32-bit word `w` of row `r` goes to column `col0 + w` of each lane
/// the shape sends row `r` to ([`Tc05CpShape::lanes`], relative to the lane of `taddr`). With
/// `unpack` (§9.7.16.9.1) each 16-byte group of a row is expanded to 16 bytes first
/// ([`Tc05CpUnpack::expand`]); the addressing is the same. Everything (both CTAs' sources and
/// destinations with `.cta_group::2`) is read and checked before anything is written.
#[allow(clippy::too_many_arguments)]
pub(super) fn cp_lane(
    env: &CtaEnv,
    inst: u32,
    dsts: &[(&TensorMemory, Option<u32>)],
    lane: u32,
    shape: Tc05CpShape,
    unpack: Option<Tc05CpUnpack>,
    taddr: u32,
    desc: u64,
) -> Result<(), String> {
    let (lane0, col0) = (taddr >> 16, taddr & 0xffff);
    let desc = smem_desc(desc)?;
    let (rows, cols) = (shape.rows(), shape.columns());
    let what = match unpack {
        None => format!("tcgen05.cp.{shape}"),
        Some(u) => format!("tcgen05.cp.{shape}.{u}"),
    };
    let span = (0..rows)
        .flat_map(|r| shape.lanes(r))
        .max()
        .map_or(0, |l| l + 1);
    let mut all = Vec::with_capacity(dsts.len());
    for &(tm, cta) in dsts {
        let whose = match cta {
            Some(r) => format!("{what} (CTA rank {r} of the pair)"),
            None => what.clone(),
        };
        tm.check(lane0, span, col0, cols)
            .map_err(|e| format!("{whose}: {e}"))?;
        let mut vals = Vec::with_capacity((rows * cols) as usize);
        for r in 0..rows {
            for w in 0..cols {
                let addr = in_cta(desc.addr(r as u64, 4 * w as u64, 1, false), cta);
                vals.push(smem_u32(env, inst, lane, addr, &whose)?);
            }
            if let Some(u) = unpack {
                // Each 16-byte group (four words) of the row, expanded in place.
                let row = &mut vals[(r * cols) as usize..];
                for g in 0..(cols / 4) as usize {
                    let mut group = [0u8; 16];
                    for k in 0..4 {
                        group[4 * k..4 * k + 4].copy_from_slice(&row[4 * g + k].to_le_bytes());
                    }
                    let out = u.expand(group);
                    for k in 0..4 {
                        row[4 * g + k] =
                            u32::from_le_bytes(out[4 * k..4 * k + 4].try_into().expect("4 bytes"));
                    }
                }
            }
        }
        all.push(vals);
    }
    for (&(tm, _), vals) in dsts.iter().zip(&all) {
        for r in 0..rows {
            for l in shape.lanes(r) {
                for w in 0..cols {
                    tm.set(lane0 + l, col0 + w, vals[(r * cols + w) as usize]);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::tcgen05::LANES;

    /// Each `ld`/`st` shape's threads and registers reach every cell of its footprint (lanes ×
    /// columns per repetition, Table 49) exactly once, and `.16x64b` puts thread 1 on lane 8
    /// and thread 2 on column 1 (§9.7.16.2.3's figure).
    #[test]
    fn ld_st_shapes_cover_their_footprint() {
        use crate::ir::Tc05Shape::*;
        for shape in [S32x32b, S16x64b, S16x128b, S16x256b, S16x32bx2] {
            for num in [1u32, 2, 4] {
                let n = num * shape.regs_per_num();
                let mut hit = std::collections::HashSet::new();
                for t in 0..32 {
                    for i in 0..n {
                        let (l, c, second) = shape.cell(t, i);
                        assert!(
                            l < shape.lanes() && c < shape.columns(num),
                            "{shape} {t} {i}"
                        );
                        assert!(hit.insert((l, c, second)), "{shape}: cell reached twice");
                    }
                }
                let accesses = if shape == S16x32bx2 { 2 } else { 1 };
                assert_eq!(
                    hit.len() as u32,
                    shape.lanes() * shape.columns(num) * accesses
                );
            }
        }
        assert_eq!(S16x64b.cell(1, 0), (8, 0, false));
        assert_eq!(S16x64b.cell(2, 0), (0, 1, false));
        assert_eq!(S16x256b.cell(5, 7), (9, 11, false));
        assert_eq!(S16x32bx2.cell(17, 3), (1, 3, true));
    }

    /// `ld.red` (§9.7.16.8.3) as `min`/`max.f32` (§9.7.3.11-12): a NaN loses to a number
    /// unless `.NaN`; -0 < +0; `.abs` compares magnitudes; s32 and u32 compare as integers.
    #[test]
    fn ld_red_reduction() {
        use crate::ir::{Tc05Red, Tc05RedType};
        let f = |x: f32| x.to_bits();
        let red = |max, abs, nan| Tc05Red {
            max,
            ty: Tc05RedType::F32 { abs, nan },
        };
        let v = [f(1.5), f(-2.0), 0x7fc0_0000, f(0.25)];
        assert_eq!(reduce(red(false, false, false), &v), f(-2.0));
        assert_eq!(reduce(red(true, false, false), &v), f(1.5));
        assert_eq!(reduce(red(false, false, true), &v), 0x7fff_ffff);
        assert_eq!(reduce(red(true, true, false), &v), f(2.0));
        assert_eq!(reduce(red(false, true, false), &v), f(0.25));
        let zeros = [f(0.0), f(-0.0)];
        assert_eq!(reduce(red(false, false, false), &zeros), f(-0.0));
        assert_eq!(reduce(red(true, false, false), &zeros), f(0.0));
        let nans = [0x7fc0_0001, 0xffc0_0000];
        assert_eq!(reduce(red(true, false, false), &nans), 0x7fff_ffff);
        let ints = [5u32, 0xffff_fff0, 7];
        let s = |max| Tc05Red {
            max,
            ty: Tc05RedType::S32,
        };
        let u = |max| Tc05Red {
            max,
            ty: Tc05RedType::U32,
        };
        assert_eq!(reduce(s(false), &ints), 0xffff_fff0);
        assert_eq!(reduce(s(true), &ints), 7);
        assert_eq!(reduce(u(true), &ints), 0xffff_fff0);
        assert_eq!(reduce(u(false), &ints), 5);
    }

    /// `shift.down`: lanes 32..63, columns 4..11 move one lane down; lane 32 keeps its
    /// value; neighbours are untouched; an unaligned lane or a range past the allocation
    /// faults.
    #[test]
    fn shift_down() {
        let t = TensorMemory::default();
        assert_eq!(t.alloc(32), Ok(0));
        for l in 0..LANES {
            for c in 0..32 {
                t.set(l, c, l << 8 | c);
            }
        }
        assert_eq!(shift(&t, 32 << 16 | 4), Ok(()));
        for l in 0..LANES {
            for c in 0..32 {
                let moved = (33..64).contains(&l) && (4..12).contains(&c);
                let want = if moved { (l - 1) << 8 | c } else { l << 8 | c };
                assert_eq!(t.get(l, c), want, "lane {l} column {c}");
            }
        }
        assert!(shift(&t, 16 << 16).is_err());
        assert!(
            shift(&t, 28).is_err(),
            "columns 28..36 leave the allocation"
        );
    }

    /// The lanes each `cp` shape sends row r to (§9.7.16.2.3): every lane of the footprint
    /// once per copy of the data.
    #[test]
    fn cp_lanes() {
        use Tc05CpShape::*;
        for (shape, copies) in [
            (S128x256b, 1),
            (S128x128b, 1),
            (S4x256b, 1),
            (S64x128bW0213, 2),
            (S64x128bW0123, 2),
            (S32x128bW4, 4),
        ] {
            let mut hit: Vec<u32> = (0..shape.rows()).flat_map(|r| shape.lanes(r)).collect();
            hit.sort();
            hit.dedup();
            assert_eq!(hit.len() as u32, shape.rows() * copies, "{shape}");
            assert!(hit.iter().all(|&l| l < LANES), "{shape}");
        }
        assert_eq!(S64x128bW0123.lanes(33), vec![65, 97]);
        assert_eq!(S64x128bW0213.lanes(33), vec![33, 97]);
        assert_eq!(S4x256b.lanes(3), vec![96]);
    }
}
