//! Instruction forms ptxas 13.5 takes that sit next to forms it refuses (`ptxas -arch=sm_90a`,
//! its message in each row's comment): ptxjit loads the first and refuses the second with the
//! line:column of the instruction and words naming what is wrong. Each kernel is one
//! instruction in a fixed frame (line 7).

use ptxjit::host::front_end;

/// A kernel whose line 7 is `inst`, for PTX ISA `version` on sm_90a.
fn kernel(version: &str, inst: &str) -> String {
    format!(
        ".version {version}\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .b16 %h<4>; .reg .b32 %r<8>; .reg .f32 %f<8>; .reg .f64 %fd<4>; .reg .b64 %rd<4>;\n{inst}\nret;\n}}\n"
    )
}

/// Every `accepted` form loads; every `(form, words)` of `refused` fails at k.ptx:7:1 with an
/// error whose message holds `words`.
fn check(version: &str, accepted: &[&str], refused: &[(&str, &str)]) {
    for inst in accepted {
        if let Err(e) = front_end(&kernel(version, inst), "k.ptx") {
            panic!("{inst}: ptxas takes it, but: {e}");
        }
    }
    for (inst, words) in refused {
        let e = front_end(&kernel(version, inst), "k.ptx")
            .err()
            .unwrap_or_else(|| panic!("{inst}: loaded, but ptxas refuses it"));
        let msg = e.to_string();
        assert!(msg.contains("k.ptx:7:1"), "{msg}");
        assert!(msg.contains(words), "{msg} (wanted {words:?})");
    }
}

#[test]
fn cvt_between_f16_and_bf16() {
    check(
        "9.1",
        &[
            "cvt.bf16.f16 %h1, %h0;",
            "cvt.f16.bf16 %h1, %h0;",
            "cvt.rz.f16.bf16 %h1, %h0;",
            "cvt.rm.bf16.f16 %h1, %h0;",
            "cvt.bf16.bf16 %h1, %h0;",
        ],
        &[
            // "Illegal rounding modifier for instruction 'cvt'"
            ("cvt.rni.f16.bf16 %h1, %h0;", "rounding modifier"),
            ("cvt.rn.bf16.bf16 %h1, %h0;", "rounding modifier"),
            // "Illegal modifier '.sat' for instruction 'cvt'"
            ("cvt.sat.bf16.f16 %h1, %h0;", "'.sat'"),
            // "Modifier '.ftz' does not apply to this type of convert operation"
            ("cvt.ftz.f16.bf16 %h1, %h0;", "'.ftz'"),
            // "Unexpected instruction types specified for 'cvt'"
            ("cvt.relu.bf16.f16 %h1, %h0;", "with .relu"),
            ("cvt.rn.satfinite.bf16.f16 %h1, %h0;", ".satfinite"),
        ],
    );
}

#[test]
fn rcp_f64_with_ftz() {
    check(
        "9.1",
        &[
            "rcp.rn.ftz.f64 %fd1, %fd0;",
            "rcp.rz.ftz.f64 %fd1, %fd0;",
            "rcp.rm.ftz.f64 %fd1, %fd0;",
            "rcp.rp.ftz.f64 %fd1, %fd0;",
            "rcp.approx.ftz.f64 %fd1, %fd0;",
        ],
        &[
            // "Rounding modifier or '.approx' modifier required for instruction 'rcp'"
            (
                "rcp.ftz.f64 %fd1, %fd0;",
                "needs .approx (f32) or .rn/.rz/.rm/.rp",
            ),
            // "'.ftz' modifier required for instruction 'rcp.approx.f64'"
            ("rcp.approx.f64 %fd1, %fd0;", "needs .ftz"),
            // "Illegal modifier '.ftz' for instruction 'sqrt'" / 'div'
            ("sqrt.rn.ftz.f64 %fd1, %fd0;", ".ftz applies to .f32 only"),
            ("div.rn.ftz.f64 %fd1, %fd0, %fd0;", ".f32 only"),
        ],
    );
}

