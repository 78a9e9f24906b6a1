// dmlref directml-parity: see directml_parity.hpp.
#include "directml_parity.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <dmlref/compare.hpp>
#include <dmlref/format.hpp>
#include <dmlref/operator.hpp>

#include "known_divergences.hpp"
#include "parity_cases.hpp"

#if defined(DMLREF_HAVE_DIRECTML)
#include <dmlref/directml.hpp>
#endif

namespace dmlref::parity {
#if defined(DMLREF_HAVE_DIRECTML)
namespace {


/// What one case came to, as a worker writes it: one tab-separated line per case.
struct outcome {
    std::uint64_t index = 0;
    std::string op, klass;
    std::string verdict; ///< agree-accept, agree-reject, dmlref-rejects, dmlref-accepts, crash, inexpressible
    std::string output;  ///< same, differs, error, huge, - (not run)
    std::string message;
    std::string pattern; ///< where the outputs differ: parity::difference_pattern's name for how, or ""
};

/// A message on one line of the results file: tabs become spaces, line breaks the two characters \n.
std::string one_line(const std::string& text) {
    std::string line;
    for (char c : text) {
        if (c == '\n') line += "\\n";
        else if (c != '\r') line += c == '\t' ? ' ' : c;
    }
    return line;
}

/// A message of the results file with its line breaks back.
std::string lines_of(const std::string& line) {
    std::string text;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == 'n') {
            text += "\n    ";
            ++i;
        } else {
            text += line[i];
        }
    }
    return text;
}

std::string line_of(const outcome& o) {
    return fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\n", o.index, o.op, one_line(o.klass), o.verdict, o.output, one_line(o.message),
                       o.pattern);
}

