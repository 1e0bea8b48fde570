# SPDX-License-Identifier: MIT
# cdevs run --out F.h5: HDF5 results, read back by h5py (an independent reader):
# the same names, times and values as the CSV of the same run, wide and long, dense
# and at every change; 20 decays against exp(-0.1·i·t); a run stopped by SIGINT keeps
# a whole, readable file; bad uses are refused.
set(D ${WORK}/h5_results)
file(REMOVE_RECURSE ${D})
file(MAKE_DIRECTORY ${D})
set(PY /usr/bin/python3)
# The sanitizer build: HDF5's own leak on its failed-flush path (tests/lsan.supp).
set(ENV{LSAN_OPTIONS} "suppressions=${SRC}/tests/lsan.supp")
execute_process(COMMAND ${PY} -c "import h5py" RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the HDF5 checks need h5py (Debian python3-h5py; tools/deps.sh installs it)")
endif()

function(run_ok)
  execute_process(COMMAND ${CDEVS} run ${ARGN} --quiet RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${D})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cdevs run ${ARGN}: exit ${rc}\n${err}")
  endif()
endfunction()
function(check)
  execute_process(COMMAND ${PY} ${SRC}/tests/h5_check.py ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "h5_check.py ${ARGN}: ${out}${err}")
  endif()
  message(STATUS "${out}")
endfunction()

# The bouncing ball: wide and long, at every change (faithful: left limits, samples)
# and every 0.1.
set(BB ${SRC}/examples/bball/bball.mo)
foreach(case "wide" "long" "wide,--step,0.1" "long,--step,0.1")
  string(REPLACE "," ";" args "${case}")
  list(GET args 0 layout)
  list(REMOVE_AT args 0)
  string(REPLACE "," "" tag "${case}")
  run_ok(${BB} --format ${layout} ${args} --out ${D}/bb_${tag}.h5)
  run_ok(${BB} --format ${layout} ${args} --out ${D}/bb_${tag}.csv)
  check(${D}/bb_${tag}.h5 ${D}/bb_${tag}.csv)
endforeach()

# The same file when the writer thread is off (the sink then runs in the simulation's
# thread).
execute_process(COMMAND ${CMAKE_COMMAND} -E env CDEVS_WRITER_THREAD=0 ${CDEVS} run ${BB} --format long
                        --out ${D}/bb_long_nothread.h5 --quiet RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "CDEVS_WRITER_THREAD=0 cdevs run --out bb_long_nothread.h5: exit ${rc}\n${err}")
endif()
check(${D}/bb_long_nothread.h5 ${D}/bb_long.csv)

# 20 decays: more than 16 variables, so the long layout by itself.
file(WRITE ${D}/decays.mo "model decays\n  Real x[20](each start = 1);\nequation\n  for i in 1:20 loop\n    der(x[i]) = -0.1 * i * x[i];\n  end for;\n  annotation(experiment(StopTime = 10, Tolerance = 1e-4, AbsTolerance = 1e-6, MMO_Solver = QSS2));\nend decays;\n")
run_ok(decays.mo --out ${D}/decays.h5)
check(--decays ${D}/decays.h5 20 10)

# Stopped by SIGINT: exit 130, the file whole up to the instant reached, no temporary
# file left.
file(WRITE ${D}/long.mo "model long\n  Real x(start = 1), y(start = 0);\nequation\n  der(x) = y;\n  der(y) = -x;\n  annotation(experiment(StopTime = 1e9, Tolerance = 1e-8, AbsTolerance = 1e-10));\nend long;\n")
find_program(TIMEOUT timeout)
if(NOT TIMEOUT)
  message(FATAL_ERROR "the test needs timeout(1) (coreutils) to send the signal")
endif()
execute_process(COMMAND ${TIMEOUT} --preserve-status -s INT 1 ${CDEVS} run long.mo --step 0.5 --out sig.h5 --quiet
                RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${D} TIMEOUT 60)
if(NOT rc EQUAL 130 OR NOT err MATCHES "interrupted at t=([0-9.e+-]+) \\(SIGINT\\)\n")
  message(FATAL_ERROR "SIGINT during cdevs run --out sig.h5: exit ${rc}\n${err}")
endif()
check(--partial ${D}/sig.h5 ${CMAKE_MATCH_1} 0.5)
file(GLOB left ${D}/.sig*)
if(left)
  message(FATAL_ERROR "SIGINT: temporary files left: ${left}")
endif()

# Refused: a plot from HDF5, a missing directory, a full disk (HDF5 through a link to
# /dev/full); and a long MAT file stays refused.
file(CREATE_LINK /dev/full ${D}/full.h5 SYMBOLIC)
foreach(case "--plot,p.svg,--out,x.h5|2|--plot draws from a .csv result file"
             "--out,full.h5|1|writing full.h5 failed: No space left on device"
             "--out,nodir/x.h5|1|cannot write nodir/x.h5: No such file or directory"
             "--out,x.mat,--format,long|2|--format long is a CSV layout")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 args)
  list(GET parts 1 want_rc)
  list(GET parts 2 want_msg)
  string(REPLACE "," ";" args "${args}")
  execute_process(COMMAND ${CDEVS} run ${BB} ${args} RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${D})
  string(FIND "${err}" "${want_msg}" at)
  if(NOT rc EQUAL want_rc OR at LESS 0)
    message(FATAL_ERROR "cdevs run ${args}: exit ${rc} (expected ${want_rc}, '${want_msg}')\n${err}")
  endif()
endforeach()

# HDF5 is a module the command loads only for --out F.h5 (src/cli/modules.h): the
# command itself links no HDF5 nor MPI (they cost every run 8 ms and 7 MB), and a
# module that cannot be loaded is a clear error before anything is written.
execute_process(COMMAND ldd ${CDEVS} OUTPUT_VARIABLE libs RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR libs MATCHES "libhdf5" OR libs MATCHES "libmpi")
  message(FATAL_ERROR "cdevs links HDF5 or MPI itself (ldd: ${rc}):\n${libs}")
endif()
file(MAKE_DIRECTORY ${D}/nomodules)
execute_process(COMMAND ${CMAKE_COMMAND} -E env CDEVS_MODULE_DIR=${D}/nomodules ${CDEVS} run ${D}/decays.mo
                        --out nomod.h5 --quiet
                RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${D})
if(NOT rc EQUAL 1 OR NOT err MATCHES "--out nomod.h5: the module cdevs-hdf5.so could not be loaded \\(.*nomodules/cdevs-hdf5.so"
   OR EXISTS ${D}/nomod.h5)
  message(FATAL_ERROR "a missing HDF5 module: exit ${rc}, '${err}'")
endif()
