// A model's commands: read and checked (model_commands.hpp), then run (run, print_values).
#include "model_commands.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include <dmlref/format.hpp>

#include "model_descs.hpp"

namespace dmlref::model::internal {
namespace {

/// A binding: "name", {"name": "..."} or a one-element array of either (one level: an array in an
/// array is refused, so no model can make this recurse).
std::string binding(const json& outer, const at& outer_where) {
    const json* b = &outer;
    at where = outer_where;
    if (b->is_array()) {
        if (b->size() != 1) where.fail(fmt::format("binds {} resources; these operators take one buffer per tensor", b->size()));
        b = &(*b)[0];
        where = where[0];
    }
    if (b->is_string()) return b->get<std::string>();
    if (!b->is_object()) where.fail("expected a resource name or {\"name\": ...}, got " + shown(*b));
    only_keys(*b, where, {"name", "elementOffset"});
    if (const json* offset = find(*b, "elementOffset"); offset && integer<std::uint64_t>(*offset, where / "elementOffset") != 0)
        (where / "elementOffset").fail("a non-zero elementOffset is not supported by dmlref");
    return string(require(*b, where, "name"), where / "name");
}

const resource& resource_named(const model& m, const std::string& name, const at& where) {
    auto it = m.resources.find(name);
    if (it == m.resources.end()) where.fail(fmt::format("no resource named '{}'", name));
    return it->second;
}

} // namespace

command command_field(const model& m, const json& c, const at& where, const path_rule& rule, feature_level level) {
    object(c, where);
    const std::string type = string(require(c, where, "type"), where / "type");
    if (lower(type) == "dispatch") {
        only_keys(c, where, {"type", "dispatchable", "bindings"});
        dispatch_command d;
        d.dispatchable = string(require(c, where, "dispatchable"), where / "dispatchable");
        auto it = m.dispatchables.find(d.dispatchable);
        if (it == m.dispatchables.end()) (where / "dispatchable").fail(fmt::format("no dispatchable named '{}'", d.dispatchable));
        const at wb = where / "bindings";
        const json& b = object(require(c, where, "bindings"), wb);
        const operator_desc& desc = it->second.desc;
        if (binds_tensor_arrays(type_of(desc))) {
            // One bind point per field: an array field (JOIN's InputTensors, SPLIT's OutputTensors)
            // takes a JSON array with one binding per tensor.
            const bool is_join = type_of(desc) == operator_type::join;
            const std::string_view array_field = is_join ? "InputTensors" : "OutputTensors";
            const std::string_view one_field = is_join ? "OutputTensor" : "InputTensor";
            const std::size_t count = (is_join ? inputs_of(desc) : outputs_of(desc)).size();
            only_keys(b, wb, {array_field, one_field});
            const json& a = require(b, wb, array_field);
            const at wa = wb / array_field;
            if (!a.is_array()) wa.fail("expected an array of bindings, one per tensor, got " + shown(a));
            if (a.size() != count) wa.fail(fmt::format("binds {} resources; {} has {} tensors", a.size(), array_field, count));
            std::vector<std::string> parts;
            for (std::size_t k = 0; k < a.size(); ++k) {
                parts.push_back(binding(a[k], wa[k]));
                resource_named(m, parts.back(), wa[k]);
            }
            const std::string one = binding(require(b, wb, one_field), wb / one_field);
            resource_named(m, one, wb / one_field);
            d.inputs = is_join ? parts : std::vector<std::string>{one};
            d.outputs = is_join ? std::vector<std::string>{one} : parts;
        } else {
            // One resource per tensor field, keyed by its name: InputTensor and OutputTensor, the
            // gradients of SLICE_GRAD, REVERSE_SUBSEQUENCES's SequenceLengthsTensor.
            const auto ins = inputs_of(desc), outs = outputs_of(desc);
            for (const auto& item : b.items()) {
                const std::string& key = item.key(); // a name, not a structured binding: clang 14's lambdas cannot capture those
                if (std::none_of(ins.begin(), ins.end(), [&](const bound_tensor& t) { return t.field == key; }) &&
                    std::none_of(outs.begin(), outs.end(), [&](const bound_tensor& t) { return t.field == key; })) {
                    std::string list;
                    for (const auto* side : {&ins, &outs})
                        for (const auto& t : *side) list += (list.empty() ? "" : ", ") + t.field;
                    (wb / key).fail(fmt::format("unknown field (expected one of {})", list));
                }
            }
            for (const auto& t : ins) d.inputs.push_back(binding(require(b, wb, t.field), wb / t.field));
            for (const auto& t : outs) d.outputs.push_back(binding(require(b, wb, t.field), wb / t.field));
            for (std::size_t k = 0; k < ins.size(); ++k) resource_named(m, d.inputs[k], wb / ins[k].field);
            for (std::size_t k = 0; k < outs.size(); ++k) resource_named(m, d.outputs[k], wb / outs[k].field);
        }
        std::vector<std::span<const std::byte>> in_spans;
        std::vector<std::span<std::byte>> out_spans;
        for (const auto& name : d.inputs) in_spans.push_back(m.resources.find(name)->second.bytes());
        for (const auto& name : d.outputs) out_spans.push_back(m.resources.find(name)->second.bytes());
        if (auto why = validate(desc, in_spans, out_spans, level)) {
            std::string bound;
            const auto ins = inputs_of(desc), outs = outputs_of(desc);
            for (std::size_t k = 0; k < ins.size(); ++k)
                bound += fmt::format("{}{} '{}' ({} bytes)", bound.empty() ? "" : " and ", ins[k].field, d.inputs[k], in_spans[k].size());
            for (std::size_t k = 0; k < outs.size(); ++k)
                bound += fmt::format(" and {} '{}' ({} bytes)", outs[k].field, d.outputs[k], out_spans[k].size());
            where.fail(fmt::format("dispatch of '{}' with {}: {}", d.dispatchable, bound, *why));
        }
        return d;
    }
    if (lower(type) == "print") {
        only_keys(c, where, {"type", "resource", "verbose"});
        print_command p;
        p.resource = string(require(c, where, "resource"), where / "resource");
        resource_named(m, p.resource, where / "resource");
        if (const json* v = find(c, "verbose")) {
            if (!v->is_boolean()) (where / "verbose").fail("expected true or false, got " + shown(*v));
            p.verbose = v->get<bool>();
        }
        return p;
    }
    if (lower(type) == "writefile") {
        only_keys(c, where, {"type", "resource", "targetPath", "dimensions"});
        write_file_command w;
        w.resource = string(require(c, where, "resource"), where / "resource");
        const resource& r = resource_named(m, w.resource, where / "resource");
        const at wt = where / "targetPath";
        w.target = model_path(rule, string(require(c, where, "targetPath"), wt), wt);
        check_write_target(w.target, wt);
        if (const json* dims = find(c, "dimensions")) {
            for (auto d : integers<std::uint32_t>(*dims, where / "dimensions")) w.dimensions.push_back(d);
            const auto count = npy::element_count(w.dimensions);
            const std::uint64_t elements = r.value_bytes / element_size(r.type);
            if (!count || *count != elements)
                (where / "dimensions").fail(fmt::format("hold {} elements; resource '{}' has {}",
                                                        count ? std::to_string(*count) : "too many", w.resource, elements));
        }
        return w;
    }
    (where / "type").fail(fmt::format("'{}' is not a command dmlref runs (expected dispatch, print or writeFile)", type));
}

} // namespace dmlref::model::internal

