//! Stack manipulation (PTX ISA §9.7.17): `stacksave`, `stackrestore` and `alloca`, on a
//! per-thread stack in local memory.
//!
//! The first of these instructions in a kernel reserves [`STACK_BYTES`] of per-thread local
//! memory (CUDA's default per-thread stack size, `cudaLimitStackSize`) for the stack, in the
//! kernel's own local memory. It is fixed: the launch's stack size
//! (`LaunchOptions::stack_bytes`) sizes only the call stack of recursive and indirect calls
//! (`lower::recurse`), a separate area after it. The stack
//! pointer is a local-state-space address (the form `alloca` returns and `stacksave` /
//! `stackrestore` use) that starts at the top of the reservation and grows down:
//! ```text
//! alloca.type     ptr, size{, immAlign};  sp = (sp - size) rounded down to max(immAlign, 8)
//!                                         (immAlign a power of two up to 16, default 8: the
//!                                         ISA's "a = max(immAlign, frame_align)", frame_align
//!                                         its minimum guaranteed alignment 8); ptr = sp
//! stacksave.type  d;                      d = sp
//! stackrestore.type a;                    sp = a
//! ```
//! `.type` is `.u32` or `.u64`. An `alloca` that would go below the reservation, or a
//! `stackrestore` to an address outside it, traps (a fault naming the instruction) rather than
//! handing out memory that is not the stack's. Called functions are inlined, so they share the
//! kernel's stack: their allocations are released by a `stackrestore` (as compilers emit around
//! variable-length arrays), not by returning. Not supported inside functions that are called
//! recursively (their frames live on a separate call stack, `lower::recurse`).

use super::super::build::{Builder, PTerm, Var};
use super::super::LowerError;
use super::Cx;
use crate::ir::{ICmp, Op, Sign, Type};
use crate::ptx::ast::{Literal, Operand};

type R = Result<(), LowerError>;

/// Bytes of local memory per thread reserved for the stack.
pub const STACK_BYTES: u64 = 1024;

/// The alignment every `alloca` gets at least ("immAlign … default value being 8 which is the
/// minimum guaranteed alignment", PTX ISA §9.7.17.3).
const FRAME_ALIGN: u64 = 8;

pub(super) fn stack(b: &mut Builder, cx: &mut Cx, op: &str) -> R {
    let ty = match cx.mods.as_slice() {
        ["u32"] => Type::I32,
        ["u64"] => Type::I64,
        _ => return Err(cx.bad("needs exactly one type, .u32 or .u64")),
    };
    if b.frame.is_some() {
        return Err(cx.unsupported("stack instructions in a recursively called function"));
    }
    let (base, used) = match b.alloca {
        Some(s) => s,
        None => {
            let base = b.alloc_local(STACK_BYTES, 16, cx.inst.span, || {
                "the stack of stacksave/alloca".to_string()
            })?;
            let s = (base, b.new_var(Type::I64));
            b.alloca = Some(s);
            s
        }
    };
    // `used`: bytes of the reservation below its top that are in use (starts at 0: a variable
    // read before any write reads as zero).
    let top = base + STACK_BYTES;
    match op {
        "stacksave" => {
            cx.expect_operands(1)?;
            let sp = sp(b, cx, top, used);
            write(b, cx, sp, ty)
        }
        "stackrestore" => {
            cx.expect_operands(1)?;
            let a = b.src(cx, 0, ty)?;
            let a = b.coerce(cx, a, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
            let t = b.konst(cx, Type::I64, top);
            let new = b.emit1(Op::ISub {}, vec![t, a], Type::I64, cx.loc, &cx.ptx);
            trap_above(b, cx, new)?;
            b.copy(used, new, cx.loc, &cx.ptx);
            Ok(())
        }
        _ => {
            let n = cx.inst.operands.len();
            if !(2..=3).contains(&n) {
                return Err(cx.bad("expects ptr, size and an optional alignment"));
            }
            let align = match cx.inst.operands.get(2) {
                None => FRAME_ALIGN,
                Some(Operand::Imm(Literal::Int { value, .. }, _))
                    if (1..=16).contains(value) && (*value as u64).is_power_of_two() =>
                {
                    (*value as u64).max(FRAME_ALIGN)
                }
                Some(o) => {
                    return Err(LowerError::new(
                        o.span(),
                        "alloca's alignment must be a constant power of two up to 16",
                    ))
                }
            };
            let size = b.src(cx, 1, ty)?;
            let size = b.coerce(cx, size, Type::I64, Some(Sign::Unsigned), cx.inst.span)?;
            // used + size, rounded up to the alignment (the top is 16-byte aligned).
            let sum = b.emit1(Op::IAdd {}, vec![used, size], Type::I64, cx.loc, &cx.ptx);
            let m = b.konst(cx, Type::I64, align - 1);
            let up = b.emit1(Op::IAdd {}, vec![sum, m], Type::I64, cx.loc, &cx.ptx);
            let mask = b.konst(cx, Type::I64, !(align - 1));
            let new = b.emit1(Op::And {}, vec![up, mask], Type::I64, cx.loc, &cx.ptx);
            // An overflow of the sum wraps below `sum`: also out of the reservation.
            let wrapped = b.emit1(
                Op::ICmp {
                    cc: ICmp::Lt,
                    sign: Sign::Unsigned,
                },
                vec![new, used],
                Type::Pred,
                cx.loc,
                &cx.ptx,
            );
            trap_if(b, cx, wrapped)?;
            trap_above(b, cx, new)?;
            b.copy(used, new, cx.loc, &cx.ptx);
            let sp = sp(b, cx, top, used);
            write(b, cx, sp, ty)
        }
    }
}

/// The stack pointer: `top - used` (a local address, i64).
fn sp(b: &mut Builder, cx: &Cx, top: u64, used: Var) -> Var {
    let t = b.konst(cx, Type::I64, top);
    b.emit1(Op::ISub {}, vec![t, used], Type::I64, cx.loc, &cx.ptx)
}

/// Write `v` (i64) to destination operand 0 as `ty`.
fn write(b: &mut Builder, cx: &mut Cx, v: Var, ty: Type) -> R {
    let v = b.coerce(cx, v, ty, Some(Sign::Unsigned), cx.inst.span)?;
    if let Some(d) = b.dst(cx, 0, ty)? {
        b.copy(d, v, cx.loc, &cx.ptx);
    }
    Ok(())
}

/// Trap when `used` is above the reservation's size (unsigned: a negative value too).
fn trap_above(b: &mut Builder, cx: &Cx, used: Var) -> R {
    let cap = b.konst(cx, Type::I64, STACK_BYTES);
    let over = b.emit1(
        Op::ICmp {
            cc: ICmp::Gt,
            sign: Sign::Unsigned,
        },
        vec![used, cap],
        Type::Pred,
        cx.loc,
        &cx.ptx,
    );
    trap_if(b, cx, over)
}

fn trap_if(b: &mut Builder, cx: &Cx, p: Var) -> R {
    let trap = b.new_block();
    let after = b.new_block();
    let cur = b.cur as usize;
    b.blocks[cur].term = PTerm::Branch(p, trap, after);
    b.blocks[cur].term_loc = cx.loc;
    b.blocks[trap as usize].term = PTerm::Trap;
    b.blocks[trap as usize].term_loc = cx.loc;
    b.cur = after;
    Ok(())
}
