// The CUDA target's KernelRunner (runtime/KernelRunner.h): kernels from the
// JIT engine (memory cache -> disk cache -> PTX -> link -> load, a quick tier
// replaced by the optimised one in the background), host operands staged
// through the backend's HostStaging, launches by configuration
// (runtime/cuda/LaunchConfig.h). The backend (CudaBackend.cpp) owns the
// context, memory and streams it runs on.
#include "runtime/cuda/CudaRunner.h"

#include <chrono>
#include <iostream>
#include <mutex>
#include <set>

#include "codegen/Codegen.h"
#include "runtime/HotKernels.h"
#include "runtime/JitEngine.h"
#include "runtime/KernelCache.h"
#include "runtime/KernelRequest.h"
#include "runtime/PackedParams.h"
#include "runtime/ViewChecks.h"
#include "runtime/cuda/CubinPrefetch.h"
#include "runtime/cuda/CudaMethods.h"
#include "runtime/cuda/CudaModule.h"
#include "runtime/cuda/CudaToolchain.h"
#include "runtime/cuda/DoneFlags.h"
#include "runtime/cuda/HostStaging.h"
#include "runtime/cuda/LaunchConfig.h"
#include "runtime/cuda/RaiseFlag.h"
#include "runtime/cuda/TierUp.h"
#include "support/Milliseconds.h"
#include "support/Settings.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {
namespace {

using Clock = std::chrono::steady_clock;

/// Calls of at least this many elements wait for a kernel's optimised tier
/// rather than run its quick one: the quick kernel's slower code would then
/// cost more than it saves (and a throughput measured after a warm-up call of
/// this size measures the optimised code). The 1024-element first call of
/// the first-call benchmark stays quick.
constexpr int64_t kTierWaitElements = int64_t{1} << 16;

class CudaRunnerImpl final : public CudaRunner {
 public:
  CudaRunnerImpl(const CudaRunnerConfig &config)
      : context_(config.context),
        staging_(*config.staging),
        warn_low_occupancy_(config.backend.warn_low_occupancy),
        disk_(cache::DiskCacheConfig::from_environment()),
        gpu_(config.gpu),
        key_(config.target_key),
        prefetch_(context_, disk_, gpu_, tier_up_),
        toolchain_(context_, gpu_, key_, prefetch_, tier_up_, config.warms_up_compiler),
        engine_(*config.backend.cache, toolchain_, &disk_,
                BackgroundWorker{[this](std::function<void()> job) { tier_up_.submit(std::move(job)); },
                                 [this] { tier_up_.wait_idle(); }}) {
    if (config.warms_up_compiler) {
      // The context's creation evicted the frontend that the compiler's
      // warm-up paged in; a first `vectorize` would type out of DRAM.
      const Clock::time_point t0 = Clock::now();
      const bool typed = codegen::warm_up_frontend();
      if (support::debug_level() >= 1) {
        std::cerr << "ufjit: frontend warm-up " << (typed ? "done" : "failed") << " in "
                  << support::milliseconds_since(t0) << " ms\n";
      }
    }
    // The worker is made here, not by a first `vectorize`'s prefetch
    // (CubinPrefetch.h), and its first driver call is made now too.
    tier_up_.start();
    tier_up_.submit([context = context_] { context->make_current_noexcept(); });
    if (support::read_switch("UFJIT_DONE_FLAGS", true)) {
      // A page-locked allocation: made on the worker, off the first call's path.
      tier_up_.submit([this] { done_flags_.prepare(); });
    }
  }

  void execute(const PreparedCall &call, StreamImpl *stream) override {
    context_->make_current();
    const codegen::KernelVariant variant = choose_variant(call);
    if (!any_host_operand(call)) {
      cuda::RaiseFlag flag(context_, *call.signature, cuda::stream_handle(stream));
      const HotKernel<cuda::CudaKernel> &kernel = kernel_for(*call.signature, variant, call.size);
      const cuda::DoneFlags::Flag done = done_flag_for(kernel, call.size, stream, flag);
      run_on_device(call, kernel, cuda::stream_handle(stream), flag.device(), done.device());
      finish_device_call(flag, stream, done);
      return;
    }
    if (stream != nullptr) {
      throw InputError("an async call takes device arrays only; copy host operands with Runtime::to_device");
    }
    cuda::RaiseFlag flag(context_, *call.signature, nullptr);
    // CUDA C++ elementwise kernels see `i` and `_ind.size()` of the whole
    // call: staged whole, never in chunks.
    if (variant.layout == codegen::Layout::Contiguous && !call.signature->external) {
      run_staged(call, variant, flag.device());
    } else {
      run_strided_host(call, variant, flag.device());
    }
    flag.check_now(nullptr);
  }

