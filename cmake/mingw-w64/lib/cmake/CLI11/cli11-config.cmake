# CLI11 for the cross build, from the host's headers.
include("${CMAKE_CURRENT_LIST_DIR}/../../../host_headers.cmake")
dmlref_host_headers(CLI11::CLI11 CLI)
set(CLI11_VERSION ${PACKAGE_VERSION})
