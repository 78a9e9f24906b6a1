#pragma once
/// \file cli_app.hpp
/// The command line of `dmlref`: its subcommands, options and defaults, defined on a CLI11 app
/// that main() then parses. A header of its own so that tests build the app exactly as the tool
/// does.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <dmlref/compare.hpp>

namespace dmlref::cli {

/// What the command line sets, with the tool's defaults, and the subcommands and options that
/// main() asks about after parsing.
struct arguments {
    // run
    std::vector<std::string> model_paths;
    std::string level_text = "6_4";
    bool quiet = false;
    std::string max_memory_text;
    bool allow_outside = false;
    std::string backend = "cpu";
    std::string run_known;
    bool write_expected = false;
    // compare
    std::string expected_path, actual_path, op_model, dispatchable;
    std::vector<std::uint32_t> shape;
    compare_options options;
    std::string compare_memory_text;
    // vectors
    std::string out_dir;
    std::vector<std::string> ops;
    std::uint32_t count = 100;
    std::uint64_t seed = 1;
    std::string format = "dxdispatch";
    // directml-parity
    std::uint64_t parity_count = 3000, parity_valid = 2000, parity_seed = 1, parity_batch = 400, parity_jobs = 2;
    std::uint64_t parity_start = 0, parity_end = 0;
    std::string parity_level = "6_4", parity_known, parity_report, parity_results;
    std::vector<std::string> parity_ops;
    bool parity_worker = false, parity_plant = false;
    std::optional<std::uint64_t> parity_print_case;

