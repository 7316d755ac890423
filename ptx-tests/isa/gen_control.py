#!/usr/bin/env python3
"""Writes control.isa: the control-flow and miscellaneous instructions of PTX ISA §9.7.12
(call, ret, exit), §9.7.13 (bar.red, bar.arrive with thread counts, membar, griddepcontrol)
and §9.7.19 (trap, brkpt, pmevent, setmaxnreg), as `>>>` groups (tests/isa/harness.rs, with
the `func` lines and `fault`/`rejects` clauses of tests/isa/control.rs).

Every value is computed here from the ISA text, independently of ptxjit:
- call/ret (§9.7.12.5-6): a call passes its arguments to the callee's parameters and, on
  `ret`, copies the callee's return parameters to the call's destinations; an indirect call
  (a register holding a function's address, `mov.u64 r, f`) calls the function the register
  holds, its type from a `.callprototype` or a `.calltargets` list. The callees compute host
  arithmetic (integer wrapping, one IEEE rounding to nearest even per f32/f64 operation), and
  recursive callees their recursion (Fibonacci, factorial) here;
- exit (§9.7.12.7): an exited thread takes no further part; the warp's other lanes go on, and
  `activemask` / `redux.sync` over it see only them;
- trap (§9.7.19.4): "abort execution and generate an interrupt to the host CPU": the launch
  fails; brkpt (§9.7.19.1) "suspends execution" for a debugger: ptxjit has none, so the code
  after it runs (docs/isa-notes.md); pmevent (§9.7.19.3) triggers performance-monitor events,
  no visible effect; setmaxnreg (§9.7.19.5) changes no register's value, its count "must be in
  the range 24 to 256 (both inclusive)" and "a multiple of 8"; griddepcontrol (§9.7.13.13)
  has no dependent grid in a table's single launch, so no effect;
- bar.red (§9.7.13.1): .popc counts the threads whose predicate is true, .and/.or reduce it,
  over all threads of the barrier; bar.arrive does not wait, bar.sync with a thread count b
  waits for b threads of the CTA.

Run from this directory: python3 gen_control.py. Seeded, so the output is stable.
"""
import random
import struct

import gen_warp as gw
from gen_warp import hx

R = random.Random(40)
M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


class Group(gw.Group):
    """A `>>>` group with `func` lines (module-level PTX before the kernel)."""

    def __init__(self, comment, header, funcs=(), target=None):
        super().__init__(comment, header, target)
        self.funcs = list(funcs)

    def text(self):
        out = super().text()
        head, _, rest = out.partition(f">>> {self.header}\n")
        return head + f">>> {self.header}\n" + "".join(f"func {f}\n" for f in self.funcs) + rest


def f32(x):
    """The f32 nearest x (round to nearest even: struct's conversion of a double)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def rand_f32():
    return f32(R.uniform(-1000, 1000))


def s16(v):
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def all_lanes(f, n=32):
    """Lane rows: lane -> (inputs, outputs) from f(lane)."""
    return {l: f(l) for l in range(n)}


def gen_cp_async_arrive():
    """cp.async.mbarrier.arrive (PTX ISA §9.7.9.25.3.3): an arrive-on operation on the
    mbarrier triggered when all the thread's prior cp.async operations complete; without
    .noinc the pending count is first incremented by 1 (so the net count is unchanged and the
    thread arrives again itself), with .noinc it is not (the arrival counts against the
    init count). Lanes copy one word each from global to shared memory, wait for phase 0, then
    read another lane's copied word."""
    gs = []
    for noinc in (True, False):
        arrive = ("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [m]" if noinc else
                  "cp.async.mbarrier.arrive.shared::cta.b64 [m]; "
                  "mbarrier.arrive.shared::cta.b64 x, [m]")
        g = Group(f"cp.async.mbarrier.arrive{'.noinc' if noinc else ''}: 32 lanes each copy a word "
                  "with cp.async (init count 32), wait for phase 0 of the mbarrier and read "
                  "the next lane's copy",
                  f"@z mbarrier.init.shared::cta.b64 [m], 32; bar.warp.sync -1; "
                  f"cp.async.ca.shared.global [s], [g], 4; {arrive}; "
                  "ISA_W: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_W; "
                  "ld.shared.u32 d, [t] :: d:u32 <- z:pred m:sptr s:sptr t:sptr g:gptr "
                  "; shared 256 ; global 128 ; regs p:pred x:b64")
        for _ in range(2):
            v = [R.getrandbits(32) for _ in range(32)]
            rows = {l: ([str(int(l == 0)), "0x0", hx(0x80 + 4 * l, 1),
                         hx(0x80 + 4 * ((l + 1) % 32), 1), hx(4 * l, 1)], [str(v[(l + 1) % 32])])
                    for l in range(32)}
            g.case("", rows, init={"global 0x0": v},
                   expect={"shared 0x0": ["*", "*"], "shared 0x80": v})
        gs.append(g)
    return gs


