// PTX linking, module loading with JIT logs, and launches.
#include "runtime/cuda/CudaModule.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include "codegen/LaunchHint.h"
#include "ufjit/errors.h"

namespace ufjit::cuda {
namespace {

constexpr std::size_t kLogBytes = 16 * 1024;

/// Log buffers and the option arrays that point at them, for one JIT call.
/// Only the first byte of each buffer is cleared: the driver writes a
/// NUL-terminated log within the size it is given, and zeroing 32 KiB was a
/// quarter of the host instructions of a disk-warm first call.
struct JitLogs {
  std::unique_ptr<char[]> error{new char[kLogBytes]};
  std::unique_ptr<char[]> info{new char[kLogBytes]};
  std::array<CUjit_option, 4> options{CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  std::array<void *, 4> values{};

  JitLogs() {
    error[0] = '\0';
    info[0] = '\0';
    values = {error.get(), reinterpret_cast<void *>(kLogBytes), info.get(), reinterpret_cast<void *>(kLogBytes)};
  }
  unsigned count() const { return static_cast<unsigned>(options.size()); }
  /// The error log, else the info log, trimmed.
  std::string text() const {
    std::string log(error.get(), strnlen(error.get(), kLogBytes));
    std::string more(info.get(), strnlen(info.get(), kLogBytes));
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
                                        const std::string &image, const std::string &entry, HintSource hints) {
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
  kernel->geometry.block = std::max(block, 32);
  kernel->geometry.max_grid = capped_grid(min_grid, context->properties().sm_count);
  // The launch hint's size states it. Only entries ufjit built carry one:
  // asking a CUDA C++ module would fail the lookup, which compute-sanitizer
  // reports as an API error.
  if (hints == HintSource::None) {
    return kernel;
  }
  CUdeviceptr hint = 0;
  std::size_t hint_bytes = 0;
  const std::string symbol = codegen::launch_hint_symbol(entry);
  CUresult found = drv.cuModuleGetGlobal_v2(&hint, &hint_bytes, kernel->module, symbol.c_str());
  if (found == CUDA_SUCCESS) {
    kernel->geometry.elements_per_thread = codegen::launch_hint_of_bytes(hint_bytes).elements_per_thread;
  } else if (found != CUDA_ERROR_NOT_FOUND) {  // not found: the capped grid
    throw_cuda_error("cuModuleGetGlobal", found, symbol);
  }
  return kernel;
}

void launch(const CudaKernel &kernel, const LaunchConfig &config, void *const *params) {
  UFJIT_CU_CHECK(kernel.context->drv(), cuLaunchKernel, kernel.function, config.grid.x, config.grid.y,
                 config.grid.z, config.block.x, config.block.y, config.block.z, config.shared_bytes, config.stream,
                 const_cast<void **>(params), nullptr);
}

}  // namespace ufjit::cuda
