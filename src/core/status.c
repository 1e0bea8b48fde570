/* SPDX-License-Identifier: MIT */
/* Status texts and the version string. */
#include "cdevs/status.h"

#include "cdevs/version.h"

const char *cdevs_strerror(int status) {
  switch (status) {
#define CDEVS_STATUS_TEXT(name, code, text) \
  case code:                                \
    return text;
    CDEVS_STATUS_LIST(CDEVS_STATUS_TEXT)
#undef CDEVS_STATUS_TEXT
  default:
    return "unknown status";
  }
}

const char *cdevs_version(void) { return CDEVS_VERSION_STRING; }
