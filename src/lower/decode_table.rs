//! The decoder's table: every PTX instruction (opcode) and, for an opcode the ISA defines in
//! several chapters (`add` is in integer, floating-point, half-precision and mixed-precision
//! arithmetic), one row per chapter, with its PTX ISA section and the one function that
//! decodes it. A reviewer finds any instruction's decoding from its row; the coverage report,
//! the section numbers written in the sources and the list of instruction names are checked
//! against (or derived from) it.
//!
//! Section numbers follow the PTX ISA 9.1 document.
//!
//! A row is chosen by opcode and by the [`Family`] of the instruction's type modifiers; the
//! row of family [`Family::Any`] takes the forms no row of a specific family takes. An opcode
//! with no row for an instruction's family is invalid ("`rem.f32`: rem has no floating-point
//! form").

use super::*;
use super::{
    bulk, clc, cluster, cmp, cvt, data, float, half, int, logic, mbar, memops, mma, stack, sync,
    tcgen05, tex, tma, video, wgmma,
};
use crate::ptx::target::{Arch, Header, Suffix, Version};
use std::fmt;

/// The class of an instruction's type modifiers that selects among an opcode's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Family {
    /// Every form no row of a specific family takes.
    Any,
    /// Integer, bit and predicate types, or none.
    Int,
    /// `.f32`, `.f64`.
    Float,
    /// `.f16`, `.bf16`, `.f16x2`, `.bf16x2`.
    Half,
    /// Two type modifiers (mixed precision, PTX ISA §9.7.5: `add.f32.f16`).
    Mixed,
    /// The carry forms: `.cc`, and `addc`, `subc`, `madc` (§9.7.2).
    Carry,
}

impl Family {
    /// The forms a row of this family takes, for the coverage report.
    pub(super) fn label(self) -> &'static str {
        match self {
            Family::Any => "all",
            Family::Int => "integer",
            Family::Float => ".f32, .f64",
            Family::Half => ".f16, .bf16 (x2)",
            Family::Mixed => "mixed precision",
            Family::Carry => ".cc, carry in",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Family::Any => "such",
            Family::Int => "integer",
            Family::Float => "floating-point (.f32/.f64)",
            Family::Half => "half-precision (.f16/.bf16)",
            Family::Mixed => "mixed-precision",
            Family::Carry => "carry (.cc)",
        }
    }
}

/// The family of `cx`'s instruction: carry first, then two types, a 16-bit float type, a
/// 32/64-bit float type, else integer.
pub(super) fn family(cx: &Cx) -> Family {
    let op = cx.inst.opcode.name.as_str();
    if cx.has("cc") || matches!(op, "addc" | "subc" | "madc") {
        Family::Carry
    } else if cx.types().len() >= 2 {
        Family::Mixed
    } else if half_of(cx).is_some() {
        Family::Half
    } else if is_float(cx) || cx.has("f32x2") {
        Family::Float
    } else {
        Family::Int
    }
}

/// A decoder that writes its instruction into the current block; the caller applies the
/// guard around it (a select for pure rows, a branch around for the others).
pub(super) type Plain = fn(&mut Builder, &mut Cx) -> R;
/// A decoder that applies the guard itself (branches, calls, barriers).
pub(super) type Guarded = fn(&mut Builder, &Cx, Option<(Var, bool)>) -> R;

/// How a row decodes.
#[derive(Clone, Copy)]
pub(super) enum Decoder {
    /// A pure computation: a guard selects between the result and the old value.
    Pure(Plain),
    /// An operation with effects: a guard branches around it.
    Effect(Plain),
    /// Control flow and barriers: the decoder takes the guard.
    Guarded(Guarded),
}

/// One row: an opcode, the family of forms it takes, the PTX ISA section defining them, the
/// decoder, and what the module's header must give it ([`Needs`], with the forms that need
/// more).
pub(super) struct Row {
    pub(super) op: &'static str,
    pub(super) family: Family,
    pub(super) section: &'static str,
    pub(super) decode: Decoder,
    pub(super) needs: Needs,
    pub(super) forms: &'static [Form],
    /// The modifiers (not types, not matrix shapes) the row's instructions take, as ptxas
    /// accepts them on this opcode and family; `None` where the row declares no list (its
    /// decoder checks its own). A word of `decode_names.rs` outside the list is an error
    /// ("illegal modifier '.relu' for instruction 'rsqrt'", as ptxas reports it).
    pub(super) mods: Option<&'static [&'static str]>,
}

const fn row(op: &'static str, family: Family, section: &'static str, decode: Decoder) -> Row {
    Row {
        op,
        family,
        section,
        decode,
        needs: Needs::ANY,
        forms: &[],
        mods: None,
    }
}

impl Row {
    /// The row's instructions need PTX ISA `since` and a target of `min` (its section's "PTX
    /// ISA Notes" and "Target ISA Notes").
    const fn since(mut self, since: (u32, u32), min: Min) -> Row {
        self.needs = Needs {
            since: Version(since.0, since.1),
            min,
        };
        self
    }

    /// Forms of the row that need more than the row (added in later PTX ISA versions or for
    /// later targets).
    const fn forms(mut self, forms: &'static [Form]) -> Row {
        self.forms = forms;
        self
    }

    /// The modifiers the row's instructions take (see [`Row::mods`]).
    const fn mods(mut self, mods: &'static [&'static str]) -> Row {
        self.mods = Some(mods);
        self
    }
}

/// The targets an instruction runs on (the "Target ISA Notes" of its PTX ISA section).
#[derive(Clone, Copy, Debug)]
pub(super) enum Min {
    /// Every target.
    Any,
    /// `sm_NN` or higher, with or without a suffix.
    Sm(u32),
    /// Only these architecture-specific targets (`sm_90a`); a family target `sm_NNf` listed
    /// here also admits `sm_NNa`, which has every feature of its family.
    Specific(&'static [Arch]),
    /// `sm_NN` (`.0`) or higher, and from PTX ISA `.2` also `sm_MM` (`.1`) or higher: a
    /// feature a later PTX ISA version extended to an older target.
    SmFrom(u32, u32, Version),
}

/// What an instruction or form needs of the module's header: the PTX ISA version that
/// introduced it and the targets it runs on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Needs {
    pub(super) since: Version,
    pub(super) min: Min,
}

impl Needs {
    /// No requirement beyond a module header: PTX ISA 1.0, every target.
    pub(super) const ANY: Needs = Needs {
        since: Version(1, 0),
        min: Min::Any,
    };
}

