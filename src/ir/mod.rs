//! The ptxjit IR: typed SSA over a control-flow graph with block parameters.
//!
//! # Model
//! A [`Function`] is one kernel, written from the point of view of **one PTX thread**: SSA values
//! are per-thread values, and each engine runs a warp of 32 threads (lanes) through it under an
//! execution mask. Control flow is a CFG of [`Block`]s; a block's parameters are its φ-nodes, and
//! every [`Terminator`] passes arguments to the blocks it branches to. Thread divergence is not
//! visible in the IR: it is the engines' job (see `analysis::schedule`).
//!
//! Entities ([`Value`], [`Inst`], [`Block`]) are `u32` handles into the function's tables.
//! Instruction data (`insts`), block contents (`blocks`) and value types (`values`) live apart;
//! source locations are a side table (`inst_locs`).
//!
//! Stage order is a type: engines take a [`verify::VerifiedFunction`], which only
//! [`verify::verify`] can make.

pub mod cluster;
pub mod mbarrier;
pub mod mma;
pub mod ops;
pub mod print;
pub mod tcgen05;
pub mod tma;
pub mod types;
pub mod verify;
pub mod wgmma;

pub use cluster::{ClusterBarOp, ClusterDirectives};
pub use mbarrier::MbarOp;
pub use mma::{MmaBitOp, MmaElem, MmaFamily, MmaFrag, MmaScale, MmaScaleKind, MmaSparse, MmaSpec};
pub use ops::{Effect, Op, OP_TABLE};
pub use tcgen05::{
    Tc05Collector, Tc05CpShape, Tc05CpUnpack, Tc05Kind, Tc05LdSt, Tc05Mma, Tc05Op, Tc05Red,
    Tc05RedType, Tc05Shape,
};
pub use tma::{LoadMode, TensorOp, TmapField};
pub use types::*;
pub use wgmma::{WgmmaA, WgmmaSpec};

/// The PTX text of the instructions `lower::yields` adds for a yield point (no PTX
/// instruction of their own): reports say "spinning in a loop" where they see it.
pub const YIELD_POINT_PTX: &str = "(yield point)";

macro_rules! entity {
    ($(#[doc = $doc:literal])* $name:ident, $prefix:literal) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The handle's index into its table.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity!(
    /// An SSA value: an instruction result or a block parameter.
    Value,
    "v"
);
entity!(
    /// An instruction.
    Inst,
    "i"
);
entity!(
    /// A basic block.
    Block,
    "block"
);

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// Result number `n` of an instruction.
    Result(Inst, u8),
    /// Parameter number `n` of a block.
    Param(Block, u16),
}

/// Type and definition of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

/// An instruction: the operation with its fixed modifiers, then operands and results.
#[derive(Clone, Debug, PartialEq)]
pub struct InstData {
    pub op: Op,
    pub args: Vec<Value>,
    pub results: Vec<Value>,
}

/// A branch target with the arguments for its block parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockCall {
    pub block: Block,
    pub args: Vec<Value>,
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    /// Unconditional branch (`bra`).
    Jump(BlockCall),
    /// Two-way branch on a predicate value: per-lane, lanes may diverge (`@p bra`).
    Branch {
        cond: Value,
        then_: BlockCall,
        else_: BlockCall,
    },
    /// The thread finishes (`ret` or `exit` in a kernel).
    Exit,
    /// Wait at a CTA barrier (PTX ISA §9.7.13.1): the thread waits until the barrier its
    /// preceding `barrier` op (`Op::BarArrive`) arrived at completes, then continues in `next`.
    /// Without such an op, it waits at barrier 0 for all non-exited threads of the CTA.
    Barrier { next: BlockCall },
    /// `trap`: the thread faults.
    Trap,
}

impl Terminator {
    /// The branch targets, in order.
    pub fn targets(&self) -> Vec<&BlockCall> {
        match self {
            Terminator::Jump(c) => vec![c],
            Terminator::Branch { then_, else_, .. } => vec![then_, else_],
            Terminator::Barrier { next } => vec![next],
            Terminator::Exit | Terminator::Trap => vec![],
        }
    }

