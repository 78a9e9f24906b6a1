# Catch2 v2 for the cross build: the single header from the host, and the host's Catch.cmake
# (catch_discover_tests runs the tests through CMAKE_CROSSCOMPILING_EMULATOR).
include("${CMAKE_CURRENT_LIST_DIR}/../../../host_headers.cmake")
dmlref_host_headers(Catch2::Catch2 catch2)
set(Catch2_VERSION ${PACKAGE_VERSION})
find_path(DMLREF_HOST_CATCH_CMAKE Catch.cmake PATHS /usr/lib/cmake/Catch2 /usr/share/cmake/Catch2 /usr/local/lib/cmake/Catch2
          NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
if(NOT DMLREF_HOST_CATCH_CMAKE)
  message(FATAL_ERROR "dmlref: Catch2's Catch.cmake not found on the host (Debian: apt-get install catch2)")
endif()
list(APPEND CMAKE_MODULE_PATH "${DMLREF_HOST_CATCH_CMAKE}")
