#pragma once
/// \file model.hpp
/// DxDispatch model files (JSON: resources, dispatchables, commands) run on the reference.
///
///   auto m = dmlref::model::load("models/dml_slice.json");   // parses and validates everything
///   dmlref::model::run(m, {.log = &std::cout});               // dispatch, print, writeFile
///
/// The whole file is parsed and checked (every desc against its bound buffers, at the chosen
/// feature level) before anything runs; every problem is a model_error whose message starts with
/// the file and the JSON path of the field, then the value.
///
/// Model files come from anywhere, so reading one is bounded: the file's size (max_model_bytes),
/// its nesting (max_json_depth), duplicate keys (refused: JSON would keep the last silently), the
/// memory its resources and their reading take (load_options::max_memory, checked before anything
/// is allocated), the files it names (regular files only, inside the model's folder unless
/// allowed, read no further than the size they must have) and the files it writes (regular files
/// only, never through a link).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <dmlref/npy.hpp>
#include <dmlref/operator.hpp>

namespace dmlref::model {

/// A model file that cannot be run: bad JSON, an unknown field or value, a binding that does not fit.
class model_error : public validation_error {
public:
    using validation_error::validation_error;
};

/// Buffers start on 64 KiB, as D3D12 places buffers, so GuaranteedBaseOffsetAlignment holds.
inline constexpr std::size_t resource_alignment = 65536;

/// A buffer resource: its initial contents, then whatever the dispatches write.
struct resource {
    std::string name;
    data_type type = data_type::unknown;        ///< initialValuesDataType (or the .npy's dtype)
    std::uint64_t size_in_bytes = 0;            ///< the buffer's size (sizeInBytes, else rounded up to 4)
    std::uint64_t value_bytes = 0;              ///< bytes print/writeFile show: the initial values, or sizeInBytes
    std::shared_ptr<std::byte[]> storage;       ///< size_in_bytes bytes, aligned to resource_alignment

    std::span<std::byte> bytes() const noexcept { return {storage.get(), static_cast<std::size_t>(size_in_bytes)}; }
};

struct dispatchable {
    std::string name;
    operator_desc desc;
};

struct dispatch_command {
    std::string dispatchable;
    std::vector<std::string> inputs;  ///< resources bound to the input tensors, in binding order (inputs_of)
    std::vector<std::string> outputs; ///< resources bound to the output tensors, in binding order (outputs_of)
};
struct print_command {
    std::string resource;
    bool verbose = false;
};
struct write_file_command {
    std::string resource;
    std::filesystem::path target;           ///< resolved against the model's folder
    std::vector<std::uint64_t> dimensions;  ///< the .npy's shape; empty = 1-D
};
using command = std::variant<dispatch_command, print_command, write_file_command>;

struct model {
    std::filesystem::path file;
    std::map<std::string, resource, std::less<>> resources;
    std::map<std::string, dispatchable, std::less<>> dispatchables;
    std::vector<command> commands;
};

/// The largest model file read: DxDispatch's models are a few KiB, and large values belong in the
/// .npy files a sourcePath names. Parsed, JSON takes up to about 16 times its text (every number
/// is a 16-byte node, every key a map node), so 64 MiB of text stays near 1 GiB at worst.
inline constexpr std::uint64_t max_model_bytes = std::uint64_t{64} << 20;

/// The deepest nesting of arrays and objects read: DxDispatch's models nest 6 levels, and deeper
/// documents only serve to exhaust a recursive reader's stack.
inline constexpr std::size_t max_json_depth = 64;

/// The memory this process may still take: MemAvailable (Linux), else the physical memory.
std::uint64_t available_memory();

/// A byte count as a person writes it: "1048576", "512K", "512M", "2G", "1T" (powers of 1024;
/// "MiB", "MB" and "M" alike). Nothing when the text is not one or it overflows 64 bits.
std::optional<std::uint64_t> parse_byte_count(std::string_view text);

/// What reading a model may take and where its files may lie.
struct load_options {
    feature_level level = newest_feature_level;
    std::uint64_t max_memory = 0;     ///< bytes the resources and their reading may take; 0: available_memory()
    bool allow_outside_paths = false; ///< let sourcePath and targetPath leave the model's folder
};

/// Parses a model from JSON text; relative paths resolve against `folder` (and must stay inside
/// it unless allowed); `name` prefixes messages. The only entry a fuzzer needs, with run().
model parse(std::string_view json_text, const std::filesystem::path& folder, std::string_view name,
            const load_options& options);
model parse(std::string_view json_text, const std::filesystem::path& folder, std::string_view name,
            feature_level level = newest_feature_level);

/// Reads and parses a model file (a regular file of at most max_model_bytes).
model load(const std::filesystem::path& file, const load_options& options);
model load(const std::filesystem::path& file, feature_level level = newest_feature_level);

/// The bytes of a regular file of at most `max_bytes` bytes, read no further than its size when
/// opened. Folders, devices, FIFOs and sockets are refused before a byte is read. Throws
/// validation_error naming the file.
std::vector<std::byte> read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes);

