// CpuCompiler (codegen/Codegen.h): CPU entries through ORC LLJIT for the host
// CPU and its features, O3 with loop and SLP vectorization, and vector math
// (codegen/VectorMath.h) for the vectorized loops: SLEEF's 1-ulp functions by
// default, glibc's libmvec for fastmath code. UFJIT_CPU_VECTOR_MATH=none
// keeps the scalar C library (=sleef or =libmvec forces one library for all
// code), for comparisons.
//
// One LLJIT per CpuCompiler; each compile() gets its own LLVMContext and its
// own JITDylib (so entry names of different compiles never clash) that links
// against the main one, which resolves C library symbols (libm) from the
// process. compile() holds a mutex: the target machine and the JIT session
// are shared by calls.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <set>
#include <mutex>

#include "codegen/AnalysisManagers.h"
#include "codegen/Codegen.h"
#include "codegen/HostJit.h"
#include "codegen/HugeFunctions.h"
#include "codegen/kernel/KernelModule.h"
#include "codegen/nvptx/NVPTXTarget.h"
#include "codegen/StreamingStores.h"
#include "codegen/VectorMath.h"
#include "support/InternalAssert.h"
#include "support/LargeStack.h"
#include "support/Settings.h"
#include "ufjit/errors.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/Internalize.h>

