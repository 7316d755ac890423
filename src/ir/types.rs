//! IR value types and the small enums that fixed instruction modifiers use.

use std::fmt;

/// The type of an SSA value. Integers carry no signedness: operations that care (division,
/// comparison, widening multiply, conversion) say so in their modifiers, as in PTX's `.s32`
/// versus `.u32` (PTX ISA §5.2.1). `Pred` is PTX's `.pred`, a one-bit predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Pred,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

impl Type {
    /// Size in bytes of the value as stored in a warp register slot (a predicate takes 1).
    pub fn bytes(self) -> u32 {
        match self {
            Type::Pred | Type::I8 => 1,
            Type::I16 => 2,
            Type::I32 | Type::F32 => 4,
            Type::I64 | Type::F64 => 8,
        }
    }

    /// Width in bits (1 for a predicate).
    pub fn bits(self) -> u32 {
        match self {
            Type::Pred => 1,
            t => t.bytes() * 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }

    pub fn is_int(self) -> bool {
        matches!(self, Type::I8 | Type::I16 | Type::I32 | Type::I64)
    }

    /// The integer type of a size in bytes (1, 2, 4, 8).
    pub fn int_of_bytes(bytes: u32) -> Option<Type> {
        Some(match bytes {
            1 => Type::I8,
            2 => Type::I16,
            4 => Type::I32,
            8 => Type::I64,
            _ => return None,
        })
    }

    /// A mask of the low `bits()` bits, for values held in a `u64`.
    pub fn mask(self) -> u64 {
        match self.bits() {
            64 => u64::MAX,
            b => (1u64 << b) - 1,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Type::Pred => "pred",
            Type::I8 => "i8",
            Type::I16 => "i16",
            Type::I32 => "i32",
            Type::I64 => "i64",
            Type::F32 => "f32",
            Type::F64 => "f64",
        })
    }
}

/// A PTX state space as seen by memory operations (PTX ISA §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Generic (flat) addressing: the address decides the space at run time.
    Generic,
    Global,
    Shared,
    Local,
    Const,
    /// Kernel parameters (`ld.param` on an entry's parameters).
    Param,
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Space::Generic => "generic",
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Const => "const",
            Space::Param => "param",
        })
    }
}

/// Signedness of an integer operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sign {
    Unsigned,
    Signed,
}

impl fmt::Display for Sign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Sign::Unsigned => "u",
            Sign::Signed => "s",
        })
    }
}

/// IEEE rounding mode of a floating-point operation (PTX ISA §9.7.3 "Rounding modifiers").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    /// `.rn`: to nearest, ties to even (the default).
    Nearest,
    /// `.rz`: toward zero.
    Zero,
    /// `.rm`: toward negative infinity.
    Down,
    /// `.rp`: toward positive infinity.
    Up,
}

impl fmt::Display for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Round::Nearest => "rn",
            Round::Zero => "rz",
            Round::Down => "rm",
            Round::Up => "rp",
        })
    }
}

/// Integer comparison (PTX ISA §9.7.6.1 `setp`, integer and bit-size operators).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ICmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Floating-point comparison (PTX ISA §9.7.6.1 `setp`, floating-point operators). The `U`
/// forms are true when either operand is NaN; the ordered forms are false then.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FCmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// Both operands are numbers.
    Num,
    /// Either operand is NaN.
    Nan,
}

/// A scalar type for conversions, where signedness and width both matter (PTX ISA §9.7.9.21 `cvt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CvtType {
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    /// IEEE binary16, held as a 16-bit pattern (`.f16`).
    F16,
    /// bfloat16, held as a 16-bit pattern (`.bf16`).
    Bf16,
    F32,
    F64,
}

impl CvtType {
    /// The IR type a value of this conversion type is held in.
    pub fn ir(self) -> Type {
        match self {
            CvtType::U8 | CvtType::S8 => Type::I8,
            CvtType::U16 | CvtType::S16 | CvtType::F16 | CvtType::Bf16 => Type::I16,
            CvtType::U32 | CvtType::S32 => Type::I32,
            CvtType::U64 | CvtType::S64 => Type::I64,
            CvtType::F32 => Type::F32,
            CvtType::F64 => Type::F64,
        }
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            CvtType::S8 | CvtType::S16 | CvtType::S32 | CvtType::S64
        )
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            CvtType::F32 | CvtType::F64 | CvtType::F16 | CvtType::Bf16
        )
    }
}

impl fmt::Display for CvtType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CvtType::U8 => "u8",
            CvtType::U16 => "u16",
            CvtType::U32 => "u32",
            CvtType::U64 => "u64",
            CvtType::S8 => "s8",
            CvtType::S16 => "s16",
            CvtType::S32 => "s32",
            CvtType::S64 => "s64",
            CvtType::F16 => "f16",
            CvtType::Bf16 => "bf16",
            CvtType::F32 => "f32",
            CvtType::F64 => "f64",
        })
    }
}

