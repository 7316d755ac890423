//! The tensor memory accelerator's copies (PTX ISA §9.7.9.25.5 `cp.async.bulk.tensor`,
//! `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor`) and `tensormap.replace`
//! (§9.7.9.26): one implementation both engines reach through the warp-operation path
//! (`runtime::warp`). Tensor maps are `runtime::tensormap`'s.
//!
//! # Semantics (tile mode)
//! A copy moves one *box*: for box indices `i` (dimension 0 innermost, `box_elems(d)` per
//! dimension), the tensor element at coordinates `c[d] + i[d] × step[d]`, where `c` are the
//! instruction's signed coordinates and `step` the map's element strides (dimension 0's is 1
//! unless interleaved). An element is *in bounds* when `0 <= coord < dims[d]` in every
//! dimension; its global address is `global_address + coord[0] × elem + Σ coord[d] ×
//! strides[d-1]`. In shared memory the box is dense, element `i` at byte `linear(i) × elem`
//! from the operand's address, which the map's swizzle and swizzle atomicity then permute
//! ([`super::tensormap::swizzle`] on the whole shared address; a combination the ISA does
//! not define faults: [`super::tensormap::swizzle_combination`]).
//! - load: each element of the box is written; out-of-bound ones read as the fill (zero, or
//!   NaN for float maps that ask for it); then complete-tx of the box's bytes on the
//!   mbarrier (the ISA counts the whole box, out-of-bound elements included).
//! - store: in-bound elements are written; out-of-bound ones are not.
//! - reduce: in-bound elements are combined atomically with the operation (element type
//!   from the map; the ISA's table of types per operation is checked at run time).
//! - prefetch: the map is checked; nothing else.
//!
//! # Semantics (im2col mode, §5.5.4; `.im2col` loads and prefetches, `.im2col_no_offs` stores and reductions)
//! The map is `cuTensorMapEncodeIm2col`'s: a 3d–5d tensor N·(D)·(H)·W·C. The copy moves
//! pixels per column × channels per pixel elements: pixel `p`'s channels `c[0] ..` land densely
//! at `p × channels`; the pixels' filter bases walk the bounding box from the instruction's
//! spatial coordinates (W fastest, by the traversal strides, wrapping to the lower corner, then
//! N), and the im2col offsets are added to each ([`im2col_pixels`]); out-of-bound elements read
//! as the fill; complete-tx of all the bytes. A filter base outside the box, an offset beyond
//! its width, or a mode that does not match the map's faults. An `.im2col_no_offs` store or
//! reduction (shared → global) takes no im2col offsets: it moves the same elements an `.im2col`
//! load with all offsets zero reads, from the same shared-memory places, the in-bound ones
//! only (ptxjit's reading: the ISA gives the mode's operands, not its effect; isa-notes).
//!
//! # Semantics (`.im2col::w`, `.im2col::w::128`, §5.5.5; loads and prefetches only)
//! The map is `cuTensorMapEncodeIm2colWide`'s, its mode (W or W128) the instruction's. The
//! bounding box is one position in H and D (the instruction's coordinates) and
//! `[lower_w, dims[1] − 1 + upper_w]` in W; `wOffset` is added to both W corners and to the
//! instruction's W ([`im2col_wide_pixels`]). The main pixels (pixels per column, or 128) walk W
//! from the instruction's W by the traversal stride, wrapping to the lower corner and
//! advancing N; the first may lie left of the box, not right of it. `wHalo` halo pixels
//! follow the last pixel of the column (`.im2col::w`) or of each 32 (`.im2col::w::128`),
//! further along W by the traversal stride without wrapping, and land right after it in
//! shared memory. ⚠ The ISA shows the halo's positions in figures only; this is ptxjit's
//! reading (docs/isa-notes.md). `wHalo` beyond 0..512 (0..32 with `::128`) or `wOffset`
//! beyond 0..32 faults.
//!
//! # Semantics (four-row modes, §5.5 "Tile::scatter4 and Tile::gather4 modes"; 2d maps)
//! `.tile::gather4` loads (and prefetches) and `.tile::scatter4` stores and reductions take
//! five coordinates: a column `col` and four row indices `r0 ..= r3`. They move four box rows:
//! row `k` is tensor row `rk`, its `box_elems(0)` elements from column `col` (by the traversal
//! step of dimension 0), landing densely at `k × box_elems(0) × elem` in shared memory (then
//! the swizzle); bounds, fill, stores and reductions are as in tile mode, and a load's
//! complete-tx counts the four rows' bytes. The map's box must be one row high (box
//! dimension 1 of 1): the ISA gives no effect for a taller box, so ptxjit faults on one.
//!
//! Like `cp.async.bulk`, a copy is whole when the instruction executes (one legal schedule
//! of an asynchronous copy). The active lanes act one after another in lane order.
//!
//! # Where the tensor map may be
//! The operand is a generic address of a kernel parameter (`cvta.param`, or the parameter's
//! address from `mov`, which is a param-space offset below the shared window), of `.const`
//! or of `.global` memory, 64-byte aligned. ptxjit faults, where the ISA leaves the result
//! undefined, on: bytes that are not a tensor map, an interleaved map whose box row is not one
//! interleave group or which is used in the im2col or four-row modes ([`check_interleave`]),
//! a shared address not 128-byte aligned or out of range, and a reduction its table lacks.

