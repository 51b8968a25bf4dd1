// PtxTier::Quick (the runtime's first tier): for the seed kernels and the
// general kernels of the first-call benchmarks, the quick PTX is valid for
// the driver (nvJitLink accepts it), resolves libdevice's reflection, keeps
// every entry and launch hint, and gives ptxas no more freedom than the
// optimised PTX: every float32/float64 add, sub, mul and fma names its
// rounding (no contraction), and it uses no approximate instruction the
// optimised PTX does not use. Results on the GPU: tests/gpu (the semantic
// suite runs first calls on quick kernels). fastmath=True kernels are not
// tiered (the runtime compiles them optimised at once): at
// CodeGenOptLevel::None NVPTX contracts nothing, so their results would
// differ between the tiers.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "benchmarks/general_kernels.h"
#include "benchmarks/gpu/bench_kernels.h"
#include "codegen/Codegen.h"
#include "codegen/LaunchHint.h"
#include "support/Diagnostics.h"
#include "typer/Typer.h"

namespace ufjit::codegen {
namespace {

struct Named {
  std::string name;
  std::string source;
};

std::vector<Named> kernels() {
  std::vector<Named> all;
  for (const bench::BenchKernel &k : bench::bench_kernels()) all.push_back({k.name, k.source});
  for (const bench::GeneralKernel &k : bench::general_kernels()) all.push_back({k.name, k.source});
  return all;
}

ir::Module module_of(const Named &k) {
  auto file = std::make_shared<const SourceFile>(k.name + ".ufn", k.source);
  DiagnosticEngine diags;
  std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
  if (!program) ADD_FAILURE() << k.name << ": " << diags.render_all();
  return program ? std::move(program->ufuncs.at(0).modules.at(0)) : ir::Module{};
}

const std::vector<KernelVariant> kVariants = {KernelVariant{Layout::Contiguous, true, 0},
                                              KernelVariant{Layout::Strided, false, 0}};

/// Float arithmetic without a rounding modifier: ptxas may contract it.
std::set<std::string> unrounded_float_ops(const std::string &ptx) {
  static const std::regex op(R"(\b(add|sub|mul|fma)(\.ftz)?(\.sat)?\.f(32|64)\b)");
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), op); it != std::sregex_iterator(); ++it) {
    found.insert(it->str());
  }
  return found;
}

std::set<std::string> approximate_ops(const std::string &ptx) {
  static const std::regex op(R"(\b[a-z0-9]+(\.[a-z0-9]+)*\.approx(\.[a-z0-9]+)*)");
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), op); it != std::sregex_iterator(); ++it) {
    found.insert(it->str());
  }
  return found;
}

std::string join(const std::set<std::string> &s) {
  std::string out;
  for (const std::string &x : s) out += (out.empty() ? "" : " ") + x;
  return out;
}

TEST(PtxTier, QuickPtxOfEveryBenchmarkKernelIsValidAndRoundsAsTheOptimisedOne) {
  GpuOptions gpu;
  for (const Named &k : kernels()) {
    const ir::Module module = module_of(k);
    if (module.functions.empty()) continue;
    EntryRequest request{&module, k.name, kVariants};
    const std::string quick = emit_ptx({request}, gpu, PtxTier::Quick);
    const std::string optimised = emit_ptx({request}, gpu, PtxTier::Optimized);
    for (const KernelVariant &v : kVariants) {
      const std::string entry = entry_name(k.name, v);
      EXPECT_NE(quick.find(".entry " + entry + "("), std::string::npos) << k.name << ": no entry " << entry;
    }
    if (optimised.find(launch_hint_symbol(entry_name(k.name, kVariants[0]))) != std::string::npos) {
      EXPECT_NE(quick.find(launch_hint_symbol(entry_name(k.name, kVariants[0]))), std::string::npos)
          << k.name << ": the quick PTX lost the launch hint";
    }
    EXPECT_EQ(quick.find("__nvvm_reflect"), std::string::npos) << k.name << ": reflection left unresolved";
    EXPECT_EQ(join(unrounded_float_ops(quick)), join(unrounded_float_ops(optimised)))
        << k.name << ": float arithmetic without a rounding mode (quick, then optimised)";
    const std::set<std::string> quick_approx = approximate_ops(quick);
    const std::set<std::string> optimised_approx = approximate_ops(optimised);
    for (const std::string &op : quick_approx) {
      EXPECT_EQ(optimised_approx.count(op), 1u) << k.name << ": the quick PTX uses " << op << ", the optimised one "
                                                << join(optimised_approx);
    }
    if (nvjitlink_available()) {
      EXPECT_NO_THROW(ptx_to_cubin(quick, gpu.arch)) << k.name;
    }
  }
}

TEST(PtxTier, QuickPtxIsReproducibleAndDiffersFromTheOptimisedOne) {
  const Named polar = kernels().at(3);
  ASSERT_EQ(polar.name, "polar_f32");
  const ir::Module module = module_of(polar);
  EntryRequest request{&module, polar.name, kVariants};
  const std::string quick = emit_ptx({request}, GpuOptions{}, PtxTier::Quick);
  EXPECT_EQ(quick, emit_ptx({request}, GpuOptions{}, PtxTier::Quick));
  EXPECT_NE(quick, emit_ptx({request}, GpuOptions{}, PtxTier::Optimized));
}

std::size_t count_matches(const std::string &text, const std::regex &re) {
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// Each copy of libdevice's sincosf loads a word of its table of 2/pi (the
// only 32-bit integer load of these kernels). The optimised PTX inlines a
// copy per call (and per lane of a lane group); the quick PTX compiles it
// once, as a function its entries call, so that code generation, whose time
// follows the code's size, stays short: polar_f32 calls sin and cos of two
// angles through a device function, sincos_f32 has lane groups.
TEST(PtxTier, QuickPtxCompilesEachLargeLibdeviceBodyOnce) {
  const std::regex table_load(R"(ld\.global(\.nc)?\.u32)");
  for (const Named &k : {kernels().at(1), kernels().at(3)}) {
    ASSERT_TRUE(k.name == "sincos_f32" || k.name == "polar_f32") << k.name;
    const ir::Module module = module_of(k);
    EntryRequest request{&module, k.name, kVariants};
    const std::string quick = emit_ptx({request}, GpuOptions{}, PtxTier::Quick);
    const std::string optimised = emit_ptx({request}, GpuOptions{}, PtxTier::Optimized);
    EXPECT_EQ(count_matches(quick, table_load), 1u) << k.name << ": one sincosf in the quick PTX";
    EXPECT_GT(count_matches(optimised, table_load), kVariants.size()) << k.name << ": the optimised PTX inlines";
    EXPECT_NE(quick.find(".func"), std::string::npos) << k.name;
    EXPECT_LT(quick.size(), optimised.size()) << k.name;
  }
}

TEST(PtxWarmUp, TheBuiltInSourceCompilesAndOnlyTheFirstClaimWins) {
  EXPECT_TRUE(warm_up_ptx_compiler()) << "the warm-up's source no longer compiles: it would warm nothing";
  EXPECT_TRUE(warm_up_frontend()) << "the warm-up's source no longer types: it would warm nothing";
  EXPECT_TRUE(claim_ptx_warm_up());
  EXPECT_FALSE(claim_ptx_warm_up());
  EXPECT_FALSE(claim_ptx_warm_up());
}

}  // namespace
}  // namespace ufjit::codegen
