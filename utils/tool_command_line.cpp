// ToolCommandLine: the tools' usage errors and named-option parsing.
#include "utils/tool_command_line.hpp"

#include <cstdio>
#include <iostream>

namespace edgestream {

namespace po = boost::program_options;

int ToolCommandLine::usage_error(const std::string& message) const {
  std::fprintf(stderr, "%s: %s (see %s --help)\n", tool_, message.c_str(), tool_);
  return 2;
}

std::optional<int> ToolCommandLine::parse(int argc, char** argv, const po::options_description& desc,
                                          po::variables_map& vm) const {
  try {
    const po::positional_options_description no_positionals;  // stray words are errors, not ignored
    po::store(po::command_line_parser(argc, argv).options(desc).positional(no_positionals).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(e.what());
  }
  if (vm.count("help") != 0) {
    std::cout << desc << "\n";
    return 0;
  }
  return std::nullopt;
}

}  // namespace edgestream
