#!/usr/bin/env python3
"""Host reference for printf.cu: the expected stdout of one CTA of 40 threads (warp 0 then
warp 1, each in lane order), formatted with Python's %-operator, which follows C's printf for
these conversions. Writes printf_expected.txt."""
lines = []
n = 40
for t in range(n):
    if t % 4 == 1:
        lines.append("t=%d x=%.2f hex=%#06x s=%s" % (t, t * 0.25, t * 17, "lo" if t < 8 else "hi"))
    if t == 39:
        lines.append("%5.1e|%-6u|%d|%c|%g" % (12345.0, 7, -5 * t, chr(ord('A') + t % 26), 0.0001 * t))
with open("printf_expected.txt", "w") as f:
    f.write("\n".join(lines) + "\n")
