#!/usr/bin/env python3
"""Enumerate instruction forms of a family and record what ptxas accepts.

Usage: PTXAS=/path/to/ptxas python3 tests/ptxas_forms/gen.py [FAMILY...]

Writes tests/ptxas_forms/FAMILY.tsv: one line per form, `ok` or `no`, a tab, the target,
a tab, and the instruction (line 7 of the kernel `frame` below; where the instruction has a
tab, what stands before it is module-scope text put on line 3, after `.address_size 64`). tests/ptxas_forms.rs checks
that ptxjit's front end agrees with every line (accepts the `ok` ones, refuses the `no` ones
with the instruction's line:column), and with $PTXAS set, that ptxas still gives the recorded
verdict. The verdicts were recorded with ptxas 13.5 (-arch=TARGET).
"""
import itertools
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# Must match `frame` in tests/ptxas_forms.rs. `target` is `sm_NN` (PTX ISA 9.1) or
# `sm_NN@X.Y` (PTX ISA X.Y).
def frame(target, inst):
    target, _, version = target.partition("@")
    prelude, _, inst = inst.rpartition("\t")
    return (
        ".version %s\n.target %s\n.address_size 64 %s\n.visible .entry k(.param .u64 p)\n{\n"
        ".reg .b8 %%b<16>; .reg .b16 %%h<16>; .reg .b32 %%r<16>; .reg .f32 %%f<8>; .reg .f64 %%fd<4>; "
        ".reg .b64 %%rd<8>; .reg .pred %%p<4>;\n%s\nret;\n}\n"
        % (version or "9.1", target, prelude, inst)
    )


def tcgen05_collector():
    """tcgen05.mma{.sp,.ws} with .collector::a::* and .ashift, A from a descriptor or
    tensor memory, each kind, both CTA groups."""
    kinds = [
        ("kind::f16", False), ("kind::tf32", False), ("kind::f8f6f4", False), ("kind::i8", False),
        ("kind::mxf8f6f4.block_scale.scale_vec::1X", True),
        ("kind::mxf4.block_scale", True),
        ("kind::mxf4nvf4.block_scale.block16", True),
    ]
    colls = [[]] + [["collector::a::" + o] for o in ("fill", "use", "lastuse", "discard")]
    for sp, cg, (kind, bs), a_tmem in itertools.product(["", ".sp"], [1, 2], kinds, [False, True]):
        a = "[%r2]" if a_tmem else "%rd1"
        meta = " [%r5]," if sp else ""
        if bs:
            tail = " %r3, [%r6], [%r7], %p1;"
        else:
            tail = " %r3, %p1;"
        for c in colls:
            for shift in ("none", "before", "after"):
                if shift != "none" and not c and shift == "after":
                    continue
                mods = list(c)
                if shift == "before":
                    mods = ["ashift"] + mods
                elif shift == "after":
                    mods = mods + ["ashift"]
                m = "".join("." + x for x in mods)
                yield "sm_100a", "tcgen05.mma%s.cta_group::%d.%s%s [%%r1], %s, %%rd2,%s%s" % (
                    sp, cg, kind, m, a, meta, tail)
    # .ws has its own collector buffers for B; .collector::a and .ashift are not its.
    for kind in ("kind::f16", "kind::i8"):
        for m in ("collector::a::fill", "collector::a::lastuse", "ashift", "collector::b0::fill"):
            for a in ("%rd1", "[%r2]"):
                yield "sm_100a", "tcgen05.mma.ws.cta_group::1.%s.%s [%%r1], %s, %%rd2, %%r3, %%p1;" % (
                    kind, m, a)


