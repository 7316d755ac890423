//! Decoding of the texture and surface instructions (PTX ISA §9.7.10, §9.7.11): `tex`
//! (with `.level`/`.grad`), `tld4`, `txq`, `istypep`, `suld`, `sust`, `sured`, `suq`.
//!
//! The texture or surface is the first element of the bracketed operand: a `.u64` register
//! holding a handle (texture and surface objects), or a module-scope `.texref`/`.surfref`
//! variable, whose 8 bytes hold the handle the host bound to it (`Context::bind_texref`). In
//! independent texturing mode a `.samplerref` (or handle register) follows it.
//! `tex`/`tld4` take the optional texel-offset vector `e` and depth-compare value `f` after
//! the coordinates (and level of detail or gradients); `tex` gives `.v4.f16` and `.v2.f16x2`
//! results too; `tld4` gathers on `.2d`, `.a2d`, `.cube` and `.acube`; both take the residency
//! predicate `d|p`, which is always true: every ptxjit texture is resident. Multisample
//! geometries (`.2dms`, `.a2dms`) take integer coordinates and a sample index.

use super::super::build::{Builder, Var};
use super::super::LowerError;
use super::{ir_ty, Cx};
use crate::ir::{
    AtomOp, HandleKind, Op, Sign, Space, SurfClamp, TexAttr, TexGeom, TexLod, TexOpts, Type,
};
use crate::ptx::ast::{self, Operand};

type R = Result<(), LowerError>;

/// The handle in operand `o`: a register (`.b64`), or a `.texref`/`.samplerref`/`.surfref`
/// variable, whose handle is loaded from the variable.
fn handle(b: &mut Builder, cx: &Cx, o: &Operand) -> Result<Var, LowerError> {
    let name = match o {
        Operand::Reg {
            name,
            component: None,
        } => name,
        Operand::Symbol { name, offset: 0 } => name,
        other => {
            return Err(LowerError::new(
                other.span(),
                format!("expected a texture, sampler or surface in '{}'", cx.ptx),
            ))
        }
    };
    if b.reg(&name.name).is_some() {
        return b.src_rel(cx, o, Type::I64, None);
    }
    let addr = b.src_rel(cx, o, Type::I64, None)?;
    Ok(b.emit1(
        Op::Load {
            space: Space::Global,
            align: 8,
        },
        vec![addr],
        Type::I64,
        cx.loc,
        &cx.ptx,
    ))
}

/// The parts of `[tex, {coords}]` / `[tex, smp, {coords}]` / `[surf]`: handle operand,
/// sampler operand, coordinate operands.
fn bracket(cx: &Cx, o: &Operand) -> Result<(Operand, Option<Operand>, Vec<Operand>), LowerError> {
    // `[name]` alone parses as an address operand.
    if let Operand::Address {
        base: Some(name),
        offset: 0,
        ..
    } = o
    {
        let h = Operand::Reg {
            name: name.clone(),
            component: None,
        };
        return Ok((h, None, vec![]));
    }
    let Operand::Bracketed(items, _) = o else {
        return Err(cx.bad("expected a [texture, {coordinates}] operand"));
    };
    let vec_items = |v: &Operand| match v {
        Operand::Vector(e, _) => e.clone(),
        other => vec![other.clone()],
    };
    match items.as_slice() {
        [h] => Ok((h.clone(), None, vec![])),
        [h, c] => Ok((h.clone(), None, vec_items(c))),
        [h, s, c] => Ok((h.clone(), Some(s.clone()), vec_items(c))),
        _ => Err(cx.bad("expected [texture, {coordinates}] or [texture, sampler, {coordinates}]")),
    }
}

/// The geometry modifier.
fn geom(cx: &Cx) -> Result<TexGeom, LowerError> {
    cx.mods
        .iter()
        .find_map(|m| TexGeom::from_suffix(m))
        .ok_or_else(|| cx.bad("missing geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, .acube, ...)"))
}

