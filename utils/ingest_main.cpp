// The `ingest` tool: text edge list (SNAP) or Matrix Market -> graph (CONTRACT §2:
// `ingest [options] INPUT G`, or --name G), and `ingest --to-text G [OUT]` for the way back.
// Exit 0 on success (malformed lines skipped are reported and counted), 1 on an error in the input or
// I/O, 2 on a bad command line; SIGINT/SIGTERM remove all partial output and end with that signal.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "core/cancellation.hpp"
#include "core/size_literal.hpp"
#include "utils/export_text.hpp"
#include "utils/ingest.hpp"
#include "utils/tool_command_line.hpp"

namespace po = boost::program_options;
using namespace edgestream;

namespace {

constexpr ToolCommandLine kCommandLine("ingest");

int fail(const Status& status) {
  std::fprintf(stderr, "ingest: %s\n", status.to_string().c_str());
  if (status.code() == StatusCode::kCancelled && cancel_signal() != 0) {
    std::signal(cancel_signal(), SIG_DFL);
    std::raise(cancel_signal());
  }
  return status.code() == StatusCode::kInvalidArgument ? 2 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> positional;
  std::string name, format = "auto", type = "auto", weights = "auto", memory = "1G", seed = "1", tmp_dir;
  std::string max_errors = "20";
  std::string codec = "none", frame_bytes = "1M";
  bool to_text = false;
  bool progress = false;
  bool no_progress = false;
  IngestOptions o;
  po::options_description desc(
      "Usage: ingest [options] INPUT [G]        text edge list or Matrix Market -> graph G (G + G.ini)\n"
      "       ingest --to-text G [OUT]          graph G -> text edge list (OUT default '-' = stdout)\n"
      "INPUT may be a plain or gzip-compressed file (detected from the bytes) or '-' for stdin.\n"
      "SNAP text: 'src dst' or 'src dst weight' per line (spaces/tabs), '#' and '%' comment lines, CRLF ok.\n"
      "Matrix Market: coordinate real/integer/pattern, general/symmetric; 1-based ids become 0-based.\n"
      "Malformed lines are reported (line number and content) and skipped unless --strict.\n\nOptions");
  desc.add_options()
      ("help,h", "print this help and exit")
      ("name", po::value(&name), "output graph G (edge file G, property file G.ini); or the second positional")
      ("format", po::value(&format)->default_value("auto"), "auto | snap | mtx (auto: .mtx name or %%MatrixMarket banner)")
      ("type", po::value(&type)->default_value("auto"),
       "1 (src,dst,weight) | 2 (src,dst) | auto: 1 when the input has weights or --weights is given, else 2")
      ("compact", po::bool_switch(&o.compact),
       "renumber vertices 0..n-1 in increasing order of their original ids; mapping in G.ids")
      ("symmetric", po::bool_switch(&o.symmetric), "also write (v,u), same weight, after each (u,v) with u != v")
      ("remove_self_loops", po::bool_switch(&o.remove_self_loops), "drop edges (u,u)")
      ("remove_duplicates", po::bool_switch(&o.remove_duplicates),
       "keep one edge per (src,dst) (the smallest weight); output sorted by (src,dst)")
      ("weights", po::value(&weights)->default_value("auto"),
       "auto (from the file, else 1) | unit (all 1) | random (uniform [0,1) from --seed)")
      ("seed", po::value(&seed)->default_value("1"), "seed for --weights random")
      ("strict", po::bool_switch(&o.strict), "stop at the first malformed line (exit 1)")
      ("max_errors", po::value(&max_errors)->default_value("20"), "malformed lines printed (all are counted)")
      ("memory", po::value(&memory)->default_value("1G"),
       "memory for the sort buffers and id table (suffixes K/M/G); larger inputs are sorted and relabelled on disk")
      ("tmp_dir", po::value(&tmp_dir), "directory for sort runs (default: the output's directory)")
      ("codec", po::value(&codec)->default_value("none"),
       "store the edge file compressed: none (raw records, X-Stream's format) | snappy | zlib[:1-9]; "
       "the .ini says codec= and frame_bytes= (docs/ingest.md)")
      ("frame_bytes", po::value(&frame_bytes)->default_value("1M"), "with --codec: raw bytes per compressed chunk (4K..1G)")
      ("progress", po::bool_switch(&progress), "show progress on stderr even when it is not a terminal")
      ("no_progress", po::bool_switch(&no_progress), "never show progress")
      ("to-text", po::bool_switch(&to_text), "the way back: write graph G as a text edge list")
      ("export", po::bool_switch(&to_text), "same as --to-text")
      ("positional", po::value(&positional)->composing(), "INPUT [G]");
  po::options_description visible;
  visible.add(desc);
  po::positional_options_description pos;
  pos.add("positional", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return kCommandLine.usage_error(e.what());
  }
  if (vm.count("help") != 0) {
    std::cout << desc << "\n";
    return 0;
  }
  install_cancellation_handlers();

  if (to_text) {
    std::string graph = !name.empty() ? name : (positional.empty() ? "" : positional[0]);
    std::string out = "-";
    const std::size_t first_out = name.empty() ? 1 : 0;
    if (positional.size() > first_out) out = positional[first_out];
    if (graph.empty()) return kCommandLine.usage_error("--to-text needs the graph G");
    if (positional.size() > first_out + 1) return kCommandLine.usage_error("too many arguments");
    const auto start = std::chrono::steady_clock::now();
    auto summary = export_text(graph_ini_path(graph), out);
    if (!summary) return fail(summary.status());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "ingest: wrote %s: %llu vertices, %llu edges, %.2f s\n", out == "-" ? "<stdout>" : out.c_str(),
                 static_cast<unsigned long long>(summary->vertices), static_cast<unsigned long long>(summary->edges),
                 seconds);
    return 0;
  }

