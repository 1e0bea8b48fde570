# SPDX-License-Identifier: MIT
# `cmake --install` gives the command, its man page, the library with cdevs.pc and
# cdevsConfig.cmake, and a program finds and links the library both ways. SUNDIALS
# belongs to the command only: neither the library nor its build files name it.
set(P ${WORK}/install/prefix)
file(REMOVE_RECURSE ${WORK}/install)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BIN} --prefix ${P} RESULT_VARIABLE rc OUTPUT_QUIET
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install: ${rc}\n${err}")
endif()
file(GLOB_RECURSE pc ${P}/*/pkgconfig/cdevs.pc)
file(GLOB_RECURSE cfg ${P}/*/cmake/cdevs/cdevsConfig.cmake)
file(GLOB_RECURSE so ${P}/*/libcdevs.so)
foreach(f ${P}/bin/cdevs ${P}/share/man/man1/cdevs.1 ${P}/include/cdevs/cdevs.h ${P}/include/cdevs/version.h
          "${pc}" "${cfg}" "${so}")
  if(NOT EXISTS "${f}" OR f STREQUAL "")
    message(FATAL_ERROR "cmake --install did not install '${f}'")
  endif()
endforeach()

# The man page is well-formed roff and documents the exit statuses.
# The tools the checks below use: tools/deps.sh installs them, so a missing one is an
# error, not a check quietly skipped.
foreach(tool groff readelf nm pkg-config cc)
  find_program(found_${tool} ${tool})
  if(NOT found_${tool})
    message(FATAL_ERROR "the install test needs ${tool} (tools/deps.sh installs it)")
  endif()
endforeach()
execute_process(COMMAND ${found_groff} -man -ww -z ${P}/share/man/man1/cdevs.1 RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
  message(FATAL_ERROR "groff on cdevs.1: ${rc}\n${err}")
endif()
file(READ ${P}/share/man/man1/cdevs.1 man)
foreach(needle "EXIT STATUS" ".B 130" "SIGTERM" "results/")
  string(FIND "${man}" "${needle}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "cdevs.1 lacks '${needle}'")
  endif()
endforeach()

# No SUNDIALS in the library or in what its users link.
file(READ "${pc}" pctext)
file(GLOB targets ${P}/*/cmake/cdevs/cdevsTargets*.cmake)
set(alltext "${pctext}")
foreach(t ${targets})
  file(READ ${t} tt)
  string(APPEND alltext "${tt}")
endforeach()
execute_process(COMMAND ${found_readelf} -d "${so}" OUTPUT_VARIABLE dyn)
string(APPEND alltext "${dyn}")
# The one C++ unit (src/io/shortest.cc) needs no C++ runtime: the library stays C.
if(dyn MATCHES "libstdc\\+\\+")
  message(FATAL_ERROR "libcdevs.so needs the C++ runtime:\n${dyn}")
endif()
string(TOLOWER "${alltext}" alltext)
string(FIND "${alltext}" "sundials" pos)
if(NOT pos EQUAL -1)
  message(FATAL_ERROR "SUNDIALS reaches the library's users:\n${alltext}")
endif()

# The shared library exports the public API only: every defined dynamic symbol is
# cdevs_<module>_… (no cdevs__ internals, no lang_/arena_ helpers).
execute_process(COMMAND ${found_nm} -D --defined-only "${so}" OUTPUT_VARIABLE syms RESULT_VARIABLE nmrc)
if(NOT nmrc EQUAL 0)
  message(FATAL_ERROR "nm -D failed on ${so}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${syms}")
set(bad "")
set(good 0)
foreach(l ${lines})
  string(REGEX REPLACE "^.* " "" sym "${l}")
  if(sym MATCHES "^cdevs_[a-z]")
    math(EXPR good "${good} + 1")
  elseif(NOT l MATCHES " [A-Z] (_init|_fini)$" AND NOT l MATCHES " A ")
    list(APPEND bad "${sym}")
  endif()
endforeach()
if(bad OR good LESS 50)
  message(FATAL_ERROR "libcdevs.so exports ${good} API symbols and these others: ${bad}")
endif()

# A sanitizer build's library needs the sanitizer runtime in its users too.
set(san_flags "")
if(SANITIZE)
  set(san_flags -fsanitize=address,undefined)
endif()

# pkg-config, from the installed prefix (cdevs.pc is relocatable).
get_filename_component(pcdir "${pc}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
execute_process(COMMAND ${found_pkg-config} --cflags --libs cdevs OUTPUT_VARIABLE flags RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
separate_arguments(flags UNIX_COMMAND "${flags}")
execute_process(COMMAND ${found_cc} ${SRC}/tests/install/consumer.c ${flags} ${san_flags} -lm -o ${WORK}/install/pc_consumer
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cc with pkg-config's flags (${flags}): ${rc}\n${err}")
endif()
get_filename_component(libdir "${so}" DIRECTORY)
set(ENV{LD_LIBRARY_PATH} "${libdir}")
execute_process(COMMAND ${WORK}/install/pc_consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^cdevs [0-9]+\\.[0-9]+\\.[0-9]+\n$")
  message(FATAL_ERROR "the pkg-config consumer: ${rc} '${out}'")
endif()

# find_package(cdevs) in another project, static and shared.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/tests/install -B ${WORK}/install/build
                        -DCMAKE_PREFIX_PATH=${P} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=${san_flags}"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/install/build RESULT_VARIABLE rc OUTPUT_VARIABLE err
                  ERROR_VARIABLE err)
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "find_package(cdevs) project: ${rc}\n${err}")
endif()
foreach(kind static shared)
  execute_process(COMMAND ${WORK}/install/build/consumer_${kind} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^cdevs [0-9]+\\.[0-9]+\\.[0-9]+\n$")
    message(FATAL_ERROR "consumer_${kind}: ${rc} '${out}'")
  endif()
endforeach()

# The command's optional modules (src/cli/modules.h) are installed beside the library
# and found from the installed command, wherever the prefix is: HDF5 results from
# cdevs-hdf5.so.
file(GLOB_RECURSE h5mod ${P}/*/cdevs/cdevs-hdf5.so)
if(EXISTS ${BIN}/cdevs-hdf5.so)
  if(NOT h5mod)
    message(FATAL_ERROR "cmake --install did not install cdevs-hdf5.so")
  endif()
  file(WRITE ${WORK}/install/decay.mo "model decay\n  Real x(start = 1);\nequation\n  der(x) = -x;\nend decay;\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=CDEVS_MODULE_DIR ${P}/bin/cdevs run decay.mo --out d.h5
                          --quiet
                  RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${WORK}/install)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/install/d.h5)
    message(FATAL_ERROR "the installed cdevs could not write HDF5 results: ${rc}\n${err}")
  endif()
endif()
