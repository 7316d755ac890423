"""Expected `out` of fault_mid_batch_count.toml, computed on the host (plain Python, writes .npy).

fault_mid_batch.cu on a 14 x 18 grid of 256-thread CTAs (8 warps each): only CTA (13, 17),
the last one (linear 251), has faulting threads, 40..255: lanes 8..31 of warp 1 and every
lane of warps 2..7. Every other thread stores in[0] + i = 5 + i to out[i] (i = cta * 256 +
tid). The CTAs before the faulting one run to the end. In CTA 251, warp 0 and lanes 0..7 of
warp 1 store 5 + i; the faulting loads of lanes 8..31 do nothing and yield 0 (the block
still runs for all its lanes), so those lanes store 0 + i; the CTA stops at the end of that
block, so warps 2..7 never start and their elements keep the buffer's fill, 0xFFFFFFFF. The
count in the report is therefore 24 threads, not 216.
"""
import struct

CTAS, NTID, FAULT_CTA, FILL = 14 * 18, 256, 17 * 14 + 13, 0xFFFFFFFF
out = []
for cta in range(CTAS):
    for tid in range(NTID):
        i = cta * NTID + tid
        if cta != FAULT_CTA or tid < 40:
            out.append(5 + i)
        elif tid < 64:
            out.append(i)
        else:
            out.append(FILL)

header = "{'descr': '<u4', 'fortran_order': False, 'shape': (%d,), }" % len(out)
pad = 64 - (10 + len(header) + 1) % 64
header = header + " " * pad + "\n"
with open("fault_mid_batch_count_out.npy", "wb") as fh:
    fh.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    fh.write(struct.pack("<%dI" % len(out), *out))
