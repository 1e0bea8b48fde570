/* SPDX-License-Identifier: MIT */
/* Numbers as text for result files: the shortest decimal that reads back as the same
 * double (strtod), in printf's %g layout. */
#ifndef CDEVS_IO_NUMFMT_H
#define CDEVS_IO_NUMFMT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A finite nonzero v's shortest round-trip digits, without trailing zeros, and the
 * power of ten they are scaled by: |v| = *digits × 10^(returned value). */
int cdevs__shortest(double v, uint64_t *digits);

enum { CDEVS_NUM_MAX = 32 }; /* room for any number cdevs__fmt_double writes */

/* Writes v into buf (CDEVS_NUM_MAX bytes, no NUL) and returns the length: the
 * shortest digits that read back as v, fixed-point when the decimal exponent X
 * (v = d.ddd × 10^X) is in [-5, 17), as %.17g chooses, else d.ddde±XX; "0", "-0",
 * "inf", "-inf", "nan" as printf writes them. */
int cdevs__fmt_double(char *buf, double v);

#ifdef __cplusplus
}
#endif
#endif