/// When a [`Form`] applies to an instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum When {
    /// Each group has one of its modifiers on the instruction (`&[&["bf16", "bf16x2"]]`).
    Mods(&'static [&'static [&'static str]]),
    /// The instruction has at least this many operands (three-input `min`).
    Operands(usize),
    /// The instruction has one modifier of each group (as `Mods`) and modifier `.1` directly
    /// followed by `.2` (a destination state space before its source: `.shared::cta.global`).
    ModsThen(
        &'static [&'static [&'static str]],
        &'static str,
        &'static str,
    ),
    /// A modifier of the first list directly followed by one of the second (a `cvt`
    /// destination type before its source type: `.e2m1x2.f16x2`).
    Then(&'static [&'static str], &'static [&'static str]),
    /// The instruction has one modifier of each group (as `Mods`) and its operand `.1` is an
    /// integer immediate in `.2 ..= .3` (a value of `tensormap.replace`'s `.field3`, PTX ISA
    /// §9.7.9.26 Table 33, that later PTX ISA versions added).
    Imm(&'static [&'static [&'static str]], usize, i64, i64),
}

/// A form of a row's opcode that needs more of the header than the row: `what` names it in
/// errors and in the coverage report.
#[derive(Clone, Copy, Debug)]
pub(super) struct Form {
    pub(super) what: &'static str,
    pub(super) when: When,
    pub(super) needs: Needs,
}

/// `.no_membermask_overlap` on the `.sync` warp collectives with a member mask
/// (`bar.warp.sync`, `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`): the program's
/// promise that the member masks of concurrent calls in a warp do not overlap. The PTX ISA
/// text has no section for it; ptxas 13.5 takes it from PTX ISA 8.4 ("Feature
/// '.no_membermask_overlap' requires PTX ISA .version 8.4 or later") on every target of the
/// instruction, and only on those forms ([`check_modifiers`]).
const NO_MEMBERMASK_OVERLAP: Form = form(
    ".no_membermask_overlap",
    Mods(&[&["no_membermask_overlap"]]),
    (8, 4),
    AnyTarget,
);

const fn form(what: &'static str, when: When, since: (u32, u32), min: Min) -> Form {
    Form {
        what,
        when,
        needs: Needs {
            since: Version(since.0, since.1),
            min,
        },
    }
}

const fn a(sm: u32) -> Arch {
    Arch {
        sm,
        suffix: Suffix::A,
    }
}

const fn f(sm: u32) -> Arch {
    Arch {
        sm,
        suffix: Suffix::F,
    }
}

/// `sm_90a` only (wgmma: ptxas 12.9 "Instruction 'wgmma.fence' not supported on .target
/// 'sm_100a'").
const SM90A: Min = Min::Specific(&[a(90)]);
/// `tensormap.replace` (§9.7.9.26 Target ISA Notes): sm_90a, sm_100a, sm_101a (sm_110a from
/// PTX ISA 9.0), sm_120a, and the family targets sm_100f, sm_101f/sm_110f and sm_120f (from
/// PTX ISA 8.8) with the later members of their families (sm_103f, sm_121f).
const TENSORMAP_REPLACE: Min = Min::Specific(&[
    a(90),
    a(100),
    a(101),
    a(110),
    a(120),
    f(100),
    f(101),
    f(103),
    f(110),
    f(120),
    f(121),
]);
/// `tensormap.replace.swizzle_atomicity`, and `.elemtype` with the values 13 to 15
/// (§9.7.9.26 Target ISA Notes, the same list for both): those of `tensormap.replace`
/// without sm_90a.
const SWIZZLE_ATOMICITY: Min = Min::Specific(&[
    a(100),
    a(101),
    a(110),
    a(120),
    f(100),
    f(101),
    f(103),
    f(110),
    f(120),
    f(121),
]);
/// `tensormap.replace.swizzle_mode` with the value 4, the 96B swizzle (§9.7.9.26 Target ISA
/// Notes): sm_103a only.
const SWIZZLE_96B: Min = Min::Specific(&[a(103)]);
/// `add`/`sub`/`mul`/`fma` on `.f32x2` (§9.7.3.3-6 PTX ISA and Target ISA Notes: PTX ISA
/// 8.6, sm_100 or higher; ptxas: "Feature 'add.f32x2' requires .target sm_100 or higher").
/// What sm_1x targets lack (PTX ISA 2.0 added these for sm_20): 64-bit carry arithmetic
/// (ptxas 12.9: "Instruction '.cc with 64bit type' requires .target sm_20").
const CARRY_64: &[Form] = &[form(
    ".cc on 64-bit types",
    Mods(&[&["cc"], &["u64", "s64", "b64"]]),
    (4, 3),
    Sm(20),
)];
/// `add`/`sub`/`mul` `.rm`/`.rp` on `.f32` (sm_1x has `.rn`/`.rz` only: "Illegal rounding
/// modifier"), then the `.f32x2` forms.
const F32_ARITH: &[Form] = &[
    form(
        ".rm/.rp on .f32",
        Mods(&[&["rm", "rp"], &["f32"]]),
        (2, 0),
        Sm(20),
    ),
    F32X2[0],
];
/// `fma.f32` ("Instruction 'fma.f32' requires .target sm_20"), then the `.f32x2` forms.
const FMA_FORMS: &[Form] = &[form("fma.f32", Mods(&[&["f32"]]), (2, 0), Sm(20)), F32X2[0]];
/// `div`/`sqrt` with a rounding modifier on `.f32` ("'div.rnd.f32' requires .target sm_20") and
/// the directed roundings on `.f64` ("'div.rn.f64' requires .target sm_20" for `.rz/.rm/.rp`).
const ROUNDED_SM20: &[Form] = &[
    form(
        "a rounding modifier on .f32",
        Mods(&[&["rn", "rz", "rm", "rp"], &["f32"]]),
        (2, 0),
        Sm(20),
    ),
    form(
        ".rz/.rm/.rp on .f64",
        Mods(&[&["rz", "rm", "rp"], &["f64"]]),
        (2, 0),
        Sm(20),
    ),
];
/// `rcp` as `div`/`sqrt`, and `rcp.approx.ftz.f64` ("'rcp.approx.f64' requires .target sm_20").
const RCP_SM20: &[Form] = &[
    ROUNDED_SM20[0],
    ROUNDED_SM20[1],
    form(
        "rcp.approx.ftz.f64",
        Mods(&[&["approx"], &["f64"]]),
        (2, 0),
        Sm(20),
    ),
];
/// `min`/`max` `.xorsign.abs` on `.f16`/`.bf16` (x2): ptxas 12.9 "Feature '.abs' requires
/// .target sm_86".
const HALF_XORSIGN: &[Form] = &[form(".xorsign.abs", Mods(&[&["xorsign"]]), (7, 2), Sm(86))];
/// `set`/`setp` on `.bf16`/`.bf16x2` (PTX ISA 7.8, sm_90).
const HALF_CMP_BF16: &[Form] = &[form(
    "set/setp on .bf16/.bf16x2",
    Mods(&[BF16]),
    (7, 8),
    Sm(90),
)];
/// `set` from `.f16`/`.f16x2` (sm_53) and `.bf16`/`.bf16x2` (sm_90) sources.
const SET_HALF: &[Form] = &[
    form(
        "set on .f16/.f16x2",
        Mods(&[&["f16", "f16x2"]]),
        (4, 2),
        Sm(53),
    ),
    HALF_CMP_BF16[0],
];
/// `cvta`/`isspacep` on the kernel parameter space: ptxas 12.9 "Feature 'cvta/isspacep with
/// .param state space' requires .target sm_70", "Feature '::entry' requires PTX ISA 8.3".
const PARAM_SPACE: &[Form] = &[
    form(
        ".param",
        Mods(&[&["param", "param::entry", "param::func"]]),
        (7, 7),
        Sm(70),
    ),
    form(
        ".param::entry/.param::func",
        Mods(&[&["param::entry", "param::func"]]),
        (8, 3),
        Sm(70),
    ),
];
/// `mma` shapes and types that need more than the row, as ptxas 12.9 gates them ("Feature
/// '.m16n8k8' requires .target sm_75", "'.tf32' … sm_80", "'.m8n8k4 with double types' …
/// sm_80", "'mma with FP8 floating point type' … sm_89, PTX ISA 8.4", "… and .m16n8k16 shape'
/// requires PTX ISA 8.7", "'.sp::ordered_metadata' requires .target sm_80, PTX ISA 8.5").
const MMA_FORMS: &[Form] = &[
    form(".m16n8k16", Mods(&[&["m16n8k16"]]), (7, 0), Sm(80)),
    form(".m16n8k8", Mods(&[&["m16n8k8"]]), (6, 5), Sm(75)),
    form(".m16n8k32", Mods(&[&["m16n8k32"]]), (7, 0), Sm(80)),
    form(
        ".m8n8k4 with .f64",
        Mods(&[&["m8n8k4"], &["f64"]]),
        (7, 0),
        Sm(80),
    ),
    form(".tf32/.bf16", Mods(&[&["tf32", "bf16"]]), (7, 0), Sm(80)),
    // ptxas 13.5: "Feature '.m16n8k4 with double types' requires .target sm_90 or higher".
    form(
        ".m16n8k4/.m16n8k8/.m16n8k16 with .f64",
        Mods(&[&["f64"], &["m16n8k4", "m16n8k8", "m16n8k16"]]),
        (7, 8),
        Sm(90),
    ),
    form(".b1/.s4/.u4", Mods(&[&["b1", "s4", "u4"]]), (6, 5), Sm(75)),
    form(".e4m3/.e5m2", Mods(&[&["e4m3", "e5m2"]]), (8, 4), Sm(89)),
    // ptxas 13.5: "Feature 'mma with FP8 floating point type and FP16 accumulation' requires
    // PTX ISA .version 8.7 or later".
    form(
        ".e4m3/.e5m2 with an .f16 accumulator",
        Mods(&[&["e4m3", "e5m2"], &["f16"]]),
        (8, 7),
        Sm(89),
    ),
    form(
        ".e4m3/.e5m2 with .m16n8k16",
        Mods(&[&["e4m3", "e5m2"], &["m16n8k16"]]),
        (8, 7),
        Sm(89),
    ),
    form(
        ".sp::ordered_metadata",
        Mods(&[&["sp::ordered_metadata"]]),
        (8, 5),
        Sm(80),
    ),
    // ptxas 13.5 takes `.kind::f8f6f4` (dense and sparse) with `.e4m3`/`.e5m2` inputs and an
    // `.f32` accumulator on the architecture-specific and family targets of the sm_100,
    // sm_103, sm_110 and sm_120 families from PTX ISA 8.6 ("Feature '.kind::f8f6f4' not
    // supported on .target 'sm_120'"), and with 6- or 4-bit inputs or an `.f16` accumulator
    // only on the sm_120 family's from PTX ISA 8.7 ("Feature 'mma with with FP6/FP4 floating
    // point type' requires PTX ISA .version 8.7", "Instruction 'mma with with FP6/FP4
    // floating point type' not supported on .target 'sm_100a'").
    form(
        ".kind::f8f6f4",
        Mods(&[&["kind::f8f6f4"]]),
        (8, 6),
        Min::Specific(&[f(100), f(103), f(110), f(120), f(121)]),
    ),
    form(
        ".kind::f8f6f4 with .e3m2/.e2m3/.e2m1 inputs or an .f16 accumulator",
        Mods(&[&["kind::f8f6f4"], &["e3m2", "e2m3", "e2m1", "f16"]]),
        (8, 7),
        SM120F,
    ),
    // ptxas 13.5: "Instruction 'mma with with F16 accumulator and F8 floating point type' not
    // supported on .target 'sm_90a'" for `mma.sp::ordered_metadata` (plain `.sp` refuses the
    // form everywhere: the decoder's error).
    form(
        "mma.sp::ordered_metadata with .e4m3/.e5m2 and an .f16 accumulator",
        Mods(&[&["sp::ordered_metadata"], &["e4m3", "e5m2"], &["f16"]]),
        (8, 7),
        SM120F,
    ),
    // ptxas 13.5: "Feature 'mma with block scale' requires PTX ISA .version 8.7 or later",
    // "Instruction 'mma with block scale' not supported on .target 'sm_120'" (and sm_100a);
    // sm_120a, sm_121a and sm_120f take it.
    form(
        ".kind::mxf8f6f4/::mxf4/::mxf4nvf4 .block_scale",
        Mods(&[&["block_scale"]]),
        (8, 7),
        SM120F,
    ),
    // ptxas 13.5: "Instruction 'Sparse mma with block scale' not supported on .target
    // 'sm_120f'", "Feature '.kind::mxf4 with .sp…": sm_120a and sm_121a only.
    form(
        "mma.sp::ordered_metadata with .kind::mxf4/::mxf4nvf4",
        Mods(&[&["sp::ordered_metadata"], &["kind::mxf4", "kind::mxf4nvf4"]]),
        (8, 7),
        Min::Specific(&[a(120), a(121)]),
    ),
    // ptxas 13.5: "Feature 'mma with .scale_vec::4X and .ue8m0 scale type' requires PTX ISA
    // .version 9.1 or later".
    form(
        ".scale_vec::4X with .ue8m0",
        Mods(&[&["scale_vec::4X"], &["ue8m0"]]),
        (9, 1),
        SM120F,
    ),
];
/// The 8-bit and packed 6-/4-bit matrix moves of PTX ISA 8.6 (§9.7.14.5.15-16 Target ISA
/// Notes): the sm_100 and sm_120 families' architecture-specific and family targets (ptxas
/// 13.5 takes `ldmatrix….m16n16….b8`, `….m8n16….b8x16.b6x16_p32` and
/// `stmatrix….m16n8….b8` on sm_100a, sm_103a, sm_110a, sm_120a, sm_121a and the `f`
/// targets of those families; "Feature 'ldmatrix.b8' not supported on .target 'sm_100'").
const MATRIX_MOVE_B8: Min = Min::Specific(&[f(100), f(101), f(103), f(110), f(120), f(121)]);
/// `sin`/`cos` `.2pi`: the input in cycles (PTX ISA 9.5).
const TWO_PI: &[Form] = &[form(".2pi", Mods(&[&["2pi"]]), (9, 5), AnyTarget)];
const F32X2: &[Form] = &[form(".f32x2", Mods(&[&["f32x2"]]), (8, 6), Sm(100))];
/// The sm_100 family's architecture-specific targets (tcgen05, `redux.f32`; PTX ISA §9.7.16
/// Target ISA Notes: sm_100a, sm_101a (sm_110a from PTX ISA 9.0), sm_103a, and the family
/// targets sm_100f, sm_101f/sm_110f, sm_103f from PTX ISA 8.8).
const SM100A: Min = Min::Specific(&[
    a(100),
    a(101),
    a(103),
    a(110),
    f(100),
    f(101),
    f(103),
    f(110),
]);
/// `tcgen05.ld.red` (§9.7.16.8.3): sm_101a and sm_103a and their families, not sm_100a
/// (ptxas 12.9: "Instruction 'tcgen05.ld.red' not supported on .target 'sm_100a'"; sm_110a
/// is sm_101a renamed from PTX ISA 9.0).
const LD_RED: Min = Min::Specific(&[a(101), a(103), a(110), f(101), f(103), f(110)]);
/// `tcgen05.mma .kind::i8` (§9.7.16.10.9 Target ISA Notes): sm_100a and sm_101a (sm_110a
/// from PTX ISA 9.0), not the family targets nor sm_103a (ptxas 12.9: "Feature '.kind::i8'
/// not supported on .target 'sm_103a'").
const KIND_I8: Min = Min::Specific(&[a(100), a(101), a(110)]);
/// `tcgen05.mma .scale_vec::1X/2X/4X` (§9.7.16.10.9 Target ISA Notes: "requires sm_100a"):
/// the architecture-specific targets of the sm_100 family, not the family targets (ptxas
/// 12.9: "Feature '.scale_vec::1X' not supported on .target 'sm_100f'"; it accepts sm_101a
/// and sm_103a).
const SCALE_VEC: Min = Min::Specific(&[a(100), a(101), a(103), a(110)]);
/// `setmaxnreg` (§9.7.19.5): sm_90a, and the sm_100 and sm_120 architecture-specific targets.
const SETMAXNREG: Min = Min::Specific(&[
    a(90),
    a(100),
    a(101),
    a(103),
    a(110),
    a(120),
    a(121),
    f(100),
    f(101),
    f(103),
    f(110),
    f(120),
    f(121),
]);

/// `cvt` with `.s2f6x2` (PTX ISA 9.1, release notes Table 63): sm_100a, sm_103a, sm_110a,
/// sm_120a and sm_121a, no family targets.
const S2F6: Min = Min::Specific(&[a(100), a(103), a(110), a(120), a(121)]);
/// The PTX ISA 9.1/9.2 `cvt` forms between the narrow `x2` formats and `.f16x2`/`.bf16x2`
/// (release notes Table 63): the family targets sm_100f, sm_110f and sm_120f, with the
/// other members of their families (sm_103f, sm_121f) and so every `a` target of them.
const NARROW_X2: Min = Min::Specific(&[f(100), f(103), f(110), f(120), f(121)]);
/// `cvt` with `.e2m1x2`, `.e2m3x2`, `.e3m2x2` or `.ue8m0x2` (PTX ISA 8.6; ptxas 12.9:
/// "Instruction 'cvt with .e2m1x2' not supported on .target 'sm_100'"): the sm_100 and
/// sm_120 family targets and so their architecture-specific ones, not plain sm_100.
const NARROW_86: Min = Min::Specific(&[f(100), f(101), f(103), f(110), f(120), f(121)]);
/// `clusterlaunchcontrol.try_cancel….multicast::cluster::all` (§9.7.13.17.1 Target ISA Notes;
/// ptxas 13.5: "Feature '.multicast::cluster::all' not supported on .target 'sm_100'", and
/// on sm_103 and sm_120): the architecture-specific and family targets of the sm_100 and
/// sm_120 families.
const CLC_MULTICAST: Min = Min::Specific(&[f(100), f(101), f(103), f(110), f(120), f(121)]);
/// `cvt.rs` (PTX ISA 8.7): sm_100a and sm_103a only (ptxas 12.9: "Feature '.rs' not
/// supported on .target 'sm_101a'", and the same for sm_100f, sm_103f, sm_120a).
const RS: Min = Min::Specific(&[a(100), a(103)]);
/// The PTX ISA 9.2 integer forms `add.sat.u32`, `add.sat.u16x2`, `add.sat.s16x2` (§9.7.1.1
/// Target ISA Notes: "sm_120f or higher in the same family") and the `.u8x4`/`.s8x4` forms of
/// `add`, `sub`, `min`, `max` and `neg` (ptxas 13.5 takes them on sm_120f/sm_121a, not on
/// sm_100a): sm_120f and sm_121f, with their architecture-specific targets.
const SM120F: Min = Min::Specific(&[f(120), f(121)]);
/// The types a `.bf16` conversion of PTX ISA 7.8 (sm_90) takes on its other side.
const BF16_PEERS: &[&str] = &[
    "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "f64", "bf16",
];
/// The narrow `x2` formats of those forms.
const NARROW: &[&str] = &["e2m1x2", "e2m3x2", "e3m2x2", "e4m3x2", "e5m2x2"];

use Min::{Any as AnyTarget, Sm};
use When::{Imm, Mods, ModsThen, Operands, Then};

const BF16: &[&str] = &["bf16", "bf16x2"];

use Decoder::{Effect, Guarded as G, Pure};
use Family::{Any, Carry, Float, Half, Int, Mixed};

/// The modifiers of the scalar video instructions (PTX ISA §9.7.18.1.1: `.sat`, the secondary
/// operation `.op2` = `.add`, `.min`, `.max`).
const VIDEO_SCALAR: &[&str] = &["sat", "add", "min", "max"];
/// `vshl`/`vshr` (§9.7.18.1.2): as [`VIDEO_SCALAR`] and the `.mode` = `.clamp`, `.wrap`.
const VIDEO_SHIFT: &[&str] = &["sat", "add", "min", "max", "clamp", "wrap"];
/// `vmad` (§9.7.18.1.3): `.po`, `.sat` and the `.scale` = `.shr7`, `.shr15`; no `.op2`
/// (ptxas 13.5: "Illegal modifier '.add' for instruction 'vmad'").
const VIDEO_MAD: &[&str] = &["po", "sat", "shr7", "shr15"];
/// `vset` (§9.7.18.1.4): the comparison `.cmp` = `.eq`, `.ne`, `.lt`, `.le`, `.gt`, `.ge`
/// and the `.op2` of [`VIDEO_SCALAR`].
const VIDEO_SET: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge", "add", "min", "max"];
/// The SIMD video instructions (§9.7.18.2.1, §9.7.18.3.1): `.sat` or `.add` (ptxas 13.5:
/// "Illegal secondary operation for video instruction 'vadd2'" for `.min`).
const VIDEO_SIMD: &[&str] = &["sat", "add"];
/// `vset2`/`vset4` (§9.7.18.2.2, §9.7.18.3.2): a `.cmp` of [`VIDEO_SET`] and `.add`.
const VIDEO_SIMD_SET: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge", "add"];

/// `atom` (PTX ISA §9.7.13.5): the `.space` (`.global`, `.shared{::cta, ::cluster}`), the
/// `.op` (`.and`, `.or`, `.xor`, `.cas`, `.exch`, `.add`, `.inc`, `.dec`, `.min`, `.max`),
/// `.noftz`, `.L2::cache_hint` and the vector widths; the `.sem` and `.scope` words are
/// [`ORDER`]'s. ptxas 13.5 refuses the others (`atom.global.ca.add.u32`: "Illegal modifier
/// '.ca' for instruction 'atom'").
const ATOM: &[&str] = &[
    "global",
    "shared",
    "shared::cta",
    "shared::cluster",
    "and",
    "or",
    "xor",
    "cas",
    "exch",
    "add",
    "inc",
    "dec",
    "min",
    "max",
    "noftz",
    "L2::cache_hint",
    "v2",
    "v4",
    "v8",
];
/// `red` (§9.7.13.6): the words of [`ATOM`] but `.cas` and `.exch`, and those of `red.async`
/// (§9.7.13.7: `.async`, `.mbarrier::complete_tx::bytes`).
const RED: &[&str] = &[
    "global",
    "shared",
    "shared::cta",
    "shared::cluster",
    "and",
    "or",
    "xor",
    "add",
    "inc",
    "dec",
    "min",
    "max",
    "noftz",
    "L2::cache_hint",
    "v2",
    "v4",
    "v8",
    "async",
    "mbarrier::complete_tx::bytes",
];

/// Every PTX instruction, grouped by the PTX ISA chapter (§9.7.x) that defines it.
pub(super) static ROWS: &[Row] = &[
    // §9.7.1 Integer arithmetic (and the integer forms of shared opcodes).
    row("add", Int, "9.7.1.1", Pure(int::add_sub))
        .forms(&[
            form(
                "add.{u8x4,s8x4}",
                Mods(&[&["u8x4", "s8x4"]]),
                (9, 2),
                SM120F,
            ),
            form(
                "add.{u16x2,s16x2}",
                Mods(&[&["u16x2", "s16x2"]]),
                (8, 0),
                Sm(90),
            ),
            form(
                "add.sat.{u32,u16x2,s16x2}",
                Mods(&[&["sat"], &["u32", "u16x2", "s16x2"]]),
                (9, 2),
                SM120F,
            ),
        ])
        .mods(&["sat"]),
    row("sub", Int, "9.7.1.2", Pure(int::add_sub))
        .forms(&[form(
            "sub.{u8x4,s8x4}",
            Mods(&[&["u8x4", "s8x4"]]),
            (9, 2),
            SM120F,
        )])
        .mods(&["sat"]),
    row("mul", Int, "9.7.1.3", Pure(int::mul_mad)).mods(&["hi", "lo", "wide"]),
    row("mad", Int, "9.7.1.4", Pure(int::mul_mad)).mods(&["hi", "lo", "sat", "wide"]),
    row(
        "mul24",
        Any,
        "9.7.1.5",
        Pure(|b, cx| int::mul24(b, cx, false)),
    )
    .mods(&["hi", "lo"]),
    row(
        "mad24",
        Any,
        "9.7.1.6",
        Pure(|b, cx| int::mul24(b, cx, true)),
    )
    .mods(&["hi", "lo", "sat"]),
    row("sad", Any, "9.7.1.7", Pure(int::sad)).mods(&[]),
    row("div", Int, "9.7.1.8", Pure(int::div_rem_min_max)).mods(&[]),
    row("rem", Int, "9.7.1.9", Pure(int::div_rem_min_max)).mods(&[]),
    row("abs", Int, "9.7.1.10", Pure(int::neg_abs)).mods(&[]),
    row("neg", Int, "9.7.1.11", Pure(int::neg_abs))
        .forms(&[form("neg.s8x4", Mods(&[&["s8x4"]]), (9, 2), SM120F)])
        .mods(&[]),
    // ptxas 13.5 names `.relu` first when a form has both (`min.relu.s16x2` on sm_80:
    // "Feature 'min.relu' requires .target sm_90 or higher").
    row("min", Int, "9.7.1.12", Pure(int::div_rem_min_max))
        .forms(&[
            form("min.relu", Mods(&[&["relu"]]), (8, 0), Sm(90)),
            form(
                "min.{u8x4,s8x4}",
                Mods(&[&["u8x4", "s8x4"]]),
                (9, 2),
                SM120F,
            ),
            form(
                "min.{u16x2,s16x2}",
                Mods(&[&["u16x2", "s16x2"]]),
                (8, 0),
                Sm(90),
            ),
        ])
        .mods(&["relu"]),
    // ptxas 13.5 names `.relu` first when a form has both (`max.relu.s16x2` on sm_80:
    // "Feature 'max.relu' requires .target sm_90 or higher").
    row("max", Int, "9.7.1.13", Pure(int::div_rem_min_max))
        .forms(&[
            form("max.relu", Mods(&[&["relu"]]), (8, 0), Sm(90)),
            form(
                "max.{u8x4,s8x4}",
                Mods(&[&["u8x4", "s8x4"]]),
                (9, 2),
                SM120F,
            ),
            form(
                "max.{u16x2,s16x2}",
                Mods(&[&["u16x2", "s16x2"]]),
                (8, 0),
                Sm(90),
            ),
        ])
        .mods(&["relu"]),
    row("popc", Any, "9.7.1.14", Pure(int::popc_clz))
        .since((2, 0), Sm(20))
        .mods(&[]),
    row("clz", Any, "9.7.1.15", Pure(int::popc_clz))
        .since((2, 0), Sm(20))
        .mods(&[]),
    row("bfind", Any, "9.7.1.16", Pure(bitfield))
        .since((2, 0), Sm(20))
        .mods(&["shiftamt"]),
    row("fns", Any, "9.7.1.17", Pure(bitfield))
        .since((6, 0), Sm(30))
        .mods(&[]),
    row("brev", Any, "9.7.1.18", Pure(bitfield))
        .since((2, 0), Sm(20))
        .mods(&[]),
    row("bfe", Any, "9.7.1.19", Pure(bitfield))
        .since((2, 0), Sm(20))
        .mods(&[]),
    row("bfi", Any, "9.7.1.20", Pure(bitfield))
        .since((2, 0), Sm(20))
        .mods(&[]),
    row("szext", Any, "9.7.1.21", Pure(bitfield))
        .since((7, 6), Sm(70))
        .mods(&["clamp", "trap", "wrap", "zero"]),
    row("bmsk", Any, "9.7.1.22", Pure(bitfield))
        .since((7, 6), Sm(70))
        .mods(&["clamp", "trap", "wrap", "zero"]),
    row(
        "dp4a",
        Any,
        "9.7.1.23",
        Pure(|b, cx| int::dot(b, cx, false)),
    )
    .since((5, 0), Sm(61))
    .mods(&[]),
    row("dp2a", Any, "9.7.1.24", Pure(|b, cx| int::dot(b, cx, true)))
        .since((5, 0), Sm(61))
        .mods(&["hi", "lo"]),
    // §9.7.2 Extended-precision integer arithmetic.
    row("add", Carry, "9.7.2.1", Pure(carry_add_sub))
        .forms(CARRY_64)
        .mods(&["cc"]),
    row("addc", Any, "9.7.2.2", Pure(carry_add_sub))
        .forms(CARRY_64)
        .mods(&["cc"]),
    row("sub", Carry, "9.7.2.3", Pure(carry_add_sub))
        .forms(CARRY_64)
        .mods(&["cc"]),
    row("subc", Any, "9.7.2.4", Pure(carry_add_sub))
        .forms(CARRY_64)
        .mods(&["cc"]),
    row("mad", Carry, "9.7.2.5", Pure(carry_mad))
        .since((3, 0), Sm(20))
        .mods(&["cc", "hi", "lo"]),
    row("madc", Any, "9.7.2.6", Pure(carry_mad))
        .since((2, 0), Sm(20))
        .mods(&["cc", "hi", "lo"]),
    // §9.7.3 Floating point.
    row("testp", Any, "9.7.3.1", Pure(float::testp))
        .since((2, 0), Sm(20))
        .mods(&[]),
    row("copysign", Any, "9.7.3.2", Pure(float::copysign))
        .since((2, 0), Sm(20))
        .mods(&[]),
    row("add", Float, "9.7.3.3", Pure(float_arith))
        .forms(F32_ARITH)
        .mods(&["ftz", "rm", "rn", "rp", "rz", "sat"]),
    row("sub", Float, "9.7.3.4", Pure(float_arith))
        .forms(F32_ARITH)
        .mods(&["ftz", "rm", "rn", "rp", "rz", "sat"]),
    // `.lo`/`.hi`/`.wide` on floats: the decoder's own message ("'mul' on floats takes no
    // .lo"; ptxas: "Unexpected instruction types specified for 'mul.lo'").
    row("mul", Float, "9.7.3.5", Pure(float_arith))
        .forms(F32_ARITH)
        .mods(&["ftz", "hi", "lo", "rm", "rn", "rp", "rz", "sat", "wide"]),
    row("fma", Float, "9.7.3.6", Pure(float_arith))
        .forms(FMA_FORMS)
        .mods(&["ftz", "rm", "rn", "rp", "rz", "sat"]),
    row("mad", Float, "9.7.3.7", Pure(float_arith))
        .forms(&[form(
            "mad.f32 with a rounding modifier",
            Mods(&[&["rn", "rz", "rm", "rp"], &["f32"]]),
            (2, 0),
            Sm(20),
        )])
        .mods(&["ftz", "hi", "lo", "rm", "rn", "rp", "rz", "sat", "wide"]),
    row("div", Float, "9.7.3.8", Pure(float_arith))
        .forms(ROUNDED_SM20)
        .mods(&["approx", "ftz", "full", "rm", "rn", "rp", "rz"]),
    row("abs", Float, "9.7.3.9", Pure(float::neg_abs)).mods(&["ftz"]),
    row("neg", Float, "9.7.3.10", Pure(float::neg_abs)).mods(&["ftz"]),
    row(
        "min",
        Float,
        "9.7.3.11",
        Pure(|b, cx| float::float_minmax(b, cx, false)),
    )
    .forms(&[
        form(".NaN", Mods(&[&["NaN"]]), (7, 0), Sm(80)),
        form(".xorsign.abs", Mods(&[&["xorsign"]]), (7, 2), Sm(86)),
        form(
            "min.f32 with 3 input operands",
            Operands(4),
            (8, 8),
            Sm(100),
        ),
    ])
    .mods(&["NaN", "abs", "ftz", "xorsign"]),
    row(
        "max",
        Float,
        "9.7.3.12",
        Pure(|b, cx| float::float_minmax(b, cx, true)),
    )
    .forms(&[
        form(".NaN", Mods(&[&["NaN"]]), (7, 0), Sm(80)),
        form(".xorsign.abs", Mods(&[&["xorsign"]]), (7, 2), Sm(86)),
        form(
            "max.f32 with 3 input operands",
            Operands(4),
            (8, 8),
            Sm(100),
        ),
    ])
    .mods(&["NaN", "abs", "ftz", "xorsign"]),
    // rcp.approx.ftz.f64 (§9.7.3.14) and rsqrt.approx.ftz.f64 (§9.7.3.17) are forms of these.
    row("rcp", Any, "9.7.3.13", Pure(float_unary))
        .forms(RCP_SM20)
        .mods(&["approx", "ftz", "rm", "rn", "rp", "rz"]),
    row("sqrt", Any, "9.7.3.15", Pure(float_unary))
        .forms(ROUNDED_SM20)
        .mods(&["approx", "ftz", "rm", "rn", "rp", "rz"]),
    row("rsqrt", Any, "9.7.3.16", Pure(float_unary))
        .forms(&[form(
            "rsqrt.approx.ftz.f64",
            Mods(&[&["ftz"], &["f64"]]),
            (4, 0),
            Sm(20),
        )])
        .mods(&["approx", "ftz"]),
    row("sin", Any, "9.7.3.18", Pure(float_unary))
        .forms(TWO_PI)
        .mods(&["2pi", "approx", "ftz"]),
    row("cos", Any, "9.7.3.19", Pure(float_unary))
        .forms(TWO_PI)
        .mods(&["2pi", "approx", "ftz"]),
    row("lg2", Any, "9.7.3.20", Pure(float_unary)).mods(&["approx", "ftz"]),
    row("ex2", Any, "9.7.3.21", Pure(float_unary)).mods(&["approx", "ftz"]),
    row("tanh", Any, "9.7.3.22", Pure(float_unary))
        .since((7, 0), Sm(75))
        .mods(&["approx"]),
    // §9.7.4 Half precision.
    row("add", Half, "9.7.4.1", Pure(half_arith))
        .since((4, 2), Sm(53))
        .forms(&[form("add.bf16", Mods(&[BF16]), (7, 8), Sm(90))])
        .mods(&["ftz", "rm", "rn", "rp", "rz", "sat"]),
    row("sub", Half, "9.7.4.2", Pure(half_arith))
        .since((4, 2), Sm(53))
        .forms(&[form("sub.bf16", Mods(&[BF16]), (7, 8), Sm(90))])
        .mods(&["ftz", "rm", "rn", "rp", "rz", "sat"]),
    row("mul", Half, "9.7.4.3", Pure(half_arith))
        .since((4, 2), Sm(53))
        .forms(&[form("mul.bf16", Mods(&[BF16]), (7, 8), Sm(90))])
        .mods(&["ftz", "rm", "rn", "rp", "rz", "sat"]),
    row("fma", Half, "9.7.4.4", Pure(half_fma))
        .since((4, 2), Sm(53))
        .forms(&[
            form(".bf16", Mods(&[BF16]), (7, 0), Sm(80)),
            form(".relu", Mods(&[&["relu"]]), (7, 0), Sm(80)),
            form(".oob", Mods(&[&["oob"]]), (8, 1), Sm(90)),
        ])
        .mods(&["ftz", "oob", "relu", "rm", "rn", "rp", "rz", "sat"]),
    // No `mad` row of this family: the ISA defines no half-precision `mad` (§9.7.4 has `fma`
    // only) and ptxas 13.5 refuses `mad.rn.f16` ("Unexpected instruction types specified for
    // 'mad'"), so `mad.rn.f16` is "mad has no half-precision form".
    row("neg", Half, "9.7.4.5", Pure(half_sign))
        .since((6, 0), Sm(53))
        .forms(&[form(".bf16", Mods(&[BF16]), (7, 0), Sm(80))])
        .mods(&["ftz"]),
    row("abs", Half, "9.7.4.6", Pure(half_sign))
        .since((6, 5), Sm(53))
        .forms(&[form(".bf16", Mods(&[BF16]), (7, 0), Sm(80))])
        .mods(&["ftz"]),
    row("min", Half, "9.7.4.7", Pure(half_minmax))
        .since((7, 0), Sm(80))
        .forms(HALF_XORSIGN)
        .mods(&["NaN", "abs", "ftz", "xorsign"]),
    row("max", Half, "9.7.4.8", Pure(half_minmax))
        .since((7, 0), Sm(80))
        .forms(HALF_XORSIGN)
        .mods(&["NaN", "abs", "ftz", "xorsign"]),
    row("tanh", Half, "9.7.4.9", Pure(half_approx))
        .since((7, 0), Sm(75))
        .forms(&[form("tanh.bf16", Mods(&[BF16]), (7, 8), Sm(90))])
        .mods(&["approx"]),
    row("ex2", Half, "9.7.4.10", Pure(half_approx))
        .since((7, 0), Sm(75))
        .forms(&[form("ex2.bf16", Mods(&[BF16]), (7, 8), Sm(90))])
        .mods(&["approx", "ftz"]),
    // §9.7.5 Mixed precision.
    row("add", Mixed, "9.7.5.1", Pure(mixed))
        .since((8, 6), Sm(100))
        .mods(&["rm", "rn", "rp", "rz", "sat"]),
    row("sub", Mixed, "9.7.5.2", Pure(mixed))
        .since((8, 6), Sm(100))
        .mods(&["rm", "rn", "rp", "rz", "sat"]),
    row("fma", Mixed, "9.7.5.3", Pure(mixed))
        .since((8, 6), Sm(100))
        .mods(&["rm", "rn", "rp", "rz", "sat"]),
    // §9.7.6 Comparison and selection.
    // `set` with a half-precision source (`set.lt.f16.f16` has two types, so this row takes it).
    row("set", Any, "9.7.6.1", Pure(cmp::set))
        .forms(SET_HALF)
        .mods(&[
            "and", "eq", "equ", "ftz", "ge", "geu", "gt", "gtu", "hi", "hs", "le", "leu", "lo",
            "ls", "lt", "ltu", "nan", "ne", "neu", "num", "or", "xor",
        ]),
    row("setp", Any, "9.7.6.2", Pure(cmp::setp)).mods(&[
        "and", "eq", "equ", "ftz", "ge", "geu", "gt", "gtu", "hi", "hs", "le", "leu", "lo", "ls",
        "lt", "ltu", "nan", "ne", "neu", "num", "or", "xor",
    ]),
    row("selp", Any, "9.7.6.3", Pure(cmp::selp)).mods(&[]),
    row("slct", Any, "9.7.6.4", Pure(cmp::slct)).mods(&["ftz"]),
    // §9.7.7 Half-precision comparison.
    // ptxas 12.9: "Feature 'f16 arithemetic and compare instructions' requires .target sm_53",
    // "Feature 'set.bf16x2' requires .target sm_90" (`setp.bf16` alike).
    row("set", Half, "9.7.7.1", Pure(cmp::set))
        .since((4, 2), Sm(53))
        .forms(HALF_CMP_BF16)
        .mods(&[
            "and", "eq", "equ", "ftz", "ge", "geu", "gt", "gtu", "hi", "hs", "le", "leu", "lo",
            "ls", "lt", "ltu", "nan", "ne", "neu", "num", "or", "xor",
        ]),
    row("setp", Half, "9.7.7.2", Pure(half_setp))
        .since((4, 2), Sm(53))
        .forms(HALF_CMP_BF16)
        .mods(&[
            "and", "eq", "equ", "ftz", "ge", "geu", "gt", "gtu", "hi", "hs", "le", "leu", "lo",
            "ls", "lt", "ltu", "nan", "ne", "neu", "num", "or", "xor",
        ]),
    // §9.7.8 Logic and shift.
    row("and", Any, "9.7.8.1", Pure(logic::bitwise)).mods(&[]),
    row("or", Any, "9.7.8.2", Pure(logic::bitwise)).mods(&[]),
    row("xor", Any, "9.7.8.3", Pure(logic::bitwise)).mods(&[]),
    row("not", Any, "9.7.8.4", Pure(logic::bitwise)).mods(&[]),
    row("cnot", Any, "9.7.8.5", Pure(logic::cnot)).mods(&[]),
    row("lop3", Any, "9.7.8.6", Pure(logic::lop3))
        .since((4, 3), Sm(50))
        .forms(&[form(
            "lop3 with a boolean operation",
            Mods(&[&["and", "or"]]),
            (8, 2),
            Sm(70),
        )])
        .mods(&["and", "or"]),
    row("shf", Any, "9.7.8.7", Pure(logic::shf))
        .since((3, 1), Sm(32))
        .mods(&["a", "b", "clamp", "g", "l", "r", "trap", "wrap", "zero"]),
    row("shl", Any, "9.7.8.8", Pure(logic::shift)).mods(&[]),
    row("shr", Any, "9.7.8.9", Pure(logic::shift)).mods(&[]),
    // §9.7.9 Data movement and conversion.
    row("mov", Any, "9.7.9.3", Pure(data::mov_any)).mods(&["v2", "v4", "v8"]),
    row("shfl", Any, "9.7.9.6", Effect(data::shfl))
        .since((3, 0), Sm(30))
        .forms(&[
            form("shfl.sync", Mods(&[&["sync"]]), (6, 0), AnyTarget),
            NO_MEMBERMASK_OVERLAP,
        ])
        .mods(&["bfly", "down", "idx", "no_membermask_overlap", "sync", "up"]),
    row("prmt", Any, "9.7.9.7", Pure(data::prmt))
        .since((2, 0), Sm(20))
        .mods(&["b4e", "ecl", "ecr", "f4e", "rc16", "rc8"]),
    row("ld", Any, "9.7.9.8", Effect(data::ld))
        .forms(&[
            form("Type .b128", Mods(&[&["b128"]]), (8, 3), Sm(70)),
            form(
                ".relaxed/.acquire",
                Mods(&[&["relaxed", "acquire"]]),
                (6, 0),
                Sm(70),
            ),
            // ptxas 13.5: "Feature '.proxy::readonly' requires .target sm_90 or higher",
            // "... requires PTX ISA .version 9.4 or later".
            form(
                "ld.proxy::readonly",
                Mods(&[&["proxy::readonly"]]),
                (9, 4),
                Sm(90),
            ),
        ])
        .mods(&[
            "L1::evict_first",
            "L1::evict_last",
            "L1::evict_normal",
            "L1::evict_unchanged",
            "L1::no_allocate",
            "L2::128B",
            "L2::256B",
            "L2::64B",
            "L2::evict_first",
            "L2::evict_last",
            "L2::evict_normal",
            "L2::evict_unchanged",
            "ca",
            "cg",
            "const",
            "cs",
            "cv",
            "global",
            "local",
            "lu",
            "nc",
            "param",
            "param::entry",
            "param::func",
            "proxy::readonly",
            "shared",
            "shared::cluster",
            "shared::cta",
            "v2",
            "v4",
            "v8",
        ]),
    row("ldu", Any, "9.7.9.10", Effect(data::ld)).mods(&[
        "const",
        "global",
        "local",
        "param",
        "param::entry",
        "param::func",
        "shared",
        "shared::cluster",
        "shared::cta",
        "v2",
        "v4",
        "v8",
    ]),
    row("st", Any, "9.7.9.11", Effect(data::st))
        .forms(&[
            form("Type .b128", Mods(&[&["b128"]]), (8, 3), Sm(70)),
            form(
                ".relaxed/.release",
                Mods(&[&["relaxed", "release"]]),
                (6, 0),
                Sm(70),
            ),
            form("st.async", Mods(&[&["async"]]), (8, 1), Sm(90)),
            form("st.bulk", Mods(&[&["bulk"]]), (8, 6), Sm(100)),
        ])
        .mods(&[
            "L1::evict_first",
            "L1::evict_last",
            "L1::evict_normal",
            "L1::evict_unchanged",
            "L1::no_allocate",
            "L2::evict_first",
            "L2::evict_last",
            "L2::evict_normal",
            "async",
            "bulk",
            "cg",
            "const",
            "cs",
            "global",
            "local",
            "mbarrier::complete_tx::bytes",
            "param",
            "param::entry",
            "param::func",
            "shared",
            "shared::cluster",
            "shared::cta",
            "v2",
            "v4",
            "v8",
            "wb",
            "wt",
        ]),
    row("prefetch", Any, "9.7.9.15", Effect(data::prefetch))
        .forms(&[form(
            "prefetch.tensormap",
            Mods(&[&["tensormap"]]),
            (8, 0),
            Sm(90),
        )])
        .mods(&[
            "const",
            "global",
            "L1",
            "L2",
            // §9.7.9.15 `.level::eviction_priority` is `.L2::evict_last` or
            // `.L2::evict_normal` (ptxas 13.5: "Illegal modifier '.evict_first' for
            // instruction 'prefetch'").
            "L2::evict_last",
            "L2::evict_normal",
            "local",
            "param",
            "param::entry",
            "param::func",
            "shared",
            "shared::cluster",
            "shared::cta",
            "tensormap",
        ]),
    row("prefetchu", Any, "9.7.9.15", Effect(data::prefetch)).mods(&["L1"]),
    row("createpolicy", Any, "9.7.9.18", Effect(data::createpolicy))
        .since((7, 4), Sm(80))
        .mods(&[
            "L1::evict_first",
            "L1::evict_last",
            "L1::evict_normal",
            "L1::evict_unchanged",
            "L1::no_allocate",
            "L2::evict_first",
            "L2::evict_last",
            "L2::evict_normal",
            "L2::evict_unchanged",
            "L2",
            "const",
            "cvt",
            "fractional",
            "global",
            "local",
            "param",
            "param::entry",
            "param::func",
            "range",
            "shared",
            "shared::cluster",
            "shared::cta",
        ]),
    row("isspacep", Any, "9.7.9.19", Effect(data::isspacep))
        .since((2, 0), Sm(20))
        .forms(PARAM_SPACE)
        .mods(&[
            "const",
            "global",
            "local",
            "param",
            "param::entry",
            "param::func",
            "shared",
            "shared::cluster",
            "shared::cta",
        ]),
    row("cvta", Any, "9.7.9.20", Pure(data::cvta))
        .since((2, 0), Sm(20))
        .forms(PARAM_SPACE)
        .mods(&[
            "const",
            "global",
            "local",
            "param",
            "param::entry",
            "param::func",
            "shared",
            "shared::cluster",
            "shared::cta",
            "to",
        ]),
    // The PTX ISA 9.1/9.2 forms (Table 63 "Arch-specific/Family-specific PTX Features
    // Release History" of the PTX ISA's release notes); the older narrow forms are not gated.
    // The PTX ISA 9.1/9.2 forms (Table 63 "Arch-specific/Family-specific PTX Features
    // Release History" of the PTX ISA's release notes), then the older forms as ptxas 12.9
    // gates them (its "Feature 'cvt with .f32.bf16' requires PTX ISA .version 7.1 or later"
    // and the like, checked form by form); the first form an instruction misses is reported.
    row("cvt", Any, "9.7.9.21", Pure(cvt::cvt))
        .forms(&[
            form(".s2f6x2", Mods(&[&["s2f6x2"]]), (9, 1), S2F6),
            form(
                ".e2m1x2/.e2m3x2/.e3m2x2 from .f16x2",
                Then(&["e2m1x2", "e2m3x2", "e3m2x2"], &["f16x2"]),
                (9, 1),
                NARROW_X2,
            ),
            form(
                ".e2m1x2/.e2m3x2/.e3m2x2/.e4m3x2/.e5m2x2 from .bf16x2",
                Then(NARROW, &["bf16x2"]),
                (9, 1),
                NARROW_X2,
            ),
            form(
                ".bf16x2 from .e2m1x2/.e2m3x2/.e3m2x2/.e4m3x2/.e5m2x2",
                Then(&["bf16x2"], NARROW),
                (9, 2),
                NARROW_X2,
            ),
            form(".bf16", Mods(&[&["bf16", "bf16x2"]]), (7, 0), Sm(80)),
            form(".f32.bf16", Then(&["f32"], &["bf16"]), (7, 1), Sm(80)),
            form(
                ".bf16 from an integer, .f16, .f64 or .bf16",
                Then(&["bf16"], BF16_PEERS),
                (7, 8),
                Sm(90),
            ),
            form(
                "an integer, .f16 or .f64 from .bf16",
                Then(BF16_PEERS, &["bf16"]),
                (7, 8),
                Sm(90),
            ),
            form(".tf32", Mods(&[&["tf32"]]), (7, 0), Sm(80)),
            form(
                ".tf32.f32 with .rn/.rz",
                Mods(&[&["tf32"], &["rn", "rz"]]),
                (7, 8),
                Sm(90),
            ),
            form(
                ".satfinite on .tf32.f32 with .rna",
                Mods(&[&["satfinite"], &["tf32"], &["rna"]]),
                (8, 1),
                AnyTarget,
            ),
            form(
                ".satfinite on .tf32.f32 with .rn/.rz",
                Mods(&[&["satfinite"], &["tf32"], &["rn", "rz"]]),
                (8, 6),
                Sm(100),
            ),
            form(
                ".satfinite on .f16/.bf16 (x2) from .f32",
                Mods(&[
                    &["satfinite"],
                    &["f16", "bf16", "f16x2", "bf16x2"],
                    &["f32"],
                ]),
                (8, 1),
                AnyTarget,
            ),
            // Introduced in PTX ISA 7.8 for sm_90; "PTX ISA version 8.1 ... Extends support for
            // cvt with .e4m3/.e5m2 to sm_89" (release notes), as ptxas 12.9 and 13 gate it.
            form(
                ".e4m3x2/.e5m2x2",
                Mods(&[&["e4m3x2", "e5m2x2"]]),
                (7, 8),
                Min::SmFrom(90, 89, Version(8, 1)),
            ),
            form(
                ".e2m1x2/.e2m3x2/.e3m2x2/.ue8m0x2",
                Mods(&[&["e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2"]]),
                (8, 6),
                NARROW_86,
            ),
            form(".rs", Mods(&[&["rs"]]), (8, 7), RS),
            // ptxas 12.9: "Feature 'cvt.f16x2.f32' requires .target sm_80", "Feature 'cvt.pack'
            // requires .target sm_72", "Feature '.s4' requires .target sm_75".
            form(
                ".f16x2 from .f32",
                Then(&["f16x2"], &["f32"]),
                (7, 0),
                Sm(80),
            ),
            form("cvt.pack", Mods(&[&["pack"]]), (6, 5), Sm(72)),
            form(
                "cvt.pack to .u4/.s4/.u2/.s2",
                Mods(&[&["pack"], &["u4", "s4", "u2", "s2"]]),
                (6, 5),
                Sm(75),
            ),
        ])
        // §9.7.9.21 and §9.7.9.22 (`cvt.pack`): the rounding words of the integer, float and
        // narrow float forms, `.ftz`, `.sat`, `.relu`, `.satfinite` and the scale.
        .mods(&[
            "ftz",
            "pack",
            "relu",
            "rm",
            "rmi",
            "rn",
            "rna",
            "rni",
            "rp",
            "rpi",
            "rs",
            "rz",
            "rzi",
            "sat",
            "satfinite",
            "scaled::n2::ue8m0",
        ]),
    row("cp", Any, "9.7.9.25", Effect(data::cp))
        .since((7, 0), Sm(80))
        .forms(&[
            form("cp.async.bulk", Mods(&[&["bulk"]]), (8, 0), Sm(90)),
            form(
                "cp.async.bulk.wait_group.sync_restrict::proxy::async",
                Mods(&[&["sync_restrict::proxy::async"]]),
                (9, 5),
                Sm(90),
            ),
            // §9.7.9.25.4.1 PTX ISA and Target ISA Notes.
            form(".cp_mask", Mods(&[&["cp_mask"]]), (8, 6), Sm(100)),
            // ptxas 13.5: "Feature 'cp.async.bulk.cluster' requires PTX ISA .version 9.3"
            // (the order `.relaxed.<scope>`; `.b128` alone it takes wherever the copy is).
            form(
                "cp.async.bulk.relaxed",
                Mods(&[&["relaxed"]]),
                (9, 3),
                Sm(90),
            ),
            // §9.7.9.25.4.1 and §9.7.9.25.5 PTX ISA and Target ISA Notes of `cp.async.bulk`
            // and `cp.async.bulk.tensor` (the forms' names as ptxas 12.9 words them).
            form(
                "cp.async.bulk{.tensor} with destination .shared::cta",
                ModsThen(&[&["bulk"]], "shared::cta", "global"),
                (8, 6),
                Sm(90),
            ),
            form(
                ".tile::gather4 with destination .shared::cluster",
                Mods(&[&["tile::gather4"], &["shared::cluster"]]),
                (8, 6),
                SM100A,
            ),
            form(
                ".im2col::w with destination .shared::cluster",
                Mods(&[&["im2col::w"], &["shared::cluster"]]),
                (8, 6),
                SM100A,
            ),
            form(
                ".tile::gather4",
                Mods(&[&["tile::gather4"]]),
                (8, 6),
                Sm(100),
            ),
            form(".im2col::w", Mods(&[&["im2col::w"]]), (8, 6), Sm(100)),
            form(
                ".tile::scatter4",
                Mods(&[&["tile::scatter4"]]),
                (8, 6),
                SM100A,
            ),
            form(
                ".im2col::w::128",
                Mods(&[&["im2col::w::128"]]),
                (8, 6),
                SM100A,
            ),
            // ptxas 12.9: "Feature '.cta_group::1' not supported on .target 'sm_100'".
            form(".cta_group::1", Mods(&[&["cta_group::1"]]), (8, 6), SM100A),
            form(".cta_group::2", Mods(&[&["cta_group::2"]]), (8, 6), SM100A),
        ])
        // §9.7.9.25: `cp.async` (cache operator, prefetch size, groups,
        // `cp.async.mbarrier.arrive{.noinc}`), `cp.async.bulk{.prefetch}{.tensor}`,
        // `cp.reduce.async.bulk{.tensor}` (`.L2::cache_hint` is dropped before the check).
        .mods(&[
            "1d",
            "2d",
            "3d",
            "4d",
            "5d",
            "add",
            "and",
            "arrive",
            "async",
            "bulk",
            "bulk_group",
            "ca",
            "cg",
            "commit_group",
            "cp_mask",
            "cta_group::1",
            "cta_group::2",
            "dec",
            "global",
            "im2col",
            "im2col::w",
            "im2col::w::128",
            "im2col_no_offs",
            "inc",
            "L2",
            "L2::128B",
            "L2::256B",
            "L2::64B",
            "max",
            "mbarrier",
            "mbarrier::complete_tx::bytes",
            "min",
            "multicast::cluster",
            "noftz",
            "noinc",
            "or",
            "prefetch",
            "read",
            "reduce",
            "shared",
            "shared::cluster",
            "shared::cta",
            "sync_restrict::proxy::async",
            "tensor",
            "tile",
            "tile::gather4",
            "tile::scatter4",
            "wait_all",
            "wait_group",
            "xor",
        ]),
    // §9.7.10 Texture and §9.7.11 surface instructions.
    // ptxas 13.5 also takes `.uni` on `tex` (`tex.uni.2d.v4.f32.f32` assembles), a word the
    // §9.7.10.3 syntax does not give it: a uniformity hint with no effect on the result, so it
    // is taken and ignored.
    row("tex", Any, "9.7.10.3", Effect(tex::tex)).mods(&[
        "1d", "2d", "2dms", "3d", "a1d", "a2d", "a2dms", "acube", "base", "cube", "grad", "level",
        "uni", "v2", "v4",
    ]),
    row("tld4", Any, "9.7.10.4", Effect(tex::tld4)).mods(&[
        "1d", "2d", "2dms", "3d", "a", "a1d", "a2d", "a2dms", "acube", "all", "any", "b", "ballot",
        "cube", "g", "l", "r", "uni", "v2", "v4", "v8",
    ]),
    // ptxas 13.5 also takes `.memory_layout` (the `suq` query, PTX ISA §9.7.11.4) on `txq`.
    row("txq", Any, "9.7.10.5", Effect(tex::txq)).mods(&[
        "addr_mode_0",
        "addr_mode_1",
        "addr_mode_2",
        "array_size",
        "base",
        "channel_data_type",
        "channel_order",
        "depth",
        "filter_mode",
        "force_unnormalized_coords",
        "grad",
        "height",
        "level",
        "memory_layout",
        "normalized_coords",
        "num_mipmap_levels",
        "num_samples",
        "width",
    ]),
    row("istypep", Any, "9.7.10.6", Effect(tex::istypep))
        .since((4, 0), Sm(30))
        .mods(&[]),
    // The cache operators as ptxas 13.5 takes them: `suld` `.ca .cg .cs .cv`, `sust` `.wb .cg
    // .cs .wt` ("Illegal modifier '.wb' for instruction 'suld.b'", "… '.ca' for instruction
    // 'sust.b'").
    row("suld", Any, "9.7.11.1", Effect(tex::suld)).mods(&[
        "1d", "2d", "2dms", "3d", "a", "a1d", "a2d", "a2dms", "acube", "b", "ca", "cg", "clamp",
        "cs", "cube", "cv", "g", "r", "trap", "v2", "v4", "v8", "wrap", "zero",
    ]),
    row("sust", Any, "9.7.11.2", Effect(tex::sust)).mods(&[
        "1d", "2d", "2dms", "3d", "a", "a1d", "a2d", "a2dms", "acube", "b", "cg", "clamp", "cs",
        "cube", "g", "p", "r", "trap", "v2", "v4", "v8", "wb", "wrap", "wt", "zero",
    ]),
    // `.op` is `.add`, `.min`, `.max`, `.and` or `.or` (PTX ISA §9.7.11.3); ptxas 13.5 takes each
    // (`sured.b.min.2d.u32`, `sured.b.and.2d.b32`), and `sured.p` on `.b32` and `.b64`.
    row("sured", Any, "9.7.11.3", Effect(tex::sured)).mods(&[
        "1d", "2d", "2dms", "3d", "a", "a1d", "a2d", "a2dms", "acube", "add", "and", "b", "clamp",
        "cube", "g", "max", "min", "or", "p", "r", "trap", "wrap", "zero",
    ]),
    // The `.query` words of PTX ISA §9.7.11.4; ptxas 13.5 refuses the sampler and
    // texture-only ones (`suq.normalized_coords`: "Illegal query modifier for instruction
    // 'suq'").
    row("suq", Any, "9.7.11.4", Effect(tex::suq)).mods(&[
        "array_size",
        "channel_data_type",
        "channel_order",
        "depth",
        "height",
        "memory_layout",
        "width",
    ]),
    // §9.7.12 Control flow.
    row("bra", Any, "9.7.12.3", G(control)).mods(&["all", "any", "ballot", "uni"]),
    // ptxas 13.5: "Illegal modifier '.all' for instruction 'brx.idx'" (and `.any`, `.ballot`,
    // `.up`, `.down`, `.bfly`).
    row("brx", Any, "9.7.12.4", G(super::super::call::brx)).mods(&["idx", "uni"]),
    row("call", Any, "9.7.12.5", G(super::super::call::call))
        .mods(&["all", "any", "ballot", "uni"]),
    row("ret", Any, "9.7.12.6", G(control)).mods(&["all", "any", "ballot", "uni"]),
    row("exit", Any, "9.7.12.7", G(control)).mods(&[]),
    // §9.7.13 Parallel synchronization and communication.
    row("bar", Any, "9.7.13.1", G(super::super::collective::barrier))
        .forms(&[
            form("bar.warp.sync", Mods(&[&["warp"]]), (6, 0), Sm(30)),
            NO_MEMBERMASK_OVERLAP,
        ])
        .mods(&[
            "and",
            "arrive",
            "no_membermask_overlap",
            "or",
            "popc",
            "red",
            "sync",
            "warp",
            "xor",
        ]),
    row("barrier", Any, "9.7.13.1", G(barrier_any))
        .since((6, 0), Sm(30))
        .forms(&[form(
            "barrier.cluster",
            Mods(&[&["cluster"]]),
            (7, 8),
            Sm(90),
        )])
        .mods(&[
            "aligned", "and", "arrive", "or", "popc", "red", "sync", "wait", "xor",
        ]),
    // The §9.7.13.4 syntax also lists `membar.proxy.async.global` and the like, which ptxas
    // 13.5 refuses ("State space incorrect for instruction 'membar.proxy'"): the list takes
    // their words and the decoder refuses them ("membar.proxy takes .alias or .async").
    row("membar", Any, "9.7.13.4", Effect(sync::fence))
        .forms(&[form(
            "membar.proxy.alias",
            Mods(&[&["alias"]]),
            (7, 5),
            Sm(60),
        )])
        .mods(&[
            "alias",
            "async",
            "gl",
            "global",
            "proxy",
            "shared::cluster",
            "shared::cta",
        ]),
    row("fence", Any, "9.7.13.4", Effect(sync::fence))
        .since((6, 0), Sm(70))
        .forms(&[
            form("fence.proxy.alias", Mods(&[&["alias"]]), (7, 5), Sm(70)),
            // ptxas 12.9: "Feature '.op_restrict' requires .target sm_90", "Feature
            // '.sync_restrict' requires PTX ISA .version 8.6", "'fence.proxy with
            // unidirection proxy fence' requires PTX ISA .version 8.3 … sm_90".
            form(
                "fence.mbarrier_init",
                Mods(&[&["mbarrier_init"]]),
                (8, 0),
                Sm(90),
            ),
            form(
                ".sync_restrict::shared",
                Mods(&[&[
                    "sync_restrict::shared::cta",
                    "sync_restrict::shared::cluster",
                    "sync_restrict::shared::cluster::read",
                ]]),
                (8, 6),
                Sm(90),
            ),
            form(
                "fence.proxy.async::generic",
                Mods(&[&["async::generic"]]),
                (8, 3),
                Sm(90),
            ),
            // ptxas 13.5: "Feature 'fence.proxy' requires PTX ISA .version 9.4" with it.
            form(
                ".sync_restrict::shared::cluster::read",
                Mods(&[&["sync_restrict::shared::cluster::read"]]),
                (9, 4),
                Sm(90),
            ),
            form(
                "fence.alias.sync_restrict::read",
                Mods(&[&["sync_restrict::read"]]),
                (9, 5),
                Sm(90),
            ),
            form("fence.proxy.async", Mods(&[&["async"]]), (8, 0), Sm(90)),
            form(
                "fence.proxy.tensormap",
                Mods(&[&["tensormap::generic"]]),
                (8, 3),
                Sm(90),
            ),
        ])
        .mods(&[
            "alias",
            "async",
            "async::generic",
            "global",
            "mbarrier_init",
            "proxy",
            "shared::cluster",
            "shared::cta",
            "sync_restrict::read",
            "sync_restrict::shared::cluster",
            "sync_restrict::shared::cluster::read",
            "sync_restrict::shared::cta",
            "tensormap::generic",
        ]),
    row("atom", Any, "9.7.13.5", Effect(sync::atom_any))
        .forms(&[
            form(
                ".relaxed/.acquire/.release/.acq_rel",
                Mods(&[&["relaxed", "acquire", "release", "acq_rel"]]),
                (6, 0),
                Sm(70),
            ),
            form("atom .b128", Mods(&[&["b128"]]), (8, 3), Sm(90)),
            form(
                ".b128 with .sys",
                Mods(&[&["b128"], &["sys"]]),
                (8, 4),
                Sm(90),
            ),
        ])
        .mods(ATOM),
    row("red", Any, "9.7.13.6", Effect(sync::red))
        .forms(&[
            form(
                ".relaxed/.release",
                Mods(&[&["relaxed", "release"]]),
                (6, 0),
                Sm(70),
            ),
            form("red.async", Mods(&[&["async"]]), (8, 1), Sm(90)),
        ])
        .mods(RED),
    row("vote", Any, "9.7.13.9", Effect(collective_ops))
        .forms(&[
            form("vote.sync", Mods(&[&["sync"]]), (6, 0), Sm(30)),
            form("vote.ballot", Mods(&[&["ballot"]]), (2, 0), Sm(20)),
            NO_MEMBERMASK_OVERLAP,
        ])
        .mods(&[
            "all",
            "any",
            "ballot",
            "no_membermask_overlap",
            "sync",
            "uni",
        ]),
    row("match", Any, "9.7.13.10", Effect(collective_ops))
        .since((6, 0), Sm(70))
        .forms(&[NO_MEMBERMASK_OVERLAP])
        .mods(&["all", "any", "no_membermask_overlap", "sync"]),
    row("activemask", Any, "9.7.13.11", Effect(collective_ops))
        .since((6, 2), Sm(30))
        .mods(&[]),
    row("redux", Any, "9.7.13.12", Effect(collective_ops))
        .since((7, 0), Sm(80))
        .forms(&[
            form("redux.f32", Mods(&[&["f32"]]), (8, 6), SM100A),
            NO_MEMBERMASK_OVERLAP,
        ])
        .mods(&[
            "NaN",
            "abs",
            "add",
            "and",
            "max",
            "min",
            "no_membermask_overlap",
            "or",
            "sync",
            "xor",
        ]),
    row(
        "griddepcontrol",
        Any,
        "9.7.13.13",
        Effect(|_, cx| bulk::griddepcontrol(cx)),
    )
    .since((7, 8), Sm(90))
    .mods(&["launch_dependents", "wait"]),
    row("elect", Any, "9.7.13.14", Effect(collective_ops))
        .since((8, 0), Sm(90))
        .mods(&["sync"]),
    row("mbarrier", Any, "9.7.13.15", Effect(mbar::mbarrier))
        .since((7, 0), Sm(80))
        .forms(&[
            form("mbarrier.try_wait", Mods(&[&["try_wait"]]), (7, 8), Sm(90)),
            form(
                "mbarrier.expect_tx",
                Mods(&[&["expect_tx"]]),
                (8, 0),
                Sm(90),
            ),
            form(
                ".cluster scope",
                Mods(&[&["cluster", "shared::cluster"]]),
                (8, 0),
                Sm(90),
            ),
        ])
        .mods(&[
            "arrive",
            "arrive_drop",
            "complete_tx",
            "expect_tx",
            "init",
            "inval",
            "noComplete",
            "parity",
            "pending_count",
            "shared",
            "shared::cluster",
            "shared::cta",
            "test_wait",
            "try_wait",
        ]),
    // §9.7.14 Warp-level matrix multiply-accumulate.
    row("wmma", Any, "9.7.14.4", Effect(mma::wmma))
        .since((6, 0), Sm(70))
        .forms(&[
            form("wmma with .f64", Mods(&[&["f64"]]), (7, 0), Sm(80)),
            form(
                "wmma with .s4/.u4/.b1",
                Mods(&[&["s4", "u4", "b1"]]),
                (6, 3),
                Sm(75),
            ),
            form("wmma.mma .and.popc", Mods(&[&["and"]]), (7, 1), Sm(80)),
        ])
        .mods(&[
            "a",
            "aligned",
            "and",
            "b",
            "c",
            "col",
            "const",
            "d",
            "g",
            "global",
            "load",
            "local",
            "mma",
            "param",
            "param::entry",
            "param::func",
            "popc",
            "r",
            "rm",
            "rn",
            "row",
            "rp",
            "rz",
            "satfinite",
            "shared",
            "shared::cluster",
            "shared::cta",
            "store",
            "sync",
            "xor",
        ]),
    row("mma", Any, "9.7.14.5.14", Effect(mma::mma))
        .since((6, 4), Sm(70))
        .forms(MMA_FORMS)
        // §9.7.14.5.14 and §9.7.14.6 (`.sp`); the `.kind`/`.block_scale` words of the
        // sm_120a forms. ptxas 13.5 also takes `.kind::f16` and `.kind::i8` on `mma` under
        // `-arch=sm_100a` (and refuses `.kind::tf32`: "Illegal modifier '.kind::tf32' for
        // instruction 'mma'"), so they are words of the list.
        .mods(&[
            "aligned",
            "and",
            "block_scale",
            "col",
            "kind::f16",
            "kind::f8f6f4",
            "kind::i8",
            "kind::mxf4",
            "kind::mxf4nvf4",
            "kind::mxf8f6f4",
            "popc",
            "rm",
            "rn",
            "row",
            "rp",
            "rz",
            "satfinite",
            "scale_vec::1X",
            "scale_vec::2X",
            "scale_vec::4X",
            "sp",
            "sp::ordered_metadata",
            "sync",
            "xor",
        ]),
    row("ldmatrix", Any, "9.7.14.5.15", Effect(mma::ldmatrix))
        .since((6, 5), Sm(75))
        // ptxas 13.5: "Modifier '.m16n16' requires PTX ISA .version 8.6 or later", "Feature
        // 'ldmatrix with format conversion' not supported on .target 'sm_100'".
        .forms(&[form(
            "ldmatrix .m16n16/.m8n16 (8-bit and packed 6-/4-bit elements)",
            Mods(&[&["m16n16", "m8n16", "b8", "b8x16"]]),
            (8, 6),
            MATRIX_MOVE_B8,
        )])
        .mods(&[
            "aligned",
            "const",
            "global",
            "local",
            "param",
            "param::entry",
            "param::func",
            "shared",
            "shared::cluster",
            "shared::cta",
            "sync",
            "trans",
            "x1",
            "x2",
            "x4",
        ]),
    // `.num` is `.x1`, `.x2` or `.x4` (PTX ISA §9.7.14.5.16).
    row("stmatrix", Any, "9.7.14.5.16", Effect(mma::stmatrix))
        .since((7, 8), Sm(90))
        // ptxas 13.5: "Feature 'stmatrix.b8' requires PTX ISA .version 8.6 or later".
        .forms(&[form(
            "stmatrix .m16n8 (8-bit elements)",
            Mods(&[&["m16n8", "b8"]]),
            (8, 6),
            MATRIX_MOVE_B8,
        )])
        .mods(&[
            "aligned",
            "const",
            "global",
            "local",
            "param",
            "param::entry",
            "param::func",
            "shared",
            "shared::cluster",
            "shared::cta",
            "sync",
            "trans",
            "x1",
            "x2",
            "x4",
        ]),
    row("movmatrix", Any, "9.7.14.5.17", Effect(mma::movmatrix))
        .since((7, 8), Sm(75))
        .mods(&["aligned", "sync", "trans"]),
    // §9.7.15 Asynchronous warpgroup-level matrix multiply-accumulate.
    row("wgmma", Any, "9.7.15", Effect(wgmma::wgmma))
        .since((8, 0), SM90A)
        .forms(&[
            // ptxas 12.9: "Feature 'Sparse WGMMA with floating point types' requires PTX ISA
            // .version 8.2", "Feature 'WGMMA with mixed integer types' requires … 8.4".
            form("wgmma.mma_async.sp", Mods(&[&["sp"]]), (8, 2), SM90A),
            form(
                "wgmma with mixed integer types",
                Then(&["s8"], &["u8"]),
                (8, 4),
                SM90A,
            ),
            form(
                "wgmma with mixed integer types",
                Then(&["u8"], &["s8"]),
                (8, 4),
                SM90A,
            ),
        ])
        // §9.7.15.5-7: `wgmma.{fence,commit_group,wait_group}.sync.aligned`,
        // `wgmma.mma_async{.sp}.sync.aligned…{.satfinite}` and the `.b1` form's `.and.popc`.
        .mods(&[
            "aligned",
            "and",
            "col",
            "commit_group",
            "fence",
            "mma_async",
            "popc",
            "row",
            "satfinite",
            "sp",
            "sync",
            "wait_group",
        ]),
    // §9.7.17 Stack manipulation.
    row("stacksave", Any, "9.7.17.1", Effect(stack_op))
        .since((7, 3), Sm(52))
        .mods(&[]),
    row("stackrestore", Any, "9.7.17.2", Effect(stack_op))
        .since((7, 3), Sm(52))
        .mods(&[]),
    row("alloca", Any, "9.7.17.3", Effect(stack_op))
        .since((7, 3), Sm(52))
        .mods(&[]),
    // §9.7.18 Video: scalar (§9.7.18.1), two-way and four-way SIMD (§9.7.18.2-3).
    row("vadd", Any, "9.7.18.1.1", Pure(video_op))
        .since((2, 0), Sm(20))
        .mods(VIDEO_SCALAR),
    row("vsub", Any, "9.7.18.1.1", Pure(video_op))
        .since((2, 0), Sm(20))
        .mods(VIDEO_SCALAR),
    row("vabsdiff", Any, "9.7.18.1.1", Pure(video_op))
        .since((2, 0), Sm(20))
        .mods(VIDEO_SCALAR),
    row("vmin", Any, "9.7.18.1.1", Pure(video_op))
        .since((2, 0), Sm(20))
        .mods(VIDEO_SCALAR),
    row("vmax", Any, "9.7.18.1.1", Pure(video_op))
        .since((2, 0), Sm(20))
        .mods(VIDEO_SCALAR),
    row("vshl", Any, "9.7.18.1.2", Pure(video_op))
        .since((2, 0), Sm(20))
        .mods(VIDEO_SHIFT),
    row("vshr", Any, "9.7.18.1.2", Pure(video_op))
        .since((2, 0), Sm(20))
        .mods(VIDEO_SHIFT),
    row("vmad", Any, "9.7.18.1.3", Pure(video_op))
        .since((2, 0), Sm(20))
        .mods(VIDEO_MAD),
    row("vset", Any, "9.7.18.1.4", Pure(video_op))
        .since((2, 0), Sm(20))
        .mods(VIDEO_SET),
    row("vadd2", Any, "9.7.18.2.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vsub2", Any, "9.7.18.2.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vavrg2", Any, "9.7.18.2.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vabsdiff2", Any, "9.7.18.2.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vmin2", Any, "9.7.18.2.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vmax2", Any, "9.7.18.2.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vset2", Any, "9.7.18.2.2", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD_SET),
    row("vadd4", Any, "9.7.18.3.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vsub4", Any, "9.7.18.3.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vavrg4", Any, "9.7.18.3.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vabsdiff4", Any, "9.7.18.3.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vmin4", Any, "9.7.18.3.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vmax4", Any, "9.7.18.3.1", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD),
    row("vset4", Any, "9.7.18.3.2", Pure(video_op))
        .since((3, 0), Sm(30))
        .mods(VIDEO_SIMD_SET),
    // §9.7.19 Miscellaneous: debugging and performance-monitor hints and sleeps have no
    // effect on the CPU.
    row("brkpt", Any, "9.7.19.1", G(no_effect)).mods(&[]),
    // The ISA's PTX ISA Notes say 6.3; ptxas 12.9 accepts `nanosleep` under `.version 6.2`
    // (and rejects it under 6.1), and a module NVIDIA's assembler takes must load.
    row("nanosleep", Any, "9.7.19.2", G(nanosleep))
        .since((6, 2), Sm(70))
        .mods(&[]),
    row("pmevent", Any, "9.7.19.3", G(no_effect))
        .forms(&[form("pmevent.mask", Mods(&[&["mask"]]), (3, 0), Sm(20))])
        .mods(&["mask"]),
    row("trap", Any, "9.7.19.4", G(control)).mods(&[]),
    row(
        "setmaxnreg",
        Any,
        "9.7.19.5",
        Effect(|_, cx| bulk::setmaxnreg(cx)),
    )
    .since((8, 0), SETMAXNREG)
    .mods(&["aligned", "dec", "inc", "sync"]),
    // The fabric instructions (PTX ISA 9.3 and 9.5; the stored PTX ISA 9.1 text has no
    // section for them: see [`FABRIC`]).
    row("fabric", Any, FABRIC, G(fabric))
        .since((9, 3), Sm(100))
        .forms(&[
            // ptxas 13.5: "Feature 'fabric.submit.commit_group' requires PTX ISA .version 9.5
            // or later", "Feature '.sync_restrict::read' requires PTX ISA .version 9.5".
            form(
                "fabric.submit.commit_group",
                Mods(&[&["commit_group"]]),
                (9, 5),
                Sm(100),
            ),
            form(
                "fabric.wait.sync_restrict::read",
                Mods(&[&["sync_restrict::read"]]),
                (9, 5),
                Sm(100),
            ),
        ])
        .mods(&[
            "commit_group",
            "op_restrict::fetching",
            "submit",
            "sync_restrict::read",
            "sync_restrict::reads",
            "wait",
        ]),
    // ---- Opcodes of several chapters decoded in files of their own. ----
    // `mapa` (§9.7.9.23), `getctarank` (§9.7.9.24) in `decode_cluster.rs`; `multimem.*`
    // (§9.7.9.14), `applypriority` (§9.7.9.16), `discard` (§9.7.9.17) in `decode_memops.rs`;
    // `tensormap.replace` (§9.7.9.26) and `tensormap.cp_fenceproxy` (§9.7.13.16) in
    // `decode_tma.rs`; `clusterlaunchcontrol.*` (§9.7.13.17) in `decode_clc.rs`; `tcgen05.*`
    // (§9.7.16) in `decode_tcgen05.rs`. Forms of opcodes above: `barrier.cluster` (§9.7.13.3)
    // in `decode_cluster.rs`, `st.bulk` (§9.7.9.13) in `data::st` (to `memops::st_bulk`),
    // `cp.async.bulk.tensor` (§9.7.9.25.5) in `data::cp`, `mma.sp` (§9.7.14.6) in `mma::mma`.
    row(
        "mapa",
        Any,
        "9.7.9.23",
        Effect(|b, cx| cluster::map(b, cx, true)),
    )
    .since((7, 8), Sm(90))
    .mods(&[
        "const",
        "global",
        "local",
        "param",
        "param::entry",
        "param::func",
        "shared",
        "shared::cluster",
        "shared::cta",
    ]),
    row(
        "getctarank",
        Any,
        "9.7.9.24",
        Effect(|b, cx| cluster::map(b, cx, false)),
    )
    .since((7, 8), Sm(90))
    .mods(&[
        "const",
        "global",
        "local",
        "param",
        "param::entry",
        "param::func",
        "shared",
        "shared::cluster",
        "shared::cta",
    ]),
    row("multimem", Any, "9.7.9.14", Effect(memops::multimem))
        .since((8, 1), Sm(90))
        .forms(&[
            // §9.7.9.25.4.4-5 PTX ISA and Target ISA Notes.
            form(
                "multimem.cp{.reduce}.async.bulk",
                Mods(&[&["cp"]]),
                (9, 1),
                Sm(90),
            ),
            form(
                "multimem.cp.async.bulk .cp_mask",
                Mods(&[&["cp"], &["cp_mask"]]),
                (9, 1),
                Sm(100),
            ),
            // ptxas 13.5: "Feature 'multimem.st.async' requires PTX ISA .version 9.3 or
            // later", "... requires .target sm_100 or higher".
            form(
                "multimem.st.async/multimem.red.async",
                Mods(&[&["async"], &["st", "red"]]),
                (9, 3),
                Sm(100),
            ),
        ])
        // §9.7.9.14 `multimem.ld_reduce/st/red` (the `.acc::f16`/`.acc::f32` accumulations are
        // [`UNCHECKED`] words) and §9.7.9.25.4.4-5 `multimem.cp{.reduce}.async.bulk`.
        .mods(&[
            "add",
            "and",
            "async",
            "bulk",
            "bulk_group",
            "cp",
            "cp_mask",
            "dec",
            "global",
            "inc",
            "ld_reduce",
            "max",
            "min",
            "noftz",
            "or",
            "red",
            "reduce",
            "shared::cta",
            "st",
            "v2",
            "v4",
            "v8",
            "xor",
        ]),
    row("applypriority", Any, "9.7.9.16", Effect(memops::cache_hint))
        .since((7, 4), Sm(80))
        .mods(&[
            "L2::evict_first",
            "L2::evict_last",
            "L2::evict_normal",
            "L2::evict_unchanged",
            "const",
            "global",
            "local",
            "param",
            "param::entry",
            "param::func",
            "shared",
            "shared::cluster",
            "shared::cta",
        ]),
    row("discard", Any, "9.7.9.17", Effect(memops::cache_hint))
        .since((7, 4), Sm(80))
        .mods(&[
            "L2",
            "const",
            "global",
            "local",
            "param",
            "param::entry",
            "param::func",
            "shared",
            "shared::cluster",
            "shared::cta",
        ]),
    row("tensormap", Any, "9.7.9.26", Effect(tma::tensormap))
        .since((8, 3), Sm(90))
        .forms(&[
            form(
                "tensormap.replace",
                Mods(&[&["replace"]]),
                (8, 3),
                TENSORMAP_REPLACE,
            ),
            form(
                "tensormap.replace.swizzle_atomicity",
                Mods(&[&["replace"], &["swizzle_atomicity"]]),
                (8, 6),
                SWIZZLE_ATOMICITY,
            ),
            form(
                "tensormap.replace.elemtype with a value of 13 to 15",
                Imm(&[&["replace"], &["elemtype"]], 1, 13, 15),
                (8, 7),
                SWIZZLE_ATOMICITY,
            ),
            form(
                "tensormap.replace.swizzle_mode with the value 4",
                Imm(&[&["replace"], &["swizzle_mode"]], 1, 4, 4),
                (8, 8),
                SWIZZLE_96B,
            ),
            // PTX ISA 9.5 (ptxas 13.5: "Feature 'tensormap.replace.alloc_large' requires PTX
            // ISA .version 9.5 or later", "Instruction 'tensormap.query.alloc_class_large' not
            // supported on .target 'sm_100'"): the targets of tensormap.replace.
            form(
                "tensormap.replace with .alloc_small/.alloc_large/.alloc_same",
                Mods(&[&["replace"], &["alloc_small", "alloc_large", "alloc_same"]]),
                (9, 5),
                TENSORMAP_REPLACE,
            ),
            form(
                "tensormap.query.alloc_class_large",
                Mods(&[&["query"]]),
                (9, 5),
                TENSORMAP_REPLACE,
            ),
        ])
        .mods(&[
            "aligned",
            "alloc_class_large",
            "alloc_large",
            "alloc_same",
            "alloc_small",
            "const",
            "cp_fenceproxy",
            "global",
            "local",
            "param",
            "param::entry",
            "param::func",
            "query",
            "replace",
            "shared",
            "shared::cluster",
            "shared::cta",
            "sync",
            "tensormap::generic",
            "tile",
        ]),
    row(
        "clusterlaunchcontrol",
        Any,
        "9.7.13.17",
        Effect(clc::clusterlaunchcontrol),
    )
    .since((8, 6), Sm(100))
    .forms(&[form(
        ".multicast::cluster::all",
        Mods(&[&["multicast::cluster::all"]]),
        (8, 6),
        CLC_MULTICAST,
    )])
    .mods(&[
        "async",
        "const",
        "get_first_ctaid",
        "get_first_ctaid::x",
        "get_first_ctaid::y",
        "get_first_ctaid::z",
        "global",
        "is_canceled",
        "local",
        "mbarrier::complete_tx::bytes",
        "multicast::cluster::all",
        "param",
        "param::entry",
        "param::func",
        "query_cancel",
        "shared",
        "shared::cluster",
        "shared::cta",
        "try_cancel",
        "v2",
        "v4",
        "v8",
    ]),
    row("tcgen05", Any, "9.7.16", Effect(tcgen05::tcgen05))
        .since((8, 6), SM100A)
        .forms(&[
            form("tcgen05.ld.red", Mods(&[&["ld"], &["red"]]), (8, 8), LD_RED),
            form(
                "tcgen05.mma .kind::i8",
                Mods(&[&["mma"], &["kind::i8"]]),
                (8, 6),
                KIND_I8,
            ),
            form(
                "tcgen05.mma .scale_vec::NX",
                Mods(&[
                    &["mma"],
                    &["scale_vec::1X", "scale_vec::2X", "scale_vec::4X"],
                ]),
                (8, 6),
                SCALE_VEC,
            ),
            form(
                "tcgen05.mma .kind::mxf4nvf4",
                Mods(&[&["mma"], &["kind::mxf4nvf4"]]),
                (8, 7),
                SM100A,
            ),
            form(
                "tcgen05.mma .scale_vec::4X",
                Mods(&[&["mma"], &["scale_vec::4X"]]),
                (8, 7),
                SM100A,
            ),
            form(
                "tcgen05.mma .block16/.block32",
                Mods(&[&["mma"], &["block16", "block32"]]),
                (8, 8),
                SM100A,
            ),
        ])
        // §9.7.16: alloc/dealloc/relinquish_alloc_permit, fence, commit, wait, ld{.red}/st,
        // cp, shift and mma{.sp}{.ws} with their shapes, counts, kinds, scales and collector
        // usages (the `.cp` formats `.b6x16_p32`/`.b4x16_p64` are [`UNCHECKED`] words).
        .mods(&[
            "128x128b",
            "128x256b",
            "16x128b",
            "16x256b",
            "16x32bx2",
            "16x64b",
            "32x128b",
            "32x32b",
            "4x256b",
            "64x128b",
            "abs",
            "aligned",
            "alloc",
            "ashift",
            "block16",
            "block32",
            "block_scale",
            "collector::a::discard",
            "collector::a::fill",
            "collector::a::lastuse",
            "collector::a::use",
            "collector::b0::discard",
            "collector::b0::fill",
            "collector::b0::lastuse",
            "collector::b0::use",
            "collector::b1::discard",
            "collector::b1::fill",
            "collector::b1::lastuse",
            "collector::b1::use",
            "collector::b2::discard",
            "collector::b2::fill",
            "collector::b2::lastuse",
            "collector::b2::use",
            "collector::b3::discard",
            "collector::b3::fill",
            "collector::b3::lastuse",
            "collector::b3::use",
            "commit",
            "cp",
            "cta_group::1",
            "cta_group::2",
            "dealloc",
            "down",
            "fence::after_thread_sync",
            "fence::before_thread_sync",
            "kind::f16",
            "kind::f8f6f4",
            "kind::i8",
            "kind::mxf4",
            "kind::mxf4nvf4",
            "kind::mxf8f6f4",
            "kind::tf32",
            "ld",
            "max",
            "mbarrier::arrive::one",
            "min",
            "mma",
            "multicast::cluster",
            "NaN",
            "pack::16b",
            "red",
            "relinquish_alloc_permit",
            "scale_vec::1X",
            "scale_vec::2X",
            "scale_vec::4X",
            "shared::cluster",
            "shared::cta",
            "shift",
            "sp",
            "st",
            "sync",
            "unpack::16b",
            "wait::ld",
            "wait::st",
            "warpx2::01_23",
            "warpx2::02_13",
            "warpx4",
            "ws",
            "x1",
            "x128",
            "x16",
            "x2",
            "x32",
            "x4",
            "x64",
            "x8",
        ]),
];

/// Forms of an opcode that the ISA describes in a section of their own, apart from the
/// section of the opcode's row: (form, section).
pub(super) static FORM_SECTIONS: &[(&str, &str)] = &[
    ("rcp.approx.ftz.f64", "9.7.3.14"),
    ("rsqrt.approx.ftz.f64", "9.7.3.17"),
    ("ld.global.nc", "9.7.9.9"),
    ("st.async", "9.7.9.12"),
    ("st.bulk", "9.7.9.13"),
    ("cvt.pack", "9.7.9.22"),
    ("bar.warp.sync", "9.7.13.2"),
    ("barrier.cluster", "9.7.13.3"),
    ("red.async", "9.7.13.7"),
    ("multimem.cp.async.bulk", "9.7.9.25.4.4"),
    ("multimem.cp.reduce.async.bulk", "9.7.9.25.4.5"),
    ("cp.async.mbarrier.arrive", "9.7.13.15.15"),
    ("tensormap.cp_fenceproxy", "9.7.13.16"),
    ("mma.sp", "9.7.14.6"),
];

/// The memory-order qualifiers (PTX ISA §8.4 semantics `.weak`, `.volatile`, `.relaxed`,
/// `.acquire`, `.release`, `.acq_rel`, `.sc`, `.mmio`; §8.5 scopes `.cta`, `.cluster`, `.gpu`,
/// `.sys`).
pub(super) const ORDER_WORDS: &[&str] = &[
    "weak", "volatile", "relaxed", "acquire", "release", "acq_rel", "sc", "mmio", "cta", "cluster",
    "gpu", "sys",
];

/// The memory-order qualifiers each opcode accepts (as its ISA section's syntax lists them);
/// an opcode not listed accepts none, and one of them on it is an error naming it, as ptxas
/// reports it ("Illegal modifier '.relaxed' for instruction 'add'").
pub(super) static ORDER: &[(&str, &[&str])] = &[
    // §9.7.9.8-9 `ld{.weak|.volatile|.relaxed.scope|.acquire.scope|.mmio.relaxed.sys}`.
    (
        "ld",
        &[
            "weak", "volatile", "relaxed", "acquire", "mmio", "cta", "cluster", "gpu", "sys",
        ],
    ),
    // §9.7.9.11-13 `st{.weak|.volatile|.relaxed.scope|.release.scope|.mmio.relaxed.sys}`,
    // `st.async{.weak}`, `st.bulk.weak`.
    (
        "st",
        &[
            "weak", "volatile", "relaxed", "release", "mmio", "cta", "cluster", "gpu", "sys",
        ],
    ),
    // §9.7.9.14 `multimem.ld_reduce/st/red{.sem}{.scope}`.
    (
        "multimem",
        &[
            "weak", "relaxed", "acquire", "release", "acq_rel", "cta", "cluster", "gpu", "sys",
        ],
    ),
    // `cp{.reduce}.async.bulk.tensor` with a scope, as ptxas 13.5 takes it, and
    // `cp.async.bulk.relaxed.scope.b128` (PTX ISA 9.3) (`data::cp`).
    ("cp", &["relaxed", "cta", "cluster", "gpu", "sys"]),
    // §9.7.9.26, §9.7.13.16 `tensormap.cp_fenceproxy...release.scope`.
    (
        "tensormap",
        &["release", "acquire", "cta", "cluster", "gpu", "sys"],
    ),
    // §9.7.13.1, §9.7.13.3 `barrier{.cta}`, `barrier.cluster.arrive{.release|.relaxed}`,
    // `barrier.cluster.wait{.acquire}`.
    ("bar", &["cta"]),
    (
        "barrier",
        &["cta", "cluster", "relaxed", "release", "acquire"],
    ),
    // §9.7.13.4 `fence{.sem}.scope` (.sc, .acq_rel; .acquire/.release with .sync_restrict and
    // mbarrier_init), `membar.{cta,gl,sys}`.
    (
        "fence",
        &[
            "sc", "acq_rel", "acquire", "release", "cta", "cluster", "gpu", "sys",
        ],
    ),
    ("membar", &["cta", "sys"]),
    // §9.7.13.5-7 `atom{.sem}{.scope}` (.relaxed, .acquire, .release, .acq_rel),
    // `red{.sem}{.scope}` (.relaxed, .release), `red.async.relaxed.cluster`.
    (
        "atom",
        &[
            "relaxed", "acquire", "release", "acq_rel", "cta", "cluster", "gpu", "sys",
        ],
    ),
    (
        "red",
        &["relaxed", "release", "cta", "cluster", "gpu", "sys"],
    ),
    // §9.7.13.15 `mbarrier.arrive{.sem}{.scope}` (.release, .relaxed; .cta, .cluster),
    // `mbarrier.test_wait/try_wait{.sem}{.scope}` (.acquire, .relaxed).
    (
        "mbarrier",
        &["release", "acquire", "relaxed", "cta", "cluster"],
    ),
];

/// Whether opcode `op` accepts the memory-order qualifier `m` (one of [`ORDER_WORDS`]).
pub(super) fn order_ok(op: &str, m: &str) -> bool {
    ORDER
        .iter()
        .any(|(o, words)| *o == op && words.contains(&m))
}

fn carry_add_sub(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    int::int_addsub(b, cx, op)
}

fn carry_mad(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    int::int_mad_cc(b, cx, op)
}

fn bitfield(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    int::bitfield(b, cx, op)
}

fn float_arith(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    float::float_arith(b, cx, op)
}

fn float_unary(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    float::float_unary(b, cx, op)
}

fn mixed(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    float::mixed(b, cx, op)
}

/// The 16-bit float type of a [`Family::Half`] instruction.
fn half_type(cx: &Cx) -> Result<(HalfFmt, bool), LowerError> {
    half_of(cx).ok_or_else(|| cx.bad("needs .f16, .bf16, .f16x2 or .bf16x2"))
}

fn half_arith(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    let h = half_type(cx)?;
    half::half_arith(b, cx, op, h)
}

fn half_fma(b: &mut Builder, cx: &mut Cx) -> R {
    let h = half_type(cx)?;
    half::half_fma(b, cx, h)
}

fn half_minmax(b: &mut Builder, cx: &mut Cx) -> R {
    let max = cx.inst.opcode.name == "max";
    let h = half_type(cx)?;
    half::half_minmax(b, cx, max, h)
}

fn half_setp(b: &mut Builder, cx: &mut Cx) -> R {
    let h = half_type(cx)?;
    half::half_setp(b, cx, h)
}

fn half_sign(b: &mut Builder, cx: &mut Cx) -> R {
    let neg = cx.inst.opcode.name == "neg";
    let h = half_type(cx)?;
    half::half_sign(b, cx, neg, h)
}

fn half_approx(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    let h = half_type(cx)?;
    half::half_approx(b, cx, op, h)
}

fn collective_ops(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    super::super::collective::collective(b, cx, op)
}

fn stack_op(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    stack::stack(b, cx, op)
}

fn video_op(b: &mut Builder, cx: &mut Cx) -> R {
    let op = cx.inst.opcode.name.as_str();
    video::video(b, cx, op)
}

/// `barrier` (§9.7.13.1) and its `.cluster` form (§9.7.13.3, `decode_cluster.rs`).
fn barrier_any(b: &mut Builder, cx: &Cx, guard: Option<(Var, bool)>) -> R {
    if cx.mods.first() != Some(&"cluster") {
        return super::super::collective::barrier(b, cx, guard);
    }
    let Some((p, neg)) = guard else {
        return cluster::barrier(b, cx);
    };
    // `@p barrier.cluster.*`: the threads whose guard is false neither arrive nor wait (the
    // non-`.aligned` forms allow a divergent warp); branched around, as other effects are.
    let after = b.begin_guarded(p, neg, cx.loc);
    cluster::barrier(b, cx)?;
    b.join(after, cx.loc);
    Ok(())
}

fn no_effect(_: &mut Builder, _: &Cx, _: Option<(Var, bool)>) -> R {
    Ok(())
}

/// `nanosleep.u32 t` (PTX ISA §9.7.19.2): a hint without effect here; `t` is checked as a
/// `.u32` operand (ptxas 12.9 rejects an undeclared, an `.f32` or a 64-bit register).
fn nanosleep(b: &mut Builder, cx: &Cx, _: Option<(Var, bool)>) -> R {
    cx.expect_operands(1)?;
    b.check_u32_operand(cx, 0)?;
    if let Operand::Reg { name, .. } = cx.opnd(0)? {
        let v = b.reg_var(cx, name)?;
        if b.vars[v as usize].bits() != 32 {
            return Err(LowerError::new(
                name.span,
                format!(
                    "operand '{}' of '{}' must be a 32-bit register (t is .u32)",
                    name.name, cx.ptx
                ),
            ));
        }
    }
    Ok(())
}

/// Where the `fabric` instructions are defined: PTX ISA 9.3 added them (`fabric.submit`,
/// `fabric.submit.op_restrict::fetching`, `fabric.wait.sync_restrict::reads`) and 9.5
/// (`fabric.submit.commit_group`, `fabric.wait.sync_restrict::read N`) after the PTX ISA 9.1
/// text the section numbers follow, so the row names the CCCL `cuda::ptx` page that lists
/// their forms ("PTX ISA 93, SM_100") in place of a section number.
pub(super) const FABRIC: &str = "cccl:fabric_submit";

/// `fabric.submit{.op_restrict::fetching}`, `fabric.submit.commit_group`,
/// `fabric.wait.sync_restrict::reads {N}` and `fabric.wait.sync_restrict::read N`: a submit
/// and its wait order the fabric operations a thread issued before them. ptxjit issues none
/// (it decodes no `fabric.try_*` operation) and completes every memory operation when it
/// executes, so both have no effect here (docs/isa-notes.md). The forms are checked as
/// ptxas 13.5 checks them: `.submit` takes `.op_restrict::fetching` or `.commit_group` (not
/// both) and no operand; `.wait` takes one `.sync_restrict` and, for `::read`, one integer
/// immediate (optional for the older `::reads`).
fn fabric(_: &mut Builder, cx: &Cx, _: Option<(Var, bool)>) -> R {
    let illegal = |m: &str, of: &str| {
        cx.bad(&format!(
            "illegal modifier '.{m}' for instruction 'fabric.{of}'"
        ))
    };
    let rest = cx.mods.get(1..).unwrap_or_default();
    for (k, m) in rest.iter().enumerate() {
        if rest[..k].contains(m) {
            return Err(cx.bad(&format!("multiple .{m} modifiers")));
        }
    }
    let imm = |k: usize| {
        matches!(
            cx.inst.operands.get(k),
            Some(Operand::Imm(Literal::Int { .. }, _))
        )
    };
    match cx.mods.first().copied() {
        Some("submit") => {
            if let Some(m) = rest
                .iter()
                .find(|m| !matches!(**m, "op_restrict::fetching" | "commit_group"))
            {
                return Err(illegal(m, "submit"));
            }
            if rest.len() > 1 {
                return Err(illegal("op_restrict::fetching", "submit.commit_group"));
            }
            cx.expect_operands(0)
        }
        Some("wait") => {
            if let Some(m) = rest
                .iter()
                .find(|m| !matches!(**m, "sync_restrict::read" | "sync_restrict::reads"))
            {
                return Err(illegal(m, "wait"));
            }
            let (read, reads) = (
                cx.has("sync_restrict::read"),
                cx.has("sync_restrict::reads"),
            );
            let n = cx.inst.operands.len();
            match (read, reads) {
                (true, false) if n == 1 && imm(0) => Ok(()),
                (false, true) if n == 0 || (n == 1 && imm(0)) => Ok(()),
                (false, false) => Err(cx.bad(
                    "fabric.wait needs .sync_restrict::read N (or the older .sync_restrict::reads)",
                )),
                (true, true) => Err(cx.bad("multiple .sync_restrict modifiers")),
                _ => Err(cx.bad(
                    "fabric.wait takes one integer immediate operand (optional with \
                     .sync_restrict::reads)",
                )),
            }
        }
        _ => Err(cx.bad("fabric needs .submit or .wait")),
    }
}

/// The indices in [`ROWS`] of `op`'s rows, in table order; `None` where `op` has none. The
/// index is built once per process (a scan of the whole table per instruction was about a
/// fifth of the decoder's time).
fn rows_of(op: &str) -> Option<&'static [u16]> {
    static INDEX: std::sync::OnceLock<std::collections::HashMap<&'static str, Vec<u16>>> =
        std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut m: std::collections::HashMap<&'static str, Vec<u16>> =
            std::collections::HashMap::new();
        for (i, r) in ROWS.iter().enumerate() {
            m.entry(r.op).or_default().push(i as u16);
        }
        m
    });
    index.get(op).map(Vec::as_slice)
}