/// Destination operands of a vector result: `{a, b, c, d}` or a single register.
fn dests(cx: &Cx, o: &Operand, n: usize) -> Result<Vec<Operand>, LowerError> {
    match o {
        Operand::Vector(e, _) if e.len() == n => Ok(e.clone()),
        Operand::Vector(e, _) => {
            Err(cx.bad(&format!("expects {n} destinations, found {}", e.len())))
        }
        other if n == 1 => Ok(vec![other.clone()]),
        _ => Err(cx.bad(&format!("expects a vector of {n} destinations"))),
    }
}

/// Whether a coordinate vector's register kinds are checked element by element: ptxas 12.9
/// types a vector operand as a whole, and one `.b` register makes the whole vector untyped
/// (`tex.2d.v4.f32.s32 d, [t, {%f1, %r2}]` and `suld.b.2d.b32 d, [s, {%hx1, %r2}]` with `%r2`
/// a `.b32` pass, `{%f1, %f2}` and `{%hx1, %hx2}` are "Arguments mismatch").
fn typed_vector(b: &Builder, items: &[Operand]) -> bool {
    !items.iter().any(|o| {
        b.declared_reg(o).is_some_and(|(_, _, t)| {
            matches!(
                t,
                ast::ScalarType::B8
                    | ast::ScalarType::B16
                    | ast::ScalarType::B32
                    | ast::ScalarType::B64
                    | ast::ScalarType::B128
            )
        })
    })
}

/// Coordinates: [array index as i32], `dims` values of `cty`; the elements of the vector past
/// them are ignored (the padding element of a `.3d` or `.a2d` four-element vector, PTX ISA
/// §9.7.10.3). As ptxas 13.5 takes them, a vector has 1, 2 or 4 elements, at least the
/// geometry's (`tex.1d.v4.f32.s32 d, [t, {%r1, %r2}]`, `suld.b.2d.b32 d, [s, {x, y, z, w}]`
/// assemble; "Illegal vector size: 3" on `tex.3d … [t, {x, y, z}]`, "Operand vector size
/// doesn't match geometry" on `tex.2d … [t, {x}]`). Surface coordinates (`surface`) are `.s32`
/// and, as ptxas 12.9 checks them, take no `.f16x2`/`.bf16x2` register either.
fn coords(
    b: &mut Builder,
    cx: &Cx,
    g: TexGeom,
    items: &[Operand],
    cty: Type,
    surface: bool,
) -> Result<Vec<Var>, LowerError> {
    let n = g.dims() as usize + g.arrayed() as usize;
    let want = match n {
        1 => 1,
        2 => 2,
        _ => 4,
    };
    if !matches!(items.len(), 1 | 2 | 4) || items.len() < n {
        let sizes = if items.len() == 3 {
            " (a vector has 1, 2 or 4 elements)"
        } else {
            ""
        };
        return Err(cx.bad(&format!(
            "the {g} geometry takes {want} coordinates, found {}{sizes}",
            items.len()
        )));
    }
    let typed = typed_vector(b, items);
    let mut out = vec![];
    for (k, o) in items.iter().take(n).enumerate() {
        let ty = if k == 0 && g.arrayed() {
            Type::I32
        } else {
            cty
        };
        let ptx = if k == 0 && g.arrayed() {
            ast::ScalarType::U32
        } else if ty == Type::I32 {
            ast::ScalarType::S32
        } else {
            ast::ScalarType::F32
        };
        if typed {
            b.check_texel_kind(cx, o, ptx)?;
            if surface {
                b.check_surface_coordinate(cx, o)?;
            }
        } else if let Some((name, _, t)) = b.declared_reg(o).filter(|(_, _, t)| t.size() != 4) {
            // ptxas 12.9: "Incompatible elements of vector expression".
            return Err(LowerError::new(
                name.span,
                format!(
                    "coordinate '{}' of '{}' is a .{} register in a vector of 32-bit \
                     coordinates",
                    name.name,
                    cx.ptx,
                    super::ty_name(t)
                ),
            ));
        }
        out.push(b.src_rel(cx, o, ty, Some(Sign::Unsigned))?);
    }
    Ok(out)
}

