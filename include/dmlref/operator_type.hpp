#pragma once
/// \file operator_type.hpp
/// DML_OPERATOR_TYPE's values for the operators dmlref implements: operator.hpp's desc layer and
/// the ops headers whose descs it takes (ops/gather.hpp, ops/scatter.hpp, ops/one_hot.hpp) name them.

#include <cstdint>

namespace dmlref {

/// DML_OPERATOR_TYPE values of the operators dmlref implements.
enum class operator_type : std::uint32_t {
    element_wise_identity = 1,
    slice = 60,
    split = 62,
    join = 63,
    padding = 64,
    upsample_2d = 66,
    gather = 67,
    space_to_depth = 68,
    depth_to_space = 69,
    tile = 70,
    scatter_elements = 94, ///< DML_OPERATOR_SCATTER_ELEMENTS, also named DML_OPERATOR_SCATTER
    one_hot = 95,
    reverse_subsequences = 106,
    gather_elements = 107,
    gather_nd = 108,
    scatter_nd = 109,
    slice1 = 111,
    depth_to_space1 = 113,
    space_to_depth1 = 114,
    slice_grad = 135,
    gather_nd1 = 140,
    padding1 = 155,
};

} // namespace dmlref
