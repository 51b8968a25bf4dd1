// Compile-speed benchmark: typed IR -> PTX (NVPTX + libdevice) and IR -> CPU
// code (ORC JIT) for the four seed kernels (add int64, sincos float32,
// gaussian float32, polar float32 with a helper).
//
// The IR comes from examples/*.ufn through the frontend (compile_to_ir) when
// the typer accepts them, else (or with UFJIT_BENCH_IR=hand) from the
// hand-built modules of the codegen tests; the run prints which it measured. The first PTX
// compile in the process (cold: libdevice read from disk) is timed once
// before the benchmarks; the benchmarks then measure warm compiles, with
// libdevice materialized lazily (the default) and fully parsed.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "codegen/Codegen.h"
#include "codegen/KernelModule.h"
#include "codegen/NVPTXTarget.h"
#include "frontend/Diagnostics.h"
#include "ir/Frontend.h"
#include "tests/unit/codegen_targets_ir.h"

#ifndef UFJIT_SOURCE_DIR
#define UFJIT_SOURCE_DIR "."
#endif

namespace {

using namespace ufjit;
using namespace ufjit::codegen;

struct Seed {
  std::string name;  // also the example file's stem
  ir::Module module;
  std::string origin;  // "examples/x.ufn" or "hand-built IR"
};

std::optional<ir::Module> module_from_example(const std::string &stem) {
  std::ifstream in(std::string(UFJIT_SOURCE_DIR) + "/examples/" + stem + ".ufn");
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  try {
    auto file = std::make_shared<const SourceFile>(stem + ".ufn", text.str());
    DiagnosticEngine diags;
    std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
    if (!program || program->ufuncs.empty() || program->ufuncs[0].modules.empty()) {
      return std::nullopt;
    }
    return program->ufuncs[0].modules[0];
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

bool use_sources() {
  const char *choice = std::getenv("UFJIT_BENCH_IR");
  return choice == nullptr || std::string(choice) != "hand";
}

Seed make_seed(const std::string &stem, ir::Module hand_built) {
  if (!use_sources()) {
    return {stem, std::move(hand_built), "hand-built IR (UFJIT_BENCH_IR=hand)"};
  }
  if (std::optional<ir::Module> from_source = module_from_example(stem)) {
    return {stem, std::move(*from_source), "examples/" + stem + ".ufn"};
  }
  return {stem, std::move(hand_built), "hand-built IR"};
}

const std::vector<Seed> &seeds() {
  static const std::vector<Seed> all = {
      make_seed("add_ufunc", test_ir::add_module(DType::Int64)),
      make_seed("sincos", test_ir::sincos_module(DType::Float32)),
      make_seed("gaussian_pdf", test_ir::gaussian_module(DType::Float32)),
      make_seed("polar_distance", test_ir::polar_module(DType::Float32)),
  };
  return all;
}

std::vector<KernelVariant> variants(bool all) {
  KernelVariant contiguous;
  if (!all) {
    return {contiguous};
  }
  KernelVariant contiguous32 = contiguous;
  contiguous32.index32 = true;
  KernelVariant strided;
  strided.layout = Layout::Strided;
  KernelVariant strided32 = strided;
  strided32.index32 = true;
  return {contiguous, contiguous32, strided, strided32};
}

std::string compile_ptx(const Seed &seed, bool all_variants, LibdeviceLoad load) {
  EntryRequest request{&seed.module, seed.name + "__bench", variants(all_variants)};
  GpuOptions gpu;
  initialize_llvm_targets();
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>("ufjit", context);
  {
    std::unique_ptr<llvm::TargetMachine> tm = make_nvptx_target_machine(gpu, false);
    prepare_nvptx_module(*module, *tm);
  }
  EntryModuleInfo info =
      build_entry_module({request}, *module, TargetKind::Cuda, [load](llvm::Module &m) { link_libdevice(m, load); });
  NvptxCompileOptions options;
  options.gpu = gpu;
  options.fastmath = info.all_fastmath;
  options.ftz = info.all_fastmath;
  options.entries.insert(info.entry_names.begin(), info.entry_names.end());
  options.libdevice = load;
  return compile_module_to_ptx(*module, options);
}

void BM_Ptx(benchmark::State &state, std::size_t seed_index, bool all_variants, LibdeviceLoad load) {
  const Seed &seed = seeds().at(seed_index);
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string ptx = compile_ptx(seed, all_variants, load);
    bytes = ptx.size();
    benchmark::DoNotOptimize(ptx.data());
  }
  state.counters["ptx_bytes"] = static_cast<double>(bytes);
}

void BM_Cpu(benchmark::State &state, std::size_t seed_index) {
  const Seed &seed = seeds().at(seed_index);
  CpuCompiler compiler;
  int round = 0;
  for (auto _ : state) {
    EntryRequest request{&seed.module, seed.name + "__bench" + std::to_string(round++), variants(false)};
    std::vector<CpuEntry> entries = compiler.compile({request});
    benchmark::DoNotOptimize(entries.data());
  }
}

void BM_LibdeviceParse(benchmark::State &state, LibdeviceLoad load) {
  // Parse cost alone (what each compile pays before linking), from the
  // process-wide byte cache.
  const std::string &bytes = libdevice_bytes();
  for (auto _ : state) {
    llvm::LLVMContext context;
    llvm::Module module("probe", context);
    module.setTargetTriple(kNvptxTriple);
    llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getFloatTy(context), {llvm::Type::getFloatTy(context)},
                                                   false),
                           llvm::GlobalValue::ExternalLinkage, "__nv_sinf", module);
    link_libdevice(module, load);
    benchmark::DoNotOptimize(&module);
  }
  state.counters["libdevice_bytes"] = static_cast<double>(bytes.size());
}

void register_benchmarks() {
  for (std::size_t k = 0; k < seeds().size(); ++k) {
    const std::string &name = seeds()[k].name;
    benchmark::RegisterBenchmark(("ptx_lazy/" + name).c_str(), BM_Ptx, k, false, LibdeviceLoad::Lazy)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("ptx_full/" + name).c_str(), BM_Ptx, k, false, LibdeviceLoad::Full)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("ptx_lazy_4variants/" + name).c_str(), BM_Ptx, k, true, LibdeviceLoad::Lazy)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("cpu/" + name).c_str(), BM_Cpu, k)->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("libdevice_link_sinf/lazy", BM_LibdeviceParse, LibdeviceLoad::Lazy)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("libdevice_link_sinf/full", BM_LibdeviceParse, LibdeviceLoad::Full)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char **argv) {
  // Cold: the first PTX compile of the process reads libdevice from disk and
  // initialises LLVM's targets.
  auto start = std::chrono::steady_clock::now();
  compile_ptx(seeds().at(2), false, LibdeviceLoad::Lazy);
  auto cold = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (const Seed &seed : seeds()) {
    std::printf("seed %-15s from %s\n", seed.name.c_str(), seed.origin.c_str());
  }
  std::printf("cold first PTX compile (gaussian_pdf, libdevice read + LLVM init): %.1f ms\n", cold);
  benchmark::Initialize(&argc, argv);
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