/// The row that decodes `cx`'s instruction, or the error: not a PTX instruction, or an opcode
/// without a form of the instruction's family.
pub(super) fn lookup(cx: &Cx) -> Result<&'static Row, LowerError> {
    let op = cx.inst.opcode.name.as_str();
    let Some(rows) = rows_of(op) else {
        // ptxas: "Not a name of any known instruction: 'foo'".
        return Err(LowerError::new(
            cx.inst.span,
            format!("invalid '{}': '{op}' is not a PTX instruction", cx.ptx),
        ));
    };
    let fam = family(cx);
    let mut any = None;
    for r in rows.iter().map(|&i| &ROWS[i as usize]) {
        if r.family == fam {
            return Ok(r);
        }
        if r.family == Family::Any {
            any = Some(r);
        }
    }
    any.ok_or_else(|| cx.bad(&format!("'{op}' has no {} form", fam.what())))
}

impl Min {
    /// Whether a module of PTX ISA `version` whose `.target` names `arch` (or no
    /// architecture) meets it.
    fn admits(self, arch: Option<Arch>, version: Version) -> bool {
        match (self, arch) {
            (Min::Any, _) => true,
            (_, None) => false,
            (Min::Sm(n), Some(t)) => t.sm >= n,
            (Min::SmFrom(n, older, since), Some(t)) => {
                t.sm >= n || (t.sm >= older && version >= since)
            }
            (Min::Specific(list), Some(t)) => list.iter().any(|l| {
                *l == t || (l.suffix == Suffix::F && t.suffix == Suffix::A && l.sm == t.sm)
            }),
        }
    }
}

