//! `tcgen05.mma` (PTX ISA §9.7.16.10), one multiply issued by one thread: its operands
//! gathered (A from shared or tensor memory or a collector buffer, the sparse expansion, block
//! scales), the product, and D written back in its data-path layout.

use super::alloc::pair_tmems;
use super::desc::{smem_desc, InstrDesc};
use super::layout::DataPath;
use super::operand::{negate, smem_elem, smem_nibble};
use super::scale::{block_scales, SfLanes};
use super::sparse::{self, MetaLanes};
use super::{Collected, TensorMemory, LANES};
use crate::ir::{MmaElem, MmaFamily, MmaSpec, Round, Tc05Collector, Tc05Kind};
use crate::runtime::env::{CtaEnv, FaultKind};
use crate::runtime::fp::{self, Arith, Fmt};
use crate::runtime::mma::{self, scaled};
use crate::runtime::warp::WarpDesc;

/// A fault of `tcgen05.mma`: its kind and detail.
pub(super) type MmaFault = (FaultKind, String);

pub(super) fn tmem_fault(e: String) -> MmaFault {
    (FaultKind::TensorMemory, e)
}

/// Which multiply (its fixed modifiers: [`crate::ir::Tc05Mma`]).
pub(super) use crate::ir::Tc05Mma as MmaForm;

/// The zero-column mask of a `tcgen05.mma.ws` (PTX ISA §9.7.16.4.3, Table 45) for an
/// `m`-row, `n`-column multiply: entry `j` is true when column `j` of B reads as zero. With
/// Non-Zero Mask (bit 39) clear no column is; else the mask is one sub-mask of N bits
/// (M = 128), two of N/2 (M = 64) or four of N/4 (M = 32). Sub-mask `i` is the periodic pattern
/// that starts with a span of ones when First Span `fs_i` (bit 32 + i) is 1 — Skip Span (bits
/// 40-47) + 1 zeroed columns — or with a span of zeros when it is 0 — Use Span (bits 48-55) + 1
/// columns of B — the two alternating, with its first Start Count `sc_i` (bits 8i..8i+7) bits
/// dropped (the ISA's examples 2-4; its table's descriptions of the two spans are the other
/// way round). Errors: reserved bits 36-38 or bits 62-63 set, or a Column Shift (bits 56-61)
/// other than 0 (the ISA does not say how a shift combines with the mask or the collector
/// buffers).
fn zero_columns(desc: u64, m: u32, n: u64) -> Result<Vec<bool>, String> {
    if desc & (0b111 << 36) != 0 || desc >> 62 != 0 {
        return Err(format!(
            "zero-column-mask-desc {desc:#x}: reserved bits (36-38, 62-63) are set"
        ));
    }
    let shift = (desc >> 56) & 63;
    if shift != 0 {
        return Err(format!(
            "zero-column-mask-desc {desc:#x}: Column Shift (bits 56-61) {shift} is not supported \
             (the ISA does not say how the shift combines with the mask and the collector buffers)"
        ));
    }
    if desc & (1 << 39) == 0 {
        return Ok(vec![false; n as usize]);
    }
    let parts = u64::from(128 / m.clamp(32, 128));
    let width = n / parts;
    let (skip, used) = (((desc >> 40) & 255) + 1, ((desc >> 48) & 255) + 1);
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..parts {
        let start = (desc >> (8 * i)) & 255;
        let ones_first = (desc >> (32 + i)) & 1 == 1;
        for j in 0..width {
            let p = (j + start) % (skip + used);
            out.push(if ones_first { p < skip } else { p >= used });
        }
    }
    Ok(out)
}

