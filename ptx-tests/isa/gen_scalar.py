#!/usr/bin/env python3
"""Writes carry.isa (the extended-precision chains of PTX ISA §9.7.2: add.cc, addc, sub.cc,
subc, mad.cc, madc), address.isa (isspacep §9.7.9.19, cvta §9.7.9.20, mapa §9.7.9.23,
getctarank §9.7.9.24, stacksave/stackrestore/alloca §9.7.17) and cluster.isa (thread block
clusters: the %cluster_* registers §10, mapa/getctarank across ranks, ld/st/atom/red on
.shared::cluster, barrier.cluster §9.7.13.3, cp.async.bulk.shared::cluster.shared::cta with an
mbarrier §9.7.9.25.4, st.async §9.7.9.12 and red.async §9.7.13.7).

Every expected value is computed here from the ISA text, independently of ptxjit:
- carry chains: each instruction's semantics over bit patterns of its type (".cc" writes the
  carry-out of the unsigned n-bit sum to CC.CF, "addc"/"madc" add CC.CF in, "subc" subtracts
  it as a borrow); multi-word chains are checked against the host's exact multi-word sum,
  difference or product, which holds whatever encoding CC.CF uses for a borrow;
- isspacep: "1 if generic address a falls within the specified state space window"; the
  ".param window is contained within the .global window"; ".shared" is ".shared::cta", and a
  CTA's shared memory is in its cluster's ".shared::cluster" window; whether a .const address
  is in the .global window the text does not say ('*');
- cvta/cvta.to: a generic address and back is the same address, and a generic access through
  it reads the word at that address;
- mapa/getctarank: without a cluster launch a CTA is a cluster of one (rank 0), so mapa to rank
  0 names the same location and getctarank gives 0;
- alloca: "a = max(immAlign, frame_align)", frame_align the minimum guaranteed alignment 8; the
  pointer "points to local memory"; allocations are disjoint; stackrestore sets the stack
  pointer back, so the same allocation after it gets the same pointer;
- clusters: rank R of an N-CTA cluster along x has %cluster_ctarank = %cluster_ctaid.x = R,
  %cluster_nctarank = %cluster_nctaid.x = N, %clusterid.x the cluster's index in the grid;
  mapa(a, t) is the address of a's location in rank t's shared memory, getctarank its rank,
  isspacep.shared::cta is false for another rank's (the executing CTA's window; for mapa to
  the own rank the text is silent: '*'); barrier.cluster.arrive
  (release by default, or .relaxed after a fence) and .wait (acquire) make every rank's earlier
  stores visible to every other rank; atomics on one word from several lanes and ranks end in
  the sum (maximum) whatever their order, their old values then unspecified ('*');
  cp.async.bulk.shared::cluster.shared::cta copies the bytes into the rank dstMem names and
  completes their count on the mbarrier mbar names there; st.async/red.async write (add) one
  word in the rank the address names and complete its bytes on the mbarrier named there.

Run from this directory: python3 gen_scalar.py. Seeded, so the output is stable.
"""
import random

R = random.Random()


