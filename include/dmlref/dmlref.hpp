#pragma once
/// \file dmlref.hpp
/// The CPU library: types, tensor descs, strided views, the operators over views and over
/// DirectML descs. The verification helpers (compare.hpp, format.hpp, npy.hpp, catch2.hpp) and the
/// D3D12 backend are separate, opt-in headers.

#include "data_type.hpp"        // IWYU pragma: export
#include "error.hpp"            // IWYU pragma: export
#include "indexed.hpp"          // IWYU pragma: export
#include "operator.hpp"         // IWYU pragma: export
#include "ops/depth_space.hpp"  // IWYU pragma: export
#include "ops/identity.hpp"     // IWYU pragma: export
#include "ops/join_split.hpp"   // IWYU pragma: export
#include "ops/padding.hpp"      // IWYU pragma: export
#include "ops/reverse_subsequences.hpp" // IWYU pragma: export
#include "ops/slice.hpp"        // IWYU pragma: export
#include "ops/slice_grad.hpp"   // IWYU pragma: export
#include "ops/tile.hpp"         // IWYU pragma: export
#include "ops/upsample.hpp"     // IWYU pragma: export
#include "strided_view.hpp"     // IWYU pragma: export
#include "tensor_desc.hpp"      // IWYU pragma: export
