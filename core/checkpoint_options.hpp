// What the user chose about checkpoints (--checkpoint, --resume, --checkpoint_every,
// --checkpoint_seconds); part of EngineOptions. The format and the engine hooks are in
// core/checkpoint.hpp, the design in docs/checkpoint.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace edgestream {

/// Seconds between checkpoints when --checkpoint is given without --checkpoint_every or
/// --checkpoint_seconds (docs/checkpoint.md explains the choice).
inline constexpr double kDefaultCheckpointSeconds = 300.0;

struct CheckpointOptions {
  std::filesystem::path dir;     // --checkpoint DIR: write checkpoints there ("" = none)
  std::filesystem::path resume;  // --resume DIR: continue the run checkpointed there ("" = fresh run)
  std::uint64_t every = 0;       // checkpoint when this many supersteps passed since the last (0 = off)
  double seconds = 0;            // checkpoint when this many seconds passed since the last (0 = off)
  /// The algorithm and every parameter that changes its result, as one line (set by the runner's
  /// caller): a resume refuses a checkpoint written with another one.
  std::string run_identity;

  bool writes() const { return !dir.empty(); }
  bool resumes() const { return !resume.empty(); }
  bool enabled() const { return writes() || resumes(); }
};

}  // namespace edgestream