namespace ufjit::codegen {

namespace {

std::string llvm_error_text(llvm::Error error) { return llvm::toString(std::move(error)); }

template <typename T>
T take_or_throw(llvm::Expected<T> value, const char *what) {
  if (!value) {
    throw Error(std::string(what) + ": " + llvm_error_text(value.takeError()));
  }
  return std::move(*value);
}

/// C library math functions: free of side effects for ufjit (errno is never
/// read), which lets the loop vectorizer widen loops that call them.
bool is_libm_function(llvm::StringRef name) {
  static const char *const kNames[] = {
      "acos",  "acosh", "asin",  "asinh",     "atan",  "atan2",  "atanh",     "cbrt",  "ceil",  "copysign",
      "cos",   "cosh",  "erf",   "erfc",      "exp",   "exp2",   "expm1",     "fabs",  "floor", "fma",
      "fmod",  "hypot", "lgamma", "log",      "log10", "log1p",  "log2",      "nextafter", "pow", "remainder",
      "rint",  "sin",   "sinh",  "sqrt",      "tan",   "tanh",   "tgamma",    "trunc", "ldexp", "round"};
  llvm::StringRef base = name;
  if (base.ends_with("f")) {
    base = base.drop_back();
  }
  for (const char *candidate : kNames) {
    if (base == candidate || name == candidate) {
      return true;
    }
  }
  return false;
}

void mark_libm_declarations(llvm::Module &module) {
  for (llvm::Function &fn : module) {
    if (!fn.isDeclaration() || fn.isIntrinsic() || !is_libm_function(fn.getName())) {
      continue;
    }
    // Only scalar signatures (frexp/modf-like pointer outputs are excluded).
    bool scalar_only = !fn.getReturnType()->isPointerTy();
    for (llvm::Type *param : fn.getFunctionType()->params()) {
      scalar_only = scalar_only && !param->isPointerTy();
    }
    if (!scalar_only) {
      continue;
    }
    fn.setMemoryEffects(llvm::MemoryEffects::none());
    fn.addFnAttr(llvm::Attribute::NoUnwind);
    fn.addFnAttr(llvm::Attribute::WillReturn);
  }
}

/// The vector math libraries of one host: `accurate` for all code, `fast` for
/// fastmath code, and the JIT's target features that pick their variants.
struct HostMath {
  VectorMathLibrary accurate = VectorMathLibrary::None;
  VectorMathLibrary fast = VectorMathLibrary::None;
  std::vector<std::string> features;
};

/// Loads the libraries UFJIT_CPU_VECTOR_MATH asks for (default: SLEEF, and
/// libmvec for fastmath; each falls back to what is installed: libmvec is
/// no substitute for SLEEF's accuracy, so without SLEEF accurate math stays
/// scalar).
HostMath host_math(const llvm::orc::JITTargetMachineBuilder &machine) {
  HostMath math;
  math.features = machine.getFeatures().getFeatures();
  const std::string choice =
      support::read_choice("UFJIT_CPU_VECTOR_MATH", {"auto", "none", "sleef", "libmvec"}).value_or("auto");
  auto loaded = [](VectorMathLibrary library) {
    return load_vector_math(library) ? library : VectorMathLibrary::None;
  };
  if (choice == "none") {
    return math;
  }
  if (choice == "sleef" || choice == "libmvec") {
    math.accurate = loaded(choice == "sleef" ? VectorMathLibrary::Sleef : VectorMathLibrary::Libmvec);
    math.fast = math.accurate;
    return math;
  }
  math.accurate = loaded(VectorMathLibrary::Sleef);
  math.fast = loaded(VectorMathLibrary::Libmvec);
  if (math.fast == VectorMathLibrary::None) {
    math.fast = math.accurate;
  }
  return math;
}

/// O3 with loop and SLP vectorization for the host; calls to C math
/// functions in vectorized loops go to `library`'s vector variants.
void optimize_for_host(llvm::Module &module, llvm::TargetMachine &tm, VectorMathLibrary library,
                       const std::vector<std::string> &features) {
  AnalysisManagers analyses;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassInstrumentationCallbacks instrumentation;
  skip_passes_that_scale_badly(instrumentation);
  llvm::PassBuilder builder(&tm, tuning, std::nullopt, &instrumentation);
  llvm::Triple triple(module.getTargetTriple());
  llvm::TargetLibraryInfoImpl library_info(triple);
  add_vector_math(library_info, library, features);
  // LLVM's tuning for Intel server CPUs prefers 256-bit vectors (older ones
  // lower their clock for 512-bit work); for math-bound loops 512 bits are
  // faster (measured: docs/PERFORMANCE.md, "CPU target: vector math").
  if (std::find(features.begin(), features.end(), "+avx512f") != features.end()) {
    for (llvm::Function &fn : module) {
      if (!fn.isDeclaration()) {
        fn.addFnAttr("prefer-vector-width", "512");
      }
    }
  }
  analyses.register_with(builder, library_info);
  if (triple.getArch() == llvm::Triple::x86_64) {
    builder.registerOptimizerLastEPCallback([](llvm::ModulePassManager &module_passes, llvm::OptimizationLevel) {
      module_passes.addPass(llvm::createModuleToFunctionPassAdaptor(StreamingStoresPass()));
    });
  }
  llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, analyses.mam);
  if (library == VectorMathLibrary::Sleef) {
    fuse_vector_sincos(module);
    recompute_overflowed_lanes(module);
  }
}

/// Basic blocks longer than this (machine instructions of one block, about
/// one per IR instruction) are code-generated at CodeGenOptLevel::None: LLVM's
/// machine scheduler is quadratic in a block's size when one value has many
/// uses (a parameter used by each of 30,000 statements took 5 s; 100,000, 80 s).
/// The IR is optimized at O3 either way.
constexpr std::size_t kMaxScheduledBlock = 20000;

std::size_t largest_block(const llvm::Module &module) {
  std::size_t largest = 0;
  for (const llvm::Function &f : module) {
    for (const llvm::BasicBlock &b : f) largest = std::max(largest, b.size());
  }
  return largest;
}

/// The JIT's compiler: the host target machine, or its CodeGenOptLevel::None
/// twin for modules with a block past kMaxScheduledBlock or a huge function.
class SizeAwareCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  SizeAwareCompiler(std::unique_ptr<llvm::TargetMachine> full, std::unique_ptr<llvm::TargetMachine> fast)
      : IRCompiler(llvm::orc::irManglingOptionsFromTargetOptions(full->Options)),
        full_(std::move(full)),
        fast_(std::move(fast)) {}

  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module &module) override {
    // A function of thousands of blocks too, as on NVPTX: the register
    // allocator's slot index renumbering took 85% of a 43 s compile of a
    // 3,000-branch elif chain in a loop (the parts of outline_huge_regions).
    const bool huge = largest_block(module) > kMaxScheduledBlock || has_huge_function(module);
    llvm::TargetMachine &tm = huge ? *fast_ : *full_;
    llvm::orc::SimpleCompiler compile(tm);
    return compile(module);
  }

  static llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> create(
      llvm::orc::JITTargetMachineBuilder machine) {
    auto full = machine.createTargetMachine();
    if (!full) return full.takeError();
    machine.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
    auto fast = machine.createTargetMachine();
    if (!fast) return fast.takeError();
    return std::make_unique<SizeAwareCompiler>(std::move(*full), std::move(*fast));
  }

 private:
  std::unique_ptr<llvm::TargetMachine> full_;
  std::unique_ptr<llvm::TargetMachine> fast_;
};

llvm::orc::JITTargetMachineBuilder host_machine() {
  initialize_llvm_targets();
  llvm::orc::JITTargetMachineBuilder machine =
      take_or_throw(llvm::orc::JITTargetMachineBuilder::detectHost(), "cannot describe the host CPU");
  machine.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return machine;
}

/// Entries, internalization and optimization of one CPU compile; returns the
/// entry names in request order.
std::vector<std::string> build_host_module(const std::vector<EntryRequest> &entries, llvm::Module &module,
                                           llvm::TargetMachine &tm, const HostMath &math) {
  module.setDataLayout(tm.createDataLayout());
  module.setTargetTriple(tm.getTargetTriple().str());
  EntryModuleInfo info = build_entry_module(entries, module, TargetKind::Cpu);
  std::string verify_message;
  llvm::raw_string_ostream verify_os(verify_message);
  if (llvm::verifyModule(module, &verify_os)) {
    verify_os.flush();
    internal_error << "invalid LLVM module for the CPU: " << verify_message;
  }
  std::set<std::string> keep(info.entry_names.begin(), info.entry_names.end());
  llvm::internalizeModule(module, [&](const llvm::GlobalValue &gv) { return keep.count(gv.getName().str()) != 0; });
  mark_libm_declarations(module);
  // A function of more than kHugeFunctionBlocks blocks is marked huge and,
  // past kOutlineBlocks, cut into functions of bounded size, as on NVPTX: O3
  // then stays linear in the source's size.
  outline_huge_regions(module);
  // glibc's vector math is less accurate than the scalar library and SLEEF's
  // 1-ulp functions (up to 4 ulp), so only fastmath code may use it.
  optimize_for_host(module, tm, info.all_fastmath ? math.fast : math.accurate, math.features);
  return info.entry_names;
}

}  // namespace

