# The body of the cross build's config-version files: the host's own version file, named in
# dmlref_host_version_file, decides the version; where it is missing the package is unsuitable.
if(NOT EXISTS "${dmlref_host_version_file}")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  set(PACKAGE_VERSION "0")
else()
  include("${dmlref_host_version_file}")
endif()
