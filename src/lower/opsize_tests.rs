//! The operand-size rules of `ld`, `st` and `cvt` (`lower::opsize`, PTX ISA §9.4.1) against
//! ptxas 12.9 (`ptxas -arch=sm_80`): the whole table ptxas gives, and forms lowered end to
//! end, accepted or rejected as ptxas does.

use super::opsize::{general_ok, ptx_ty, relaxed_dst, relaxed_src, Fit};
use crate::host::{front_end, Error};
use crate::ptx::ast::ScalarType;

/// ptxas 12.9's verdict for every instruction type (rows) and register type (columns):
/// `ld.global.T %reg, [a]` for the rows b8…f64 (`st.global.T [a], %reg`, `cvt` sources and
/// `cvt` destinations give the same verdict for every row they share), and a `cvt` with an
/// `.f16` source for the last row. Produced by assembling one instruction per cell.
const PTXAS: [&str; 15] = [
    "b8     ok    ok    ok    ok    ok    ok    ok    ok    ok    ok    ok    ok    ok    ok    ok    ok",
    "b16     -    ok    ok    ok     -    ok    ok    ok     -    ok    ok    ok    ok    ok    ok    ok",
    "b32     -     -    ok    ok     -     -    ok    ok     -     -    ok    ok     -    ok    ok    ok",
    "b64     -     -     -    ok     -     -     -    ok     -     -     -    ok     -     -    ok     -",
    "u8     ok    ok    ok    ok    ok    ok    ok    ok    ok    ok    ok    ok     -     -     -    ok",
    "u16     -    ok    ok    ok     -    ok    ok    ok     -    ok    ok    ok     -     -     -    ok",
    "u32     -     -    ok    ok     -     -    ok    ok     -     -    ok    ok     -     -     -    ok",
    "u64     -     -     -    ok     -     -     -    ok     -     -     -    ok     -     -     -     -",
    "s8     ok    ok    ok    ok    ok    ok    ok    ok    ok    ok    ok    ok     -     -     -    ok",
    "s16     -    ok    ok    ok     -    ok    ok    ok     -    ok    ok    ok     -     -     -    ok",
    "s32     -     -    ok    ok     -     -    ok    ok     -     -    ok    ok     -     -     -    ok",
    "s64     -     -     -    ok     -     -     -    ok     -     -     -    ok     -     -     -     -",
    "f32     -     -    ok    ok     -     -     -     -     -     -     -     -     -    ok     -     -",
    "f64     -     -     -    ok     -     -     -     -     -     -     -     -     -     -    ok     -",
    "f16     -    ok    ok    ok     -     -     -     -     -     -     -     -    ok     -     -     -",
];

/// The register types of `PTXAS`'s columns.
const COLUMNS: &str = "b8 b16 b32 b64 u8 u16 u32 u64 s8 s16 s32 s64 f16 f32 f64 f16x2";

fn ty(name: &str) -> ScalarType {
    ScalarType::from_suffix(name).unwrap_or_else(|| panic!("type .{name}"))
}

/// The cells of a ptxas-verdict table (rows of an instruction type and one verdict per
/// register type of `COLUMNS`): (instruction type, register type, accepted).
fn cells(table: &[&str]) -> Vec<(ScalarType, ScalarType, bool)> {
    let cols: Vec<ScalarType> = COLUMNS.split_whitespace().map(ty).collect();
    let mut out = vec![];
    for row in table {
        let mut words = row.split_whitespace();
        let inst = ty(words.next().expect("a row name"));
        let verdicts: Vec<&str> = words.collect();
        assert_eq!(verdicts.len(), cols.len(), "{row}");
        for (&reg, v) in cols.iter().zip(verdicts) {
            out.push((inst, reg, v == "ok"));
        }
    }
    out
}

#[test]
fn rules_match_ptxas_for_every_pair() {
    for (inst, reg, want) in cells(&PTXAS) {
        let (i, r) = (ptx_ty(inst).expect("sized"), ptx_ty(reg).expect("sized"));
        assert_eq!(relaxed_src(i, r).is_some(), want, "source {inst:?} {reg:?}");
        assert_eq!(
            relaxed_dst(i, r).is_some(),
            want,
            "destination {inst:?} {reg:?}"
        );
    }
}

