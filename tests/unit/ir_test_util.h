// Shared helpers for the IR/typer test suite (ufjit_ir_tests).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/Diagnostics.h"
#include "typer/Typer.h"
#include "ir/IRPrinter.h"

namespace ufjit::irtest {

/// The result of typing a source: the program (if it typed clean) and every
/// diagnostic as "line:col: message" lines.
struct Typed {
  std::optional<ir::TypedProgram> program;
  std::string messages;
  DiagnosticEngine diags;
};

inline std::unique_ptr<Typed> type_source(const std::string &text, const std::vector<std::string> &sigs = {}) {
  auto t = std::make_unique<Typed>();
  auto file = std::make_shared<SourceFile>("test.ufn", text);
  t->program = ir::compile_to_ir(file, t->diags, sigs);
  for (const Diagnostic &d : t->diags.diagnostics()) {
    t->messages += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message + "\n";
  }
  return t;
}

/// The printed IR of signature `sig` of the first ufunc; "" (and the
/// diagnostics in `messages`) when typing failed.
inline std::string ir_text(const std::string &text, std::size_t sig = 0, std::string *messages = nullptr) {
  std::unique_ptr<Typed> t = type_source(text);
  if (messages != nullptr) *messages = t->messages;
  if (!t->program || t->program->ufuncs.empty() || t->program->ufuncs[0].modules.size() <= sig) return "";
  return ir::print(t->program->ufuncs[0].modules[sig]);
}

/// The entry function's return expression type and text etc. are read from
/// the printed IR; this finds whether `needle` occurs in `hay`.
inline bool contains(const std::string &hay, const std::string &needle) {
  return hay.find(needle) != std::string::npos;
}

}  // namespace ufjit::irtest