impl fmt::Display for Min {
    /// As ptxas words it: "sm_90 or higher", "sm_90a", "sm_100a, sm_101a or ..."; a family
    /// target of a [`Min::Specific`] list comes with the architecture-specific target it
    /// admits ("sm_120a or sm_120f").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Min::Any => f.write_str("any target"),
            Min::Sm(n) => write!(f, "sm_{n} or higher"),
            Min::SmFrom(n, older, since) => {
                write!(f, "sm_{n} or higher (sm_{older} from PTX ISA {since})")
            }
            Min::Specific(list) => {
                // Every target it admits: a family target `sm_NNf` with its `sm_NNa`.
                let mut all: Vec<Arch> = Vec::new();
                for &t in list.iter() {
                    if t.suffix == Suffix::F {
                        all.push(Arch {
                            suffix: Suffix::A,
                            ..t
                        });
                    }
                    all.push(t);
                }
                let mut seen = Vec::new();
                all.retain(|t| {
                    let new = !seen.contains(t);
                    seen.push(*t);
                    new
                });
                for (i, t) in all.iter().enumerate() {
                    let sep = match i {
                        0 => "",
                        _ if i + 1 == all.len() => " or ",
                        _ => ", ",
                    };
                    write!(f, "{sep}{t}")?;
                }
                Ok(())
            }
        }
    }
}