#[test]
fn st_async_into_shared_cta() {
    check(
        "9.1",
        &[
            "st.async.shared::cta.mbarrier::complete_tx::bytes.b32 [%r0], %r1, [%r2];",
            "st.async.shared::cta.b64 [%r0], %rd1, [%r2];",
            "st.async.weak.shared::cta.f32 [%r0], %r1, [%r2];",
            "st.async.shared::cta.b32 [%r0], %r1;",
            "st.async.shared::cta.mbarrier::complete_tx::bytes.u64 [%r0], %rd1;",
            "st.async.shared::cta.u16 [%r0], %h1;",
            "st.async.shared::cta.f64 [%rd0], %rd1;",
        ],
        &[
            // "Vector qualifier is not allowed for instruction 'st.async'"
            (
                "st.async.shared::cta.v2.b32 [%r0], {%r1,%r2};",
                "no vector qualifier",
            ),
            // "Modifier '.cluster' requires '.shared::cluster' space for instruction 'st.async'"
            (
                "st.async.cluster.shared::cta.b32 [%r0], %r1;",
                "needs .shared::cluster",
            ),
            // "Arguments mismatch for instruction 'st.async'"
            ("st.async.shared::cta.b16 [%r0], %h1, [%r2];", "'.b16'"),
            ("st.async.shared::cta.b8 [%r0], %h1;", "'.b8'"),
            // "Unexpected instruction types specified for 'st.async'"
            ("st.async.shared::cta.f16 [%r0], %h1;", "'.f16'"),
            // "Unexpected number of state spaces specified in instruction 'st.async'"
            (
                "st.async.shared::cta.shared::cluster.b32 [%r0], %r1, [%r2];",
                "one state space",
            ),
            // "Modifier '.shared::cluster' requires modifier '.completion_mechanism'"
            (
                "st.async.shared::cluster.b32 [%r0], %r1;",
                "needs .mbarrier::complete_tx::bytes",
            ),
        ],
    );
}

#[test]
fn bulk_copy_order_and_scope() {
    let g2s = "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes";
    let ok: Vec<String> = [
        format!("{g2s}.relaxed.gpu.b128 [%r0], [%rd0], 16, [%r1];"),
        format!("{g2s}.relaxed.cta.b128 [%r0], [%rd0], 16, [%r1];"),
        "cp.async.bulk.relaxed.sys.shared::cta.global.mbarrier::complete_tx::bytes.b128 [%r0], [%rd0], 16, [%r1];".to_string(),
        format!("{g2s}.b128 [%r0], [%rd0], 16, [%r1];"),
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.relaxed.cluster.b128 [%r0], [%r2], 16, [%r1];".to_string(),
        "cp.async.bulk.global.shared::cta.bulk_group.relaxed.gpu.b128 [%rd0], [%r0], 16;".to_string(),
    ]
    .into();
    let bad: Vec<(String, &str)> = vec![
        // "Modifier '.relaxed' requires scope with 'cp.async.bulk' instruction"
        (
            format!("{g2s}.relaxed.b128 [%r0], [%rd0], 16, [%r1];"),
            "needs a scope",
        ),
        // "Modifier '.cta' requires modifier '.order'"
        (
            format!("{g2s}.cta.b128 [%r0], [%rd0], 16, [%r1];"),
            "needs the order .relaxed",
        ),
        // "Illegal modifier '.release' for instruction 'cp.async.bulk'"
        (
            format!("{g2s}.release.cta.b128 [%r0], [%rd0], 16, [%r1];"),
            "'.release'",
        ),
        // "Illegal modifier '.weak' for instruction 'cp.async.bulk' with '.b128'"
        (
            format!("{g2s}.weak.b128 [%r0], [%rd0], 16, [%r1];"),
            "'.weak'",
        ),
        // "Instruction 'cp.async.bulk' requires '.b128' type with '.relaxed' modifier"
        (
            format!("{g2s}.relaxed.cta [%r0], [%rd0], 16, [%r1];"),
            "needs the element type .b128",
        ),
        // "Unexpected instruction types specified for 'cp.async.bulk'"
        (
            format!("{g2s}.relaxed.cta.b64 [%r0], [%rd0], 16, [%r1];"),
            "needs the element type .b128",
        ),
        // "Multiple scope modifiers specified"
        (
            format!("{g2s}.relaxed.cta.gpu.b128 [%r0], [%rd0], 16, [%r1];"),
            "one scope",
        ),
        // "Illegal modifier '.relaxed' for instruction 'cp.async'"
        (
            "cp.async.ca.shared.global.relaxed.cta.b128 [%r0], [%rd0], 16;".to_string(),
            "cp.async.bulk only",
        ),
    ];
    let ok: Vec<&str> = ok.iter().map(String::as_str).collect();
    let bad: Vec<(&str, &str)> = bad.iter().map(|(i, w)| (i.as_str(), *w)).collect();
    check("9.3", &ok, &bad);
    // "Feature 'cp.async.bulk.cluster' requires PTX ISA .version 9.3 or later"
    check(
        "9.2",
        &[&format!("{g2s}.b128 [%r0], [%rd0], 16, [%r1];")],
        &[(
            &format!("{g2s}.relaxed.gpu.b128 [%r0], [%rd0], 16, [%r1];"),
            "requires PTX ISA 9.3",
        )],
    );
}

