//! The tensor memory accelerator (PTX ISA §9.7.9.25.5 "Tensor copy instructions":
//! `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor`;
//! §9.7.9.26 `tensormap.replace`; §9.7.13.16 `tensormap.cp_fenceproxy`; §9.7.13.4
//! `fence.proxy.tensormap::generic`). The copies become one [`Op::Tensor`] each, run by
//! `runtime::tma` when they execute (as `cp.async.bulk` copies are: see `decode_bulk.rs`);
//! the tensor map is `runtime::tensormap`'s.
//!
//! Forms (`.L2::cache_hint` and its operand are dropped before decoding):
//! ```text
//! cp.async.bulk.tensor.Nd.{shared::cluster,shared::cta}.global{.tile}.mbarrier::complete_tx::bytes
//!                                   [dst], [tensorMap, {c0, ..}], [mbar];
//! cp.async.bulk.tensor.Nd.{shared::cluster,shared::cta}.global.im2col.mbarrier::complete_tx::bytes
//!                                   [dst], [tensorMap, {c0, ..}], [mbar], {o0, ..};
//! cp.async.bulk.tensor.Nd.{shared::cluster,shared::cta}.global{.im2col::w,.im2col::w::128}
//!     .mbarrier::complete_tx::bytes [dst], [tensorMap, {c0, ..}], [mbar], {wHalo, wOffset};
//! cp.async.bulk.tensor.Nd.shared::cluster.global{.tile,.im2col,.im2col::w,.im2col::w::128}
//!     .mbarrier::complete_tx::bytes.multicast::cluster
//!                                   [dst], [tensorMap, {c0, ..}], [mbar]{, {o0, ..}}, ctaMask;
//! cp.async.bulk.tensor.2d.{shared::cluster,shared::cta}.global.tile::gather4
//!     .mbarrier::complete_tx::bytes{.multicast::cluster} [dst], [tensorMap, {col, r0, r1, r2, r3}],
//!                                   [mbar]{, ctaMask};
//! cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group [tensorMap, {c0, ..}], [src];
//! cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group
//!                                   [tensorMap, {col, r0, r1, r2, r3}], [src];
//! cp.async.bulk.tensor.Nd.global.shared::cta.im2col_no_offs.bulk_group [tensorMap, {c0, ..}], [src];
//! cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op{.tile,.tile::scatter4,.im2col_no_offs}
//!                                   .bulk_group [tensorMap, {..}], [src];
//! cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile} [tensorMap, {c0, ..}];
//! cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [tensorMap, {col, r0, r1, r2, r3}];
//! cp.async.bulk.prefetch.tensor.Nd.L2.global.im2col [tensorMap, {c0, ..}], {o0, ..};
//! cp.async.bulk.prefetch.tensor.Nd.L2.global{.im2col::w,.im2col::w::128}
//!                                   [tensorMap, {c0, ..}], {wHalo, wOffset};
//! tensormap.replace.tile.field{.global,.shared::cta}.b1024.{b32,b64} [addr], {ord,} new_val;
//! tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.{cta,cluster,gpu,sys}
//!                                   .sync.aligned [dst], [src], 128;
//! fence.proxy.tensormap::generic.{release,acquire}.{cta,cluster,gpu,sys} {[addr], 128};
//! ```
//! N is 1..5 (`.1d`..`.5d`; 3..5 with the im2col modes, 2 with the four-row modes
//! `.tile::gather4` / `.tile::scatter4`, whose five coordinates are the column and four row
//! indices), coordinates are signed 32-bit, the im2col offsets N − 2 16-bit values (PTX ISA
//! §5.5.4), `wHalo` and `wOffset` 16-bit values (§5.5.5; their ranges are checked when the copy
//! runs, as ptxas accepts any immediate). A load mode on the wrong direction is illegal, as
//! ptxas says (`.tile::scatter4` on a load, `.tile::gather4` or an im2col mode on a store).
//! `.cta_group::1` on a load is the copy without it (one CTA); `.cta_group::2` is the same
//! copy with its mbarrier possibly in the destination's peer CTA (the `mbar` address names
//! it), and with `.multicast::cluster` the signal of each destination goes to the mbarrier at
//! `mbar`'s offset in the CTA of the destination's pair with the parity of `mbar`'s CTA
//! (PTX ISA §9.7.9.25.5.1). `.im2col_no_offs` (stores and
//! reductions, 3..5 dimensions) takes the N coordinates only.
//! `.multicast::cluster` is one copy per
//! CTA of the cluster named in ctaMask, to the `mapa` of the destination and the mbarrier
//! (as `cp.async.bulk`'s, `decode_bulk.rs`).
//!
//! The tensor map's proxy fences have nothing to order: ptxjit has one proxy, and a
//! `tensormap.replace` or copy is visible to the next instruction.

