//! Decoding verified IR, once per kernel, into the interpreter's flat form ([`Program`]).
//!
//! Everything the inner loop needs is resolved here: which execution routine an instruction
//! takes ([`Exec`]), the warp-state offset and byte size of every operand and result slot, the
//! priority of every branch target, and each block call's argument copies as a sequence of
//! moves that is correct even when arguments and parameters share slots (a block that jumps to
//! itself with permuted parameters). The interpreter then runs without strings, hashing or
//! allocation.

use crate::analysis::region::Regions;
use crate::analysis::schedule::{WarpLayout, WARP_SIZE};
use crate::analysis::segment::{self, Segment, WarpOrder};
use crate::ir::{
    AtomOp, Block, BlockCall, Function, Op, SReg, ShflMode, Space, Terminator, Type, Value,
};
use crate::runtime::env::terminator_fault_index;
use crate::runtime::warp::{WarpDesc, WarpSlot};

/// A kernel in decoded form: blocks by priority, their instructions, and block-call moves.
#[derive(Debug)]
pub(super) struct Program {
    /// Indexed by block priority (the index into the pending/parked arrays).
    pub blocks: Vec<DBlock>,
    pub insts: Vec<DInst>,
    /// The blocks' segments (`analysis::segment`), as ranges of `insts`.
    pub segs: Vec<Segment>,
    pub moves: Vec<Move>,
    /// Descriptors of the warp collectives and barrier ops (`Exec::Warp`).
    pub warp: Vec<WarpDesc>,
    /// The blocks each group runs through before the next group (`analysis::region`).
    pub regions: Regions,
}

/// A block: its instructions `insts[start..end]`, their segments `segs[seg_start..seg_end]`
/// and its terminator.
#[derive(Debug)]
pub(super) struct DBlock {
    pub start: u32,
    pub end: u32,
    pub seg_start: u32,
    pub seg_end: u32,
    pub term: DTerm,
}

/// A value's slot in the warp state: lane `l` is at `slot + l * bytes`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Slot {
    pub off: u32,
    pub bytes: u8,
}

/// How an instruction executes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Exec {
    /// A constant, already masked to its type.
    Const(u64),
    /// Any other pure operation: `semantics::eval_pure` per lane.
    Pure(Op),
    SReg(SReg),
    SymAddr(u32),
    Load {
        space: Space,
        align: u32,
    },
    Store {
        space: Space,
        align: u32,
    },
    Atom {
        op: AtomOp,
        space: Space,
    },
    AtomCas {
        space: Space,
    },
    /// `membar`/`fence`: a host sequentially consistent fence.
    Fence,
    Shfl {
        mode: ShflMode,
    },
    /// A warp collective or barrier op, run by `runtime::warp::exec` with descriptor
    /// `Program::warp[k]`.
    Warp(u32),
}

/// One decoded instruction.
#[derive(Clone, Copy, Debug)]
pub(super) struct DInst {
    pub exec: Exec,
    pub nargs: u8,
    pub args: [Slot; 4],
    pub arg_tys: [Type; 4],
    /// Results (at most two: `shfl`'s value and predicate).
    pub res: [Slot; 2],
    /// Type of the first result (`Pred` when there is none).
    pub res_ty: Type,
    /// The IR instruction index, for fault records.
    pub inst: u32,
}

/// A block-call argument copy step, applied per lane. The steps of one call form a
/// sequential program equivalent to copying all arguments at once (a parallel move).
#[derive(Clone, Copy, Debug)]
pub(super) enum Move {
    /// `dst ← src`.
    Copy { src: u32, dst: u32, bytes: u8 },
    /// `temp ← src` (breaks a cycle of copies).
    Save { src: u32, bytes: u8 },
    /// `dst ← temp`.
    Restore { dst: u32, bytes: u8 },
}

/// A branch target: its priority and its moves `moves[start..end]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct DCall {
    pub prio: u32,
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum DTerm {
    Jump(DCall),
    Branch {
        cond: Slot,
        then_: DCall,
        else_: DCall,
    },
    Exit,
    Barrier(DCall),
    /// `trap`, with the fault index of the terminator.
    Trap {
        fault_inst: u32,
    },
}

