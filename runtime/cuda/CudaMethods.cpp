// GPU method kernels (runtime/cuda/CudaMethods.h).
#include "runtime/cuda/CudaMethods.h"

#include <algorithm>
#include <optional>

#include "runtime/KernelRequest.h"
#include "runtime/cuda/CudaModule.h"
#include "runtime/cuda/RaiseFlag.h"

namespace ufjit::cuda {

namespace {

using codegen::MethodKernel;

constexpr int64_t kMinChunk = 16 * codegen::kReduceBlock;      // elements a reduce block folds at least
constexpr int64_t kBlocksPerSm = codegen::kMethodBlocksPerSm;  // 256-thread blocks resident per SM
/// Rows of at most this many elements are scanned one thread per row.
constexpr int64_t kRowScanMaxLen = 32;
/// Scan chunks are whole multiples of every scan tile (kReduceBlock * K, K <= 8).
constexpr int64_t kScanAlign = 8 * codegen::kReduceBlock;
constexpr int64_t kMinScanChunk = 16 * kScanAlign;

/// The launches of one method call: its kernels, the grid cap and the error flag.
class MethodLauncher {
 public:
  MethodLauncher(const runtime::MethodLaunch &launch, const std::shared_ptr<const CudaContext> &context,
                 runtime::JitEngine &engine)
      : sig_(*launch.signature),
        context_(context),
        engine_(engine),
        flag_(context, *launch.signature, nullptr),
        table_(runtime::method_params(sig_, codegen::MethodKernel::Reduce)) {}

  /// The kernel of `method`, from the JIT engine.
  const CudaKernel &kernel(MethodKernel method) {
    auto compiled = std::static_pointer_cast<const CudaKernel>(
        engine_.acquire(runtime::KernelRequest::method_entry(sig_, method)));
    kernels_.push_back(compiled);
    return *compiled;
  }

  /// One launch of `kernel` with `config` (runtime/cuda/LaunchConfig.h),
  /// its parameters laid out by the method entries' table.
  void launch(const CudaKernel &kernel, const LaunchConfig &config, int64_t rows, int64_t len, int64_t chunks,
              int64_t chunk_len, const void *in, void *out, const void *aux, void *out_has = nullptr) {
    const runtime::MethodArgs args{rows, len, chunks, chunk_len, in, out, aux, out_has, flag_.device()};
    const runtime::KernelParams params(args, table_);
    cuda::launch(kernel, config, params.pointers());
  }

  /// Waits for the launches and reports a raise.
  void finish() {
    UFJIT_CU_CHECK(context_->drv(), cuStreamSynchronize, nullptr);
    flag_.check_now(nullptr);
  }

  int64_t resident() const { return int64_t{context_->properties().sm_count} * kBlocksPerSm; }
  /// A block per segment (grid-stride), at most four blocks per resident one.
  LaunchConfig segments(int64_t count) const {
    return segment_launch(count, resident() * 4, codegen::kReduceBlock);
  }
  Array scratch(int64_t elements, std::optional<DType> dtype = std::nullopt) const {
    return allocate_device_array(context_, dtype.value_or(sig_.ret), {elements}, false, nullptr);
  }

