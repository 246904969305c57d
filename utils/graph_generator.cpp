// RMAT and Erdős–Rényi graph generation (see graph_generator.hpp for the contracts): per-block
// xoshiro256** streams, tight inner loops instantiated per (record type, symmetric), RMAT levels four
// at a time with SSE2, generator threads filling blocks round-robin while the calling thread writes
// them in order with large O_DIRECT pwrite() calls to a temporary file renamed into place at the end.
#include "utils/graph_generator.hpp"

#include <fcntl.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace edgestream {
namespace {

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
constexpr std::uint64_t kRmatTag = 0x524D4154'00000001ULL;  // "RMAT"
constexpr std::uint64_t kErdosRenyiTag = 0x45524E59'00000002ULL;  // "ERNY"
constexpr std::uint64_t kMaxFileBytes = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
constexpr unsigned kMaxThreads = 1024;  // each generator thread holds two blocks (<= 6 MiB each)

// The splitmix64 output function (a bijection on 64-bit words).
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// xoshiro256** 1.0 (Blackman & Vigna), state filled by splitmix64 from one seed word.
class Xoshiro256ss {
 public:
  explicit Xoshiro256ss(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& word : s_) {
      x += kGolden;
      word = mix64(x);
    }
  }
  inline std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

 private:
  std::uint64_t s_[4];
};

Xoshiro256ss block_rng(std::uint64_t tag, std::uint64_t seed1, std::uint64_t seed2, std::uint64_t block) {
  std::uint64_t h = mix64(seed1 ^ tag);
  h = mix64(h ^ mix64(seed2 + kGolden));
  h = mix64(h ^ mix64(block * kGolden + 0x632BE59BD9B4E019ULL));
  return Xoshiro256ss(h);
}

// Uniform float in [0, 1) from the top 24 bits (exactly representable, never 1).
inline float unit_float(std::uint64_t r) { return static_cast<float>(r >> 40) * 0x1.0p-24F; }

// Output sinks for the inner loops: encoded records (file) or decoded Edge structs (memory).
template <EdgeFileType kType>
struct RecordSink {
  std::byte* p;
  inline void put(std::uint32_t src, std::uint32_t dst, float weight) {
    std::memcpy(p, &src, 4);
    std::memcpy(p + 4, &dst, 4);
    if constexpr (kType == EdgeFileType::kWeighted) std::memcpy(p + 8, &weight, 4);
    p += edge_record_size(kType);
  }
};

template <EdgeFileType kType>
struct EdgeSink {
  Edge* p;
  inline void put(std::uint32_t src, std::uint32_t dst, float weight) {
    *p++ = Edge{src, dst, kType == EdgeFileType::kWeighted ? weight : 1.0F};
  }
};

static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559);

// ---- RMAT ----------------------------------------------------------------------------------------
//
// Levels are drawn four at a time: two 64-bit draws r0, r1 give the 32-bit values
// x0 = low(r0), x1 = high(r0), x2 = low(r1), x3 = high(r1); x3 decides the group's first (most
// significant) level, x0 its last. Quadrant q = [x >= ta] + [x >= tab] + [x >= tabc] (0 = a, 1 = b,
// 2 = c, 3 = d) contributes src bit q >> 1 and dst bit q & 1. ceil(scale / 4) groups are drawn per
// edge and the ids keep their top `scale` bits. The SSE2 path and the portable path compute exactly
// the same bits (tests compare them).

struct RmatParams {
  int scale;
  int groups;  // ceil(scale / 4)
  int drop;    // groups * 4 - scale low bits dropped
  // Cumulative quadrant thresholds on a 32-bit uniform x, scaled by 2^32; 64-bit so that a
  // cumulative probability of 1 (2^32) fits.
  std::uint64_t ta, tab, tabc;
  std::uint64_t seed1, seed2;
};

