/* SPDX-License-Identifier: MIT */
/* Status codes shared by every cdevs function that can fail. */
#ifndef CDEVS_STATUS_H
#define CDEVS_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* One list generates both the enum and cdevs_strerror(), so they cannot drift. */
#define CDEVS_STATUS_LIST(X)                                                    \
  X(CDEVS_OK, 0, "success")                                                     \
  X(CDEVS_ENOMEM, -1, "out of memory")                                          \
  X(CDEVS_EINVAL, -2, "invalid argument")                                       \
  X(CDEVS_ENAME, -3, "unknown or duplicate name")                               \
  X(CDEVS_EKIND, -4, "value kind mismatch")                                     \
  X(CDEVS_ECOUPLING, -5, "invalid coupling")                                    \
  X(CDEVS_ETIME, -6, "invalid time")                                            \
  X(CDEVS_ELEGIT, -7, "too many transitions at one instant (illegitimate model)") \
  X(CDEVS_EMODEL, -8, "a model reported an error")                              \
  X(CDEVS_EIO, -9, "input/output error")                                        \
  X(CDEVS_ESTATE, -10, "operation not allowed in the current state")            \
  X(CDEVS_EDOMAIN, -11, "argument outside the domain of a math function")

typedef enum cdevs_status {
#define CDEVS_STATUS_ENUM(name, code, text) name = code,
  CDEVS_STATUS_LIST(CDEVS_STATUS_ENUM)
#undef CDEVS_STATUS_ENUM
} cdevs_status;

/* A static English description of a status; unknown codes give "unknown status". */
const char *cdevs_strerror(int status);

/* The library version as "MAJOR.MINOR.PATCH". */
const char *cdevs_version(void);

#ifdef __cplusplus
}
#endif
#endif
