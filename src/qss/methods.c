/* SPDX-License-Identifier: MIT */
/* The QSS method table: names, orders, and which ones are linearly implicit. */
#include <ctype.h>
#include <stddef.h>

#include "qss_impl.h"

static const cdevs__qss_method methods[] = {
    {CDEVS_QSS1, "QSS1", 1, 0, 0},     {CDEVS_QSS2, "QSS2", 2, 0, 0},     {CDEVS_QSS3, "QSS3", 3, 0, 0},
    {CDEVS_LIQSS1, "LIQSS1", 1, 1, 0}, {CDEVS_LIQSS2, "LIQSS2", 2, 1, 0}, {CDEVS_LIQSS3, "LIQSS3", 3, 1, 0},
    {CDEVS_MLIQSS1, "mLIQSS1", 1, 1, 1}, {CDEVS_MLIQSS2, "mLIQSS2", 2, 1, 1},
};
#define NMETHODS (sizeof methods / sizeof methods[0])

const cdevs__qss_method *cdevs__qss_method_get(cdevs_qss_method id) {
  for (size_t i = 0; i < NMETHODS; i++)
    if (methods[i].id == id) return &methods[i];
  return NULL;
}

int cdevs_qss_method_parse(const char *name, cdevs_qss_method *m) {
  if (!name) return -1;
  for (size_t i = 0; i < NMETHODS; i++) {
    const char *a = methods[i].name, *b = name;
    while (*a && toupper((unsigned char)*b) == toupper((unsigned char)*a)) a++, b++;
    if (!*a && !*b) {
      *m = methods[i].id;
      return 0;
    }
  }
  return -1;
}

const char *cdevs_qss_method_name(cdevs_qss_method m) {
  const cdevs__qss_method *q = cdevs__qss_method_get(m);
  if (m == CDEVS_CVODE_BDF) return "CVODE_BDF";
  if (m == CDEVS_CVODE_AM) return "CVODE_AM";
  if (m == CDEVS_LIQSS_BDF) return "LIQSS_BDF";
  return q ? q->name : NULL;
}

int cdevs_qss_method_pairs(cdevs_qss_method m) {
  const cdevs__qss_method *q = cdevs__qss_method_get(m);
  return q ? q->pairs : 0;
}

int cdevs_qss_method_order(cdevs_qss_method m) {
  const cdevs__qss_method *q = cdevs__qss_method_get(m);
  return q ? q->order : 0;
}