/// Integer rounding of a float-to-integer or float-to-float-integral conversion
/// (`.rni .rzi .rmi .rpi`), or the float rounding of an int-to-float / float-narrowing one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CvtRound {
    /// No rounding modifier (legal for exact conversions: integer widening/narrowing,
    /// f32→f64).
    None,
    /// `.rn .rz .rm .rp` (float result).
    Float(Round),
    /// `.rni .rzi .rmi .rpi` (integral result).
    Int(Round),
}

/// Special registers (PTX ISA §10 "Special Registers").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SReg {
    TidX,
    TidY,
    TidZ,
    NtidX,
    NtidY,
    NtidZ,
    CtaidX,
    CtaidY,
    CtaidZ,
    NctaidX,
    NctaidY,
    NctaidZ,
    LaneId,
    WarpId,
    NWarpId,
    /// `%lanemask_eq`: the bit of this lane.
    LanemaskEq,
    /// `%lanemask_le`: bits of lanes ≤ this one.
    LanemaskLe,
    /// `%lanemask_lt`: bits of lanes < this one.
    LanemaskLt,
    /// `%lanemask_ge`: bits of lanes ≥ this one.
    LanemaskGe,
    /// `%lanemask_gt`: bits of lanes > this one.
    LanemaskGt,
    /// `%clock`: low 32 bits of [`SReg::Clock64`].
    Clock,
    /// `%clock_hi`: the high 32 bits of [`SReg::Clock64`] (PTX ISA §10.23; PTX ISA 5.0).
    ClockHi,
    /// `%clock64` (64-bit): nanoseconds since the launch began (a monotonic host clock).
    Clock64,
    /// `%globaltimer` (64-bit): nanoseconds since the Unix epoch (host system time).
    GlobalTimer,
    /// `%globaltimer_lo`: the low 32 bits of [`SReg::GlobalTimer`] (PTX ISA §10.29).
    GlobalTimerLo,
    /// `%globaltimer_hi`: the high 32 bits of [`SReg::GlobalTimer`] (PTX ISA §10.29).
    GlobalTimerHi,
    /// `%envreg0`–`%envreg31` (PTX ISA §10.28): driver-defined, read-only. ptxjit defines
    /// `%envreg1`/`%envreg2` as the high/low halves of a cooperative launch's grid workspace
    /// address (where CUDA's cooperative groups look for it; 0 in other launches); every
    /// other one reads as 0.
    EnvReg(u8),
    /// `%smid`: linear CTA index modulo `%nsmid` (ptxjit's stand-in for the SM).
    SmId,
    /// `%nsmid`: the number of host worker threads.
    NSmId,
    /// `%gridid` (64-bit): the launch's sequence number in this process.
    GridId,
    /// `%dynamic_smem_size`: dynamic shared memory bytes of the launch.
    DynamicSmemSize,
    /// `%total_smem_size` (PTX ISA §10.30): the CTA's user shared memory, static (rounded up
    /// to 16) plus dynamic bytes, rounded up to the 128-byte allocation unit of sm_8x and
    /// later; the reserved region is not counted.
    TotalSmemSize,
    /// `%aggr_smem_size` (§10.31): [`SReg::TotalSmemSize`] plus the reserved region's bytes.
    AggrSmemSize,
    /// `%reserved_smem_offset_begin` (§10.29): the shared-space offset where the CTA's
    /// reserved region starts (`runtime::env::RESERVED_SMEM_BEGIN`).
    ReservedSmemBegin,
    /// `%reserved_smem_offset_end` (§10.29): the offset just past the reserved region.
    ReservedSmemEnd,
    /// `%reserved_smem_offset_cap` (§10.29): the reserved region's size in bytes.
    ReservedSmemCap,
    /// `%reserved_smem_offset_0` (§10.29): an offset inside the reserved region where the
    /// system software's data lives.
    ReservedSmemOffset0,
    /// `%reserved_smem_offset_1` (§10.29): another such offset (cooperative groups keep the
    /// scratch of multi-warp tiles there).
    ReservedSmemOffset1,
    /// `%pm0`–`%pm7` (§10.25): performance-monitoring counters, whose behaviour the ISA
    /// leaves undefined; ptxjit counts no events and reads 0.
    Pm(u8),
    /// `%pm0_64`–`%pm7_64` (§10.26, 64-bit): as [`SReg::Pm`], 0.
    Pm64(u8),
    /// `%clusterid.{x,y,z}` (PTX ISA §10.13): the cluster's position in the grid of clusters.
    ClusterIdX,
    ClusterIdY,
    ClusterIdZ,
    /// `%nclusterid.{x,y,z}` (§10.14): the grid's shape in clusters.
    NClusterIdX,
    NClusterIdY,
    NClusterIdZ,
    /// `%cluster_ctaid.{x,y,z}` (§10.15): the CTA's position in its cluster.
    ClusterCtaidX,
    ClusterCtaidY,
    ClusterCtaidZ,
    /// `%cluster_nctaid.{x,y,z}` (§10.16): the cluster's shape in CTAs.
    ClusterNctaidX,
    ClusterNctaidY,
    ClusterNctaidZ,
    /// `%cluster_ctarank` (§10.17): the CTA's rank in its cluster, x fastest.
    ClusterCtaRank,
    /// `%cluster_nctarank` (§10.18): CTAs per cluster.
    ClusterNctaRank,
    /// `%is_explicit_cluster` (§10.19, a predicate; read as 0/1 and compared by the front
    /// end): whether the launch (or the kernel's `.reqnctapercluster`) gave a cluster shape.
    IsExplicitCluster,
    /// `%current_graph_exec` (64-bit, PTX ISA 8.0): the CUDA device graph the kernel runs
    /// as part of, 0 when none. ptxjit launches no device graphs (a graph launched from the
    /// host is not one), so it reads 0.
    CurrentGraphExec,
    /// `%locality_domain_id` (PTX ISA 9.5, sm_100 or higher): the locality domain (the group
    /// of SMs and device memory a GPU such as Rubin is split into) of the SM the thread runs
    /// on. ptxjit models a one-domain device, so it reads 0 (docs/isa-notes.md).
    LocalityDomainId,
    /// `%locality_domain_supplemental_sm` (PTX ISA 9.5, sm_100 or higher): read as 0, as on a
    /// device whose SMs all belong to its one locality domain (docs/isa-notes.md).
    LocalityDomainSupplementalSm,
}

