// Compile-speed benchmark for the four seed kernels (examples/*.ufn: add
// int64, sincos float32, gaussian_pdf float32, polar_distance float32 with a
// helper). Every timed compile starts from the source text, as the runtime's
// first call does: frontend (parse + type) -> LLVM -> PTX, or -> CPU code.
//
// Benchmarks (warm process: LLVM targets initialised, libdevice's bytes in
// memory; one kernel variant, contiguous with 32-bit indexing, which is what
// a first call on small or 2^24-element arrays compiles):
//   src_to_ptx/sliced/<seed>  only the slices of the libdevice functions the
//                             kernel calls, parsed into each compile's context
//                             (what codegen does: LibdeviceLoad::Sliced)
//   src_to_ptx/lazy/<seed>    libdevice parsed lazily into each compile's
//                             context (LibdeviceLoad::Lazy)
//   src_to_ptx/full/<seed>    libdevice fully parsed in each compile
//                             (LibdeviceLoad::Full)
//   src_to_ptx/shared/<seed>  libdevice fully parsed once per process into one
//                             context that every compile shares; each compile
//                             clones the functions it needs (a design codegen
//                             does not use: see docs/PERFORMANCE.md)
//   src_to_cpu/<seed>         source -> host machine code through one
//                             CpuCompiler (ORC), as the CPU target does
//   frontend/<seed>           source -> typed IR only (part of the above)
//   libdevice_parse/{sliced,lazy,full}  parsing libdevice alone, linking __nv_sinf
//
// Cold figures are not Google Benchmark runs: before the benchmarks, main()
// forks fresh child processes that each time their first compile (LLVM target
// initialisation, libdevice read from disk and parsed, the frontend, codegen)
// and prints the median of --cold_repetitions=N (default 5, 0 to skip).
//
// --print_cpu_ir=SEED prints the host IR after CpuCompiler's pipeline (what
// the vectorizer made of the entry) and exits, to explain CPU throughput.
// --time_passes=NAME compiles NAME (a seed, or a kernel of --parts) to PTX
// (lazy) 20 times with LLVM's -time-passes and prints LLVM's per-pass
// report, to explain compile time.
// --parts[=REPS] prints, for the five seed kernels of the GPU benchmarks and
// the six general kernels of benchmarks/general_kernels.h, the median warm
// time of each part of a first call's compile: frontend, lowering (LLVM IR
// and libdevice), the LLVM pass pipeline, NVPTX code generation and PTX to
// cubin (nvJitLink, sm_90; the driver's own JIT does the same work on the
// GPU host).
// --scaling=SHAPE (statements, elif_assign) times the parts of compiling a
// generated kernel of 1,000, 10,000 and 100,000 statements to PTX: the
// fastest of UFJIT_SCALING_REPS compiles (default 3) per size, up to
// UFJIT_SCALING_MAX statements; UFJIT_SCALING_WHOLE=1 compiles a huge
// kernel's parts in its own module (no codegen/nvptx/PtxShards.h), for the A/B.
// --first_compile=NAME[:quick][:warm] times one fresh process's first compile
// of NAME to PTX (":quick": PtxTier::Quick), after a warm-up compile on
// another thread with ":warm".
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "benchmarks/general_kernels.h"
#include "benchmarks/gpu/bench_kernels.h"
#include "codegen/Codegen.h"
#include "codegen/HostJit.h"
#include "codegen/kernel/KernelModule.h"
#include "codegen/nvptx/NVPTXTarget.h"
#include "support/Diagnostics.h"
#include "typer/Typer.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Timer.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#ifndef UFJIT_SOURCE_DIR
#define UFJIT_SOURCE_DIR "."
#endif

