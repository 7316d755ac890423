//! The reference interpreter.

use crate::analysis::schedule::WarpLayout;
use crate::ir::verify::VerifiedFunction;
use crate::runtime::env::CtaEnv;
use crate::runtime::launch::{WarpEngine, WarpStatus};

/// A kernel decoded for interpretation.
pub struct Interpreter {
    layout: WarpLayout,
}

impl Interpreter {
    pub fn new(_f: &VerifiedFunction, layout: WarpLayout) -> Interpreter {
        Interpreter { layout }
    }
}

impl WarpEngine for Interpreter {
    fn layout(&self) -> &WarpLayout {
        &self.layout
    }
    fn run_warp(&self, _state: &mut [u8], _env: &CtaEnv) -> WarpStatus {
        WarpStatus::Aborted
    }
}
