//! The operand forms of the video instructions (PTX ISA §9.7.18) the front end accepts and
//! rejects: each verdict is ptxas 12.9's (`-arch=sm_80`).

use crate::coverage::example_kernel;

fn compiles(inst: &str) -> Result<(), String> {
    crate::host::front_end(&example_kernel(inst), "t.ptx")
        .map(|_| ())
        .map_err(|e| e.to_string())
}

const ACCEPTED: &[&str] = &[
    "vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4",
    "vabsdiff4.u32.u32.u32.sat %r1, %r2, %r3, %r4",
    "vadd4.u32.u32.u32 %r1.b10, %r2, %r3, %r4",
    "vadd4.u32.u32.u32 %r1.b3, %r2, %r3, %r4",
    "vadd4.u32.u32.u32 %r1.b31, %r2, %r3, %r4",
    "vadd4.u32.u32.u32 %r1.b321, %r2, %r3, %r4",
    "vadd4.u32.u32.u32 %r1.b3210, %r2, %r3, %r4",
    "vadd4.u32.u32.u32 %r1, %r2.b3210, %r3.b7654, %r4",
    "vadd4.u32.u32.u32 %r1, %r2.b7777, %r3.b0000, %r4",
    "vadd2.u32.u32.u32 %r1, %r2.h32, %r3.h10, %r4",
    "vadd2.u32.u32.u32 %r1, %r2.h00, %r3.h33, %r4",
    "vadd2.u32.u32.u32 %r1.h0, %r2, %r3, %r4",
    "vadd2.u32.u32.u32 %r1.h1, %r2, %r3, %r4",
    "vadd2.u32.u32.u32 %r1.h10, %r2, %r3, %r4",
    "vset2.u32.u32.eq %r1, %r2, %r3, %r4",
    "vset4.u32.u32.lt.add %r1, %r2, %r3, %r4",
    "vmin2.s32.s32.s32.add %r1, %r2, %r3, %r4",
    // Scalar forms take immediates for a, b and c.
    "vadd.u32.u32.u32 %r1, 5, %r3",
    "vadd.u32.u32.u32 %r1, %r2, 5",
    "vadd.u32.u32.u32.add %r1, %r2, %r3, 7",
    "vadd.u32.u32.u32 %r1.b0, %r2, %r3, 7",
    "vadd.u32.u32.u32 %r1.h1, %r2, %r3, %r4",
    "vadd.u32.u32.u32 %r1, %r2.b0, %r3.h1",
    "vmad.u32.u32.u32 %r1, %r2, %r3, 5",
    "vmad.u32.u32.u32 %r1, 5, %r3, %r4",
    "vmad.u32.u32.u32 %r1, %r2.h1, %r3.b2, %r4",
    "vshl.u32.u32.u32.clamp.add %r1, %r2, %r3, 3",
    "vshl.u32.u32.u32.clamp %r1, %r2, %r3.b1",
    "vset.u32.u32.lt %r1.b1, %r2, %r3, %r4",
];

