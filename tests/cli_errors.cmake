# SPDX-License-Identifier: MIT
# The command rejects bad flags with a message and status 2, and never crashes.
include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)

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

# QSS examples and benchmarks.
expect_fail(2 "name one of flyback, stiff, lcline" bench)
expect_fail(2 "name one of flyback, stiff, lcline" bench rocket)
expect_fail(2 "unknown method 'QSS9'" bench stiff --method QSS9)
expect_fail(2 "--n needs an integer in 2..10000000, got '1'" bench lcline --n 1)
expect_fail(2 "--dqmin needs a value > 0, got '0'" bench stiff --dqmin 0)
expect_fail(2 "CVODE is available for the flyback benchmark only" bench stiff --method CVODE)
expect_fail(2 "--method needs QSS1|QSS2|QSS3|LIQSS1|LIQSS2|LIQSS3, got 'RK4'" example flyback --method RK4)
# mLIQSS pairs the states of one equation system; a block diagram's integrators are
# each alone, so the block examples do not offer it (it would be LIQSS by another name).
expect_fail(2 "--method needs QSS1|QSS2|QSS3|LIQSS1|LIQSS2|LIQSS3, got 'mLIQSS2'" example flyback --method mLIQSS2)
expect_fail(2 "--plot needs --out" example flyback --plot x.svg)
expect_fail(1 "cannot write /nonexistent-dir/f.csv: No such file or directory" example flyback --out /nonexistent-dir/f.csv)
execute_process(COMMAND ${CDEVS} bench lcline --n 10 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^bench name=lcline method=QSS3 n=10 transitions=[0-9]+ max_error=nan wall_s=[0-9.]+\n$")
  message(FATAL_ERROR "cdevs bench lcline line: '${out}'")
endif()
execute_process(COMMAND ${CDEVS} bench stiff --method LIQSS2 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^bench name=stiff method=LIQSS2 n=2 transitions=[0-9]+ max_error=[0-9.e-]+ wall_s=[0-9.]+\n$")
  message(FATAL_ERROR "cdevs bench stiff line: '${out}'")
endif()

# cdevs check: a located diagnostic and exit status 1; a clean model exits 0.
file(WRITE ${WORK}/bad.mo "model bad\n  Real x;\nequation\n  der(x) = -y;\nend bad;\n")
expect_fail(1 "bad.mo:4:13: error: unknown variable 'y'; did you mean 'x'?" check bad.mo)
expect_fail(1 "cannot open" check no-such-model.mo)
expect_fail(2 "usage: cdevs check MODEL.mo" check)
# check compiles too: what only the compiler finds (an unknown with no equation).
file(WRITE ${WORK}/noeq.mo "model noeq\n  Real x, y;\nequation\n  der(x) = -y;\nend noeq;\n")
expect_fail(1 "noeq.mo:2:11: error: no equation defines 'y'" check noeq.mo)
# A binding reading a parameter declared after it, or itself: an error (it read 0, a
# wrong answer with exit status 0).
file(WRITE ${WORK}/fwd.mo "model fwd\n  parameter Real k = 2*y;\n  parameter Real y = 3;\n  Real x(start = 1);\nequation\n  der(x) = -k*x;\nend fwd;\n")
expect_fail(1 "fwd.mo:2:24: error: 'y' is used before its declaration" check fwd.mo)
file(WRITE ${WORK}/self.mo "model self\n  parameter Real k = 1 + k;\n  Real x(start = k);\nequation\n  der(x) = -x;\nend self;\n")
expect_fail(1 "self.mo:2:26: error: 'k' is used before its declaration" check self.mo)
# One that nothing reads (QSS Solver's buck_term declares two) is a warning.
file(WRITE ${WORK}/unused.mo "model unused\n  Real x(start = 1), y;\nequation\n  der(x) = -x;\nend unused;\n")
execute_process(COMMAND ${CDEVS} check unused.mo RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORK})
if(NOT rc EQUAL 0 OR NOT out STREQUAL "unused.mo: ok (1 state)\n"
   OR NOT err MATCHES "unused.mo:2:22: warning: no equation defines 'y' and nothing reads it: it stays 0\n +Real x\\(start = 1\\), y;\n +\\^\n")
  message(FATAL_ERROR "cdevs check unused.mo: ${rc} '${out}' '${err}'")
endif()
# A block none of whose inputs is connected reads 0 for the whole run: a warning at
# the component (it was silent); one fed on some of its inputs is not.
file(WRITE ${WORK}/unfed.mo "model unfed\n  cdevs.Gain g(k = 2);\n  cdevs.WSum s(w = {1, 1});\n  Real x(start = 1);\nequation\n  der(x) = -x + g.y + s.y;\n  connect(x, s.u1);\nend unfed;\n")
execute_process(COMMAND ${CDEVS} check unfed.mo RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORK})
if(NOT rc EQUAL 0 OR NOT out STREQUAL "unfed.mo: ok (1 state)\n"
   OR NOT err MATCHES "^unfed.mo:2:14: warning: nothing is connected to Gain 'g' \\(g.u\\): it reads 0 for the whole run\n +cdevs.Gain g\\(k = 2\\);\n +\\^\n$")
  message(FATAL_ERROR "cdevs check unfed.mo: ${rc} '${out}' '${err}'")
