// Constant conditions (`if True:`, `elif DEBUG:`, `while FLAG:`, `not FLAG`,
// `FLAG and x`): the typer, the verifier and the lowering agree on which
// paths exist. Each source compiles, runs on the CPU with the right result and
// compiles to PTX and to CPU kernels (every variant) without an internal error.
// `if NEGATIVE: return x * 1j` followed by `return x` was an internal error
// ("a path falls off the end of a non-void function").
#include <complex>
#include <ostream>
#include <memory>
#include <string>

#include "codegen/Codegen.h"
#include "codegen/kernel/KernelABI.h"
#include "codegen_lower_jit.h"
#include "typer/Typer.h"

namespace ufjit::codegen::testing {
namespace {

struct Case {
  const char *name;
  const char *body;  // the body of `def f(x)`, indented by four spaces
  double expected;   // f(2.0)
};

const Case kCases[] = {
    {"IfTrueOnly", "    if True:\n        return x + 1.0\n", 3.0},
    {"IfOneThenDeadReturn", "    if 1:\n        return x + 1.0\n    return x\n", 3.0},
    {"IfModuleTrueThenDeadReturn", "    if ON:\n        return x + 1.5\n    return x\n", 3.5},
    {"IfFalseThenReturn", "    if False:\n        return x\n    return x + 2.0\n", 4.0},
    {"IfZeroThenReturn", "    if ZERO:\n        return x\n    return x + 2.5\n", 4.5},
    {"IfFalseElse", "    if OFF:\n        return x\n    else:\n        return x + 3.0\n", 5.0},
    {"ElifConstantTrue", "    if x > 100.0:\n        return 0.0\n    elif ON:\n        return x + 4.0\n", 6.0},
    {"ElifOneAfterFalse", "    if OFF:\n        return 0.0\n    elif ONE:\n        return x + 5.0\n", 7.0},
    {"ElifFalseElse",
     "    if x > 100.0:\n        return 0.0\n    elif False:\n        return 1.0\n    else:\n        return x + 5.5\n", 7.5},
    {"WhileModuleTrue", "    while ON:\n        return x + 6.0\n", 8.0},
    {"WhileFalseSkipsBody", "    while OFF:\n        return 0.0\n    return x + 7.0\n", 9.0},
    {"WhileOneWithReturnInside", "    while 1:\n        if x > 0.0:\n            return x + 8.0\n        x = x + 1.0\n", 10.0},
    {"WhileTrueWithDeadBreak", "    while True:\n        if OFF:\n            break\n        return x + 8.5\n", 10.5},
    {"NestedConstants", "    if ON:\n        if not OFF:\n            return x + 9.0\n    return 0.0\n", 11.0},
    {"NotConstant", "    if not ON:\n        return 0.0\n    else:\n        return x + 10.0\n", 12.0},
    {"ConstantAndVariable", "    if ON and x > 0.0:\n        return x + 11.0\n    return x - 11.0\n", 13.0},
    {"FalseAndVariable", "    if OFF and x > 0.0:\n        return 0.0\n    return x + 12.0\n", 14.0},
    {"ConstantOrConstant", "    if OFF or ON:\n        return x + 13.0\n", 15.0},
    {"ConstantAndConstantIsFalse", "    if ON and OFF:\n        return 0.0\n    return x + 13.5\n", 15.5},
    {"ConstantOrVariable", "    if ON or x > 0.0:\n        return x + 14.5\n", 16.5},
    {"AssignUnderConstant", "    y = 0.0\n    if ZERO:\n        y = 1.0\n    else:\n        y = x + 14.0\n    return y\n", 16.0},
    {"ConstantComparison", "    if ONE == 1:\n        return x + 15.0\n    return 0.0\n", 17.0},
    {"DeadCodeAfterConstantIfElse",
     "    if ON:\n        return x + 16.0\n    else:\n        return 0.0\n    return 1.0\n", 18.0},
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

std::string source_of(const Case &c) {
  return std::string(
             "from numba import vectorize\n"
             "ON = True\nOFF = False\nZERO = 0\nONE = 1\n"
             "@vectorize(['float64(float64)'])\n"
             "def f(x):\n") +
         c.body;
}

std::optional<ir::TypedProgram> typed_program(const std::string &source, DiagnosticEngine &diags) {
  auto file = std::make_shared<const SourceFile>("<test>", source);
  return ir::compile_to_ir(file, diags);
}

class ConstantConditions : public ::testing::TestWithParam<Case> {};

TEST_P(ConstantConditions, CompileRunAndEmitForEveryTarget) {
  const Case &c = GetParam();
  std::string source = source_of(c);
  DiagnosticEngine diags;
  std::optional<ir::TypedProgram> program = typed_program(source, diags);
  ASSERT_TRUE(program && !program->ufuncs.empty()) << diags.render_all() << source;
  const ir::Module &module = program->ufuncs.at(0).modules.at(0);

  Jit jit(module);
  EXPECT_EQ(jit.call<double>(2.0), c.expected) << source;

  KernelVariant contiguous{Layout::Contiguous, false, 0};
  KernelVariant strided{Layout::Strided, true, 0};
  KernelVariant scalar{Layout::Contiguous, false, 1};
  EntryRequest request{&module, "k__float64", {contiguous, strided, scalar}};
  CpuCompiler cpu;
  EXPECT_EQ(cpu.compile({request}).size(), 3u) << source;
  GpuOptions gpu;
  gpu.arch = "sm_90";
  std::string ptx = emit_ptx({request}, gpu);
  EXPECT_NE(ptx.find(".entry k__float64"), std::string::npos) << ptx;
}

INSTANTIATE_TEST_SUITE_P(Table, ConstantConditions, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &info) { return std::string(info.param.name); });

TEST(ConstantConditionsComplex, ModuleFlagChoosesTheComplexBranch) {
  // The reported source: a complex128 result under a module-level flag.
  const char *source =
      "from numba import vectorize\n"
      "NEGATIVE = True\n"
      "@vectorize(['complex128(float64)'])\n"
      "def f(x):\n"
      "    if NEGATIVE:\n"
      "        return x * 1j\n"
      "    return x\n";
  DiagnosticEngine diags;
  std::optional<ir::TypedProgram> program = typed_program(source, diags);
  ASSERT_TRUE(program) << diags.render_all();
  Jit jit(program->ufuncs.at(0).modules.at(0));
  EXPECT_EQ(jit.call<std::complex<double>>(2.0), std::complex<double>(0.0, 2.0));
}

}  // namespace
}  // namespace ufjit::codegen::testing
