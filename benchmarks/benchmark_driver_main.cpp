// benchmark_driver: runs one algorithm on one graph (CONTRACT.md §3). All logic is in driver.cpp.
#include <iostream>

#include "benchmarks/driver.hpp"
#include "core/cancellation.hpp"

int main(int argc, char** argv) {
  edgestream::install_cancellation_handlers();
  return edgestream::driver_main(argc, argv, std::cout, std::cerr);
}