namespace {

using namespace ufjit;
using namespace ufjit::codegen;

const char *const kSeedNames[] = {"add_ufunc", "sincos", "gaussian_pdf", "polar_distance"};

/// One seed kernel's source text, read once.
struct Seed {
  std::string name;  // the example file's stem and the ufunc's name
  std::shared_ptr<const SourceFile> file;
};

std::vector<Seed> read_seeds() {
  std::vector<Seed> seeds;
  for (const char *name : kSeedNames) {
    std::string path = std::string(UFJIT_SOURCE_DIR) + "/examples/" + name + ".ufn";
    std::ifstream in(path);
    if (!in) {
      throw Error("cannot read " + path);
    }
    std::ostringstream text;
    text << in.rdbuf();
    seeds.push_back({name, std::make_shared<const SourceFile>(std::string(name) + ".ufn", text.str())});
  }
  return seeds;
}

const std::vector<Seed> &seeds() {
  static const std::vector<Seed> all = read_seeds();
  return all;
}

/// Source -> typed IR (the first signature of the first ufunc: each seed has
/// one of each). Throws if the frontend rejects the seed.
ir::Module frontend(const Seed &seed) {
  DiagnosticEngine diags;
  std::optional<ir::TypedProgram> program = ir::compile_to_ir(seed.file, diags);
  if (!program || program->ufuncs.empty() || program->ufuncs[0].modules.empty()) {
    throw Error("the frontend rejected examples/" + seed.name + ".ufn");
  }
  return std::move(program->ufuncs[0].modules[0]);
}

/// The variant a first call on contiguous arrays below 2^31 bytes compiles.
std::vector<KernelVariant> first_call_variant() {
  KernelVariant variant;
  variant.layout = Layout::Contiguous;
  variant.index32 = true;
  return {variant};
}

// ------------------------------------------- libdevice parsed once, shared

/// libdevice fully parsed once, in a context that every compile using it
/// shares (a compile's module must live in the same context as what it links).
/// Not thread-safe: compiles sharing it must be serialised.
struct SharedLibdevice {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> library;
  SharedLibdevice() {
    llvm::MemoryBufferRef buffer(libdevice_bytes(), "libdevice.10.bc");
    llvm::Expected<std::unique_ptr<llvm::Module>> parsed = llvm::parseBitcodeFile(buffer, context);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      throw Error("cannot parse libdevice");
    }
    library = std::move(*parsed);
    library->setTargetTriple(kNvptxTriple);
  }
};

/// Adds to `needed` the library functions `fn` refers to, transitively.
void collect_callees(const llvm::Function &fn, std::set<const llvm::GlobalValue *> &needed) {
  for (const llvm::BasicBlock &block : fn) {
    for (const llvm::Instruction &inst : block) {
      for (const llvm::Value *operand : inst.operands()) {
        const auto *callee = llvm::dyn_cast<llvm::Function>(operand->stripPointerCasts());
        if (callee == nullptr || callee->isDeclaration() || needed.count(callee) != 0) {
          continue;
        }
        needed.insert(callee);
        collect_callees(*callee, needed);
      }
    }
  }
}

/// Links into `module` clones of the shared libdevice functions it calls (and
/// of what they call); the shared module stays intact for the next compile.
void link_shared_libdevice(llvm::Module &module, const SharedLibdevice &shared) {
  std::set<const llvm::GlobalValue *> needed;
  for (const llvm::Function &fn : module) {
    if (!fn.isDeclaration() || !fn.getName().starts_with("__nv_")) {
      continue;
    }
    const llvm::Function *definition = shared.library->getFunction(fn.getName());
    if (definition != nullptr && !definition->isDeclaration() && needed.insert(definition).second) {
      collect_callees(*definition, needed);
    }
  }
  if (needed.empty()) {
    return;
  }
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> subset =
      llvm::CloneModule(*shared.library, map, [&](const llvm::GlobalValue *gv) {
        return llvm::isa<llvm::GlobalVariable>(gv) || needed.count(gv) != 0;
      });
  subset->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(subset), llvm::Linker::LinkOnlyNeeded)) {
    throw Error("linking the shared libdevice failed");
  }
}

// ------------------------------------------------------------- compiles

enum class PtxMode { Sliced, Lazy, Full, Shared };

