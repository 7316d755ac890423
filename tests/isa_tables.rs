//! The PTX ISA instruction tables (`ptx-tests/isa/*.isa`, one trial per file) and the
//! generated checks (exhaustive 8/16-bit forms, seeded random inputs against independent host
//! references), each run on every engine. See `tests/isa/harness.rs` for the table format.

#[path = "isa/generated.rs"]
mod generated;
#[path = "isa/harness.rs"]
mod harness;
#[path = "isa/warpgroup.rs"]
mod warpgroup;

use libtest_mimic::{Arguments, Trial};
use std::path::PathBuf;

fn main() {
    let args = Arguments::from_args();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ptx-tests/isa");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "isa"));
    files.sort();
    let mut trials = vec![];
    for f in files {
        let name = format!(
            "isa/{}",
            f.file_stem().and_then(|s| s.to_str()).unwrap_or("?")
        );
        trials.push(Trial::test(name, move || {
            let text = std::fs::read_to_string(&f).map_err(|e| e.to_string())?;
            let t = harness::parse_file(&text).map_err(|e| format!("{}: {e}", f.display()))?;
            let scalar = harness::run_groups(&t.groups);
            let warp = harness::run_warp_groups(&t.warps);
            match (scalar, warp) {
                (Ok(()), Ok(())) => Ok(()),
                (Err(a), Ok(())) | (Ok(()), Err(a)) => Err(a.into()),
                (Err(a), Err(b)) => Err(format!("{a}\n\n{b}").into()),
            }
        }));
    }
    for (name, make) in generated::ALL {
        trials.push(Trial::test(format!("gen/{name}"), move || {
            harness::run_groups(&make()).map_err(Into::into)
        }));
    }
    trials.push(Trial::test("harness/warp_mismatches_reported", || {
        warp_mismatches_reported().map_err(Into::into)
    }));
    trials.push(Trial::test("harness/outcomes_checked", || {
        outcomes_checked().map_err(Into::into)
    }));
    trials.push(Trial::test("harness/warp_table_errors", || {
        warp_table_errors().map_err(Into::into)
    }));
    trials.push(Trial::test("harness/texture_objects", || {
        texture_objects().map_err(Into::into)
    }));
    trials.push(Trial::test(
        "harness/modifier_words_are_not_registers",
        || modifier_words_are_not_registers().map_err(Into::into),
    ));
    libtest_mimic::run(&args, trials).exit();
}

/// A word after `::` is part of a modifier (`.shared::cta`), never a register, even where a
/// register of the table has that name; the same word as an operand is one.
fn modifier_words_are_not_registers() -> Result<(), String> {
    let got = harness::registers(
        "@!cta mma.sp::ordered_metadata.sync.kind::f8f6f4 {d}, cta, [bytes+4], %tid.x",
        &[
            "cta",
            "d",
            "ordered_metadata",
            "f8f6f4",
            "sync",
            "bytes",
            "tid",
            "x",
        ],
    );
    let want = "@!%cta mma.sp::ordered_metadata.sync.kind::f8f6f4 {%d}, %cta, [%bytes+4], %tid.x";
    if got != want {
        return Err(format!("registers: {got}\n(expected {want})"));
    }
    // End to end: a register named `cta` beside `.shared::cta` loads the word at its offset.
    let table = ">>> ld.shared::cta.u32 d, [cta] :: d:u32 <- cta:sptr ; shared 16\n\
                 case\ninit 0x0: 0x11 0x22 0x33 0x44\n0: 0x8 -> 0x33\n1: 0xc -> 0x44\n";
    let t = harness::parse_file(table)?;
    harness::run_warp_groups(&t.warps)
}