/// Decode the reachable blocks of `f` under `layout`.
///
/// Errors when the layout lacks a slot for a value a reachable block uses, has a slot that
/// does not fit the warp state, or a branch targets an unscheduled block: scheduler
/// invariants, not properties of the input (a bug in ptxjit).
pub(super) fn decode(
    f: &Function,
    layout: &WarpLayout,
    order: WarpOrder,
) -> Result<Program, String> {
    let mut d = Decoder {
        f,
        layout,
        prog: Program {
            blocks: Vec::with_capacity(layout.order.len()),
            insts: vec![],
            segs: vec![],
            moves: vec![],
            warp: vec![],
            regions: Regions::new(f, &layout.order, &layout.prio, order),
        },
    };
    for &b in &layout.order {
        let start = d.prog.insts.len() as u32;
        for &i in &f.block(b).insts {
            let inst = d.inst(i.index())?;
            d.prog.insts.push(inst);
        }
        let end = d.prog.insts.len() as u32;
        let seg_start = d.prog.segs.len() as u32;
        for sg in segment::segments(f, &f.block(b).insts, order) {
            d.prog.segs.push(Segment {
                start: start + sg.start,
                end: start + sg.end,
                warp: sg.warp,
            });
        }
        let seg_end = d.prog.segs.len() as u32;
        let term = d.term(b)?;
        d.prog.blocks.push(DBlock {
            start,
            end,
            seg_start,
            seg_end,
            term,
        });
    }
    Ok(d.prog)
}

struct Decoder<'a> {
    f: &'a Function,
    layout: &'a WarpLayout,
    prog: Program,
}

impl Decoder<'_> {
    fn slot(&self, v: Value) -> Result<Slot, String> {
        let off = self.layout.slot.get(v.index()).copied().unwrap_or(u32::MAX);
        let bytes = match self.f.value_type(v) {
            Type::Pred => self.layout.pred_bytes,
            t => t.bytes(),
        };
        if off == u32::MAX || off as u64 + (WARP_SIZE * bytes) as u64 > self.layout.size as u64 {
            return Err(format!(
                "interp: warp layout has no valid slot for {v} (scheduler invariant)"
            ));
        }
        Ok(Slot {
            off,
            bytes: bytes as u8,
        })
    }

    fn inst(&mut self, i: usize) -> Result<DInst, String> {
        let data = &self.f.insts[i];
        if data.op.many_operands() {
            // Texture, surface and matrix operations have more operands than the fixed arrays
            // below hold; their warp routines read them from the slots directly.
            let ws = |v: &crate::ir::Value| {
                self.slot(*v).map(|s| WarpSlot {
                    off: s.off,
                    bytes: s.bytes as u32,
                })
            };
            let desc = WarpDesc {
                op: data.op,
                inst: i as u32,
                args: data.args.iter().map(ws).collect::<Result<_, _>>()?,
                res: data.results.iter().map(ws).collect::<Result<_, _>>()?,
            };
            self.prog.warp.push(desc);
            return Ok(DInst {
                exec: Exec::Warp(self.prog.warp.len() as u32 - 1),
                nargs: 0,
                args: [Slot::default(); 4],
                arg_tys: [Type::Pred; 4],
                res: [Slot::default(); 2],
                res_ty: Type::Pred,
                inst: i as u32,
            });
        }
        let mut args = [Slot::default(); 4];
        let mut arg_tys = [Type::Pred; 4];
        if data.args.len() > 4 || data.results.len() > 2 {
            return Err(format!("interp: operand count of instruction {i}"));
        }
        for (k, &a) in data.args.iter().enumerate() {
            args[k] = self.slot(a)?;
            arg_tys[k] = self.f.value_type(a);
        }
        let mut res = [Slot::default(); 2];
        for (k, &r) in data.results.iter().enumerate() {
            res[k] = self.slot(r)?;
        }
        let res_ty = data
            .results
            .first()
            .map(|&r| self.f.value_type(r))
            .unwrap_or(Type::Pred);
        let exec = match data.op {
            Op::Const { bits } => Exec::Const(bits & res_ty.mask()),
            Op::SReg { reg } => Exec::SReg(reg),
            Op::SymAddr { sym, .. } => Exec::SymAddr(sym),
            Op::Load { space, align } => Exec::Load {
                space,
                align: align as u32,
            },
            Op::Store { space, align } => Exec::Store {
                space,
                align: align as u32,
            },
            Op::Atom { op, space } => Exec::Atom { op, space },
            Op::AtomCas { space } => Exec::AtomCas { space },
            Op::Fence {} => Exec::Fence,
            Op::Shfl { mode } => Exec::Shfl { mode },
            op @ (crate::warp_ops!()) => {
                let ws = |s: &Slot| WarpSlot {
                    off: s.off,
                    bytes: s.bytes as u32,
                };
                self.prog.warp.push(WarpDesc {
                    op,
                    inst: i as u32,
                    args: args[..data.args.len()].iter().map(ws).collect(),
                    res: res[..data.results.len()].iter().map(ws).collect(),
                });
                Exec::Warp(self.prog.warp.len() as u32 - 1)
            }
            op @ crate::lane_ops!() => Exec::Pure(op),
        };
        Ok(DInst {
            exec,
            nargs: data.args.len() as u8,
            args,
            arg_tys,
            res,
            res_ty,
            inst: i as u32,
        })
    }

    fn term(&mut self, b: Block) -> Result<DTerm, String> {
        Ok(match &self.f.block(b).term {
            Terminator::Jump(c) => DTerm::Jump(self.call(c)?),
            Terminator::Branch { cond, then_, else_ } => DTerm::Branch {
                cond: self.slot(*cond)?,
                then_: self.call(then_)?,
                else_: self.call(else_)?,
            },
            Terminator::Exit => DTerm::Exit,
            Terminator::Barrier { next } => DTerm::Barrier(self.call(next)?),
            Terminator::Trap => DTerm::Trap {
                fault_inst: terminator_fault_index(self.f.insts.len(), b),
            },
        })
    }

    fn call(&mut self, c: &BlockCall) -> Result<DCall, String> {
        let prio = self
            .layout
            .prio
            .get(c.block.index())
            .copied()
            .unwrap_or(u32::MAX);
        if prio == u32::MAX {
            return Err(format!("interp: branch to unscheduled {}", c.block));
        }
        let params = &self.f.block(c.block).params;
        let mut copies: Vec<(u32, u32, u8)> = vec![];
        for (&a, &p) in c.args.iter().zip(params) {
            let (s, d) = (self.slot(a)?, self.slot(p)?);
            copies.push((s.off, d.off, d.bytes));
        }
        let start = self.prog.moves.len() as u32;
        sequentialize(copies, &mut self.prog.moves);
        Ok(DCall {
            prio,
            start,
            end: self.prog.moves.len() as u32,
        })
    }
}

