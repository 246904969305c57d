// The Catch2 entry point of the test binary (Catch2 v2, single header from Debian's catch2).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