/// A warp table with one wrong register value and one wrong memory word fails on every
/// engine, naming the row's line, lane and register, and the memory offset; lanes without a
/// row do not run the PTX (their bytes stay as they were).
fn warp_mismatches_reported() -> Result<(), String> {
    let table = "\
>>> st.shared.u32 [p], a; add.u32 d, a, 1 :: d:u32 <- p:sptr a:u32 ; shared 16
case
init 0x0: 1 2 3 4
0: 0 10 -> 11
1: 4 20 -> 22
expect 0x0: 10 20
";
    let t = harness::parse_file(table)?;
    let Err(e) = harness::run_warp_groups(&t.warps) else {
        return Err("a wrong expected value passed".into());
    };
    let want = "line 5 (case of line 2, lane 1): d = 0x15 (expected 0x16)";
    if e.matches(want).count() != harness::ENGINES.len() {
        return Err(format!("'{want}' not reported once per engine:\n{e}"));
    }
    if e.contains("shared byte") {
        return Err(format!("a right memory word was reported:\n{e}"));
    }
    let wrong_mem = table.replace("expect 0x0: 10 20", "expect 0x0: 10 21");
    let t = harness::parse_file(&wrong_mem)?;
    let e = harness::run_warp_groups(&t.warps).err().unwrap_or_default();
    let want = "case of line 2: shared byte 0x4 = 0x00000014 (expected 0x00000015, expect line 6)";
    if e.matches(want).count() != harness::ENGINES.len() {
        return Err(format!("'{want}' not reported once per engine:\n{e}"));
    }
    // Lane 1 alone: lane 0 does not store, its word keeps its initial value.
    let one_lane = "\
>>> st.shared.u32 [p], a :: <- p:sptr a:u32 ; shared 8
case
1: 4 20 ->
expect 0x4: 20
";
    let t = harness::parse_file(one_lane)?;
    harness::run_warp_groups(&t.warps)?;
    // Two images: a word copied from the global image to the shared one; a wrong expectation
    // names the image and its offset.
    let two = "\
>>> ld.global.u32 t, [g]; st.shared.u32 [p], t :: <- g:gptr p:sptr ; shared 8 ; global 8 ; regs t:u32
case
init global 0x4: 77
init shared 0x0: 5 6
0: 4 4 ->
expect shared 0x4: 77
";
    let t = harness::parse_file(two)?;
    harness::run_warp_groups(&t.warps)?;
    // Two warps: lane rows 32..63 are the second warp's threads; a descriptor's start address
    // is the image offset plus the image's shared address >> 4.
    let warps = "\
>>> mov.u32 d, %tid.x; mov.u32 t, isa_smem; cvt.u64.u32 r, t; shr.u64 r, r, 4; sub.u64 e, q, r :: d:u32 e:b64 <- s:sptr q:sdesc ; shared 64 ; warps 2 ; regs t:u32 r:b64
case
0: 0x0 0x4000000000000003 -> 0 0x4000000000000003
40: 0x20 0x2 -> 40 0x2
";
    let t = harness::parse_file(warps)?;
    harness::run_warp_groups(&t.warps)?;
    let t = harness::parse_file(&warps.replace("-> 40 0x2", "-> 41 0x2"))?;
    let e = harness::run_warp_groups(&t.warps).err().unwrap_or_default();
    let want = "line 4 (case of line 2, lane 40): d = 0x28 (expected 0x29)";
    if e.matches(want).count() != harness::ENGINES.len() {
        return Err(format!("'{want}' not reported once per engine:\n{e}"));
    }
    // A cluster of two: rank 1's lane is named `1.L`, its word `rank 1`.
    let ranks = "\
>>> mov.u32 d, %cluster_ctarank; st.shared.u32 [p], d :: d:u32 <- p:sptr ; shared 8 ; cluster 2
case
0: 0 -> 0
1.3: 4 -> 0
expect rank 1 0x4: 1
";
    let t = harness::parse_file(ranks)?;
    let e = harness::run_warp_groups(&t.warps).err().unwrap_or_default();
    for want in ["(case of line 2, lane 1.3): d = 0x1 (expected 0x0)"] {
        if e.matches(want).count() != harness::ENGINES.len() {
            return Err(format!("'{want}' not reported once per engine:\n{e}"));
        }
    }
    // Clusters of CTAs of two warps: `R.L` with L up to 63.
    let wide = "\
>>> mov.u32 d, %cluster_ctarank; mov.u32 e, %tid.x :: d:u32 e:u32 <- ; warps 2 ; cluster 2
case
0.5: -> 0 5
1.40: -> 1 41
";
    let t = harness::parse_file(wide)?;
    let e = harness::run_warp_groups(&t.warps).err().unwrap_or_default();
    let want = "(case of line 2, lane 1.40): e = 0x28 (expected 0x29)";
    if e.matches(want).count() != harness::ENGINES.len() || e.matches("wrong results").count() != 2
    {
        return Err(format!("'{want}' not reported once per engine:\n{e}"));
    }
    let t = harness::parse_file(
        &ranks
            .replace("1.3: 4 -> 0", "1.3: 4 -> 1")
            .replace(": 1\n", ": 2\n"),
    )?;
    let e = harness::run_warp_groups(&t.warps).err().unwrap_or_default();
    let want =
        "case of line 2: rank 1 shared byte 0x4 = 0x00000001 (expected 0x00000002, expect line 5)";
    if e.matches(want).count() != harness::ENGINES.len() {
        return Err(format!("'{want}' not reported once per engine:\n{e}"));
    }
    let t = harness::parse_file(&two.replace("expect shared 0x4: 77", "expect global 0x0: 1"))?;
    let e = harness::run_warp_groups(&t.warps).err().unwrap_or_default();
    for want in [
        "case of line 2: global byte 0x0 = 0x00000000 (expected 0x00000001, expect line 6)",
        "case of line 2: shared byte 0x4 = 0x0000004d (expected 0x00000006, unchanged)",
    ] {
        if e.matches(want).count() != harness::ENGINES.len() {
            return Err(format!("'{want}' not reported once per engine:\n{e}"));
        }
    }
    Ok(())
}

