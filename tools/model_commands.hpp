#pragma once
/// \file model_commands.hpp
/// A model's commands (dispatch, print, writeFile): read and checked against the model's
/// resources and dispatchables before anything runs. Running them is run() (model.hpp). Private
/// to the model reader (tools/model*.cpp).

#include "model_files.hpp"
#include "model_json.hpp"

namespace dmlref::model::internal {

/// The command `c` at `where`: every resource it names exists, a dispatch's bindings fit its
/// desc at `level` (validated against the bound buffers), a writeFile's target may be written.
command command_field(const model& m, const json& c, const at& where, const path_rule& rule, feature_level level);

} // namespace dmlref::model::internal