 private:
  const runtime::CompiledSignature &sig_;
  std::shared_ptr<const CudaContext> context_;
  runtime::JitEngine &engine_;
  RaiseFlag flag_;
  /// The method entries' parameters (one table for every MethodKernel).
  std::vector<codegen::KernelParam> table_;
  std::vector<std::shared_ptr<const CudaKernel>> kernels_;  // alive until the launches finished
};

void run_reduce(MethodLauncher &l, const runtime::MethodLaunch &launch) {
  const int64_t rows = launch.rows;
  const int64_t len = launch.len;
  const int64_t resident = l.resident();
  const bool masked = launch.where != nullptr;
  const CudaKernel &reduce = l.kernel(masked ? MethodKernel::ReduceWhere : MethodKernel::Reduce);
  if (masked && rows < resident && len >= 2 * kMinChunk) {
    // Few long masked rows: chunks that say whether they took an element,
    // then a masked reduce of the chunks' results by those flags (chunk 0
    // holds the row's first element, which is always taken).
    const auto [chunks, chunk_len] = chunk_rows(rows, len, resident, kMinChunk, codegen::kReduceBlock);
    Array partial = l.scratch(rows * chunks);
    Array took = l.scratch(rows * chunks, DType::Bool);
    l.launch(reduce, l.segments(rows * chunks), rows, len, chunks, chunk_len, launch.in, partial.data(),
             launch.where, took.data());
    l.launch(reduce, l.segments(rows), rows, chunks, 1, chunks, partial.data(), launch.out, took.data());
    l.finish();  // before `partial` and `took` are freed
    return;
  }
  if (masked || rows >= resident || len < 2 * kMinChunk) {
    // One block per row (grid-stride over rows): one launch.
    l.launch(reduce, l.segments(rows), rows, len, 1, len, launch.in, launch.out, launch.where);
    l.finish();
    return;
  }
  // Few long rows: chunks of whole multiples of the block, enough of them to
  // fill the device, then one block per row over the chunks' results.
  const auto [chunks, chunk_len] = chunk_rows(rows, len, resident, kMinChunk, codegen::kReduceBlock);
  Array partial = l.scratch(rows * chunks);
  l.launch(reduce, l.segments(rows * chunks), rows, len, chunks, chunk_len, launch.in, partial.data(),
           nullptr);
  l.launch(reduce, l.segments(rows), rows, chunks, 1, chunks, partial.data(), launch.out, nullptr);
  l.finish();  // before `partial` is freed
}

void run_accumulate(MethodLauncher &l, const runtime::MethodLaunch &launch) {
  const int64_t rows = launch.rows;
  const int64_t len = launch.len;
  const int64_t resident = l.resident();
  if (len <= kRowScanMaxLen) {
    const CudaKernel &by_rows = l.kernel(MethodKernel::AccumulateRows);
    l.launch(by_rows, row_launch(rows, resident * 4, codegen::kReduceBlock), rows, len, 1, len, launch.in,
             launch.out, nullptr);
    l.finish();
    return;
  }
  const CudaKernel &scan = l.kernel(MethodKernel::Accumulate);
  if (rows >= 2 * resident || len < 2 * kMinScanChunk) {
    l.launch(scan, l.segments(rows), rows, len, 1, len, launch.in, launch.out, nullptr);
    l.finish();
    return;
  }
  // Few long rows, reduce then scan: the total of each chunk, the inclusive
  // scan of the totals per row (in place), then each chunk from its carry.
  const auto [chunks, chunk_len] = chunk_rows(rows, len, resident, kMinScanChunk, kScanAlign);
  const CudaKernel &reduce = l.kernel(MethodKernel::Reduce);
  Array carry = l.scratch(rows * chunks);
  l.launch(reduce, l.segments(rows * chunks), rows, len, chunks, chunk_len, launch.in, carry.data(), nullptr);
  l.launch(scan, l.segments(rows), rows, chunks, 1, chunks, carry.data(), carry.data(), nullptr);
  l.launch(scan, l.segments(rows * chunks), rows, len, chunks, chunk_len, launch.in, launch.out,
           carry.data());
  l.finish();  // before `carry` is freed
}

}  // namespace

void run_cuda_method(const runtime::MethodLaunch &launch, const std::shared_ptr<const CudaContext> &context,
                     runtime::JitEngine &engine) {
  context->make_current();
  MethodLauncher launcher(launch, context, engine);
  if (launch.method == MethodKernel::Accumulate || launch.method == MethodKernel::AccumulateRows) {
    run_accumulate(launcher, launch);
  } else {
    run_reduce(launcher, launch);
  }
}

}  // namespace ufjit::cuda
