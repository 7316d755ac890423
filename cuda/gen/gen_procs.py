#!/usr/bin/env python3
"""Generates the parts of the drop-in libcuda that follow from NVIDIA's headers.

Usage (from the repository root):

    pip install nvidia-cuda-runtime-cu12==12.9.79      # CUDA 12.9 headers (nvidia/cuda_runtime/include)
    pip install nvidia-cuda-runtime==13.5.37           # CUDA 13.5 headers (nvidia/cu13/include)
    python3 cuda/gen/gen_procs.py SITE/nvidia/cuda_runtime/include SITE/nvidia/cu13/include

Each argument is a directory holding cuda.h and cudaTypedefs.h (also cudaProfilerTypedefs.h,
read when present), oldest CUDA first. A C preprocessor is needed: `cpp` by default, or the
command in $CPP. Rerun the script whenever a `#[no_mangle]` function is added to or removed from
cuda/src (a hand-written function whose stub is still in stubs.rs does not compile: the symbol is
defined twice).

Several header sets make one table: every ABI any of them gives (one version names one symbol in
all of them), and a symbol is legacy only where no set declares it for programs (CUDA 13 keeps
`cuCtxCreate_v2` for the driver's own build only, yet programs built with CUDA 12 link to it).
Error codes are the union, each described by the newest header that has it.

Writes:
- cuda/src/errors.rs: the CUresult codes with their names and the strings cuGetErrorString gives.
- cuda/src/procs.rs: the table cuGetProcAddress reads (base name -> ABI symbols by CUDA version,
  with per-thread default stream twins) and the symbol -> function map of this library.
- cuda/src/stubs.rs: an exported function answering CUDA_ERROR_NOT_SUPPORTED for every current
  driver symbol that no hand-written function provides.
- docs/driver-api.md: every driver API function by cuda.h group with its status.

How symbols are derived
-----------------------
cudaTypedefs.h declares one PFN_<base>_v<version>[_ptds|_ptsz] typedef per ABI of every driver
function: <version> is the CUDA version that introduced that ABI (3020 = 3.2) and the parameter
list is the ABI. cuda.h, preprocessed with __CUDA_API_VERSION_INTERNAL (the mode NVIDIA builds
the driver in), declares every exported symbol with its parameters: the current ones (through
macros such as `#define cuMemAlloc cuMemAlloc_v2` and the __CUDA_API_PTDS/PTSZ macros) and, at
its end, the legacy ones (`cuMemAlloc(CUdeviceptr_v1 *, unsigned int)`). Each typedef is matched
to the declared symbol of its base name whose parameter types are the same (typedef aliases
resolved); where several versions share one parameter list (a change of semantics, not of
types: cuCtxDestroy -> cuCtxDestroy_v2), the older version takes the lower suffix.

Legacy symbols are those cuda.h declares only under __CUDA_API_VERSION_INTERNAL: no program
built with the headers of CUDA 3.2 or later links to them, and several keep the 32-bit ABI
(cuMemAlloc takes an `unsigned int` size). The library never exports them as stubs (an absent
symbol fails at load time, clearly, where a stub bound to the wrong ABI would not); a legacy
symbol exists only when written by hand with its own ABI, and only those in LEGACY_BY_HAND.
"""

import os
import re
import subprocess
import sys
import textwrap
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "cuda", "src")
GENERATED = {"errors.rs", "procs.rs", "stubs.rs"}
PIP = "nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-runtime==13.5.37"

# Legacy symbols that may be written by hand: their ABI is the old declaration's, checked by hand.
# cuGetProcAddress (CUDA 11.3) is cuGetProcAddress_v2 without the symbolStatus out-parameter.
# cuDevicePrimaryCtxRelease, _Reset (CUdevice) and _SetFlags (CUdevice, unsigned int), CUDA 7.0,
# have their _v2 ABIs' parameters; NVIDIA's statically linked runtime asks for them at 7000.
LEGACY_BY_HAND = {
    "cuGetProcAddress",
    "cuDevicePrimaryCtxRelease",
    "cuDevicePrimaryCtxReset",
    "cuDevicePrimaryCtxSetFlags",
}

