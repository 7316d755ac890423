//! Device-runtime functions that CUDA's `libcudadevrt` supplies and ptxjit supplies instead,
//! written in PTX: a module that declares one of them `.extern` and does not define it gets
//! this definition, inlined at each call like any device function (its instructions carry the
//! call's source location in reports).
//!
//! - `cudaCGGetIntrinsicHandle(scope) -> handle` (what numba's `cg.this_grid()` calls): the
//!   grid workspace address of a cooperative launch, from `%envreg1` (high half) and
//!   `%envreg2` (low half), the same pointer `cooperative_groups::this_grid()` reads; 0 in a
//!   launch that is not cooperative. Scope 1 (the grid) is the only one numba asks for.
//! - `cudaCGSynchronize(handle, flags) -> 0` and `cudaCGSynchronizeGrid(handle, flags) -> 0`
//!   (numba's `grid.sync()`): a grid-wide barrier by the protocol of CUDA's cooperative groups
//!   headers (`cooperative_groups/details/sync.h`, `sync_grids`): a CTA barrier; thread
//!   (0,0,0) of each CTA adds 1 to the workspace's barrier word (CTA (0,0,0) adds
//!   `0x80000000 - (CTAs - 1)`, so the word's top bit flips when every CTA has arrived) with
//!   `atom.add.release.gpu` and spins with `ld.acquire.gpu` until the bit flips; a CTA
//!   barrier. The spin loop waits on memory, so it yields (`lower::yields`) and a cooperative
//!   grid's scheduler runs the other CTAs meanwhile. A null handle (no cooperative launch)
//!   traps, as CUDA's headers do.

use crate::ptx::ast;
use std::sync::OnceLock;

/// The body of `cudaCGSynchronize` and `cudaCGSynchronizeGrid` (the same function).
macro_rules! grid_sync_body {
    () => {
        r#"
{
    .reg .b64 %h;
    .reg .b32 %t, %c, %n, %nb, %old, %cur, %x;
    .reg .pred %p;
    ld.param.u64 %h, [handle];
    setp.eq.u64 %p, %h, 0;
    @%p trap;
    barrier.sync 0;
    mov.u32 %t, %tid.x;
    mov.u32 %x, %tid.y;
    or.b32 %t, %t, %x;
    mov.u32 %x, %tid.z;
    or.b32 %t, %t, %x;
    setp.ne.u32 %p, %t, 0;
    @%p bra WAIT;
    mov.u32 %c, %ctaid.x;
    mov.u32 %x, %ctaid.y;
    or.b32 %c, %c, %x;
    mov.u32 %x, %ctaid.z;
    or.b32 %c, %c, %x;
    mov.u32 %n, %nctaid.x;
    mov.u32 %x, %nctaid.y;
    mul.lo.u32 %n, %n, %x;
    mov.u32 %x, %nctaid.z;
    mul.lo.u32 %n, %n, %x;
    sub.u32 %nb, 0x80000001, %n;
    setp.ne.u32 %p, %c, 0;
    @%p mov.u32 %nb, 1;
    atom.add.release.gpu.u32 %old, [%h+4], %nb;
SPIN:
    ld.acquire.gpu.u32 %cur, [%h+4];
    xor.b32 %x, %cur, %old;
    and.b32 %x, %x, 0x80000000;
    setp.eq.u32 %p, %x, 0;
    @%p bra SPIN;
WAIT:
    barrier.sync 0;
    st.param.b32 [status], 0;
    ret;
}
"#
    };
}

/// The functions' PTX.
const DEVRT_PTX: &str = concat!(
    r#"
.version 7.0
.target sm_70
.address_size 64

.func (.param .b64 handle) cudaCGGetIntrinsicHandle(.param .b32 scope)
{
    .reg .b32 %hi, %lo;
    .reg .b64 %h;
    mov.u32 %hi, %envreg1;
    mov.u32 %lo, %envreg2;
    mov.b64 %h, {%lo, %hi};
    st.param.b64 [handle], %h;
    ret;
}

.func (.param .b32 status) cudaCGSynchronize(.param .b64 handle, .param .b32 flags)
"#,
    grid_sync_body!(),
    r#"
.func (.param .b32 status) cudaCGSynchronizeGrid(.param .b64 handle, .param .b32 flags)
"#,
    grid_sync_body!(),
);

/// The parsed module (parsed once per process; `None` if it did not parse, which a test
/// rules out, so that the supplied functions then count as missing).
fn module() -> Option<&'static ast::Module> {
    static MODULE: OnceLock<Option<ast::Module>> = OnceLock::new();
    MODULE
        .get_or_init(|| crate::ptx::parse(DEVRT_PTX).ok())
        .as_ref()
}

/// The supplied function named `name`, if ptxjit supplies one.
pub(crate) fn function(name: &str) -> Option<&'static ast::Function> {
    module()?.items.iter().find_map(|item| match item {
        ast::Item::Function(f) if f.name.name == name && f.body.is_some() => Some(f),
        _ => None,
    })
}

/// Whether `f` is one of the supplied functions (its body's locations are not the module's).
pub(crate) fn is_supplied(f: &ast::Function) -> bool {
    module().is_some_and(|m| {
        m.items
            .iter()
            .any(|item| matches!(item, ast::Item::Function(g) if std::ptr::eq(g, f)))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_functions_parse() {
        for name in [
            "cudaCGGetIntrinsicHandle",
            "cudaCGSynchronize",
            "cudaCGSynchronizeGrid",
        ] {
            assert!(super::function(name).is_some(), "{name}");
        }
    }
}
