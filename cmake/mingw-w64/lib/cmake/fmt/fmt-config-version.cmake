# The version of the host's fmt (its own version file decides).
set(dmlref_host_version_file "/usr/lib/x86_64-linux-gnu/cmake/fmt/fmt-config-version.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/../../../host_version.cmake")
