//! Instructions whose results nobody reads, removed from the CLIF before Cranelift compiles
//! it.
//!
//! The code generator loads environment fields and warp-state words where a block first
//! needs them ([`Gen::env_val`](super::codegen::Gen::env_val), the group loops' preheaders,
//! the replays of `affine.rs`), and some of those results end up unread: a preheader load
//! (`env.warp`, the global window) whose only readers were per-group operations that the
//! full-warp version of a loop left out, a field read for a fallback that a branch decided at
//! compile time removed. Cranelift 0.135 has no dead-code pass of its own: its egraph pass
//! (the optimized tier) drops unread pure operations but keeps every instruction that is not
//! pure in its sense, and a load is pure there only with `readonly` and `can_move`, flags
//! these loads cannot have (the warp state and `env.warp` change inside the call); the quick
//! tier keeps everything. So each such load stayed in the machine code and ran on every
//! warp.
//!
//! Block parameters are not followed: an argument a branch passes counts as read even where
//! the parameter is not, so the loads feeding such arguments stay. (`saxpy`'s full-warp
//! version still loads four environment fields per warp that its machine code never reads;
//! which reader keeps them was not found.)
//!
//! # Soundness
//! An instruction is kept when it has an effect besides its results, with Cranelift's own
//! rule (`inst_predicates`): a call, branch, terminator or return, one that can trap, store
//! or has other side effects, and any load except one in the `Load` format (`load`, the
//! extending and vector loads) with the `notrap` flag, which reads memory and does nothing
//! else (atomic loads have another format). It is also kept when a kept instruction reads one
//! of its results (or an alias of one), directly or through other kept instructions. Every
//! other instruction only computes values that no effect depends on, so the function
//! computes the same without it. Block parameters are left alone (their arguments are read by
//! branches, which are kept, so every value a branch passes stays).

use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::{Function, Inst, InstructionData, ValueDef};

/// Whether `inst` has an effect besides its results (see the module docs).
fn has_effect(func: &Function, inst: Inst) -> bool {
    let data = &func.dfg.insts[inst];
    let op = data.opcode();
    let trivial = op.is_call()
        || op.is_branch()
        || op.is_terminator()
        || op.is_return()
        || op.can_trap()
        || op.other_side_effects()
        || op.can_store();
    let quiet_load = match *data {
        InstructionData::Load { flags, .. } => func.dfg.mem_flags[flags].notrap(),
        _ => false,
    };
    trivial || op.can_load() && !quiet_load
}

/// Remove from `func`'s layout every instruction that has no effect and whose results no
/// kept instruction reads (see the module docs). Returns how many were removed.
pub(super) fn remove_dead_code(func: &mut Function) -> usize {
    let mut live = vec![false; func.dfg.num_insts()];
    let mut work = vec![];
    let mut all = vec![];
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            all.push(inst);
            if has_effect(func, inst) {
                live[inst.index()] = true;
                work.push(inst);
            }
        }
    }
    while let Some(inst) = work.pop() {
        for v in func.dfg.inst_values(inst) {
            let v = func.dfg.resolve_aliases(v);
            if let ValueDef::Result(def, _) = func.dfg.value_def(v) {
                if let Some(l) = live.get_mut(def.index()) {
                    if !*l {
                        *l = true;
                        work.push(def);
                    }
                }
            }
        }
    }
    let mut removed = 0;
    for inst in all {
        if !live[inst.index()] {
            func.layout.remove_inst(inst);
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::remove_dead_code;
    use cranelift_codegen::ir::{types, AbiParam, Function, InstBuilder, MemFlagsData};
    use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
    use target_lexicon::PointerWidth;

    /// `fn(p) -> i32`: a used load with an addition; an unread `notrap` load; an unread
    /// `notrap` load whose address only an unread shift reads; an unread load that may trap;
    /// a store of a loaded value.
    #[test]
    fn unread_quiet_instructions_go() {
        let mut func = Function::new();
        func.signature.params.push(AbiParam::new(types::I64));
        func.signature.returns.push(AbiParam::new(types::I32));
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let p = b.block_params(entry)[0];
        let nt = MemFlagsData::trusted();
        let used = b.ins().load(types::I32, nt, p, 0);
        let sum = b.ins().iadd_imm_s(used, 1);
        b.ins().load(types::I32, nt, p, 4);
        let q = b.ins().load(types::I64, nt, p, 8);
        let q2 = b.ins().ishl_imm_s(q, 2);
        b.ins().load(types::I32, nt, q2, 0);
        b.ins().load(types::I32, MemFlagsData::new(), p, 16);
        let stored = b.ins().load(types::I32, nt, p, 20);
        b.ins().store(nt, stored, p, 24);
        b.ins().return_(&[sum]);
        b.seal_all_blocks();
        b.finalize(TargetFrontendConfig {
            default_call_conv: CallConv::SystemV,
            pointer_width: PointerWidth::U64,
            page_size_align_log2: 12,
        });
        let count = |f: &Function| {
            f.layout
                .blocks()
                .flat_map(|bl| f.layout.block_insts(bl))
                .count()
        };
        // `iadd_imm_s` and `ishl_imm_s` are an `iconst` and the operation each.
        assert_eq!(count(&func), 12);
        assert_eq!(remove_dead_code(&mut func), 5);
        assert_eq!(count(&func), 7);
        let text = func.display().to_string();
        for kept in [
            "load.i32 notrap aligned v0\n",
            "iadd",
            "load.i32 v0+16",
            "load.i32 notrap aligned v0+20",
            "store notrap aligned",
            "return",
        ] {
            assert!(text.contains(kept), "{kept} missing: {text}");
        }
        for gone in ["v0+4", "v0+8", "ishl", "iconst.i64"] {
            assert!(!text.contains(gone), "{gone} kept: {text}");
        }
    }
}