# The strings NVIDIA's cuGetErrorString returns, where public logs of programs running on the
# real driver show them ("CUDA_ERROR_X: <string>" as TensorFlow, CuPy, JAX, FFmpeg and Taichi
# print it). Every other code gets the first sentence of its comment in cuda.h.
DRIVER_STRINGS = {
    "CUDA_SUCCESS": "no error",
    "CUDA_ERROR_INVALID_VALUE": "invalid argument",
    "CUDA_ERROR_OUT_OF_MEMORY": "out of memory",
    "CUDA_ERROR_NOT_INITIALIZED": "initialization error",
    "CUDA_ERROR_NO_DEVICE": "no CUDA-capable device is detected",
    "CUDA_ERROR_INVALID_DEVICE": "invalid device ordinal",
    "CUDA_ERROR_INVALID_IMAGE": "device kernel image is invalid",
    "CUDA_ERROR_INVALID_CONTEXT": "invalid device context",
    "CUDA_ERROR_NO_BINARY_FOR_GPU": "no kernel image is available for execution on the device",
    "CUDA_ERROR_INVALID_PTX": "a PTX JIT compilation failed",
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION":
        "the provided PTX was compiled with an unsupported toolchain.",
    "CUDA_ERROR_FILE_NOT_FOUND": "file not found",
    "CUDA_ERROR_OPERATING_SYSTEM": "OS call failed or operation not supported on this OS",
    "CUDA_ERROR_INVALID_HANDLE": "invalid resource handle",
    "CUDA_ERROR_NOT_FOUND": "named symbol not found",
    "CUDA_ERROR_ILLEGAL_ADDRESS": "an illegal memory access was encountered",
    "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES": "too many resources requested for launch",
    "CUDA_ERROR_LAUNCH_TIMEOUT": "the launch timed out and was terminated",
    "CUDA_ERROR_ASSERT": "device-side assert triggered",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION": "an illegal instruction was encountered",
    "CUDA_ERROR_MISALIGNED_ADDRESS": "misaligned address",
    "CUDA_ERROR_LAUNCH_FAILED": "unspecified launch failure",
    "CUDA_ERROR_NOT_PERMITTED": "operation not permitted",
    "CUDA_ERROR_NOT_SUPPORTED": "operation not supported",
    "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH":
        "system has unsupported display driver / cuda driver combination",
    "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE":
        "forward compatibility was attempted on non supported HW",
    "CUDA_ERROR_UNKNOWN": "unknown error",
}


# Versions cudaTypedefs.h gives wrongly: the cuLogs* typedefs say 12.9, but the functions came
# with CUDA 12.8 and NVIDIA's cuda-python 12.9 (cuda/bindings/_internal/driver_linux.pyx) asks
# cuGetProcAddress for them at 12080.
VERSION_OVERRIDES = {
    ("cuLogsRegisterCallback", 12090): 12080,
    ("cuLogsUnregisterCallback", 12090): 12080,
    ("cuLogsCurrent", 12090): 12080,
    ("cuLogsDumpToFile", 12090): 12080,
    ("cuLogsDumpToMemory", 12090): 12080,
}


def fail(msg):
    sys.exit(f"gen_procs.py: {msg}")


def preprocess(include, header, defines):
    cpp = os.environ.get("CPP", "cpp").split()
    cmd = cpp + ["-P", "-I", include] + [f"-D{d}" for d in defines] + [os.path.join(include, header)]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    except FileNotFoundError:
        fail(f"no C preprocessor `{cpp[0]}` (set $CPP)")
    except subprocess.CalledProcessError as e:
        fail(f"`{' '.join(cmd)}` failed:\n{e.stderr}")
    return re.sub(r"\s+", " ", out.stdout)


