# SPDX-License-Identifier: MIT
# cdevs run and its files: where results go by default, paths refused before the run
# with the reason, links followed, two runs on one --out, standard input, size limits,
# --help everywhere, and no file name reaching gnuplot as script text.
set(D ${WORK}/cli_files)
file(REMOVE_RECURSE ${D})
file(MAKE_DIRECTORY ${D})
file(WRITE ${D}/good.mo "model good\n  Real x(start = 1);\nequation\n  der(x) = -x;\nend good;\n")
# A run that would take hours (an oscillator over 1e9 periods at a fine tolerance):
# a path refused within the test's timeout was refused before simulating.
file(WRITE ${D}/long.mo "model long\n  Real x(start = 1), y(start = 0);\nequation\n  der(x) = y;\n  der(y) = -x;\n  annotation(experiment(StopTime = 1e9, Tolerance = 1e-8, AbsTolerance = 1e-10));\nend long;\n")

function(run_cdevs)
  execute_process(COMMAND ${CDEVS} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${D} TIMEOUT 60)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(expect rc_want needle)
  run_cdevs(${ARGN})
  if(NOT rc STREQUAL "${rc_want}")
    message(FATAL_ERROR "cdevs ${ARGN}: exit '${rc}', expected ${rc_want}\n${out}${err}")
  endif()
  string(FIND "${out}${err}" "${needle}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "cdevs ${ARGN}: output lacks '${needle}':\n${out}${err}")
  endif()
endfunction()

# --help on every subcommand: the usage and the exit statuses on stdout, status 0.
foreach(cmd "run" "check" "list-blocks" "devstone" "bench" "example;flyback" "example;efp")
  run_cdevs(${cmd} --help)
  string(REPLACE ";" " " name "${cmd}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: cdevs ${name} " OR NOT out MATCHES "exit status: 0 done")
    message(FATAL_ERROR "cdevs ${name} --help: exit ${rc}\n${out}${err}")
  endif()
endforeach()
expect(2 "unknown option '--bogus' (see cdevs run --help)" run good.mo --bogus)
expect(2 "--out needs a value" run good.mo --out)

# The output path is checked before the run, with the reason.
expect(1 "cannot write nodir/x.csv: No such file or directory" run long.mo --out nodir/x.csv)
file(MAKE_DIRECTORY ${D}/dir.csv)
expect(1 "cannot write dir.csv: Is a directory" run long.mo --out dir.csv)
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(uid STREQUAL "0")
  # root writes into a mode 0555 directory; sysfs refuses it.
  if(EXISTS /sys/kernel)
    expect(1 "cannot write /sys/x.csv: Permission denied" run long.mo --out /sys/x.csv)
  endif()
else()
  file(MAKE_DIRECTORY ${D}/ro)
  file(CHMOD ${D}/ro DIRECTORY_PERMISSIONS OWNER_READ OWNER_EXECUTE)
  expect(1 "cannot write ro/x.csv: Permission denied" run long.mo --out ro/x.csv)
  file(CHMOD ${D}/ro DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endif()

# Without --out the results go to results/<model>.csv, and the run says so.
expect(0 "writing the results to results/good.csv" run good.mo --stop 2)
file(STRINGS ${D}/results/good.csv rows)
list(GET rows 0 header)
list(GET rows -1 last)
# x(2) = e^-2 = 0.135335 within the 1e-3 quantum (the last row must be t = 2 with a
# number: a non-number would compare as neither less nor greater)
set(x2 "")
if(last MATCHES "^2,([-+0-9.e]+)$")
  set(x2 "${CMAKE_MATCH_1}")
endif()
if(NOT header STREQUAL "time,x" OR x2 STREQUAL "" OR x2 LESS 0.134335 OR x2 GREATER 0.136335)
  message(FATAL_ERROR "results/good.csv: '${header}' … '${last}'")
endif()
run_cdevs(run good.mo --no-out --stop 2)
if(NOT rc EQUAL 0 OR err MATCHES "writing the results")
  message(FATAL_ERROR "--no-out: ${rc}\n${err}")
endif()

# A symbolic link given as --out: its target is written, the link stays.
file(CREATE_LINK real.csv ${D}/link.csv SYMBOLIC)
expect(0 "summary:" run good.mo --stop 2 --out link.csv)
if(NOT IS_SYMLINK ${D}/link.csv OR NOT EXISTS ${D}/real.csv)
  message(FATAL_ERROR "--out link.csv replaced the link instead of writing real.csv")
endif()
file(STRINGS ${D}/real.csv rows LIMIT_COUNT 1)
if(NOT rows STREQUAL "time,x")
  message(FATAL_ERROR "real.csv: '${rows}'")
endif()

# The model from standard input.
execute_process(COMMAND ${CDEVS} run - --stop 2 --out stdin.csv INPUT_FILE ${D}/good.mo
                RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${D})
file(STRINGS ${D}/stdin.csv rows)
list(GET rows -1 last)
set(x2 "")
if(last MATCHES "^2,([-+0-9.e]+)$")
  set(x2 "${CMAKE_MATCH_1}")
endif()
if(NOT rc EQUAL 0 OR x2 STREQUAL "" OR x2 LESS 0.134335 OR x2 GREATER 0.136335)
  message(FATAL_ERROR "run - < good.mo: ${rc} '${last}'\n${err}")
endif()
execute_process(COMMAND ${CDEVS} check - INPUT_FILE ${D}/good.mo RESULT_VARIABLE rc OUTPUT_VARIABLE out
                WORKING_DIRECTORY ${D})
if(NOT rc EQUAL 0 OR NOT out STREQUAL "<stdin>: ok (1 state)\n")
  message(FATAL_ERROR "check - < good.mo: ${rc} '${out}'")
endif()
file(WRITE ${D}/bad.mo "model bad\n  Real x;\nequation\n  der(x) = -y;\nend bad;\n")
execute_process(COMMAND ${CDEVS} check - INPUT_FILE ${D}/bad.mo RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${D})
if(NOT rc EQUAL 1 OR NOT err MATCHES "<stdin>:4:13: error: unknown variable 'y'")
  message(FATAL_ERROR "check - < bad.mo: ${rc} '${err}'")
endif()

# Model text is read with a size limit: /dev/zero is refused, not read until the
# memory runs out; so is a (sparse) 65 MiB file, by its size.
expect(1 "/dev/zero: more than 64 MiB of text" check /dev/zero)
# ... reading one byte past the limit, not doubling its buffer to 128 MiB first: the
# process peaks under 64 MiB + 16 MiB. (Not under AddressSanitizer, whose shadow
# memory and quarantine of freed blocks are in the figure; the plain build checks it.)
if(NOT SANITIZE)
  execute_process(COMMAND /usr/bin/time -f "peak=%M" ${CDEVS} check /dev/zero RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT err MATCHES "peak=([0-9]+)" OR CMAKE_MATCH_1 GREATER 81920)
    message(FATAL_ERROR "check /dev/zero: peak resident size ${CMAKE_MATCH_1} kB (limit 81920)\n${err}")
  endif()
endif()
execute_process(COMMAND truncate -s 65M ${D}/huge.mo RESULT_VARIABLE trc)
if(NOT trc EQUAL 0)
  message(FATAL_ERROR "truncate (coreutils) could not make a 65 MiB file")
endif()
expect(1 "huge.mo: 68157440 bytes, more than a model file may have (64 MiB)" check huge.mo)
expect(1 "cannot read: Is a directory" check dir.csv)

# Two runs writing the same --out at once: each writes its own temporary file, so the
# result is one run's file whole (before, both wrote F.part and rows interleaved).
file(WRITE ${D}/osc.mo "model osc\n  Real x(start = 1), y(start = 0);\nequation\n  der(x) = y;\n  der(y) = -x;\n  annotation(experiment(StopTime = 3000, Tolerance = 1e-4, AbsTolerance = 1e-6));\nend osc;\n")
# (Different tolerances: the two files differ from their first rows. The old command
# gave a file matching neither, and one run failed.)
foreach(s 2000 3000)
  math(EXPR tol "${s} / 1000")
  run_cdevs(run osc.mo --stop ${s} --tol ${tol}e-4 --out alone${s}.csv --quiet)
  file(SHA256 ${D}/alone${s}.csv h${s})
endforeach()
execute_process(COMMAND ${CDEVS} run osc.mo --stop 2000 --tol 2e-4 --out both.csv --quiet
                COMMAND ${CDEVS} run osc.mo --stop 3000 --tol 3e-4 --out both.csv --quiet
                RESULTS_VARIABLE rcs WORKING_DIRECTORY ${D})
file(SHA256 ${D}/both.csv hb)
file(GLOB leftovers ${D}/.both.csv.*)
if(NOT rcs STREQUAL "0;0" OR (NOT hb STREQUAL h2000 AND NOT hb STREQUAL h3000) OR leftovers)
  message(FATAL_ERROR "two runs on both.csv: ${rcs}; the file is neither run's whole output; left: ${leftovers}")
endif()

# No file name reaches gnuplot as script text (a model named to close a quote and
# call system() made ./pwned). Needs gnuplot.
find_program(GNUPLOT gnuplot)
if(GNUPLOT)
  # CMake lists split at ';', so a shell script (no shell in cdevs itself) runs it.
  file(WRITE ${D}/evil.sh [=[
cd "$(dirname "$0")" || exit 99
evil="x'; system \"touch pwned\"; print '"
cp good.mo "$evil.mo" || exit 99
"$1" run "$evil.mo" --plot "$evil.svg" --quiet || exit $?
test -f "$evil.svg" && test -f "results/$evil.csv" || exit 98
]=])
  execute_process(COMMAND sh ${D}/evil.sh ${CDEVS} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR EXISTS ${D}/pwned)
    message(FATAL_ERROR "--plot with a quote in the names: exit ${rc}, pwned: ${D}/pwned\n${err}")
  endif()
  # A line break would end a gnuplot command and start another.
  set(evil2 "y\nsystem 'touch pwned'\n")
  file(WRITE "${D}/${evil2}.mo" "model good\n  Real x(start = 1);\nequation\n  der(x) = -x;\nend good;\n")
  run_cdevs(run "${evil2}.mo" --out "${evil2}.csv" --plot p2.svg --quiet)
  if(NOT rc EQUAL 0 OR EXISTS ${D}/pwned OR NOT EXISTS ${D}/p2.svg)
    message(FATAL_ERROR "--plot with a line break in the names: exit ${rc}\n${err}")
  endif()
  # --plot without --out draws from the default results file.
  run_cdevs(run good.mo --plot good.svg)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${D}/good.svg OR NOT err MATCHES "wrote results/good.csv and good.svg")
    message(FATAL_ERROR "--plot without --out: exit ${rc}\n${err}")
  endif()
else()
  message(FATAL_ERROR "the --plot cases need gnuplot (tools/deps.sh installs gnuplot-nox)")
endif()

# Result layouts (--format): a model of 20 variables gets the long layout by default
# (time,variable,value at each variable's changes), a few variables the wide table;
# long is CSV only; --plot draws the first six variables of a long file.
file(WRITE ${D}/many.mo "model many\n  Real x[20](each start = 1);\nequation\n  for i in 1:20 loop\n    der(x[i]) = -i * x[i];\n  end for;\n  annotation(experiment(StopTime = 1));\nend many;\n")
run_cdevs(run many.mo --out many.csv --plot many.svg)
file(STRINGS ${D}/many.csv hdr LIMIT_COUNT 1)
if(NOT rc EQUAL 0 OR NOT hdr STREQUAL "time,variable,value" OR NOT EXISTS ${D}/many.svg
   OR NOT err MATCHES "wrote many.csv and many.svg \\(6 of 20 variables, the first whose names hold no comma")
  message(FATAL_ERROR "many variables, default layout: exit ${rc}, header '${hdr}'\n${err}")
endif()
file(READ ${D}/many.svg svg)
string(REGEX MATCHALL "x\\[[0-9]+\\]" keys "${svg}")
list(REMOVE_DUPLICATES keys)
list(LENGTH keys nkeys)
if(NOT nkeys EQUAL 6)
  message(FATAL_ERROR "the long plot names ${nkeys} curves, not 6: ${keys}")
endif()
run_cdevs(run many.mo --out wide.csv --format wide)
file(STRINGS ${D}/wide.csv hdr LIMIT_COUNT 1)
if(NOT rc EQUAL 0 OR NOT hdr MATCHES "^time,x\\[1\\],x\\[2\\],.*,x\\[20\\]$")
  message(FATAL_ERROR "--format wide: exit ${rc}, header '${hdr}'\n${err}")
endif()
run_cdevs(run many.mo --out many.mat --format long)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--format long is a CSV layout")
  message(FATAL_ERROR "--format long with .mat: exit ${rc}\n${err}")
endif()
run_cdevs(run many.mo --format tall)
if(NOT rc EQUAL 2 OR NOT err MATCHES "wide\\|long\\|auto")
  message(FATAL_ERROR "--format tall: exit ${rc}\n${err}")
endif()

# A run that fails before it starts (its trace cannot be opened) leaves a previous
# result file as it was: it used to be replaced by a header and one row, and the
# reason read "input/output error" instead of the missing directory.
file(WRITE ${D}/efp_prev.csv "keep me\n")
run_cdevs(example efp --out efp_prev.csv --trace ${D}/no/such/dir/t.csv)
file(READ ${D}/efp_prev.csv prev)
if(NOT rc EQUAL 1 OR NOT prev STREQUAL "keep me\n" OR NOT err MATCHES "t.csv: No such file or directory")
  message(FATAL_ERROR "efp with an unwritable trace: exit ${rc}, previous file now '${prev}'\n${err}")
endif()

# A full disk is named as such (the writer thread's start flushed the header first and
# lost the reason: "Input/output error").
file(CREATE_LINK /dev/full ${D}/full.csv SYMBOLIC)
run_cdevs(run good.mo --stop 2 --out full.csv)
if(NOT rc EQUAL 1 OR NOT err MATCHES "writing full.csv failed: No space left on device")
  message(FATAL_ERROR "--out onto /dev/full: exit ${rc}\n${err}")
endif()

# --plot of a long file whose names all hold a comma: the file is written, and the
# message says why there is no plot (it said "gnuplot failed").
file(WRITE ${D}/m55.mo "model m55\n  Real m[5,5](each start = 1);\nequation\n  for i in 1:5 loop\n    for j in 1:5 loop\n      der(m[i,j]) = -i * j * m[i,j];\n    end for;\n  end for;\nend m55;\n")
run_cdevs(run m55.mo --out m55.csv --plot m55.svg)
file(STRINGS ${D}/m55.csv hdr LIMIT_COUNT 1)
if(NOT rc EQUAL 1 OR NOT hdr STREQUAL "time,variable,value" OR EXISTS ${D}/m55.svg
   OR NOT err MATCHES "wrote m55.csv, but no plot: gnuplot cannot pick out of a long file variables whose names hold a comma")
  message(FATAL_ERROR "--plot of m[5,5] in the long layout: exit ${rc}\n${err}")
endif()

# --step rows end at the stop time even when the grid point is off by rounding
# (6 · 0.1 = 0.6000000000000001 > 0.6: the last row was missing). x' = -1: x = 1 - t.
file(WRITE ${D}/lin.mo "model lin\n  Real x(start = 1);\nequation\n  der(x) = -1;\nend lin;\n")
run_cdevs(run lin.mo --stop 0.6 --step 0.1 --out lin.csv)
file(STRINGS ${D}/lin.csv rows)
list(LENGTH rows nrows)
list(GET rows -1 last)
if(NOT rc EQUAL 0 OR NOT nrows EQUAL 8 OR NOT last MATCHES "^0\\.6,0\\.4")
  message(FATAL_ERROR "--stop 0.6 --step 0.1: exit ${rc}, ${nrows} lines, the last '${last}'\n${err}")
endif()
