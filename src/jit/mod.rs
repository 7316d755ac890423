//! The Cranelift JIT backend.

use crate::analysis::schedule::WarpLayout;
use crate::ir::verify::VerifiedFunction;
use crate::runtime::env::CtaEnv;
use crate::runtime::launch::{WarpEngine, WarpStatus};

/// A kernel compiled to native code.
pub struct JitKernel {
    layout: WarpLayout,
}

impl WarpEngine for JitKernel {
    fn layout(&self) -> &WarpLayout {
        &self.layout
    }
    fn run_warp(&self, _state: &mut [u8], _env: &CtaEnv) -> WarpStatus {
        WarpStatus::Aborted
    }
}

/// Compile a verified kernel.
pub fn compile(_f: &VerifiedFunction, layout: WarpLayout) -> Result<JitKernel, String> {
    Ok(JitKernel { layout })
}
