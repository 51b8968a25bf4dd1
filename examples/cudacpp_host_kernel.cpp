// cudacpp_host_kernel: a ufunc's scalar function called from your own CUDA
// C++ kernel (CUDA C++ interop, direction "ufjit -> CUDA C++").
//
//   1. ufjit compiles gaussian_pdf.ufn's scalar function as
//      `extern "C" __device__ float gaussian_pdf(float, float, float)` (PTX)
//      and writes the C header that declares it (as
//      `ufjit compile gaussian_pdf.ufn --emit device-ptx --func gaussian_pdf -o g.ptx` does);
//   2. NVRTC compiles a kernel of ours that includes the header and calls the
//      function, to LTO-IR (ufjit::cudacpp::compile_cuda);
//   3. nvJitLink links both into a cubin (ufjit::cudacpp::link);
//   4. the CUDA driver (opened with dlopen, as a program without a link-time
//      dependency on libcuda would) loads and launches it; the result is
//      checked against a C++ loop.
// Exit status: 0 the results match; 1 a mismatch or error; 77 skipped (no
// CUDA driver or device, or no NVRTC): CTest's SKIP_RETURN_CODE.
#include <cuda.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "example_util.h"
#include "ufjit/compiler.h"
#include "ufjit/cudacpp.h"

namespace {

const char *kKernel = R"(
// Our kernel: a grid-stride loop that calls ufjit's function and scales it.
extern "C" __global__ void scaled_pdf(const float *x, float *out, long long n, float scale) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    out[i] = scale * gaussian_pdf(x[i], 0.0f, 1.0f);
  }
}
)";

struct Skipped {
  std::string why;
};

/// The few driver entry points this program uses, from libcuda.so.1.
struct Driver {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  template <typename F>
  F get(const char *name) {
    void *f = lib == nullptr ? nullptr : dlsym(lib, name);
    if (f == nullptr) {
      throw Skipped{std::string("no CUDA driver (") + name + ")"};
    }
    return reinterpret_cast<F>(f);
  }
};

void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    throw std::runtime_error(std::string(what) + " failed with CUresult " + std::to_string(r));
  }
}

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Initialises the driver and picks device 0; returns its architecture
/// ("sm_90"). No driver or device: Skipped.
std::string open_device(Driver &cu, CUdevice &device) {
  auto cuInit = cu.get<decltype(&::cuInit)>("cuInit");
  auto cuDeviceGet = cu.get<decltype(&::cuDeviceGet)>("cuDeviceGet");
  auto cuDeviceGetAttribute = cu.get<decltype(&::cuDeviceGetAttribute)>("cuDeviceGetAttribute");
  if (cuInit(0) != CUDA_SUCCESS) {
    throw Skipped{"cuInit failed: no usable CUDA device"};
  }
  if (cuDeviceGet(&device, 0) != CUDA_SUCCESS) {
    throw Skipped{"no CUDA device"};
  }
  int major = 0;
  int minor = 0;
  check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "cuDeviceGetAttribute");
  check(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "cuDeviceGetAttribute");
  return "sm_" + std::to_string(major * 10 + minor);
}

/// Steps 1 to 3: the cubin of our kernel linked with ufjit's function, or
/// false after printing ufjit's diagnostics. No NVRTC or nvJitLink: Skipped.
bool build_cubin(const std::string &arch, std::string &cubin) {
  // 1. ufjit: the scalar function as a device function, and its header.
  ufjit::CompileRequest request;
  request.source = read_file(example::ufn_path("gaussian_pdf.ufn"));
  request.source_name = "gaussian_pdf.ufn";
  request.emit = ufjit::EmitKind::DevicePtx;
  request.function = "gaussian_pdf";
  request.abi = "c";
  request.arch = arch;
  ufjit::CompileResult fn = ufjit::compile(request);
  if (!fn.ok) {
    std::fprintf(stderr, "%s", fn.rendered_diagnostics.c_str());
    return false;
  }
  // 2. NVRTC: our kernel, the header first. 3. nvJitLink: one cubin.
  try {
    std::string kernel = ufjit::cudacpp::compile_cuda({"scaled_pdf.cu", fn.header + kKernel, {}, {}}, arch,
                                                      ufjit::cudacpp::CodeFormat::LtoIr);
    cubin = ufjit::cudacpp::link(arch, {{ufjit::cudacpp::CodeFormat::Ptx, "gaussian_pdf.ptx", fn.output},
                                        {ufjit::cudacpp::CodeFormat::LtoIr, "scaled_pdf.cu", kernel}});
  } catch (const ufjit::CompileError &) {
    throw;
  } catch (const ufjit::Error &e) {
    if (std::string(e.what()).find("is not available") != std::string::npos) {
      throw Skipped{e.what()};
    }
    throw;
  }
  return true;
}