std::uint64_t threshold(double p) {
  const double scaled = std::nearbyint(p * 4294967296.0);
  if (scaled <= 0) return 0;
  if (scaled >= 4294967296.0) return std::uint64_t{1} << 32;
  return static_cast<std::uint64_t>(scaled);
}

RmatParams rmat_params(const RmatOptions& o) {
  const int groups = (o.scale + 3) / 4;
  return RmatParams{o.scale, groups, groups * 4 - o.scale, threshold(o.a), threshold(o.a + o.b),
                    threshold(o.a + o.b + o.c), o.seed1, o.seed2};
}

// Portable reference: one group of four levels.
struct RmatLevelsPortable {
  std::uint64_t ta, tab, tabc;
  explicit RmatLevelsPortable(const RmatParams& p) : ta(p.ta), tab(p.tab), tabc(p.tabc) {}
  inline void group(std::uint64_t r0, std::uint64_t r1, std::uint64_t& src, std::uint64_t& dst) const {
    const std::uint64_t x[4] = {r0 & 0xFFFFFFFFULL, r0 >> 32, r1 & 0xFFFFFFFFULL, r1 >> 32};
    std::uint64_t s4 = 0;
    std::uint64_t d4 = 0;
    for (int i = 0; i < 4; ++i) {
      const std::uint64_t q = std::uint64_t{x[i] >= ta} + std::uint64_t{x[i] >= tab} + std::uint64_t{x[i] >= tabc};
      s4 |= (q >> 1) << i;
      d4 |= (q & 1) << i;
    }
    src = (src << 4) | s4;
    dst = (dst << 4) | d4;
  }
};

#if defined(__SSE2__)
// The same four levels with SSE2: x < t as a signed compare of sign-flipped values; a threshold of
// 2^32 (x < t always) cannot be flipped into 32 bits and becomes an all-ones "force" mask instead.
struct RmatLevelsSse2 {
  __m128i ta, tab, tabc;  // flipped thresholds
  __m128i fa, fab, fabc;  // all ones where the threshold is 2^32
  explicit RmatLevelsSse2(const RmatParams& p) {
    set(p.ta, ta, fa);
    set(p.tab, tab, fab);
    set(p.tabc, tabc, fabc);
  }
  static void set(std::uint64_t t, __m128i& flipped, __m128i& force) {
    const bool all = t >= (std::uint64_t{1} << 32);
    flipped = _mm_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(all ? 0 : t) ^ 0x80000000U));
    force = _mm_set1_epi32(all ? -1 : 0);
  }
  inline void group(std::uint64_t r0, std::uint64_t r1, std::uint64_t& src, std::uint64_t& dst) const {
    const __m128i x = _mm_xor_si128(_mm_set_epi64x(static_cast<long long>(r1), static_cast<long long>(r0)),
                                    _mm_set1_epi32(static_cast<int>(0x80000000U)));
    const __m128i lt_a = _mm_or_si128(_mm_cmpgt_epi32(ta, x), fa);
    const __m128i lt_ab = _mm_or_si128(_mm_cmpgt_epi32(tab, x), fab);
    const __m128i lt_abc = _mm_or_si128(_mm_cmpgt_epi32(tabc, x), fabc);
    // src bit = x >= tab; dst bit = odd number of thresholds passed = complement of the xor of the
    // three "below" masks.
    const auto s4 = static_cast<std::uint64_t>(~_mm_movemask_ps(_mm_castsi128_ps(lt_ab)) & 0xF);
    const __m128i parity = _mm_xor_si128(_mm_xor_si128(lt_a, lt_ab), lt_abc);
    const auto d4 = static_cast<std::uint64_t>(~_mm_movemask_ps(_mm_castsi128_ps(parity)) & 0xF);
    src = (src << 4) | s4;
    dst = (dst << 4) | d4;
  }
};
using RmatLevelsFast = RmatLevelsSse2;
#else
using RmatLevelsFast = RmatLevelsPortable;
#endif

