"""Writes the clc_steal cases (clc_steal.ptx) with their expected values, from the kernels'
definition of a work item: out[i] = i * i + 7 (mod 2^32) for every thread i of every CTA,
whichever CTA processed it, and count[c] = 1: every CTA's item processed exactly once.
launched and stolen depend on the schedule (only launched + stolen = CTAs, or launched +
2 * stolen with clusters of two, is fixed; tests/schedule.rs checks that)."""
import pathlib

here = pathlib.Path(__file__).parent

CASES = [
    # (file, kernel, grid, block, cluster, comment)
    ("steal_x.toml", "steal_x", [48], [64], None,
     "A 1D grid of 48 CTAs: .shared::cta addresses, get_first_ctaid::x."),
    ("steal_xyz.toml", "steal_xyz", [3, 4, 2], [32], None,
     "A 3D grid: generic addresses, the .v4 form, get_first_ctaid::y and ::z."),
    ("steal_cluster.toml", "steal_cluster", [16], [32], [2],
     "Clusters of 2: rank 0 asks with .multicast::cluster::all for the whole cluster."),
]

for name, kernel, grid, block, cluster, comment in CASES:
    ctas = 1
    for g in grid:
        ctas *= g
    n = ctas * block[0]
    out = [(i * i + 7) % 2**32 for i in range(n)]
    lines = [
        f"# {comment}",
        "# Each CTA processes its own item, then cancels not-yet-started CTAs and processes",
        "# theirs until a request fails (clc_steal.ptx; expected values from gen.py).",
        'ptx = "clc_steal.ptx"',
        f'kernel = "{kernel}"',
        f"grid = {grid}",
        f"block = {block}",
    ]
    if cluster:
        lines.append(f"cluster = {cluster}")
    lines += [
        'args = [{ buffer = "out" }, { buffer = "count" }, { buffer = "launched" }, '
        '{ buffer = "stolen" }]',
        "",
        "[buffers.out]",
        'type = "u32"',
        f"len = {n}",
        "",
        "[buffers.count]",
        'type = "u32"',
        f"len = {ctas}",
        "init = { fill = 0 }",
        "",
        "[buffers.launched]",
        'type = "u32"',
        "len = 1",
        "init = { fill = 0 }",
        "",
        "[buffers.stolen]",
        'type = "u32"',
        "len = 1",
        "init = { fill = 0 }",
        "",
        "[expect.out]",
        f"values = {out}",
        "",
        "[expect.count]",
        f"values = {[1] * ctas}",
        "",
        "# Which CTAs started and how many were canceled depends on the schedule.",
        "[expect.launched]",
        'check = "skip"',
        "",
        "[expect.stolen]",
        'check = "skip"',
        "",
    ]
    (here / name).write_text("\n".join(lines))