endif()
file(WRITE ${WORK}/good.mo "model good\n  Real x(start = 1);\nequation\n  der(x) = -x;\nend good;\n")
execute_process(COMMAND ${CDEVS} check good.mo RESULT_VARIABLE rc OUTPUT_VARIABLE out
                WORKING_DIRECTORY ${WORK})
if(NOT rc EQUAL 0 OR NOT out STREQUAL "good.mo: ok (1 state)\n")
  message(FATAL_ERROR "cdevs check good.mo: ${rc} '${out}'")
endif()

# cdevs run: errors in the model file are located, bad flags exit 2, and a run
# writes its CSV and ends with the summary line.
expect_fail(1 "bad.mo:4:13: error: unknown variable 'y'" run bad.mo)
expect_fail(2 "--method needs QSS1|QSS2|QSS3|LIQSS1|LIQSS2|LIQSS3|mLIQSS1|mLIQSS2|CVODE_BDF|CVODE_AM|LIQSS_BDF, got 'RK4'" run good.mo --method RK4)
expect_fail(2 "--vars: unknown variable 'z'" run good.mo --vars z)
expect_fail(2 "--jacobian needs exact|secant, got 'newton'" run good.mo --jacobian newton)
expect_fail(2 "results are written as .csv, .mat (MAT v4) or .h5 (HDF5)" run good.mo --out r.txt)
execute_process(COMMAND ${CDEVS} run good.mo --stop 2 --out good.csv RESULT_VARIABLE rc
                ERROR_VARIABLE err WORKING_DIRECTORY ${WORK})
if(NOT rc EQUAL 0 OR NOT err MATCHES "summary: method=QSS3 states=1 transitions=[0-9]+ zero_crossings=0 wall_s=[0-9.]+ events_per_s=[0-9]+ refreshes=0\n")
  message(FATAL_ERROR "cdevs run good.mo: ${rc}\n${err}")
endif()
file(STRINGS ${WORK}/good.csv rows)
list(GET rows 0 header)
list(GET rows -1 last)
string(REGEX REPLACE "^2," "" x2 "${last}")
# x(2) = e^-2 = 0.135335 within the 1e-3 quantum (if() compares as numbers)
if(NOT header STREQUAL "time,x" OR NOT last MATCHES "^2,[0-9.eE+-]+$" OR x2 LESS 0.134335 OR x2 GREATER 0.136335)
  message(FATAL_ERROR "good.csv: '${header}' … '${last}' (x(2) = e^-2 = 0.1353)")
endif()

# --vars takes array names and subscripts with ranges, as MMO_Output does.
file(WRITE ${WORK}/arr.mo "model arr\n  Real x[6](each start = 1);\n  Real m[2,3](each start = 0);\nequation\n  for i in 1:6 loop\n    der(x[i]) = -x[i];\n  end for;\n  for i in 1:2 loop\n    for j in 1:3 loop\n      der(m[i,j]) = 1;\n    end for;\n  end for;\nend arr;\n")
# Names with a comma are quoted as RFC 4180 asks, so the header has as many fields as
# the rows (unquoted, m[2,1] was two fields).
foreach(case "x[2:2:6], m[2,:]|time,x[2],x[4],x[6],\"m[2,1]\",\"m[2,2]\",\"m[2,3]\""
             "x|time,x[1],x[2],x[3],x[4],x[5],x[6]"
             "m[:,3],x[ 1 ]|time,\"m[1,3]\",\"m[2,3]\",x[1]")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 vars)
  list(GET parts 1 want)
  execute_process(COMMAND ${CDEVS} run arr.mo --stop 0.1 --vars "${vars}" --out arr.csv --quiet
                  RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${WORK})
  file(STRINGS ${WORK}/arr.csv rows LIMIT_COUNT 1)
  if(NOT rc EQUAL 0 OR NOT rows STREQUAL "${want}")
    message(FATAL_ERROR "--vars '${vars}': ${rc} '${rows}', expected '${want}'\n${err}")
  endif()
endforeach()
expect_fail(2 "--vars: bad subscript in 'x[1:a]'" run arr.mo --vars "x[1:a]")
expect_fail(2 "--vars: unknown variable 'x[7:9]'" run arr.mo --vars "x[7:9]")
expect_fail(2 "--vars: unknown variable 'm[1]'" run arr.mo --vars "m[1]")

# list-blocks prints the compiler's own table: every block it lists is one a model
# file can declare, with the parameters the declaration takes.
execute_process(COMMAND ${CDEVS} list-blocks RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "Integrator +in: u  out: y  params: method [^\n]*, x0, dqrel, dqmin\n")
  message(FATAL_ERROR "cdevs list-blocks: '${out}'")
