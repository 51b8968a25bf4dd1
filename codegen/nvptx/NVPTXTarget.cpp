// NVPTX target machine, optimization pipeline and PTX emission
// (codegen/nvptx/NVPTXTarget.h).
#include "codegen/nvptx/NVPTXTarget.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/IPO/Internalize.h>

#include <algorithm>
#include <ctime>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/AnalysisManagers.h"
#include "codegen/HugeFunctions.h"
#include "codegen/LaunchHint.h"
#include "codegen/nvptx/PtxShards.h"
#include "support/InternalAssert.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {

void initialize_llvm_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

namespace {

const llvm::Target &nvptx_target() {
  initialize_llvm_targets();
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(kNvptxTriple, error);
  internal_assert(target != nullptr) << "NVPTX target missing from this LLVM: " << error;
  return *target;
}

/// The subtarget description of `arch`, for validating names and listing
/// the PTX ISA versions this LLVM knows.
std::unique_ptr<llvm::MCSubtargetInfo> subtarget_info(const std::string &arch) {
  return std::unique_ptr<llvm::MCSubtargetInfo>(nvptx_target().createMCSubtargetInfo(kNvptxTriple, arch, ""));
}

/// Every "ptxNN" feature of this LLVM, as NN, ascending.
std::vector<int> known_ptx_versions(const llvm::MCSubtargetInfo &sti) {
  std::vector<int> versions;
  for (const llvm::SubtargetFeatureKV &kv : sti.getAllProcessorFeatures()) {
    llvm::StringRef key(kv.Key);
    int version = 0;
    if (key.consume_front("ptx") && !key.getAsInteger(10, version)) {
      versions.push_back(version);
    }
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

/// "8.5", "85" or "ptx85" -> 85; -1 if malformed.
int parse_ptx_isa(std::string text) {
  if (text.rfind("ptx", 0) == 0) {
    text = text.substr(3);
  }
  text.erase(std::remove(text.begin(), text.end(), '.'), text.end());
  int version = 0;
  if (text.empty() || llvm::StringRef(text).getAsInteger(10, version)) {
    return -1;
  }
  return version;
}

}  // namespace

std::string resolve_ptx_isa(const GpuOptions &gpu) {
  // The name is looked up in the generic subtarget's table first: LLVM
  // prints a warning to stderr for a subtarget made for an unknown one.
  if (!subtarget_info("")->isCPUStringValid(gpu.arch)) {
    throw InputError("unknown GPU architecture '" + gpu.arch + "' (LLVM 19 knows sm_20 to sm_90a)");
  }
  std::unique_ptr<llvm::MCSubtargetInfo> sti = subtarget_info(gpu.arch);
  std::vector<int> versions = known_ptx_versions(*sti);
  internal_assert(!versions.empty()) << "no PTX ISA versions in this LLVM";
  if (gpu.ptx_isa.empty()) {
    return std::to_string(versions.back());
  }
  int requested = parse_ptx_isa(gpu.ptx_isa);
  if (std::find(versions.begin(), versions.end(), requested) == versions.end()) {
    throw InputError("unknown PTX ISA version '" + gpu.ptx_isa + "' (LLVM 19 knows up to " +
                std::to_string(versions.back() / 10) + "." + std::to_string(versions.back() % 10) + ")");
  }
  return std::to_string(requested);
}

std::unique_ptr<llvm::TargetMachine> make_nvptx_target_machine(const GpuOptions &gpu, bool fastmath) {
  std::string isa = resolve_ptx_isa(gpu);
  llvm::TargetOptions options;
  if (fastmath) {
    options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
    options.UnsafeFPMath = true;
    options.ApproxFuncFPMath = true;
  } else {
    options.AllowFPOpFusion = llvm::FPOpFusion::Strict;
  }
  llvm::TargetMachine *tm = nvptx_target().createTargetMachine(kNvptxTriple, gpu.arch, "+ptx" + isa, options,
                                                               std::nullopt, std::nullopt,
                                                               llvm::CodeGenOptLevel::Aggressive);
  internal_assert(tm != nullptr) << "cannot create an NVPTX target machine for " << gpu.arch;
  return std::unique_ptr<llvm::TargetMachine>(tm);
}

void prepare_nvptx_module(llvm::Module &module) {
  // NVPTX's data layout follows from the 64-bit triple alone, not from the
  // arch or the PTX ISA: computed once, as a target machine costs 0.3 ms.
  static const std::string layout =
      make_nvptx_target_machine(GpuOptions{}, false)->createDataLayout().getStringRepresentation();
  module.setTargetTriple(kNvptxTriple);
  module.setDataLayout(layout);
}

namespace {

void verify_or_throw(const llvm::Module &module, const char *stage) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (llvm::verifyModule(module, &os)) {
    os.flush();
    internal_error << "invalid LLVM module " << stage << ": " << message;
  }
}

void optimize(llvm::Module &module, llvm::TargetMachine &tm, PtxTier tier) {
  AnalysisManagers analyses;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = false;  // the entries vectorize memory by hand
  tuning.SLPVectorization = false;
  // The PassBuilder asks the target machine for its callbacks: on NVPTX they
  // add NVVMReflect (resolving libdevice's __nvvm_reflect) at pipeline start.
  llvm::PassInstrumentationCallbacks instrumentation;
  skip_passes_that_scale_badly(instrumentation);
  if (llvm::TimePassesIsEnabled) {
    // -time-passes (bench_compile --time_passes): one handler for the process,
    // so that its report sums every compile (single-threaded use only).
    static llvm::TimePassesHandler handler(true);
    handler.registerCallbacks(instrumentation);
  }
  llvm::PassBuilder builder(&tm, tuning, std::nullopt, &instrumentation);
  // No C library on the device: LLVM must not turn code into libcalls.
  llvm::TargetLibraryInfoImpl library_info(llvm::Triple(module.getTargetTriple()));
  library_info.disableAllFunctions();
  analyses.register_with(builder, library_info);
  llvm::ModulePassManager passes;
  if (tier == PtxTier::Quick) {
    // O0's pipeline still runs the target's start callbacks (NVVMReflect)
    // and the always-inliner; GlobalDCE drops libdevice bodies left unused.
    passes = builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
    passes.addPass(llvm::GlobalDCEPass());
  } else {
    passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  }
  passes.run(module, analyses.mam);
}

/// PTX's abs.s16 (which NVPTX selects for llvm.abs of i16 and i8) does not
/// give the most negative value back as LLVM's abs (without poison) and
/// NumPy must: on an H100, abs of an int16 -32768 compared >= 0 (found by
/// differential fuzzing against NumPy). After the optimizer, which would
/// narrow it back, each such abs is taken in 32 bits and truncated: abs.s32
/// of the sign-extended value, whose low bits are the wrapped result.
void widen_narrow_integer_abs(llvm::Module &module) {
  std::vector<llvm::IntrinsicInst *> narrow;
  for (llvm::Function &fn : module) {
    for (llvm::BasicBlock &block : fn) {
      for (llvm::Instruction &inst : block) {
        auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
        if (call != nullptr && call->getIntrinsicID() == llvm::Intrinsic::abs &&
            call->getType()->getScalarSizeInBits() < 32) {
          narrow.push_back(call);
        }
      }
    }
  }
  for (llvm::IntrinsicInst *call : narrow) {
    llvm::IRBuilder<> b(call);
    llvm::Type *type = call->getType();
    llvm::Type *wide = type->getWithNewBitWidth(32);
    llvm::Value *x = b.CreateSExt(call->getArgOperand(0), wide);
    llvm::Value *magnitude = b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b.getFalse());
    call->replaceAllUsesWith(b.CreateTrunc(magnitude, type));
    call->eraseFromParent();
  }
}

/// Libdevice bodies larger than this stay functions of their own in the
/// quick tier's PTX (libdevice marks every function alwaysinline).
constexpr std::size_t kQuickInlineInstructions = 64;

/// The quick tier: each large libdevice function (sincosf and its argument
/// reduction, powf, expf...) compiled once and called, instead of inlined at
/// each call. Code generation time follows the code's size, and a body such
/// as polar's with two sin/cos pairs (a device function called twice) had
/// two copies of sincosf. The same code runs, so the results are the same.
void keep_large_libdevice_functions_out_of_line(llvm::Module &module) {
  for (llvm::Function &fn : module) {
    const llvm::StringRef name = fn.getName();
    if (fn.isDeclaration() || !(name.starts_with("__nv_") || name.starts_with("__internal_"))) {
      continue;
    }
    if (fn.getInstructionCount() > kQuickInlineInstructions) {
      fn.removeFnAttr(llvm::Attribute::AlwaysInline);
      fn.addFnAttr(llvm::Attribute::NoInline);
    }
  }
}

/// NVPTX numbers the comments around each call (`{ // callseq 7, 0` ...
/// `} // callseq 7`) with a counter of the whole process, so the same module
/// gave other PTX text in a later compile. Renumbered from 0 in order of
/// appearance: the same module, the same PTX.
std::string renumber_call_sequences(std::string_view ptx) {
  constexpr std::string_view kMark = "// callseq ";
  std::map<std::string, std::string> renamed;
  std::string out;
  out.reserve(ptx.size());
  std::size_t at = 0;
  for (std::size_t found = ptx.find(kMark); found != std::string::npos; found = ptx.find(kMark, at)) {
    const std::size_t digits = found + kMark.size();
    std::size_t end = digits;
    while (end < ptx.size() && ptx[end] >= '0' && ptx[end] <= '9') {
      ++end;
    }
    const std::string number(ptx.substr(digits, end - digits));
    out.append(ptx, at, digits - at);
    if (!number.empty()) {
      out += renamed.emplace(number, std::to_string(renamed.size())).first->second;
    }
    at = end;
  }
  out.append(ptx, at, std::string::npos);
  return out;
}

std::string emit_text(llvm::Module &module, llvm::TargetMachine &tm) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager passes;
  bool failed = tm.addPassesToEmitFile(passes, os, nullptr, llvm::CodeGenFileType::AssemblyFile);
  internal_assert(!failed) << "the NVPTX target cannot emit PTX";
  passes.run(module);
  return std::string(text.str());
}

