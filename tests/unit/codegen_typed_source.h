// Test-only: the typed IR of a source (ir::compile_to_ir), for the suites
// that lower and JIT whole sources (codegen_lower_source, codegen_lower_gufunc).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "codegen_lower_jit.h"
#include "typer/Typer.h"

namespace ufjit::codegen::testing {

/// The typed module of signature `index` of the first ufunc of `source`; on
/// a compile error the test fails and a trivial module comes back.
inline ir::Module typed(const std::string &source, std::size_t index = 0) {
  auto file = std::make_shared<const SourceFile>("<test>", source);
  DiagnosticEngine diags;
  std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
  if (!program || program->ufuncs.empty() || program->ufuncs[0].modules.size() <= index) {
    ADD_FAILURE() << "source did not compile:\n" << diags.render_all() << source;
    return expr_module({}, [](const auto &) { return ir::Const::make_int(DType::Int64, 0); });
  }
  return program->ufuncs[0].modules[index];
}

}  // namespace ufjit::codegen::testing
