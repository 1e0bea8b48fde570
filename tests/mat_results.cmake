# SPDX-License-Identifier: MIT
# cdevs run writes the same results as CSV and MAT v4; scipy reads the MAT file.
foreach(fmt csv mat)
  execute_process(COMMAND ${CDEVS} run ${SRC}/examples/bball/bball.mo --out ${WORK}/bball.${fmt} --quiet
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cdevs run --out bball.${fmt}: ${rc}\n${err}")
  endif()
endforeach()
execute_process(COMMAND /usr/bin/python3 ${SRC}/tests/mat_check.py ${WORK}/bball.mat ${WORK}/bball.csv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mat_check: ${out}${err}")
endif()