/// The elements of `out` that differ from 2 * the standard normal pdf of
/// `x`; the first five are printed.
int count_mismatches(const std::vector<float> &x, const std::vector<float> &out) {
  int bad = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double expected = 2.0 * std::exp(-0.5 * double(x[i]) * x[i]) / 2.5066282746310002;
    if (std::abs(out[i] - expected) > 1e-5 * std::abs(expected) + 1e-30) {
      if (++bad <= 5) {
        std::fprintf(stderr, "mismatch at %zu: x=%g got %.9g expected %.9g\n", i, x[i], out[i], expected);
      }
    }
  }
  return bad;
}

/// Step 4: loads the cubin, runs scaled_pdf on `x` with scale 2 and returns
/// its output.
std::vector<float> launch(Driver &cu, CUdevice device, const std::string &cubin,
                          const std::vector<float> &x) {
  auto cuDevicePrimaryCtxRetain = cu.get<decltype(&::cuDevicePrimaryCtxRetain)>("cuDevicePrimaryCtxRetain");
  auto cuCtxSetCurrent = cu.get<decltype(&::cuCtxSetCurrent)>("cuCtxSetCurrent");
  auto cuModuleLoadData = cu.get<decltype(&::cuModuleLoadData)>("cuModuleLoadData");
  auto cuModuleGetFunction = cu.get<decltype(&::cuModuleGetFunction)>("cuModuleGetFunction");
  auto cuMemAlloc = cu.get<decltype(&::cuMemAlloc_v2)>("cuMemAlloc_v2");
  auto cuMemFree = cu.get<decltype(&::cuMemFree_v2)>("cuMemFree_v2");
  auto cuMemcpyHtoD = cu.get<decltype(&::cuMemcpyHtoD_v2)>("cuMemcpyHtoD_v2");
  auto cuMemcpyDtoH = cu.get<decltype(&::cuMemcpyDtoH_v2)>("cuMemcpyDtoH_v2");
  auto cuLaunchKernel = cu.get<decltype(&::cuLaunchKernel)>("cuLaunchKernel");
  CUcontext context = nullptr;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, cubin.data()), "cuModuleLoadData");
  CUfunction function = nullptr;
  check(cuModuleGetFunction(&function, module, "scaled_pdf"), "cuModuleGetFunction");
  long long n = static_cast<long long>(x.size());
  float scale = 2.0f;
  std::vector<float> out(x.size());
  CUdeviceptr dx = 0;
  CUdeviceptr dout = 0;
  check(cuMemAlloc(&dx, n * sizeof(float)), "cuMemAlloc");
  check(cuMemAlloc(&dout, n * sizeof(float)), "cuMemAlloc");
  check(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)), "cuMemcpyHtoD");
  void *params[] = {&dx, &dout, &n, &scale};
  check(cuLaunchKernel(function, 1024, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr), "cuLaunchKernel");
  check(cuMemcpyDtoH(out.data(), dout, n * sizeof(float)), "cuMemcpyDtoH");
  cuMemFree(dx);
  cuMemFree(dout);
  return out;
}

int run() {
  Driver cu;
  CUdevice device = 0;
  const std::string arch = open_device(cu, device);
  std::string cubin;
  if (!build_cubin(arch, cubin)) {
    return 1;
  }
  const long long n = 1 << 20;
  std::vector<float> x(n);
  for (long long i = 0; i < n; ++i) {
    x[i] = -4.0f + 8.0f * static_cast<float>(i) / static_cast<float>(n);
  }
  const int bad = count_mismatches(x, launch(cu, device, cubin, x));
  std::printf("cudacpp_host_kernel: %lld elements on %s, a CUDA C++ kernel calling ufjit's gaussian_pdf: %s\n", n,
              arch.c_str(), bad == 0 ? "all match" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const Skipped &s) {
    std::printf("cudacpp_host_kernel: skipped: %s\n", s.why.c_str());
    return 77;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "cudacpp_host_kernel: %s\n", e.what());
    return 1;
  }
}
