// CUDA kernels for the JIT engine: see CudaToolchain.h.
#include "runtime/cuda/CudaToolchain.h"

#include <chrono>
#include <iostream>

#include "codegen/DeviceImage.h"
#include "runtime/cuda/CudaModule.h"
#include "runtime/cuda/KernelKeys.h"
#include "support/Milliseconds.h"
#include "support/Settings.h"

namespace ufjit::cuda {

namespace {

using Clock = std::chrono::steady_clock;

/// The smallest module the driver's linker accepts, for its warm-up.
constexpr char kDriverJitWarmUpPtx[] =
    ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry warm_up__jit()\n{\n ret;\n}\n";

/// Where a loaded entry's launch hint comes from: ufjit's entries carry it,
/// CUDA C++ kernels do not.
HintSource hints_of(const runtime::KernelRequest &request) {
  return request.signature->external ? HintSource::None : HintSource::InModule;
}

/// Whether the signature's module links CUDA C++ helpers (link=[...]).
bool links_helpers(const runtime::CompiledSignature &sig) {
  return sig.module != nullptr && codegen::needs_link_files({sig.module.get()});
}

}  // namespace

CudaToolchain::CudaToolchain(std::shared_ptr<const CudaContext> context, const codegen::GpuOptions &gpu,
                             const std::string &target_key, CubinPrefetch &prefetch, TierUp &worker,
                             bool warm_up_driver_jit)
    : context_(std::move(context)),
      gpu_(gpu),
      target_key_(target_key),
      prefetch_(prefetch),
      worker_(worker),
      driver_jit_warm_up_pending_(warm_up_driver_jit) {}

runtime::BuiltKernel CudaToolchain::compile(const runtime::KernelRequest &request, codegen::PtxTier tier) {
  const runtime::CompiledSignature &sig = *request.signature;
  const std::string entry = request.entry_name();
  const std::string arch = context_->properties().arch();
  runtime::BuiltKernel built;
  if (sig.external) {  // CUDA C++ (Runtime::elementwise): NVRTC and nvJitLink build the cubin
    built.image = sig.external->cubin(sig, request.variant, arch);
    built.kernel = load_kernel(context_, built.image, entry, HintSource::None);
    return built;
  }
  // CUDA C++ helpers (link=[...]): one nvJitLink link of the PTX and the
  // helpers for the device; else the driver's linker (no toolkit needed).
  const bool linked = links_helpers(sig);
  if (!linked) {
    warm_up_driver_jit_once();
  }
  const Clock::time_point t0 = Clock::now();
  const std::string ptx = codegen::emit_ptx({request.codegen_request()}, gpu_, tier);
  const Clock::time_point t1 = Clock::now();
  built.image = linked ? codegen::link_module_image(codegen::module_device_image(ptx, {sig.module.get()}, arch),
                                                    {sig.module.get()}, arch)
                       : link_ptx(*context_, ptx, entry + ".ptx");
  const Clock::time_point t2 = Clock::now();
  built.kernel = load_kernel(context_, built.image, entry, HintSource::InModule);
  if (support::debug_level() >= 1) {  // UFJIT_DEBUG=1: where a first call's time goes
    std::cerr << "ufjit: " << entry << ": LLVM to PTX" << (tier == codegen::PtxTier::Quick ? " (quick tier) " : " ")
              << support::milliseconds_between(t0, t1) << " ms (" << ptx.size() << " bytes), PTX to cubin " << support::milliseconds_between(t1, t2)
              << " ms (" << built.image.size() << " bytes), load " << support::milliseconds_since(t2) << " ms\n";
  }
  return built;
}

bool CudaToolchain::can_compile_quick(const runtime::KernelRequest &request) const {
  // Not for fastmath: its quick kernel would round differently (no FMA
  // contraction without the code generator's optimisations). Not for linked
  // helpers (nvJitLink optimises the whole image) or CUDA C++.
  const runtime::CompiledSignature &sig = *request.signature;
  return !sig.external && !links_helpers(sig) && !sig.module->options.fastmath;
}

std::optional<cache::DiskCacheKey> CudaToolchain::disk_key(const runtime::KernelRequest &request) const {
  const runtime::CompiledSignature &sig = *request.signature;
  std::string code = sig.external ? sig.external->key_text(sig, request.variant) : ir_code_key(sig);
  return cuda::disk_key(sig, std::move(code), request.entry_name(), *context_, gpu_);
}

std::shared_ptr<runtime::CompiledKernel> CudaToolchain::load(const std::string &image,
                                                             const runtime::KernelRequest &request) {
  return load_kernel(context_, image, request.entry_name(), hints_of(request));
}

std::shared_ptr<runtime::CompiledKernel> CudaToolchain::take_prefetched(const runtime::KernelRequest &request,
                                                                        const cache::KeyHash &hash) {
  return prefetch_.take(request.signature->source, hash, request.entry_name());
}

void CudaToolchain::note_stored(const runtime::KernelRequest &request, const cache::KeyHash &hash, bool on_worker) {
  if (on_worker) {
    prefetch_.note_here(request.signature->source, hash, request.entry_name());
  } else {
    prefetch_.note(request.signature->source, hash, request.entry_name());
  }
}

void CudaToolchain::warm_up_driver_jit_once() {
  if (!driver_jit_warm_up_pending_.exchange(false)) {
    return;
  }
  worker_.submit([context = context_] {
    try {
      (void)link_ptx(*context, kDriverJitWarmUpPtx, "warm_up.ptx");
    } catch (const std::exception &) {
      // The first real link then pays for the load; nothing else changes.
    }
  });
}

}  // namespace ufjit::cuda
