// Command-line handling shared by the generator tools (rmat, erdos-renyi): the options they have in
// common (X-Stream's --name --symmetric --seed1 --seed2 --threads, plus --type and --no_dio),
// parsing with stray words rejected, usage errors (exit 2), and running a generator with progress,
// interrupt handling and the one summary line.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "io/cancellation.hpp"
#include "io/size_literal.hpp"
#include "utils/graph_generator.hpp"
#include "utils/tool_command_line.hpp"

namespace edgestream {

class GeneratorCli : public ToolCommandLine {
 public:
  /// `tool` names the program in messages ("rmat").
  explicit GeneratorCli(const char* tool) : ToolCommandLine(tool) {}

  /// Adds --help and --name (first), to be followed by the tool's own options.
  void add_leading_options(boost::program_options::options_description& desc);
  /// Adds --symmetric --seed1 --seed2 --threads --no_dio --type.
  void add_trailing_options(boost::program_options::options_description& desc);

  /// Parses argv into `vm`. Returns an exit code when the tool must stop (0 after --help, 2 on a
  /// bad command line or a missing --name), std::nullopt to go on.
  std::optional<int> parse(int argc, char** argv, const boost::program_options::options_description& desc,
                           boost::program_options::variables_map& vm) const;

  /// Sets the common fields of RmatOptions / ErdosRenyiOptions from the parsed values.
  template <typename Options>
  Status apply(Options& options) const {
    options.name = name_;
    options.symmetric = symmetric_;
    options.type = static_cast<EdgeFileType>(type_);
    options.direct_io = !no_dio_;
    ES_ASSIGN_OR_RETURN(options.seed1, parse_count("seed1", seed1_text_));
    ES_ASSIGN_OR_RETURN(options.seed2, parse_count("seed2", seed2_text_));
    ES_ASSIGN_OR_RETURN(const std::uint64_t threads, parse_count("threads", threads_text_));
    options.threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, UINT_MAX));
    return Status::ok();
  }

  /// Runs generate(options) (progress on a terminal for large outputs; SIGINT/SIGTERM/SIGHUP, through
  /// io/cancellation, remove the partial output and end the process with that signal) and prints the summary line. Returns the
  /// exit code: 0, 2 for invalid options found late (e.g. a bad --name), 1 for I/O errors.
  template <typename Options, typename Generate>
  int run(Options& options, std::uint64_t vertices, std::uint64_t records, Generate&& generate) const {
    options.progress = ::isatty(STDERR_FILENO) != 0 && records > 100'000'000;
    install_cancellation_handlers();
    options.cancel = &cancel_requested;
    const auto start = std::chrono::steady_clock::now();
    const Status status = generate(options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report(status, vertices, records, records * edge_record_size(options.type), seconds);
  }

 private:
  int report(const Status& status, std::uint64_t vertices, std::uint64_t records, std::uint64_t bytes,
             double seconds) const;

  std::string name_;
  std::string seed1_text_;
  std::string seed2_text_;
  std::string threads_text_;
  int type_ = 1;
  bool symmetric_ = false;
  bool no_dio_ = false;
};

}  // namespace edgestream
