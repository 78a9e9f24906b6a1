# The version of the host's nlohmann_json (its own version file decides).
set(dmlref_host_version_file "/usr/share/cmake/nlohmann_json/nlohmann_jsonConfigVersion.cmake")
if(NOT EXISTS "${dmlref_host_version_file}")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  set(PACKAGE_VERSION "0")
  return()
endif()
include("${dmlref_host_version_file}")
