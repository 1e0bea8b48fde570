/* SPDX-License-Identifier: MIT */
/* The model language: a Modelica-flavoured superset of QSS Solver's μ-Modelica. */
#ifndef CDEVS_LANG_H
#define CDEVS_LANG_H

#include <stdio.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Parses and checks a model file. Diagnostics go to diag (NULL: none) as
 * "file:line:col: error: message", the source line and a caret; several errors are
 * reported when the parser can recover. Returns the number of errors (0: the model
 * is well formed), or -1 when the file cannot be read (also reported).
 */
int cdevs_lang_check_file(const char *path, FILE *diag);
/* The same for text in memory; name is used in the diagnostics. */
int cdevs_lang_check_text(const char *name, const char *text, size_t len, FILE *diag);

#ifdef __cplusplus
}
#endif
#endif
