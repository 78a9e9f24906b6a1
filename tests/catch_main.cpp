// The one Catch2 main of dmlref's test binaries.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
