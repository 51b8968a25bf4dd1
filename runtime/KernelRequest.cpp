// Naming and keying compiled entries: see KernelRequest.h.
#include "runtime/KernelRequest.h"

#include <utility>

#include "support/InternalAssert.h"

namespace ufjit::runtime {

KernelRequest KernelRequest::entry(const CompiledSignature &sig, const codegen::KernelVariant &variant) {
  KernelRequest request;
  request.signature = &sig;
  request.variant = variant;
  return request;
}

KernelRequest KernelRequest::method_entry(const CompiledSignature &sig, codegen::MethodKernel method) {
  KernelRequest request;
  request.signature = &sig;
  request.method = method;
  return request;
}

std::string KernelRequest::entry_name() const {
  return method ? codegen::method_entry_name(signature->base_name, *method)
                : codegen::entry_name(signature->base_name, variant);
}

codegen::EntryRequest KernelRequest::codegen_request() const {
  internal_assert(signature->module != nullptr) << "no module to compile for " << entry_name();
  if (method) {
    codegen::EntryRequest request;
    request.module = signature->module.get();
    request.base_name = signature->base_name;
    request.methods = {*method};
    return request;
  }
  return entries_request(*signature, {variant});
}

codegen::EntryRequest entries_request(const CompiledSignature &sig, std::vector<codegen::KernelVariant> variants) {
  codegen::EntryRequest request;
  request.module = sig.module.get();
  request.base_name = sig.base_name;
  request.variants = std::move(variants);
  request.gufunc_outputs = sig.out_dtypes.size();
  return request;
}

std::string float_options_key(const CompiledSignature &sig) {
  if (sig.external) {
    return sig.external->options_text();
  }
  const bool fastmath = sig.module != nullptr && sig.module->options.fastmath;
  return fastmath ? "fastmath=1;use_fast_math" : "fastmath=0";
}

KernelKey kernel_key(const KernelRequest &request, const std::string &target_key, const std::string &arch) {
  const CompiledSignature &sig = *request.signature;
  KernelKey key;
  key.ir_hash = sig.ir_hash;
  key.signature = sig.signature + " " + request.entry_name();
  key.target_key = target_key;
  key.arch = arch;
  key.float_options = float_options_key(sig);
  key.variant = request.variant;
  return key;
}

}  // namespace ufjit::runtime