/// IR -> PTX exactly as codegen's emit_ptx does it, with the libdevice
/// loading chosen by `mode` (`shared` only for PtxMode::Shared).
std::string ir_to_ptx(const Seed &seed, const ir::Module &module_ir, PtxMode mode, SharedLibdevice *shared) {
  initialize_llvm_targets();
  llvm::LLVMContext own_context;
  llvm::LLVMContext &context = mode == PtxMode::Shared ? shared->context : own_context;
  auto module = std::make_unique<llvm::Module>("ufjit", context);
  GpuOptions gpu;
  prepare_nvptx_module(*module);
  LibdeviceLoad load = mode == PtxMode::Full     ? LibdeviceLoad::Full
                       : mode == PtxMode::Sliced ? LibdeviceLoad::Sliced
                                                 : LibdeviceLoad::Lazy;
  auto link = [&](llvm::Module &m) {
    if (mode == PtxMode::Shared) {
      link_shared_libdevice(m, *shared);
    } else {
      link_libdevice(m, load);
    }
  };
  EntryRequest request{&module_ir, seed.name + "__bench", first_call_variant()};
  EntryModuleInfo info = build_entry_module({request}, *module, TargetKind::Cuda, link);
  NvptxCompileOptions options;
  options.gpu = gpu;
  options.fastmath = info.all_fastmath;
  options.ftz = info.all_fastmath;
  options.entries.insert(info.entry_names.begin(), info.entry_names.end());
  options.libdevice = load;  // a no-op here: every __nv_ function is defined by now
  return compile_module_to_ptx(*module, options);
}

std::string source_to_ptx(const Seed &seed, PtxMode mode, SharedLibdevice *shared) {
  ir::Module module_ir = frontend(seed);
  return ir_to_ptx(seed, module_ir, mode, shared);
}

CpuEntry source_to_cpu(const Seed &seed, CpuCompiler &compiler, const std::string &unique_name) {
  ir::Module module_ir = frontend(seed);
  EntryRequest request{&module_ir, unique_name, first_call_variant()};
  std::vector<CpuEntry> entries = compiler.compile({request});
  return entries.at(0);
}

// ------------------------------------------------------------ benchmarks

void BM_SourceToPtx(benchmark::State &state, std::size_t seed_index, PtxMode mode) {
  const Seed &seed = seeds().at(seed_index);
  std::unique_ptr<SharedLibdevice> shared;
  if (mode == PtxMode::Shared) {
    shared = std::make_unique<SharedLibdevice>();  // once per process, not timed
  }
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string ptx = source_to_ptx(seed, mode, shared.get());
    bytes = ptx.size();
    benchmark::DoNotOptimize(ptx.data());
  }
  state.counters["ptx_bytes"] = static_cast<double>(bytes);
}

void BM_SourceToCpu(benchmark::State &state, std::size_t seed_index) {
  const Seed &seed = seeds().at(seed_index);
  CpuCompiler compiler;  // one per process in the runtime; its setup is not timed
  int round = 0;
  for (auto _ : state) {
    CpuEntry entry = source_to_cpu(seed, compiler, seed.name + "__bench" + std::to_string(round++));
    benchmark::DoNotOptimize(entry);
  }
}

void BM_Frontend(benchmark::State &state, std::size_t seed_index) {
  const Seed &seed = seeds().at(seed_index);
  for (auto _ : state) {
    ir::Module module_ir = frontend(seed);
    benchmark::DoNotOptimize(&module_ir);
  }
}

void BM_LibdeviceParse(benchmark::State &state, LibdeviceLoad load) {
  // Parsing and linking one function (__nv_sinf) from the in-memory bytes.
  const std::string &bytes = libdevice_bytes();
  for (auto _ : state) {
    llvm::LLVMContext context;
    llvm::Module module("probe", context);
    module.setTargetTriple(kNvptxTriple);
    llvm::Type *f32 = llvm::Type::getFloatTy(context);
    llvm::Function::Create(llvm::FunctionType::get(f32, {f32}, false), llvm::GlobalValue::ExternalLinkage,
                           "__nv_sinf", module);
    link_libdevice(module, load);
    benchmark::DoNotOptimize(&module);
  }
  state.counters["libdevice_bytes"] = static_cast<double>(bytes.size());
}

/// The three ways of loading libdevice whole must give the same PTX, or the
/// comparison is void. Returns false (and says which) if one differs.
/// (Slices link one copy of a table that sinf and cosf share where a whole
/// load links one per link call, so their PTX differs in that table alone:
/// tests/unit/codegen_targets_nvptx_test.cpp compares their code.)
bool libdevice_modes_agree() {
  SharedLibdevice shared;
  bool ok = true;
  for (const Seed &seed : seeds()) {
    const std::string lazy = source_to_ptx(seed, PtxMode::Lazy, nullptr);
    const bool full_same = source_to_ptx(seed, PtxMode::Full, nullptr) == lazy;
    const bool shared_same = source_to_ptx(seed, PtxMode::Shared, &shared) == lazy;
    if (!full_same || !shared_same) {
      std::fprintf(stderr, "%s: PTX differs between libdevice modes (full %s, shared %s)\n",
                   seed.name.c_str(), full_same ? "same" : "differs", shared_same ? "same" : "differs");
      ok = false;
    }
  }
  return ok;
}

