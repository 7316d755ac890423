//! initcheck's reports: a launch's uninitialised reads in kernel terms (kernel, PTX and CUDA
//! source line, thread, the buffer and offset read), as [`Context::take_init_reports`]
//! gives them. See `runtime::initcheck` for what counts as written.
//!
//! [`Context::take_init_reports`]: super::Context::take_init_reports

use super::context::Kernel;
use crate::ir::{self, SrcLoc};
use crate::ptx::lineinfo::SourceLoc;
use crate::runtime::initcheck::InitRecord;
use crate::runtime::memory::DeviceMemory;

/// One distinct uninitialised read: the instruction, and the lowest thread (CTA, then thread
/// in the CTA, in linear order) that made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitReport {
    pub kernel: String,
    /// Global (or const) or shared.
    pub space: ir::Space,
    /// The access's address (a global device address, or a shared offset).
    pub addr: u64,
    /// Access size in bytes.
    pub size: u32,
    pub ctaid: [u32; 3],
    pub tid: [u32; 3],
    /// PTX source location and instruction text.
    pub loc: SrcLoc,
    /// The CUDA source location from the PTX's `.loc` line info, if any.
    pub source: Option<SourceLoc>,
    pub instruction: String,
    pub ptx_file: super::PtxFile,
    /// The allocation read (global): its label, the first unwritten byte's offset in it, and
    /// its size in bytes.
    pub buffer: Option<(String, u64, u64)>,
    /// The first unwritten byte's offset from the access's address (a partly written access).
    pub unwritten_at: u64,
    /// Thread accesses at this instruction that read unwritten bytes, in the whole launch.
    pub count: u64,
    /// The access was an atomic (which reads the old value before writing).
    pub atomic: bool,
}

impl InitReport {
    pub(crate) fn new(
        memory: &DeviceMemory,
        kernel: &Kernel,
        r: InitRecord,
        count: u64,
    ) -> InitReport {
        let k = &kernel.compiled;
        let i = r.inst as usize;
        let buffer = match r.space {
            ir::Space::Shared => None,
            _ => memory
                .allocation_at(r.first_unwritten)
                .map(|(a, off)| (a.label.clone(), off, a.size)),
        };
        InitReport {
            kernel: k.name.clone(),
            space: r.space,
            addr: r.addr,
            size: r.size,
            ctaid: r.ctaid,
            tid: r.tid,
            loc: k.inst_locs.get(i).copied().unwrap_or_default(),
            source: k.inst_sources.get(i).cloned().flatten(),
            instruction: k.inst_ptx.get(i).cloned().unwrap_or_default(),
            ptx_file: kernel.module_file.clone(),
            buffer,
            unwritten_at: r.first_unwritten.wrapping_sub(r.addr),
            count,
            atomic: r.atomic,
        }
    }

    fn space_name(&self) -> &'static str {
        match self.space {
            ir::Space::Shared => "__shared__",
            ir::Space::Const => "__constant__",
            _ => "__global__",
        }
    }

    fn by_atomic(&self) -> &'static str {
        if self.atomic {
            " (by an atomic)"
        } else {
            ""
        }
    }

    /// What was read: `'bins' (1024 bytes) at offset 8`, or the shared offset.
    fn what(&self) -> String {
        match (&self.buffer, self.space) {
            (Some((label, off, size)), _) => {
                format!("'{label}' ({size} bytes) at offset {off}")
            }
            (None, ir::Space::Shared) => {
                format!("shared memory at offset {}", self.addr + self.unwritten_at)
            }
            (None, _) => format!(
                "address {:#x}, in no live allocation",
                self.addr + self.unwritten_at
            ),
        }
    }

    /// The report as a sanitizer tool gives it, one fact a line (compute-sanitizer's shape):
    /// what, where (source line, PTX line and instruction), who, and what was read.
    pub fn sanitizer_text(&self) -> String {
        let mut out = format!(
            "Uninitialized {} memory read of size {} bytes{}\n",
            self.space_name(),
            self.size,
            self.by_atomic()
        );
        match &self.source {
            Some(src) => {
                out += &format!(
                    "    at kernel {} in {src}\n",
                    super::kernel_name::quoted(&self.kernel)
                )
            }
            None => {
                out += &format!(
                    "    at kernel {}\n",
                    super::kernel_name::quoted(&self.kernel)
                )
            }
        }
        out += &format!(
            "    PTX {} '{}'\n",
            self.ptx_file.at(self.loc),
            self.instruction
        );
        let [tx, ty, tz] = self.tid;
        let [bx, by, bz] = self.ctaid;
        out += &format!("    by thread ({tx},{ty},{tz}) in block ({bx},{by},{bz})");
        if self.count > 1 {
            out += &format!(" and {} more accesses", self.count - 1);
        }
        out += "\n";
        out += &format!(
            "    Address {:#x} reads never-written {}\n",
            self.addr,
            self.what()
        );
        out
    }
}

impl std::fmt::Display for InitReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = match &self.source {
            Some(src) => format!(" at {src}"),
            None => String::new(),
        };
        write!(
            f,
            "{}: uninitialized {} memory read of {} bytes{} in kernel {}{at}: \
             never-written {} by CTA ({},{},{}) thread ({},{},{}) in '{}' ({} accesses)",
            self.ptx_file.at(self.loc),
            self.space_name(),
            self.size,
            self.by_atomic(),
            super::kernel_name::quoted(&self.kernel),
            self.what(),
            self.ctaid[0],
            self.ctaid[1],
            self.ctaid[2],
            self.tid[0],
            self.tid[1],
            self.tid[2],
            self.instruction,
            self.count
        )
    }
}
