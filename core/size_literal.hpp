// Forwarding header: size/count literals moved to io/size_literal.hpp (shared by the tools in
// utils/, which may only depend on io/). Kept for code on other branches that includes this path;
// new code includes io/size_literal.hpp.
#pragma once

#include "io/size_literal.hpp"
