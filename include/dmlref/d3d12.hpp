#pragma once
/// \file d3d12.hpp
/// The optional D3D12 backend (target dmlref::d3d12): dmlref's operators as compute shaders run
/// through Direct3D 12 (on Linux: vkd3d on a Vulkan driver), checked against the CPU reference.
/// Not part of dmlref.hpp. See docs/d3d12.md.

#include "d3d12/platform.hpp" // first: it configures the vkd3d headers

#include "d3d12/context.hpp"
#include "d3d12/dxbc.hpp"
#include "d3d12/kernels.hpp"
