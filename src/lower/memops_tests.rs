//! The forms of `st.bulk`, `multimem.*`, `applypriority` and `discard` (PTX ISA §9.7.9.13-17)
//! the front end accepts and rejects: each verdict is ptxas 12.9's (`-arch=sm_100a`, with
//! `.b8` registers for the one-byte types), except where a comment says otherwise.

use crate::coverage::example_kernel_for;

fn compiles(inst: &str) -> Result<(), String> {
    let ptx = example_kernel_for(inst, "8.8", "sm_100a")
        .replace(".reg .pred", ".reg .b8 %c<9>;\n.reg .pred");
    crate::host::front_end(&ptx, "t.ptx")
        .map(|_| ())
        .map_err(|e| e.to_string())
}

const ACCEPTED: &[&str] = &[
    "st.bulk.weak.shared::cta [%rd1], 64, 0",
    "st.bulk [%rd1], %rd2, 0",
    "st.bulk.shared::cta [%r1], 64, 0",
    "st.bulk [%rd1], 0, 0",
    "st.bulk [%rd1+8], 64, 0",
    "st.bulk.weak [%rd1], %rd2, 0",
    "st.bulk [%rd1], 16777216, 0",
    // A 32-bit size: PTX ISA 9.0 (ptxas 12.9 knows PTX up to 8.8).
    "st.bulk [%rd1], %r2, 0",
    "multimem.ld_reduce.global.add.u32 %r1, [%rd1]",
    "multimem.ld_reduce.min.s64 %rd2, [%rd1]",
    "multimem.ld_reduce.weak.add.u32 %r1, [%rd1]",
    "multimem.ld_reduce.acquire.gpu.global.add.u32 %r1, [%rd1]",
    "multimem.ld_reduce.add.f32 %f1, [%rd1]",
    "multimem.ld_reduce.add.v2.f16 {%h1, %h2}, [%rd1]",
    "multimem.ld_reduce.add.acc::f32.f16x2 %r1, [%rd1]",
    "multimem.ld_reduce.add.v8.bf16 {%h1, %h2, %h3, %h4, %h1, %h2, %h3, %h4}, [%rd1]",
    "multimem.ld_reduce.add.v4.bf16x2 {%r1, %r2, %r3, %r4}, [%rd1]",
    "multimem.ld_reduce.add.f64 %fd1, [%rd1]",
    "multimem.ld_reduce.add.v2.f32 {%r1, %r2}, [%rd1]",
    "multimem.ld_reduce.add.e4m3x4 %r1, [%rd1]",
    "multimem.ld_reduce.add.v2.e4m3x2 {%h1, %h2}, [%rd1]",
    "multimem.ld_reduce.add.v8.e5m2x2 {%h1, %h2, %h3, %h4, %h1, %h2, %h3, %h4}, [%rd1]",
    "multimem.ld_reduce.add.v4.e4m3 {%c1, %c2, %c3, %c4}, [%rd1]",
    "multimem.ld_reduce.add.acc::f16.v4.e5m2x2 {%h1, %h2, %h3, %h4}, [%rd1]",
    "multimem.st.b32 [%rd1], %r1",
    "multimem.st.b64 [%rd1], %rd1",
    "multimem.st.relaxed.sys.global.s32 [%rd1], %r1",
    "multimem.st.v4.f32 [%rd1], {%f1, %f2, %f3, %f4}",
    "multimem.st.f32 [%rd1], %f1",
    "multimem.st.v2.f16 [%rd1], {%h1, %h2}",
    "multimem.st.e4m3x4 [%rd1], %r1",
    "multimem.st.v4.e4m3 [%rd1], {%c1, %c2, %c3, %c4}",
    "multimem.red.add.u32 [%rd1], %r1",
    "multimem.red.min.s64 [%rd1], %rd1",
    "multimem.red.xor.b64 [%rd1], %rd1",
    "multimem.red.add.f32 [%rd1], %f1",
    "multimem.red.add.v4.f32 [%rd1], {%f1, %f2, %f3, %f4}",
    "multimem.red.add.v8.bf16 [%rd1], {%h1, %h2, %h3, %h4, %h1, %h2, %h3, %h4}",
    "multimem.red.add.v2.f16x2 [%rd1], {%r1, %r2}",
    "applypriority.global.L2::evict_normal [%rd1], 128",
    "applypriority.L2::evict_normal [%rd1], 128",
    "applypriority.global.L2::evict_normal [%rd1+128], 128",
    "discard.global.L2 [%rd1], 128",
    "discard.L2 [%rd1], 128",
];

