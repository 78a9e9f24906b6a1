#pragma once
/// \file model_first_pass.hpp
/// The first pass over a model's text, before it is parsed into a document: what it refuses
/// (nesting, duplicate keys, numbers JSON cannot hold) and what the document will take in memory.
/// Private to the model reader (tools/model*.cpp).

#include <cstdint>
#include <string_view>

#include "model_json.hpp"

namespace dmlref::model::internal {

/// What the parsed document takes in memory, from the first pass's counts: every value a 16-byte
/// node (arrays may hold twice their size while growing), every key a map node with its string.
struct json_counts {
    std::uint64_t values = 0, keys = 0, key_bytes = 0, strings = 0, string_bytes = 0;

    std::uint64_t dom_bytes() const { return values * 32 + keys * 96 + key_bytes + strings * 32 + string_bytes; }
};

/// The first pass over `json_text`, with nlohmann's SAX parser (which keeps its own stack, not
/// the call stack's): nesting deeper than max_json_depth, a key twice in one object (the parsed
/// document would keep the last silently: a second "commands" would drop the first), a number
/// JSON cannot hold (1e5520) and text that is not JSON are refused with the JSON path where they
/// occur, under `root`. Returns the counts the document's memory is estimated from.
json_counts first_pass(std::string_view json_text, const at& root);

/// The document, parsed after first_pass has accepted the text (comments allowed, as DxDispatch
/// allows them).
json parse_document(std::string_view json_text, const at& root);

} // namespace dmlref::model::internal
