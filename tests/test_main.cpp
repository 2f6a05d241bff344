// test_main.cpp — Catch2's main, built once and linked into every test executable.
// Wide enough that no test's name wraps in a report: Catch 2 indents a wrapped name's later lines to just past its first
// ": ", and where that lies beyond the width it wrote the same line forever (a skipped GPU test's name, colon at column
// 78, filled 47 GB of ctest's memory). The longest name is under 200 characters.
#define CATCH_CONFIG_CONSOLE_WIDTH 200
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
