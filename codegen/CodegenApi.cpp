// The free functions of codegen/Codegen.h: entry names, option strings,
// `--emit llvm` and `emit_ptx`. Each call owns its LLVMContext, so calls on
// different threads share nothing mutable.
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "codegen/Codegen.h"
#include "codegen/kernel/KernelModule.h"
#include "codegen/nvptx/NVPTXTarget.h"
#include "support/Diagnostics.h"
#include "support/LargeStack.h"
#include "typer/Typer.h"
#include "support/AsciiIdentifier.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {

std::string GpuOptions::canonical() const {
  if (ptx_isa.empty()) {
    return arch + "-ptx(default)";
  }
  std::string digits = ptx_isa.rfind("ptx", 0) == 0 ? ptx_isa.substr(3) : ptx_isa;
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  return arch + "-ptx" + digits;
}

std::string entry_base_name(const std::string &ufunc_name, const std::vector<std::string> &arg_dtype_names) {
  // PTX names are [A-Za-z0-9_$]: each byte of a non-ASCII name (Python
  // allows `def é(x)`) becomes $ and two hex digits, which no Python
  // identifier holds. NVPTX aborts the process on any other character.
  std::string name;
  for (const char c : ufunc_name) {
    if (support::is_c_identifier_char(c, false)) {
      name += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      constexpr char kHex[] = "0123456789abcdef";
      name += '$';
      name += kHex[byte >> 4];
      name += kHex[byte & 15];
    }
  }
  name += "__";
  if (arg_dtype_names.empty()) {
    return name + "void";
  }
  for (std::size_t k = 0; k < arg_dtype_names.size(); ++k) {
    if (k > 0) {
      name += "_";
    }
    name += arg_dtype_names[k];
  }
  return name;
}

std::string entry_type_name(DType dtype, int ndim) {
  std::string name(dtype_name(dtype));
  if (ndim > 0) {
    name += "_" + std::to_string(ndim) + "d";
  }
  return name;
}

std::string entry_name(const std::string &base_name, const KernelVariant &variant) {
  return base_name + "__" + variant.suffix();
}

namespace {

std::string emit_llvm_ir_here(const std::vector<EntryRequest> &entries, const std::string &target,
                              const GpuOptions &gpu) {
  const std::optional<TargetKind> parsed = parse_target_name(target);
  if (!parsed || target == "parallel" || target == "gpu") {
    throw Error("unknown target '" + target + "' (expected 'cuda' or 'cpu')");
  }
  const TargetKind kind = *parsed;
  initialize_llvm_targets();
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>("ufjit", context);
  if (kind == TargetKind::Cuda) {
    resolve_ptx_isa(gpu);  // an unknown arch or ISA is an error here too, as for PTX
    prepare_nvptx_module(*module);
    // As emit_ptx builds it: libdevice linked before the entries.
    build_entry_module(entries, *module, kind, [](llvm::Module &m) { link_libdevice(m); });
  } else {
    build_entry_module(entries, *module, kind);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  os.flush();
  return text;
}

std::string emit_ptx_here(const std::vector<EntryRequest> &entries, const GpuOptions &gpu, PtxTier tier) {
  initialize_llvm_targets();
  // Member order of this scope fixes destruction: the module before its context.
  llvm::LLVMContext context;
  discard_local_value_names(context);
  auto module = std::make_unique<llvm::Module>("ufjit", context);
  prepare_nvptx_module(*module);
  EntryModuleInfo info = build_entry_module(
      entries, *module, TargetKind::Cuda,
      [](llvm::Module &m) {
        declare_sin_cos_partners(m);
        link_libdevice(m);
      },
      gpu_entry_shape(tier));
  NvptxCompileOptions options;
  options.gpu = gpu;
  options.fastmath = info.all_fastmath;
  options.ftz = info.all_fastmath;
  options.entries.insert(info.entry_names.begin(), info.entry_names.end());
  options.tier = tier;
  return compile_module_to_ptx(*module, options);
}

}  // namespace

// Lowering and LLVM recurse over deep expressions: both run on the compile
// thread (support/LargeStack.h), whatever the caller's stack.
std::string emit_llvm_ir(const std::vector<EntryRequest> &entries, const std::string &target,
                         const GpuOptions &gpu) {
  return run_with_large_stack([&] { return emit_llvm_ir_here(entries, target, gpu); });
}

std::string emit_ptx(const std::vector<EntryRequest> &entries, const GpuOptions &gpu, PtxTier tier) {
  return run_with_large_stack([&] { return emit_ptx_here(entries, gpu, tier); });
}

bool claim_ptx_warm_up() {
  // Process-wide by nature, as LLVM's target registry: paged-in code is the
  // process's. Set once, never reset.
  static std::atomic<bool> claimed{false};
  return !claimed.exchange(true);
}

namespace {

// A branch, exp, sin, cos, powers, and a helper returning a tuple that the
// caller unpacks: the typer's paths for helpers and tuples are paged in
// too, which a first `vectorize` of such a source otherwise pays for.
constexpr char kWarmUpSource[] =
    "import math\nfrom numba import cuda\n\n@cuda.jit(device=True)\ndef warm_up_helper(a, b):\n"
    "    return a * math.cos(b), a - b\n\n@vectorize(['float32(float32, float32)'])\ndef warm_up(x, y):\n"
    "    p, q = warm_up_helper(x, y)\n    if x < y:\n        return math.exp(p) * y\n"
    "    return (math.sin(x) + q ** 2) ** 0.5\n";

/// Types kWarmUpSource, then `use(module)` its ufunc's one module, all on a
/// stack ample for it. False when the source did not type.
template <typename Use>
bool with_warm_up_module(const Use &use) {
  auto file = std::make_shared<const SourceFile>("<warm-up>", kWarmUpSource);
  DiagnosticEngine diags;
  return run_with_stack_for(file->text().size(), [&] {
    std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
    if (!program || program->ufuncs.empty() || program->ufuncs[0].modules.empty()) {
      return false;
    }
    return use(program->ufuncs[0].modules[0]);
  });
}

}  // namespace

bool warm_up_frontend() noexcept {
  try {
    return with_warm_up_module([](const ir::Module &) { return true; });
  } catch (...) {
    return false;  // the first `vectorize` then finds a colder cache, nothing else
  }
}

bool warm_up_ptx_compiler() noexcept {
  try {
    const bool compiled = with_warm_up_module([](const ir::Module &module) {
      EntryRequest request{&module, "warm_up__float32_float32", {KernelVariant{Layout::Contiguous, true, 0}}};
      return emit_ptx({request}, GpuOptions{}, PtxTier::Quick).find(".entry warm_up__") != std::string::npos;
    });
    // The libdevice functions kernels call most, in both widths, made
    // into slices (NVPTXTarget.h) now: a first call that uses them then
    // parses a few KB instead of libdevice's module records.
    std::vector<std::string> common;
    for (const char *base : {"sin", "cos", "sincos", "tan", "exp", "exp2", "expm1", "log", "log2", "log10",
                             "log1p", "pow", "atan2", "hypot", "tanh", "fmod"}) {
      common.push_back(std::string("__nv_") + base + "f");
      common.push_back(std::string("__nv_") + base);
    }
    prepare_libdevice_slices(common);
    return compiled;
  } catch (...) {
    return false;  // a failed warm-up costs the first compile its speed-up, nothing else
  }
}

}  // namespace ufjit::codegen