use super::super::build::Builder;
use super::super::LowerError;
use super::Cx;
use crate::ir::{AtomOp, ICmp, LoadMode, Op, Sign, Space, TensorOp, TmapField, Type};
use crate::ptx::ast::{Literal, Operand};

type R = Result<(), LowerError>;

/// Decode `op` if it is one of this file's instructions.
/// `cp.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor` and `cp.reduce.async.bulk.tensor`
/// (PTX ISA §9.7.9.25.5), if `cx` is one of them (`data::cp` asks first).
pub(super) fn tensor_copy(b: &mut Builder, cx: &mut Cx) -> Option<R> {
    let m = |k: usize| cx.mods.get(k).copied();
    if m(0) == Some("async") && m(1) == Some("bulk") && m(2) == Some("tensor") {
        Some(copy(b, cx))
    } else if m(0) == Some("async")
        && m(1) == Some("bulk")
        && m(2) == Some("prefetch")
        && m(3) == Some("tensor")
    {
        Some(prefetch(b, cx))
    } else if m(0) == Some("reduce") && m(3) == Some("tensor") {
        Some(reduce(b, cx))
    } else {
        None
    }
}

/// `tensormap.replace` (§9.7.9.26) and `tensormap.cp_fenceproxy` (§9.7.13.16).
pub(super) fn tensormap(b: &mut Builder, cx: &mut Cx) -> R {
    match cx.mods.first().copied() {
        Some("replace") => replace(b, cx),
        Some("cp_fenceproxy") => cp_fenceproxy(b, cx),
        Some("query") => query_alloc_class(b, cx),
        _ => Err(cx.bad("expects .replace, .query or .cp_fenceproxy")),
    }
}

/// `fence.proxy.tensormap::generic` (§9.7.13.4), if `cx` is that fence (`sync::fence` asks).
pub(super) fn tensormap_fence(b: &mut Builder, cx: &mut Cx) -> Option<R> {
    (cx.has("proxy") && cx.has("tensormap::generic")).then(|| fence(b, cx))
}

/// The `.Nd` modifier's N.
fn dims(cx: &Cx) -> Result<u8, LowerError> {
    Ok(
        match cx.one_word(&["1d", "2d", "3d", "4d", "5d"], "dimension modifier")? {
            "1d" => 1,
            "2d" => 2,
            "3d" => 3,
            "4d" => 4,
            _ => 5,
        },
    )
}

/// Every modifier from index `from` is in `allowed`, none twice; `.multicast::cluster` is
/// reported as not supported yet, `.cta_group` where the ISA does not allow it and another
/// load mode missing from `allowed` (one of the other
/// copy direction) as illegal, in ptxas's words.
fn only(cx: &Cx, from: usize, allowed: &[&str]) -> R {
    let rest = &cx.mods[from.min(cx.mods.len())..];
    for (k, m) in rest.iter().enumerate() {
        if (m.starts_with("im2col") || m.starts_with("tile::")) && !allowed.contains(m) {
            return Err(cx.bad(&format!(
                "illegal modifier '.{m}' for instruction '{}'",
                instr_name(cx)
            )));
        }
        if m.starts_with("cta_group") && !allowed.contains(m) {
            // §9.7.9.25.5.1: "The modifier .cta_group can only be specified with the mbarrier
            // based completion mechanism".
            return Err(cx.bad(&format!(
                "illegal modifier '.{m}': .cta_group applies to copies into shared memory \
                 (.mbarrier::complete_tx::bytes)"
            )));
        }
        if *m == "multicast::cluster" && !allowed.contains(m) {
            return Err(cx.unsupported(&format!(
                ".{m} is not supported yet (tensor copies into this CTA only)"
            )));
        }
        if !allowed.contains(m) {
            return Err(cx.bad(&format!("illegal modifier '.{m}'")));
        }
        if rest[..k].contains(m) {
            return Err(cx.bad(&format!("modifier '.{m}' given twice")));
        }
    }
    Ok(())
}

/// The instruction's name as ptxas spells it in errors: the opcode and its modifiers up to
/// `.tensor` (`cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`).
fn instr_name(cx: &Cx) -> String {
    let opcode = cx.ptx.split('.').next().unwrap_or_default();
    let upto = cx
        .mods
        .iter()
        .position(|m| *m == "tensor")
        .map_or(0, |i| i + 1);
    std::iter::once(opcode)
        .chain(cx.mods[..upto].iter().copied())
        .collect::<Vec<_>>()
        .join(".")
}

