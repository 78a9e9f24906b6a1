// The tool's command line, built as tools/main.cpp builds it. CLI11 on Windows takes an argument
// that starts with "/" for a /option switch by default, so there `dmlref compare /data/a.npy ...`
// would fail; the tool turns that off. Each test starts from an app with the Windows default
// switched on, so the check means the same on every platform.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli_app.hpp"

namespace {

/// Defines the tool's command line over `a` on `app`, starting from CLI11's Windows default.
void define_from_windows_default(CLI::App& app, dmlref::cli::arguments& a) {
    app.allow_windows_style_options(true); // what CLI11 starts with on Windows
    dmlref::cli::define(app, a, "0");
    CHECK_FALSE(app.get_allow_windows_style_options());
    for (const CLI::App* sub : {a.run, a.compare, a.vectors}) CHECK_FALSE(sub->get_allow_windows_style_options());
}

/// Parses `args` (after the program's name).
void parse(CLI::App& app, std::vector<std::string> args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 takes them last first
    app.parse(reversed);
}

} // namespace

TEST_CASE("operands that start with / are paths in every subcommand", "[cli]") {
    // The app owns the subcommands that `a` points to: it lives as long as the checks.
    CLI::App app{"dmlref"};
    dmlref::cli::arguments a;
    define_from_windows_default(app, a);
    SECTION("run") {
        REQUIRE_NOTHROW(parse(app, {"run", "/data/model.json", "--max-memory", "2G"}));
        CHECK(*a.run);
        CHECK(a.model_paths == std::vector<std::string>{"/data/model.json"});
    }
    SECTION("compare") {
        REQUIRE_NOTHROW(parse(app, {"compare", "/data/expected.npy", "/data/actual.npy", "--op-desc", "/data/m.json"}));
        CHECK(*a.compare);
        CHECK(a.expected_path == "/data/expected.npy");
        CHECK(a.actual_path == "/data/actual.npy");
        CHECK(a.op_model == "/data/m.json");
    }
    SECTION("vectors") {
        REQUIRE_NOTHROW(parse(app, {"vectors", "--out", "/data/v", "--seed", "7"}));
        CHECK(*a.vectors);
        CHECK(a.out_dir == "/data/v");
        CHECK(a.seed == 7);
    }
}
