// A fake CUDA driver of several devices, for tests of device sets without a
// GPU (tests/fake_cuda/*_test.cpp): a shared library named libcuda.so.1,
// selected by LD_LIBRARY_PATH (ufjit opens the driver with dlopen).
//
// FAKE_CUDA_DEVICES=N (default 2) devices, each with its own primary
// context; FAKE_CUDA_PEER=0 makes cuDeviceCanAccessPeer answer no (default
// yes). "Device" memory is host memory, so copies are memcpy; kernels never
// run (outputs hold whatever was there): tests check routing, not results.
// It records which device every allocation, module, stream and launch
// belongs to, and refuses what the real driver refuses: a launch of a
// function of another context, or on a stream of another context
// (CUDA_ERROR_INVALID_HANDLE), and a launch whose kernel parameters hold a
// pointer to another device's memory without peer access from the
// launching device (CUDA_ERROR_ILLEGAL_ADDRESS, which the real device would
// raise on the access). Tests read the records through the fake_cuda_*
// functions at the end of this file (dlopen of libcuda.so.1 with
// RTLD_NOLOAD, then dlsym).
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kSmCount = 132;
constexpr int kBlock = 1024;
constexpr int kMaxDevices = 8;

struct Context {
  int device = 0;
};

struct Module {
  int device = 0;
  std::string image;
  std::vector<CUfunction> functions;
};

struct Function {
  int device = 0;
  std::vector<std::size_t> param_bytes;  // from the module's PTX; empty when unknown (a real cubin)
};

/// The byte size of each parameter of `.entry name(...)` in PTX `image`.
std::vector<std::size_t> entry_param_bytes(const std::string &image, const std::string &name) {
  std::vector<std::size_t> sizes;
  const std::size_t entry = image.find(".entry " + name + "(");
  if (entry == std::string::npos) {
    return sizes;
  }
  const std::size_t end = image.find(')', entry);
  std::size_t at = image.find(".param", entry);
  while (at != std::string::npos && at < end) {
    const std::size_t line_end = std::min(image.find_first_of(",)", at), end);
    const std::string decl = image.substr(at, line_end - at);  // ".param [.align N] .TYPE NAME[[COUNT]]"
    std::istringstream words(decl);
    std::string param;
    std::string type;
    words >> param >> type;
    if (type == ".align") {
      std::string alignment;
      words >> alignment >> type;
    }
    std::size_t bytes =
        static_cast<std::size_t>(std::strtoull(type.c_str() + 2, nullptr, 10)) / 8;  // ".u64": 8
    if (const std::size_t bracket = decl.find('['); bracket != std::string::npos) {
      bytes *= static_cast<std::size_t>(std::strtoull(decl.c_str() + bracket + 1, nullptr, 10));
    }
    sizes.push_back(bytes);
    at = image.find(".param", line_end);
  }
  return sizes;
}

struct Stream {
  int device = 0;
};

struct Allocation {
  int device = 0;
  std::size_t bytes = 0;
};

struct State {
  std::mutex mutex;
  int devices = 2;
  bool peer_hardware = true;
  Context contexts[kMaxDevices];
  bool peer_enabled[kMaxDevices][kMaxDevices] = {};
  int launches[kMaxDevices] = {};
  std::map<uintptr_t, Allocation> allocations;  // device memory by start address
};

State &state() {
  static State *s = [] {
    auto *made = new State;  // never destroyed: driver calls may come from exiting threads
    if (const char *n = std::getenv("FAKE_CUDA_DEVICES")) {
      made->devices = std::max(1, std::min(kMaxDevices, std::atoi(n)));
    }
    if (const char *p = std::getenv("FAKE_CUDA_PEER")) {
      made->peer_hardware = std::atoi(p) != 0;
    }
    for (int d = 0; d < kMaxDevices; ++d) {
      made->contexts[d].device = d;
    }
    return made;
  }();
  return *s;
}

thread_local CUcontext t_current = nullptr;

int current_device() {
  return t_current == nullptr ? 0 : reinterpret_cast<Context *>(t_current)->device;
}

int stream_device(CUstream stream) {
  return stream == nullptr ? current_device() : reinterpret_cast<Stream *>(stream)->device;
}

void *host_alloc(std::size_t bytes) {
  void *p = nullptr;
  if (posix_memalign(&p, 256, bytes == 0 ? 1 : bytes) != 0) {
    return nullptr;
  }
  return p;
}

CUdeviceptr as_dptr(void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}
void *as_ptr(CUdeviceptr p) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(p));
}

/// The device whose memory holds `address`, or -1.
int owner_of(uintptr_t address) {
  State &s = state();
  auto it = s.allocations.upper_bound(address);
  if (it == s.allocations.begin()) {
    return -1;
  }
  --it;
  return address < it->first + std::max<std::size_t>(it->second.bytes, 1) ? it->second.device : -1;
}

