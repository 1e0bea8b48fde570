# SPDX-License-Identifier: MIT
# A stop signal during cdevs run stops it at the current instant: exit 130, the
# summary says where, and the result file is complete up to there (CSV and MAT),
# renamed into place with no temporary file left. Before, the process died with only
# F.part holding a torn last row (a 0-byte one for MAT).
set(D ${WORK}/cli_signals)
file(REMOVE_RECURSE ${D})
file(MAKE_DIRECTORY ${D})
# An oscillator over 1e9 periods at a fine tolerance: hours, unless stopped.
file(WRITE ${D}/long.mo "model long\n  Real x(start = 1), y(start = 0);\nequation\n  der(x) = y;\n  der(y) = -x;\n  annotation(experiment(StopTime = 1e9, Tolerance = 1e-8, AbsTolerance = 1e-10));\nend long;\n")
find_program(TIMEOUT timeout)
if(NOT TIMEOUT)
  message(FATAL_ERROR "the test needs timeout(1) (coreutils) to send the signals")
endif()
foreach(case "INT|csv" "TERM|csv" "HUP|csv" "INT|mat" "TERM|mat")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 sig)
  list(GET parts 1 fmt)
  set(out ${D}/sig_${sig}.${fmt})
  # --preserve-status: timeout exits with the command's status, not 124.
  execute_process(COMMAND ${TIMEOUT} --preserve-status -s ${sig} 1 ${CDEVS} run long.mo --step 0.5
                          --out ${out} --quiet
                  RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${D} TIMEOUT 60)
  if(NOT rc EQUAL 130 OR NOT err MATCHES "summary: method=QSS3 [^\n]* interrupted at t=([0-9.e+-]+) \\(SIG${sig}\\)\n")
    message(FATAL_ERROR "SIG${sig} during cdevs run --out ${out}: exit ${rc}\n${err}")
  endif()
  set(t_stop "${CMAKE_MATCH_1}")
  file(GLOB left ${D}/.sig_*)
  if(left)
    message(FATAL_ERROR "SIG${sig}: temporary files left: ${left}")
  endif()
  # Rows every 0.5 up to the instant reached: the last one within 0.5 of it.
  execute_process(COMMAND /usr/bin/python3 ${SRC}/tests/mat_check.py --partial ${out} ${t_stop} 0.5
                  RESULT_VARIABLE rc OUTPUT_VARIABLE pout ERROR_VARIABLE perr)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "SIG${sig}, ${out}: ${pout}${perr}")
  endif()
  message(STATUS "SIG${sig}: ${pout}")
endforeach()

# A run whose single model takes its own events in one long transition (a sample every
# 1e-300 s: endless, the time barely moving) used to ignore the signal until that
# transition ended, i.e. never: the stop request now reaches the model's own loop.
# Also in the default faithful output (no --step).
file(WRITE ${D}/dense.mo "model dense\n  Real x;\n  discrete Real n;\nequation\n  der(x) = 1;\nalgorithm\n  when sample(0, 1e-300) then\n    n := n + 1;\n  end when;\nend dense;\n")
execute_process(COMMAND ${TIMEOUT} --preserve-status -k 20 -s INT 1 ${CDEVS} run dense.mo --out ${D}/dense.csv
                RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${D} TIMEOUT 60)
if(NOT rc EQUAL 130 OR NOT err MATCHES "interrupted at t=[^\n]* \\(SIGINT\\)\n" OR NOT EXISTS ${D}/dense.csv)
  message(FATAL_ERROR "SIGINT during a long transition: exit ${rc}\n${err}")
endif()

# The target turned into a directory during the run: the rename at the end fails, and
# the finished results stay whole under their temporary name, which the message gives
# (they used to be removed with the temporary file).
file(WRITE ${D}/ren.sh [=[
"$1" run long.mo --step 0.5 --out ren.csv --quiet &
pid=$!
sleep 1
mkdir ren.csv && touch ren.csv/x
kill -INT $pid
wait $pid
]=])
execute_process(COMMAND sh ${D}/ren.sh ${CDEVS} RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${D} TIMEOUT 60)
if(NOT rc EQUAL 1 OR NOT err MATCHES "cannot put the results in place as ren.csv: [^;]*; they are whole in ([^\n]*\\.part)\n")
  message(FATAL_ERROR "rename onto a directory: exit ${rc}\n${err}")
endif()
set(kept "${CMAKE_MATCH_1}")
if(NOT IS_ABSOLUTE "${kept}")
  set(kept "${D}/${kept}")
endif()
if(NOT err MATCHES "interrupted at t=([0-9.e+-]+) \\(SIGINT\\)")
  message(FATAL_ERROR "rename onto a directory: no stop time\n${err}")
endif()
configure_file(${kept} ${D}/ren_kept.csv COPYONLY)
execute_process(COMMAND /usr/bin/python3 ${SRC}/tests/mat_check.py --partial ${D}/ren_kept.csv ${CMAKE_MATCH_1} 0.5
                RESULT_VARIABLE prc OUTPUT_VARIABLE pout ERROR_VARIABLE perr)
if(NOT prc EQUAL 0)
  message(FATAL_ERROR "the kept file ${kept}: ${pout}${perr}")
endif()
