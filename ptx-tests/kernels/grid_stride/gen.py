#!/usr/bin/env python3
"""Writes grid_stride's cases with their expected values, computed here on the host (a
thread at a time: the loop has no cross-lane effects). in[j] = j + 1 (the case's iota), so
every sum is an exact integer in f32."""


def thread(gid, stride, n):
    total, trips, i = 0, 0, gid
    while i < n:
        total += i + 1
        trips += 1
        i += stride
    assert total < 2**24
    return float(total), trips


def case(name, grid, block, n, length, comment, extra=""):
    stride = grid * block
    sums, trips = [], []
    for gid in range(stride):
        s, t = thread(gid, stride, n)
        sums.append(s)
        trips.append(t)
    fmt = lambda xs: ", ".join(repr(x) for x in xs)
    text = f"""# {comment}
# Expected values from gen.py (host arithmetic).
ptx = "grid_stride.ptx"
kernel = "grid_stride"
grid = [{grid}, 1, 1]
block = [{block}, 1, 1]
args = [{{ buffer = "in" }}, {{ buffer = "sum" }}, {{ buffer = "trips" }}, {{ u32 = {n} }}]
{extra}
[buffers.in]
type = "f32"
len = {length}
init = {{ iota = {{ start = 1, step = 1 }} }}

[buffers.sum]
type = "f32"
len = {stride}

[buffers.trips]
type = "u32"
len = {stride}

[expect.sum]
values = [{fmt(sums)}]
tolerance = "exact"

[expect.trips]
values = [{fmt(trips)}]
tolerance = "exact"
"""
    with open(f"{name}.toml", "w") as f:
        f.write(text)


case("grid_stride", 4, 64, 4 * 64 * 5, 4 * 64 * 5,
     "Every lane takes 5 trips: each trip's exit test goes one way for the whole warp.")
case("grid_stride_ragged", 3, 80, 1000, 1000,
     "n = 1000, not a multiple of the warp nor of the stride 240: lanes take 4 or 5 trips, a "
     "warp's last trip splits (gid 32..39 go on, 40..63 leave), and each CTA's last warp is "
     "partial (80 threads).")
case("grid_stride_lockstep", 3, 80, 1000, 1000,
     "grid_stride_ragged in lockstep order.", "lockstep = true\n")
case("grid_stride_long", 2, 96, 192 * 40 + 45, 192 * 40 + 45,
     "n = 7725 over 192 threads (three full warps per CTA): every lane takes 40 trips in which "
     "the whole warp stays (the JIT runs them in its decided loop, with the sums and trip "
     "counters in registers), gid 0..44 a 41st: warp 1's last trip splits (gid 32..44 go on, "
     "45..63 leave); n is not a multiple of 32.")
case("grid_stride_small", 2, 48, 70, 70,
     "n = 70 below the 96 threads: most lanes take no trip, some one; partial warps.")

def fault_case(name, heading, grid, block, n, length, contains, memcheck=True):
    """Writes a case in which the loop reads past `in` (`length` elements): `heading` is its
    comment lines, `contains` the fault report's expected text."""
    stride = grid * block
    comment = "".join(f"# {line}\n" for line in heading)
    mc = "memcheck = true\n" if memcheck else ""
    with open(f"{name}.toml", "w") as f:
        f.write(f"""{comment}ptx = "grid_stride.ptx"
kernel = "grid_stride"
grid = [{grid}, 1, 1]
block = [{block}, 1, 1]
args = [{{ buffer = "in" }}, {{ buffer = "sum" }}, {{ buffer = "trips" }}, {{ u32 = {n} }}]

[buffers.in]
type = "f32"
len = {length}
init = {{ iota = {{ start = 1, step = 1 }} }}

[buffers.sum]
type = "f32"
len = {stride}

[buffers.trips]
type = "u32"
len = {stride}

[expect_error]
kind = "fault"
contains = "{contains}"
{mc}""")


# A fault inside the loop: n = 1001 reads in[1000], one element past the buffer, once: thread
# gid 1000 mod 240 = 40 (CTA 0, thread 40) in its fifth trip, when its warp's lanes 0..8 are
# left in the loop and all of them leave after it.
fault_case("grid_stride_fault", [
    "n = 1001 over a 1000-element buffer: thread 40 of CTA 0 reads one element past its end",
    "in its fifth trip (1000 mod 240 = 40), the only access out of bounds.",
], 3, 80, 1001, 1000, "by CTA (0,0,0) thread (40,0,0)")

# A fault in a trip every lane of the warp stays for: n = 2000 over a 980-element buffer, so
# warp 0 of CTA 0 (which runs first) reads past the end first, in its fifth trip (index
# gid + 960), lanes 20..31; every lane's next index (gid + 1200) is below n.
fault_case("grid_stride_fault_stay", [
    "n = 2000 over a 980-element buffer: CTA 0's warp 0 runs first and reads past the end",
    "first, lanes 20 to 31 in their fifth trip (index gid + 960), a trip all of its lanes stay",
    "in the loop after (gid + 1200 < 2000): thread 20 is named.",
], 3, 80, 2000, 980, "by CTA (0,0,0) thread (20,0,0)")

# A fault after trips of the decided loop, without memcheck: n = 4 000 000 over a 980-element
# buffer, so every lane runs on past the buffers (reads that stay in the arena are no fault
# without memcheck) until its address leaves the arena. Where the arena ends depends on the
# allocator, so the case names no thread: tests/loop_regions.rs checks that both engines
# report the same thread, CTA and address at the load's line.
fault_case("grid_stride_fault_loop", [
    "n = 4000000 over a 980-element buffer, without memcheck: the lanes read on past the",
    "buffers, through trips the whole warp stays in, until an address leaves the arena.",
], 3, 96, 4000000, 980,
   "grid_stride.ptx:41:2: fault in kernel 'grid_stride': out of bounds", memcheck=False)
