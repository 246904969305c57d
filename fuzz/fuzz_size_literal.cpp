// libFuzzer target: size and count parsing (core/size_literal.*), used for every size option and
// .ini number. Any text must parse or give an error naming the option; a parsed size must print
// back (plain digits) to the same value.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/size_literal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool as_size : {true, false}) {
    auto value = as_size ? edgestream::parse_size("--fuzz", text) : edgestream::parse_count("--fuzz", text);
    if (value) {
      // The plain decimal form of any accepted value parses back to the same value, both ways.
      const std::string plain = std::to_string(*value);
      auto again = edgestream::parse_count("--fuzz", plain);
      auto again_size = edgestream::parse_size("--fuzz", plain);
      if (!again || *again != *value || !again_size || *again_size != *value) std::abort();
    } else if (value.status().message().find("--fuzz") == std::string::npos) {
      std::abort();  // errors name the option
    }
  }
  return 0;
}
