// Compile time grows linearly with the source. The bounds are about 20 times
// the times measured on a loaded 2-core machine (chain of 5,000 helpers:
// 0.7 s; 20,000 statements: 4 s), so only a blow-up fails them, never a slow
// machine.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "codegen/Codegen.h"
#include "codegen/KernelABI.h"
#include "frontend/Diagnostics.h"
#include "ir/Frontend.h"

namespace ufjit::codegen {
namespace {

/// Seconds to type `source` and compile its first ufunc for the CPU.
double compile_seconds(const std::string &source) {
  auto start = std::chrono::steady_clock::now();
  auto file = std::make_shared<const SourceFile>("big.ufn", source);
  DiagnosticEngine diags;
  std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
  EXPECT_TRUE(program) << diags.render_all();
  if (!program) return 0;
  CpuCompiler compiler;
  const ir::Module &module = program->ufuncs.at(0).modules.at(0);
  EntryRequest request{&module, "k__test", {KernelVariant{Layout::Contiguous, false, 0}}};
  EXPECT_EQ(compiler.compile({request}).size(), 1u);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(CompileTime, HelperChainIsNotQuadratic) {
  // Bottom-up always-inlining cloned each helper with all it had inlined:
  // 10,000 helpers took 106 s.
  std::string s = "def f0(x):\n    return x + 1\n";
  for (int i = 1; i < 5000; ++i) {
    s += "def f" + std::to_string(i) + "(x):\n    return f" + std::to_string(i - 1) + "(x) + 1\n";
  }
  s += "@vectorize(['float64(float64)'])\ndef k(x):\n    return f4999(x)\n";
  EXPECT_LT(compile_seconds(s), 20.0);
}

TEST(CompileTime, ManyStatementsInOneBlockAreNotQuadratic) {
  // LLVM's machine scheduler on one 100,000-statement block took 80 s.
  std::string s = "@vectorize(['float64(float64)'])\ndef k(x):\n    y = x\n";
  for (int i = 0; i < 20000; ++i) s += "    y = y * x + " + std::to_string(i % 7) + ".5\n";
  s += "    return y\n";
  EXPECT_LT(compile_seconds(s), 80.0);
}

}  // namespace
}  // namespace ufjit::codegen
