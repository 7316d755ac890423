#!/usr/bin/env python3
"""Generates the parts of the drop-in libcudart that follow from NVIDIA's CUDA 13 runtime.

Usage (from the repository root):

    python3 -m venv .venv-nvcc && .venv-nvcc/bin/pip install -r cudart/requirements.txt \
        nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-nvcc-cu12==12.9.86
    python3 cudart/gen/gen_runtime.py .venv-nvcc/lib/python3*/site-packages/nvidia/cu13 \
        .venv-nvcc/lib/python3*/site-packages/nvidia

The second argument (optional) is the `nvidia` directory holding CUDA 12.9's cuda_runtime/ and
cuda_nvcc/ (for crt/ headers): the symbols CUDA 12's cuda_runtime_api.h declares and CUDA 13's
does not (`cudaGetDeviceProperties_v2`, `cudaThreadSynchronize`, ...) are exported too, so
CUDA 12 programs load through the libcudart.so.12 name; their table is apart in the docs.

The argument is the CUDA 13 directory of the pip wheels: include/ holds cuda_runtime_api.h,
driver_types.h and cuda.h; lib/ holds NVIDIA's libcudart.so.13, loaded (with ctypes, no GPU
needed) only to read the strings its cudaGetErrorName/cudaGetErrorString give for each code.
A C preprocessor is needed: `cpp`, or the command in $CPP. Rerun the script whenever an
exported function is added to or removed from cudart/src (a hand-written function whose stub
is still in stubs.rs does not compile: the symbol is defined twice).

Writes:
- cudart/src/errors.rs: the cudaError_t codes with NVIDIA's names and strings, and the
  CUresult -> cudaError_t table for every code of cuda.h.
- cudart/src/stubs.rs: an exported function answering cudaErrorNotSupported for every runtime
  API symbol that no hand-written function provides.
- docs/runtime-api.md: every runtime API function with its status.

Symbols: cuda_runtime_api.h preprocessed twice, plainly and with
CUDA_API_PER_THREAD_DEFAULT_STREAM (which maps some functions to their `_ptds`/`_ptsz`
symbols); every `extern <type> cuda<Name>(` declaration in either is an exported symbol.

CUresult -> cudaError_t: the runtime's enum shares its values with the driver's for the codes
both have (cudaErrorMemoryAllocation = CUDA_ERROR_OUT_OF_MEMORY = 2); a driver code without a
runtime code of the same value must be decided in DRIVER_ONLY, or the script fails.
"""

import ctypes
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "cudart", "src")
GENERATED = {"errors.rs", "stubs.rs"}

# Driver codes the runtime enum has no code of the same value for, and what the runtime answers.
DRIVER_ONLY = {
    # Multicast objects are not part of the runtime API; binding fails for want of a resource.
    "CUDA_ERROR_MULTICAST_RESOURCE_FULL": "cudaErrorMemoryAllocation",
    # Confidential-computing key rotation has no runtime code.
    "CUDA_ERROR_KEY_ROTATION": "cudaErrorUnknown",
    # Deprecated in the driver (pushing a current context is not an error since CUDA 3.2).
    "CUDA_ERROR_CONTEXT_ALREADY_CURRENT": "cudaErrorInvalidValue",
}


def fail(msg):
    sys.exit(f"gen_runtime.py: {msg}")


def preprocess(include, header, defines, extra=()):
    cpp = os.environ.get("CPP", "cpp").split()
    cmd = (cpp + ["-P", "-I", include] + [f"-I{e}" for e in extra] + [f"-D{d}" for d in defines]
           + [os.path.join(include, header)])
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    except FileNotFoundError:
        fail(f"no C preprocessor `{cpp[0]}` (set $CPP)")
    except subprocess.CalledProcessError as e:
        fail(f"`{' '.join(cmd)}` failed:\n{e.stderr}")
    return re.sub(r"\s+", " ", out.stdout)


