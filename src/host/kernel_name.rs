//! Which kernel of a module a name means ([`super::Module::kernel`], `cuModuleGetFunction`,
//! case files' `kernel`, `ptxjit run --kernel`).
//!
//! A module's `.entry` names are what the compiler wrote: the plain name of an `extern "C"`
//! kernel, or a C++ name mangled by the Itanium ABI (`_Z9transposeIfEvPT_PKS0_ii`). A name
//! is looked up in these steps; the first step with a match decides, and a step that matches
//! more than one kernel is an error listing them:
//! 1. the entry name exactly (mangled or `extern "C"`);
//! 2. the demangled name (by `cpp_demangle`), with or without its return type:
//!    `void transpose<float>(float*, float const*, int, int)`, `ns::scale(float*, int)`;
//! 3. the demangled name without its parameter list: `transpose<float>`, `ns::scale`;
//! 4. that name without the template arguments of its last part: `transpose`;
//! 5. that name without ABI tags (`[abi:cxx11]`; numba tags every kernel twice, so
//!    `__main__::saxpy[abi:v1][abi:cw51c…]` is `__main__::saxpy`);
//! 6. its last part alone, without namespaces or classes: `saxpy`, `scale` for `ns::scale`.
//!
//! Steps 2 to 6 ignore white space (`float *` is `float*`, `a<b<c> >` is `a<b<c>>`) but
//! otherwise take the name as the demangler writes it (`float const*`, not `const float*`).

pub use crate::ptx::names::demangled;
use cpp_demangle::{DemangleOptions, Symbol};

/// How messages name a kernel or device function: numba's kernels by their Python name with
/// the entry name once (`'__main__.saxpy' (_ZN8__main__5saxpyB2v1B92cw51c…E5ArrayIfLi1E…)`,
/// see [`numba_name`]), other mangled names demangled (`'transpose<float>(float*, int,
/// int)' (_Z9transposeIfEvPT_ii)`), plain names as they are (`'saxpy'`): the form that
/// follows `kernel` or `function` in fault, timeout, sanitizer and launch error messages.
pub fn quoted(name: &str) -> String {
    match numba_name(name) {
        Some(python) => format!("'{python}' ({name})"),
        None => crate::ptx::names::quoted(name),
    }
}

/// The Python name (`module.qualname`) of a function numba compiled, from its entry name;
/// `None` for a name numba did not make.
///
/// numba (numba-cuda's `itanium_mangler`) mangles `module.qualname` as a C++ nested name,
/// one part for each dot-separated piece, each piece with the characters outside
/// `[A-Za-z0-9_]` written `_xx` (hex of each UTF-8 byte: `<locals>` is `_3clocals_3e`), then
/// ABI tags, the first `v` and the function's unique id, then the argument types:
/// `_ZN8__main__6kernelB2v1B92cw51c…E5ArrayIiLi1E1C7mutable7alignedEx` is `__main__.kernel`.
/// Older numba put its kernels in a `cudapy` namespace (`_ZN6cudapy8__main__6kernelB2v1…`),
/// which is left out. That first `[abi:vN]` tag is what tells numba's names from C++ ones.
pub fn numba_name(entry: &str) -> Option<String> {
    let mut rest = entry.strip_prefix("_ZN")?.as_bytes();
    let mut parts = vec![];
    while rest.first().is_some_and(u8::is_ascii_digit) {
        parts.push(source_name(&mut rest)?);
    }
    let tag = rest.strip_prefix(b"B")?;
    rest = tag;
    let uid = source_name(&mut rest)?;
    let numbered = uid
        .strip_prefix('v')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if !numbered || parts.is_empty() {
        return None;
    }
    if parts.len() > 1 && parts[0] == "cudapy" {
        parts.remove(0);
    }
    let pieces: Vec<String> = parts.iter().map(|p| unescape_numba(p)).collect();
    Some(pieces.join("."))
}

/// The `<decimal length><that many bytes>` at the start of `rest` (a source name or ABI tag
/// of the mangling), `rest` moved past it.
fn source_name(rest: &mut &[u8]) -> Option<String> {
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let len: usize = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    let text = rest.get(digits..digits.checked_add(len)?)?;
    *rest = &rest[digits + len..];
    String::from_utf8(text.to_vec()).ok()
}

