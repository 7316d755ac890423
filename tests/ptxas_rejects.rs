//! Module-level forms NVIDIA's ptxas 12.9 rejects (`ptxas -arch=sm_80`, its message in each
//! row's comment): ptxjit rejects them too, with the kind, the words and the line:column of
//! the error, and still loads the nearest forms ptxas accepts. Each case is one small kernel
//! with one line changed.

use ptxjit::host::front_end;

/// A kernel with a `.global` variable, a parameter, a `.local` array and a `bfe`; `{SIG}`
/// follows the parameter list (performance directives), `{VAR}` is the module variable's
/// declaration, `{PARAM}` the second parameter, `{LOCAL}` the local declaration and `{INST}`
/// an instruction (line 12).
const KERNEL: &str = ".version 8.0
.target sm_80
.address_size 64
{VAR}
.visible .entry k(.param .u64 p, {PARAM}) {SIG}
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd1; .reg .f64 %fd1;
\t{LOCAL}
\tld.param.u64 %rd1, [p];
\tmov.u32 %r1, %tid.x;
\t{INST}
\tret;
}
";

/// The kernel with the defaults replaced by each `(placeholder, text)` of `with`.
fn kernel(with: &[(&str, &str)]) -> String {
    let defaults = [
        ("{VAR}", ".global .align 4 .b8 g[16];"),
        ("{PARAM}", ".param .align 8 .b8 s[16]"),
        ("{SIG}", ".maxntid 64"),
        ("{LOCAL}", ".local .align 8 .b8 l[32];"),
        ("{INST}", "bfe.u32 %r2, %r1, 4, 8;"),
    ];
    let mut text = KERNEL.to_string();
    for (key, default) in defaults {
        let value = with
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(default, |(_, v)| *v);
        text = text.replace(key, value);
    }
    text
}

/// Asserts that the kernel with `with` fails to load with an error of `kind` whose message
/// holds `at` (`k.ptx:LINE:COL`) and `words`.
fn rejected(with: &[(&str, &str)], kind: &str, at: &str, words: &str) {
    let ptx = kernel(with);
    match front_end(&ptx, "k.ptx") {
        Ok(_) => panic!("loaded, but ptxas rejects it:\n{ptx}"),
        Err(e) => {
            let msg = e.to_string();
            assert_eq!(e.kind(), kind, "{msg}");
            assert!(msg.contains(at), "{msg} (wanted {at})");
            assert!(msg.contains(words), "{msg} (wanted {words:?})");
        }
    }
}

fn accepted(with: &[(&str, &str)]) {
    let ptx = kernel(with);
    if let Err(e) = front_end(&ptx, "k.ptx") {
        panic!("{e}\n{ptx}");
    }
}

#[test]
fn the_base_kernel_loads() {
    accepted(&[]);
}

/// ptxas: "Alignment must be a power of two" for every `.align` and `.ptr.align`.
#[test]
fn alignments_must_be_powers_of_two() {
    let not_pow2 = "is not a power of two";
    rejected(
        &[("{VAR}", ".global .align 3 .b8 g[16];")],
        "parse",
        "k.ptx:4:16",
        "alignment 3 after '.align' is not a power of two",
    );
    rejected(
        &[("{VAR}", ".const .align 0 .b8 g[16];")],
        "parse",
        "k.ptx:4:15",
        not_pow2,
    );
    rejected(
        &[("{VAR}", ".shared .align 12 .b8 g[16];")],
        "parse",
        "k.ptx:4:16",
        not_pow2,
    );
    rejected(
        &[("{PARAM}", ".param .align 5 .b8 s[16]")],
        "parse",
        "k.ptx:5:48",
        not_pow2,
    );
    rejected(
        &[("{PARAM}", ".param .u64 .ptr .global .align 6 q")],
        "parse",
        "k.ptx:5:66",
        "alignment 6 after '.ptr.align'",
    );
    rejected(
        &[("{LOCAL}", ".local .align 24 .b8 l[32];")],
        "parse",
        "k.ptx:9:16",
        not_pow2,
    );
    // Inside a call sequence's braces, as a caller's argument would be declared.
    rejected(
        &[("{INST}", "{ .param .align 3 .b8 q[4]; }")],
        "parse",
        "k.ptx:12:18",
        not_pow2,
    );
    accepted(&[("{VAR}", ".global .align 1 .b8 g[16];")]);
    accepted(&[("{VAR}", ".global .align 256 .b8 g[16];")]);
    accepted(&[("{PARAM}", ".param .u64 .ptr .global .align 16 q")]);
}

/// ptxas: "Positive non-zero value expected for maxntid" (and `reqntid`, `minnctapersm`,
/// `maxnreg`); "Parsing error" for a directive without its numbers or `.noreturn` on an
/// `.entry`; "Conflicting directives: .maxntid and .reqntid cannot both be specified".
#[test]
fn tuning_directives_are_checked_as_ptxas_checks_them() {
    let at = "k.ptx:5:";
    for sig in [
        ".maxntid 0",
        ".maxntid 64, 0",
        ".reqntid 0",
        ".reqntid 32, 1, 0",
        ".minnctapersm 0",
        ".maxnreg 0",
    ] {
        rejected(
            &[("{SIG}", sig)],
            "parse",
            at,
            "needs positive (non-zero) values",
        );
    }
    rejected(
        &[("{SIG}", ".maxnreg")],
        "parse",
        at,
        ".maxnreg takes one integer, found 0",
    );
    rejected(
        &[("{SIG}", ".maxntid")],
        "parse",
        at,
        ".maxntid takes 1 to 3 integers, found 0",
    );
    rejected(
        &[("{SIG}", ".maxntid 1, 1, 1, 1")],
        "parse",
        at,
        ".maxntid takes 1 to 3 integers, found 4",
    );
    rejected(
        &[("{SIG}", ".minnctapersm 1, 2")],
        "parse",
        at,
        "takes one integer, found 2",
    );
    rejected(
        &[("{SIG}", ".noreturn")],
        "parse",
        at,
        ".noreturn applies to '.func' functions",
    );
    rejected(
        &[("{SIG}", ".maxntid 64 .reqntid 64")],
        "parse",
        "k.ptx:5:73",
        ".maxntid and .reqntid cannot both be given",
    );
    rejected(
        &[("{SIG}", ".reqntid 64 .maxntid 128")],
        "parse",
        "k.ptx:5:73",
        ".maxntid and .reqntid cannot both be given",
    );
    // Accepted by ptxas: more registers than a thread can have (a warning), the same directive
    // twice, a thread count above 1024 (a launch then fails), and every directive at once.
    accepted(&[("{SIG}", ".maxnreg 300")]);
    accepted(&[("{SIG}", ".maxnreg 32 .maxnreg 64")]);
    accepted(&[("{SIG}", ".maxntid 2048")]);
    accepted(&[("{SIG}", ".maxntid 256, 1, 1 .minnctapersm 2 .maxnreg 64")]);
    accepted(&[("{SIG}", ".reqntid 32, 2")]);
}

/// ptxas: "Constant overflow" for a decimal literal outside the normal doubles (too large,
/// or nonzero and too small); one that only overflows the instruction's type (`1e39` for an
/// `.f32`) is accepted and rounds to an infinity.
#[test]
fn decimal_literals_past_the_double_range_are_errors() {
    let words = "overflows a double";
    rejected(
        &[("{INST}", "mov.f64 %fd1, 1e309;")],
        "parse",
        "k.ptx:12:16",
        "floating-point literal '1e309' overflows a double",
    );
    rejected(
        &[("{INST}", "mov.f64 %fd1, 1.0e999999;")],
        "parse",
        "k.ptx:12:16",
        words,
    );
    rejected(
        &[("{INST}", "mov.f64 %fd1, -2e308;")],
        "parse",
        "k.ptx:12:17",
        words,
    );
    // Below the smallest normal double (2.2250738585072014e-308): subnormal, or zero.
    let tiny = "is below the smallest normal double";
    rejected(
        &[("{INST}", "mov.f64 %fd1, 1e-400;")],
        "parse",
        "k.ptx:12:16",
        "floating-point literal '1e-400' is below",
    );
    rejected(
        &[("{INST}", "mov.f64 %fd1, 1e-310;")],
        "parse",
        "k.ptx:12:16",
        tiny,
    );
    rejected(
        &[("{INST}", "mov.f64 %fd1, 2.2250738585072011e-308;")],
        "parse",
        "k.ptx:12:16",
        tiny,
    );
    accepted(&[("{INST}", "mov.f64 %fd1, 1.7e308;")]);
    accepted(&[("{INST}", "mov.f64 %fd1, 2.2250738585072014e-308;")]);
    accepted(&[("{INST}", "mov.f64 %fd1, 0.0e-999;")]);
    accepted(&[("{INST}", "mov.f64 %fd1, 0e5;")]);
    accepted(&[("{INST}", "mov.b32 %r2, 0f7F800000;")]);
    accepted(&[("{INST}", "mul.f32 %r2, %r1, 1e39;")]);
}

/// ptxas: "Argument 2 of instruction 'bfe': value '300' out of range, expected to be in range
/// [0..255]" (and argument 3, and `bfi`'s arguments 3 and 4).
#[test]
fn bitfield_immediates_must_be_bytes() {
    let at = "k.ptx:12:2";
    rejected(
        &[("{INST}", "bfe.u32 %r2, %r1, 300, 8;")],
        "invalid",
        at,
        "the bit position (operand 2) must be in 0..=255, found 300",
    );
    rejected(
        &[("{INST}", "bfe.s32 %r2, %r1, 4, 256;")],
        "invalid",
        at,
        "the bit length (operand 3) must be in 0..=255, found 256",
    );
    rejected(
        &[("{INST}", "bfe.u32 %r2, %r1, -1, 4;")],
        "invalid",
        at,
        "found -1",
    );
    rejected(
        &[("{INST}", "bfi.b32 %r2, %r1, %r3, 300, 4;")],
        "invalid",
        at,
        "the bit position (operand 3)",
    );
    rejected(
        &[("{INST}", "bfi.b32 %r2, %r1, %r3, 4, 1000;")],
        "invalid",
        at,
        "the bit length (operand 4)",
    );
    accepted(&[("{INST}", "bfe.u32 %r2, %r1, 255, 255;")]);
    accepted(&[("{INST}", "bfi.b32 %r2, %r1, %r3, 0, 255;")]);
    // A register is masked to its low 8 bits when the kernel runs (ptx-tests/isa/bitfield.isa).
    accepted(&[("{INST}", "bfe.u32 %r2, %r1, %r3, %r3;")]);
}

/// ptxas 12.9's verdict (`ptxas -arch=sm_80`) for each integer instruction (rows) with each
/// type modifier (columns, `TYPE_COLUMNS`), its operands registers of the type (`%r` for
/// 32 bits; the count of `shl`/`shr` a `.b32`; the result of `popc`, `clz`, `bfind` a `.b32`).
/// Produced by assembling one instruction per cell; "ok" loads, "-" is "Unexpected
/// instruction types specified for 'add'" (or, for `neg`/`abs`, "applies only to signed
/// numeric types").
const TYPE_VERDICTS: [&str; 26] = [
    "add        -   -   -  ok  ok  ok  ok  ok  ok   -",
    "sub        -   -   -  ok  ok  ok  ok  ok  ok   -",
    "mul.lo     -   -   -  ok  ok  ok  ok  ok  ok   -",
    "mul.hi     -   -   -  ok  ok  ok  ok  ok  ok   -",
    "mad.lo     -   -   -  ok  ok  ok  ok  ok  ok   -",
    "div        -   -   -  ok  ok  ok  ok  ok  ok   -",
    "rem        -   -   -  ok  ok  ok  ok  ok  ok   -",
    "abs        -   -   -   -   -   -  ok  ok  ok   -",
    "neg        -   -   -   -   -   -  ok  ok  ok   -",
    "min        -   -   -  ok  ok  ok  ok  ok  ok   -",
    "max        -   -   -  ok  ok  ok  ok  ok  ok   -",
    "popc       -  ok  ok   -   -   -   -   -   -   -",
    "clz        -  ok  ok   -   -   -   -   -   -   -",
    "bfind      -   -   -   -  ok  ok   -  ok  ok   -",
    "brev       -  ok  ok   -   -   -   -   -   -   -",
    "and       ok  ok  ok   -   -   -   -   -   -  ok",
    "or        ok  ok  ok   -   -   -   -   -   -  ok",
    "xor       ok  ok  ok   -   -   -   -   -   -  ok",
    "not       ok  ok  ok   -   -   -   -   -   -  ok",
    "cnot      ok  ok  ok   -   -   -   -   -   -   -",
    "shl       ok  ok  ok   -   -   -   -   -   -   -",
    "shr       ok  ok  ok  ok  ok  ok  ok  ok  ok   -",
    "sad        -   -   -  ok  ok  ok  ok  ok  ok   -",
    "mul24.lo   -   -   -   -  ok   -   -  ok   -   -",
    "mad24.lo   -   -   -   -  ok   -   -  ok   -   -",
    "add.sat    -   -   -   -   -   -   -  ok   -   -",
];

/// The type modifiers of `TYPE_VERDICTS`'s columns.
const TYPE_COLUMNS: &str = "b16 b32 b64 u16 u32 u64 s16 s32 s64 pred";

/// One instruction of `TYPE_VERDICTS`: `op.ty` on registers of the type.
fn typed_instruction(op: &str, ty: &str) -> String {
    let r = match ty {
        "b16" | "u16" | "s16" => "%h",
        "b32" | "u32" | "s32" => "%r",
        "b64" | "u64" | "s64" => "%d",
        _ => "%p",
    };
    let sources = match op {
        "abs" | "neg" | "not" | "cnot" | "brev" => 1,
        "mad.lo" | "sad" | "mad24.lo" => 3,
        _ => 2,
    };
    match op {
        "popc" | "clz" | "bfind" => format!("{op}.{ty} %r1, {r}2"),
        "shl" | "shr" => format!("{op}.{ty} {r}1, {r}2, %r3"),
        _ => {
            let regs: Vec<String> = (1..=sources + 1).map(|i| format!("{r}{i}")).collect();
            format!("{op}.{ty} {}", regs.join(", "))
        }
    }
}

/// Integer instructions take the type kinds their ISA type lists name, as ptxas checks them:
/// every cell of `TYPE_VERDICTS` loads or fails as ptxas's does, a failure an `invalid`
/// error at the instruction's line naming the instruction and the type.
#[test]
fn integer_instructions_take_the_type_kinds_ptxas_takes() {
    let columns: Vec<&str> = TYPE_COLUMNS.split_whitespace().collect();
    let mut wrong = Vec::new();
    for row in TYPE_VERDICTS {
        let mut cells = row.split_whitespace();
        let op = cells.next().unwrap();
        let verdicts: Vec<&str> = cells.collect();
        assert_eq!(verdicts.len(), columns.len(), "{row}");
        for (ty, verdict) in columns.iter().zip(verdicts) {
            let inst = typed_instruction(op, ty);
            let ptx = format!(
                ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n\
                 .reg .b16 %h<5>; .reg .b32 %r<5>; .reg .b64 %d<5>; .reg .pred %p<5>;\n\
                 {inst};\nret;\n}}\n"
            );
            let got = front_end(&ptx, "k.ptx");
            match (verdict, got) {
                ("ok", Ok(_)) => {}
                ("-", Err(e))
                    if e.kind() == "invalid"
                        && e.to_string().contains("k.ptx:7:1")
                        && e.to_string().contains(&format!(".{ty}")) => {}
                ("ok", Err(e)) => wrong.push(format!("{inst}: ptxas accepts it; ptxjit: {e}")),
                (_, Err(e)) => wrong.push(format!("{inst}: unexpected error {e}")),
                (_, Ok(_)) => wrong.push(format!("{inst}: ptxas rejects it; ptxjit loads it")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// ptxas: "Rounding modifier required for instruction 'mad'" (`.f32` and `.f64`), and
/// "Unexpected instruction types specified for 'mul.lo'" for an integer product's half on a
/// float form.
#[test]
fn float_mad_needs_a_rounding_and_float_products_have_no_halves() {
    let at = "k.ptx:12:2";
    let f = ".reg .f32 %f<4>;";
    for inst in [
        "mad.f32 %f1, %f2, %f3, %f1;",
        "mad.ftz.sat.f32 %f1, %f2, %f3, %f1;",
    ] {
        rejected(
            &[("{LOCAL}", f), ("{INST}", inst)],
            "invalid",
            at,
            "mad needs a rounding modifier",
        );
    }
    rejected(
        &[("{INST}", "mad.f64 %fd1, %fd1, %fd1, %fd1;")],
        "invalid",
        at,
        "mad needs a rounding modifier",
    );
    rejected(
        &[("{LOCAL}", f), ("{INST}", "mul.lo.f32 %f1, %f2, %f3;")],
        "invalid",
        at,
        "'mul' on floats takes no .lo",
    );
    rejected(
        &[
            ("{LOCAL}", f),
            ("{INST}", "mad.rn.hi.f32 %f1, %f2, %f3, %f1;"),
        ],
        "invalid",
        at,
        "takes no .hi",
    );
    accepted(&[("{LOCAL}", f), ("{INST}", "mad.rn.f32 %f1, %f2, %f3, %f1;")]);
    accepted(&[
        ("{LOCAL}", f),
        ("{INST}", "mad.rz.ftz.sat.f32 %f1, %f2, %f3, %f1;"),
    ]);
    accepted(&[("{INST}", "mad.rm.f64 %fd1, %fd1, %fd1, %fd1;")]);
    accepted(&[("{LOCAL}", f), ("{INST}", "mul.f32 %f1, %f2, %f3;")]);
}

/// `cvt.sat.DST.SRC` between integer types, as ptxas 13.5 (`-arch=sm_80`) takes it: "ok"
/// where it accepts the conversion, "-" where it says "Illegal modifier '.sat' for instruction
/// 'cvt'" (PTX ISA §9.7.9.21: `.sat` is illegal where the destination holds every source
/// value). Rows: the destination type; columns: the source type (`CVT_COLUMNS`).
const CVT_SAT_VERDICTS: &[&str] = &[
    "u8     -  ok  ok  ok  ok  ok  ok  ok",
    "u16    -   -  ok  ok  ok  ok  ok  ok",
    "u32    -   -   -  ok  ok  ok  ok  ok",
    "u64    -   -   -   -  ok  ok  ok  ok",
    "s8    ok  ok  ok  ok   -  ok  ok  ok",
    "s16    -  ok  ok  ok   -   -  ok  ok",
    "s32    -   -  ok  ok   -   -   -  ok",
    "s64    -   -   -  ok   -   -   -   -",
];

/// The source types of `CVT_SAT_VERDICTS`'s columns.
const CVT_COLUMNS: &str = "u8 u16 u32 u64 s8 s16 s32 s64";

/// A kernel with one `cvt{.MODS}.DST.SRC` between registers of the two types (line 7).
fn cvt_kernel(mods: &str, dst: &str, src: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n\
         .reg .{src} %a; .reg .{dst} %b;\n\
         cvt{mods}.{dst}.{src} %b, %a;\nret;\n}}\n"
    )
}