use super::env::{self, CtaEnv, FaultKind};
use super::initcheck::InitAccess;
use super::memory::SHARED_WINDOW;
use super::tensormap::{self, replace_field, TensorMap, TmapType, TENSOR_MAP_BYTES};
use super::warp::{lanes, WarpDesc};
use crate::ir::{AtomOp, HalfFmt, LoadMode, Sign, Space, TensorOp, Type};

/// Execute tensor operation `op` for the lanes of `mask`.
pub(crate) fn exec(d: &WarpDesc, op: TensorOp, mask: u32, s: &mut [u8], env: &CtaEnv) {
    for l in lanes(mask) {
        if let Err(what) = lane(d, op, l, s, env) {
            env.fault_detail(l, d.inst, FaultKind::TensorMap, format!("{op}: {what}"));
        }
    }
}

/// The space and offset of a tensor map's generic address (see the module docs).
fn map_space(env: &CtaEnv, addr: u64) -> (Space, u64) {
    if addr < SHARED_WINDOW && addr < env.param_size {
        return (Space::Param, addr);
    }
    if let Some(off) = env::param_offset(addr) {
        return (Space::Param, off);
    }
    (Space::Generic, addr)
}

/// Read the 128 bytes at `addr` in `space`; an access fault is recorded and gives `None`.
fn read_map(
    d: &WarpDesc,
    env: &CtaEnv,
    l: u32,
    space: Space,
    addr: u64,
) -> Option<[u8; TENSOR_MAP_BYTES]> {
    match env::translate(env, space, addr, TENSOR_MAP_BYTES as u32, 64, l) {
        Ok(p) => {
            let mut b = [0u8; TENSOR_MAP_BYTES];
            // SAFETY: `translate` checked 128 bytes at `p` inside the space.
            unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), TENSOR_MAP_BYTES) };
            Some(b)
        }
        Err(e) => {
            env.access_fault(l, d.inst, e, addr, TENSOR_MAP_BYTES as u32, 64, false);
            None
        }
    }
}

