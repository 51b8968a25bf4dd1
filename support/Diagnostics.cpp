// SourceFile, DiagnosticEngine and the GCC-style rendering of LANGUAGE.md
// section 7.
#include "support/Diagnostics.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "support/EnumNames.h"

namespace ufjit {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  // Lines end as the lexer ends them: "\n", "\r\n" or a lone "\r".
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    bool lone_cr = text_[i] == '\r' && (i + 1 == text_.size() || text_[i + 1] != '\n');
    if (text_[i] == '\n' || lone_cr) line_starts_.push_back(i + 1);
  }
  // A final newline does not start another (empty) line.
  if (line_starts_.size() > 1 && line_starts_.back() == text_.size()) line_starts_.pop_back();
}

std::string_view SourceFile::line_text(int line) const {
  if (line < 1 || line > line_count()) return {};
  std::size_t begin = line_starts_[static_cast<std::size_t>(line - 1)];
  std::size_t end = text_.find_first_of("\r\n", begin);
  if (end == std::string::npos) end = text_.size();
  std::string_view view(text_);
  return view.substr(begin, end - begin);
}

SourceFile::LineCol SourceFile::line_col(std::size_t offset) const {
  auto after = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  std::size_t index = static_cast<std::size_t>(after - line_starts_.begin()) - 1;
  return LineCol{static_cast<int>(index) + 1, static_cast<int>(offset - line_starts_[index]) + 1};
}

void DiagnosticEngine::error(const SourceLocation &loc, std::string message) {
  add({Severity::Error, loc, std::move(message)});
}

void DiagnosticEngine::warning(const SourceLocation &loc, std::string message) {
  add({Severity::Warning, loc, std::move(message)});
}

void DiagnosticEngine::note(const SourceLocation &loc, std::string message) {
  add({Severity::Note, loc, std::move(message)});
}

void DiagnosticEngine::add(Diagnostic d) {
  if (d.severity == Severity::Error) {
    ++error_count_;
    dropping_notes_ = error_limit_ > 0 && error_count_ > error_limit_;
    if (dropping_notes_) {
      ++suppressed_;
      return;
    }
  } else if (d.severity == Severity::Note && dropping_notes_) {
    return;
  } else {
    dropping_notes_ = false;
  }
  // Only escaped: the message may quote the source.
  d.message = escape_text(d.message);
  diagnostics_.push_back(std::move(d));
}

std::vector<Diagnostic> DiagnosticEngine::shown() const {
  std::vector<Diagnostic> out = diagnostics_;
  if (suppressed_ > 0) {
    out.push_back({Severity::Note, SourceLocation{},
                   std::to_string(suppressed_) + " more error" + (suppressed_ == 1 ? "" : "s") +
                       " not shown (the limit is " + std::to_string(error_limit_) + ")"});
  }
  return out;
}

void DiagnosticEngine::retain(std::shared_ptr<const SourceFile> file) {
  if (!file) return;
  for (const auto &kept : files_) {
    if (kept == file) return;
  }
  files_.push_back(std::move(file));
}

std::string DiagnosticEngine::render_all() const {
  std::string out;
  for (const auto &d : shown()) out += render_diagnostic(d);
  return out;
}

namespace {

const char *severity_name(Severity s) {
  static constexpr support::EnumName<Severity> kNames[] = {
      {Severity::Error, "error"}, {Severity::Warning, "warning"}, {Severity::Note, "note"}};
  return support::enum_name(s, kNames, "error");
}

constexpr const char *kSourceIndent = "    ";
/// Source lines longer than this (bytes) are shown in part: kShownBefore
/// bytes before the column and kShownAfter from it on.
constexpr std::size_t kMaxShownLine = 200;
constexpr std::size_t kShownBefore = 80;
constexpr std::size_t kShownAfter = 100;

}  // namespace

std::vector<DiagnosticMessage> DiagnosticEngine::to_messages() const {
  std::vector<DiagnosticMessage> out;
  for (const auto &d : shown()) {
    DiagnosticMessage m;
    m.file = d.loc.file != nullptr ? d.loc.file->name() : std::string();
    m.line = d.loc.line;
    m.column = d.loc.col;
    m.severity = severity_name(d.severity);
    m.message = d.message;
    m.rendered = render_diagnostic(d);
    if (!m.rendered.empty() && m.rendered.back() == '\n') m.rendered.pop_back();
    out.push_back(std::move(m));
  }
  return out;
}

void DiagnosticEngine::throw_if_errors() const {
  if (!has_errors()) return;
  throw CompileError(render_all(), to_messages());
}

namespace {

/// Length of the well-formed UTF-8 sequence at `i` (1 to 4), or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

uint32_t decode_utf8(std::string_view s, std::size_t i, std::size_t n) {
  auto byte = [&](std::size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[k])); };
  if (n == 1) return byte(i);
  uint32_t cp = byte(i) & (0x7Fu >> n);
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  return cp;
}

