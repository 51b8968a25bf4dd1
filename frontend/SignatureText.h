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

/// A position in such a text, the locations of its characters and where its
/// errors go: what the signature parser and the record-type parser it hands
/// `record(...)` to both read with. `pos` is shared with the caller, which
/// goes on from where the cursor stopped.
class TextCursor {
 public:
  TextCursor(std::string_view text, std::size_t &pos, SourceLocation start, DiagnosticEngine &diags)
      : text_(text), pos_(pos), start_(start), diags_(diags) {}

 protected:
  SourceLocation loc_at(std::size_t offset, std::size_t length = 1) const {
    return location_in(start_, offset, length);
  }
  void skip_spaces() { skip_blanks(text_, pos_); }
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  std::string_view text_;
  std::size_t &pos_;
  SourceLocation start_;
  DiagnosticEngine &diags_;
};

}  // namespace ufjit::frontend