/// One lane's operation; an error is the fault's detail (access faults are recorded here and
/// end the lane's operation with `Ok`).
fn lane(d: &WarpDesc, op: TensorOp, l: u32, s: &mut [u8], env: &CtaEnv) -> Result<(), String> {
    if let TensorOp::Replace { field, space } = op {
        let addr = d.arg(s, 0, l);
        let ord = d.arg(s, 1, l) as u32;
        let value = d.arg(s, 2, l);
        let Some(mut b) = read_map(d, env, l, space, addr) else {
            return Ok(());
        };
        replace_field(&mut b, field, ord, value)?;
        match env::translate(env, space, addr, TENSOR_MAP_BYTES as u32, 64, l) {
            // SAFETY: as in read_map.
            Ok(p) => unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, TENSOR_MAP_BYTES) },
            Err(e) => env.access_fault(l, d.inst, e, addr, TENSOR_MAP_BYTES as u32, 64, true),
        }
        return Ok(());
    }
    let dims = op.dims();
    let ncoord = op.coords();
    let map_arg = usize::from(matches!(op, TensorOp::Load { .. }));
    let (space, addr) = map_space(env, d.arg(s, map_arg, l));
    let Some(b) = read_map(d, env, l, space, addr) else {
        return Ok(());
    };
    let m = TensorMap::from_bytes(&b)?;
    if m.rank as usize != dims {
        return Err(format!(
            "a {dims}d instruction on a tensor map of rank {}",
            m.rank
        ));
    }
    check_mode(op, &m)?;
    check_interleave(op, &m)?;
    if op.four_rows() && m.box_dims[1] != 1 {
        return Err(format!(
            "a four-row copy (.tile::gather4/.tile::scatter4) with a map whose box dimension 1 is \
             {} (the ISA gives the effect of a box one row high only)",
            m.box_dims[1]
        ));
    }
    let mut c = [0i64; 5];
    for (k, ck) in c.iter_mut().enumerate().take(ncoord) {
        *ck = d.arg(s, map_arg + 1 + k, l) as u32 as i32 as i64;
    }
    // The im2col offsets follow the mbarrier (a load) or the coordinates (a prefetch).
    let off_arg = match op {
        TensorOp::Load { .. } => ncoord + 3,
        _ => ncoord + 1,
    };
    let offs: [i64; 3] = std::array::from_fn(|k| {
        if k < op.offsets() {
            d.arg(s, off_arg + k, l) as u16 as i64
        } else {
            0
        }
    });
    if let (TensorOp::Prefetch { .. }, Some(ic)) = (op, m.im2col.filter(|ic| ic.wide.is_some())) {
        // A prefetch checks wHalo, wOffset and the first W as a load does.
        im2col_wide_pixels(&m, &ic, &c, offs[0], offs[1])?;
    }
    if m.swizzle == 4 {
        check_96b(&m)?;
    }
    if m.dtype.is_packed() {
        return packed_copy(d, op, l, s, env, &m, (&c, &offs), map_arg + 1 + ncoord);
    }
    let smem_arg = match op {
        TensorOp::Load { .. } => 0,
        _ => map_arg + 1 + ncoord,
    };
    let red = match op {
        TensorOp::Prefetch { .. } => return Ok(()),
        TensorOp::Reduce { op: r, .. } => Some(reduction(r, m.dtype)?),
        TensorOp::Load { .. } | TensorOp::Store { .. } => None,
        TensorOp::Replace { .. } => return Ok(()),
    };
    let smem = d.arg(s, smem_arg, l);
    if !smem.is_multiple_of(128) {
        return Err(format!(
            "the shared-memory address {smem:#x} is not 128-byte aligned"
        ));
    }
    let load = matches!(op, TensorOp::Load { .. });
    let wide = m.im2col.is_some_and(|ic| ic.wide.is_some());
    tensormap::swizzle_combination(m.swizzle, m.swizzle_atomicity, load, wide)?;
    let esize = m.dtype.bytes();
    let fill = if m.nan_fill { m.dtype.nan_bits() } else { 0 };
    let n: [u64; 5] = std::array::from_fn(|k| m.box_elems(k));
    // im2col mode: the pixels' tensor coordinates (dimension 0 is the channel start).
    let pix = match &m.im2col {
        Some(ic) if ic.wide.is_some() => {
            let p = im2col_wide_pixels(&m, ic, &c, offs[0], offs[1])?;
            Some((ic.channels as u64, p))
        }
        Some(ic) => Some((ic.channels as u64, im2col_pixels(&m, ic, &c, &offs)?)),
        None => None,
    };
    let walk = BoxWalk {
        m: &m,
        c: &c,
        n,
        pix: pix.as_ref().map(|(ch, p)| (*ch, p.as_slice())),
        four_rows: op.four_rows(),
    };
    for lin in 0..walk.total() {
        let coords = walk.coords(lin);
        let mut inb = true;
        let mut goff: i128 = 0;
        for (k, &coord) in coords.iter().enumerate() {
            if coord < 0 || coord as u64 >= m.dims[k] {
                inb = false;
            }
            let stride = if k == 0 { esize } else { m.strides[k - 1] };
            goff += coord as i128 * stride as i128;
        }
        let saddr = tensormap::swizzle(m.swizzle, m.swizzle_atomicity, smem + lin * esize);
        let gaddr = (m.global_address as i128 + goff) as u64;
        let sp = match env::translate(env, Space::Shared, saddr, esize as u32, esize as u32, l) {
            Ok(p) => p,
            Err(e) => {
                env.access_fault(l, d.inst, e, saddr, esize as u32, esize as u32, load);
                return Ok(());
            }
        };
        if !inb && !load {
            continue;
        }
        let gp = if inb {
            match env::translate(env, Space::Global, gaddr, esize as u32, esize as u32, l) {
                Ok(p) => Some(p),
                Err(e) => {
                    env.access_fault(l, d.inst, e, gaddr, esize as u32, esize as u32, !load);
                    return Ok(());
                }
            }
        } else {
            None
        };
        let n = esize as usize;
        match (load, gp, red) {
            (true, _, _) => {
                // An element outside the tensor reads as the fill value.
                let bytes = fill.to_le_bytes();
                let src = gp.map_or(bytes.as_ptr(), |g| g as *const u8);
                // SAFETY: both pointers were checked for `n` bytes by `translate` (`bytes`
                // holds 8).
                unsafe { std::ptr::copy_nonoverlapping(src, sp, n) };
                env::init_access(
                    env,
                    Space::Shared,
                    saddr,
                    n as u32,
                    l,
                    d.inst,
                    InitAccess::Write,
                );
            }
            (false, Some(g), None) => {
                // SAFETY: as above.
                unsafe { std::ptr::copy_nonoverlapping(sp, g, n) };
                env::init_access(
                    env,
                    Space::Global,
                    gaddr,
                    n as u32,
                    l,
                    d.inst,
                    InitAccess::Write,
                );
            }
            (false, Some(g), Some((aop, ty))) => {
                let mut v = [0u8; 8];
                // SAFETY: as above.
                unsafe { std::ptr::copy_nonoverlapping(sp, v.as_mut_ptr(), n) };
                // SAFETY: `g` is valid for `n` bytes aligned to `n` (translate's checks).
                unsafe { super::semantics::atomic_rmw(g, aop, ty, u64::from_le_bytes(v), true) };
            }
            (false, None, _) => {}
        }
    }
    if load {
        let mbar = d.arg(s, 2 + ncoord, l);
        complete_tx(d, env, l, mbar, walk.total() * esize)?;
    }
    Ok(())
}

