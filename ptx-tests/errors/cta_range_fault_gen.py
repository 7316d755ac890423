"""Inputs and expected outputs of cta_range_load_fault.toml and cta_range_store_fault.toml,
computed on the host (plain Python, writes .npy).

Both run copy_float4.cu (out[i] = in[i], float4, i = blockIdx.x * 256 + threadIdx.x, i < n) on 3
CTAs of 256 threads (8 warps each) with n = 768, where one buffer ends at float4 element 608:
the 608 float4 of that buffer are 9728 bytes, a multiple of the 256-byte allocation alignment,
and it is allocated last, so the accessible arena ends exactly there. In CTA 2, the grid's last
(threads i = 512..767), warps 0..2 (i = 512..607) are in bounds, every lane of warp 3 (i =
608..639) is past the end, and so are warps 4..7. CTA 2's range as a whole is therefore out of
bounds while its first three warps are not.

- load fault: `out` (768 float4, first) and `in` (608 float4, last). Warps 0..2 of CTA 2 copy;
  warp 3's loads fault (32 threads) and yield 0, its stores still run (out[608..639] = 0); the
  CTA stops after that warp's block, so warps 4..7 never start and out[640..767] keep the
  fill, -1.
- store fault: `in` (768 float4, first) and `out` (608 float4, last). Warps 0..2 of CTA 2 copy;
  warp 3's stores fault (32 threads) and do nothing.

CTAs 0 and 1 copy in full in both. in[k] = k * 0.25 - 100 (exact in f32).
"""
import struct


def save(name, vals):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(vals)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(name, "wb") as fh:
        fh.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        fh.write(struct.pack("<%df" % len(vals), *vals))


def src(n):
    return [k * 0.25 - 100.0 for k in range(n)]


F4, TOP, N = 4, 608, 768
# Load fault: in has TOP float4, out N float4.
inp = src(TOP * F4)
out = []
for i in range(N):
    if i < TOP:
        out += inp[i * F4:(i + 1) * F4]
    elif i < 640:
        out += [0.0] * F4
    else:
        out += [-1.0] * F4
save("cta_range_load_fault_in.npy", inp)
save("cta_range_load_fault_out.npy", out)
# Store fault: in has N float4, out TOP float4.
inp = src(N * F4)
save("cta_range_store_fault_in.npy", inp)
save("cta_range_store_fault_out.npy", inp[:TOP * F4])
