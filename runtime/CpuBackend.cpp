// The CPU target: typed IR -> host code through codegen::CpuCompiler (ORC
// JIT, host CPU features), the index space split over a thread pool. The
// runner (runtime/KernelRunner.h) does that; the backend is host memory.
//
// Small calls run inline on the caller's thread: waking workers costs more
// than computing a few thousand elements. Large calls are cut into chunks
// (a few per thread, aligned to 64 elements so vector loops stay aligned)
// that the pool and the caller take in turn.
//
// Calls that move more bytes than the last-level cache holds write their
// output with streaming (non-temporal) stores on x86-64: the output could
// not stay cached anyway, and an ordinary store reads each output line
// before overwriting it (codegen/StreamingStores.h). UFJIT_CPU_STREAM_BYTES
// sets the threshold in bytes moved per call (0: never).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "codegen/Codegen.h"
#include "support/InternalAssert.h"
#include "runtime/Backend.h"
#include "runtime/KernelRunner.h"
#include "runtime/CpuLaunch.h"
#include "runtime/CpuToolchain.h"
#include "runtime/CpuMethods.h"
#include "runtime/HotKernels.h"
#include "runtime/CpuKernels.h"
#include "runtime/JitEngine.h"
#include "runtime/KernelRequest.h"
#include "runtime/KernelErrors.h"
#include "runtime/ThreadPool.h"
#include "support/Settings.h"

namespace ufjit::runtime {

namespace {

// The last-level cache size assumed where the system reports no L3.
constexpr int64_t kDefaultStreamBytes = int64_t{32} << 20;

/// The bytes a call must move (inputs and output) to write its output with
/// streaming stores; 0 turns them off.
int64_t streaming_threshold(bool supported) {
  if (!supported) {
    return 0;
  }
  if (std::optional<uint64_t> bytes = support::read_size("UFJIT_CPU_STREAM_BYTES")) {
    return static_cast<int64_t>(std::min<uint64_t>(*bytes, std::numeric_limits<int64_t>::max()));
  }
  // A per-core L2 is no measure: data of a few of its sizes still stays in
  // the shared cache for the next call.
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? l3 : kDefaultStreamBytes;
}

/// Bytes read and written by a call of arrays (scalars count nothing).
int64_t bytes_moved(const PreparedCall &call) {
  int64_t bytes = call.size * static_cast<int64_t>(dtype_size(call.output.dtype));
  for (const PreparedOperand &in : call.inputs) {
    if (!in.is_scalar) {
      bytes += call.size * static_cast<int64_t>(dtype_size(in.array.dtype));
    }
  }
  return bytes;
}

/// Every kernel family on the host: entries from the JIT engine, run over
/// the pool.
class CpuRunner final : public KernelRunner {
 public:
  explicit CpuRunner(const BackendConfig &config)
      : engine_(*config.cache, toolchain_, /*disk=*/nullptr),
        pool_(config.cpu_threads),
        stream_bytes_(streaming_threshold(toolchain_.has_streaming_stores())),
        interrupt_(config.interrupt) {}

  /// Backend::key() of the CPU target: the host's architecture and features.
  std::string target_key() const { return toolchain_.target_key(); }

  void execute(const PreparedCall &call, StreamImpl * /*stream: CPU calls are synchronous*/) override {
    codegen::KernelVariant variant = choose_variant(call);
    variant.streaming_stores = variant.layout == codegen::Layout::Contiguous && stream_bytes_ > 0 &&
                               bytes_moved(call) >= stream_bytes_;
    const HotKernel<CpuKernel> &kernel = kernel_for(*call.signature, variant);
    const codegen::CpuEntry entry = kernel.kernel().entry;

    SmallVector<const void *, 8> inputs;
    inputs.resize(call.inputs.size());
    for (std::size_t i = 0; i < call.inputs.size(); ++i) {
      if (!call.inputs[i].is_scalar) {
        // Call.cpp's check_residence has rejected device operands with a user-facing error.
        internal_assert(call.inputs[i].array.residence == Residence::Host) << "device operand on the CPU target";
        inputs[i] = call.inputs[i].array.data;
      }
    }
    std::atomic<uint32_t> raised{0};
    const std::span<const void *const> input_data(inputs.data(), inputs.size());
    const KernelParams params(call, kernel.params(), input_data, call.output.data, &raised);
    int64_t first = 0;
    if (variant.streaming_stores) {
      first = run_unaligned_head(entry, call, kernel.params(), input_data, &raised);
    }
    run_range(entry, params.pointers(), first, call.size, 1);
    check_raised(*call.signature, raised.load());
  }

