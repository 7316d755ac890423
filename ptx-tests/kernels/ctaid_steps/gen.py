# Expected values of ctaid_steps.toml (host reference of ctaid_steps.ptx, PTX ISA §10.5:
# CTAs numbered x fastest, then y, then z).
NX, NY, NZ, B = 5, 3, 7, 48
out = [0] * (NX * NY * NZ * B)
for z in range(NZ):
    for y in range(NY):
        for x in range(NX):
            lin = (z * NY + y) * NX + x
            for t in range(B):
                out[lin * B + t] = x + 100 * y + 10000 * z + (B - 1 - t)
print('''# %ctaid on a 3-D grid of 5 x 3 x 7 CTAs (dimensions not powers of two) in a kernel with a
# barrier: the general worker steps %ctaid from each CTA to the next of its run (x fastest,
# carried into y and z) instead of dividing the linear index. Every CTA writes its 48 slots
# (x + 100 y + 10000 z + 47 - t, exchanged through shared memory across the barrier) at its
# own linear index, so a wrong %ctaid writes wrong values or the wrong slots. Expected values
# from gen.py (host reference).
ptx = "ctaid_steps.ptx"
kernel = "ctaid_steps"
grid = [5, 3, 7]
block = [48]
args = [{ buffer = "out" }]

[buffers.out]
type = "u32"
len = ''' + str(len(out)) + '''
init = { fill = 4294967295 }

[expect.out]
values = ''' + str(out))
