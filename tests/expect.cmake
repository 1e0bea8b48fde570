# SPDX-License-Identifier: MIT
# expect_fail(RC NEEDLE ARGS...): cdevs ARGS exits with RC and says NEEDLE on stderr
# (run in WORK); shared by the command-line tests.
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
