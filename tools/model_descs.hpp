#pragma once
/// \file model_descs.hpp
/// Operator descs in DxDispatch's JSON, read and written: a dispatchable's "desc" object per
/// operator with DxDispatch's field names, and the names its tensors bind by. Private to the model
/// reader (tools/model*.cpp); parse_dispatchable, dispatchable_json and single_operator_model are
/// its public face (model.hpp).

#include <string_view>
#include <utility>

#include "model_json.hpp"

namespace dmlref::model::internal {

/// The names DirectML (and DxDispatch's desc fields and bindings) give the op's two tensors.
std::pair<std::string_view, std::string_view> tensor_names(const operator_desc& desc);

/// A dispatchable, {"type": "DML_OPERATOR_...", "desc": {...}}, at `where`; not validated.
operator_desc dispatchable_field(const json& value, const at& where);

} // namespace dmlref::model::internal