/// The names of `%pm0`–`%pm7`.
const PM_NAMES: [&str; 8] = [
    "%pm0", "%pm1", "%pm2", "%pm3", "%pm4", "%pm5", "%pm6", "%pm7",
];

/// The names of `%pm0_64`–`%pm7_64`.
const PM64_NAMES: [&str; 8] = [
    "%pm0_64", "%pm1_64", "%pm2_64", "%pm3_64", "%pm4_64", "%pm5_64", "%pm6_64", "%pm7_64",
];

/// The names of `%envreg0`–`%envreg31`.
const ENVREG_NAMES: [&str; 32] = [
    "%envreg0",
    "%envreg1",
    "%envreg2",
    "%envreg3",
    "%envreg4",
    "%envreg5",
    "%envreg6",
    "%envreg7",
    "%envreg8",
    "%envreg9",
    "%envreg10",
    "%envreg11",
    "%envreg12",
    "%envreg13",
    "%envreg14",
    "%envreg15",
    "%envreg16",
    "%envreg17",
    "%envreg18",
    "%envreg19",
    "%envreg20",
    "%envreg21",
    "%envreg22",
    "%envreg23",
    "%envreg24",
    "%envreg25",
    "%envreg26",
    "%envreg27",
    "%envreg28",
    "%envreg29",
    "%envreg30",
    "%envreg31",
];

impl SReg {
    /// `%ntid`, `%ctaid` and `%nctaid`: the same in every thread of a CTA and on every read
    /// (the address tiers of the JIT replay them as they are).
    pub fn is_cta_constant(self) -> bool {
        use SReg::*;
        matches!(
            self,
            NtidX | NtidY | NtidZ | CtaidX | CtaidY | CtaidZ | NctaidX | NctaidY | NctaidZ
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            SReg::TidX => "%tid.x",
            SReg::TidY => "%tid.y",
            SReg::TidZ => "%tid.z",
            SReg::NtidX => "%ntid.x",
            SReg::NtidY => "%ntid.y",
            SReg::NtidZ => "%ntid.z",
            SReg::CtaidX => "%ctaid.x",
            SReg::CtaidY => "%ctaid.y",
            SReg::CtaidZ => "%ctaid.z",
            SReg::NctaidX => "%nctaid.x",
            SReg::NctaidY => "%nctaid.y",
            SReg::NctaidZ => "%nctaid.z",
            SReg::LaneId => "%laneid",
            SReg::WarpId => "%warpid",
            SReg::NWarpId => "%nwarpid",
            SReg::LanemaskEq => "%lanemask_eq",
            SReg::LanemaskLe => "%lanemask_le",
            SReg::LanemaskLt => "%lanemask_lt",
            SReg::LanemaskGe => "%lanemask_ge",
            SReg::LanemaskGt => "%lanemask_gt",
            SReg::Clock => "%clock",
            SReg::ClockHi => "%clock_hi",
            SReg::Clock64 => "%clock64",
            SReg::GlobalTimer => "%globaltimer",
            SReg::GlobalTimerLo => "%globaltimer_lo",
            SReg::GlobalTimerHi => "%globaltimer_hi",
            SReg::EnvReg(n) => ENVREG_NAMES[(n & 31) as usize],
            SReg::SmId => "%smid",
            SReg::NSmId => "%nsmid",
            SReg::GridId => "%gridid",
            SReg::DynamicSmemSize => "%dynamic_smem_size",
            SReg::TotalSmemSize => "%total_smem_size",
            SReg::AggrSmemSize => "%aggr_smem_size",
            SReg::ReservedSmemBegin => "%reserved_smem_offset_begin",
            SReg::ReservedSmemEnd => "%reserved_smem_offset_end",
            SReg::ReservedSmemCap => "%reserved_smem_offset_cap",
            SReg::ReservedSmemOffset0 => "%reserved_smem_offset_0",
            SReg::ReservedSmemOffset1 => "%reserved_smem_offset_1",
            SReg::Pm(n) => PM_NAMES[(n & 7) as usize],
            SReg::Pm64(n) => PM64_NAMES[(n & 7) as usize],
            SReg::ClusterIdX => "%clusterid.x",
            SReg::ClusterIdY => "%clusterid.y",
            SReg::ClusterIdZ => "%clusterid.z",
            SReg::NClusterIdX => "%nclusterid.x",
            SReg::NClusterIdY => "%nclusterid.y",
            SReg::NClusterIdZ => "%nclusterid.z",
            SReg::ClusterCtaidX => "%cluster_ctaid.x",
            SReg::ClusterCtaidY => "%cluster_ctaid.y",
            SReg::ClusterCtaidZ => "%cluster_ctaid.z",
            SReg::ClusterNctaidX => "%cluster_nctaid.x",
            SReg::ClusterNctaidY => "%cluster_nctaid.y",
            SReg::ClusterNctaidZ => "%cluster_nctaid.z",
            SReg::ClusterCtaRank => "%cluster_ctarank",
            SReg::ClusterNctaRank => "%cluster_nctarank",
            SReg::IsExplicitCluster => "%is_explicit_cluster",
            SReg::CurrentGraphExec => "%current_graph_exec",
            SReg::LocalityDomainId => "%locality_domain_id",
            SReg::LocalityDomainSupplementalSm => "%locality_domain_supplemental_sm",
        }
    }

