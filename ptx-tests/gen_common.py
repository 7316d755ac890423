"""Writers shared by the ptx-tests generators (kernels/*/gen.py): arrays as .npy files, text
files (PTX, case manifests), and the TOML pieces of a case manifest (docs/case-format.md).

A generator imports it with
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    import gen_common as gc

Each writer takes the folder to write in (the generator's own, `HERE`), so the files land
next to the case manifests that name them.
"""
import os

import numpy as np


def save_npy(folder, name, array):
    """Write `array` as folder/NAME.npy (numpy's format, the dtype and shape kept)."""
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
