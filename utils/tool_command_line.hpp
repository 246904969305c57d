// Command-line handling shared by the tools (block_mem, hilbert_order, ingest, cost_baseline,
// checksum_bench, and the generators through GeneratorCli): usage errors in one format, exit 2,
// and parsing named options with stray words rejected and --help answered.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>

namespace edgestream {

class ToolCommandLine {
 public:
  /// `tool` names the program in messages ("block_mem"); it must outlive this object.
  constexpr explicit ToolCommandLine(const char* tool) : tool_(tool) {}

  constexpr const char* tool() const { return tool_; }

  /// Prints "<tool>: <message> (see <tool> --help)" to stderr and returns 2.
  int usage_error(const std::string& message) const;

  /// Parses argv into `vm`: named options only (a stray word is an error, not ignored). Returns the
  /// exit code when the tool must stop — 0 after printing `desc` for --help (`desc` must define
  /// "help"), 2 after a usage error for a bad command line — and std::nullopt to go on.
  std::optional<int> parse(int argc, char** argv, const boost::program_options::options_description& desc,
                           boost::program_options::variables_map& vm) const;

 private:
  const char* tool_;
};

}  // namespace edgestream