    /// Whether the register is a clock (`%clock`, `%clock_hi`, `%clock64`, `%globaltimer` and
    /// its halves; PTX ISA §10, "Special Registers"): its value changes between two reads with
    /// the same operands, so a read cannot move out of a loop.
    pub fn is_clock(self) -> bool {
        matches!(
            self,
            SReg::Clock
                | SReg::ClockHi
                | SReg::Clock64
                | SReg::GlobalTimer
                | SReg::GlobalTimerLo
                | SReg::GlobalTimerHi
        )
    }

    /// Whether the register has the same value in every lane of a warp (the clocks are read
    /// once per warp instruction).
    pub fn is_warp_uniform(self) -> bool {
        !matches!(
            self,
            SReg::TidX
                | SReg::TidY
                | SReg::TidZ
                | SReg::LaneId
                | SReg::LanemaskEq
                | SReg::LanemaskLe
                | SReg::LanemaskLt
                | SReg::LanemaskGe
                | SReg::LanemaskGt
        )
    }

    /// The register's type: `i64` for `%clock64`, `%globaltimer`, `%gridid` and
    /// `%pm0_64`–`%pm7_64`, else `i32`.
    pub fn ty(self) -> Type {
        match self {
            SReg::Clock64
            | SReg::GlobalTimer
            | SReg::GridId
            | SReg::Pm64(_)
            | SReg::CurrentGraphExec => Type::I64,
            _ => Type::I32,
        }
    }
}

/// Atomic read-modify-write operations (PTX ISA §9.7.13.5 `atom`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    /// Integer add (wrapping).
    Add,
    /// f32 add (round to nearest even; `atom.add.f32`, no `.ftz`).
    FAdd,
    And,
    Or,
    Xor,
    Exch,
    Min(Sign),
    Max(Sign),
    /// `inc`: `old >= b ? 0 : old + 1` (unsigned 32-bit).
    Inc,
    /// `dec`: `(old == 0 || old > b) ? b : old - 1` (unsigned 32-bit).
    Dec,
    /// `add.noftz` on a half (`.f16`/`.bf16`, i16) or on both halves of a packed pair
    /// (`.f16x2`/`.bf16x2`, i32), each rounded to nearest even, subnormals kept.
    HAdd {
        fmt: HalfFmt,
        pair: bool,
    },
    /// `min.noftz`/`max.noftz` on halves (vector forms only), as `min`/`max` on f16/bf16
    /// (PTX ISA §9.7.4.7: a NaN input gives the other input; -0 < +0).
    HMinMax {
        fmt: HalfFmt,
        pair: bool,
        max: bool,
    },
}

/// `shfl.sync` modes (PTX ISA §9.7.8.6 `shfl.sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

impl fmt::Display for ShflMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShflMode::Up => "up",
            ShflMode::Down => "down",
            ShflMode::Bfly => "bfly",
            ShflMode::Idx => "idx",
        })
    }
}

/// `vote` modes (PTX ISA §9.7.13.9 `vote.sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// True when the predicate is true in every participating lane.
    All,
    /// True when it is true in some participating lane.
    Any,
    /// True when it is the same in every participating lane.
    Uni,
    /// The mask of participating lanes where it is true (`i32` result).
    Ballot,
}

impl fmt::Display for VoteMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VoteMode::All => "all",
            VoteMode::Any => "any",
            VoteMode::Uni => "uni",
            VoteMode::Ballot => "ballot",
        })
    }
}

