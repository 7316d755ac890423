//! The operation table: every IR operation is described once here, with its mnemonic, the PTX ISA
//! section whose semantics it implements, and a doc line. The printer, verifier, interpreter,
//! JIT backend and coverage report all follow from it; matches over [`Op`] are exhaustive, so a
//! new operation does not compile until every consumer handles it.
//!
//! Operand conventions (the verifier enforces them, [`Op::signature`]):
//! - binary arithmetic takes two values of the result type;
//! - comparisons take two values and produce a `Pred`;
//! - memory operations take an address value (`i64`, or `i32` for the 32-bit shared/param/const
//!   forms) first.

use super::types::*;

macro_rules! op_table {
    ($(
        $(#[doc = $doc:literal])+
        [$sec:literal]
        $name:ident { $($field:ident : $fty:ty),* } => $mn:literal;
    )*) => {
        /// An IR operation with its fixed modifiers. Operands and results live in
        /// [`InstData`](super::InstData).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op {
            $( $(#[doc = $doc])+ $name { $($field: $fty),* }, )*
        }

        impl Op {
            /// The printed mnemonic (`iadd`, `ld`, `shfl`).
            pub fn mnemonic(&self) -> &'static str {
                match self { $( Op::$name { .. } => $mn, )* }
            }
            /// The PTX ISA section implemented (ISA 9.x numbering).
            pub fn section(&self) -> &'static str {
                match self { $( Op::$name { .. } => $sec, )* }
            }
            /// One-line description.
            pub fn doc(&self) -> &'static str {
                match self { $( Op::$name { .. } => concat!($($doc),+), )* }
            }
        }

        /// (mnemonic, PTX ISA section, description) of every operation, in table order.
        pub const OP_TABLE: &[(&str, &str, &str)] = &[ $( ($mn, $sec, concat!($($doc),+)), )* ];
    };
}