  /// A LastCallPlan's calls of device operands: the variant, the kernel and
  /// the packed parameters of the plan's first call through here are kept,
  /// and later calls write only their data pointers (PackedParams.h).
  void execute_planned(const PreparedCall &call, StreamImpl *stream, std::unique_ptr<LaunchMemo> &memo) override {
    auto *launch = static_cast<DeviceLaunch *>(memo.get());
    if (launch == nullptr) {
      if (any_host_operand(call) || call.size >= kTierWaitElements) {  // (plans hold no scalars)
        execute(call, stream);  // staging, or a call long enough to wait for the optimised kernel
        return;
      }
      context_->make_current();
      const codegen::KernelVariant variant = choose_variant(call);
      const HotKernel<cuda::CudaKernel> &hot = kernel_for(*call.signature, variant, call.size);
      memo = std::make_unique<DeviceLaunch>(variant, hot, call);
      launch = static_cast<DeviceLaunch *>(memo.get());
    } else {
      engine_.cache().record_hit();  // as kernel_for would
    }
    if (!launch->variant_fits(call)) {
      execute(call, stream);  // a contiguous kernel, and a pointer not aligned to its element
      return;
    }
    context_->make_current();
    cuda::RaiseFlag flag(context_, *call.signature, cuda::stream_handle(stream));
    const cuda::DoneFlags::Flag done = done_flag_for(launch->hot, call.size, stream, flag);
    cuda::launch(launch->hot.kernel(), call.size, launch->params.bind(call, flag.device(), done.device()),
                 cuda::stream_handle(stream));
    finish_device_call(flag, stream, done);
  }

  /// One thread per outer element. Host operands are staged by byte extent
  /// (as run_strided_host): copied in, computed, host operands the kernel
  /// writes (outputs, writable_args inputs) copied back.
  void execute_gufunc(const PreparedGufunc &call, StreamImpl *stream) override {
    context_->make_current();
    const CompiledSignature &sig = *call.signature;
    const cuda::CudaKernel &kernel = kernel_for(sig, codegen::gufunc_variant(), call.loop_size).kernel();
    warn_if_underused(sig, kernel, call.loop_size);
    bool any_host = false;
    for (const ArrayView &v : call.operands) {
      any_host = any_host || v.residence == Residence::Host;
    }
    if (!any_host) {
      std::vector<const void *> data;
      for (const ArrayView &v : call.operands) {
        data.push_back(v.data);
      }
      cuda::RaiseFlag flag(context_, sig, cuda::stream_handle(stream));
      const KernelParams params(call, data, flag.device());
      cuda::launch(kernel, call.loop_size, params.pointers(), cuda::stream_handle(stream));
      finish_device_call(flag, stream);
      return;
    }
    if (stream != nullptr) {
      throw InputError("an async call takes device arrays only; copy host operands with Runtime::to_device");
    }
    std::vector<Array> scratch;
    std::vector<const void *> data;
    for (const ArrayView &v : call.operands) {
      data.push_back(v.residence == Residence::Host ? stage_extent(v, scratch) : v.data);
    }
    cuda::RaiseFlag flag(context_, sig, nullptr);
    const KernelParams params(call, data, flag.device());
    cuda::launch(kernel, call.loop_size, params.pointers(), nullptr);
    for (std::size_t k = 0; k < call.operands.size(); ++k) {
      const ArrayView &out = call.operands[k];
      if (call.written[k] && out.residence == Residence::Host) {  // outputs, writable_args inputs
        const auto [lo, hi] = byte_extent(out);
        staging_.copy_to_host(static_cast<char *>(out.data) + lo,
                              cuda::device_address(static_cast<const char *>(data[k]) + lo), static_cast<std::size_t>(hi - lo));
      }
    }
    UFJIT_CU_CHECK(context_->drv(), cuStreamSynchronize, nullptr);
    flag.check_now(nullptr);
  }