impl When {
    fn applies(self, cx: &Cx) -> bool {
        match self {
            When::Mods(groups) => groups.iter().all(|g| g.iter().any(|m| cx.mods.contains(m))),
            When::Operands(n) => cx.inst.operands.len() >= n,
            When::ModsThen(groups, a, b) => {
                When::Mods(groups).applies(cx) && cx.mods.windows(2).any(|w| w[0] == a && w[1] == b)
            }
            When::Then(first, second) => cx
                .mods
                .windows(2)
                .any(|w| first.contains(&w[0]) && second.contains(&w[1])),
            When::Imm(groups, k, lo, hi) => {
                When::Mods(groups).applies(cx)
                    && matches!(
                        cx.inst.operands.get(k),
                        Some(Operand::Imm(Literal::Int { value, .. }, _))
                            if (lo..=hi).contains(value)
                    )
            }
        }
    }
}

impl fmt::Display for Needs {
    /// "PTX ISA 8.0, sm_90 or higher"; "—" for no requirement.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.since == Version(1, 0), self.min) {
            (true, Min::Any) => f.write_str("—"),
            (false, Min::Any) => write!(f, "PTX ISA {}", self.since),
            (true, min) => write!(f, "{min}"),
            (false, min) => write!(f, "PTX ISA {}, {min}", self.since),
        }
    }
}

