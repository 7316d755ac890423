//! `ptxjit dump --ir | --ast FILE.ptx`.

use super::{fail, DumpArgs};

pub fn dump(a: &DumpArgs) -> u8 {
    let name = a.file.display().to_string();
    let text = match std::fs::read_to_string(&a.file) {
        Ok(t) => t,
        Err(e) => return fail(format!("cannot read {name}: {e}")),
    };
    if a.ast {
        let map = crate::ptx::span::SourceMap::new(&name, &text);
        match crate::ptx::parse(&text) {
            Ok(ast) => println!("{ast:#?}"),
            Err(e) => return fail(e.render(&map)),
        }
    }
    if a.ir {
        match crate::host::front_end(&text, &name) {
            Ok((_, kernels)) => {
                for k in &kernels {
                    println!("{}", crate::ir::print::print_function(k));
                }
            }
            Err(e) => return fail(e),
        }
    }
    0
}