/// Source marker for a copy that reads the temporary.
const TEMP: u32 = u32::MAX;

/// Whether the 32-lane slots `(a, abytes)` and `(b, bbytes)` overlap.
fn overlap(a: u32, abytes: u8, b: u32, bbytes: u8) -> bool {
    if a == TEMP || b == TEMP {
        return false;
    }
    let (a, b) = (a as u64, b as u64);
    a < b + (WARP_SIZE * bbytes as u32) as u64 && b < a + (WARP_SIZE * abytes as u32) as u64
}

/// Turn a parallel copy (every source read before any destination is written) into a
/// sequence of moves. Destinations are distinct parameter slots. A copy may run once no other
/// pending copy reads its destination; when every pending copy is blocked the copies form
/// disjoint cycles, and one cycle is broken by saving a destination in the temporary, which
/// that cycle's last copy consumes before another cycle needs it. So one temporary suffices.
fn sequentialize(mut pending: Vec<(u32, u32, u8)>, out: &mut Vec<Move>) {
    pending.retain(|&(s, d, _)| s != d);
    while !pending.is_empty() {
        let free = (0..pending.len()).find(|&i| {
            let (_, d, db) = pending[i];
            pending
                .iter()
                .enumerate()
                .all(|(j, &(s, _, sb))| j == i || !overlap(s, sb, d, db))
        });
        match free {
            Some(i) => {
                let (src, dst, bytes) = pending.remove(i);
                out.push(if src == TEMP {
                    Move::Restore { dst, bytes }
                } else {
                    Move::Copy { src, dst, bytes }
                });
            }
            None => {
                let (_, d, db) = pending[0];
                out.push(Move::Save { src: d, bytes: db });
                for m in pending.iter_mut() {
                    if m.0 == d {
                        m.0 = TEMP;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run a move program on one lane's worth of "registers" (slot offsets as indices).
    fn apply(moves: &[Move], regs: &mut [u64]) {
        let mut temp = 0;
        for m in moves {
            match *m {
                Move::Copy { src, dst, .. } => regs[dst as usize / 128] = regs[src as usize / 128],
                Move::Save { src, .. } => temp = regs[src as usize / 128],
                Move::Restore { dst, .. } => regs[dst as usize / 128] = temp,
            }
        }
    }

    #[test]
    fn parallel_moves_with_cycles_and_fanout() {
        // Slots of 4-byte values at 128-byte strides: register k is at offset 128k.
        let r = |k: u32| k * 128;
        // (0 1 2) rotated, 3↔4 swapped, 5 copied to 6 and 7, 0 also copied to 8.
        let copies = vec![
            (r(0), r(1), 4),
            (r(1), r(2), 4),
            (r(2), r(0), 4),
            (r(3), r(4), 4),
            (r(4), r(3), 4),
            (r(5), r(6), 4),
            (r(5), r(7), 4),
            (r(0), r(8), 4),
            (r(9), r(9), 4),
        ];
        let mut out = vec![];
        sequentialize(copies, &mut out);
        let mut regs: Vec<u64> = (0..10).map(|k| 100 + k).collect();
        apply(&out, &mut regs);
        assert_eq!(regs, vec![102, 100, 101, 104, 103, 105, 105, 105, 100, 109]);
    }
}
