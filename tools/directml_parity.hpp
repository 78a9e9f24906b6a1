#pragma once
/// \file directml_parity.hpp
/// `dmlref directml-parity`: dmlref's verdicts and outputs against the real DirectML's, desc by
/// desc, on the boundary and valid cases of parity_cases.hpp. The run is split into batches, each
/// in a child process (the same program with --worker), so that a crash inside DirectML ends one
/// batch, is recorded against the desc that was being asked, and the run goes on after it.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace dmlref::parity {

struct run_options {
    std::uint64_t boundary_count = 3000; ///< boundary cases: indices [0, boundary_count)
    std::uint64_t valid_count = 2000;    ///< valid cases after them
    std::uint64_t seed = 1;
    std::string level = "6_4";   ///< the feature level dmlref validates at
    std::string known;           ///< known-divergences JSON ("" = none: every disagreement fails)
    std::uint64_t batch = 400;   ///< cases per worker process
    std::uint64_t jobs = 2;      ///< worker processes at a time
    std::string report_dir;      ///< where unexplained disagreements are written ("" = nowhere)
    std::vector<std::string> ops; ///< only these operators' cases (DirectML's names); empty: all
    bool plant = false;          ///< change one output byte of the first executed case (the check must fail)
    std::optional<std::uint64_t> print_case; ///< print boundary case N of the seed (class and desc) and stop
    // worker mode
    bool worker = false;
    std::uint64_t start = 0, end = 0;
    std::string results;
};

/// Runs the parity check (or, with options.worker, one batch of it); returns the exit status.
int run(const run_options& options, std::ostream& out);

} // namespace dmlref::parity