#[test]
fn wgmma_layout_words() {
    let d = "{%f0,%f1,%f2,%f3}, %rd0, %rd1, 1, 1, 1";
    let ok: Vec<String> = vec![
        format!("wgmma.mma_async.sync.aligned.m64n8k16.row.col.f32.f16.f16 {d}, 0, 0;"),
        format!("wgmma.mma_async.sync.aligned.m64n8k16.col.row.f32.f16.f16 {d}, 1, 1;"),
        format!("wgmma.mma_async.sync.aligned.m64n8k16.col.f32.f16.f16 {d}, 0, 0;"),
        format!("wgmma.mma_async.row.col.sync.aligned.m64n8k16.f32.f16.f16 {d}, 0, 0;"),
        format!("wgmma.mma_async.sync.aligned.m64n8k8.row.col.f32.tf32.tf32 {d};"),
        "wgmma.mma_async.sync.aligned.m64n8k32.row.col.s32.s8.s8 {%r0,%r1,%r2,%r3}, %rd0, %rd1, 1;"
            .to_string(),
    ];
    let bad: Vec<(String, &str)> = vec![
        // "Parsing error near '.row': too many layout specifiers"
        (
            format!("wgmma.mma_async.sync.aligned.m64n8k16.row.col.row.f32.f16.f16 {d}, 0, 0;"),
            "too many layout words",
        ),
        // "Illegal modifier '.alayout or .blayout' for instruction 'wgmma.fence'"
        (
            "wgmma.fence.row.sync.aligned;".to_string(),
            "takes only .sync.aligned",
        ),
    ];
    let ok: Vec<&str> = ok.iter().map(String::as_str).collect();
    let bad: Vec<(&str, &str)> = bad.iter().map(|(i, w)| (i.as_str(), *w)).collect();
    check("9.1", &ok, &bad);
}