/// This process's CPU time in ms: on a loaded machine, what a compile itself
/// costs.
double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

/// Whether `name` is kept external: one of `external` or the launch hint of
/// one (LaunchHint.h).
bool kept_external(const std::string &name, const std::set<std::string> &external) {
  const std::string suffix = launch_hint_symbol("");
  const bool hint =
      name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return external.count(hint ? name.substr(0, name.size() - suffix.size()) : name) != 0;
}

/// What comes before libdevice on a module: verified, fast math lowered,
/// huge blocks and functions cut (HugeFunctions.h), so that the optimizer
/// works on functions of bounded size.
void prepare_for_optimizer(llvm::Module &module, const NvptxCompileOptions &options) {
  verify_or_throw(module, "before libdevice");
  lower_fast_math(module, options.gpu.arch);
  if (has_huge_block(module)) {
    outline_huge_blocks(module);
  }
  outline_huge_regions(module);
}

/// A prepared module to PTX: libdevice, internalize all but `external`, the
/// optimizer, the code generator. `shard`: the index of a module of parts
/// split off the kernel's (PtxShards.h), whose internal names are made its
/// own; nullopt for the kernel's module. Adds its times to `timings`.
std::string finish_to_ptx(llvm::Module &module, const NvptxCompileOptions &options,
                          const std::set<std::string> &external, std::optional<std::size_t> shard,
                          llvm::TargetMachine &tm, PtxCompileTimings &timings) {
  double t0 = process_cpu_ms();
  merge_sin_cos_calls(module);
  link_libdevice(module, options.libdevice);
  llvm::internalizeModule(
      module, [&](const llvm::GlobalValue &gv) { return kept_external(gv.getName().str(), external); });
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", options.ftz ? 1 : 0);
  timings.libdevice_ms += process_cpu_ms() - t0;
  t0 = process_cpu_ms();
  if (options.tier == PtxTier::Quick) {
    keep_large_libdevice_functions_out_of_line(module);
  }
  optimize(module, tm, options.tier);
  widen_narrow_integer_abs(module);
  // The quick tier's passes (NVVMReflect, the always-inliner, GlobalDCE)
  // are too simple to be worth 0.3 ms of verifying on the first call's
  // path; the optimised tier verifies the same module's code after O3.
  if (options.tier != PtxTier::Quick) {
    verify_or_throw(module, "after optimization");
  }
  timings.optimize_ms += process_cpu_ms() - t0;
  tm.setOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // A function of thousands of blocks: the code generator without its
  // optimizations (no GVN, no register coalescer, which joins the live
  // interval of a value read in every branch, such as an elif chain's x,
  // one copy at a time: 40,000 branches 9.5 s against 2.7 s). ptxas
  // optimizes the PTX again, as for huge blocks below.
  if (has_huge_function(module)) {
    tm.setOptLevel(llvm::CodeGenOptLevel::None);
    fold_empty_blocks_of_huge_functions(module);
    demote_huge_phis(module);
  }
  // A block too big for SelectionDAG (superlinear in the block's size, as
  // Machine CSE is): cut into blocks of bounded size and compiled without
  // the code generator's optimizations (ptxas optimizes the PTX again).
  if (has_huge_block(module)) {
    split_huge_blocks(module);
    tm.setOptLevel(llvm::CodeGenOptLevel::None);
  }
  if (options.tier == PtxTier::Quick) {
    tm.setOptLevel(llvm::CodeGenOptLevel::None);
  }
  if (shard) {
    make_shard_names_unique(module, *shard);
  }
  t0 = process_cpu_ms();
  std::string ptx = emit_text(module, tm);
  timings.codegen_ms += process_cpu_ms() - t0;
  return ptx;
}

}  // namespace