/// Coordinates of the multisample geometries (PTX ISA §9.7.10.3), all `.s32`: `.2dms`
/// `{sample, x, y, _}`; `.a2dms` `{index, sample, x, y}` (the ISA's example order; its prose
/// names the sample first, see docs/isa-notes.md). Returns [array index], sample, x, y.
fn ms_coords(
    b: &mut Builder,
    cx: &Cx,
    g: TexGeom,
    items: &[Operand],
) -> Result<Vec<Var>, LowerError> {
    if items.len() != 4 {
        return Err(cx.bad(&format!(
            "the {g} geometry takes a four-element coordinate vector, found {}",
            items.len()
        )));
    }
    let n = if g.arrayed() { 4 } else { 3 };
    let mut out = vec![];
    for o in items.iter().take(n) {
        b.check_texel_kind(cx, o, ast::ScalarType::S32)?;
        out.push(b.src_rel(cx, o, Type::I32, Some(Sign::Unsigned))?);
    }
    Ok(out)
}

/// The destination type modifier of `tex`/`tld4` (PTX ISA §9.7.10.3 `.dtype = { .u32, .s32,
/// .f16, .f32 }`, plus `.f16x2`; §9.7.10.4 `tld4` has no `.f16`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum DType {
    /// `.u32`, `.s32`, `.f32`: four 32-bit results of that IR type.
    Plain,
    /// `.f16`: four `.f16`/`.b16` results (IR i16 holding f16 bits).
    F16,
    /// `.f16x2`: two 32-bit results of packed f16 pairs.
    F16x2,
}

/// The two type modifiers of `tex`/`tld4`: (destination, coordinate) IR types, the
/// destinations' signedness and the destination kind.
fn tex_types(cx: &Cx) -> Result<(Type, Type, Sign, DType), LowerError> {
    let tys: Vec<ast::ScalarType> = cx
        .mods
        .iter()
        .filter_map(|m| ast::ScalarType::from_suffix(m))
        .collect();
    let [d, c] = tys.as_slice() else {
        return Err(cx.bad("expects a destination and a coordinate type (.v4.f32.f32)"));
    };
    let conv = |t: &ast::ScalarType| ir_ty(*t);
    let (ct, _, _) = conv(c).ok_or_else(|| cx.unsupported("coordinate type"))?;
    if ct != Type::F32 && ct != Type::I32 {
        return Err(cx.bad("coordinates are .f32 or .s32"));
    }
    match d {
        ast::ScalarType::F16x2 => return Ok((Type::I32, ct, Sign::Unsigned, DType::F16x2)),
        ast::ScalarType::F16 => return Ok((Type::I16, ct, Sign::Unsigned, DType::F16)),
        _ => {}
    }
    let (dt, ds, _) = conv(d).ok_or_else(|| cx.bad("destination type"))?;
    if dt != Type::F32 && dt != Type::I32 {
        return Err(cx.bad(
            "the destination type is .u32, .s32, .f16 or .f32 (.v2.f16x2 for packed pairs; PTX \
             ISA §9.7.10.3)",
        ));
    }
    Ok((dt, ct, ds, DType::Plain))
}

/// Checks the destination registers of `tex`/`tld4` (operand `o`, a vector with or without
/// the residency predicate) against the destination type, the first of the instruction's two
/// type modifiers ([`Builder::check_texel_kind`]).
fn check_dest_kinds(b: &Builder, cx: &Cx, o: &Operand) -> R {
    let Some(t) = cx.mods.iter().find_map(|m| ast::ScalarType::from_suffix(m)) else {
        return Ok(());
    };
    let items = match o {
        Operand::Vector(items, _) | Operand::VecPred(items, _, _) => items.as_slice(),
        other => std::slice::from_ref(other),
    };
    for d in items {
        b.check_texel_kind(cx, d, t)?;
    }
    Ok(())
}

/// Write the results to destination operand `o`: a vector, or a vector with the residency
/// predicate (`d|p`, PTX ISA §9.7.10.3), which is set to true (every texture is resident).
fn write_dests(b: &mut Builder, cx: &mut Cx, o: &Operand, res: &[Var], ty: Type, sign: Sign) -> R {
    let (vec, pred) = match o {
        Operand::VecPred(items, p, span) => (Operand::Vector(items.clone(), *span), Some(p)),
        other => (other.clone(), None),
    };
    let ds = dests(cx, &vec, res.len())?;
    for (d, &r) in ds.iter().zip(res) {
        if let Some(t) = b.dst_rel(cx, d, ty, Some(sign))? {
            b.copy(t, r, cx.loc, &cx.ptx);
        }
    }
    if let Some(p) = pred {
        let reg = Operand::Reg {
            name: p.clone(),
            component: None,
        };
        if let Some(t) = b.dst_rel(cx, &reg, Type::Pred, None)? {
            let one = b.konst(cx, Type::Pred, 1);
            b.copy(t, one, cx.loc, &cx.ptx);
        }
    }
    Ok(())
}

