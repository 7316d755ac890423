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

use super::cluster::ClusterBarOp;
use super::mbarrier::MbarOp;
use super::mma::MmaSpec;
use super::tcgen05::Tc05Op;
use super::tma::TensorOp;
use super::types::*;
use super::wgmma::WgmmaSpec;

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
    ["9.7.9.3"] Bitcast {} => "bitcast";
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
    ["9.7.1.13"] IMax { sign: Sign } => "imax";
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
    ["9.7.1.14"] Popc {} => "popc";
    /// Count leading zeros (result i32).
    ["9.7.1.15"] Clz {} => "clz";
    /// Float add with rounding mode, flush-to-zero and saturation.
    ["9.7.3.3"] FAdd { rnd: Round, ftz: bool, sat: bool } => "fadd";
    /// Float subtract.
    ["9.7.3.4"] FSub { rnd: Round, ftz: bool, sat: bool } => "fsub";
    /// Float multiply (never contracted with a following add).
    ["9.7.3.5"] FMul { rnd: Round, ftz: bool, sat: bool } => "fmul";
    /// Fused multiply-add, one rounding (`fma`, `mad.rn`): a*b+c.
    ["9.7.3.6"] FFma { rnd: Round, ftz: bool, sat: bool } => "ffma";
    /// Float divide: IEEE with a rounding mode (`div.rn`), or `.approx`/`.full` when
    /// `approx` is set (computed as IEEE division here, within the ISA's stated bound).
    ["9.7.3.8"] FDiv { rnd: Round, approx: bool, ftz: bool } => "fdiv";
    /// Float negate (sign flip, NaN included).
    ["9.7.3.10"] FNeg { ftz: bool } => "fneg";
    /// Float absolute value (sign clear).
    ["9.7.3.9"] FAbs { ftz: bool } => "fabs";
    /// Square root: IEEE with rounding, or `.approx` (computed exactly rounded here).
    ["9.7.3.15"] FSqrt { rnd: Round, approx: bool, ftz: bool } => "fsqrt";
    /// Reciprocal 1/x: IEEE with rounding, or `.approx` (computed exactly rounded here).
    ["9.7.3.13"] FRcp { rnd: Round, approx: bool, ftz: bool } => "frcp";
    /// Integer compare → predicate.
    ["9.7.6.2"] ICmp { cc: ICmp, sign: Sign } => "icmp";
    /// Float compare → predicate (unordered forms true on NaN).
    ["9.7.6.2"] FCmp { cc: FCmp, ftz: bool } => "fcmp";
    /// `selp`: args (a, b, p) → p ? a : b.
    ["9.7.6.3"] Select {} => "select";
    /// Conversion between integer and float types with rounding, saturation and ftz.
    ["9.7.9.21"] Cvt { dst: CvtType, src: CvtType, rnd: CvtRound, sat: bool, ftz: bool } => "cvt";
    /// Convert a state-space address to a generic address (`to_generic`) or back (`cvta.to`).
    ["9.7.9.20"] Cvta { space: Space, to_generic: bool } => "cvta";
    /// Load a value of the result type from `[addr]` in a state space; faults if out of
    /// bounds or misaligned to `align` bytes.
    ["9.7.9.8"] Load { space: Space, align: u8 } => "ld";
    /// Store args (addr, value) in a state space; faults if out of bounds or misaligned.
    ["9.7.9.11"] Store { space: Space, align: u8 } => "st";
    /// Atomic read-modify-write args (addr, b) → old value.
    ["9.7.13.5"] Atom { op: AtomOp, space: Space } => "atom";
    /// Atomic compare-and-swap args (addr, cmp, new) → old value.
    ["9.7.13.5"] AtomCas { space: Space } => "atom.cas";
    /// 128-bit atomic exchange (`atom.exch.b128`) or compare-and-swap (`cas`, `atom.cas.b128`):
    /// args (addr, b low i64, b high i64[, c low i64, c high i64]) → (old low i64, old high
    /// i64); for `cas`, b is the compared value and c the new one. A warp operation run by
    /// `runtime::atom128` (the host's 16-byte compare-and-swap) for the active lanes in lane
    /// order; the address must be 16-byte aligned.
    ["9.7.13.5"] Atom128 { cas: bool, space: Space } => "atom.b128";
    /// A strong (`.relaxed`, `.volatile`, `.acquire`, `.release`) 16-byte load or store
    /// (`.v2.b64`, `.v4.b32`, `.b128`) as one single-copy-atomic access of the whole 16 bytes:
    /// load args (addr) → (low i64, high i64), store args (addr, low i64, high i64) → ().
    /// PTX ISA §8 models a vector access as element accesses in an unspecified order, but
    /// CUB's and Thrust's single-pass scans (decoupled look-back: a tile's status and value
    /// in one 16-byte word) rely on a GPU's aligned 16-byte access not tearing, so an
    /// element-by-element access would let a reader see a status with another write's value.
    /// A warp operation run by `runtime::atom128` (the host's 16-byte atomic load or store)
    /// for the active lanes in lane order; the address must be 16-byte aligned.
    ["9.7.9.8"] Strong128 { store: bool, space: Space } => "ld.st.strong.b128";
    /// `isspacep.space`: whether a generic address falls in the state space's window (global:
    /// outside the shared and local windows). Result pred.
    ["9.7.9.19"] IsSpace { space: Space } => "isspacep";
    /// Memory fence (`membar`, `fence`): orders this thread's memory accesses.
    ["9.7.13.4"] Fence {} => "fence";
    // ---- The scalar ISA beyond the basics. ----
    /// Saturating signed add (`add.sat.s32`): clamps to [MIN, MAX] of the type.
    ["9.7.1.1"] IAddSat {} => "iadd.sat";
    /// Saturating signed subtract (`sub.sat.s32`).
    ["9.7.1.2"] ISubSat {} => "isub.sat";
    /// Add or subtract with carry-in: args (a, b, cf: pred) → a + b + cf, or a + !b + cf when
    /// `sub` (`addc`/`subc`; `add.cc` with cf = 0, `sub.cc` with cf = 1: the hardware's
    /// carry = NOT borrow convention, `runtime::bits::add_carry`). PTX's condition code CC.CF
    /// is a hidden predicate variable of the lowering, not engine state.
    ["9.7.2.1"] AddCarry { sub: bool } => "addcarry";
    /// Carry-out of [`Op::AddCarry`] with the same args (for `sub`: 1 = no borrow) → pred.
    ["9.7.2.2"] CarryOut { sub: bool } => "carryout";
    /// 24×24-bit multiply (`mul24`): operands are the low 24 bits (sign-extended when signed);
    /// `.lo` gives bits 31..0 of the 48-bit product, `.hi` bits 47..16.
    ["9.7.1.5"] IMul24 { hi: bool, sign: Sign } => "imul24";
    /// Sum of absolute differences: args (a, b, c) → |a - b| + c.
    ["9.7.1.7"] Sad { sign: Sign } => "sad";
    /// Most significant non-sign bit position (i32 result; 0xffffffff if none); `.shiftamt`
    /// returns the left shift that moves it to the msb.
    ["9.7.1.16"] Bfind { sign: Sign, shiftamt: bool } => "bfind";
    /// Find the n-th set bit: args (mask, base, offset) → position or 0xffffffff.
    ["9.7.1.17"] Fns {} => "fns";
    /// Bit reverse.
    ["9.7.1.18"] Brev {} => "brev";
    /// Bit-field extract: args (a, pos: i32, len: i32); pos and len use their low 8 bits.
    ["9.7.1.19"] Bfe { sign: Sign } => "bfe";
    /// Bit-field insert: args (a, b, poslen: i32) with poslen = pos & 0xff | (len & 0xff) << 8:
    /// the low len bits of a replace bits pos.. of b (clipped at the msb).
    ["9.7.1.20"] Bfi {} => "bfi";
    /// Bit-mask: args (pos, width) → a mask of width ones from pos (`.clamp` or `.wrap`).
    ["9.7.1.22"] Bmsk { clamp: bool } => "bmsk";
    /// Sign- or zero-extend the low N bits: args (a, N) (`.clamp` or `.wrap` for N ≥ 32).
    ["9.7.1.21"] Szext { clamp: bool, sign: Sign } => "szext";
    /// Four-way byte dot product accumulate: args (a, b, c) → c + Σ a.byte[i] * b.byte[i].
    ["9.7.1.23"] Dp4a { sa: Sign, sb: Sign } => "dp4a";
    /// Two-way dot product: args (a, b, c) → c + Σ a.half[i] * b.byte[i + (hi ? 2 : 0)].
    ["9.7.1.24"] Dp2a { sa: Sign, sb: Sign, hi: bool } => "dp2a";
    /// Arbitrary three-input logic: args (a, b, c); bit i of the result is bit
    /// `a_i << 2 | b_i << 1 | c_i` of `lut` (PTX's encoding: a = 0xF0, b = 0xCC, c = 0xAA).
    ["9.7.8.6"] Lop3 { lut: u8 } => "lop3";
    /// Funnel shift of the 64-bit b:a: args (a, b, n) → high (`left`) or low 32 bits.
    ["9.7.8.7"] Shf { left: bool, clamp: bool } => "shf";
    /// Byte permute of the 64-bit b:a: args (a, b, c) (PTX ISA's `prmt` table).
    ["9.7.9.7"] Prmt { mode: PrmtMode } => "prmt";
    /// Float min/max with the ISA's extra modifiers: `.NaN` (a NaN input gives the canonical
    /// NaN) and `.xorsign.abs` (min/max of the magnitudes, sign = xor of the input signs).
    ["9.7.3.11"] FMinMax { max: bool, ftz: bool, nan: bool, xorsign: bool } => "fminmax";
    /// `copysign`: args (a, b) → b with the sign of a.
    ["9.7.3.2"] CopySign {} => "copysign";
    /// `testp.prop` on a float → pred.
    ["9.7.3.1"] TestP { prop: TestProp } => "testp";
    /// An approximate function (`rsqrt sin cos lg2 ex2 tanh .approx`), on f32 (or f64 rsqrt),
    /// computed in f64 and rounded to nearest (well within the ISA's stated bounds).
    ["9.7.3.16"] FApprox { f: ApproxFn, ftz: bool } => "fapprox";
    /// Half-precision add on one 16-bit half (`add.f16`, `.bf16`), result rounded to `rnd`.
    ["9.7.4.1"] HAdd { fmt: HalfFmt, rnd: Round, ftz: bool, sat: bool } => "hadd";
    /// Half-precision subtract.
    ["9.7.4.2"] HSub { fmt: HalfFmt, rnd: Round, ftz: bool, sat: bool } => "hsub";
    /// Half-precision multiply.
    ["9.7.4.3"] HMul { fmt: HalfFmt, rnd: Round, ftz: bool, sat: bool } => "hmul";
    /// Half-precision fused multiply-add; `.relu` clamps negative results to +0; `.oob` gives +0
    /// when any source is the OOB NaN a tensor copy fills out-of-bound elements with.
    ["9.7.4.4"] HFma { fmt: HalfFmt, rnd: Round, ftz: bool, sat: bool, relu: bool, oob: bool } => "hfma";
    /// Half-precision min/max (NaN rules as [`Op::FMinMax`]).
    ["9.7.4.7"] HMinMax { fmt: HalfFmt, max: bool, ftz: bool, nan: bool, xorsign: bool } => "hminmax";
    /// Half-precision negate (sign flip after optional ftz).
    ["9.7.4.5"] HNeg { fmt: HalfFmt, ftz: bool } => "hneg";
    /// Half-precision absolute value.
    ["9.7.4.6"] HAbs { fmt: HalfFmt, ftz: bool } => "habs";
    /// Half-precision compare → pred.
    ["9.7.7.2"] HCmp { fmt: HalfFmt, cc: FCmp, ftz: bool } => "hcmp";
    /// Half-precision approximate function (`ex2`, `tanh`).
    ["9.7.4.10"] HApprox { fmt: HalfFmt, f: ApproxFn } => "happrox";
    /// Narrow float conversions of `cvt` (e4m3/e5m2 pairs, tf32) and `.satfinite` on f16/bf16
    /// results; shapes in [`NarrowCvt`], semantics in `runtime::minifloat`.
    ["9.7.9.21"] CvtNarrow { conv: NarrowCvt, relu: bool } => "cvt.narrow";
    /// `.relu` on a half: negative → +0, NaN → canonical NaN.
    ["9.7.4.4"] HRelu { fmt: HalfFmt } => "hrelu";
    /// Scalar video instruction (`vadd vsub vabsdiff vmin vmax vshl vshr vset`): args (a, b,
    /// c). `asel`/`bsel`/`dsel` pick a sub-word: 0-3 = `.b0-.b3`, 4-5 = `.h0-.h1`, 6 = the word.
    /// With `dsel` ≠ 6 the result merges into c; else `sec` combines it with c.
    ["9.7.18.1"] Video { op: VideoOp, ty: VideoTypes, sat: bool, asel: u8, bsel: u8, dsel: u8, sec: VideoSec } => "video";
    /// SIMD video instruction on `lanes` (2: half-words, 4: bytes): args (a, b, c). Lane i of
    /// a/b is element `(sel >> 4i) & 15` of the bytes/half-words of b:a; `mask` bit i selects the
    /// lanes written (merge into c) or accumulated (`add`: d = c + Σ lanes).
    ["9.7.18.2"] VideoSimd { op: VideoOp, lanes: u8, ty: VideoTypes, sat: bool, asel: u16, bsel: u16, mask: u8, add: bool } => "video.simd";
    /// `vmad`: args (a, b, c) → (±(a' · b') ± c) optionally `.po` (+1), scaled (`shr` 0, 7, 15)
    /// and saturated; a' and b' are selected sub-words as in [`Op::Video`]. `neg_ab`: exactly one
    /// of `-a`/`-b` was written (the product is negated); `neg_c`: `-c`.
    ["9.7.18.1.3"] VMad { ty: VideoTypes, sat: bool, asel: u8, bsel: u8, po: bool, shr: u8, neg_ab: bool, neg_c: bool } => "vmad";
    /// Warp shuffle: args (value, b, c, membermask) → (value, pred): lane j reads the value of
    /// the lane chosen by mode, b (lane or delta) and c (clamp and segment mask).
    ["9.7.9.6"] Shfl { mode: ShflMode } => "shfl";
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
    ["9.7.13.14"] Elect {} => "elect";
    /// Arrival at a CTA barrier: args (barrier id i32, thread count i32 (0: all threads of the
    /// CTA), pred (the `bar.red` operand)). Recorded in the warp state's barrier records; a
    /// waiting kind is followed by a `Barrier` terminator, whose lanes the CTA scheduler
    /// releases when the barrier completes.
    ["9.7.13.1"] BarArrive { kind: BarKind, aligned: bool } => "barrier";
    /// The result of the lane's last completed `bar.red`: i32 (`popc`) or pred (`and`/`or`).
    ["9.7.13.1"] BarResult { kind: BarKind } => "barrier.result";
    /// Warp-level synchronization: args (membermask) → pred (this lane must wait). The wait of
    /// `bar.warp.sync` (`fence` true: it also orders memory among the warp's lanes, PTX ISA
    /// §9.7.13.2) and of the `.sync` collectives (`fence` false). Exited lanes of the
    /// membermask are not waited for, in both (the collectives' text says so; for
    /// `bar.warp.sync`, CUDA's `__syncwarp`: "all non-exited threads named in mask must execute
    /// a corresponding `__syncwarp()`", and code such as numba's reductions relies on it). A
    /// lane whose membermask lacks itself faults. A lane waits when some non-exited lane of its
    /// membermask is not executing with it; the lowering parks waiting lanes at a `Barrier`
    /// terminator and the CTA scheduler releases them once every non-exited lane of their
    /// membermask waits too (`runtime::warp`).
    ["9.7.13.2"] WarpSync { fence: bool } => "warpsync";
    /// A yield point (`lower::yields`, not a PTX instruction): → pred, true for every active
    /// lane; those lanes then park at a `Barrier` terminator like a warp-level
    /// synchronization whose membermask is the lane alone, and the CTA scheduler releases them
    /// at its next round, after the CTA's other warps have run (forward progress for loops
    /// that spin on memory).
    ["9.7.13.2"] Yield {} => "yield";
    /// The checks of a `call` on the per-thread call stack (`lower::recurse`): args (new stack
    /// top i64, call depth i32, function pointer i64, target state i32) → pred (the call may
    /// proceed). A target state of `u32::MAX` faults (the pointer is the address of no
    /// function the call may reach; fault address: the pointer); else a stack top above the
    /// thread's local memory size, which the launch sets (`Function::call_stack` plus the
    /// launch's stack bytes), faults with "call stack overflow" (fault address: the depth;
    /// size: the stack's bytes, the local size less `base`, where the stack begins).
    ["9.7.12.5"] CallCheck { base: u32 } => "callcheck";
    /// CUDA's `vprintf`: args (format string, argument buffer), both generic addresses → i32
    /// characters written (-1 when the format cannot be read). The active lanes print in lane
    /// order, one warp's output at a time (`runtime::printf`).
    ["CUDA C++ Programming Guide, Formatted Output"] Printf {} => "printf";
    /// CUDA's `__assertfail(message, file, line, function, char_size)`, called by a failed
    /// device-side `assert`: args (message i64, file i64, line i32, function i64; the strings
    /// at generic addresses). Each active lane records CUDA's assertion message and a fault
    /// (`runtime::env::FaultKind::Assert`, the launch's error); the lowering ends the thread
    /// after it, as the GPU's trap does, while the other threads run on so that each failing
    /// thread's message is printed (in order of CTA and thread, when the launch ends). They
    /// run on for a grace period only: `PTXJIT_ASSERT_GRACE` seconds (default 1, `0`: none;
    /// `runtime::env::assert_grace`) after the launch's first failed assertion, the CTAs still
    /// running stop, as a GPU's trap ends the grid, so threads left waiting for one the
    /// assertion ended do not run on until a time limit.
    ["CUDA C++ Programming Guide, Assertion"] AssertFail {} => "assertfail";
    /// CUDA's device `malloc(size)` / `__nv_aligned_device_malloc(size, align)`: args (size
    /// i64, align i64) → i64, a generic address in the device heap (`runtime::heap`), 0 when
    /// there is no room. The active lanes allocate in lane order.
    ["CUDA C++ Programming Guide, Dynamic Global Memory Allocation"] Malloc {} => "malloc";
    /// CUDA's device `free(ptr)`: arg (ptr i64); 0 does nothing, a pointer that is not a live
    /// heap block faults (`runtime::env::FaultKind::BadFree`).
    ["CUDA C++ Programming Guide, Dynamic Global Memory Allocation"] Free {} => "free";
    /// Warp-wide matrix multiply-accumulate `D = A·B + C` (`mma.sync.aligned`, `wmma.mma.sync`):
    /// args (A registers, B registers, C registers: counts and types from
    /// [`MmaSpec::regs`]; for `mma.sp`, then the sparsity metadata i32) → D registers. Every
    /// lane of the warp takes part; a partial warp faults, and so does sparsity metadata the
    /// ISA leaves undefined. Products are exact and the sum runs over k in ascending order, rounded in the
    /// accumulator type at each step (`runtime::mma`).
    ["9.7.14.5.14"] Mma { spec: MmaSpec } => "mma";
    /// Warpgroup matrix multiply-accumulate (`wgmma.mma_async.sync.aligned`): args (D registers
    /// as the accumulator input, A's descriptor i64 or A registers, B's descriptor i64,
    /// `scale-d` pred, `sp-meta` i32 for `.sp`; [`WgmmaSpec::operand_types`]) → D
    /// registers. Run by each warp of the
    /// warpgroup for its own 16 rows of D, reading A and B from shared memory as the
    /// descriptors say, synchronously (so `wgmma.fence`/`commit_group`/`wait_group` only wait
    /// for the warp). A partial warp, differing descriptors across lanes, a descriptor with
    /// a base offset, shared memory out of range, or sparsity metadata the ISA leaves
    /// undefined fault (`runtime::wgmma`).
    ["9.7.15.5.2"] Wgmma { spec: WgmmaSpec } => "wgmma";
    /// An `mbarrier` operation (or `cp.async.mbarrier.arrive`) on the 64-bit object at args[0]
    /// in `space` (`Shared`, or `Generic` resolving to shared memory); operands per
    /// [`MbarOp`]. The active lanes act one after another in lane order, each as a whole
    /// (`runtime::mbarrier`, which defines the object's layout and the tokens). An address
    /// outside shared memory, misaligned (8 bytes), or not holding a valid object, and a count
    /// out of the ISA's range, fault.
    ["9.7.13.15"] MBarrier { op: MbarOp, space: Space } => "mbarrier";
    /// A `tcgen05` operation on the CTA's tensor memory (`alloc`, `dealloc`,
    /// `relinquish_alloc_permit`, `ld`, `st`, `mma`); operands per [`Tc05Op`]. The
    /// `.sync.aligned` forms need the whole warp (a partial warp faults) and lanes that agree
    /// on their operands; `mma` is issued by each active lane in lane order and completes at
    /// once (`runtime::tcgen05`). An address outside an allocation, or a lane outside the
    /// warp's quarter of the tensor memory, faults.
    ["9.7.16"] Tcgen05 { op: Tc05Op } => "tcgen05";
    /// A tensor-memory-accelerator operation (`cp.async.bulk.tensor` and relatives,
    /// `tensormap.replace`): operands per [`TensorOp`]. The active lanes act one after another
    /// in lane order, each copy whole when the instruction executes (`runtime::tma`). A tensor
    /// map that is none, shared memory out of range, or an unsupported layout fault.
    ["9.7.9.25.5"] Tensor { op: TensorOp } => "tensor";
    /// A step of `barrier.cluster` (operands per [`ClusterBarOp`]): a split barrier across
    /// all non-exited threads of all CTAs of the cluster (`runtime::cluster`). A lane that
    /// arrives twice in one phase, or waits without having arrived, faults.
    ["9.7.13.3"] ClusterBarrier { op: ClusterBarOp } => "barrier.cluster";
    /// `mapa`: args (address, rank i32) → address of the result type (`i32` or `i64`, as
    /// the source): the address in CTA `rank` of the cluster that corresponds to the shared
    /// address (`generic`: generic address) in the source. `runtime::cluster` defines the
    /// `.shared::cluster` encoding; a rank outside the cluster, or a source that is not a
    /// shared address of a CTA of the cluster, faults.
    ["9.7.9.23"] Mapa { generic: bool } => "mapa";
    /// `getctarank`: args (address) → i32, the rank in the cluster of the CTA whose shared
    /// memory holds the shared (`generic`: generic) address. A source that is not a shared
    /// address of a CTA of the cluster faults.
    ["9.7.9.24"] GetCtaRank { generic: bool } => "getctarank";
    /// `clusterlaunchcontrol.try_cancel`'s request: no operands → (i64 low half, i64 high
    /// half) of the 16-byte response. Each active lane, in lane order, asks the CTA scheduler
    /// to cancel the launch of one cluster (one CTA in a launch without clusters) that no
    /// worker has taken yet; the response says whether it did and names the first CTA of the
    /// canceled cluster (`runtime::clc` defines the encoding). The front end stores the
    /// response and performs the complete-tx.
    ["9.7.13.17.1"] ClcTryCancel {} => "clc.try_cancel";
    // ---- Texture and surface units (semantics in `runtime::texture`). ----
    /// Texture fetch (`tex`): args (texture i64, [sampler i64 when `sampler`: independent
    /// mode], [array index i32 when the geometry is arrayed], `geom.dims()` coordinates (i32
    /// when `int_coords`, else f32), [lod f32 for `Level` | dPdx then dPdy, `geom.dims()` f32
    /// each, for `Grad`], [`geom.dims()` i32 texel offsets when `opts.offset`], [depth-compare
    /// value f32 when `opts.compare`]) → 4 results, f32 or i32 (2 i32 of packed f16 pairs when
    /// `opts.f16x2`, 4 i16 holding f16 bits when `opts.f16`): the texel's channels (missing channels 0, missing alpha 1), sampled as
    /// the CUDA guide's "Texture Fetching" appendix says. Multisample geometries take the
    /// sample index (i32) after the array index.
    ["9.7.10.3"] Tex { geom: TexGeom, lod: TexLod, int_coords: bool, sampler: bool, opts: TexOpts } => "tex";
    /// `tld4.comp.geom`: args (texture, [sampler], [array index i32], `geom.dims()` f32
    /// coordinates (x, y; cube maps x, y, z), [2 i32 texel offsets when `opts.offset`, not on
    /// cube maps], [depth-compare value f32 when `opts.compare`]) → 4 results, f32 or i32:
    /// channel `comp` (0-3: r g b a) of the four texels of the bilinear footprint,
    /// counter-clockwise from the lower left: (i, j+1), (i+1, j+1), (i+1, j), (i, j); on a cube
    /// map, of the face the direction selects (addressed per face by the sampler's modes).
    ["9.7.10.4"] Tld4 { comp: u8, geom: TexGeom, sampler: bool, opts: TexOpts } => "tld4";
    /// `txq`: args (texture or sampler handle i64, [lod i32 when `level`]) → i32 attribute.
    ["9.7.10.5"] Txq { attr: TexAttr, level: bool } => "txq";
    /// `istypep`: args (handle i64) → pred: whether it is a live handle of that kind.
    ["9.7.10.6"] Istypep { kind: HandleKind } => "istypep";
    /// Surface load (`suld.b`, `suld.p`): args (surface i64, [array index i32], `geom.dims()`
    /// i32 coordinates; x in bytes for `.b`, in elements for `.p`) → `vec` results: raw
    /// element bits (`.b`) or the texel's channels as 32-bit values (`.p`: f32 for float
    /// formats, extended integers otherwise).
    ["9.7.11.1"] Suld { geom: TexGeom, clamp: SurfClamp, formatted: bool, vec: u8 } => "suld";
    /// Surface store (`sust.b`, `sust.p`): args (surface, [array index], coordinates, `vec`
    /// values); out of range follows `clamp`.
    ["9.7.11.2"] Sust { geom: TexGeom, clamp: SurfClamp, formatted: bool, vec: u8 } => "sust";
    /// Surface reduction (`sured.b`, `sured.p`): args (surface, [array index], coordinates,
    /// value) with the atomic operation `op` on one element (i32 or i64 by type).
    ["9.7.11.3"] Sured { op: AtomOp, geom: TexGeom, clamp: SurfClamp, formatted: bool } => "sured";
    /// `suq`: args (surface handle i64) → i32 attribute.
    ["9.7.11.4"] Suq { attr: TexAttr } => "suq";
}