def tcgen05_sparse():
    """tcgen05.mma.sp and tcgen05.mma.ws.sp: each kind, A from a descriptor or tensor memory,
    both CTA groups, the .ws collector buffers and zero-column mask, the two orders of .ws and
    .sp, the metadata operand as an address or a register."""
    kinds = ["kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8",
             "kind::mxf8f6f4.block_scale.scale_vec::1X", "kind::mxf4nvf4.block_scale.block16"]
    for cg, kind, a, meta in itertools.product([1, 2], kinds, ["%rd1", "[%r2]"], ["[%r5]", "%r5"]):
        if "block_scale" in kind:
            tail = " %r3, [%r6], [%r7], %p1;"
        else:
            tail = " %r3, %p1;"
        yield "sm_100a", "tcgen05.mma.sp.cta_group::%d.%s [%%r1], %s, %%rd2, %s,%s" % (
            cg, kind, a, meta, tail)
    colls = [""] + [".collector::b%d::%s" % (n, u) for n in (0, 3)
                    for u in ("fill", "use", "lastuse", "discard")]
    for order, cg, kind, c, a, meta, zero in itertools.product(
            ["ws.sp", "sp.ws"], [1, 2], kinds[:4] + ["kind::mxf4.block_scale"], colls,
            ["%rd1", "[%r2]"], ["[%r5]", "%r5"], ["", ", %rd3"]):
        yield "sm_100a", "tcgen05.mma.%s.cta_group::%d.%s%s [%%r1], %s, %%rd2, %s, %%r3, %%p1%s;" % (
            order, cg, kind, c, a, meta, zero)


def tcgen05_ws():
    """tcgen05.mma.ws (dense): each kind (the block-scaled ones too, which .ws does not take),
    both CTA groups, A from a descriptor or tensor memory (the runtime takes it with every M,
    32, 64 and 128), the collector buffers b0-b3 with each use, the zero-column mask."""
    kinds = ["kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8", "kind::mxf4.block_scale"]
    colls = [""] + [".collector::b%d::%s" % (n, u) for n in range(4)
                    for u in ("fill", "use", "lastuse", "discard")]
    for cg, kind, c, a, zero in itertools.product(
            [1, 2], kinds, colls, ["%rd1", "[%r2]"], ["", ", %rd3"]):
        yield "sm_100a", "tcgen05.mma.ws.cta_group::%d.%s%s [%%r1], %s, %%rd2, %%r3, %%p1%s;" % (
            cg, kind, c, a, zero)


def setmaxnreg():
    """setmaxnreg.inc/.dec: the count (a multiple of 8 in 24..256), the targets, and an .inc
    with a .dec in either order (ptxas refuses a .dec above the kernel's largest .inc count:
    C7406)."""
    targets = ["sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_120a"]
    for target, d, n in itertools.product(targets, ["inc", "dec"],
                                          [16, 20, 24, 32, 100, 128, 248, 256, 264]):
        yield target, "setmaxnreg.%s.sync.aligned.u32 %d;" % (d, n)
    counts = [24, 64, 128, 200, 256]
    for target, i, d, first in itertools.product(["sm_90a", "sm_100a"], counts, counts,
                                                 ["inc", "dec"]):
        inc = "setmaxnreg.inc.sync.aligned.u32 %d;" % i
        dec = "setmaxnreg.dec.sync.aligned.u32 %d;" % d
        yield target, (inc + " " + dec) if first == "inc" else (dec + " " + inc)