/// Malformed warp tables are errors naming the line.
fn warp_table_errors() -> Result<(), String> {
    let cases = [
        (
            ">>> activemask.b32 d :: d:b32 <-\n0: -> 0x1\n",
            "line 2: row before any 'case'",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <-\ncase\n3: -> 1\n2: -> 1\n",
            "line 4: lane 2 after a later lane",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <-\ncase\n32: -> 1\n",
            "line 3: bad lane '32'",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <-\n",
            "line 1: warp group without cases",
        ),
        (
            ">>> ld.u32 d, [p] :: d:u32 <- p:sptr\ncase\n",
            "line 1: 'p' points into memory",
        ),
        (
            ">>> ld.shared.u32 d, [p] :: d:u32 <- p:sptr ; shared 8\ncase\ninit 0x4: 1 2\n",
            "line 3: words past the 8-byte image",
        ),
        (
            ">>> ld.shared.u32 d, [p] :: d:u32 <- p:sptr ; shared 8 ; global 8\ncase\ninit 0x0: 1\n",
            "line 3: two images: say 'shared' or 'global'",
        ),
        (
            ">>> ld.shared.u32 d, [p] :: d:u32 <- p:sptr ; shared 8 ; shared 8\ncase\n",
            "line 1: two shared images",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <- ; warps 0\ncase\n",
            "line 1: 'warps N' needs 1 <= N <= 32, not '0'",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <- ; warps 2\ncase\n64: -> 1\n",
            "line 3: bad lane '64'",
        ),
        (
            ">>> mov.b64 d, q :: d:b64 <- q:sdesc\ncase\n",
            "line 1: 'q' points into memory",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <- ; warps 2 ; cluster 2\ncase\n1.64: -> 1\n",
            "line 3: bad lane '1.64'",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <- ; cluster 9\ncase\n",
            "line 1: cluster size '9' (1 to 8 CTAs)",
        ),
        (
            ">>> ld.shared.u32 d, [p] :: d:u32 <- p:sptr ; shared 8 ; cluster 2\ncase\ninit rank 2 0x0: 1\n",
            "line 3: bad rank '2' (cluster of 2)",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <- ; cluster 2\ncase\n2.0: -> 1\n",
            "line 3: bad lane '2.0'",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <- ; global 64 ; tensormap dims=4 box=4 elem=u9\ncase\n",
            "line 1: element type 'u9'",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <- ; global 64 ; tensormap dims=32 box=4 elem=u32\ncase\n",
            "line 1: the tensor map's 128 bytes do not fit the global image",
        ),
        (
            ">>> trap :: <- ; rejects trap\ncase\n0: ->\n",
            "line 1: a 'rejects' group has no cases",
        ),
        (
            ">>> trap :: <- ; fault\ncase\n0: ->\n",
            "line 1: 'fault' needs the text the error must contain",
        ),
        (
            ">>> call f :: <-\ncase\nfunc .func f() { ret; }\n",
            "line 3: 'func' after a 'case'",
        ),
        (
            ">>> activemask.b32 d :: d:b32 <- t:tmap ; global 64\ncase\n",
            "line 1: 't' points into memory the header does not declare",
        ),
        (
            ">>> txq.width.b32 d, [t] :: d:b32 <- t:obj ; global 64\ncase\n",
            "line 1: 't' points into memory the header does not declare",
        ),
        (
            ">>> txq.width.b32 d, [t] :: d:b32 <- t:obj ; global 64 ; texture t kind=2d fmt=f32x4 size=3x2\ncase\n",
            "line 1: texture 't' needs 96 bytes of the global image, which has 64",
        ),
        (
            ">>> txq.width.b32 d, [t] :: d:b32 <- t:obj ; global 64 ; texture t kind=2d fmt=f32x4 size=2x2 at=16\ncase\n",
            "line 1: texture 't' needs 80 bytes of the global image, which has 64",
        ),
        (
            ">>> txq.width.b32 d, [t] :: d:b32 <- t:obj ; global 64 ; texture t kind=4d fmt=f32x4 size=2\ncase\n",
            "line 1: kind '4d'",
        ),
        (
            ">>> txq.width.b32 d, [t] :: d:b32 <- t:obj ; global 64 ; texture t kind=2d fmt=f32x3 size=2x2\ncase\n",
            "line 1: 3 channels",
        ),
        (
            ">>> suq.width.b32 d, [t] :: d:b32 <- t:obj ; global 64 ; surface t kind=1d fmt=u8x1 size=4 filter=linear\ncase\n",
            "line 1: a surface has no sampler state ('filter')",
        ),
        (
            ">>> txq.width.b32 d, [t] :: d:b32 <- t:obj ; sampler t size=4\ncase\n",
            "line 1: a sampler has no resource ('size')",
        ),
        (
            ">>> txq.width.b32 d, [t] :: d:b32 <- t:obj ; global 64 ; texture kind=1d fmt=u8x1 size=4\ncase\n",
            "line 1: an object clause starts with its name",
        ),
    ];
    for (text, want) in cases {
        match harness::parse_file(text) {
            Ok(_) => return Err(format!("accepted:\n{text}")),
            Err(e) if !e.contains(want) => return Err(format!("'{e}' lacks '{want}'")),
            Err(_) => {}
        }
    }
    Ok(())
}

