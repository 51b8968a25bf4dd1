// run_with_stack_for (support/LargeStack.h): a compile runs on the caller's
// thread when that thread's free stack covers compile_stack_for(source size),
// and on a compile thread otherwise. The budget must hold for the deepest
// sources per byte: each is compiled here, inline, on a thread whose stack is
// just the budget (plus the test's own frames), down to PTX and to host code.
#include <gtest/gtest.h>
#include <pthread.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "codegen/kernel/KernelABI.h"
#include "support/Diagnostics.h"
#include "support/LargeStack.h"
#include "typer/Typer.h"
#include "tests/unit/stack_thread.h"

namespace ufjit::codegen {
namespace {

/// Stack for the test's own frames around the compile (gtest, the lambdas).
constexpr std::size_t kTestFrames = std::size_t{64} << 10;

using testing_threads::run_on_stack_of;

std::string kernel_returning(const std::string &expression) {
  return "@vectorize(['float64(float64)'])\ndef k(x):\n    return " + expression + "\n";
}

/// `x+x+...+x`: a left-deep chain, the most stack per byte measured.
std::string flat_sum(int terms) {
  std::string e = "x";
  for (int i = 1; i < terms; ++i) e += "+x";
  return kernel_returning(e);
}

/// `----...x`: one level of nesting per byte, up to the parser's limit of 200.
std::string minus_chain(int levels) { return kernel_returning(std::string(static_cast<std::size_t>(levels), '-') + "x"); }

std::string helper_chain(int n) {
  std::string s = "def f0(x):\n    return x+1\n";
  for (int i = 1; i < n; ++i) {
    s += "def f" + std::to_string(i) + "(x):\n    return f" + std::to_string(i - 1) + "(x)+1\n";
  }
  return s + "@vectorize(['float64(float64)'])\ndef k(x):\n    return f" + std::to_string(n - 1) + "(x)\n";
}

/// Types `source`, emits PTX and host code for its ufunc and runs the host
/// code on `x`, all inside one run_with_stack_for; `inline_run` says whether
/// it ran on the calling thread.
double compile_and_run(const std::string &source, double x, bool &inline_run) {
  const pthread_t caller = pthread_self();
  return run_with_stack_for(source.size(), [&] {
    inline_run = pthread_equal(caller, pthread_self()) != 0;
    auto file = std::make_shared<const SourceFile>("budget.ufn", source);
    DiagnosticEngine diags;
    std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
    if (!program) throw std::runtime_error(diags.render_all());
    const ir::Module &module = program->ufuncs.at(0).modules.at(0);
    EntryRequest request{&module, "k__test", {KernelVariant{Layout::Contiguous, false, 0}}};
    if (emit_ptx({request}, GpuOptions{}).find(".entry k__test") == std::string::npos) {
      throw std::runtime_error("no entry in the PTX");
    }
    CpuCompiler compiler;
    CpuEntry entry = compiler.compile({request}).at(0);
    double in = x;
    double out = -1.0;
    double *in_ptr = &in;
    double *out_ptr = &out;
    int64_t count = 1;
    void *params[] = {&count, &in_ptr, &out_ptr};
    entry(0, count, params);
    return out;
  });
}

struct Case {
  std::string name;
  std::string source;
  double x;
  double expected;
};

TEST(StackBudget, DeepestSourcesPerByteCompileInlineOnAStackOfTheirBudget) {
  const std::vector<Case> cases = {
      {"flat sum of 1,000 terms", flat_sum(1000), 0.5, 500.0},
      {"flat sum of 4,000 terms", flat_sum(4000), 0.25, 1000.0},
      {"minus chain of 198", minus_chain(198), 3.0, 3.0},
      {"minus chain of 199", minus_chain(199), 3.0, -3.0},
      {"helper chain of 300", helper_chain(300), 1.5, 301.5},
  };
  for (const Case &c : cases) {
    const std::size_t stack = compile_stack_for(c.source.size()) + kTestFrames;
    bool inline_run = false;
    double got = 0.0;
    std::string error;
    run_on_stack_of(stack, [&] {
      try {
        got = compile_and_run(c.source, c.x, inline_run);
      } catch (const std::exception &e) {
        error = e.what();
      }
    });
    EXPECT_TRUE(error.empty()) << c.name << ": " << error;
    EXPECT_TRUE(inline_run) << c.name << " (" << c.source.size() << " bytes) ran on a compile thread on a stack of "
                            << stack << " bytes";
    EXPECT_EQ(got, c.expected) << c.name << " at x = " << c.x;
  }
}

TEST(StackBudget, SmallSourceRunsNestedStepsOnTheCallersThreadWhenItsStackIsAmple) {
  run_on_stack_of(std::size_t{64} << 20, [] {
    const pthread_t caller = pthread_self();
    bool outer_here = false;
    bool nested_here = false;
    run_with_stack_for(100, [&] {
      outer_here = pthread_equal(caller, pthread_self()) != 0;
      run_with_large_stack([&] { nested_here = pthread_equal(caller, pthread_self()) != 0; });
    });
    EXPECT_TRUE(outer_here);
    EXPECT_TRUE(nested_here);
    // Afterwards the thread is an ordinary one again: a bare step gets a compile thread.
    bool later_here = true;
    run_with_large_stack([&] { later_here = pthread_equal(caller, pthread_self()) != 0; });
    EXPECT_FALSE(later_here);
  });
}

TEST(StackBudget, SourceTooBigForTheCallersStackRunsOnACompileThread) {
  run_on_stack_of(std::size_t{256} << 10, [] {
    const pthread_t caller = pthread_self();
    bool here = true;
    const int got = run_with_stack_for(100, [&] {
      here = pthread_equal(caller, pthread_self()) != 0;
      return 7;
    });
    EXPECT_FALSE(here) << "a 256 KiB thread cannot hold compile_stack_for(100) = " << compile_stack_for(100);
    EXPECT_EQ(got, 7);
  });
}

TEST(StackBudget, AnExceptionFromAnInlineStepReachesTheCallerAndEndsTheInlineScope) {
  run_on_stack_of(std::size_t{64} << 20, [] {
    const pthread_t caller = pthread_self();
    EXPECT_THROW(run_with_stack_for(100, [] { throw std::runtime_error("bad source"); }), std::runtime_error);
    bool later_here = true;
    run_with_large_stack([&] { later_here = pthread_equal(caller, pthread_self()) != 0; });
    EXPECT_FALSE(later_here);
  });
}

}  // namespace
}  // namespace ufjit::codegen