CUresult allocate(CUdeviceptr *ptr, std::size_t bytes, int device) {
  void *p = host_alloc(bytes);
  if (p == nullptr) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.allocations[reinterpret_cast<uintptr_t>(p)] = Allocation{device, bytes};
  *ptr = as_dptr(p);
  return CUDA_SUCCESS;
}

CUresult release(CUdeviceptr ptr) {
  State &s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.allocations.erase(static_cast<uintptr_t>(ptr));
  }
  std::free(as_ptr(ptr));
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

// ------------------------------------------------------------------ init
CUresult CUDAAPI cuInit(unsigned int) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDriverGetVersion(int *version) {
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= state().devices) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetCount(int *count) {
  *count = state().devices;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice device) {
  std::snprintf(name, static_cast<std::size_t>(len), "ufjit fake CUDA device %d (tests)", device);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice) {
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *value = 9;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *value = 0;
      break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = kSmCount;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = kBlock;
      break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
      *value = 32;
      break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
      *value = 0;
      break;  // no kernel would store a done flag
    default:
      *value = 1;
      break;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice) {
  *bytes = std::size_t{80} << 30;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
    case CUDA_SUCCESS:
      *name = "CUDA_SUCCESS";
      break;
    case CUDA_ERROR_INVALID_HANDLE:
      *name = "CUDA_ERROR_INVALID_HANDLE";
      break;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
      *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
      break;
    default:
      *name = "CUDA_ERROR_FAKE";
      break;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **text) {
  *text = error == CUDA_SUCCESS ? "no error" : "an error of the fake driver";
  return CUDA_SUCCESS;
}