/// Integer-to-integer `cvt` takes `.sat` exactly where ptxas does (`CVT_SAT_VERDICTS`) and
/// `.ftz` never (ptxas: "Illegal modifier '.ftz' for instruction 'cvt'" for all 64 pairs); a
/// refusal is an `invalid` error at the instruction naming the modifier.
#[test]
fn integer_cvt_takes_sat_where_it_can_saturate_and_never_ftz() {
    let columns: Vec<&str> = CVT_COLUMNS.split_whitespace().collect();
    let mut wrong = Vec::new();
    let mut check = |mods: &str, dst: &str, src: &str, verdict: &str, words: &str| {
        let ptx = cvt_kernel(mods, dst, src);
        let inst = format!("cvt{mods}.{dst}.{src}");
        match (verdict, front_end(&ptx, "k.ptx")) {
            ("ok", Ok(_)) => {}
            ("-", Err(e))
                if e.kind() == "invalid"
                    && e.to_string().contains("k.ptx:7:1")
                    && e.to_string().contains(words) => {}
            ("ok", Err(e)) => wrong.push(format!("{inst}: ptxas accepts it; ptxjit: {e}")),
            (_, Err(e)) => wrong.push(format!("{inst}: unexpected error {e}")),
            (_, Ok(_)) => wrong.push(format!("{inst}: ptxas rejects it; ptxjit loads it")),
        }
    };
    for row in CVT_SAT_VERDICTS {
        let mut cells = row.split_whitespace();
        let dst = cells.next().unwrap();
        let verdicts: Vec<&str> = cells.collect();
        assert_eq!(verdicts.len(), columns.len(), "{row}");
        for (src, verdict) in columns.iter().zip(verdicts) {
            check(".sat", dst, src, verdict, "modifier .sat");
            check(".ftz", dst, src, "-", "modifier .ftz");
            check(".ftz.sat", dst, src, "-", "modifier .ftz");
            check("", dst, src, "ok", "");
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// ptxas: "Feature 'min.relu' requires .target sm_90 or higher" (and `max.relu`), also for
/// the packed `.s16x2` form, whose `.s16x2` needs sm_90 too; ptxas names `.relu` first.
#[test]
fn min_max_relu_need_sm_90() {
    let at = "k.ptx:12:2";
    for op in ["min", "max"] {
        for ty in ["s32", "s16x2"] {
            rejected(
                &[("{INST}", &format!("{op}.relu.{ty} %r1, %r2, %r3;"))],
                "invalid",
                at,
                &format!("{op}.relu ('{op}.relu.{ty}') requires .target sm_90 or higher"),
            );
        }
        accepted(&[("{INST}", &format!("{op}.s32 %r1, %r2, %r3;"))]);
    }
}

/// A device function for the call sequences of `guarded_call_parameter_accesses_are_refused`.
const CALLEE: &str = ".func (.param .b32 r) f(.param .b32 x)
{
\t.reg .b32 %t; .reg .pred %q;
\tld.param.b32 %t, [x]; setp.eq.u32 %q, %t, 0;
\t@%q ld.param.b32 %t, [x];
\t@%q st.param.b32 [r], %t;
\tst.param.b32 [r], %t;
\tret;
}";

/// ptxas: "Illegal to predicate instruction 'ld.param' with operand 'q'" for a guarded read
/// of a call's return parameter, and the same for `st.param` to an argument; a guarded call,
/// and guarded accesses to a device function's own parameters (in `CALLEE`), it accepts.
#[test]
fn guarded_call_parameter_accesses_are_refused() {
    let seq = |st: &str, call: &str, ld: &str| {
        format!(
            "{{ .reg .pred %p; setp.eq.u32 %p, %r1, 0; .param .b32 a; .param .b32 q; \
             {st}st.param.b32 [a], %r1; {call}call (q), f, (a); {ld}ld.param.b32 %r2, [q]; }}"
        )
    };
    // The instruction line, after the callee's nine lines.
    let at = "k.ptx:20:";
    rejected(
        &[("{VAR}", CALLEE), ("{INST}", &seq("", "@%p ", "@%p "))],
        "invalid",
        at,
        "illegal to predicate 'ld.param' with operand 'q'",
    );
    rejected(
        &[("{VAR}", CALLEE), ("{INST}", &seq("@!%p ", "", ""))],
        "invalid",
        at,
        "illegal to predicate 'st.param' with operand 'a'",
    );
    accepted(&[("{VAR}", CALLEE), ("{INST}", &seq("", "@%p ", ""))]);
    accepted(&[("{VAR}", CALLEE), ("{INST}", &seq("", "", ""))]);
}

/// The packed byte forms (PTX ISA 9.2, sm_120f family) ptxas 13.5 rejects: `.relu` on
/// `.u8x4` ("Illegal modifier '.relu' for instruction 'min' with type '.u8x4'"), `neg.u8x4`
/// and `abs.s8x4` ("Unexpected instruction types specified for 'neg'"/'abs'), two types, and
/// an immediate source; the forms next to them load.
#[test]
fn packed_byte_forms_are_checked_as_ptxas_checks_them() {
    let kernel = |inst: &str| {
        format!(
            ".version 9.2\n.target sm_120a\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b32 %r<5>;\n{inst};\nret;\n}}\n"
        )
    };
    for (inst, words) in [
        ("min.relu.u8x4 %r1, %r2, %r3", ".relu needs .s8x4"),
        ("max.relu.u8x4 %r1, %r2, %r3", ".relu needs .s8x4"),
        ("neg.u8x4 %r1, %r2", "neg takes .s8x4, not .u8x4"),
        ("abs.s8x4 %r1, %r2", "abs takes no .u8x4/.s8x4"),
        ("add.u8x4.s8x4 %r1, %r2, %r3", "takes one type"),
        ("min.u16x2.u8x4 %r1, %r2, %r3", "takes one type"),
        ("add.u8x4 %r1, %r2, 5", "must be a register"),
    ] {
        match front_end(&kernel(inst), "k.ptx") {
            Ok(_) => panic!("{inst}: loaded, but ptxas rejects it"),
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.kind(), "invalid", "{msg}");
                assert!(msg.contains("k.ptx:7:"), "{msg}");
                assert!(msg.contains(words), "{msg} (wanted {words:?})");
            }
        }
    }
    for inst in [
        "min.relu.s8x4 %r1, %r2, %r3",
        "max.u8x4 %r1, %r2, %r3",
        "sub.sat.u8x4 %r1, %r2, %r3",
        "add.s8x4 %r1, %r2, %r3",
        "neg.s8x4 %r1, %r2",
    ] {
        if let Err(e) = front_end(&kernel(inst), "k.ptx") {
            panic!("{inst}: {e}");
        }
    }
}

/// The PTX ISA 9.5 forms of `sin`/`cos`, `fence` and `cp.async.bulk.wait_group` as ptxas 13.5
/// checks them: `.2pi` needs `.ftz` (".ftz modifier required for instruction 'sin' with
/// modifier '.2pi'"), `fence.alias.sync_restrict::read` has one form, `.release.sys`
/// ("Modifier '.sync_restrict::read' cannot be combined with modifier '.gpu'", "… with
/// modifier '.acquire'", ".alias modifier required"), `.sync_restrict::proxy::async` excludes
/// `.read` ("Invalid combination"); each needs `.version 9.5` ("Feature '.2pi' requires PTX
/// ISA .version 9.5 or later") and the fence and the wait `sm_90`.
#[test]
fn ptx_isa_9_5_forms_are_checked_as_ptxas_checks_them() {
    let kernel = |version: &str, target: &str, inst: &str| {
        format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .f32 %f<3>;\n{inst};\nret;\n}}\n"
        )
    };
    for (version, target, inst, words) in [
        (
            "9.5",
            "sm_90",
            "sin.approx.2pi.f32 %f1, %f2",
            ".2pi needs .ftz",
        ),
        (
            "9.5",
            "sm_90",
            "cos.approx.2pi.f32 %f1, %f2",
            ".2pi needs .ftz",
        ),
        (
            "9.4",
            "sm_90",
            "sin.approx.ftz.2pi.f32 %f1, %f2",
            "requires PTX ISA 9.5 (.version 9.4 here)",
        ),
        (
            "9.5",
            "sm_90",
            "fence.alias.sync_restrict::read.release.gpu",
            "fence.alias.sync_restrict::read.release.sys",
        ),
        (
            "9.5",
            "sm_90",
            "fence.alias.sync_restrict::read.acquire.sys",
            "fence.alias.sync_restrict::read.release.sys",
        ),
        (
            "9.5",
            "sm_90",
            "fence.sync_restrict::read.release.sys",
            "fence.alias.sync_restrict::read.release.sys",
        ),
        (
            "9.5",
            "sm_80",
            "fence.alias.sync_restrict::read.release.sys",
            "requires .target sm_90 or higher",
        ),
        (
            "9.4",
            "sm_90",
            "fence.alias.sync_restrict::read.release.sys",
            "requires PTX ISA 9.5",
        ),
        (
            "9.5",
            "sm_90",
            "cp.async.bulk.wait_group.read.sync_restrict::proxy::async 0",
            ".read and .sync_restrict::proxy::async exclude each other",
        ),
        (
            "9.4",
            "sm_90",
            "cp.async.bulk.wait_group.sync_restrict::proxy::async 0",
            "requires PTX ISA 9.5",
        ),
    ] {
        match front_end(&kernel(version, target, inst), "k.ptx") {
            Ok(_) => panic!("{inst}: loaded, but ptxas rejects it"),
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.kind(), "invalid", "{msg}");
                assert!(msg.contains("k.ptx:7:"), "{msg}");
                assert!(msg.contains(words), "{msg} (wanted {words:?})");
            }
        }
    }
    for (target, inst) in [
        ("sm_80", "sin.approx.ftz.2pi.f32 %f1, %f2"),
        ("sm_80", "cos.approx.ftz.2pi.f32 %f1, %f2"),
        ("sm_90", "fence.alias.sync_restrict::read.release.sys"),
        (
            "sm_90",
            "cp.async.bulk.wait_group.sync_restrict::proxy::async 0",
        ),
    ] {
        if let Err(e) = front_end(&kernel("9.5", target, inst), "k.ptx") {
            panic!("{inst}: {e}");
        }
    }
}

/// The PTX ISA 9.3-9.5 fabric instructions, locality registers and tensor-map allocation
/// classes as ptxas 13.5 checks them (its message in each row's comment); each row is refused
/// at its line (7), and the accepted list below loads under the same header family.
#[test]
fn fabric_locality_and_alloc_class_forms_are_checked_as_ptxas_checks_them() {
    let kernel = |version: &str, target: &str, inst: &str| {
        format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .pred %p<3>; .reg .b16 %h<3>; .reg .b32 %r<3>; .reg .b64 %rd<3>;\n{inst};\nret;\n}}\n"
        )
    };
    for (version, target, inst, words) in [
        // "Feature 'fabric.submit' requires PTX ISA .version 9.3 or later".
        ("9.2", "sm_100a", "fabric.submit", "requires PTX ISA 9.3"),
        // "Feature 'fabric.submit.commit_group' requires PTX ISA .version 9.5 or later".
        (
            "9.4",
            "sm_100a",
            "fabric.submit.commit_group",
            "requires PTX ISA 9.5",
        ),
        // "Feature '.sync_restrict::read' requires PTX ISA .version 9.5 or later".
        (
            "9.4",
            "sm_100",
            "fabric.wait.sync_restrict::read 0",
            "requires PTX ISA 9.5",
        ),
        // "Feature 'fabric.submit' not supported on .target 'sm_90a'".
        (
            "9.5",
            "sm_90a",
            "fabric.submit",
            "requires .target sm_100 or higher",
        ),
        // "Illegal modifier '.op_restrict::fetching' for instruction 'fabric.submit.commit_group'".
        (
            "9.5",
            "sm_100",
            "fabric.submit.commit_group.op_restrict::fetching",
            "illegal modifier '.op_restrict::fetching'",
        ),
        // "Illegal modifier '.sync_restrict::read' for instruction 'fabric.submit'".
        (
            "9.5",
            "sm_100",
            "fabric.submit.sync_restrict::read",
            "illegal modifier '.sync_restrict::read' for instruction 'fabric.submit'",
        ),
        // "Illegal modifier '' for instruction 'fabric.wait'".
        ("9.5", "sm_100", "fabric.wait", "needs .sync_restrict::read N"),
        // "Arguments mismatch for instruction 'fabric.wait'" (a register, or no operand).
        (
            "9.5",
            "sm_100",
            "fabric.wait.sync_restrict::read %r1",
            "one integer immediate",
        ),
        (
            "9.5",
            "sm_100",
            "fabric.wait.sync_restrict::read",
            "one integer immediate",
        ),
        // "Arguments mismatch for instruction 'fabric.submit'".
        ("9.5", "sm_100", "fabric.submit %r1", "expects 0 operands"),
        // "Multiple .op_restrict::fetching modifiers specified".
        (
            "9.5",
            "sm_100",
            "fabric.submit.op_restrict::fetching.op_restrict::fetching",
            "multiple .op_restrict::fetching",
        ),
        // "Feature '%locality_domain_id' requires PTX ISA .version 9.5 or later".
        (
            "9.4",
            "sm_100",
            "mov.u32 %r1, %locality_domain_id",
            "requires PTX ISA 9.5",
        ),
        // "Feature '%locality_domain_supplemental_sm' requires .target sm_100 or higher".
        (
            "9.5",
            "sm_90a",
            "mov.u32 %r1, %locality_domain_supplemental_sm",
            "requires .target sm_100 or higher",
        ),
        // "Arguments mismatch for instruction 'mov'".
        (
            "9.5",
            "sm_100",
            "mov.u64 %rd1, %locality_domain_id",
            "has 32 bits",
        ),
        // "Feature 'tensormap.replace.alloc_large' requires PTX ISA .version 9.5 or later".
        (
            "9.4",
            "sm_100a",
            "tensormap.replace.tile.alloc_large.global.b1024 [%rd1]",
            "requires PTX ISA 9.5",
        ),
        // "Instruction 'tensormap.replace.alloc_large' not supported on .target 'sm_100'".
        (
            "9.5",
            "sm_100",
            "tensormap.replace.tile.alloc_large.global.b1024 [%rd1]",
            "requires .target sm_90a",
        ),
        // "Modifier '.alloc_same' requires modifier '.global_address'".
        (
            "9.5",
            "sm_100a",
            "tensormap.replace.tile.alloc_same.global.b1024 [%rd1]",
            "'.alloc_same' requires modifier '.global_address'",
        ),
        // "Illegal modifier '.alloc_small' for instruction 'tensormap.replace'".
        (
            "9.5",
            "sm_100a",
            "tensormap.replace.tile.rank.alloc_small.global.b1024.b32 [%rd1], %r2",
            "illegal modifier '.alloc_small'",
        ),
        // "Multiple .alloc_large modifiers specified".
        (
            "9.5",
            "sm_100a",
            "tensormap.replace.tile.global_address.alloc_small.alloc_large.global.b1024.b64 [%rd1], %rd2",
            "multiple allocation classes",
        ),
        // "Arguments mismatch for instruction 'tensormap.replace'" (no new value without a field).
        (
            "9.5",
            "sm_100a",
            "tensormap.replace.tile.alloc_large.global.b1024.b64 [%rd1]",
            "illegal modifier '.b64'",
        ),
        // "Instruction 'tensormap.query.alloc_class_large' not supported on .target 'sm_100'".
        (
            "9.5",
            "sm_100",
            "tensormap.query.alloc_class_large.b1024 %p1, [%rd1]",
            "requires .target sm_90a",
        ),
        // ".b1024 modifier required for instruction 'tensormap.query.alloc_class_large'".
        (
            "9.5",
            "sm_100a",
            "tensormap.query.alloc_class_large %p1, [%rd1]",
            ".b1024 modifier required",
        ),
        // "State space incorrect for instruction 'tensormap.query.alloc_class_large'".
        (
            "9.5",
            "sm_100a",
            "tensormap.query.alloc_class_large.local.b1024 %p1, [%rd1]",
            "illegal modifier '.local'",
        ),
        // "Arguments mismatch for instruction 'tensormap.query.alloc_class_large'".
        (
            "9.5",
            "sm_100a",
            "tensormap.query.alloc_class_large.b1024 %r1, [%rd1]",
            "produces pred",
        ),
        // "Feature 'multimem.st.async' requires PTX ISA .version 9.3 or later".
        (
            "9.2",
            "sm_100",
            "multimem.st.async.release.gpu.global.b32 [%rd1], %r1",
            "requires PTX ISA 9.3",
        ),
        // "Feature 'multimem.red.async' requires .target sm_100 or higher".
        (
            "9.5",
            "sm_90a",
            "multimem.red.async.release.gpu.global.add.u32 [%rd1], %r1",
            "requires .target sm_100 or higher",
        ),
        // ".release modifier required for instruction 'multimem.st.async'".
        (
            "9.5",
            "sm_100",
            "multimem.st.async.relaxed.gpu.global.b32 [%rd1], %r1",
            ".release modifier required",
        ),
        // "Illegal modifier '.cta' for instruction 'multimem.st.async'".
        (
            "9.5",
            "sm_100",
            "multimem.st.async.release.cta.global.b32 [%rd1], %r1",
            "illegal modifier '.cta'",
        ),
        // "Unexpected instruction types specified for 'multimem.red.async'".
        (
            "9.5",
            "sm_100",
            "multimem.red.async.release.gpu.global.add.f32 [%rd1], %r1",
            "has no type .f32",
        ),
        // "Illegal reduction operation for instruction 'multimem.red.async'".
        (
            "9.5",
            "sm_100",
            "multimem.red.async.release.gpu.global.inc.u32 [%rd1], %r1",
            "illegal",
        ),
        // "Illegal modifier '.async' for instruction 'multimem.ld_reduce'".
        (
            "9.5",
            "sm_100",
            "multimem.ld_reduce.async.relaxed.gpu.global.add.u32 %r1, [%rd1]",
            "illegal modifier '.async'",
        ),
        // "Feature '.proxy::readonly' requires PTX ISA .version 9.4 or later".
        (
            "9.3",
            "sm_90",
            "ld.global.proxy::readonly.u32 %r1, [%rd1]",
            "requires PTX ISA 9.4",
        ),
        // "Feature '.proxy::readonly' requires .target sm_90 or higher".
        (
            "9.5",
            "sm_80",
            "ld.global.proxy::readonly.u32 %r1, [%rd1]",
            "requires .target sm_90 or higher",
        ),
        // "Modifier '.proxy::readonly' cannot be applied to '.shared' space for instruction 'ld'".
        (
            "9.5",
            "sm_90",
            "ld.shared.proxy::readonly.u32 %r1, [%rd1]",
            "cannot be applied to the .shared space",
        ),
        // "Modifier '.proxy::readonly' cannot be combined with modifier '.relaxed'".
        (
            "9.5",
            "sm_90",
            "ld.global.relaxed.gpu.proxy::readonly.u32 %r1, [%rd1]",
            "cannot be combined with modifier '.relaxed'",
        ),
        // "Modifier '.proxy::readonly' cannot be combined with modifier '.ca'".
        (
            "9.5",
            "sm_90",
            "ld.global.ca.proxy::readonly.u32 %r1, [%rd1]",
            "cannot be combined with modifier '.ca'",
        ),
        // "Illegal modifier '.proxy::readonly' for instruction 'st'".
        (
            "9.5",
            "sm_90",
            "st.global.proxy::readonly.u32 [%rd1], %r1",
            "illegal modifier '.proxy::readonly'",
        ),
        // "Illegal modifier '.proxy::readonly' for instruction 'ldu'".
        (
            "9.5",
            "sm_90",
            "ldu.global.proxy::readonly.u32 %r1, [%rd1]",
            "illegal modifier '.proxy::readonly'",
        ),
        // "Arguments mismatch for instruction 'mov'" (a 32-bit address register).
        (
            "9.5",
            "sm_100a",
            "tensormap.query.alloc_class_large.shared::cta.b1024 %p1, [%r1]",
            "must be a 64-bit register",
        ),
    ] {
        match front_end(&kernel(version, target, inst), "k.ptx") {
            Ok(_) => panic!("{inst}: loaded, but ptxas rejects it"),
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.kind(), "invalid", "{msg}");
                assert!(msg.contains("k.ptx:7:"), "{msg}");
                assert!(msg.contains(words), "{msg} (wanted {words:?})");
            }
        }
    }
    for (version, target, inst) in [
        ("9.3", "sm_100", "fabric.submit"),
        ("9.3", "sm_120", "fabric.submit.op_restrict::fetching"),
        ("9.3", "sm_100", "fabric.wait.sync_restrict::reads"),
        ("9.5", "sm_100", "fabric.wait.sync_restrict::reads 3"),
        ("9.5", "sm_100f", "fabric.submit.commit_group"),
        ("9.5", "sm_100", "fabric.wait.sync_restrict::read -1"),
        ("9.5", "sm_100", "@%p1 fabric.submit"),
        ("9.5", "sm_100", "mov.b32 %r1, %locality_domain_id"),
        (
            "9.4",
            "sm_90",
            "ld.global.nc.proxy::readonly.u32 %r1, [%rd1]",
        ),
        (
            "9.5",
            "sm_120",
            "ld.proxy::readonly.v2.u32 {%r1, %r2}, [%rd1]",
        ),
        (
            "9.3",
            "sm_100",
            "multimem.st.async.release.sys.global.s64 [%rd1], %rd2",
        ),
        (
            "9.5",
            "sm_120",
            "multimem.red.async.release.gpu.add.s32 [%rd1], %r1",
        ),
        (
            "9.5",
            "sm_120",
            "mov.s32 %r1, %locality_domain_supplemental_sm",
        ),
        ("9.5", "sm_100", "cvt.u64.u32 %rd1, %locality_domain_id"),
        (
            "9.5",
            "sm_90a",
            "tensormap.replace.tile.global_address.alloc_small.global.b1024.b64 [%rd1], %rd2",
        ),
        (
            "9.5",
            "sm_120f",
            "tensormap.replace.tile.alloc_large.shared::cta.b1024 [%r1]",
        ),
        (
            "9.5",
            "sm_100a",
            "tensormap.replace.tile.global_address.alloc_same.b1024.b64 [%rd1], %rd2",
        ),
        (
            "9.5",
            "sm_90a",
            "tensormap.query.alloc_class_large.param.b1024 %p1, [%rd1]",
        ),
        (
            "9.5",
            "sm_103f",
            "tensormap.query.alloc_class_large.const.b1024 %p1, [%rd1]",
        ),
    ] {
        if let Err(e) = front_end(&kernel(version, target, inst), "k.ptx") {
            panic!("{inst}: {e}");
        }
    }
}

