// Forwarding header: cancellation moved to io/cancellation.hpp (a process-level facility that the
// tools in utils/ share with the engine, and utils/ may only depend on io/). Kept because
// core/engine.hpp and code on other branches include this path; new code includes io/cancellation.hpp.
#pragma once

#include "io/cancellation.hpp"
