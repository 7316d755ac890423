// Sparse matrix-vector product y = A x with A in CSR form (row_ptr, col_idx, vals), the
// "vector" kernel: one warp per row, the warp's lanes stride over the row's nonzeros and the
// partial sums are reduced with __shfl_down_sync; lane 0 writes y[row]. Rows may be empty or
// longer than a warp. A second kernel, spmv_csr_scalar, is the one-thread-per-row form.
extern "C" __global__ void spmv_csr_vector(int rows, const int *row_ptr, const int *col_idx,
                                           const float *vals, const float *x, float *y) {
  int gtid = blockIdx.x * blockDim.x + threadIdx.x;
  int row = gtid / 32;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;  // whole warps: blockDim.x is a multiple of 32
  float sum = 0.0f;
  for (int k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += 32)
    sum += vals[k] * x[col_idx[k]];
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[row] = sum;
}

extern "C" __global__ void spmv_csr_scalar(int rows, const int *row_ptr, const int *col_idx,
                                           const float *vals, const float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; ++k) sum += vals[k] * x[col_idx[k]];
    y[row] = sum;
  }
}