    /// Target number `slot` of [`Terminator::targets`], without building the list.
    pub fn target(&self, slot: usize) -> Option<&BlockCall> {
        match self {
            Terminator::Jump(c) | Terminator::Barrier { next: c } => (slot == 0).then_some(c),
            Terminator::Branch { then_, else_, .. } => match slot {
                0 => Some(then_),
                1 => Some(else_),
                _ => None,
            },
            Terminator::Exit | Terminator::Trap => None,
        }
    }

    /// Target number `slot` of [`Terminator::targets_mut`], without building the list.
    pub fn target_mut(&mut self, slot: usize) -> Option<&mut BlockCall> {
        match self {
            Terminator::Jump(c) | Terminator::Barrier { next: c } => (slot == 0).then_some(c),
            Terminator::Branch { then_, else_, .. } => match slot {
                0 => Some(then_),
                1 => Some(else_),
                _ => None,
            },
            Terminator::Exit | Terminator::Trap => None,
        }
    }

    pub fn targets_mut(&mut self) -> Vec<&mut BlockCall> {
        match self {
            Terminator::Jump(c) => vec![c],
            Terminator::Branch { then_, else_, .. } => vec![then_, else_],
            Terminator::Barrier { next } => vec![next],
            Terminator::Exit | Terminator::Trap => vec![],
        }
    }
}

/// A basic block: parameters, instructions in order, and a terminator.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockData {
    pub params: Vec<Value>,
    pub insts: Vec<Inst>,
    pub term: Terminator,
    /// Source location of the terminator.
    pub term_loc: SrcLoc,
}

/// A PTX source location: line and column in the PTX text (1-based; 0 = unknown), and the
/// device function the instruction belongs to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SrcLoc {
    pub line: u32,
    pub col: u32,
    /// 0: the kernel's own body; `k` ≥ 1: the body of the device function (`.func`) of
    /// [`Function::call_frames`]`[k - 1]`, inlined at that frame's call.
    pub frame: u32,
}

/// The most local memory a thread may have, in bytes: its `.local` variables and frames plus
/// its call stack (CUDA's 512 KiB per thread). A launch of a kernel that needs more fails
/// (ptxas compiles such a kernel, and the other kernels of its module run).
pub const MAX_LOCAL_BYTES: u64 = 512 * 1024;

/// The most local memory per thread a kernel may declare and still load, in bytes (offsets
/// into local memory stay far from 32-bit limits); a module with a larger kernel fails to
/// load.
pub const MAX_LOCAL_BYTES_LOADED: u64 = 1 << 30;

/// The local memory a kernel lays out that first takes it past [`MAX_LOCAL_BYTES`] per thread:
/// a `.local` declaration (of the kernel or of a device function inlined into it) or a call's
/// parameter slots, for the report of a launch that needs too much local memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalPast {
    /// What it is: `.local variable 'buf'`, `the parameters of a call to 'f'`.
    pub what: String,
    /// Its bytes.
    pub bytes: u64,
    /// Where it is in the PTX (the declaration, or the `call`).
    pub loc: SrcLoc,
}

/// A device function (`.func`, PTX ISA §11.3.2) whose body the kernel runs, for fault
/// reports' call stacks: the function and the `call` (PTX ISA §9.7.12.5) that entered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallFrame {
    /// The function's name as the PTX declares it.
    pub function: String,
    /// The `call` instruction's PTX location (its `frame` is the caller's); `None` for a
    /// function run on the per-thread call stack (recursive, or called through a pointer),
    /// whose caller is only known at run time.
    pub site: Option<SrcLoc>,
}