/// The pure operations the engines evaluate only through `runtime::semantics::eval_pure`
/// (the interpreter directly, the JIT by a per-lane helper call): the scalar ISA beyond the
/// basics, half precision, narrow conversions and video. Use as a pattern, `helper_ops!()`,
/// so a new op of this kind is added here once.
#[macro_export]
macro_rules! helper_ops {
    () => {
        $crate::ir::Op::IAddSat {}
            | $crate::ir::Op::ISubSat {}
            | $crate::ir::Op::AddCarry { .. }
            | $crate::ir::Op::CarryOut { .. }
            | $crate::ir::Op::IMul24 { .. }
            | $crate::ir::Op::Sad { .. }
            | $crate::ir::Op::Bfind { .. }
            | $crate::ir::Op::Fns {}
            | $crate::ir::Op::Brev {}
            | $crate::ir::Op::Bfe { .. }
            | $crate::ir::Op::Bfi {}
            | $crate::ir::Op::Bmsk { .. }
            | $crate::ir::Op::Szext { .. }
            | $crate::ir::Op::Dp4a { .. }
            | $crate::ir::Op::Dp2a { .. }
            | $crate::ir::Op::Lop3 { .. }
            | $crate::ir::Op::Shf { .. }
            | $crate::ir::Op::Prmt { .. }
            | $crate::ir::Op::FMinMax { .. }
            | $crate::ir::Op::CopySign {}
            | $crate::ir::Op::TestP { .. }
            | $crate::ir::Op::FApprox { .. }
            | $crate::ir::Op::HAdd { .. }
            | $crate::ir::Op::HSub { .. }
            | $crate::ir::Op::HMul { .. }
            | $crate::ir::Op::HFma { .. }
            | $crate::ir::Op::HMinMax { .. }
            | $crate::ir::Op::HNeg { .. }
            | $crate::ir::Op::HAbs { .. }
            | $crate::ir::Op::HCmp { .. }
            | $crate::ir::Op::HApprox { .. }
            | $crate::ir::Op::HRelu { .. }
            | $crate::ir::Op::CvtNarrow { .. }
            | $crate::ir::Op::Video { .. }
            | $crate::ir::Op::VideoSimd { .. }
            | $crate::ir::Op::VMad { .. }
    };
}