/// A piece of numba's mangled name with its `_xx` escapes undone: those numba writes for a
/// printable ASCII character outside `[A-Za-z0-9_]` (`_3c` → `<`, `_2e` → `.`); other `_xx`
/// (`add_1d`, a UTF-8 byte) stay as they are. A leading digit's `_` (numba's prefix to a
/// piece that starts with one) is dropped.
fn unescape_numba(piece: &str) -> String {
    let piece = match piece.strip_prefix('_') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) && !is_escape(piece) => rest,
        _ => piece,
    };
    let mut out = String::with_capacity(piece.len());
    let mut rest = piece;
    while !rest.is_empty() {
        if is_escape(rest) {
            out.push(u8::from_str_radix(&rest[1..3], 16).map_or('_', char::from));
            rest = &rest[3..];
        } else {
            let c = rest.chars().next().unwrap_or('_');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Whether `s` starts with an escape numba writes: `_` and two hex digits of a printable
/// ASCII character that is not a letter, digit or `_`.
fn is_escape(s: &str) -> bool {
    s.strip_prefix('_')
        .and_then(|h| h.get(..2))
        .and_then(|h| u8::from_str_radix(h, 16).ok())
        .is_some_and(|b| (0x20..0x7f).contains(&b) && !b.is_ascii_alphanumeric() && b != b'_')
}

/// Whether `label` is the module variable numba makes for a function's environment object
/// (`.NumbaEnv.` and the function's name, mangled as [`numba_name`] says:
/// `_ZN08NumbaEnv8__main__6kernelB2v1…`): a pointer numba's kernels never follow on a GPU,
/// whose name would only mislead as a fault's neighbour.
pub fn is_numba_environment(label: &str) -> bool {
    label.starts_with("_ZN08NumbaEnv")
}

/// Whether `label` is a module variable the compiler made for itself, not one the program
/// declared: nvcc's `$str`, `$str$1`, … (the format strings of `printf` and the texts of
/// `assert`) and `__unnamed_1`, … (the function names `assert` reports): no neighbour a fault
/// report should name, since the program has no such variable.
pub fn is_compiler_internal(label: &str) -> bool {
    label.starts_with("$str") || label.starts_with("__unnamed_")
}

/// The outcome of a lookup that found no single kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Miss {
    /// No kernel has the name.
    None,
    /// These kernels (indices into the entry names) all have it.
    Ambiguous(Vec<usize>),
}

/// The forms of one entry name that steps 2 to 4 compare against (white space removed).
struct Forms {
    full: Option<String>,
    no_return: Option<String>,
    no_params: Option<String>,
    no_template: Option<String>,
    no_abi: Option<String>,
    unqualified: Option<String>,
}

fn forms(entry: &str) -> Forms {
    let demangle = |o: DemangleOptions| {
        Symbol::new(entry)
            .ok()?
            .demangle_with_options(&o)
            .ok()
            .map(|s| squash(&s))
    };
    let none = || Forms {
        full: None,
        no_return: None,
        no_params: None,
        no_template: None,
        no_abi: None,
        unqualified: None,
    };
    if !entry.starts_with("_Z") {
        return none();
    }
    let no_params = demangle(DemangleOptions::new().no_params().no_return_type());
    let no_template = no_params.as_deref().and_then(strip_template_args);
    let base = no_template.as_deref().or(no_params.as_deref());
    let no_abi = base.map(strip_abi_tags);
    let unqualified = no_abi.as_deref().map(last_part);
    Forms {
        full: demangle(DemangleOptions::new()),
        no_return: demangle(DemangleOptions::new().no_return_type()),
        no_template,
        no_params,
        no_abi,
        unqualified,
    }
}

/// `name` without its ABI tags: `f[abi:cxx11]` → `f`, `m::k[abi:v1][abi:x]` → `m::k`.
fn strip_abi_tags(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find("[abi:") {
        out.push_str(&rest[..at]);
        match rest[at..].find(']') {
            Some(end) => rest = &rest[at + end + 1..],
            None => {
                rest = &rest[at..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The last part of a qualified name without template arguments: `a<x::y>::b::f` → `f`
/// (the text after the last `::` outside angle brackets and parentheses).
fn last_part(name: &str) -> String {
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = name.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'<' | b'(' => depth += 1,
            b'>' | b')' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => start = i + 2,
            _ => {}
        }
    }
    name[start..].to_string()
}

/// `s` without white space.
fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `a::b<T, U<V>>` → `a::b`; `None` when the name does not end in template arguments.
fn strip_template_args(name: &str) -> Option<String> {
    if !name.ends_with('>') {
        return None;
    }
    let mut depth = 0usize;
    for (i, c) in name.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(name[..i].to_string()).filter(|s| !s.is_empty());
                }
            }
            _ => {}
        }
    }
    None
}

