# The cross build's view of a header-only dependency installed on the host (Debian's
# /usr/include): the one folder or file is linked into <build>/host-headers, and only that folder
# goes on the include path. /usr/include itself must not: its glibc headers would shadow mingw's.
set(DMLREF_HOST_INCLUDE_DIR /usr/include CACHE PATH "Where the host's header-only dependencies are (cross builds)")

# dmlref_host_headers(<target> <entry>...): an INTERFACE IMPORTED target whose include folder
# holds links to <DMLREF_HOST_INCLUDE_DIR>/<entry> for each entry.
function(dmlref_host_headers target)
  if(TARGET ${target})
    return()
  endif()
  set(dir "${CMAKE_BINARY_DIR}/host-headers/${target}")
  string(REPLACE "::" "_" dir "${dir}")
  foreach(entry IN LISTS ARGN)
    if(NOT EXISTS "${DMLREF_HOST_INCLUDE_DIR}/${entry}")
      message(FATAL_ERROR "dmlref: ${DMLREF_HOST_INCLUDE_DIR}/${entry} not found (needed by ${target})")
    endif()
    get_filename_component(parent "${dir}/${entry}" DIRECTORY)
    file(MAKE_DIRECTORY "${parent}")
    if(NOT EXISTS "${dir}/${entry}")
      file(CREATE_LINK "${DMLREF_HOST_INCLUDE_DIR}/${entry}" "${dir}/${entry}" SYMBOLIC)
    endif()
  endforeach()
  add_library(${target} INTERFACE IMPORTED)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${dir}")
endfunction()