/// What a memory operation does to order other threads' accesses, from its memory-order
/// qualifier (PTX ISA §8, Memory Consistency Model: release and acquire patterns; §9.7.9.8
/// `ld`, §9.7.9.11 `st`, §9.7.13.5 `atom`, §9.7.13.6 `red`). A release publishes every
/// access of the thread before it to the threads whose acquire of the same location observes
/// it (or a later value of the location's atomic updates).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemSync {
    /// A weak access (no qualifier), and every operation that is not a memory access or a
    /// fence: no ordering of its own.
    #[default]
    None,
    /// A strong access with no ordering of its own: `.relaxed`, `.volatile` (which PTX ISA §8
    /// treats as `.relaxed.sys`) or `.mmio`. It takes part in the release and acquire
    /// patterns of fences (a fence then a strong write; a strong read then a fence).
    Relaxed,
    /// `ld.acquire`, `atom.acquire`: later accesses of the thread are ordered after the
    /// releases it observes. On a fence (`fence.acquire`): the fence of an acquire pattern.
    Acquire,
    /// `st.release`, `atom.release`, `red.release`: earlier accesses of the thread are ordered
    /// before the acquires that observe it. On a fence (`fence.release`): the fence of a
    /// release pattern.
    Release,
    /// `atom.acq_rel`: both. On a fence: `fence.acq_rel` (or no semantics qualifier), a fence
    /// of both patterns (PTX ISA §9.7.13.4).
    AcqRel,
    /// On a fence only: `fence.sc`, `membar` (PTX ISA §9.7.13.4): both patterns, and
    /// synchronizes with every later `fence.sc` (PTX ISA §8, Fence-SC order).
    SeqCst,
}

impl MemSync {
    /// Whether the operation acquires (`.acquire`, `.acq_rel`).
    pub fn acquires(self) -> bool {
        match self {
            MemSync::Acquire | MemSync::AcqRel | MemSync::SeqCst => true,
            MemSync::None | MemSync::Relaxed | MemSync::Release => false,
        }
    }

    /// Whether the operation releases (`.release`, `.acq_rel`).
    pub fn releases(self) -> bool {
        match self {
            MemSync::Release | MemSync::AcqRel | MemSync::SeqCst => true,
            MemSync::None | MemSync::Relaxed | MemSync::Acquire => false,
        }
    }
}

/// A kernel parameter as laid out in the parameter buffer (PTX ISA §5.1.6.1).
#[derive(Clone, Debug, PartialEq)]
pub struct KernelParam {
    pub name: String,
    /// The declared PTX type (`u32`, `u64`, `f32`, `b8` …) as written, for argument checks.
    pub ptx_type: String,
    /// Size in bytes (element size × array length).
    pub size: u32,
    pub align: u32,
    /// Byte offset in the parameter buffer.
    pub offset: u32,
    /// Whether the parameter is scalar integer-like, float, or an array/aggregate.
    pub kind: ParamKind,
}

/// What kind of host argument a parameter accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An integer of `size` bytes (a 64-bit one also accepts a device pointer).
    Int { signed: bool },
    /// A float of `size` bytes.
    Float,
    /// An aggregate passed by value as raw bytes (`.param .align 8 .b8 p[16]`).
    Bytes,
}

/// A variable the kernel references in a state space other than registers.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: String,
    pub space: Space,
    /// Size in bytes; 0 for `extern .shared` (dynamic shared memory, sized at launch).
    pub size: u64,
    pub align: u32,
    /// Byte offset in its space's static area (shared: from the CTA's shared base;
    /// global/const: from the module's data segment).
    pub offset: u64,
    /// Initial bytes (global/const), empty = zero-filled.
    pub init: Vec<u8>,
    /// `.texref`/`.samplerref`/`.surfref` variables: which (the 8 bytes hold a handle).
    pub handle: Option<HandleKind>,
    /// A `.samplerref` or `.texref` with an initializer: its sampler state. The module load
    /// creates a `.samplerref`'s sampler and stores its handle in the variable; a `.texref`'s
    /// state is where a binding starts (`Module::texref_sampler`).
    pub sampler_init: Option<SamplerInit>,
    /// Elements of `init` that hold another module variable's address, written when the
    /// module loads and every variable has its device address (PTX ISA §5.4.4).
    pub relocs: Vec<Reloc>,
    /// A `.global .attribute(.managed)` variable (CUDA's `__managed__`).
    pub managed: bool,
}

