// Entry module construction (codegen/kernel/KernelModule.h).
#include "codegen/kernel/KernelModule.h"

#include "codegen/kernel/KernelReduce.h"

#include <set>

#include "support/InternalAssert.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {

EntrySignature entry_signature(const ir::Function &fn) {
  EntrySignature sig;
  for (const ir::Variable &param : fn.params) {
    if (!param.type.is_scalar()) {
      throw Error("function '" + fn.name + "' takes '" + param.type.str() + "' for '" + param.name +
                  "'; elementwise entries take scalars only");
    }
    sig.args.push_back(param.type.dtype());
  }
  if (!fn.ret.is_scalar()) {
    throw Error("function '" + fn.name + "' returns '" + fn.ret.str() + "'; a ufunc returns a scalar");
  }
  sig.ret = fn.ret.dtype();
  return sig;
}

EntrySignature gufunc_entry_signature(const ir::Function &fn, std::size_t outputs) {
  EntrySignature sig;
  for (const ir::Variable &param : fn.params) {
    if (!param.type.is_scalar() && !param.type.is_array()) {
      throw Error("gufunc '" + fn.name + "' takes '" + param.type.str() + "' for '" + param.name +
                  "'; a gufunc takes arrays and scalars");
    }
    sig.args.push_back(param.type.dtype());
    sig.arg_ndims.push_back(param.type.is_array() ? param.type.ndim() : 0);
  }
  if (!fn.ret.is_void()) {
    throw Error("gufunc '" + fn.name + "' returns '" + fn.ret.str() + "'; a gufunc writes its outputs");
  }
  sig.outputs = outputs;
  return sig;
}

void mark_gpu_fastmath(llvm::Function &f) {
  f.addFnAttr("unsafe-fp-math", "true");
  f.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
}

void discard_local_value_names(llvm::LLVMContext &context) {
  context.setDiscardValueNames(true);
}

namespace {

/// The entry of one variant of `request` around its lowered `scalar`
/// function: elementwise, gufunc or explicit kernel, for `kind`.
llvm::Function *build_variant_entry(llvm::Module &out, llvm::Function &scalar, const EntrySignature &sig,
                                    const EntryRequest &request, const KernelVariant &variant,
                                    const std::string &name, TargetKind kind, GpuEntryShape shape) {
  const bool gpu = kind == TargetKind::Cuda;
  if (variant.kind == KernelKind::Explicit) {
    const ir::Module &module = *request.module;
    internal_assert(module.explicit_kernel) << "kernel variant for a ufunc's request";
    return gpu ? build_gpu_explicit_entry(out, scalar, sig, variant, name)
               : build_cpu_explicit_entry(out, scalar, sig, variant, name, module.shared_bytes, module.cpu_fibers());
  }
  if (variant.kind == KernelKind::Gufunc) {
    internal_assert(request.gufunc_outputs > 0) << "gufunc variant for an elementwise request";
    return gpu ? build_gpu_gufunc_entry(out, scalar, sig, name) : build_cpu_gufunc_entry(out, scalar, sig, name);
  }
  return gpu ? build_gpu_entry(out, scalar, sig, variant, name, shape) : build_cpu_entry(out, scalar, sig, variant, name);
}

}  // namespace

EntryModuleInfo build_entry_module(const std::vector<EntryRequest> &requests, llvm::Module &out, TargetKind kind,
                                   const std::function<void(llvm::Module &)> &after_lowering, GpuEntryShape shape) {
  struct Lowered {
    const EntryRequest *request;
    EntrySignature sig;
    llvm::Function *scalar;
  };
  EntryModuleInfo info;
  info.all_fastmath = !requests.empty();
  std::set<std::string> bases;
  std::vector<Lowered> lowered;
  for (const EntryRequest &request : requests) {
    internal_assert(request.module != nullptr) << "entry request without a module";
    internal_assert(!request.base_name.empty()) << "entry request without a base name";
    internal_assert(bases.insert(request.base_name).second) << "entry base name requested twice: " << request.base_name;
    const ir::Module &module = *request.module;
    LoweringTarget target;
    target.kind = kind;
    target.fastmath = module.options.fastmath;
    info.all_fastmath = info.all_fastmath && target.fastmath;
    info.any_fastmath = info.any_fastmath || target.fastmath;
    // A gufunc's or kernel's entry function takes arrays; a kernel has no outputs.
    EntrySignature sig = request.gufunc_outputs > 0 || module.explicit_kernel
                             ? gufunc_entry_signature(module.entry_function(), request.gufunc_outputs)
                             : entry_signature(module.entry_function());
    sig.can_raise = module.can_raise();
    sig.done_flag = request.done_flag;  // the runtime's: CompiledSignature::entry_signature agrees
    llvm::Function *scalar = lower_module(module, out, request.base_name + ".", target);
    internal_assert(scalar != nullptr) << "lowering returned no entry function for " << request.base_name;
    lowered.push_back({&request, std::move(sig), scalar});
  }
  if (after_lowering) {
    after_lowering(out);
  }
  for (const Lowered &item : lowered) {
    for (const KernelVariant &variant : item.request->variants) {
      internal_assert(item.sig.args.size() <= sizeof(variant.scalar_mask) * 8 || variant.scalar_mask == 0)
          << "scalar mask beyond its width";
      std::string name = entry_name(item.request->base_name, variant);
      llvm::Function *entry =
          build_variant_entry(out, *item.scalar, item.sig, *item.request, variant, name, kind, shape);
      if (kind == TargetKind::Cuda && item.request->module->options.fastmath) mark_gpu_fastmath(*entry);
      info.entry_names.push_back(name);
    }
    for (MethodKernel method : item.request->methods) {
      std::string name = method_entry_name(item.request->base_name, method);
      llvm::Function *entry = build_method_entry(out, *item.scalar, item.sig, method, kind, name);
      if (kind == TargetKind::Cuda && item.request->module->options.fastmath) {
        mark_gpu_fastmath(*entry);
      }
      info.entry_names.push_back(name);
    }
  }
  return info;
}

}  // namespace ufjit::codegen