def runtime_symbols(include, extra=()):
    """symbol -> return type, from both preprocessings of cuda_runtime_api.h."""
    symbols = {}
    for defines in ([], ["CUDA_API_PER_THREAD_DEFAULT_STREAM"]):
        text = preprocess(include, "cuda_runtime_api.h", defines, extra)
        for m in re.finditer(r"extern\s+(?:__attribute__\(\(.*?\)\)\s*)*((?:const\s+)?(?:struct\s+)?\w+\s*\**)\s*(cuda\w+)\s*\(", text):
            ret = re.sub(r"\s+", " ", m.group(1)).strip()
            symbols[m.group(2)] = ret
    if "cudaMalloc" not in symbols:
        fail("no cudaMalloc declared in cuda_runtime_api.h")
    return symbols


def runtime_codes(include):
    text = open(os.path.join(include, "driver_types.h")).read()
    body = re.search(r"enum __device_builtin__ cudaError\s*\{(.*?)\};", text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    codes = [(m.group(1), int(m.group(2))) for m in re.finditer(r"(cuda\w+)\s*=\s*(\d+)", body)]
    if not codes or codes[0] != ("cudaSuccess", 0):
        fail("could not read enum cudaError from driver_types.h")
    return codes


def driver_codes(include):
    text = open(os.path.join(include, "cuda.h")).read()
    body = re.search(r"typedef enum cudaError_enum \{(.*?)\} CUresult;", text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    return [(m.group(1), int(m.group(2))) for m in re.finditer(r"(CUDA_\w+)\s*=\s*(\d+)", body)]


def nvidia_strings(cu13, codes):
    lib = ctypes.CDLL(os.path.join(cu13, "lib", "libcudart.so.13"))
    lib.cudaGetErrorName.restype = ctypes.c_char_p
    lib.cudaGetErrorString.restype = ctypes.c_char_p
    out = {}
    for name, value in codes:
        got = lib.cudaGetErrorName(value).decode()
        if got != name:
            fail(f"NVIDIA's cudaGetErrorName({value}) is {got}, the header says {name}")
        out[name] = lib.cudaGetErrorString(value).decode()
    return out


def scan_hand_written():
    found = set()
    for f in sorted(os.listdir(SRC)):
        if not f.endswith(".rs") or f in GENERATED:
            continue
        text = open(os.path.join(SRC, f)).read()
        for m in re.finditer(r"#\[(?:unsafe\()?no_mangle\)?\]\s*(?:#\[[^\]]*\]\s*)*"
                             r"pub\s+(?:unsafe\s+)?extern\s+\"C\"\s+fn\s+(\w+)", text):
            found.add(m.group(1))
        for m in re.finditer(r"^(?:rt_)?exports!\s*\{\s*([\w\s,]+?)\s*=>\s*fn", text, re.M):
            found.update(n.strip() for n in m.group(1).split(","))
    return found


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write(path, text, rust=False):
    with open(path, "w") as f:
        f.write(text)
    if rust:
        subprocess.run(["rustfmt", "--edition", "2021", path], check=True)


HEADER = ("Generated by `cudart/gen/gen_runtime.py` from NVIDIA's CUDA {ver} runtime\n"
          "(`pip install -r cudart/requirements.txt`); do not edit: rerun the script.")


def gen_errors(ver, rt, strings, drv):
    by_value = {v: n for n, v in rt}
    rt_names = {n for n, _ in rt}
    pairs = []
    for name, value in drv:
        if value in by_value:
            pairs.append((name, value, by_value[value]))
        elif name in DRIVER_ONLY:
            target = DRIVER_ONLY[name]
            if target not in rt_names:
                fail(f"DRIVER_ONLY maps {name} to {target}, which driver_types.h lacks")
            pairs.append((name, value, target))
        else:
            fail(f"{name} = {value} has no runtime code of that value: decide it in DRIVER_ONLY")
    out = ["//! `cudaError_t` codes (CUDA runtime API, `driver_types.h` `enum cudaError`) with the",
           "//! names and strings NVIDIA's `cudaGetErrorName`/`cudaGetErrorString` give, and the",
           "//! `cudaError_t` the runtime answers for each driver `CUresult`.",
           "//!", *["//! " + l for l in HEADER.format(ver=ver).splitlines()], "",
           "use std::ffi::CStr;", "",
           "/// A CUDA runtime API status code.",
           "#[allow(non_camel_case_types)]",
           "pub type cudaError_t = u32;", "",
           "/// A driver API status code (`cuda.h`).",
           "pub type CUresult = u32;", ""]
    for name, value in rt:
        out.append(f"pub const {name}: cudaError_t = {value};")
    out += ["", "/// Every runtime code: (code, name, string), in increasing order.",
            "pub static CODES: &[(cudaError_t, &CStr, &CStr)] = &["]
    for name, value in sorted(rt, key=lambda c: c[1]):
        out.append(f"    ({value}, c\"{name}\", c{rust_str(strings[name])}),")
    out += ["];", "",
            "/// The entry of runtime code `c`, if it is one.",
            "pub fn code(c: cudaError_t) -> Option<&'static (cudaError_t, &'static CStr, &'static CStr)> {",
            "    CODES.binary_search_by_key(&c, |e| e.0).ok().map(|i| &CODES[i])",
            "}", "",
            "/// The name of runtime code `c` (`cudaErrorInvalidValue`).",
            "pub fn name(c: cudaError_t) -> &'static str {",
            "    code(c).and_then(|e| e.1.to_str().ok()).unwrap_or(\"unrecognized error code\")",
            "}", "",
            "/// Every driver code (`cuda.h`) and the runtime code it becomes: (CUresult, name,",
            "/// cudaError_t), in increasing order of the driver code.",
            "pub static FROM_DRIVER: &[(CUresult, &str, cudaError_t)] = &["]
    for name, value, target in sorted(pairs, key=lambda p: p[1]):
        out.append(f"    ({value}, \"{name}\", {target}),")
    out += ["];", ""]
    return "\n".join(out)


def gen_stubs(ver, stubs):
    out = ["//! Every runtime API symbol that no hand-written function provides: each answers",
           "//! `cudaErrorNotSupported` (`PTXJIT_TRACE=1` names the call). A C function that",
           "//! ignores its arguments is ABI-safe for any argument list (x86-64 System V, AArch64);",
           "//! every stub's function returns `cudaError_t` (the script writes no stub for another",
           "//! return type).", "//!",
           *["//! " + l for l in HEADER.format(ver=ver).splitlines()], "",
           "use crate::errors::{cudaError_t, cudaErrorNotSupported};", "",
           "fn unsupported(name: &'static str) -> cudaError_t {",
           "    crate::entry(name, || Err(crate::Fail::new(cudaErrorNotSupported, \"not supported by ptxjit\")))",
           "}", "",
           "macro_rules! stubs {", "    ($($name:ident)*) => {", "        $(",
           "            /// Not supported by ptxjit: answers `cudaErrorNotSupported`.",
           "            #[no_mangle]",
           "            pub unsafe extern \"C\" fn $name() -> cudaError_t {",
           "                unsupported(stringify!($name))", "            }", "        )*",
           "        /// The symbols of this module.",
           "        pub static STUBS: &[&str] = &[$(stringify!($name)),*];", "    };", "}", "",
           "stubs! {"]
    out += [f"    {s}" for s in stubs] + ["}", ""]
    return "\n".join(out)


def table(symbols, hand):
    bases = {}
    for s in sorted(symbols):
        base = re.sub(r"_(ptds|ptsz)$", "", s)
        bases.setdefault(base, []).append(s)
    rows, counts = [], {"implemented": 0, "partial": 0, "not supported": 0}
    for base, syms in sorted(bases.items()):
        done = [s for s in syms if s in hand]
        status = ("implemented" if len(done) == len(syms) else "partial" if done else "not supported")
        counts[status] += 1
        shown = ", ".join(f"`{s}`" + ("" if s in hand or status == "not supported" else " (not supported)")
                          for s in syms)
        rows.append(f"| `{base}` | {status} | {shown} |")
    return bases, rows, counts


def gen_docs(ver, symbols, hand, only12):
    bases, rows, counts = table(symbols, hand)
    head = ["# CUDA runtime API functions", "", HEADER.format(ver=ver), "",
            "Every function of the CUDA runtime API (`cuda_runtime_api.h`) with what ptxjit's",
            "`libcudart.so` does with it:", "",
            "- **implemented**: every exported symbol runs on ptxjit (through `libcuda.so.1`).",
            "- **partial**: the symbols marked *(not supported)* answer `cudaErrorNotSupported`.",
            "- **not supported**: the symbols exist (so programs load) and answer",
            "  `cudaErrorNotSupported`; `PTXJIT_TRACE=1` names each such call.", "",
            "The registration and launch entries nvcc's generated code calls (`__cudaRegisterFatBinary`,",
            "`__cudaRegisterFunction`, `__cudaLaunchKernel`, …) are in `crt/host_runtime.h`, not",
            "in this table; ptxjit implements those it lists in cudart/src/register.rs.", "",
            f"{counts['implemented']} of {len(bases)} functions implemented, {counts['partial']} partly.",
            "", "| Function | Status | Symbols |", "|---|---|---|"]
    tail = []
    if only12:
        _, rows12, counts12 = table(only12, hand)
        tail = ["", "## CUDA 12 only", "",
                "Symbols CUDA 12.9's `cuda_runtime_api.h` declares and CUDA 13's does not, exported so that",
                "programs built with CUDA 12 load through the `libcudart.so.12` name (their",
                "`cudaGetDeviceProperties_v2` fills CUDA 12's `cudaDeviceProp`).", "",
                f"{counts12['implemented']} of {len(rows12)} implemented.", "",
                "| Function | Status | Symbols |", "|---|---|---|"] + rows12
    return "\n".join(head + rows + tail) + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        fail(__doc__)
    cu13 = sys.argv[1]
    include = os.path.join(cu13, "include")
    ver = re.search(r"#define CUDART_VERSION\s+(\d+)",
                    open(os.path.join(include, "cuda_runtime_api.h")).read()).group(1)
    ver = f"{int(ver) // 1000}.{int(ver) % 1000 // 10}"
    symbols = runtime_symbols(include)
    only12 = {}
    if len(sys.argv) == 3:
        nv12 = sys.argv[2]
        sym12 = runtime_symbols(os.path.join(nv12, "cuda_runtime", "include"),
                                [os.path.join(nv12, "cuda_nvcc", "include")])
        only12 = {k: v for k, v in sym12.items() if k not in symbols}
    rt = runtime_codes(include)
    strings = nvidia_strings(cu13, rt)
    write(os.path.join(SRC, "errors.rs"), gen_errors(ver, rt, strings, driver_codes(include)), rust=True)
    hand = scan_hand_written()
    for s in sorted(hand):
        if s not in symbols and s not in only12 and not s.startswith("__cuda"):
            print(f"gen_runtime.py: note: {s} is not declared in cuda_runtime_api.h", file=sys.stderr)
    stubs = []
    for s, ret in sorted({**symbols, **only12}.items()):
        if s in hand:
            continue
        if ret != "cudaError_t":
            fail(f"{s} returns `{ret}`, not cudaError_t: write it by hand")
        stubs.append(s)
    write(os.path.join(SRC, "stubs.rs"), gen_stubs(ver, stubs), rust=True)
    write(os.path.join(ROOT, "docs", "runtime-api.md"), gen_docs(ver, symbols, hand, only12))
    print(f"gen_runtime.py: CUDA {ver}: {len(symbols)} symbols (+{len(only12)} of CUDA 12), "
          f"{len(hand)} written by hand, "
          f"{len(stubs)} stubs")


if __name__ == "__main__":
    main()
