# The optional D3D12 backend: target dmlref::d3d12 (header-only, separate from dmlref::dmlref).
#   DMLREF_D3D12=AUTO  build it where a D3D12 implementation is found, else say why it is skipped
#   DMLREF_D3D12=ON    fail the configure step when none is found
#   DMLREF_D3D12=OFF   never build it
# On Windows the implementation is the system's d3d12.dll (and dxgi.dll to choose an adapter). On
# Linux it is vkd3d (libvkd3d-utils) with a Vulkan loader and a Vulkan driver (Mesa's lavapipe runs
# it on the CPU).
set(DMLREF_D3D12 AUTO CACHE STRING "Build the D3D12 backend: AUTO, ON or OFF")
set_property(CACHE DMLREF_D3D12 PROPERTY STRINGS AUTO ON OFF)

function(dmlref_d3d12_skip reason)
  if(DMLREF_D3D12 STREQUAL "ON")
    message(FATAL_ERROR "dmlref: DMLREF_D3D12=ON but the D3D12 backend cannot be built: ${reason}")
  endif()
  message(STATUS "dmlref: D3D12 backend skipped: ${reason}")
  set(DMLREF_HAVE_D3D12 OFF PARENT_SCOPE)
endfunction()

set(DMLREF_HAVE_D3D12 OFF)
if(DMLREF_D3D12 STREQUAL "OFF")
  message(STATUS "dmlref: D3D12 backend off (DMLREF_D3D12=OFF)")
elseif(WIN32)
  add_library(dmlref_d3d12 INTERFACE)
  # d3d12: D3D12CreateDevice and D3D12SerializeRootSignature; dxgi: the adapter choices.
  target_link_libraries(dmlref_d3d12 INTERFACE dmlref::dmlref d3d12 dxgi)
  set(DMLREF_HAVE_D3D12 ON)
else()
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(DMLREF_VKD3D QUIET IMPORTED_TARGET libvkd3d-utils)
  endif()
  find_path(DMLREF_VULKAN_INCLUDE vulkan/vulkan.h)
  file(GLOB dmlref_vulkan_icds /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json
       /usr/local/share/vulkan/icd.d/*.json)
  if(NOT DMLREF_VKD3D_FOUND)
    dmlref_d3d12_skip("vkd3d-utils not found by pkg-config (Debian: apt-get install libvkd3d-dev)")
  elseif(NOT DMLREF_VULKAN_INCLUDE)
    dmlref_d3d12_skip("<vulkan/vulkan.h> not found; vkd3d's headers include it (Debian: apt-get install libvulkan-dev)")
  elseif(NOT dmlref_vulkan_icds)
    dmlref_d3d12_skip("no Vulkan driver (ICD) found (Debian: apt-get install mesa-vulkan-drivers for lavapipe)")
  else()
    add_library(dmlref_d3d12 INTERFACE)
    target_link_libraries(dmlref_d3d12 INTERFACE dmlref::dmlref PkgConfig::DMLREF_VKD3D)
    # vkd3d_windows.h defines min and max macros otherwise.
    target_compile_definitions(dmlref_d3d12 INTERFACE NOMINMAX)
    set(DMLREF_HAVE_D3D12 ON)
  endif()
endif()

if(DMLREF_HAVE_D3D12)
  add_library(dmlref::d3d12 ALIAS dmlref_d3d12)
  target_include_directories(dmlref_d3d12 INTERFACE "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>")
  message(STATUS "dmlref: D3D12 backend enabled (target dmlref::d3d12)")
endif()

# dmlref_strict for targets that call D3D12: UBSan's vptr check must stay off there, because
# vkd3d's interfaces are C structs with a function table, not C++ objects with RTTI (every COM
# call would be reported as a "member call on an object of invalid vptr").
function(dmlref_d3d12_strict target)
  dmlref_strict(${target})
  if(DMLREF_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -fno-sanitize=vptr)
  endif()
endfunction()
