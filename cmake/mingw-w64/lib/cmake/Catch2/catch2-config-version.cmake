# The version of the host's Catch2 (its own version file decides).
set(dmlref_host_version_file "/usr/lib/cmake/Catch2/Catch2ConfigVersion.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/../../../host_version.cmake")