def balanced(text, start):
    """The text between the parenthesis at `start` and its match, and the index after it."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
    fail(f"unbalanced parenthesis at {text[start:start + 80]!r}")


def split_params(params):
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [] if out == ["void"] else out


def parse_decls(text):
    """Exported CUresult-returning functions: name -> parameter list."""
    decls = {}
    for m in re.finditer(r"(static inline |static )?CUresult (cu\w+) ?\(", text):
        params, end = balanced(text, m.end() - 1)
        if m.group(1) or not text[end:].lstrip().startswith(";"):
            continue  # an inline helper, not a symbol
        decls[m.group(2)] = split_params(params)
    return decls


def parse_typedefs(text):
    return {m.group(1): split_params(balanced(text, m.end() - 1)[0])
            for m in re.finditer(r"typedef CUresult ?\( ?\* ?(PFN_\w+) ?\) ?\(", text)}


def parse_aliases(text):
    """`typedef A B;` with A one or more plain words (no struct body, no pointer)."""
    aliases = {}
    for m in re.finditer(r"typedef ((?:\w+ )+)(\w+) ?;", text):
        words = m.group(1).split()
        if words[0] in ("struct", "enum", "union"):
            continue
        aliases[m.group(2)] = " ".join(words)
    return aliases


def normalize(param, aliases):
    """A parameter's type as the ABI sees it: name, const and struct/enum tags dropped, typedef
    aliases resolved."""
    tokens = re.findall(r"\w+|\*|\[|\]|\(|\)", param)
    idents = [i for i, t in enumerate(tokens) if re.match(r"\w+$", t)]
    # Drop the parameter name: the last identifier when the type has another word before it.
    if len(idents) >= 2 and idents[-1] == len(tokens) - 1:
        tokens = tokens[:-1]
    out = []
    for t in tokens:
        if t in ("const", "struct", "enum", "union", "volatile"):
            continue
        seen = set()
        while t in aliases and t not in seen:
            seen.add(t)
            t = aliases[t]
        out.append(t)
    return " ".join(out)


def suffix_number(base, symbol):
    rest = symbol[len(base):]
    rest = re.sub(r"_(ptds|ptsz)$", "", rest)
    return 1 if rest == "" else int(rest[2:])


def build_table(include):
    plain = preprocess(include, "cudaTypedefs.h", [])
    ptds = preprocess(include, "cudaTypedefs.h", ["CUDA_API_PER_THREAD_DEFAULT_STREAM"])
    internal = preprocess(include, "cudaTypedefs.h", ["__CUDA_API_VERSION_INTERNAL"])
    decls = parse_decls(internal)
    current = set(parse_decls(plain)) | set(parse_decls(ptds))
    missing = current - set(decls)
    if missing:
        fail(f"declared without __CUDA_API_VERSION_INTERNAL only: {sorted(missing)}")
    legacy = set(decls) - current
    aliases = parse_aliases(internal)
    sig = {name: [normalize(p, aliases) for p in ps] for name, ps in decls.items()}

    typedefs = parse_typedefs(internal)
    raw_typedefs = open(os.path.join(include, "cudaTypedefs.h")).read()
    pfn_defines = dict(re.findall(r"#define (PFN_\w+)\s+(PFN_\w+)\s*$", raw_typedefs, re.M))
    profiler = os.path.join(include, "cudaProfilerTypedefs.h")
    profiler_bases = set()
    if os.path.exists(profiler):
        text = re.sub(r"\s+", " ", open(profiler).read())
        text = text.replace("CUDAAPI ", "")
        prof = parse_typedefs(text)
        typedefs.update(prof)
        profiler_bases = {re.match(r"PFN_(cu\w+?)_v\d+$", n).group(1) for n in prof}

    # (base, flavor) -> [(version, normalized signature)]
    abis = defaultdict(list)
    for pfn, params in typedefs.items():
        m = re.match(r"PFN_(cu\w+?)_v(\d+)(?:_(ptds|ptsz))?$", pfn)
        if not m:
            target = pfn_defines.get(pfn, "")
            m = re.match(r"PFN_(cu\w+?)_v(\d+)(?:_(ptds|ptsz))?$", target)
            if not m or m.group(1) != pfn[4:]:
                fail(f"typedef {pfn} names no version and no #define gives one")
        base, version, flavor = m.group(1), int(m.group(2)), m.group(3) or ""
        version = VERSION_OVERRIDES.get((base, version), version)
        abis[(base, flavor)].append((version, [normalize(p, aliases) for p in params]))

    # symbol for each (base, flavor, version)
    symbol_of = {}
    for (base, flavor), versions in sorted(abis.items()):
        tail = f"_{flavor}" if flavor else ""
        pattern = re.compile(re.escape(base) + r"(_v\d+)?" + re.escape(tail) + "$")
        candidates = [n for n in decls if pattern.match(n)]
        if base in profiler_bases and not candidates:
            # cudaProfiler.h is not in the wheel: each has one ABI, named as its base.
            for version, _ in versions:
                symbol_of[(base, flavor, version)] = base
            sig[base] = versions[0][1]
            continue
        by_sig = defaultdict(list)
        for version, s in versions:
            by_sig[tuple(s)].append(version)
        for s, vs in by_sig.items():
            names = sorted((n for n in candidates if tuple(sig[n]) == s),
                           key=lambda n: suffix_number(base, n))
            if len(names) != len(vs):
                fail(f"{base}{tail}: versions {sorted(vs)} with parameters {list(s)} "
                     f"match declarations {names}")
            for version, name in zip(sorted(vs), names):
                symbol_of[(base, flavor, version)] = name

    # `#define PFN_cuGraphInstantiate PFN_cuGraphInstantiateWithFlags_v11040`: from that version
    # the base name resolves to another function (cuda.h: #define cuGraphInstantiate
    # cuGraphInstantiateWithFlags).
    for key, target in pfn_defines.items():
        k = re.match(r"PFN_(cu[A-Za-z0-9]+)$", key)
        t = re.match(r"PFN_(cu\w+?)_v(\d+)$", target)
        if k and t and t.group(1) != k.group(1):
            alias, version = (k.group(1), "", int(t.group(2))), int(t.group(2))
            if alias in symbol_of:
                fail(f"{key} names {target}, but {k.group(1)} has its own ABI at {version}")
            symbol_of[alias] = symbol_of[(t.group(1), "", version)]

    covered = set(symbol_of.values())
    untyped = sorted(n for n in current if n not in covered)
    if untyped:
        fail(f"declared in cuda.h but no typedef in cudaTypedefs.h gives a version: {untyped}")

    # base -> [(version, symbol, per-thread twin (version, symbol) or None)]
    procs = {}
    bases = sorted({b for (b, _, _) in symbol_of})
    for base in bases:
        legacy_abis = sorted((v, s) for (b, f, v), s in symbol_of.items() if b == base and f == "")
        twins = {s: (v, s) for (b, f, v), s in symbol_of.items() if b == base and f}
        rows = []
        for version, symbol in legacy_abis:
            twin = twins.pop(symbol + "_ptds", None) or twins.pop(symbol + "_ptsz", None)
            rows.append((version, symbol, twin))
        if twins:
            fail(f"{base}: per-thread symbols without a legacy twin: {sorted(twins)}")
        procs[base] = rows
    return procs, legacy, profiler_bases


def symbols_of(rows):
    """The symbols of one function's ABIs, each followed by its per-thread twin."""
    return [s for (_, symbol, twin) in rows for s in [symbol] + ([twin[1]] if twin else [])]


