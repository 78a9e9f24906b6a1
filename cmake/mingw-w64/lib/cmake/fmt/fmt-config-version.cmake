# The version of the host's fmt (its own version file decides).
set(dmlref_host_version_file "/usr/lib/x86_64-linux-gnu/cmake/fmt/fmt-config-version.cmake")
if(NOT EXISTS "${dmlref_host_version_file}")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  set(PACKAGE_VERSION "0")
  return()
endif()
include("${dmlref_host_version_file}")