const NDIMS: [&str; 5] = ["1d", "2d", "3d", "4d", "5d"];

/// The `[tensorMap, {c0, ..}]` operand at `k`: the map's address (i64) and `n` coordinates.
fn tensor_operand(
    b: &mut Builder,
    cx: &mut Cx,
    k: usize,
    n: usize,
) -> Result<Vec<u32>, LowerError> {
    let o = cx.opnd(k)?.clone();
    let Operand::Bracketed(items, span) = &o else {
        return Err(LowerError::new(
            o.span(),
            format!("'{}' needs a [tensorMap, {{coordinates}}] operand", cx.ptx),
        ));
    };
    let coords = match items.as_slice() {
        [_, Operand::Vector(c, _)] => c.clone(),
        [_, c @ Operand::Reg { .. }] | [_, c @ Operand::Imm(..)] => vec![c.clone()],
        _ => {
            return Err(LowerError::new(
                *span,
                format!("'{}' needs [tensorMap, {{coordinates}}]", cx.ptx),
            ))
        }
    };
    if coords.len() != n {
        return Err(LowerError::new(
            *span,
            format!("'{}' takes {n} coordinates, found {}", cx.ptx, coords.len()),
        ));
    }
    let map = b.src_rel(cx, &items[0], Type::I64, Some(Sign::Unsigned))?;
    let mut out = vec![map];
    for c in &coords {
        out.push(b.src_rel(cx, c, Type::I32, Some(Sign::Signed))?);
    }
    Ok(out)
}

/// The im2col info operand at `k` of an `n`-d instruction in `mode`: `{o0, ..}`, `n − 2`
/// im2col offsets (`.im2col`), or `{wHalo, wOffset}` (`.im2col::w`, `.im2col::w::128`);
/// 16-bit values, zero-extended to i32.
fn im2col_offsets(
    b: &mut Builder,
    cx: &mut Cx,
    k: usize,
    n: u8,
    mode: LoadMode,
) -> Result<Vec<u32>, LowerError> {
    let o = cx.opnd(k)?.clone();
    let items = match &o {
        Operand::Vector(v, _) => v.clone(),
        Operand::Reg { .. } | Operand::Imm(..) => vec![o.clone()],
        _ => {
            return Err(LowerError::new(
                o.span(),
                format!("'{}' needs the im2col offsets {{o0, ..}}", cx.ptx),
            ))
        }
    };
    let (want, what) = if mode == LoadMode::Im2col {
        (n as usize - 2, format!("im2col offsets (a {n}d tensor)"))
    } else {
        (
            2,
            format!("im2col info values {{wHalo, wOffset}} (.{})", mode.name()),
        )
    };
    if items.len() != want {
        return Err(LowerError::new(
            o.span(),
            format!("'{}' takes {want} {what}, found {}", cx.ptx, items.len()),
        ));
    }
    let mut out = vec![];
    for it in &items {
        let v = b.src_rel(cx, it, Type::I16, Some(Sign::Unsigned))?;
        out.push(b.coerce(cx, v, Type::I32, Some(Sign::Unsigned), it.span())?);
    }
    Ok(out)
}

/// The load mode of a copy into shared memory or a prefetch (`.tile` or none: tile mode);
/// the im2col modes need a 3d to 5d tensor, `.tile::gather4` a 2d one.
fn load_mode(cx: &Cx, n: u8) -> Result<LoadMode, LowerError> {
    let names = LOAD_MODES.map(LoadMode::name);
    let mode = cx
        .word_index(&names, "load mode")?
        .map_or(LoadMode::Tile, |k| LOAD_MODES[k]);
    if mode.is_im2col() && !(3..=5).contains(&n) {
        return Err(cx.bad(&format!(
            "the .{} load mode needs a .3d, .4d or .5d tensor",
            mode.name()
        )));
    }
    if mode == LoadMode::Gather4 && n != 2 {
        return Err(cx.bad("the .tile::gather4 load mode needs a .2d tensor"));
    }
    Ok(mode)
}

/// The load modes of copies into shared memory and prefetches (PTX ISA §9.7.9.25.5.1
/// `.load_mode`).
const LOAD_MODES: [LoadMode; 5] = [
    LoadMode::Tile,
    LoadMode::Gather4,
    LoadMode::Im2col,
    LoadMode::Im2colW,
    LoadMode::Im2colW128,
];

