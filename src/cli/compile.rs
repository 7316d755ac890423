//! `ptxjit compile KERNEL.cu`: CUDA C++ to PTX with NVRTC ([`crate::nvrtc`]).

use super::{fail, CompileArgs};
use crate::nvrtc::{self, CompileOptions, Nvrtc};

pub fn compile(a: &CompileArgs) -> u8 {
    // PTX is what this command makes, not what it takes: say what to do with it instead of
    // handing it to NVRTC as C++ (whose first error would be `.version`).
    if a.source.extension().is_some_and(|e| e == "ptx") {
        return fail(format!(
            "{} is PTX already (`compile` turns CUDA C++ into PTX): run it with \
             ptxjit run --ptx {} --kernel NAME ..., or load it through the host API",
            a.source.display(),
            a.source.display()
        ));
    }
    let nvrtc = match Nvrtc::load() {
        Ok(n) => n,
        Err(e) => return fail(e),
    };
    let o = CompileOptions {
        arch: a.arch.clone(),
        lineinfo: a.lineinfo,
        include_dirs: a.include.clone(),
        defines: a.define.clone(),
        extra: a.nvrtc.clone(),
    };
    let c = match nvrtc::compile_file(&nvrtc, &a.source, &o) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    // Warnings, as NVRTC gives them (with file:line locations).
    if !c.log.trim().is_empty() {
        eprint!("{}", c.log);
    }
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| a.source.with_extension("ptx"));
    if out.as_os_str() == "-" {
        print!("{}", c.ptx);
        return 0;
    }
    if out == a.source {
        return fail(format!(
            "-o {}: that is the source file; give another output path",
            out.display()
        ));
    }
    match std::fs::write(&out, &c.ptx) {
        Ok(()) => 0,
        Err(e) => fail(format!("cannot write {}: {e}", out.display())),
    }
}
