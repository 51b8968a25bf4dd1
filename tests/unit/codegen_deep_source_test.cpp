// Sources of any depth get a result or a located diagnostic, never a stack
// overflow, whatever the stack of the calling thread: every test here runs on
// a thread with a 256 KiB stack (a host program's worker thread), and the
// compile runs on ufjit's own compile thread (support/LargeStack.h).
#include <gtest/gtest.h>
#include <pthread.h>

#include <functional>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "codegen/kernel/KernelABI.h"
#include "support/Diagnostics.h"
#include "typer/Typer.h"
#include "tests/unit/stack_thread.h"

namespace ufjit::codegen {
namespace {

/// Runs `body` on a thread with a 256 KiB stack.
void on_small_stack(const std::function<void()> &body) { testing_threads::run_on_stack_of(256 * 1024, body); }

std::string helper_chain(int n) {
  std::string s = "def f0(x):\n    return x + 1\n";
  for (int i = 1; i < n; ++i) {
    s += "def f" + std::to_string(i) + "(x):\n    return f" + std::to_string(i - 1) + "(x) + 1\n";
  }
  s += "@vectorize(['float64(float64)'])\ndef k(x):\n    return f" + std::to_string(n - 1) + "(x)\n";
  return s;
}

std::string sum_of(int terms) {
  std::string s = "@vectorize(['float64(float64)'])\ndef k(x):\n    return x";
  for (int i = 1; i < terms; ++i) s += " + x";
  return s + "\n";
}

/// Types `source`, compiles its one float64(float64) ufunc for the CPU and
/// applies it to `x`; the diagnostics go to `rendered` when it does not type.
std::vector<double> run_source(const std::string &source, const std::vector<double> &x, std::string &rendered) {
  auto file = std::make_shared<const SourceFile>("deep.ufn", source);
  DiagnosticEngine diags;
  std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
  rendered = diags.render_all();
  if (!program) return {};
  CpuCompiler compiler;
  KernelVariant contiguous{Layout::Contiguous, false, 0};
  const ir::Module &module = program->ufuncs.at(0).modules.at(0);
  EntryRequest request{&module, "k__test", {contiguous}};
  CpuEntry entry = compiler.compile({request}).at(0);
  std::vector<double> in = x;
  std::vector<double> out(x.size(), -1.0);
  double *in_ptr = in.data();
  double *out_ptr = out.data();
  int64_t count = static_cast<int64_t>(x.size());
  void *params[] = {&count, &in_ptr, &out_ptr};
  entry(0, count, params);
  return out;
}

/// The diagnostics of typing `source` (empty when it types).
std::vector<Diagnostic> diagnose(const std::string &source) {
  auto file = std::make_shared<const SourceFile>("deep.ufn", source);
  DiagnosticEngine diags;
  ir::compile_to_ir(file, diags);
  return diags.diagnostics();
}

TEST(DeepSource, HelperChainOf1500CompilesAndRunsOnA256KiBStack) {
  on_small_stack([] {
    std::string rendered;
    std::vector<double> out = run_source(helper_chain(1500), {0.0, 2.5}, rendered);
    ASSERT_EQ(out.size(), 2u) << rendered;
    EXPECT_EQ(out[0], 1500.0);
    EXPECT_EQ(out[1], 1502.5);
  });
}

TEST(DeepSource, SumOf10000TermsCompilesAndRunsOnA256KiBStack) {
  on_small_stack([] {
    std::string rendered;
    std::vector<double> out = run_source(sum_of(10000), {1.0, 0.5}, rendered);
    ASSERT_EQ(out.size(), 2u) << rendered;
    EXPECT_EQ(out[0], 10000.0);
    EXPECT_EQ(out[1], 5000.0);
  });
}

TEST(DeepSource, SumOf10000TermsGivesLlvmIrOnA256KiBStack) {
  on_small_stack([] {
    auto file = std::make_shared<const SourceFile>("deep.ufn", sum_of(10000));
    DiagnosticEngine diags;
    std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
    ASSERT_TRUE(program) << diags.render_all();
    const ir::Module &module = program->ufuncs.at(0).modules.at(0);
    EntryRequest request{&module, "k__test", {KernelVariant{Layout::Contiguous, false, 0}}};
    std::string llvm_ir = emit_llvm_ir({request}, "cpu", GpuOptions{});
    EXPECT_NE(llvm_ir.find("k__test"), std::string::npos);
  });
}

TEST(DeepSource, HelperChainOf1500GivesPtxOnA256KiBStack) {
  on_small_stack([] {
    auto file = std::make_shared<const SourceFile>("deep.ufn", helper_chain(1500));
    DiagnosticEngine diags;
    std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
    ASSERT_TRUE(program) << diags.render_all();
    const ir::Module &module = program->ufuncs.at(0).modules.at(0);
    EntryRequest request{&module, "k__test", {KernelVariant{Layout::Contiguous, false, 0}}};
    std::string ptx = emit_ptx({request}, GpuOptions{});
    EXPECT_NE(ptx.find(".entry k__test"), std::string::npos);
  });
}

TEST(DeepSource, HelperChainPastTheLimitIsALocatedError) {
  on_small_stack([] {
    std::vector<Diagnostic> d = diagnose(helper_chain(10005));
    ASSERT_FALSE(d.empty());
    EXPECT_NE(d[0].message.find("nested too deeply"), std::string::npos) << d[0].message;
    EXPECT_GT(d[0].loc.line, 0);
    EXPECT_GT(d[0].loc.col, 0);
    EXPECT_LE(d.size(), 2u) << d.back().message;
  });
}

TEST(DeepSource, NestedParenthesesPastTheLimitAreALocatedError) {
  on_small_stack([] {
    std::string source = "@vectorize(['float64(float64)'])\ndef k(x):\n    return " + std::string(5000, '(') +
                         "x" + std::string(5000, ')') + "\n";
    std::vector<Diagnostic> d = diagnose(source);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_NE(d[0].message.find("nested"), std::string::npos) << d[0].message;
    EXPECT_EQ(d[0].loc.line, 3);
    EXPECT_GT(d[0].loc.col, 200);
  });
}

TEST(DeepSource, NestedIfsPastTheLimitAreALocatedErrorNotACascade) {
  on_small_stack([] {
    std::string source = "@vectorize(['float64(float64)'])\ndef k(x):\n";
    for (int i = 0; i < 1000; ++i) source += std::string(static_cast<std::size_t>(i) + 4, ' ') + "if x > 0:\n";
    source += std::string(1004, ' ') + "x = x + 1\n    return x\n";
    std::vector<Diagnostic> d = diagnose(source);
    ASSERT_FALSE(d.empty());
    EXPECT_NE(d[0].message.find("indentation"), std::string::npos) << d[0].message;
    EXPECT_GT(d[0].loc.line, 3);
    EXPECT_LE(d.size(), 2u) << d.back().message;
  });
}

}  // namespace
}  // namespace ufjit::codegen