/// The ISA's extension rule: wider destinations are sign-extended for `.sX` types and
/// zero-extended otherwise; wider sources are chopped.
#[test]
fn wider_registers_extend_or_chop_as_the_isa_says() {
    let t = |s| ptx_ty(ty(s)).expect("sized");
    assert_eq!(relaxed_dst(t("s8"), t("b32")), Some(Fit::Sext));
    assert_eq!(relaxed_dst(t("s16"), t("u64")), Some(Fit::Sext));
    assert_eq!(relaxed_dst(t("u8"), t("s32")), Some(Fit::Zext));
    assert_eq!(relaxed_dst(t("b16"), t("f32")), Some(Fit::Zext));
    assert_eq!(relaxed_dst(t("f32"), t("b64")), Some(Fit::Zext));
    assert_eq!(relaxed_dst(t("u32"), t("s32")), Some(Fit::Exact));
    assert_eq!(relaxed_src(t("b8"), t("f32")), Some(Fit::Chop));
    assert_eq!(relaxed_src(t("s8"), t("s64")), Some(Fit::Chop));
    assert_eq!(relaxed_src(t("f32"), t("b32")), Some(Fit::Exact));
}

/// Lowers `inst` in a kernel with one register of each type, named by it (`%b8` … `%f64`,
/// `%f16x2`), `%rd` holding an address and a predicate `%p`. The module targets sm_90, which
/// the `.bf16` conversions from and to integers need (ptxas 12.9: "Feature 'cvt with
/// .s32.bf16' requires .target sm_90 or higher"); the sm_80 verdicts below hold there too.
fn load(inst: &str) -> Result<(), Error> {
    let regs: String = COLUMNS
        .split_whitespace()
        .map(|t| format!(".reg .{t} %{t};\n"))
        .collect();
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .entry k(.param .u64 p)\n{{\n.reg .b64 %rd;\n.reg .pred %p;\n{regs}\
         ld.param.u64 %rd, [p];\n{inst};\nret;\n}}\n"
    );
    front_end(&ptx, "k.ptx").map(|_| ())
}

/// Asserts ptxas's verdicts: every instruction of `accepted` loads, and every `(instruction,
/// register)` of `rejected` is an invalid-PTX error that names the register (quoted), gives
/// its line:col and says `why` (the rule's section, or the words of the error).
fn assert_verdicts(accepted: &[&str], rejected: &[(&str, &str)], why: &str) {
    for inst in accepted {
        load(inst).unwrap_or_else(|e| panic!("{inst}: {e}"));
    }
    for (inst, reg) in rejected {
        match load(inst) {
            Err(Error::Invalid(m)) => assert!(
                m.contains(&format!("'{reg}'")) && m.contains(why) && m.contains("k.ptx:"),
                "{inst}: {m}"
            ),
            other => panic!("{inst}: {other:?}"),
        }
    }
}

