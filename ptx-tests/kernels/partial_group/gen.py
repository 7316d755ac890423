# Expected values of partial_group.toml (host reference of partial_group.ptx).
G, B = 3, 64
out8, out16, out32, out64 = [238] * (G * B), [61166] * (G * B), [4008636142] * (G * B), [1076060070966390510] * (G * B)
for c in range(G):
    s8, s16, s32, s64 = [170] * B, [7] * B, [t + 1000 for t in range(B)], [5] * B
    for t in range(B):
        if t % 3 == 1:
            r = 63 - t
            s8[r] = (t * 5 + c) & 0xFF
            s16[r] = (t * 300 + c) & 0xFFFF
            s32[(t * 7) % 64] = (t * 100000 + c) & 0xFFFFFFFF
            s64[r] = (t << 33) + c
    for t in range(B):
        if t % 5 != 2:
            i = c * B + t
            out8[i], out16[i], out32[i], out64[i] = s8[t], s16[t], s32[t], s64[t]
def emit(name, ty, fill, v):
    print(f'\n[buffers.{name}]\ntype = "{ty}"\nlen = {G * B}\ninit = {{ fill = {fill} }}\n\n[expect.{name}]\nvalues = {v}')
hdr = '''# Partial groups of four lanes (tid % 3 == 1 stores, tid % 5 != 2 loads) accessing shared
# memory by .shared and generic addresses, 1/2/4/8 bytes, reversed and permuted slots, and
# storing to global memory: the JIT's per-lane group path (`group_access_helper`) and its
# direct copies for this CTA's shared memory and the global arena. Lanes that do not store
# leave the fill value. Expected values from gen.py (host reference).
ptx = "partial_group.ptx"
kernel = "partial_group"
grid = [3]
block = [64]
args = [{ buffer = "out8" }, { buffer = "out16" }, { buffer = "out32" }, { buffer = "out64" }]'''
print(hdr)
emit('out8', 'u8', 238, out8)
emit('out16', 'u16', 61166, out16)
emit('out32', 'u32', 4008636142, out32)
emit('out64', 'u64', 1076060070966390510, out64)