/// The optional trailing operands of `tex`/`tld4` from operand `first` on: a texel-offset
/// vector `{e}` (it is always braced), then a depth-compare value `f`.
fn extras(cx: &Cx, first: usize) -> Result<(Option<Vec<Operand>>, Option<Operand>), LowerError> {
    let ops = &cx.inst.operands;
    if ops.len() > first + 2 {
        return Err(cx.bad(&format!(
            "expects at most {} operands (an offset vector and a depth-compare value after the \
             coordinates), found {}",
            first + 2,
            ops.len()
        )));
    }
    let mut offset = None;
    let mut compare = None;
    for o in ops.iter().skip(first) {
        match o {
            Operand::Vector(items, _) if offset.is_none() && compare.is_none() => {
                offset = Some(items.clone())
            }
            Operand::Vector(..) => {
                return Err(cx.bad("the offset vector comes before the depth-compare value"))
            }
            other if compare.is_none() => compare = Some(other.clone()),
            _ => return Err(cx.bad("more than one depth-compare value")),
        }
    }
    Ok((offset, compare))
}

/// The texel offsets (PTX ISA §9.7.10.3 operand `e`): `n` `.s32` values (a 3D offset is a
/// four-element vector whose last element is ignored); immediates must lie in -8..=7.
fn offsets(b: &mut Builder, cx: &Cx, items: &[Operand], n: usize) -> Result<Vec<Var>, LowerError> {
    let want = if n == 3 { 4 } else { n };
    if items.len() != want && items.len() != n {
        return Err(cx.bad(&format!(
            "the offset vector has {want} elements here, found {}",
            items.len()
        )));
    }
    let mut out = vec![];
    for o in items.iter().take(n) {
        if let Operand::Imm(ast::Literal::Int { value, .. }, span) = o {
            if !(-8..=7).contains(value) {
                return Err(LowerError::new(
                    *span,
                    format!(
                        "texel offset {value} in '{}' is outside -8..=7 (PTX ISA §9.7.10.3)",
                        cx.ptx
                    ),
                ));
            }
        }
        b.check_texel_kind(cx, o, ast::ScalarType::S32)?;
        out.push(b.src_rel(cx, o, Type::I32, Some(Sign::Signed))?);
    }
    Ok(out)
}