/// The 96B swizzle's restrictions (PTX ISA §9.7.9.25.5.1): 16B atomicity (checked with the
/// other combinations), no interleave, a box row (dimension 0, or an im2col pixel's
/// channels) of at most 96 bytes, not a padded packed type, not `.im2col::w::128`.
fn check_96b(m: &TensorMap) -> Result<(), String> {
    let row_bits = match &m.im2col {
        Some(ic) => ic.channels as u64 * m.dtype.global_bits(),
        None => m.box_elems(0) * m.dtype.global_bits(),
    };
    let why = if m.interleave != 0 {
        "an interleaved map".to_string()
    } else if row_bits > 96 * 8 {
        format!("a box row of {} bytes (more than 96)", row_bits.div_ceil(8))
    } else if matches!(m.dtype, TmapType::B4x16P64 | TmapType::B6x16P32) {
        "a padded sub-byte element type (.b4x16_p64, .b6x16_p32, .b6p2x16)".to_string()
    } else if m
        .im2col
        .is_some_and(|ic| ic.wide == Some(tensormap::Im2colWide::W128))
    {
        "an .im2col::w::128 map".to_string()
    } else {
        return Ok(());
    };
    Err(format!(
        "the 96B swizzle with {why} (PTX ISA §9.7.9.25.5.1's restrictions on the 96B swizzle mode)"
    ))
}