/// A `(version, target)` header.
type Header<'a> = (&'a str, &'a str);
/// One row of `target_and_version_gates_follow_ptxas`.
type GateRow<'a> = (Header<'a>, &'a str, &'a str, Header<'a>);

/// Instructions and forms for older targets and PTX ISA versions, as ptxas 12.9 gates them
/// (each row: the header, the instruction, ptxas's words in the comment, then the lowest
/// header ptxas accepts it under); ptxjit refused none of them before it accepted them all.
#[test]
fn target_and_version_gates_follow_ptxas() {
    let kernel = |version: &str, target: &str, inst: &str| {
        format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .pred %p<4>;\n.reg .b16 %h<5>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<6>;\n\
             .reg .f32 %f<5>;\n.reg .f64 %fd<5>;\n{inst};\nret;\n}}\n"
        )
    };
    // (refused under, instruction, what the error names, accepted under)
    let rows: &[GateRow] = &[
        // "Instruction 'cvta.to' requires .target sm_20 or higher"
        (("8.0", "sm_13"), "cvta.to.global.u64 %rd1, %rd2", "sm_20", ("8.0", "sm_20")),
        // "Instruction 'popc' requires .target sm_20 or higher"
        (("8.0", "sm_13"), "popc.b32 %r1, %r2", "sm_20", ("8.0", "sm_20")),
        (("8.0", "sm_13"), "prmt.b32 %r1, %r2, %r3, %r4", "sm_20", ("8.0", "sm_20")),
        (("8.0", "sm_13"), "vote.ballot.b32 %r1, %p1", "sm_20", ("8.0", "sm_20")),
        // "Instruction 'fma.f32' requires .target sm_20 or higher"; f64 fma is older.
        (("8.0", "sm_13"), "fma.rn.f32 %f1, %f2, %f3, %f4", "sm_20", ("8.0", "sm_20")),
        // "Illegal rounding modifier for instruction 'sub'" (sm_1x: .rn/.rz only)
        (("8.0", "sm_13"), "sub.rp.f32 %f1, %f2, %f3", "sm_20", ("8.0", "sm_20")),
        // "Instruction 'div.rnd.f32' requires .target sm_20 or higher"
        (("8.0", "sm_13"), "div.rz.f32 %f1, %f2, %f3", "sm_20", ("8.0", "sm_20")),
        // "Instruction '.cc with 64bit type' requires .target sm_20 or higher"
        (("8.0", "sm_13"), "sub.cc.s64 %rd1, %rd2, %rd3", "sm_20", ("8.0", "sm_20")),
        (("8.0", "sm_13"), "vadd.s32.u32.s32.sat %r1, %r2, %r3", "sm_20", ("8.0", "sm_20")),
        // "Instruction 'shfl' requires .target sm_30 or higher"
        (("8.0", "sm_20"), "shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1", "sm_30", ("8.0", "sm_30")),
        (("8.0", "sm_20"), "vadd2.s32.s32.u32.sat %r1, %r2, %r3, %r1", "sm_30", ("8.0", "sm_30")),
        // "Instruction 'shf.l' requires .target sm_32 or higher"
        (("8.0", "sm_30"), "shf.l.wrap.b32 %r1, %r2, %r3, %r4", "sm_32", ("8.0", "sm_32")),
        // "Instruction 'lop3' requires .target sm_50 or higher"
        (("8.0", "sm_30"), "lop3.b32 %r1, %r2, %r3, %r4, 0x96", "sm_50", ("8.0", "sm_50")),
        // "Feature 'f16 arithemetic and compare instructions' requires .target sm_53"
        (("8.0", "sm_52"), "setp.lt.f16 %p1, %h1, %h2", "sm_53", ("8.0", "sm_53")),
        (("8.0", "sm_52"), "set.lt.f16.f16 %h1, %h2, %h3", "sm_53", ("8.0", "sm_53")),
        // "Modifier '.alias' requires .target sm_60 or higher"
        (("8.0", "sm_52"), "membar.proxy.alias", "sm_60", ("8.0", "sm_60")),
        // "Feature 'cvta/isspacep with .param state space' requires .target sm_70"
        (("8.0", "sm_60"), "isspacep.param %p1, %rd1", "sm_70", ("8.0", "sm_70")),
        // "Feature 'cvt.pack' requires .target sm_72", "Feature '.s4' … sm_75"
        (("8.0", "sm_70"), "cvt.pack.sat.s16.s32 %r1, %r2, %r3", "sm_72", ("8.0", "sm_72")),
        (
            ("8.0", "sm_72"),
            "cvt.pack.sat.s4.s32.b32 %r1, %r2, %r3, %r4",
            "sm_75",
            ("8.0", "sm_75"),
        ),
        // "Feature 'cvt.f16x2.f32' requires .target sm_80 or higher"
        (("8.0", "sm_75"), "cvt.rn.relu.f16x2.f32 %r1, %f1, %f2", "sm_80", ("8.0", "sm_80")),
        // "Feature '.abs' requires .target sm_86 or higher"
        (("8.0", "sm_80"), "min.xorsign.abs.bf16x2 %r1, %r2, %r3", "sm_86", ("8.0", "sm_86")),
        // "Feature 'set.bf16x2' requires .target sm_90", "Feature 'setp.bf16' … sm_90"
        (("8.0", "sm_89"), "set.lt.bf16x2.bf16x2 %r1, %r2, %r3", "sm_90", ("8.0", "sm_90")),
        (("8.0", "sm_89"), "setp.eq.and.bf16 %p1, %h1, %h2, %p3", "sm_90", ("8.0", "sm_90")),
        // "Modifier '.oob' requires .target sm_90", "Feature '.oob' requires PTX ISA 8.1"
        (("8.1", "sm_89"), "fma.rn.oob.f16 %h1, %h2, %h3, %h4", "sm_90", ("8.1", "sm_90")),
        (("8.0", "sm_90"), "fma.rn.oob.f16 %h1, %h2, %h3, %h4", "8.1", ("8.1", "sm_90")),
        // "Feature 'lop3.<BoolOp>' requires PTX ISA .version 8.2 or later" (and sm_70)
        (
            ("8.1", "sm_90"),
            "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x80, %p2",
            "8.2",
            ("8.2", "sm_70"),
        ),
        // "Feature '::entry' requires PTX ISA .version 8.3 or later"
        (("8.2", "sm_90"), "isspacep.param::entry %p1, %rd1", "8.3", ("8.3", "sm_70")),
        // "Feature '.op_restrict' requires .target sm_90" (fence.mbarrier_init)
        (("8.0", "sm_89"), "fence.mbarrier_init.release.cluster", "sm_90", ("8.0", "sm_90")),
        // "Feature '.sync_restrict' requires PTX ISA .version 8.6 or later"
        (
            ("8.5", "sm_90"),
            "fence.acquire.sync_restrict::shared::cluster.cluster",
            "8.6",
            ("8.6", "sm_90"),
        ),
        // "Feature 'WMMA with fp64 types' requires .target sm_80 or higher"
        (
            ("8.0", "sm_75"),
            "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2}",
            "sm_80",
            ("8.0", "sm_80"),
        ),
        // "Feature '.m16n8k8' requires .target sm_75", "'.tf32' … sm_80"
        (
            ("8.0", "sm_70"),
            "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f1, %f2, %f3, %f4}",
            "sm_75",
            ("8.0", "sm_75"),
        ),
        (
            ("8.0", "sm_75"),
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%f1, %f2, %f3, %f4}",
            "sm_80",
            ("8.0", "sm_80"),
        ),
        // "Feature 'mma with FP8 floating point type' requires .target sm_89", "… PTX ISA 8.4"
        (
            ("8.4", "sm_86"),
            "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%f1, %f2, %f3, %f4}",
            "sm_89",
            ("8.4", "sm_89"),
        ),
        (
            ("8.3", "sm_89"),
            "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r1}, {%f1, %f2, %f3, %f4}",
            "8.4",
            ("8.4", "sm_89"),
        ),
    ];
    for ((version, target), inst, words, (ok_version, ok_target)) in rows {
        match front_end(&kernel(version, target, inst), "k.ptx") {
            Ok(_) => panic!("{inst} under {version} {target}: loaded, but ptxas rejects it"),
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.kind(), "invalid", "{msg}");
                assert!(msg.contains("k.ptx:12:"), "{msg}");
                assert!(msg.contains(words), "{msg} (wanted {words:?})");
            }
        }
        if let Err(e) = front_end(&kernel(ok_version, ok_target, inst), "k.ptx") {
            panic!("{inst} under {ok_version} {ok_target}: {e}");
        }
    }
}

/// Modifiers PTX defines, on an instruction that does not take them, as ptxas 13.5
/// (`-arch=sm_90`) reports them: "Illegal modifier '.relu' for instruction 'rsqrt'" for each
/// `(rejected, accepted)` pair below, while the nearest form ptxas accepts still loads. The
/// refusal is an `invalid` error at the instruction naming the modifier and the opcode; each
/// rejected form loaded before the decoder table listed the modifiers of its rows.
#[test]
fn modifiers_an_instruction_does_not_take_are_refused() {
    let kernel = |inst: &str| {
        format!(
            ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n\
             {{\n.reg .pred %p<3>;\n.reg .b32 %r<4>;\n.reg .f32 %f<4>;\n.reg .f64 %fd<4>;\n\
             .reg .b64 %rd<3>;\n{inst};\nret;\n}}\n"
        )
    };
    for (rejected, word, op, accepted) in [
        (
            "rsqrt.approx.relu.f32 %f1, %f2",
            "relu",
            "rsqrt",
            "rsqrt.approx.ftz.f32 %f1, %f2",
        ),
        // ptxas also: "Feature '.2pi' requires PTX ISA .version 9.5 or later".
        (
            "ex2.approx.ftz.2pi.f32 %f1, %f2",
            "2pi",
            "ex2",
            "ex2.approx.ftz.f32 %f1, %f2",
        ),
        (
            "sin.approx.sat.f32 %f1, %f2",
            "sat",
            "sin",
            "sin.approx.f32 %f1, %f2",
        ),
        (
            "lg2.approx.relu.f32 %f1, %f2",
            "relu",
            "lg2",
            "lg2.approx.ftz.f32 %f1, %f2",
        ),
        (
            "sqrt.rn.relu.f32 %f1, %f2",
            "relu",
            "sqrt",
            "sqrt.rn.ftz.f32 %f1, %f2",
        ),
        (
            "rcp.rn.sat.f32 %f1, %f2",
            "sat",
            "rcp",
            "rcp.rn.ftz.f32 %f1, %f2",
        ),
        (
            "tanh.approx.ftz.f32 %f1, %f2",
            "ftz",
            "tanh",
            "tanh.approx.f32 %f1, %f2",
        ),
        (
            "add.approx.f32 %f1, %f2, %f3",
            "approx",
            "add",
            "add.rn.f32 %f1, %f2, %f3",
        ),
        ("abs.sat.f32 %f1, %f2", "sat", "abs", "abs.ftz.f32 %f1, %f2"),
        ("neg.sat.f32 %f1, %f2", "sat", "neg", "neg.ftz.f32 %f1, %f2"),
        (
            "copysign.ftz.f32 %f1, %f2, %f3",
            "ftz",
            "copysign",
            "copysign.f32 %f1, %f2, %f3",
        ),
        (
            "selp.sat.b32 %r1, %r2, %r3, %p1",
            "sat",
            "selp",
            "selp.b32 %r1, %r2, %r3, %p1",
        ),
        ("mov.sat.b32 %r1, %r2", "sat", "mov", "mov.b32 %r1, %r2"),
        (
            "and.sat.b32 %r1, %r2, %r3",
            "sat",
            "and",
            "and.b32 %r1, %r2, %r3",
        ),
        ("popc.sat.b32 %r1, %r2", "sat", "popc", "popc.b32 %r1, %r2"),
        ("clz.ftz.b32 %r1, %r2", "ftz", "clz", "clz.b32 %r1, %r2"),
        ("brev.ftz.b32 %r1, %r2", "ftz", "brev", "brev.b32 %r1, %r2"),
        (
            "bfe.sat.u32 %r1, %r2, 4, 8",
            "sat",
            "bfe",
            "bfe.u32 %r1, %r2, 4, 8",
        ),
        (
            "shl.sat.b32 %r1, %r2, 3",
            "sat",
            "shl",
            "shl.b32 %r1, %r2, 3",
        ),
        (
            "prmt.b32.sat %r1, %r2, %r3, %r1",
            "sat",
            "prmt",
            "prmt.b32.f4e %r1, %r2, %r3, %r1",
        ),
        (
            "st.global.ca.u32 [%rd1], %r1",
            "ca",
            "st",
            "st.global.cs.u32 [%rd1], %r1",
        ),
        (
            "activemask.sync.b32 %r1",
            "sync",
            "activemask",
            "activemask.b32 %r1",
        ),
        // Every .b1 shape (m8n8k128, m16n8k128, m16n8k256) and .xor/.and.
        (
            "mma.sync.aligned.m8n8k128.row.col.satfinite.s32.b1.b1.s32.xor.popc {%r1, %r2}, {%r3}, {%r3}, {%r1, %r2}",
            "satfinite",
            "mma",
            "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%r1, %r2}, {%r3}, {%r3}, {%r1, %r2}",
        ),
        (
            "mma.sync.aligned.m16n8k128.row.col.satfinite.s32.b1.b1.s32.and.popc {%r0, %r1, %r2, %r3}, {%r1, %r2}, {%r3}, {%r0, %r1, %r2, %r3}",
            "satfinite",
            "mma",
            "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc {%r0, %r1, %r2, %r3}, {%r1, %r2}, {%r3}, {%r0, %r1, %r2, %r3}",
        ),
    ] {
        let words = format!("illegal modifier '.{word}' for instruction '{op}'");
        match front_end(&kernel(rejected), "k.ptx") {
            Ok(_) => panic!("{rejected}: loaded, but ptxas rejects it"),
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.kind(), "invalid", "{msg}");
                assert!(msg.contains("k.ptx:11:1"), "{msg}");
                assert!(msg.contains(&words), "{msg} (wanted {words:?})");
            }
        }
        if let Err(e) = front_end(&kernel(accepted), "k.ptx") {
            panic!("{accepted}: {e}");
        }
    }
}