    CLI::App* run = nullptr;
    CLI::App* parity = nullptr;
    CLI::App* compare = nullptr;
    CLI::App* vectors = nullptr;
    CLI::Option* run_memory = nullptr;
    CLI::Option* compare_memory = nullptr;
};

/// Defines the tool's command line on `app`, writing into `a` (which must outlive the parse).
inline void define(CLI::App& app, arguments& a, const std::string& version) {
    // On Windows CLI11 takes "/name" and "/name:value" for options by default, so an absolute path
    // such as /data/x.npy would be an unknown option. Set before the subcommands, which inherit it.
    app.allow_windows_style_options(false);
    app.set_version_flag("--version", "dmlref " + version);
    app.require_subcommand(1);

    auto* run = a.run = app.add_subcommand("run", "Run a DxDispatch model file (JSON), or ONNX node tests, on the reference");
    run->add_option("model", a.model_paths,
                    "The model file (relative paths in it are relative to its folder), or an ONNX node-test folder (model.onnx, "
                    "test_data_set_0/) or a folder of them; several run in turn on one backend, each reported")
        ->required();
    run->add_flag("--write-expected", a.write_expected, "ONNX node tests: write test_data_set_0/output_0.pb instead of comparing with it");
    run->add_option("--feature-level", a.level_text, "The DirectML feature level descs are validated at")->capture_default_str();
    run->add_flag("-q,--quiet", a.quiet, "Do not print what print and writeFile report");
    a.run_memory = run->add_option("--max-memory", a.max_memory_text,
                    "Bytes the model's resources and their reading may take, e.g. 512M, 2G (default: the memory available)");
    run->add_flag("--allow-outside-paths", a.allow_outside,
                  "Let sourcePath and targetPath name files outside the model's folder (after resolving .. and links)");
    run->add_option("--backend", a.backend,
                    "cpu: the reference; d3d12: compute shaders through Direct3D 12; directml: the real DirectML.dll "
                    "(Windows builds; DMLREF_DIRECTML_DLL names the DLL), each output compared with the reference")
        ->check(CLI::IsMember({"cpu", "d3d12", "directml"}))
        ->capture_default_str();
    run->add_option("--known", a.run_known,
                    "--backend directml: known divergences (JSON, tests/directml/known-divergences.json): an output "
                    "difference one covers is reported, not a failure");

    auto* cmp = a.compare = app.add_subcommand("compare", "Compare two .npy files bit for bit; exit 0 only when equal");
    cmp->add_option("expected", a.expected_path, "The reference's output (.npy, or an ONNX TensorProto .pb)")->required();
    cmp->add_option("actual", a.actual_path, "The output to judge (.npy or .pb)")->required();
    cmp->add_option("--shape", a.shape, "The tensor's sizes, e.g. 1,3,4,4 (default: the expected file's shape)")->delimiter(',');
    cmp->add_option("--op-desc", a.op_model, "A model file (DxDispatch JSON or an ONNX node test's model.onnx) whose operator produced the tensor: the report names its regions");
    cmp->add_option("--dispatchable", a.dispatchable, "Which dispatchable of --op-desc (when it has several)");
    cmp->add_flag("--nan-equal", a.options.nan_equal, "Any NaN equals any NaN");
    cmp->add_option("--max-listed", a.options.max_listed, "How many mismatches to list")->capture_default_str();
    a.compare_memory = cmp->add_option("--max-memory", a.compare_memory_text, "Bytes the comparison may take, e.g. 2G (default: the memory available)");

    auto* vec = a.vectors = app.add_subcommand("vectors", "Write random valid cases as DxDispatch models with inputs and expected outputs");
    vec->add_option("--out", a.out_dir, "The folder to write one folder per case into")->required();
    vec->add_option("--ops", a.ops, "Operators, e.g. slice1,padding1,tile (default: the fourteen layout and part operators; reverse_subsequences and gather_elements by name only)")->delimiter(',');
    vec->add_option("--count", a.count, "How many cases")->capture_default_str();
    vec->add_option("--seed", a.seed, "The random seed: the same seed writes the same files")->capture_default_str();
    vec->add_option("--format", a.format,
                    "dxdispatch: model.json, input.npy, expected.npy; onnx: ONNX node tests (model.onnx, test_data_set_0/, "
                    "case.json) of the cases ONNX expresses exactly; both: both in each case folder")
        ->check(CLI::IsMember({"dxdispatch", "onnx", "both"}))
        ->capture_default_str();

    auto* par = a.parity = app.add_subcommand(
        "directml-parity", "Ask dmlref and the real DirectML (Windows builds) the same question desc by desc: verdicts on "
                           "boundary descs, outputs of valid ones; a table by operator and class (docs/directml.md)");
    par->add_option("--count", a.parity_count, "Boundary descs (valid at a limit, or one thing wrong)")->capture_default_str();
    par->add_option("--valid", a.parity_valid, "Valid descs run on both sides")->capture_default_str();
    par->add_option("--seed", a.parity_seed, "The random seed")->capture_default_str();
    par->add_option("--feature-level", a.parity_level, "The feature level dmlref validates at")->capture_default_str();
    par->add_option("--known", a.parity_known, "Known divergences (JSON): disagreements they explain do not fail the run");
    par->add_option("--batch", a.parity_batch, "Cases per worker process")->capture_default_str();
    par->add_option("--jobs", a.parity_jobs, "Worker processes at a time")->capture_default_str();
    par->add_option("--report", a.parity_report, "A folder for the per-case results (parity.tsv)");
    par->add_option("--ops", a.parity_ops, "Only these operators' cases (DirectML's names: JOIN,SPLIT); the others are skipped")
        ->delimiter(',');
    par->add_option("--print-case", a.parity_print_case, "Print boundary case N of --seed (its class and desc) and stop; needs no DirectML");
    par->add_flag("--plant", a.parity_plant, "Change one byte of the first DirectML output (the run must then fail)");
    par->add_flag("--worker", a.parity_worker, "(internal) run cases [--start, --end) in this process")->group("");
    par->add_option("--start", a.parity_start, "(internal)")->group("");
    par->add_option("--end", a.parity_end, "(internal)")->group("");
    par->add_option("--results", a.parity_results, "(internal)")->group("");
}

} // namespace dmlref::cli
