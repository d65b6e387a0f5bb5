/* Reference CBLAS keeps two globals that its error path and the netlib CBLAS testers use:
 * RowMajorStrg (the call being checked is row-major, so argument numbers of a swapped pair must
 * be swapped back) and CBLAS_CallFromC (a Fortran-level xerbla_ is reporting for a CBLAS call).
 * They are exported and interposable: a program that defines them itself gets its own copy used. */
#include "xerbla.h"

__attribute__((visibility("default"))) int RowMajorStrg = 0;
__attribute__((visibility("default"))) int CBLAS_CallFromC = 0;
