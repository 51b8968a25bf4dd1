// C identifiers, byte by byte and in ASCII whatever the locale: the dtype
// names of signatures, PTX entry names and device-function symbols.
#pragma once

#include <cstddef>
#include <string_view>

namespace ufjit::support {

/// Whether `c` may begin (`first`) or continue a C identifier: [A-Za-z_],
/// then also [0-9]. Not std::isalnum, whose answer depends on the locale.
constexpr bool is_c_identifier_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && c >= '0' && c <= '9');
}

/// Whether `text` is a C identifier, [A-Za-z_][A-Za-z0-9_]*.
constexpr bool is_c_identifier(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_c_identifier_char(text[i], i == 0)) return false;
  }
  return !text.empty();
}

}  // namespace ufjit::support