/// The index of the entry `wanted` names (see the module docs for the steps).
pub(super) fn find(entries: &[&str], wanted: &str) -> Result<usize, Miss> {
    let exact: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i] == wanted)
        .collect();
    if let Some(pick) = decide(exact) {
        return pick;
    }
    let all: Vec<Forms> = entries.iter().map(|e| forms(e)).collect();
    let w = squash(wanted);
    type Step = fn(&Forms, &str) -> bool;
    let steps: [Step; 5] = [
        |f, w| f.full.as_deref() == Some(w) || f.no_return.as_deref() == Some(w),
        |f, w| f.no_params.as_deref() == Some(w),
        |f, w| f.no_template.as_deref() == Some(w),
        |f, w| f.no_abi.as_deref() == Some(w),
        |f, w| f.unqualified.as_deref() == Some(w),
    ];
    for step in steps {
        let hits = (0..entries.len()).filter(|&i| step(&all[i], &w)).collect();
        if let Some(pick) = decide(hits) {
            return pick;
        }
    }
    Err(Miss::None)
}

/// One hit: it; several: ambiguous; none: go on (`None`).
fn decide(hits: Vec<usize>) -> Option<Result<usize, Miss>> {
    match hits.len() {
        0 => None,
        1 => Some(Ok(hits[0])),
        _ => Some(Err(Miss::Ambiguous(hits))),
    }
}

/// How lists show an entry: `transpose<float>(float*, int, int) (_Z9transposeIfEvPT_ii)` for
/// a mangled name (the demangled one, then the name the PTX spells, to grep for), the name
/// alone otherwise.
pub fn describe(entry: &str) -> String {
    match demangled(entry) {
        Some(d) => format!("{d} ({entry})"),
        None => entry.to_string(),
    }
}

/// How messages name parameter `param` of kernel `entry`: NVRTC, nvcc and numba name a
/// kernel's parameters `<entry>_param_<n>`; for a mangled entry name (hundreds of characters
/// for a numba kernel, and given beside it in the same message) that is shortened to
/// `param_<n>`. Other names, and those of `extern "C"` kernels (`saxpy_param_0`, short and
/// as the PTX spells it), stay as they are.
pub fn param_label<'a>(entry: &str, param: &'a str) -> &'a str {
    if !entry.starts_with("_Z") {
        return param;
    }
    match param.strip_prefix(entry) {
        Some(rest) if rest.starts_with("_param_") => &rest[1..],
        _ => param,
    }
}

#[cfg(test)]
mod tests {
    use super::{is_numba_environment, numba_name, quoted};

