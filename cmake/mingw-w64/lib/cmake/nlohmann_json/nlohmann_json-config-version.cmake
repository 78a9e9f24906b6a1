# The version of the host's nlohmann_json (its own version file decides).
set(dmlref_host_version_file "/usr/share/cmake/nlohmann_json/nlohmann_jsonConfigVersion.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/../../../host_version.cmake")