impl Row {
    /// The row's requirements and its forms', for the coverage report.
    pub(super) fn needs_text(&self) -> String {
        let mut s = self.needs.to_string();
        for form in self.forms {
            s += &format!("; {}: {}", form.what, form.needs);
        }
        s
    }
}

/// Whether a module of `header` admits instruction `op` with modifiers `mods` (words without
/// their dots): the needs of `op`'s rows and of each of their forms whose modifiers `mods` has
/// (a form that also depends on operands counts as present). The fuzz generator keeps the
/// matrix forms its kernels' headers admit.
#[cfg(feature = "fuzz")]
pub(crate) fn admits(op: &str, mods: &[&str], header: Header) -> bool {
    let has = |g: &[&str]| g.iter().any(|m| mods.contains(m));
    let ok = |n: Needs| header.version >= n.since && n.min.admits(header.arch, header.version);
    ROWS.iter().filter(|r| r.op == op).all(|r| {
        ok(r.needs)
            && r.forms.iter().all(|f| {
                let applies = match f.when {
                    When::Mods(groups) => groups.iter().all(|g| has(g)),
                    When::ModsThen(groups, a, b) => {
                        groups.iter().all(|g| has(g))
                            && mods.windows(2).any(|w| w[0] == a && w[1] == b)
                    }
                    When::Then(first, second) => mods
                        .windows(2)
                        .any(|w| first.contains(&w[0]) && second.contains(&w[1])),
                    When::Operands(_) | When::Imm(..) => true,
                };
                !applies || ok(f.needs)
            })
    })
}

