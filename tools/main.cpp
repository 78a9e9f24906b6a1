// dmlref: run DxDispatch model files on the reference, compare tensors, write conformance vectors.
//   dmlref run MODEL.json... [--backend cpu|d3d12|directml] [--max-memory 2G] [--allow-outside-paths]
//                                    (several models: each in turn on one backend; a failure does not stop the rest)
//   dmlref run NODE_TEST_DIR [--write-expected]        (ONNX node tests: one, or a folder of them)
//   dmlref compare EXPECTED.npy|.pb ACTUAL.npy|.pb [--shape 1,2,3] [--op-desc MODEL.json|model.onnx] [--max-memory 2G]
//   dmlref vectors --out DIR [--ops slice1,padding1] [--count N] [--seed S] [--format dxdispatch|onnx|both]
// Exit status: 0 success (compare: equal), 1 invalid input or a difference, 2 usage error.
#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>
#include <iterator>
#include <new>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <dmlref/compare.hpp>
#include <dmlref/npy.hpp>

#include "cli_app.hpp"
#include "model.hpp"
#include "directml_parity.hpp"
#include "known_divergences.hpp"
#include "random_cases.hpp"

#ifdef DMLREF_HAVE_ONNX
#include "onnx_node_test.hpp"
#endif

#ifdef DMLREF_HAVE_D3D12
#include <dmlref/d3d12.hpp>
#endif
#ifdef DMLREF_HAVE_DIRECTML
#include <dmlref/directml.hpp>
#endif

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

#include <dmlref/detail/checked.hpp>

namespace {

namespace fs = std::filesystem;
using namespace dmlref;

/// An error in what the user asked for (exit 2), as opposed to invalid input (exit 1).
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The signal registry: the one temporary file being written, so that SIGINT, SIGTERM or SIGHUP
/// mid-write removes it before the process dies by the signal as it would have. The path is
/// copied into a fixed buffer while `armed` is false, so the handler reads only a whole path.
namespace signals {

std::atomic<bool> armed{false};
fs::path::value_type temporary[4096]; // wide on Windows, where paths are
static_assert(std::atomic<bool>::is_always_lock_free, "the handler reads `armed`; it must be lock-free to be signal-safe");

void on_temporary(const fs::path* path) noexcept {
    armed.store(false);
    if (!path) return;
    const auto& native = path->native();
    if (native.size() >= std::size(temporary)) return; // too long to record: the temporary may stay behind
    std::memcpy(temporary, native.c_str(), (native.size() + 1) * sizeof(native[0]));
    armed.store(true);
}

extern "C" void on_signal(int sig) {
    // Only async-signal-safe calls: unlink, signal, raise.
    if (armed.load()) {
#if defined(__unix__) || defined(__APPLE__)
        ::unlink(temporary);
#elif defined(_WIN32)
        ::_wremove(temporary);
#else
        std::remove(temporary);
#endif
    }
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void install() {
    for (int sig : {SIGINT, SIGTERM
#ifdef SIGHUP
                    ,
                    SIGHUP
#endif
         }) {
#if defined(__unix__) || defined(__APPLE__)
        struct sigaction action {};
        action.sa_handler = on_signal;
        sigemptyset(&action.sa_mask);
        ::sigaction(sig, &action, nullptr);
#else
        std::signal(sig, on_signal);
#endif
    }
}

} // namespace signals

/// The --max-memory value: a byte count with an optional unit (512M, 2G).
std::uint64_t max_memory_from(const CLI::Option* option, const std::string& text) {
    if (option->count() == 0) return 0;
    const auto bytes = model::parse_byte_count(text);
    if (!bytes || *bytes == 0)
        throw usage_error(fmt::format("--max-memory: '{}' is not a byte count (e.g. 1073741824, 512M, 2G)", text));
    return *bytes;
}

feature_level level_from(const std::string& text) {
    if (auto level = parse_feature_level(text)) return *level;
    throw usage_error(fmt::format("--feature-level: '{}' is not a DirectML feature level (1_0 ... 6_4)", text));
}

/// ONNX support, where this build has it; otherwise a usage error naming what needs it.
void need_onnx([[maybe_unused]] std::string_view what) {
#ifndef DMLREF_HAVE_ONNX
    throw usage_error(fmt::format("{}: this dmlref was built without ONNX support (DMLREF_ONNX; libonnx-dev, libprotobuf-dev)", what));
#endif
}

/// What runs a model's dispatches: the CPU reference (no backend), or a D3D12 context or DirectML
/// device made once for every model of the command (making one costs more than most models).
struct run_backend {
    std::function<void(const operator_desc&, std::span<const std::byte>, std::span<std::byte>)> execute;
    /// The backend's executor over one buffer per tensor (directml), which then runs every dispatch.
    model::tensors_executor execute_tensors;
    /// --known: output differences these cover are reported, not failures (directml only).
    std::vector<parity::known_divergence> known;
    /// The known divergences met since the last take_known_hits().
    std::vector<std::string> known_hits;
#ifdef DMLREF_HAVE_D3D12
    std::optional<d3d12::context> gpu;
#endif
#ifdef DMLREF_HAVE_DIRECTML
    std::optional<directml::device> dml;
#endif

