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
//! Blocks no branch reaches from the entry block are removed first: code built after a
//! branch decided at compile time can be unreachable, and the calls and branches there,
//! which have effects, would otherwise keep the values they read, such as the preheader's
//! loads, until Cranelift removes the unreachable blocks itself, after this pass and too
//! late for its egraph to drop those loads. (`saxpy`'s full-warp version loaded four
//! environment fields per warp that its machine code never read, when its accesses' fallbacks
//! were still built there; `Gen::branch_ok` now leaves them out. Building less is cheaper
//! than removing: about 660 `Ir` per instruction built, besides this pass's work.)
//!
//! Block parameters are followed too: a parameter is live only when a kept instruction reads
//! it, or a branch passes it on to a live parameter; a value a branch passes to a dead
//! parameter is not read by that, and the dead parameter and the matching argument of every
//! branch to its block are removed.
//!
//! # Soundness
//! An instruction is kept when it has an effect besides its results, with Cranelift's own
//! rule (`inst_predicates`): a call, branch, terminator or return, one that can trap, store
//! or has other side effects, and any load except one in the `Load` format (`load`, the
//! extending and vector loads) with the `notrap` flag, which reads memory and does nothing
//! else (atomic loads have another format). It is also kept when a kept instruction reads one
//! of its results (or an alias of one) as an operand, or a branch passes one of its results
//! to a live block parameter, directly or through other kept instructions and parameters.
//! The entry block's parameters (the function's arguments) are always live, and so are those
//! of a block that a branch with other than plain value arguments (`try_call`'s results)
//! enters. Every other instruction and parameter only carries values that no effect depends
//! on, so the function computes the same without them; a branch's operands (its condition,
//! `br_table`'s index) are read by the branch itself and stay.

use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::{Block, BlockArg, Function, Inst, InstructionData, Value, ValueDef};

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

/// What [`remove_dead_code`] removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Removed {
    /// Instructions taken out of the layout.
    pub(super) insts: usize,
    /// Block parameters removed (with the matching argument of each branch to the block).
    pub(super) params: usize,
    /// Unreachable blocks removed (their instructions are counted in `insts`).
    pub(super) blocks: usize,
}

/// Remove from `func`'s layout the blocks that no chain of branches from the entry block
/// reaches, with their instructions; returns (blocks, instructions) removed.
fn remove_unreachable(func: &mut Function) -> (usize, usize) {
    let Some(entry) = func.layout.entry_block() else {
        return (0, 0);
    };
    // Indexed by block number (the pass runs on every compilation: no hashing).
    let mut seen = vec![false; func.dfg.num_blocks()];
    seen[entry.index()] = true;
    let mut work = vec![entry];
    while let Some(block) = work.pop() {
        let dfg = &func.dfg;
        // A block's only branch is its terminator, its last instruction (Cranelift's rule).
        if let Some(inst) = func.layout.last_inst(block) {
            let calls = dfg.insts[inst].branch_destination(&dfg.jump_tables, &dfg.exception_tables);
            for call in calls {
                let to = call.block(&dfg.value_lists);
                if !seen[to.index()] {
                    seen[to.index()] = true;
                    work.push(to);
                }
            }
        }
    }
    let gone: Vec<Block> = func.layout.blocks().filter(|b| !seen[b.index()]).collect();
    let mut insts = 0;
    for &block in &gone {
        while let Some(inst) = func.layout.first_inst(block) {
            func.layout.remove_inst(inst);
            insts += 1;
        }
        func.layout.remove_block(block);
    }
    (gone.len(), insts)
}

/// The branches into each block, indexed by block number: the branch instruction and the
/// index of the block call in its destinations.
type Edges = Vec<Vec<(Inst, usize)>>;