endif()
string(REGEX MATCHALL "(^|\n)[A-Za-z]+" names "${out}")
list(LENGTH names nblocks)
if(nblocks LESS 20)
  message(FATAL_ERROR "cdevs list-blocks lists ${nblocks} blocks")
endif()
foreach(name IN LISTS names)
  string(STRIP "${name}" name)
  file(WRITE ${WORK}/block_${name}.mo "model m\n  cdevs.${name} b;\nend m;\n")
  execute_process(COMMAND ${CDEVS} check ${WORK}/block_${name}.mo RESULT_VARIABLE rc ERROR_VARIABLE err)
  # (a block with a parameter that has no default may say it needs it: a Decide its
  # chances; one whose outputs carry entities, that they must be connected)
  if(NOT rc EQUAL 0 AND NOT err MATCHES "block_${name}.mo:2:[0-9]+: error: (b: an? ${name} needs |'b.out' is connected to nothing)")
    message(FATAL_ERROR "cdevs list-blocks lists ${name}, which a model cannot declare:\n${err}")
  endif()
endforeach()

# An error inside the quiet events an equation system takes within one transition
# (y reads log(x), x = 1 - t; only z = t is an output): it is reported where it
# happens, once x has crossed 0 at t = 1 (within a few quanta), not at the time of the
# transition that took it, and the results reach there.
file(WRITE ${WORK}/logx.mo "model logx\n  Real x(start = 1), y(start = 0), z(start = 0);\nequation\n  der(x) = -1;\n  der(y) = log(x);\n  der(z) = 1;\n  annotation(experiment(StopTime = 2));\nend logx;\n")
execute_process(COMMAND ${CDEVS} run logx.mo --vars z --out logx.csv --quiet RESULT_VARIABLE rc
                ERROR_VARIABLE err WORKING_DIRECTORY ${WORK})
string(REGEX MATCH "t=([0-9.e+-]+): model '[^']*': der\\(y\\)" m "${err}")
set(t_err "${CMAKE_MATCH_1}")
file(STRINGS ${WORK}/logx.csv rows)
list(GET rows -1 last)
string(REGEX MATCH "^[0-9.e+-]+" t_last "${last}")
if(NOT rc EQUAL 1 OR t_err STREQUAL "" OR t_err LESS 1 OR t_err GREATER 1.01 OR t_last LESS 1)
  message(FATAL_ERROR "logx.mo: exit ${rc}, error at '${t_err}', results to '${t_last}'\n${err}")
endif()

# Results that cannot be valid are not a success (issue 17): bball run far past its
# accumulation of impacts (12.8506) stops there, named; told to go on, its values at
# t = 1e308 overflow, and that is an error too, with the file kept up to there.
expect_fail(1 "Zeno behaviour: the condition at" run ${SRC}/examples/bball/bball.mo --stop 1e308 --quiet --out ${WORK}/zeno.csv)
expect_fail(1 "'y' is -inf at t=1e+308" run ${SRC}/examples/bball/bball.mo --stop 1e308 --zeno continue --quiet --out ${WORK}/zeno.csv)
expect_fail(2 "--zeno needs stop|continue" run ${SRC}/examples/bball/bball.mo --zeno maybe)

# --trace writes through a symbolic link under a unique temporary name, as --out does
# (it replaced the link with a file, and two runs shared one F.part).
file(REMOVE ${WORK}/trace_target.csv ${WORK}/trace_link.csv)
file(CREATE_LINK ${WORK}/trace_target.csv ${WORK}/trace_link.csv SYMBOLIC)
execute_process(COMMAND ${CDEVS} example efp --observe 5 --trace ${WORK}/trace_link.csv
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT IS_SYMLINK ${WORK}/trace_link.csv OR NOT EXISTS ${WORK}/trace_target.csv)
  message(FATAL_ERROR "--trace through a link: exit ${rc}, the link or its target is gone")
endif()
# (Only its own: tests running beside this one write theirs in WORK meanwhile.)
file(GLOB parts ${WORK}/.trace_*.part ${WORK}/trace_*.part)
if(parts)
  message(FATAL_ERROR "temporary files left: ${parts}")
endif()

# So does `cdevs example flyback --out`.
file(REMOVE ${WORK}/fb_target.csv ${WORK}/fb_link.csv)
file(CREATE_LINK ${WORK}/fb_target.csv ${WORK}/fb_link.csv SYMBOLIC)
execute_process(COMMAND ${CDEVS} example flyback --stop 1e-4 --out ${WORK}/fb_link.csv
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT IS_SYMLINK ${WORK}/fb_link.csv OR NOT EXISTS ${WORK}/fb_target.csv)
  message(FATAL_ERROR "example flyback --out through a link: exit ${rc}, the link or its target is gone")
endif()
