#!/usr/bin/env python3
"""Generates the `needs_*` error cases: one instruction per module whose `.version` or
`.target` is below what the instruction needs (its PTX ISA section's "PTX ISA Notes" and
"Target ISA Notes"; ptxjit's decoder table, src/lower/decode_table.rs). Each module is run
through ptxas when it is at hand (12.9; 13.5 for the PTX ISA 9.x cases, which 12.9 does not
know): the module must be rejected, and the same instruction under the good header accepted;
ptxas's message is kept in the case's comment.

    python3 ptx-tests/errors/gen_requirements.py [path/to/ptxas]
"""
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
PTXAS = sys.argv[1] if len(sys.argv) > 1 else \
    "/work/venv-cuda/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas"

# name | instruction | good (version, target) | low version | low target | the requirement
# our error names for the low version / the low target
CASES = [
    ("wgmma", "wgmma.fence.sync.aligned", ("8.0", "sm_90a"), "7.8", "sm_90", "8.0", "sm_90a"),
    ("mbarrier_init", "mbarrier.init.shared.b64 [sm], 1", ("7.0", "sm_80"), "6.5", "sm_75", "7.0", "sm_80 or higher"),
    ("mbarrier_try_wait", "mbarrier.try_wait.shared.b64 %p1, [sm], %rd1", ("7.8", "sm_90"), "7.7", "sm_80", "7.8", "sm_90 or higher"),
    ("cp_async_bulk", "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [sm], [%rd1], 16, [sm+512]", ("8.0", "sm_90"), "7.8", "sm_80", "8.0", "sm_90 or higher"),
    ("cp_async", "cp.async.ca.shared.global [sm], [%rd1], 4", ("7.0", "sm_80"), "6.5", "sm_75", "7.0", "sm_80 or higher"),
    ("tcgen05_alloc", "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sm], 32", ("8.6", "sm_100a"), "8.5", "sm_90a", "8.6", "sm_100a, sm_101a"),
    ("tcgen05_alloc_pair", "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [sm], 32", ("8.6", "sm_100a"), "8.5", "sm_90a", "8.6", "sm_100a, sm_101a"),
    ("tcgen05_mma_pair", "tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r2, %p1", ("8.6", "sm_100a"), "8.5", "sm_90a", "8.6", "sm_100a, sm_101a"),
    ("ld_b128", "ld.global.b128 %q1, [%rd1]", ("8.3", "sm_90"), "8.2", "sm_60", "8.3", "sm_70 or higher"),
    ("st_b128", "st.global.b128 [%rd1], %q1", ("8.3", "sm_90"), "8.2", "sm_60", "8.3", "sm_70 or higher"),
    ("atom_b128_sys", "atom.relaxed.sys.global.exch.b128 %q1, [%rd1], %q1", ("8.4", "sm_90"), "8.3", "sm_80", "8.4", "sm_90 or higher"),
    ("redux", "redux.sync.add.u32 %r1, %r2, 0xffffffff", ("7.0", "sm_80"), "6.5", "sm_75", "7.0", "sm_80 or higher"),
    ("redux_f32", "redux.sync.min.f32 %f1, %f2, 0xffffffff", ("8.6", "sm_100a"), "8.5", "sm_90", "8.6", "sm_100a, sm_101a"),
    ("elect", "elect.sync %r1|%p1, 0xffffffff", ("8.0", "sm_90"), "7.8", "sm_80", "8.0", "sm_90 or higher"),
    ("ldmatrix", "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [sm]", ("6.5", "sm_75"), "6.4", "sm_70", "6.5", "sm_75 or higher"),
    ("stmatrix", "stmatrix.sync.aligned.m8n8.x1.shared.b16 [sm], {%r1}", ("7.8", "sm_90"), "7.7", "sm_80", "7.8", "sm_90 or higher"),
    ("movmatrix", "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2", ("7.8", "sm_75"), "7.7", "sm_70", "7.8", "sm_75 or higher"),
    ("griddepcontrol", "griddepcontrol.wait", ("7.8", "sm_90"), "7.7", "sm_80", "7.8", "sm_90 or higher"),
    ("setmaxnreg", "setmaxnreg.inc.sync.aligned.u32 64", ("8.0", "sm_90a"), "7.8", "sm_90", "8.0", "sm_90a, sm_100a"),
    ("multimem", "multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1]", ("8.1", "sm_90"), "8.0", "sm_80", "8.1", "sm_90 or higher"),
    ("mapa", "mapa.u64 %rd1, %rd2, 0", ("7.8", "sm_90"), "7.7", "sm_80", "7.8", "sm_90 or higher"),
    ("szext", "szext.wrap.u32 %r1, %r2, %r3", ("7.6", "sm_70"), "7.5", "sm_60", "7.6", "sm_70 or higher"),
    ("add_bf16", "add.bf16 %h1, %h2, %h3", ("7.8", "sm_90"), "7.7", "sm_80", "7.8", "sm_90 or higher"),
    ("tensormap_replace", "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2", ("8.3", "sm_90a"), "8.2", "sm_90", "8.3", "sm_90a"),
    ("fence_proxy_async", "fence.proxy.async", ("8.0", "sm_90"), "7.8", "sm_80", "8.0", "sm_90 or higher"),
    ("nanosleep", "nanosleep.u32 10", ("6.2", "sm_70"), "6.1", "sm_60", "6.2", "sm_70 or higher"),
    ("tcgen05_ld_red", "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f1, %f2}, %f3, [%r1]", ("8.8", "sm_103a"), "8.7", "sm_100a", "8.8", "sm_101a, sm_103a"),
    ("tcgen05_mma_i8", "tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1", ("8.8", "sm_100a"), "8.5", "sm_103a", "8.6", "sm_100a, sm_101a or sm_110a"),
    ("tcgen05_mma_scale_vec", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1", ("8.8", "sm_100a"), "8.5", "sm_100f", "8.6", "sm_100a, sm_101a, sm_103a or sm_110a"),
    ("tma_shared_cta", "cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1}], [sm+512]", ("8.6", "sm_90"), "8.5", "sm_80", "8.6", "sm_90 or higher"),
    ("tma_gather4_cluster", "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [sm+512]", ("8.6", "sm_100a"), "8.5", "sm_100", "8.6", "sm_100a, sm_101a"),
    ("tma_gather4_cta", "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [sm+512]", ("8.6", "sm_100"), "8.5", "sm_90a", "8.6", "sm_100 or higher"),
    ("tma_scatter4", "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r1, %r2, %r3, %r4, %r5}], [sm]", ("8.6", "sm_100a"), "8.5", "sm_100", "8.6", "sm_100a, sm_101a"),
    ("tma_im2col_w_cluster", "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1, %r2, %r3}], [sm+512], {%h1, %h2}", ("8.6", "sm_100a"), "8.5", "sm_100", "8.6", "sm_100a, sm_101a"),
    ("tma_im2col_w_cta", "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1, %r2, %r3}], [sm+512], {%h1, %h2}", ("8.6", "sm_100"), "8.5", "sm_90a", "8.6", "sm_100 or higher"),
    ("tma_im2col_w128", "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes [sm], [%rd1, {%r1, %r2, %r3}], [sm+512], {%h1, %h2}", ("8.6", "sm_100a"), "8.5", "sm_100", "8.6", "sm_100a, sm_101a"),
    ("add_sat_u16x2", "add.sat.u16x2 %r1, %r2, %r3", ("9.2", "sm_120a"), "9.1", "sm_90", "9.2", "sm_120a, sm_120f, sm_121a or sm_121f"),
    ("tensormap_elemtype_packed", "tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], 13", ("8.7", "sm_100a"), "8.6", "sm_90a", "8.7",
     "sm_100a, sm_101a, sm_110a, sm_120a, sm_100f, sm_101f, sm_103a, sm_103f, sm_110f, sm_120f, sm_121a or sm_121f"),
    ("multimem_cp_async_bulk", "multimem.cp.async.bulk.global.shared::cta.bulk_group [%rd1], [sm], 16", ("9.1", "sm_90"), "9.0", "sm_80", "9.1", "sm_90 or higher"),
    ("multimem_cp_mask", "multimem.cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [sm], 16, %h1", ("9.1", "sm_100"), "9.0", "sm_90", "9.1", "sm_100 or higher"),
    ("tensormap_swizzle_96b", "tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd1], 4", ("8.8", "sm_103a"), "8.7", "sm_100a", "8.8", "sm_103a"),
    ("min_relu", "min.relu.s32 %r1, %r2, %r3", ("8.0", "sm_90"), "7.8", "sm_80", "8.0", "sm_90 or higher"),
    ("max_relu", "max.relu.s32 %r1, %r2, %r3", ("8.0", "sm_90"), "7.8", "sm_80", "8.0", "sm_90 or higher"),
    ("add_u8x4", "add.u8x4 %r1, %r2, %r3", ("9.2", "sm_120a"), "9.1", "sm_90", "9.2", "sm_120a, sm_120f, sm_121a or sm_121f"),
    ("sub_sat_s8x4", "sub.sat.s8x4 %r1, %r2, %r3", ("9.2", "sm_120a"), "9.1", "sm_90", "9.2", "sm_120a, sm_120f, sm_121a or sm_121f"),
    ("min_u8x4", "min.u8x4 %r1, %r2, %r3", ("9.2", "sm_120a"), "9.1", "sm_90", "9.2", "sm_120a, sm_120f, sm_121a or sm_121f"),
    ("max_relu_s8x4", "max.relu.s8x4 %r1, %r2, %r3", ("9.2", "sm_120a"), "9.1", "sm_90", "9.2", "sm_120a, sm_120f, sm_121a or sm_121f"),
    ("neg_s8x4", "neg.s8x4 %r1, %r2", ("9.2", "sm_120a"), "9.1", "sm_90", "9.2", "sm_120a, sm_120f, sm_121a or sm_121f"),
]

# Special registers (PTX ISA §10) read under too old a header: name | instruction | good header |
# low version | low target (None: every target has it) | requirement texts, as CASES. The error
# is at the register's operand and names it ("special register '%clusterid'").
SREG_CASES = [
    ("sreg_clusterid", "mov.u32 %r1, %clusterid.x", ("7.8", "sm_90"), "7.7", "sm_80", "7.8", "sm_90 or higher"),
    ("sreg_is_explicit_cluster", "mov.pred %p1, %is_explicit_cluster", ("7.8", "sm_90"), "7.7", "sm_80", "7.8", "sm_90 or higher"),
    ("sreg_aggr_smem_size", "mov.u32 %r1, %aggr_smem_size", ("8.1", "sm_90"), "8.0", "sm_80", "8.1", "sm_90 or higher"),
    ("sreg_reserved_smem", "mov.u32 %r1, %reserved_smem_offset_begin", ("7.6", "sm_80"), "7.5", "sm_75", "7.6", "sm_80 or higher"),
    ("sreg_clock_hi", "mov.u32 %r1, %clock_hi", ("5.0", "sm_50"), "4.3", None, "5.0", None),
    ("sreg_dynamic_smem_size", "mov.u32 %r1, %dynamic_smem_size", ("4.1", "sm_50"), "4.0", None, "4.1", None),
    ("sreg_current_graph_exec", "mov.u64 %rd1, %current_graph_exec", ("8.0", "sm_50"), "7.8", None, "8.0", None),
]

# Cases whose requirement is a form's of the decoder table row (named so in the error, with the
# instruction after it): case -> (form failing the low version, form failing the low target);
# None where the row itself fails.
FORMS = {
    "mbarrier_try_wait": ("mbarrier.try_wait", "mbarrier.try_wait"),
    "cp_async_bulk": ("cp.async.bulk", "cp.async.bulk"),
    "ld_b128": ("Type .b128", "Type .b128"),
    "st_b128": ("Type .b128", "Type .b128"),
    "atom_b128_sys": (".b128 with .sys", "atom .b128"),
    "redux_f32": ("redux.f32", "redux.f32"),
    "add_bf16": ("add.bf16", "add.bf16"),
    "tensormap_replace": (None, "tensormap.replace"),
    "fence_proxy_async": ("fence.proxy.async", "fence.proxy.async"),
    "tcgen05_ld_red": ("tcgen05.ld.red", "tcgen05.ld.red"),
    "tcgen05_mma_i8": (None, "tcgen05.mma .kind::i8"),
    "tcgen05_mma_scale_vec": (None, "tcgen05.mma .scale_vec::NX"),
    "tma_shared_cta": ("cp.async.bulk{.tensor} with destination .shared::cta", "cp.async.bulk"),
    "tma_gather4_cluster": (".tile::gather4 with destination .shared::cluster",) * 2,
    "tma_gather4_cta": ("cp.async.bulk{.tensor} with destination .shared::cta", ".tile::gather4"),
    "tma_scatter4": (".tile::scatter4", ".tile::scatter4"),
    "tma_im2col_w_cluster": (".im2col::w with destination .shared::cluster",) * 2,
    "tma_im2col_w_cta": ("cp.async.bulk{.tensor} with destination .shared::cta", ".im2col::w"),
    "tma_im2col_w128": (".im2col::w::128", ".im2col::w::128"),
    "add_sat_u16x2": ("add.sat.{u32,u16x2,s16x2}",) * 2,
    "tensormap_elemtype_packed": ("tensormap.replace.elemtype with a value of 13 to 15",) * 2,
    "multimem_cp_async_bulk": ("multimem.cp{.reduce}.async.bulk", None),
    "multimem_cp_mask": ("multimem.cp{.reduce}.async.bulk", "multimem.cp.async.bulk .cp_mask"),
    "tensormap_swizzle_96b": ("tensormap.replace.swizzle_mode with the value 4",) * 2,
    "min_relu": ("min.relu",) * 2,
    "max_relu": ("max.relu",) * 2,
    "add_u8x4": ("add.{u8x4,s8x4}",) * 2,
    "sub_sat_s8x4": ("sub.{u8x4,s8x4}",) * 2,
    "min_u8x4": ("min.{u8x4,s8x4}",) * 2,
    "max_relu_s8x4": ("max.{u8x4,s8x4}",) * 2,
    "neg_s8x4": ("neg.s8x4",) * 2,
}

# The target of a case's low-version module where the fallback below would pick one the
# instruction itself does not run on (tcgen05.ld.red: sm_101a is in PTX ISA 8.6 and 8.7).
LOW_VERSION_TARGET = {"tcgen05_ld_red": "sm_101a", "tensormap_swizzle_96b": "sm_100a"}

# The newest target each low version supports, for a version below the good target's.
TARGET_SINCE = {"sm_50": (4, 0), "sm_60": (5, 0), "sm_70": (6, 0), "sm_75": (6, 3), "sm_80": (7, 0), "sm_90": (7, 8),
                "sm_90a": (8, 0), "sm_100": (8, 6), "sm_100a": (8, 6), "sm_103a": (8, 8), "sm_120a": (8, 7)}
INST_LINE = 17
# Cases whose low-version module fails at its `.reg .b128` declaration (line 15, the type at
# column 6), before the instruction, as in ptxas; the parser reports it (kind "parse").
DECL_LINE = 15
DECL_FAILS = {"ld_b128", "st_b128"}


def module(comment, version, target, inst):
    q = ".reg .b128 %q<3>;" if "%q" in inst else "// (no .b128 registers)"
    return (f"// {comment[0]}\n// {comment[1]}\n// {comment[2]}\n.version {version}\n.target {target}\n"
            ".address_size 64\n\n.visible .entry k(.param .u64 k_p)\n{\n"
            ".reg .pred %p<4>;\n.reg .b16 %h<5>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<9>;\n.reg .f32 %f<9>;\n"
            f"{q}\n.shared .align 16 .b8 sm[1024];\n{inst};\nret;\n}}\n")


def ptxas_release():
    """The ptxas release ("12.9"), from `ptxas --version` ("Cuda compilation tools, release 12.9")."""
    r = subprocess.run([PTXAS, "--version"], capture_output=True, text=True)
    return r.stdout.split("release ")[-1].split(",")[0].strip()


def ptxas(text, target):
    if not os.path.exists(PTXAS):
        return None
    path = "/tmp/gen_requirements.ptx"
    open(path, "w").write(text)
    r = subprocess.run([PTXAS, f"-arch={target.replace('compute_', 'sm_')}", path, "-o", "/dev/null"],
                       capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip().splitlines()
    if r.returncode != 0 and "Unsupported .version" in out[0]:
        return None  # a PTX ISA version newer than this ptxas (12.9 knows up to 8.8)
    return "accepted" if r.returncode == 0 else out[0].split("; ", 1)[-1].strip()


RELEASE = ptxas_release() if os.path.exists(PTXAS) else None


def write(name, what, version, target, inst, contains, at=f"{INST_LINE}:1", kind="invalid"):
    good = ptxas(module(("", "", ""), *CASE_GOOD, inst), CASE_GOOD[1])
    bad_text = module(("", "", ""), version, target, inst)
    said = ptxas(bad_text, target)
    if good is not None:
        assert good == "accepted", (name, good)
        assert said != "accepted", (name, "ptxas accepts the low header")
    note = f'ptxas {RELEASE}: "{said}"' if said else "ptxas not run"
    comment = (f"Invalid PTX: {what} (line {at.split(':')[0]}).", note[:200], "Generated by gen_requirements.py.")
    open(os.path.join(HERE, f"{name}.ptx"), "w").write(module(comment, version, target, inst))
    open(os.path.join(HERE, f"{name}.toml"), "w").write(
        f"# Invalid PTX: {what}; {note[:150]}\n# Generated by gen_requirements.py.\n"
        f'ptx = "{name}.ptx"\nkernel = "k"\ngrid = [1, 1, 1]\nblock = [1, 1, 1]\n'
        'args = [{ buffer = "x" }]\n\n[buffers.x]\ntype = "u32"\nlen = 2\n\n'
        f'[expect_error]\nkind = "{kind}"\ncontains = "{name}.ptx:{at}: {contains}"\n')


for (name, inst, good, low_v, low_t, since, min_text) in CASES:
    CASE_GOOD = good
    gv = tuple(int(x) for x in low_v.split("."))
    target = good[1]
    if name in LOW_VERSION_TARGET:
        target = LOW_VERSION_TARGET[name]
    elif TARGET_SINCE[target] > gv:
        target = max((t for t, v in TARGET_SINCE.items() if v <= gv and not t.endswith("a")),
                     key=lambda t: TARGET_SINCE[t])
    op = inst.split()[0]
    fv, ft = FORMS.get(name, (None, None))
    what = lambda form: op if form in (None, op) else f"{form} ('{op}')"
    if name in DECL_FAILS:
        write(f"needs_{name}_version", f"`.reg .b128` (for `{op}`) under .version {low_v}", low_v,
              target, inst, f"type .b128 requires PTX ISA {since} (.version {low_v} here)",
              at=f"{DECL_LINE}:6", kind="parse")
    else:
        write(f"needs_{name}_version", f"`{op}` under .version {low_v}", low_v, target, inst,
              f"{what(fv)} requires PTX ISA {since} (.version {low_v} here)")
    write(f"needs_{name}_target", f"`{op}` under .target {low_t}", good[0], low_t, inst,
          f"{what(ft)} requires .target {min_text}")
n = 2 * len(CASES)
for (name, inst, good, low_v, low_t, since, min_text) in SREG_CASES:
    CASE_GOOD = good
    gv = tuple(int(x) for x in low_v.split("."))
    target = good[1]
    if TARGET_SINCE[target] > gv:
        target = max((t for t, v in TARGET_SINCE.items() if v <= gv and not t.endswith("a")),
                     key=lambda t: TARGET_SINCE[t])
    reg = inst.split(", ")[1].split(".")[0]
    at = f"{INST_LINE}:{inst.index('%', inst.index(', ')) + 1}"
    write(f"needs_{name}_version", f"`{reg}` under .version {low_v}", low_v, target, inst,
          f"special register '{reg}' requires PTX ISA {since} (.version {low_v} here)", at=at)
    n += 1
    if low_t is not None:
        write(f"needs_{name}_target", f"`{reg}` under .target {low_t}", good[0], low_t, inst,
              f"special register '{reg}' requires .target {min_text}", at=at)
        n += 1
print(f"{n} cases")
