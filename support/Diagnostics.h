// Source files, locations and the DiagnosticEngine: the one channel for user
// errors (LANGUAGE.md section 7).
//
// Every token, AST node and signature string carries a SourceLocation. Errors
// render GCC style: `file:line:col: error: message`, the source line, and a
// caret (with tildes for the length) under the offending column.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ufjit/errors.h"

namespace ufjit {

/// A named source text; owns the bytes that locations point into.
class SourceFile {
 public:
  SourceFile(std::string name, std::string text);
  const std::string &name() const { return name_; }
  const std::string &text() const { return text_; }
  /// The text of 1-based line `line`, without its newline; empty if out of range.
  std::string_view line_text(int line) const;
  int line_count() const { return static_cast<int>(line_starts_.size()); }
  /// The location of byte `offset` (1-based line and column).
  struct LineCol {
    int line = 1;
    int col = 1;
  };
  LineCol line_col(std::size_t offset) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<std::size_t> line_starts_;
};

/// 1-based line and column (columns count bytes; a tab is one column).
/// `length` is the width of the underlined range (at least 1).
struct SourceLocation {
  const SourceFile *file = nullptr;
  int line = 0;
  int col = 0;
  int length = 1;
  bool valid() const { return file != nullptr && line > 0; }
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLocation loc;
  std::string message;
};

/// Collects diagnostics; never throws or exits. Keeps the SourceFiles it has
/// seen alive so that rendering works after the AST is gone.
///
/// Hostile input cannot flood the output: after error_limit() errors, later
/// errors (and their notes) are counted but not kept, and one closing note
/// says how many were left out. Messages are kept with every character that a
/// terminal could act on escaped (escape_text).
class DiagnosticEngine {
 public:
  /// Errors kept by default, as compilers do (clang: -ferror-limit=20).
  static constexpr int kDefaultErrorLimit = 20;
  /// 0: keep every error.
  void set_error_limit(int limit) { error_limit_ = limit; }
  int error_limit() const { return error_limit_; }

  void error(const SourceLocation &loc, std::string message);
  void warning(const SourceLocation &loc, std::string message);
  void note(const SourceLocation &loc, std::string message);
  /// Reports `d`, of any severity, as error/warning/note would: for passing
  /// on what another engine collected.
  void report(Diagnostic d) { add(std::move(d)); }

  bool has_errors() const { return error_count_ > 0; }
  int error_count() const { return error_count_; }
  const std::vector<Diagnostic> &diagnostics() const { return diagnostics_; }

  /// Keeps `file` alive as long as this engine (locations point into it).
  void retain(std::shared_ptr<const SourceFile> file);

  /// All diagnostics rendered, one after another, each ending in a newline.
  std::string render_all() const;
  /// The diagnostics as public DiagnosticMessages (for CompileError).
  std::vector<DiagnosticMessage> to_messages() const;
  /// Throws CompileError holding every diagnostic if any error was reported.
  void throw_if_errors() const;

 private:
  /// Keeps `d` unless it is an error past the limit or a note of one.
  void add(Diagnostic d);
  /// diagnostics_ and, if errors were left out, the note that says so.
  std::vector<Diagnostic> shown() const;

  std::vector<Diagnostic> diagnostics_;
  std::vector<std::shared_ptr<const SourceFile>> files_;
  int error_count_ = 0;
  int error_limit_ = kDefaultErrorLimit;
  int suppressed_ = 0;
  bool dropping_notes_ = false;
};

/// `file:line:col: error: message\n    source line\n    ^~~\n`. The source
/// line is escaped as escape_text does, with the caret under the same
/// character.
std::string render_diagnostic(const Diagnostic &d);

/// `text` safe to print on a terminal: control characters (ESC, CR, BEL, ...,
/// C1 controls), bidirectional overrides and bytes that are not UTF-8 become
/// `\x1b` / `\u202e` escapes; tabs and other characters stay as they are.
std::string escape_text(std::string_view text);

/// Byte offset of the first byte of `text` that is not part of well-formed
/// UTF-8 (overlong forms, surrogates and code points past U+10FFFF are not)
/// or is a NUL byte; npos when there is none.
std::size_t first_bad_source_byte(std::string_view text);

/// The closest of `candidates` to `name` by edit distance, for "did you mean"
/// hints; empty when nothing is close enough to be a plausible typo.
std::string closest_match(std::string_view name, const std::vector<std::string> &candidates);

}  // namespace ufjit
