# SPDX-License-Identifier: MIT
# Stands in for tests that could not be built, so that a missing dependency fails the
# suite instead of shrinking it: cmake -DWHAT=... -P missing.cmake
message(FATAL_ERROR "${WHAT}")
