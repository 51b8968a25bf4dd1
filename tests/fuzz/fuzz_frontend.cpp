// libFuzzer target over the whole front end: lexer, parser, collect_program,
// the dumps and to_source, and (when built with UFJIT_FUZZ_TYPER) the typer
// through ir::compile_to_ir. Any crash, hang, sanitizer report or
// InternalError is a bug: user errors must come back as diagnostics
// (LANGUAGE.md section 7: nothing a source contains may crash the compiler).
// An input whose first line is "#sigs: a;b" is also typed with those override
// signatures (the vectorize(src, sigs) path); typed modules are printed too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/Dump.h"
#include "frontend/Parser.h"
#include "frontend/Program.h"
#include "frontend/Signature.h"

#ifdef UFJIT_FUZZ_TYPER
#include "typer/Typer.h"
#include "ir/IRPrinter.h"
#endif

namespace {

void walk_to_source(const ufjit::ast::Body &body) {
  using namespace ufjit::ast;
  for (const auto &stmt : body) {
    if (const auto *e = stmt->as<ExprStmt>()) (void)to_source(*e->value);
    if (const auto *r = stmt->as<Return>()) {
      if (r->value) (void)to_source(*r->value);
    }
    if (const auto *a = stmt->as<Assign>()) (void)to_source(*a->value);
    if (const auto *f = stmt->as<FunctionDef>()) {
      for (const auto &d : f->decorators) (void)to_source(*d.expr);
      walk_to_source(f->body);
    }
    if (const auto *i = stmt->as<If>()) {
      (void)to_source(*i->test);
      walk_to_source(i->body);
      walk_to_source(i->orelse);
    }
    if (const auto *w = stmt->as<While>()) walk_to_source(w->body);
    if (const auto *f = stmt->as<For>()) walk_to_source(f->body);
  }
}

#ifdef UFJIT_FUZZ_TYPER
/// A first line "#sigs: a;b;..." gives override signatures (the C++ API's
/// vectorize(src, sigs) path); it is a comment to the lexer either way.
std::vector<std::string> override_signatures(const std::string &text) {
  constexpr std::string_view kPrefix = "#sigs:";
  std::vector<std::string> sigs;
  if (text.compare(0, kPrefix.size(), kPrefix) != 0) return sigs;
  std::size_t eol = text.find('\n');
  std::string line = text.substr(kPrefix.size(), eol == std::string::npos ? std::string::npos : eol - kPrefix.size());
  std::size_t start = 0;
  while (start <= line.size()) {
    std::size_t end = line.find(';', start);
    if (end == std::string::npos) end = line.size();
    sigs.push_back(line.substr(start, end - start));
    start = end + 1;
  }
  return sigs;
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  auto file = std::make_shared<ufjit::SourceFile>("fuzz.ufn", text);
  {
    ufjit::DiagnosticEngine diags;
    (void)ufjit::frontend::dump_tokens(*file, diags);
    auto module = ufjit::frontend::parse(file, diags);
    (void)ufjit::frontend::dump_ast(*module);
    walk_to_source(module->body);
    auto program = ufjit::frontend::collect_program(*module, diags);
    (void)diags.render_all();
    (void)diags.to_messages();
  }
  {
    // The whole text as a signature string, too.
    ufjit::DiagnosticEngine diags;
    ufjit::SourceLocation start{file.get(), 1, 1, 1};
    auto sig = ufjit::frontend::parse_signature(text, start, diags);
    if (sig) (void)sig->str();
    (void)diags.render_all();
  }
#ifdef UFJIT_FUZZ_TYPER
  {
    ufjit::DiagnosticEngine diags;
    try {
      auto program = ufjit::ir::compile_to_ir(file, diags, override_signatures(text));
      if (program) {
        for (const auto &ufunc : program->ufuncs) {
          for (const auto &module : ufunc.modules) (void)ufjit::ir::print(module);
        }
      }
    } catch (const ufjit::InternalError &e) {
      // An internal error on any input is a bug: report it as a crash.
      std::fprintf(stderr, "InternalError: %s\n", e.what());
      __builtin_trap();
    }
    (void)diags.render_all();
  }
#endif
  return 0;
}
