// SPDX-License-Identifier: MIT
// The one C++ unit of cdevs: the shortest decimal digits of a double, by Dragonbox
// (Jeon 2020; Debian libdragonbox-dev, header-only). Built without exceptions and
// RTTI, it needs nothing of the C++ runtime, so libcdevs stays a C library.
#include <stdint.h>

#include <dragonbox/dragonbox.h>

#include "io/numfmt.h"

extern "C" int cdevs__shortest(double v, uint64_t *digits) {
  namespace db = jkj::dragonbox;
  auto d = db::to_decimal(v, db::policy::sign::ignore, db::policy::trailing_zero::remove);
  *digits = d.significand;
  return d.exponent;
}
