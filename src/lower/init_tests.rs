//! Module variables initialized with addresses (PTX ISA §5.4.4 "Initializers"): the values a
//! loaded module's variables hold, and the forms ptxas 12.9 rejects (its message in each
//! comment).

use crate::host::{Context, Engine, Error};

fn module(vars: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .global .align 4 .u32 g[4] = {{1, 2, 3, 4}};\n.const .align 8 .u64 c[2];\n\
         .shared .u32 s[4];\n\
         .func f() {{ ret; }}\n{vars}\n.entry k() {{ ret; }}\n"
    )
}

/// The bytes of module variable `name` after loading.
fn bytes(ctx: &mut Context, m: &crate::host::Module, name: &str) -> Vec<u8> {
    let (p, size) = m.global(name).expect("the variable");
    let mut v = vec![0u8; size as usize];
    ctx.copy_dtoh(&mut v, p).expect("readable");
    v
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

#[test]
fn initializers_hold_the_addresses_of_variables() {
    let ptx = module(
        ".global .u64 p = g;\n\
         .global .u64 t[4] = {g, generic(g), g+8, generic(g+4)+8};\n\
         .const .u64 pc[2] = {c, generic(c)+8};\n\
         .global .u32 lo = g+4;\n\
         .global .u8 b[9] = {7, 0xFF(g+2), 0xFF00(g+2), 0xFF0000(g+2), 0xFF000000(g+2), \
         0xFF00000000(g+2), 0xFF0000000000(g+2), 0xFF000000000000(g+2), 0xFF00000000000000(g+2)};\n\
         .global .u64 later = fwd+4;\n.global .u32 fwd[2];\n\
         .global .u64 masked_int = 0xFF00(0x1234);",
    );
    let mut ctx = Context::new();
    let m = ctx
        .load_module(&ptx, "t.ptx", Engine::Interp)
        .expect("loads");
    let g = m.global("g").expect("g").0 .0;
    let c = m.global("c").expect("c").0 .0;
    let fwd = m.global("fwd").expect("fwd").0 .0;
    assert_eq!(u64s(&bytes(&mut ctx, &m, "p")), [g]);
    assert_eq!(u64s(&bytes(&mut ctx, &m, "t")), [g, g, g + 8, g + 12]);
    assert_eq!(u64s(&bytes(&mut ctx, &m, "pc")), [c, c + 8]);
    assert_eq!(bytes(&mut ctx, &m, "lo"), ((g + 4) as u32).to_le_bytes());
    let mut want = vec![7u8];
    want.extend((g + 2).to_le_bytes());
    assert_eq!(bytes(&mut ctx, &m, "b"), want);
    assert_eq!(u64s(&bytes(&mut ctx, &m, "later")), [fwd + 4]);
    assert_eq!(u64s(&bytes(&mut ctx, &m, "masked_int")), [0x12]);
    // The variable itself is untouched.
    assert_eq!(
        bytes(&mut ctx, &m, "g"),
        [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]
    );
}

#[test]
fn a_function_address_is_what_mov_gives() {
    // `fp = f` and `mov.u64 %rd, f` agree: the kernel stores both.
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\
               .func f() { ret; }\n.global .u64 fp = f;\n.global .u8 fb = 0xFF(f);\n\
               .global .u64 out;\n\
               .entry k() { .reg .b64 %rd<2>; mov.u64 %rd1, f; st.global.u64 [out], %rd1; ret; }\n";
    let mut ctx = Context::new();
    let m = ctx
        .load_module(ptx, "t.ptx", Engine::Interp)
        .expect("loads");
    let k = m.kernel("k").expect("k");
    ctx.launch_builder(&k)
        .grid([1, 1, 1])
        .block([1, 1, 1])
        .launch()
        .expect("runs");
    let out = u64s(&bytes(&mut ctx, &m, "out"))[0];
    assert_ne!(out, 0);
    assert_eq!(u64s(&bytes(&mut ctx, &m, "fp")), [out]);
    assert_eq!(bytes(&mut ctx, &m, "fb"), [(out & 0xff) as u8]);
}

#[test]
fn initializers_ptxas_rejects_are_errors() {
    let invalid = |vars: &str, want: &str| {
        let mut ctx = Context::new();
        match ctx.load_module(&module(vars), "t.ptx", Engine::Interp) {
            Err(Error::Invalid(m)) => assert!(m.contains(want), "{vars}: {m}"),
            Err(e) => panic!("{vars}: {e:?}"),
            Ok(_) => panic!("{vars}: loaded"),
        }
    };
    // "Variable used as initial value not in .global or .const state space"
    invalid(".global .u64 p = s;", "'s' is a .shared variable");
    invalid(".global .u64 p = generic(s);", "'s' is a .shared variable");
    // "Invalid initial value symbol 'undefined'"
    invalid(
        ".global .u64 p = undefined;",
        "'undefined' is not a variable",
    );
    // "Initial value type mismatch"
    invalid(".global .u8 p = g;", "initializes a .u32 or .u64 element");
    invalid(".global .s64 p = g;", "not .s64");
    invalid(".global .b64 p = g;", "not .b64");
    invalid(".global .u16 p = 0xFF(g);", "not .u16");
    invalid(".global .u64 p = f+4;", "takes no offset and no generic()");
    // "Invalid initial value expression"
    invalid(
        ".global .u64 p = generic(f);",
        "takes no offset and no generic()",
    );
    // "Invalid mask value '0xffff' used in initializer"
    invalid(".global .u64 p = 0xFFFF(g);", "invalid mask 0xffff");
    // "Greater number of elements in array initializer"
    invalid(
        ".global .u32 t[2] = {1, 2, 3};",
        "has 3 elements; the variable holds 2",
    );
    invalid(
        ".global .u64 t[1] = {g, g};",
        "has 2 elements; the variable holds 1",
    );
}