# ---------------------------------------------------------------- call / ret

F_U32 = (".func (.param .u32 r) isa_madd(.param .u32 a, .param .u32 b) { .reg .u32 %x, %y; "
         "ld.param.u32 %x, [a]; ld.param.u32 %y, [b]; mad.lo.u32 %x, %x, 3, %y; "
         "st.param.u32 [r], %x; ret; }")
F_U64 = (".func (.param .u64 r) isa_mix64(.param .u64 a, .param .u32 s) { .reg .u64 %x, %y; "
         ".reg .u32 %s; ld.param.u64 %x, [a]; ld.param.u32 %s, [s]; shl.b64 %y, %x, %s; "
         "xor.b64 %x, %x, %y; st.param.u64 [r], %x; ret; }")
F_F32 = (".func (.param .f32 r) isa_addf(.param .f32 a, .param .f32 b) { .reg .f32 %x, %y; "
         "ld.param.f32 %x, [a]; ld.param.f32 %y, [b]; add.rn.f32 %x, %x, %y; "
         "st.param.f32 [r], %x; ret; }")
F_F64 = (".func (.param .f64 r) isa_mulf(.param .f64 a, .param .f64 b) { .reg .f64 %x, %y; "
         "ld.param.f64 %x, [a]; ld.param.f64 %y, [b]; mul.rn.f64 %x, %x, %y; "
         "st.param.f64 [r], %x; ret; }")
F_S16 = (".func (.param .b16 r) isa_sub16(.param .b16 a, .param .b16 b) { .reg .s16 %x, %y; "
         "ld.param.s16 %x, [a]; ld.param.s16 %y, [b]; sub.s16 %x, %x, %y; "
         "st.param.b16 [r], %x; ret; }")
# Several return values are `.reg` ones (ptxas: "Multiple return parameters require .register
# state space").
F_DIVMOD = (".func (.reg .u32 q, .reg .u32 m) isa_divmod(.reg .u32 a, .reg .u32 b) { "
            "div.u32 q, a, b; rem.u32 m, a, b; ret; }")
F_VOID = (".func isa_store(.param .u64 p, .param .u32 v) { .reg .u64 %p; .reg .u32 %v; "
          "ld.param.u64 %p, [p]; ld.param.u32 %v, [v]; st.global.u32 [%p], %v; ret; }")
F_EARLY = (".func (.param .u32 r) isa_clamp(.param .u32 a) { .reg .u32 %x; .reg .pred %p; "
           "ld.param.u32 %x, [a]; st.param.u32 [r], 100; setp.gt.u32 %p, %x, 50; @%p ret; "
           "shl.b32 %x, %x, 1; st.param.u32 [r], %x; ret; }")
F_FIB = (".func (.param .u32 r) isa_fib(.param .u32 n) { .reg .u32 %n, %a, %b; .reg .pred %p; "
         "ld.param.u32 %n, [n]; setp.lt.u32 %p, %n, 2; @%p bra ISA_FIB_DONE; "
         "sub.u32 %a, %n, 1; call (%a), isa_fib, (%a); sub.u32 %b, %n, 2; "
         "call (%b), isa_fib, (%b); add.u32 %n, %a, %b; ISA_FIB_DONE: st.param.u32 [r], %n; "
         "ret; }")