void register_benchmarks() {
  const std::pair<const char *, PtxMode> modes[] = {
      {"sliced", PtxMode::Sliced}, {"lazy", PtxMode::Lazy}, {"full", PtxMode::Full}, {"shared", PtxMode::Shared}};
  for (std::size_t k = 0; k < seeds().size(); ++k) {
    const std::string &name = seeds()[k].name;
    for (const auto &[label, mode] : modes) {
      benchmark::RegisterBenchmark(("src_to_ptx/" + std::string(label) + "/" + name).c_str(), BM_SourceToPtx,
                                   k, mode)
          ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(("src_to_cpu/" + name).c_str(), BM_SourceToCpu, k)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("frontend/" + name).c_str(), BM_Frontend, k)->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("libdevice_parse/sliced", BM_LibdeviceParse, LibdeviceLoad::Sliced)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("libdevice_parse/lazy", BM_LibdeviceParse, LibdeviceLoad::Lazy)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("libdevice_parse/full", BM_LibdeviceParse, LibdeviceLoad::Full)
      ->Unit(benchmark::kMillisecond);
}

// ------------------------------------------------------- cold, per process

enum class ColdKind { PtxSliced, PtxFull, Cpu };

/// Times, in this fresh process, the first compile of `seed`: everything a
/// first call pays before launching (LLVM init, libdevice read and parse or
/// the ORC JIT's setup, frontend, codegen).
double first_compile_ms(const Seed &seed, ColdKind kind) {
  auto start = std::chrono::steady_clock::now();
  if (kind == ColdKind::Cpu) {
    CpuCompiler compiler;
    CpuEntry entry = source_to_cpu(seed, compiler, seed.name + "__cold");
    benchmark::DoNotOptimize(entry);
  } else {
    std::string ptx = source_to_ptx(seed, kind == ColdKind::PtxFull ? PtxMode::Full : PtxMode::Sliced, nullptr);
    benchmark::DoNotOptimize(ptx.data());
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Runs first_compile_ms in a forked child (a process where LLVM has never
/// run); returns a negative value if the child failed.
double cold_in_child(const Seed &seed, ColdKind kind) {
  int fds[2];
  if (pipe(fds) != 0) {
    return -1;
  }
  std::fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    double ms = -1;
    try {
      ms = first_compile_ms(seed, kind);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "cold %s: %s\n", seed.name.c_str(), e.what());
    }
    ssize_t written = write(fds[1], &ms, sizeof ms);
    _exit(written == sizeof ms ? 0 : 1);
  }
  close(fds[1]);
  double ms = -1;
  if (child < 0 || read(fds[0], &ms, sizeof ms) != sizeof ms) {
    ms = -1;
  }
  close(fds[0]);
  int status = 0;
  if (child > 0) {
    waitpid(child, &status, 0);
  }
  return ms;
}

void report_cold(int repetitions) {
  if (repetitions <= 0) {
    return;
  }
  const std::pair<const char *, ColdKind> kinds[] = {
      {"ptx sliced", ColdKind::PtxSliced}, {"ptx full", ColdKind::PtxFull}, {"cpu", ColdKind::Cpu}};
  std::printf(
      "cold first compile in a fresh process (source -> code, incl. LLVM init and libdevice read/parse or "
      "ORC setup), %d processes each: median [min, max] ms\n",
      repetitions);
  for (const Seed &seed : seeds()) {
    for (const auto &[label, kind] : kinds) {
      std::vector<double> times;
      for (int r = 0; r < repetitions; ++r) {
        times.push_back(cold_in_child(seed, kind));
      }
      std::sort(times.begin(), times.end());
      std::printf("  cold %-9s %-15s %7.1f  [%6.1f, %6.1f]\n", label, seed.name.c_str(),
                  times[times.size() / 2], times.front(), times.back());
    }
  }
  std::fflush(stdout);
}

/// For --print_cpu_ir=SEED: the optimized host IR of SEED's first-call entry.
int print_cpu_ir(const std::string &name) {
  for (const Seed &seed : seeds()) {
    if (seed.name == name) {
      ir::Module module_ir = frontend(seed);
      EntryRequest request{&module_ir, seed.name, first_call_variant()};
      std::fputs(optimized_cpu_ir({request}).c_str(), stdout);
      return 0;
    }
  }
  std::fprintf(stderr, "unknown seed '%s'\n", name.c_str());
  return 1;
}

/// The kernels of --parts: the GPU benchmarks' five seeds, then the six
/// general kernels.
std::vector<Seed> parts_kernels() {
  std::vector<Seed> all;
  for (const bench::BenchKernel &k : bench::bench_kernels()) {
    all.push_back({k.name, std::make_shared<const SourceFile>(k.name + ".ufn", k.source)});
  }
  for (const bench::GeneralKernel &k : bench::general_kernels()) {
    all.push_back({k.name, std::make_shared<const SourceFile>(k.name + ".ufn", k.source)});
  }
  return all;
}

/// A generated kernel of `n` statements, by shape (--scaling):
///   statements   one block: `y = y * x + c` n times
///   elif_assign  `if x == 0.0: y = 1.0`, then `elif x == i: y = i + 1`, one
///                assignment per branch, then `return y`
/// Empty for an unknown shape.
std::string generated_source(const std::string &shape, int n) {
  std::string s = "@vectorize(['float64(float64)'])\ndef k(x):\n";
  if (shape == "statements") {
    s += "    y = x\n";
    for (int i = 0; i < n; ++i) s += "    y = y * x + " + std::to_string(i % 7) + ".5\n";
    return s + "    return y\n";
  }
  if (shape == "elif_assign") {
    s += "    y = -1.0\n    if x == 0.0:\n        y = 1.0\n";
    for (int i = 1; i < n; ++i) {
      s += "    elif x == " + std::to_string(i) + ".0:\n        y = " + std::to_string(i + 1) + ".0\n";
    }
    return s + "    return y\n";
  }
  return "";
}

/// A seed of examples/, a kernel of --parts, or "SHAPE:N" (generated_source),
/// by name; nullptr if none.
const Seed *find_kernel(const std::string &name) {
  static std::vector<std::unique_ptr<Seed>> generated;
  const std::size_t colon = name.find(':');
  if (colon != std::string::npos) {
    std::string text = generated_source(name.substr(0, colon), std::atoi(name.c_str() + colon + 1));
    if (text.empty()) return nullptr;
    generated.push_back(std::make_unique<Seed>(Seed{"k", std::make_shared<const SourceFile>(name, text)}));
    return generated.back().get();
  }
  static const std::vector<Seed> parts = parts_kernels();
  for (const std::vector<Seed> *list : {&seeds(), &parts}) {
    for (const Seed &seed : *list) {
      if (seed.name == name) return &seed;
    }
  }
  return nullptr;
}

/// For --time_passes=NAME: LLVM's pass timings over 20 warm compiles (one
/// for a generated SHAPE:N kernel).
int time_passes(const std::string &name) {
  const Seed *seed = find_kernel(name);
  if (seed == nullptr) {
    std::fprintf(stderr, "unknown kernel '%s'\n", name.c_str());
    return 1;
  }
  initialize_llvm_targets();
  const bool generated = name.find(':') != std::string::npos;
  // Warm up before timing (a generated kernel: on a small one of its shape).
  source_to_ptx(generated ? *find_kernel(name.substr(0, name.find(':')) + ":100") : *seed, PtxMode::Sliced, nullptr);
  const char *args[] = {"bench_compile", "-time-passes"};
  llvm::cl::ParseCommandLineOptions(2, args);
  for (int k = 0; k < (generated ? 1 : 20); ++k) {
    source_to_ptx(*seed, PtxMode::Sliced, nullptr);
  }
  llvm::TimerGroup::printAll(llvm::errs());
  return 0;
}

/// One compile's parts, in ms.
struct Parts {
  double init = 0;  // LLVM's targets and libdevice's bytes (a fresh process's first compile only)
  double frontend = 0, lower = 0, libdevice = 0, optimize = 0, codegen = 0, cubin = 0;
  std::size_t ptx_bytes = 0;
};

/// This process's CPU time in ms (the frontend runs on a thread of its own):
/// on the loaded development machine, what a part costs by itself (wall
/// time there is several times longer).
double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

Parts time_parts(const Seed &seed, bool cubin = true, PtxTier tier = PtxTier::Optimized) {
  auto ms_since = [](double t0) { return process_cpu_ms() - t0; };
  Parts parts;
  double t0 = process_cpu_ms();
  ir::Module module_ir = frontend(seed);
  parts.frontend = ms_since(t0);
  t0 = process_cpu_ms();
  llvm::LLVMContext context;
  discard_local_value_names(context);  // as emit_ptx
  auto module = std::make_unique<llvm::Module>("ufjit", context);
  GpuOptions gpu;
  gpu.arch = "sm_90";
  prepare_nvptx_module(*module);
  EntryRequest request{&module_ir, seed.name + "__bench", first_call_variant()};
  EntryModuleInfo info = build_entry_module(
      {request}, *module, TargetKind::Cuda,
      [](llvm::Module &m) {
        declare_sin_cos_partners(m);
        link_libdevice(m);
      },
      gpu_entry_shape(tier));  // as emit_ptx
  parts.lower = ms_since(t0);
  PtxCompileTimings timings;
  NvptxCompileOptions options;
  options.gpu = gpu;
  options.fastmath = info.all_fastmath;
  options.ftz = info.all_fastmath;
  options.entries.insert(info.entry_names.begin(), info.entry_names.end());
  options.timings = &timings;
  options.tier = tier;
  // UFJIT_SCALING_WHOLE=1: a huge kernel's parts compiled in its module, as
  // before codegen/nvptx/PtxShards.h (to measure the difference).
  static const bool whole = std::getenv("UFJIT_SCALING_WHOLE") != nullptr;
  options.split_parts = !whole;
  std::string ptx = compile_module_to_ptx(*module, options);
  parts.libdevice = timings.libdevice_ms;
  parts.optimize = timings.optimize_ms;
  parts.codegen = timings.codegen_ms;
  parts.ptx_bytes = ptx.size();
  if (cubin && nvjitlink_available()) {
    t0 = process_cpu_ms();
    std::string cubin = ptx_to_cubin(ptx, gpu.arch);
    benchmark::DoNotOptimize(cubin.data());
    parts.cubin = ms_since(t0);
  }
  return parts;
}

/// Each kernel's parts as a fresh process's first compile pays them: forks
/// one child per kernel (LLVM never initialised there).
std::vector<Parts> cold_parts(const std::vector<Seed> &kernels) {
  std::vector<Parts> all;
  for (const Seed &seed : kernels) {
    int fds[2];
    Parts parts;
    if (pipe(fds) != 0) {
      all.push_back(parts);
      continue;
    }
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      close(fds[0]);
      const double t0 = process_cpu_ms();
      initialize_llvm_targets();
      libdevice_bytes();
      const double init = process_cpu_ms() - t0;
      Parts p = time_parts(seed);
      p.init = init;
      ssize_t written = write(fds[1], &p, sizeof p);
      _exit(written == sizeof p ? 0 : 1);
    }
    close(fds[1]);
    if (child < 0 || read(fds[0], &parts, sizeof parts) != sizeof parts) parts = Parts{};
    close(fds[0]);
    int status = 0;
    if (child > 0) waitpid(child, &status, 0);
    all.push_back(parts);
  }
  return all;
}

void print_parts(const char *name, const Parts &p) {
  std::printf("%-15s %6.2f %9.2f %7.2f %9.2f %9.2f %8.2f %7.2f %7.2f %9zu\n", name, p.init, p.frontend, p.lower,
              p.libdevice, p.optimize, p.codegen, p.cubin,
              p.init + p.frontend + p.lower + p.libdevice + p.optimize + p.codegen + p.cubin, p.ptx_bytes);
}

/// For --parts=REPS: each part of a fresh process's first compile (one
/// child per kernel, the minimum over REPS children), then the minimum over
/// REPS warm compiles in this process. Process CPU time, and the minimum,
/// because other processes' load only adds.
int report_parts(int reps) {
  const std::vector<Seed> kernels = parts_kernels();
  auto header = [] {
    std::printf("%-15s %6s %9s %7s %9s %9s %8s %7s %7s %9s\n", "kernel", "init", "frontend", "lower", "libdevice",
                "optimize", "codegen", "cubin", "total", "ptx_bytes");
  };
  auto fold_min = [](Parts &best, const Parts &p) {
    for (double Parts::*f : {&Parts::init, &Parts::frontend, &Parts::lower, &Parts::libdevice, &Parts::optimize,
                             &Parts::codegen, &Parts::cubin}) {
      best.*f = std::min(best.*f, p.*f);
    }
  };
  std::printf("compile parts, process CPU ms, min of %d (sm_90; cubin by nvJitLink%s)\n", reps,
              nvjitlink_available() ? "" : ": not available here");
  std::printf("fresh process, first compile:\n");
  header();
  std::vector<Parts> cold = cold_parts(kernels);
  for (int r = 1; r < reps; ++r) {
    std::vector<Parts> again = cold_parts(kernels);
    for (std::size_t k = 0; k < kernels.size(); ++k) fold_min(cold[k], again[k]);
  }
  for (std::size_t k = 0; k < kernels.size(); ++k) print_parts(kernels[k].name.c_str(), cold[k]);
  initialize_llvm_targets();
  libdevice_bytes();
  std::printf("warm process:\n");
  header();
  for (const Seed &seed : kernels) {
    Parts best = time_parts(seed);  // also the warm-up
    for (int r = 0; r < reps; ++r) fold_min(best, time_parts(seed));
    print_parts(seed.name.c_str(), best);
  }
  return 0;
}

/// For --first_compile=NAME[:quick][:warm]: this process's first compile of
/// NAME (a kernel of --parts) to PTX, wall and CPU time; ":quick" at
/// PtxTier::Quick; ":warm" after the runtime's compiler warm-up
/// (codegen::warm_up_ptx_compiler: a built-in ufunc, then the common
/// libdevice slices) on another thread, as the CUDA backend runs it while
/// its context is being made. Run it in fresh processes (exec, not fork: a fork
/// shares its parent's mapped pages).
int report_first_compile(std::string name) {
  auto take_suffix = [&](const std::string &suffix) {
    const bool found =
        name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (found) name.resize(name.size() - suffix.size());
    return found;
  };
  const bool warm = take_suffix(":warm");
  const PtxTier tier = take_suffix(":quick") ? PtxTier::Quick : PtxTier::Optimized;
  const Seed *seed = find_kernel(name);
  if (seed == nullptr) return 1;
  if (warm) {
    std::thread warm_up([] { warm_up_ptx_compiler(); });
    warm_up.join();
  }
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_ms();
  initialize_llvm_targets();
  libdevice_bytes();
  Parts p = time_parts(*seed, false, tier);
  const double cpu = process_cpu_ms() - cpu0;
  const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-15s %-5s %-9s wall %7.2f cpu %7.2f (frontend %.2f lower %.2f libdevice %.2f optimize %.2f codegen %.2f)\n",
              name.c_str(), warm ? "warm" : "cold", tier == PtxTier::Quick ? "quick" : "optimized", wall, cpu, p.frontend, p.lower, p.libdevice, p.optimize,
              p.codegen);
  return 0;
}