    /// Entry names numba-cuda 0.30.4 wrote (from its PTX), the older `cudapy` form, and
    /// pieces numba escapes (numba-cuda's `itanium_mangler.mangle_identifier`).
    #[test]
    fn numba_names_are_python_names() {
        let tag = "B92cw51cXTLSUwv1sDUaKthoaNgoKmjgOR3W3CwAkMXLaJtQYkOIgxJU0gCqOkEJoHkbttqdVhoqlspQGNFHSgJ5BnXagIA";
        let kernel = format!("_ZN8__main__6kernelB2v1{tag}E5ArrayIiLi1E1C7mutable7alignedEx");
        assert_eq!(numba_name(&kernel).as_deref(), Some("__main__.kernel"));
        assert_eq!(
            quoted(&kernel),
            format!("'__main__.kernel' ({kernel})"),
            "the mangled name once, after the Python one"
        );
        let old = format!("_ZN6cudapy8__main__6kernelB2v1{tag}E5ArrayIiLi1E1C7mutable7alignedEx");
        assert_eq!(numba_name(&old).as_deref(), Some("__main__.kernel"));
        // `pkg.mod.outer.<locals>.inner`, uid 12.
        let nested =
            "_ZN3pkg3mod5outer12_3clocals_3e5innerB3v12B4cw51E5ArrayIfLi1E1C7mutable7alignedE";
        assert_eq!(
            numba_name(nested).as_deref(),
            Some("pkg.mod.outer.<locals>.inner")
        );
        // `_xx` that numba would not have written stays: `add_1d`, `f_41` ('A' is a letter).
        let plain = "_ZN8__main__6add_1dB2v3E5ArrayIfLi1E1C7mutable7alignedE";
        assert_eq!(numba_name(plain).as_deref(), Some("__main__.add_1d"));
        let letter = "_ZN8__main__4f_41B2v3Ef";
        assert_eq!(numba_name(letter).as_deref(), Some("__main__.f_41"));
        // C++ names, ABI tags that are not numba's uid, and plain names are not numba's.
        for other in [
            "_Z9transposeIfEvPT_PKS0_ii",
            "_ZN2ns5scaleEPfi",
            "_ZN2ns5scaleB5cxx11EPfi",
            "_ZN2ns5scaleB1vEPfi",
            "saxpy",
            "_ZN",
            "_ZN8__main__",
            "_ZN99__main__B2v1E",
        ] {
            assert_eq!(numba_name(other), None, "{other}");
        }
        assert_eq!(
            quoted("_ZN2ns5scaleEPfi"),
            "'ns::scale(float*, int)' (_ZN2ns5scaleEPfi)"
        );
        assert_eq!(quoted("saxpy"), "'saxpy'");
        // The environment object numba makes for each function.
        let env =
            format!("_ZN08NumbaEnv8__main__6kernelB2v1{tag}E5ArrayIiLi1E1C7mutable7alignedEx");
        assert!(is_numba_environment(&env));
        assert!(!is_numba_environment(&kernel));
        assert!(!is_numba_environment("NumbaEnv"));
    }

    use super::*;

    // Names as NVRTC 12.9 mangles them (Itanium C++ ABI):
    //   template <typename T> __global__ void transpose(T*, const T*, int, int);  (float, double)
    //   namespace ns { __global__ void scale(float*, int); __global__ void scale(double*, int); }
    //   extern "C" __global__ void saxpy(...);
    const ENTRIES: [&str; 5] = [
        "_Z9transposeIfEvPT_PKS0_ii",
        "_Z9transposeIdEvPT_PKS0_ii",
        "_ZN2ns5scaleEPfi",
        "_ZN2ns5scaleEPdi",
        "saxpy",
    ];

    fn find_(w: &str) -> Result<usize, Miss> {
        find(&ENTRIES, w)
    }

    #[test]
    fn each_spelling_finds_its_kernel() {
        assert_eq!(find_("saxpy"), Ok(4));
        assert_eq!(find_("_ZN2ns5scaleEPdi"), Ok(3));
        assert_eq!(find_("transpose<float>"), Ok(0));
        assert_eq!(find_("transpose<double>"), Ok(1));
        assert_eq!(
            find_("void transpose<double>(double*, double const*, int, int)"),
            Ok(1)
        );
        assert_eq!(
            find_("transpose<float>(float *, float const *, int, int)"),
            Ok(0)
        );
        assert_eq!(find_("ns::scale(float*, int)"), Ok(2));
        assert_eq!(find_("ns::scale(double*,int)"), Ok(3));
    }

    #[test]
    fn ambiguous_and_unknown_names() {
        assert_eq!(find_("transpose"), Err(Miss::Ambiguous(vec![0, 1])));
        assert_eq!(find_("ns::scale"), Err(Miss::Ambiguous(vec![2, 3])));
        assert_eq!(find_("scale"), Err(Miss::Ambiguous(vec![2, 3])));
        assert_eq!(find_("transpose<int>"), Err(Miss::None));
        assert_eq!(find_("ns::scale(int*, int)"), Err(Miss::None));
        assert_eq!(find_(""), Err(Miss::None));
        // Not mangled names that look like it do not panic.
        assert_eq!(find(&["_Z", "_Zgarbage"], "x"), Err(Miss::None));
    }