/// Forms lowered end to end, with ptxas 12.9's verdict in the comment.
#[test]
fn forms_load_or_fail_as_with_ptxas() {
    assert_verdicts(
        &[
            "ld.global.f32 %b64, [%rd]",           // ptxas: accepted
            "ld.global.b16 %f32, [%rd]",           // ptxas: accepted
            "st.global.b8 [%rd], %f32",            // ptxas: accepted
            "ld.global.s8 %u64, [%rd]",            // ptxas: accepted
            "ld.global.u8 %s32, [%rd]",            // ptxas: accepted
            "ld.global.b8 %f16, [%rd]",            // ptxas: accepted
            "ld.global.u32 %f16x2, [%rd]",         // ptxas: accepted
            "st.global.u16 [%rd], %b64",           // ptxas: accepted
            "st.global.f64 [%rd], %b64",           // ptxas: accepted
            "ld.global.v2.u8 {%b32, %u32}, [%rd]", // ptxas: accepted
            "st.global.v2.b8 [%rd], {%f32, %f32}", // ptxas: accepted
            "cvt.s64.s8 %s64, %b32",               // ptxas: accepted
            "cvt.u16.u8 %u64, %u32",               // ptxas: accepted
            "cvt.f32.f16 %f32, %b32",              // ptxas: accepted
            "cvt.rn.f16.f32 %b64, %f32",           // ptxas: accepted
            "cvt.rzi.s16.f32 %s32, %f32",          // ptxas: accepted
            "cvt.f32.bf16 %f32, %b16",             // ptxas (sm_90): accepted
            "cvt.rn.bf16.f32 %b16, %f32",          // ptxas (sm_90): accepted
        ],
        &[
            ("st.global.f32 [%rd], %u64", "%u64"), // ptxas: Arguments mismatch for instruction 'st'
            ("ld.global.u32 %b16, [%rd]", "%b16"), // ptxas: Arguments mismatch for instruction 'ld'
            ("ld.global.f32 %u32, [%rd]", "%u32"), // ptxas: Arguments mismatch for instruction 'ld'
            ("ld.global.f32 %f64, [%rd]", "%f64"), // ptxas: Arguments mismatch for instruction 'ld'
            ("ld.global.u8 %f32, [%rd]", "%f32"),  // ptxas: Arguments mismatch for instruction 'ld'
            ("st.global.s16 [%rd], %f32", "%f32"), // ptxas: Arguments mismatch for instruction 'st'
            ("st.global.b64 [%rd], %b32", "%b32"), // ptxas: Arguments mismatch for instruction 'st'
            ("ld.global.f32 %f16x2, [%rd]", "%f16x2"), // ptxas: Arguments mismatch for instruction 'ld'
            ("ld.global.v2.u16 {%b8, %b8}, [%rd]", "%b8"), // ptxas: Arguments mismatch for instruction 'ld'
            ("st.global.v2.s8 [%rd], {%f32, %f32}", "%f32"), // ptxas: Arguments mismatch for instruction 'st'
            ("cvt.u32.u16 %u16, %u16", "%u16"), // ptxas: Arguments mismatch for instruction 'cvt'
            ("cvt.f32.f16 %f32, %u16", "%u16"), // ptxas: Arguments mismatch for instruction 'cvt'
            ("cvt.rn.f32.s32 %b64, %f32", "%f32"), // ptxas: Arguments mismatch for instruction 'cvt'
            // ptxas (sm_90): Arguments mismatch for instruction 'cvt' (a .bf16 value takes a
            // .b16 register, no .f16 one and no wider .b one).
            ("cvt.f32.bf16 %f32, %f16", "%f16"),
            ("cvt.f32.bf16 %f32, %b32", "%b32"),
            ("cvt.rn.bf16.f32 %f16, %f32", "%f16"),
            ("cvt.rn.bf16.f32 %b32, %f32", "%b32"),
            ("cvt.rzi.s32.bf16 %s32, %f16", "%f16"),
        ],
        "§9.4.1",
    );
}

/// ptxas 12.9's verdict for `mov.T %reg, %src` and `mov.T %dst, %reg` (the same for both)
/// for every instruction type (rows) and register type (`COLUMNS`).
const PTXAS_MOV: [&str; 11] = [
    "b16     -    ok     -     -     -    ok     -     -     -    ok     -     -    ok     -     -     -",
    "b32     -     -    ok     -     -     -    ok     -     -     -    ok     -     -    ok     -    ok",
    "b64     -     -     -    ok     -     -     -    ok     -     -     -    ok     -     -    ok     -",
    "u16     -    ok     -     -     -    ok     -     -     -    ok     -     -     -     -     -     -",
    "u32     -     -    ok     -     -     -    ok     -     -     -    ok     -     -     -     -    ok",
    "u64     -     -     -    ok     -     -     -    ok     -     -     -    ok     -     -     -     -",
    "s16     -    ok     -     -     -    ok     -     -     -    ok     -     -     -     -     -     -",
    "s32     -     -    ok     -     -     -    ok     -     -     -    ok     -     -     -     -    ok",
    "s64     -     -     -    ok     -     -     -    ok     -     -     -    ok     -     -     -     -",
    "f32     -     -    ok     -     -     -     -     -     -     -     -     -     -    ok     -     -",
    "f64     -     -     -    ok     -     -     -     -     -     -     -     -     -     -    ok     -",
];