/// The mode of a store or reduction: (`.tile::scatter4`, a `.2d` tensor only;
/// `.im2col_no_offs`, a `.3d` to `.5d` one), both false for `.tile` or no mode.
fn store_mode(cx: &Cx, n: u8) -> Result<(bool, bool), LowerError> {
    let scatter4 = cx.has("tile::scatter4");
    let im2col = cx.has("im2col_no_offs");
    if usize::from(scatter4) + usize::from(im2col) + usize::from(cx.has("tile")) > 1 {
        return Err(cx.bad("takes one load mode (.tile, .tile::scatter4 or .im2col_no_offs)"));
    }
    if scatter4 && n != 2 {
        return Err(cx.bad("the .tile::scatter4 mode needs a .2d tensor"));
    }
    if im2col && !(3..=5).contains(&n) {
        return Err(cx.bad(&format!(
            "modifier '.{n}d' cannot be combined with modifier '.im2col_no_offs' (a .3d, .4d \
             or .5d tensor)"
        )));
    }
    Ok((scatter4, im2col))
}

/// Coordinates of an `n`-d copy: five (column, four rows) in the four-row modes.
fn coord_count(n: u8, four_rows: bool) -> usize {
    if four_rows {
        5
    } else {
        n as usize
    }
}

/// A shared-memory address operand as an i64 shared-space offset.
fn shared(b: &mut Builder, cx: &Cx, k: usize) -> Result<u32, LowerError> {
    let a = b.address(cx, k, Space::Shared)?;
    b.coerce(cx, a, Type::I64, Some(Sign::Unsigned), cx.inst.span)
}

fn icmp(b: &mut Builder, cx: &Cx, cc: ICmp, x: u32, y: u32) -> u32 {
    let op = Op::ICmp {
        cc,
        sign: Sign::Unsigned,
    };
    b.emit1(op, vec![x, y], Type::Pred, cx.loc, &cx.ptx)
}

fn emit(b: &mut Builder, cx: &Cx, op: TensorOp, args: Vec<u32>) {
    b.emit(Op::Tensor { op }, args, vec![], cx.loc, &cx.ptx);
}

