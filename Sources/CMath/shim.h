/* The libm functions the engine calls that Swift's Glibc module does not declare. */
#ifndef RUNWAY_CMATH_SHIM_H
#define RUNWAY_CMATH_SHIM_H

/* glibc's sincos (a GNU extension, declared by <math.h> only under _GNU_SOURCE): sin and cos of
 * one angle in one call, with the same results as sin() and cos() (they share glibc's kernels). */
void sincos(double x, double *sin, double *cos);

#endif