#[test]
fn createpolicy_cvt() {
    check(
        "8.0",
        &[
            "createpolicy.cvt.L2.b64 %rd1, %rd0;",
            "createpolicy.cvt.L2.b64 %rd1, 5;",
            "createpolicy.cvt.L2.b64 %rd1, -1;",
        ],
        &[
            // ".L2 modifier required for instruction 'createpolicy.cvt'"
            ("createpolicy.cvt.b64 %rd1, %rd0;", "needs .L2"),
            // "Illegal modifier '.evict_last' for instruction 'createpolicy.cvt'"
            (
                "createpolicy.cvt.L2::evict_last.b64 %rd1, %rd0;",
                "illegal modifier '.L2::evict_last'",
            ),
            // "Illegal modifier '.L1' for instruction 'createpolicy.cvt'"
            (
                "createpolicy.cvt.L1.b64 %rd1, %rd0;",
                "illegal modifier '.L1'",
            ),
            // "No state space qualifier expected for instruction 'createpolicy.cvt'"
            (
                "createpolicy.cvt.L2.global.b64 %rd1, %rd0;",
                "illegal modifier '.global'",
            ),
            // "Unexpected instruction types specified for 'createpolicy.cvt'"
            (
                "createpolicy.cvt.L2.b32 %rd1, %rd0;",
                "illegal modifier '.b32'",
            ),
            (
                "createpolicy.cvt.L2.u64 %rd1, %rd0;",
                "illegal modifier '.u64'",
            ),
            // "Arguments mismatch for instruction 'createpolicy.cvt'"
            ("createpolicy.cvt.L2.b64 %rd1;", "expects createpolicy"),
            (
                "createpolicy.cvt.L2.b64 %rd1, %rd0, %rd0;",
                "expects createpolicy",
            ),
            ("createpolicy.cvt.L2.b64 %rd1, [%rd0];", "access property"),
            ("createpolicy.cvt.L2.b64 %rd1, %r0;", "access property"),
            ("createpolicy.cvt.L2.b64 %rd1, 1.0;", "access property"),
            // "Multiple cache operation modifiers specified"
            (
                "createpolicy.cvt.L2.L2.b64 %rd1, %rd0;",
                "'.L2' given twice",
            ),
            // "Illegal modifier '.L2' for instruction 'createpolicy.fractional' with
            // '.level::eviction_priority'"
            (
                "createpolicy.fractional.L2::evict_last.L2.b64 %rd1;",
                "createpolicy.cvt only",
            ),
        ],
    );
}

/// `createpolicy.range` and `.fractional` (§9.7.9.18): `.global` only on `.range`, a
/// secondary priority only `.L2::evict_first` or `.L2::evict_unchanged`, no `.L1::*`.
#[test]
fn createpolicy_range_fractional_words() {
    check(
        "8.0",
        &[
            "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd0], 64, 128;",
            "createpolicy.range.L2::evict_last.global.b64 %rd1, [%rd0], 64, 128;",
            "createpolicy.range.L2::evict_normal.L2::evict_first.b64 %rd1, [%rd0], 64, 128;",
            "createpolicy.fractional.L2::evict_unchanged.L2::evict_first.b64 %rd1;",
            "createpolicy.fractional.L2::evict_first.L2::evict_first.b64 %rd1;",
            "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd1, 0.5;",
            "createpolicy.fractional.L2::evict_normal.b64 %rd1;",
        ],
        &[
            // "State space incorrect for instruction 'createpolicy.range'"
            (
                "createpolicy.range.shared.L2::evict_last.b64 %rd1, [%rd0], 64, 128;",
                "is .global, not '.shared'",
            ),
            // "Unexpected number of state spaces specified in instruction 'createpolicy.range'"
            (
                "createpolicy.range.global.global.L2::evict_last.b64 %rd1, [%rd0], 64, 128;",
                "'.global' given twice",
            ),
            // "No state space qualifier expected for instruction 'createpolicy.fractional'"
            (
                "createpolicy.fractional.global.L2::evict_last.b64 %rd1;",
                "no state space ('.global')",
            ),
            // "Modifier 'cache eviction priority' requires cache level L2 with
            // 'createpolicy.fractional' instruction"
            (
                "createpolicy.fractional.L1::evict_last.b64 %rd1;",
                "'.L1::evict_last' of 'createpolicy.fractional' must be of cache level L2",
            ),
            (
                "createpolicy.range.L1::evict_last.b64 %rd1, [%rd0], 64, 128;",
                "must be of cache level L2",
            ),
            // "Unsupported modifier '.evict_last' as secondary_priority"
            (
                "createpolicy.fractional.L2::evict_last.L2::evict_last.b64 %rd1;",
                "secondary eviction priority",
            ),
            (
                "createpolicy.range.L2::evict_first.L2::evict_normal.b64 %rd1, [%rd0], 64, 128;",
                "not '.L2::evict_normal'",
            ),
            // "cache eviction priority modifier required"
            ("createpolicy.fractional.b64 %rd1;", "needs an eviction priority"),
            // "Unexpected number of 'cache eviction priority' modifiers specified"
            (
                "createpolicy.fractional.L2::evict_first.L2::evict_unchanged.L2::evict_first.b64 %rd1;",
                "at most two eviction priorities",
            ),
            // "Unexpected instruction types specified for 'createpolicy.fractional'"
            (
                "createpolicy.fractional.L2::evict_last.u64 %rd1;",
                "illegal modifier '.u64'",
            ),
            (
                "createpolicy.fractional.L2::evict_last.b64.b64 %rd1;",
                "takes the type .b64 once",
            ),
            // "Unknown modifier '.range'"
            (
                "createpolicy.fractional.range.L2::evict_last.b64 %rd1;",
                "illegal modifier '.range'",
            ),
            // "Illegal modifier '.L2::cache_hint' for instruction 'createpolicy.fractional'"
            (
                "createpolicy.fractional.L2::evict_last.L2::cache_hint.b64 %rd1;",
                "illegal modifier '.L2::cache_hint'",
            ),
        ],
    );
}

