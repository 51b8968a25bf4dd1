// The CUDA backend: the device layer of runtime/Backend.h for one GPU (its
// context, memory, transfers, streams and peers). Its kernels run through
// the CUDA runner (runtime/cuda/CudaRunner.h), made here on the same context.
#include "runtime/cuda/CudaBackend.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <system_error>
#include <thread>

#include "codegen/Codegen.h"
#include "support/InternalAssert.h"
#include "runtime/ViewChecks.h"
#include "runtime/cuda/ContextWarmUp.h"
#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/CudaModule.h"
#include "runtime/cuda/CudaRunner.h"
#include "runtime/cuda/HostStaging.h"
#include "runtime/cuda/PinnedPool.h"
#include "support/Milliseconds.h"
#include "support/Settings.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {
namespace {

/// The PTX target for a device. LLVM 19's NVPTX backend knows targets up to
/// sm_90; the driver JIT-compiles that PTX for newer devices.
codegen::GpuOptions gpu_options_for(const cuda::DeviceProperties &props) {
  const int cc = props.cc_major * 10 + props.cc_minor;
  codegen::GpuOptions gpu;
  gpu.arch = "sm_" + std::to_string(std::min(cc, 90));
  return gpu;
}

/// Backend::key(): the PTX target, the device and its architecture.
std::string target_key_for(const codegen::GpuOptions &gpu, const cuda::DeviceProperties &props) {
  return "cuda-" + gpu.canonical() + "-dev" + std::to_string(props.ordinal) + "-" + props.arch();
}

using Clock = std::chrono::steady_clock;

/// The compiler's warm-up (codegen::warm_up_ptx_compiler) on a thread of
/// its own while the CUDA context is being made (100 ms and more on a fresh
/// process, mostly waiting on the driver): once per process, only where
/// there is a device, not with UFJIT_WARMUP=0. Joined on destruction.
class CompilerWarmUp {
 public:
  CompilerWarmUp() {
    if (!support::read_switch("UFJIT_WARMUP", true)) {
      return;
    }
    try {
      (void)cuda::driver();  // no driver or no device: the backend throws next, nothing to overlap
    } catch (const NoDeviceError &) {
      return;
    }
    if (!codegen::claim_ptx_warm_up()) {
      return;
    }
    claimed_ = true;
    try {
      thread_ = std::thread([] { codegen::warm_up_ptx_compiler(); });
    } catch (const std::system_error &) {
      // No thread: the first compile pays for its own warm-up.
    }
  }
  /// Whether this backend warms up for the process (the first one only).
  bool claimed() const { return claimed_; }
  ~CompilerWarmUp() {
    if (thread_.joinable()) {
      thread_.join();
    }
  }
  CompilerWarmUp(const CompilerWarmUp &) = delete;
  CompilerWarmUp &operator=(const CompilerWarmUp &) = delete;

 private:
  bool claimed_ = false;
  std::thread thread_;
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(const BackendConfig &config)
      : warm_up_(),
        context_(std::make_shared<cuda::CudaContext>(config.device, config.exact_device)),
        staging_(context_),
        pinned_(context_),
        gpu_(gpu_options_for(context_->properties())),
        key_(target_key_for(gpu_, context_->properties())) {
    const cuda::DeviceProperties &props = context_->properties();
    if (support::read_switch("UFJIT_WARMUP", true)) {
      const Clock::time_point t0 = Clock::now();
      context_warm_up_ = cuda::warm_up_context(context_);
      if (support::debug_level() >= 1) {
        std::cerr << "ufjit: context warm-up for " << props.arch() << ": "
                  << (context_warm_up_ ? "done" : "skipped (no cubin for this device, or a step failed)") << " in "
                  << support::milliseconds_since(t0) << " ms\n";
      }
    }
    runner_ = make_cuda_runner(CudaRunnerConfig{config, context_, &staging_, gpu_, key_, warm_up_.claimed()});
  }

  ~CudaBackend() override {
    context_->make_current_noexcept();
    context_->drv().cuCtxSynchronize();
  }

  TargetKind kind() const override { return TargetKind::Cuda; }
  int device_ordinal() const override { return context_->properties().ordinal; }
  bool reads_device(int ordinal) const override {
    return ordinal == device_ordinal() || std::find(peers_.begin(), peers_.end(), ordinal) != peers_.end();
  }
  int stream_device(const StreamImpl &stream) const override { return stream.context->properties().ordinal; }

  /// Lets this device's kernels use `owner`'s memory in place when the
  /// hardware allows it (cuDeviceCanAccessPeer); returns whether they may.
  /// Called while the device set is made, before any call reads peers_.
  bool enable_peer_access(const CudaBackend &owner) {
    const cuda::CudaDriver &drv = context_->drv();
    CUdevice self = 0;
    CUdevice other = 0;
    UFJIT_CU_CHECK(drv, cuDeviceGet, &self, device_ordinal());
    UFJIT_CU_CHECK(drv, cuDeviceGet, &other, owner.device_ordinal());
    int can = 0;
    UFJIT_CU_CHECK(drv, cuDeviceCanAccessPeer, &can, self, other);
    if (can == 0) {
      return false;
    }
    context_->make_current();
    const CUresult result = drv.cuCtxEnablePeerAccess(owner.context_->handle(), 0);
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
      return false;  // the pair then copies, as hardware without peer access does
    }
    // Arrays come from the owner's memory pool (cuMemAllocAsync), which the
    // context's peer access does not open: the pool grants it per device.
    CUmemoryPool pool = nullptr;
    UFJIT_CU_CHECK(drv, cuDeviceGetDefaultMemPool, &pool, other);
    CUmemAccessDesc access = {};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device_ordinal();
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (drv.cuMemPoolSetAccess(pool, &access, 1) != CUDA_SUCCESS) {
      return false;
    }
    peers_.push_back(owner.device_ordinal());
    return true;
  }
  std::string key() const override { return key_; }