/// (instruction, a part of ptxjit's message); ptxas's message in the comment.
const REJECTED: &[(&str, &str)] = &[
    // Argument 2 of instruction 'st.bulk': unexpected value '1', expected to be zero
    (
        "st.bulk [%rd1], 64, 1",
        "initval must be the integer constant 0",
    ),
    // unexpected value '60', expected to be multiple of 8
    ("st.bulk [%rd1], 60, 0", "is not a multiple of 8"),
    // (ptxas accepts it; the ISA: "The maximum value of size operand can be 16777216")
    (
        "st.bulk [%rd1], 16777224, 0",
        "is not a multiple of 8 bytes in 0..=16777216",
    ),
    // Arguments mismatch for instruction 'st.bulk'
    ("st.bulk.shared::cta [%rd1], 64, %r1", "initval must be"),
    // Illegal modifier '.relaxed' for instruction 'st.bulk'
    (
        "st.bulk.relaxed.shared::cta [%rd1], 64, 0",
        "illegal modifier '.relaxed'",
    ),
    // State space incorrect for instruction 'st.bulk'
    ("st.bulk.global [%rd1], 64, 0", "illegal modifier '.global'"),
    ("st.bulk.shared [%rd1], 64, 0", "illegal modifier '.shared'"),
    // Duplicate .weak modifier
    ("st.bulk.weak.weak [%rd1], %rd2, 0", "given twice"),
    // Incorrect type '.s64' for operation '.add' in instruction 'multimem.ld_reduce'
    ("multimem.ld_reduce.add.s64 %rd2, [%rd1]", "has no .add.s64"),
    ("multimem.ld_reduce.add.b32 %r1, [%rd1]", "has no .add.b32"),
    ("multimem.ld_reduce.and.u32 %r1, [%rd1]", "has no .and.u32"),
    // Modifier '.gpu' requires order with 'multimem.ld_reduce' instruction
    (
        "multimem.ld_reduce.gpu.add.u32 %r1, [%rd1]",
        "needs a memory-order qualifier",
    ),
    // Modifier '.weak' cannot be combined with modifier '.gpu'
    (
        "multimem.ld_reduce.weak.gpu.add.u32 %r1, [%rd1]",
        "cannot be combined",
    ),
    // Modifier '.acquire' requires scope with 'multimem.ld_reduce' instruction
    (
        "multimem.ld_reduce.acquire.add.u32 %r1, [%rd1]",
        "needs a scope",
    ),
    // Illegal modifier '.release' for instruction 'multimem.ld_reduce'
    (
        "multimem.ld_reduce.release.gpu.add.u32 %r1, [%rd1]",
        "illegal modifier '.release'",
    ),
    // Incorrect type '.f32' for operation '.min' in instruction 'multimem.ld_reduce'
    ("multimem.ld_reduce.min.f32 %f1, [%rd1]", "has no .min.f32"),
    // Unexpected instruction types specified for 'multimem.ld_reduce'
    (
        "multimem.ld_reduce.add.f16 %h1, [%rd1]",
        "not 32, 64 or 128 bits",
    ),
    // Arguments mismatch for instruction 'multimem.ld_reduce'
    (
        "multimem.ld_reduce.add.v2.f16 %r1, [%rd1]",
        "needs a vector of 2 registers",
    ),
    // Illegal modifier '.acc::f32' for instruction 'multimem.ld_reduce' with type '.f32'
    (
        "multimem.ld_reduce.add.acc::f32.f32 %f1, [%rd1]",
        "illegal modifier '.acc::f32'",
    ),
    // Illegal modifier '.acc::f16' ... with type '.f16x2'
    (
        "multimem.ld_reduce.add.acc::f16.f16x2 %r1, [%rd1]",
        "illegal modifier '.acc::f16'",
    ),
    // Illegal reduction operation for instruction 'multimem.ld_reduce.acc::f32'
    (
        "multimem.ld_reduce.min.acc::f32.v2.f16x2 {%r1, %r2}, [%rd1]",
        "illegal modifier '.acc::f32'",
    ),
    // Inconsistent type '.f64' with vector .v2 for 'multimem.ld_reduce'
    (
        "multimem.ld_reduce.add.v2.f64 {%fd1, %fd2}, [%rd1]",
        "not 32, 64 or 128 bits",
    ),
    // State space incorrect for instruction 'multimem.ld_reduce'
    (
        "multimem.ld_reduce.shared.add.u32 %r1, [%rd2]",
        "illegal modifier '.shared'",
    ),
    // Illegal modifier '.acquire' for instruction 'multimem.st'
    (
        "multimem.st.acquire.sys.global.s32 [%rd1], %r1",
        "illegal modifier '.acquire'",
    ),
    ("multimem.st.weak.gpu.s32 [%rd1], %r1", "cannot be combined"),
    // Unexpected instruction types specified for 'multimem.st'
    ("multimem.st.f16 [%rd1], %h1", "not 32, 64 or 128 bits"),
    ("multimem.st.b16 [%rd1], %h1", "illegal modifier '.b16'"),
    // Vector qualifier is not allowed for instruction 'multimem.st'
    (
        "multimem.st.v2.u32 [%rd1], {%r1, %r2}",
        "floating-point types only",
    ),
    // Incorrect type '.s64' for operation '.add' in instruction 'multimem.red'
    ("multimem.red.add.s64 [%rd1], %rd1", "has no .add.s64"),
    // Illegal modifier '.weak' for instruction 'multimem.red'
    (
        "multimem.red.weak.add.u32 [%rd1], %r1",
        "illegal modifier '.weak'",
    ),
    (
        "multimem.red.acquire.gpu.add.u32 [%rd1], %r1",
        "illegal modifier '.acquire'",
    ),
    // Modifier '.relaxed' requires scope with 'multimem.red' instruction
    ("multimem.red.relaxed.add.u32 [%rd1], %r1", "needs a scope"),
    // Modifier '.sys' requires order with 'multimem.red' instruction
    (
        "multimem.red.sys.add.u32 [%rd1], %r1",
        "needs a memory-order qualifier",
    ),
    // Incorrect type '.f64' for operation '.max' in instruction 'multimem.red'
    ("multimem.red.max.f64 [%rd1], %fd1", "has no .max.f64"),
    ("multimem.red.min.f16x2 [%rd1], %r1", "has no .min.f16x2"),
    // Unexpected instruction types specified for 'multimem.red'
    ("multimem.red.add.f16 [%rd1], %h1", "not 32, 64 or 128 bits"),
    ("multimem.red.add.e4m3x4 [%rd1], %r1", "has no .add.e4m3x4"),
    // (ptxas accepts it; the ISA's grammar has no .acc_prec on multimem.red)
    (
        "multimem.red.add.acc::f32.f16x2 [%rd1], %r1",
        "illegal modifier '.acc::f32'",
    ),
    // Argument 2 of instruction 'applypriority': unexpected value '64', expected to be 128
    (
        "applypriority.L2::evict_normal [%rd1], 64",
        "size must be the integer constant 128",
    ),
    // Arguments mismatch for instruction 'applypriority'
    (
        "applypriority.L2::evict_normal [%rd1], %rd2",
        "size must be the integer constant 128",
    ),
    // Unsupported modifier '.evict_last' for instruction 'applypriority'
    (
        "applypriority.L2::evict_last [%rd1], 128",
        "illegal modifier '.L2::evict_last'",
    ),
    // unexpected value '256', expected to be 128
    (
        "discard.L2 [%rd1], 256",
        "size must be the integer constant 128",
    ),
    // Illegal modifier '.L1' for instruction 'discard'
    ("discard.L1 [%rd1], 128", "illegal modifier '.L1'"),
    // .L2 modifier required for instruction 'discard'
    ("discard.global [%rd1], 128", "needs .L2"),
    // State space incorrect for instruction 'discard'
    (
        "discard.shared.L2 [%rd1], 128",
        "illegal modifier '.shared'",
    ),
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
    for (inst, why) in REJECTED {
        match compiles(inst) {
            Ok(()) => panic!("{inst}: accepted"),
            Err(e) => assert!(
                e.contains(why) && e.contains("invalid"),
                "{inst}: expected '{why}', got: {e}"
            ),
        }
    }
}

