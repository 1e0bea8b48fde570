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

# MAT rows stream to disk: writing a 30 MB MAT file takes no more memory than the same
# run writing nothing (before, every row was held until the end: the peak grew by the
# file's size). Peak RSS from GNU time, compared within the same build.
find_program(GNU_TIME time PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT GNU_TIME)
  message(FATAL_ERROR "the memory check needs GNU time (/usr/bin/time; tools/deps.sh installs Debian's time)")
endif()
if(GNU_TIME)
  foreach(mode mat none)
    if(mode STREQUAL "mat")
      set(outarg --out ${WORK}/lcline_x.mat)
    else()
      set(outarg --no-out)
    endif()
    execute_process(COMMAND ${GNU_TIME} -f "rss_kb=%M" ${CDEVS} run ${SRC}/examples/lcline/lcline.mo --vars x
                            --stop 40 ${outarg} --quiet
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT err MATCHES "rss_kb=([0-9]+)")
      message(FATAL_ERROR "cdevs run lcline ${outarg}: ${rc}\n${err}")
    endif()
    set(rss_${mode} ${CMAKE_MATCH_1})
  endforeach()
  file(SIZE ${WORK}/lcline_x.mat size)
  math(EXPR grew_kb "${rss_mat} - ${rss_none}")
  math(EXPR bound_kb "${size} / 1024 / 8")
  message(STATUS "MAT file ${size} bytes; peak RSS ${rss_mat} kB writing it, ${rss_none} kB writing nothing")
  if(size LESS 20000000 OR grew_kb GREATER bound_kb)
    message(FATAL_ERROR "writing a ${size}-byte MAT file took ${grew_kb} kB more memory than no output")
  endif()
endif()