/// Every pure per-lane operation but the three that read no operand (`Const`, `SReg`,
/// `SymAddr`): the integer and floating-point basics, comparisons, `selp`, `cvt`/`cvta`,
/// `isspacep`, and [`helper_ops!`]. Results depend only on the operands, so an engine may
/// evaluate them per lane in any order. Use as a pattern, `lane_ops!()`, so a new op of this
/// kind is added here once.
#[macro_export]
macro_rules! lane_ops {
    () => {
        $crate::ir::Op::Bitcast {}
            | $crate::ir::Op::IAdd {}
            | $crate::ir::Op::ISub {}
            | $crate::ir::Op::IMul {}
            | $crate::ir::Op::IMulHi { .. }
            | $crate::ir::Op::IMulWide { .. }
            | $crate::ir::Op::IDiv { .. }
            | $crate::ir::Op::IRem { .. }
            | $crate::ir::Op::IMin { .. }
            | $crate::ir::Op::IMax { .. }
            | $crate::ir::Op::INeg {}
            | $crate::ir::Op::IAbs {}
            | $crate::ir::Op::And {}
            | $crate::ir::Op::Or {}
            | $crate::ir::Op::Xor {}
            | $crate::ir::Op::Not {}
            | $crate::ir::Op::Shl {}
            | $crate::ir::Op::Shr { .. }
            | $crate::ir::Op::Popc {}
            | $crate::ir::Op::Clz {}
            | $crate::ir::Op::FAdd { .. }
            | $crate::ir::Op::FSub { .. }
            | $crate::ir::Op::FMul { .. }
            | $crate::ir::Op::FFma { .. }
            | $crate::ir::Op::FDiv { .. }
            | $crate::ir::Op::FNeg { .. }
            | $crate::ir::Op::FAbs { .. }
            | $crate::ir::Op::FSqrt { .. }
            | $crate::ir::Op::FRcp { .. }
            | $crate::ir::Op::ICmp { .. }
            | $crate::ir::Op::FCmp { .. }
            | $crate::ir::Op::Select {}
            | $crate::ir::Op::Cvt { .. }
            | $crate::ir::Op::Cvta { .. }
            | $crate::ir::Op::IsSpace { .. }
            | $crate::helper_ops!()
    };
}