/// Texture clauses: each case gets its own objects over its own image (a wrong texel is
/// reported per case and engine), `obj` values name the clauses in order, and a group with a
/// module variable (`ref`) has one case.
fn texture_objects() -> Result<(), String> {
    let table = "\
>>> tex.1d.v4.u32.s32 {r, g, b, a}, [t, {x}]; txq.width.b32 w, [t] :: r:u32 g:u32 b:u32 a:u32 w:b32 <- t:obj x:s32 ; global 128 ; texture t0 kind=1d fmt=u32x1 size=4 ; texture t1 kind=1d fmt=u32x1 size=2 at=16
case
init global 0x0: 10 11 12 13 20 21
0: 0 2 -> 12 0 0 1 4
1: 1 1 -> 21 0 0 1 2
case
init global 0x0: 30 31 32 33 40 41
0: 0 3 -> 33 0 0 1 4
1: 1 5 -> 41 0 0 1 2
";
    let t = harness::parse_file(table)?;
    harness::run_warp_groups(&t.warps)?;
    let t = harness::parse_file(&table.replace("1: 1 5 -> 41", "1: 1 5 -> 40"))?;
    let e = harness::run_warp_groups(&t.warps).err().unwrap_or_default();
    let want = "line 9 (case of line 6, lane 1): r = 0x29 (expected 0x28)";
    if e.matches(want).count() != harness::ENGINES.len() {
        return Err(format!("'{want}' not reported once per engine:\n{e}"));
    }
    let t = harness::parse_file(&table.replace("0: 0 3", "0: 2 3"))?;
    let e = harness::run_warp_groups(&t.warps).err().unwrap_or_default();
    if !e.contains("obj input 2: the header has 2 object clauses") {
        return Err(format!(
            "an obj value past the clauses was not refused:\n{e}"
        ));
    }
    let by_name = "\
>>> txq.width.b32 w, [tr] :: w:b32 <- ; global 64 ; texture tr kind=1d fmt=u8x1 size=5 ref
case
0: -> 5
case
0: -> 5
";
    let t = harness::parse_file(by_name)?;
    let e = harness::run_warp_groups(&t.warps).err().unwrap_or_default();
    if !e.contains("a group with a 'ref' object clause has exactly one case") {
        return Err(format!("two cases of a 'ref' group were not refused:\n{e}"));
    }
    let t = harness::parse_file(&by_name[..by_name.len() - "case\n0: -> 5\n".len()])?;
    harness::run_warp_groups(&t.warps)
}