/// Checks `cx`'s instruction against the module's header: the row's [`Needs`] and those of
/// each of its [`Form`]s the instruction has. The error names the instruction (or form), the
/// requirement and what the header gives, as ptxas reports it ("Feature 'cp.async.bulk'
/// requires PTX ISA .version 8.0 or later", "Instruction 'wgmma.fence' not supported on
/// .target 'sm_90'").
///
/// Under a `.version` older than several of them, the newest is named: a form that needs a
/// later PTX ISA than its instruction (`fabric.submit.commit_group`, 9.5, of `fabric.submit`,
/// 9.3) is reported with its own version, as ptxas 13.5 reports it at `.version 9.2`
/// ("Feature 'fabric.submit.commit_group' requires PTX ISA .version 9.5 or later").
pub(super) fn check_header(cx: &Cx, row: &Row, header: Header) -> R {
    let forms = row.forms.iter().filter(|f| f.when.applies(cx));
    // The common case, every requirement met, without building the list and the names.
    if std::iter::once(row.needs)
        .chain(forms.clone().map(|f| f.needs))
        .all(|n| needs_met(n, header))
    {
        return Ok(());
    }
    let all: Vec<(&str, Needs)> = std::iter::once((cx.ptx.as_str(), row.needs))
        .chain(forms.map(|f| (f.what, f.needs)))
        .collect();
    let named = |what: &str| {
        if what == cx.ptx {
            what.to_string()
        } else {
            format!("{what} ('{}')", cx.ptx)
        }
    };
    // The first of the newest requirements the version misses (`rev`: `max_by_key` keeps
    // the last of equal ones).
    if let Some((what, needs)) = all
        .iter()
        .rev()
        .filter(|(_, n)| header.version < n.since)
        .max_by_key(|(_, n)| n.since)
    {
        return check_needs(cx.inst.span, &named(what), *needs, header);
    }
    for (what, needs) in all {
        check_needs(cx.inst.span, &named(what), needs, header)?;
    }
    Ok(())
}

