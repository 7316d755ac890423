# Host reference for atomic_ops.toml: applies each thread's atomics one after another in
# Python (the final values do not depend on the order), from the CUDA semantics of each
# atomic function. Prints the [expect.*] values.
M32, M64 = (1 << 32) - 1, (1 << 64) - 1
CTAS, THREADS = 64, 96
INIT32 = [0, M32, 0, 0, 5, 0, 0xFFFFFC18, M32, 0, 0, 0, 500, 1000000, 0, 0, 0]
INIT64 = [0, M64, 0, 0, 5, 0, 0xFFFFFF0000000000, M64, 0, 0, 0, 0, 0, 0, 0, 0]

def s(x, bits):  # as signed
    return x - (1 << bits) if x >> (bits - 1) else x

def ops32(c, t):
    seen = 0
    c[0] = (c[0] + t + 1) & M32
    c[1] &= ~(1 << (t % 16)) & M32
    c[2] |= 1 << (t % 24)
    c[3] ^= (t * 0x9E3779B9) & M32
    old, c[4] = c[4], 77
    seen += old == 5
    c[5] = min(s(c[5], 32), t - 50) & M32
    c[6] = max(s(c[6], 32), t - 50) & M32
    c[7] = min(c[7], t + 1000)
    c[8] = max(c[8], t * 3)
    c[9] = (c[9] + 3) & M32
    c[10] = 0 if c[10] >= 100 else c[10] + 1
    c[11] = 1000 if c[11] == 0 or c[11] > 1000 else c[11] - 1
    c[12] = (c[12] - 2) & M32
    return seen

def ops64(c, t):
    seen = 0
    c[0] = (c[0] + ((t + 1) << 20)) & M64
    c[1] &= ~(1 << (t % 40)) & M64
    c[2] |= 1 << (t % 48 + 8)
    c[3] ^= (t * 0x9E3779B97F4A7C15) & M64
    old, c[4] = c[4], 0x1234567890
    seen += old == 5
    c[5] = min(s(c[5], 64), (t - 50) * 2**32) & M64
    c[6] = max(s(c[6], 64), (t - 50) * 2**32) & M64
    c[7] = min(c[7], t + 0x100000000)
    c[8] = max(c[8], t << 33)
    c[9] = (c[9] + 0x300000000) & M64
    return seen

g32, g64, seen = INIT32[:], INIT64[:], [0, 0, 0, 0]
s32, s64 = [0] * 16, [0] * 16
for i in range(CTAS * THREADS):
    seen[0] += ops32(g32, i)
    seen[1] += ops64(g64, i)
for c in range(CTAS):
    a, b = INIT32[:], INIT64[:]
    for t in range(THREADS):
        seen[2] += ops32(a, t)
        seen[3] += ops64(b, t)
    s32 = [(x + y) & M32 for x, y in zip(s32, a)]
    s64 = [(x + y) & M64 for x, y in zip(s64, b)]
def fmt(v, wide):
    return "[" + ", ".join(f'"0x{x:X}"' if wide else str(x) for x in v) + "]"

for name, v, wide in [("g32", g32, 0), ("g64", g64, 1), ("s32", s32, 0), ("s64", s64, 1),
                      ("seen", seen, 0)]:
    print(f"[expect.{name}]\nvalues = {fmt(v, wide)}\n")
