# SPDX-License-Identifier: MIT
# The command rejects bad flags with a message and status 2, and never crashes.
function(expect_fail expected_rc needle)
  execute_process(COMMAND ${CDEVS} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL ${expected_rc})
    message(FATAL_ERROR "cdevs ${ARGN}: exit ${rc}, expected ${expected_rc}\n${err}")
  endif()
  string(FIND "${err}" "${needle}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "cdevs ${ARGN}: stderr lacks '${needle}':\n${err}")
  endif()
endfunction()

expect_fail(2 "unknown command 'frobnicate'" frobnicate)
expect_fail(2 "--depth needs an integer >= 1, got '-3'" devstone --type HO --depth -3 --width 2)
expect_fail(2 "--type needs LI, HI, HO or HOmod, got 'XY'" devstone --type XY --depth 3 --width 2)
expect_fail(2 "unknown option '--bogus'" devstone --bogus)
expect_fail(2 "--type, --depth and --width are required" devstone --type HO)
expect_fail(2 "--width needs an integer >= 1, got '12abc'" devstone --type LI --depth 2 --width 12abc)
expect_fail(2 "unknown example 'nope'" example nope)
expect_fail(2 "--period needs a time > 0, got '0'" example efp --period 0)
expect_fail(1 "cannot write" example efp --out /nonexistent-dir/x.csv)

execute_process(COMMAND ${CDEVS} devstone --type HO --depth 4 --width 5 RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
# 13 atomics and 31 transitions: (w-1)(d-1)+1 and (w-1)w/2 (d-1)+1
if(NOT rc EQUAL 0 OR NOT out MATCHES "^devstone type=HO depth=4 width=5 atomics=13 internals=31 externals=31 events=31 build_s=[0-9.]+ sim_s=[0-9.]+ rss_kb=[0-9]+\n$")
  message(FATAL_ERROR "cdevs devstone line: '${out}'")
endif()
execute_process(COMMAND ${CDEVS} --version RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^cdevs [0-9]+\\.[0-9]+\\.[0-9]+\n$")
  message(FATAL_ERROR "cdevs --version: '${out}'")
endif()
