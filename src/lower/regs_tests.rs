//! Register declarations (PTX ISA §5.4): parameterized declarations `.reg .T %r<N>`
//! (§5.4.6) kept as ranges, with a variable only for the names the kernel's instructions
//! use, and the errors of registers used undeclared, past a range or declared twice, with
//! ptxas 13's verdict in the comments.

use crate::host::{front_end, Context, Engine, Error};
use crate::ptx::span::SourceMap;

/// A module whose kernel `k(.param .u64 p)` has `body` before its `ret`.
fn kernel(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .entry k(.param .u64 p)\n{{\n{body}\nret;\n}}\n"
    )
}

/// The variables lowering made for the one kernel of `ptx`.
fn variables(ptx: &str) -> usize {
    let map = SourceMap::new("k.ptx", ptx);
    let ast = crate::ptx::parse(ptx).expect("parses");
    let n = super::variables_per_kernel(&ast, &map).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(n.len(), 1);
    n[0]
}

/// The message of loading `body`'s kernel, which must be invalid PTX.
fn invalid(body: &str) -> String {
    match front_end(&kernel(body), "k.ptx") {
        Err(Error::Invalid(m)) => m,
        Err(e) => panic!("{body}: {e:?}"),
        Ok(_) => panic!("{body}: loaded"),
    }
}

#[test]
fn a_million_declared_registers_make_variables_only_for_those_used() {
    // ptxas: accepted. Before, each declared name was formatted and given a variable
    // (1 048 576 of them: 1.5 s and 242 MB of lowering for one used register).
    let big = kernel(
        ".reg .b32 %r<1048576>;\n.reg .b64 %rd<1048576>;\n.reg .pred %p<1048576>;\n\
         ld.param.u64 %rd1048575, [p];\nmov.u32 %r1048575, 7;\n\
         setp.ne.u32 %p9, %r1048575, 0;\n@%p9 st.global.u32 [%rd1048575], %r1048575;",
    );
    let small = kernel(
        ".reg .b32 %r<1>;\n.reg .b64 %rd<1>;\n.reg .pred %p<1>;\n\
         ld.param.u64 %rd0, [p];\nmov.u32 %r0, 7;\n\
         setp.ne.u32 %p0, %r0, 0;\n@%p0 st.global.u32 [%rd0], %r0;",
    );
    // The same instructions over three registers: as many variables either way.
    let (n_big, n_small) = (variables(&big), variables(&small));
    assert_eq!(n_big, n_small);
    assert!(n_big < 64, "{n_big} variables");
    // And it runs: the stored 7 is the instruction's immediate.
    let mut ctx = Context::new();
    let m = ctx
        .load_module(&big, "k.ptx", Engine::Interp)
        .expect("loads");
    let k = m.kernel("k").expect("k");
    let out = ctx.alloc(4, None).expect("alloc");
    ctx.launch_builder(&k)
        .grid([1, 1, 1])
        .block([1, 1, 1])
        .arg(out)
        .launch()
        .expect("runs");
    let mut v = [0u8; 4];
    ctx.copy_dtoh(&mut v, out).expect("readable");
    assert_eq!(u32::from_le_bytes(v), 7);
}

#[test]
fn unused_names_of_a_range_cost_no_variable() {
    // One register of each range used; the rest of a range are never looked up.
    let used_one = variables(&kernel(
        ".reg .b32 %r<100000>;\n.reg .b32 %q<3>;\nmov.u32 %r5, 1;\nmov.u32 %q2, %r5;",
    ));
    let declared_few = variables(&kernel(
        ".reg .b32 %r<6>;\n.reg .b32 %q<3>;\nmov.u32 %r5, 1;\nmov.u32 %q2, %r5;",
    ));
    assert_eq!(used_one, declared_few);
}

#[test]
fn registers_past_a_range_or_undeclared_are_errors_at_their_use() {
    // ptxas: "Unknown symbol '%r4'" (line 7), "Unknown symbol '%q1'".
    let m = invalid(".reg .b32 %r<4>;\nmov.b32 %r4, 1;");
    assert!(
        m.contains("k.ptx:7:9:") && m.contains("undeclared register '%r4'"),
        "{m}"
    );
    let m = invalid(".reg .b32 %r<4>;\nmov.b32 %q1, 1;");
    assert!(
        m.contains("k.ptx:7:9:") && m.contains("undeclared register '%q1'"),
        "{m}"
    );
    // A name is the range's as written by its index: `%r01` is not `%r1` (ptxas accepts
    // it; ptxjit names it undeclared, as it did when it wrote out each name).
    let m = invalid(".reg .b32 %r<4>;\nmov.b32 %r01, 1;");
    assert!(m.contains("undeclared register '%r01'"), "{m}");
    // A range's register is not visible before its declaration.
    let m = invalid("mov.b32 %r1, 1;\n.reg .b32 %r<4>;");
    assert!(
        m.contains("k.ptx:6:9:") && m.contains("undeclared register '%r1'"),
        "{m}"
    );
}