/// `tex{.level,.grad}.geom.v4.dtype.ctype d{|p}, [a, {b,} c] {, lod | , dPdx, dPdy} {, e}
/// {, f}` and `tex….geom.v2.f16x2.ctype` (PTX ISA §9.7.10.3).
pub(super) fn tex(b: &mut Builder, cx: &mut Cx) -> R {
    // `tex{.base,.level,.grad}.geom…` (PTX ISA §9.7.10.3): the mode word comes right after the
    // opcode; ptxas 13.5 reads it nowhere else ("Unknown modifier '.level'" on
    // `tex.2d.level.v4.f32.f32`, "Unknown modifier '.base'" on `tex.uni.base.2d…`).
    if let Some((k, m)) = cx
        .mods
        .iter()
        .enumerate()
        .find(|(_, m)| matches!(**m, "base" | "level" | "grad"))
    {
        if k != 0 {
            return Err(cx.bad(&format!(
                "'.{m}' must directly follow 'tex' (tex.{m}.geom…)"
            )));
        }
    }
    let g = geom(cx)?;
    let f16x2 = cx.has("f16x2");
    if f16x2 != cx.has("v2") {
        return Err(cx.bad(".f16x2 results take .v2, other results .v4"));
    }
    let lod = if cx.has("level") {
        TexLod::Level
    } else if cx.has("grad") {
        TexLod::Grad
    } else {
        TexLod::Base
    };
    let extra = match lod {
        TexLod::Base => 0,
        TexLod::Level => 1,
        TexLod::Grad => 2,
    };
    if cx.inst.operands.len() < 2 + extra {
        cx.expect_operands(2 + extra)?;
    }
    let (off, cmp) = extras(cx, 2 + extra)?;
    let (dt, ct, sign, kind) = tex_types(cx)?;
    let cube = matches!(g, TexGeom::Cube | TexGeom::ACube);
    if off.is_some() && cube {
        return Err(cx.bad("cube maps take no offset vector"));
    }
    if cube && ct != Type::F32 {
        // ptxas: "Floating-point coordinates required" (a direction vector).
        return Err(cx.bad("cube maps take .f32 coordinates (a direction)"));
    }
    if cmp.is_some() && (g == TexGeom::D3 || g.multisample()) {
        return Err(cx.bad(&format!("{g} textures take no depth-compare value")));
    }
    if cmp.is_some() && ct != Type::F32 {
        return Err(cx.bad("with a depth-compare value the coordinates are .f32"));
    }
    if g.multisample() && (ct != Type::I32 || lod != TexLod::Base) {
        return Err(cx.bad(
            "multisample textures take .s32 coordinates and no .level or .grad (PTX ISA \
             §9.7.10.3)",
        ));
    }
    let br = cx.opnd(1)?.clone();
    let (h, s, c) = bracket(cx, &br)?;
    let mut args = vec![handle(b, cx, &h)?];
    if let Some(s) = &s {
        args.push(handle(b, cx, s)?);
    }
    if g.multisample() {
        args.extend(ms_coords(b, cx, g, &c)?);
    } else {
        args.extend(coords(b, cx, g, &c, ct, false)?);
    }
    match lod {
        TexLod::Base => {}
        // The level of detail has the coordinates' type (ptxas 12.9: an `.s32` register for
        // `.f32` coordinates, or an `.f32` one for `.s32` coordinates, is "Arguments
        // mismatch"): a fractional level for `.f32`, a level index for `.s32`.
        TexLod::Level if ct == Type::I32 => {
            let o = cx.opnd(2)?.clone();
            b.check_texel_kind(cx, &o, ast::ScalarType::S32)?;
            args.push(b.src_rel(cx, &o, Type::I32, Some(Sign::Signed))?);
        }
        TexLod::Level => args.push(b.src(cx, 2, Type::F32)?),
        TexLod::Grad => {
            let n = g.dims() as usize;
            for k in [2, 3] {
                let o = cx.opnd(k)?.clone();
                let items = match &o {
                    Operand::Vector(e, _) => e.clone(),
                    other => vec![other.clone()],
                };
                if items.len() < n {
                    return Err(cx.bad("gradient vectors need one value per dimension"));
                }
                for it in items.iter().take(n) {
                    args.push(b.src_rel(cx, it, Type::F32, None)?);
                }
            }
        }
    }
    if let Some(items) = &off {
        args.extend(offsets(b, cx, items, g.dims() as usize)?);
    }
    if let Some(f) = &cmp {
        args.push(b.src_rel(cx, f, Type::F32, None)?);
    }
    let opts = TexOpts {
        offset: off.is_some(),
        compare: cmp.is_some(),
        f16x2: kind == DType::F16x2,
        f16: kind == DType::F16,
    };
    let nres = if f16x2 { 2 } else { 4 };
    let res: Vec<Var> = (0..nres).map(|_| b.new_var(dt)).collect();
    b.emit(
        Op::Tex {
            geom: g,
            lod,
            int_coords: ct == Type::I32,
            sampler: s.is_some(),
            opts,
        },
        args,
        res.clone(),
        cx.loc,
        &cx.ptx,
    );
    let d = cx.opnd(0)?.clone();
    check_dest_kinds(b, cx, &d)?;
    write_dests(b, cx, &d, &res, dt, sign)
}

