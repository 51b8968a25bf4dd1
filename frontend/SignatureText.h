// Positions in a one-line text that is parsed on its own (a signature
// string, a record type): its errors point into the source at a column
// offset from where the text starts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "support/Diagnostics.h"

namespace ufjit::frontend {

/// The location of `length` characters (at least one) at `offset` of a text
/// that starts at `start`.
inline SourceLocation location_in(const SourceLocation &start, std::size_t offset, std::size_t length = 1) {
  SourceLocation loc = start;
  loc.col = start.col + static_cast<int>(offset);
  loc.length = static_cast<int>(std::max<std::size_t>(length, 1));
  return loc;
}

/// Moves `pos` past spaces and tabs.
inline void skip_blanks(std::string_view text, std::size_t &pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
}

}  // namespace ufjit::frontend