op_table! {
    /// A constant of the result type; `bits` holds the value's bit pattern, zero-extended.
    ["4.5"] Const { bits: u64 } => "const";
    /// Read a special register (32-bit).
    ["10"] SReg { reg: SReg } => "sreg";
    /// Address of a module or kernel variable in its own state space (global: a device
    /// address; shared/const/local: the offset in that space).
    ["6.4.1"] SymAddr { sym: u32, space: Space } => "symaddr";
    /// Reinterpret the bits of a value as another type of the same width (`mov.b32 %f, %r`).
    ["9.7.9.1"] Bitcast {} => "bitcast";
    /// Integer add, wrapping.
    ["9.7.1.1"] IAdd {} => "iadd";
    /// Integer subtract, wrapping.
    ["9.7.1.2"] ISub {} => "isub";
    /// Integer multiply, low half of the product (`mul.lo`).
    ["9.7.1.3"] IMul {} => "imul";
    /// Integer multiply, high half of the double-width product (`mul.hi`).
    ["9.7.1.3"] IMulHi { sign: Sign } => "imulhi";
    /// Widening multiply: the full double-width product (`mul.wide`); result twice as wide.
    ["9.7.1.3"] IMulWide { sign: Sign } => "imulwide";
    /// Integer divide, truncating; x/0 gives all ones (unsigned) or -1 (signed) as on NVIDIA
    /// GPUs, MIN/-1 gives MIN. Never traps.
    ["9.7.1.8"] IDiv { sign: Sign } => "idiv";
    /// Integer remainder with the sign of the dividend; x%0 gives x, MIN%-1 gives 0. Never traps.
    ["9.7.1.9"] IRem { sign: Sign } => "irem";
    /// Integer minimum.
    ["9.7.1.12"] IMin { sign: Sign } => "imin";
    /// Integer maximum.
    ["9.7.1.12"] IMax { sign: Sign } => "imax";
    /// Integer negate, wrapping.
    ["9.7.1.11"] INeg {} => "ineg";
    /// Integer absolute value, wrapping (abs(MIN) = MIN).
    ["9.7.1.10"] IAbs {} => "iabs";
    /// Bitwise and (also on predicates).
    ["9.7.8.1"] And {} => "and";
    /// Bitwise or (also on predicates).
    ["9.7.8.2"] Or {} => "or";
    /// Bitwise exclusive or (also on predicates).
    ["9.7.8.3"] Xor {} => "xor";
    /// Bitwise complement (also on predicates).
    ["9.7.8.4"] Not {} => "not";
    /// Shift left; the shift count is an unsigned 32-bit value, and counts >= width give 0.
    ["9.7.8.8"] Shl {} => "shl";
    /// Shift right; counts >= width give 0 (unsigned) or the sign fill (signed).
    ["9.7.8.9"] Shr { sign: Sign } => "shr";
    /// Population count (result i32).
    ["9.7.1.15"] Popc {} => "popc";
    /// Count leading zeros (result i32).
    ["9.7.1.16"] Clz {} => "clz";
    /// Float add with rounding mode, flush-to-zero and saturation.
    ["9.7.3.1"] FAdd { rnd: Round, ftz: bool, sat: bool } => "fadd";
    /// Float subtract.
    ["9.7.3.2"] FSub { rnd: Round, ftz: bool, sat: bool } => "fsub";
    /// Float multiply (never contracted with a following add).
    ["9.7.3.3"] FMul { rnd: Round, ftz: bool, sat: bool } => "fmul";
    /// Fused multiply-add, one rounding (`fma`, `mad.rn`): a*b+c.
    ["9.7.3.4"] FFma { rnd: Round, ftz: bool, sat: bool } => "ffma";
    /// Float divide: IEEE with a rounding mode (`div.rn`), or `.approx`/`.full` when
    /// `approx` is set (computed as IEEE division here, within the ISA's stated bound).
    ["9.7.3.8"] FDiv { rnd: Round, approx: bool, ftz: bool } => "fdiv";
    /// Float minimum; NaN inputs: the other input (both NaN: canonical NaN); -0 < +0.
    ["9.7.3.11"] FMin { ftz: bool } => "fmin";
    /// Float maximum; NaN inputs: the other input (both NaN: canonical NaN); +0 > -0.
    ["9.7.3.12"] FMax { ftz: bool } => "fmax";
    /// Float negate (sign flip, NaN included).
    ["9.7.3.10"] FNeg { ftz: bool } => "fneg";
    /// Float absolute value (sign clear).
    ["9.7.3.9"] FAbs { ftz: bool } => "fabs";
    /// Square root: IEEE with rounding, or `.approx` (computed exactly rounded here).
    ["9.7.3.15"] FSqrt { rnd: Round, approx: bool, ftz: bool } => "fsqrt";
    /// Reciprocal 1/x: IEEE with rounding, or `.approx` (computed exactly rounded here).
    ["9.7.3.13"] FRcp { rnd: Round, approx: bool, ftz: bool } => "frcp";
    /// Integer compare → predicate.
    ["9.7.6.1"] ICmp { cc: ICmp, sign: Sign } => "icmp";
    /// Float compare → predicate (unordered forms true on NaN).
    ["9.7.6.1"] FCmp { cc: FCmp, ftz: bool } => "fcmp";
    /// `selp`: args (a, b, p) → p ? a : b.
    ["9.7.6.3"] Select {} => "select";
    /// Conversion between integer and float types with rounding, saturation and ftz.
    ["9.7.9.21"] Cvt { dst: CvtType, src: CvtType, rnd: CvtRound, sat: bool, ftz: bool } => "cvt";
    /// Convert a state-space address to a generic address (`to_generic`) or back (`cvta.to`).
    ["9.7.9.22"] Cvta { space: Space, to_generic: bool } => "cvta";
    /// Load a value of the result type from `[addr]` in a state space; faults if out of
    /// bounds or misaligned to `align` bytes.
    ["9.7.9.8"] Load { space: Space, align: u8 } => "ld";
    /// Store args (addr, value) in a state space; faults if out of bounds or misaligned.
    ["9.7.9.10"] Store { space: Space, align: u8 } => "st";
    /// Atomic read-modify-write args (addr, b) → old value.
    ["9.7.13.5"] Atom { op: AtomOp, space: Space } => "atom";
    /// Atomic compare-and-swap args (addr, cmp, new) → old value.
    ["9.7.13.5"] AtomCas { space: Space } => "atom.cas";
    /// `isspacep.space`: whether a generic address falls in the state space's window (global:
    /// outside the shared and local windows). Result pred.
    ["9.7.9.20"] IsSpace { space: Space } => "isspacep";
    /// Memory fence (`membar`, `fence`): orders this thread's memory accesses.
    ["9.7.13.4"] Fence {} => "fence";
    /// Warp shuffle: args (value, b, c, membermask) → (value, pred): lane j reads the value of
    /// the lane chosen by mode, b (lane or delta) and c (clamp and segment mask).
    ["9.7.8.6"] Shfl { mode: ShflMode } => "shfl";
    /// Warp vote (`vote.sync.mode`, legacy `vote.mode`): args (pred, membermask) → pred
    /// (`all`/`any`/`uni`) or i32 (`ballot`), over the active lanes of the lane's membermask.
    ["9.7.13.9"] Vote { mode: VoteMode } => "vote";
    /// `activemask`: → i32 mask of the lanes executing it together.
    ["9.7.13.11"] Activemask {} => "activemask";
    /// `match.any.sync` / `match.all.sync`: args (value i32 or i64, membermask) → (i32 mask of
    /// the participating lanes with the same value, pred: all participating values equal).
    ["9.7.13.10"] Match { all: bool } => "match";
    /// `redux.sync`: args (value i32, membermask) → i32 reduction over the participating lanes.
    ["9.7.13.12"] Redux { op: ReduxOp } => "redux";
    /// `elect.sync`: args (membermask) → (i32 lane of the leader, pred: this lane leads); the
    /// leader is the lowest participating lane.
    ["9.7.13.13"] Elect {} => "elect";
    /// Arrival at a CTA barrier: args (barrier id i32, thread count i32 (0: all threads of the
    /// CTA), pred (the `bar.red` operand)). Recorded in the warp state's barrier records; a
    /// waiting kind is followed by a `Barrier` terminator, whose lanes the CTA scheduler
    /// releases when the barrier completes.
    ["9.7.13.1"] BarArrive { kind: BarKind, aligned: bool } => "barrier";
    /// The result of the lane's last completed `bar.red`: i32 (`popc`) or pred (`and`/`or`).
    ["9.7.13.1"] BarResult { kind: BarKind } => "barrier.result";
    /// `bar.warp.sync membermask` (`__syncwarp`): orders memory among the warp's lanes.
    ["9.7.13.2"] WarpSync {} => "bar.warp.sync";
    /// CUDA's `vprintf`: args (format string, argument buffer), both generic addresses → i32
    /// characters written (-1 when the format cannot be read). The active lanes print in lane
    /// order, one warp's output at a time (`runtime::printf`).
    ["CUDA C++ Programming Guide, Formatted Output"] Printf {} => "printf";
}

