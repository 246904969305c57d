// Which `-b` algorithms support --checkpoint/--resume, and the line that identifies a run of one
// in its checkpoints (the algorithm and the parameters that change its result).
#pragma once

#include <string>

#include "algorithms/algorithm.hpp"

namespace edgestream {

/// "-b NAME --param value ..." for a checkpointable algorithm (aliases give their canonical name:
/// wcc -> cc), or kUnsupported naming the algorithm and why, e.g. for multi-pass runners.
Expected<std::string> checkpoint_run_identity(const std::string& algorithm, const AlgorithmParams& params);

/// The checkpointable algorithms, for messages and docs: "bc, belief_propagation, ...".
std::string checkpointable_algorithms();

}  // namespace edgestream