#[test]
fn bulk_reduction_order_and_scope() {
    let g = "cp.reduce.async.bulk.global.shared::cta.bulk_group";
    let c = "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes";
    let accepted: Vec<String> = ["cta", "cluster", "gpu", "sys"]
        .iter()
        .map(|s| format!("{g}.relaxed.{s}.add.u32 [%rd1], [%r1], 64;"))
        .chain([
            format!("{g}.relaxed.gpu.add.noftz.f16 [%rd1], [%r1], 64;"),
            format!("{g}.relaxed.sys.and.b64 [%rd1], [%r1], 64;"),
            format!("{c}.relaxed.cluster.add.u32 [%r1], [%r2], 64, [%r3];"),
            format!("{c}.relaxed.cta.min.s32 [%r1], [%r2], 64, [%r3];"),
            format!("{g}.add.u32 [%rd1], [%r1], 64;"),
        ])
        .collect();
    let accepted: Vec<&str> = accepted.iter().map(String::as_str).collect();
    let refused = [
        // "Modifier '.relaxed' requires scope with 'cp.reduce.async.bulk' instruction"
        (
            format!("{g}.relaxed.add.u32 [%rd1], [%r1], 64;"),
            "needs a scope",
        ),
        // "Modifier '.gpu' requires modifier '.order'"
        (
            format!("{g}.gpu.add.u32 [%rd1], [%r1], 64;"),
            "needs the order .relaxed",
        ),
        (
            format!("{g}.release.gpu.add.u32 [%rd1], [%r1], 64;"),
            "'.release'",
        ),
        (
            format!("{g}.acquire.gpu.add.u32 [%rd1], [%r1], 64;"),
            "'.acquire'",
        ),
        // "Illegal modifier '.weak' for instruction 'cp.reduce.async.bulk'"
        (format!("{g}.weak.add.u32 [%rd1], [%r1], 64;"), "'.weak'"),
        // "Multiple scope modifiers specified"
        (
            format!("{g}.relaxed.gpu.cta.add.u32 [%rd1], [%r1], 64;"),
            "one scope",
        ),
        // "Duplicate .relaxed modifier"
        (
            format!("{g}.relaxed.gpu.relaxed.add.u32 [%rd1], [%r1], 64;"),
            "'.relaxed'",
        ),
        // "Illegal modifier '.gpu' for instruction 'cp.reduce.async.bulk' with
        // '.relaxed.shared::cluster.shared::cta'"
        (
            format!("{c}.relaxed.gpu.add.u32 [%r1], [%r2], 64, [%r3];"),
            "'.gpu' is no scope",
        ),
        (
            format!("{c}.relaxed.sys.add.u32 [%r1], [%r2], 64, [%r3];"),
            "'.sys' is no scope",
        ),
    ];
    let refused: Vec<(&str, &str)> = refused.iter().map(|(i, w)| (i.as_str(), *w)).collect();
    check("9.3", &accepted, &refused);
    // "Feature 'cp.reduce.async.bulk.gpu' requires PTX ISA .version 9.3 or later"
    check(
        "9.2",
        &[],
        &[(
            &format!("{g}.relaxed.gpu.add.u32 [%rd1], [%r1], 64;"),
            "9.3",
        )],
    );
}

