/* In-place y := beta * y and C := beta * C on host memory, beta == 0 writing zeros without
 * reading (so NaN or garbage there vanishes), as reference BLAS does when alpha == 0. */
#ifndef SHIM_SCALE_H
#define SHIM_SCALE_H

/* y points at the lowest-addressed element; the n elements are |incy| apart */
void shim_scale_vector(int n, float beta, float *y, int incy);
void shim_scale_matrix(int m, int n, float beta, float *c, int ldc);

#endif