/// Words that are alternatives to one another (an operation, a mode, a query, a count, a
/// scope), each on an instruction ptxas 13.5 (`-arch=sm_90`) assembles: every one loads, so
/// a modifier list built from one example's words that lacks another alternative fails here
/// (`sured.b.min` beside the example's `sured.b.add`). Then misplaced words with ptxas's
/// verdict in the comment, refused at the instruction and naming the word.
#[test]
fn modifier_alternatives_ptxas_accepts_load() {
    let kernel = |inst: &str| {
        format!(
            ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n\
             {{\n.reg .pred %p<3>;\n.reg .b32 %r<6>;\n.reg .f32 %f<4>;\n.reg .f64 %fd<4>;\n\
             .reg .b64 %rd<3>;\n{inst};\nret;\n}}\n"
        )
    };
    for accepted in [
        // §9.7.11.3 `sured`: .op = .add, .min, .max, .and, .or.
        "sured.b.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3",
        "sured.b.min.2d.u32.trap [%rd1, {%r1, %r2}], %r3",
        "sured.b.max.2d.u32.trap [%rd1, {%r1, %r2}], %r3",
        "sured.b.and.2d.b32.trap [%rd1, {%r1, %r2}], %r3",
        "sured.b.or.2d.b32.trap [%rd1, {%r1, %r2}], %r3",
        "sured.b.min.1d.s32.clamp [%rd1, {%r1}], %r3",
        // `sured.p`: .b32 with every operation, .b64 with .min/.max.
        "sured.p.add.2d.b32.trap [%rd1, {%r1, %r2}], %r3",
        "sured.p.or.2d.b32.zero [%rd1, {%r1, %r2}], %r3",
        "sured.p.max.2d.b64.trap [%rd1, {%r1, %r2}], %rd2",
        // §9.7.11.4 `suq` and §9.7.10.5 `txq` queries.
        "suq.memory_layout.b32 %r1, [%rd1]",
        "suq.array_size.b32 %r1, [%rd1]",
        "txq.memory_layout.b32 %r1, [%rd1]",
        "txq.num_samples.b32 %r1, [%rd1]",
        // §9.7.13.5-6 `atom`/`red` operations.
        "atom.global.exch.b32 %r1, [%rd1], %r2",
        "atom.global.cas.b32 %r1, [%rd1], %r2, %r3",
        "atom.global.inc.u32 %r1, [%rd1], %r2",
        "red.global.max.u32 [%rd1], %r2",
        "red.global.and.b32 [%rd1], %r2",
        "atom.global.add.L2::cache_hint.u32 %r1, [%rd1], %r2, %rd2",
        "atom.global.v4.add.f32 {%f0, %f1, %f2, %f3}, [%rd1], {%f0, %f1, %f2, %f3}",
        "atom.shared::cta.exch.b64 %rd2, [%r1], %rd1",
        "red.global.xor.b32 [%rd1], %r2",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s32 [%r1], %r2, [%r3]",
        // §9.7.9.14 `multimem`, §9.7.13.11 `redux.sync`, §9.7.13.1 `bar.red`.
        "multimem.red.relaxed.gpu.min.u32 [%rd1], %r1",
        "multimem.ld_reduce.relaxed.gpu.and.b32 %r1, [%rd1]",
        "redux.sync.xor.b32 %r1, %r2, 0xffffffff",
        "redux.sync.max.s32 %r1, %r2, 0xffffffff",
        "bar.red.or.pred %p1, 0, %p2",
        "bar.red.popc.u32 %r1, 0, %p2",
        // §9.7.18 video: secondary operations and modes.
        "vset.s32.u32.lt.add %r1, %r2, %r3, %r4",
        "vshr.u32.u32.u32.wrap.max %r1, %r2, %r3, %r4",
        "vmad.s32.s32.u32.shr15 %r1, %r2, %r3, %r4",
        "vmad.s32.s32.u32.po.sat.shr7 %r1, %r2, %r3, %r4",
        "vsub.s32.u32.s32.sat.min %r1, %r2, %r3, %r4",
        "vavrg2.s32.s32.u32.add %r1, %r2, %r3, %r4",
        "vset4.s32.u32.le.add %r1, %r2, %r3, %r4",
        // Modes, counts, cache and eviction words.
        "shfl.sync.up.b32 %r1, %r2, 1, 0x1f, 0xffffffff",
        "vote.sync.ballot.b32 %r1, %p2, 0xffffffff",
        "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {%r2, %r3}",
        "prefetch.tensormap [%rd1]",
        "prmt.b32.rc16 %r1, %r2, %r3, %r4",
        "shf.r.wrap.b32 %r1, %r2, %r3, %r4",
        "szext.wrap.s32 %r1, %r2, %r3",
        "testp.notanumber.f32 %p1, %f1",
        "ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2",
        "applypriority.global.L2::evict_normal [%rd1], 128",
        "discard.global.L2 [%rd1], 128",
        "isspacep.param::entry %p1, %rd2",
        // §9.7.9.12 `st.async`: .scope = .cluster.
        "st.async.cluster.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3]",
        // A floating-point word where the compared type is a float.
        "set.lt.ftz.u32.f32 %r1, %f1, %f2",
        "slct.ftz.s32.f32 %r1, %r2, %r3, %f1",
    ] {
        if let Err(e) = front_end(&kernel(accepted), "k.ptx") {
            panic!("{accepted}: {e}");
        }
    }
    for (rejected, words) in [
        // ptxas: "Unexpected instruction types specified for 'sured.p'".
        (
            "sured.p.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3",
            "sured.p elements are .b32 or .b64",
        ),
        // ptxas: "Incorrect type '.b64' for operation '.add' in instruction 'sured.p'".
        (
            "sured.p.add.2d.b64.trap [%rd1, {%r1, %r2}], %rd2",
            "sured.p on .b64 is .min or .max",
        ),
        // ptxas: "Illegal modifier '.ftz' for instruction 'setp'".
        (
            "setp.lt.ftz.s32 %p1, %r1, %r2",
            "illegal modifier '.ftz' for instruction 'setp'",
        ),
        // ptxas: "Illegal modifier '.ftz' for instruction 'set'".
        (
            "set.lt.ftz.u32.s32 %r1, %r1, %r2",
            "illegal modifier '.ftz' for instruction 'set'",
        ),
        // ptxas: "Illegal modifier '.ftz' for instruction 'slct'" (`.ftz` goes with an
        // `.f32` selector).
        (
            "slct.ftz.s32.s32 %r1, %r2, %r3, %r4",
            "illegal modifier '.ftz' for instruction 'slct'",
        ),
        // ptxas: "Illegal query modifier for instruction 'suq'" (a texture/sampler query).
        (
            "suq.normalized_coords.b32 %r1, [%rd1]",
            "illegal modifier '.normalized_coords' for instruction 'suq'",
        ),
        // ptxas: "Illegal modifier '.ca' for instruction 'atom'".
        (
            "atom.global.ca.add.u32 %r1, [%rd1], %r2",
            "illegal modifier '.ca' for instruction 'atom'",
        ),
        // ptxas: "Illegal modifier '.nc' for instruction 'red'".
        (
            "red.global.nc.add.u32 [%rd1], %r2",
            "illegal modifier '.nc' for instruction 'red'",
        ),
        // ptxas: "Illegal modifier '.sat' for instruction 'atom'".
        (
            "atom.global.add.sat.s32 %r1, [%rd1], %r2",
            "illegal modifier '.sat' for instruction 'atom'",
        ),
        // ptxas: "Illegal secondary operation for video instruction 'vadd2'".
        (
            "vadd2.s32.s32.u32.min %r1, %r2, %r3, %r4",
            "illegal modifier '.min' for instruction 'vadd2'",
        ),
        // ptxas: "Illegal modifier '.add' for instruction 'vmad'".
        (
            "vmad.s32.s32.u32.add %r1, %r2, %r3, %r4",
            "illegal modifier '.add' for instruction 'vmad'",
        ),
        // ptxas: "No state space qualifier expected for instruction 'vadd'".
        (
            "vadd.s32.u32.s32.global %r1, %r2, %r3",
            "illegal modifier '.global' for instruction 'vadd'",
        ),
        // ptxas: "Modifier '.weak' cannot be combined with modifier '.cluster'".
        (
            "st.async.weak.cluster.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3]",
            "'st.async' takes .weak or .cluster, not both",
        ),
    ] {
        match front_end(&kernel(rejected), "k.ptx") {
            Ok(_) => panic!("{rejected}: loaded, but ptxas rejects it"),
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.kind(), "invalid", "{msg}");
                assert!(msg.contains("k.ptx:11:1"), "{msg}");
                assert!(msg.contains(words), "{msg} (wanted {words:?})");
            }
        }
    }
}

/// `wmma` before PTX ISA 6.3 has no `.aligned` (ptxas 12.9 assembles
/// `wmma.load.a.sync.row.m16n16k16.f16` under `.version 6.0`); from 6.3 it is required
/// (ptxas 13.5: ".aligned modifier required for instruction 'wmma.load.a'"), and below 6.3 it
/// is refused ("Feature '.aligned modifier for wmma' requires PTX ISA .version 6.3").
#[test]
fn wmma_takes_aligned_from_ptx_isa_6_3() {
    let kernel = |version: &str, aligned: &str| {
        format!(
            ".version {version}\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .b32 %r<9>;\n.reg .f32 %f<9>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n\
             wmma.load.a.sync{aligned}.row.m16n16k16.f16 {{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}}, [%rd1];\n\
             wmma.load.c.sync{aligned}.row.m16n16k16.f32 {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}}, [%rd1];\n\
             wmma.mma.sync{aligned}.row.col.m16n16k16.f32.f32 {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}}, \
             {{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}}, {{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}}, \
             {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}};\n\
             wmma.store.d.sync{aligned}.row.m16n16k16.f32 [%rd1], {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}};\n\
             ret;\n}}\n"
        )
    };
    for (version, aligned, err) in [
        ("6.0", "", None),
        ("6.2", "", None),
        ("6.3", ".aligned", None),
        ("7.0", ".aligned", None),
        (
            "6.2",
            ".aligned",
            Some(".aligned on wmma needs PTX ISA 6.3"),
        ),
        (
            "6.3",
            "",
            Some("needs .sync.aligned (PTX ISA 6.3 and later)"),
        ),
    ] {
        let ptx = kernel(version, aligned);
        match (front_end(&ptx, "k.ptx"), err) {
            (Ok(_), None) => {}
            (Err(e), Some(words)) => {
                let msg = e.to_string();
                assert!(msg.contains("k.ptx:10:1") && msg.contains(words), "{msg}");
            }
            (Ok(_), Some(words)) => panic!("loaded, but ptxas says {words:?}:\n{ptx}"),
            (Err(e), None) => panic!("{e}\n{ptx}"),
        }
    }
}

/// A kernel of PTX ISA 9.0 for sm_100a with one instruction on line 14 (predicate, b16, b32,
/// b64, f32, f64 registers and a `.shared` `.b64` word `sm`).
fn isa9_kernel(inst: &str) -> String {
    isa_kernel("9.0", "sm_100a", inst)
}

/// [`isa9_kernel`] under `.version VERSION` and `.target TARGET`.
fn isa_kernel(version: &str, target: &str, inst: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p)\n\
         {{\n.reg .pred %p<3>;\n.reg .b16 %h<9>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<9>;\n\
         .reg .f32 %f<40>;\n.reg .f64 %fd<9>;\n.shared .align 8 .b64 sm;\n\
         ld.param.u64 %rd1, [p];\n{inst};\nret;\n}}\n"
    )
}

/// The alternatives of the modifier lists of `cvt`, `tex`, `membar`, `fence`, `vote`,
/// `shfl`, `lop3`, `prefetchu`, `griddepcontrol`, `setmaxnreg`, `mbarrier` and the
/// half-precision `set` (each instruction's PTX ISA syntax block; every line assembles with
/// ptxas 13.5, `-arch=sm_100a`): every one loads, so a list that lacks one fails here.
#[test]
fn modifier_lists_take_every_alternative_of_the_isa_syntax() {
    for inst in [
        "cvt.rni.s32.f32 %r1, %f1",
        "cvt.rzi.ftz.sat.f32.f32 %f1, %f2",
        "cvt.rmi.s32.f64 %r1, %fd1",
        "cvt.rpi.u32.f32 %r1, %f1",
        "cvt.rn.ftz.sat.f32.f64 %f1, %fd1",
        "cvt.rz.f32.s32 %f1, %r1",
        "cvt.rm.f64.u64 %fd1, %rd1",
        "cvt.rp.f32.u32 %f1, %r1",
        "cvt.rna.satfinite.tf32.f32 %r1, %f1",
        "cvt.rn.relu.satfinite.f16x2.f32 %r1, %f1, %f2",
        "cvt.rs.relu.satfinite.f16x2.f32 %r1, %f1, %f2, %r2",
        "cvt.pack.sat.u16.s32 %r1, %r2, %r3",
        "cvt.sat.u8.s32 %r1, %r2",
        "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}]",
        "tex.a1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}]",
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}]",
        "tex.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1, %f2, %f3}]",
        "tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}]",
        "tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}]",
        "tex.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1, %f2, %f3}]",
        "tex.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}]",
        "tex.a2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}]",
        "tex.base.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}]",
        "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], %f3",
        "tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%f1, %f2}, {%f3, %f4}",
        "tex.2d.v2.f16x2.f32 {%r1, %r2}, [%rd1, {%f1, %f2}]",
        "tex.uni.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}]",
        "membar.cta",
        "membar.gl",
        "membar.sys",
        "membar.proxy.alias",
        "fence.sc.gpu",
        "fence.acq_rel.cta",
        "fence.proxy.alias",
        "fence.proxy.async",
        "fence.proxy.async.global",
        "fence.proxy.async.shared::cta",
        "fence.proxy.async.shared::cluster",
        "fence.mbarrier_init.release.cluster",
        "fence.proxy.tensormap::generic.release.gpu",
        "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster",
        "fence.acquire.sync_restrict::shared::cluster.cluster",
        "vote.sync.all.pred %p1, %p2, -1",
        "vote.sync.any.pred %p1, %p2, -1",
        "vote.sync.uni.pred %p1, %p2, -1",
        "vote.sync.ballot.b32 %r1, %p2, -1",
        "shfl.sync.up.b32 %r1, %r2, 1, 0, -1",
        "shfl.sync.down.b32 %r1, %r2, 1, 31, -1",
        "shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1",
        "shfl.sync.idx.b32 %r1, %r2, 1, 31, -1",
        "lop3.b32 %r1, %r2, %r3, %r4, 0x96",
        "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2",
        "lop3.and.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2",
        "prefetchu.L1 [%rd1]",
        "griddepcontrol.wait",
        "griddepcontrol.launch_dependents",
        "setmaxnreg.inc.sync.aligned.u32 240",
        "setmaxnreg.dec.sync.aligned.u32 32",
        "set.lt.ftz.u32.f16 %r1, %h1, %h2",
        "set.gtu.and.f16.f16 %h1, %h2, %h3, %p1",
        "set.num.xor.bf16x2.bf16x2 %r1, %r2, %r3, !%p1",
        "add.rn.bf16 %h1, %h2, %h3",
        "fma.rz.bf16 %h1, %h2, %h3, %h4",
        "fma.rm.oob.relu.bf16x2 %r1, %r2, %r3, %r4",
        "ld.global.nc.f32 %f1, [%rd1]",
        "ld.shared::cluster.u32 %r1, [%rd1]",
        "mbarrier.init.shared::cta.b64 [sm], %r1",
        "mbarrier.arrive.noComplete.shared.b64 %rd2, [sm], %r1",
        "mbarrier.arrive_drop.shared::cta.b64 %rd2, [sm]",
        "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%rd1], %r1",
        "mbarrier.complete_tx.shared::cta.b64 [sm], %r1",
        "mbarrier.test_wait.shared.b64 %p1, [sm], %rd2",
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [sm], %r1",
        "mbarrier.pending_count.b64 %r1, %rd2",
        "mbarrier.inval.shared.b64 [sm]",
    ] {
        if let Err(e) = front_end(&isa9_kernel(inst), "k.ptx") {
            panic!("{inst}: {e}");
        }
    }
}