  void execute_kernel(const PreparedKernel &launch, StreamImpl *stream) override {
    context_->make_current();
    const CompiledSignature &sig = *launch.signature;
    const int64_t threads = launch.grid[0] * launch.grid[1] * launch.grid[2] * launch.block[0] * launch.block[1] *
                            launch.block[2];
    const HotKernel<cuda::CudaKernel> &kernel = kernel_for(sig, codegen::explicit_variant(launch.contiguous), threads);
    // Host arrays are copied in (their byte extent, strides kept) and back
    // after the kernel, as Numba does; device arrays are used in place.
    std::vector<Array> scratch;
    std::vector<const void *> data;
    for (const PreparedOperand &arg : launch.args) {
      const bool host = !arg.is_scalar && arg.array.residence == Residence::Host;
      data.push_back(arg.is_scalar ? nullptr : host ? stage_extent(arg.array, scratch) : arg.array.data);
    }
    cuda::RaiseFlag flag(context_, sig, cuda::stream_handle(stream));
    const KernelParams params(launch, kernel.params(), data, flag.device());
    cuda::LaunchConfig config;
    config.grid = {static_cast<unsigned>(launch.grid[0]), static_cast<unsigned>(launch.grid[1]),
                   static_cast<unsigned>(launch.grid[2])};
    config.block = {static_cast<unsigned>(launch.block[0]), static_cast<unsigned>(launch.block[1]),
                    static_cast<unsigned>(launch.block[2])};
    config.shared_bytes = static_cast<unsigned>(launch.shared_bytes);
    config.stream = cuda::stream_handle(stream);
    cuda::launch(kernel.kernel(), config, params.pointers());
    if (stream != nullptr || scratch.empty()) {
      finish_device_call(flag, stream);
      return;
    }
    for (std::size_t k = 0; k < launch.args.size(); ++k) {
      const PreparedOperand &arg = launch.args[k];
      if (arg.is_scalar || arg.array.residence != Residence::Host) continue;
      const auto [lo, hi] = byte_extent(arg.array);
      staging_.copy_to_host(static_cast<char *>(arg.array.data) + lo,
                            cuda::device_address(static_cast<const char *>(data[k]) + lo), static_cast<std::size_t>(hi - lo));
    }
    UFJIT_CU_CHECK(context_->drv(), cuStreamSynchronize, nullptr);
    flag.check_now(nullptr);
  }

  void prefetch(const SourceKey &source) override { prefetch_.start(source); }

  void run_method(const MethodLaunch &launch) override { cuda::run_cuda_method(launch, context_, engine_); }

  void wait_for_background() override { tier_up_.wait_idle(); }

  cache::DiskCacheCounters disk_counters() const override { return disk_.counters(); }

 private:
  /// A LastCallPlan's launch (execute_planned): what its calls share.
  struct DeviceLaunch : LaunchMemo {
    DeviceLaunch(const codegen::KernelVariant &v, const HotKernel<cuda::CudaKernel> &k, const PreparedCall &call)
        : variant(v), hot(k), params(call, k.params()) {}
    /// choose_variant's pointer condition: a contiguous kernel reads whole
    /// elements at their natural alignment (the plan checked only the
    /// element alignment, half of a complex element).
    bool variant_fits(const PreparedCall &call) const {
      if (variant.layout != codegen::Layout::Contiguous) {
        return true;  // strided kernels take any pointers
      }
      const auto misaligned = [](const ArrayView &v) {
        return (reinterpret_cast<uintptr_t>(v.data) & (dtype_size(v.dtype) - 1)) != 0;  // sizes are powers of two
      };
      bool fits = !misaligned(call.output);
      for (const PreparedOperand &in : call.inputs) {
        fits = fits && !misaligned(in.array);
      }
      return fits;
    }
    codegen::KernelVariant variant;
    const HotKernel<cuda::CudaKernel> &hot;  // HotKernels never drops an entry; a tier-up swaps its kernel
    PackedParams params;
  };

  /// Whether the output or an array input is host memory (staged).
  static bool any_host_operand(const PreparedCall &call) {
    bool any_host = call.output.residence == Residence::Host;
    for (const PreparedOperand &in : call.inputs) {
      any_host = any_host || (!in.is_scalar && in.array.residence == Residence::Host);
    }
    return any_host;
  }