/// `redux.sync` operations (PTX ISA §9.7.13.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    Add,
    Min(Sign),
    Max(Sign),
    And,
    Or,
    Xor,
    /// `.min.f32` (PTX ISA 8.6): `abs` reduces the magnitudes; `nan` makes any NaN input give
    /// the canonical NaN (else NaNs are skipped).
    FMin {
        abs: bool,
        nan: bool,
    },
    /// `.max.f32`, modifiers as [`ReduxOp::FMin`].
    FMax {
        abs: bool,
        nan: bool,
    },
}

impl ReduxOp {
    /// Whether the operation reduces `f32` values.
    pub fn is_float(self) -> bool {
        matches!(self, ReduxOp::FMin { .. } | ReduxOp::FMax { .. })
    }
}

impl fmt::Display for ReduxOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReduxOp::Add => f.write_str("add"),
            ReduxOp::Min(s) => write!(f, "min.{s}"),
            ReduxOp::Max(s) => write!(f, "max.{s}"),
            ReduxOp::And => f.write_str("and"),
            ReduxOp::Or => f.write_str("or"),
            ReduxOp::Xor => f.write_str("xor"),
            ReduxOp::FMin { abs, nan } | ReduxOp::FMax { abs, nan } => {
                let m = if matches!(self, ReduxOp::FMin { .. }) {
                    "min"
                } else {
                    "max"
                };
                let abs = if *abs { ".abs" } else { "" };
                let nan = if *nan { ".NaN" } else { "" };
                write!(f, "{m}{abs}{nan}.f32")
            }
        }
    }
}

/// What a lane does at a CTA barrier (PTX ISA §9.7.13.1 `bar`, `barrier`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarKind {
    /// `bar.sync`/`barrier.sync`: arrive and wait.
    Sync,
    /// `bar.arrive`: arrive without waiting.
    Arrive,
    /// `bar.red.popc`: arrive, wait, then count the threads whose predicate was true.
    RedPopc,
    /// `bar.red.and`: arrive, wait, then whether every predicate was true.
    RedAnd,
    /// `bar.red.or`: arrive, wait, then whether some predicate was true.
    RedOr,
}

impl BarKind {
    /// Whether the arriving lanes wait for the barrier to complete.
    pub fn waits(self) -> bool {
        self != BarKind::Arrive
    }

    /// A small code stored in the warp state's barrier records.
    pub fn code(self) -> u32 {
        match self {
            BarKind::Sync => 0,
            BarKind::Arrive => 1,
            BarKind::RedPopc => 2,
            BarKind::RedAnd => 3,
            BarKind::RedOr => 4,
        }
    }

    pub fn from_code(c: u32) -> BarKind {
        match c {
            1 => BarKind::Arrive,
            2 => BarKind::RedPopc,
            3 => BarKind::RedAnd,
            4 => BarKind::RedOr,
            _ => BarKind::Sync,
        }
    }
}

impl fmt::Display for BarKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BarKind::Sync => "sync",
            BarKind::Arrive => "arrive",
            BarKind::RedPopc => "red.popc",
            BarKind::RedAnd => "red.and",
            BarKind::RedOr => "red.or",
        })
    }
}

/// The format of a 16-bit float held as an `i16` bit pattern (PTX ISA §5.2.5: `.f16` is IEEE
/// binary16, `.bf16` is bfloat16). Packed `.f16x2`/`.bf16x2` values are two such halves in an
/// `i32`, element 0 in the low bits; the decoder splits them, so operations see one half.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfFmt {
    F16,
    Bf16,
}

impl fmt::Display for HalfFmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HalfFmt::F16 => "f16",
            HalfFmt::Bf16 => "bf16",
        })
    }
}

/// `prmt` modes (PTX ISA §9.7.9.7): `Generic` reads four 4-bit selectors from `c` (the msb of
/// each replicates the byte's sign); the others use `c & 3` as in the ISA's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    Generic,
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

/// Approximate transcendental functions (`.approx` forms, PTX ISA §9.7.3.17-22).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApproxFn {
    /// Only `rcp.approx.ftz.f64` (the 1.11.20 form); f32 `rcp.approx` is [`Op::FRcp`](super::Op::FRcp).
    Rcp,
    Rsqrt,
    Sin,
    Cos,
    /// `sin.approx.ftz.2pi.f32`: the sine of `a` cycles, `sin(2πa)` (PTX ISA 9.5).
    Sin2Pi,
    /// `cos.approx.ftz.2pi.f32`: `cos(2πa)` (PTX ISA 9.5).
    Cos2Pi,
    Lg2,
    Ex2,
    Tanh,
}

impl fmt::Display for ApproxFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ApproxFn::Rcp => "rcp",
            ApproxFn::Rsqrt => "rsqrt",
            ApproxFn::Sin => "sin",
            ApproxFn::Cos => "cos",
            ApproxFn::Sin2Pi => "sin.2pi",
            ApproxFn::Cos2Pi => "cos.2pi",
            ApproxFn::Lg2 => "lg2",
            ApproxFn::Ex2 => "ex2",
            ApproxFn::Tanh => "tanh",
        })
    }
}