def all_symbols(procs):
    return {s for rows in procs.values() for s in symbols_of(rows)}


def parse_errors(include):
    text = open(os.path.join(include, "cuda.h")).read()
    body = re.search(r"typedef enum cudaError_enum \{(.*?)\} CUresult;", text, re.S).group(1)
    codes = []
    for m in re.finditer(r"/\*\*(.*?)\*/\s*(CUDA_\w+)\s*=\s*(\d+)", body, re.S):
        doc = " ".join(line.strip().lstrip("*").strip() for line in m.group(1).splitlines())
        doc = re.sub(r"\\deprecated\s*", "", doc)
        doc = re.sub(r"::|\\[pe] ", "", doc)
        doc = re.sub(r"\s+", " ", doc).strip()
        codes.append((m.group(2), int(m.group(3)), doc))
    if not codes or codes[0][0] != "CUDA_SUCCESS":
        fail("could not read enum cudaError_enum from cuda.h")
    return codes


def first_sentence(doc):
    m = re.match(r"(.*?(?<!e\.g)(?<!i\.e)\.)(\s|$)", doc)
    return m.group(1) if m else doc


def parse_groups(include):
    """base name -> (group id, title), from cuda.h's \\defgroup sections."""
    text = open(os.path.join(include, "cuda.h")).read()
    groups, order, current = {}, [], None
    for m in re.finditer(r"\\defgroup (\w+) ([^\n]*)|CUresult\s+CUDAAPI\s+(cu\w+)\s*\(", text):
        if m.group(1):
            current = (m.group(1), m.group(2).strip())
            order.append(current)
        else:
            base = re.sub(r"(_v\d+)?(_ptds|_ptsz)?$", "", m.group(3))
            groups.setdefault(base, current)
    # A name declared only through a macro (`#define cuGraphInstantiate
    # cuGraphInstantiateWithFlags`) is in the group of the name that stands for it.
    for src, dst in re.findall(r"#define (cu\w+)\s+(?:__CUDA_API_PT(?:DS|SZ)\()?(cu\w+)", text):
        src = re.sub(r"(_v\d+)?$", "", src)
        dst = re.sub(r"(_v\d+)?(_ptds|_ptsz)?$", "", dst)
        if src in groups:
            groups.setdefault(dst, groups[src])
    return groups, order