/// The branches into each block of `func`'s layout (indexed by block number): the branch
/// instruction and the index of the block call in its destinations. Blocks whose parameters
/// must all stay (the entry block, a block entered with other than plain value arguments)
/// are marked in the second result.
fn edges(func: &Function) -> (Edges, Vec<bool>) {
    let dfg = &func.dfg;
    let mut into: Edges = vec![vec![]; dfg.num_blocks()];
    let mut pinned = vec![false; dfg.num_blocks()];
    if let Some(entry) = func.layout.entry_block() {
        pinned[entry.index()] = true;
    }
    for block in func.layout.blocks() {
        // A block's only branch is its terminator, its last instruction.
        if let Some(inst) = func.layout.last_inst(block) {
            let calls = dfg.insts[inst].branch_destination(&dfg.jump_tables, &dfg.exception_tables);
            let plain = matches!(
                dfg.insts[inst],
                InstructionData::Jump { .. }
                    | InstructionData::Brif { .. }
                    | InstructionData::BranchTable { .. }
            );
            for (k, call) in calls.iter().enumerate() {
                let to = call.block(&dfg.value_lists);
                let values = call
                    .args(&dfg.value_lists)
                    .all(|a| matches!(a, BlockArg::Value(_)));
                if !(plain && values) {
                    pinned[to.index()] = true;
                }
                into[to.index()].push((inst, k));
            }
        }
    }
    (into, pinned)
}