/// For --scaling=SHAPE: the parts of compiling SHAPE:N to PTX for N = 1,000,
/// 10,000 and 100,000 (process CPU time; "cut+link": what comes before the
/// optimizer, a huge function cut into parts and libdevice linked), and each
/// size's total over the previous one's: linear is 10x. One compile of
/// SHAPE:100 first pages in the compiler, so that the smallest size is not
/// charged for it; then each size is compiled `reps` times and the fastest
/// compile is reported, as another process on the host only ever adds time.
int report_scaling(const std::string &shape, int max_n, int reps) {
  initialize_llvm_targets();
  libdevice_bytes();
  const Seed *warm_up = find_kernel(shape + ":100");
  if (warm_up == nullptr) return 1;
  time_parts(*warm_up, false);
  std::printf("%s to PTX, process CPU ms, the fastest of %d compiles per size\n", shape.c_str(), reps);
  std::printf("%-20s %9s %9s %9s %9s %9s %9s %7s\n", "kernel", "frontend", "lower", "cut+link", "optimize",
              "codegen", "total", "ratio");
  auto total_of = [](const Parts &p) { return p.frontend + p.lower + p.libdevice + p.optimize + p.codegen; };
  double previous = 0;
  for (int n = 1000; n <= max_n; n *= 10) {
    const std::string name = shape + ":" + std::to_string(n);
    const Seed *seed = find_kernel(name);
    if (seed == nullptr) return 1;
    Parts best = time_parts(*seed, false);
    for (int r = 1; r < reps; ++r) {
      const Parts p = time_parts(*seed, false);
      if (total_of(p) < total_of(best)) best = p;
    }
    const double total = total_of(best);
    std::printf("%-20s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %7.1f\n", name.c_str(), best.frontend, best.lower,
                best.libdevice, best.optimize, best.codegen, total, previous > 0 ? total / previous : 0.0);
    std::fflush(stdout);
    previous = total;
  }
  return 0;
}