/// The alternatives of the modifier lists of `mma`, `wgmma`, `multimem`, `cp` and `tcgen05`
/// (PTX ISA §9.7.14.5.14, §9.7.14.6, §9.7.15, §9.7.9.14, §9.7.9.25, §9.7.16): every line
/// assembles with ptxas 13.5 under its header (`wgmma` needs sm_90a, `multimem.cp` PTX ISA 9.1,
/// `.sync_restrict::proxy::async` 9.5, `tcgen05.ld.red` sm_103a, the `mma` kinds sm_120a).
/// Each loads, or is refused as "unsupported" (a form ptxjit does not run yet, such as
/// `tcgen05.cp`'s decompression), never as invalid: a list that lacks one of its
/// words refuses it as "invalid".
#[test]
fn matrix_and_bulk_copy_modifier_lists_take_every_alternative() {
    let groups: [(&str, &str, &[&str]); 6] = [
        (
            "9.0",
            "sm_100a",
            &[
                "mma.sync.aligned.m8n8k4.row.col.rn.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6}",
                "mma.sync.aligned.m8n8k4.row.col.rz.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6}",
                "mma.sync.aligned.m8n8k4.row.col.rm.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6}",
                "mma.sync.aligned.m8n8k4.row.col.rp.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6}",
                "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2}, {%r3, %r4}, {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}",
                "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14}",
                "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14}",
                "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14}",
                "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, 0",
                "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, 0",
                "multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1]",
                "multimem.ld_reduce.acquire.gpu.global.min.s32 %r1, [%rd1]",
                "multimem.ld_reduce.global.max.u32 %r1, [%rd1]",
                "multimem.ld_reduce.weak.global.and.b32 %r1, [%rd1]",
                "multimem.ld_reduce.global.or.b32 %r1, [%rd1]",
                "multimem.ld_reduce.global.xor.b64 %rd2, [%rd1]",
                "multimem.ld_reduce.relaxed.cta.global.add.acc::f32.v2.f16x2 {%r1, %r2}, [%rd1]",
                "multimem.ld_reduce.relaxed.cluster.global.add.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1]",
                "multimem.ld_reduce.global.add.v8.bf16 {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8}, [%rd1]",
                "multimem.st.release.gpu.global.u32 [%rd1], %r1",
                "multimem.st.weak.global.f32 [%rd1], %f1",
                "multimem.red.relaxed.sys.global.add.u32 [%rd1], %r1",
                "multimem.red.release.gpu.global.min.s32 [%rd1], %r1",
                "cp.async.ca.shared.global [sm], [%rd1], 4",
                "cp.async.cg.shared.global.L2::128B [sm], [%rd1], 16",
                "cp.async.ca.shared::cta.global.L2::64B [sm], [%rd1], 8",
                "cp.async.ca.shared.global.L2::256B [sm], [%rd1], 4, 2",
                "cp.async.commit_group",
                "cp.async.wait_group 1",
                "cp.async.wait_all",
                "cp.async.mbarrier.arrive.shared.b64 [sm]",
                "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [sm]",
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [sm], [%rd1], 16, [sm]",
                "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [sm], [%rd1], 16, [sm]",
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [sm], [%rd1], 16, [sm], %h1",
                "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [sm], [sm], 16, [sm]",
                "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [sm], 16",
                "cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [sm], 16, %h1",
                "cp.async.bulk.prefetch.L2.global [%rd1], 16",
                "cp.async.bulk.commit_group",
                "cp.async.bulk.wait_group 0",
                "cp.async.bulk.wait_group.read 0",
                "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.inc.u32 [sm], [sm], 16, [sm]",
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.dec.u32 [%rd1], [sm], 16",
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16 [%rd1], [sm], 16",
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.u32 [%rd1], [sm], 16",
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s32 [%rd1], [sm], 16",
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.and.b32 [%rd1], [sm], 16",
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.or.b32 [%rd1], [sm], 16",
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b64 [%rd1], [sm], 16",
                "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1}], [sm]",
                "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1, %r2}], [sm]",
                "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1, %r2, %r3}], [sm], {%h1}",
                "cp.async.bulk.tensor.4d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes.cta_group::1 [sm], [%rd1, {%r1, %r2, %r3, %r4}], [sm], {%h1, %h2}",
                "cp.async.bulk.tensor.4d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes.cta_group::2 [sm], [%rd1, {%r1, %r2, %r3, %r4}], [sm], {%h1, %h2}",
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [sm]",
                "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r1, %r2, %r3, %r4, %r5}], [sm]",
                "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}]",
                "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col_no_offs.bulk_group [%rd1, {%r1, %r2, %r3}], [sm]",
                "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sm], 32",
                "tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r1, 64",
                "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned",
                "tcgen05.fence::before_thread_sync",
                "tcgen05.fence::after_thread_sync",
                "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd1]",
                "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd1], %h1",
                "tcgen05.wait::ld.sync.aligned",
                "tcgen05.wait::st.sync.aligned",
                "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {%r1, %r2}, [%r3]",
                "tcgen05.ld.sync.aligned.16x64b.x4.b32 {%r1, %r2, %r3, %r4}, [%r5]",
                "tcgen05.ld.sync.aligned.16x128b.x1.b32 {%r1, %r2}, [%r3]",
                "tcgen05.ld.sync.aligned.16x256b.x1.b32 {%r1, %r2, %r3, %r4}, [%r5]",
                "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r2], 16",
                "tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%r9]",
                "tcgen05.st.sync.aligned.32x32b.x16.unpack::16b.b32 [%r1], {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}",
                "tcgen05.cp.cta_group::1.128x256b [%r1], %rd1",
                "tcgen05.cp.cta_group::1.4x256b [%r1], %rd1",
                "tcgen05.cp.cta_group::1.128x128b [%r1], %rd1",
                "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%r1], %rd1",
                "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%r1], %rd1",
                "tcgen05.cp.cta_group::1.32x128b.warpx4 [%r1], %rd1",
                "tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%r1], %rd1",
                "tcgen05.shift.cta_group::1.down [%r1]",
                "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1",
                "tcgen05.mma.cta_group::1.kind::tf32 [%r1], [%r2], %rd2, %r3, %p1",
                "tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, %r2, %p1",
                "tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1",
                "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
                "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
                "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
                "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
                "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32 [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1",
                "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%r1], %rd1, %rd2, %r2, %p1",
                "tcgen05.mma.cta_group::1.kind::f16.collector::a::use [%r1], %rd1, %rd2, %r2, %p1",
                "tcgen05.mma.cta_group::1.kind::f16.collector::a::lastuse [%r1], %rd1, %rd2, %r2, %p1",
                "tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r1], %rd1, %rd2, %r2, %p1",
                "tcgen05.mma.cta_group::1.kind::i8.ashift.collector::a::lastuse [%r1], [%r2], %rd2, %r3, %p1",
                "tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2, %p1",
                "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill [%r1], %rd1, %rd2, %r2, %p1",
                "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::use [%r1], %rd1, %rd2, %r2, %p1",
                "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::lastuse [%r1], %rd1, %rd2, %r2, %p1",
                "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b3::discard [%r1], %rd1, %rd2, %r2, %p1",
            ][..],
        ),
        (
            "9.0",
            "sm_90a",
            &[
                "wgmma.fence.sync.aligned",
                "wgmma.commit_group.sync.aligned",
                "wgmma.wait_group.sync.aligned 1",
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0",
                "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0",
                "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1",
                "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1",
            ][..],
        ),
        (
            "9.1",
            "sm_100a",
            &[
                "multimem.cp.async.bulk.global.shared::cta.bulk_group [%rd1], [sm], 16",
                "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [sm], 16",
                "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%rd1], [sm], 16",
                "multimem.cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [sm], 16, %h1",
                "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32 [%rd1], [sm], 16",
                "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.dec.u32 [%rd1], [sm], 16",
                "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.min.u32 [%rd1], [sm], 16",
                "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s32 [%rd1], [sm], 16",
                "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.and.b32 [%rd1], [sm], 16",
                "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.or.b32 [%rd1], [sm], 16",
                "multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b64 [%rd1], [sm], 16",
            ][..],
        ),
        (
            "9.5",
            "sm_100a",
            &[
                "cp.async.bulk.wait_group.sync_restrict::proxy::async 0",
            ][..],
        ),
        (
            "8.8",
            "sm_103a",
            &[
                "tcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.NaN.f32 {%f1, %f2}, %f3, [%r1]",
                "tcgen05.ld.red.sync.aligned.16x32bx2.x2.max.u32 {%r1, %r3}, %r4, [%r2], 8",
            ][..],
        ),
        (
            "8.8",
            "sm_120a",
            &[
                "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32 {%f1, %f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8}",
                "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 {%f1, %f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8}, %r7, {%h1, %h2}, %r8, {%h3, %h4}",
                "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 {%f1, %f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8}, %r7, {%h1, %h2}, %r8, {%h3, %h4}",
                "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 {%f1, %f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8}, %r7, {%h1, %h2}, %r8, {%h3, %h4}",
                "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32 {%f1, %f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6,%r9,%r10}, {%f5,%f6,%f7,%f8}, %r7, 0",
            ][..],
        ),
    ];
    for (version, target, insts) in groups {
        for inst in insts {
            if let Err(e) = front_end(&isa_kernel(version, target, inst), "k.ptx") {
                assert_eq!(e.kind(), "unsupported", "{inst}: {e}");
            }
        }
    }
}