def setmaxnreg_calls():
    """A kernel's setmaxnreg.dec against the .inc of a function it reaches: directly called,
    its address taken (mov, a module variable's initializer the kernel names), or any
    address-taken function when the kernel calls through a register (a .callprototype or a
    .calltargets table), and what does not count (C7406, lower::maxnreg)."""
    inc = ".func f() { setmaxnreg.inc.sync.aligned.u32 INC; ret; }"
    ind = ".reg .b64 %q<2>; proto: .callprototype _ (); ld.param.u64 %q0, [p]; call %q0, proto;"
    # (module text before the kernel, with INC for the .inc count; the kernel's code before
    # its setmaxnreg.dec)
    cases = [
        (inc, "call f;"),
        (inc, "proto2: .callprototype _ (); mov.u64 %rd1, f; call %rd1, proto2;"),
        (inc, "mov.u64 %rd1, f;"),
        (inc, ind),
        (inc, "tbl: .calltargets f; ld.param.u64 %rd1, [p]; call %rd1, tbl;"),
        (inc + " .global .u64 fp = f;", "tbl: .calltargets f; ld.param.u64 %rd1, [p]; call %rd1, tbl;"),
        (inc + " .global .u64 fp = f;", ind),
        (inc + " .global .u64 fp = f;", "ld.global.u64 %rd1, [fp]; st.global.u64 [%rd1], %rd1;"),
        (inc + " .global .u64 fp = f;", ""),
        (inc + " .global .u64 fp = f; .global .u64 gp = generic(fp);",
         "ld.global.u64 %rd1, [gp]; st.global.u64 [%rd1], %rd1;"),
        (inc + " .global .u64 sink; .func h() { .reg .b64 %r<2>; mov.u64 %r0, f;"
         " st.global.u64 [sink], %r0; ret; }", ind),
        (inc + " .global .u64 sink; .func h() { .reg .b64 %r<2>; mov.u64 %r0, f;"
         " st.global.u64 [sink], %r0; ret; }", ""),
        (inc + " .global .u64 fp = f; .func h() { .reg .b64 %r<2>; proto: .callprototype _ ();"
         " ld.global.u64 %r0, [fp]; call %r0, proto; ret; }", "call h;"),
        (".func g() { setmaxnreg.inc.sync.aligned.u32 INC; ret; } .func f() { call g; ret; }",
         "mov.u64 %rd1, f;"),
        (inc + " .global .u64 sink; .visible .entry a() { .reg .b64 %r<2>; mov.u64 %r0, f;"
         " st.global.u64 [sink], %r0; ret; }", ""),
        (inc + " .global .u64 sink; .visible .entry a() { .reg .b64 %r<2>; mov.u64 %r0, f;"
         " st.global.u64 [sink], %r0; ret; }", ind),
        # Variables declared in a function body: counted where a body names them.
        (inc, ".global .u64 fp = f; ld.global.u64 %rd1, [fp]; st.global.u64 [%rd1], %rd1;"),
        (inc, "{ .const .u64 fp = f; ld.const.u64 %rd1, [fp]; st.global.u64 [%rd1], %rd1; }"),
        (inc, ".global .u64 fp = f;"),
        (inc, ".global .u64 fp = f; " + ind),
        (inc, ".global .u64 fp = f; .global .u64 gp = generic(fp);"
         " ld.global.u64 %rd1, [gp]; st.global.u64 [%rd1], %rd1;"),
        (inc + " .global .u64 fp = f;", ".global .u64 fp = 0;"
         " ld.global.u64 %rd1, [fp]; st.global.u64 [%rd1], %rd1;"),
        (inc + " .func h() { .global .u64 fp = f; .reg .b64 %r<2>; ld.global.u64 %r0, [fp];"
         " st.global.u64 [%r0], %r0; ret; }", ""),
        (inc + " .func h() { .global .u64 fp = f; .reg .b64 %r<2>; ld.global.u64 %r0, [fp];"
         " st.global.u64 [%r0], %r0; ret; }", "call h;"),
        (inc + " .func h() { .global .u64 fp = f; .reg .b64 %r<2>; ld.global.u64 %r0, [fp];"
         " st.global.u64 [%r0], %r0; ret; }", ind),
        (inc + " .func h() { .global .u64 fp = f; ret; }", ind),
        (inc + " .func h() { .global .u64 fp = f; ret; }", "call h;"),
    ]
    for target, (prelude, code), i, d in itertools.product(
            ["sm_90a", "sm_100a"], cases, [64, 200], [64, 128, 232]):
        dec = "setmaxnreg.dec.sync.aligned.u32 %d;" % d
        yield target, "%s\t%s" % (prelude.replace("INC", str(i)), (code + " " + dec).strip())


