/* SPDX-License-Identifier: MIT */
/* Internals of libcdevs_ode (classical integration inside DEVS). */
#ifndef CDEVS_ODE_IMPL_H
#define CDEVS_ODE_IMPL_H

#include <sundials/sundials_nvector.h>

/* Gives serial vector v (and every clone made of it afterwards) element loops
 * compiled here in place of those of Debian's SUNDIALS, which is built without
 * optimisation (nvector_fast.c). The same arithmetic, so the same results bit for
 * bit. A vector of another kind is left alone. */
void cdevs__nv_fast(N_Vector v);

#endif
