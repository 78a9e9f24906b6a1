# Runs one packaging test: cmake -DMODE=find_package|add_subdirectory -DDMLREF_SOURCE_DIR=...
#   -DWORK_DIR=... -DGENERATOR=... [-DMAKE_PROGRAM=...] -DCXX_COMPILER=... [-DPREFIX_PATH=a|b]
#   [-DTOOLCHAIN_FILE=...] [-DEMULATOR=program|arg] [-DCXX_FLAGS=...] [-DFMT_HEADER_ONLY=ON]
#   [-DTARGET=dmlref::dmlref|dmlref::compiled] [-DCONSUMER=gtest] [-DPREFIX=...] -P this file
# find_package: configures dmlref alone, installs it (cmake --install) into WORK_DIR/prefix, then
# builds and runs the consumer against that prefix. installed: the same against the install in
# PREFIX that another packaging test made (find_package's), without installing again. The consumer links TARGET (default dmlref::dmlref). add_subdirectory: builds and runs the consumer
# that embeds the source tree. Both build as the main build does: its compiler, toolchain file,
# flags and fmt choice, and the consumer runs through the main build's CMAKE_CROSSCOMPILING_EMULATOR
# (a cross build cannot run it otherwise).
foreach(var MODE DMLREF_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_packaging_test.cmake needs -D${var}=...")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(common_args -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Release)
if(MAKE_PROGRAM)
  list(APPEND common_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(TOOLCHAIN_FILE)
  list(APPEND common_args "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_FILE}")
endif()
if(NOT "${CXX_FLAGS}" STREQUAL "") # set only when set: an empty one would hide the toolchain's _INIT flags
  list(APPEND common_args "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
endif()
if(FMT_HEADER_ONLY)
  list(APPEND common_args -DDMLREF_FMT_HEADER_ONLY=ON)
endif()
# The emulator travels "|"-separated, as the prefix path; a one-word emulator also reaches the
# consumer's configure (a longer one comes with the toolchain file, which usually sets it).
string(REPLACE "|" ";" emulator "${EMULATOR}")
list(LENGTH emulator emulator_words)
if(emulator_words EQUAL 1)
  list(APPEND common_args "-DCMAKE_CROSSCOMPILING_EMULATOR=${emulator}")
endif()

function(run step)
  message(STATUS "[${MODE}] ${step}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "[${MODE}] ${step} failed (${result})")
  endif()
endfunction()

string(REPLACE "|" ";" prefix_path "${PREFIX_PATH}")
if(MODE STREQUAL "find_package")
  set(prefix "${WORK_DIR}/prefix")
  run(configure-dmlref "${CMAKE_COMMAND}" -S "${DMLREF_SOURCE_DIR}" -B "${WORK_DIR}/dmlref-build" ${common_args}
      -DDMLREF_BUILD_TESTS=OFF -DDMLREF_BUILD_EXAMPLES=OFF -DDMLREF_BUILD_TOOLS=OFF -DDMLREF_BUILD_BENCH=OFF
      "-DCMAKE_PREFIX_PATH=${prefix_path}")
  run(build-dmlref "${CMAKE_COMMAND}" --build "${WORK_DIR}/dmlref-build" --parallel 2) # dmlref::compiled
  run(install-dmlref "${CMAKE_COMMAND}" --install "${WORK_DIR}/dmlref-build" --prefix "${prefix}")
  if(NOT EXISTS "${prefix}/include/dmlref/dmlref.hpp")
    message(FATAL_ERROR "[${MODE}] the install has no include/dmlref/dmlref.hpp")
  endif()
  list(PREPEND prefix_path "${prefix}")
  set(consumer_args "-DCMAKE_PREFIX_PATH=${prefix_path}")
elseif(MODE STREQUAL "installed")
  if(NOT EXISTS "${PREFIX}/include/dmlref/dmlref.hpp")
    message(FATAL_ERROR "[${MODE}] no dmlref installed in '${PREFIX}'")
  endif()
  list(PREPEND prefix_path "${PREFIX}")
  set(consumer_args "-DCMAKE_PREFIX_PATH=${prefix_path}")
elseif(MODE STREQUAL "add_subdirectory")
  set(consumer_args "-DDMLREF_SOURCE_DIR=${DMLREF_SOURCE_DIR}" "-DCMAKE_PREFIX_PATH=${prefix_path}")
else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()

if(NOT TARGET)
  set(TARGET dmlref::dmlref)
endif()
list(APPEND consumer_args "-DDMLREF_TARGET=${TARGET}")

# The consumer project: the mode's own, or CONSUMER's (gtest: a GoogleTest suite).
if(CONSUMER)
  set(consumer_dir "${CMAKE_CURRENT_LIST_DIR}/${CONSUMER}")
else()
  set(consumer_dir "${CMAKE_CURRENT_LIST_DIR}/${MODE}")
endif()
run(configure-consumer "${CMAKE_COMMAND}" -S "${consumer_dir}" -B "${WORK_DIR}/consumer-build" ${common_args}
    ${consumer_args})
run(build-consumer "${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer-build" --parallel 2)
find_program(app NAMES app app.exe PATHS "${WORK_DIR}/consumer-build" "${WORK_DIR}/consumer-build/Release"
             NO_DEFAULT_PATH REQUIRED)
run(run-consumer ${emulator} "${app}")