/// Runs one operator from an input buffer into an output buffer (the CPU reference by default).
using executor = std::function<void(const operator_desc&, std::span<const std::byte>, std::span<std::byte>)>;

/// Runs one operator over one buffer per tensor, in binding order (inputs_of, outputs_of): any
/// operator, JOIN's and SPLIT's tensor arrays included.
using tensors_executor = std::function<void(const operator_desc&, std::span<const std::span<const std::byte>>,
                                            std::span<const std::span<std::byte>>)>;

struct run_options {
    executor execute = {};                 ///< empty: dmlref::execute at `level`
    std::ostream* log = nullptr;           ///< where print and writeFile report, as DxDispatch does
    feature_level level = newest_feature_level;
    npy::temporary_observer on_temporary = nullptr; ///< told writeFile's temporary file while it exists
    /// When set, runs every dispatch (and `execute` is not used). Otherwise a dispatch that binds
    /// tensor arrays runs on the CPU reference when `execute` is empty, and is refused when not.
    tensors_executor execute_tensors = {};
};

/// Runs the commands in order. writeFile goes through a temporary file and a rename.
void run(model& m, const run_options& options = {});

/// The values of a resource as DxDispatch's print shows them: "1, 2, 3", or one line per element
/// with its index and bits when verbose. For small resources: run() streams with print_values.
std::string format_values(const resource& r, bool verbose);

/// The same text written to `out` in chunks of at most 64 KiB, never built whole.
void print_values(std::ostream& out, const resource& r, bool verbose);

/// One tensor's resource in operator_model: its name in the model, the .npy file it is read from
/// (an input) or written to (an output, which starts as `values` zeros).
struct model_tensor {
    std::string resource;
    std::string path;
    std::uint64_t values = 0;
};

/// The JSON of a model that runs `desc` once with one resource per tensor, `inputs` and `outputs`
/// in binding order (inputs_of, outputs_of): each input initialised from its .npy file, one
/// dispatch, then writeFile of each output. A tensor array (JOIN's InputTensors, SPLIT's
/// OutputTensors) binds a JSON array of resources, as DxDispatch takes it. Spelled as
/// single_operator_model spells its model, which is this with one "input" and one "output".
std::string operator_model(const operator_desc& desc, std::span<const model_tensor> inputs, std::span<const model_tensor> outputs);

/// The JSON of a model that runs `desc` once, as DxDispatch spells it: resource "input" initialised
/// from `input_path` (.npy), resource "output" holding `output_values` zeros, one dispatch, then
/// writeFile of "output" to `output_path`. Padding values use DxDispatch's member forms
/// ({"UInt16": bits} for FLOAT16; "NaN"/"Inf" for non-finite floats, NaN payloads become the
/// canonical quiet NaN), so the file runs on DxDispatch too.
std::string single_operator_model(const operator_desc& desc, std::uint64_t output_values, std::string_view input_path,
                                  std::string_view output_path);

/// One dispatchable in DxDispatch's form, `{"type": "DML_OPERATOR_SLICE1", "desc": {...}}`, read as
/// parse() reads the model's dispatchables (the same field names, enum spellings, defaults and
/// refusals; `executionFlags` is allowed and ignored); `name` starts every message. The desc is
/// not validated: validate() says whether DirectML would take it.
operator_desc parse_dispatchable(std::string_view json_text, std::string_view name);

/// `desc` as DxDispatch's dispatchable JSON, `{"type": "DML_OPERATOR_...", "desc": {...}}`: what
/// parse_dispatchable reads back (a NaN padding value as "NaN", its payload not kept).
std::string dispatchable_json(const operator_desc& desc);

/// The number of elements a buffer for `tensor` holds: the index of its last element plus one;
/// nothing when that does not fit in 64 bits.
std::optional<std::uint64_t> checked_buffer_elements(const buffer_tensor_desc& tensor);

/// checked_buffer_elements, throwing validation_error where it does not fit.
std::uint64_t buffer_elements(const buffer_tensor_desc& tensor);

} // namespace dmlref::model
