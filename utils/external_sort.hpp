// A generic external (out-of-core) merge sort of trivially copyable records in bounded memory, for
// the ingest pipeline (edge dedupe, distinct-id table, on-disk relabelling): records are buffered up
// to a byte budget; a full buffer is sorted and written as a run file (raw records) in a scratch
// directory; finish() k-way merges the runs (several passes when there are more runs than the fan-in
// = budget / 16 KiB, 2..256) and hands every record in order to a callback. With no run written the
// sort stays in memory. `unique`: equal records (neither less than the other) are collapsed to the
// first one, already when a buffer fills (so a set of few distinct values never spills). Polls
// io/cancellation between chunks; shows throttled merge progress through a callback; run files are
// removed as soon as they are merged and by the destructor on any path.
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <type_traits>
#include <vector>

#include "io/cancellation.hpp"
#include "io/status.hpp"

namespace edgestream {

struct ExternalSortProgress {
  /// Called with one line of text (no newline), at most once per `interval`; empty = none.
  std::function<void(const std::string&)> report;
  std::chrono::steady_clock::duration interval = std::chrono::seconds(1);
  std::string label = "sort";  // names the sort in the text ("ingest: merging LABEL: ...")
};

template <typename T, typename Less>
class ExternalSorter {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  /// `memory_bytes`: the budget for buffered records (at least 4 KiB), also the merge's read buffers.
  /// `scratch`: an existing directory; run files are named `prefix`-N there.
  ExternalSorter(std::uint64_t memory_bytes, std::filesystem::path scratch, std::string prefix, Less less = Less{},
                 bool unique = false)
      : memory_bytes_(std::max<std::uint64_t>(memory_bytes, 4096)),
        scratch_(std::move(scratch)),
        prefix_(std::move(prefix)),
        less_(less),
        unique_(unique),
        capacity_(static_cast<std::size_t>(std::max<std::uint64_t>(memory_bytes_ / sizeof(T), 16))) {}
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;
  ~ExternalSorter() {
    std::error_code ec;
    for (const auto& run : runs_) std::filesystem::remove(run, ec);
  }

  void set_progress(ExternalSortProgress progress) { progress_ = std::move(progress); }

  Status add(const T& record) {
    if (buffer_.size() == buffer_.capacity()) {
      if (buffer_.size() >= capacity_) {
        if (unique_) sort_buffer();
        // Unique: spill only when collapsing did not free at least half of the buffer.
        if (!unique_ || buffer_.size() > capacity_ / 2) ES_RETURN_IF_ERROR(spill());
      } else {
        buffer_.reserve(std::min(capacity_, std::max<std::size_t>(buffer_.capacity() * 2, 1024)));
      }
    }
    buffer_.push_back(record);
    ++added_;
    return Status::ok();
  }

  /// True when nothing was spilled: finish() will not touch the disk.
  bool in_memory() const { return runs_.empty(); }
  /// In memory only (in_memory()): sorts (and collapses) the buffer and returns it; the sorter then
  /// owns it until destroyed. An alternative to finish() for callers that want random access.
  const std::vector<T>& sorted_in_memory() {
    sort_buffer();
    return buffer_;
  }

