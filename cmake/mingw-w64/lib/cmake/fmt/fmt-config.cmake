# fmt for the cross build: header-only (FMT_HEADER_ONLY), from the host's headers.
include("${CMAKE_CURRENT_LIST_DIR}/../../../host_headers.cmake")
dmlref_host_headers(fmt::fmt fmt)
set_property(TARGET fmt::fmt APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
if(NOT TARGET fmt::fmt-header-only)
  add_library(fmt::fmt-header-only ALIAS fmt::fmt)
endif()
set(fmt_VERSION ${PACKAGE_VERSION})
