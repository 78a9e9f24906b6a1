// Fuzzer: the model reader through execution. Any bytes are read as a DxDispatch model file in a
// scratch folder that holds the conformance models' inputs (<case>/input.npy); whatever parses
// is run on the reference, its prints going to a string and its writeFile commands into the
// scratch folder (paths outside it are refused by the reader). The only exception allowed out is
// model_error (or the library's validation_error): anything else is a finding.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "model.hpp"

namespace {

namespace fs = std::filesystem;

fs::path scratch;
std::set<fs::path> initial; // what the scratch folder holds between runs

/// The scratch folder: a fresh temporary folder with DMLREF_FUZZ_DATA's cases' inputs.
void make_scratch() {
    char name[] = "/tmp/dmlref-fuzz-model-XXXXXX";
    if (!mkdtemp(name)) std::abort();
    scratch = name;
    for (const auto& entry : fs::directory_iterator(DMLREF_FUZZ_DATA)) {
        const fs::path from = entry.path() / "input.npy";
        if (!fs::is_regular_file(from)) continue;
        fs::create_directories(scratch / entry.path().filename());
        fs::copy_file(from, scratch / entry.path().filename() / "input.npy");
    }
    for (const auto& entry : fs::recursive_directory_iterator(scratch)) initial.insert(entry.path());
}

/// Removes what a run wrote, so that every input starts from the same folder.
void clean_scratch() {
    std::vector<fs::path> written;
    for (const auto& entry : fs::recursive_directory_iterator(scratch))
        if (!initial.count(entry.path())) written.push_back(entry.path());
    for (auto it = written.rbegin(); it != written.rend(); ++it) fs::remove_all(*it);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    make_scratch();
    std::atexit([] { std::error_code ignored; fs::remove_all(scratch, ignored); });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::ostringstream log;
    try {
        // A budget well inside libFuzzer's 2 GiB limit (ASan's shadow and quarantine included);
        // paths confined to the scratch folder.
        dmlref::model::load_options load;
        load.max_memory = std::uint64_t{256} << 20;
        dmlref::model::model m = dmlref::model::parse(text, scratch, "fuzz.json", load);
        dmlref::model::run_options options;
        options.log = &log;
        dmlref::model::run(m, options);
    } catch (const dmlref::validation_error&) {
        // a refusal: model_error (file and JSON path) or a validation_error from the library
    }
    clean_scratch();
    return 0;
}
