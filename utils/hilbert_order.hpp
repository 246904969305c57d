// Rewriting a graph with its edges in Hilbert-curve order over (src, dst) (the hilbert_order tool):
// the same edge multiset (weights kept, type kept), the same vertex count, a new NAME + NAME.ini.
// The result is an ordinary unordered edge list for the engine; single-threaded baselines run faster
// on it (better cache locality). The sort is stable: equal (src, dst) pairs keep their input order.
//
// Memory: an external merge sort. Runs of at most memory_bytes / 16 edges (16 B each in memory:
// a 64-bit curve position + the weight) are sorted in RAM (radix sort, which needs the same again as
// scratch, so a run takes 2 * 16 B per edge: runs are memory_bytes / 32 edges) and written to
// temporary files beside the output (12 B per edge on disk); they are then merged with one buffered
// reader per run. Peak RSS is about memory_bytes plus small buffers; temporary disk space is
// 12 B per edge. One run (a graph that fits) skips the temporary files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "io/graph_format.hpp"
#include "io/status.hpp"

namespace edgestream {

struct HilbertOrderOptions {
  std::string output;                              ///< output edge file NAME; NAME.ini is written too
  std::uint64_t memory_bytes = std::uint64_t{1} << 30;  ///< sort memory bound (>= 1 MiB)
  bool progress = false;                           ///< "hilbert_order: NN%" on stderr
  bool (*cancel)() = nullptr;                      ///< polled between batches; true = stop, clean up
};

/// Writes `input`'s edges in Hilbert order to options.output (+ .ini). Refuses to overwrite the
/// input. The output is written under a temporary name and renamed when complete; temporary run
/// files are removed on every path. Errors name the file and offset/record involved.
Status write_hilbert_ordered(const GraphInfo& input, const HilbertOrderOptions& options);

}  // namespace edgestream
