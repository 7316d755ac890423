// Matrix transpose through a padded __shared__ tile (the CUDA samples' "transposeNoBankConflicts"):
// 32x32 tiles, blocks of 32x8 threads each moving four rows, a column of padding so that the
// column reads hit 32 different banks; edges of a matrix that is no multiple of 32 guarded.
#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_tile(float* __restrict__ out, const float* __restrict__ in,
                                          int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;  // transposed block offset
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
