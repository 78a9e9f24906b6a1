# nlohmann-json for the cross build, from the host's headers.
include("${CMAKE_CURRENT_LIST_DIR}/../../../host_headers.cmake")
dmlref_host_headers(nlohmann_json::nlohmann_json nlohmann)
set(nlohmann_json_VERSION ${PACKAGE_VERSION})
