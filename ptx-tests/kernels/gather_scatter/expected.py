# Host reference for gather_scatter.toml: writes the inputs (*.bin, raw little-endian) from a
# fixed xorshift generator and the expected outputs (*_expected.bin) from the kernel's C++
# semantics (unsigned 32/64-bit wrap-around; the float sums are exact for these inputs).
import struct

N = 1000
M32, M64 = (1 << 32) - 1, (1 << 64) - 1
state = 0x2545F4914F6CDD1D

def rnd():
    global state
    state ^= (state << 13) & M64
    state ^= state >> 7
    state ^= (state << 17) & M64
    return state

b8 = [rnd() & 0xFF for _ in range(N)]
b16 = [rnd() & 0xFFFF for _ in range(N)]
b32 = [rnd() & M32 for _ in range(N)]
b64 = [rnd() for _ in range(N)]
f32 = [(rnd() % 1000) / 4 for _ in range(N)]
f64 = [(rnd() % 1000) / 8 for _ in range(N)]
out, out64, s8, s16, sf64 = [0] * N, [0] * N, [0] * N, [0] * N, [0.0] * N
for i in range(N):
    p, q = (i * 37 + 11) % N, i // 4
    acc = b8[i] + 3 * b16[i] + 5 * b32[i]
    acc += 7 * b8[p] + 11 * b16[p] + 13 * b32[p]
    acc += 17 * b8[q] + 19 * b16[q] + 23 * b32[q]
    acc += int(f32[p] * 2.0)
    w = b64[i] ^ ((b64[p] << 1) & M64) ^ ((b64[q] << 2) & M64)
    d = f64[p] + f64[q] * 0.5
    if i % 3 != 0:
        acc += 29 * b8[p] + b16[(p + 1) % N]
        w = (w + b64[(p + 5) % N]) & M64
    acc &= M32
    out[p], out64[p], s8[p], s16[p], sf64[p] = acc, w, (acc >> 3) & 0xFF, (acc >> 5) & 0xFFFF, d

def write(name, fmt, vals):
    with open(name, "wb") as f:
        f.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))

for name, fmt, v in [("b8.bin", "B", b8), ("b16.bin", "H", b16), ("b32.bin", "I", b32),
                     ("b64.bin", "Q", b64), ("f32.bin", "f", f32), ("f64.bin", "d", f64),
                     ("out_expected.bin", "I", out), ("out64_expected.bin", "Q", out64),
                     ("s8_expected.bin", "B", s8), ("s16_expected.bin", "H", s16),
                     ("sf64_expected.bin", "d", sf64)]:
    write(name, fmt, v)
