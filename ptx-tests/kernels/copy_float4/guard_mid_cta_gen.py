"""Input and expected output of guard_mid_cta.toml: copy_float4 (out[i] = in[i] for i < n) with
n = 900 on 4 CTAs of 256 threads over buffers of 1024 float4, so every access of every thread
is in bounds but the guard `i < n` cuts the last CTA (threads i = 768..1023) inside its warp 4
(i = 896..927): out[i] = in[i] for i < 900, the fill -1 from 900 on. in[k] = k * 0.5 - 300
(exact in f32). Plain Python (writes .npy); run from this directory."""
import struct


def save(name, vals):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(vals)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(name, "wb") as fh:
        fh.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        fh.write(struct.pack("<%df" % len(vals), *vals))


N, CUT, F4 = 1024, 900, 4
x = [k * 0.5 - 300.0 for k in range(N * F4)]
out = x[:CUT * F4] + [-1.0] * ((N - CUT) * F4)
save("guard_mid_cta_in.npy", x)
save("guard_mid_cta_out.npy", out)
