// One Jacobi step of a 5-point stencil on a W x H grid of floats, tiled in 16 x 16 CTAs
// with a one-cell halo in __shared__: each thread loads its own cell, threads on the tile's
// edges also load the neighbouring halo cell, and cells outside the grid read as the
// nearest edge cell (clamped). out = 0.5 c + 0.125 (north + south + east + west).
// W and H need not be multiples of 16: threads past the grid load (clamped) but store nothing.
#define TILE 16
extern "C" __global__ void stencil2d(const float *in, float *out, int w, int h) {
  __shared__ float tile[TILE + 2][TILE + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
  int cx = min(x, w - 1), cy = min(y, h - 1);
  tile[ty + 1][tx + 1] = in[cy * w + cx];
  if (tx == 0) tile[ty + 1][0] = in[cy * w + max(cx - 1, 0)];
  if (tx == TILE - 1) tile[ty + 1][TILE + 1] = in[cy * w + min(x + 1, w - 1)];
  if (ty == 0) tile[0][tx + 1] = in[max(cy - 1, 0) * w + cx];
  if (ty == TILE - 1) tile[TILE + 1][tx + 1] = in[min(y + 1, h - 1) * w + cx];
  __syncthreads();
  if (x < w && y < h) {
    float c = tile[ty + 1][tx + 1];
    float nsew = tile[ty][tx + 1] + tile[ty + 2][tx + 1] + tile[ty + 1][tx + 2] + tile[ty + 1][tx];
    out[y * w + x] = 0.5f * c + 0.125f * nsew;
  }
}