def scan_hand_written():
    """Exported functions written by hand: symbol -> Rust path."""
    found = {}
    for dirpath, _, files in os.walk(SRC):
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, f), SRC)
            if not f.endswith(".rs") or rel in GENERATED:
                continue
            text = open(os.path.join(dirpath, f)).read()
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib"):
                parts = parts[:-1]
            module = "::".join(["crate"] + parts)
            for m in re.finditer(r"#\[(?:unsafe\()?no_mangle\)?\]\s*(?:#\[[^\]]*\]\s*)*"
                                 r"(pub\s+)?(?:unsafe\s+)?extern\s+\"C\"\s+fn\s+(\w+)", text):
                if not m.group(1):
                    fail(f"{rel}: #[no_mangle] fn {m.group(2)} must be pub (procs.rs refers to it)")
                if m.group(2) in found:
                    fail(f"{m.group(2)} is defined twice")
                found[m.group(2)] = f"{module}::{m.group(2)}"
            # `exports! { cuA, cuA_ptsz => fn(...) {...} }` (lib.rs) defines each name listed.
            for m in re.finditer(r"^exports!\s*\{\s*([\w\s,]+?)\s*=>\s*fn", text, re.M):
                for name in (n.strip() for n in m.group(1).split(",")):
                    if name in found:
                        fail(f"{name} is defined twice")
                    found[name] = f"{module}::{name}"
    return found


def merge_tables(tables):
    """One table from several header sets' (procs, legacy, profiler bases), oldest first."""
    rows_of = defaultdict(dict)
    legacy, current, profiler = set(), set(), set()
    for procs, old, prof in tables:
        legacy |= old
        current |= all_symbols(procs) - old
        profiler |= prof
        for base, rows in procs.items():
            for version, symbol, twin in rows:
                seen = rows_of[base].get(version)
                if seen is not None and seen != (symbol, twin):
                    fail(f"{base} at {version}: {seen} in one header set, {(symbol, twin)} in another")
                rows_of[base][version] = (symbol, twin)
    procs = {base: [(v, s, t) for v, (s, t) in sorted(rows.items())]
             for base, rows in rows_of.items()}
    return procs, legacy - current, profiler


def merge_codes(code_lists):
    """The union of the header sets' error codes, by value; the newest set's text wins."""
    by_name = {}
    for codes in code_lists:
        for name, value, doc in codes:
            if name in by_name and by_name[name][1] != value:
                fail(f"{name} is {by_name[name][1]} in one header set and {value} in another")
            by_name[name] = (name, value, doc)
    return sorted(by_name.values(), key=lambda c: c[1])


def merge_groups(group_lists):
    """cuda.h's groups, the newest set's first; older sets add what it lacks."""
    groups, order = {}, []
    for g, o in reversed(group_lists):
        for base, group in g.items():
            groups.setdefault(base, group)
        order += [x for x in o if x not in order]
    return groups, order


def main():
    includes = sys.argv[1:]
    if not includes:
        fail(__doc__)
    for include in includes:
        for h in ("cuda.h", "cudaTypedefs.h"):
            if not os.path.exists(os.path.join(include, h)):
                fail(f"no {h} in {include} (pip install {PIP})")
    procs, legacy, profiler_bases = merge_tables([build_table(i) for i in includes])
    versions = [int(re.search(r"#define CUDA_VERSION (\d+)",
                              open(os.path.join(i, "cuda.h")).read()).group(1)) for i in includes]
    if versions != sorted(versions):
        fail(f"header sets must be given oldest first (CUDA versions {versions})")
    version = versions[-1]
    hand = scan_hand_written()
    table_symbols = all_symbols(procs)
    for s in sorted(hand):
        if s in legacy and s not in LEGACY_BY_HAND:
            fail(f"{hand[s]} exports the legacy symbol {s}, whose ABI is the old one in cuda.h's "
                 f"__CUDA_API_VERSION_INTERNAL block; export the current symbol instead (see "
                 f"procs.rs), or add {s} to LEGACY_BY_HAND once its ABI is checked")
        if s not in table_symbols:
            print(f"gen_procs.py: note: {hand[s]} is not a driver API symbol of CUDA {version}",
                  file=sys.stderr)
    stubs = sorted(s for s in table_symbols if s not in legacy and s not in hand)
    groups, order = merge_groups([parse_groups(i) for i in includes])
    codes = merge_codes([parse_errors(i) for i in includes])
    ctx = dict(procs=procs, legacy=legacy, hand=hand, stubs=stubs, versions=versions,
               groups=groups, order=order, codes=codes, profiler=profiler_bases)
    write(os.path.join(SRC, "errors.rs"), gen_errors(ctx), rust=True)
    write(os.path.join(SRC, "procs.rs"), gen_procs(ctx), rust=True)
    write(os.path.join(SRC, "stubs.rs"), gen_stubs(ctx), rust=True)
    write(os.path.join(ROOT, "docs", "driver-api.md"), gen_docs(ctx))
    n_sym = len(table_symbols)
    print(f"gen_procs.py: CUDA {version}: {len(procs)} functions, {n_sym} symbols "
          f"({len(legacy & table_symbols)} legacy), {len(hand)} written by hand, {len(stubs)} stubs")


