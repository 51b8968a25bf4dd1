// Which compiled entry a caller wants, for any kind of kernel and any target:
// the one description that the JIT engine (runtime/JitEngine.h) keys its
// caches by and hands to code generation. Every kernel the runtime acquires
// is named by one: an elementwise or gufunc entry of a signature for a
// variant, or a ufunc method's entry (codegen/kernel/KernelReduce.h). A new
// kind of kernel adds its entry kind here, and nothing else in the engine
// changes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "runtime/Backend.h"
#include "runtime/KernelCache.h"

namespace ufjit::runtime {

struct KernelRequest {
  const CompiledSignature *signature = nullptr;  // outlives the request
  /// The elementwise or gufunc entry's variant (codegen::gufunc_variant()
  /// for gufuncs); ignored for a method entry.
  codegen::KernelVariant variant;
  /// Set: the ufunc method's entry rather than the variant's.
  std::optional<codegen::MethodKernel> method;

  /// An elementwise or gufunc entry.
  static KernelRequest entry(const CompiledSignature &sig, const codegen::KernelVariant &variant);
  /// A ufunc method's entry.
  static KernelRequest method_entry(const CompiledSignature &sig, codegen::MethodKernel method);

  /// The entry's symbol: codegen::entry_name or codegen::method_entry_name.
  std::string entry_name() const;
  /// What code generation takes to build this one entry.
  codegen::EntryRequest codegen_request() const;
};

/// The code generation request of every `variants` entry of `sig` (elementwise
/// or gufunc) in one module, as `Ufunc::ptx` shows it.
codegen::EntryRequest entries_request(const CompiledSignature &sig, std::vector<codegen::KernelVariant> variants);

/// The float and compile options of a signature's code, canonical: one
/// spelling for every target, in the in-memory and disk cache keys. What
/// fastmath=1 compiles to changed with CUDA's --use_fast_math mapping
/// (approximate instructions, codegen/nvptx/NVPTXFastMath.cpp): the suffix
/// keeps disk-cached kernels of the earlier meaning from being reused.
std::string float_options_key(const CompiledSignature &sig);

/// The in-memory cache key of `request` on a target (Backend::key()) and
/// architecture ("sm_90", "host"): everything that affects the code.
KernelKey kernel_key(const KernelRequest &request, const std::string &target_key, const std::string &arch);

}  // namespace ufjit::runtime
