# The version of the host's CLI11 (its own version file decides).
set(dmlref_host_version_file "/usr/share/cmake/CLI11/CLI11ConfigVersion.cmake")
if(NOT EXISTS "${dmlref_host_version_file}")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  set(PACKAGE_VERSION "0")
  return()
endif()
include("${dmlref_host_version_file}")
