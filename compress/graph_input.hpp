// Reading an input graph's edge file as decoded records, whether it holds the raw records
// (X-Stream's format) or framed chunks (`ingest --codec`, the .ini's codec= key, docs/ingest.md).
// Every reader of an input graph goes through here, so none can take frames for records: the engine
// (K = 1 streaming and edge cache, the K > 1 split pass), --verify's reference load, the algorithms
// that read the input themselves, and the tools (export_text, cost_baseline, hilbert_order).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "compress/framed_stream.hpp"
#include "io/graph_format.hpp"
#include "io/record_stream.hpp"

namespace edgestream {

/// Streams `file` (graph.edge_path, opened by the caller) decoded: graph.raw_bytes() bytes of
/// records. Framed inputs are decoded `slots` frames at a time through `parallel` (null: on the
/// calling thread) and every frame's checksum is checked: damage is kCorruption naming the file and
/// the frame's byte offset. Memory beyond the SequentialReader's: framed, 2 * slots * frame_bytes.
Expected<std::unique_ptr<FramedReader>> open_input_edges(const GraphInfo& graph, const File& file, const IoOptions& io,
                                                         unsigned slots, ParallelFor parallel, IoCounters* io_counters,
                                                         CodecCounters* codec_counters);

/// Buffered, synchronous 1 MiB reads: what the tools use.
IoOptions tool_io_options();

/// A pull reader of the decoded records for tools (buffered I/O, one thread): read() fills the
/// buffer it is given from the stream, raw or framed.
class InputEdgeReader {
 public:
  /// Opens graph.edge_path (a GraphInfo from read_graph_ini).
  static Expected<std::unique_ptr<InputEdgeReader>> open(const GraphInfo& graph);
  /// Copies the next decoded bytes into `out`; returns how many, fewer than out.size() only at the
  /// end of the records. Damage is kCorruption naming the file and the frame's offset.
  Expected<std::size_t> read(std::span<std::byte> out);

 private:
  InputEdgeReader() = default;
  std::unique_ptr<File> file_;  // FramedReader keeps a pointer to it
  std::unique_ptr<FramedReader> reader_;
  std::span<const std::byte> chunk_;
};

/// Opens graph.edge_path buffered (no direct I/O: tools and reference loads) and calls
/// fn(records, first_record_index) for consecutive runs of whole decoded records.
template <typename Fn>
Status for_each_input_run(const GraphInfo& graph, Fn&& fn) {
  ES_ASSIGN_OR_RETURN(File file, File::open(graph.edge_path, OpenMode::kReadOnly, /*direct=*/false));
  ES_ASSIGN_OR_RETURN(auto reader, open_input_edges(graph, file, tool_io_options(), 1, nullptr, nullptr, nullptr));
  return for_each_record_run(*reader, graph.record_size(), "edge file " + graph.edge_path.string(), fn);
}

}  // namespace edgestream