/// `createpolicy`'s operand counts per kind (§9.7.9.18), as ptxas 13.5 (`-arch=sm_100a`)
/// judges them: the fraction of `.fractional` is optional, `.range` takes all four operands.
/// `.cvt.L2` takes the policy and one access property.
#[test]
fn createpolicy_operand_counts() {
    for inst in [
        "createpolicy.fractional.L2::evict_last.b64 %rd1",
        "createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd1",
        "createpolicy.fractional.L2::evict_last.b64 %rd1, 0.5",
        "createpolicy.range.L2::evict_last.L2::evict_unchanged.b64 %rd1, [%rd2], 64, 128",
        "createpolicy.cvt.L2.b64 %rd1, %rd2",
    ] {
        assert_eq!(compiles(inst), Ok(()), "{inst}");
    }
    for inst in [
        "createpolicy.fractional.L2::evict_last.b64 %rd1, 0.5, 2",
        "createpolicy.range.L2::evict_last.b64 %rd1, [%rd2], 64",
        "createpolicy.range.L2::evict_last.b64 %rd1",
        "createpolicy.cvt.L2.b64 %rd1",
    ] {
        let e = compiles(inst).expect_err(inst);
        assert!(e.contains("expects createpolicy"), "{inst}: {e}");
    }
}
