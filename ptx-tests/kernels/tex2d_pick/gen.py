"""Inputs and host-computed expected outputs of tex2d_pick.toml (run with numpy).

Two 4x4 one-channel f32 textures of different values, point filtering, clamp, texel
coordinates at texel centres; thread i samples texture a (even i) or b (odd i) at
(xs[i], ys[i]). tex2D<float4> of a one-channel texture gives (v, 0, 0, 1).
"""
import numpy as np

W, H, N = 4, 4, 128
a = np.arange(1, W * H + 1, dtype=np.float32)  # 1 .. 16
b = np.arange(101, 101 + W * H, dtype=np.float32)  # 101 .. 116
i = np.arange(N)
tx = (i * 3) % W
ty = (i // 2 * 5 + i // 7) % H
xs = (tx + 0.5).astype(np.float32)
ys = (ty + 0.5).astype(np.float32)
out = np.zeros((N, 4), dtype=np.float32)
v = np.where(i % 2 == 1, b[ty * W + tx], a[ty * W + tx])
out[:, 0] = v
out[:, 3] = 1.0
np.save("a.npy", a)
np.save("b.npy", b)
np.save("x.npy", xs)
np.save("y.npy", ys)
np.save("out_expected.npy", out.reshape(-1))