#[test]
fn the_general_rule_matches_ptxas_mov_for_every_pair() {
    for (inst, reg, want) in cells(&PTXAS_MOV) {
        let (i, r) = (ptx_ty(inst).expect("sized"), ptx_ty(reg).expect("sized"));
        assert_eq!(general_ok(i, r), want, "mov {inst:?} {reg:?}");
    }
}

/// `mov` forms lowered end to end, with ptxas 12.9's verdict in the comment.
#[test]
fn mov_forms_load_or_fail_as_with_ptxas() {
    assert_verdicts(
        &[
            "mov.b32 %f32, %u32",                    // ptxas: accepted
            "mov.u32 %s32, %b32",                    // ptxas: accepted
            "mov.f32 %b32, %f32",                    // ptxas: accepted
            "mov.b16 %f16, %s16",                    // ptxas: accepted
            "mov.s32 %f16x2, %u32",                  // ptxas: accepted
            "mov.v2.u32 {%u32, %s32}, {%b32, %b32}", // ptxas: accepted
            "mov.u32 %u32, 7",                       // ptxas: accepted
        ],
        &[
            ("mov.u32 %u32, %f32", "%f32"), // ptxas: Arguments mismatch for instruction 'mov'
            ("mov.f32 %s32, %f32", "%s32"), // ptxas: Arguments mismatch for instruction 'mov'
            ("mov.f32 %f32, %f16x2", "%f16x2"), // ptxas: Arguments mismatch for instruction 'mov'
            ("mov.s16 %s16, %f16", "%f16"), // ptxas: Arguments mismatch for instruction 'mov'
            ("mov.v2.f32 {%f32, %u32}, {%f32, %f32}", "%u32"), // ptxas: Vector with elements of different types are not allowed
        ],
        "§9.4",
    );
}