    #[test]
    fn numba_kernels_are_found_by_their_python_names() {
        // `numba.cuda.compile_ptx` (numba-cuda 0.30.4) of `def saxpy(out, a, x, y)` in a
        // script and of `def scale(a)` in module `mylib.ops`: two ABI tags, then the
        // parameters' numba types.
        let saxpy = "_ZN8__main__5saxpyB2v1B106cw51cXTLSUwv1sDUaKthoaNgoKmjgMVuW1AiA8rAEg2UjxRKtuAIAMYDWpKAqkSkPiQB1BQFk0DyoW21Oizc1a0UoPGnDpQE8oxrNQE_3dE5ArrayIfLi1E1C7mutable7alignedEf5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedE";
        let scale = "_ZN5mylib3ops5scaleB2v1B92cw51cXTLSUwv1sDUaKthoaNgoKmjgOR3W3CwAkMXLaJtQYkOIgxJU0gCqOkEJoHkbttqdVhoqlspQGNFHSgJ5BnXagIAE5ArrayIfLi1E1C7mutable7alignedE";
        let entries = [saxpy, scale];
        assert_eq!(find(&entries, "saxpy"), Ok(0));
        assert_eq!(find(&entries, "__main__::saxpy"), Ok(0));
        assert_eq!(find(&entries, "scale"), Ok(1));
        assert_eq!(find(&entries, "mylib::ops::scale"), Ok(1));
        assert_eq!(find(&entries, "ops::scale"), Err(Miss::None));
        assert_eq!(find(&entries, "__main__"), Err(Miss::None));
    }

    #[test]
    fn parameters_of_mangled_kernels_are_shown_by_their_index() {
        let k = "_ZN2ns5scaleEPfi";
        assert_eq!(param_label(k, "_ZN2ns5scaleEPfi_param_1"), "param_1");
        assert_eq!(param_label(k, "n"), "n");
        assert_eq!(
            param_label(k, "_ZN2ns5scaleEPfi_paramx"),
            "_ZN2ns5scaleEPfi_paramx"
        );
        assert_eq!(param_label("saxpy", "saxpy_param_3"), "saxpy_param_3");
    }

    #[test]
    fn abi_tags_and_qualifiers_are_stripped() {
        assert_eq!(strip_abi_tags("m::k[abi:v1][abi:x_3d]"), "m::k");
        assert_eq!(strip_abi_tags("f[abi:cxx11]<int>"), "f<int>");
        assert_eq!(strip_abi_tags("f[abi:unterminated"), "f[abi:unterminated");
        assert_eq!(last_part("a<x::y>::b::f"), "f");
        assert_eq!(last_part("(anonymous namespace)::k"), "k");
        assert_eq!(last_part("k"), "k");
        // A C++ kernel in a namespace, by its last part alone.
        assert_eq!(find(&["_ZN2ns6detail4fillEPf"], "fill"), Ok(0));
        // An exact or qualified match still wins over a last-part one.
        assert_eq!(find(&["_ZN2ns4fillEPf", "fill"], "fill"), Ok(1));
        assert_eq!(find(&["_ZN1a1fEv", "_ZN1b1a1fEv"], "a::f"), Ok(0));
    }

    #[test]
    fn an_exact_entry_name_wins_over_a_demangled_one() {
        // An extern "C" kernel named like another's demangled base name.
        assert_eq!(find(&["_ZN2ns5scaleEPfi", "ns"], "ns"), Ok(1));
        // A non-template kernel `f` and a template `f<int>`: `f` is the first.
        assert_eq!(find(&["_Z1fIiEvv", "_Z1fv"], "f"), Ok(1));
    }

    #[test]
    fn template_arguments_are_stripped_at_the_end_only() {
        assert_eq!(strip_template_args("a::b<T,U<V>>"), Some("a::b".into()));
        assert_eq!(strip_template_args("a<int>::b"), None);
        assert_eq!(strip_template_args("<int>"), None);
        assert_eq!(strip_template_args("x>"), None);
        assert_eq!(
            describe("_ZN2ns5scaleEPfi"),
            "ns::scale(float*, int) (_ZN2ns5scaleEPfi)"
        );
        assert_eq!(describe("saxpy"), "saxpy");
    }

    #[test]
    fn messages_show_the_demangled_name_then_the_mangled_one() {
        // The return type of a template's mangled name is dropped, as compute-sanitizer does.
        assert_eq!(
            quoted("_Z9transposeIfEvPT_PKS0_ii"),
            "'transpose<float>(float*, float const*, int, int)' (_Z9transposeIfEvPT_PKS0_ii)"
        );
        assert_eq!(quoted("saxpy"), "'saxpy'");
        // Names that only look mangled are shown as they are.
        assert_eq!(quoted("_Zgarbage"), "'_Zgarbage'");
        assert_eq!(demangled("_Z"), None);
    }
}