/// `tld4.comp.geom.v4.dtype.f32 d{|p}, [a, {b,} c] {, e} {, f}` (PTX ISA §9.7.10.4):
/// `.geom = { .2d, .a2d, .cube, .acube }`, `.dtype = { .u32, .s32, .f32 }`. Cube maps take
/// `{x, y, z, _}`, cube arrays `{index, x, y, z}`, and no offset vector.
pub(super) fn tld4(b: &mut Builder, cx: &mut Cx) -> R {
    let g = geom(cx)?;
    if !matches!(
        g,
        TexGeom::D2 | TexGeom::A2d | TexGeom::Cube | TexGeom::ACube
    ) {
        return Err(cx.bad(&format!(
            "tld4 has no {g} geometry (.2d, .a2d, .cube, .acube; PTX ISA §9.7.10.4)"
        )));
    }
    if cx.inst.operands.len() < 2 {
        cx.expect_operands(2)?;
    }
    let (off, cmp) = extras(cx, 2)?;
    let comp = ["r", "g", "b", "a"]
        .iter()
        .position(|c| cx.has(c))
        .ok_or_else(|| cx.bad("missing component (.r, .g, .b, .a)"))? as u8;
    let (dt, ct, sign, kind) = tex_types(cx)?;
    if kind != DType::Plain {
        return Err(cx.bad(
            "tld4 results are .v4.u32, .v4.s32 or .v4.f32 (PTX ISA §9.7.10.4 has no .f16 or \
             .f16x2 form)",
        ));
    }
    if ct != Type::F32 {
        return Err(cx.bad("tld4 coordinates are .f32"));
    }
    if off.is_some() && matches!(g, TexGeom::Cube | TexGeom::ACube) {
        return Err(cx.bad("cube maps take no offset vector (PTX ISA §9.7.10.4)"));
    }
    let br = cx.opnd(1)?.clone();
    let (h, s, c) = bracket(cx, &br)?;
    let mut args = vec![handle(b, cx, &h)?];
    if let Some(s) = &s {
        args.push(handle(b, cx, s)?);
    }
    args.extend(coords(b, cx, g, &c, Type::F32, false)?);
    if let Some(items) = &off {
        args.extend(offsets(b, cx, items, 2)?);
    }
    if let Some(f) = &cmp {
        args.push(b.src_rel(cx, f, Type::F32, None)?);
    }
    let opts = TexOpts {
        offset: off.is_some(),
        compare: cmp.is_some(),
        f16x2: false,
        f16: false,
    };
    let res: Vec<Var> = (0..4).map(|_| b.new_var(dt)).collect();
    b.emit(
        Op::Tld4 {
            comp,
            geom: g,
            sampler: s.is_some(),
            opts,
        },
        args,
        res.clone(),
        cx.loc,
        &cx.ptx,
    );
    let d = cx.opnd(0)?.clone();
    check_dest_kinds(b, cx, &d)?;
    write_dests(b, cx, &d, &res, dt, sign)
}

/// The attribute modifier of `txq`/`suq`.
fn attr(cx: &Cx) -> Result<TexAttr, LowerError> {
    cx.mods
        .iter()
        .find_map(|m| TexAttr::from_suffix(m))
        .ok_or_else(|| cx.bad("missing query attribute (.width, .height, ...)"))
}

/// `txq.attr.b32 d, [a]`, `txq.level.attr.b32 d, [a], lod` (PTX ISA §9.7.10.5).
pub(super) fn txq(b: &mut Builder, cx: &mut Cx) -> R {
    let level = cx.has("level");
    cx.expect_operands(if level { 3 } else { 2 })?;
    let a = attr(cx)?;
    let br = cx.opnd(1)?.clone();
    let (h, s, c) = bracket(cx, &br)?;
    if s.is_some() || !c.is_empty() {
        return Err(cx.bad("txq takes [texture] or [sampler]"));
    }
    let mut args = vec![handle(b, cx, &h)?];
    if level {
        args.push(b.src(cx, 2, Type::I32)?);
    }
    b.unary_to_dst(cx, Op::Txq { attr: a, level }, args, Type::I32)
}

/// `suq.attr.b32 d, [a]` (PTX ISA §9.7.11.4).
pub(super) fn suq(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let a = attr(cx)?;
    let br = cx.opnd(1)?.clone();
    let (h, s, c) = bracket(cx, &br)?;
    if s.is_some() || !c.is_empty() {
        return Err(cx.bad("suq takes [surface]"));
    }
    let args = vec![handle(b, cx, &h)?];
    b.unary_to_dst(cx, Op::Suq { attr: a }, args, Type::I32)
}