/// The warp-level operations ([`Effect::Warp`]) other than `shfl`, which the engines treat on
/// their own, as one pattern: `Op::Shfl { .. } | warp_ops!()` is every warp-level op. Both
/// engines run these through one per-warp path (a runtime call over the active lanes), so a
/// new warp-level op is added here once.
#[macro_export]
macro_rules! warp_ops {
    () => {
        $crate::ir::Op::Vote { .. }
            | $crate::ir::Op::Mma { .. }
            | $crate::ir::Op::Wgmma { .. }
            | $crate::ir::Op::MBarrier { .. }
            | $crate::ir::Op::Tcgen05 { .. }
            | $crate::ir::Op::Tensor { .. }
            | $crate::ir::Op::ClusterBarrier { .. }
            | $crate::ir::Op::Mapa { .. }
            | $crate::ir::Op::GetCtaRank { .. }
            | $crate::ir::Op::ClcTryCancel {}
            | $crate::ir::Op::Atom128 { .. }
            | $crate::ir::Op::Strong128 { .. }
            | $crate::ir::Op::Activemask {}
            | $crate::ir::Op::Match { .. }
            | $crate::ir::Op::Redux { .. }
            | $crate::ir::Op::Elect {}
            | $crate::ir::Op::BarArrive { .. }
            | $crate::ir::Op::BarResult { .. }
            | $crate::ir::Op::WarpSync { .. }
            | $crate::ir::Op::Yield {}
            | $crate::ir::Op::CallCheck { .. }
            | $crate::ir::Op::Printf {}
            | $crate::ir::Op::AssertFail {}
            | $crate::ir::Op::Malloc {}
            | $crate::ir::Op::Free {}
            | $crate::ir::Op::Tex { .. }
            | $crate::ir::Op::Tld4 { .. }
            | $crate::ir::Op::Txq { .. }
            | $crate::ir::Op::Istypep { .. }
            | $crate::ir::Op::Suld { .. }
            | $crate::ir::Op::Sust { .. }
            | $crate::ir::Op::Sured { .. }
            | $crate::ir::Op::Suq { .. }
    };
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
    /// Whether the operation is executed by the texture and surface units
    /// (`runtime::texture`).
    pub fn is_texture(&self) -> bool {
        matches!(
            self,
            Op::Tex { .. }
                | Op::Tld4 { .. }
                | Op::Txq { .. }
                | Op::Istypep { .. }
                | Op::Suld { .. }
                | Op::Sust { .. }
                | Op::Sured { .. }
                | Op::Suq { .. }
        )
    }

    /// Whether the operation has more operands than the engines' fixed per-instruction
    /// arrays hold (four arguments, two results): the texture and matrix operations and
    /// `atom.cas.b128`, whose warp-level routines read their operands from the value slots
    /// directly.
    pub fn many_operands(&self) -> bool {
        self.is_texture()
            || matches!(
                self,
                Op::Mma { .. }
                    | Op::Wgmma { .. }
                    | Op::Tcgen05 { .. }
                    | Op::Tensor { .. }
                    | Op::Atom128 { .. }
            )
    }

    /// The effect class of the operation.
    pub fn effect(&self) -> Effect {
        match self {
            Op::Const { .. } | Op::SReg { .. } | Op::SymAddr { .. } | crate::lane_ops!() => {
                Effect::Pure
            }
            Op::Load { .. }
            | Op::Store { .. }
            | Op::Atom { .. }
            | Op::AtomCas { .. }
            | Op::Fence {} => Effect::Memory,
            Op::Shfl { .. } | warp_ops!() => Effect::Warp,
        }
    }
}