/// Remove from `func`'s layout every block no branch reaches, every instruction that has no
/// effect and whose results nothing live reads, and every block parameter nothing live reads,
/// with the branch arguments passed to it (see the module docs).
pub(super) fn remove_dead_code(func: &mut Function) -> Removed {
    let (blocks, unreachable_insts) = remove_unreachable(func);
    let (into, pinned) = edges(func);
    let mut live_inst = vec![false; func.dfg.num_insts()];
    let mut live_value = vec![false; func.dfg.num_values()];
    let mut work: Vec<Value> = Vec::with_capacity(func.dfg.num_values());
    let mut all = Vec::with_capacity(func.dfg.num_insts());
    let mark_inst = |inst: Inst, live_inst: &mut Vec<bool>, work: &mut Vec<Value>, f: &Function| {
        if let Some(l) = live_inst.get_mut(inst.index()) {
            if !*l {
                *l = true;
                work.extend_from_slice(f.dfg.inst_args(inst));
            }
        }
    };
    for block in func.layout.blocks() {
        if pinned[block.index()] {
            work.extend_from_slice(func.dfg.block_params(block));
        }
        for inst in func.layout.block_insts(block) {
            all.push(inst);
            if has_effect(func, inst) {
                mark_inst(inst, &mut live_inst, &mut work, func);
            }
        }
    }
    while let Some(v) = work.pop() {
        let v = func.dfg.resolve_aliases(v);
        match func.dfg.value_def(v) {
            ValueDef::Result(inst, _) => mark_inst(inst, &mut live_inst, &mut work, func),
            ValueDef::Param(block, num) => {
                let Some(l) = live_value.get_mut(v.index()) else {
                    continue;
                };
                if *l {
                    continue;
                }
                *l = true;
                let dfg = &func.dfg;
                for &(inst, k) in into.get(block.index()).map_or(&[][..], |e| e) {
                    let calls =
                        dfg.insts[inst].branch_destination(&dfg.jump_tables, &dfg.exception_tables);
                    if let Some(BlockArg::Value(a)) = calls[k].args(&dfg.value_lists).nth(num) {
                        work.push(a);
                    }
                }
            }
            ValueDef::Union(x, y) => work.extend([x, y]),
        }
    }
    let mut removed = Removed {
        insts: unreachable_insts,
        params: 0,
        blocks,
    };
    let blocks: Vec<Block> = func.layout.blocks().collect();
    let mut dead: Vec<usize> = vec![];
    for block in blocks {
        if pinned[block.index()] {
            continue;
        }
        let params = func.dfg.block_params(block);
        dead.clear();
        dead.extend((0..params.len()).filter(|&i| !live_value[params[i].index()]));
        if dead.is_empty() {
            continue;
        }
        let params = params.to_vec();
        for &(inst, k) in into.get(block.index()).map_or(&[][..], |e| e) {
            let dfg = &mut func.dfg;
            let calls = dfg.insts[inst]
                .branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables);
            // A jump table two `br_table`s share is edited once.
            if calls[k].len(&dfg.value_lists) != params.len() {
                continue;
            }
            for &i in dead.iter().rev() {
                calls[k].remove(i, &mut dfg.value_lists);
            }
        }
        for &i in dead.iter().rev() {
            func.dfg.remove_block_param(params[i]);
            removed.params += 1;
        }
    }
    for inst in all {
        if !live_inst[inst.index()] {
            func.layout.remove_inst(inst);
            removed.insts += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::{remove_dead_code, Removed};
    use cranelift_codegen::ir::{
        types, AbiParam, BlockArg, Function, InstBuilder, JumpTableData, MemFlagsData,
    };
    use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
    use cranelift_codegen::settings;
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
        assert_eq!(remove_dead_code(&mut func).insts, 5);
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

    /// A value passed only along a chain of block parameters that nothing reads (through
    /// `brif`'s two arms, a `jump`, `br_table`'s default and entries, an unread addition and a
    /// loop's back edge) goes with its parameters and arguments; a value passed along the
    /// same edges to a parameter `return` reads stays, with every parameter on its way. A
    /// block no branch enters goes, and what it alone read.
    #[test]
    fn unread_block_parameters_go() {
        let mut func = Function::new();
        func.signature.params.push(AbiParam::new(types::I64));
        func.signature.returns.push(AbiParam::new(types::I32));
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let [b0, b1, b2, b3, b4, b5] = [(); 6].map(|_| b.create_block());
        b.append_block_params_for_function_params(b0);
        let i32p = |b: &mut FunctionBuilder, blk| {
            [
                b.append_block_param(blk, types::I32),
                b.append_block_param(blk, types::I32),
            ]
        };
        let nt = MemFlagsData::trusted();
        b.switch_to_block(b0);
        let v0 = b.block_params(b0)[0];
        let v1 = b.ins().load(types::I32, nt, v0, 0);
        let v2 = b.ins().load(types::I32, nt, v0, 4);
        let v3 = b.ins().load(types::I32, nt, v0, 8);
        let arg = |v| BlockArg::Value(v);
        b.ins()
            .brif(v3, b1, &[arg(v1), arg(v2)], b2, &[arg(v1), arg(v2)]);
        let [v4, v5] = i32p(&mut b, b1);
        let [v6, v7] = i32p(&mut b, b2);
        let [v8, v9] = i32p(&mut b, b3);
        b.switch_to_block(b1);
        b.ins().jump(b3, &[arg(v4), arg(v5)]);
        b.switch_to_block(b2);
        let v10 = b.ins().iadd(v6, v6);
        let def = b.func.dfg.block_call(b3, &[arg(v10), arg(v7)]);
        let e0 = b.func.dfg.block_call(b3, &[arg(v6), arg(v7)]);
        let e1 = b.func.dfg.block_call(b1, &[arg(v10), arg(v7)]);
        let jt = b.create_jump_table(JumpTableData::new(def, &[e0, e1]));
        b.ins().br_table(v3, jt);
        b.switch_to_block(b3);
        let v11 = b.ins().load(types::I32, nt, v0, 12);
        b.ins().brif(v11, b3, &[arg(v8), arg(v9)], b4, &[]);
        b.switch_to_block(b4);
        b.ins().return_(&[v9]);
        // No branch enters: its store and `return` read `v1` and `v8` for nothing.
        b.switch_to_block(b5);
        b.ins().store(nt, v1, v0, 16);
        b.ins().return_(&[v8]);
        b.seal_all_blocks();
        b.finalize(TargetFrontendConfig {
            default_call_conv: CallConv::SystemV,
            pointer_width: PointerWidth::U64,
            page_size_align_log2: 12,
        });
        let flags = settings::Flags::new(settings::builder());
        cranelift_codegen::verify_function(&func, &flags).unwrap();
        assert_eq!(
            remove_dead_code(&mut func),
            Removed {
                insts: 4,
                params: 3,
                blocks: 1
            }
        );
        cranelift_codegen::verify_function(&func, &flags).unwrap();
        let expected = "\
block0(v0: i64):
    v2 = load.i32 notrap aligned v0+4
    v3 = load.i32 notrap aligned v0+8
    brif v3, block1(v2), block2(v2)

block1(v5: i32):
    jump block3(v5)

block2(v7: i32):
    br_table v3, block3(v7), [block3(v7), block1(v7)]

block3(v9: i32):
    v11 = load.i32 notrap aligned v0+12
    brif v11, block3(v9), block4

block4:
    return v9
}
";
        let text = func.display().to_string();
        let body = &text[text.find("block0").unwrap()..];
        assert_eq!(body, expected);
    }
}