std::optional<outcome> parse_line(const std::string& line) {
    std::vector<std::string> f;
    std::string cur;
    for (char c : line) {
        if (c == '\t') {
            f.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    f.push_back(cur);
    if (f.size() != 7) return std::nullopt;
    outcome o;
    try {
        o.index = std::stoull(f[0]);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    o.op = f[1];
    o.klass = f[2];
    o.verdict = f[3];
    o.output = f[4];
    o.message = f[5];
    o.pattern = f[6];
    return o;
}

/// Case `index` of the run: boundary cases first, then valid ones.
parity_case case_of(const run_options& options, std::uint64_t index) {
    return index < options.boundary_count ? boundary_case(options.seed, index)
                                          : valid_case(options.seed, index - options.boundary_count);
}

/// Whether known divergence `k` covers outcome `o` of desc `d`.
bool covers(const known_divergence& k, const outcome& o, const operator_desc& d) {
    return k.covers(o.output == "differs" ? "output" : o.verdict, o.op, o.klass, d, o.pattern);
}

// ---- the worker: one batch of cases in this process ----

/// The case being asked, for the crash handler.
outcome* current = nullptr;
FILE* results_file = nullptr;

LONG WINAPI on_crash(EXCEPTION_POINTERS* info) {
    if (current != nullptr && results_file != nullptr) {
        outcome o = *current;
        o.verdict = "crash";
        o.output = "-";
        o.message = fmt::format("{} raised exception {:#010x} at {}", o.message,
                                static_cast<std::uint32_t>(info->ExceptionRecord->ExceptionCode),
                                info->ExceptionRecord->ExceptionAddress);
        std::fputs(line_of(o).c_str(), results_file);
        std::fflush(results_file);
    }
    TerminateProcess(GetCurrentProcess(), 3);
    return EXCEPTION_EXECUTE_HANDLER;
}

/// Input bytes for a case, from `case_seed` (input_seed): random, with NaN payloads, -0, infinities
/// and subnormals planted in the first elements of float tensors.
std::vector<std::byte> input_for(const buffer_tensor_desc& t, std::uint64_t case_seed) {
    seeded::generator rng(case_seed);
    std::vector<std::byte> bytes(static_cast<std::size_t>(t.total_tensor_size_in_bytes));
    for (auto& b : bytes) b = static_cast<std::byte>(rng());
    auto plant = [&](std::initializer_list<std::uint64_t> values, std::size_t width) {
        std::size_t at = 0;
        for (std::uint64_t v : values) {
            if (at + width > bytes.size()) break;
            std::memcpy(bytes.data() + at, &v, width);
            at += width * 3; // every third element, so strided reads meet some
        }
    };
    if (t.data_type == data_type::float32)
        plant({0x80000000u, 0x7fa00001u, 0xffc12345u, 0x7f800000u, 0x00000001u, 0xff800000u}, 4);
    if (t.data_type == data_type::float16) plant({0x8000u, 0x7d01u, 0xfe42u, 0x7c00u, 0x0001u, 0xfc00u}, 2);
    if (t.data_type == data_type::float64)
        plant({0x8000000000000000ull, 0x7ff0000000000001ull, 0xfff8000000012345ull, 0x7ff0000000000000ull, 1ull}, 8);
    return bytes;
}

/// The seed of case `index`'s input bytes: a valid case's from its index; a boundary case's from its
/// class and draw, as its desc is, so that a known divergence's reproducer keeps its input too.
std::uint64_t input_seed(const run_options& options, const parity_case& c, std::uint64_t index) {
    if (index >= options.boundary_count) return options.seed * 0x9E3779B97F4A7C15ull + index;
    return detail::mix(options.seed ^ detail::class_hash(type_of(c.desc), c.klass), draw_of(index), 3);
}

/// The seed of input tensor `k`'s bytes: the case's own for the first (as before tensor arrays),
/// mixed with k for the others.
std::uint64_t part_seed(std::uint64_t case_seed, std::size_t k) {
    return k == 0 ? case_seed : detail::mix(case_seed, k, 4);
}

/// Whether the case's scatter indices may name an output element more than once: a third of the
/// scatter cases, chosen by their input seed.
bool draws_duplicates(const operator_desc& d, std::uint64_t seed) {
    const operator_type op = type_of(d);
    return (op == operator_type::scatter_elements || op == operator_type::scatter_nd) && seed % 3 == 0;
}

/// Runs the desc on both sides from the same inputs (one buffer per input tensor) into buffers that
/// start as the same sentinel, and compares every output buffer whole, byte for byte.
void run_both(const parity_case& c, outcome& o, directml::device& dml, feature_level level, const run_options& options,
              bool& planted) {
    const auto ins = inputs_of(c.desc), outs = outputs_of(c.desc);
    const auto align = [](const buffer_tensor_desc& t) { return std::max<std::size_t>(t.guaranteed_base_offset_alignment, 64); };
    const std::uint64_t seed = input_seed(options, c, o.index);
    std::vector<std::vector<std::byte>> inputs;
    std::vector<directml::detail::aligned_bytes> in, expected;
    std::vector<std::span<const std::byte>> input_spans, in_spans;
    std::vector<std::span<std::byte>> expected_spans;
    for (std::size_t k = 0; k < ins.size(); ++k) {
        // An index tensor gets indices inside their axes (parity_cases_indexed.hpp), the rest random bytes.
        inputs.push_back(detail::is_index_input(c.desc, k) ? detail::index_input(c.desc, part_seed(seed, k), draws_duplicates(c.desc, seed))
                                                             : input_for(ins[k].desc(), part_seed(seed, k)));
        in.emplace_back(inputs.back().size(), align(ins[k].desc()), std::byte{0});
        std::copy(inputs.back().begin(), inputs.back().end(), in.back().span().begin());
    }
    for (const bound_tensor& t : outs)
        expected.emplace_back(static_cast<std::size_t>(t.desc().total_tensor_size_in_bytes), align(t.desc()), std::byte{0xA5});
    for (std::size_t k = 0; k < ins.size(); ++k) {
        input_spans.push_back(inputs[k]);
        in_spans.push_back(in[k].span());
    }
    for (auto& e : expected) expected_spans.push_back(e.span());
    execute(c.desc, in_spans, expected_spans, level);
    std::vector<std::vector<std::byte>> actual = dml.run(c.desc, input_spans);
    if (options.plant && !planted && !actual.empty() && !actual.front().empty()) {
        actual.front()[0] ^= std::byte{1};
        planted = true;
    }
    // A scatter's duplicated elements: any of their updates is DirectML's right answer.
    std::string duplicates_note;
    if (draws_duplicates(c.desc, seed) && inputs.size() == 3 && !actual.empty()) {
        const auto [duplicated, other] = detail::accept_any_duplicate(c.desc, in_spans[1], inputs[2], expected_spans[0], actual[0]);
        if (duplicated > 0)
            duplicates_note = fmt::format("duplicates: {} output elements written by several updates, {} of them left by DirectML with "
                                    "another update than dmlref's (the last in row-major order)",
                                    duplicated, other);
    }
    bool same = true;
    for (std::size_t k = 0; k < outs.size(); ++k) {
        const auto e = expected_spans[k];
        same = same && std::equal(e.begin(), e.end(), actual[k].begin(), actual[k].end());
    }
    if (same) {
        o.output = "same";
        o.message = duplicates_note;
        return;
    }
    o.output = "differs";
    std::vector<std::vector<std::byte>> ep, ap;
    for (std::size_t k = 0; k < outs.size(); ++k) {
        ep.push_back(d3d12::context::pack(outs[k].desc(), expected_spans[k]));
        ap.push_back(d3d12::context::pack(outs[k].desc(), actual[k]));
    }
    const auto e = compared_output(c.desc, ep), a = compared_output(c.desc, ap);
    if (!actual.empty()) {
        const std::vector<std::byte> sentinel(actual[0].size(), std::byte{0xA5});
        o.pattern = output_difference(c.desc, e, a, in_spans, sentinel, actual[0]);
    }
    const compare_report report = compare(data_type_of(c.desc), compared_sizes(c.desc), e, a, {}, &c.desc);
    o.message = report.equal() ? "bytes outside the output tensors differ" : report.to_string();
    if (!duplicates_note.empty()) o.message += "\n" + duplicates_note;
}

int worker(const run_options& options) {
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
    results_file = std::fopen(options.results.c_str(), "ab");
    if (results_file == nullptr) throw std::runtime_error("--results: cannot open " + options.results);
    SetUnhandledExceptionFilter(on_crash);
    const auto level = parse_feature_level(options.level);
    if (!level) throw std::runtime_error("--feature-level: not a DirectML feature level: " + options.level);
    directml::device dml;
    bool planted = false;
    for (std::uint64_t index = options.start; index < options.end; ++index) {
        const parity_case c = case_of(options, index);
        outcome o{index, std::string(to_string(type_of(c.desc))), c.klass, "", "-", "", ""};
        current = &o;
        if (!options.ops.empty() && std::find(options.ops.begin(), options.ops.end(), o.op) == options.ops.end()) {
            o.verdict = "skipped"; // another operator than --ops names
        } else if (!c.expressible) {
            o.verdict = "inexpressible";
        } else {
            o.message = "CreateOperator/CompileOperator";
            const std::optional<std::string> theirs = dml.accepts(c.desc);
            o.message.clear();
            const std::optional<std::string> ours = validate(c.desc, *level);
            o.verdict = !theirs && !ours ? "agree-accept"
                        : theirs && ours ? "agree-reject"
                        : ours           ? "dmlref-rejects"
                                         : "dmlref-accepts";
            o.message = ours ? *ours : theirs ? *theirs : "";
            if (!theirs && !ours) {
                if (c.huge) {
                    o.output = "huge";
                } else {
                    o.message = "executing";
                    try {
                        run_both(c, o, dml, *level, options, planted);
                    } catch (const std::exception& e) {
                        o.output = "error";
                        o.message = e.what();
                    }
                }
            }
        }
        current = nullptr;
        std::fputs(line_of(o).c_str(), results_file);
        std::fflush(results_file);
    }
    std::fclose(results_file);
    return 0;
}

// ---- the parent: batches in child processes ----

std::wstring quoted(const std::wstring& arg) { return L"\"" + arg + L"\""; }
std::wstring wide(const std::string& s) { return std::wstring(s.begin(), s.end()); }

/// Starts this program with --worker on [start, end), writing to `results`.
PROCESS_INFORMATION start_child(const run_options& options, std::uint64_t start, std::uint64_t end, const std::string& results) {
    wchar_t self[MAX_PATH];
    GetModuleFileNameW(nullptr, self, MAX_PATH);
    std::wstring cmd = quoted(self) + L" directml-parity --worker --start " + std::to_wstring(start) + L" --end " +
                       std::to_wstring(end) + L" --count " + std::to_wstring(options.boundary_count) + L" --valid " +
                       std::to_wstring(options.valid_count) + L" --seed " + std::to_wstring(options.seed) +
                       L" --feature-level " + wide(options.level) + L" --results " + quoted(wide(results));
    if (options.plant) cmd += L" --plant";
    if (!options.ops.empty()) {
        std::string ops;
        for (const std::string& op : options.ops) ops += (ops.empty() ? "" : ",") + op;
        cmd += L" --ops " + wide(ops);
    }
    STARTUPINFOW si{};
    si.cb = sizeof(si);
    PROCESS_INFORMATION pi{};
    if (!CreateProcessW(nullptr, cmd.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr, &si, &pi))
        throw std::runtime_error(fmt::format("CreateProcessW failed (error {})", GetLastError()));
    CloseHandle(pi.hThread);
    return pi;
}

std::map<std::uint64_t, outcome> read_results(const std::string& path) {
    std::map<std::uint64_t, outcome> done;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (auto o = parse_line(line)) done[o->index] = *o;
    return done;
}

/// Runs [first, last) in batches of child processes, `options.jobs` at a time; a child that ends
/// early is recorded as a crash of the case it was on, and the rest of its batch goes to a new child.
/// A case that crashed after other cases asked DirectML in the same process is asked again, alone,
/// in a process of its own, and that answer is its outcome: DirectML 1.15.4's CompileOperator
/// crashes now and then (0x18008ea2d) on a desc it compiles alone without fault, after certain
/// other descs in the same process (docs/directml.md, "Crashes that follow other descs").
/// `retried` gets every case asked again so.
std::vector<outcome> run_batches(const run_options& options, std::uint64_t first, std::uint64_t last, const std::string& stem,
                                 std::ostream& out, std::vector<std::uint64_t>* retried = nullptr) {
    struct running {
        HANDLE process;
        std::uint64_t start, end;
        std::string results;
        ULONGLONG started;
    };
    std::vector<std::pair<std::uint64_t, std::uint64_t>> todo; // batches not started, last first
    for (std::uint64_t b = first; b < last; b += options.batch) todo.emplace_back(b, std::min(last, b + options.batch));
    std::reverse(todo.begin(), todo.end());
    std::vector<running> slots;
    std::vector<std::string> files;
    int children = 0;
    constexpr ULONGLONG timeout_ms = 900'000;
    while (!todo.empty() || !slots.empty()) {
        while (!todo.empty() && slots.size() < std::max<std::uint64_t>(options.jobs, 1)) {
            const auto [start, end] = todo.back();
            todo.pop_back();
            const std::string results = fmt::format("{}-{}.tsv", stem, children++);
            std::remove(results.c_str());
            files.push_back(results);
            slots.push_back({start_child(options, start, end, results).hProcess, start, end, results, GetTickCount64()});
        }
        std::vector<HANDLE> handles;
        for (const auto& r : slots) handles.push_back(r.process);
        const DWORD woke = WaitForMultipleObjects(static_cast<DWORD>(handles.size()), handles.data(), FALSE, 5000);
        for (std::size_t k = 0; k < slots.size();) {
            running& r = slots[k];
            DWORD status = STILL_ACTIVE;
            GetExitCodeProcess(r.process, &status);
            if (status == STILL_ACTIVE && GetTickCount64() - r.started > timeout_ms) {
                TerminateProcess(r.process, 124);
                WaitForSingleObject(r.process, INFINITE);
                status = 124;
            }
            if (status == STILL_ACTIVE) {
                ++k;
                continue;
            }
            CloseHandle(r.process);
            const auto done = read_results(r.results);
            std::uint64_t reached = r.start;
            while (reached < r.end && done.contains(reached)) ++reached;
            if (reached < r.end) {
                // The child ended early: on the case its crash handler recorded (the last one it
                // wrote), or, where it wrote none, on the first case it has no line for.
                std::uint64_t crashed = reached;
                if (reached > r.start && done.at(reached - 1).verdict == "crash") {
                    crashed = reached - 1;
                } else {
                    const parity_case c = case_of(options, reached);
                    outcome o{reached, std::string(to_string(type_of(c.desc))), c.klass, "crash", "-",
                              fmt::format("the worker process ended with status {:#x} on this case{}", status,
                                          status == 124 ? " (timed out)" : ""),
                              ""};
                    std::ofstream(r.results, std::ios::app) << line_of(o);
                }
                out << fmt::format("dmlref: the worker ended on case {} (status {:#x}); going on after it\n", crashed, status);
                if (crashed + 1 < r.end) todo.emplace_back(crashed + 1, r.end);
                const bool after_others = std::any_of(done.begin(), done.end(), [&](const auto& entry) {
                    const auto& [index, o] = entry;
                    return index >= r.start && index < crashed && o.verdict != "skipped" && o.verdict != "inexpressible";
                });
                if (after_others && status != 124 && retried != nullptr) { // asked first of all, so that its file's line overrides
                    todo.emplace_back(crashed, crashed + 1);
                    retried->push_back(crashed);
                }
            }
            slots.erase(slots.begin() + static_cast<std::ptrdiff_t>(k));
        }
        (void)woke;
    }
    std::map<std::uint64_t, outcome> merged;
    for (const std::string& f : files)
        for (auto& [index, o] : read_results(f))
            if (index >= first && index < last) merged[index] = o;
    // One file of every case's outcome, in order.
    std::ofstream all_file(stem + ".tsv", std::ios::trunc);
    std::vector<outcome> all;
    for (auto& [index, o] : merged) {
        all_file << line_of(o);
        all.push_back(o);
    }
    for (const std::string& f : files) std::remove(f.c_str());
    out << fmt::format("dmlref: {} cases in {} worker processes, {} at a time\n", all.size(), children, options.jobs);
    return all;
}

struct tally {
    std::uint64_t agree_accept = 0, agree_reject = 0, dmlref_rejects = 0, dmlref_accepts = 0, crash = 0, inexpressible = 0,
                  same = 0, differs = 0, errors = 0, huge = 0, known = 0;
    void add(const outcome& o, bool is_known) {
        if (o.verdict == "agree-accept") ++agree_accept;
        if (o.verdict == "agree-reject") ++agree_reject;
        if (o.verdict == "dmlref-rejects") ++dmlref_rejects;
        if (o.verdict == "dmlref-accepts") ++dmlref_accepts;
        if (o.verdict == "crash") ++crash;
        if (o.verdict == "inexpressible") ++inexpressible;
        if (o.output == "same") ++same;
        if (o.output == "differs") ++differs;
        if (o.output == "error") ++errors;
        if (o.output == "huge") ++huge;
        if (is_known) ++known;
    }
    bool disagrees() const { return dmlref_rejects + dmlref_accepts + crash + differs + errors > 0; }
    /// One line of the table, the name in a column `width` wide.
    std::string row(std::string_view name, std::size_t width) const {
        return fmt::format("{:<{}} {:>6} {:>6} {:>6} {:>6} {:>5} {:>6} {:>6} {:>5} {:>5}\n", name, width, agree_accept, agree_reject,
                           dmlref_rejects, dmlref_accepts, crash, same, differs + errors, inexpressible + huge, known);
    }
};

} // namespace
#endif

int run(const run_options& options, std::ostream& out) {
    if (options.print_case) { // no DirectML needed: what a known divergence's reproducer records
        const parity_case c = boundary_case(options.seed, *options.print_case);
        out << fmt::format("boundary case {} of seed {}: {} [{}], draw {}{}\n{}\n", *options.print_case, options.seed,
                           to_string(type_of(c.desc)), c.klass, draw_of(*options.print_case),
                           c.detail.empty() ? "" : " (" + c.detail + ")", to_string(c.desc));
        return 0;
    }
#if !defined(DMLREF_HAVE_DIRECTML)
    (void)options;
    (void)out;
    throw std::runtime_error("directml-parity needs DirectML.dll: run a Windows build of dmlref (natively, or under Wine; "
                             "see docs/directml.md)");
#else
    if (options.worker) return worker(options);
    for (const std::string& op : options.ops)
        if (!parse_operator_type(op)) throw std::runtime_error("--ops: '" + op + "' is not an operator (DirectML's names: JOIN, SLICE1, ...)");
    const auto known = load_known(options.known);
    if (!options.report_dir.empty()) {
        // Made here, once: a worker that cannot write its results would be retried case by case.
        std::error_code error;
        std::filesystem::create_directories(options.report_dir, error);
        if (error || !std::filesystem::is_directory(options.report_dir))
            throw std::runtime_error("--report: cannot make the folder '" + options.report_dir + "': " +
                                     (error ? error.message() : std::string("a file has that name")));
    }
    const std::string stem = options.report_dir.empty() ? std::string("directml-parity") : options.report_dir + "/parity";
    std::vector<std::uint64_t> retried;
    std::vector<outcome> outcomes = run_batches(options, 0, options.boundary_count + options.valid_count, stem, out, &retried);
    const std::size_t skipped = static_cast<std::size_t>(
        std::count_if(outcomes.begin(), outcomes.end(), [](const outcome& o) { return o.verdict == "skipped"; }));
    std::erase_if(outcomes, [](const outcome& o) { return o.verdict == "skipped"; });

    // The table: by operator, and within it the classes where anything disagreed.
    std::map<std::string, tally> by_op;
    std::map<std::pair<std::string, std::string>, tally> by_class;
    std::map<std::string, std::uint64_t> known_seen;
    std::vector<outcome> unexplained;
    tally total;
    for (const outcome& o : outcomes) {
        const bool disagreement = o.verdict == "dmlref-rejects" || o.verdict == "dmlref-accepts" || o.verdict == "crash" ||
                                  o.output == "differs" || o.output == "error";
        const known_divergence* k = nullptr;
        if (disagreement) {
            const parity_case c = case_of(options, o.index);
            for (const auto& candidate : known)
                if (covers(candidate, o, c.desc)) k = &candidate;
        }
        if (k) ++known_seen[k->id];
        if (disagreement && !k) unexplained.push_back(o);
        by_op[o.op].add(o, k != nullptr);
        by_class[{o.op, o.klass}].add(o, k != nullptr);
        total.add(o, k != nullptr);
    }
    out << fmt::format("\nDirectML parity, seed {}: {} boundary cases, {} valid cases; dmlref validates at {}\n", options.seed,
                       options.boundary_count, options.valid_count, options.level);
    // The name column fits the longest class listed.
    std::size_t width = std::string_view("operator / class").size();
    for (const auto& [key, ct] : by_class)
        if (ct.disagrees()) width = std::max(width, key.second.size() + 2);
    out << fmt::format("{:<{}} {:>6} {:>6} {:>6} {:>6} {:>5} {:>6} {:>6} {:>5} {:>5}\n", "operator / class", width, "agr-ok",
                       "agr-no", "dml-ok", "ref-ok", "crash", "out=", "out!=", "skip", "known");
    out << "  (agr-ok/agr-no: both accept/reject; dml-ok: only DirectML accepts; ref-ok: only dmlref accepts;\n"
           "   out= / out!=: outputs of descs both accept, equal / different or failed; skip: inexpressible or huge)\n";
    for (const auto& [op, t] : by_op) {
        out << t.row(op, width);
        for (const auto& [key, ct] : by_class)
            if (key.first == op && ct.disagrees()) out << ct.row("  " + key.second, width);
    }
    out << total.row("all", width);
    // Per operator: boundary descs put to both sides, and valid cases run with equal outputs.
    std::map<std::string, std::array<std::uint64_t, 3>> counts; // boundary, valid, valid with the same output
    for (const outcome& o : outcomes) {
        auto& c = counts[o.op];
        if (o.index < options.boundary_count) ++c[0];
        else {
            ++c[1];
            c[2] += o.output == "same";
        }
    }
    out << "per operator: boundary descs, valid cases (with outputs equal byte for byte)\n";
    for (const auto& [op, c] : counts) out << fmt::format("  {:<22} {:>6} {:>6} ({})\n", op, c[0], c[1], c[2]);
    // Scatters whose indices named an output element more than once (draws_duplicates).
    std::map<std::string, std::array<unsigned long long, 4>> dups; // cases, of them same, elements, other update
    for (const outcome& o : outcomes) {
        const auto at = o.message.find("duplicates: ");
        unsigned long long elements = 0, other = 0;
        if (at == std::string::npos ||
            std::sscanf(o.message.c_str() + at, "duplicates: %llu output elements written by several updates, %llu", &elements,
                        &other) != 2)
            continue;
        auto& t = dups[o.op];
        ++t[0];
        t[1] += o.output == "same";
        t[2] += elements;
        t[3] += other;
    }
    for (const auto& [op, t] : dups)
        out << fmt::format("  {}: {} cases with duplicate targets ({} with outputs equal, any duplicate's update accepted), "
                           "{} duplicated elements, {} of them left by DirectML with another update than dmlref's\n",
                           op, t[0], t[1], t[2], t[3]);
    if (skipped > 0) out << fmt::format("{} cases of other operators than --ops skipped\n", skipped);
    for (const std::uint64_t index : retried) {
        const auto o = std::find_if(outcomes.begin(), outcomes.end(), [&](const outcome& x) { return x.index == index; });
        if (o == outcomes.end()) continue;
        out << fmt::format("case {} [{} / {}] crashed after other descs in its worker; asked alone in a process of its own: {}{}\n",
                           index, o->op, o->klass, o->verdict, o->output == "-" ? "" : ", output " + o->output);
    }
    for (const auto& k : known)
        out << fmt::format("known divergence {}: {} cases in this run\n", k.id, known_seen.contains(k.id) ? known_seen.at(k.id) : 0);

    // Every known divergence must still show on its reproducer.
    int status = 0;
    for (const auto& k : known) {
        const auto index = index_of(k.reproducer_op, k.reproducer_class, k.draw);
        const parity_case c = index ? boundary_case(k.seed, *index) : parity_case{};
        if (!index || to_string(c.desc) != k.desc) {
            out << fmt::format("FAILED: known divergence {}: {}\n", k.id,
                               index ? fmt::format("its reproducer (boundary case {} of seed {}) is no longer the recorded desc "
                                                   "(the generator changed): {}", *index, k.seed, to_string(c.desc))
                                     : fmt::format("the parity cases have no class [{} / {}]", k.reproducer_op, k.reproducer_class));
            status = 1;
            continue;
        }
        if (!options.ops.empty() && std::find(options.ops.begin(), options.ops.end(), k.reproducer_op) == options.ops.end()) {
            // Another run names its operator: a reproducer not run here fails nothing.
            out << fmt::format("known divergence {}: reproducer (seed {}, case {}) not run (--ops leaves out {})\n", k.id, k.seed,
                               *index, k.reproducer_op);
            continue;
        }
        run_options one = options;
        one.seed = k.seed;
        one.boundary_count = *index + 1;
        one.valid_count = 0;
        one.plant = false;
        std::ostringstream quiet;
        const auto r = run_batches(one, *index, *index + 1, stem + "-reproducer", quiet);
        const bool reproduces = !r.empty() && covers(k, r.front(), c.desc);
        out << fmt::format("known divergence {}: reproducer (seed {}, case {}) {}\n", k.id, k.seed, *index,
                           reproduces ? "still reproduces" : fmt::format("NO LONGER REPRODUCES: {}", r.empty() ? "no result" : r.front().verdict));
        if (!reproduces) status = 1;
    }
    for (const outcome& o : unexplained) {
        const parity_case c = case_of(options, o.index);
        out << fmt::format("UNEXPLAINED {} case {} [{} / {}]: {} {}\n  desc: {}\n", o.verdict == "crash" ? "crash," : o.verdict, o.index,
                           o.op, o.klass, o.output == "-" ? "" : "output " + o.output + ":", lines_of(o.message), to_string(c.desc));
    }
    if (!unexplained.empty()) status = 1;
    out << fmt::format("directml-parity: {} cases, {} unexplained disagreements\n", outcomes.size(), unexplained.size());
    if (outcomes.size() + skipped != options.boundary_count + options.valid_count) status = 1;
    return status;
#endif
}

bool draws_indexed(operator_type op) { return detail::is_indexed_op(op); }

operator_desc random_indexed_desc(operator_type op, std::uint64_t seed) {
    detail::rng_t rng(seed);
    operator_desc d = detail::random_indexed_base(rng, op);
    for (auto& [name, t] : detail::indexed_tensors(d)) t->total_tensor_size_in_bytes = calc_buffer_tensor_size(*t);
    return d;
}

bool is_index_input(const operator_desc& d, std::size_t k) { return detail::is_index_input(d, k); }

std::vector<std::byte> index_input(const operator_desc& d, std::uint64_t seed) { return detail::index_input(d, seed); }

std::pair<std::size_t, std::size_t> accept_any_duplicate(const operator_desc& d, std::span<const std::byte> indices,
                                                         std::span<const std::byte> updates, std::span<const std::byte> expected,
                                                         std::span<std::byte> actual) {
    return detail::accept_any_duplicate(d, indices, updates, expected, actual);
}

} // namespace dmlref::parity
