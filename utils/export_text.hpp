// The way back (`ingest --to-text`): a graph (.ini + edge file) -> SNAP-style text edge list that
// `ingest` reads back to the identical graph.
#pragma once

#include <filesystem>
#include <string>

#include "io/status.hpp"

namespace edgestream {

struct ExportSummary {
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
};

/// Writes a header of '#' comment lines (among them "# EdgeStream vertices=N type=T", which ingest
/// reads back so that vertices without edges at the top of the id range survive a round trip), then
/// one line per edge in file order: "src\tdst" (type 2) or "src\tdst\tweight" (type 1, %.9g, which
/// round-trips a float exactly). `output` "-" = standard output; a name ending in ".gz" is written
/// gzip-compressed. A file is written under a temporary name and renamed when complete. The graph is
/// validated (read_graph_ini) and only read.
Expected<ExportSummary> export_text(const std::filesystem::path& ini_path, const std::string& output);

}  // namespace edgestream