/// A tile-mode copy of a packed sub-byte type (PTX ISA §5.5.1.1.1; `.b4x16`, `.b4x16_p64`,
/// `.b6x16_p32` loads, `.b4x16` and `.b6p2x16` stores). Elements are counted one by one
/// (dimension 0 in 4- or 6-bit elements, as the map's sizes are), global memory holds them
/// packed (element `i` of a row at bit `w·i` of the row, [`tensormap::packed_bit`]), and
/// shared memory as the type says: `.b4x16` packed likewise; `.b4x16_p64` and `.b6x16_p32`
/// each 16 elements packed at the start of their own 16 bytes, the padding after them left
/// as it was (the ISA: "un-initialized"); `.b6p2x16` one element per byte (bits 0-5; a store
/// drops bits 6-7). The swizzle permutes 16-byte chunks of the shared side, which a group of
/// 16 never straddles. A load's out-of-bound elements read as zero; complete-tx counts the
/// box's shared-memory bytes, padding included ([`TensorMap::box_bytes`]). §9.7.9.25.5.1's
/// restrictions are checked: no reduction, no `.b4x16_p64` store, no OOB-NaN fill; for the
/// padded types a box row of 128 elements (96 or 64 bytes), a first coordinate, tensor row
/// and global address/strides aligned as it says, and no swizzle but none or 128B (without
/// the 8-byte flip); a `.b6p2x16` store also takes sm_103a's relaxations (rows of 64
/// elements, 16-byte alignment, the 64B swizzle), as ptxjit does not know the target at
/// run time. The im2col modes (a pixel's channels as the row: channels per pixel in place of
/// box dimension 0) and the four-row modes (four box rows) take the elements the unpacked
/// copy takes, in the same order, each row of them laid out as a tile-mode row (rows of whole
/// 16-element groups, so the layout per group is the tile mode's).
#[allow(clippy::too_many_arguments)]
fn packed_copy(
    d: &WarpDesc,
    op: TensorOp,
    l: u32,
    s: &mut [u8],
    env: &CtaEnv,
    m: &TensorMap,
    (c, offs): (&[i64; 5], &[i64; 3]),
    after_coords: usize,
) -> Result<(), String> {
    let load = matches!(op, TensorOp::Load { .. });
    let ty = m.dtype;
    let name = ty.packed_name(load);
    let fail = |why: &str| Err(format!("{name} {why}"));
    match op {
        TensorOp::Reduce { .. } => {
            return fail("cannot be reduced (PTX ISA §9.7.9.25.5.1: cp.reduce.async.bulk does not support the sub-byte types)")
        }
        TensorOp::Prefetch { .. } | TensorOp::Replace { .. } => return Ok(()),
        TensorOp::Load { .. } | TensorOp::Store { .. } => {}
    }
    if m.interleave != 0 {
        return fail("with an interleaved map: the ISA gives no layout for it");
    }
    if m.nan_fill {
        return fail(
            "with the OOB-NaN fill (PTX ISA §9.7.9.25.5.1: not supported for the sub-byte types)",
        );
    }
    if !load && ty == TmapType::B4x16P64 {
        return fail("cannot be stored (PTX ISA §9.7.9.25.5.1: .global.shared::cta does not support .b4x16_p64)");
    }
    // A row: box dimension 0, or in im2col mode a pixel's channels.
    let row = m.im2col.map_or(m.box_elems(0), |ic| ic.channels as u64);
    if ty == TmapType::B4x16 {
        if !row.is_multiple_of(32) {
            return fail(&format!(
                "box row of {row} elements is not a multiple of 16 bytes (PTX ISA §5.5.3.1)"
            ));
        }
    } else {
        // .b6p2x16 stores: sm_103a's relaxations (rows of 48 or 96 bytes, 16-byte alignment).
        let b6p2 = !load;
        let (rows, align): (&[u64], u64) = if b6p2 { (&[64, 128], 16) } else { (&[128], 32) };
        let first = rows[0];
        if !rows.contains(&row) {
            return fail(&format!(
                "needs a box row of {} elements ({} bytes), not {row} (PTX ISA §9.7.9.25.5.1)",
                rows.iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
                rows.iter()
                    .map(|r| (r * ty.global_bits() / 8).to_string())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ));
        }
        if c[0].rem_euclid(first as i64) != 0 || !m.dims[0].is_multiple_of(first) {
            return fail(&format!(
                "needs the first coordinate ({}) and tensor size[0] ({}) to be multiples of {first} \
                 (PTX ISA §9.7.9.25.5.1)",
                c[0], m.dims[0]
            ));
        }
        let strides = &m.strides[..m.rank as usize - 1];
        if !m.global_address.is_multiple_of(align)
            || strides.iter().any(|s| !s.is_multiple_of(align))
        {
            return fail(&format!(
                "needs the global address and strides {align}-byte aligned (PTX ISA §9.7.9.25.5.1)"
            ));
        }
        let ok = match (m.swizzle, m.swizzle_atomicity) {
            (0, _) => true,
            (3, a) => a != 2,
            (2, 0) => b6p2,
            _ => false,
        };
        if !ok {
            return fail(&format!(
                "with swizzle mode {} and atomicity {}: the padded sub-byte types take no \
                 swizzle or the 128B one without the 8B flip (PTX ISA §9.7.9.25.5.1)",
                m.swizzle, m.swizzle_atomicity
            ));
        }
    }
    let smem = d.arg(s, if load { 0 } else { after_coords }, l);
    if !smem.is_multiple_of(128) {
        return Err(format!(
            "the shared-memory address {smem:#x} is not 128-byte aligned"
        ));
    }
    let gw = ty.global_bits();
    let n: [u64; 5] = std::array::from_fn(|k| m.box_elems(k));
    // im2col mode: the pixels' tensor coordinates (dimension 0 is the channel start), as
    // the unpacked copy takes them.
    let pix = match &m.im2col {
        Some(ic) if ic.wide.is_some() => Some(im2col_wide_pixels(m, ic, c, offs[0], offs[1])?),
        Some(ic) => Some(im2col_pixels(m, ic, c, offs)?),
        None => None,
    };
    let walk = BoxWalk {
        m,
        c,
        n,
        pix: pix.as_deref().map(|p| (row, p)),
        four_rows: op.four_rows(),
    };
    let fault = |addr: u64, nb: u32, write: bool, e| {
        env.access_fault(l, d.inst, e, addr, nb, 1, write);
    };
    for lin in 0..walk.total() {
        let coords = walk.coords(lin);
        let inb = coords
            .iter()
            .enumerate()
            .all(|(k, &x)| x >= 0 && (x as u64) < m.dims[k]);
        // The shared-memory bit of the element, and its width there.
        let (sbit, sw) = match (ty, load) {
            (TmapType::B4x16, _) => (lin * 4, 4),
            (TmapType::B6x16P32, false) => (lin * 8, 8),
            _ => ((lin / 16) * 128 + tensormap::packed_bit(gw, lin % 16), gw),
        };
        let chunk = tensormap::swizzle(m.swizzle, m.swizzle_atomicity, smem + sbit / 128 * 16);
        let (saddr, sshift) = (chunk + sbit % 128 / 8, sbit % 8);
        let gbits = tensormap::packed_bit(gw, coords[0].max(0) as u64);
        let goff: i128 = (gbits / 8) as i128
            + (coords[1..].iter().zip(&m.strides))
                .map(|(&x, &st)| x as i128 * st as i128)
                .sum::<i128>();
        let gaddr = (m.global_address as i128 + goff) as u64;
        let gshift = gbits % 8;
        let sn = (sshift + sw).div_ceil(8) as u32;
        let gn = (gshift + gw).div_ceil(8) as u32;
        if !inb && !load {
            continue;
        }
        let sp = match env::translate(env, Space::Shared, saddr, sn, 1, l) {
            Ok(p) => p,
            Err(e) => {
                fault(saddr, sn, load, e);
                return Ok(());
            }
        };
        let gp = if inb {
            match env::translate(env, Space::Global, gaddr, gn, 1, l) {
                Ok(p) => Some(p),
                Err(e) => {
                    fault(gaddr, gn, !load, e);
                    return Ok(());
                }
            }
        } else {
            None
        };
        let mask = (1u16 << gw) - 1;
        // SAFETY: `translate` checked `sn`/`gn` bytes at `sp`/`gp`.
        unsafe {
            if load {
                let v = gp.map_or(0, |g| (read_bits(g, gn) >> gshift) & mask);
                write_bits(sp, sn, sshift, sw, v);
                env::init_access(env, Space::Shared, saddr, sn, l, d.inst, InitAccess::Write);
            } else if let Some(g) = gp {
                let v = (read_bits(sp, sn) >> sshift) & mask;
                write_bits(g, gn, gshift, gw, v);
                env::init_access(env, Space::Global, gaddr, gn, l, d.inst, InitAccess::Write);
            }
        }
    }
    if load {
        // The elements' shared-memory bytes, padding included.
        let mbar = d.arg(s, 2 + op.coords(), l);
        complete_tx(d, env, l, mbar, walk.total() * ty.shared_bits() / 8)?;
    }
    Ok(())
}

