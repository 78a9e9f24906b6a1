#pragma once
/// \file directml_parity.hpp
/// `dmlref directml-parity`: dmlref's verdicts and outputs against the real DirectML's, desc by
/// desc, on the boundary and valid cases of parity_cases.hpp. The run is split into batches, each
/// in a child process (the same program with --worker), so that a crash inside DirectML ends one
/// batch, is recorded against the desc that was being asked, and the run goes on after it.

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <span>
#include <vector>

#include <dmlref/operator.hpp>

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

/// For `dmlref vectors`: the operators drawn as the parity run's valid cases of
/// parity_cases_indexed.hpp (REVERSE_SUBSEQUENCES, the GATHER and SCATTER families, ONE_HOT).
bool draws_indexed(operator_type op);
/// A valid desc of `op` (draws_indexed) from `seed`, as the parity run's valid cases draw it: every
/// data type and index type the operator takes, ranks 1-8, strided and broadcast inputs; every
/// buffer exactly DMLCalcBufferTensorSize, as DxDispatch sizes them.
operator_desc random_indexed_desc(operator_type op, std::uint64_t seed);
/// Whether input `k` (binding order) of `d` is its index or lengths tensor, and bytes for it from
/// `seed`: every index inside its axis, negative ones counting from the end for the signed types,
/// a scatter's targets distinct, REVERSE_SUBSEQUENCES's lengths up to twice the axis.
bool is_index_input(const operator_desc& d, std::size_t k);
std::vector<std::byte> index_input(const operator_desc& d, std::uint64_t seed);

/// For a scatter whose indices name an output element more than once: where DirectML's output
/// buffer `actual` holds one of that element's updates there, it is set to dmlref's `expected`
/// (DirectML's page names no winner). Returns the duplicated elements and how many took another
/// update than dmlref's. Other operators: {0, 0}, `actual` untouched.
std::pair<std::size_t, std::size_t> accept_any_duplicate(const operator_desc& d, std::span<const std::byte> indices,
                                                         std::span<const std::byte> updates, std::span<const std::byte> expected,
                                                         std::span<std::byte> actual);

} // namespace dmlref::parity