/// An element of a module variable's initial value that holds the address of a `.global` or
/// `.const` variable (PTX ISA §5.4.4 "Initializers": `.global .u64 p = generic(x)+8;`,
/// `.global .u8 b[8] = {0xFF(x), 0xFF00(x), ...};`). Its value is the target's device
/// address plus `addend` (a `.const` variable's address in its state space is its device
/// address too, so `x` and `generic(x)` give the same value); with `byte = Some(k)` (the
/// `mask()` operator `0xFF << 8k`) only byte `k` of that, moved to bit 0. The value is stored
/// little-endian in `size` bytes at byte `at` of the variable, truncated to them (a `.u32`
/// element holds the low 32 bits of a 64-bit address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// Byte offset of the element in the variable.
    pub at: u64,
    /// Element size in bytes: 1, 4 or 8.
    pub size: u8,
    /// Index of the target variable in [`Module::globals`].
    pub target: u32,
    /// Bytes added to the target's address (`x+8`).
    pub addend: i64,
    /// `mask()`: which byte of the address the element holds.
    pub byte: Option<u8>,
}

impl Reloc {
    /// The element's bytes (`size` of them, little-endian) when the target lives at device
    /// address `base`.
    pub fn bytes(&self, base: u64) -> Vec<u8> {
        let mut v = base.wrapping_add(self.addend as u64);
        if let Some(k) = self.byte {
            v = (v >> (8 * u32::from(k))) & 0xff;
        }
        v.to_le_bytes()[..usize::from(self.size).min(8)].to_vec()
    }
}

/// Address mode of a `.samplerref` initializer (PTX ISA §5.3.2; `clamp_ogl` and
/// `clamp_to_edge` both clamp to the edge texel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SamplerAddr {
    Wrap,
    Mirror,
    #[default]
    Clamp,
    Border,
}

/// The sampler state a `.samplerref` initializer gives; unnamed fields keep their defaults
/// (clamp to edge, nearest, normalized coordinates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SamplerInit {
    pub address: [SamplerAddr; 3],
    pub linear: bool,
    pub unnormalized: bool,
}

/// One kernel in IR form.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub params: Vec<KernelParam>,
    /// Total size of the parameter buffer in bytes.
    pub param_bytes: u32,
    pub values: Vec<ValueData>,
    pub insts: Vec<InstData>,
    pub blocks: Vec<BlockData>,
    pub entry: Block,
    /// PTX location of each instruction (side table, indexed by [`Inst`]).
    pub inst_locs: Vec<SrcLoc>,
    /// The device functions whose bodies the kernel runs (see [`SrcLoc::frame`]).
    pub call_frames: Vec<CallFrame>,
    /// The PTX instruction text (opcode with modifiers) each IR instruction came from, for
    /// fault reports; indexed by [`Inst`].
    pub inst_ptx: Vec<String>,
    /// The memory-order qualifier of each instruction (side table, indexed by [`Inst`]):
    /// what racecheck orders accesses by. The engines ignore it (they run a CTA on one host
    /// thread, where every access is already ordered).
    pub inst_sync: Vec<MemSync>,
    /// Bytes of static shared memory (`.shared` variables), before any dynamic part.
    pub static_shared_bytes: u64,
    /// Whether the kernel (or a function it may call) names an `extern .shared` array:
    /// dynamic shared memory, which starts at `static_shared_bytes` rounded up to 16 and is
    /// sized at launch. A module-scope array that the kernel never names does not count.
    pub dynamic_shared: bool,
    /// Bytes of local memory per thread, the call stack not included.
    pub local_bytes: u64,
    /// The offset in each thread's local memory where its call stack begins (after
    /// `local_bytes`, rounded up to 16), when the kernel has recursive or indirect calls
    /// (`lower::recurse`). The stack's size is the launch's: each thread then has this offset
    /// plus the launch's stack bytes of local memory, at most [`MAX_LOCAL_BYTES`].
    pub call_stack: Option<u64>,
    /// The local memory that takes the kernel past [`MAX_LOCAL_BYTES`] per thread, when its
    /// own local memory is more than that (its launches then fail, naming it).
    pub local_past: Option<LocalPast>,
    /// `.reqntid`/`.maxntid` limits, if declared.
    pub max_threads: Option<u32>,
    /// The exact CTA shape `[x, y, z]` a `.reqntid` directive requires (missing dimensions
    /// are 1; PTX ISA §11.4.3); a launch with another block shape is an error.
    pub req_ntid: Option<[u32; 3]>,
    /// `.reqnctapercluster`, `.explicitcluster`, `.maxclusterrank`.
    pub cluster: ClusterDirectives,
    /// The kernel's `.shared` variables (those of the functions it may call included), for
    /// reports that name the variable at a shared address: name, offset and size in bytes
    /// (an `extern .shared` array: offset of dynamic shared memory, size 0 for "to the end").
    pub shared_vars: Vec<SharedVar>,
    /// Whether the module's `.target` is older than `sm_70` (or names none), where a warp
    /// runs in lockstep: no independent thread scheduling (PTX ISA §9.7.13, "Parallel
    /// Synchronization and Communication Instructions"). Both engines then keep lockstep
    /// order (`analysis::segment::WarpOrder`); otherwise a launch asks for it.
    pub lockstep: bool,
}

