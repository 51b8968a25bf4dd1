// GPU method kernels (runtime/cuda/CudaMethods.h).
#include "runtime/cuda/CudaMethods.h"

#include <algorithm>

#include "runtime/cuda/CudaModule.h"
#include "runtime/cuda/KernelKeys.h"


namespace ufjit::cuda {

namespace {

constexpr int64_t kMinChunk = 16 * codegen::kReduceBlock;  // elements a block folds at least
constexpr int64_t kBlocksPerSm = 8;                        // 256-thread blocks resident per SM

CUdeviceptr device_ptr(const void *p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }

/// Disk cache -> cubin, else PTX -> cubin (stored) -> module -> function.
std::shared_ptr<const CudaKernel> build(const runtime::CompiledSignature &sig, codegen::MethodKernel method,
                                        const std::shared_ptr<const CudaContext> &context, cache::DiskCache &disk,
                                        const codegen::GpuOptions &gpu) {
  const std::string entry = codegen::method_entry_name(sig.base_name, method);
  const cache::DiskCacheKey disk_key = cuda::disk_key(sig, ir_code_key(sig), entry, *context, gpu);
  const cache::KeyHash hash = cache::hash_key(disk_key);
  if (std::optional<std::string> cubin = disk.load(hash)) {
    try {
      return load_kernel(context, *cubin, entry);
    } catch (const DeviceError &) {
      // Rejected by the driver: recompile and overwrite it below.
    }
  }
  codegen::EntryRequest request;
  request.module = sig.module.get();
  request.base_name = sig.base_name;
  request.methods = {method};
  const std::string ptx = codegen::emit_ptx({request}, gpu);
  const std::string cubin = link_ptx(*context, ptx, entry + ".ptx");
  std::shared_ptr<CudaKernel> kernel = load_kernel(context, cubin, entry);
  disk.store(hash, entry + " " + disk_key.arch, cubin);
  return kernel;
}

void launch_method(const CudaKernel &kernel, int64_t grid, int64_t rows, int64_t len, int64_t chunks,
                   int64_t chunk_len, const void *in, void *out) {
  CUdeviceptr in_ptr = device_ptr(in);
  CUdeviceptr out_ptr = device_ptr(out);
  void *params[] = {&rows, &len, &chunks, &chunk_len, &in_ptr, &out_ptr};
  const auto blocks = static_cast<unsigned>(std::clamp<int64_t>(grid, 1, int64_t{1} << 30));
  UFJIT_CU_CHECK(kernel.context->drv(), cuLaunchKernel, kernel.function, blocks, 1, 1,
                 static_cast<unsigned>(codegen::kReduceBlock), 1, 1, 0, nullptr, params, nullptr);
}

}  // namespace

void run_cuda_method(const runtime::MethodLaunch &launch, const std::shared_ptr<const CudaContext> &context,
                     runtime::KernelCache &cache, cache::DiskCache &disk, const codegen::GpuOptions &gpu,
                     const std::string &target_key) {
  context->make_current();
  const runtime::CompiledSignature &sig = *launch.signature;
  runtime::KernelKey key;
  key.ir_hash = sig.ir_hash;
  key.signature = sig.signature + " " + codegen::method_entry_name(sig.base_name, launch.method);
  key.target_key = target_key;
  key.arch = gpu.arch;
  key.float_options = float_options(sig);
  auto kernel = std::static_pointer_cast<const CudaKernel>(cache.get_or_compile(
      key, [&]() -> std::shared_ptr<const runtime::CompiledKernel> { return build(sig, launch.method, context, disk, gpu); }));
  const int64_t rows = launch.rows;
  const int64_t len = launch.len;
  const int64_t resident = int64_t{context->properties().sm_count} * kBlocksPerSm;
  const int64_t max_grid = resident * 4;
  if (launch.method == codegen::MethodKernel::Accumulate) {
    const int64_t grid = std::min((rows + codegen::kReduceBlock - 1) / codegen::kReduceBlock, max_grid);
    launch_method(*kernel, grid, rows, len, 1, len, launch.in, launch.out);
  } else if (rows >= resident || len < 2 * kMinChunk) {
    // One block per row (grid-stride over rows): one launch.
    launch_method(*kernel, std::min(rows, max_grid), rows, len, 1, len, launch.in, launch.out);
  } else {
    // Few long rows: chunks of whole multiples of the block, enough of them
    // to fill the device, then one block per row over the chunks' results.
    const int64_t per_row =
        std::max<int64_t>(1, std::min((len + kMinChunk - 1) / kMinChunk, (2 * resident + rows - 1) / rows));
    int64_t chunk_len = (len + per_row - 1) / per_row;
    chunk_len = (chunk_len + codegen::kReduceBlock - 1) / codegen::kReduceBlock * codegen::kReduceBlock;
    const int64_t chunks = (len + chunk_len - 1) / chunk_len;
    Array partial = allocate_device_array(context, sig.ret, {rows * chunks}, false, nullptr);
    launch_method(*kernel, std::min(rows * chunks, max_grid), rows, len, chunks, chunk_len, launch.in,
                  partial.data());
    launch_method(*kernel, std::min(rows, max_grid), rows, chunks, 1, chunks, partial.data(), launch.out);
    UFJIT_CU_CHECK(context->drv(), cuStreamSynchronize, nullptr);  // before `partial` is freed
    return;
  }
  UFJIT_CU_CHECK(context->drv(), cuStreamSynchronize, nullptr);
}

}  // namespace ufjit::cuda
