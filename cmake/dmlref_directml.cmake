# The optional DirectML backend: target dmlref::directml (header-only, Windows only). It loads
# DirectML.dll at run time (no import library, no DirectML.h: include/dmlref/directml/abi.hpp
# declares what it uses), on the D3D12 backend's device.
#   DMLREF_DIRECTML=AUTO  build it where the D3D12 backend is built for Windows
#   DMLREF_DIRECTML=OFF   never build it
set(DMLREF_DIRECTML AUTO CACHE STRING "Build the DirectML backend (Windows only): AUTO or OFF")
set_property(CACHE DMLREF_DIRECTML PROPERTY STRINGS AUTO OFF)

set(DMLREF_HAVE_DIRECTML OFF)
if(NOT DMLREF_DIRECTML STREQUAL "OFF" AND WIN32 AND DMLREF_HAVE_D3D12)
  add_library(dmlref_directml INTERFACE)
  add_library(dmlref::directml ALIAS dmlref_directml)
  target_link_libraries(dmlref_directml INTERFACE dmlref::d3d12)
  set(DMLREF_HAVE_DIRECTML ON)
  message(STATUS "dmlref: DirectML backend enabled (target dmlref::directml)")
elseif(NOT DMLREF_DIRECTML STREQUAL "OFF")
  message(STATUS "dmlref: DirectML backend skipped: it needs a Windows build with the D3D12 backend")
endif()
