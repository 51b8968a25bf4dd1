// SourceFile, DiagnosticEngine and the GCC-style rendering of LANGUAGE.md
// section 7.
#include "frontend/Diagnostics.h"

#include <algorithm>
#include <sstream>

namespace ufjit {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
  // A final newline does not start another (empty) line.
  if (line_starts_.size() > 1 && line_starts_.back() == text_.size()) line_starts_.pop_back();
}

std::string_view SourceFile::line_text(int line) const {
  if (line < 1 || line > line_count()) return {};
  std::size_t begin = line_starts_[static_cast<std::size_t>(line - 1)];
  std::size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  std::string_view view(text_);
  view = view.substr(begin, end - begin);
  // Windows line endings: the '\r' is not part of the line.
  if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
  return view;
}

void DiagnosticEngine::error(const SourceLocation &loc, std::string message) {
  diagnostics_.push_back({Severity::Error, loc, std::move(message)});
  ++error_count_;
}

void DiagnosticEngine::warning(const SourceLocation &loc, std::string message) {
  diagnostics_.push_back({Severity::Warning, loc, std::move(message)});
}

void DiagnosticEngine::note(const SourceLocation &loc, std::string message) {
  diagnostics_.push_back({Severity::Note, loc, std::move(message)});
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
  for (const auto &d : diagnostics_) out += render_diagnostic(d);
  return out;
}

namespace {

const char *severity_name(Severity s) {
  switch (s) {
    case Severity::Error:
      return "error";
    case Severity::Warning:
      return "warning";
    case Severity::Note:
      return "note";
  }
  return "error";
}

constexpr const char *kSourceIndent = "    ";

}  // namespace

std::vector<DiagnosticMessage> DiagnosticEngine::to_messages() const {
  std::vector<DiagnosticMessage> out;
  out.reserve(diagnostics_.size());
  for (const auto &d : diagnostics_) {
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
  out << kSourceIndent << line << "\n";
  // The caret line copies tabs from the source so that it lines up whatever
  // the terminal's tab width; a column past the end points just after it.
  std::size_t col = static_cast<std::size_t>(std::max(loc.col, 1)) - 1;
  col = std::min(col, line.size());
  std::string caret = kSourceIndent;
  for (std::size_t i = 0; i < col; ++i) caret += line[i] == '\t' ? '\t' : ' ';
  caret += '^';
  std::size_t room = line.size() > col ? line.size() - col : 1;
  std::size_t length = static_cast<std::size_t>(std::max(loc.length, 1));
  length = std::min(length, room);
  caret.append(length - 1, '~');
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
    if (candidate.size() > kMaxLength) continue;
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