template <bool kSymmetric, class Levels, class Sink>
void rmat_block(const RmatParams& prm, std::uint64_t block, std::uint64_t count, Sink sink) {
  Xoshiro256ss rng = block_rng(kRmatTag, prm.seed1, prm.seed2, block);
  const Levels levels(prm);
  const int groups = prm.groups;
  const int drop = prm.drop;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t src = 0;
    std::uint64_t dst = 0;
    for (int g = 0; g < groups; ++g) {
      const std::uint64_t r0 = rng.next();
      const std::uint64_t r1 = rng.next();
      levels.group(r0, r1, src, dst);
    }
    const float weight = unit_float(rng.next());
    const auto s = static_cast<std::uint32_t>(src >> drop);
    const auto d = static_cast<std::uint32_t>(dst >> drop);
    sink.put(s, d, weight);
    if constexpr (kSymmetric) sink.put(d, s, weight);
  }
}

// ---- Erdős–Rényi ---------------------------------------------------------------------------------

struct ErParams {
  std::uint64_t vertices;
  bool self_loops;
  std::uint64_t seed1, seed2;
};

__extension__ using Uint128 = unsigned __int128;

// Uniform over [0, n) by multiply-shift (bias <= n / 2^64, negligible for n <= 2^32).
inline std::uint64_t below(std::uint64_t r, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<Uint128>(r) * n) >> 64);
}

template <bool kSymmetric, class Sink>
void er_block(const ErParams& prm, std::uint64_t block, std::uint64_t count, Sink sink) {
  Xoshiro256ss rng = block_rng(kErdosRenyiTag, prm.seed1, prm.seed2, block);
  const std::uint64_t n = prm.vertices;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t src = below(rng.next(), n);
    std::uint64_t dst = below(rng.next(), n);
    if (!prm.self_loops) {
      while (dst == src) dst = below(rng.next(), n);
    }
    const float weight = unit_float(rng.next());
    const auto s = static_cast<std::uint32_t>(src);
    const auto d = static_cast<std::uint32_t>(dst);
    sink.put(s, d, weight);
    if constexpr (kSymmetric) sink.put(d, s, weight);
  }
}

// ---- Block plumbing ------------------------------------------------------------------------------

// Generates `count` edges of determinism block `block` into `out` (records or Edge structs).
using ByteBlockFn = std::function<void(std::uint64_t block, std::uint64_t count, std::byte* out)>;
using EdgeBlockFn = std::function<void(std::uint64_t block, std::uint64_t count, Edge* out)>;

// Dispatches the runtime (type, symmetric) pair to a compile-time instantiation of `Gen`.
template <class Params, class Gen>
ByteBlockFn make_byte_fn(const Params& prm, EdgeFileType type, bool symmetric, Gen gen) {
  return [prm, type, symmetric, gen](std::uint64_t block, std::uint64_t count, std::byte* out) {
    if (type == EdgeFileType::kWeighted) {
      if (symmetric) gen(std::true_type{}, prm, block, count, RecordSink<EdgeFileType::kWeighted>{out});
      else gen(std::false_type{}, prm, block, count, RecordSink<EdgeFileType::kWeighted>{out});
    } else {
      if (symmetric) gen(std::true_type{}, prm, block, count, RecordSink<EdgeFileType::kUnweighted>{out});
      else gen(std::false_type{}, prm, block, count, RecordSink<EdgeFileType::kUnweighted>{out});
    }
  };
}

template <class Params, class Gen>
EdgeBlockFn make_edge_fn(const Params& prm, EdgeFileType type, bool symmetric, Gen gen) {
  return [prm, type, symmetric, gen](std::uint64_t block, std::uint64_t count, Edge* out) {
    if (type == EdgeFileType::kWeighted) {
      if (symmetric) gen(std::true_type{}, prm, block, count, EdgeSink<EdgeFileType::kWeighted>{out});
      else gen(std::false_type{}, prm, block, count, EdgeSink<EdgeFileType::kWeighted>{out});
    } else {
      if (symmetric) gen(std::true_type{}, prm, block, count, EdgeSink<EdgeFileType::kUnweighted>{out});
      else gen(std::false_type{}, prm, block, count, EdgeSink<EdgeFileType::kUnweighted>{out});
    }
  };
}