/// The `n` (1 or 2) bytes at `p`, little-endian.
///
/// # Safety
/// `p` must be valid for `n` bytes.
unsafe fn read_bits(p: *const u8, n: u32) -> u16 {
    let mut v = 0u16;
    for i in 0..n as usize {
        // SAFETY: the caller's.
        v |= (unsafe { *p.add(i) } as u16) << (8 * i);
    }
    v
}

/// Writes the low `w` bits of `v` at bit `shift` of the `n` bytes at `p`, keeping the others
/// (an element of 8 bits is its whole byte: `.b6p2x16`'s high bits are zero).
///
/// # Safety
/// `p` must be valid for `n` bytes.
unsafe fn write_bits(p: *mut u8, n: u32, shift: u64, w: u64, v: u16) {
    let mask = ((1u32 << w) - 1) << shift;
    // SAFETY: the caller's.
    let old = unsafe { read_bits(p, n) } as u32;
    let new = (old & !mask) | (((v as u32) << shift) & mask);
    for i in 0..n as usize {
        // SAFETY: the caller's.
        unsafe { *p.add(i) = (new >> (8 * i)) as u8 };
    }
}

/// Interleaved maps (`CU_TENSOR_MAP_INTERLEAVE_16B/32B`, the NC/8HWC8 and NC/16HWC16 layouts
/// of the CUDA Driver API's `cuTensorMapEncodeTiled`): the tensor is as its dimensions and
/// strides say (dimension 0 the channels of one 16- or 32-byte group), dimension 0's element
/// stride counts, and a tile-mode copy whose box row (the elements it moves along dimension
/// 0) is exactly one group moves the box densely, as without interleaving. The CUDA
/// documentation and the PTX ISA give no shared-memory layout for a narrower row, nor for
/// the im2col and four-row modes over an interleaved map: those fault, naming what is
/// missing.
fn check_interleave(op: TensorOp, m: &TensorMap) -> Result<(), String> {
    let group = match m.interleave {
        0 => return Ok(()),
        1 => 16,
        _ => 32,
    };
    if m.im2col.is_some() || op.four_rows() {
        return Err(format!(
            "an interleaved tensor map ({group}B) in {} mode: the shared-memory layout of such \
             a copy is not documented (not supported)",
            if op.four_rows() {
                "a four-row"
            } else {
                "im2col"
            }
        ));
    }
    let row = m.box_elems(0) * m.dtype.bytes();
    if row != group {
        return Err(format!(
            "an interleaved tensor map ({group}B) whose box row is {row} bytes (box dimension \
             0 of {} elements, element stride {}): the shared-memory layout of a row other than \
             one {group}-byte group is not documented (not supported)",
            m.box_dims[0], m.element_strides[0]
        ));
    }
    Ok(())
}
/// The order in which a tensor copy walks its box's elements, and each element's tensor
/// coordinates: im2col pixels (`pix`: the elements per pixel and the pixels' coordinates,
/// dimension 0 the channel start), four rows (`.tile::gather4`/`.tile::scatter4`: row `r` of
/// the box is tensor row `c[1 + r]`, its elements from column `c[0]`) or the tile's elements,
/// dimension 0 innermost, `m.step(k)` apart from the box's start `c`.
struct BoxWalk<'a> {
    m: &'a TensorMap,
    c: &'a [i64; 5],
    /// The box's elements along each dimension.
    n: [u64; 5],
    pix: Option<(u64, &'a [[i64; 5]])>,
    four_rows: bool,
}

impl BoxWalk<'_> {
    /// The number of elements the copy walks.
    fn total(&self) -> u64 {
        match self.pix {
            Some((per, p)) => per * p.len() as u64,
            None if self.four_rows => 4 * self.n[0],
            None => self.n.iter().product(),
        }
    }

    /// Element `lin`'s tensor coordinates (`lin` < [`BoxWalk::total`]).
    fn coords(&self, lin: u64) -> [i64; 5] {
        let (m, c, n) = (self.m, self.c, &self.n);
        match self.pix {
            Some((per, p)) => {
                let mut e = p[(lin / per) as usize];
                e[0] += (lin % per) as i64;
                e
            }
            None if self.four_rows => {
                let (r, i) = ((lin / n[0]) as usize, lin % n[0]);
                [c[0] + i as i64 * m.step(0), c[1 + r], 0, 0, 0]
            }
            None => {
                let mut rest = lin;
                std::array::from_fn(|k| {
                    let i = rest % n[k];
                    rest /= n[k];
                    c[k] + i as i64 * m.step(k)
                })
            }
        }
    }
}