/// The small float formats of `cvt` (PTX ISA §5.2.5, §9.7.9.21): see `runtime::minifloat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MiniFmt {
    /// 8 bits: 4 exponent bits (bias 7), 3 mantissa bits, no infinities.
    E4M3,
    /// 8 bits: 5 exponent bits (bias 15), 2 mantissa bits, IEEE-style infinities and NaNs.
    E5M2,
    /// 6 bits: 2 exponent bits (bias 1), 3 mantissa bits, no infinities or NaNs.
    E2M3,
    /// 6 bits: 3 exponent bits (bias 3), 2 mantissa bits, no infinities or NaNs.
    E3M2,
    /// 4 bits: 2 exponent bits (bias 1), 1 mantissa bit, no infinities or NaNs.
    E2M1,
}

impl MiniFmt {
    /// The PTX name of the packed pair type (`e4m3x2`, …).
    pub fn pair_name(self) -> &'static str {
        match self {
            MiniFmt::E4M3 => "e4m3x2",
            MiniFmt::E5M2 => "e5m2x2",
            MiniFmt::E2M3 => "e2m3x2",
            MiniFmt::E3M2 => "e3m2x2",
            MiniFmt::E2M1 => "e2m1x2",
        }
    }

    /// The IR type holding a packed pair: i8 for e2m1x2, else i16 (one byte per element).
    pub fn pair_ty(self) -> Type {
        if self == MiniFmt::E2M1 {
            Type::I8
        } else {
            Type::I16
        }
    }
}

/// Rounding of `cvt.tf32.f32`: `.rna` (to nearest, ties away from zero), `.rn`, `.rz`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TfRound {
    NearestAway,
    Nearest,
    Zero,
}

/// A narrow-format conversion of `cvt` (PTX ISA §9.7.9.21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NarrowCvt {
    /// args (a: f32, b: f32) → the packed pair ([`MiniFmt::pair_ty`]): a to the upper element,
    /// b to the lower (`.rn.satfinite`).
    ToMiniX2(MiniFmt),
    /// arg (packed pair) → i32 f16x2: the upper element to the upper half.
    FromMiniX2(MiniFmt),
    /// args (a: f32, b: f32) → i16 `ue8m0x2` (a to the upper byte); `rp`: round up (`.rp`),
    /// else toward zero (`.rz`); `satfinite`: never the NaN encoding 0xff for a finite input.
    ToUe8m0x2 { rp: bool, satfinite: bool },
    /// arg (i16 `ue8m0x2`) → i32 bf16x2.
    FromUe8m0x2,
    /// arg (f32) → i32: the tf32 value as f32 bits, low 13 bits 0; `true`: `.satfinite`.
    ToTf32(TfRound, bool),
    /// arg (i16) → i16: `.satfinite` on an f16/bf16 result (±∞ → ±largest finite).
    SatFinite(HalfFmt),
    /// `cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits`: args (a: f32, b: f32,
    /// rbits: i32) → i32, a to the upper half; stochastic rounding with rbits' upper half for
    /// a and lower half for b (their low 13 bits for f16).
    HalfX2Rs { fmt: HalfFmt, satfinite: bool },
    /// One half of `cvt.rs{.relu}.satfinite.<fmt>x4.f32 d, {a, b, e, f}, rbits`: args
    /// (a: f32, b: f32, rbits: i32) → the packed pair ([`MiniFmt::pair_ty`]), stochastic
    /// rounding with 8 random bits per element. `upper`: the pair (a, b) of the upper half of
    /// `d`, else (e, f); the random bytes are rbits' bytes 3, 2 (upper) and 1, 0 for the
    /// 8-bit formats, and bytes 3, 1 (upper) and 2, 0 for e2m1.
    MiniX2Rs { fmt: MiniFmt, upper: bool },
    /// `cvt.rn{.satfinite}{.relu}{.scaled::n2::ue8m0}.bf16x2.<fmt>x2 d, a{, scale}`: args
    /// (packed pair, i16 scale factors) → i32 bf16x2, the upper element (scaled by the upper
    /// scale byte) to the upper half; `0x7f7f` (two 1s) when the instruction has no scale.
    FromMiniX2Bf16 { fmt: MiniFmt, satfinite: bool },
    /// `cvt.rn.satfinite{.relu}{.scaled::n2::ue8m0}.s2f6x2.{f32,bf16x2}`: args (a: f32, b: f32,
    /// i16 scale factors) → i16 `s2f6x2`, a (divided by the upper scale byte) to the upper byte.
    ToS2f6x2,
    /// `cvt.rn{.satfinite}{.relu}{.scaled::n2::ue8m0}.bf16x2.s2f6x2 d, a{, scale}`: args
    /// (i16 `s2f6x2`, i16 scale factors) → i32 bf16x2, the upper byte to the upper half.
    FromS2f6x2 { satfinite: bool },
}