def write(path, text, rust=False):
    with open(path, "w") as f:
        f.write(text)
    if rust:
        subprocess.run(["rustfmt", "--edition", "2021", path], check=True)


def version_str(v):
    return f"{v // 1000}.{v % 1000 // 10}"


def versions_str(vs):
    """`12.9`, `12.9 and 13.5`."""
    names = [version_str(v) for v in vs]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


HEADER = ("Generated by `cuda/gen/gen_procs.py` from the headers of CUDA {ver}\n"
          "(`pip install {pip}`);\ndo not edit: rerun the script.")


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gen_errors(ctx):
    codes = ctx["codes"]
    out = ["//! `CUresult` codes (CUDA driver API, `cuda.h` `enum cudaError_enum`) with the name",
           "//! `cuGetErrorName` and the description `cuGetErrorString` gives for each.",
           "//!",
           *["//! " + line for line in HEADER.format(ver=versions_str(ctx["versions"]), pip=PIP).splitlines()],
           "//!",
           "//! Descriptions: the driver's own string where public logs of programs on NVIDIA's driver",
           "//! show it (the list is in the script), else the first sentence of the code's comment in",
           "//! `cuda.h`. Each constant's documentation is that first sentence.",
           "",
           "use std::ffi::CStr;",
           "",
           "/// A CUDA driver API status code.",
           "pub type CUresult = u32;",
           "",
           "/// A code with its name and description, also as C strings for the C API.",
           "pub struct Code {",
           "    pub code: CUresult,",
           "    /// `CUDA_ERROR_INVALID_VALUE`.",
           "    pub name: &'static str,",
           "    /// What `cuGetErrorString` gives (`invalid argument`).",
           "    pub description: &'static str,",
           "    pub c_name: &'static CStr,",
           "    pub c_description: &'static CStr,",
           "}",
           "",
           "const fn c_str(s: &'static str) -> &'static CStr {",
           "    match CStr::from_bytes_with_nul(s.as_bytes()) {",
           "        Ok(c) => c,",
           "        // Evaluated at compile time: a string with an inner NUL does not build.",
           "        Err(_) => panic!(\"not a C string\"),",
           "    }",
           "}",
           "",
           "macro_rules! codes {",
           "    ($($(#[$doc:meta])* $name:ident = $value:literal, $description:literal;)*) => {",
           "        $($(#[$doc])* pub const $name: CUresult = $value;)*",
           "",
           "        /// Every code, in increasing order.",
           "        pub static CODES: &[Code] = &[$(Code {",
           "            code: $value,",
           "            name: stringify!($name),",
           "            description: $description,",
           "            c_name: c_str(concat!(stringify!($name), \"\\0\")),",
           "            c_description: c_str(concat!($description, \"\\0\")),",
           "        }),*];",
           "    };",
           "}",
           "",
           "// NAME = value, \"cuGetErrorString\";",
           "codes! {"]
    for name, value, doc in sorted(codes, key=lambda c: c[1]):
        for line in textwrap.wrap(first_sentence(doc), 92):
            out.append(f"    /// {line}")
        desc = DRIVER_STRINGS.get(name, first_sentence(doc))
        out.append(f"    {name} = {value}, {rust_str(desc)};")
    out += ["}",
            "",
            "/// The entry of `code`; `None` for a number that is no `CUresult`.",
            "pub fn code(code: CUresult) -> Option<&'static Code> {",
            "    CODES.binary_search_by_key(&code, |c| c.code).ok().map(|i| &CODES[i])",
            "}",
            "",
            "/// The name of a code (`CUDA_ERROR_INVALID_VALUE`), as `cuGetErrorName` gives it;",
            "/// `unrecognized CUresult` for a number that is none.",
            "pub fn name(code: CUresult) -> &'static str {",
            "    self::code(code).map_or(\"unrecognized CUresult\", |c| c.name)",
            "}",
            "",
            "/// The description of a code (`invalid argument`), as `cuGetErrorString` gives it;",
            "/// `unrecognized CUresult` for a number that is none.",
            "pub fn description(code: CUresult) -> &'static str {",
            "    self::code(code).map_or(\"unrecognized CUresult\", |c| c.description)",
            "}",
            ""]
    return "\n".join(out)


