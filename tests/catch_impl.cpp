// Catch2's implementation, compiled once: for the Catch2 test binaries (with catch_main.cpp) and for
// the GoogleTest binary that holds dmlref's GoogleTest matcher to the Catch2 one (without it).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

// What Catch2's own main does (CATCH_CONFIG_MAIN), for catch_main.cpp: Catch2's runner class is declared
// only where the implementation is compiled.
int dmlref_catch_run(int argc, char* argv[]);
int dmlref_catch_run(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