std::string compile_module_to_ptx(llvm::Module &module, const NvptxCompileOptions &options) {
  std::unique_ptr<llvm::TargetMachine> tm = make_nvptx_target_machine(options.gpu, options.fastmath);
  prepare_nvptx_module(module);
  PtxCompileTimings timings;
  double t0 = process_cpu_ms();
  // The parts of long chains, cut while lowering, leave first: each is then
  // prepared, optimized and compiled while its code is in the caches, not
  // walked with the whole module first.
  std::vector<PtxShard> shards;
  if (options.split_parts) {
    shards = split_off_parts(module);
  }
  const std::size_t lowered_parts = shards.size();
  prepare_for_optimizer(module, options);
  // Parts cut from the module's other huge functions just now: prepared.
  if (options.split_parts) {
    std::vector<PtxShard> cut = split_off_parts(module);
    std::move(cut.begin(), cut.end(), std::back_inserter(shards));
  }
  timings.libdevice_ms += process_cpu_ms() - t0;
  // Each shard compiled and freed before the next: the compile's working
  // set stays that of one part.
  std::vector<std::string> shard_ptx;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (i < lowered_parts) {
      t0 = process_cpu_ms();
      prepare_for_optimizer(*shards[i].module, options);
      timings.libdevice_ms += process_cpu_ms() - t0;
    }
    shard_ptx.push_back(finish_to_ptx(*shards[i].module, options, shards[i].functions, i, *tm, timings));
    shards[i].module.reset();
  }
  std::string ptx = finish_to_ptx(module, options, options.entries, std::nullopt, *tm, timings);
  if (!shards.empty()) {
    ptx = join_shard_ptx(std::move(ptx), shard_ptx, shards);
  }
  if (options.timings != nullptr) {
    *options.timings = timings;
  }
  return renumber_call_sequences(ptx);
}

}  // namespace ufjit::codegen