/// (instruction, a part of ptxjit's message); ptxas's message in the comment.
const REJECTED: &[(&str, &str)] = &[
    // Incorrect video selector for operand 3
    (
        "vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, 0",
        "operand c of the SIMD video instruction vabsdiff4 must be a register",
    ),
    (
        "vabsdiff4.u32.u32.u32 %r1, %r2, %r3, 0",
        "must be a register",
    ),
    (
        "vadd2.u32.u32.u32.add %r1, %r2, %r3, 0",
        "must be a register",
    ),
    (
        "vset2.u32.u32.eq.add %r1, %r2, %r3, 0",
        "must be a register",
    ),
    ("vset4.u32.u32.lt %r1, %r2, %r3, 7", "must be a register"),
    (
        "vadd4.u32.u32.u32 %r1, %r2, %r3, %r4.b0",
        "operand c takes no selector",
    ),
    // Incorrect video selector for operand 1 / 2
    (
        "vadd4.u32.u32.u32 %r1, 5, %r3, %r4",
        "operand a of the SIMD video instruction vadd4 must be a register",
    ),
    (
        "vadd4.u32.u32.u32 %r1, %r2, 5, %r4",
        "operand b of the SIMD video instruction vadd4 must be a register",
    ),
    ("vadd2.u32.u32.u32 %r1, 1, %r3, %r4", "must be a register"),
    // Incorrect video selector for operand 0
    (
        "vadd4.u32.u32.u32 %r1.b01, %r2, %r3, %r4",
        "mask .b01 is not",
    ),
    (
        "vadd4.u32.u32.u32 %r1.b33, %r2, %r3, %r4",
        "mask .b33 is not",
    ),
    ("vadd4.u32.u32.u32 %r1.b4, %r2, %r3, %r4", "mask .b4 is not"),
    ("vadd4.u32.u32.u32 %r1.h1, %r2, %r3, %r4", "mask .h1 is not"),
    (
        "vadd2.u32.u32.u32 %r1.h01, %r2, %r3, %r4",
        "mask .h01 is not",
    ),
    ("vadd2.u32.u32.u32 %r1.h2, %r2, %r3, %r4", "mask .h2 is not"),
    ("vadd2.u32.u32.u32 %r1.b0, %r2, %r3, %r4", "mask .b0 is not"),
    // Unknown video selector: '.b8888' / Incorrect video selector for operand 1
    (
        "vadd4.u32.u32.u32 %r1, %r2.b321, %r3, %r4",
        "selector .b321 is not",
    ),
    (
        "vadd4.u32.u32.u32 %r1, %r2.h10, %r3, %r4",
        "selector .h10 is not",
    ),
    (
        "vadd2.u32.u32.u32 %r1, %r2.h3, %r3, %r4",
        "selector .h3 is not",
    ),
    (
        "vadd2.u32.u32.u32 %r1, %r2.b10, %r3, %r4",
        "selector .b10 is not",
    ),
    // Video selector is not allowed on 'source C' operand
    (
        "vadd.u32.u32.u32.add %r1, %r2, %r3, %r4.b0",
        "operand c takes no selector",
    ),
    (
        "vmad.u32.u32.u32 %r1, %r2, %r3, %r4.b0",
        "operand c takes no selector",
    ),
    (
        "vset.u32.u32.lt %r1, %r2, %r3, %r4.h0",
        "operand c takes no selector",
    ),
    // Video selector is not allowed on destination for instruction 'vmad'
    (
        "vmad.u32.u32.u32 %r1.b0, %r2, %r3, %r4",
        "vmad takes no destination selector",
    ),
    // Incorrect video selector for operand 1 / 0
    (
        "vadd.u32.u32.u32 %r1, %r2.b4, %r3",
        "not a scalar video selector",
    ),
    (
        "vadd.u32.u32.u32 %r1, %r2.b10, %r3",
        "not a scalar video selector",
    ),
    (
        "vadd.u32.u32.u32 %r1, %r2.h2, %r3",
        "not a scalar video selector",
    ),
    (
        "vmad.u32.u32.u32 %r1, %r2.b10, %r3, %r4",
        "not a scalar video selector",
    ),
    (
        "vadd.u32.u32.u32 %r1.b10, %r2, %r3, %r4",
        "not a scalar video selector",
    ),
    // Video selector is not allowed on destination for instruction 'vadd'
    ("vadd.u32.u32.u32 %r1.b2, %r2, %r3", "a third source"),
];

/// (instruction, the word) for selectors that are no selector word to the parser, which stops
/// there; ptxas: "Unknown video selector: '.b8888'" (and for `.h321` "Incorrect video
/// selector").
const NOT_SELECTORS: &[(&str, &str)] = &[
    ("vadd4.u32.u32.u32 %r1, %r2.b8888, %r3, %r4", ".b8888"),
    ("vadd4.u32.u32.u32 %r1, %r2.b07654, %r3, %r4", ".b07654"),
    ("vadd2.u32.u32.u32 %r1, %r2.h40, %r3, %r4", ".h40"),
    ("vadd2.u32.u32.u32 %r1, %r2.h321, %r3, %r4", ".h321"),
];

#[test]
fn accepted_forms_compile() {
    for inst in ACCEPTED {
        if let Err(e) = compiles(inst) {
            panic!("{inst}: {e}");
        }
    }
}

#[test]
fn rejected_forms_are_invalid_with_their_reason() {
    let mut wrong = vec![];
    for (inst, why) in REJECTED {
        match compiles(inst) {
            Ok(()) => wrong.push(format!("{inst}: accepted")),
            Err(e) if !(e.contains(why) && e.contains("invalid")) => {
                wrong.push(format!("{inst}: expected '{why}', got: {e}"))
            }
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn unknown_selectors_are_syntax_errors() {
    for (inst, word) in NOT_SELECTORS {
        match compiles(inst) {
            Ok(()) => panic!("{inst}: accepted"),
            Err(e) => assert!(e.contains(&format!("found '{word}'")), "{inst}: got: {e}"),
        }
    }
}