namespace dmlref::model {
using namespace internal;

namespace {

/// Writes the text of print for `r` through `emit(text)` in pieces of at most about 64 KiB.
template <class Emit> void emit_values(const resource& r, bool verbose, Emit&& emit) {
    const std::size_t width = element_size(r.type);
    const std::uint64_t count = r.value_bytes / width;
    fmt::memory_buffer out;
    const std::size_t index_width = std::to_string(count == 0 ? 0 : count - 1).size();
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::byte* p = r.storage.get() + i * width;
        if (verbose) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, p, width);
            fmt::format_to(std::back_inserter(out), "[{:>{}}] {} (0x{:0{}X})\n", i, index_width, format_element(r.type, p), bits, width * 2);
        } else {
            fmt::format_to(std::back_inserter(out), "{}{}", i ? ", " : "", format_element(r.type, p));
        }
        if (out.size() >= 65536) {
            emit(std::string_view(out.data(), out.size()));
            out.clear();
        }
    }
    emit(std::string_view(out.data(), out.size()));
}

} // namespace

std::string format_values(const resource& r, bool verbose) {
    std::string out;
    emit_values(r, verbose, [&](std::string_view text) { out += text; });
    return out;
}

void print_values(std::ostream& out, const resource& r, bool verbose) {
    emit_values(r, verbose, [&](std::string_view text) { out.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

void run(model& m, const run_options& options) {
    const executor execute = options.execute ? options.execute
                                             : executor([level = options.level](const operator_desc& d, std::span<const std::byte> in,
                                                                                 std::span<std::byte> out) { dmlref::execute(d, in, out, level); });
    const npy::write_options write_options{options.on_temporary};
    for (std::size_t i = 0; i < m.commands.size(); ++i) {
        const command& c = m.commands[i];
        if (const auto* d = std::get_if<dispatch_command>(&c)) {
            const operator_desc& desc = m.dispatchables.at(d->dispatchable).desc;
            // Every tensor the dispatch binds, in the desc's order (inputs_of, outputs_of).
            std::vector<std::span<const std::byte>> ins;
            std::vector<std::span<std::byte>> outs;
            for (const auto& name : d->inputs) ins.push_back(m.resources.at(name).bytes());
            for (const auto& name : d->outputs) outs.push_back(m.resources.at(name).bytes());
            if (options.execute_tensors) {
                options.execute_tensors(desc, ins, outs);
            } else if (!binds_one_input_and_output(type_of(desc))) {
                // The executor takes one input and one output buffer: tensor arrays and a second
                // input run on the reference.
                if (options.execute)
                    throw model_error(fmt::format("{}: the dispatch of '{}' binds {}; the chosen executor takes one "
                                                  "input and one output buffer (only the CPU reference runs {})",
                                                  m.file.string(), d->dispatchable,
                                                  binds_tensor_arrays(type_of(desc)) ? "tensor arrays" : "several input tensors",
                                                  to_string(type_of(desc))));
                try { // what validation cannot see (an index out of range) refuses here: say which dispatch
                    dmlref::execute(desc, ins, outs, options.level);
                } catch (const model_error&) {
                    throw;
                } catch (const validation_error& e) {
                    (at{m.file.string(), ""} / "commands")[i].fail(fmt::format("dispatch of '{}': {}", d->dispatchable, e.what()));
                }
            } else {
                execute(desc, ins.front(), outs.front());
            }
        } else if (const auto* p = std::get_if<print_command>(&c)) {
            if (options.log) {
                *options.log << "Resource '" << p->resource << "':" << (p->verbose ? "\n" : " ");
                print_values(*options.log, m.resources.at(p->resource), p->verbose);
                if (!p->verbose) *options.log << "\n";
            }
        } else if (const auto* w = std::get_if<write_file_command>(&c)) {
            // A write that fails here (the disk, a target changed since the model was checked)
            // is reported as the model's other errors are: the file and the command's path.
            const at where = at{m.file.string(), ""} / "commands";
            const at wt = where[i] / "targetPath";
            const resource& r = m.resources.at(w->resource);
            const auto bytes = std::span<const std::byte>(r.bytes().first(static_cast<std::size_t>(r.value_bytes)));
            const std::string extension = lower(w->target.extension().string());
            std::error_code error;
            if (w->target.has_parent_path()) std::filesystem::create_directories(w->target.parent_path(), error);
            if (error)
                wt.fail(fmt::format("writeFile of '{}': cannot create the folder '{}': {}", w->resource,
                                    w->target.parent_path().string(), error.message()));
            try {
                if (extension == ".npy") {
                    std::vector<std::uint64_t> shape = w->dimensions;
                    if (shape.empty()) shape = {r.value_bytes / element_size(r.type)};
                    npy::write(w->target, r.type, shape, bytes, write_options);
                } else {
                    npy::write_file_atomically(w->target, bytes, write_options);
                }
            } catch (const model_error&) {
                throw;
            } catch (const validation_error& e) {
                wt.fail(fmt::format("writeFile of '{}': {}", w->resource, e.what()));
            }
            if (options.log) *options.log << fmt::format("Resource '{}' written to '{}'\n", w->resource, w->target.string());
        }
    }
}

} // namespace dmlref::model