/// Characters a terminal acts on or that reorder the text around them.
bool needs_escape(uint32_t cp) {
  if (cp == '\t') return false;
  if (cp < 0x20 || cp == 0x7F) return true;
  if (cp >= 0x80 && cp <= 0x9F) return true;                                    // C1 controls (CSI, ...)
  if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) return true;  // bidi overrides
  if (cp == 0x200E || cp == 0x200F || cp == 0x061C) return true;                 // bidi marks
  return false;
}

/// Appends the character at `i` of `s`, escaped if needed; returns the
/// offset of the next character.
std::size_t append_escaped_char(std::string_view s, std::size_t i, std::string &out) {
  char buffer[16];
  std::size_t n = utf8_length(s, i);
  if (n == 0) {
    std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(s[i])));
    out += buffer;
    return i + 1;
  }
  uint32_t cp = decode_utf8(s, i, n);
  if (!needs_escape(cp)) {
    out.append(s.substr(i, n));
  } else if (cp < 0x80) {
    std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned>(cp));
    out += buffer;
  } else {
    std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(cp));
    out += buffer;
  }
  return i + n;
}

/// Columns taken by what was appended to `out` from `from` on: one per
/// character (UTF-8 continuation bytes take none).
std::size_t display_width(const std::string &out, std::size_t from) {
  std::size_t width = 0;
  for (std::size_t k = from; k < out.size(); ++k) {
    if ((static_cast<unsigned char>(out[k]) & 0xC0) != 0x80) ++width;
  }
  return width;
}

}  // namespace

std::string escape_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) i = append_escaped_char(text, i, out);
  return out;
}

std::size_t first_bad_source_byte(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\0') return i;
    std::size_t n = utf8_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string render_diagnostic(const Diagnostic &d) {
  std::ostringstream out;
  const SourceLocation &loc = d.loc;
  if (loc.file != nullptr) {
    out << loc.file->name() << ":";
    if (loc.line > 0) {
      out << loc.line << ":";
      if (loc.col > 0) out << loc.col << ":";
    }
    out << " ";
  }
  out << severity_name(d.severity) << ": " << d.message << "\n";
  if (!loc.valid() || loc.line > loc.file->line_count()) return out.str();

  std::string_view line = loc.file->line_text(loc.line);
  std::size_t col = static_cast<std::size_t>(std::max(loc.col, 1)) - 1;
  col = std::min(col, line.size());
  std::size_t length = static_cast<std::size_t>(std::max(loc.length, 1));
  std::size_t end = std::min(line.size(), col + length);
  // The caret line copies tabs from the source so that it lines up whatever
  // the terminal's tab width, and pads each character by the width it is
  // shown with (an escape is several columns, a UTF-8 sequence one); a
  // column past the end points just after it.
  std::string shown_line;
  std::string caret = kSourceIndent;
  std::size_t marked = 0;
  // A long line (minified or generated source) shows a window around the
  // column, so that 20 errors on a 10 MB line stay short.
  std::size_t first = 0;
  std::size_t last = line.size();
  if (line.size() > kMaxShownLine) {
    first = col > kShownBefore ? col - kShownBefore : 0;
    last = std::min(line.size(), col + kShownAfter);
    auto continuation = [&](std::size_t k) { return (static_cast<unsigned char>(line[k]) & 0xC0) == 0x80; };
    while (first > 0 && continuation(first)) --first;
    while (last < line.size() && continuation(last)) ++last;
  }
  if (first > 0) {
    shown_line += "...";
    caret += "   ";
  }
  for (std::size_t i = first; i < last;) {
    std::size_t width_before = shown_line.size();
    std::size_t next = append_escaped_char(line, i, shown_line);
    std::size_t width = line[i] == '\t' ? 1 : display_width(shown_line, width_before);
    if (i < col) {
      caret.append(width, line[i] == '\t' ? '\t' : ' ');
    } else if (i < end) {
      marked += width;
    }
    i = next;
  }
  if (last < line.size()) shown_line += "...";
  out << kSourceIndent << shown_line << "\n";
  caret += '^';
  if (marked > 1) caret.append(marked - 1, '~');
  out << caret << "\n";
  return out.str();
}

namespace {

/// Optimal string alignment distance: Levenshtein plus adjacent
/// transpositions, so that `flaot32` is one edit from `float32`.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      std::size_t best = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        best = std::min(best, d[i - 2][j - 2] + 1);
      }
      d[i][j] = best;
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closest_match(std::string_view name, const std::vector<std::string> &candidates) {
  // A plausible typo changes at most about a third of the word (LLVM's and
  // clang's rule), and never the whole of it.
  constexpr std::size_t kMaxLength = 64;
  if (name.empty() || name.size() > kMaxLength) return {};
  std::size_t limit = std::max<std::size_t>(1, (name.size() + 1) / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto &candidate : candidates) {
    // The name itself is no hint: "unknown 'x'; did you mean 'x'?".
    if (candidate.size() > kMaxLength || candidate == name) continue;
    std::size_t distance = edit_distance(name, candidate);
    if (distance >= std::max(name.size(), candidate.size())) continue;
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace ufjit
