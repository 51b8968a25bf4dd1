// The CPU target: typed IR -> host code through codegen::CpuCompiler (ORC
// JIT, host CPU features), the index space split over a thread pool.
//
// Small calls run inline on the caller's thread: waking workers costs more
// than computing a few thousand elements. Large calls are cut into chunks
// (a few per thread, aligned to 64 elements so vector loops stay aligned)
// that the pool and the caller take in turn.
#include <algorithm>
#include <atomic>

#include "codegen/Codegen.h"
#include "frontend/InternalAssert.h"
#include "runtime/Backend.h"
#include "runtime/CpuMethods.h"
#include "runtime/HotKernels.h"
#include "runtime/KernelErrors.h"
#include "runtime/KernelCache.h"
#include "runtime/ThreadPool.h"

namespace ufjit::runtime {

namespace {

constexpr int64_t kInlineElements = 1 << 15;  // below this, no threads
constexpr int64_t kMinChunkElements = 1 << 14;
constexpr int64_t kChunkAlign = 64;

struct CpuKernel : CompiledKernel {
  explicit CpuKernel(codegen::CpuEntry e) : entry(e) {}
  codegen::CpuEntry entry;
};

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const BackendConfig &config) : cache_(config.cache), pool_(config.cpu_threads) {
    key_ = "cpu-" + compiler_.host_description();
  }

  TargetKind kind() const override { return TargetKind::Cpu; }
  std::string key() const override { return key_; }

  Array make_output(DType dtype, const Dims &shape, Residence residence,
                    StreamImpl * /*stream*/) override {
    if (residence != Residence::Host) {
      throw DeviceError("the CPU target cannot allocate device memory");
    }
    return allocate_host(dtype, shape);
  }

  void execute(const PreparedCall &call, StreamImpl * /*stream: CPU calls are synchronous*/) override {
    const codegen::KernelVariant variant = choose_variant(call);
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
    const KernelParams params(call, kernel.params(), std::span<const void *const>(inputs.data(), inputs.size()),
                              call.output.data, &raised);
    run_range(entry, params.pointers(), call.size, 1);
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
    run_range(entry, params.pointers(), call.loop_size, core_elements);
    check_raised(*call.signature, raised.load());
  }

  void run_method(const MethodLaunch &launch) override {
    run_cpu_method(launch, compiler_, pool_, *cache_, key_);
  }

 private:
  /// Runs entry over [0, n): inline when small, else in chunks over the pool.
  /// `weight`: elements of work per index.
  void run_range(codegen::CpuEntry entry, void *const *p, int64_t n, int64_t weight) {
    const int64_t per_index = std::max<int64_t>(1, weight);
    if (n <= 1 || n < kInlineElements / std::min(per_index, kInlineElements) || pool_.concurrency() == 1) {
      entry(0, n, p);
      return;
    }
    const int64_t wanted_chunks = static_cast<int64_t>(pool_.concurrency()) * 4;
    const int64_t min_chunk = per_index == 1 ? kMinChunkElements : std::max<int64_t>(1, kMinChunkElements / per_index);
    const int64_t align = per_index == 1 ? kChunkAlign : 1;
    int64_t chunk = std::max(min_chunk, (n + wanted_chunks - 1) / wanted_chunks);
    chunk = (chunk + align - 1) / align * align;
    const int64_t chunks = (n + chunk - 1) / chunk;
    pool_.parallel_for(chunks, [&](int64_t c) {
      const int64_t begin = c * chunk;
      const int64_t end = std::min(n, begin + chunk);
      entry(begin, end, p);
    });
  }

  const HotKernel<CpuKernel> &kernel_for(const CompiledSignature &sig, const codegen::KernelVariant &variant) {
    auto key = [&] {
      KernelKey key;
      key.ir_hash = sig.ir_hash;
      key.signature = sig.signature;
      key.target_key = key_;
      key.arch = "host";
      key.float_options = sig.module->options.fastmath ? "fastmath=1" : "fastmath=0";
      key.variant = variant;
      return key;
    };
    return kernels_.get(sig, variant, *cache_, key, [&]() -> std::shared_ptr<const CompiledKernel> {
      codegen::EntryRequest request;
      request.module = sig.module.get();
      request.base_name = sig.base_name;
      request.variants = {variant};
      request.gufunc_outputs = sig.out_dtypes.size();
      std::vector<codegen::CpuEntry> entries = compiler_.compile({request});
      internal_assert(entries.size() == 1 && entries[0] != nullptr) << "CpuCompiler returned no entry for " << variant.suffix();
      return std::make_shared<CpuKernel>(entries[0]);
    });
  }

  KernelCache *cache_;
  HotKernels<CpuKernel> kernels_;
  codegen::CpuCompiler compiler_;
  ThreadPool pool_;
  std::string key_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const BackendConfig &config) {
  return std::make_unique<CpuBackend>(config);
}

}  // namespace ufjit::runtime
