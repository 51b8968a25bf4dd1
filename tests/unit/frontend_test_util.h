// Shared helpers for the frontend test suites.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "support/Diagnostics.h"
#include "frontend/Parser.h"

namespace ufjit::test {

inline std::shared_ptr<const SourceFile> make_file(const std::string &text,
                                                   const std::string &name = "test.ufn") {
  return std::make_shared<SourceFile>(name, text);
}

/// Parses `text`; diagnostics land in `diags`.
inline std::unique_ptr<ast::Module> parse_text(const std::string &text, DiagnosticEngine &diags) {
  return frontend::parse(make_file(text), diags);
}

/// The messages of every diagnostic, one per line, for readable failures.
inline std::string messages(const DiagnosticEngine &diags) {
  std::string out;
  for (const auto &d : diags.diagnostics()) {
    out += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message + "\n";
  }
  return out;
}

inline std::filesystem::path repo_root() {
  return std::filesystem::path(UFJIT_SOURCE_DIR);
}

inline std::string read_text(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ufjit::test