impl fmt::Display for NarrowCvt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NarrowCvt::ToMiniX2(t) => write!(f, "{}.f32", t.pair_name()),
            NarrowCvt::FromMiniX2(t) => write!(f, "f16x2.{}", t.pair_name()),
            NarrowCvt::ToUe8m0x2 { rp, satfinite } => write!(
                f,
                "{}{}.ue8m0x2.f32",
                if *rp { "rp" } else { "rz" },
                if *satfinite { ".satfinite" } else { "" }
            ),
            NarrowCvt::FromUe8m0x2 => f.write_str("bf16x2.ue8m0x2"),
            NarrowCvt::ToTf32(r, sat) => write!(
                f,
                "{}{}.tf32.f32",
                match r {
                    TfRound::NearestAway => "rna",
                    TfRound::Nearest => "rn",
                    TfRound::Zero => "rz",
                },
                if *sat { ".satfinite" } else { "" }
            ),
            NarrowCvt::SatFinite(h) => write!(f, "satfinite.{}", format!("{h:?}").to_lowercase()),
            NarrowCvt::HalfX2Rs { fmt, satfinite } => write!(
                f,
                "rs{}.{}x2.f32",
                if *satfinite { ".satfinite" } else { "" },
                format!("{fmt:?}").to_lowercase()
            ),
            NarrowCvt::MiniX2Rs { fmt, upper } => write!(
                f,
                "rs.satfinite.{}.f32.{}",
                fmt.pair_name().replace("x2", "x4"),
                if *upper { "hi" } else { "lo" }
            ),
            NarrowCvt::FromMiniX2Bf16 { fmt, satfinite } => write!(
                f,
                "rn{}.scaled.bf16x2.{}",
                if *satfinite { ".satfinite" } else { "" },
                fmt.pair_name()
            ),
            NarrowCvt::ToS2f6x2 => f.write_str("rn.satfinite.scaled.s2f6x2.f32"),
            NarrowCvt::FromS2f6x2 { satfinite } => write!(
                f,
                "rn{}.scaled.bf16x2.s2f6x2",
                if *satfinite { ".satfinite" } else { "" }
            ),
        }
    }
}

/// `testp` properties (PTX ISA §9.7.3.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestProp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

impl fmt::Display for TestProp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TestProp::Finite => "finite",
            TestProp::Infinite => "infinite",
            TestProp::Number => "number",
            TestProp::NotANumber => "notanumber",
            TestProp::Normal => "normal",
            TestProp::Subnormal => "subnormal",
        })
    }
}

/// The primary operation of a video instruction (PTX ISA §9.7.18).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoOp {
    Add,
    Sub,
    /// `vavrg2/4`: rounded average.
    Avrg,
    AbsDiff,
    Min,
    Max,
    /// `vshl` with `.clamp` (counts above 32 are 32) or `.wrap` (counts mod 32).
    Shl {
        clamp: bool,
    },
    /// `vshr`, as `vshl`.
    Shr {
        clamp: bool,
    },
    /// `vset`: 1 when the comparison holds, else 0.
    Set(ICmp),
}

/// The secondary operation of a scalar video instruction: with the third operand c.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoSec {
    None,
    Add,
    Min,
    Max,
}

/// Signedness of a video instruction's destination, a and b (`.dtype.atype.btype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VideoTypes {
    pub d: Sign,
    pub a: Sign,
    pub b: Sign,
}

/// Texture and surface geometry (PTX ISA §9.7.10.3 `tex`, §9.7.11 surface instructions):
/// `.1d .2d .3d .a1d .a2d .cube .acube .2dms .a2dms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexGeom {
    D1,
    D2,
    D3,
    A1d,
    A2d,
    Cube,
    ACube,
    D2ms,
    A2dms,
}

impl TexGeom {
    /// The geometry named by a modifier without the dot (`"2d"` → `D2`).
    pub fn from_suffix(s: &str) -> Option<TexGeom> {
        Some(match s {
            "1d" => TexGeom::D1,
            "2d" => TexGeom::D2,
            "3d" => TexGeom::D3,
            "a1d" => TexGeom::A1d,
            "a2d" => TexGeom::A2d,
            "cube" => TexGeom::Cube,
            "acube" => TexGeom::ACube,
            "2dms" => TexGeom::D2ms,
            "a2dms" => TexGeom::A2dms,
            _ => return None,
        })
    }

    /// Coordinates besides the array index (and the 2dms sample index): 1, 2 or 3.
    pub fn dims(self) -> u32 {
        match self {
            TexGeom::D1 | TexGeom::A1d => 1,
            TexGeom::D2 | TexGeom::A2d | TexGeom::D2ms | TexGeom::A2dms => 2,
            TexGeom::D3 | TexGeom::Cube | TexGeom::ACube => 3,
        }
    }

    /// Whether the coordinate vector starts with an array index.
    pub fn arrayed(self) -> bool {
        matches!(
            self,
            TexGeom::A1d | TexGeom::A2d | TexGeom::ACube | TexGeom::A2dms
        )
    }

    /// Whether the coordinates end with a sample index (multisample geometries).
    pub fn multisample(self) -> bool {
        matches!(self, TexGeom::D2ms | TexGeom::A2dms)
    }
}