def tcgen05_lane_mask():
    """tcgen05.mma{.sp} with the disable-output-lane vector (4 or 8 words, as registers or
    immediates) and scale-input-d, each kind, A from a descriptor or tensor memory, both CTA
    groups, and the block-scaled kinds (which take neither)."""
    kinds = ["kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8",
             "kind::mxf8f6f4.block_scale.scale_vec::1X", "kind::mxf4.block_scale",
             "kind::mxf4nvf4.block_scale.block16"]
    masks = ["", " {%r8, %r9, %r10, %r11},", " {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15},",
             " {0, 0, 0, 0},", " {0, 0, 0, 0, 0, 0, 0, 0},"]
    for sp, cg, kind, a, mask, scale in itertools.product(
            ["", ".sp"], [1, 2], kinds, ["%rd1", "[%r2]"], masks, ["", ", 3"]):
        meta = " [%r5]," if sp else ""
        sf = " [%r6], [%r7]," if "block_scale" in kind else ""
        yield "sm_100a", "tcgen05.mma%s.cta_group::%d.%s [%%r1], %s, %%rd2,%s %%r3,%s%s %%p1%s;" % (
            sp, cg, kind, a, meta, sf, mask, scale)


def multimem():
    """multimem.ld_reduce / .st / .red: every op, type, vector width and accumulation."""
    types = ["b32", "b64", "u32", "u64", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2",
             "f32", "f64", "e5m2", "e5m2x2", "e5m2x4", "e4m3", "e4m3x2", "e4m3x4"]
    width = {"b32": 32, "b64": 64, "u32": 32, "u64": 64, "s32": 32, "s64": 64, "f16": 16,
             "f16x2": 32, "bf16": 16, "bf16x2": 32, "f32": 32, "f64": 64, "e5m2": 8,
             "e5m2x2": 16, "e5m2x4": 32, "e4m3": 8, "e4m3x2": 16, "e4m3x4": 32}
    ops = ["add", "min", "max", "and", "or", "xor"]

    def reg(t):
        # A register of the type's width (ptxas takes .b32 registers for .f16x2 and so on).
        w = width[t]
        return {8: "%b1", 16: "%h1", 32: "%r1", 64: "%rd3"}[w]

    def operand(t, n):
        r = reg(t)
        if n == 1:
            return r
        base = r.rstrip("0123456789")
        return "{" + ", ".join("%s%d" % (base, i + 1) for i in range(n)) + "}"

    for t in types:
        for n in (1, 2, 4, 8):
            v = "" if n == 1 else ".v%d" % n
            d = operand(t, n)
            yield "sm_100a", "multimem.st.global%s.%s [%%rd1], %s;" % (v, t, d)
            for op in ops:
                yield "sm_100a", "multimem.red.relaxed.gpu.global.%s%s.%s [%%rd1], %s;" % (op, v, t, d)
                for acc in ("", ".acc::f32", ".acc::f16"):
                    yield "sm_100a", "multimem.ld_reduce.global.%s%s%s.%s %s, [%%rd1];" % (
                        op, acc, v, t, d)