  /// One iteration per outer element; the work of one is about its core
  /// elements, which decide whether threads pay off.
  void execute_gufunc(const PreparedGufunc &call, StreamImpl * /*stream*/) override {
    const codegen::CpuEntry entry = kernel_for(*call.signature, codegen::gufunc_variant()).kernel().entry;
    std::vector<const void *> data;
    int64_t core_elements = 1;
    for (const ArrayView &v : call.operands) {
      internal_assert(v.residence == Residence::Host) << "device operand on the CPU target";
      data.push_back(v.data);
      int64_t elements = 1;
      for (std::size_t d = call.loop_shape.size(); d < v.shape.size(); ++d) {
        elements *= v.shape[d];
      }
      core_elements = std::max(core_elements, elements);
    }
    std::atomic<uint32_t> raised{0};
    const KernelParams params(call, data, &raised);
    run_range(entry, params.pointers(), 0, call.loop_size, core_elements);
    check_raised(*call.signature, raised.load());
  }

  void run_method(const MethodLaunch &launch) override {
    run_cpu_method(launch, engine_, pool_, interrupt_);
  }

  void execute_kernel(const PreparedKernel &launch, StreamImpl * /*stream: KernelLaunch.cpp refuses one*/) override {
    const HotKernel<CpuKernel> &kernel = kernel_for(*launch.signature, codegen::explicit_variant(launch.contiguous));
    run_cpu_kernel(launch, kernel.kernel().entry, kernel.params(), pool_, interrupt_);
  }

 private:
  /// A streaming entry needs its output aligned to codegen::kStreamingAlign
  /// at `begin`: the elements before the first aligned one (fewer than 64
  /// bytes of output) are computed into an aligned buffer and copied.
  /// Returns the first element left to compute.
  static int64_t run_unaligned_head(codegen::CpuEntry entry, const PreparedCall &call,
                                    std::span<const codegen::KernelParam> table,
                                    std::span<const void *const> input_data, std::atomic<uint32_t> *raised) {
    const auto align = static_cast<uintptr_t>(codegen::kStreamingAlign);
    const uintptr_t misaligned = reinterpret_cast<uintptr_t>(call.output.data) % align;
    if (misaligned == 0) {
      return 0;
    }
    const auto itemsize = static_cast<int64_t>(dtype_size(call.output.dtype));
    const int64_t head = std::min<int64_t>(call.size, static_cast<int64_t>(align - misaligned) / itemsize);
    alignas(codegen::kStreamingAlign) unsigned char buffer[codegen::kStreamingAlign];
    const KernelParams params(call, table, input_data, buffer, raised);
    entry(0, head, params.pointers());
    std::memcpy(call.output.data, buffer, static_cast<std::size_t>(head * itemsize));
    return head;
  }

  /// Runs entry over [first, n) as runtime/CpuLaunch.h's elementwise_cpu_launch
  /// sizes it. `weight`: elements of work per index. With an interrupt, the
  /// pieces are short and the interrupt is polled between them (throws
  /// Cancelled).
  void run_range(codegen::CpuEntry entry, void *const *p, int64_t first, int64_t n, int64_t weight) {
    InterruptPoll poll(interrupt_);
    const CpuLaunch launch = elementwise_cpu_launch(first, n, weight, pool_.concurrency(), poll.enabled());
    run_cpu_launch(pool_, launch, [&](int64_t begin, int64_t end) { entry(begin, end, p); }, poll);
  }

  const HotKernel<CpuKernel> &kernel_for(const CompiledSignature &sig, const codegen::KernelVariant &variant) {
    return kernels_.get(KernelRequest::entry(sig, variant), engine_);
  }

  CpuToolchain toolchain_;
  JitEngine engine_;
  HotKernels<CpuKernel> kernels_;
  ThreadPool pool_;
  const int64_t stream_bytes_;  // 0: no streaming stores
  const std::function<bool()> interrupt_;  // RuntimeOptions::interrupt; may be empty
};

/// The CPU's device layer: host memory only (Backend's data movement and
/// streams throw NoDeviceError).
class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const BackendConfig &config) : runner_(config) {}

  TargetKind kind() const override { return TargetKind::Cpu; }
  std::string key() const override { return runner_.target_key(); }

  Array make_output(DType dtype, const Dims &shape, Residence residence,
                    StreamImpl * /*stream*/) override {
    if (residence != Residence::Host) {
      throw DeviceError("the CPU target cannot allocate device memory");
    }
    return allocate_host(dtype, shape);
  }

  KernelRunner &runner() override { return runner_; }

 private:
  CpuRunner runner_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const BackendConfig &config) {
  return std::make_unique<CpuBackend>(config);
}

}  // namespace ufjit::runtime
