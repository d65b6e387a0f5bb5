/* Error exits, routed the way reference BLAS/CBLAS route them: through the process's own
 * cblas_xerbla / xerbla_ when it has one (a program's definition wins), else one line on stderr.
 * shimblas returns after reporting; it never exits the program itself. */
#ifndef SHIM_XERBLA_H
#define SHIM_XERBLA_H

/* The CBLAS globals of reference CBLAS, which the netlib CBLAS testers read. */
extern int RowMajorStrg;
extern int CBLAS_CallFromC;

/* info as reference CBLAS hands it to cblas_xerbla: with RowMajorStrg set, argument numbers of
 * the swapped Fortran call, which cblas_xerbla maps back to the caller's; form is a printf
 * format for value, or "" */
void shim_report_cblas(int info, const char *rout, const char *form, int value);
/* srname is the routine's name padded to 6 characters, as in "SGEMM " */
void shim_report_f77(const char *srname, int info);

#endif