    run_backend(const std::string& backend, [[maybe_unused]] feature_level level, const std::string& known_path) {
        if (!known_path.empty() && backend != "directml") throw usage_error("--known: only with --backend directml");
        known = parity::load_known(known_path);
        if (backend == "d3d12") {
#ifdef DMLREF_HAVE_D3D12
            // Each dispatch runs as compute shaders (JOIN and SPLIT one per part), over one buffer
            // per tensor; the output resources' bytes start as they are.
            auto& g = gpu.emplace(d3d12::context_options{.level = level});
            execute_tensors = [&g, level](const operator_desc& d, std::span<const std::span<const std::byte>> ins,
                                          std::span<const std::span<std::byte>> outs) {
                if (auto why = dmlref::validate(d, ins, outs, level)) throw validation_error(*why); // the buffers too
                const auto tensors = outputs_of(d);
                std::vector<std::span<const std::byte>> initial; // the bytes each output tensor's buffer binds
                for (std::size_t k = 0; k < tensors.size(); ++k)
                    initial.push_back(outs[k].first(static_cast<std::size_t>(tensors[k].desc().total_tensor_size_in_bytes)));
                const auto results = g.run(d, ins, std::span<const std::span<const std::byte>>(initial));
                for (std::size_t k = 0; k < tensors.size(); ++k) std::copy(results[k].begin(), results[k].end(), outs[k].begin());
            };
#else
            throw usage_error("--backend d3d12: this dmlref was built without the D3D12 backend (see docs/d3d12.md)");
#endif
        } else if (backend == "directml") {
#ifdef DMLREF_HAVE_DIRECTML
            // Each dispatch runs on DirectML, and its output tensors must equal the reference's
            // bit for bit: the model's resources then hold what both computed. One buffer per
            // tensor, so JOIN's and SPLIT's tensor arrays run as every other operator does.
            auto& device = dml.emplace();
            execute_tensors = [this, &device, level](const operator_desc& d, std::span<const std::span<const std::byte>> ins,
                                                     std::span<const std::span<std::byte>> outs) {
                if (auto why = dmlref::validate(d, ins, outs, level)) throw validation_error(*why); // the buffers too
                const auto tensors = outputs_of(d);
                std::vector<std::span<std::byte>> wholes; // the bytes each output tensor's buffer binds
                for (std::size_t k = 0; k < tensors.size(); ++k)
                    wholes.push_back(outs[k].first(static_cast<std::size_t>(tensors[k].desc().total_tensor_size_in_bytes)));
                const std::vector<std::span<const std::byte>> initial(wholes.begin(), wholes.end());
                std::vector<std::vector<std::byte>> theirs = device.run(d, ins, initial);
                const std::vector<std::byte> before = wholes.empty() ? std::vector<std::byte>{}
                                                                     : std::vector<std::byte>(wholes[0].begin(), wholes[0].end());
                dmlref::execute(d, ins, outs, level); // the reference, from the same starting bytes
                // A scatter's element that several updates write may hold any of them (DirectML's page
                // names no winner): such an element of DirectML's output is taken as the reference's.
                if (ins.size() == 3 && !theirs.empty()) parity::accept_any_duplicate(d, ins[1], ins[2], wholes[0], theirs[0]);
                std::vector<std::vector<std::byte>> expected, actual;
                for (std::size_t k = 0; k < tensors.size(); ++k) {
                    expected.push_back(d3d12::context::pack(tensors[k].desc(), wholes[k]));
                    actual.push_back(d3d12::context::pack(tensors[k].desc(), theirs[k]));
                }
                const auto e = compared_output(d, expected), a = compared_output(d, actual);
                const data_type type = data_type_of(d);
                const compare_report report = compare(type, compared_sizes(d), e, a, {}, &d);
                if (!report.equal()) {
                    // How the outputs differ, as directml-parity names it.
                    const std::string pattern =
                        theirs.empty() ? parity::difference_pattern(type, e, a)
                                       : parity::output_difference(d, e, a, ins, before, theirs[0]);
                    const auto k = std::find_if(known.begin(), known.end(), [&](const parity::known_divergence& x) {
                        return x.covers("output", to_string(type_of(d)), "", d, pattern);
                    });
                    if (k == known.end())
                        throw validation_error(fmt::format("DirectML's output differs from the reference:\n{}", report.to_string()));
                    known_hits.push_back(fmt::format("known divergence {}: DirectML's output differs from the reference on {} of "
                                                     "{} elements",
                                                     k->id, report.mismatch_count, report.element_count));
                    return; // the outputs hold the reference's bytes
                }
                for (std::size_t k = 0; k < tensors.size(); ++k)
                    if (!std::equal(theirs[k].begin(), theirs[k].end(), wholes[k].begin(), wholes[k].end()))
                        throw validation_error(fmt::format("DirectML wrote bytes of the {} buffer that are no element of the tensor",
                                                           tensors[k].field));
            };
#else
            throw usage_error("--backend directml: this dmlref was built without the DirectML backend (a Windows build; see "
                              "docs/directml.md)");
#endif
        }
    }
};

/// One model file (or ONNX node-test folder, which run_command allows only on the CPU) on `runner`.
int run_one(const fs::path& model_path, const model::load_options& load, bool quiet, run_backend& runner, bool write_expected) {
#ifdef DMLREF_HAVE_ONNX
    std::error_code error;
    if (fs::is_directory(model_path, error)) { // ONNX node tests
        return node_test::run_node_tests(model_path, write_expected, quiet, std::cout, signals::on_temporary);
    }
#endif
    if (write_expected) throw usage_error("--write-expected: only for ONNX node-test folders");
    model::model m = model::load(model_path, load);
    model::run_options options;
    options.log = quiet ? nullptr : &std::cout;
    options.level = load.level;
    options.on_temporary = signals::on_temporary;
    options.execute = runner.execute;
    options.execute_tensors = runner.execute_tensors;
    model::run(m, options);
    return 0;
}

/// `dmlref run`: each model in turn on one backend. With several models a model that fails is
/// reported ("dmlref: MODEL: error: ...") and the rest still run; the status is the worst one.
int run_command(const std::vector<std::string>& models, const model::load_options& load, bool quiet, const std::string& backend,
                const std::string& known_path, bool write_expected) {
#ifdef DMLREF_HAVE_ONNX
    std::error_code error;
    for (const std::string& path : models)
        if (backend != "cpu" && fs::is_directory(path, error))
            throw usage_error("--backend: ONNX node tests run on the CPU reference");
#endif
    run_backend runner(backend, load.level, known_path);
    const auto report_known = [&](const std::string& path) {
        for (const std::string& hit : runner.known_hits) fmt::print("dmlref: {}: {}\n", path, hit);
        runner.known_hits.clear();
    };
    if (models.size() == 1) {
        const int status = run_one(models.front(), load, quiet, runner, write_expected);
        report_known(models.front());
        return status;
    }
    int status = 0;
    std::size_t failed = 0;
    for (const std::string& path : models) {
        int one = 0;
        try {
            one = run_one(path, load, quiet, runner, write_expected);
            report_known(path);
        } catch (const usage_error&) {
            throw;
        } catch (const std::bad_alloc&) {
            fmt::print(stderr, "dmlref: {}: error: out of memory\n", path);
            one = 1;
        } catch (const std::exception& e) {
            fmt::print(stderr, "dmlref: {}: error: {}\n", path, e.what());
            one = 1;
        }
        if (one != 0) ++failed;
        status = std::max(status, one);
    }
    fmt::print(failed == 0 ? stdout : stderr, "dmlref: {} of {} models failed\n", failed, models.size());
    return status;
}

/// The only dispatchable of a model, or the one named.
operator_desc desc_from_model(const fs::path& path, const std::string& name, std::uint64_t max_memory) {
    if (path.extension() == ".onnx") {
        need_onnx(path.string());
#ifdef DMLREF_HAVE_ONNX
        return node_test::load_node_test(path).desc;
#endif
    }
    const model::model m = model::load(path, model::load_options{.max_memory = max_memory});
    if (!name.empty()) {
        auto it = m.dispatchables.find(name);
        if (it == m.dispatchables.end()) throw model::model_error(fmt::format("{}: no dispatchable named '{}'", path.string(), name));
        return it->second.desc;
    }
    if (m.dispatchables.size() != 1)
        throw usage_error(fmt::format("{} has {} dispatchables; name one with --dispatchable", path.string(), m.dispatchables.size()));
    return m.dispatchables.begin()->second.desc;
}

/// The elements of `tensor` gathered from a whole buffer (strided as the desc says) into packed
/// order. The caller has checked that the buffer holds checked_buffer_elements(tensor) elements,
/// so every offset formed here (at most that count minus one) is inside it and fits in 64 bits.
std::vector<std::byte> gather(const buffer_tensor_desc& tensor, std::span<const std::byte> buffer) {
    const std::size_t width = element_size(tensor.data_type);
    const auto bytes = detail::checked_bytes(tensor.sizes, width);
    if (width == 0 || !bytes || *bytes > buffer.size()) throw validation_error("the tensor's elements do not fit in the buffer");
    std::vector<std::byte> packed(static_cast<std::size_t>(*bytes));
    std::vector<std::uint32_t> c(tensor.sizes.size(), 0);
    for (std::uint64_t i = 0, count = *bytes / width; i < count; ++i) {
        std::uint64_t offset = 0;
        for (std::size_t k = 0; k < c.size(); ++k) offset += std::uint64_t{c[k]} * (*tensor.strides)[k];
        std::memcpy(packed.data() + i * width, buffer.data() + offset * width, width);
        for (std::size_t k = c.size(); k-- > 0;) {
            if (++c[k] < tensor.sizes[k]) break;
            c[k] = 0;
        }
    }
    return packed;
}

/// A .npy file for compare: a regular file, read once (its data reuses the file's bytes).
npy::array read_npy(const fs::path& path, std::uint64_t max_bytes) {
    if (path.extension() == ".pb") { // an ONNX TensorProto
        need_onnx(path.string());
#ifdef DMLREF_HAVE_ONNX
        return node_test::read_tensor_file(path, max_bytes);
#endif
    }
    return npy::parse(model::read_regular_file(path, max_bytes), path.string());
}

int compare_command(const fs::path& expected_path, const fs::path& actual_path, std::vector<std::uint32_t> shape,
                    const fs::path& op_model, const std::string& dispatchable, compare_options options, std::uint64_t max_memory) {
    // Memory is bounded by the files' real sizes: each is held once, and a gather makes at most
    // one more copy of each; all of it must fit the budget before a byte is read.
    const std::uint64_t budget = max_memory ? max_memory : model::available_memory();
    std::uint64_t sizes[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        std::error_code error;
        const fs::path& p = i == 0 ? expected_path : actual_path;
        if (fs::is_regular_file(p, error)) sizes[i] = fs::file_size(p, error);
    }
    if (sizes[0] > budget / 2 || sizes[1] > budget / 2 - sizes[0])
        throw validation_error(fmt::format("{} ({} bytes) and {} ({} bytes) need up to twice their size in memory, which exceeds the "
                                           "memory budget of {} bytes ({})",
                                           expected_path.string(), sizes[0], actual_path.string(), sizes[1], budget,
                                           max_memory ? "set by --max-memory" : "the memory available; --max-memory changes it"));
    npy::array expected = read_npy(expected_path, budget / 2);
    npy::array actual = read_npy(actual_path, budget / 2);
    if (expected.type != actual.type)
        throw validation_error(fmt::format("{} holds {} but {} holds {}", expected_path.string(), to_string(expected.type),
                                           actual_path.string(), to_string(actual.type)));
    const std::uint64_t width = element_size(expected.type);
    std::optional<operator_desc> op;
    if (!op_model.empty()) {
        op = desc_from_model(op_model, dispatchable, max_memory);
        // SPLIT's outputs compare laid end to end along Axis, as one tensor of its InputTensor's sizes.
        const auto* split = std::get_if<split_desc>(&*op);
        const buffer_tensor_desc out = split ? split->input_tensor : outputs_of(*op).front().desc();
        if (out.data_type != expected.type)
            throw validation_error(fmt::format("the files hold {}; the OutputTensor of {} is {}", to_string(expected.type),
                                               op_model.string(), to_string(out.data_type)));
        if (shape.empty()) shape = out.sizes;
        // A whole output buffer (as writeFile writes it) holds a strided tensor: gather its elements.
        const auto packed_bytes = detail::checked_bytes(out.sizes, width);
        if (out.strides && (!packed_bytes || expected.data.size() != *packed_bytes)) {
            const auto elements = model::checked_buffer_elements(out);
            const auto bytes = elements ? detail::checked_mul(*elements, width) : std::nullopt;
            if (!bytes)
                throw validation_error(fmt::format("the OutputTensor of {} (sizes {{{}}}, strides {{{}}}) spans more than 2^64 bytes",
                                                   op_model.string(), fmt::join(out.sizes, ", "), fmt::join(*out.strides, ", ")));
            for (auto* a : {&expected, &actual})
                if (a->data.size() < *bytes)
                    throw validation_error(fmt::format("{} elements are too few for the output buffer of {} ({} elements)",
                                                       a->data.size() / width, op_model.string(), *elements));
            expected.data = gather(out, expected.data);
            actual.data = gather(out, actual.data);
        }
    }
    // DirectML tensors have at most 8 dimensions, and the report walks every axis per element:
    // a file of 20,000 axes of size 1 would cost 20,000 steps an element.
    if (shape.empty() && expected.shape.size() > 8)
        throw validation_error(fmt::format("{} has {} dimensions; DirectML tensors have at most 8 (--shape gives others)",
                                           expected_path.string(), expected.shape.size()));
    if (shape.size() > 8)
        throw validation_error(fmt::format("--shape has {} dimensions; DirectML tensors have at most 8", shape.size()));
    if (shape.empty()) {
        for (auto s : expected.shape) {
            if (s > UINT32_MAX) throw validation_error(fmt::format("{}: dimension {} exceeds 32 bits", expected_path.string(), s));
            shape.push_back(static_cast<std::uint32_t>(s));
        }
    }
    // DirectML has no zero-sized dimensions, and a shape of zero elements with a 2^32-1 axis
    // would make the report's per-axis tables 4 billion entries long for a 79-byte file.
    for (std::size_t k = 0; k < shape.size(); ++k)
        if (shape[k] == 0)
            throw validation_error(fmt::format("the shape {{{}}} has a zero-sized dimension (axis {}); DirectML tensors have none",
                                               fmt::join(shape, ", "), k));
    const auto need = detail::checked_bytes(shape, width);
    for (auto [name, a] : {std::pair{&expected_path, &expected}, std::pair{&actual_path, &actual}})
        if (!need || a->data.size() != *need)
            throw validation_error(fmt::format("{} holds {} bytes of data; the shape {{{}}} of {} elements need {}", name->string(),
                                               a->data.size(), fmt::join(shape, ", "), to_string(expected.type),
                                               need ? std::to_string(*need) : "more than 2^64"));
    const compare_report report = compare(expected.type, shape, expected.data, actual.data, options, op ? &*op : nullptr);
    std::cout << report.to_string() << (report.equal() ? "\n" : "");
    return report.equal() ? 0 : 1;
}

const std::map<std::string, std::size_t> op_index = {
    {"depth_to_space", 0}, {"depth_to_space1", 1}, {"space_to_depth", 2}, {"space_to_depth1", 3},
    {"slice", 4},          {"slice1", 5},          {"padding", 6},        {"padding1", 7},
    {"element_wise_identity", 8}, {"slice_grad", 9}, {"tile", 10}, {"upsample_2d", 11},
    {"join", 12}, {"split", 13}};

/// The operators `vectors` draws only when --ops names them (vectors_desc): numbered after op_index's.
const std::map<std::string, operator_type> indexed_op_index = {
    {"reverse_subsequences", operator_type::reverse_subsequences},
    {"gather", operator_type::gather},
    {"gather_elements", operator_type::gather_elements},
    {"gather_nd", operator_type::gather_nd},
    {"gather_nd1", operator_type::gather_nd1},
    {"scatter_elements", operator_type::scatter_elements},
    {"scatter", operator_type::scatter_elements},
    {"scatter_nd", operator_type::scatter_nd},
    {"one_hot", operator_type::one_hot}};

/// What `dmlref vectors` draws for `which`: random_any_desc's fourteen below all_operator_count (the
/// default cycle, which every shared seed names); above it, all_operator_count plus an indexed
/// operator's value, by --ops only. REVERSE_SUBSEQUENCES and GATHER_ELEMENTS come from random_cases'
/// draws, mostly descs ONNX expresses (ReverseSequence, GatherElements), their index tensors filled
/// by random_cases::vectors_index_values; the others as the parity run's valid cases.
operator_desc vectors_desc(random_cases::rng_t& rng, std::size_t which) {
    if (which < random_cases::all_operator_count) return random_cases::random_any_desc(rng, which);
    const auto op = static_cast<operator_type>(which - random_cases::all_operator_count);
    if (op == operator_type::reverse_subsequences || op == operator_type::gather_elements) {
        const data_type type = random_cases::random_type(rng);
        return op == operator_type::reverse_subsequences ? random_cases::random_reverse_subsequences(rng, type)
                                                         : random_cases::random_gather_elements(rng, type);
    }
    return parity::random_indexed_desc(op, rng());
}

/// A case folder of JOIN, SPLIT or an indexed operator: one .npy file per tensor, a tensor array's
/// numbered (input_0.npy, input_1.npy, ... for JOIN's InputTensors; output_0.npy and expected_0.npy,
/// ... for SPLIT's OutputTensors), the others named for their fields (input.npy, indices.npy,
/// updates.npy, values.npy, sequence_lengths.npy; output.npy and expected.npy).
/// The input bytes are drawn whether or not the folder is written (`write`), so that every format
/// draws the same cases; returns them, one buffer per input tensor.
std::vector<npy::array> write_parts_case(const fs::path& dir, const operator_desc& desc, random_cases::rng_t& rng, bool write) {
    const auto ins = inputs_of(desc), outs = outputs_of(desc);
    // A tensor array's entries are numbered; several single tensors on one side (the indexed
    // operators' inputs) are named for their fields: input, indices, updates, values, sequence_lengths.
    const auto name = [](std::string_view stem, const std::vector<bound_tensor>& side, std::size_t k) {
        const std::string_view field = side[k].field;
        if (field.find('[') != std::string_view::npos) return fmt::format("{}_{}", stem, k);
        if (side.size() == 1 || field == "InputTensor" || field == "OutputTensor") return std::string(stem);
        std::string snake;
        for (const char c : field.substr(0, field.size() - std::string_view("Tensor").size())) {
            if (std::isupper(static_cast<unsigned char>(c)) && !snake.empty()) snake += '_';
            snake += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        return snake;
    };
    std::vector<model::model_tensor> inputs, outputs;
    std::vector<npy::array> values;
    for (std::size_t k = 0; k < ins.size(); ++k) {
        const std::uint64_t n = model::buffer_elements(ins[k].desc());
        const data_type type = ins[k].desc().data_type;
        if (k == 1 && (std::holds_alternative<reverse_subsequences_desc>(desc) || std::holds_alternative<gather_elements_desc>(desc))) {
            values.push_back(npy::array{type, {n}, random_cases::random_bytes(rng, n * element_size(type))});
            random_cases::vectors_index_values(rng, desc, values.back().data); // valid lengths and indices
        } else if (parity::is_index_input(desc, k)) { // indices inside their axes, as the parity run draws them
            std::vector<std::byte> bytes = parity::index_input(desc, rng());
            bytes.resize(static_cast<std::size_t>(n * element_size(type)));
            values.push_back(npy::array{type, {n}, std::move(bytes)});
        } else {
            values.push_back(npy::array{type, {n}, random_cases::random_bytes(rng, n * element_size(type))});
        }
        inputs.push_back({name("input", ins, k), name("input", ins, k) + ".npy", 0});
    }
    for (std::size_t k = 0; k < outs.size(); ++k)
        outputs.push_back({name("output", outs, k), name("output", outs, k) + ".npy", model::buffer_elements(outs[k].desc())});
    if (!write) return values;
    fs::create_directories(dir);
    for (std::size_t k = 0; k < ins.size(); ++k) npy::write(dir / inputs[k].path, values[k], {signals::on_temporary});
    const std::string json = model::operator_model(desc, inputs, outputs);
    npy::write_file_atomically(dir / "model.json", std::as_bytes(std::span(json.data(), json.size())), {signals::on_temporary});
    // The expected outputs: the model as written, read back and dispatched on the reference.
    model::model m = model::load(dir / "model.json");
    std::erase_if(m.commands, [](const model::command& c) { return !std::holds_alternative<model::dispatch_command>(c); });
    model::run(m);
    for (std::size_t k = 0; k < outs.size(); ++k) {
        const model::resource& r = m.resources.at(outputs[k].resource);
        const auto bytes = r.bytes().first(static_cast<std::size_t>(r.value_bytes));
        const std::uint64_t shape[] = {r.value_bytes / element_size(r.type)};
        npy::write(dir / (name("expected", outs, k) + ".npy"), r.type, shape, bytes, {signals::on_temporary});
    }
    return values;
}

int vectors_command(const fs::path& out_dir, const std::vector<std::string>& ops, std::uint32_t count, std::uint64_t seed,
                    const std::string& format) {
    const bool dxdispatch = format != "onnx", onnx = format != "dxdispatch";
    if (onnx) need_onnx("--format " + format);
#ifdef DMLREF_HAVE_ONNX
    node_test::export_tally tally;
#endif
    std::vector<std::size_t> chosen;
    for (const std::string& name : ops) {
        std::string key;
        for (char c : std::string(strip_prefix(name, "DML_OPERATOR_"))) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (const auto indexed = indexed_op_index.find(key); indexed != indexed_op_index.end()) {
            chosen.push_back(random_cases::all_operator_count + static_cast<std::size_t>(indexed->second));
            continue;
        }
        auto it = op_index.find(key);
        if (it == op_index.end())
            throw usage_error(fmt::format("--ops: '{}' is not one of depth_to_space, depth_to_space1, space_to_depth, "
                                          "space_to_depth1, slice, slice1, padding, padding1, element_wise_identity, "
                                          "slice_grad, tile, upsample_2d, join, split, reverse_subsequences, gather, "
                                          "gather_elements, gather_nd, gather_nd1, scatter_elements, scatter_nd, one_hot",
                                          name));
        chosen.push_back(it->second);
    }
    if (chosen.empty())
        for (std::size_t i = 0; i < random_cases::all_operator_count; ++i) chosen.push_back(i);
    fs::create_directories(out_dir);
    random_cases::rng_t rng(seed);
    for (std::uint32_t k = 0; k < count; ++k) {
        operator_desc desc = vectors_desc(rng, chosen[k % chosen.size()]);
        if (!binds_one_input_and_output(type_of(desc))) {
            // Buffers exactly DMLCalcBufferTensorSize, as DxDispatch sizes them.
            const auto exact = [](buffer_tensor_desc& t) { t.total_tensor_size_in_bytes = calc_buffer_tensor_size(t); };
            if (auto* j = std::get_if<join_desc>(&desc)) {
                for (auto& t : j->input_tensors) exact(t);
                exact(j->output_tensor);
            } else if (auto* s = std::get_if<split_desc>(&desc)) {
                exact(s->input_tensor);
                for (auto& t : s->output_tensors) exact(t);
            } else if (auto* r = std::get_if<reverse_subsequences_desc>(&desc)) {
                exact(r->input_tensor);
                exact(r->sequence_lengths_tensor);
                exact(r->output_tensor);
            } else if (auto* g = std::get_if<gather_elements_desc>(&desc)) {
                exact(g->input_tensor);
                exact(g->indices_tensor);
                exact(g->output_tensor);
            }
            const fs::path dir = out_dir / fmt::format("{:05}_{}_{}", k, to_string(type_of(desc)), to_string(data_type_of(desc)));
            [[maybe_unused]] const auto values = write_parts_case(dir, desc, rng, dxdispatch); // the same draws in every format
#ifdef DMLREF_HAVE_ONNX
            // JOIN as Concat, SPLIT as Split, REVERSE_SUBSEQUENCES and the indexed operators as their
            // ONNX operators (onnx_export.cpp), over the same buffers (a case left out writes no folder
            // of its own).
            if (onnx) {
                std::vector<std::span<const std::byte>> buffers;
                for (const auto& v : values) buffers.emplace_back(v.data);
                node_test::export_case_buffers(dir, desc, buffers, tally, signals::on_temporary);
            }
#endif
            continue;
        }
        std::visit(
            dmlref::single_tensor_only{"dmlref vectors", [](auto& d) { // buffers exactly DMLCalcBufferTensorSize, as DxDispatch sizes them
                d.input_tensor.total_tensor_size_in_bytes = calc_buffer_tensor_size(d.input_tensor);
                d.output_tensor.total_tensor_size_in_bytes = calc_buffer_tensor_size(d.output_tensor);
            }},
            desc);
        const buffer_tensor_desc in = std::visit(dmlref::single_tensor_only{"dmlref vectors", [](const auto& d) { return d.input_tensor; }}, desc);
        const buffer_tensor_desc out = std::visit(dmlref::single_tensor_only{"dmlref vectors", [](const auto& d) { return d.output_tensor; }}, desc);
        const fs::path dir = out_dir / fmt::format("{:05}_{}_{}", k, to_string(type_of(desc)), to_string(in.data_type));
        const std::uint64_t in_values = model::buffer_elements(in);
        npy::array input{in.data_type, {in_values}, random_cases::random_bytes(rng, in_values * element_size(in.data_type))};
#ifdef DMLREF_HAVE_ONNX
        // The same draws in every format: a case left out of ONNX writes no folder of its own.
        if (onnx) node_test::export_case(dir, desc, input.data, tally, signals::on_temporary);
#endif
        if (!dxdispatch) continue;
        fs::create_directories(dir);
        npy::write(dir / "input.npy", input, {signals::on_temporary});
        const std::string json = model::single_operator_model(desc, model::buffer_elements(out), "input.npy", "output.npy");
        npy::write_file_atomically(dir / "model.json", std::as_bytes(std::span(json.data(), json.size())), {signals::on_temporary});
        // The expected output: the model as written, read back and dispatched on the reference.
        model::model m = model::load(dir / "model.json");
        std::erase_if(m.commands, [](const model::command& c) { return !std::holds_alternative<model::dispatch_command>(c); });
        model::run(m);
        const model::resource& r = m.resources.at("output");
        const auto bytes = r.bytes().first(static_cast<std::size_t>(r.value_bytes));
        const std::uint64_t shape[] = {r.value_bytes / element_size(r.type)};
        npy::write(dir / "expected.npy", r.type, shape, bytes, {signals::on_temporary});
    }
    if (dxdispatch) std::cout << fmt::format("wrote {} models to {} (seed {})\n", count, out_dir.string(), seed);
#ifdef DMLREF_HAVE_ONNX
    if (onnx) std::cout << tally.summary();
#endif
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"dmlref: the CPU golden reference for DirectML's data-movement operators"};
    cli::arguments a;
    cli::define(app, a, DMLREF_VERSION);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int status = app.exit(e);
        return status == 0 ? 0 : 2;
    }
    signals::install();
    try {
        if (*a.run)
            return run_command(a.model_paths,
                               model::load_options{.level = level_from(a.level_text),
                                                   .max_memory = max_memory_from(a.run_memory, a.max_memory_text),
                                                   .allow_outside_paths = a.allow_outside},
                               a.quiet, a.backend, a.run_known, a.write_expected);
        if (*a.compare)
            return compare_command(a.expected_path, a.actual_path, a.shape, a.op_model, a.dispatchable, a.options,
                                   max_memory_from(a.compare_memory, a.compare_memory_text));
        if (*a.vectors) return vectors_command(a.out_dir, a.ops, a.count, a.seed, a.format);
        if (*a.parity)
            return parity::run({.boundary_count = a.parity_count, .valid_count = a.parity_valid, .seed = a.parity_seed,
                                .level = a.parity_level, .known = a.parity_known, .batch = a.parity_batch, .jobs = a.parity_jobs,
                                .report_dir = a.parity_report, .ops = a.parity_ops, .plant = a.parity_plant, .print_case = a.parity_print_case, .worker = a.parity_worker,
                                .start = a.parity_start, .end = a.parity_end, .results = a.parity_results},
                               std::cout);
    } catch (const usage_error& e) {
        fmt::print(stderr, "dmlref: {}\n", e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "dmlref: error: out of memory\n");
        return 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "dmlref: error: {}\n", e.what());
        return 1;
    }
    return 2;
}
