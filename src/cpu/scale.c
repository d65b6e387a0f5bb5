#include "scale.h"

#include <stddef.h>
#include <string.h>

void shim_scale_vector(int n, float beta, float *y, int incy)
{
    if (beta == 1.0f)
        return;
    ptrdiff_t step = incy < 0 ? -(ptrdiff_t)incy : incy;
    for (ptrdiff_t i = 0; i < n; i++)
        y[i * step] = beta == 0.0f ? 0.0f : beta * y[i * step];
}

void shim_scale_matrix(int m, int n, float beta, float *c, int ldc)
{
    if (beta == 1.0f)
        return;
    for (ptrdiff_t j = 0; j < n; j++) {
        float *col = c + j * (ptrdiff_t)ldc;
        if (beta == 0.0f) {
            memset(col, 0, sizeof(float) * (size_t)m);
        } else {
            for (int i = 0; i < m; i++)
                col[i] *= beta;
        }
    }
}