/// `istypep.type p, a` (PTX ISA §9.7.10.6).
pub(super) fn istypep(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let kind = if cx.has("texref") {
        HandleKind::Texture
    } else if cx.has("samplerref") {
        HandleKind::Sampler
    } else if cx.has("surfref") {
        HandleKind::Surface
    } else {
        return Err(cx.bad("missing .texref, .samplerref or .surfref"));
    };
    let o = cx.opnd(1)?.clone();
    let h = handle(b, cx, &o)?;
    b.unary_to_dst(cx, Op::Istypep { kind }, vec![h], Type::Pred)
}

/// Out-of-range mode (default `.trap`).
/// The `.clamp` mode of `suld`/`sust`/`sured` (PTX ISA §9.7.11.1-3), and the words' order as
/// ptxas 13.5 checks them: `.b`/`.p` right after the opcode ("Not a name of any known
/// instruction: 'suld'" on `suld.trap.b.2d.b32`), and exactly one mode ("Clamp modifier
/// required for instruction 'suld.b'", "Multiple clamp modifiers specified").
fn clamp_mode(cx: &Cx) -> Result<SurfClamp, LowerError> {
    let op = cx.inst.opcode.name.as_str();
    if !matches!(cx.mods.first(), Some(&"b") | Some(&"p")) {
        return Err(cx.bad(&format!("'{op}' needs .b or .p as its first modifier")));
    }
    let modes: Vec<&str> = cx
        .mods
        .iter()
        .copied()
        .filter(|m| matches!(*m, "trap" | "clamp" | "zero"))
        .collect();
    match modes[..] {
        ["clamp"] => Ok(SurfClamp::Clamp),
        ["zero"] => Ok(SurfClamp::Zero),
        ["trap"] => Ok(SurfClamp::Trap),
        [] => Err(cx.bad(&format!(
            "'{op}' needs a clamp mode (.trap, .clamp or .zero)"
        ))),
        [..] => Err(cx.bad("multiple clamp modifiers")),
    }
}

/// `.b` or `.p`, geometry, vector width and element type of a surface instruction.
fn surf_shape(cx: &Cx) -> Result<(bool, TexGeom, u8, Type, Sign), LowerError> {
    let formatted = cx.has("p");
    if !formatted && !cx.has("b") {
        return Err(cx.bad("missing .b or .p"));
    }
    let g = geom(cx)?;
    if matches!(
        g,
        TexGeom::Cube | TexGeom::ACube | TexGeom::D2ms | TexGeom::A2dms
    ) {
        return Err(cx.bad(&format!("surfaces have no {g} geometry")));
    }
    let vec = if cx.has("v4") {
        4
    } else if cx.has("v2") {
        2
    } else {
        1
    };
    let t = cx.ty()?;
    let (ty, sign, _) = ir_ty(t).ok_or_else(|| cx.unsupported("element type"))?;
    if ty == Type::Pred || ty == Type::F64 {
        return Err(cx.bad("surface elements are .b8/.b16/.b32/.b64 (or .f32 for .p)"));
    }
    if formatted && ty.bits() != 32 {
        return Err(cx.bad(".p accesses use 32-bit elements (.b32, .u32, .s32, .f32)"));
    }
    Ok((formatted, g, vec, ty, sign))
}

/// Surface coordinates: [array index], x, y, z as i32 (4-vectors padded).
fn surf_coords(
    b: &mut Builder,
    cx: &Cx,
    g: TexGeom,
    c: &[Operand],
) -> Result<Vec<Var>, LowerError> {
    coords(b, cx, g, c, Type::I32, true)
}