/// Register kinds in instructions other than `ld`/`st`/`cvt`/`mov` (PTX ISA §9.4: only `.b`
/// registers mix integer and floating-point kinds), with ptxas 13.5's verdict
/// (`ptxas -arch=sm_80`) in the comment.
#[test]
fn operand_kinds_load_or_fail_as_with_ptxas() {
    assert_verdicts(
        &[
            "add.f32 %f32, %f32, %b32",                   // ptxas: accepted
            "add.f32 %b32, %f32, %f32",                   // ptxas: accepted
            "add.s32 %s32, %s32, %u32",                   // ptxas: accepted
            "and.b32 %u32, %f32, %s32",                   // ptxas: accepted
            "add.u32 %u32, %u32, %f16x2",                 // ptxas: accepted
            "add.f16 %f16, %f16, %b16",                   // ptxas: accepted
            "add.rn.f16x2 %f16x2, %f16x2, %f16x2",        // ptxas: accepted
            "fma.rn.f16x2 %f16x2, %b32, %f16x2, %f16x2",  // ptxas: accepted
            "shfl.sync.idx.b32 %f32, %u32, %f32, 31, -1", // ptxas: accepted
            "atom.global.add.f32 %f32, [%u64], %f32",     // ptxas: accepted
            "red.global.add.noftz.f16x2 [%u64], %f16x2",  // ptxas: accepted
            "abs.s32 %s32, %f16x2",                       // ptxas: accepted
            "cvt.rn.f16x2.f32 %f16x2, %f32, %f32",        // ptxas: accepted
            "cvt.rn.bf16x2.f32 %b32, %f32, %f32",         // ptxas: accepted
        ],
        &[
            ("add.f32 %f32, %f32, %u32", "%u32"), // ptxas: Arguments mismatch for instruction 'add'
            ("add.f32 %s32, %f32, %f32", "%s32"), // ptxas: Arguments mismatch for instruction 'add'
            ("add.u32 %u32, %u32, %f32", "%f32"), // ptxas: Arguments mismatch for instruction 'add'
            ("mad.lo.s32 %s32, %s32, %f32, %s32", "%f32"), // ptxas: Arguments mismatch for instruction 'mad.lo'
            ("fma.rn.f64 %f64, %f64, %f64, %s64", "%s64"), // ptxas: Arguments mismatch for instruction 'fma'
            ("setp.lt.f32 %p, %f32, %s32", "%s32"), // ptxas: Arguments mismatch for instruction 'setp'
            ("setp.lt.u32 %p, %f32, %u32", "%f32"), // ptxas: Arguments mismatch for instruction 'setp'
            ("selp.f64 %f64, %f64, %u64, %p", "%u64"), // ptxas: Arguments mismatch for instruction 'selp'
            ("atom.global.add.f32 %f32, [%rd], %u32", "%u32"), // ptxas: Arguments mismatch for instruction 'atom'
            ("add.f32 %f32, %f32, %f16x2", "%f16x2"), // ptxas: Arguments mismatch for instruction 'add'
            ("add.f16 %f16, %f16, %u16", "%u16"), // ptxas: Arguments mismatch for instruction 'add'
            ("add.s16 %s16, %s16, %f16", "%f16"), // ptxas: Arguments mismatch for instruction 'add'
            ("add.rn.f16x2 %b32, %b32, %u32", "%u32"), // ptxas: Arguments mismatch for instruction 'add'
            ("red.global.add.noftz.f16 [%u64], %u16", "%u16"), // ptxas: Arguments mismatch for instruction 'red'
            ("redux.sync.min.u32 %u32, %u32, %f32", "%f32"), // ptxas: Arguments mismatch for instruction 'redux'
            ("cvt.rn.f16x2.f32 %f32, %f32, %f32", "%f32"), // ptxas: Arguments mismatch for instruction 'cvt'
            ("cvt.rn.bf16x2.f32 %f16x2, %f32, %f32", "%f16x2"), // ptxas: Arguments mismatch for instruction 'cvt'
            ("add.rn.f16x2 %f32, %f16x2, %f16x2", "%f32"), // ptxas: Arguments mismatch for instruction 'add'
            ("max.bf16x2 %b32, %f16x2, %b32", "%f16x2"), // ptxas: Arguments mismatch for instruction 'max'
            ("fma.rn.bf16 %f16, %b16, %b16, %b16", "%f16"), // ptxas: Arguments mismatch for instruction 'fma'
        ],
        "§9.4",
    );
}