const auto kRmatGen = [](auto symmetric, const RmatParams& prm, std::uint64_t block, std::uint64_t count, auto sink) {
  rmat_block<decltype(symmetric)::value, RmatLevelsFast>(prm, block, count, sink);
};
const auto kRmatGenPortable = [](auto symmetric, const RmatParams& prm, std::uint64_t block, std::uint64_t count,
                                 auto sink) {
  rmat_block<decltype(symmetric)::value, RmatLevelsPortable>(prm, block, count, sink);
};
const auto kErGen = [](auto symmetric, const ErParams& prm, std::uint64_t block, std::uint64_t count, auto sink) {
  er_block<decltype(symmetric)::value>(prm, block, count, sink);
};

// What the block driver needs to know about one generation run.
struct Plan {
  const char* tool;             // "rmat" / "erdos-renyi", for progress and messages
  std::uint64_t vertices;
  std::uint64_t base_edges;     // edges drawn (before symmetric doubling)
  bool symmetric;
  EdgeFileType type;
  unsigned threads;             // requested, 0 = hardware
  bool progress;
  bool direct_io;
  bool (*cancel)();

  std::uint64_t per_edge() const { return symmetric ? 2 : 1; }
  std::uint64_t records() const { return base_edges * per_edge(); }
  std::uint64_t blocks() const { return (base_edges + kGeneratorBlockEdges - 1) / kGeneratorBlockEdges; }
  std::uint64_t block_edges(std::uint64_t b) const {
    return std::min(kGeneratorBlockEdges, base_edges - b * kGeneratorBlockEdges);
  }
  unsigned thread_count() const {
    unsigned t = threads != 0 ? threads : std::thread::hardware_concurrency();
    t = std::max(1U, t);
    const std::uint64_t nb = std::max<std::uint64_t>(1, blocks());
    return static_cast<unsigned>(std::min<std::uint64_t>(t, nb));
  }
};

Status check_common(std::uint64_t base_edges, bool symmetric, EdgeFileType type, unsigned threads) {
  if (type != EdgeFileType::kWeighted && type != EdgeFileType::kUnweighted) {
    return invalid_argument("--type must be 1 (src,dst,weight: 12 bytes) or 2 (src,dst: 8 bytes), got " +
                            std::to_string(static_cast<int>(type)));
  }
  const std::uint64_t per_record = edge_record_size(type) * (symmetric ? 2 : 1);
  if (base_edges > kMaxFileBytes / per_record) {
    return invalid_argument("--edges " + std::to_string(base_edges) + " is too large: the edge file would exceed 2^63 bytes");
  }
  if (threads > kMaxThreads) {
    return invalid_argument("--threads must be at most " + std::to_string(kMaxThreads) + " (0 = one per hardware thread), got " +
                            std::to_string(threads));
  }
  return Status::ok();
}

// Shortest text that reads back as `v` ("0.6", not "0.59999999999999998").
std::string format_double(double v) {
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, result.ptr);
}

// Runs `fn(thread_index)` on `n` threads (the calling thread is one of them) and joins them.
// Returns an error if a thread could not be started; fn must not throw.
Status run_threads(unsigned n, const std::function<void(unsigned)>& fn, const std::function<void()>& on_spawn_failure) {
  std::vector<std::thread> pool;
  pool.reserve(n);
  Status status;
  for (unsigned t = 1; t < n; ++t) {
    try {
      pool.emplace_back(fn, t);
    } catch (const std::system_error& e) {
      status = resource_exhausted(std::string("cannot start generator thread: ") + e.what());
      on_spawn_failure();
      break;
    }
  }
  fn(0);
  for (auto& th : pool) th.join();
  return status;
}