/// `suld.b.geom{.v2,.v4}.dtype.clamp d, [a, b]` (PTX ISA §9.7.11.1).
pub(super) fn suld(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let (formatted, g, vec, ty, sign) = surf_shape(cx)?;
    let clamp = clamp_mode(cx)?;
    let br = cx.opnd(1)?.clone();
    let (h, s, c) = bracket(cx, &br)?;
    if s.is_some() {
        return Err(cx.bad("surfaces take [surface, {coordinates}]"));
    }
    let mut args = vec![handle(b, cx, &h)?];
    args.extend(surf_coords(b, cx, g, &c)?);
    let res: Vec<Var> = (0..vec).map(|_| b.new_var(ty)).collect();
    b.emit(
        Op::Suld {
            geom: g,
            clamp,
            formatted,
            vec,
        },
        args,
        res.clone(),
        cx.loc,
        &cx.ptx,
    );
    let d = cx.opnd(0)?.clone();
    if let Operand::VecPred(_, p, _) = &d {
        return Err(LowerError::new(
            p.span,
            format!("'{}' has no residency predicate", cx.ptx),
        ));
    }
    write_dests(b, cx, &d, &res, ty, sign)
}

/// `sust.b.geom{.v2,.v4}.ctype.clamp [a, b], c` (PTX ISA §9.7.11.2).
pub(super) fn sust(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let (formatted, g, vec, ty, _) = surf_shape(cx)?;
    let clamp = clamp_mode(cx)?;
    let br = cx.opnd(0)?.clone();
    let (h, s, c) = bracket(cx, &br)?;
    if s.is_some() {
        return Err(cx.bad("surfaces take [surface, {coordinates}]"));
    }
    let mut args = vec![handle(b, cx, &h)?];
    args.extend(surf_coords(b, cx, g, &c)?);
    let v = cx.opnd(1)?.clone();
    let vals = match &v {
        Operand::Vector(e, _) => e.clone(),
        other => vec![other.clone()],
    };
    if vals.len() != vec as usize {
        return Err(cx.bad("vector width and value list disagree"));
    }
    for o in &vals {
        args.push(b.src_rel(cx, o, ty, Some(Sign::Unsigned))?);
    }
    b.emit(
        Op::Sust {
            geom: g,
            clamp,
            formatted,
            vec,
        },
        args,
        vec![],
        cx.loc,
        &cx.ptx,
    );
    Ok(())
}

/// `sured.b.op.geom.ctype.clamp [a, b], c` (PTX ISA §9.7.11.3).
pub(super) fn sured(b: &mut Builder, cx: &mut Cx) -> R {
    cx.expect_operands(2)?;
    let formatted = cx.has("p");
    let g = geom(cx)?;
    let clamp = clamp_mode(cx)?;
    let t = cx.ty()?;
    let (ty, sign, _) = ir_ty(t).ok_or_else(|| cx.unsupported("element type"))?;
    let op = if cx.has("add") {
        AtomOp::Add
    } else if cx.has("min") {
        AtomOp::Min(sign)
    } else if cx.has("max") {
        AtomOp::Max(sign)
    } else if cx.has("and") {
        AtomOp::And
    } else if cx.has("or") {
        AtomOp::Or
    } else {
        return Err(cx.bad("missing reduction (.add, .min, .max, .and, .or)"));
    };
    if !matches!(ty, Type::I32 | Type::I64) {
        return Err(cx.bad("sured elements are .u32, .s32, .b32, .u64, .s64 or .b64"));
    }
    // `sured.p` takes `.b32` (every operation) and `.b64` (`.min`/`.max` only; PTX ISA
    // §9.7.11.3), as ptxas 13.5 checks it; the surface's format gives the signedness at run
    // time.
    if formatted {
        use ast::ScalarType::{B32, B64};
        if !matches!(t, B32 | B64) {
            return Err(cx.bad("sured.p elements are .b32 or .b64"));
        }
        if t == B64 && !matches!(op, AtomOp::Min(_) | AtomOp::Max(_)) {
            return Err(cx.bad("sured.p on .b64 is .min or .max"));
        }
    }
    let br = cx.opnd(0)?.clone();
    let (h, s, c) = bracket(cx, &br)?;
    if s.is_some() {
        return Err(cx.bad("surfaces take [surface, {coordinates}]"));
    }
    let mut args = vec![handle(b, cx, &h)?];
    args.extend(surf_coords(b, cx, g, &c)?);
    args.push(b.src(cx, 1, ty)?);
    b.emit(
        Op::Sured {
            op,
            geom: g,
            clamp,
            formatted,
        },
        args,
        vec![],
        cx.loc,
        &cx.ptx,
    );
    Ok(())
}