/// One `tcgen05.mma` (`.sp`, `.ws`) issued by `lane`.
pub(super) fn mma_lane(
    d: &WarpDesc,
    s: &[u8],
    env: &CtaEnv,
    tm: &TensorMemory,
    lane: u32,
    form: MmaForm,
) -> Result<(), MmaFault> {
    let MmaForm {
        kind,
        a_tmem,
        sparse,
        ws,
        lane_mask,
        scale_d,
        scale_vec,
        zero_mask,
        pair,
        collector_a,
        ashift,
    } = form;
    let dt = d.arg(s, 0, lane) as u32;
    let a_op = d.arg(s, 1, lane);
    let id = InstrDesc::decode_in(d.arg(s, 3, lane) as u32, kind, ws.is_some(), pair)
        .map_err(tmem_fault)?;
    // The tensor memories D is in (with `.cta_group::2` the pair's, even rank first), the
    // CTAs A's rows and B's columns come from (`None`: the executing CTA), and the rows of
    // A and D (columns of B) each holds.
    let (tms, ctas) = if pair {
        let (t, r) = pair_tmems(env, tm).map_err(tmem_fault)?;
        (t.to_vec(), vec![Some(r[0]), Some(r[1])])
    } else {
        (vec![tm], vec![None])
    };
    let parts = tms.len() as u64;
    let enable_d = d.arg(s, 4, lane) != 0;
    if id.sparse != sparse {
        return Err(tmem_fault(if sparse {
            "tcgen05.mma.sp: the instruction descriptor's sparsity bit (2) is clear".into()
        } else {
            "the instruction descriptor asks for sparsity (bit 2) in a dense tcgen05.mma".into()
        }));
    }
    // A sparse A's K is twice the dense one; its operand holds the stored K/2 columns.
    let k = kind.k() as u64 * if sparse { 2 } else { 1 };
    let ka = if sparse { k / 2 } else { k };
    let (m, n) = (id.m as u64, id.n as u64);
    // `.kind::mxf4`/`::mxf4nvf4` pack two e2m1 to a byte with no padding (§9.7.16.10.4.6).
    let dense4 = matches!(kind, Tc05Kind::Mxf4 | Tc05Kind::Mxf4nvf4);
    let (dl, dc) = (dt >> 16, dt & 0xffff);
    let path = if pair {
        DataPath::pair(id.m, dl)
    } else {
        DataPath::of(id.m, ws.is_some(), dl)
    }
    .map_err(tmem_fault)?;
    for t in &tms {
        t.check(0, LANES, dc, path.cols(id.n))
            .map_err(|e| tmem_fault(format!("tcgen05.mma D: {e}")))?;
    }
    let (rows, cols) = (m / parts, n / parts);
    // Block scaling: each CTA's scale_A (its rows) and scale_B (all N columns, 2x2 for a
    // Layout B pair) from its own tensor memory (`scale`).
    let scales = if scale_vec != 0 {
        let (sa, sb) = (d.arg(s, 5, lane) as u32, d.arg(s, 6, lane) as u32);
        let sfb = if pair && id.m == 128 {
            SfLanes::TwoByTwo
        } else {
            SfLanes::FourByOne
        };
        let mut per_cta = Vec::with_capacity(tms.len());
        for t in &tms {
            per_cta.push(block_scales(
                t,
                &id,
                u32::from(scale_vec),
                (sa, rows as u32),
                (sb, sfb),
            )?);
        }
        Some(per_cta)
    } else {
        None
    };
    // The tensor memory (index into `tms`), lane and column of row `r`, column `j` of D.
    let cell = |r: u64, j: u64| {
        let (l, c) = path.place(id.n, (r % rows) as u32, j as u32);
        ((r / rows) as usize, l, dc + c)
    };
    if sparse && pair && id.m == 128 {
        return Err(tmem_fault(
            "tcgen05.mma.sp.cta_group::2 with M = 128 is not supported: the sparsity metadata \
             figures (§9.7.16.10.8.4, titled \"M = 128 / M = 256\") do not show where each CTA \
             keeps the metadata of its 64 rows (Layout B), and public sm_100 code has no such \
             layout (CUTLASS's tmem_e_frg takes 128 rows per CTA); M = 256 is supported (each \
             CTA's 128 rows as M = 128's)"
                .into(),
        ));
    }
    // `.collector::a::use`/`::lastuse`: A is the one the buffer keeps, not the operand's.
    let kept_a = match collector_a {
        Some(Tc05Collector::Use | Tc05Collector::LastUse) => {
            let st = tm.st.borrow();
            let Some(c) = &st.collector_a else {
                return Err(tmem_fault(
                    "tcgen05.mma uses the collector buffer for A, which holds no A (no \
                     .collector::a::fill since it was last used up or discarded)"
                        .into(),
                ));
            };
            if (c.elem, c.k, c.n) != (id.a, ka, m) {
                return Err(tmem_fault(format!(
                    "tcgen05.mma: the collector buffer for A holds a {}×{} .{} A, the \
                     instruction descriptor asks for {m}×{ka} .{}",
                    c.n, c.k, c.elem, id.a
                )));
            }
            Some(c.b.clone())
        }
        _ => None,
    };
    if ashift && !matches!(id.m, 128 | 256) {
        return Err(tmem_fault(format!(
            "tcgen05.mma.ashift with M = {}: .ashift is only allowed with M = 128 or M = 256 \
             (§9.7.16.10.9.1)",
            id.m
        )));
    }
    let mut a = vec![0u64; (m * ka) as usize];
    if a_tmem {
        let at = a_op as u32;
        let (al, ac) = (at >> 16, at & 0xffff);
        let bits = id.a.bits() as u64;
        // A 4- or 6-bit A of `.kind::f8f6f4`/`::mxf8f6f4` sits one element per 8-bit
        // container (§9.7.16.10.4.3), the one `tcgen05.cp`'s decompression writes: a 4-bit
        // element at bits 2-5, a 6-bit one at bits 0-5 (docs/isa-notes.md); the other bits
        // are not read.
        let (bits, shift) = match (bits, kind) {
            (8.., _) => (bits, 0),
            (4, Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4) => (8, 2),
            (6, Tc05Kind::F8f6f4 | Tc05Kind::Mxf8f6f4) => (8, 0),
            // ⚠ `.kind::mxf4`/`::mxf4nvf4` keep their packed format in tensor memory too:
            // eight e2m1 to a 32-bit column, element `2j` in the low half of byte `j`
            // (docs/isa-notes.md).
            (4, Tc05Kind::Mxf4 | Tc05Kind::Mxf4nvf4) => (4, 0),
            _ => {
                return Err(tmem_fault(format!(
                    "tcgen05.mma.kind::{kind}: a .{} A in tensor memory has no container \
                     layout ptxjit knows for this kind",
                    id.a
                )))
            }
        };
        let elem_mask = (1u64 << id.a.bits()) - 1;
        let per = 32 / bits;
        let acols = ka.div_ceil(per) as u32;
        match path {
            DataPath::D if al != 0 => {
                return Err(tmem_fault(format!(
                    "tcgen05.mma A at lane {al}; with M = 128, A starts at lane 0"
                )))
            }
            DataPath::F { align } if al != align => {
                return Err(tmem_fault(format!(
                    "tcgen05.mma A at lane {al}, D at lane {align}: with M = 64 (Layout F) A and \
                     D must use the same lane alignment (§9.7.16.10.5)"
                )))
            }
            DataPath::E | DataPath::G if al != 0 => {
                return Err(tmem_fault(format!(
                    "tcgen05.mma A at lane {al}; with M = {} (Layout {}) A starts at lane 0",
                    id.m,
                    if id.m == 32 {
                        'G'
                    } else if pair {
                        'B'
                    } else {
                        'E'
                    }
                )))
            }
            DataPath::D | DataPath::E | DataPath::G | DataPath::F { .. } => {}
        }
        // ⚠ Where D's rows are spread over lane groups that each compute a part of N (Layout B
        // of a `.cta_group::2` M = 128 pair, Layouts E and G of `.ws` M = 64 and 32), A's local
        // row r is in lane r of every group: lanes r and 64 + r (Layouts B and E), r + 32·q for
        // q = 0..4 (Layout G). CUTLASS `UMMA::TmemAllocMode::Duplicated` ("the input data must
        // be duplicated between the subpartitions [0,1]<->[2,3]") for the pair; for `.ws`,
        // public sm_100 code run on hardware (FlashMLA's `.ws` A-in-tensor-memory atoms: "A is
        // always replicated across the tensor memory lanes", 128/M copies). The copies must
        // agree (docs/isa-notes.md).
        let copies: &[u32] = match path {
            DataPath::E => &[0, 64],
            DataPath::G => &[0, 32, 64, 96],
            DataPath::D | DataPath::F { .. } => &[0],
        };
        for t in &tms {
            t.check(0, LANES, ac, acols)
                .map_err(|e| tmem_fault(format!("tcgen05.mma A: {e}")))?;
        }
        if kept_a.is_none() {
            for r in 0..m {
                // A's row r is in the lane of D's row r (Layouts A, B, D and F).
                let (t, lane, _) = cell(r, 0);
                for c in 0..acols {
                    let word = tms[t].get(lane, ac + c);
                    if let Some(q) = copies[1..]
                        .iter()
                        .find(|&&q| tms[t].get(lane + q, ac + c) != word)
                    {
                        return Err(tmem_fault(format!(
                            "tcgen05.mma A in tensor memory: row {r}'s column {} is {word:#x} \
                             at lane {lane} but {:#x} at lane {} of the same CTA: with {} each \
                             lane group computing a part of N reads its own copy of A's rows \
                             ({} copies, {} lanes apart), and ptxjit needs the copies to agree",
                            ac + c,
                            tms[t].get(lane + q, ac + c),
                            lane + q,
                            match (pair, id.m) {
                                (true, _) => "M = 128 over a CTA pair (Layout B)",
                                (false, 64) => "tcgen05.mma.ws M = 64 (Layout E)",
                                _ => "tcgen05.mma.ws M = 32 (Layout G)",
                            },
                            copies.len(),
                            copies[1]
                        )));
                    }
                }
                for kk in 0..ka {
                    let cell = tms[t].get(lane, ac + (kk / per) as u32) as u64;
                    let v = (cell >> ((kk % per) * bits + shift)) & elem_mask;
                    a[(r * ka + kk) as usize] = v;
                }
            }
        }
        if ashift {
            // Once read, A's rows move one row down in tensor memory: row r + 1 takes row
            // r's words for r = M - 2 down to 0 (the last row's are overwritten, row 0 keeps
            // its own; with `.cta_group::2` row M/2, the odd CTA's first row, takes the even
            // CTA's last), in each copy of A.
            for r in (0..m - 1).rev() {
                let (t0, l0, _) = cell(r, 0);
                let (t1, l1, _) = cell(r + 1, 0);
                for q in copies {
                    for c in 0..acols {
                        tms[t1].set(l1 + q, ac + c, tms[t0].get(l0 + q, ac + c));
                    }
                }
            }
        }
    } else if kept_a.is_some() {
        // The descriptor is not read: A comes from the collector buffer.
    } else {
        let adesc = smem_desc(a_op).map_err(tmem_fault)?;
        for r in 0..m {
            let (cta, rl) = (ctas[(r / rows) as usize], r % rows);
            for kk in 0..ka {
                a[(r * ka + kk) as usize] = if dense4 {
                    smem_nibble(env, d.inst, lane, &adesc, (rl, kk), cta)
                } else {
                    smem_elem(env, d.inst, lane, &adesc, (rl, kk), id.a, id.trans_a, cta)
                }
                .map_err(tmem_fault)?;
            }
        }
    }
    if let Some(kept) = kept_a {
        a = kept;
    }
    if let Some(use_) = collector_a {
        let st = &mut tm.st.borrow_mut().collector_a;
        match use_ {
            Tc05Collector::Fill => {
                *st = Some(Collected {
                    elem: id.a,
                    k: ka,
                    n: m,
                    b: a.clone(),
                })
            }
            Tc05Collector::Use => {}
            Tc05Collector::LastUse | Tc05Collector::Discard => *st = None,
        }
    }
    if sparse {
        // The metadata address follows b-desc; with block scaling the operands after it are
        // appended after scale_B's address. A `.cta_group::2` pair (M = 256) keeps each CTA's
        // 128 rows' metadata in its own tensor memory at the same address.
        let meta = d.arg(s, if scale_vec != 0 { 7 } else { 5 }, lane) as u32;
        let lanes = match path {
            DataPath::F { align } => MetaLanes::LayoutF { align },
            DataPath::D | DataPath::E | DataPath::G => MetaLanes::Rows,
        };
        let mut full = Vec::with_capacity((m * k) as usize);
        for (t, tmt) in tms.iter().enumerate() {
            let part = &a[(t as u64 * rows * ka) as usize..((t as u64 + 1) * rows * ka) as usize];
            full.extend(sparse::expand(
                tmt,
                meta,
                kind,
                id.selector,
                part,
                rows,
                k,
                lanes,
            )?);
        }
        a = full;
    }
    let mut b = match ws {
        Some((buf, Tc05Collector::Use | Tc05Collector::LastUse)) => {
            let st = tm.st.borrow();
            let Some(c) = &st.collectors[buf as usize] else {
                return Err(tmem_fault(format!(
                    "tcgen05.mma.ws uses collector buffer b{buf}, which holds no B (no \
                     .collector::b{buf}::fill since it was last used up)"
                )));
            };
            if (c.elem, c.k, c.n) != (id.b, k, n) {
                return Err(tmem_fault(format!(
                    "tcgen05.mma.ws: collector buffer b{buf} holds a {}×{} .{} B, the \
                     instruction descriptor asks for {k}×{n} .{}",
                    c.k, c.n, c.elem, id.b
                )));
            }
            c.b.clone()
        }
        Some((_, Tc05Collector::Fill | Tc05Collector::Discard)) | None => {
            let bdesc = smem_desc(d.arg(s, 2, lane)).map_err(tmem_fault)?;
            let mut b = vec![0u64; (k * n) as usize];
            for kk in 0..k {
                for col in 0..n {
                    let (cta, cl) = (ctas[(col / cols) as usize], col % cols);
                    b[(kk * n + col) as usize] = if dense4 {
                        smem_nibble(env, d.inst, lane, &bdesc, (cl, kk), cta)
                    } else {
                        smem_elem(env, d.inst, lane, &bdesc, (cl, kk), id.b, id.trans_b, cta)
                    }
                    .map_err(tmem_fault)?;
                }
            }
            b
        }
    };
    if let Some((buf, use_)) = ws {
        let kept = match use_ {
            Tc05Collector::Fill => Some(Collected {
                elem: id.b,
                k,
                n,
                b: b.clone(),
            }),
            Tc05Collector::Use => tm.st.borrow().collectors[buf as usize].clone(),
            Tc05Collector::LastUse | Tc05Collector::Discard => None,
        };
        tm.st.borrow_mut().collectors[buf as usize] = kept;
    }
    if id.neg_a {
        a.iter_mut().for_each(|v| *v = negate(id.a, *v));
    }
    if id.neg_b {
        b.iter_mut().for_each(|v| *v = negate(id.b, *v));
    }
    if zero_mask {
        // The mask is this multiply's: the collector buffer above keeps B as read.
        let at = 5 + usize::from(sparse);
        let zeroed = zero_columns(d.arg(s, at, lane), id.m, n).map_err(tmem_fault)?;
        for kk in 0..k {
            for (col, _) in zeroed.iter().enumerate().filter(|(_, z)| **z) {
                b[(kk * n) as usize + col] = 0;
            }
        }
    }
    let mut c = vec![0u64; (m * n) as usize];
    if enable_d {
        for r in 0..m {
            for col in 0..n {
                // A 16-bit D is in the low half of its 32-bit cell (§9.7.16.10.4.1).
                let (t, l, cc) = cell(r, col);
                let cell = tms[t].get(l, cc) as u64;
                c[(r * n + col) as usize] = if id.d == MmaElem::F16 {
                    cell & 0xffff
                } else {
                    cell
                };
            }
        }
    }
    if enable_d && scale_d != 0 {
        // D · 2^-scale-input-d, rounded in the accumulator's format (exact unless it
        // underflows).
        let fmt = if id.d == MmaElem::F16 {
            Fmt::F16
        } else {
            Fmt::F32
        };
        let f = fp::convert(
            Fmt::F64,
            fmt,
            (-f64::from(scale_d)).exp2().to_bits(),
            Round::Nearest,
        );
        for v in c.iter_mut() {
            *v = fp::arith(fmt, Arith::Mul, [*v, f, 0], Round::Nearest, false, false);
        }
    }
    // disable-output-lane: bit `l % 32` of word `l / 32` keeps tensor-memory lane `l` of D
    // (the lane a cell of D is in: row `r` with M = 128, Layout F's lane with M = 64). ⚠ With
    // `.cta_group::2` the eight words are the pair's 256 lanes in order: words 0-3 the even
    // rank's (index 0 of `tms`), 4-7 the odd rank's.
    let kept = |t: usize, l: u32| -> bool {
        lane_mask && {
            let k = 5 + usize::from(sparse) + 4 * t + (l / 32) as usize;
            (d.arg(s, k, lane) >> (l % 32)) & 1 == 1
        }
    };
    if let Some(per_cta) = scales {
        let nv = scale_vec as usize;
        let (mu, nu, ku, rows) = (m as usize, n as usize, k as usize, rows as usize);
        let blk = ku / nv;
        // Row r of A uses its CTA's scale_A; each CTA's half of D its own scale_B.
        let av: Vec<u64> = (0..mu * ku)
            .map(|i| {
                let r = i / ku;
                let sa = &per_cta[r / rows].0;
                scaled(id.a, a[i], sa[(r % rows) * nv + (i % ku) / blk])
            })
            .collect();
        let bv: Vec<Vec<u64>> = per_cta
            .iter()
            .map(|(_, sb)| {
                (0..ku * nu)
                    .map(|i| scaled(id.b, b[i], sb[(i % nu) * nv + (i / nu) / blk]))
                    .collect()
            })
            .collect();
        for r in 0..mu {
            let bv = &bv[r / rows];
            for col in 0..nu {
                let (t, l, cc) = cell(r as u64, col as u64);
                if kept(t, l) {
                    continue;
                }
                let mut acc = c[r * nu + col];
                for kk in 0..ku {
                    acc = fp::arith(
                        Fmt::F32,
                        Arith::Fma,
                        [av[r * ku + kk], bv[kk * nu + col], acc],
                        Round::Nearest,
                        false,
                        false,
                    );
                }
                tms[t].set(l, cc, acc as u32);
            }
        }
        return Ok(());
    }
    // One block of at most 128 rows (M = 256 with `.cta_group::2`) by 8 columns at a time
    // (an `MmaSpec`'s M and N are at most 255).
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    let mb = mu.min(128);
    let spec = MmaSpec {
        b: id.b,
        satfinite: id.satfinite,
        ..MmaSpec::new(MmaFamily::Mma, (mb as u8, 8, k as u16), id.a, id.d)
    };
    for r0 in (0..mu).step_by(mb) {
        let ab = &a[r0 * ku..(r0 + mb) * ku];
        for j in 0..nu / 8 {
            let bj: Vec<u64> = (0..ku)
                .flat_map(|kk| b[kk * nu + 8 * j..kk * nu + 8 * j + 8].to_vec())
                .collect();
            let cj: Vec<u64> = (r0..r0 + mb)
                .flat_map(|r| c[r * nu + 8 * j..r * nu + 8 * j + 8].to_vec())
                .collect();
            let dj = mma::multiply(&spec, ab, &bj, &cj);
            for r in 0..mb {
                for col in 0..8 {
                    let (t, l, c) = cell((r0 + r) as u64, (8 * j + col) as u64);
                    if !kept(t, l) {
                        tms[t].set(l, c, dj[r * 8 + col] as u32);
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The zero-column mask descriptor's examples 2-4 (PTX ISA §9.7.16.4.3), low bit first
    /// (example 4 without its shift), and the faults on a shift and on reserved bits.
    #[test]
    fn zero_column_masks() {
        let bits = |text: &str| -> Vec<bool> { text.chars().rev().map(|c| c == '1').collect() };
        let desc = |sc: [u64; 4], fs: [u64; 4], skip: u64, used: u64| {
            (0..4).fold(1 << 39 | skip << 40 | used << 48, |d, i| {
                d | sc[i] << (8 * i) | fs[i] << (32 + i)
            })
        };
        let m = zero_columns(desc([0; 4], [0; 4], 2, 3), 128, 64).expect("valid");
        assert_eq!(m[..14], bits("11100001110000")[..]);
        let m = zero_columns(desc([0; 4], [1, 0, 0, 0], 2, 3), 64, 64).expect("valid");
        assert_eq!(m[..17], bits("11100001110000111")[..]);
        assert_eq!(m[32..50], bits("000011100001110000")[..]);
        let m = zero_columns(desc([0, 1, 2, 1], [1, 1, 0, 0], 2, 3), 32, 64).expect("valid");
        assert_eq!(m[..14], bits("00001110000111")[..]);
        assert_eq!(m[16..29], bits("0000111000011")[..]);
        assert_eq!(m[32..44], bits("111000011100")[..]);
        assert_eq!(m[48..61], bits("1110000111000")[..]);
        assert_eq!(zero_columns(3 << 40, 128, 64), Ok(vec![false; 64]));
        let shifted = zero_columns(desc([0; 4], [0; 4], 2, 3) | 2 << 56, 32, 128);
        assert!(shifted.expect_err("shift").contains("Column Shift"));
        assert!(zero_columns(1 << 37, 128, 64).is_err());
    }
}