/// A `.shared` variable of a kernel ([`Function::shared_vars`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedVar {
    pub name: String,
    /// Byte offset in the CTA's shared memory.
    pub offset: u64,
    /// Bytes; 0 for an `extern .shared` array (it runs to the end of shared memory).
    pub size: u64,
}

impl Function {
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v.index()].ty
    }

    pub fn inst(&self, i: Inst) -> &InstData {
        &self.insts[i.index()]
    }

    /// The raw bits of `v` when an `Op::Const` defines it (the constant's type in
    /// [`value_type`](Self::value_type); bits above its width are zero), else `None`.
    pub fn const_bits(&self, v: Value) -> Option<u64> {
        match self.values[v.index()].def {
            ValueDef::Result(i, 0) => match self.inst(i).op {
                Op::Const { bits } => Some(bits),
                _ => None,
            },
            ValueDef::Result(..) | ValueDef::Param(..) => None,
        }
    }

    pub fn block(&self, b: Block) -> &BlockData {
        &self.blocks[b.index()]
    }

    /// Add a value of type `ty` defined by `def`.
    pub fn new_value(&mut self, ty: Type, def: ValueDef) -> Value {
        self.values.push(ValueData { ty, def });
        Value(self.values.len() as u32 - 1)
    }

    /// Add an empty block ending in `Trap` (to be replaced by its real terminator).
    pub fn new_block(&mut self) -> Block {
        self.blocks.push(BlockData {
            params: vec![],
            insts: vec![],
            term: Terminator::Trap,
            term_loc: SrcLoc::default(),
        });
        Block(self.blocks.len() as u32 - 1)
    }

    /// Append an instruction to `block`, creating result values of the given types.
    pub fn push_inst(
        &mut self,
        block: Block,
        op: Op,
        args: Vec<Value>,
        result_tys: &[Type],
        loc: SrcLoc,
        ptx: &str,
    ) -> Inst {
        let inst = Inst(self.insts.len() as u32);
        let results = result_tys
            .iter()
            .enumerate()
            .map(|(n, &ty)| self.new_value(ty, ValueDef::Result(inst, n as u8)))
            .collect();
        self.insts.push(InstData { op, args, results });
        self.inst_locs.push(loc);
        self.inst_ptx.push(ptx.to_string());
        self.inst_sync.push(MemSync::None);
        self.blocks[block.index()].insts.push(inst);
        inst
    }

    /// Add a parameter of type `ty` to `block`.
    pub fn push_block_param(&mut self, block: Block, ty: Type) -> Value {
        let n = self.blocks[block.index()].params.len() as u16;
        let v = self.new_value(ty, ValueDef::Param(block, n));
        self.blocks[block.index()].params.push(v);
        v
    }

    /// Successor blocks of `b`.
    pub fn successors(&self, b: Block) -> Vec<Block> {
        self.block(b)
            .term
            .targets()
            .iter()
            .map(|c| c.block)
            .collect()
    }
}

/// A lowered module: its kernels and the module-scope variables they use.
#[derive(Clone, Debug)]
pub struct Module {
    pub kernels: Vec<Function>,
    /// Module-scope `.global` and `.const` variables; `SymAddr` refers to these by index for
    /// those spaces.
    pub globals: Vec<Variable>,
    /// Total bytes of the module's global data segment.
    pub global_bytes: u64,
    /// Total bytes of the module's constant bank.
    pub const_bytes: u64,
    /// The highest `sm_NN`/`compute_NN` architecture of the module's `.target` list
    /// (`sm_90a` → 90): the virtual architecture the PTX was generated for; `None` when it
    /// names none.
    pub target_sm: Option<u32>,
}