  Array make_output(DType dtype, const Dims &shape, Residence residence,
                    StreamImpl *stream) override {
    if (residence == Residence::Host) {
      return pinned_.allocate(dtype, shape);  // the copy engines write it directly
    }
    if (stream == nullptr) {
      return cuda::allocate_sync_result(context_, dtype, shape);  // idle blocks, no driver call
    }
    // On the legacy stream, which every blocking stream waits for: the result
    // of an async call is usable on any stream afterwards.
    return cuda::allocate_device_array(context_, dtype, shape, false, nullptr);
  }

  Array to_device(const ArrayView &host) override {
    internal_assert(host.residence == Residence::Host) << "to_device of a device view (Runtime::to_device checks)";
    Array contiguous;
    const ArrayView *source = &host;
    if (!host.is_c_contiguous()) {
      contiguous = allocate_host(host.dtype, host.shape);
      copy_host_strided(host, contiguous.view());
      source = &contiguous.view();
    }
    Array result = device_empty(host.dtype, host.shape);
    staging_.copy_to_device(cuda::device_address(result.data()), source->data, byte_size(host));
    return result;
  }

  Array to_host(const ArrayView &device) override {
    Array result = pinned_.allocate(device.dtype, device.shape);
    if (device.residence == Residence::Host) {
      copy_host_strided(device, result.view());
      return result;
    }
    const std::size_t bytes = byte_size(device);
    if (bytes == 0) {
      return result;
    }
    if (device.is_c_contiguous()) {
      staging_.copy_to_host(result.data(), cuda::device_address(device.data), bytes);
      return result;
    }
    // A strided device view: bring its whole byte extent over, then gather
    // on the host (no device-side copy kernel is needed for this rare case).
    const auto [lo, hi] = byte_extent(device);
    Array extent = allocate_host(DType::UInt8, {hi - lo});
    staging_.copy_to_host(extent.data(), cuda::device_address(device.data) + lo, static_cast<std::size_t>(hi - lo));
    ArrayView rebased = device;
    rebased.residence = Residence::Host;
    rebased.data = static_cast<char *>(extent.data()) - lo;
    copy_host_strided(rebased, result.view());
    return result;
  }

  Array device_empty(DType dtype, const Dims &shape) override {
    return cuda::allocate_device_array(context_, dtype, shape, false, nullptr);
  }

  Stream make_stream() override { return cuda::make_stream(context_); }
  Stream borrow_stream(void *cu_stream) override { return cuda::borrow_stream(context_, cu_stream); }
  bool owns_stream(void *cu_stream) const override {
    CUcontext owner = nullptr;
    return context_->drv().cuStreamGetCtx(static_cast<CUstream>(cu_stream), &owner) == CUDA_SUCCESS &&
           owner == context_->handle();
  }

  void synchronize() override {
    runner_->wait_for_background();  // "all work": the optimised kernels being compiled too
    context_->make_current();
    UFJIT_CU_CHECK(context_->drv(), cuCtxSynchronize);
  }

  KernelRunner &runner() override { return *runner_; }

  cache::DiskCacheCounters disk_counters() const { return runner_->disk_counters(); }

 private:
  static std::size_t byte_size(const ArrayView &v) {
    return static_cast<std::size_t>(v.size()) * dtype_size(v.dtype);
  }

  // Made before the context, so that it runs while the context is made.
  CompilerWarmUp warm_up_;
  // Destroyed after everything that uses the context.
  std::shared_ptr<const cuda::CudaContext> context_;
  /// Kept loaded for the context's life (ContextWarmUp.h); null if skipped.
  std::shared_ptr<cuda::CudaKernel> context_warm_up_;
  std::vector<int> peers_;  // devices whose memory this one's kernels use in place
  cuda::HostStaging staging_;
  cuda::PinnedPool pinned_;
  codegen::GpuOptions gpu_;
  std::string key_;
  // Declared last: destroyed first, its background compiles finishing while
  // the context and the staging they use are still there.
  std::unique_ptr<CudaRunner> runner_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const BackendConfig &config) {
  return std::make_unique<CudaBackend>(config);
}

bool enable_cuda_peer_access(Backend &reader, const Backend &owner) {
  auto *from = dynamic_cast<CudaBackend *>(&reader);
  const auto *to = dynamic_cast<const CudaBackend *>(&owner);
  internal_assert(from != nullptr && to != nullptr) << "peer access between non-CUDA backends";
  return from->enable_peer_access(*to);
}

cache::DiskCacheCounters cuda_disk_cache_counters(const Backend &backend) {
  if (const auto *cuda = dynamic_cast<const CudaBackend *>(&backend)) {
    return cuda->disk_counters();
  }
  return {};
}

}  // namespace ufjit::runtime
