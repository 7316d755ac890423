//! C++ names as PTX spells them: kernels and device functions whose `.entry`/`.func` names
//! the compiler mangled by the Itanium C++ ABI (`_Z9transposeIfEvPT_PKS0_ii`), and how
//! messages show them (the demangled name, then the mangled one to grep the PTX for).

use cpp_demangle::{DemangleOptions, Symbol};

/// The demangled form of a mangled C++ name without its return type, as compute-sanitizer
/// shows kernels and device functions (`transpose<float>(float*, float const*, int, int)`
/// for `_Z9transposeIfEvPT_PKS0_ii`); `None` for a name that is not mangled (an `extern "C"`
/// kernel) or does not demangle.
pub fn demangled(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    let d = Symbol::new(name)
        .ok()?
        .demangle_with_options(&DemangleOptions::new().no_return_type())
        .ok()?;
    (d != name).then_some(d)
}

/// How messages name a kernel or device function: `'transpose<float>(float*, int, int)'
/// (_Z9transposeIfEvPT_ii)` for a mangled name, `'saxpy'` otherwise (the form that follows
/// `kernel` or `function` in fault, sanitizer and launch error messages).
pub fn quoted(name: &str) -> String {
    match demangled(name) {
        Some(d) => format!("'{d}' ({name})"),
        None => format!("'{name}'"),
    }
}
