# The version of the host's CLI11 (its own version file decides).
set(dmlref_host_version_file "/usr/share/cmake/CLI11/CLI11ConfigVersion.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/../../../host_version.cmake")
