// DxDispatch model files: parsing, checking and running on the reference. This file ties the model
// reader together (parse, load, parse_dispatchable); its parts, each named for its role:
//   model_json        the JSON field readers (integers, enums, tensor descs, scalar unions)
//   model_first_pass  the first pass over the text (nesting, duplicate keys) and its memory estimate
//   model_files       file safety (regular files only, paths inside the model's folder, write targets)
//   model_resources   resource planning (the memory budget, the arena, initial values)
//   model_descs       operator descs in DxDispatch's JSON, read and written
//   model_commands    the commands, read and checked, and run
// Field names, enum spellings and defaults follow DxDispatch's parser (microsoft/DirectML,
// DxDispatch/src/model) and ../shared/spec/DECISIONS.md, "Model files".
#include "model.hpp"

#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model_commands.hpp"
#include "model_descs.hpp"
#include "model_files.hpp"
#include "model_first_pass.hpp"
#include "model_json.hpp"
#include "model_resources.hpp"

namespace dmlref::model {
using namespace internal;

model parse(std::string_view json_text, const std::filesystem::path& folder, std::string_view name, const load_options& options) {
    const at root{std::string(name), ""};
    if (json_text.size() > max_model_bytes)
        root.fail(fmt::format("{} bytes of JSON; dmlref reads models of at most {} bytes (64 MiB): keep large values in .npy "
                              "files named by sourcePath",
                              json_text.size(), max_model_bytes));
    const memory_budget budget{options.max_memory ? options.max_memory : available_memory(), options.max_memory != 0};

    const json_counts counts = first_pass(json_text, root);
    const std::uint64_t dom = json_text.size() + counts.dom_bytes();
    if (dom > budget.bytes)
        root.fail(fmt::format("reading the JSON takes about {} bytes ({} values), which {}", dom, counts.values, budget.exceeded()));
    const json doc = parse_document(json_text, root);
    object(doc, root);
    only_keys(doc, root, {"$schema", "resources", "dispatchables", "commands"});
    const path_rule rule = make_path_rule(folder, options.allow_outside_paths, root);
    model m;
    m.file = std::string(name);

    // Every resource planned and the sum checked against the budget before one is allocated.
    const at wr = root / "resources";
    m.resources = load_resources(object(require(doc, root, "resources"), wr), wr, rule, dom, budget);

    const at wd = root / "dispatchables";
    for (const auto& [key, value] : object(require(doc, root, "dispatchables"), wd).items()) {
        const at w = wd / key;
        operator_desc desc = dispatchable_field(value, w);
        if (auto why = validate(desc, options.level)) (w / "desc").fail(*why);
        m.dispatchables.emplace(key, dispatchable{key, std::move(desc)});
    }
    const at wc = root / "commands";
    const json& commands = require(doc, root, "commands");
    if (!commands.is_array()) wc.fail("expected an array, got " + shown(commands));
    for (std::size_t i = 0; i < commands.size(); ++i) m.commands.push_back(command_field(m, commands[i], wc[i], rule, options.level));
    return m;
}

model parse(std::string_view json_text, const std::filesystem::path& folder, std::string_view name, feature_level level) {
    return parse(json_text, folder, name, load_options{.level = level});
}

operator_desc parse_dispatchable(std::string_view json_text, std::string_view name) {
    const at root{std::string(name), ""};
    if (json_text.size() > max_model_bytes)
        root.fail(fmt::format("{} bytes of JSON; a dispatchable takes at most {} bytes (64 MiB)", json_text.size(), max_model_bytes));
    first_pass(json_text, root);
    return dispatchable_field(parse_document(json_text, root), root);
}

model load(const std::filesystem::path& file, const load_options& options) {
    const at where{file.string(), ""};
    opened_file f = open_regular(file);
    if (!f.error.empty()) where.fail(f.error);
    if (f.size > max_model_bytes)
        where.fail(fmt::format("{} bytes; dmlref reads models of at most {} bytes (64 MiB): keep large values in .npy files named "
                               "by sourcePath",
                               f.size, max_model_bytes));
    std::vector<std::byte> bytes(static_cast<std::size_t>(f.size));
    if (!read_exact(f.file.get(), bytes) || !at_end(f.file.get())) where.fail("changed size while it was read");
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    model m = parse(text, file.parent_path(), file.string(), options);
    m.file = file;
    return m;
}

model load(const std::filesystem::path& file, feature_level level) { return load(file, load_options{.level = level}); }

} // namespace dmlref::model