fn copy(b: &mut Builder, cx: &mut Cx) -> R {
    let n = dims(cx)?;
    let to_shared = cx.has("global") && (cx.has("shared::cluster") || cx.has("shared::cta"));
    let first = cx
        .mods
        .iter()
        .position(|m| matches!(*m, "global" | "shared::cluster" | "shared::cta"));
    let ok_order = match (first.map(|i| cx.mods[i]), to_shared) {
        (Some("global"), _) => false,
        (Some(_), true) => true,
        _ => false,
    };
    if ok_order {
        only(
            cx,
            3,
            &[
                NDIMS[n as usize - 1],
                "shared::cluster",
                "shared::cta",
                "global",
                "tile",
                "tile::gather4",
                "im2col",
                "im2col::w",
                "im2col::w::128",
                "mbarrier::complete_tx::bytes",
                "multicast::cluster",
                // One CTA: the copy and its mbarrier as without the qualifier.
                "cta_group::1",
                // The CTA pair: the mbarrier may be in the destination's peer CTA.
                "cta_group::2",
            ],
        )?;
        if cx.has("cta_group::1") && cx.has("cta_group::2") {
            return Err(cx.bad("takes one of .cta_group::1 and .cta_group::2"));
        }
        let pair = cx.has("cta_group::2");
        if !cx.has("mbarrier::complete_tx::bytes") {
            return Err(cx.bad("a copy into shared memory needs .mbarrier::complete_tx::bytes"));
        }
        let multicast = cx.has("multicast::cluster");
        if multicast && !cx.has("shared::cluster") {
            return Err(cx.bad(".multicast::cluster copies into .shared::cluster"));
        }
        let mode = load_mode(cx, n)?;
        let im2col = mode.is_im2col();
        let k_mask = 3 + usize::from(im2col);
        cx.expect_operands(k_mask + usize::from(multicast))?;
        let dst = shared(b, cx, 0)?;
        let t = tensor_operand(b, cx, 1, coord_count(n, mode == LoadMode::Gather4))?;
        let mbar = shared(b, cx, 2)?;
        let offs = if im2col {
            im2col_offsets(b, cx, 3, n, mode)?
        } else {
            vec![]
        };
        let op = TensorOp::Load { dims: n, mode };
        let args = |dst: u32, mbar: u32| {
            let mut a = vec![dst];
            a.extend(t.iter().copied());
            a.push(mbar);
            a.extend(offs.iter().copied());
            a
        };
        if !multicast {
            emit(b, cx, op, args(dst, mbar));
            return Ok(());
        }
        // `.multicast::cluster`: the same copy into the same offsets of the shared memory of
        // each CTA whose rank's bit is set in ctaMask (16 bits), complete-tx on the mbarrier
        // at the same offset in each; bits of ranks outside the cluster name no CTA. With
        // `.cta_group::2` (§9.7.9.25.5.1: "For each destination CTA specified in the ctaMask,
        // the mbarrier signal is sent either to the destination CTA or its peer-CTA based on
        // CTAs %cluster_ctarank parity of shared memory where the mbarrier object mbar
        // resides") the mbarrier is the one of the destination's pair (rank & !1) whose rank
        // has the parity of the CTA holding `mbar`.
        let m = b.src(cx, k_mask, Type::I16)?;
        let m = b.coerce(cx, m, Type::I32, Some(Sign::Unsigned), cx.inst.span)?;
        let nrank = b.emit1(
            Op::SReg {
                reg: crate::ir::SReg::ClusterNctaRank,
            },
            vec![],
            Type::I32,
            cx.loc,
            &cx.ptx,
        );
        let mbar_parity = if pair {
            let r = b.emit1(
                Op::GetCtaRank { generic: false },
                vec![mbar],
                Type::I32,
                cx.loc,
                &cx.ptx,
            );
            let one = b.konst(cx, Type::I32, 1);
            Some(b.emit1(Op::And {}, vec![r, one], Type::I32, cx.loc, &cx.ptx))
        } else {
            None
        };
        for rank in 0..16u64 {
            let bit = b.konst(cx, Type::I32, 1 << rank);
            let bit = b.emit1(Op::And {}, vec![m, bit], Type::I32, cx.loc, &cx.ptx);
            let zero = b.konst(cx, Type::I32, 0);
            let set = icmp(b, cx, ICmp::Ne, bit, zero);
            let r = b.konst(cx, Type::I32, rank);
            let inside = icmp(b, cx, ICmp::Lt, r, nrank);
            let on = b.emit1(Op::And {}, vec![set, inside], Type::Pred, cx.loc, &cx.ptx);
            super::copy_async::if_then(b, cx, on, |b| {
                let r = b.konst(cx, Type::I32, rank);
                let map = Op::Mapa { generic: false };
                let d = b.emit1(map, vec![dst, r], Type::I64, cx.loc, &cx.ptx);
                let mr = match mbar_parity {
                    Some(p) => {
                        let even = b.konst(cx, Type::I32, rank & !1);
                        b.emit1(Op::Or {}, vec![even, p], Type::I32, cx.loc, &cx.ptx)
                    }
                    None => r,
                };
                let mb = b.emit1(map, vec![mbar, mr], Type::I64, cx.loc, &cx.ptx);
                emit(b, cx, op, args(d, mb));
                Ok(())
            })?;
        }
        return Ok(());
    }
    if !(cx.has("global") && cx.has("shared::cta")) {
        return Err(cx.bad(
            "copies .shared::cluster/.shared::cta.global (.mbarrier::complete_tx::bytes) or \
             .global.shared::cta (.bulk_group)",
        ));
    }
    only(
        cx,
        3,
        &[
            NDIMS[n as usize - 1],
            "global",
            "shared::cta",
            "tile",
            "tile::scatter4",
            "im2col_no_offs",
            "bulk_group",
        ],
    )?;
    if !cx.has("bulk_group") {
        return Err(cx.bad("a copy into global memory needs .bulk_group"));
    }
    let (scatter4, im2col) = store_mode(cx, n)?;
    store_like(
        b,
        cx,
        TensorOp::Store {
            dims: n,
            scatter4,
            im2col,
        },
    )
}

/// `[tensorMap, coords], [src]` → Store/Reduce.
fn store_like(b: &mut Builder, cx: &mut Cx, op: TensorOp) -> R {
    cx.expect_operands(2)?;
    let mut args = tensor_operand(b, cx, 0, op.coords())?;
    args.push(shared(b, cx, 1)?);
    emit(b, cx, op, args);
    Ok(())
}

fn reduce(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.mods.get(1) != Some(&"async") || cx.mods.get(2) != Some(&"bulk") {
        return Err(cx.bad("expects cp.reduce.async.bulk.tensor"));
    }
    let n = dims(cx)?;
    let op = &super::bulk::reduction(cx)?;
    let mut allowed = vec![
        NDIMS[n as usize - 1],
        "global",
        "shared::cta",
        "tile",
        "tile::scatter4",
        "im2col_no_offs",
        "bulk_group",
    ];
    allowed.extend_from_slice(&super::bulk::REDUCTIONS);
    only(cx, 4, &allowed)?;
    if !(cx.has("global") && cx.has("shared::cta") && cx.has("bulk_group")) {
        return Err(cx.bad("reduces .shared::cta into .global with .bulk_group"));
    }
    // The element type is the tensor map's: `runtime::tma` picks the signedness and format
    // and checks the ISA's table of types per operation.
    let aop = match *op {
        "add" => AtomOp::Add,
        "min" => AtomOp::Min(Sign::Unsigned),
        "max" => AtomOp::Max(Sign::Unsigned),
        "inc" => AtomOp::Inc,
        "dec" => AtomOp::Dec,
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        _ => AtomOp::Xor,
    };
    let (scatter4, im2col) = store_mode(cx, n)?;
    store_like(
        b,
        cx,
        TensorOp::Reduce {
            dims: n,
            op: aop,
            scatter4,
            im2col,
        },
    )
}