impl fmt::Display for TexGeom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TexGeom::D1 => "1d",
            TexGeom::D2 => "2d",
            TexGeom::D3 => "3d",
            TexGeom::A1d => "a1d",
            TexGeom::A2d => "a2d",
            TexGeom::Cube => "cube",
            TexGeom::ACube => "acube",
            TexGeom::D2ms => "2dms",
            TexGeom::A2dms => "a2dms",
        })
    }
}

/// The optional parts of a `tex`/`tld4` (PTX ISA §9.7.10.3, §9.7.10.4): a texel offset
/// vector `e` (`.s32` per dimension, in texels, added to the coordinates before addressing), a
/// depth-compare value `f` (`.f32`: each fetched texel's first channel becomes 1.0 where the
/// comparison passes, else 0.0, before filtering), `.f16x2` results (the four channels
/// rounded to f16 and packed two per 32-bit result, first channel in the low half) and
/// `.v4.f16` results (`tex` only: the four channels rounded to f16, one per 16-bit result).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TexOpts {
    pub offset: bool,
    pub compare: bool,
    pub f16x2: bool,
    pub f16: bool,
}

impl fmt::Display for TexOpts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.offset {
            f.write_str(".offset")?;
        }
        if self.compare {
            f.write_str(".dc")?;
        }
        if self.f16x2 {
            f.write_str(".f16x2")?;
        }
        if self.f16 {
            f.write_str(".f16")?;
        }
        Ok(())
    }
}

/// How `tex` picks its mipmap level (PTX ISA §9.7.10.3): the base level (`tex`), an explicit
/// level of detail (`tex.level`, one f32 operand) or gradients (`tex.grad`, two vectors).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexLod {
    Base,
    Level,
    Grad,
}

impl fmt::Display for TexLod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TexLod::Base => "base",
            TexLod::Level => "level",
            TexLod::Grad => "grad",
        })
    }
}

/// An attribute queried by `txq` (PTX ISA §9.7.10.5) or `suq` (§9.7.11.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexAttr {
    Width,
    Height,
    Depth,
    ChannelDataType,
    ChannelOrder,
    NormalizedCoords,
    ArraySize,
    NumMipmapLevels,
    NumSamples,
    ForceUnnormalizedCoords,
    FilterMode,
    AddrMode0,
    AddrMode1,
    AddrMode2,
    MemoryLayout,
}

impl TexAttr {
    /// The attribute named by a modifier without the dot.
    pub fn from_suffix(s: &str) -> Option<TexAttr> {
        Some(match s {
            "width" => TexAttr::Width,
            "height" => TexAttr::Height,
            "depth" => TexAttr::Depth,
            "channel_data_type" => TexAttr::ChannelDataType,
            "channel_order" => TexAttr::ChannelOrder,
            "normalized_coords" => TexAttr::NormalizedCoords,
            "array_size" => TexAttr::ArraySize,
            "num_mipmap_levels" => TexAttr::NumMipmapLevels,
            "num_samples" => TexAttr::NumSamples,
            "force_unnormalized_coords" => TexAttr::ForceUnnormalizedCoords,
            "filter_mode" => TexAttr::FilterMode,
            "addr_mode_0" => TexAttr::AddrMode0,
            "addr_mode_1" => TexAttr::AddrMode1,
            "addr_mode_2" => TexAttr::AddrMode2,
            "memory_layout" => TexAttr::MemoryLayout,
            _ => return None,
        })
    }
}

impl fmt::Display for TexAttr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TexAttr::Width => "width",
            TexAttr::Height => "height",
            TexAttr::Depth => "depth",
            TexAttr::ChannelDataType => "channel_data_type",
            TexAttr::ChannelOrder => "channel_order",
            TexAttr::NormalizedCoords => "normalized_coords",
            TexAttr::ArraySize => "array_size",
            TexAttr::NumMipmapLevels => "num_mipmap_levels",
            TexAttr::NumSamples => "num_samples",
            TexAttr::ForceUnnormalizedCoords => "force_unnormalized_coords",
            TexAttr::FilterMode => "filter_mode",
            TexAttr::AddrMode0 => "addr_mode_0",
            TexAttr::AddrMode1 => "addr_mode_1",
            TexAttr::AddrMode2 => "addr_mode_2",
            TexAttr::MemoryLayout => "memory_layout",
        })
    }
}

/// What a surface access does out of range (PTX ISA §9.7.11.1 `suld`): fault (`.trap`), use
/// the nearest in-range location (`.clamp`), or load zero / drop the store (`.zero`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SurfClamp {
    Trap,
    Clamp,
    Zero,
}

impl fmt::Display for SurfClamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SurfClamp::Trap => "trap",
            SurfClamp::Clamp => "clamp",
            SurfClamp::Zero => "zero",
        })
    }
}

/// The kind of opaque handle `istypep` tests for (PTX ISA §9.7.10.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandleKind {
    Texture,
    Sampler,
    Surface,
}

impl fmt::Display for HandleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HandleKind::Texture => "texref",
            HandleKind::Sampler => "samplerref",
            HandleKind::Surface => "surfref",
        })
    }
}
