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

/// Every operator dmlref implements, in the enum's (DirectML's) order.
inline constexpr operator_type all_operator_types[] = {
    operator_type::element_wise_identity, operator_type::slice,           operator_type::split,
    operator_type::join,                  operator_type::padding,         operator_type::upsample_2d,
    operator_type::gather,                operator_type::space_to_depth,  operator_type::depth_to_space,
    operator_type::tile,                  operator_type::scatter_elements, operator_type::one_hot,
    operator_type::reverse_subsequences,  operator_type::gather_elements, operator_type::gather_nd,
    operator_type::scatter_nd,            operator_type::slice1,          operator_type::depth_to_space1,
    operator_type::space_to_depth1,       operator_type::slice_grad,      operator_type::gather_nd1,
    operator_type::padding1};

} // namespace dmlref