/// A word outside an instruction's list, two words of which it takes one, a rounding its
/// type does not take, and `.nc` off the global space: ptxas 13.5 (`-arch=sm_100a`) refuses
/// each with the message in the comment; ptxjit refuses it at the instruction naming the
/// word, and loads the nearest form ptxas accepts.
#[test]
fn misplaced_and_doubled_words_are_refused_as_ptxas_refuses_them() {
    for (rejected, words, accepted) in [
        // ptxas: "Illegal modifier '.gl' for instruction 'cvt'".
        (
            "cvt.gl.f32.f32 %f1, %f2",
            "illegal modifier '.gl' for instruction 'cvt'",
            "cvt.rni.f32.f32 %f1, %f2",
        ),
        // ptxas: "Illegal modifier '.approx' for instruction 'cvt'".
        (
            "cvt.rn.approx.f32.f64 %f1, %fd1",
            "illegal modifier '.approx' for instruction 'cvt'",
            "cvt.rn.ftz.f32.f64 %f1, %fd1",
        ),
        // ptxas: "Illegal modifier '.ftz' for instruction 'tex'".
        (
            "tex.ftz.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}]",
            "illegal modifier '.ftz' for instruction 'tex'",
            "tex.base.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}]",
        ),
        // ptxas: "Illegal modifier '.sc' for instruction 'membar'".
        (
            "membar.sc.gl",
            "illegal modifier '.sc' for instruction 'membar'",
            "membar.gl",
        ),
        // ptxas: "Illegal modifier '.L1' for instruction 'membar'".
        (
            "membar.gl.L1",
            "illegal modifier '.L1' for instruction 'membar'",
            "membar.sys",
        ),
        // ptxas: "Illegal modifier '.ftz' for instruction 'fence'".
        (
            "fence.sc.ftz.gpu",
            "illegal modifier '.ftz' for instruction 'fence'",
            "fence.sc.gpu",
        ),
        // ptxas: "Illegal modifier '.sat' for instruction 'fence.proxy'".
        (
            "fence.proxy.alias.sat",
            "illegal modifier '.sat' for instruction 'fence'",
            "fence.proxy.alias",
        ),
        // ptxas: "Illegal modifier '.sat' for instruction 'vote'".
        (
            "vote.sync.all.sat.pred %p1, %p2, -1",
            "illegal modifier '.sat' for instruction 'vote'",
            "vote.sync.all.pred %p1, %p2, -1",
        ),
        // ptxas: "Illegal modifier 'Clamp' for instruction 'shfl'".
        (
            "shfl.sync.idx.clamp.b32 %r1, %r2, 1, 31, -1",
            "illegal modifier '.clamp' for instruction 'shfl'",
            "shfl.sync.idx.b32 %r1, %r2, 1, 31, -1",
        ),
        // ptxas: "Illegal operation '.xor' for instruction 'lop3'".
        (
            "lop3.xor.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2",
            "illegal modifier '.xor' for instruction 'lop3'",
            "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2",
        ),
        // ptxas: "Illegal modifier '.L2' for instruction 'prefetchu'".
        (
            "prefetchu.L2 [%rd1]",
            "illegal modifier '.L2' for instruction 'prefetchu'",
            "prefetchu.L1 [%rd1]",
        ),
        // ptxas: "Illegal modifier '.sync' for instruction 'griddepcontrol'".
        (
            "griddepcontrol.wait.sync",
            "illegal modifier '.sync' for instruction 'griddepcontrol'",
            "griddepcontrol.wait",
        ),
        // ptxas: "Illegal modifier '.ftz' for instruction 'mbarrier.init'".
        (
            "mbarrier.init.ftz.shared::cta.b64 [sm], %r1",
            "illegal modifier '.ftz' for instruction 'mbarrier'",
            "mbarrier.init.shared::cta.b64 [sm], %r1",
        ),
        // ptxas: "Illegal modifier '.sat' for instruction 'stacksave'".
        (
            "stacksave.sat.u64 %rd1",
            "illegal modifier '.sat' for instruction 'stacksave'",
            "stacksave.u64 %rd1",
        ),
        // ptxas: "Unexpected instruction types specified for 'mad'".
        (
            "mad.rn.f16 %h1, %h2, %h3, %h4",
            "'mad' has no half-precision (.f16/.bf16) form",
            "fma.rn.f16 %h1, %h2, %h3, %h4",
        ),
        // ptxas: "Multiple rounding modifiers specified".
        (
            "fma.rm.rn.f32 %f1, %f2, %f3, %f4",
            "multiple rounding modifiers ('.rm', '.rn')",
            "fma.rm.f32 %f1, %f2, %f3, %f4",
        ),
        // ptxas: "Multiple rounding modifiers specified".
        (
            "cvt.rni.rn.f32.f32 %f1, %f2",
            "multiple rounding modifiers ('.rni', '.rn')",
            "cvt.rni.f32.f32 %f1, %f2",
        ),
        // ptxas: "Illegal rounding modifier for instruction 'add'".
        (
            "add.rm.f16 %h1, %h2, %h3",
            "illegal rounding modifier '.rm' for instruction 'add'",
            "add.rn.f16 %h1, %h2, %h3",
        ),
        // ptxas: "Illegal rounding modifier for instruction 'mul'".
        (
            "mul.rz.bf16 %h1, %h2, %h3",
            "illegal rounding modifier '.rz' for instruction 'mul'",
            "mul.rn.bf16 %h1, %h2, %h3",
        ),
        // ptxas: "Illegal rounding modifier for instruction 'fma'".
        (
            "fma.rp.f16x2 %r1, %r2, %r3, %r4",
            "illegal rounding modifier '.rp' for instruction 'fma'",
            "fma.rp.bf16x2 %r1, %r2, %r3, %r4",
        ),
        // ptxas: "Modifier '.nc' requires .global space".
        (
            "ld.nc.f32 %f1, [%rd1]",
            ".nc requires the .global state space",
            "ld.global.nc.f32 %f1, [%rd1]",
        ),
        // ptxas: "Unexpected number of state spaces specified in instruction 'ld'".
        (
            "ld.shared.global.u32 %r1, [%rd1]",
            "two state spaces ('.shared', '.global')",
            "ld.global.u32 %r1, [%rd1]",
        ),
        // ptxas: "Multiple comparisons set".
        (
            "set.le.lt.u32.s32 %r1, %r2, %r3",
            "multiple comparisons ('.le', '.lt')",
            "set.le.u32.s32 %r1, %r2, %r3",
        ),
        // ptxas: "Multiple comparisons set".
        (
            "setp.eq.ne.f32 %p1, %f1, %f2",
            "multiple comparisons ('.eq', '.ne')",
            "setp.ne.f32 %p1, %f1, %f2",
        ),
        // ptxas: "Multiple texture modifiers specified".
        (
            "tex.1d.a1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}]",
            "multiple geometries ('.1d', '.a1d')",
            "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}]",
        ),
        // ptxas: "Illegal modifier '.relu' for instruction 'mma'".
        (
            "mma.sync.aligned.m16n8k16.row.col.relu.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}",
            "illegal modifier '.relu' for instruction 'mma'",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}",
        ),
        // ptxas: "Illegal modifier '.kind::tf32' for instruction 'mma'".
        (
            "mma.sync.aligned.m16n8k16.row.col.kind::tf32.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}",
            "illegal modifier '.kind::tf32' for instruction 'mma'",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}",
        ),
        // ptxas: "Illegal modifier '.sat' for instruction 'multimem.st'".
        (
            "multimem.st.global.sat.f32 [%rd1], %f1",
            "illegal modifier '.sat' for instruction 'multimem'",
            "multimem.st.weak.global.f32 [%rd1], %f1",
        ),
        // ptxas: "Illegal modifier '.cg' for instruction 'multimem.ld_reduce'".
        (
            "multimem.ld_reduce.global.cg.add.u32 %r1, [%rd1]",
            "illegal modifier '.cg' for instruction 'multimem'",
            "multimem.ld_reduce.global.add.u32 %r1, [%rd1]",
        ),
        // ptxas: "Illegal modifier '.ftz' for instruction 'cp.async'".
        (
            "cp.async.ca.shared.global.ftz [sm], [%rd1], 4",
            "illegal modifier '.ftz' for instruction 'cp'",
            "cp.async.ca.shared.global [sm], [%rd1], 4",
        ),
        // ptxas: "Illegal modifier '.cs' for instruction 'cp.async'".
        (
            "cp.async.cs.shared.global [sm], [%rd1], 4",
            "illegal modifier '.cs' for instruction 'cp'",
            "cp.async.cg.shared.global [sm], [%rd1], 16",
        ),
        // ptxas: "Illegal modifier '.trans' for instruction 'cp.async.bulk.tensor'".
        (
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.trans [sm], [%rd1, {%r1, %r2}], [sm]",
            "illegal modifier '.trans' for instruction 'cp'",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1, %r2}], [sm]",
        ),
        // ptxas: "Illegal modifier '.trans' for instruction 'tcgen05.ld'".
        (
            "tcgen05.ld.sync.aligned.32x32b.x1.trans.b32 {%r1}, [%r2]",
            "illegal modifier '.trans' for instruction 'tcgen05'",
            "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2]",
        ),
        // ptxas: "Illegal modifier '.satfinite' for instruction 'tcgen05.mma'".
        (
            "tcgen05.mma.cta_group::1.kind::f16.satfinite [%r1], %rd1, %rd2, %r2, %p1",
            "illegal modifier '.satfinite' for instruction 'tcgen05'",
            "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1",
        ),
        // ptxas: "Illegal modifier '.sat' for instruction 'cvt'".
        (
            "cvt.sat.f32.bf16 %f1, %h1",
            "illegal modifier '.sat' for instruction 'cvt'",
            "cvt.f32.bf16 %f1, %h1",
        ),
        // ptxas: "Illegal modifier '.sat' for instruction 'cvt'".
        (
            "cvt.rn.sat.bf16.f32 %h1, %f1",
            "illegal modifier '.sat' for instruction 'cvt'",
            "cvt.rn.bf16.f32 %h1, %f1",
        ),
        // ptxas: "Modifier '.ftz' does not apply to this type of convert operation".
        (
            "cvt.rzi.ftz.s32.f64 %r1, %fd1",
            "illegal modifier '.ftz' for instruction 'cvt'",
            "cvt.rzi.ftz.s32.f32 %r1, %f1",
        ),
        // ptxas: "Modifier '.ftz' does not apply to this type of convert operation".
        (
            "cvt.ftz.f64.f16 %fd1, %h1",
            "illegal modifier '.ftz' for instruction 'cvt'",
            "cvt.ftz.f32.f16 %f1, %h1",
        ),
        // ptxas: "Illegal rounding modifier for instruction 'cvt'".
        (
            "cvt.rn.f64.f32 %fd1, %f1",
            "rounding modifier missing or not allowed",
            "cvt.f64.f32 %fd1, %f1",
        ),
        // ptxas: "Illegal rounding modifier for instruction 'cvt'".
        (
            "cvt.rni.f32.f16 %f1, %h1",
            "rounding modifier missing or not allowed",
            "cvt.rni.f16.f16 %h1, %h2",
        ),
        // ptxas: "Unexpected instruction types specified for 'cvt'".
        (
            "cvt.rn.relu.f16.f64 %h1, %fd1",
            "for 'cvt' with .relu",
            "cvt.rn.relu.f16.f32 %h1, %f1",
        ),
        // ptxas: "Arguments mismatch for instruction 'cvt'".
        (
            "cvt.rn.scaled::n2::ue8m0.bf16x2.f32 %r1, %f1, %f2",
            "illegal modifier '.scaled::n2::ue8m0'",
            "cvt.rn.bf16x2.f32 %r1, %f1, %f2",
        ),
        // ptxas: "Modifier '.cta' requires memory order with 'ld' instruction".
        (
            "ld.cta.global.u32 %r1, [%rd1]",
            "modifier '.cta' requires a memory order",
            "ld.relaxed.cta.global.u32 %r1, [%rd1]",
        ),
        // ptxas: "Modifier '.gpu' requires memory order with 'st' instruction".
        (
            "st.gpu.global.u32 [%rd1], %r1",
            "modifier '.gpu' requires a memory order",
            "st.release.gpu.global.u32 [%rd1], %r1",
        ),
        // ptxas: "Modifier '.weak' cannot be combined with modifier '.cta'".
        (
            "ld.weak.cta.global.u32 %r1, [%rd1]",
            "modifier '.weak' cannot be combined with modifier '.cta'",
            "ld.weak.global.u32 %r1, [%rd1]",
        ),
        // ptxas: "Instruction 'ld' requires '.v8.b32/.v4.b64' type with '.L2::evict_last' modifier.".
        (
            "ld.global.L2::evict_last.u32 %r1, [%rd1]",
            "needs a .v8 of 32-bit or a .v4 of 64-bit elements",
            "ld.global.L2::evict_last.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1]",
        ),
        // ptxas: "global state space expected for feature '256 bit wide load/store'".
        (
            "st.shared.L2::evict_last.v8.s32 [sm], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}",
            "needs the .global state space",
            "st.global.L2::evict_last.v8.s32 [%rd1], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}",
        ),
        // ptxas: "Illegal modifier '.evict_first' for instruction 'prefetch'".
        (
            "prefetch.global.L2::evict_first [%rd1]",
            "illegal modifier '.L2::evict_first' for instruction 'prefetch'",
            "prefetch.global.L2::evict_last [%rd1]",
        ),
        // ptxas: "Unknown modifier '.level'".
        (
            "tex.2d.level.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], %f3",
            "'.level' must directly follow 'tex'",
            "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], %f3",
        ),
        // ptxas: "Unknown modifier '.base'".
        (
            "tex.uni.base.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}]",
            "'.base' must directly follow 'tex'",
            "tex.base.uni.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}]",
        ),
        // ptxas: "Illegal vector size: 3".
        (
            "tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7}]",
            "found 3 (a vector has 1, 2 or 4 elements)",
            "tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}]",
        ),
        // ptxas: "Illegal vector size: 3".
        (
            "suld.b.3d.b32.trap {%r1}, [%rd1, {%r2, %r3, %r4}]",
            "found 3 (a vector has 1, 2 or 4 elements)",
            "suld.b.3d.b32.trap {%r1}, [%rd1, {%r2, %r3, %r4, %r5}]",
        ),
        // ptxas: "Illegal modifier '.gpu' for instruction 'cp.async.bulk.prefetch.tensor'".
        (
            "cp.async.bulk.prefetch.tensor.2d.L2.global.gpu [%rd1, {%r1, %r2}]",
            "illegal modifier '.gpu' for instruction 'cp'",
            "cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {%r1, %r2}]",
        ),
        // ptxas: "Illegal modifier '.cta' for instruction 'cp.async'".
        (
            "cp.async.ca.shared.global.cta [sm], [%rd1], 4",
            "illegal modifier '.cta' for instruction 'cp'",
            "cp.async.ca.shared.global [sm], [%rd1], 4",
        ),
        // ptxas: "Multiple scope modifiers specified".
        (
            "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.cta.gpu [sm], [%rd1, {%r1}], [sm]",
            "multiple scope modifiers",
            "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.gpu [sm], [%rd1, {%r1}], [sm]",
        ),
        // ptxas: "Modifier '.mbarrier_init' cannot be combined with modifier '.acquire'".
        (
            "fence.mbarrier_init.acquire.sync_restrict::shared::cluster.cluster",
            "fence.mbarrier_init.release.cluster",
            "fence.mbarrier_init.release.sync_restrict::shared::cluster.cluster",
        ),
        // ptxas: "Illegal modifier '.wb' for instruction 'suld.b'".
        (
            "suld.b.2d.wb.b32.trap {%r1}, [%rd1, {%r2, %r3}]",
            "illegal modifier '.wb' for instruction 'suld'",
            "suld.b.2d.cg.b32.trap {%r1}, [%rd1, {%r2, %r3}]",
        ),
        // ptxas: "Illegal modifier '.ca' for instruction 'sust.b'".
        (
            "sust.b.2d.ca.b32.trap [%rd1, {%r2, %r3}], {%r1}",
            "illegal modifier '.ca' for instruction 'sust'",
            "sust.b.2d.wb.b32.trap [%rd1, {%r2, %r3}], {%r1}",
        ),
        // ptxas: "Clamp modifier required for instruction 'suld.b'".
        (
            "suld.b.1d.b32 {%r1}, [%rd1, {%r2}]",
            "needs a clamp mode",
            "suld.b.1d.b32.zero {%r1}, [%rd1, {%r2}]",
        ),
        // ptxas: "Clamp modifier required for instruction 'sured.b'".
        (
            "sured.b.add.2d.u32 [%rd1, {%r2, %r3}], %r1",
            "needs a clamp mode",
            "sured.b.add.2d.u32.trap [%rd1, {%r2, %r3}], %r1",
        ),
        // ptxas: "Multiple clamp modifiers specified".
        (
            "suld.b.2d.trap.clamp.b32 {%r1}, [%rd1, {%r2, %r3}]",
            "multiple clamp modifiers",
            "suld.b.2d.clamp.b32 {%r1}, [%rd1, {%r2, %r3}]",
        ),
        // ptxas: "Not a name of any known instruction: 'suld'".
        (
            "suld.trap.b.2d.b32 {%r1}, [%rd1, {%r2, %r3}]",
            "needs .b or .p as its first modifier",
            "suld.b.trap.2d.b32 {%r1}, [%rd1, {%r2, %r3}]",
        ),
        // ptxas: "Illegal modifier '.ftz' for instruction 'tcgen05.alloc'".
        (
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.ftz.b32 [sm], 32",
            "illegal modifier '.ftz' for instruction 'tcgen05'",
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sm], 32",
        ),
    ] {
        match front_end(&isa9_kernel(rejected), "k.ptx") {
            Ok(_) => panic!("{rejected}: loaded, but ptxas rejects it"),
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.kind(), "invalid", "{msg}");
                assert!(msg.contains("k.ptx:14:1"), "{msg}");
                assert!(msg.contains(words), "{msg} (wanted {words:?})");
            }
        }
        if let Err(e) = front_end(&isa9_kernel(accepted), "k.ptx") {
            panic!("{accepted}: {e}");
        }
    }
    // `wgmma` on sm_90a (ptxas: "Illegal modifier '.ftz' for instruction 'wgmma.mma_async'",
    // "Illegal modifier '.trans' for instruction 'wgmma.wait_group'").
    for (rejected, words, accepted) in [
        (
            "wgmma.mma_async.sync.aligned.m64n8k16.ftz.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0",
            "illegal modifier '.ftz' for instruction 'wgmma'",
            "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0",
        ),
        (
            "wgmma.wait_group.sync.aligned.trans 1",
            "illegal modifier '.trans' for instruction 'wgmma'",
            "wgmma.wait_group.sync.aligned 1",
        ),
    ] {
        let e = front_end(&isa_kernel("9.0", "sm_90a", rejected), "k.ptx")
            .err()
            .unwrap_or_else(|| panic!("{rejected}: loaded, but ptxas rejects it"));
        let msg = e.to_string();
        assert_eq!(e.kind(), "invalid", "{msg}");
        assert!(msg.contains("k.ptx:14:1") && msg.contains(words), "{msg}");
        if let Err(e) = front_end(&isa_kernel("9.0", "sm_90a", accepted), "k.ptx") {
            panic!("{accepted}: {e}");
        }
    }
}

/// Forms ptxas 13.5 assembles that ptxjit refused: a float rounding on a widening `cvt` from
/// `.bf16`, `st` with an L2 eviction priority on a 256-bit global store, texture and surface
/// coordinate vectors of 2 or 4 elements past the geometry's count (`-arch=sm_100a`), and
/// `wgmma` written `.sync` without `.aligned` (`-arch=sm_90a`). Each loads.
#[test]
fn forms_ptxas_takes_load() {
    for inst in [
        "cvt.rn.f32.bf16 %f1, %h1",
        "cvt.rz.f64.bf16 %fd1, %h1",
        "cvt.rn.ftz.f32.bf16 %f1, %h1",
        "st.global.L2::evict_first.v4.u64 [%rd1], {%rd1, %rd2, %rd3, %rd4}",
        "st.global.L2::evict_normal.v8.s32 [%rd1], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}",
        "st.release.gpu.global.L2::evict_last.v8.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}",
        "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}]",
        "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}]",
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}]",
        "tex.a1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}]",
        "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}]",
        "suld.b.1d.b32.trap {%r1}, [%rd1, {%r2, %r3}]",
        "suld.b.2d.b32.trap {%r1}, [%rd1, {%r2, %r3, %r4, %r5}]",
        "sust.b.1d.b32.trap [%rd1, {%r2, %r3, %r4, %r5}], {%r1}",
        "sured.b.add.1d.u32.trap [%rd1, {%r2, %r3}], %r1",
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.cta [sm], [%rd1, {%r1}], [sm]",
        "cp.async.bulk.tensor.1d.cluster.shared::cluster.global.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1}], [sm]",
        "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.gpu [%rd1, {%r1}], [sm]",
        "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group.sys [%rd1, {%r1}], [sm]",
        "fence.release.mbarrier_init.cluster",
        "fence.cluster.release.mbarrier_init",
        "fence.mbarrier_init.release.sync_restrict::shared::cta.cluster",
        "fence.mbarrier_init.release.sync_restrict::shared::cluster.cluster",
        "fence.sync_restrict::shared::cta.release.cluster",
        "fence.cluster.acquire.sync_restrict::shared::cluster",
    ] {
        if let Err(e) = front_end(&isa9_kernel(inst), "k.ptx") {
            panic!("{inst}: {e}");
        }
    }
    for inst in [
        "wgmma.fence.sync",
        "wgmma.commit_group.sync",
        "wgmma.wait_group.sync 0",
        "wgmma.mma_async.sync.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0",
        "wgmma.mma_async.sp.sync.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0",
    ] {
        if let Err(e) = front_end(&isa_kernel("9.0", "sm_90a", inst), "k.ptx") {
            panic!("{inst}: {e}");
        }
    }
}

/// A one-register matrix fragment is still a vector: ptxas 13.5 says "Vector expected for
/// argument 0" on `wmma.load.a.sync.aligned.row.m8n8k32.s4 %r1, [p]` (and `mma`'s one-register
/// A and B of `.m8n8k4.f64`), "Vector of size 1 is expected for argument 0 of instruction
/// 'ldmatrix'" on `ldmatrix….x1….b16 %r1, [p]`; each braced form assembles.
#[test]
fn one_register_fragments_are_vectors() {
    for (rejected, accepted) in [
        (
            "wmma.load.a.sync.aligned.row.m8n8k32.s4 %r1, [%rd1]",
            "wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r1}, [%rd1]",
        ),
        (
            "wmma.load.b.sync.aligned.col.m8n8k128.b1 %r1, [%rd1]",
            "wmma.load.b.sync.aligned.col.m8n8k128.b1 {%r1}, [%rd1]",
        ),
        (
            "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, %fd3, %fd4, {%fd5, %fd6}",
            "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6}",
        ),
        (
            "ldmatrix.sync.aligned.m8n8.x1.shared.b16 %r1, [sm]",
            "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [sm]",
        ),
        (
            "stmatrix.sync.aligned.m8n8.x1.shared.b16 [sm], %r1",
            "stmatrix.sync.aligned.m8n8.x1.shared.b16 [sm], {%r1}",
        ),
    ] {
        let e = front_end(&isa9_kernel(rejected), "k.ptx")
            .err()
            .unwrap_or_else(|| panic!("{rejected}: loaded, but ptxas rejects it"));
        let msg = e.to_string();
        assert_eq!(e.kind(), "invalid", "{msg}");
        assert!(
            msg.contains("k.ptx:14:") && msg.contains("needs a vector of 1 registers"),
            "{msg}"
        );
        if let Err(e) = front_end(&isa9_kernel(accepted), "k.ptx") {
            panic!("{accepted}: {e}");
        }
    }
}

/// `brx.idx{.uni} index, tlist` (PTX ISA §9.7.12.4) as ptxas 13.5 (`-arch=sm_90a`) checks it:
/// "Illegal modifier '.all' for instruction 'brx.idx'" (and `.bfly`), "Unexpected instruction
/// types specified for 'brx.idx'" on `brx.idx.u32`, and `brx.uni.idx` is "Not a name of any
/// known instruction"; `brx.idx`, `brx.idx.uni` and an immediate index assemble.
#[test]
fn brx_idx_takes_uni_and_no_type() {
    let kernel = |inst: &str| {
        format!(
            ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u32 p)\n\
             {{\n.reg .b32 %r<3>;\nld.param.u32 %r1, [p];\nts: .branchtargets L0, L1;\n\
             {inst};\nL0: ret;\nL1: ret;\n}}\n"
        )
    };
    for (rejected, words) in [
        (
            "brx.idx.all %r1, ts",
            "illegal modifier '.all' for instruction 'brx'",
        ),
        (
            "brx.idx.bfly %r1, ts",
            "illegal modifier '.bfly' for instruction 'brx'",
        ),
        ("brx.idx.u32 %r1, ts", "unexpected instruction type .u32"),
        (
            "brx.uni.idx %r1, ts",
            "brx needs .idx as its first modifier",
        ),
    ] {
        let e = front_end(&kernel(rejected), "k.ptx")
            .err()
            .unwrap_or_else(|| panic!("{rejected}: loaded, but ptxas rejects it"));
        let msg = e.to_string();
        assert_eq!(e.kind(), "invalid", "{msg}");
        assert!(msg.contains("k.ptx:9:1") && msg.contains(words), "{msg}");
    }
    for accepted in [
        "brx.idx %r1, ts",
        "brx.idx.uni %r1, ts",
        "brx.idx.uni 1, ts",
    ] {
        if let Err(e) = front_end(&kernel(accepted), "k.ptx") {
            panic!("{accepted}: {e}");
        }
    }
}