/// Vector operands whose elements are of two classes (integer, floating-point, packed half;
/// `.b` registers mix with all), in any instruction, with ptxas 12.9's verdict
/// (`ptxas -arch=sm_80`) in the comment.
#[test]
fn vector_elements_of_two_kinds_fail_as_with_ptxas() {
    // ptxas: accepted
    assert_verdicts(
        &[
            "tex.1d.v4.f32.f32 {%f32, %f32, %f32, %b32}, [%rd, {%f32}]",
            "tex.1d.v4.u32.f32 {%u32, %s32, %b32, %u32}, [%rd, {%f32}]",
            "tex.2d.v4.f32.s32 {%f32, %f32, %f32, %f32}, [%rd, {%u32, %s32}]",
            "mov.b64 %b64, {%u32, %s32}",
            "mov.b64 %b64, {%b32, %f16x2}",
            "mov.b32 %b32, {%f16, %b16}",
            // the array index of an arrayed tex/tld4 is apart from the coordinates
            "tex.a1d.v4.f32.f32 {%f32, %f32, %f32, %f32}, [%rd, {%u32, %f32}]",
            "tld4.r.a2d.v4.f32.f32 {%f32, %f32, %f32, %f32}, [%rd, {%u32, %f32, %f32, %f32}]",
        ],
        &[
            // ptxas: Vector with elements of different types are not allowed in tex instruction
            (
                "tex.1d.v4.f32.f32 {%f32, %f32, %f32, %u32}, [%rd, {%f32}]",
                "%u32",
            ),
            // ptxas: the same
            (
                "tex.2d.v4.f32.f32 {%f32, %f32, %f32, %f32}, [%rd, {%f32, %s32}]",
                "%s32",
            ),
            // ptxas: the same
            (
                "tex.1d.v4.u32.f32 {%u32, %u32, %u32, %f16x2}, [%rd, {%f32}]",
                "%f16x2",
            ),
            // ptxas: the same in tld4
            (
                "tld4.r.2d.v4.f32.f32 {%f32, %f32, %f32, %u32}, [%rd, {%f32, %f32}]",
                "%u32",
            ),
            // ptxas: the same in mov
            ("mov.b32 %b32, {%f16, %s16}", "%s16"),
            // ptxas: the same in mov
            ("mov.b64 {%f16x2, %f32}, %b64", "%f32"),
            // ptxas: the same in sust.b
            ("sust.b.1d.v2.b32.trap [%rd, {%s32}], {%f32, %u32}", "%u32"),
            // ptxas: the same in ldmatrix
            (
                "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%u32, %f32}, [%rd]",
                "%f32",
            ),
        ],
        "mixes element types",
    );
}

/// Operands the PTX ISA types `.u32` whatever the instruction's type (shift amounts,
/// membermasks, barrier ids and thread counts, bit positions, the result of `popc`/`clz`),
/// with ptxas 12.9's verdict (`ptxas -arch=sm_80`, `elect` `-arch=sm_90`) in the comment: a
/// floating-point register there is "Arguments mismatch".
#[test]
fn u32_operands_take_no_floating_point_register() {
    assert_verdicts(
        &[
            // ptxas: accepted
            "shl.b32 %b32, %b32, %s32",
            "bar.sync %s32",
            "bar.warp.sync %s32",
            "popc.b32 %s32, %b32",
            "popc.b32 %u32, %f32",
            "clz.b64 %u32, %f64",
            "shfl.sync.idx.b32 %b32, %b32, 1, 31, %s32",
            // ptxas: accepted (the lane and clamp of shfl, the result of a ballot and the
            // mask of fns are not judged by kind)
            "shfl.sync.idx.b32 %b32, %b32, %f32, 31, -1",
            "vote.sync.ballot.b32 %f32, %p, -1",
            "fns.b32 %b32, %f32, 0, 1",
            "activemask.b32 %f32",
            "nanosleep.u32 %s32",
        ],
        &[
            // ptxas: Arguments mismatch for instruction 'shl' ('shr', 'shf.l', …)
            ("shl.b32 %b32, %b32, %f32", "%f32"),
            ("shl.b64 %b64, %b64, %f32", "%f32"),
            ("shl.b32 %b32, %b32, %f16x2", "%f16x2"),
            ("shf.l.wrap.b32 %b32, %b32, %b32, %f32", "%f32"),
            ("shfl.sync.idx.b32 %b32, %b32, 1, 31, %f32", "%f32"),
            ("shfl.sync.idx.b32 %b32, %b32, 1, 31, %f16x2", "%f16x2"),
            ("vote.sync.any.pred %p, %p, %f32", "%f32"),
            ("vote.sync.ballot.b32 %b32, %p, %f32", "%f32"),
            ("match.any.sync.b32 %b32, %b32, %f32", "%f32"),
            ("redux.sync.add.u32 %u32, %u32, %f16x2", "%f16x2"),
            ("bar.warp.sync %f32", "%f32"),
            ("bar.sync %f32", "%f32"),
            ("bar.sync 0, %f32", "%f32"),
            ("barrier.sync %f32", "%f32"),
            ("bar.arrive 0, %f32", "%f32"),
            ("bar.red.and.pred %p, 0, %f32, %p", "%f32"),
            ("popc.b32 %f32, %b32", "%f32"),
            ("popc.b64 %f32, %b64", "%f32"),
            ("popc.b32 %f16x2, %b32", "%f16x2"),
            ("clz.b32 %f32, %b32", "%f32"),
            ("bfe.u32 %u32, %u32, %f16x2, 8", "%f16x2"),
            ("bfi.b32 %b32, %b32, %b32, %f32, 8", "%f32"),
            ("bmsk.clamp.b32 %b32, %f32, 3", "%f32"),
            ("nanosleep.u32 %f32", "%f32"),
        ],
        "needs a .u32 operand",
    );
}