  if (positional.empty()) return kCommandLine.usage_error("missing INPUT (a file, or '-' for standard input)");
  o.input = positional[0];
  if (name.empty() && positional.size() >= 2) name = positional[1];
  if (positional.size() > (vm.count("name") != 0 ? 1U : 2U)) return kCommandLine.usage_error("too many arguments");
  if (name.empty()) return kCommandLine.usage_error("missing the output graph G (second argument or --name)");
  o.output = name;
  if (format == "snap") {
    o.format = InputFormat::kSnap;
  } else if (format == "mtx" || format == "mm") {
    o.format = InputFormat::kMatrixMarket;
  } else if (format != "auto") {
    return kCommandLine.usage_error("--format must be auto, snap or mtx, got '" + format + "'");
  }
  if (type == "1") {
    o.type = EdgeFileType::kWeighted;
  } else if (type == "2") {
    o.type = EdgeFileType::kUnweighted;
  } else if (type != "auto") {
    return kCommandLine.usage_error("--type must be 1, 2 or auto, got '" + type + "'");
  }
  if (weights == "unit") {
    o.weights = WeightMode::kUnit;
  } else if (weights == "random") {
    o.weights = WeightMode::kRandom;
  } else if (weights != "auto") {
    return kCommandLine.usage_error("--weights must be auto, unit or random, got '" + weights + "'");
  }
  auto seed_value = parse_count("--seed", seed);
  if (!seed_value) return kCommandLine.usage_error(seed_value.status().message());
  o.seed = *seed_value;
  auto memory_value = parse_size("--memory", memory);
  if (!memory_value) return kCommandLine.usage_error(memory_value.status().message());
  if (*memory_value < 4096) return kCommandLine.usage_error("--memory must be at least 4K");
  o.memory_bytes = *memory_value;
  auto max_errors_value = parse_count("--max_errors", max_errors);
  if (!max_errors_value) return kCommandLine.usage_error(max_errors_value.status().message());
  o.max_reported = static_cast<std::size_t>(*max_errors_value);
  o.tmp_dir = tmp_dir;
  auto codec_value = parse_codec("--codec", codec);
  if (!codec_value) return kCommandLine.usage_error(codec_value.status().message());
  o.codec = *codec_value;
  auto frame_value = parse_size("--frame_bytes", frame_bytes);
  if (!frame_value) return kCommandLine.usage_error(frame_value.status().message());
  if (*frame_value < 4096 || *frame_value > (std::uint64_t{1} << 30)) return kCommandLine.usage_error("--frame_bytes must be between 4K and 1G");
  o.frame_bytes = static_cast<std::size_t>(*frame_value);
  o.on_malformed = [&](const MalformedLine& m) {
    std::fprintf(stderr, "ingest: %s:%llu: %s: '%s'\n", o.input == "-" ? "<stdin>" : o.input.c_str(),
                 static_cast<unsigned long long>(m.line), m.reason, m.content.c_str());
  };
  const bool show_progress = !no_progress && (progress || ::isatty(STDERR_FILENO) != 0);
  const auto start = std::chrono::steady_clock::now();
  bool progress_shown = false;
  if (show_progress) {
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    o.on_progress = [&progress_shown, tty](const std::string& text) {
      if (tty) {
        std::fprintf(stderr, "\r%s\x1b[K", text.c_str());  // one line, updated in place
        progress_shown = true;
      } else {
        std::fprintf(stderr, "%s\n", text.c_str());  // a log: one line per report
      }
    };
  }
  auto summary = ingest_graph(o);
  if (progress_shown) std::fprintf(stderr, "\n");
  if (!summary) return fail(summary.status());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const IngestSummary& s = *summary;
  if (s.malformed_lines > s.reported.size()) {
    std::fprintf(stderr, "ingest: ... %llu more malformed lines not shown (--max_errors)\n",
                 static_cast<unsigned long long>(s.malformed_lines - s.reported.size()));
  }
  std::printf("ingest: %s (%s): %llu lines, %llu edge lines, %llu malformed lines skipped\n",
              o.input.c_str(), s.format.c_str(), static_cast<unsigned long long>(s.lines),
              static_cast<unsigned long long>(s.edge_lines), static_cast<unsigned long long>(s.malformed_lines));
  if (s.self_loops_removed + s.duplicates_removed > 0) {
    std::printf("ingest: removed %llu self-loops, %llu duplicate edges\n",
                static_cast<unsigned long long>(s.self_loops_removed), static_cast<unsigned long long>(s.duplicates_removed));
  }
  if (s.sort_runs > 0) {
    std::printf("ingest: external sort: %llu runs, %llu merge passes\n", static_cast<unsigned long long>(s.sort_runs),
                static_cast<unsigned long long>(s.merge_passes));
  }
  if (s.external_relabel) {
    std::printf("ingest: --compact relabelled on disk (the distinct ids did not fit --memory: %llu id runs)\n",
                static_cast<unsigned long long>(s.id_runs));
  }
  std::printf("ingest: wrote %s and %s: %llu vertices, %llu edges (type %d)%s%s, %.2f s\n", o.output.c_str(),
              s.ini_path.c_str(), static_cast<unsigned long long>(s.vertices), static_cast<unsigned long long>(s.edges),
              static_cast<int>(s.type), s.ids_path.empty() ? "" : ", id mapping in ", s.ids_path.c_str(), seconds);
  if (o.codec.enabled()) {
    const std::uint64_t raw = s.edges * edge_record_size(s.type);
    std::printf("ingest: edge file stored with %s in %llu-byte frames: %llu bytes of records -> %llu bytes (ratio %.3f)\n",
                codec_name(o.codec).c_str(), static_cast<unsigned long long>(o.frame_bytes), static_cast<unsigned long long>(raw),
                static_cast<unsigned long long>(s.stored_bytes),
                s.stored_bytes == 0 ? 1.0 : static_cast<double>(raw) / static_cast<double>(s.stored_bytes));
  }
  if (s.malformed_lines > 0) {
    std::fprintf(stderr, "ingest: warning: %llu malformed lines were skipped (use --strict to stop at the first)\n",
                 static_cast<unsigned long long>(s.malformed_lines));
  }
  return 0;
}
