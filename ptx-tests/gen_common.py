"""Writers shared by the ptx-tests generators (kernels/*/gen.py): arrays as .npy files, text
files (PTX, case manifests), and the TOML pieces of a case manifest (docs/case-format.md).

A generator imports it with
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    import gen_common as gc

Each writer takes the folder to write in (the generator's own, `HERE`), so the files land
next to the case manifests that name them.
"""
import os


def save_npy(folder, name, array):
    """Write `array` as folder/NAME.npy (numpy's format, the dtype and shape kept)."""
    import numpy as np  # here, so that generators writing no arrays run without numpy

    np.save(os.path.join(folder, f"{name}.npy"), array)


def write_text(folder, filename, text):
    """Write `text` as folder/FILENAME."""
    with open(os.path.join(folder, filename), "w") as f:
        f.write(text)


def buffer_from_file(buffer, filename, ty="u32"):
    """The `[buffers.BUFFER]` table of a buffer of element type `ty` whose initial contents
    are the .npy file `filename`."""
    return f'[buffers.{buffer}]\ntype = "{ty}"\ninit = {{ file = "{filename}" }}\n'


def expect_exact(buffer, filename):
    """The `[expect.BUFFER]` table: the buffer must equal the .npy file `filename` exactly."""
    return f'[expect.{buffer}]\nfile = "{filename}"\ntolerance = "exact"\n'


def ints(values):
    """A TOML array of integers: `[1, 2, 3]`."""
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def buffer_values(buffer, values, ty="u32"):
    """The `[buffers.BUFFER]` table of a buffer of element type `ty` that starts as the
    integers `values`."""
    return f'[buffers.{buffer}]\ntype = "{ty}"\ninit = {{ values = {ints(values)} }}\n'


def buffer_fill(buffer, length, fill=0, ty="u32"):
    """The `[buffers.BUFFER]` table of `length` elements of type `ty`, each `fill`."""
    return f'[buffers.{buffer}]\ntype = "{ty}"\nlen = {length}\ninit = {{ fill = {fill} }}\n'


def expect_values(buffer, values):
    """The `[expect.BUFFER]` table: the buffer must hold the integers `values`."""
    return f"[expect.{buffer}]\nvalues = {ints(values)}\n"


# The tensor-map (TMA) generators' shared arithmetic (kernels/tma_*/gen_expected.py).


def swizzle(off, mode):
    """A shared-memory byte offset under a tensor map's swizzle ("none", "32B", "64B",
    "128B"; CUDA's CU_TENSOR_MAP_SWIZZLE_*): the 16-byte chunk bits 4.. XOR the 128-byte row
    bits 7.., one, two or three of them."""
    bits = {"none": 0, "32B": 1, "64B": 2, "128B": 3}[mode]
    return off ^ (((off >> 7) & ((1 << bits) - 1)) << 4)


def run_pos(start, lo, hi, step, k):
    """The k-th position of a dimension that starts at `start` and wraps to `lo` past `hi`
    (im2col's traversal of the bounding box), and how many wraps it took."""
    first = (hi - start) // step + 1
    if k < first:
        return start + k * step, 0
    j = k - first
    per = (hi - lo) // step + 1
    return lo + (j % per) * step, 1 + j // per


def s32_case(ptx, comment, kernel, grid, block, args, buffers, expect, error=None,
             lockstep=False):
    """The text of a case manifest over `s32` buffers: `comment` as `#` lines, the PTX file
    `ptx`, `kernel`, `grid` and `block` (lists), `args` (TOML argument strings), `lockstep`
    when set; `buffers` maps a name to (init TOML, length or None); `expect` maps a buffer
    to its exact values; `error`, when given, is an expected fault's text (under memcheck)."""
    text = "".join(f"# {line}\n" for line in comment.strip().split("\n"))
    text += f'ptx = "{ptx}"\n'
    text += f'kernel = "{kernel}"\n'
    text += f"grid = {ints(grid)}\n"
    text += f"block = {ints(block)}\n"
    text += "args = [" + ", ".join(args) + "]\n"
    if lockstep:
        text += "lockstep = true\n"
    for b, (init, length) in buffers.items():
        text += f'\n[buffers.{b}]\ntype = "s32"\n'
        if length is not None:
            text += f"len = {length}\n"
        text += f"init = {init}\n"
    for b, vals in expect.items():
        text += f"\n[expect.{b}]\nvalues = {ints(vals)}\n"
    if error is not None:
        text += f'\n[expect_error]\nkind = "fault"\nmemcheck = true\ncontains = "{error}"\n'
    return text


def out_u32_case(comment, kernel, grid, block, n, values):
    """The text of a case manifest running `kernel` from KERNEL.ptx on `grid` CTAs of `block`
    threads (1-D) with the arguments (buffer `out`, u32 `n`): `out` holds one `u32` a thread
    and must equal `values` exactly. `comment` becomes `#` lines."""
    text = "".join(f"# {line}\n" for line in comment.strip().split("\n"))
    text += f'ptx = "{kernel}.ptx"\nkernel = "{kernel}"\n'
    text += f"grid = [{grid}, 1, 1]\nblock = [{block}, 1, 1]"
    text += "        # the last warp of each CTA is partial\n" if block % 32 else "\n"
    text += f'args = [{{ buffer = "out" }}, {{ u32 = {n} }}]\n\n'
    text += f'[buffers.out]\ntype = "u32"\nlen = {grid * block}\n\n'
    text += f"[expect.out]\nvalues = {ints(values)}\ntolerance = \"exact\"\n"
    return text


def load_generator(path, name="tc_dense"):
    """Another generator (a gen.py by its path) loaded as module `name`, for its kernels,
    descriptors and value helpers; its own writing stays behind its `__main__` guard."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