def gen_procs(ctx):
    procs, hand, legacy = ctx["procs"], ctx["hand"], ctx["legacy"]
    out = ["//! The driver API function table `cuGetProcAddress` reads, and the address of every",
           "//! function this library exports.",
           "//!",
           *["//! " + line for line in HEADER.format(ver=versions_str(ctx["versions"]), pip=PIP).splitlines()],
           "//!",
           "//! Each driver function (`cuMemAlloc`) has one or more ABIs, each introduced by a CUDA",
           "//! version and exported under its own symbol (`cuMemAlloc` at 2.0, `cuMemAlloc_v2` at",
           "//! 3.2); an ABI may have a per-thread default stream twin (`cuMemcpyHtoD_v2_ptds`, from",
           "//! 7.0). Legacy symbols (the pre-3.2 32-bit ABIs, and other ABIs only old binaries",
           "//! link to) are in the table but not exported unless written by hand: see [`LEGACY`].",
           "",
           "use std::ffi::c_void;",
           "",
           "pub use crate::stubs::STUBS;",
           "",
           "/// The per-thread default stream twin of an ABI.",
           "pub struct PerThread {",
           "    /// The CUDA version (`1000 * major + 10 * minor`) that introduced it.",
           "    pub version: u32,",
           "    pub symbol: &'static str,",
           "}",
           "",
           "/// One ABI of a driver function.",
           "pub struct Abi {",
           "    /// The CUDA version (`1000 * major + 10 * minor`) from which `cuGetProcAddress`",
           "    /// returns this ABI.",
           "    pub version: u32,",
           "    pub symbol: &'static str,",
           "    pub per_thread: Option<PerThread>,",
           "}",
           "",
           "/// A driver API function by its base name, as `cuGetProcAddress` is asked for it.",
           "pub struct Proc {",
           "    pub name: &'static str,",
           "    /// Oldest first.",
           "    pub abis: &'static [Abi],",
           "}",
           "",
           "macro_rules! procs {",
           "    (@twin) => { None };",
           "    (@twin $version:literal $symbol:ident) => {",
           "        Some(PerThread { version: $version, symbol: stringify!($symbol) })",
           "    };",
           "    ($($name:ident: $($version:literal $symbol:ident $(/ $tv:literal $twin:ident)?),+;)*) => {",
           "        /// Every driver API function, sorted by name.",
           "        pub static PROCS: &[Proc] = &[$(Proc {",
           "            name: stringify!($name),",
           "            abis: &[$(Abi {",
           "                version: $version,",
           "                symbol: stringify!($symbol),",
           "                per_thread: procs!(@twin $($tv $twin)?),",
           "            }),+],",
           "        }),*];",
           "    };",
           "}",
           "",
           "// name: version symbol [/ version per-thread-twin], ...;",
           "procs! {"]
    for base in sorted(procs):
        abis = []
        for version, symbol, twin in procs[base]:
            abis.append(f"{version} {symbol}" + (f" / {twin[0]} {twin[1]}" if twin else ""))
        out.append(f"    {base}: {', '.join(abis)};")
    out += ["}",
            "",
            "/// The symbols only old binaries link to (declared in `cuda.h` only for the driver's own",
            "/// build, `__CUDA_API_VERSION_INTERNAL`). Not exported, unless written by hand.",
            "pub static LEGACY: &[&str] = &["]
    out += [f"    {rust_str(s)}," for s in sorted(legacy & all_symbols(procs))]
    out += ["];",
            "",
            "/// The exported functions written by hand (the rest of the table's current symbols are",
            "/// stubs answering `CUDA_ERROR_NOT_SUPPORTED`).",
            "pub static HAND_WRITTEN: &[&str] = &["]
    out += [f"    {rust_str(s)}," for s in sorted(hand)]
    out += ["];",
            "",
            "/// The function this library exports as `symbol`; `None` for a symbol it does not export.",
            "pub fn address(symbol: &str) -> Option<*mut c_void> {",
            "    let f: *mut c_void = match symbol {"]
    exported = {s: hand[s] for s in hand}
    exported.update({s: f"crate::stubs::{s}" for s in ctx["stubs"]})
    for s in sorted(exported):
        out.append(f"        {rust_str(s)} => {exported[s]} as *mut c_void,")
    out += ["        _ => return None,",
            "    };",
            "    Some(f)",
            "}",
            ""]
    return "\n".join(out)


