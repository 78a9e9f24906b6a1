#pragma once
/// \file onnx_node_test.hpp
/// ONNX node tests for the tool: the layout ONNX Runtime's onnx_test_runner and ONNX's backend
/// test runner consume (a folder with `model.onnx` and `test_data_set_0/input_K.pb`, `output_K.pb`).
///
///   export_case(dir, desc, input_buffer, tally)  writes a DirectML case as a node test where ONNX
///                                                has an operator of exactly its meaning
///   load_node_test(folder)                       maps a node test back to a DirectML desc
///   run_node_tests(folder, ...)                  runs one node test, or a folder of them
///
/// The protobufs are ONNX's generated classes (libonnx-dev); this header does not expose them, so
/// only the tool links them, never <dmlref/dmlref.hpp>.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>

#include <dmlref/npy.hpp>
#include <dmlref/operator.hpp>

namespace dmlref::node_test {

/// What an export wrote and left out, for the summary the tool prints.
struct export_tally {
    std::uint32_t exported = 0;
    std::map<std::string, std::uint32_t> left_out;   ///< reason -> cases
    std::map<std::int64_t, std::uint32_t> opsets;    ///< opset -> cases
    std::uint32_t beyond_checker = 0;                ///< cases of an opset above 17 (Debian's onnx 1.12 knows up to 17)

    /// Two lines: "onnx: exported N, left out M (reason: k, ...)" and "onnx opsets: 1: a, 10: b, ...".
    std::string summary() const;
};

/// Writes `desc` run on `input_buffer` (the whole buffer its InputTensor is bound to) as a node test
/// into `dir` (model.onnx, test_data_set_0/input_K.pb and output_0.pb, case.json), or writes
/// nothing and returns why the case has no ONNX form of exactly its meaning. Files go through a
/// temporary and a rename; `on_temporary` is told each temporary while it exists.
std::optional<std::string> export_case(const std::filesystem::path& dir, const operator_desc& desc,
                                       std::span<const std::byte> input_buffer, export_tally& tally,
                                       npy::temporary_observer on_temporary = nullptr);

/// export_case over one buffer per input tensor, in DirectML's binding order (inputs_of(desc)):
/// JOIN's InputTensors; the input, index, updates and values tensors of REVERSE_SUBSEQUENCES and
/// the indexed operators (whose index values decide whether the case has an ONNX form). A case of several outputs writes
/// output_0.pb ... output_{N-1}.pb.
std::optional<std::string> export_case_buffers(const std::filesystem::path& dir, const operator_desc& desc,
                                               std::span<const std::span<const std::byte>> input_buffers, export_tally& tally,
                                               npy::temporary_observer on_temporary = nullptr);

/// A TensorProto file read as an array: dims, data_type and the elements from raw_data (or the
/// typed fields a writer may use instead). Throws validation_error naming the file.
npy::array read_tensor_file(const std::filesystem::path& path, std::uint64_t max_bytes);

/// True when `path` names a TensorProto file (by its .pb extension).
bool is_tensor_file(const std::filesystem::path& path);

/// A node test mapped back to DirectML: the desc (packed tensors), the data of its input tensors
/// (inputs_of(desc) order: Concat's every input; ReverseSequence's data and UINT64 lengths,
/// the gathers' and scatters' data, indices (and updates), OneHot's indices and a {1, ..., 2}
/// values tensor), and the expected outputs (outputs_of(desc)
/// order: Split's every output) when the data set has output_0.pb.
struct loaded_test {
    std::filesystem::path folder;
    operator_desc desc;
    std::vector<npy::array> inputs;
    std::vector<npy::array> expected;   ///< empty without output_0.pb
    std::vector<std::string> output_names;
    /// ONNX's shape of each output where it is not the desc's sizes: the same elements, the rank
    /// ONNX derives (Gather's, GatherND's, OneHot's of one index), DirectML's padded or fitted to
    /// the DimensionCount of its inputs.
    std::vector<std::vector<std::uint64_t>> output_shapes;
};

/// Reads `model` (a model.onnx) and the graph inputs it needs from initializers or from
/// test_data_set_0/input_K.pb beside it. A model outside the mapped subset throws validation_error
/// naming the node, and the attribute or input that has no DirectML form.
loaded_test load_node_test(const std::filesystem::path& model);

/// Runs the node test in `folder` (which holds model.onnx), or every node test in the folders of
/// `folder`, on the reference: compares with output_0.pb (printing the compare report on a
/// difference), or writes output_0.pb when `write_expected`. Returns the exit status: 0 when all
/// pass, 1 otherwise.
int run_node_tests(const std::filesystem::path& folder, bool write_expected, bool quiet, std::ostream& out,
                   npy::temporary_observer on_temporary = nullptr);

} // namespace dmlref::node_test
