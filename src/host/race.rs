//! racecheck's reports in kernel terms: a [`RaceFinding`] of the runtime (`runtime::race`)
//! with its instructions mapped to PTX lines, CUDA source lines (`.loc`), thread indices and
//! the shared variable or global allocation it hit. A launch under racecheck ([`LaunchOptions::racecheck`]) runs to
//! the end and leaves its reports in the context ([`Context::take_race_reports`]).
//!
//! [`LaunchOptions::racecheck`]: super::LaunchOptions::racecheck
//! [`Context::take_race_reports`]: super::Context::take_race_reports

use super::context::Kernel;
use crate::ir::{Space, SrcLoc};
use crate::ptx::lineinfo::SourceLoc;
use crate::runtime::launch::LaunchDims;
use crate::runtime::memory::DeviceMemory;
use crate::runtime::race::{AccessKind, RaceFinding};

/// One side of a race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceSide {
    pub kind: AccessKind,
    /// Thread index in the block.
    pub tid: [u32; 3],
    /// PTX location and instruction text.
    pub loc: SrcLoc,
    pub instruction: String,
    /// The CUDA source location (`.loc` line info), if the PTX has one.
    pub source: Option<SourceLoc>,
}

/// A race found by racecheck (on shared memory, or on global memory between threads of one
/// CTA): the earlier and the later access, where, and how many hazards of that pair of
/// instructions the launch had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceReport {
    pub kernel: String,
    pub ptx_file: super::PtxFile,
    /// The earlier access (in the order the launch ran them).
    pub first: RaceSide,
    /// The later access, which found the race.
    pub second: RaceSide,
    /// [`Space::Shared`] or [`Space::Global`].
    pub space: Space,
    /// The first racing byte: its shared-memory offset, or its global address.
    pub offset: u64,
    /// Bytes of the later access.
    pub size: u32,
    /// What holds the byte and the offset into it: the `.shared` variable at `offset` when
    /// the kernel declares one there, or the global allocation (its label).
    pub variable: Option<(String, u64)>,
    pub ctaid: [u32; 3],
    /// Hazards of this pair of instructions in the launch (all CTAs).
    pub count: u64,
}

impl RaceReport {
    /// `__shared__ 'sdata' + 128`, `__shared__ offset 128`, `__global__ 'out' + 8`.
    fn place(&self) -> String {
        let space = self.space_name();
        match &self.variable {
            Some((name, 0)) => format!("{space} {}", super::kernel_name::quoted(name)),
            Some((name, off)) => format!("{space} {} + {off}", super::kernel_name::quoted(name)),
            None if self.space == Space::Shared => format!("{space} offset {}", self.offset),
            None => format!("{space} address {:#x}", self.offset),
        }
    }

    /// `__shared__` or `__global__`.
    fn space_name(&self) -> &'static str {
        if self.space == Space::Shared {
            "__shared__"
        } else {
            "__global__"
        }
    }

    /// The report as a sanitizer tool gives it, one fact a line (compute-sanitizer's shape):
    /// what and where, then each access with its source line, PTX line and thread.
    pub fn sanitizer_text(&self) -> String {
        let hazards = if self.count == 1 { "hazard" } else { "hazards" };
        let mut out = format!(
            "Error: Race reported between {} access and {} access to {} ({} bytes at {} \
             address {:#x}) [{} {hazards}]\n",
            self.first.kind.name(),
            self.second.kind.name(),
            self.place(),
            self.size,
            if self.space == Space::Shared {
                "shared"
            } else {
                "global"
            },
            self.offset,
            self.count
        );
        let [bx, by, bz] = self.ctaid;
        for side in [&self.first, &self.second] {
            let at = match &side.source {
                Some(src) => format!(" in {src}"),
                None => String::new(),
            };
            let [tx, ty, tz] = side.tid;
            out += &format!(
                "    {} at kernel {}{at}\n        PTX {} '{}'\n        by thread \
                 ({tx},{ty},{tz}) in block ({bx},{by},{bz})\n",
                side.kind.name(),
                super::kernel_name::quoted(&self.kernel),
                self.ptx_file.at(side.loc),
                side.instruction
            );
        }
        out
    }
}

impl std::fmt::Display for RaceReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = |s: &RaceSide| {
            let src = s
                .source
                .as_ref()
                .map(|l| format!(" ({l})"))
                .unwrap_or_default();
            // A linked text's line is named by its input and the input's own line.
            let line = match self.ptx_file.locate(s.loc.line) {
                (file, n) if file == self.ptx_file.name() => format!("line {n}"),
                (file, n) => format!("{file}:{n}"),
            };
            format!(
                "{} by thread ({},{},{}) at {line}{src} '{}'",
                s.kind.name().to_lowercase(),
                s.tid[0],
                s.tid[1],
                s.tid[2],
                s.instruction
            )
        };
        write!(
            f,
            "{}: race in kernel {} on {} in block ({},{},{}): {} and {} ({} hazards)",
            self.ptx_file,
            super::kernel_name::quoted(&self.kernel),
            self.place(),
            self.ctaid[0],
            self.ctaid[1],
            self.ctaid[2],
            side(&self.first),
            side(&self.second),
            self.count
        )
    }
}

/// The report of finding `f` of a launch of `kernel` with `dims` (`memory`: the arena the
/// launch ran on, which names global allocations).
pub(super) fn report(
    memory: &DeviceMemory,
    kernel: &Kernel,
    dims: LaunchDims,
    f: RaceFinding,
) -> RaceReport {
    let k = &kernel.compiled;
    let [nx, ny, _] = dims.block;
    let (nx, ny) = (nx.max(1), ny.max(1));
    let side = |a: crate::runtime::race::RaceAccess| RaceSide {
        kind: a.kind,
        tid: [a.thread % nx, (a.thread / nx) % ny, a.thread / (nx * ny)],
        loc: k
            .inst_locs
            .get(a.inst as usize)
            .copied()
            .unwrap_or_default(),
        instruction: k.inst_ptx.get(a.inst as usize).cloned().unwrap_or_default(),
        source: k.inst_sources.get(a.inst as usize).cloned().flatten(),
    };
    // The variable holding the byte: the last one starting at or before it that reaches it
    // (an extern array, size 0, reaches the end).
    let variable = match f.space {
        Space::Shared => k
            .shared_vars
            .iter()
            .filter(|v| v.offset <= f.offset && (v.size == 0 || f.offset - v.offset < v.size))
            .max_by_key(|v| v.offset)
            .map(|v| (v.name.clone(), f.offset - v.offset)),
        _ => memory
            .allocation_at(f.offset)
            .map(|(a, off)| (a.label.clone(), off)),
    };
    RaceReport {
        kernel: k.name.clone(),
        ptx_file: kernel.module_file.clone(),
        first: side(f.first),
        second: side(f.second),
        offset: f.offset,
        size: f.size,
        space: f.space,
        variable,
        ctaid: f.ctaid,
        count: f.count,
    }
}