  /// A done flag (DoneFlags.h) for a launch of `kernel` over `n` elements
  /// that can be waited on that way: synchronous, one block, an entry that
  /// takes the flag, and no raise flag to read afterwards (its read is a
  /// stream operation, which waits for the kernel's retirement anyway).
  /// Empty otherwise, or when no flag is free.
  cuda::DoneFlags::Flag done_flag_for(const HotKernel<cuda::CudaKernel> &kernel, int64_t n,
                                      StreamImpl *stream, const cuda::RaiseFlag &raise) const {
    if (stream != nullptr || !kernel.takes_done_flag() || raise.device() != nullptr ||
        cuda::launch_config(kernel.kernel().geometry, n).grid.x != 1) {
      return {};
    }
    return done_flags_.claim();
  }

  /// After a launch on device operands: a synchronous call waits (on `done`
  /// when it was given to the launch) and reports a raise now; an async one
  /// reports it at its stream's next synchronize.
  void finish_device_call(cuda::RaiseFlag &flag, StreamImpl *stream, const cuda::DoneFlags::Flag &done = {}) {
    if (stream != nullptr) {
      flag.defer(stream);
    } else if (!done.empty()) {
      done.wait();
    } else {
      UFJIT_CU_CHECK(context_->drv(), cuStreamSynchronize, nullptr);
      flag.check_now(nullptr);
    }
  }


  /// Every operand on the device: one launch of `kernel`, nothing copied.
  /// `raise_flag`: cuda::RaiseFlag::device() (null when the kernel cannot
  /// raise); `done_flag`: cuda::DoneFlags::Flag::device() (null: none).
  void run_on_device(const PreparedCall &call, const HotKernel<cuda::CudaKernel> &kernel, CUstream stream,
                     void *raise_flag, void *done_flag) {
    SmallVector<const void *, 8> inputs;
    inputs.resize(call.inputs.size());
    for (std::size_t i = 0; i < call.inputs.size(); ++i) {
      if (!call.inputs[i].is_scalar) {
        inputs[i] = call.inputs[i].array.data;
      }
    }
    const KernelParams params(call, kernel.params(),
                              std::span<const void *const>(inputs.data(), inputs.size()), call.output.data,
                              raise_flag, done_flag);
    cuda::launch(kernel.kernel(), call.size, params.pointers(), stream);
  }

  /// Contiguous call with host operands: chunks through pinned staging.
  void run_staged(const PreparedCall &call, codegen::KernelVariant variant, void *raise_flag) {
    // Offsets within one chunk always fit in 32 bits (chunks are a few MiB).
    variant.index32 = true;
    const cuda::CudaKernel &kernel = kernel_for(*call.signature, variant, call.size).kernel();
    PreparedCall chunk_call = call;
    staging_.run_contiguous(call, [&](const std::vector<const void *> &inputs, void *output, int64_t,
                                      int64_t count, CUstream stream) {
      chunk_call.size = count;
      const KernelParams params(chunk_call, variant, inputs, output, raise_flag);
      cuda::launch(kernel, count, params.pointers(), stream);
    });
  }

  /// Strided call with host operands: each host operand's byte extent is
  /// copied to the device (a host output's too, so that the gaps of a
  /// strided `out` survive), the kernel runs with the same strides, and a
  /// host output's extent is copied back.
  void run_strided_host(const PreparedCall &call, const codegen::KernelVariant &variant, void *raise_flag) {
    std::vector<Array> scratch;
    auto stage = [&](const ArrayView &v) -> void * { return stage_extent(v, scratch); };
    std::vector<const void *> inputs(call.inputs.size(), nullptr);
    for (std::size_t i = 0; i < call.inputs.size(); ++i) {
      const PreparedOperand &in = call.inputs[i];
      if (in.is_scalar) {
        continue;
      }
      inputs[i] = in.array.residence == Residence::Host ? stage(in.array) : in.array.data;
    }
    const bool host_out = call.output.residence == Residence::Host;
    void *output = host_out ? stage(call.output) : call.output.data;
    const cuda::CudaKernel &kernel = kernel_for(*call.signature, variant, call.size).kernel();
    const KernelParams params(call, variant, inputs, output, raise_flag);
    cuda::launch(kernel, call.size, params.pointers(), nullptr);
    if (host_out) {
      const auto [lo, hi] = byte_extent(call.output);
      staging_.copy_to_host(static_cast<char *>(call.output.data) + lo,
                            cuda::device_address(static_cast<char *>(output) + lo), static_cast<std::size_t>(hi - lo));
    } else {
      UFJIT_CU_CHECK(context_->drv(), cuStreamSynchronize, nullptr);
    }
  }