/// How an operation touches state beyond its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A function of its operands only (per lane): may be computed for inactive lanes, moved
    /// or removed if unused.
    Pure,
    /// Reads or writes memory, or can fault: only for active lanes.
    Memory,
    /// Reads other lanes of the warp: all active lanes take part together.
    Warp,
}

impl Op {
    /// The effect class of the operation.
    pub fn effect(&self) -> Effect {
        match self {
            Op::Const { .. }
            | Op::SReg { .. }
            | Op::SymAddr { .. }
            | Op::Bitcast {}
            | Op::IAdd {}
            | Op::ISub {}
            | Op::IMul {}
            | Op::IMulHi { .. }
            | Op::IMulWide { .. }
            | Op::IDiv { .. }
            | Op::IRem { .. }
            | Op::IMin { .. }
            | Op::IMax { .. }
            | Op::INeg {}
            | Op::IAbs {}
            | Op::And {}
            | Op::Or {}
            | Op::Xor {}
            | Op::Not {}
            | Op::Shl {}
            | Op::Shr { .. }
            | Op::Popc {}
            | Op::Clz {}
            | Op::FAdd { .. }
            | Op::FSub { .. }
            | Op::FMul { .. }
            | Op::FFma { .. }
            | Op::FDiv { .. }
            | Op::FMin { .. }
            | Op::FMax { .. }
            | Op::FNeg { .. }
            | Op::FAbs { .. }
            | Op::FSqrt { .. }
            | Op::FRcp { .. }
            | Op::ICmp { .. }
            | Op::FCmp { .. }
            | Op::Select {}
            | Op::Cvt { .. }
            | Op::Cvta { .. }
            | Op::IsSpace { .. } => Effect::Pure,
            Op::Load { .. }
            | Op::Store { .. }
            | Op::Atom { .. }
            | Op::AtomCas { .. }
            | Op::Fence {} => Effect::Memory,
            Op::Shfl { .. }
            | Op::Vote { .. }
            | Op::Activemask {}
            | Op::Match { .. }
            | Op::Redux { .. }
            | Op::Elect {}
            | Op::BarArrive { .. }
            | Op::BarResult { .. }
            | Op::WarpSync {}
            | Op::Printf {} => Effect::Warp,
        }
    }
}