/// Registers of `tex`/`tld4`/`suld`/`sust` against the types the instruction gives them
/// (the destination and coordinate types, `.s32` texel offsets and surface coordinates, the
/// `.u32` array index), with ptxas 12.9's verdict (`ptxas -arch=sm_80`) in the comment.
#[test]
fn texture_operands_take_the_kinds_ptxas_takes() {
    assert_verdicts(
        &[
            // ptxas: accepted
            "tex.1d.v4.f32.f32 {%f32, %f32, %f32, %f32}, [%rd, {%s32}]",
            "tex.1d.v4.f32.f32 {%u32, %u32, %u32, %u32}, [%rd, {%f32}]",
            "tex.1d.v4.u32.f32 {%s32, %s32, %s32, %s32}, [%rd, {%f32}]",
            "tex.1d.v4.f32.s32 {%f32, %f32, %f32, %f32}, [%rd, {%f16x2}]",
            "tex.1d.v2.f16x2.f32 {%f16x2, %f16x2}, [%rd, {%f32}]",
            "tex.1d.v2.f16x2.f32 {%b32, %b32}, [%rd, {%f32}]",
            "tex.1d.v4.f32.f32 {%f32, %f32, %f32, %f32}, [%rd, {%f32}], {%s32}",
            "tld4.r.2d.v4.f32.f32 {%u32, %u32, %u32, %u32}, [%rd, {%f32, %f32}]",
            "suld.b.1d.b32.trap {%f32}, [%rd, {%s32}]",
            "sust.b.1d.b32.trap [%rd, {%s32}], {%f32}",
        ],
        &[
            // ptxas: Arguments mismatch for instruction 'tex' ('tld4', 'suld', 'sust')
            (
                "tex.1d.v4.f32.s32 {%f32, %f32, %f32, %f32}, [%rd, {%f32}]",
                "%f32",
            ),
            (
                "tex.1d.v4.s32.f32 {%f32, %f32, %f32, %f32}, [%rd, {%f32}]",
                "%f32",
            ),
            (
                "tex.1d.v4.f32.f32 {%f16x2, %f16x2, %f16x2, %f16x2}, [%rd, {%f32}]",
                "%f16x2",
            ),
            ("tex.1d.v2.f16x2.f32 {%u32, %u32}, [%rd, {%f32}]", "%u32"),
            ("tex.1d.v2.f16x2.f32 {%f32, %f32}, [%rd, {%f32}]", "%f32"),
            (
                "tex.a1d.v4.f32.f32 {%b32, %b32, %b32, %b32}, [%rd, {%f32, %f32}]",
                "%f32",
            ),
            (
                "tex.1d.v4.f32.s32 {%b32, %b32, %b32, %b32}, [%rd, {%s32}], {%f32}",
                "%f32",
            ),
            (
                "tld4.r.2d.v4.s32.f32 {%f32, %f32, %f32, %f32}, [%rd, {%b32, %b32}]",
                "%f32",
            ),
            ("suld.b.1d.b32.trap {%u32}, [%rd, {%f32}]", "%f32"),
            ("sust.b.1d.b32.trap [%rd, {%f32}], {%u32}", "%f32"),
            (
                "tex.2dms.v4.f32.s32 {%b32, %b32, %b32, %b32}, [%rd, {%f32, %f32, %f32, %f32}]",
                "%f32",
            ),
        ],
        "register where the instruction needs a",
    );
}