/// Labels are scoped to their `{ }` block: an inner block may define a label an outer or a
/// sibling block defines, and uses it sees; a use outside the defining block is an error at
/// the use's line:column (a duplicate in one block: at the second definition's).
#[test]
fn label_scopes() {
    check(
        "8.0",
        &[
            "L1: add.s32 %r1, %r1, 1; { L1: add.s32 %r1, %r1, 1; bra.uni L1; }",
            "{ L1: add.s32 %r1, %r1, 1; } { L1: add.s32 %r1, %r1, 1; bra.uni L1; }",
            "{ L1: add.s32 %r1, %r1, 1; { bra.uni L1; } }",
            "{ bra.uni L1; } L1: add.s32 %r1, %r1, 1;",
            // Labels and variables share a namespace per block: the nearest declaration
            // decides what a name is.
            "{ lp: bra.uni lp; } { .reg .b32 lp; mov.u32 lp, 1; }",
            ".reg .b32 lp; { lp: bra.uni lp; } mov.u32 lp, 1;",
            "{ W: bra.uni W; } { W: bra.uni W; } .reg .b32 W; mov.u32 W, 1;",
            ".reg .b32 W; { W: bra.uni W; } { W: bra.uni W; } add.u32 W, W, 1;",
            ".reg .b32 W; { W: bra.uni W; { .reg .b32 W; mov.u32 W, 2; } }",
        ],
        &[],
    );
    for (inst, at, words) in [
        // "Unknown symbol 'L1'"
        (
            "bra.uni L1; { L1: add.s32 %r1, %r1, 1; }",
            "k.ptx:7:9",
            "label 'L1' is not visible here",
        ),
        (
            "{ bra.uni L2; } { L2: add.s32 %r1, %r1, 1; }",
            "k.ptx:7:11",
            "label 'L2' is not visible here",
        ),
        // "Duplicate definition of label 'L1'"
        (
            "{ L1: add.s32 %r1, %r1, 1; L1: add.s32 %r1, %r1, 1; }",
            "k.ptx:7:28",
            "label 'L1' defined twice",
        ),
        // The same in the second of two blocks defining `W` (renamed inside ptxjit): the
        // message names `W` as written.
        (
            "{ W: add.s32 %r1, %r1, 1; } { W: add.s32 %r1, %r1, 1; W: add.s32 %r1, %r1, 1; }",
            "k.ptx:7:55",
            "label 'W' defined twice",
        ),
        // "Duplicate definition of label 'lp'"
        (
            "{ .reg .b32 lp; lp: mov.u32 lp, 1; }",
            "k.ptx:7:13",
            "duplicate definition of 'lp'",
        ),
        // "Arguments mismatch for instruction 'setp'": the block's label hides the register.
        (
            ".reg .pred q; .reg .b32 W; { W: setp.eq.u32 q, W, 3; }",
            "k.ptx:7:48",
            "hides the variable",
        ),
        // "Label expected for argument 0 of instruction 'bra'"
        (
            ".reg .b32 W; { W: bra.uni W; { .reg .b32 W; bra.uni W; } }",
            "k.ptx:7:53",
            "is a variable",
        ),
        // "Unknown symbol 'lp'"
        (
            "{ .reg .b32 lp; mov.u32 lp, 1; } { lp: bra.uni lp; } bra.uni lp;",
            "k.ptx:7:62",
            "label 'lp' is not visible here",
        ),
    ] {
        let e = front_end(&kernel("8.0", inst), "k.ptx")
            .err()
            .unwrap_or_else(|| panic!("{inst}: loaded, but ptxas refuses it"));
        let msg = e.to_string();
        assert!(msg.contains(at) && msg.contains(words), "{inst}: {msg}");
        assert!(
            !msg.contains('#'),
            "{inst}: a label renamed inside ptxjit: {msg}"
        );
    }
}