std::string optimized_cpu_ir(const std::vector<EntryRequest> &entries) {
  return run_with_large_stack([&] {
    llvm::orc::JITTargetMachineBuilder machine = host_machine();
    std::unique_ptr<llvm::TargetMachine> tm =
        take_or_throw(machine.createTargetMachine(), "cannot create the host target machine");
    llvm::LLVMContext context;
    auto module = std::make_unique<llvm::Module>("ufjit.cpu", context);
    build_host_module(entries, *module, *tm, host_math(machine));
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, nullptr);
    os.flush();
    return text;
  });
}

struct CpuCompiler::Impl {
  std::mutex mutex;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::string description;
  HostMath math;
  uint64_t next_dylib = 0;
};

CpuCompiler::CpuCompiler() : impl_(std::make_unique<Impl>()) {
  llvm::orc::JITTargetMachineBuilder machine = host_machine();
  impl_->tm = take_or_throw(machine.createTargetMachine(), "cannot create the host target machine");
  impl_->jit = take_or_throw(llvm::orc::LLJITBuilder()
                                 .setJITTargetMachineBuilder(machine)
                                 .setCompileFunctionCreator(SizeAwareCompiler::create)
                                 .create(),
                             "cannot create the host JIT");
  llvm::orc::LLJIT &jit = *impl_->jit;
  // The vector math libraries must be loaded before the process generator
  // can find their symbols.
  impl_->math = host_math(machine);
  auto process = take_or_throw(
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit.getDataLayout().getGlobalPrefix()),
      "cannot search the process for symbols");
  jit.getMainJITDylib().addGenerator(std::move(process));

  std::string features;
  for (const char *feature : {"sse4.2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl"}) {
    for (const std::string &entry : machine.getFeatures().getFeatures()) {
      if (entry == std::string("+") + feature) {
        features += features.empty() ? entry : "," + entry;
      }
    }
  }
  impl_->description = machine.getTargetTriple().getArchName().str() + " (" + machine.getCPU();
  if (!features.empty()) {
    impl_->description += ", " + features;
  }
  // Part of the kernel cache key: the library decides the code (and results).
  impl_->description += std::string(", vector math ") + vector_math_name(impl_->math.accurate) + "/" +
                        vector_math_name(impl_->math.fast) + ")";
}

CpuCompiler::~CpuCompiler() {
  if (impl_ && impl_->jit) {
    // Errors while tearing down the session cannot be reported from here.
    llvm::consumeError(impl_->jit->getExecutionSession().endSession());
  }
}

std::string CpuCompiler::host_description() const { return impl_->description; }

bool CpuCompiler::has_streaming_stores() const {
  return impl_->tm->getTargetTriple().getArch() == llvm::Triple::x86_64;
}

std::vector<CpuEntry> CpuCompiler::compile(const std::vector<EntryRequest> &entries) {
  // Without a thread pool, LLJIT materializes (optimizes and emits) on the
  // thread that looks a symbol up: the compile thread here.
  return run_with_large_stack([&] { return compile_here(entries); });
}

std::vector<CpuEntry> CpuCompiler::compile_here(const std::vector<EntryRequest> &entries) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  llvm::orc::LLJIT &jit = *impl_->jit;
  auto context = std::make_unique<llvm::LLVMContext>();
  discard_local_value_names(*context);
  auto module = std::make_unique<llvm::Module>("ufjit.cpu", *context);
  std::vector<std::string> names = build_host_module(entries, *module, *impl_->tm, impl_->math);

  std::string dylib_name = "ufjit." + std::to_string(impl_->next_dylib++);
  llvm::Expected<llvm::orc::JITDylib &> created = jit.createJITDylib(dylib_name);
  if (!created) {
    throw Error("cannot create a JITDylib: " + llvm_error_text(created.takeError()));
  }
  llvm::orc::JITDylib &dylib = *created;
  dylib.addToLinkOrder(jit.getMainJITDylib());
  llvm::orc::ThreadSafeModule unit(std::move(module), std::move(context));
  if (llvm::Error error = jit.addIRModule(dylib, std::move(unit))) {
    throw Error("cannot add CPU code to the JIT: " + llvm_error_text(std::move(error)));
  }
  std::vector<CpuEntry> result;
  for (const std::string &name : names) {
    llvm::orc::ExecutorAddr address = take_or_throw(jit.lookup(dylib, name), "cannot compile CPU entry");
    result.push_back(address.toPtr<CpuEntry>());
  }
  return result;
}

}  // namespace ufjit::codegen