// -------------------------------------------------------------- contexts
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  if (device < 0 || device >= state().devices) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  *context = reinterpret_cast<CUcontext>(&state().contexts[device]);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSetCurrent(CUcontext context) {
  t_current = context;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *context) {
  *context = t_current;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSynchronize() {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceCanAccessPeer(int *can, CUdevice device, CUdevice peer) {
  *can = state().peer_hardware && device != peer ? 1 : 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peer, unsigned int) {
  State &s = state();
  if (!s.peer_hardware) {
    return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
  }
  const int from = current_device();
  const int to = reinterpret_cast<Context *>(peer)->device;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.peer_enabled[from][to]) {
    return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  }
  s.peer_enabled[from][to] = true;
  return CUDA_SUCCESS;
}

// --------------------------------------------------------------- modules
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int, CUjit_option *,
                                    void **) {
  auto *m = new Module;
  m->device = current_device();
  m->image = static_cast<const char *>(image);
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  return cuModuleLoadDataEx(module, image, 0, nullptr, nullptr);
}
CUresult CUDAAPI cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  auto *m = reinterpret_cast<Module *>(module);
  m->functions.push_back(
      reinterpret_cast<CUfunction>(new Function{m->device, entry_param_bytes(m->image, name)}));
  *function = m->functions.back();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleUnload(CUmodule module) {
  auto *m = reinterpret_cast<Module *>(module);
  for (CUfunction f : m->functions) {
    delete reinterpret_cast<Function *>(f);
  }
  delete m;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *ptr, size_t *bytes, CUmodule module, const char *name) {
  // A `.global .b8 <name>[N]` declaration of the PTX: N bytes.
  const std::string &image = reinterpret_cast<Module *>(module)->image;
  const std::string needle = std::string(" ") + name + "[";
  const std::size_t at = image.find(needle);
  if (at == std::string::npos) {
    return CUDA_ERROR_NOT_FOUND;
  }
  *ptr = 0;
  *bytes = static_cast<std::size_t>(std::strtoull(image.c_str() + at + needle.size(), nullptr, 10));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLinkCreate_v2(unsigned int, CUjit_option *, void **, CUlinkState *link) {
  *link = reinterpret_cast<CUlinkState>(new std::string);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLinkAddData_v2(CUlinkState link, CUjitInputType, void *data, size_t size, const char *,
                                  unsigned int, CUjit_option *, void **) {
  const char *text = static_cast<const char *>(data);
  reinterpret_cast<std::string *>(link)->append(text, size > 0 && text[size - 1] == '\0' ? size - 1 : size);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLinkComplete(CUlinkState link, void **cubin, size_t *size) {
  auto *data = reinterpret_cast<std::string *>(link);
  *cubin = data->data();
  *size = data->size() + 1;  // the NUL, so that the "image" is a C string
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLinkDestroy(CUlinkState link) {
  delete reinterpret_cast<std::string *>(link);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetAttribute(int *value, CUfunction_attribute attribute, CUfunction) {
  *value = attribute == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? kBlock : 16;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block, CUfunction, CUoccupancyB2DSize,
                                                  size_t, int) {
  *min_grid = 2 * kSmCount;
  *block = kBlock;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int, unsigned int, unsigned int, unsigned int,
                                unsigned int, unsigned int, unsigned int, CUstream stream, void **params,
                                void **) {
  State &s = state();
  const int device = current_device();
  const auto *function = reinterpret_cast<Function *>(f);
  if (function->device != device || stream_device(stream) != device) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  // Every 8-byte word of the parameters (the entry's, from its PTX) that
  // points into device memory must be memory this device may use.
  for (std::size_t k = 0; params != nullptr && k < function->param_bytes.size(); ++k) {
    for (std::size_t at = 0; at + 8 <= function->param_bytes[k]; at += 8) {
      uintptr_t value = 0;
      std::memcpy(&value, static_cast<const char *>(params[k]) + at, sizeof(value));
      const int owner = owner_of(value);
      if (owner >= 0 && owner != device && !s.peer_enabled[device][owner]) {
        return CUDA_ERROR_ILLEGAL_ADDRESS;
      }
    }
  }
  ++s.launches[device];
  return CUDA_SUCCESS;
}

// ------------------------------------------------------- streams, events
CUresult CUDAAPI cuStreamCreate(CUstream *stream, unsigned int) {
  *stream = reinterpret_cast<CUstream>(new Stream{current_device()});
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamDestroy_v2(CUstream stream) {
  delete reinterpret_cast<Stream *>(stream);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamGetCtx(CUstream stream, CUcontext *context) {
  *context = reinterpret_cast<CUcontext>(&state().contexts[stream_device(stream)]);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamSynchronize(CUstream) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamQuery(CUstream) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new int(0));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventRecord(CUevent, CUstream) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventSynchronize(CUevent) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventElapsedTime_v2(float *ms, CUevent, CUevent) {
  *ms = 0.0f;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventDestroy_v2(CUevent event) {
  delete reinterpret_cast<int *>(event);
  return CUDA_SUCCESS;
}

// ---------------------------------------------------------------- memory
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *ptr, size_t bytes, CUstream stream) {
  return allocate(ptr, bytes, stream_device(stream));
}
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr ptr, CUstream) {
  return release(ptr);
}
CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  return allocate(ptr, bytes, current_device());
}
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr ptr) {
  return release(ptr);
}
CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
  *free_bytes = std::size_t{80} << 30;
  *total = std::size_t{80} << 30;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice device) {
  *pool = reinterpret_cast<CUmemoryPool>(&state().contexts[device]);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool, const CUmemAccessDesc *, size_t) { return CUDA_SUCCESS; }

CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute, void *) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool, size_t) {
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostAlloc(void **ptr, size_t bytes, unsigned int) {
  *ptr = host_alloc(bytes);
  return *ptr == nullptr ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *device, void *host, unsigned int) {
  *device = reinterpret_cast<CUdeviceptr>(host);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemFreeHost(void *ptr) {
  std::free(ptr);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream) {
  std::memcpy(as_ptr(dst), src, bytes);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream) {
  std::memcpy(dst, as_ptr(src), bytes);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream) {
  std::memmove(as_ptr(dst), as_ptr(src), bytes);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return cuMemcpyDtoDAsync_v2(dst, src, bytes, nullptr);
}
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream) {
  std::memset(as_ptr(dst), value, count);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  if (attribute == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) {
    std::lock_guard<std::mutex> lock(state().mutex);
    const int owner = owner_of(static_cast<uintptr_t>(ptr));
    if (owner < 0) {
      return CUDA_ERROR_INVALID_VALUE;  // as for host memory
    }
    *static_cast<int *>(data) = owner;
    return CUDA_SUCCESS;
  }
  *static_cast<unsigned int *>(data) = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuPointerGetAttributes(unsigned int count, CUpointer_attribute *, void **data, CUdeviceptr) {
  for (unsigned int i = 0; i < count; ++i) {
    *static_cast<unsigned int *>(data[i]) = 0;  // pageable host memory: staged copies
  }
  return CUDA_SUCCESS;
}

// ------------------------------------------------- what tests read back
/// Launches on `device` since the last reset.
int fake_cuda_launches(int device) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().launches[device];
}
/// The device whose memory holds `ptr`, or -1 (host memory, or freed).
int fake_cuda_device_of(const void *ptr) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return owner_of(reinterpret_cast<uintptr_t>(ptr));
}
/// Whether `from`'s context has peer access to `to`'s memory.
int fake_cuda_peer_enabled(int from, int to) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().peer_enabled[from][to] ? 1 : 0;
}
void fake_cuda_reset_launches() {
  std::lock_guard<std::mutex> lock(state().mutex);
  for (int &n : state().launches) n = 0;
}

}  // extern "C"
