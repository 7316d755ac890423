"""Expected values of the cluster cases (cluster.ptx), from the PTX ISA's definitions of the
cluster special registers (§10.13-10.19), mapa/getctarank (§9.7.9.23-24) and the kernels'
comments. Writes the expected arrays into the .toml files' [expect.out] values."""
import numpy as np
import re
import pathlib

here = pathlib.Path(__file__).parent


def regs(grid, cluster, explicit):
    gx, gy = grid
    cx, cy = cluster
    out = np.zeros(gx * gy * 10, dtype=np.uint32)
    for y in range(gy):
        for x in range(gx):
            c = (y * gx + x) * 10
            rank = (x % cx) + cx * (y % cy)
            out[c:c + 10] = [x // cx, y // cy, gx // cx, gy // cy, x % cx, y % cy, cx, cy,
                             rank, cx * cy + (100 if explicit else 0)]
    return out


def ring(grid, ntid, n):
    out = np.zeros((grid * ntid, 4), dtype=np.uint32)
    for c in range(grid):
        rank = c % n
        peer = c - rank + (rank + 1) % n
        for t in range(ntid):
            out[c * ntid + t] = [1000 * peer + t, 1000 * peer + (t + 1) % ntid, (rank + 1) % n, ntid]
    return out.reshape(-1)


def write(name, values):
    p = here / name
    text = p.read_text()
    vals = "values = [" + ", ".join(str(int(v)) for v in values) + "]"
    text = re.sub(r"(\[expect\.out\]\n)values = \[[^\]]*\]", lambda m: m.group(1) + vals, text)
    p.write_text(text)


write("cluster_regs.toml", regs((4, 2), (2, 2), True))
write("cluster_regs_none.toml", regs((3, 1), (1, 1), False))

write("dsmem_ring.toml", ring(8, 64, 4))
write("multicast.toml", np.tile(np.array([11, 22, 33, 44, 55, 66, 77, 88], dtype=np.uint32), 4))
