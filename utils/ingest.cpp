// The ingest pipeline (see ingest.hpp): parse -> transform (self-loops, symmetrise, weights) ->
// [external sort + dedupe] or [spill] -> [relabel: in memory, or on disk by external sorts and
// merge-joins with the sorted distinct-id file] -> output, then the commit (all files complete under
// temporary names, the .ini renamed last).
#include "utils/ingest.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>

#include "core/cancellation.hpp"
#include "core/scratch_directory.hpp"
#include "io/line_reader.hpp"
#include "io/matrix_market.hpp"
#include "utils/edge_record_file.hpp"
#include "utils/external_edge_sort.hpp"
#include "utils/external_sort.hpp"
#include "utils/mix64.hpp"

namespace edgestream {
namespace {

Status cancelled() { return {StatusCode::kCancelled, "interrupted by a signal; no graph was written"}; }

// Uniform in [0,1), from the seed and the index of the edge line: identical for both directions of a
// symmetrised edge and independent of the memory budget.
float random_weight(std::uint64_t seed, std::uint64_t index) {
  return static_cast<float>(splitmix64(splitmix64(seed) ^ index) >> 40) * 0x1.0p-24F;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A file that is removed when this goes out of scope unless committed.
class PendingFile {
 public:
  explicit PendingFile(std::filesystem::path path) : path_(std::move(path)) {}
  ~PendingFile() {
    if (!committed_) {
      std::error_code ec;
      std::filesystem::remove(path_, ec);
    }
  }
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  const std::filesystem::path& path() const { return path_; }
  Status commit_as(const std::filesystem::path& final_path) {
    std::error_code ec;
    std::filesystem::rename(path_, final_path, ec);
    if (ec) return errno_status(ec.value(), "rename to " + final_path.string(), path_.string());
    committed_ = true;
    return Status::ok();
  }

 private:
  std::filesystem::path path_;
  bool committed_ = false;
};

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// The set of original ids seen: sorted and collapsed in memory while it fits its share of --memory,
// else spilled as sorted runs (ExternalSorter in unique mode) and merged at the end.
using IdSorter = ExternalSorter<VertexId, std::less<VertexId>>;

// An edge on its way through the on-disk relabelling, with its position in the output order.
struct RelabelRecord {
  std::uint64_t seq;
  VertexId src;
  VertexId dst;
  float weight;
  std::uint32_t pad;  // zero: run files hold no uninitialised bytes
};
struct BySrc {
  bool operator()(const RelabelRecord& a, const RelabelRecord& b) const {
    return a.src != b.src ? a.src < b.src : a.seq < b.seq;
  }
};
struct ByDst {
  bool operator()(const RelabelRecord& a, const RelabelRecord& b) const {
    return a.dst != b.dst ? a.dst < b.dst : a.seq < b.seq;
  }
};
struct BySeq {
  bool operator()(const RelabelRecord& a, const RelabelRecord& b) const { return a.seq < b.seq; }
};

// Merge-join of ascending original ids against the sorted distinct-id file: rank(id) = position of
// id in the file. Ids must come in non-decreasing order and all be in the file.
class IdRanker {
 public:
  static Expected<IdRanker> open(const std::filesystem::path& path) {
    IdRanker r;
    r.path_ = path;
    r.buffer_.resize(1 << 16);
    r.file_.reset(std::fopen(path.c_str(), "rbe"));
    if (!r.file_) return errno_status(errno, "open", path.string());
    std::setvbuf(r.file_.get(), r.buffer_.data(), _IOFBF, r.buffer_.size());
    return r;
  }
  Expected<VertexId> rank(VertexId id) {
    while (!has_ || current_ < id) {
      if (std::fread(&current_, sizeof current_, 1, file_.get()) != 1) {
        if (std::ferror(file_.get()) != 0) return errno_status(errno, "read", path_.string());
        return corruption("internal error: vertex id " + std::to_string(id) + " is missing from the id table " +
                          path_.string());
      }
      rank_ = has_ ? rank_ + 1 : 0;
      has_ = true;
    }
    if (current_ != id) {
      return corruption("internal error: vertex id " + std::to_string(id) + " is missing from the id table " + path_.string());
    }
    return rank_;
  }

 private:
  std::filesystem::path path_;
  std::vector<char> buffer_;  // outlives file_
  FilePtr file_;
  VertexId current_ = 0;
  VertexId rank_ = 0;
  bool has_ = false;
};

// NAME.ids: a header, then "new_id<TAB>original_id" per vertex.
class IdsTextWriter {
 public:
  Status open(const std::filesystem::path& path, const std::string& input) {
    path_ = path;
    buffer_.resize(1 << 16);
    file_.reset(std::fopen(path.c_str(), "we"));
    if (!file_) return errno_status(errno, "create", path.string());
    std::setvbuf(file_.get(), buffer_.data(), _IOFBF, buffer_.size());
    std::fprintf(file_.get(), "# new_id\toriginal_id (ingest --compact of %s)\n", input.c_str());
    return Status::ok();
  }
  void add(VertexId original) { std::fprintf(file_.get(), "%llu\t%u\n", static_cast<unsigned long long>(count_++), original); }
  Status close() {
    const bool failed = std::fflush(file_.get()) != 0 || std::ferror(file_.get()) != 0;
    const int saved = errno;
    if (std::fclose(file_.release()) != 0 || failed) return errno_status(failed ? saved : errno, "write", path_.string());
    return Status::ok();
  }
  std::uint64_t count() const { return count_; }

 private:
  std::filesystem::path path_;
  std::vector<char> buffer_;
  FilePtr file_;
  std::uint64_t count_ = 0;
};

class Pipeline {
 public:
  explicit Pipeline(const IngestOptions& o) : o_(o) {}
  Expected<IngestSummary> run();

 private:
  Status parse_input();
  Status process_line(const LineReader& reader, const LineReader::Line& line, InputFormat format,
                      TextEdgeListParser& snap, MatrixMarketParser& mm);
  Status on_edge(TextEdge e);
  Status emit(const Edge& e);
  Status open_stage();
  Status write_final(Edge e);
  Status deliver(const Edge& e);
  Status build_id_table();
  Status relabel_on_disk();
  Status commit(const GraphInfo& info);
  ExternalSortProgress sort_progress(std::string label) const;
  Status malformed(std::uint64_t line_number, std::string_view line, const char* reason);
  void progress(const LineReader& reader, bool force);

  const IngestOptions& o_;
  IngestSummary s_;
  std::optional<ScratchDirectory> scratch_;
  std::optional<PendingFile> out_file_;
  std::optional<EdgeRecordWriter> out_;
  std::optional<PendingFile> spill_file_;
  std::optional<EdgeRecordWriter> spill_;
  std::optional<ExternalEdgeSorter> sorter_;
  std::optional<IdSorter> ids_;                   // compact: the distinct ids
  const std::vector<VertexId>* id_table_ = nullptr;  // compact, in memory: sorted distinct ids
  std::optional<PendingFile> ids_text_;            // compact: NAME.ids under a temporary name
  std::optional<PendingFile> ids_bin_;             // compact, on disk: sorted distinct ids (4 B each)
  std::optional<ExternalSorter<RelabelRecord, BySrc>> by_src_;  // compact, on disk: first relabel sort
  std::uint64_t relabel_seq_ = 0;
  std::uint64_t relabel_share_ = 0;
  bool stage_open_ = false;
  bool use_file_weights_ = false;
  std::uint64_t max_id_plus_one_ = 0;
  std::uint64_t declared_vertices_ = 0;
  bool mirrored_ = false;  // a symmetric Matrix Market file: every off-diagonal entry also written reversed
  std::uint64_t edge_index_ = 0;
  std::optional<Edge> last_;  // dedupe: previous edge in sorted order
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
  bool progress_shown_ = false;
};

Status Pipeline::malformed(std::uint64_t line_number, std::string_view line, const char* reason) {
  MalformedLine m = make_malformed(line_number, line, reason);
  if (o_.strict) {
    return bad_input(o_.input + ":" + std::to_string(line_number) + ": " + reason + ": '" + m.content +
                     "' (--strict stops at the first malformed line)");
  }
  ++s_.malformed_lines;
  if (s_.reported.size() < o_.max_reported) {
    if (o_.on_malformed) o_.on_malformed(m);
    s_.reported.push_back(std::move(m));
  }
  return Status::ok();
}

void Pipeline::progress(const LineReader& reader, bool force) {
  if (!o_.on_progress) return;
  const auto now = std::chrono::steady_clock::now();
  if (force ? !progress_shown_ : now - last_progress_ < std::chrono::seconds(1)) return;  // small inputs: none
  last_progress_ = now;
  progress_shown_ = true;
  char text[256];
  const double mib = static_cast<double>(reader.bytes_read()) / (1 << 20);
  if (reader.file_size() > 0) {
    std::snprintf(text, sizeof text, "ingest: %llu lines, %.0f MiB read, %.0f%% of %s",
                  static_cast<unsigned long long>(reader.line_number()), mib,
                  100.0 * static_cast<double>(reader.raw_offset()) / static_cast<double>(reader.file_size()),
                  reader.path().c_str());
  } else {
    std::snprintf(text, sizeof text, "ingest: %llu lines, %.0f MiB read from %s",
                  static_cast<unsigned long long>(reader.line_number()), mib, reader.path().c_str());
  }
  o_.on_progress(text);
}

// Decides the output type on the first edge (or at the end) and opens the stage edges go to.
Status Pipeline::open_stage() {
  stage_open_ = true;
  const bool weights_requested = o_.weights != WeightMode::kAuto;
  s_.type = o_.type.value_or((s_.input_weighted || weights_requested) ? EdgeFileType::kWeighted
                                                                        : EdgeFileType::kUnweighted);
  use_file_weights_ = s_.input_weighted && o_.weights == WeightMode::kAuto;
  const bool need_scratch = o_.remove_duplicates || o_.compact;
  // Budget: with both dedupe and compact the sort buffer and the id table get half each.
  const std::uint64_t share = (o_.remove_duplicates && o_.compact) ? o_.memory_bytes / 2 : o_.memory_bytes;
  if (need_scratch) {
    const auto dir = o_.tmp_dir.empty() ? std::filesystem::absolute(o_.output).parent_path() : o_.tmp_dir;
    ES_ASSIGN_OR_RETURN(auto scratch, ScratchDirectory::create({dir}));
    scratch_.emplace(std::move(scratch));
  }
  if (o_.compact) {
    ids_.emplace(share, scratch_->directories().front(), "ids", std::less<VertexId>{}, /*unique=*/true);
    ids_->set_progress(sort_progress("vertex ids"));
  }
  if (o_.remove_duplicates) {
    sorter_.emplace(share, scratch_->directories().front());
    sorter_->set_progress(sort_progress("edges (duplicates)"));
  } else if (o_.compact) {
    spill_file_.emplace(scratch_->file("spill"));
    ES_ASSIGN_OR_RETURN(auto w, EdgeRecordWriter::create(spill_file_->path(), EdgeFileType::kWeighted));
    spill_.emplace(std::move(w));
  }
  out_file_.emplace(o_.output.string() + ".ingest-partial");
  ES_ASSIGN_OR_RETURN(auto w, o_.codec.enabled()
                                  ? EdgeRecordWriter::create_framed(out_file_->path(), s_.type, o_.codec, o_.frame_bytes)
                                  : EdgeRecordWriter::create(out_file_->path(), s_.type));
  out_.emplace(std::move(w));
  return Status::ok();
}

ExternalSortProgress Pipeline::sort_progress(std::string label) const {
  ExternalSortProgress p;
  p.report = o_.on_progress;
  p.interval = o_.progress_interval;
  p.label = std::move(label);
  return p;
}

VertexId rank_in(const std::vector<VertexId>& sorted, VertexId id) {
  return static_cast<VertexId>(std::lower_bound(sorted.begin(), sorted.end(), id) - sorted.begin());
}

Status Pipeline::write_final(Edge e) {
  if (id_table_ != nullptr) {
    e.src = rank_in(*id_table_, e.src);
    e.dst = rank_in(*id_table_, e.dst);
  }
  return out_->write(e);
}

// An edge in its final position, original ids: to the output (relabelled in memory) or, when the
// distinct ids did not fit, into the on-disk relabelling with its position.
Status Pipeline::deliver(const Edge& e) {
  if (!by_src_) return write_final(e);
  return by_src_->add(RelabelRecord{relabel_seq_++, e.src, e.dst, e.weight, 0});
}

// After parsing (compact): the sorted distinct ids, in memory when they fit their share, else merged
// from the id runs into a binary file for the joins. Writes NAME.ids (temporary name) either way.
Status Pipeline::build_id_table() {
  ids_text_.emplace(o_.output.string() + ".ids.ingest-partial");
  IdsTextWriter text;
  ES_RETURN_IF_ERROR(text.open(ids_text_->path(), o_.input));
  if (ids_->in_memory()) {
    id_table_ = &ids_->sorted_in_memory();
    for (const VertexId id : *id_table_) text.add(id);
  } else {
    s_.external_relabel = true;
    s_.id_runs = ids_->runs_written();
    ids_bin_.emplace(scratch_->file("ids-sorted"));
    FilePtr bin(std::fopen(ids_bin_->path().c_str(), "we"));
    if (!bin) return errno_status(errno, "create", ids_bin_->path().string());
    std::vector<char> buffer(1 << 16);
    std::setvbuf(bin.get(), buffer.data(), _IOFBF, buffer.size());
    ES_RETURN_IF_ERROR(ids_->finish([&](const VertexId& id) -> Status {
      text.add(id);
      if (std::fwrite(&id, sizeof id, 1, bin.get()) != 1) return errno_status(errno, "write", ids_bin_->path().string());
      return Status::ok();
    }));
    const bool failed = std::fflush(bin.get()) != 0;
    const int saved = errno;
    if (std::fclose(bin.release()) != 0 || failed) return errno_status(failed ? saved : errno, "write", ids_bin_->path().string());
    // The edges' relabelling sorts run one after the other, each pipelined into the next: half each.
    relabel_share_ = std::max<std::uint64_t>(o_.memory_bytes / 2, 4096);
    by_src_.emplace(relabel_share_, scratch_->directories().front(), "by-src");
    by_src_->set_progress(sort_progress("relabel by source"));
  }
  ES_RETURN_IF_ERROR(text.close());
  s_.vertices = text.count();
  return Status::ok();
}

// The on-disk relabelling: edges (with their output position) sorted by original source, joined
// with the id file; sorted by original destination, joined; sorted back to the output order.
Status Pipeline::relabel_on_disk() {
  const auto dir = scratch_->directories().front();
  ExternalSorter<RelabelRecord, ByDst> by_dst(relabel_share_, dir, "by-dst");
  by_dst.set_progress(sort_progress("relabel by destination"));
  {
    ES_ASSIGN_OR_RETURN(IdRanker ranker, IdRanker::open(ids_bin_->path()));
    ES_RETURN_IF_ERROR(by_src_->finish([&](const RelabelRecord& r) -> Status {
      RelabelRecord out = r;
      ES_ASSIGN_OR_RETURN(out.src, ranker.rank(r.src));
      return by_dst.add(out);
    }));
  }
  by_src_.reset();
  ExternalSorter<RelabelRecord, BySeq> by_seq(relabel_share_, dir, "by-seq");
  by_seq.set_progress(sort_progress("restore order"));
  {
    ES_ASSIGN_OR_RETURN(IdRanker ranker, IdRanker::open(ids_bin_->path()));
    ES_RETURN_IF_ERROR(by_dst.finish([&](const RelabelRecord& r) -> Status {
      RelabelRecord out = r;
      ES_ASSIGN_OR_RETURN(out.dst, ranker.rank(r.dst));
      return by_seq.add(out);
    }));
  }
  return by_seq.finish([&](const RelabelRecord& r) { return out_->write(Edge{r.src, r.dst, r.weight}); });
}

Status Pipeline::emit(const Edge& e) {
  if (sorter_) return sorter_->add(e);
  if (spill_) return spill_->write(e);
  return out_->write(e);
}

Status Pipeline::on_edge(TextEdge t) {
  ++s_.edge_lines;
  if (!stage_open_) ES_RETURN_IF_ERROR(open_stage());
  const std::uint64_t index = edge_index_++;
  max_id_plus_one_ = std::max<std::uint64_t>(max_id_plus_one_, std::uint64_t{std::max(t.src, t.dst)} + 1);
  if (ids_) {
    ES_RETURN_IF_ERROR(ids_->add(t.src));
    if (t.dst != t.src) ES_RETURN_IF_ERROR(ids_->add(t.dst));
  }
  if (t.src == t.dst && o_.remove_self_loops) {
    ++s_.self_loops_removed;
    return Status::ok();
  }
  Edge e{t.src, t.dst, 1.0F};
  if (use_file_weights_) {
    e.weight = t.weight;
  } else if (o_.weights == WeightMode::kRandom) {
    e.weight = random_weight(o_.seed, index);
  }
  ES_RETURN_IF_ERROR(emit(e));
  if (o_.symmetric && e.src != e.dst) ES_RETURN_IF_ERROR(emit(Edge{e.dst, e.src, e.weight}));
  return Status::ok();
}

Status Pipeline::process_line(const LineReader& reader, const LineReader::Line& line, InputFormat format,
                              TextEdgeListParser& snap, MatrixMarketParser& mm) {
  const std::uint64_t number = reader.line_number();
  if ((number & 0xFFF) == 0) {
    if (cancel_requested()) return cancelled();
    progress(reader, false);
  }
  if (line.too_long) {
    if (format == InputFormat::kSnap) {
      (void)snap.feed("");  // keeps the parser's line count in step
    } else {
      return bad_input(reader.path() + ":" + std::to_string(number) + ": line longer than 1 MiB");
    }
    ES_RETURN_IF_ERROR(malformed(number, line.text, "line longer than 1 MiB"));
    return Status::ok();
  }
  if (format == InputFormat::kSnap) {
    const ParsedTextLine p = snap.feed(line.text);
    if (p.kind == LineKind::kEdge) {
      if (s_.edge_lines == 0) s_.input_weighted = p.edge.has_weight;
      ES_RETURN_IF_ERROR(on_edge(p.edge));
    } else if (p.kind == LineKind::kMalformed) {
      ES_RETURN_IF_ERROR(malformed(number, line.text, p.reason));
    } else if (line.text.substr(0, kVerticesComment.size()) == kVerticesComment) {
      std::string_view rest = line.text.substr(kVerticesComment.size());
      std::uint64_t n = 0;
      std::from_chars(rest.data(), rest.data() + rest.size(), n);
      declared_vertices_ = std::min<std::uint64_t>(n, std::uint64_t{1} << 32);
    }
  } else {
    MatrixMarketParser::Result r;
    if (Status st = mm.feed(line.text, r); !st.is_ok()) return st.with_context(reader.path());
    if (mm.lines() == 1) s_.input_weighted = mm.header().weighted;
    if (r.kind == LineKind::kEdge) {
      ES_RETURN_IF_ERROR(on_edge(r.edge));
      if (mm.header().symmetric && r.edge.src != r.edge.dst) {
        mirrored_ = true;
        // The implied mirror entry: same line index, so random weights match.
        TextEdge m = r.edge;
        std::swap(m.src, m.dst);
        --edge_index_;
        --s_.edge_lines;
        ES_RETURN_IF_ERROR(on_edge(m));
      }
    } else if (r.kind == LineKind::kMalformed) {
      ES_RETURN_IF_ERROR(malformed(number, line.text, r.reason));
    }
  }
  return Status::ok();
}

Status Pipeline::parse_input() {
  ES_ASSIGN_OR_RETURN(auto reader, LineReader::open(o_.input));
  InputFormat format = o_.format;
  if (format == InputFormat::kAuto && (ends_with(o_.input, ".mtx") || ends_with(o_.input, ".mtx.gz"))) {
    format = InputFormat::kMatrixMarket;
  }
  LineReader::Line line;
  ES_ASSIGN_OR_RETURN(bool more, reader.next(line));
  if (format == InputFormat::kAuto) {
    format = more && is_matrix_market_banner(line.text) ? InputFormat::kMatrixMarket : InputFormat::kSnap;
  }
  s_.format = format == InputFormat::kMatrixMarket ? "matrix-market" : "snap";
  TextEdgeListParser snap;
  MatrixMarketParser mm;
  while (more) {
    ES_RETURN_IF_ERROR(process_line(reader, line, format, snap, mm));
    ES_ASSIGN_OR_RETURN(more, reader.next(line));
  }
  s_.lines = reader.line_number();
  progress(reader, true);
  if (format == InputFormat::kMatrixMarket) {
    if (Status st = mm.finish(); !st.is_ok()) return st.with_context(reader.path());
    declared_vertices_ = std::max(mm.header().rows, mm.header().cols);
  }
  return Status::ok();
}

Expected<IngestSummary> Pipeline::run() {
  if (o_.output.empty()) return invalid_argument("no output graph name given");
  if (o_.codec.enabled() && (o_.frame_bytes < 4096 || o_.frame_bytes > (std::size_t{1} << 30))) {
    return invalid_argument("--frame_bytes must be between 4K and 1G, got " + std::to_string(o_.frame_bytes));
  }
  if (o_.input != "-") {
    std::error_code ec;
    if (std::filesystem::exists(o_.output, ec) && std::filesystem::equivalent(o_.input, o_.output, ec)) {
      return invalid_argument("the output " + o_.output.string() + " is the input file");
    }
  }
  ES_RETURN_IF_ERROR(parse_input());
  if (!stage_open_) ES_RETURN_IF_ERROR(open_stage());  // no edges: still an (empty) graph
  if (ids_) ES_RETURN_IF_ERROR(build_id_table());
  if (sorter_) {
    ES_RETURN_IF_ERROR(sorter_->finish([&](const Edge& e) -> Status {
      if (last_ && last_->src == e.src && last_->dst == e.dst) {
        ++s_.duplicates_removed;  // sorted by weight too: the first kept is the minimum weight
        return Status::ok();
      }
      last_ = e;
      return deliver(e);
    }));
    s_.sort_runs = sorter_->runs_written();
    s_.merge_passes = sorter_->merge_passes();
    sorter_.reset();
  } else if (spill_) {
    ES_RETURN_IF_ERROR(spill_->close());
    {
      ES_ASSIGN_OR_RETURN(auto reader, EdgeRecordReader::open(spill_file_->path(), EdgeFileType::kWeighted));
      Edge e{};
      for (std::uint64_t n = 0;; ++n) {
        if ((n & 0xFFFF) == 0 && cancel_requested()) return cancelled();
        ES_ASSIGN_OR_RETURN(const bool got, reader.next(e));
        if (!got) break;
        ES_RETURN_IF_ERROR(deliver(e));
      }
    }
    spill_file_.reset();  // read: its disk space is free for the relabelling's runs
  }
  if (by_src_) ES_RETURN_IF_ERROR(relabel_on_disk());
  s_.edges = out_->records();
  ES_RETURN_IF_ERROR(out_->close());
  s_.stored_bytes = out_->stored_bytes();
  if (cancel_requested()) return cancelled();
  if (!ids_) s_.vertices = std::max(max_id_plus_one_, declared_vertices_);
  GraphInfo info;
  info.name = o_.output.filename().string();
  info.type = s_.type;
  info.vertices = s_.vertices;
  info.edges = s_.edges;
  // Both directions of every edge were written (--symmetric, or a symmetric Matrix Market file).
  // Removing duplicates keeps that: both directions keep their minimum weight.
  info.symmetric = o_.symmetric || mirrored_;
  if (o_.codec.enabled()) {
    info.codec = codec_name(o_.codec);
    info.frame_bytes = o_.frame_bytes;
  }
  ES_RETURN_IF_ERROR(commit(info));
  return s_;
}

// Every output file is complete under a temporary name before anything visible changes; then the
// old NAME.ini is withdrawn (from here until the last step a reader finds no graph, never a
// mismatched one), the edge file and the mapping are renamed into place (a stale NAME.ids of an
// earlier --compact run is removed when this run writes none), and the rename of the new .ini is the
// commit point.
Status Pipeline::commit(const GraphInfo& graph) {
  const std::filesystem::path ini_path = o_.output.string() + ".ini";
  const std::filesystem::path ids_path = o_.output.string() + ".ids";
  PendingFile ini_file(o_.output.string() + ".ini.ingest-partial");
  GraphInfo info = graph;
  info.ini_path = ini_file.path();
  ES_RETURN_IF_ERROR(write_graph_ini(info));
  if (cancel_requested()) return cancelled();
  std::error_code ec;
  std::filesystem::remove(ini_path, ec);
  if (ec) return errno_status(ec.value(), "remove the old", ini_path.string());
  ES_RETURN_IF_ERROR(out_file_->commit_as(o_.output));
  if (ids_text_) {
    ES_RETURN_IF_ERROR(ids_text_->commit_as(ids_path));
    s_.ids_path = ids_path;
  } else {
    std::filesystem::remove(ids_path, ec);
    if (ec) return errno_status(ec.value(), "remove the stale", ids_path.string());
  }
  ES_RETURN_IF_ERROR(ini_file.commit_as(ini_path));
  s_.ini_path = ini_path;
  return Status::ok();
}

}  // namespace

Expected<IngestSummary> ingest_graph(const IngestOptions& options) {
  Pipeline pipeline(options);
  return pipeline.run();
}

}  // namespace edgestream