// ---- Writing the file ----------------------------------------------------------------------------

constexpr std::size_t kDirectAlign = 4096;

// The output file; `direct` says whether O_DIRECT is on. Only the thread whose turn it is writes,
// so the flag needs no lock.
struct OutputFile {
  int fd = -1;
  bool direct = false;
  std::string path;

  // Turns O_DIRECT off for the rest of the run (unaligned tail, or a file system that refuses it).
  Status go_buffered() {
    if (!direct) return Status::ok();
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_DIRECT) != 0) return errno_status(errno, "fcntl(clear O_DIRECT)", path);
    direct = false;
    return Status::ok();
  }

  // Writes all of [data, data + size) at `offset`: retries EINTR and short writes; with O_DIRECT an
  // unaligned piece or an EINVAL falls back to buffered writes.
  Status pwrite_all(const std::byte* data, std::size_t size, std::uint64_t offset) {
    while (size > 0) {
      if (direct && (size % kDirectAlign != 0 || offset % kDirectAlign != 0 ||
                     reinterpret_cast<std::uintptr_t>(data) % kDirectAlign != 0)) {
        ES_RETURN_IF_ERROR(go_buffered());
      }
      const std::size_t chunk = std::min<std::size_t>(size, std::size_t{1} << 30);
      const ssize_t n = ::pwrite(fd, data, chunk, static_cast<off_t>(offset));
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EINVAL && direct) {
          ES_RETURN_IF_ERROR(go_buffered());
          continue;
        }
        return errno_status(errno, "write", path, static_cast<long long>(offset));
      }
      if (n == 0) return errno_status(EIO, "write (no progress)", path, static_cast<long long>(offset));
      data += n;
      size -= static_cast<std::size_t>(n);
      offset += static_cast<std::uint64_t>(n);
    }
    return Status::ok();
  }
};

