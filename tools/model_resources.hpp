#pragma once
/// \file model_resources.hpp
/// A model's resources planned before anything is allocated: where each one's values come from,
/// what it and its reading take, the sum held against the memory budget, then one arena for all
/// of them. Private to the model reader (tools/model*.cpp).

#include <cstdint>
#include <map>
#include <string>

#include "model_files.hpp"
#include "model_json.hpp"

namespace dmlref::model::internal {

/// The memory a model's reading may take, and where that figure came from.
struct memory_budget {
    std::uint64_t bytes = 0;
    bool from_option = false; ///< set by --max-memory (load_options::max_memory), not measured

    /// "exceeds the memory budget of N bytes (...)": the end of every refusal for memory.
    std::string exceeded() const;
};

/// Plans every resource of the `resources` object (at `where`), checks each running sum, from
/// `resident` bytes already taken (the JSON), against the budget before anything is allocated,
/// then places them all in one arena, each on its own 64 KiB boundary, and writes their values.
std::map<std::string, resource, std::less<>> load_resources(const json& resources, const at& where, const path_rule& rule,
                                                            std::uint64_t resident, const memory_budget& budget);

} // namespace dmlref::model::internal