/// `cvt` between `.bf16` and anything but `.f32` (an integer, `.f16`, `.f64`, `.bf16` itself)
/// needs sm_90 (§9.7.9.21 Target ISA Notes); ptxas 13.5 at `-arch=sm_89` and `sm_80`:
/// "Feature 'cvt with .bf16.f16' requires .target sm_90 or higher" for each of these, while
/// `.f32` ↔ `.bf16` loads on sm_80.
#[test]
fn bf16_cvt_with_other_types_needs_sm_90() {
    let kernel = |target: &str, inst: &str| {
        format!(
            ".version 8.0\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b16 %h<2>; .reg .b32 %r<2>; .reg .f32 %f<2>; .reg .f64 %fd<2>;\n{inst}\nret;\n}}\n"
        )
    };
    let sm90 = [
        "cvt.bf16.f16 %h1, %h0;",
        "cvt.f16.bf16 %h1, %h0;",
        "cvt.rn.bf16.f16 %h1, %h0;",
        "cvt.rz.f16.bf16 %h1, %h0;",
        "cvt.bf16.bf16 %h1, %h0;",
        "cvt.rzi.bf16.bf16 %h1, %h0;",
        "cvt.rn.bf16.f64 %h1, %fd0;",
        "cvt.f64.bf16 %fd1, %h0;",
        "cvt.rn.bf16.u32 %h1, %r0;",
        "cvt.rn.bf16.s16 %h1, %h0;",
        "cvt.rni.s32.bf16 %r1, %h0;",
    ];
    for inst in sm90 {
        if let Err(e) = front_end(&kernel("sm_90", inst), "k.ptx") {
            panic!("{inst} on sm_90: ptxas takes it, but: {e}");
        }
        for target in ["sm_89", "sm_80"] {
            let e = front_end(&kernel(target, inst), "k.ptx")
                .err()
                .unwrap_or_else(|| panic!("{inst} on {target}: loaded, but ptxas refuses it"));
            let msg = e.to_string();
            assert!(
                msg.contains("k.ptx:7:1") && msg.contains("requires .target sm_90 or higher"),
                "{inst} on {target}: {msg}"
            );
        }
    }
    for inst in [
        "cvt.f32.bf16 %f1, %h0;",
        "cvt.rn.bf16.f32 %h1, %f0;",
        "cvt.rz.bf16.f32 %h1, %f0;",
        "cvt.rn.relu.bf16.f32 %h1, %f0;",
        "cvt.rn.bf16x2.f32 %r1, %f0, %f1;",
    ] {
        if let Err(e) = front_end(&kernel("sm_80", inst), "k.ptx") {
            panic!("{inst} on sm_80: ptxas takes it, but: {e}");
        }
    }
}

/// A `.func` with one `.param` array formal `{FORMAL}` (line 4), called with a register
/// argument (`call f, (v)`, line 17): the call lays out a slot of the formal's size. `f` calls
/// itself, so the recursive lowering lays out its frame from the formal's size too.
const ARRAY_FORMAL: &str = ".version 8.0
.target sm_80
.address_size 64
.func f(.param {FORMAL})
{
\t.reg .b32 r;
\t.reg .pred p;
\tld.param.b32 r, [a];
\tsetp.eq.u32 p, r, 0;
\t@p ret;
\tsub.u32 r, r, 1;
\tcall f, (r);
\tret;
}
.visible .entry k(.param .u64 out)
{
\t.reg .b32 v;
\tmov.b32 v, 3;
\tcall f, (v);
\tret;
}
";

/// ptxas: "Constant overflow" at a `.param` formal's declaration with an array dimension of
/// 2^32 or more. ptxjit reports the formal at its declaration (line 4, column 9) with its
/// real size, where it laid out a slot of the size capped at 2^64 - 1 bytes before (and, for
/// the recursive frame, added past u64). A dimension just below 2^32 is no such error.
#[test]
fn oversized_call_formals_are_errors_at_their_declaration() {
    let load = |formal: &str| front_end(&ARRAY_FORMAL.replace("{FORMAL}", formal), "k.ptx");
    for (formal, words) in [
        (
            ".b8 a[4294967296]",
            "parameter 'a' is too large: an array dimension of 4294967296 elements, where \
             ptxas allows less than 2^32 (it reports \"Constant overflow\")",
        ),
        (
            ".b64 a[2305843009213693952]",
            "parameter 'a' is too large: an array dimension of 2305843009213693952 elements",
        ),
        (
            ".v4 .b64 a[4294967295][4294967295]",
            "parameter 'a' is too large: 4294967295 x 4294967295 x 32 bytes = \
             590295810083827744800 bytes (more than 2^64), past every state space",
        ),
    ] {
        let e = match load(formal) {
            Ok(_) => panic!("{formal}: loaded"),
            Err(e) => e,
        };
        let msg = e.to_string();
        assert!(msg.contains("k.ptx:4:9"), "{formal}: {msg}");
        assert!(msg.contains(words), "{formal}: {msg}\nwanted {words:?}");
    }
    // The recursive frame of a 4 GiB formal is the stack's to hold, checked at launch.
    assert!(load(".b8 a[4294967295]").is_ok());
    assert!(load(".b32 a[4]").is_ok());
}

/// `.no_membermask_overlap` on the warp collectives with a member mask (ptxas 13.5 from PTX
/// ISA 8.4; the PTX ISA text does not describe it), the version a form newer than its
/// instruction names, and the register types of the 16-bit and `.tf32` matrix fragments
/// (ptxas 13.5's message in each row's comment; each refused at line 8).
#[test]
fn member_mask_promise_fabric_versions_and_fragment_registers_are_checked_as_ptxas_checks_them() {
    let kernel = |version: &str, target: &str, inst: &str| {
        format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .pred %p<3>; .reg .b32 %r<9>; .reg .u32 %u<9>; .reg .f32 %f<9>; .reg .b64 %rd<3>;\n\
             .reg .f16x2 %h<9>;\n{inst};\nret;\n}}\n"
        )
    };
    let tf32 = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
    let bf16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
    let f16 = "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16";
    let rejected = [
        // "Feature '.no_membermask_overlap' requires PTX ISA .version 8.4 or later".
        (
            "8.3".to_string(),
            "sm_90",
            "bar.warp.sync.no_membermask_overlap -1".to_string(),
            "requires PTX ISA 8.4",
        ),
        // "Illegal modifier '.no_membermask_overlap' for instruction 'bar'".
        (
            "8.4".into(),
            "sm_90",
            "bar.sync.no_membermask_overlap 0".into(),
            "illegal modifier '.no_membermask_overlap' for instruction 'bar'",
        ),
        (
            "8.4".into(),
            "sm_90",
            "barrier.sync.no_membermask_overlap 0".into(),
            "illegal modifier '.no_membermask_overlap' for instruction 'barrier'",
        ),
        // "Illegal modifier '.no_membermask_overlap' for instruction 'activemask'" / 'elect'.
        (
            "8.4".into(),
            "sm_90",
            "activemask.no_membermask_overlap.b32 %r1".into(),
            "illegal modifier '.no_membermask_overlap' for instruction 'activemask'",
        ),
        (
            "8.4".into(),
            "sm_90",
            "elect.sync.no_membermask_overlap %r1|%p1, -1".into(),
            "illegal modifier '.no_membermask_overlap' for instruction 'elect'",
        ),
        // "Illegal modifier '.no_membermask_overlap' for instruction 'vote'" (no .sync; the
        // sm_60 target keeps `vote` without `.sync` legal; `vote.all` takes it, below).
        (
            "8.4".into(),
            "sm_60",
            "vote.ballot.no_membermask_overlap.b32 %r1, %p2".into(),
            "illegal modifier '.no_membermask_overlap' for instruction 'vote'",
        ),
        // "Multiple vote modifiers specified" (ptxas reads vote's mode words after match's).
        (
            "8.4".into(),
            "sm_90",
            "match.any.uni.sync.b32 %r1, %r2, -1".into(),
            "illegal modifier '.uni' for instruction 'match'",
        ),
        (
            "8.4".into(),
            "sm_90",
            "match.any.ballot.sync.b32 %r1, %r2, -1".into(),
            "illegal modifier '.ballot' for instruction 'match'",
        ),
        // "Multiple .no_membermask_overlap modifiers specified".
        (
            "8.4".into(),
            "sm_90",
            "shfl.sync.no_membermask_overlap.no_membermask_overlap.bfly.b32 %r1, %r2, 1, 31, -1"
                .into(),
            "multiple .no_membermask_overlap modifiers",
        ),
        // "Feature 'fabric.submit.commit_group' requires PTX ISA .version 9.5 or later" (at
        // 9.2, under fabric.submit's own 9.3).
        (
            "9.2".into(),
            "sm_100a",
            "fabric.submit.commit_group".into(),
            "fabric.submit.commit_group requires PTX ISA 9.5",
        ),
        // "Arguments mismatch for instruction 'mma'": .tf32 A/B in .f32, .u32 or .f16x2
        // registers, .bf16 ones in .f16x2, .f16 ones (and an .f16 accumulator) in .u32.
        (
            "8.0".into(),
            "sm_80",
            format!("{tf32} {{%f1,%f2,%f3,%f4}}, {{%f1,%f2,%f3,%f4}}, {{%r5,%r6}}, {{%f1,%f2,%f3,%f4}}"),
            "the A fragment (operand 2) of .tf32 elements needs .b32 registers, not .f32",
        ),
        (
            "8.0".into(),
            "sm_80",
            format!("{tf32} {{%f1,%f2,%f3,%f4}}, {{%r1,%r2,%r3,%r4}}, {{%u5,%u6}}, {{%f1,%f2,%f3,%f4}}"),
            "the B fragment (operand 3) of .tf32 elements needs .b32 registers, not .u32",
        ),
        (
            "8.0".into(),
            "sm_80",
            "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%f5}, {%f1,%f2,%f3,%f4}".into(),
            "the B fragment (operand 3) of .tf32 elements needs .b32 registers, not .f32",
        ),
        (
            "8.0".into(),
            "sm_80",
            format!("{tf32} {{%f1,%f2,%f3,%f4}}, {{%h1,%h2,%h3,%h4}}, {{%r5,%r6}}, {{%f1,%f2,%f3,%f4}}"),
            "needs .b32 registers, not .f16x2",
        ),
        (
            "8.0".into(),
            "sm_80",
            format!("{bf16} {{%f1,%f2,%f3,%f4}}, {{%h1,%h2,%h3,%h4}}, {{%h5,%h6}}, {{%f1,%f2,%f3,%f4}}"),
            "of .bf16 elements needs .b32 registers, not .f16x2",
        ),
        (
            "8.0".into(),
            "sm_80",
            "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%f1,%f2}, {%f3}, {%f1,%f2,%f3,%f4}".into(),
            "of .f16 elements needs .b32 or .f16x2 registers, not .f32",
        ),
        (
            "8.0".into(),
            "sm_80",
            format!("{f16} {{%u1,%u2}}, {{%r1,%r2,%r3,%r4}}, {{%r5,%r6}}, {{%r1,%r2}}"),
            "the D fragment (operand 1) of .f16 elements needs .b32 or .f16x2 registers, not .u32",
        ),
        // "Arguments mismatch for instruction 'wmma.load.a'" / 'wmma.store.d' / 'wmma.mma'.
        (
            "8.0".into(),
            "sm_80",
            "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%f1,%f2,%f3,%f4}, [%rd1]".into(),
            "needs .b32 registers, not .f32",
        ),
        (
            "8.0".into(),
            "sm_80",
            "wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [%rd1], {%f1,%f2,%f3,%f4}".into(),
            "the stored fragment (operand 2) of .f16 elements needs .b32 or .f16x2 registers",
        ),
        (
            "8.0".into(),
            "sm_80",
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}, \
             {%u1,%u2,%u3,%u4,%u5,%u6,%u7,%u8}, {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, \
             {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}"
                .into(),
            "the A fragment (operand 2) of .f16 elements needs .b32 or .f16x2 registers, not .u32",
        ),
    ];
    for (version, target, inst, words) in rejected {
        match front_end(&kernel(&version, target, &inst), "k.ptx") {
            Ok(_) => panic!("{inst}: loaded, but ptxas rejects it"),
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.kind(), "invalid", "{msg}");
                assert!(msg.contains("k.ptx:8:"), "{msg}");
                assert!(msg.contains(words), "{msg} (wanted {words:?})");
            }
        }
    }
    // The nearest forms ptxas 13.5 takes.
    let accepted = [
        ("8.4", "sm_90", "bar.warp.sync.no_membermask_overlap -1".to_string()),
        ("8.4", "sm_60", "vote.all.no_membermask_overlap.pred %p1, %p2".into()),
        (
            "8.4",
            "sm_90",
            "shfl.sync.bfly.no_membermask_overlap.b32 %r1|%p1, %r2, 1, 31, -1".into(),
        ),
        (
            "8.4",
            "sm_90",
            "shfl.sync.no_membermask_overlap.idx.b32 %r1, %r2, 1, 31, -1".into(),
        ),
        (
            "8.4",
            "sm_90",
            "vote.sync.no_membermask_overlap.all.pred %p1, %p2, -1".into(),
        ),
        (
            "8.4",
            "sm_90",
            "vote.sync.ballot.no_membermask_overlap.b32 %r1, %p2, -1".into(),
        ),
        (
            "8.4",
            "sm_90",
            "match.any.sync.no_membermask_overlap.b32 %r1, %r2, -1".into(),
        ),
        (
            "8.4",
            "sm_90",
            "redux.sync.add.no_membermask_overlap.u32 %r1, %r2, -1".into(),
        ),
        (
            "8.0",
            "sm_80",
            format!("{tf32} {{%f1,%f2,%f3,%f4}}, {{%r1,%r2,%r3,%r4}}, {{%r5,%r6}}, {{%f1,%f2,%f3,%f4}}"),
        ),
        // A .b32 register among .f32 ones: ptxas 13.5 takes the vector.
        (
            "8.0",
            "sm_80",
            format!("{tf32} {{%f1,%f2,%f3,%f4}}, {{%f1,%r2,%r3,%r4}}, {{%r5,%r6}}, {{%f1,%f2,%f3,%f4}}"),
        ),
        (
            "8.0",
            "sm_80",
            format!("{f16} {{%h1,%h2}}, {{%h1,%h2,%h3,%h4}}, {{%h5,%h6}}, {{%h1,%h2}}"),
        ),
        // Integer and FP8 fragments take any 32-bit register; mma.sp is not typed.
        (
            "8.0",
            "sm_80",
            "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%u1,%u2,%u3,%u4}, {%r1,%r2}, {%u5}, {%u1,%u2,%u3,%u4}".into(),
        ),
        (
            "8.7",
            "sm_89",
            "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f1,%f2,%f3,%f4}, {%u1,%u2,%u3,%u4}, {%u5,%u6}, {%f1,%f2,%f3,%f4}".into(),
        ),
        (
            "8.0",
            "sm_80",
            "mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%f1,%f2,%f3,%f4}, {%f1,%f2,%f3,%f4}, {%f5,%f6,%f7,%f8}, {%f1,%f2,%f3,%f4}, %r1, 0".into(),
        ),
        (
            "8.0",
            "sm_80",
            "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%r1,%r2,%r3,%r4}, [%rd1]".into(),
        ),
    ];
    for (version, target, inst) in accepted {
        if let Err(e) = front_end(&kernel(version, target, &inst), "k.ptx") {
            panic!("{inst}: {e}");
        }
    }
}