  /// A device copy of a host view's byte extent (kept in `scratch`); returns
  /// the device address of the view's element 0, for the view's strides.
  void *stage_extent(const ArrayView &v, std::vector<Array> &scratch) {
    const auto [lo, hi] = byte_extent(v);
    scratch.push_back(cuda::allocate_device_array(context_, DType::UInt8, {hi - lo}, false, nullptr));
    staging_.copy_to_device(cuda::device_address(scratch.back().data()), static_cast<const char *>(v.data) + lo,
                            static_cast<std::size_t>(hi - lo));
    return static_cast<char *>(scratch.back().data()) - lo;
  }

  /// The low-occupancy warning of a gufunc launch (RuntimeOptions::
  /// warn_low_occupancy): fewer blocks than twice the multiprocessors leave
  /// the GPU mostly idle. Printed to stderr once per signature.
  void warn_if_underused(const CompiledSignature &sig, const cuda::CudaKernel &kernel, int64_t outer) {
    if (!warn_low_occupancy_) {
      return;
    }
    const int sms = context_->properties().sm_count;
    const cuda::LaunchConfig config = cuda::launch_config(kernel.geometry, outer);
    const int64_t blocks = config.grid.x;
    if (blocks >= 2 * static_cast<int64_t>(sms)) {
      return;
    }
    {
      std::lock_guard<std::mutex> lock(warned_mutex_);
      if (!warned_.insert(sig.base_name).second) {
        return;
      }
    }
    std::cerr << "ufjit: warning: gufunc '" << sig.ufunc_name << "' (" << sig.signature << ") runs " << outer
              << " outer element" << (outer == 1 ? "" : "s") << " as " << blocks << " block"
              << (blocks == 1 ? "" : "s") << " of " << config.block.x << " threads on a GPU with " << sms
              << " multiprocessors: most of the GPU idles (one thread per outer element). Batch more outer "
                 "elements, or set RuntimeOptions::warn_low_occupancy = false to silence this.\n";
  }

  /// The loaded kernel for a signature and variant: a HotKernels hit on the
  /// hot path, else the JIT engine's. A call of `elements` >=
  /// kTierWaitElements does not run a quick-tier kernel: it waits for the
  /// optimised one (as long as compiling it first would have taken without
  /// tiering), so that a large call, and any throughput measured after it,
  /// runs the optimised code.
  const HotKernel<cuda::CudaKernel> &kernel_for(const CompiledSignature &sig, const codegen::KernelVariant &variant,
                                                int64_t elements) {
    const HotKernel<cuda::CudaKernel> &hot = kernels_.get(KernelRequest::entry(sig, variant), engine_);
    if (elements >= kTierWaitElements && hot.kernel().quick_tier) {
      engine_.wait_for_optimised();  // the entry now holds the optimised kernel (or the quick one, if that failed)
    }
    return hot;
  }

  std::shared_ptr<const cuda::CudaContext> context_;
  cuda::HostStaging &staging_;  // the backend's; outlives the runner
  bool warn_low_occupancy_;
  std::mutex warned_mutex_;
  std::set<std::string> warned_;  // base names already warned about
  cache::DiskCache disk_;
  codegen::GpuOptions gpu_;
  std::string key_;
  HotKernels<cuda::CudaKernel> kernels_;
  /// Kernels loaded while their source is typed; jobs run on tier_up_.
  cuda::CubinPrefetch prefetch_;
  cuda::CudaToolchain toolchain_;
  JitEngine engine_;
  /// Flags of one-block synchronous launches; the page is made on tier_up_.
  cuda::DoneFlags done_flags_{context_};
  // Declared last: destroyed first, finishing its jobs while everything they
  // use (context, kernels, disk cache) is still there.
  cuda::TierUp tier_up_;
};

}  // namespace

std::unique_ptr<CudaRunner> make_cuda_runner(const CudaRunnerConfig &config) {
  return std::make_unique<CudaRunnerImpl>(config);
}

}  // namespace ufjit::runtime