struct AlignedFree {
  void operator()(std::byte* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<std::byte[], AlignedFree>;

AlignedBytes allocate_aligned(std::size_t bytes) {
  const std::size_t rounded = std::max<std::size_t>(kDirectAlign, (bytes + kDirectAlign - 1) / kDirectAlign * kDirectAlign);
  return AlignedBytes(static_cast<std::byte*>(std::aligned_alloc(kDirectAlign, rounded)));
}

Status cancelled_status(const std::string& name) {
  return {StatusCode::kCancelled, "interrupted while generating " + name + "; no graph was written"};
}

// Checks `name` and returns the .ini path; creates missing parent directories.
Expected<std::filesystem::path> prepare_output(const std::string& name) {
  namespace fs = std::filesystem;
  if (name.empty()) return invalid_argument("--name must not be empty (it is the output edge file; NAME.ini is written next to it)");
  const fs::path path(name);
  if (!path.has_filename() || name.back() == '/') {
    return invalid_argument("--name " + name + " must name a file, not a directory");
  }
  if (path.extension() == ".ini") {
    return invalid_argument("--name " + name + " ends in .ini: give the edge file's name (G); the tool writes G and G.ini");
  }
  std::error_code ec;
  const fs::path parent = path.parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    fs::create_directories(parent, ec);
    if (ec) return errno_status(ec.value(), "create directory", parent.string());
  }
  if (fs::is_directory(path, ec)) return invalid_argument("--name " + name + " is an existing directory");
  return fs::path(name + ".ini");
}

Status write_graph(const Plan& plan, const std::string& name, const ByteBlockFn& gen) {
  namespace fs = std::filesystem;
  ES_ASSIGN_OR_RETURN(const fs::path ini_path, prepare_output(name));
  const std::string tmp = name + ".partial-" + std::to_string(::getpid());
  const std::uint64_t record = edge_record_size(plan.type);
  const std::uint64_t total_bytes = plan.records() * record;

  OutputFile out;
  out.path = tmp;
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  if (plan.direct_io) {
    out.fd = ::open(tmp.c_str(), flags | O_DIRECT, 0644);
    out.direct = out.fd >= 0;
  }
  if (out.fd < 0) out.fd = ::open(tmp.c_str(), flags, 0644);  // no O_DIRECT here (e.g. EINVAL on some file systems)
  if (out.fd < 0) return errno_status(errno, "create", tmp);
  const int fd = out.fd;
  bool fd_open = true;
  auto fail = [&](Status status) {
    if (fd_open) ::close(fd);
    ::unlink(tmp.c_str());
    return status;
  };

  // Reserve the space up front so a full disk fails now, not after minutes of work. File systems
  // without fallocate just skip this.
  if (total_bytes > 0) {
    int rc;
    do {
      rc = ::fallocate(fd, 0, 0, static_cast<off_t>(total_bytes));
    } while (rc != 0 && errno == EINTR);
    if (rc != 0 && errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL) {
      return fail(errno_status(errno, "allocate " + std::to_string(total_bytes) + " bytes for", tmp));
    }
  }

  // Pipeline: `nthreads` generator threads fill blocks round-robin (worker t does blocks t, t + T,
  // ...), each into two alternating buffers; the calling thread writes the blocks in order, so with
  // O_DIRECT the disk and all cores are busy at the same time.
  const std::uint64_t nblocks = plan.blocks();
  const unsigned nthreads = plan.thread_count();
  const std::uint64_t block_bytes = kGeneratorBlockEdges * plan.per_edge() * record;
  const std::size_t buffer_bytes = static_cast<std::size_t>(std::min(plan.base_edges, kGeneratorBlockEdges) * plan.per_edge() * record);
  constexpr unsigned kBuffersPerWorker = 2;
  std::vector<AlignedBytes> buffers;
  for (unsigned i = 0; i < nthreads * kBuffersPerWorker; ++i) {
    buffers.push_back(allocate_aligned(buffer_bytes));
    if (!buffers.back()) {
      return fail(resource_exhausted("cannot allocate " + std::to_string(nthreads * kBuffersPerWorker) + " generator buffers of " +
                                     std::to_string(buffer_bytes) + " bytes"));
    }
  }
  // Worker t's j-th block (block t + j*T) goes into buffers[t * kBuffersPerWorker + j % kBuffersPerWorker].
  auto buffer_of = [&](std::uint64_t b) {
    return buffers[(b % nthreads) * kBuffersPerWorker + (b / nthreads) % kBuffersPerWorker].get();
  };

  std::mutex mutex;
  std::condition_variable changed;
  std::uint64_t written = 0;                          // blocks [0, written) are in the file
  std::vector<std::uint64_t> filled(nthreads, 0);     // worker t has filled its first filled[t] blocks
  bool stop = false;
  Status error;

  auto set_error = [&](Status s) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (error.is_ok()) error = std::move(s);
      stop = true;
    }
    changed.notify_all();
  };
  auto cancelled = [&] { return plan.cancel != nullptr && plan.cancel(); };

  auto worker = [&](unsigned t) {
    const std::uint64_t reuse_distance = std::uint64_t{nthreads} * kBuffersPerWorker;
    for (std::uint64_t j = 0, b = t; b < nblocks; ++j, b += nthreads) {
      if (cancelled()) { set_error(cancelled_status(name)); return; }
      {
        // The buffer's previous block (b - reuse_distance) must be in the file before we overwrite it.
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return stop || b < reuse_distance || written > b - reuse_distance; });
        if (stop) return;
      }
      gen(b, plan.block_edges(b), buffer_of(b));
      {
        std::lock_guard<std::mutex> lock(mutex);
        filled[t] = j + 1;
      }
      changed.notify_all();
    }
  };

  std::vector<std::thread> pool;
  pool.reserve(nthreads);
  for (unsigned t = 0; t < nthreads; ++t) {
    try {
      pool.emplace_back(worker, t);
    } catch (const std::system_error& e) {
      set_error(resource_exhausted(std::string("cannot start generator thread: ") + e.what()));
      break;
    }
  }

  unsigned last_percent = 0;
  bool printed_progress = false;
  for (std::uint64_t b = 0; b < nblocks; ++b) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return stop || filled[b % nthreads] > b / nthreads; });
      if (stop) break;
    }
    if (cancelled()) { set_error(cancelled_status(name)); break; }
    Status s = out.pwrite_all(buffer_of(b), static_cast<std::size_t>(plan.block_edges(b) * plan.per_edge() * record), b * block_bytes);
    if (!s.is_ok()) { set_error(std::move(s)); break; }
    {
      std::lock_guard<std::mutex> lock(mutex);
      written = b + 1;
    }
    changed.notify_all();
    if (plan.progress) {
      const auto percent = static_cast<unsigned>((b + 1) * 100 / nblocks);
      if (percent != last_percent) {
        last_percent = percent;
        printed_progress = true;
        std::fprintf(stderr, "\r%s: %3u%%", plan.tool, percent);
        std::fflush(stderr);
      }
    }
  }
  for (auto& th : pool) th.join();
  if (printed_progress) std::fputc('\n', stderr);
  if (!error.is_ok()) return fail(error);

  fd_open = false;
  if (::close(fd) != 0) return fail(errno_status(errno, "close", tmp));

  // Publish: drop any old .ini first (it may describe another edge count), then the edge file, then
  // the new .ini. A crash in between leaves no .ini, i.e. no graph, rather than a wrong one.
  std::error_code ec;
  fs::remove(ini_path, ec);
  if (ec) return fail(errno_status(ec.value(), "remove old", ini_path.string()));
  if (::rename(tmp.c_str(), name.c_str()) != 0) return fail(errno_status(errno, "rename " + tmp + " to", name));

  GraphInfo info;
  info.ini_path = ini_path;
  info.name = fs::path(name).filename().string();
  info.edge_path = fs::path(name);
  info.type = plan.type;
  info.vertices = plan.vertices;
  info.edges = plan.records();
  info.symmetric = plan.symmetric;  // every (u,v) followed by (v,u), same weight
  Status ini = write_graph_ini(info);
  if (!ini.is_ok()) {
    ::unlink(name.c_str());
    return ini;
  }
  return Status::ok();
}