def mma_block_scale():
    """mma .kind::mxf8f6f4/::mxf4/::mxf4nvf4 .block_scale{.scale_vec::NX}.stype: each kind,
    scale_vec, scale type and shape; the byte-id/thread-id selectors; the targets; and
    mma.sp{::ordered_metadata} with .kind::f8f6f4 and the block-scaled kinds."""
    d4 = "{%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7}"
    sp4 = "{%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%f4, %f5, %f6, %f7}"

    def inst(kind, vec, stype, shape, at, bt, sel_a="{0, 0}", sel_b="{0, 0}", dt="f32",
             frags=d4, head="mma", tail=""):
        v = "" if vec is None else ".scale_vec::%s" % vec
        return ("%s.sync.aligned.%s.row.col.kind::%s.block_scale%s.%s.%s.%s.%s.%s %s,%s "
                "%%r9, %s, %%r10, %s;" % (head, shape, kind, v, dt, at, bt, dt, stype, frags,
                                          tail, sel_a, sel_b))

    kinds = ["mxf8f6f4", "mxf4", "mxf4nvf4"]
    vecs = [None, "1X", "2X", "4X"]
    shapes = [("m16n8k32", "e4m3", "e2m1"), ("m16n8k64", "e2m1", "e2m1")]
    for kind, vec, stype, (shape, at, bt) in itertools.product(
            kinds, vecs, ["ue8m0", "ue4m3"], shapes):
        yield "sm_120a", inst(kind, vec, stype, shape, at, bt)
    valid = [("mxf8f6f4", "1X", "ue8m0", "m16n8k32", "e3m2", "e2m3"),
             ("mxf4", "2X", "ue8m0", "m16n8k64", "e2m1", "e2m1"),
             ("mxf4nvf4", "2X", "ue8m0", "m16n8k64", "e2m1", "e2m1"),
             ("mxf4nvf4", "4X", "ue4m3", "m16n8k64", "e2m1", "e2m1"),
             ("mxf4nvf4", "4X", "ue8m0", "m16n8k64", "e2m1", "e2m1")]
    for kind, vec, stype, shape, at, bt in valid:
        for b, t in itertools.product(range(5), range(3)):
            yield "sm_120a", inst(kind, vec, stype, shape, at, bt, sel_a="{%d, %d}" % (b, t))
        for b, t in itertools.product(range(5), range(5)):
            yield "sm_120a", inst(kind, vec, stype, shape, at, bt, sel_b="{%d, %d}" % (b, t))
        yield "sm_120a", inst(kind, vec, stype, shape, at, bt, sel_a="{%h1, %h2}",
                              sel_b="{%h3, %h4}")
        yield "sm_120a", inst(kind, vec, stype, shape, at, bt, dt="f16",
                              frags="{%r10, %r11}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r12, %r13}")
        for target in ["sm_120a", "sm_121a", "sm_120f", "sm_120", "sm_100a", "sm_100f",
                       "sm_103a", "sm_90a"]:
            yield target, inst(kind, vec, stype, shape, at, bt)
    for at, bt in itertools.product(["e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "bf16"], repeat=2):
        yield "sm_120a", inst("mxf8f6f4", "1X", "ue8m0", "m16n8k32", at, bt)
    for sp, sel in itertools.product(["sp", "sp::ordered_metadata"], [0, 1]):
        head = "mma." + sp
        for dt, at, bt in [("f32", "e2m1", "e3m2"), ("f16", "e4m3", "e5m2")]:
            frags = sp4 if dt == "f32" else \
                "{%r10, %r11}, {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r12, %r13}"
            yield "sm_120a", ("%s.sync.aligned.m16n8k64.row.col.kind::f8f6f4.%s.%s.%s.%s %s, "
                              "%%r8, %d;" % (head, dt, at, bt, dt, frags, sel))
        for kind, vec, stype, shape, at, bt in valid:
            sshape = "m16n8k%d" % (2 * int(shape[6:]))
            yield "sm_120a", inst(kind, vec, stype, sshape, at, bt, frags=sp4, head=head,
                                  tail=" %%r8, %d," % sel)


def mma_sparse_targets():
    """The sparse FP8/FP6/FP4 mma.sp forms (.e4m3/.e5m2 without a .kind, .kind::f8f6f4,
    .kind::mxf8f6f4, .kind::mxf4, .kind::mxf4nvf4) on each target from sm_80 to sm_121f and
    each PTX ISA version from 8.4 to 9.1 that the target exists in."""
    f4 = "{%f0, %f1, %f2, %f3}"
    h2 = "{%r10, %r11}"
    ab = "{%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}"
    sel = "%r9, {0, 0}, %r12, {0, 0}"
    forms = []
    for sp in ("sp", "sp::ordered_metadata"):
        for dt, at, bt in [("f32", "e4m3", "e4m3"), ("f32", "e5m2", "e4m3"), ("f16", "e4m3", "e4m3")]:
            d = f4 if dt == "f32" else h2
            forms.append("mma.%s.sync.aligned.m16n8k64.row.col.%s.%s.%s.%s %s, %s, %s, %%r8, 0;"
                         % (sp, dt, at, bt, dt, d, ab, d))
    head = "mma.sp::ordered_metadata.sync.aligned"
    for dt, at, bt in [("f32", "e4m3", "e4m3"), ("f32", "e2m1", "e3m2"), ("f16", "e4m3", "e5m2"),
                       ("f16", "e2m3", "e2m1")]:
        d = f4 if dt == "f32" else h2
        forms.append("%s.m16n8k64.row.col.kind::f8f6f4.%s.%s.%s.%s %s, %s, %s, %%r8, 0;"
                     % (head, dt, at, bt, dt, d, ab, d))
    for kind, k, at, bt in [("mxf8f6f4.block_scale.scale_vec::1X", 64, "e4m3", "e2m1"),
                            ("mxf8f6f4.block_scale.scale_vec::1X", 64, "e4m3", "e4m3"),
                            ("mxf4.block_scale.scale_vec::2X", 128, "e2m1", "e2m1"),
                            ("mxf4nvf4.block_scale.scale_vec::2X", 128, "e2m1", "e2m1")]:
        forms.append("%s.m16n8k%d.row.col.kind::%s.f32.%s.%s.f32.ue8m0 %s, %s, %s, %%r8, 0, %s;"
                     % (head, k, kind, at, bt, f4, ab, f4, sel))
    forms.append("%s.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1."
                 "f32.ue4m3 %s, %s, %s, %%r8, 0, %s;" % (head, f4, ab, f4, sel))
    # The first PTX ISA version of each target (ptxas 13.5: "PTX .version 8.7 does not support
    # .target sm_121a").
    targets = [("sm_80", (8, 4)), ("sm_89", (8, 4)), ("sm_90", (8, 4)), ("sm_90a", (8, 4)),
               ("sm_100", (8, 6)), ("sm_100a", (8, 6)), ("sm_100f", (8, 8)), ("sm_103a", (8, 8)),
               ("sm_110a", (9, 0)), ("sm_110f", (9, 0)), ("sm_120", (8, 7)), ("sm_120a", (8, 7)),
               ("sm_120f", (8, 8)), ("sm_121a", (8, 8)), ("sm_121f", (8, 8))]
    versions = [(8, 4), (8, 5), (8, 6), (8, 7), (8, 8), (9, 0), (9, 1)]
    for inst in forms:
        for target, first in targets:
            for v in versions:
                if v >= first:
                    yield "%s@%d.%d" % (target, v[0], v[1]), inst


FAMILIES = {"tcgen05_collector": tcgen05_collector, "multimem": multimem,
            "tcgen05_lane_mask": tcgen05_lane_mask,
            "tcgen05_sparse": tcgen05_sparse, "mma_block_scale": mma_block_scale,
            "mma_sparse_targets": mma_sparse_targets, "tcgen05_ws": tcgen05_ws,
            "setmaxnreg": setmaxnreg, "setmaxnreg_calls": setmaxnreg_calls}


def main():
    ptxas = os.environ.get("PTXAS")
    if not ptxas:
        sys.exit("set PTXAS to ptxas 13")
    names = sys.argv[1:] or list(FAMILIES)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            lines = []
            for target, inst in FAMILIES[name]():
                path = os.path.join(tmp, "k.ptx")
                with open(path, "w") as f:
                    f.write(frame(target, inst))
                r = subprocess.run([ptxas, "-arch=" + target.partition("@")[0], path, "-o",
                                    "/dev/null"],
                                   capture_output=True, text=True)
                lines.append("%s\t%s\t%s" % ("ok" if r.returncode == 0 else "no", target, inst))
            with open(os.path.join(HERE, name + ".tsv"), "w") as f:
                f.write("\n".join(lines) + "\n")
            print(name, len(lines), "forms,", sum(l.startswith("ok") for l in lines), "accepted")


if __name__ == "__main__":
    main()