  /// Calls `fn` for every record in sorted order (fn may return an error, which stops the merge).
  /// Call once.
  Status finish(const std::function<Status(const T&)>& fn) {
    if (runs_.empty()) {
      sort_buffer();
      for (std::size_t i = 0; i < buffer_.size(); ++i) {
        if ((i & 0xFFFF) == 0 && cancel_requested()) return cancelled();
        ES_RETURN_IF_ERROR(fn(buffer_[i]));
      }
      std::vector<T>().swap(buffer_);
      return Status::ok();
    }
    if (!buffer_.empty()) ES_RETURN_IF_ERROR(spill());
    std::vector<T>().swap(buffer_);  // the merge reuses the budget for read buffers
    const std::size_t fan_in = static_cast<std::size_t>(std::clamp<std::uint64_t>(memory_bytes_ / (16 << 10), 2, 256));
    // Progress counts records through all passes: (intermediate passes + 1) * records spilled.
    std::uint64_t passes_needed = 1;
    for (std::size_t n = runs_.size(); n > fan_in; n = (n + fan_in - 1) / fan_in) ++passes_needed;
    total_work_ = passes_needed * spilled_;
    while (runs_.size() > fan_in) {
      ++merge_passes_;
      const std::vector<std::filesystem::path> current = runs_;  // runs_ tracks what is on disk
      std::vector<std::filesystem::path> next;
      for (std::size_t begin = 0; begin < current.size(); begin += fan_in) {
        const std::size_t end = std::min(current.size(), begin + fan_in);
        const std::vector<std::filesystem::path> group(current.begin() + static_cast<std::ptrdiff_t>(begin),
                                                       current.begin() + static_cast<std::ptrdiff_t>(end));
        if (group.size() == 1) {
          next.push_back(group.front());
          continue;
        }
        const auto path = next_run_path();
        next.push_back(path);
        runs_.push_back(path);
        Writer writer;
        ES_RETURN_IF_ERROR(writer.open(path));
        ES_RETURN_IF_ERROR(merge(group, [&](const T& r) { return writer.write(r); }));
        ES_RETURN_IF_ERROR(writer.close());
        std::error_code ec;
        for (const auto& run : group) std::filesystem::remove(run, ec);
        runs_.erase(std::remove_if(runs_.begin(), runs_.end(),
                                   [&](const auto& p) { return std::find(group.begin(), group.end(), p) != group.end(); }),
                    runs_.end());
      }
      runs_ = std::move(next);
    }
    ++merge_passes_;
    ES_RETURN_IF_ERROR(merge(runs_, fn));
    merged_ = total_work_;
    report_progress(/*final=*/true);
    std::error_code ec;
    for (const auto& run : runs_) std::filesystem::remove(run, ec);
    runs_.clear();
    return Status::ok();
  }

  std::uint64_t runs_written() const { return runs_written_; }
  std::uint64_t merge_passes() const { return merge_passes_; }
  std::uint64_t records_added() const { return added_; }

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const {
      if (f != nullptr) std::fclose(f);
    }
  };
  using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

  class Writer {
   public:
    Status open(const std::filesystem::path& path) {
      path_ = path;
      file_.reset(std::fopen(path.c_str(), "wbe"));
      if (!file_) return errno_status(errno, "create", path.string());
      buffer_.resize(1 << 16);
      std::setvbuf(file_.get(), buffer_.data(), _IOFBF, buffer_.size());
      return Status::ok();
    }
    Status write(const T& r) {
      if (std::fwrite(&r, sizeof(T), 1, file_.get()) != 1) return errno_status(errno, "write", path_.string());
      return Status::ok();
    }
    Status close() {
      const bool failed = std::fflush(file_.get()) != 0;
      const int saved = errno;
      if (std::fclose(file_.release()) != 0 || failed) return errno_status(failed ? saved : errno, "write", path_.string());
      return Status::ok();
    }

   private:
    std::filesystem::path path_;
    std::vector<char> buffer_;  // declared before file_: outlives the FILE that uses it
    FilePtr file_;
  };

  struct Reader {
    std::filesystem::path path;
    std::vector<char> buffer;
    FilePtr file;
    Expected<bool> next(T& r) {
      const std::size_t got = std::fread(&r, 1, sizeof(T), file.get());
      if (got == sizeof(T)) return true;
      if (std::ferror(file.get()) != 0) return errno_status(errno, "read", path.string());
      if (got != 0) return corruption("temporary run " + path.string() + " ends in a partial record");
      return false;
    }
  };

  static Status cancelled() { return {StatusCode::kCancelled, "interrupted by a signal while sorting"}; }

  std::filesystem::path next_run_path() { return scratch_ / (prefix_ + "-" + std::to_string(runs_written_++)); }

  void sort_buffer() {
    std::sort(buffer_.begin(), buffer_.end(), less_);
    if (unique_) {
      buffer_.erase(std::unique(buffer_.begin(), buffer_.end(),
                                [&](const T& a, const T& b) { return !less_(a, b) && !less_(b, a); }),
                    buffer_.end());
    }
  }