def hx(v, bits):
    return "0x%0*x" % (bits // 4, v & ((1 << bits) - 1))


def write(name, head, lines):
    with open(name, "w") as f:
        for h in head:
            f.write("# " + h + "\n" if h else "#\n")
        f.write("# Written by gen_scalar.py; do not edit by hand.\n\n")
        for l in lines:
            f.write(l + "\n")


# ---------------------------------------------------------------- carry chains (§9.7.2)

def rand_word(bits):
    """Random bit patterns with the edges carries live at."""
    m = (1 << bits) - 1
    k = R.randrange(8)
    if k == 0:
        return m
    if k == 1:
        return 0
    if k == 2:
        return 1 << (bits - 1)
    if k == 3:
        return m - R.randrange(4)
    return R.getrandbits(bits)


def signed(v, bits):
    return v - (1 << bits) if v >> (bits - 1) else v


def product(a, b, bits, sign):
    """The full 2n-bit product of a and b (bit patterns), as a 2n-bit pattern."""
    if sign == "s":
        a, b = signed(a, bits), signed(b, bits)
    return (a * b) & ((1 << (2 * bits)) - 1)


def part(t, bits, half):
    return (t >> bits if half == "hi" else t) & ((1 << bits) - 1)


def add_cc(x, y, cin, bits):
    """x + y + cin as n-bit patterns: (sum, carry-out of the unsigned sum)."""
    s = x + y + cin
    return s & ((1 << bits) - 1), s >> bits


def gen_carry():
    R.seed(35)
    out = []
    n_rows = 12
    for sign in ("u", "s"):
        for bits in (32, 64):
            ty = "%s%d" % (sign, bits)
            for half in ("lo", "hi"):
                # mad.cc: d = part(a*b) + c, the carry-out read by addc into e.
                out.append(
                    "# mad.%s.cc.%s: d = %s(a*b) + c, CC.CF its carry-out (read by addc e = 0 + 0 + CF)"
                    % (half, ty, half))
                out.append(
                    ">> mad.%s.cc.%s d, a, b, c; addc.%s e, 0, 0 :: d:%s e:%s <- a:%s b:%s c:%s"
                    % (half, ty, ty, ty, ty, ty, ty, ty))
                for _ in range(n_rows):
                    a, b, c = (rand_word(bits) for _ in range(3))
                    d, cf = add_cc(part(product(a, b, bits, sign), bits, half), c, 0, bits)
                    out.append("%s %s %s -> %s %s" % (hx(a, bits), hx(b, bits), hx(c, bits),
                                                      hx(d, bits), cf))
                for cc in ("", ".cc"):
                    # madc: d = part(a*b) + c + CF (CF from add.cc x = p + q); with .cc the
                    # carry-out of that sum, without it CF as add.cc left it.
                    what = "its carry-out" if cc else "CF unchanged"
                    out.append(
                        "# madc.%s%s.%s: d = %s(a*b) + c + CF (CF from add.cc x = p + q); e = CF after (%s)"
                        % (half, cc, ty, half, what))
                    out.append(
                        ">> add.cc.%s x, p, q; madc.%s%s.%s d, a, b, c; addc.%s e, 0, 0 :: x:%s d:%s e:%s <- p:%s q:%s a:%s b:%s c:%s"
                        % (ty, half, cc, ty, ty, ty, ty, ty, ty, ty, ty, ty, ty))
                    for _ in range(n_rows):
                        p, q, a, b, c = (rand_word(bits) for _ in range(5))
                        x, cf = add_cc(p, q, 0, bits)
                        d, cf2 = add_cc(part(product(a, b, bits, sign), bits, half), c, cf, bits)
                        e = cf2 if cc else cf
                        out.append("%s %s %s %s %s -> %s %s %s" % (
                            hx(p, bits), hx(q, bits), hx(a, bits), hx(b, bits), hx(c, bits),
                            hx(x, bits), hx(d, bits), e))
            # Multi-word sums and differences: three words of a and b, a fourth word for the
            # carry (borrow) out; the host's exact sum (difference) modulo 2^(4n).
            m = (1 << bits) - 1
            for op in ("add", "sub"):
                cont = "addc" if op == "add" else "subc"
                out.append("# %s.cc/%s.cc/%s chain on %s: w3:w2:w1:w0 = a2:a1:a0 %s b2:b1:b0 (mod 2^%d)"
                           % (op, cont, cont, ty, "+" if op == "add" else "-", 4 * bits))
                out.append(
                    ">> %s.cc.%s w0, a0, b0; %s.cc.%s w1, a1, b1; %s.cc.%s w2, a2, b2; %s.%s w3, 0, 0"
                    " :: w0:%s w1:%s w2:%s w3:%s <- a0:%s a1:%s a2:%s b0:%s b1:%s b2:%s"
                    % ((op, ty, cont, ty, cont, ty, cont, ty) + (ty,) * 10))
                for _ in range(n_rows):
                    a = [rand_word(bits) for _ in range(3)]
                    b = [rand_word(bits) for _ in range(3)]
                    A = a[0] | a[1] << bits | a[2] << 2 * bits
                    B = b[0] | b[1] << bits | b[2] << 2 * bits
                    W = (A + B if op == "add" else A - B) & ((1 << 4 * bits) - 1)
                    w = [(W >> (k * bits)) & m for k in range(4)]
                    out.append(" ".join(hx(v, bits) for v in a + b) + " -> " +
                               " ".join(hx(v, bits) for v in w))
        # A two-word by two-word product from mul/mad.cc/madc (the schoolbook chain compilers
        # emit for 128-bit multiplication): the host's exact product.
    for bits in (32, 64):
        ty = "u%d" % bits
        m = (1 << bits) - 1
        out.append("# 2x2-word product on %s: r3:r2:r1:r0 = (a1:a0) * (b1:b0) exactly, t = hi(a0*b0)" % ty)
        chain = ("mul.lo.{t} r0, a0, b0; mul.hi.{t} t, a0, b0; "
                 "mad.lo.cc.{t} r1, a0, b1, t; madc.hi.{t} r2, a0, b1, 0; "
                 "mad.lo.cc.{t} r1, a1, b0, r1; madc.hi.cc.{t} r2, a1, b0, r2; addc.{t} r3, 0, 0; "
                 "mad.lo.cc.{t} r2, a1, b1, r2; madc.hi.{t} r3, a1, b1, r3").format(t=ty)
        out.append(">> %s :: r0:%s r1:%s r2:%s r3:%s t:%s <- a0:%s a1:%s b0:%s b1:%s"
                   % ((chain,) + (ty,) * 9))
        for _ in range(n_rows):
            a0, a1, b0, b1 = (rand_word(bits) for _ in range(4))
            P = (a0 | a1 << bits) * (b0 | b1 << bits)
            r = [(P >> (k * bits)) & m for k in range(4)]
            t = (a0 * b0) >> bits
            out.append(" ".join(hx(v, bits) for v in (a0, a1, b0, b1)) + " -> " +
                       " ".join(hx(v, bits) for v in r + [t]))
    write("carry.isa", [
        "Extended-precision integer arithmetic (PTX ISA §9.7.2): add.cc, addc, sub.cc, subc, mad.cc,",
        "madc on every type, with and without .cc, and the multi-word chains compilers emit;",
        "values computed in gen_scalar.py from each instruction's semantics with seeded random",
        "inputs (edges of the carry: all ones, zero, the sign bit). Hand-written rows of the same",
        "instructions stay in int_arith.isa.",
    ], out)


# ---------------------------------------------------------------- addresses (§9.7.9.19-24)

QUERIES = ["global", "shared", "shared::cta", "shared::cluster", "local", "const", "param",
           "param::entry"]


def isspacep(space, query):
    """§9.7.9.19 for a generic address inside a variable of `space` ('*': the text is silent)."""
    if query == space:
        return "1"
    if query == "global" and space == "param":
        return "1"  # ".param window is contained within the .global window"
    if query == "global" and space == "const":
        return "*"  # no word on whether the .const window is in the .global one
    if space == "shared" and query in ("shared::cta", "shared::cluster"):
        return "1"  # .shared is ::cta; the CTA's shared memory is in its cluster's window
    if space == "param" and query == "param::entry":
        return "1"  # .param is ::entry
    return "0"


def queries(reg):
    names = ["q%d" % k for k in range(len(QUERIES))]
    ptx = "; ".join("isspacep.%s %s, %s" % (q, n, reg) for q, n in zip(QUERIES, names))
    sig = " ".join("%s:pred" % n for n in names)
    return ptx, sig


def gen_address():
    R.seed(36)
    out = []
    qptx, qsig = queries("x")
    words = 16

    def image():
        return [R.getrandbits(32) for _ in range(words)]

    def offsets():
        return [4 * R.randrange(words) for _ in range(32)]

    # A global address: cvta.global to generic, the generic load, cvta.to.global back.
    out.append("# isspacep on a generic address of the global image (cvta.global); the generic load")
    out.append("# reads the word there; cvta.to.global gives the address back (k).")
    out.append(">>> cvta.global.u64 x, g; %s; ld.u32 w, [x]; cvta.to.global.u64 y, x; setp.eq.u64 k, y, g"
               " :: %s w:u32 k:pred <- g:gptr ; global %d ; regs x:u64 y:u64" % (qptx, qsig, 4 * words))
    img = image()
    out.append("case")
    out.append("init 0x0: " + " ".join(hx(v, 32) for v in img))
    for lane, o in enumerate(offsets()):
        out.append("%d: %s -> %s %s 1" % (lane, hex(o), " ".join(isspacep("global", q) for q in QUERIES),
                                          hx(img[o // 4], 32)))
    # A shared address (a 32-bit shared offset widened, then cvta.shared); cvta.to.shared
    # back; mapa to rank 0 and getctarank in a cluster of one.
    out.append("# isspacep on a generic address of the CTA's shared image (cvta.shared.u64 of the 32-bit")
    out.append("# shared address); the generic load; cvta.to.shared back (k); mapa to rank 0 (a CTA")
    out.append("# launched without clusters is a cluster of one) names the same word, generic (w2) and")
    out.append("# .shared::cluster (w3), and getctarank gives rank 0 for both (r, r2).")
    out.append(">>> cvt.u64.u32 x, s; cvta.shared.u64 x, x; %s; ld.u32 w, [x]; cvta.to.shared.u64 y, x;"
               " cvt.u32.u64 z, y; setp.eq.u32 k, z, s; mapa.u64 y, x, 0; ld.u32 w2, [y];"
               " getctarank.u64 r, x; mapa.shared::cluster.u32 z, s, 0; ld.shared::cluster.u32 w3, [z];"
               " getctarank.shared::cluster.u32 r2, z"
               " :: %s w:u32 k:pred w2:u32 w3:u32 r:u32 r2:u32 <- s:sptr ; shared %d ; regs x:u64 y:u64 z:u32"
               % (qptx, qsig, 4 * words))
    img = image()
    out.append("case")
    out.append("init 0x0: " + " ".join(hx(v, 32) for v in img))
    for lane, o in enumerate(offsets()):
        w = hx(img[o // 4], 32)
        out.append("%d: %s -> %s %s 1 %s %s 0 0" % (lane, hex(o), " ".join(isspacep("shared", q) for q in QUERIES),
                                                  w, w, w))
    # A local address: a .local array the lane stores into, then the generic address.
    out.append("# isspacep on a generic address of a .local array (cvta.local); the lane's word stored")
    out.append("# with st.local and read back through the generic address.")
    out.append(">>> .local .align 8 .b8 lbuf[%d]; mov.u64 y, lbuf; add.u64 y, y, o; st.local.u32 [y], v;"
               " cvta.local.u64 x, y; %s; ld.u32 w, [x]; cvta.to.local.u64 z, x; setp.eq.u64 k, z, y"
               " :: %s w:u32 k:pred <- o:u64 v:u32 ; regs x:u64 y:u64 z:u64" % (4 * words, qptx, qsig))
    out.append("case")
    for lane, o in enumerate(offsets()):
        v = R.getrandbits(32)
        out.append("%d: %s %s -> %s %s 1" % (lane, hex(o), hx(v, 32),
                                             " ".join(isspacep("local", q) for q in QUERIES), hx(v, 32)))
    # A const address: a .const array with an initializer.
    img = image()
    out.append("# isspacep on a generic address of a .const array (cvta.const); the generic load reads")
    out.append("# its initializer's word.")
    out.append(">>> .const .align 4 .b32 cbuf[%d] = {%s}; mov.u64 y, cbuf; add.u64 y, y, o;"
               " cvta.const.u64 x, y; %s; ld.u32 w, [x]; cvta.to.const.u64 z, x; setp.eq.u64 k, z, y"
               " :: %s w:u32 k:pred <- o:u64 ; regs x:u64 y:u64 z:u64"
               % (words, ", ".join(hx(v, 32) for v in img), qptx, qsig))
    out.append("case")
    for lane, o in enumerate(offsets()):
        out.append("%d: %s -> %s %s 1" % (lane, hex(o), " ".join(isspacep("const", q) for q in QUERIES),
                                          hx(img[o // 4], 32)))
    # A kernel parameter's address (the table kernel's three .u64 parameters: 24 bytes).
    out.append("# isspacep on a generic address of a kernel parameter (cvta.param; PTX ISA 7.7); the")
    out.append("# generic load of the first parameter equals ld.param's (k).")
    out.append(">>> mov.u64 y, pin; add.u64 y, y, o; cvta.param.u64 x, y; %s; ld.param.u64 a, [pin];"
               " cvta.param.u64 z, pin; ld.u64 b, [z]; setp.eq.u64 k, a, b"
               " :: %s k:pred <- o:u64 ; regs x:u64 y:u64 z:u64 a:u64 b:u64" % (qptx, qsig))
    out.append("case")
    for lane in range(32):
        o = R.randrange(24)
        out.append("%d: %s -> %s 1" % (lane, hex(o), " ".join(isspacep("param", q) for q in QUERIES)))

    # The per-thread stack (§9.7.17). Scalar rows: every output is address-independent.
    scalar = []
    for ty, bits in (("u64", 64),):
        for align in (None, 4, 8, 16):
            a = max(align or 8, 8)  # a = max(immAlign, frame_align), frame_align = 8
            al = "" if align is None else ", %d" % align
            scalar.append("# alloca.%s%s: the pointer is a multiple of max(immAlign, 8) = %d (r = p & %d);"
                          % (ty, al.replace(", ", " align "), a, a - 1))
            scalar.append("# it is a local address (cvta.local, isspacep.local: l); a word stored at its end")
            scalar.append("# with st.local reads back (w); a second allocation q lies outside [p, p+n) (o);")
            scalar.append("# after stackrestore to the stacksave before p, stacksave gives that pointer (s) and")
            scalar.append("# the same allocation gets p again (e).")
            scalar.append(
                ">> stacksave.{t} sp; alloca.{t} p, n{al}; and.b64 r, p, {m}; cvta.local.{t} g, p;"
                " isspacep.local l, g; add.{t} h, p, n; sub.{t} h, h, 4; st.local.u32 [h], v;"
                " alloca.{t} q, n{al}; ld.local.u32 w, [h]; add.{t} h, q, n; setp.le.u64 o, h, p;"
                " add.{t} h, p, n; setp.le.u64 o2, h, q; or.pred o, o, o2; stackrestore.{t} sp;"
                " stacksave.{t} sp2; setp.eq.u64 s, sp2, sp; alloca.{t} q, n{al}; setp.eq.u64 e, q, p"
                " :: r:u64 l:pred w:u32 o:pred s:pred e:pred sp:u64 sp2:u64 p:u64 q:u64 g:u64 h:u64 o2:pred"
                " <- n:u64 v:u32".format(t=ty, al=al, m=a - 1))
            for _ in range(6):
                n = 4 * R.randrange(1, 48)
                v = R.getrandbits(32)
                scalar.append("%d %s -> 0 1 %s 1 1 1 * * * * * * *" % (n, hx(v, 32), hx(v, 32)))
    write("address.isa", [
        "Addresses and state spaces (PTX ISA §9.7.9.19 isspacep, §9.7.9.20 cvta, §9.7.9.23 mapa,",
        "§9.7.9.24 getctarank, §9.7.17 stacksave/stackrestore/alloca): generic addresses of each",
        "state space queried with every isspacep space, converted back with cvta.to, and accessed",
        "through; the per-thread stack's alignment, space, disjoint allocations and reuse after",
        "stackrestore. Values from gen_scalar.py (the rules in its doc string).",
    ], [".target sm_90"] + scalar + out)


def gen_cluster():
    R.seed(37)
    out = []
    words = 32

    def lanes(n, f):
        for r in range(n):
            for l in range(32):
                out.append("%d.%d: %s" % (r, l, f(r, l)))

    for n in (2, 4):
        ncases = 2
        out.append("# The cluster registers in a cluster of %d (cases: clusters 0 and 1 of the grid)." % n)
        out.append(">>> mov.u32 r, %%cluster_ctarank; mov.u32 m, %%cluster_nctarank; mov.u32 x, %%cluster_ctaid.x;"
                   " mov.u32 y, %%cluster_nctaid.x; mov.u32 c, %%clusterid.x; mov.u32 k, %%nclusterid.x;"
                   " mov.pred e, %%is_explicit_cluster :: r:u32 m:u32 x:u32 y:u32 c:u32 k:u32 e:pred <- ; cluster %d" % n)
        for c in range(ncases):
            out.append("case cluster %d" % c)
            lanes(n, lambda r, l: "-> %d %d %d %d %d %d 1" % (r, n, r, n, c, ncases))
    n = 4
    # mapa + ld.shared::cluster / generic loads of another rank's word.
    out.append("# mapa to rank t of a shared address: the .shared::cluster load (w) and the generic one (w2)")
    out.append("# read rank t's word; getctarank gives t (g, g2); a generic address in another rank's shared")
    out.append("# memory is in the .shared::cluster window (c) and in the .shared::cta one only for t = own rank (d).")
    out.append(">>> mapa.shared::cluster.u32 a, s, t; ld.shared::cluster.u32 w, [a]; getctarank.shared::cluster.u32 g, a;"
               " cvt.u64.u32 x, s; cvta.shared.u64 x, x; mapa.u64 y, x, t; ld.u32 w2, [y]; getctarank.u64 g2, y;"
               " isspacep.shared::cluster c, y; isspacep.shared::cta d, y"
               " :: w:u32 g:u32 w2:u32 g2:u32 c:pred d:pred <- s:sptr t:u32 ; shared %d ; cluster %d ; regs a:u32 x:u64 y:u64"
               % (4 * words, n))
    for _ in range(2):
        img = [[R.getrandbits(32) for _ in range(words)] for _ in range(n)]
        out.append("case")
        for r in range(n):
            out.append("init rank %d 0x0: %s" % (r, " ".join(hx(v, 32) for v in img[r])))

        def row(r, l):
            o, t = R.randrange(words), R.randrange(n)
            w = hx(img[t][o], 32)
            # mapa to the own rank: whether that address is in the .shared::cta window the
            # text does not say ('*').
            d = "*" if t == r else "0"
            return "%s %d -> %s %d %s %d 1 %s" % (hex(4 * o), t, w, t, w, t, d)
        lanes(n, row)
    # st.shared::cluster / generic stores into other ranks: distinct words, so any order.
    for form in ("st.shared::cluster.u32 [a], v", "cvta.shared.u64 x, a; st.u32 [x], v"):
        generic = form.startswith("cvta")
        ptx = "mapa.shared::cluster.u32 a, s, t; " + (
            "cvt.u64.u32 x, a; cvta.shared.u64 x, x; st.u32 [x], v" if generic else form)
        out.append("# Each lane stores its word into rank t's shared memory (%s); the words are distinct."
                   % ("a generic store through cvta.shared of the mapa address" if generic else "st.shared::cluster"))
        out.append(">>> %s :: <- s:sptr t:u32 v:u32 ; shared %d ; cluster %d ; regs a:u32 x:u64" % (ptx, 4 * words, n))
        slots = R.sample([(t, o) for t in range(n) for o in range(words)], 32 * n)
        img = [[R.getrandbits(32) for _ in range(words)] for _ in range(n)]
        after = [list(w) for w in img]
        out.append("case")
        for r in range(n):
            out.append("init rank %d 0x0: %s" % (r, " ".join(hx(v, 32) for v in img[r])))
        rows = []
        for r in range(n):
            for l in range(32):
                t, o = slots[32 * r + l]
                v = R.getrandbits(32)
                after[t][o] = v
                rows.append("%d.%d: %s %d %s ->" % (r, l, hex(4 * o), t, hx(v, 32)))
        out.extend(rows)
        for r in range(n):
            out.append("expect rank %d 0x0: %s" % (r, " ".join(hx(v, 32) for v in after[r])))
    # atom/red on .shared::cluster: several lanes of several ranks on one word.
    for op, ptx, has_old in (("add", "atom.shared::cluster.add.u32 d, [a], v", True),
                             ("add", "red.shared::cluster.add.u32 [a], v", False),
                             ("max", "red.shared::cluster.max.u32 [a], v", False),
                             ("min", "atom.shared::cluster.min.u32 d, [a], v", True)):
        out.append("# %s into rank t's words, several lanes and ranks on a word: the word ends as the"
                   " %s of its old value and the operands (old values returned: '*')." % (ptx.split()[0], op))
        outs = "d:u32 " if has_old else ""
        out.append(">>> mapa.shared::cluster.u32 a, s, t; %s :: %s<- s:sptr t:u32 v:u32 ; shared %d ; cluster %d ; regs a:u32"
                   % (ptx, outs, 4 * words, n))
        img = [[R.getrandbits(32) for _ in range(words)] for _ in range(n)]
        after = [list(w) for w in img]
        out.append("case")
        for r in range(n):
            out.append("init rank %d 0x0: %s" % (r, " ".join(hx(v, 32) for v in img[r])))
        for r in range(n):
            for l in range(32):
                t, o = R.randrange(n), R.randrange(8)
                v = R.getrandbits(32) if op != "add" else R.getrandbits(20)
                cur = after[t][o]
                after[t][o] = {"add": (cur + v) & 0xFFFFFFFF, "max": max(cur, v), "min": min(cur, v)}[op]
                out.append("%d.%d: %s %d %s -> %s" % (r, l, hex(4 * o), t, hx(v, 32), "*" if has_old else ""))
        for r in range(n):
            out.append("expect rank %d 0x0: %s" % (r, " ".join(hx(v, 32) for v in after[r])))
    # barrier.cluster: each lane stores its word in its own rank, the cluster barrier, then reads
    # the same word of the next rank.
    for arrive, wait, pre in (("barrier.cluster.arrive", "barrier.cluster.wait", ""),
                              ("barrier.cluster.arrive.aligned", "barrier.cluster.wait.aligned", ""),
                              ("barrier.cluster.arrive.release", "barrier.cluster.wait.acquire", ""),
                              ("barrier.cluster.arrive.relaxed.aligned", "barrier.cluster.wait.aligned",
                               "fence.acq_rel.cluster; ")):
        out.append("# st.shared, %s%s / %s, then the next rank's word through mapa: every rank's store is"
                   " visible." % (pre.replace("; ", " + "), arrive, wait))
        out.append(">>> st.shared.u32 [s], v; %s%s; %s; mov.u32 r, %%cluster_ctarank; add.u32 r, r, 1;"
                   " rem.u32 r, r, %d; mapa.shared::cluster.u32 a, s, r; ld.shared::cluster.u32 w, [a]"
                   " :: w:u32 <- s:sptr v:u32 ; shared %d ; cluster %d ; regs a:u32 r:u32"
                   % (pre, arrive, wait, n, 4 * words, n))
        vals = [[R.getrandbits(32) for _ in range(32)] for _ in range(n)]
        img = [[R.getrandbits(32) for _ in range(words)] for _ in range(n)]
        out.append("case")
        for r in range(n):
            out.append("init rank %d 0x0: %s" % (r, " ".join(hx(v, 32) for v in img[r])))
        lanes(n, lambda r, l: "%s %s -> %s" % (hex(4 * l), hx(vals[r][l], 32), hx(vals[(r + 1) % n][l], 32)))
        for r in range(n):
            out.append("expect rank %d 0x0: %s" % (r, " ".join(hx(v, 32) for v in vals[r])))
    # cp.async.bulk.shared::cluster.shared::cta: lane 0 of each rank copies its bytes at c into
    # the next rank's shared memory at s, completing the transaction on that rank's mbarrier
    # (each rank's lane 0 inits its own with count 1 and arrives with expect_tx; the cluster
    # barrier orders the inits before any copy); every lane waits for its rank's phase 0.
    for n, size in ((2, 64), (4, 48)):
        out.append("# cp.async.bulk.shared::cluster.shared::cta of %d bytes from rank r (at c) to rank r+1 mod %d"
                   " (at s) on rank r+1's mbarrier (init 1, arrive.expect_tx, complete_tx by the copy,"
                   " try_wait.parity 0 loop); the mbarrier's words are its opaque state ('*')" % (size, n))
        out.append(">>> @z mbarrier.init.shared::cta.b64 [m], 1; fence.mbarrier_init.release.cluster;"
                   " barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;"
                   " @z mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], %d; mov.u32 k, %%cluster_ctarank;"
                   " add.u32 k, k, 1; rem.u32 k, k, %d; @z mapa.shared::cluster.u32 d, s, k;"
                   " @z mapa.shared::cluster.u32 b, m, k;"
                   " @z cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [d], [c], %d, [b];"
                   " ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT"
                   " :: p:pred <- z:pred s:sptr c:sptr m:sptr ; shared 256 ; cluster %d ; regs t:b64 k:u32 d:u32 b:u32"
                   % (size, n, size, n))
        img = [[R.getrandbits(32) for _ in range(64)] for _ in range(n)]
        after = [list(w) for w in img]
        for r in range(n):
            k = (r + 1) % n
            after[k][0x80 // 4:0x80 // 4 + size // 4] = img[r][0x40 // 4:0x40 // 4 + size // 4]
        out.append("case lane 0 of each rank copies")
        for r in range(n):
            out.append("init rank %d 0x0: %s" % (r, " ".join(hx(v, 32) for v in img[r])))
        lanes(n, lambda r, l: "%d 0x80 0x40 0x0 -> 1" % int(l == 0))
        for r in range(n):
            out.append("expect rank %d 0x0: * *" % r)
            out.append("expect rank %d 0x8: %s" % (r, " ".join(hx(v, 32) for v in after[r][2:])))
    # st.async / red.async: every lane of rank r writes (adds) one word in rank r+1's shared
    # memory, each completing 4 bytes on that rank's mbarrier, which its lane 0 expects (128).
    n = 2
    for kind in ("st", "red"):
        op = ("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [d], v, [b]" if kind == "st" else
              "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [d], v, [b]")
        out.append("# %s: every lane of rank r into rank r+1 mod %d at s, 4 bytes completed on that rank's mbarrier"
                   " (its lane 0: init 1, arrive.expect_tx 128; every lane: try_wait.parity 0 loop)%s"
                   % (op.split()[0], n, "; several lanes on a word: the sum" if kind == "red" else ""))
        out.append(">>> @z mbarrier.init.shared::cta.b64 [m], 1; fence.mbarrier_init.release.cluster;"
                   " barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;"
                   " @z mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], 128; mov.u32 k, %%cluster_ctarank;"
                   " add.u32 k, k, 1; rem.u32 k, k, %d; mapa.shared::cluster.u32 d, s, k;"
                   " mapa.shared::cluster.u32 b, m, k; %s;"
                   " ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT"
                   " :: p:pred <- z:pred s:sptr v:u32 m:sptr ; shared 256 ; cluster %d ; regs t:b64 k:u32 d:u32 b:u32"
                   % (n, op, n))
        img = [[R.getrandbits(32) for _ in range(64)] for _ in range(n)]
        after = [list(w) for w in img]
        rows = []
        for r in range(n):
            k = (r + 1) % n
            for l in range(32):
                o = 0x40 // 4 + (l if kind == "st" else R.randrange(8))
                v = R.getrandbits(32)
                after[k][o] = v if kind == "st" else (after[k][o] + v) & 0xFFFFFFFF
                rows.append("%d.%d: %d %s %s 0x0 -> 1" % (r, l, int(l == 0), hex(4 * o), hx(v, 32)))
        out.append("case")
        for r in range(n):
            out.append("init rank %d 0x0: %s" % (r, " ".join(hx(v, 32) for v in img[r])))
        out.extend(rows)
        for r in range(n):
            out.append("expect rank %d 0x0: * *" % r)
            out.append("expect rank %d 0x8: %s" % (r, " ".join(hx(v, 32) for v in after[r][2:])))
    write("cluster.isa", [
        "Thread block clusters (a '; cluster N' clause: each case a cluster of N one-warp CTAs, rows",
        "'R.L:' for rank R's lane L, images per rank): the cluster special registers (PTX ISA §10),",
        "mapa/getctarank (§9.7.9.23-24) and isspacep across ranks, ld/st/atom/red on .shared::cluster",
        "addresses of other ranks, barrier.cluster.arrive/wait (§9.7.13.3) with .aligned, .release/",
        ".acquire and .relaxed, cp.async.bulk.shared::cluster.shared::cta, st.async and red.async",
        "into another rank on its mbarrier. Values from gen_scalar.py (the rules in its doc string).",
    ], [".target sm_90"] + out)


def gen_misc():
    R.seed(38)
    out = []
    # brx.idx: the index'th label of the .branchtargets list (divergent across lanes in the
    # one-thread-per-row run).
    out.append("# brx.idx i, list: a branch to the i-th label of the .branchtargets list; each target sets d")
    out.append(">> ISA_TS: .branchtargets ISA_L0, ISA_L1, ISA_L2, ISA_L3; brx.idx i, ISA_TS; ISA_L0: add.u32 d, a, 100;"
               " bra ISA_E; ISA_L1: sub.u32 d, a, 7; bra ISA_E; ISA_L2: xor.b32 d, a, 0xff; bra ISA_E;"
               " ISA_L3: mov.u32 d, 3; ISA_E: add.u32 d, d, 0 :: d:u32 <- i:u32 a:u32")
    for _ in range(16):
        i, a = R.randrange(4), R.getrandbits(16)
        d = [(a + 100) & 0xFFFFFFFF, (a - 7) & 0xFFFFFFFF, a ^ 0xFF, 3][i]
        out.append("%d %d -> %d" % (i, a, d))
    out.append("# nanosleep t: a hint; the code after it runs as usual")
    out.append(">> nanosleep.u32 t; add.u32 d, a, 1 :: d:u32 <- t:u32 a:u32")
    for _ in range(4):
        t, a = R.randrange(1000), R.getrandbits(31)
        out.append("%d %d -> %d" % (t, a, a + 1))
    # st.bulk: size bytes of zeros at a (8-byte aligned), nothing else written.
    for form, size_in in (("st.bulk.weak.shared::cta [s], 64, 0", False),
                          ("st.bulk.shared::cta [s], n, 0", True),
                          ("cvt.u64.u32 x, s; cvta.shared.u64 x, x; st.bulk.weak [x], 32, 0", False)):
        out.append("# %s: zeros from the address on (8-byte aligned, a multiple of 8 bytes), nothing else written" % form)
        ins = "s:sptr n:u64" if size_in else "s:sptr"
        out.append(">>> %s :: <- %s ; shared 256 ; regs x:u64" % (form, ins))
        for _ in range(2):
            img = [R.getrandbits(32) for _ in range(64)]
            size = 8 * R.randrange(1, 16) if size_in else (64 if "64," in form else 32)
            o = 8 * R.randrange(0, (256 - size) // 8 + 1)
            after = list(img)
            for w in range(o // 4, (o + size) // 4):
                after[w] = 0
            out.append("case lane 0 alone")
            out.append("init 0x0: " + " ".join(hx(v, 32) for v in img))
            out.append("0: %s%s ->" % (hex(o), " %d" % size if size_in else ""))
            out.append("expect 0x0: " + " ".join(hx(v, 32) for v in after))
    # Hints on global memory: prefetch, prefetchu, applypriority, cp.async.bulk.prefetch change
    # no byte; discard.global.L2 makes its 128-byte line's bytes indeterminate ('*') and no other.
    out.append("# prefetch.global.L2, prefetchu.L1, applypriority.global.L2::evict_normal (128-byte line),")
    out.append("# cp.async.bulk.prefetch.L2.global: hints that change no byte; the load after them reads the word")
    out.append(">>> prefetch.global.L2 [g]; prefetchu.L1 [g]; applypriority.global.L2::evict_normal [h], 128;"
               " cp.async.bulk.prefetch.L2.global [h], 64; ld.global.u32 w, [g] :: w:u32 <- g:gptr h:gptr ; global 512")
    img = [R.getrandbits(32) for _ in range(128)]
    out.append("case")
    out.append("init 0x0: " + " ".join(hx(v, 32) for v in img))
    for lane in range(32):
        o, h = 4 * R.randrange(128), 128 * R.randrange(4)
        out.append("%d: %s %s -> %s" % (lane, hex(o), hex(h), hx(img[o // 4], 32)))
    out.append("# discard.global.L2 [h], 128: the line's bytes become indeterminate ('*'); every other byte stays")
    out.append(">>> discard.global.L2 [h], 128 :: <- h:gptr ; global 512")
    img = [R.getrandbits(32) for _ in range(128)]
    h = 128 * R.randrange(4)
    after = ["*" if h // 4 <= k < h // 4 + 32 else hx(v, 32) for k, v in enumerate(img)]
    out.append("case lane 0 alone")
    out.append("init 0x0: " + " ".join(hx(v, 32) for v in img))
    out.append("0: %s ->" % hex(h))
    out.append("expect 0x0: " + " ".join(after))
    write("misc.isa", [
        "Control and memory hints (PTX ISA §9.7.12.4 brx.idx, §9.7.19.2 nanosleep, §9.7.9.13 st.bulk,",
        "§9.7.9.15-17 prefetch/prefetchu, applypriority, discard, §9.7.9.25.4.3 cp.async.bulk.prefetch):",
        "the branch taken, the zeros written, and that hints change no byte. Values from gen_scalar.py.",
    ], [".target sm_100"] + out)


def swizzle(off, mode):
    """§5.5.7: the 16-byte chunk index (bits 4..) XORed with the 128-byte row index within the
    pattern (bits 7..), 1, 2 or 3 bits for the 32B, 64B and 128B swizzles (mode 1, 2, 3)."""
    mask = (1 << mode) - 1
    return off ^ (((off >> 7) & mask) << 4)


def box_elems(dims, boxes, coords):
    """The box's elements in shared-memory order (dimension 0 innermost): (flat tensor index or
    None when out of bounds)."""
    out = []
    idx = [0] * len(dims)
    total = 1
    for b in boxes:
        total *= b
    for k in range(total):
        rem = k
        flat, stride, inside = 0, 1, True
        for d in range(len(dims)):
            i = rem % boxes[d]
            rem //= boxes[d]
            c = coords[d] + i
            if not 0 <= c < dims[d]:
                inside = False
            flat += c * stride
            stride *= dims[d]
        out.append(flat if inside else None)
    return out


def gen_tensor():
    R.seed(39)
    out = []
    groups = [  # (dims, box, swizzle mode)
        ((40,), (16,), 0),
        ((20, 12), (4, 8), 0),
        ((24, 12), (8, 8), 1),
        ((24, 12), (16, 8), 2),
        ((40, 12), (32, 8), 3),
        ((12, 6, 4), (4, 4, 2), 0),
        ((8, 5, 4, 3), (4, 2, 2, 2), 0),
        ((4, 3, 3, 2, 2), (4, 2, 2, 2, 2), 0),
    ]
    sw_name = {0: "none", 1: "32", 2: "64", 3: "128"}
    for dims, boxes, mode in groups:
        rank = len(dims)
        n = 1
        for d in dims:
            n *= d
        nbox = 1
        for b in boxes:
            nbox *= b
        box_bytes = 4 * nbox
        shared = box_bytes + 128  # the box, then the mbarrier
        clause = "tensormap dims=%s box=%s swizzle=%s elem=u32" % (
            ",".join(map(str, dims)), ",".join(map(str, boxes)), sw_name[mode])
        coords = ", ".join("c%d" % d for d in range(rank))
        cin = " ".join("c%d:s32" % d for d in range(rank))
        # Load: global -> shared, out-of-bound elements zero.
        out.append("# cp.async.bulk.tensor.%dd tile load of a %s box of a %s u32 tensor, swizzle %s: the box"
                   " row-major at s (16-byte chunks swizzled), out-of-bound elements 0; mbarrier words '*'"
                   % (rank, "x".join(map(str, boxes)), "x".join(map(str, dims)), sw_name[mode]))
        out.append(">>> mbarrier.init.shared::cta.b64 [m], 1; mbarrier.arrive.expect_tx.shared::cta.b64 t, [m], %d;"
                   " cp.async.bulk.tensor.%dd.shared::cluster.global.tile.mbarrier::complete_tx::bytes [s], [tm, {%s}], [m];"
                   " ISA_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [m], 0; @!p bra ISA_WAIT"
                   " :: p:pred <- s:sptr tm:tmap %s m:sptr ; shared %d ; global %d ; %s ; regs t:b64"
                   % (box_bytes, rank, coords, cin, shared, 4 * n, clause))
        for case in range(4):
            g = [R.getrandbits(32) for _ in range(n)]
            sm = [R.getrandbits(32) for _ in range(shared // 4)]
            if case == 0:
                c = [0] * rank
            elif case == 1:
                c = [d - b // 2 for d, b in zip(dims, boxes)]  # past the far edges
            elif case == 2:
                c = [-(b // 2) for b in boxes]  # before the near edges
            else:
                c = [R.randrange(-b, d) for d, b in zip(dims, boxes)]
            after = list(sm)
            for k, flat in enumerate(box_elems(dims, boxes, c)):
                after[swizzle(4 * k, mode) // 4] = 0 if flat is None else g[flat]
            out.append("case coordinates %s" % ",".join(map(str, c)))
            out.append("init global 0x0: " + " ".join(hx(v, 32) for v in g))
            out.append("init shared 0x0: " + " ".join(hx(v, 32) for v in sm))
            out.append("0: 0x0 0x0 %s %s -> 1" % (" ".join(map(str, c)), hex(box_bytes)))
            out.append("expect shared 0x0: " + " ".join(hx(v, 32) for v in after[:nbox]))
            out.append("expect shared %s: * *" % hex(box_bytes))
        if rank != 2:
            continue
        # Store and reduction: shared -> global, in-bound elements only.
        for red in (None, "add", "min", "max"):
            if red is None:
                op = "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tm, {%s}], [s]" % coords
                what = "tile store"
            else:
                op = "cp.reduce.async.bulk.tensor.2d.global.shared::cta.%s.tile.bulk_group [tm, {%s}], [s]" % (red, coords)
                what = ".%s reduction" % red
            out.append("# cp%s.async.bulk.tensor.2d %s of a %s box (swizzle %s): in-bound elements written%s,"
                       " the others not" % (".reduce" if red else "", what, "x".join(map(str, boxes)),
                                            sw_name[mode], " (combined with .%s.u32)" % red if red else ""))
            out.append(">>> %s; cp.async.bulk.commit_group; cp.async.bulk.wait_group 0"
                       " :: <- s:sptr tm:tmap %s ; shared %d ; global %d ; %s" % (op, cin, box_bytes, 4 * n, clause))
            for case in range(2):
                g = [R.getrandbits(32) for _ in range(n)]
                sm = [R.getrandbits(32) for _ in range(nbox)]
                c = [R.randrange(-b, d) for d, b in zip(dims, boxes)] if case else [1, 2]
                after = list(g)
                for k, flat in enumerate(box_elems(dims, boxes, c)):
                    if flat is None:
                        continue
                    v = sm[swizzle(4 * k, mode) // 4]
                    after[flat] = {None: v, "add": (after[flat] + v) & 0xFFFFFFFF,
                                   "min": min(after[flat], v), "max": max(after[flat], v)}[red]
                out.append("case coordinates %s" % ",".join(map(str, c)))
                out.append("init global 0x0: " + " ".join(hx(v, 32) for v in g))
                out.append("init shared 0x0: " + " ".join(hx(v, 32) for v in sm))
                out.append("0: 0x0 0x0 %s ->" % " ".join(map(str, c)))
                out.append("expect global 0x0: " + " ".join(hx(v, 32) for v in after))
    write("tensor.isa", [
        "Tensor-map copies (PTX ISA §9.7.9.25.5 cp.async.bulk.tensor, cp.reduce.async.bulk.tensor):",
        "a '; tensormap' clause describes the case's global image as a packed u32 tensor, the map",
        "encoded by the host API's cuTensorMapEncodeTiled; 1D-5D tile loads (out-of-bound elements",
        "zero, every swizzle), 2D stores and .add/.min/.max reductions (in-bound elements only).",
        "Values from gen_scalar.py: the box's elements in order, dimension 0 innermost, and the",
        "swizzle of §5.5.7 (16-byte chunk bits 4.. XORed with 128-byte row bits 7..).",
    ], [".target sm_90"] + out)


if __name__ == "__main__":
    gen_carry()
    gen_address()
    gen_cluster()
    gen_misc()
    gen_tensor()
