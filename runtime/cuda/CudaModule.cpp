// PTX linking, module loading with JIT logs, and launches.
#include "runtime/cuda/CudaModule.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ufjit/errors.h"

namespace ufjit::cuda {
namespace {

constexpr std::size_t kLogBytes = 16 * 1024;
/// SM-filling waves of blocks we allow before the grid-stride loop takes over:
/// 16 rather than 2 gained every seed kernel 1-6% of the copy bandwidth on the
/// H100 (bench_ptx_lab, docs/PERFORMANCE.md, 2026-11-23): the last wave is short.
constexpr int64_t kWaves = 16;

/// Log buffers and the option arrays that point at them, for one JIT call.
struct JitLogs {
  std::vector<char> error = std::vector<char>(kLogBytes, '\0');
  std::vector<char> info = std::vector<char>(kLogBytes, '\0');
  std::vector<CUjit_option> options;
  std::vector<void *> values;

  JitLogs() {
    options = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
               CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    values = {error.data(), reinterpret_cast<void *>(kLogBytes), info.data(), reinterpret_cast<void *>(kLogBytes)};
  }
  unsigned count() const { return static_cast<unsigned>(options.size()); }
  /// The error log, else the info log, trimmed.
  std::string text() const {
    std::string log = error.data();
    std::string more = info.data();
    if (!more.empty()) {
      log += log.empty() ? "" : "\n";
      log += more;
    }
    while (!log.empty() && (log.back() == '\n' || log.back() == '\0')) {
      log.pop_back();
    }
    return log.empty() ? std::string() : "JIT log:\n" + log;
  }
};

/// Destroys a link state on every path.
struct LinkGuard {
  const CudaDriver &drv;
  CUlinkState state = nullptr;
  ~LinkGuard() {
    if (state != nullptr) {
      drv.cuLinkDestroy(state);
    }
  }
};

}  // namespace

CudaKernel::~CudaKernel() {
  if (module != nullptr && context != nullptr) {
    context->make_current_noexcept();
    context->drv().cuModuleUnload(module);
  }
}

std::string link_ptx(const CudaContext &context, const std::string &ptx, const std::string &name) {
  const CudaDriver &drv = context.drv();
  context.make_current();
  JitLogs logs;
  LinkGuard link{drv};
  CUresult r = drv.cuLinkCreate_v2(logs.count(), logs.options.data(), logs.values.data(), &link.state);
  if (r != CUDA_SUCCESS) {
    throw_cuda_error("cuLinkCreate", r, logs.text());
  }
  // PTX must be NUL-terminated; std::string's data() is, and size + 1 covers it.
  r = drv.cuLinkAddData_v2(link.state, CU_JIT_INPUT_PTX, const_cast<char *>(ptx.c_str()), ptx.size() + 1,
                           name.c_str(), 0, nullptr, nullptr);
  if (r != CUDA_SUCCESS) {
    throw_cuda_error("cuLinkAddData", r, logs.text());
  }
  void *cubin = nullptr;
  std::size_t size = 0;
  r = drv.cuLinkComplete(link.state, &cubin, &size);
  if (r != CUDA_SUCCESS) {
    throw_cuda_error("cuLinkComplete", r, logs.text());
  }
  return std::string(static_cast<const char *>(cubin), size);
}

std::shared_ptr<CudaKernel> load_kernel(const std::shared_ptr<const CudaContext> &context,
                                        const std::string &image, const std::string &entry) {
  const CudaDriver &drv = context->drv();
  context->make_current();
  auto kernel = std::make_shared<CudaKernel>();
  JitLogs logs;
  CUresult r = drv.cuModuleLoadDataEx(&kernel->module, image.data(), logs.count(), logs.options.data(),
                                      logs.values.data());
  if (r != CUDA_SUCCESS) {
    kernel->module = nullptr;
    throw_cuda_error("cuModuleLoadDataEx", r, logs.text());
  }
  kernel->context = context;  // from here the destructor unloads the module
  UFJIT_CU_CHECK(drv, cuModuleGetFunction, &kernel->function, kernel->module, entry.c_str());
  int min_grid = 0;
  int block = 0;
  UFJIT_CU_CHECK(drv, cuOccupancyMaxPotentialBlockSize, &min_grid, &block, kernel->function, nullptr, 0, 0);
  kernel->block = std::max(block, 32);
  kernel->max_grid = std::max<int64_t>(int64_t{min_grid} * kWaves, context->properties().sm_count);
  return kernel;
}

void launch(const CudaKernel &kernel, int64_t n, void *const *params, CUstream stream) {
  const int64_t blocks = (n + kernel.block - 1) / kernel.block;
  const auto grid = static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, kernel.max_grid));
  UFJIT_CU_CHECK(kernel.context->drv(), cuLaunchKernel, kernel.function, grid, 1, 1,
                 static_cast<unsigned>(kernel.block), 1, 1, 0, stream, const_cast<void **>(params), nullptr);
}

}  // namespace ufjit::cuda