/// `; fault`, `; rejects` and `func` lines: a group whose launch completes where a fault was
/// expected fails, as does a fault with another report, a module that loads where a rejection
/// was expected, and a rejection with another message; a called `func` runs.
fn outcomes_checked() -> Result<(), String> {
    let must_fail = [
        (
            ">>> @p trap :: <- p:pred ; fault trap\ncase\n0: 0 ->\n",
            "the launch completed; expected a fault containing 'trap'",
        ),
        (
            ">>> @p trap :: <- p:pred ; fault out of bounds\ncase\n0: 1 ->\n",
            "lacks 'out of bounds'",
        ),
        (
            ">>> setmaxnreg.inc.sync.aligned.u32 32 :: <- ; warps 4 ; rejects multiple of 8\n",
            "loaded; expected an error containing 'multiple of 8'",
        ),
        (
            ">>> setmaxnreg.inc.sync.aligned.u32 20 :: <- ; warps 4 ; rejects no such text\n",
            "lacks 'no such text'",
        ),
    ];
    for (text, want) in must_fail {
        let text = format!(".target sm_90a\n{text}");
        let t = harness::parse_file(&text)?;
        match harness::run_warp_groups(&t.warps) {
            Ok(()) => return Err(format!("passed:\n{text}")),
            Err(e) if e.matches(want).count() != harness::ENGINES.len() => {
                return Err(format!("'{want}' not reported once per engine:\n{e}"))
            }
            Err(_) => {}
        }
    }
    let call = "\
>>> call (d), isa_f, (a) :: d:u32 <- a:u32
func .func (.param .u32 r) isa_f(.param .u32 x) { .reg .u32 %t; ld.param.u32 %t, [x]; add.u32 %t, %t, 5; st.param.u32 [r], %t; ret; }
case
0: 1 -> 6
";
    let t = harness::parse_file(call)?;
    harness::run_warp_groups(&t.warps)?;
    let t = harness::parse_file(&call.replace("-> 6", "-> 7"))?;
    if harness::run_warp_groups(&t.warps).is_ok() {
        return Err("a wrong value from a called function passed".into());
    }
    Ok(())
}