#[test]
fn a_name_declared_twice_in_a_scope_is_an_error_at_the_second_declaration() {
    // ptxas: "Duplicate definition of variable '%r2'" (line 7).
    let m = invalid(".reg .b32 %r<4>;\n.reg .b32 %r2;");
    assert!(
        m.contains("k.ptx:7:11:") && m.contains("register '%r2' is declared twice in this scope"),
        "{m}"
    );
    // ptxas: "Duplicate definition of variable '%r15'".
    let m = invalid(".reg .b32 %r<20>;\n.reg .b32 %r15;");
    assert!(m.contains("register '%r15' is declared twice"), "{m}");
    let m = invalid(".reg .b32 %r15;\n.reg .b32 %r<20>;");
    assert!(m.contains("register '%r15' is declared twice"), "{m}");
    let m = invalid(".reg .b32 %r<2>;\n.reg .b32 %r<4>;");
    assert!(m.contains("register '%r0' is declared twice"), "{m}");
    // Ranges whose names meet where one prefix extends the other by digits: `%r<20>` and
    // `%r1<5>` both name %r10 to %r14 (ptxas 13 accepts both pairs; ptxjit refuses them as it
    // did when it wrote out each name, naming the first shared name of the later one).
    let m = invalid(".reg .b32 %r<20>;\n.reg .b32 %r1<5>;");
    assert!(m.contains("register '%r10' is declared twice"), "{m}");
    let m = invalid(".reg .b32 %r1<5>;\n.reg .b32 %r<20>;");
    assert!(m.contains("register '%r10' is declared twice"), "{m}");
    let m = invalid(".reg .b32 %r<21>;\n.reg .b32 %r2<1>;");
    assert!(m.contains("register '%r20' is declared twice"), "{m}");
    // No name in common: %r0<5> names %r00 to %r04; %r<20> ends at %r19; %r2<1> is %r20.
    for ok in [
        ".reg .b32 %r<20>;\n.reg .b32 %r0<5>;",
        ".reg .b32 %r<20>;\n.reg .b32 %r2<1>;",
        ".reg .b32 %r<4>;\n.reg .b32 %r;",
        ".reg .b32 %r;\n.reg .b32 %r<4>;",
    ] {
        front_end(&kernel(ok), "k.ptx").unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
    // A vector register's name against a range (its components are `%v1.x`, ...).
    let m = invalid(".reg .v2 .b32 %v1;\n.reg .b32 %v<4>;");
    assert!(m.contains("register '%v1' is declared twice"), "{m}");
    // An inner `{ }` scope may declare the names again (ptxas: accepted).
    front_end(
        &kernel(".reg .b32 %r<4>;\n{\n.reg .b32 %r<2>;\nmov.b32 %r3, 1;\nmov.b32 %r1, 1;\n}"),
        "k.ptx",
    )
    .expect("an inner scope's range");
}

#[test]
fn a_range_naming_a_parameter_is_an_error() {
    // ptxas: "Duplicate definition of variable 'p3'" (line 6).
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\
               .entry k(.param .u64 p3)\n{\n.reg .b64 p<4>;\nret;\n}\n";
    match front_end(ptx, "k.ptx") {
        Err(Error::Invalid(m)) => assert!(
            m.contains("k.ptx:6:11:")
                && m.contains("register 'p3' has the name of a parameter of this kernel"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_inner_range_hides_the_outer_names_it_declares() {
    // %r1 inside the block is the inner range's; %r3 (past the inner range) the outer's.
    let ptx = kernel(
        ".reg .b32 %r<4>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n\
         mov.u32 %r1, 10;\nmov.u32 %r3, 30;\n\
         {\n.reg .b32 %r<2>;\nmov.u32 %r1, 5;\nadd.u32 %r3, %r3, %r1;\n}\n\
         add.u32 %r3, %r3, %r1;\nst.global.u32 [%rd1], %r3;",
    );
    let mut ctx = Context::new();
    let m = ctx
        .load_module(&ptx, "k.ptx", Engine::Interp)
        .expect("loads");
    let k = m.kernel("k").expect("k");
    let out = ctx.alloc(4, None).expect("alloc");
    ctx.launch_builder(&k)
        .grid([1, 1, 1])
        .block([1, 1, 1])
        .arg(out)
        .launch()
        .expect("runs");
    let mut v = [0u8; 4];
    ctx.copy_dtoh(&mut v, out).expect("readable");
    // 30 + 5 (the inner %r1) + 10 (the outer %r1).
    assert_eq!(u32::from_le_bytes(v), 45);
}