std::vector<Edge> edges_in_memory(const Plan& plan, const EdgeBlockFn& gen) {
  std::vector<Edge> edges(static_cast<std::size_t>(plan.records()));
  const std::uint64_t nblocks = plan.blocks();
  const unsigned nthreads = plan.thread_count();
  auto worker = [&](unsigned t) {
    for (std::uint64_t b = t; b < nblocks; b += nthreads) {
      gen(b, plan.block_edges(b), edges.data() + b * kGeneratorBlockEdges * plan.per_edge());
    }
  };
  // If a thread cannot start, its blocks are missing: after the join, redo everything serially.
  Status s = run_threads(nthreads, worker, [] {});
  if (!s.is_ok()) {
    for (std::uint64_t b = 0; b < nblocks; ++b) {
      gen(b, plan.block_edges(b), edges.data() + b * kGeneratorBlockEdges * plan.per_edge());
    }
  }
  return edges;
}

std::uint64_t rmat_base_edges(const RmatOptions& o) {
  return o.edges != 0 ? o.edges : (std::uint64_t{16} << o.scale);
}

Plan rmat_plan(const RmatOptions& o) {
  return Plan{"rmat", rmat_vertex_count(o), rmat_base_edges(o), o.symmetric, o.type, o.threads, o.progress, o.direct_io, o.cancel};
}

Plan er_plan(const ErdosRenyiOptions& o) {
  return Plan{"erdos-renyi", o.vertices, o.edges, o.symmetric, o.type, o.threads, o.progress, o.direct_io, o.cancel};
}