/// Removes --cold_repetitions=N, --print_cpu_ir=SEED, --time_passes=NAME, --parts[=REPS],
/// --scaling=SHAPE and --first_compile=NAME
/// from argv (Google Benchmark rejects unknown flags); returns N and sets the
/// seeds.
int take_cold_repetitions(int &argc, char **argv, std::string &print_ir_seed, std::string &time_passes_seed,
                          int &parts_reps, std::string &scaling_shape, std::string &first_compile) {
  int repetitions = 5;
  const char *flag = "--cold_repetitions=";
  const char *ir_flag = "--print_cpu_ir=";
  const char *passes_flag = "--time_passes=";
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], flag, std::strlen(flag)) == 0) {
      repetitions = std::atoi(argv[i] + std::strlen(flag));
      continue;
    }
    if (std::strncmp(argv[i], ir_flag, std::strlen(ir_flag)) == 0) {
      print_ir_seed = argv[i] + std::strlen(ir_flag);
      continue;
    }
    if (std::strncmp(argv[i], passes_flag, std::strlen(passes_flag)) == 0) {
      time_passes_seed = argv[i] + std::strlen(passes_flag);
      continue;
    }
    if (std::strncmp(argv[i], "--first_compile=", 16) == 0) {
      first_compile = argv[i] + 16;
      continue;
    }
    if (std::strncmp(argv[i], "--scaling=", 10) == 0) {
      scaling_shape = argv[i] + 10;
      continue;
    }
    if (std::strncmp(argv[i], "--parts", 7) == 0) {
      parts_reps = argv[i][7] == '=' ? std::max(1, std::atoi(argv[i] + 8)) : 11;
      continue;
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  return repetitions;
}

}  // namespace

