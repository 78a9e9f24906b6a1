# d3d12.dxbc.host_vkd3d: the cross-built DXBC emitter's containers judged by the host's vkd3d.
#   cmake -DEMULATOR=wine64-run.sh -DPROGRAM=test_d3d12_dxbc.exe -DVKD3D_COMPILER=vkd3d-compiler -DOUT=dir
#         -DFAMILIES=n -P judge_dxbc.cmake
# The program (through the emulator) writes every container into OUT: <name>.good.dxbc as emitted
# and <name>.bad<word>.dxbc with one checksum bit flipped. vkd3d-compiler, which verifies DXBC's
# checksum, must read every good one and refuse every bad one; the counts must be the emitter's
# containers (the empty shader and FAMILIES kernel families x 4 widths) and two spoilt copies of each.
foreach(var IN ITEMS PROGRAM VKD3D_COMPILER OUT FAMILIES)
  if(NOT ${var})
    message(FATAL_ERROR "judge_dxbc.cmake: ${var} is not set")
  endif()
endforeach()
string(REPLACE "|" ";" emulator "${EMULATOR}")

file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env "DMLREF_DXBC_OUT=${OUT}"
                        ${emulator} "${PROGRAM}" "dxbc: write every container for the host's vkd3d-compiler"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} could not write the containers (exit ${rc}):\n${out}")
endif()

file(GLOB good "${OUT}/*.good.dxbc")
file(GLOB bad "${OUT}/*.bad*.dxbc")
list(LENGTH good good_count)
list(LENGTH bad bad_count)
set(failures "")
math(EXPR want_good "1 + 4 * ${FAMILIES}")
math(EXPR want_bad "2 * ${want_good}")
if(NOT good_count EQUAL want_good OR NOT bad_count EQUAL want_bad)
  string(APPEND failures
         "expected ${want_good} good and ${want_bad} spoilt containers, found ${good_count} and ${bad_count}\n")
endif()
foreach(blob IN LISTS good bad)
  execute_process(COMMAND "${VKD3D_COMPILER}" -x dxbc-tpf -b spirv-binary -o "${blob}.spv" "${blob}"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  get_filename_component(name "${blob}" NAME)
  if(name MATCHES "\\.good\\.dxbc$" AND NOT rc EQUAL 0)
    string(APPEND failures "vkd3d-compiler refused ${name} (exit ${rc})\n")
  elseif(name MATCHES "\\.bad[0-9]+\\.dxbc$" AND rc EQUAL 0)
    string(APPEND failures "vkd3d-compiler read ${name}, whose checksum is wrong\n")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "vkd3d-compiler read all ${good_count} containers and refused all ${bad_count} spoilt ones")