/// Whether the module's header meets `needs` (what [`check_needs`] accepts).
fn needs_met(needs: Needs, header: Header) -> bool {
    header.version >= needs.since && needs.min.admits(header.arch, header.version)
}

/// Checks one requirement against the module's header; the error at `span` names `what`
/// (an instruction, a form or a special register), the requirement and what the header
/// gives.
pub(super) fn check_needs(span: Span, what: &str, needs: Needs, header: Header) -> R {
    if needs_met(needs, header) {
        return Ok(());
    }
    // Which requirement fails: the version first, as ptxas reports it.
    if header.version < needs.since {
        return Err(LowerError::new(
            span,
            format!(
                "{what} requires PTX ISA {} (.version {} here)",
                needs.since, header.version
            ),
        ));
    }
    let target = match header.arch {
        Some(t) => t.to_string(),
        None => "no sm_NN".to_string(),
    };
    Err(LowerError::new(
        span,
        format!(
            "{what} requires .target {} (.target {target} here)",
            needs.min
        ),
    ))
}

/// Modifiers of the floating-point forms, which the integer rows (§9.7.1) do not take: an
/// integer `neg.ftz.s32` is invalid (ptxas: "Illegal modifier '.ftz' for instruction 'neg'").
const FLOAT_ONLY: &[&str] = &[
    "ftz", "rn", "rz", "rm", "rp", "approx", "full", "NaN", "xorsign",
];

/// Words ptxas 13.5 takes on every instruction without a message (the `tensormap.replace`
/// fields, [`names::TENSORMAP_FIELDS`], which [`unchecked`] adds; the `testp` classes, the `tcgen05` formats `.b6x16_p32`/`.b4x16_p64` and the
/// `ld_reduce` accumulations `.acc::f16`/`.acc::f32`: `rsqrt.approx.box_dim.f32` assembles),
/// so no row's list names them and none refuses them; and the memory-order words, which
/// [`ORDER`] checks per opcode.
const UNCHECKED: &[&str] = &[
    "finite",
    "infinite",
    "number",
    "notanumber",
    "normal",
    "subnormal",
    "b6x16_p32",
    "b4x16_p64",
    "acc::f32",
    "acc::f16",
    "weak",
    "volatile",
    "relaxed",
    "acquire",
    "release",
    "acq_rel",
    "sc",
    "mmio",
    "cta",
    "cluster",
    "gpu",
    "sys",
];

/// Whether `word` is one of the words no row's list names ([`UNCHECKED`] and the
/// `tensormap.replace` fields).
fn unchecked(word: &str) -> bool {
    UNCHECKED.contains(&word) || names::TENSORMAP_FIELDS.contains(&word)
}

/// The integer, bit-size and predicate types (§5.2.1, §5.2.5): where the last type of an
/// instruction (the type of the operands it compares or selects by: `set.lt.ftz.u32.f32`
/// compares `.f32`) is one of these, it takes no [`FLOAT_ONLY`] modifier (`setp.lt.ftz.s32`,
/// `slct.ftz.s32.s32`; ptxas 13.5: "Illegal modifier '.ftz' for instruction 'setp'").
const INT_TYPES: &[&str] = &[
    "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
    "s64", "u16x2", "s16x2", "u8x4", "s8x4",
];

/// Words of which an instruction takes at most one: what they are, the words, and the
/// opcodes the rule is for (empty: every opcode). The rounding modifiers (PTX ISA §9.7.3
/// `.rnd`, §9.7.9.21 `.irnd`, `.frnd2`, `.rs`; ptxas 13.5: "Multiple rounding modifiers
/// specified" on `fma.rm.rn.f32`), the comparisons of `set`/`setp` (§9.7.6.1-2 `.CmpOp`;
/// "Multiple comparisons set" on `set.le.lt.u32.s32`) and the geometries of `tex`/`tld4`
/// (§9.7.10.3-4 `.geom`; "Multiple texture modifiers specified" on `tex.1d.a1d.v4.f32.s32`).
const EXCLUSIVE: &[(&str, &[&str], &[&str])] = &[
    (
        "rounding modifiers",
        &[
            "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs",
        ],
        &[],
    ),
    (
        "comparisons",
        &[
            "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu",
            "gtu", "geu", "num", "nan",
        ],
        &["set", "setp"],
    ),
    (
        "geometries",
        &[
            "1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms", "a2dms",
        ],
        &["tex", "tld4"],
    ),
];

/// Checks the modifiers `row` cannot take: two of one [`EXCLUSIVE`] kind, a floating-point modifier on an integer row or,
/// on a row with a list, after an integer last type ([`INT_TYPES`]; not on `cvt`, whose last
/// type is its source: `cvt.rn.f32.s32` rounds), and any modifier outside the row's list ([`Row::mods`]). Types and matrix shapes are checked by the decoders.
pub(super) fn check_modifiers(cx: &Cx, row: &Row) -> R {
    let op = cx.inst.opcode.name.as_str();
    let illegal = |m: &str| cx.bad(&format!("illegal modifier '.{m}' for instruction '{op}'"));
    let int_typed = row.mods.is_some()
        && op != "cvt"
        && cx
            .mods
            .iter()
            .rev()
            .find(|m| names::is_type(m))
            .is_some_and(|t| INT_TYPES.contains(t));
    if row.family == Family::Int || int_typed {
        if let Some(m) = cx.mods.iter().find(|m| FLOAT_ONLY.contains(m)) {
            return Err(illegal(m));
        }
    }
    for (what, words, ops) in EXCLUSIVE {
        if !ops.is_empty() && !ops.contains(&op) {
            continue;
        }
        let mut found = cx.mods.iter().filter(|m| words.contains(m));
        if let (Some(a), Some(b)) = (found.next(), found.next()) {
            return Err(cx.bad(&format!("multiple {what} ('.{a}', '.{b}')")));
        }
    }
    if let Some(list) = row.mods {
        if let Some(m) = cx
            .mods
            .iter()
            .find(|m| !list.contains(m) && names::is_word(m) && !unchecked(m))
        {
            return Err(illegal(m));
        }
    }
    // `.no_membermask_overlap` goes on the forms that take a member mask: ptxas 13.5
    // "Illegal modifier '.no_membermask_overlap' for instruction 'bar'" on `bar.sync`, and
    // for `shfl` and `vote.uni`/`vote.ballot` without `.sync`; it takes `vote.all`/`vote.any`
    // without `.sync` (where the header allows them: `.target sm_60`), as the full warp's
    // `vote.sync`.
    let overlap = cx
        .mods
        .iter()
        .filter(|m| **m == "no_membermask_overlap")
        .count();
    let on_mask = match op {
        "bar" => cx.has("sync") && cx.has("warp"),
        "vote" => cx.has("sync") || cx.has("all") || cx.has("any"),
        _ => cx.has("sync"),
    };
    if overlap > 0 && !on_mask {
        return Err(illegal("no_membermask_overlap"));
    }
    if overlap > 1 {
        return Err(cx.bad("multiple .no_membermask_overlap modifiers"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_opcode_and_family() {
        for (i, r) in ROWS.iter().enumerate() {
            for s in &ROWS[..i] {
                assert!(
                    !(s.op == r.op && s.family == r.family),
                    "two rows for {} {:?}",
                    r.op,
                    r.family
                );
            }
        }
    }

    /// A row's list names only words the check looks at: no type, no matrix shape, no
    /// [`unchecked`] word.
    #[test]
    fn modifier_lists_hold_checked_words() {
        for r in ROWS {
            for w in r.mods.unwrap_or(&[]) {
                assert!(names::is_word(w) && !unchecked(w), "{} {w}", r.op);
            }
        }
    }

    #[test]
    fn order_qualifiers_name_opcodes_of_the_table() {
        for (op, words) in ORDER {
            assert!(ROWS.iter().any(|r| r.op == *op), "{op}");
            assert!(words.iter().all(|w| ORDER_WORDS.contains(w)), "{op}");
        }
    }

    #[test]
    fn every_section_is_in_chapter_9_7() {
        let forms = FORM_SECTIONS.iter().copied();
        for (op, section) in ROWS.iter().map(|r| (r.op, r.section)).chain(forms) {
            let parts: Vec<&str> = section.split('.').collect();
            if section == FABRIC {
                continue;
            }
            assert!(
                section.starts_with("9.7.")
                    && parts.len() >= 3
                    && parts.iter().all(|p| p.parse::<u32>().is_ok()),
                "{op}: {section}"
            );
        }
    }
}