F_FACT = (".func (.param .u64 r) isa_fact(.param .u32 n) { .reg .u32 %n, %m; .reg .u64 %x, %y; "
          ".reg .pred %p; ld.param.u32 %n, [n]; mov.u64 %x, 1; setp.eq.u32 %p, %n, 0; "
          "@%p bra ISA_FACT_DONE; sub.u32 %m, %n, 1; call (%y), isa_fact, (%m); "
          "cvt.u64.u32 %x, %n; mul.lo.u64 %x, %x, %y; ISA_FACT_DONE: st.param.u64 [r], %x; "
          "ret; }")
F_DBL = (".func (.param .u32 r) isa_dbl(.param .u32 a) { .reg .u32 %x; ld.param.u32 %x, [a]; "
         "add.u32 %x, %x, %x; st.param.u32 [r], %x; ret; }")
F_NOT = (".func (.param .u32 r) isa_not(.param .u32 a) { .reg .u32 %x; ld.param.u32 %x, [a]; "
         "not.b32 %x, %x; st.param.u32 [r], %x; ret; }")


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a & M32


def fact(n):
    r = 1
    for k in range(2, n + 1):
        r *= k
    return r & M64


def gen_call():
    gs = []
    g = Group("call with two .u32 parameters and a .u32 return value: r = 3a + b (mod 2^32); "
              "every lane its own operands",
              "call (d), isa_madd, (a, b) :: d:u32 <- a:u32 b:u32", [F_U32])
    for _ in range(2):
        rows = {}
        for l in range(32):
            a, b = R.getrandbits(32), R.getrandbits(32)
            rows[l] = ([str(a), str(b)], [str((3 * a + b) & M32)])
        g.case("", rows)
    gs.append(g)
    g = Group(".u64 parameter and return value, .u32 shift: r = a ^ (a << s)",
              "call (d), isa_mix64, (a, s) :: d:u64 <- a:u64 s:u32", [F_U64])
    rows = {}
    for l in range(32):
        a, s = R.getrandbits(64), R.randrange(64)
        rows[l] = ([hx(a, 16), str(s)], [hx((a ^ (a << s)) & M64, 16)])
    g.case("", rows)
    gs.append(g)
    g = Group(".f32 parameters and return value: r = a + b rounded to nearest even",
              "call (d), isa_addf, (a, b) :: d:f32 <- a:f32 b:f32", [F_F32])
    rows = {}
    for l in range(32):
        a, b = rand_f32(), rand_f32()
        rows[l] = ([hx(f32_bits(a)), hx(f32_bits(b))], [hx(f32_bits(f32(a + b)))])
    g.case("", rows)
    gs.append(g)
    g = Group(".f64 parameters and return value: r = a * b rounded to nearest even",
              "call (d), isa_mulf, (a, b) :: d:f64 <- a:f64 b:f64", [F_F64])
    rows = {}
    for l in range(32):
        a, b = R.uniform(-1e6, 1e6), R.uniform(-1e6, 1e6)
        rows[l] = ([hx(f64_bits(a), 16), hx(f64_bits(b), 16)], [hx(f64_bits(a * b), 16)])
    g.case("", rows)
    gs.append(g)
    g = Group(".b16 parameters and return value: r = a - b (mod 2^16, signed)",
              "call (d), isa_sub16, (a, b) :: d:s16 <- a:s16 b:s16", [F_S16])
    rows = {}
    for l in range(32):
        a, b = s16(R.getrandbits(16)), s16(R.getrandbits(16))
        rows[l] = ([str(a), str(b)], [str(s16(a - b))])
    g.case("", rows)
    gs.append(g)
    g = Group("two .reg return values and .reg parameters: quotient and remainder",
              "call (q, m), isa_divmod, (a, b) :: q:u32 m:u32 <- a:u32 b:u32", [F_DIVMOD])
    rows = {}
    for l in range(32):
        a, b = R.getrandbits(32), R.randrange(1, 1 << R.choice([4, 12, 31]))
        rows[l] = ([str(a), str(b)], [str(a // b), str(a % b)])
    g.case("", rows)
    gs.append(g)
    g = Group("two .param return values: refused (ptxas: \"Multiple return parameters require "
              ".register state space\")",
              "call (q, m), isa_divmod2, (a, b) :: q:u32 m:u32 <- a:u32 b:u32 "
              "; rejects must be a .reg one",
              [".func (.param .u32 q, .param .u32 m) isa_divmod2(.param .u32 a, .param .u32 b) "
               "{ .reg .u32 %x, %y, %z; ld.param.u32 %x, [a]; ld.param.u32 %y, [b]; "
               "div.u32 %z, %x, %y; st.param.u32 [q], %z; rem.u32 %z, %x, %y; "
               "st.param.u32 [m], %z; ret; }"])
    gs.append(g)
    g = Group("a call without return value: the callee stores v at p (lanes 0-7, one word each)",
              "call isa_store, (p, v) :: <- p:gptr v:u32 ; global 32", [F_VOID])
    rows, words = {}, [R.getrandbits(32) for _ in range(8)]
    for l in range(8):
        rows[l] = ([hx(4 * l, 1), str(words[l])], [])
    g.case("", rows, init={0: [R.getrandbits(32) for _ in range(8)]}, expect={0: words})
    gs.append(g)
    g = Group("ret under a predicate: lanes with a > 50 return 100 (stored before the ret), "
              "the others go on to return 2a",
              "call (d), isa_clamp, (a) :: d:u32 <- a:u32", [F_EARLY])
    rows = {}
    for l in range(32):
        a = R.randrange(101)
        rows[l] = ([str(a)], [str(100 if a > 50 else 2 * a)])
    g.case("", rows)
    gs.append(g)
    g = Group("recursion, a different depth in each lane: fib(n) by fib(n-1) + fib(n-2)",
              "call (d), isa_fib, (n) :: d:u32 <- n:u32", [F_FIB])
    g.case("", all_lanes(lambda l: ([str(l % 17)], [str(fib(l % 17))])))
    gs.append(g)
    g = Group("recursion with a .u64 return value: n! = n · (n-1)! (mod 2^64)",
              "call (d), isa_fact, (n) :: d:u64 <- n:u32", [F_FACT])
    g.case("", all_lanes(lambda l: ([str(l % 26)], [hx(fact(l % 26), 16)])))
    gs.append(g)
    g = Group("indirect call through a register (.callprototype): lanes with s != 0 call "
              "isa_dbl (2a), the others isa_not (~a)",
              "P: .callprototype (.param .u32 _) _ (.param .u32 _); mov.u64 f1, isa_dbl; "
              "mov.u64 f2, isa_not; setp.ne.u32 q, s, 0; selp.b64 f, f1, f2, q; "
              "call (d), f, (a), P :: d:u32 <- s:u32 a:u32 ; regs f:u64 f1:u64 f2:u64 q:pred",
              [F_DBL, F_NOT])
    rows = {}
    for l in range(32):
        s, a = R.randrange(2), R.getrandbits(32)
        rows[l] = ([str(s), str(a)], [str((2 * a if s else ~a) & M32)])
    g.case("", rows)
    gs.append(g)
    g = Group("indirect call with a .calltargets list, the target chosen by lane",
              "T: .calltargets isa_dbl, isa_not; mov.u64 f1, isa_dbl; mov.u64 f2, isa_not; "
              "setp.ne.u32 q, s, 0; selp.b64 f, f1, f2, q; call (d), f, (a), T "
              ":: d:u32 <- s:u32 a:u32 ; regs f:u64 f1:u64 f2:u64 q:pred",
              [F_DBL, F_NOT])
    rows = {}
    for l in range(32):
        s, a = l % 3 == 0, R.getrandbits(32)
        rows[l] = ([str(int(s)), str(a)], [str((2 * a if s else ~a) & M32)])
    g.case("", rows)
    gs.append(g)
    g = Group("an indirect call of a recursive function through a register",
              "P: .callprototype (.param .u32 _) _ (.param .u32 _); mov.u64 f, isa_fib; "
              "call (d), f, (n), P :: d:u32 <- n:u32 ; regs f:u64", [F_FIB])
    g.case("", all_lanes(lambda l: ([str(l % 12)], [str(fib(l % 12))])))
    gs.append(g)
    return gs


# ---------------------------------------------------------------- exit

def gen_exit():
    gs = []
    g = Group("exit under a predicate: the lanes with p exit; activemask afterwards holds the "
              "others, and redux.sync over them adds their a",
              "@p exit; activemask.b32 m; redux.sync.add.u32 d, a, m :: m:b32 d:u32 <- p:pred a:u32")
    for k in range(3):
        ex = [R.random() < (0.3, 0.5, 0.9)[k] for _ in range(32)]
        ex[R.randrange(32)] = False
        a = [R.getrandbits(20) for _ in range(32)]
        mask = sum(1 << l for l in range(32) if not ex[l])
        tot = sum(a[l] for l in range(32) if not ex[l]) & M32
        g.case(f"{32 - sum(ex)} lanes go on",
               all_lanes(lambda l: ([str(int(ex[l])), str(a[l])],
                                    ["*", "*"] if ex[l] else [hx(mask), str(tot)])))
    gs.append(g)
    g = Group("exit inside a loop: lane l runs the loop body l % 8 times (d += a), the lanes "
              "whose count reaches k exit there, the others leave the loop and compute 2d",
              "mov.u32 d, 0; mov.u32 i, 0; L: setp.ge.u32 q, i, c; @q bra E; "
              "setp.eq.u32 q, i, k; @q exit; add.u32 d, d, a; add.u32 i, i, 1; bra L; "
              "E: shl.b32 d, d, 1 :: d:u32 <- c:u32 k:u32 a:u32 ; regs i:u32 q:pred")
    rows = {}
    for l in range(32):
        c, k, a = l % 8, R.randrange(8), R.getrandbits(16)
        rows[l] = ([str(c), str(k), str(a)], ["*"] if k < c else [str(2 * c * a & M32)])
    g.case("", rows)
    gs.append(g)
    g = Group("ret in the kernel body ends the thread as exit does: the others' activemask",
              "@p ret; activemask.b32 m :: m:b32 <- p:pred")
    ex = [l % 5 == 1 for l in range(32)]
    mask = sum(1 << l for l in range(32) if not ex[l])
    g.case("", all_lanes(lambda l: ([str(int(ex[l]))], ["*"] if ex[l] else [hx(mask)])))
    gs.append(g)
    return gs


# ---------------------------------------------------------------- trap, brkpt, hints

def gen_misc():
    gs = []
    g = Group("trap: the lanes with p abort, and the launch reports the fault",
              "@p trap; add.u32 d, a, 1 :: d:u32 <- p:pred a:u32 "
              "; fault trap by CTA (0,0,0) thread (5,0,0)")
    g.case("lane 5 traps", all_lanes(lambda l: ([str(int(l == 5)), str(l)], ["*"])))
    gs.append(g)
    g = Group("trap not executed (its guard false in every lane): the code after it runs",
              "@p trap; add.u32 d, a, 1 :: d:u32 <- p:pred a:u32")
    a = [R.getrandbits(32) for _ in range(32)]
    g.case("", all_lanes(lambda l: (["0", str(a[l])], [str((a[l] + 1) & M32)])))
    gs.append(g)
    g = Group("brkpt: with no debugger to suspend for, the code after it runs",
              "brkpt; add.u32 d, a, 1 :: d:u32 <- a:u32")
    g.case("", all_lanes(lambda l: ([str(a[l])], [str((a[l] + 1) & M32)])))
    gs.append(g)
    for form in ("pmevent 1", "pmevent 15", "pmevent.mask 0x1", "pmevent.mask 0xff00"):
        g = Group(f"{form}: a performance-monitor event, no visible effect",
                  f"{form}; xor.b32 d, a, 0x5a5a5a5a :: d:b32 <- a:b32")
        g.case("", all_lanes(lambda l: ([hx(a[l])], [hx(a[l] ^ 0x5A5A5A5A)])))
        gs.append(g)
    for form in ("griddepcontrol.launch_dependents", "griddepcontrol.wait"):
        g = Group(f"{form}: no dependent grid in one launch, the code after it runs",
                  f"{form}; sub.u32 d, a, 7 :: d:u32 <- a:u32")
        g.case("", all_lanes(lambda l: ([str(a[l])], [str((a[l] - 7) & M32)])))
        gs.append(g)
    return gs


def gen_setmaxnreg():
    gs = []
    # The whole warpgroup (4 warps) executes it: `.sync.aligned`.
    for form in ("setmaxnreg.inc.sync.aligned.u32 240", "setmaxnreg.dec.sync.aligned.u32 40",
                 "setmaxnreg.inc.sync.aligned.u32 256", "setmaxnreg.dec.sync.aligned.u32 24"):
        g = Group(f"{form}: every register keeps its value across it (a warpgroup)",
                  f"add.u32 x, a, 3; {form}; mul.lo.u32 d, x, a :: d:u32 <- a:u32 ; warps 4 "
                  "; regs x:u32", target="sm_90a")
        v = [R.getrandbits(32) for _ in range(128)]
        g.case("", all_lanes(lambda l: ([str(v[l])], [str(((v[l] + 3) * v[l]) & M32)]), 128))
        gs.append(g)
    # The count: "in the range 24 to 256 (both inclusive)" and "a multiple of 8"; .inc or .dec.
    for form, why in [("setmaxnreg.inc.sync.aligned.u32 20", "multiple of 8"),
                      ("setmaxnreg.dec.sync.aligned.u32 264", "multiple of 8"),
                      ("setmaxnreg.inc.sync.aligned.u32 100", "multiple of 8"),
                      ("setmaxnreg.dec.sync.aligned.u32 16", "multiple of 8"),
                      ("setmaxnreg.sync.aligned.u32 32", "needs .inc or .dec")]:
        g = Group(f"{form}: refused (ptxas refuses it too)",
                  f"{form} :: <- ; rejects {why}")
        gs.append(g)
    return gs


# ---------------------------------------------------------------- barriers

def gen_barriers():
    gs = []
    for op in ("popc", "and", "or"):
        out = "d:u32" if op == "popc" else "d:pred"
        ty = ".u32" if op == "popc" else ".pred"
        g = Group(f"bar.red.{op}: every thread of the 2-warp CTA gets the reduction of all "
                  "threads' predicates",
                  f"bar.red.{op}{ty} d, 0, p :: {out} <- p:pred ; warps 2")
        for dens in (0.0, 0.5, 1.0, 0.02):
            ps = [R.random() < dens for _ in range(64)]
            if op == "popc":
                r = str(sum(ps))
            elif op == "and":
                r = str(int(all(ps)))
            else:
                r = str(int(any(ps)))
            g.case(f"{sum(ps)} true", all_lanes(lambda l: ([str(int(ps[l]))], [r]), 64))
        gs.append(g)
    g = Group("bar.arrive / bar.sync with a thread count (producer-consumer, PTX ISA "
              "§9.7.13.1's example): warp 0 stores its a to shared memory and arrives at "
              "barrier 1 (64 threads), warp 1 waits there, then reads warp 0's word of its lane",
              "mov.u32 w, %tid.x; setp.lt.u32 q, w, 32; @q st.shared.u32 [s], a; "
              "@q bar.arrive 1, 64; @!q bar.sync 1, 64; @!q ld.shared.u32 d, [t] "
              ":: d:u32 <- s:sptr t:sptr a:u32 ; shared 128 ; warps 2 ; regs w:u32 q:pred")
    a = [R.getrandbits(32) for _ in range(32)]
    rows = {}
    for l in range(64):
        if l < 32:
            rows[l] = ([hx(4 * l, 1), "0x0", str(a[l])], ["*"])
        else:
            rows[l] = (["0x0", hx(4 * (l - 32), 1), "0"], [str(a[l - 32])])
    g.case("", rows, expect={0: a})
    gs.append(g)
    # barrier{.cta}.sync / .red without .aligned: the threads may reach the barrier from
    # different code (PTX ISA §9.7.13.1): a third of the lanes of each warp take one path, the
    # rest the other; all 64 threads meet, so each then sees the others' stores.
    g = Group("barrier.sync 1 (not .aligned) reached from two paths within each warp: after it "
              "every thread reads the word its partner stored before it",
              "st.shared.u32 [s], a; setp.ne.u32 q, c, 0; @q bra ISA_B; barrier.sync 1; "
              "bra ISA_C; ISA_B: barrier.cta.sync 1; ISA_C: ld.shared.u32 d, [t] "
              ":: d:u32 <- s:sptr t:sptr a:u32 c:u32 ; shared 256 ; warps 2 ; regs q:pred")
    v = [R.getrandbits(32) for _ in range(64)]
    rows = {l: ([hx(4 * l, 1), hx(4 * (63 - l), 1), str(v[l]), str(l % 2)], [str(v[63 - l])])
            for l in range(64)}
    g.case("", rows, expect={0: v})
    gs.append(g)
    g = Group("barrier.red.popc.u32 and barrier.red.or.pred (not .aligned) from two paths: every "
              "thread gets the reduction over all 64 threads",
              "setp.ne.u32 q, c, 0; @q bra ISA_B; barrier.red.popc.u32 d, 2, p; "
              "barrier.red.or.pred o, 3, p; bra ISA_C; ISA_B: barrier.red.popc.u32 d, 2, p; "
              "barrier.red.or.pred o, 3, p; ISA_C: mov.u32 d, d "
              ":: d:u32 o:pred <- p:pred c:u32 ; warps 2 ; regs q:pred")
    for dens in (0.0, 0.3, 1.0):
        ps = [R.random() < dens for _ in range(64)]
        g.case(f"{sum(ps)} true", all_lanes(
            lambda l: ([str(int(ps[l])), str(int(l % 3 == 0))], [str(sum(ps)), str(int(any(ps)))]),
            64))
    gs.append(g)
    for form in ("membar.cta", "membar.gl", "membar.sys", "fence.sc.cta", "fence.acq_rel.gpu"):
        g = Group(f"{form} between a store and a load of the same word: the load sees the store",
                  f"st.shared.u32 [s], a; {form}; ld.shared.u32 d, [s] :: d:u32 <- s:sptr a:u32 "
                  "; shared 128")
        rows = {l: ([hx(4 * l, 1), str(a[l])], [str(a[l])]) for l in range(32)}
        g.case("", rows, expect={0: a})
        gs.append(g)
    return gs


if __name__ == "__main__":
    groups = gen_call() + gen_exit() + gen_misc() + gen_barriers() + gen_cp_async_arrive()
    gw.write("control.isa", """
Control flow and miscellany (PTX ISA §9.7.12.5-7 call, ret, exit; §9.7.13.1 bar.red,
bar.arrive, barrier.sync/barrier.red without .aligned from divergent paths; §9.7.13.4
membar/fence; §9.7.9.25.3.3 cp.async.mbarrier.arrive{.noinc}; §9.7.13.13 griddepcontrol; §9.7.19 brkpt, pmevent, trap,
setmaxnreg): callees of several parameter and return types, recursion, indirect calls through
.callprototype and .calltargets, early exit, the trap's fault, hints without visible effect,
setmaxnreg's operand rules. Values from gen_control.py (host arithmetic and the ISA text).""",
             groups + gen_setmaxnreg(), version="8.0", target="sm_90")
    with open("control.isa") as f:
        text = f.read().replace("Written by gen_warp.py", "Written by gen_control.py", 1)
    with open("control.isa", "w") as f:
        f.write(text)