  Status spill() {
    sort_buffer();
    const auto path = next_run_path();
    runs_.push_back(path);
    Writer writer;
    ES_RETURN_IF_ERROR(writer.open(path));
    for (std::size_t i = 0; i < buffer_.size(); ++i) {
      if ((i & 0xFFFF) == 0 && cancel_requested()) return cancelled();
      ES_RETURN_IF_ERROR(writer.write(buffer_[i]));
    }
    ES_RETURN_IF_ERROR(writer.close());
    spilled_ += buffer_.size();
    buffer_.clear();
    return Status::ok();
  }

  // Throttled (none before the first interval either: short sorts stay silent); `final` shows the
  // end state once some line was shown, so the display does not stop short of 100%.
  void report_progress(bool final = false) {
    if (!progress_.report) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report_ < progress_.interval && !(final && shown_)) return;
    last_report_ = now;
    shown_ = true;
    char text[256];
    std::snprintf(text, sizeof text, "ingest: merging %s: %llu of %llu records (%.0f%%), pass %llu", progress_.label.c_str(),
                  static_cast<unsigned long long>(merged_), static_cast<unsigned long long>(total_work_),
                  total_work_ == 0 ? 100.0 : 100.0 * static_cast<double>(merged_) / static_cast<double>(total_work_),
                  static_cast<unsigned long long>(merge_passes_));
    progress_.report(text);
  }

  Status merge(const std::vector<std::filesystem::path>& inputs, const std::function<Status(const T&)>& fn) {
    const std::size_t share = std::max<std::size_t>(4096, memory_bytes_ / (inputs.size() + 1));
    std::vector<Reader> readers(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      readers[i].path = inputs[i];
      readers[i].file.reset(std::fopen(inputs[i].c_str(), "rbe"));
      if (!readers[i].file) return errno_status(errno, "open", inputs[i].string());
      readers[i].buffer.resize(share);
      std::setvbuf(readers[i].file.get(), readers[i].buffer.data(), _IOFBF, share);
    }
    struct Head {
      T record;
      std::size_t source;
    };
    auto greater = [&](const Head& a, const Head& b) {
      if (less_(b.record, a.record)) return true;
      if (less_(a.record, b.record)) return false;
      return a.source > b.source;  // equal records: earlier run first (stable)
    };
    std::priority_queue<Head, std::vector<Head>, decltype(greater)> heap(greater);
    for (std::size_t i = 0; i < readers.size(); ++i) {
      T r{};
      ES_ASSIGN_OR_RETURN(const bool got, readers[i].next(r));
      if (got) heap.push(Head{r, i});
    }
    bool have_last = false;
    T last{};
    while (!heap.empty()) {
      if ((++merged_ & 0xFFFF) == 0) {
        if (cancel_requested()) return cancelled();
        report_progress();
      }
      const Head head = heap.top();
      heap.pop();
      if (!unique_ || !have_last || less_(last, head.record)) {
        ES_RETURN_IF_ERROR(fn(head.record));
        last = head.record;
        have_last = true;
      }
      T r{};
      ES_ASSIGN_OR_RETURN(const bool got, readers[head.source].next(r));
      if (got) heap.push(Head{r, head.source});
    }
    report_progress();
    return Status::ok();
  }

  std::uint64_t memory_bytes_;
  std::filesystem::path scratch_;
  std::string prefix_;
  Less less_;
  bool unique_;
  std::size_t capacity_;
  std::vector<T> buffer_;
  std::vector<std::filesystem::path> runs_;
  std::uint64_t runs_written_ = 0;
  std::uint64_t merge_passes_ = 0;
  std::uint64_t added_ = 0;
  std::uint64_t spilled_ = 0;
  std::uint64_t merged_ = 0;
  std::uint64_t total_work_ = 0;
  ExternalSortProgress progress_;
  std::chrono::steady_clock::time_point last_report_ = std::chrono::steady_clock::now();
  bool shown_ = false;
};

}  // namespace edgestream