def gen_stubs(ctx):
    out = ["//! Every current driver API symbol that no hand-written function provides: each answers",
           "//! `CUDA_ERROR_NOT_SUPPORTED` (`PTXJIT_TRACE=1` names the call). A C function that",
           "//! ignores its arguments is ABI-safe for any argument list (x86-64 System V, AArch64).",
           "//!",
           *["//! " + line for line in HEADER.format(ver=versions_str(ctx["versions"]), pip=PIP).splitlines()],
           "",
           "use crate::errors::{CUresult, CUDA_ERROR_NOT_SUPPORTED};",
           "use crate::Fail;",
           "",
           "fn unsupported(name: &'static str) -> CUresult {",
           "    crate::entry(name, || Err(Fail::new(CUDA_ERROR_NOT_SUPPORTED, \"not supported by ptxjit\")))",
           "}",
           "",
           "macro_rules! stubs {",
           "    ($($name:ident)*) => {",
           "        $(",
           "            /// Not supported by ptxjit: answers `CUDA_ERROR_NOT_SUPPORTED`.",
           "            #[no_mangle]",
           "            pub unsafe extern \"C\" fn $name() -> CUresult {",
           "                unsupported(stringify!($name))",
           "            }",
           "        )*",
           "        /// The symbols of this module.",
           "        pub static STUBS: &[&str] = &[$(stringify!($name)),*];",
           "    };",
           "}",
           "",
           "stubs! {"]
    out += [f"    {s}" for s in ctx["stubs"]]
    out += ["}", ""]
    return "\n".join(out)


def gen_docs(ctx):
    procs, hand, legacy, groups, order = (ctx["procs"], ctx["hand"], ctx["legacy"],
                                          ctx["groups"], ctx["order"])
    by_group = defaultdict(list)
    for base in procs:
        if base in ctx["profiler"]:
            g = ("CUDA_PROFILER", "Profiler Control (cudaProfiler.h)")
        else:
            g = groups.get(base)
            if g is None:
                fail(f"{base}: no \\defgroup in cuda.h declares it")
        by_group[g].append(base)
    order = order + [("CUDA_PROFILER", "Profiler Control (cudaProfiler.h)")]
    counts = defaultdict(int)
    sections = []
    for g in order:
        bases = sorted(by_group.get(g, []))
        if not bases:
            continue
        sections += ["", f"## {g[1]}", "", "| Function | Status | Symbols |", "|---|---|---|"]
        for base in bases:
            exported = [s for s in symbols_of(procs[base]) if s not in legacy or s in hand]
            real = [s for s in exported if s in hand]
            status = ("implemented" if real and len(real) == len(exported)
                      else "partial" if real else "not supported")
            counts[status] += 1
            shown = ", ".join(f"`{s}`" + ("" if s in hand or status == "not supported"
                                          else " (not supported)") for s in exported)
            sections.append(f"| `{base}` | {status} | {shown} |")
    total = sum(counts.values())
    head = ["# CUDA driver API functions",
            "",
            HEADER.format(ver=versions_str(ctx["versions"]), pip=PIP),
            "",
            "Every function of the CUDA driver API (`cuda.h`, and `cuProfiler*` from `cudaProfiler.h`),",
            "grouped as `cuda.h` groups them, with what ptxjit's `libcuda.so.1` does with it:",
            "",
            "- **implemented**: every exported symbol of the function runs on ptxjit.",
            "- **partial**: some symbols run on ptxjit; those marked *(not supported)* (often the",
            "  per-thread default stream twins, `_ptds`/`_ptsz`) answer `CUDA_ERROR_NOT_SUPPORTED`.",
            "- **not supported**: the symbols exist (so programs load) and answer",
            "  `CUDA_ERROR_NOT_SUPPORTED`; `PTXJIT_TRACE=1` names each such call.",
            "",
            "The Symbols column lists the exported symbols. Legacy symbols (the pre-3.2 32-bit",
            "`cuMemAlloc`, and others only old binaries link to) are not exported; `cuGetProcAddress`",
            "answers `CUDA_ERROR_NOT_FOUND` for a version that would select one.",
            "",
            f"{counts['implemented']} of {total} functions implemented, {counts['partial']} partly.",
            ]
    return "\n".join(head + sections) + "\n"


if __name__ == "__main__":
    main()