/// The tensor coordinates of the pixels an im2col load reads (PTX ISA §5.5.4 "im2col mode"),
/// channel coordinate `c[0]` for each: the filter base starts at the instruction's spatial
/// coordinates (W, H, D: dimensions 1 ..= rank − 2), which must lie in the bounding box, and
/// N at `c[rank − 1]`; each next pixel advances W by its traversal stride (the map's element
/// stride), past the box's upper corner W returns to the lower corner and H advances, and so
/// on through D, then N advances by one. A pixel's elements are at its filter base plus the
/// im2col offsets; those outside the tensor read as the fill.
fn im2col_pixels(
    m: &TensorMap,
    ic: &tensormap::Im2col,
    c: &[i64; 5],
    offs: &[i64; 3],
) -> Result<Vec<[i64; 5]>, String> {
    let rank = m.rank as usize;
    let sp = rank - 2;
    let max_off = (corner_span(m.rank)) - 1;
    for k in 0..sp {
        let (lo, hi) = ic.range(k, m.dims[k + 1]);
        if c[k + 1] < lo || c[k + 1] > hi {
            return Err(format!(
                "spatial coordinate {} of dimension {} is outside the bounding box [{lo}, {hi}]",
                c[k + 1],
                k + 1
            ));
        }
        if offs[k] > max_off {
            return Err(format!(
                "im2col offset {} is outside 0..={max_off} (a {rank}d tensor)",
                offs[k]
            ));
        }
    }
    let mut p = *c;
    let mut out = Vec::with_capacity(ic.pixels as usize);
    for _ in 0..ic.pixels {
        let mut e = p;
        for k in 0..sp {
            e[k + 1] += offs[k];
        }
        out.push(e);
        let mut k = 0;
        loop {
            if k == sp {
                p[rank - 1] += 1;
                break;
            }
            let (lo, hi) = ic.range(k, m.dims[k + 1]);
            p[k + 1] += m.element_strides[k + 1] as i64;
            if p[k + 1] <= hi {
                break;
            }
            p[k + 1] = lo;
            k += 1;
        }
    }
    Ok(out)
}

/// Whether the instruction's mode matches the map's: tile-mode maps for `.tile` and the
/// four-row modes, `cuTensorMapEncodeIm2col` maps for `.im2col` and the `.im2col_no_offs`
/// stores and reductions, `cuTensorMapEncodeIm2colWide` maps of the same mode for
/// `.im2col::w` and `.im2col::w::128`; an error names both.
fn check_mode(op: TensorOp, m: &TensorMap) -> Result<(), String> {
    use tensormap::Im2colWide;
    let mode = match op.load_mode() {
        None if op.im2col_store() => Some(LoadMode::Im2col),
        mode => mode,
    };
    let want = match mode {
        None | Some(LoadMode::Tile | LoadMode::Gather4) => None,
        Some(LoadMode::Im2col) => Some(None),
        Some(LoadMode::Im2colW) => Some(Some(Im2colWide::W)),
        Some(LoadMode::Im2colW128) => Some(Some(Im2colWide::W128)),
    };
    let have = m.im2col.map(|ic| ic.wide);
    if want == have {
        return Ok(());
    }
    let name = |k: Option<Option<Im2colWide>>| {
        match k {
        None => "a tile-mode tensor map (cuTensorMapEncodeTiled)",
        Some(None) => "an im2col tensor map (cuTensorMapEncodeIm2col)",
        Some(Some(Im2colWide::W)) => {
            "a W-mode im2col-wide tensor map (cuTensorMapEncodeIm2colWide, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W)"
        }
        Some(Some(Im2colWide::W128)) => {
            "a W128-mode im2col-wide tensor map (cuTensorMapEncodeIm2colWide, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128)"
        }
    }
    };
    let modename = match mode {
        Some(LoadMode::Im2col) if op.im2col_store() => "im2col_no_offs",
        mode => mode.map_or("tile", LoadMode::name),
    };
    let article = if modename.starts_with('i') { "an" } else { "a" };
    Err(format!("{article} .{modename} copy with {}", name(have)))
}

/// The tensor coordinates of the pixels an `.im2col::w` or `.im2col::w::128` load reads
/// (PTX ISA §5.5.5), in shared-memory order, channel coordinate `c[0]` for each (see the
/// module docs): the bounding box of W is `[lo, hi] + wOffset`, H and D stay at the
/// instruction's coordinates; the main pixels start at `c[1] + wOffset` (left of the box
/// allowed, right of it a fault) and step W by the traversal stride, past `hi` back to `lo`
/// with N + 1; after the column (W mode) or each 32 main pixels (W128), `halo` pixels
/// continue along W from the last one by the stride, without wrapping.
fn im2col_wide_pixels(
    m: &TensorMap,
    ic: &tensormap::Im2col,
    c: &[i64; 5],
    halo: i64,
    w_offset: i64,
) -> Result<Vec<[i64; 5]>, String> {
    let w128 = ic.wide == Some(tensormap::Im2colWide::W128);
    let (mode, halo_max) = if w128 {
        ("im2col::w::128", 32)
    } else {
        ("im2col::w", 512)
    };
    if halo >= halo_max {
        return Err(format!(
            "wHalo {halo} is outside 0..{halo_max} (.{mode}; PTX ISA §9.7.9.25.5.1)"
        ));
    }
    if w_offset >= 32 {
        return Err(format!(
            "wOffset {w_offset} is outside 0..32 (PTX ISA §9.7.9.25.5.1)"
        ));
    }
    let (lo, hi) = ic.range(0, m.dims[1]);
    let (lo, hi) = (lo + w_offset, hi + w_offset);
    let mut p = *c;
    p[1] += w_offset;
    if p[1] > hi {
        return Err(format!(
            "the first W coordinate {} (with wOffset {w_offset}) is right of the bounding box \
             [{lo}, {hi}] (PTX ISA §5.5.5.1: only left of it is allowed)",
            p[1]
        ));
    }
    let step = m.element_strides[1] as i64;
    let n_dim = m.rank as usize - 1;
    let group = if w128 { 32 } else { ic.pixels as usize };
    let mut out = Vec::with_capacity(ic.pixels as usize + halo as usize * 4);
    for k in 0..ic.pixels as usize {
        out.push(p);
        if (k + 1) % group == 0 {
            for h in 1..=halo {
                let mut e = p;
                e[1] += h * step;
                out.push(e);
            }
        }
        p[1] += step;
        if p[1] > hi {
            p[1] = lo;
            p[n_dim] += 1;
        }
    }
    Ok(out)
}