/// The 8-bit and packed 6-/4-bit matrix moves of PTX ISA 8.6 (§9.7.14.5.15-16) as ptxas 13.5
/// (`-arch=sm_100a`) checks them: each refused line names its fault as ptxas does (its words
/// in the comments) at line 14, and each accepted line loads.
#[test]
fn matrix_moves_8bit_follow_ptxas() {
    let accepted = [
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r3]",
        "ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8 {%r1, %r2, %r3, %r4}, [%r5]",
        "ldmatrix.sync.aligned.m16n16.x1.trans.b8 {%r1, %r2}, [%rd1]",
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b6x16_p32 {%r1, %r2}, [%r3]",
        "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b4x16_p64 {%r1, %r2, %r3, %r4}, [%r5]",
        "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 {%r1}, [%r3]",
        "ldmatrix.sync.aligned.m8n16.x2.shared.b8x16.b4x16_p64 {%r1, %r2}, [%r3]",
        "ldmatrix.sync.aligned.m8n16.x4.b8x16.b6x16_p32.shared {%r1, %r2, %r3, %r4}, [%r5]",
        "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%r3], {%r1}",
        "stmatrix.sync.aligned.m16n8.x2.trans.shared::cta.b8 [%r3], {%r1, %r2}",
        "stmatrix.sync.aligned.m16n8.x4.trans.b8 [%rd1], {%r1, %r2, %r4, %r5}",
    ];
    for inst in accepted {
        if let Err(e) = front_end(&isa9_kernel(inst), "k.ptx") {
            panic!("{inst}: {e}");
        }
    }
    let refused = [
        // "Vector of size 4 is expected for argument 0 of instruction 'ldmatrix'"
        (
            "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%r1, %r2}, [%r5]",
            "needs 4 registers",
        ),
        // "Vector of size 2 is expected for argument 0 of instruction 'ldmatrix'"
        (
            "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b6x16_p32 {%r1}, [%r3]",
            "needs 2 registers",
        ),
        // "Incorrect no. of matrix: 4 for ldmatrix with shape '.m16n16'"
        (
            "ldmatrix.sync.aligned.m16n16.x4.trans.shared.b8 {%r1, %r2, %r3, %r4}, [%r5]",
            "takes .x1 or .x2",
        ),
        // "Modifier '.trans' require for instruction ldmatrix with shape '.m16n16'"
        (
            "ldmatrix.sync.aligned.m16n16.x1.shared.b8 {%r1, %r2}, [%r3]",
            "needs .trans",
        ),
        // "Incorrect instruction type specified for ldmatrix with shape '.m8n8'"
        (
            "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b8 {%r1}, [%r3]",
            "takes .b16",
        ),
        // "Incorrect instruction type specified for ldmatrix with shape '.m16n16'"
        (
            "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b16 {%r1, %r2}, [%r3]",
            "takes .b8",
        ),
        // "Modifier .trans not allowed for shape '.m8n16'"
        (
            "ldmatrix.sync.aligned.m8n16.x1.trans.shared.b8x16.b6x16_p32 {%r1}, [%r3]",
            ".trans is not allowed",
        ),
        // "Unexpected number of instruction types specified for ldmatrix with shape '.m8n16'"
        (
            "ldmatrix.sync.aligned.m8n16.x1.shared.b8 {%r1}, [%r3]",
            "takes .b8x16.b6x16_p32",
        ),
        // "Unexpected number of 'format conversion' modifiers specified"
        (
            "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16 {%r1}, [%r3]",
            "needs a source format",
        ),
        (
            "ldmatrix.sync.aligned.m8n16.x1.shared.b6x16_p32 {%r1}, [%r3]",
            "needs .b8x16 directly before it",
        ),
        // "Illegal modifier '.b6x16_p32.b8x16' for instruction 'ldmatrix'"
        (
            "ldmatrix.sync.aligned.m8n16.x1.shared.b6x16_p32.b8x16 {%r1}, [%r3]",
            "needs a source format",
        ),
        // "Unexpected number of instruction types specified for ldmatrix with shape '.m16n16'"
        (
            "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8.b8x16.b6x16_p32 {%r1, %r2}, [%r3]",
            "more than one element type",
        ),
        // "State space incorrect for instruction 'ldmatrix'"
        (
            "ldmatrix.sync.aligned.m16n16.x1.trans.global.b8 {%r1, %r2}, [%rd1]",
            "'.global'",
        ),
        // "Modifier '.trans' require for instruction stmatrix with shape '.m16n8'"
        (
            "stmatrix.sync.aligned.m16n8.x1.shared.b8 [%r3], {%r1}",
            "needs .trans",
        ),
        // "Incorrect instruction type specified for stmatrix with shape '.m8n8'"
        (
            "stmatrix.sync.aligned.m8n8.x1.trans.shared.b8 [%r3], {%r1}",
            "takes .b16",
        ),
        // "Incorrect instruction type specified for stmatrix with shape '.m16n8'"
        (
            "stmatrix.sync.aligned.m16n8.x1.trans.shared.b16 [%r3], {%r1}",
            "takes .b8",
        ),
    ];
    for (inst, words) in refused {
        let e = front_end(&isa9_kernel(inst), "k.ptx")
            .err()
            .unwrap_or_else(|| panic!("{inst}: loaded, but ptxas rejects it"));
        let msg = e.to_string();
        assert!(
            msg.contains("k.ptx:14:") && msg.contains(words),
            "{inst}: {msg} (wanted {words:?})"
        );
    }
    // "Feature '.m16n16' not supported on .target 'sm_90a'" (and 'sm_100', 'sm_120': no
    // plain targets); sm_120a, sm_103a and the family targets take them (ptxjit's headers
    // for sm_100a start at PTX ISA 8.6, the version of these forms).
    let ld = "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r3]";
    let st = "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%r3], {%r1}";
    let pk = "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64 {%r1}, [%r3]";
    for inst in [ld, st, pk] {
        for (version, target, ok) in [
            ("8.6", "sm_100a", true),
            ("9.0", "sm_90a", false),
            ("9.0", "sm_100", false),
            ("9.0", "sm_120", false),
            ("8.7", "sm_120a", true),
            ("8.8", "sm_103a", true),
            ("8.8", "sm_120f", true),
            ("9.0", "sm_110f", true),
        ] {
            let r = front_end(&isa_kernel(version, target, inst), "k.ptx");
            match (r, ok) {
                (Ok(_), true) => {}
                (Err(e), false) => assert!(e.to_string().contains("k.ptx:14:"), "{e}"),
                (Ok(_), false) => panic!("{inst} under {version} {target}: ptxas refuses it"),
                (Err(e), true) => panic!("{inst} under {version} {target}: {e}"),
            }
        }
    }
}

/// `mma .kind::f8f6f4` (PTX ISA 8.7, §9.7.14.5.14) as ptxas 13.5 (`-arch=sm_120a`) checks it:
/// refused lines name their fault at line 14 (ptxas's words in the comments), accepted ones
/// load, and the target gate follows ptxas ("Instruction 'mma with with FP6/FP4 floating point
/// type' not supported on .target 'sm_100a'", and on sm_120, sm_103a, sm_100f; with `.e4m3`/
/// `.e5m2` inputs and an `.f32` accumulator ptxas takes it on sm_100a, sm_103a and sm_100f
/// too, and refuses it on sm_120: "Feature '.kind::f8f6f4' not supported on .target
/// 'sm_120'").
#[test]
fn mma_kind_f8f6f4_follows_ptxas() {
    let m = "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4}";
    let h = "{%r7, %r8}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r7, %r8}";
    let kernel = |target: &str, inst: &str| isa_kernel("8.8", target, inst);
    let fp8_f32 = format!("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32 {m}");
    // The sparse block-scaled .e2m1 form (.kind::mxf4's default .scale_vec::2X): sm_120a and
    // sm_121a only ("Instruction 'Sparse mma with block scale' not supported on .target
    // 'sm_120f'").
    let sparse_mxf4 = "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.\
                       block_scale.f32.e2m1.e2m1.f32.ue8m0 {%f1, %f2, %f3, %f4}, \
                       {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4}, %r9, 0, \
                       %r10, {0, 0}, %r11, {0, 0}";
    for target in ["sm_120a", "sm_121a"] {
        if let Err(e) = front_end(&kernel(target, sparse_mxf4), "k.ptx") {
            panic!("{sparse_mxf4} on {target}: {e}");
        }
    }
    let e = front_end(&kernel("sm_120f", sparse_mxf4), "k.ptx")
        .err()
        .unwrap_or_else(|| panic!("{sparse_mxf4} on sm_120f: ptxas refuses it"));
    assert!(e.to_string().contains("k.ptx:14:"), "{e}");
    for inst in [
        format!("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32 {m}"),
        format!("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e2m3.f16 {h}"),
        format!("mma.sync.aligned.kind::f8f6f4.m16n8k32.row.col.f32.e2m1.e2m1.f32 {m}"),
        fp8_f32.clone(),
    ] {
        let sm100 = ["sm_100a", "sm_103a", "sm_100f"];
        for target in ["sm_120a", "sm_121a", "sm_120f"] {
            if let Err(e) = front_end(&kernel(target, &inst), "k.ptx") {
                panic!("{inst} on {target}: {e}");
            }
        }
        for target in ["sm_100a", "sm_120", "sm_103a", "sm_100f"] {
            let loaded = front_end(&kernel(target, &inst), "k.ptx");
            if inst == fp8_f32 && sm100.contains(&target) {
                if let Err(e) = loaded {
                    panic!("{inst} on {target}: {e}");
                }
                continue;
            }
            let e = loaded
                .err()
                .unwrap_or_else(|| panic!("{inst} on {target}: ptxas refuses it"));
            assert!(e.to_string().contains("k.ptx:14:"), "{e}");
        }
    }
    for (inst, words) in [
        // "Unexpected instruction types specified for 'mma'"
        (
            format!("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m3.f16 {m}"),
            "no mma .kind::f8f6f4 form",
        ),
        (
            format!("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.bf16.e2m1.f32 {m}"),
            "no mma .kind::f8f6f4 form",
        ),
        // "Illegal matrix shape '.m16n8k16' for instruction 'mma'"
        (
            "mma.sync.aligned.m16n8k16.row.col.kind::f8f6f4.f32.e4m3.e2m3.f32 \
             {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5}, {%f1, %f2, %f3, %f4}"
                .to_string(),
            "no mma .kind::f8f6f4 form",
        ),
        // ".kind::f8f6f4 modifier required for instruction 'mma'"
        (
            format!("mma.sync.aligned.m16n8k32.row.col.f32.e2m1.e2m1.f32 {m}"),
            ".kind::f8f6f4 modifier required",
        ),
        // "Unexpected instruction types specified for 'mma'" (.satfinite)
        (
            format!("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.satfinite.f32.e2m1.e2m1.f32 {m}"),
            ".satfinite applies to integer mma only",
        ),
        // "Illegal alayout '.col' for instruction 'mma'"
        (
            format!("mma.sync.aligned.m16n8k32.col.row.kind::f8f6f4.f32.e2m1.e3m2.f32 {m}"),
            "needs .row.col",
        ),
        // "Arguments mismatch for instruction 'mma'" (.b16 registers for .f16 C and D)
        (
            "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e3m2.f16 {%h1, %h2}, \
             {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%h1, %h2}"
                .to_string(),
            "needs .b32 or .f16x2 registers",
        ),
        // "Illegal modifier '.sp' for instruction 'mma'"
        (
            "mma.sp.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32 {%f1, %f2, %f3, %f4}, \
             {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4}, %r9, 0"
                .to_string(),
            "need .sp::ordered_metadata",
        ),
        // "Argument 5 of instruction 'mma': unexpected value '1', expected to be 0"
        (
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32 \
             {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4}, %r9, 1"
                .to_string(),
            "sparsity selector",
        ),
        // "Incorrect instruction type specified for Sparse mma with shape '.m16n8k32'"
        (
            format!("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32 {m}, %r9, 0"),
            "no mma.sp .kind::f8f6f4 form",
        ),
        // ".block_scale modifier required for instruction 'mma'"
        (
            format!("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.f32.e4m3.e4m3.f32.ue8m0 {m}, %r9, {{0, 0}}, %r10, {{0, 0}}"),
            ".block_scale modifier required",
        ),
        // "Illegal modifier '.scale_vec::2X' for instruction 'mma'"
        (
            format!("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::2X.f32.e4m3.e4m3.f32.ue8m0 {m}, %r9, {{0, 0}}, %r10, {{0, 0}}"),
            "does not go with this .kind",
        ),
        // ".scale_vec_size modifier required for instruction 'mma'"
        (
            format!("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {m}, %r9, {{0, 0}}, %r10, {{0, 0}}"),
            "needs .scale_vec::2X or .scale_vec::4X",
        ),
        // "Illegal modifier '.kind::mxf4' for instruction 'mma' with type '.ue4m3'"
        (
            format!("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue4m3 {m}, %r9, {{0, 0}}, %r10, {{0, 0}}"),
            ".ue4m3 scale factors need",
        ),
        // "Unexpected instruction types specified for 'mma'" (an f16 accumulator)
        (
            format!("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f16.e4m3.e4m3.f16.ue8m0 {h}, %r9, {{0, 0}}, %r10, {{0, 0}}"),
            "no block-scaled mma form",
        ),
        // "Argument 5 of instruction 'mma': value '2' out of range, expected to be in range [0..1]"
        (
            format!("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0 {m}, %r9, {{0, 2}}, %r10, {{0, 0}}"),
            "thread-id-a must be in [0, 1]",
        ),
        // "Argument 7 of instruction 'mma': unexpected value '3', expected to be 0 or 2"
        (
            format!("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {m}, %r9, {{0, 0}}, %r10, {{3, 0}}"),
            "byte-id-b must be in [0, 2]",
        ),
        // "Arguments mismatch for instruction 'mma'" (no scale operands)
        (
            format!("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0 {m}"),
            "expects 8 operands",
        ),
    ] {
        let e = front_end(&kernel("sm_120a", &inst), "k.ptx")
            .err()
            .unwrap_or_else(|| panic!("{inst}: loaded, but ptxas rejects it"));
        let msg = e.to_string();
        assert!(
            msg.contains("k.ptx:14:") && msg.contains(words),
            "{inst}: {msg} (wanted {words:?})"
        );
    }
}

/// `.version`/`.target` pairs of the sm_9x-sm_12x architectures under every PTX ISA 8.x and
/// 9.x version, as ptxas 13.5 takes them (`ptxas -arch=TARGET`; sm_101* by the header alone,
/// as 13.5 has no sm_101 to assemble for): each target from the version below, "PTX .version
/// 8.5 does not support .target sm_100a" under the older ones.
#[test]
fn sm_9x_to_12x_headers_follow_ptxas() {
    let since: &[(&str, &str)] = &[
        ("sm_90", "7.8"),
        ("sm_90a", "8.0"),
        ("sm_100", "8.6"),
        ("sm_100a", "8.6"),
        ("sm_100f", "8.8"),
        ("sm_101", "8.6"),
        ("sm_101a", "8.6"),
        ("sm_101f", "8.8"),
        ("sm_103", "8.8"),
        ("sm_103a", "8.8"),
        ("sm_103f", "8.8"),
        ("sm_110", "9.0"),
        ("sm_110a", "9.0"),
        ("sm_110f", "9.0"),
        ("sm_120", "8.7"),
        ("sm_120a", "8.7"),
        ("sm_120f", "8.8"),
        ("sm_121", "8.8"),
        ("sm_121a", "8.8"),
        ("sm_121f", "8.8"),
    ];
    let minor = |v: &str| -> (u32, u32) {
        let (a, b) = v.split_once('.').expect("a version");
        (a.parse().expect("major"), b.parse().expect("minor"))
    };
    let versions = (0..=8)
        .map(|m| format!("8.{m}"))
        .chain((0..=5).map(|m| format!("9.{m}")));
    for version in versions {
        for (target, first) in since {
            let ptx = format!(
                ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\nret;\n}}\n"
            );
            let r = front_end(&ptx, "k.ptx");
            if minor(&version) >= minor(first) {
                if let Err(e) = r {
                    panic!(".version {version} .target {target}: {e}");
                }
            } else {
                match r {
                    Ok(_) => {
                        panic!(".version {version} .target {target}: loaded, but ptxas rejects it")
                    }
                    Err(e) => {
                        let msg = e.to_string();
                        let words =
                            format!("PTX .version {version} does not support .target {target}");
                        assert!(msg.contains("k.ptx:2:"), "{msg}");
                        assert!(msg.contains(&words), "{msg} (wanted {words:?})");
                    }
                }
            }
        }
    }
}

/// `clusterlaunchcontrol.try_cancel` with `.multicast::cluster::all` as ptxas 13.5 gates it:
/// "Feature '.multicast::cluster::all' not supported on .target 'sm_100'" (and sm_103,
/// sm_120); the architecture-specific and family targets of the sm_100 and sm_120 families
/// take it, and plain sm_100 takes the form without it. The error names every target that takes
/// it, architecture-specific ones included.
#[test]
fn clc_multicast_needs_an_architecture_specific_target() {
    let accepted = [
        ("8.6", "sm_100a"),
        ("8.6", "sm_101a"),
        ("8.8", "sm_100f"),
        ("8.8", "sm_103a"),
        ("8.8", "sm_103f"),
        ("9.0", "sm_110a"),
        ("9.0", "sm_110f"),
        ("8.8", "sm_120a"),
        ("8.8", "sm_120f"),
        ("8.8", "sm_121a"),
    ];
    let kernel = |version: &str, target: &str, multicast: bool| {
        format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n\
             .shared .align 16 .b8 r[16];\n.shared .align 8 .b64 m;\n\
             clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes{}.b128 [r], [m];\n\
             ret;\n}}\n",
            if multicast { ".multicast::cluster::all" } else { "" }
        )
    };
    for (version, target) in [("8.6", "sm_100"), ("8.8", "sm_103"), ("9.0", "sm_120")] {
        match front_end(&kernel(version, target, true), "k.ptx") {
            Ok(_) => panic!("{target}: loaded, but ptxas rejects it"),
            Err(e) => {
                let msg = e.to_string();
                assert_eq!(e.kind(), "invalid", "{msg}");
                assert!(msg.contains("k.ptx:8:"), "{msg}");
                assert!(msg.contains("multicast::cluster::all"), "{msg}");
                for (_, t) in accepted {
                    assert!(
                        msg.contains(&format!("{t},")) || msg.contains(&format!("{t} ")),
                        "{t}: {msg}"
                    );
                }
            }
        }
        if let Err(e) = front_end(&kernel(version, target, false), "k.ptx") {
            panic!("{target} without .multicast::cluster::all: {e}");
        }
    }
    for (version, target) in accepted {
        if let Err(e) = front_end(&kernel(version, target, true), "k.ptx") {
            panic!("{version} {target}: {e}");
        }
    }
}

/// ptxas: "State space mismatch between instruction and address in instruction 'ld'" for a
/// module variable named in an address of another explicit state space; generic addressing
/// and the variable's own space load.
#[test]
fn a_variable_is_addressed_in_its_own_state_space() {
    rejected(
        &[("{INST}", "ld.shared.u32 %r2, [g];")],
        "invalid",
        "k.ptx:12:22",
        "symbol 'g' is a .global variable, not in the shared state space of 'ld.shared.u32'",
    );
    rejected(
        &[
            ("{VAR}", ".const .align 4 .b8 g[16];"),
            ("{INST}", "st.global.u32 [g+4], %r1;"),
        ],
        "invalid",
        "k.ptx:12:17",
        "symbol 'g' is a .const variable, not in the global state space",
    );
    rejected(
        &[("{INST}", "ld.const.u32 %r2, [g];")],
        "invalid",
        "k.ptx:12:21",
        "is a .global variable, not in the const state space",
    );
    accepted(&[("{INST}", "ld.global.u32 %r2, [g+4];")]);
    accepted(&[("{INST}", "ld.u32 %r2, [g];")]);
    accepted(&[
        ("{VAR}", ".const .align 4 .b8 g[16];"),
        ("{INST}", "ld.const.u32 %r2, [g];"),
    ]);
}

/// ptxas: "Non-external variable 'g' has incomplete type" for an unsized array (`[]`) that
/// no initializer sizes and no `.extern` leaves open; sized by an initializer, or `.extern`
/// (dynamic shared memory), it loads.
#[test]
fn an_unsized_array_needs_an_initializer_or_extern() {
    let words = "variable 'g' has an unsized dimension '[]' and no initializer elements";
    rejected(
        &[("{VAR}", ".global .u32 g[];")],
        "invalid",
        "k.ptx:4:1",
        words,
    );
    rejected(
        &[("{VAR}", ".const .align 4 .u32 g[] = {};")],
        "invalid",
        "k.ptx:4:1",
        words,
    );
    rejected(
        &[("{VAR}", ".shared .align 4 .b8 g[];")],
        "invalid",
        "k.ptx:4:1",
        words,
    );
    rejected(
        &[("{LOCAL}", ".shared .u32 g[];")],
        "invalid",
        "k.ptx:9:",
        words,
    );
    accepted(&[("{VAR}", ".global .u32 g[] = {1, 2};")]);
    accepted(&[("{VAR}", ".extern .shared .align 16 .b8 g[];")]);
}
