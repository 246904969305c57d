// open_input_edges (graph_input.hpp): a FramedReader over the input, framed per the .ini.
#include "compress/graph_input.hpp"

#include <algorithm>
#include <cstring>

namespace edgestream {

Expected<std::unique_ptr<FramedReader>> open_input_edges(const GraphInfo& graph, const File& file, const IoOptions& io,
                                                         unsigned slots, ParallelFor parallel, IoCounters* io_counters,
                                                         CodecCounters* codec_counters) {
  const std::uint64_t raw = graph.raw_bytes();
  // A raw input is read for exactly its records (read_graph_ini checked the size); a framed one
  // for the whole file (graph.stored_bytes, 0 when the GraphInfo did not come from read_graph_ini).
  std::uint64_t stored = raw;
  if (graph.framed()) {
    ES_ASSIGN_OR_RETURN(stored, file.size());
  }
  return FramedReader::open(file, stored, raw, io, graph.framed(), graph.framed() ? graph.frame_bytes : 0,
                            std::max(1U, slots), std::move(parallel), io_counters, codec_counters);
}

IoOptions tool_io_options() {
  IoOptions io;
  io.direct = false;
  io.engine = IoEngine::kSync;
  io.read_chunk = std::size_t{1} << 20;
  io.depth = 1;
  return io;
}

Expected<std::unique_ptr<InputEdgeReader>> InputEdgeReader::open(const GraphInfo& graph) {
  std::unique_ptr<InputEdgeReader> r(new InputEdgeReader());
  ES_ASSIGN_OR_RETURN(File file, File::open(graph.edge_path, OpenMode::kReadOnly, /*direct=*/false));
  r->file_ = std::make_unique<File>(std::move(file));
  ES_ASSIGN_OR_RETURN(r->reader_, open_input_edges(graph, *r->file_, tool_io_options(), 1, nullptr, nullptr, nullptr));
  return r;
}

Expected<std::size_t> InputEdgeReader::read(std::span<std::byte> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    if (chunk_.empty()) {
      ES_ASSIGN_OR_RETURN(chunk_, reader_->next());
      if (chunk_.empty()) break;
    }
    const std::size_t take = std::min(out.size() - done, chunk_.size());
    std::memcpy(out.data() + done, chunk_.data(), take);
    chunk_ = chunk_.subspan(take);
    done += take;
  }
  return done;
}

}  // namespace edgestream