/// The number of values an im2col offset can take for a tensor of `rank`: 2^16 (3D), 2^8
/// (4D), 2^5 (5D) (PTX ISA §5.5.4.1).
fn corner_span(rank: u32) -> i64 {
    match rank {
        3 => 1 << 16,
        4 => 1 << 8,
        _ => 1 << 5,
    }
}

/// complete-tx of `bytes` on the mbarrier object at shared address `mbar`.
fn complete_tx(d: &WarpDesc, env: &CtaEnv, l: u32, mbar: u64, bytes: u64) -> Result<(), String> {
    use super::mbarrier::{MbarState, MAX_COUNT};
    use std::sync::atomic::{AtomicU64, Ordering};
    if bytes > MAX_COUNT as u64 {
        return Err(format!(
            "a box of {bytes} bytes is above the tx-count limit"
        ));
    }
    let p = match env::translate(env, Space::Shared, mbar, 8, 8, l) {
        Ok(p) => p,
        Err(e) => {
            env.access_fault(l, d.inst, e, mbar, 8, 8, true);
            return Ok(());
        }
    };
    // SAFETY: `translate` checked 8 bytes at `p`, 8-byte aligned, in the CTA's shared memory.
    let cell = unsafe { AtomicU64::from_ptr(p as *mut u64) };
    let word = cell.load(Ordering::Acquire);
    let mut st = MbarState::decode(word);
    if !st.valid {
        return Err(format!(
            "the word {word:#x} at shared address {mbar:#x} is not an initialized mbarrier object"
        ));
    }
    let phase = st.phase;
    let done = st.complete_tx(bytes as u32)?;
    cell.store(st.encode(), Ordering::Release);
    env.race_mbar_arrive(l, mbar, done.then_some(phase));
    Ok(())
}

/// The atomic operation and IR type of a tensor reduction of `op` on `ty` elements, per the
/// ISA's table (§9.7.9.25.5.2): `.add` u32 s32 u64 f32 f16 bf16; `.min`/`.max` u32 s32 u64
/// s64 f16 bf16; `.inc`/`.dec` u32; `.and`/`.or`/`.xor` 32- and 64-bit integers. `op` comes
/// from the lowering with an unsigned sign for `.min`/`.max` (the map's type decides).
fn reduction(op: AtomOp, ty: TmapType) -> Result<(AtomOp, Type), String> {
    use TmapType::*;
    let half = match ty {
        F16 => Some(HalfFmt::F16),
        Bf16 => Some(HalfFmt::Bf16),
        _ => None,
    };
    let int = |t: TmapType| matches!(t, U32 | S32 | U64 | S64);
    let ir = |t: TmapType| match t.bytes() {
        2 => Type::I16,
        4 => Type::I32,
        _ => Type::I64,
    };
    let sign = if matches!(ty, S32 | S64) {
        Sign::Signed
    } else {
        Sign::Unsigned
    };
    let r = match (op, ty) {
        (AtomOp::Add, U32 | S32 | U64) => Some(AtomOp::Add),
        (AtomOp::Add, F32) => Some(AtomOp::FAdd),
        (AtomOp::Add, F16 | Bf16) => half.map(|fmt| AtomOp::HAdd { fmt, pair: false }),
        (AtomOp::Min(_), t) if int(t) => Some(AtomOp::Min(sign)),
        (AtomOp::Max(_), t) if int(t) => Some(AtomOp::Max(sign)),
        (AtomOp::Min(_) | AtomOp::Max(_), F16 | Bf16) => half.map(|fmt| AtomOp::HMinMax {
            fmt,
            pair: false,
            max: matches!(op, AtomOp::Max(_)),
        }),
        (AtomOp::Inc | AtomOp::Dec, U32) => Some(op),
        (AtomOp::And | AtomOp::Or | AtomOp::Xor, t) if int(t) => Some(op),
        _ => None,
    };
    let r = r.ok_or_else(|| format!("no such reduction on a tensor map of {ty:?} elements"))?;
    Ok((r, ir(ty)))
}
