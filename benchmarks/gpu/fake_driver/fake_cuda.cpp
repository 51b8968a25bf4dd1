// A fake CUDA driver for host-side measurements only (never for tests of
// results): a shared library named libcuda.so.1 whose entry points return
// at once, so that callgrind counts ufjit's own instructions per call on a
// machine without a GPU (docs/PERFORMANCE.md "Per-call floor").
//
// ufjit opens the driver with dlopen("libcuda.so.1") (runtime/cuda/
// CudaDriver.cpp), so LD_LIBRARY_PATH=<dir of this library> selects it; no
// ufjit code knows about it. tools/callgrind_call_path.sh runs bench_gpu's
// --per-call mode under callgrind with it.
//
// What it does, so that a whole call runs through: one device (an H100's
// numbers: sm_90, 132 multiprocessors); "device" memory is host memory
// (malloc), so copies are memcpy and memsets are memset; the linker returns
// the PTX it was given as the "cubin", and module loading keeps that text so
// that cuModuleGetGlobal can answer for the launch hint (<entry>__launch[e]
// reports e bytes, as the real driver does). Kernels never run: outputs
// hold whatever was there. Global state is fine here: this is a test double
// of a process-wide driver, not part of ufjit.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kSmCount = 132;
constexpr int kBlock = 1024;
int g_context_tag = 0;  // the address is the one primary context
thread_local CUcontext t_current = nullptr;

struct FakeModule {
  std::string image;
  std::vector<CUfunction> functions;
};

struct FakeLink {
  std::string data;
};

void *fake_alloc(std::size_t bytes) {
  void *p = nullptr;
  if (posix_memalign(&p, 256, bytes == 0 ? 1 : bytes) != 0) {
    return nullptr;
  }
  return p;
}

CUdeviceptr as_dptr(void *p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }
void *as_ptr(CUdeviceptr p) { return reinterpret_cast<void *>(static_cast<uintptr_t>(p)); }

}  // namespace

extern "C" {

// ------------------------------------------------------------------ init
CUresult CUDAAPI cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuDriverGetVersion(int *version) {
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal != 0) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice) {
  std::snprintf(name, static_cast<std::size_t>(len), "%s", "ufjit fake CUDA driver (host-side measurements)");
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice) {
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = kSmCount; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = kBlock; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    // Its kernels never run, so none would store a done flag
    // (runtime/cuda/DoneFlags.h): calls synchronise the stream instead.
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
      *value = 0;
      break;
    default: *value = 1; break;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice) {
  *bytes = std::size_t{80} << 30;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **text) {
  *text = error == CUDA_SUCCESS ? "no error" : "an error of the fake driver";
  return CUDA_SUCCESS;
}

// -------------------------------------------------------------- contexts
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&g_context_tag);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxSetCurrent(CUcontext context) {
  t_current = context;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *context) {
  *context = t_current;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSynchronize() { return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceCanAccessPeer(int *can, CUdevice, CUdevice) {
  *can = 0;  // one device
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext, unsigned int) { return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED; }

// --------------------------------------------------------------- modules
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int, CUjit_option *, void **) {
  auto *m = new FakeModule;
  m->image = static_cast<const char *>(image);
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  return cuModuleLoadDataEx(module, image, 0, nullptr, nullptr);
}
CUresult CUDAAPI cuModuleGetFunction(CUfunction *function, CUmodule module, const char *) {
  auto *m = reinterpret_cast<FakeModule *>(module);
  m->functions.push_back(reinterpret_cast<CUfunction>(new int(0)));
  *function = m->functions.back();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleUnload(CUmodule module) {
  auto *m = reinterpret_cast<FakeModule *>(module);
  for (CUfunction f : m->functions) {
    delete reinterpret_cast<int *>(f);
  }
  delete m;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *ptr, size_t *bytes, CUmodule module, const char *name) {
  // A `.global .b8 <name>[N]` declaration of the PTX: N bytes.
  const std::string &image = reinterpret_cast<FakeModule *>(module)->image;
  const std::string needle = std::string(" ") + name + "[";
  const std::size_t at = image.find(needle);
  if (at == std::string::npos) {
    return CUDA_ERROR_NOT_FOUND;
  }
  *ptr = 0;
  *bytes = static_cast<std::size_t>(std::strtoull(image.c_str() + at + needle.size(), nullptr, 10));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLinkCreate_v2(unsigned int, CUjit_option *, void **, CUlinkState *state) {
  *state = reinterpret_cast<CUlinkState>(new FakeLink);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType, void *data, size_t size, const char *,
                                  unsigned int, CUjit_option *, void **) {
  const char *text = static_cast<const char *>(data);
  reinterpret_cast<FakeLink *>(state)->data.append(text, size > 0 && text[size - 1] == '\0' ? size - 1 : size);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLinkComplete(CUlinkState state, void **cubin, size_t *size) {
  FakeLink *link = reinterpret_cast<FakeLink *>(state);
  *cubin = link->data.data();
  *size = link->data.size() + 1;  // the NUL, so that the "image" is a C string
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLinkDestroy(CUlinkState state) {
  delete reinterpret_cast<FakeLink *>(state);
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
CUresult CUDAAPI cuLaunchKernel(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                                unsigned int, unsigned int, CUstream, void **, void **) {
  return CUDA_SUCCESS;
}

// ------------------------------------------------------- streams, events
CUresult CUDAAPI cuStreamCreate(CUstream *stream, unsigned int) {
  *stream = reinterpret_cast<CUstream>(new int(0));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamDestroy_v2(CUstream stream) {
  delete reinterpret_cast<int *>(stream);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuStreamGetCtx(CUstream, CUcontext *context) {
  *context = reinterpret_cast<CUcontext>(&g_context_tag);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamQuery(CUstream) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuStreamWaitEvent(CUstream, CUevent, unsigned int) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new int(0));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventElapsedTime_v2(float *ms, CUevent, CUevent) {
  *ms = 0.0f;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventDestroy_v2(CUevent event) {
  delete reinterpret_cast<int *>(event);
  return CUDA_SUCCESS;
}

// ---------------------------------------------------------------- memory
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *ptr, size_t bytes, CUstream) {
  void *p = fake_alloc(bytes);
  if (p == nullptr) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *ptr = as_dptr(p);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr ptr, CUstream) {
  std::free(as_ptr(ptr));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) { return cuMemAllocAsync(ptr, bytes, nullptr); }
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr ptr) { return cuMemFreeAsync(ptr, nullptr); }
CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
  *free_bytes = std::size_t{80} << 30;
  *total = std::size_t{80} << 30;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice) {
  *pool = reinterpret_cast<CUmemoryPool>(&g_context_tag);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute, void *) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool, const CUmemAccessDesc *, size_t) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool, size_t) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemHostAlloc(void **ptr, size_t bytes, unsigned int) {
  *ptr = fake_alloc(bytes);
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
CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute, CUdeviceptr) {
  *static_cast<unsigned int *>(data) = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuPointerGetAttributes(unsigned int count, CUpointer_attribute *, void **data, CUdeviceptr) {
  for (unsigned int i = 0; i < count; ++i) {
    *static_cast<unsigned int *>(data[i]) = 0;  // pageable host memory: staged copies
  }
  return CUDA_SUCCESS;
}

}  // extern "C"