fn prefetch(b: &mut Builder, cx: &mut Cx) -> R {
    let n = dims(cx)?;
    only(
        cx,
        4,
        &[
            NDIMS[n as usize - 1],
            "L2",
            "global",
            "tile",
            "tile::gather4",
            "im2col",
            "im2col::w",
            "im2col::w::128",
        ],
    )?;
    if !(cx.has("L2") && cx.has("global")) {
        return Err(cx.bad("needs .L2.global"));
    }
    let mode = load_mode(cx, n)?;
    let im2col = mode.is_im2col();
    cx.expect_operands(1 + usize::from(im2col))?;
    let mut args = tensor_operand(b, cx, 0, coord_count(n, mode == LoadMode::Gather4))?;
    if im2col {
        args.extend(im2col_offsets(b, cx, 1, n, mode)?);
    }
    emit(b, cx, TensorOp::Prefetch { dims: n, mode }, args);
    Ok(())
}

fn replace(b: &mut Builder, cx: &mut Cx) -> R {
    let names = TmapField::ALL.map(TmapField::name);
    let class = alloc_class(cx)?;
    if let Some(class) = class.filter(|_| !names.iter().any(|f| cx.has(f))) {
        return replace_alloc_class(b, cx, class);
    }
    let field = TmapField::ALL[cx.one_index(&names, "field")?];
    let ty = if field.is_64() { "b64" } else { "b32" };
    let mut allowed = vec!["tile", field.name(), "global", "shared::cta", "b1024", ty];
    if let Some(c) = class {
        if field != TmapField::GlobalAddress {
            // ptxas 13.5: "Illegal modifier '.alloc_small' for instruction 'tensormap.replace'".
            return Err(cx.bad(&format!(
                "illegal modifier '.{c}' for instruction 'tensormap.replace' (an allocation \
                 class goes with .global_address or with no field)"
            )));
        }
        allowed.push(c);
    }
    only(cx, 1, &allowed)?;
    if !(cx.has("tile") && cx.has("b1024") && cx.has(ty)) {
        return Err(cx.bad(&format!("needs .tile, .b1024 and .{ty}")));
    }
    let space = if cx.has("shared::cta") {
        Space::Shared
    } else if cx.has("global") {
        Space::Global
    } else {
        Space::Generic
    };
    cx.expect_operands(if field.has_ord() { 3 } else { 2 })?;
    let a = b.address(cx, 0, space)?;
    let a = b.coerce(cx, a, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
    let ord = if field.has_ord() {
        match cx.opnd(1)? {
            Operand::Imm(Literal::Int { value, .. }, _) if (0..=4).contains(value) => {}
            Operand::Imm(_, sp) => {
                return Err(LowerError::new(
                    *sp,
                    "the ordinal must be 0..=4".to_string(),
                ))
            }
            _ => {}
        }
        b.src(cx, 1, Type::I32)?
    } else {
        b.konst(cx, Type::I32, 0)
    };
    let vi = if field.has_ord() { 2 } else { 1 };
    if let Some(max) = field.enum_max() {
        // §9.7.9.26: "When .field3 is specified, the operand new_val must be an immediate",
        // one of Table 33's values for the field (ptxas: "value '4' expected to be in range
        // [0..3] when .swizzle_atomicity modifier is used").
        match cx.opnd(vi)? {
            Operand::Imm(Literal::Int { value, .. }, _) if (0..=max as i64).contains(value) => {}
            op => {
                return Err(LowerError::new(
                    op.span(),
                    format!(
                        "the new value of .{} must be an immediate in 0..={max} (PTX ISA \
                         §9.7.9.26, Table 33)",
                        field.name()
                    ),
                ))
            }
        }
    }
    let v = b.src(cx, vi, if field.is_64() { Type::I64 } else { Type::I32 })?;
    let v = b.coerce(cx, v, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
    emit(b, cx, TensorOp::Replace { field, space }, vec![a, ord, v]);
    if let Some(c) = class {
        store_alloc_class(b, cx, a, space, c);
    }
    Ok(())
}

/// `tensormap.cp_fenceproxy`: copy the 128-byte tensor map from shared to global memory
/// (then a proxy fence, which has nothing to order): 16 eight-byte loads and stores.
fn cp_fenceproxy(b: &mut Builder, cx: &mut Cx) -> R {
    only(
        cx,
        1,
        &[
            "global",
            "shared::cta",
            "tensormap::generic",
            "release",
            "cta",
            "cluster",
            "gpu",
            "sys",
            "sync",
            "aligned",
        ],
    )?;
    let scopes = ["cta", "cluster", "gpu", "sys"]
        .iter()
        .filter(|s| cx.has(s))
        .count();
    if !(cx.has("global")
        && cx.has("shared::cta")
        && cx.has("tensormap::generic")
        && cx.has("release")
        && cx.has("sync")
        && cx.has("aligned"))
        || scopes != 1
    {
        return Err(
            cx.bad("needs .global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned")
        );
    }
    cx.expect_operands(3)?;
    match cx.opnd(2)? {
        Operand::Imm(Literal::Int { value: 128, .. }, _) => {}
        o => {
            return Err(LowerError::new(
                o.span(),
                "tensormap.cp_fenceproxy copies 128 bytes (the size must be 128)".to_string(),
            ))
        }
    }
    let dst = b.address(cx, 0, Space::Global)?;
    let dst = b.coerce(cx, dst, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
    let src = shared(b, cx, 1)?;
    for k in 0..16u64 {
        let at = |b: &mut Builder, base: u32| {
            let o = b.konst(cx, Type::I64, 8 * k);
            b.emit1(Op::IAdd {}, vec![base, o], Type::I64, cx.loc, &cx.ptx)
        };
        let s = at(b, src);
        let v = b.emit1(
            Op::Load {
                space: Space::Shared,
                align: 8,
            },
            vec![s],
            Type::I64,
            cx.loc,
            &cx.ptx,
        );
        let d = at(b, dst);
        b.emit(
            Op::Store {
                space: Space::Global,
                align: 8,
            },
            vec![d, v],
            vec![],
            cx.loc,
            &cx.ptx,
        );
    }
    Ok(())
}

/// `fence.proxy.tensormap::generic.{release,acquire}.scope {[addr], 128}`: ptxjit has one
/// proxy, so the fence orders nothing beyond program order; the acquire form's operands are
/// checked.
fn fence(b: &mut Builder, cx: &mut Cx) -> R {
    only(
        cx,
        0,
        &[
            "proxy",
            "tensormap::generic",
            "release",
            "acquire",
            "cta",
            "cluster",
            "gpu",
            "sys",
        ],
    )?;
    let sems = ["release", "acquire"].iter().filter(|s| cx.has(s)).count();
    let scopes = ["cta", "cluster", "gpu", "sys"]
        .iter()
        .filter(|s| cx.has(s))
        .count();
    if sems != 1 || scopes != 1 {
        return Err(cx.bad("needs .release or .acquire and one scope (.cta .cluster .gpu .sys)"));
    }
    if cx.has("release") {
        return cx.expect_operands(0);
    }
    cx.expect_operands(2)?;
    b.address(cx, 0, Space::Generic)?;
    match cx.opnd(1)? {
        Operand::Imm(Literal::Int { value: 128, .. }, _) => Ok(()),
        o => Err(LowerError::new(
            o.span(),
            "fence.proxy.tensormap::generic.acquire takes a size of 128".to_string(),
        )),
    }
}

/// The byte offset in ptxjit's tensor map of its allocation class, a 32-bit word
/// (docs/tensor-maps.md): 0 small, which `cuTensorMapEncodeTiled` and the other encoders
/// write (bytes 20..24 are 0 in their maps), 1 large.
const ALLOC_CLASS_AT: u64 = 20;

/// The allocation classes of `tensormap.replace` (PTX ISA 9.5).
const ALLOC_CLASSES: [&str; 3] = ["alloc_small", "alloc_large", "alloc_same"];

/// The allocation-class modifier of a `tensormap.replace`, if it has one (two are an error,
/// as ptxas 13.5 reports them: "Multiple .alloc_large modifiers specified").
fn alloc_class(cx: &Cx) -> Result<Option<&'static str>, LowerError> {
    let mut found = ALLOC_CLASSES.into_iter().filter(|c| cx.has(c));
    let first = found.next();
    if let Some(second) = found.next() {
        return Err(cx.bad(&format!("multiple allocation classes (.{second})")));
    }
    Ok(first)
}

/// `tensormap.replace.tile.{alloc_small,alloc_large}{.global,.shared::cta}.b1024 [addr]`
/// (PTX ISA 9.5, the form without a field): sets the tensor map's allocation class.
/// `.alloc_same` keeps the class of the map's current address, so it needs the new address
/// (ptxas 13.5: "Modifier '.alloc_same' requires modifier '.global_address'").
fn replace_alloc_class(b: &mut Builder, cx: &mut Cx, class: &str) -> R {
    if class == "alloc_same" {
        return Err(cx.bad(
            "modifier '.alloc_same' requires modifier '.global_address' (it keeps the class \
             of the map's address across a new address)",
        ));
    }
    only(cx, 1, &["tile", class, "global", "shared::cta", "b1024"])?;
    if !(cx.has("tile") && cx.has("b1024")) {
        return Err(cx.bad("needs .tile and .b1024"));
    }
    let space = if cx.has("shared::cta") {
        Space::Shared
    } else if cx.has("global") {
        Space::Global
    } else {
        Space::Generic
    };
    cx.expect_operands(1)?;
    let a = b.address(cx, 0, space)?;
    let a = b.coerce(cx, a, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
    store_alloc_class(b, cx, a, space, class);
    Ok(())
}

/// The address of the allocation-class word of the tensor map at `a` (64-bit).
fn alloc_class_word(b: &mut Builder, cx: &Cx, a: u32) -> u32 {
    let off = b.konst(cx, Type::I64, ALLOC_CLASS_AT);
    b.emit1(Op::IAdd {}, vec![a, off], Type::I64, cx.loc, &cx.ptx)
}

/// Writes allocation class `class` into the tensor map at `a` (in `space`): 1 for
/// `.alloc_large`, 0 for `.alloc_small`; `.alloc_same` keeps the word.
fn store_alloc_class(b: &mut Builder, cx: &Cx, a: u32, space: Space, class: &str) {
    let value = match class {
        "alloc_large" => 1,
        "alloc_small" => 0,
        _ => return,
    };
    let at = alloc_class_word(b, cx, a);
    let v = b.konst(cx, Type::I32, value);
    b.emit(
        Op::Store { space, align: 4 },
        vec![at, v],
        vec![],
        cx.loc,
        &cx.ptx,
    );
}

/// `tensormap.query.alloc_class_large{.space}.b1024 p, [addr]` (PTX ISA 9.5; `.space` one of
/// `.global`, `.shared::cta`, `.param{::entry}`, `.const`, or none for a generic address, as
/// ptxas 13.5 takes them): `p` is whether the tensor map at `addr` has the large allocation
/// class (what `tensormap.replace` with `.alloc_large` last wrote; a map from the encoders is
/// small).
fn query_alloc_class(b: &mut Builder, cx: &mut Cx) -> R {
    if cx.mods.get(1) != Some(&"alloc_class_large") {
        return Err(cx.bad("tensormap.query needs .alloc_class_large"));
    }
    only(
        cx,
        2,
        &[
            "global",
            "shared::cta",
            "param",
            "param::entry",
            "const",
            "b1024",
        ],
    )?;
    if !cx.has("b1024") {
        return Err(cx.bad(".b1024 modifier required"));
    }
    let spaces = ["global", "shared::cta", "param", "param::entry", "const"];
    if spaces.iter().filter(|s| cx.has(s)).count() > 1 {
        return Err(cx.bad("more than one state space"));
    }
    let space = if cx.has("global") {
        Space::Global
    } else if cx.has("shared::cta") {
        Space::Shared
    } else if cx.has("param") || cx.has("param::entry") {
        Space::Param
    } else if cx.has("const") {
        Space::Const
    } else {
        Space::Generic
    };
    cx.expect_operands(2)?;
    if let Operand::Address {
        base: Some(name), ..
    } = cx.opnd(1)?
    {
        // ptxas 13.5 takes a 64-bit address register only, in every state space ("Arguments
        // mismatch for instruction 'mov'" for `[%r1]`, where `tensormap.replace` takes one).
        if b.reg(&name.name).is_some() && b.vars[b.reg_var(cx, name)? as usize].bits() != 64 {
            return Err(LowerError::new(
                name.span,
                format!(
                    "the tensor map address '{}' of '{}' must be a 64-bit register",
                    name.name, cx.ptx
                ),
            ));
        }
    }
    let a = b.address(cx, 1, space)?;
    let a = b.coerce(cx, a, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
    let at = alloc_class_word(b, cx, a);
    let w = b.emit1(
        Op::Load { space, align: 4 },
        vec![at],
        Type::I32,
        cx.loc,
        &cx.ptx,
    );
    let zero = b.konst(cx, Type::I32, 0);
    let large = icmp(b, cx, ICmp::Ne, w, zero);
    if let Some(d) = b.dst(cx, 0, Type::Pred)? {
        b.copy(d, large, cx.loc, &cx.ptx);
    }
    Ok(())
}