int main(int argc, char **argv) {
  std::string print_ir_seed;
  std::string time_passes_seed;
  int parts_reps = 0;
  std::string scaling_shape;
  std::string first_compile;
  int cold_repetitions =
      take_cold_repetitions(argc, argv, print_ir_seed, time_passes_seed, parts_reps, scaling_shape, first_compile);
  if (!first_compile.empty()) {
    return report_first_compile(first_compile);
  }
  if (!scaling_shape.empty()) {
    const char *max_n = std::getenv("UFJIT_SCALING_MAX");
    const char *reps = std::getenv("UFJIT_SCALING_REPS");
    return report_scaling(scaling_shape, max_n != nullptr ? std::atoi(max_n) : 100000,
                          reps != nullptr ? std::max(1, std::atoi(reps)) : 3);
  }
  if (parts_reps > 0) {
    return report_parts(parts_reps);
  }
  if (!print_ir_seed.empty()) {
    return print_cpu_ir(print_ir_seed);
  }
  if (!time_passes_seed.empty()) {
    return time_passes(time_passes_seed);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  seeds();                        // read the sources before forking
  report_cold(cold_repetitions);  // before anything in this process initialises LLVM
  initialize_llvm_targets();
  libdevice_bytes();  // read the file now: the warm figures exclude it
  if (!libdevice_modes_agree()) {
    return 1;
  }
  std::printf("check: lazy, full and shared libdevice loading give identical PTX for every seed\n");
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