ErParams er_params(const ErdosRenyiOptions& o) { return ErParams{o.vertices, o.self_loops, o.seed1, o.seed2}; }

}  // namespace

Status validate_rmat_options(const RmatOptions& o) {
  if (o.scale < 1 || o.scale > 32) {
    return invalid_argument("--scale must be between 1 and 32 (vertices = 2^scale), got " + std::to_string(o.scale));
  }
  const std::pair<const char*, double> probabilities[] = {{"--a", o.a}, {"--b", o.b}, {"--c", o.c}};
  for (const auto& [option, p] : probabilities) {
    if (!(p >= 0.0 && p <= 1.0)) {
      return invalid_argument(std::string(option) + " must be a probability in [0, 1], got " + format_double(p));
    }
  }
  if (o.a + o.b + o.c > 1.0 + 1e-9) {
    return invalid_argument("--a + --b + --c must be at most 1 (d = 1 - a - b - c), got " + format_double(o.a) + " + " +
                            format_double(o.b) + " + " + format_double(o.c) + " = " + format_double(o.a + o.b + o.c));
  }
  return check_common(rmat_base_edges(o), o.symmetric, o.type, o.threads);
}

Status validate_erdos_renyi_options(const ErdosRenyiOptions& o) {
  if (o.vertices < 1 || o.vertices > (std::uint64_t{1} << 32)) {
    return invalid_argument("--vertices must be between 1 and 4294967296 (2^32; ids are 32-bit), got " +
                            std::to_string(o.vertices));
  }
  if (o.vertices == 1 && o.edges > 0 && !o.self_loops) {
    return invalid_argument("--vertices 1 leaves only self-loops: pass --self-loops, more --vertices, or --edges 0");
  }
  return check_common(o.edges, o.symmetric, o.type, o.threads);
}

std::uint64_t rmat_vertex_count(const RmatOptions& o) { return std::uint64_t{1} << o.scale; }
std::uint64_t rmat_record_count(const RmatOptions& o) { return rmat_base_edges(o) * (o.symmetric ? 2 : 1); }
std::uint64_t erdos_renyi_record_count(const ErdosRenyiOptions& o) { return o.edges * (o.symmetric ? 2 : 1); }

Status generate_rmat(const RmatOptions& o) {
  ES_RETURN_IF_ERROR(validate_rmat_options(o));
  return write_graph(rmat_plan(o), o.name, make_byte_fn(rmat_params(o), o.type, o.symmetric, kRmatGen));
}

Status generate_erdos_renyi(const ErdosRenyiOptions& o) {
  ES_RETURN_IF_ERROR(validate_erdos_renyi_options(o));
  return write_graph(er_plan(o), o.name, make_byte_fn(er_params(o), o.type, o.symmetric, kErGen));
}

std::vector<Edge> rmat_edges(const RmatOptions& o) {
  if (Status s = validate_rmat_options(o); !s.is_ok()) throw std::invalid_argument(s.message());
  return edges_in_memory(rmat_plan(o), make_edge_fn(rmat_params(o), o.type, o.symmetric, kRmatGen));
}

namespace detail {
std::vector<Edge> rmat_edges_portable(const RmatOptions& o) {
  if (Status s = validate_rmat_options(o); !s.is_ok()) throw std::invalid_argument(s.message());
  return edges_in_memory(rmat_plan(o), make_edge_fn(rmat_params(o), o.type, o.symmetric, kRmatGenPortable));
}
}  // namespace detail

std::vector<Edge> erdos_renyi_edges(const ErdosRenyiOptions& o) {
  if (Status s = validate_erdos_renyi_options(o); !s.is_ok()) throw std::invalid_argument(s.message());
  return edges_in_memory(er_plan(o), make_edge_fn(er_params(o), o.type, o.symmetric, kErGen));
}

}  // namespace edgestream
