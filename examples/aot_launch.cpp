// aot_launch: runs kernels that `ufjit compile` wrote ahead of time, with no
// ufjit at run time. It does not link libufjit, nor libcuda: the CUDA driver
// is opened with dlopen("libcuda.so.1"), so the program builds on machines
// without a GPU, as a C or CUDA program of yours could.
//
// Usage:
//   ufjit compile examples/gaussian_pdf.ufn -o gauss.ptx   # gauss.ptx + gauss.json
//   ufjit compile examples/add_ufunc.ufn -o add.ptx        # add.ptx + add.json
//   aot_launch gauss.ptx add.ptx
// Each MODULE is a .ptx or .cubin written by `ufjit compile -o MODULE`; its
// manifest is MODULE with the extension replaced by .json (where `ufjit
// compile` puts it). For every function whose host reference this file knows
// (gaussian_pdf float32, add_ufunc int64) it launches the contiguous entry
// over 2^20 elements with every input a full array, then the strided entry
// with inputs 1.. broadcast (byte stride 0), and compares the results with a
// C++ loop: float32 within 1e-5 relative error, int64 exactly.
//
// The calling convention, as the manifest lists it for each entry ("params",
// in order; "kind" says what to pass, cuLaunchKernel's kernelParams[k] points
// at parameter k):
//   count    int64, the number of elements n
//   ndim     int64, dimensions in use (strided entries; 1 here)
//   shape    int64[8], unused dimensions 1 (strided entries)
//   array    a device pointer to element 0 (inputs in order, then the output)
//   strides  int64[8] byte strides of the array before it, unused dimensions 0
// Launch with a 1-D grid of any size: the kernels loop (grid-stride) over n.
// *_i32 entries index with 32 bits: use them only while every byte offset
// fits in int32.
//
// Before touching the GPU it checks, for PTX modules, that each entry it will
// launch is a .entry of the PTX with the parameter sizes the manifest lists.
// Exit status: 0 all results match; 1 a mismatch or an error; 2 usage;
// 77 skipped (no CUDA driver, no device, or a device older than the module's
// --arch): CTest's SKIP_RETURN_CODE.
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

enum class ExitCode : int { Ok = 0, Failed = 1, Usage = 2, Skipped = 77 };

/// Shape and stride parameters are int64[kMaxDims] (codegen/kernel/KernelABI.h).
constexpr int kMaxDims = 8;
constexpr int64_t kElements = int64_t{1} << 20;
/// Grid cap, in full-occupancy waves; the grid-stride loop covers the rest.
constexpr int64_t kWaves = 2;
constexpr std::size_t kLogBytes = 16 * 1024;

/// The machine cannot run the example (no driver, no device, device too
/// old): reported as "skipped", not as a failure.
class Skipped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The driver entry points used here, looked up in libcuda.so.1 by the
/// versioned symbol names whose prototypes cuda.h declares.
struct Driver {
  void *library = nullptr;
  decltype(&::cuInit) cuInit = nullptr;
  decltype(&::cuGetErrorName) cuGetErrorName = nullptr;
  decltype(&::cuDeviceGetCount) cuDeviceGetCount = nullptr;
  decltype(&::cuDeviceGet) cuDeviceGet = nullptr;
  decltype(&::cuDeviceGetName) cuDeviceGetName = nullptr;
  decltype(&::cuDeviceGetAttribute) cuDeviceGetAttribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) cuDevicePrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease_v2) cuDevicePrimaryCtxRelease_v2 = nullptr;
  decltype(&::cuCtxSetCurrent) cuCtxSetCurrent = nullptr;
  decltype(&::cuCtxSynchronize) cuCtxSynchronize = nullptr;
  decltype(&::cuModuleLoadDataEx) cuModuleLoadDataEx = nullptr;
  decltype(&::cuModuleUnload) cuModuleUnload = nullptr;
  decltype(&::cuModuleGetFunction) cuModuleGetFunction = nullptr;
  decltype(&::cuOccupancyMaxPotentialBlockSize) cuOccupancyMaxPotentialBlockSize = nullptr;
  decltype(&::cuLaunchKernel) cuLaunchKernel = nullptr;
  decltype(&::cuMemAlloc_v2) cuMemAlloc_v2 = nullptr;
  decltype(&::cuMemFree_v2) cuMemFree_v2 = nullptr;
  decltype(&::cuMemcpyHtoD_v2) cuMemcpyHtoD_v2 = nullptr;
  decltype(&::cuMemcpyDtoH_v2) cuMemcpyDtoH_v2 = nullptr;

  Driver() = default;
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;
  ~Driver() {
    if (library != nullptr) {
      dlclose(library);
    }
  }

  /// Opens libcuda.so.1 and calls cuInit; throws Skipped when either fails.
  void open() {
    library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      throw Skipped(std::string("no CUDA driver (") + dlerror() + ")");
    }
    resolve("cuInit", cuInit);
    resolve("cuGetErrorName", cuGetErrorName);
    resolve("cuDeviceGetCount", cuDeviceGetCount);
    resolve("cuDeviceGet", cuDeviceGet);
    resolve("cuDeviceGetName", cuDeviceGetName);
    resolve("cuDeviceGetAttribute", cuDeviceGetAttribute);
    resolve("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain);
    resolve("cuDevicePrimaryCtxRelease_v2", cuDevicePrimaryCtxRelease_v2);
    resolve("cuCtxSetCurrent", cuCtxSetCurrent);
    resolve("cuCtxSynchronize", cuCtxSynchronize);
    resolve("cuModuleLoadDataEx", cuModuleLoadDataEx);
    resolve("cuModuleUnload", cuModuleUnload);
    resolve("cuModuleGetFunction", cuModuleGetFunction);
    resolve("cuOccupancyMaxPotentialBlockSize", cuOccupancyMaxPotentialBlockSize);
    resolve("cuLaunchKernel", cuLaunchKernel);
    resolve("cuMemAlloc_v2", cuMemAlloc_v2);
    resolve("cuMemFree_v2", cuMemFree_v2);
    resolve("cuMemcpyHtoD_v2", cuMemcpyHtoD_v2);
    resolve("cuMemcpyDtoH_v2", cuMemcpyDtoH_v2);
    const CUresult init = cuInit(0);
    if (init != CUDA_SUCCESS) {
      throw Skipped("cuInit failed: " + error_name(init));
    }
  }

  std::string error_name(CUresult result) const {
    const char *name = nullptr;
    if (cuGetErrorName == nullptr || cuGetErrorName(result, &name) != CUDA_SUCCESS || name == nullptr) {
      return "CUresult " + std::to_string(static_cast<int>(result));
    }
    return name;
  }

  /// Names the failing call and its error.
  void check(CUresult result, const char *call) const {
    if (result != CUDA_SUCCESS) {
      throw std::runtime_error(std::string("CUDA error in ") + call + ": " + error_name(result));
    }
  }

 private:
  template <typename Fn>
  void resolve(const char *symbol, Fn &fn) {
    fn = reinterpret_cast<Fn>(dlsym(library, symbol));
    if (fn == nullptr) {
      throw Skipped(std::string("libcuda.so.1 has no ") + symbol + " (driver too old)");
    }
  }
};

/// The device's primary context, current on this thread while alive.
class Context {
 public:
  Context(const Driver &drv, CUdevice device) : drv_(drv), device_(device) {
    CUcontext context = nullptr;
    drv_.check(drv_.cuDevicePrimaryCtxRetain(&context, device_), "cuDevicePrimaryCtxRetain");
    retained_ = true;
    drv_.check(drv_.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context() {
    if (retained_) {
      drv_.cuCtxSetCurrent(nullptr);
      drv_.cuDevicePrimaryCtxRelease_v2(device_);
    }
  }

 private:
  const Driver &drv_;
  CUdevice device_;
  bool retained_ = false;
};

/// A PTX or cubin image loaded into the current context, with the JIT's
/// error log attached to a failure.
class Module {
 public:
  Module(const Driver &drv, const std::string &image) : drv_(drv) {
    std::vector<char> error_log(kLogBytes, '\0');
    std::vector<char> info_log(kLogBytes, '\0');
    std::array<CUjit_option, 4> options = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                           CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    std::array<void *, 4> values = {error_log.data(), reinterpret_cast<void *>(static_cast<uintptr_t>(kLogBytes)),
                                    info_log.data(), reinterpret_cast<void *>(static_cast<uintptr_t>(kLogBytes))};
    // PTX must be NUL-terminated: std::string's data() is.
    const CUresult result = drv_.cuModuleLoadDataEx(&module_, image.data(), static_cast<unsigned>(options.size()),
                                                    options.data(), values.data());
    if (result != CUDA_SUCCESS) {
      module_ = nullptr;
      throw std::runtime_error("CUDA error in cuModuleLoadDataEx: " + drv_.error_name(result) + "\nJIT log:\n" +
                               std::string(error_log.data()) + std::string(info_log.data()));
    }
  }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  ~Module() {
    if (module_ != nullptr) {
      drv_.cuModuleUnload(module_);
    }
  }

  CUfunction function(const std::string &entry) const {
    CUfunction fn = nullptr;
    drv_.check(drv_.cuModuleGetFunction(&fn, module_, entry.c_str()), "cuModuleGetFunction");
    return fn;
  }

 private:
  const Driver &drv_;
  CUmodule module_ = nullptr;
};

/// Device memory, freed on every path.
class DeviceBuffer {
 public:
  DeviceBuffer(const Driver &drv, std::size_t bytes) : drv_(drv) {
    drv_.check(drv_.cuMemAlloc_v2(&ptr_, std::max<std::size_t>(bytes, 1)), "cuMemAlloc");
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (ptr_ != 0) {
      drv_.cuMemFree_v2(ptr_);
    }
  }
  CUdeviceptr get() const { return ptr_; }

 private:
  const Driver &drv_;
  CUdeviceptr ptr_ = 0;
};

std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path.string());
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

/// Where `ufjit compile -o MODULE` writes the manifest.
std::filesystem::path manifest_path(const std::filesystem::path &module) {
  std::filesystem::path manifest = module;
  manifest.replace_extension(".json");
  if (manifest == module) {
    manifest += ".json";
  }
  return manifest;
}

/// "sm_90" -> 90; 0 when the manifest names no number.
int arch_number(const std::string &arch) {
  static const std::regex kArch(R"(sm_(\d+)[a-z]?)");
  std::smatch m;
  return std::regex_match(arch, m, kArch) ? std::stoi(m[1].str()) : 0;
}

/// Parameter sizes in bytes of `.entry NAME(...)` in PTX text, in order;
/// nullopt when the module has no such entry.
std::optional<std::vector<int>> ptx_param_sizes(const std::string &ptx, const std::string &entry) {
  const std::string head = ".entry " + entry + "(";
  const std::size_t begin = ptx.find(head);
  if (begin == std::string::npos) {
    return std::nullopt;
  }
  const std::size_t end = ptx.find(')', begin);
  std::istringstream list(ptx.substr(begin + head.size(), end - begin - head.size()));
  static const std::regex kBytes(R"(\.param\s+(\.align\s+\d+\s+)?\.b8\s+\S+\[(\d+)\])");
  static const std::regex kScalar(R"(\.param\s+\.[a-z](\d+)\s)");
  std::vector<int> sizes;
  std::string line;
  while (std::getline(list, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kBytes)) {
      sizes.push_back(std::stoi(m[2].str()));
    } else if (std::regex_search(line, m, kScalar)) {
      sizes.push_back(std::stoi(m[1].str()) / 8);
    }
  }
  return sizes;
}

/// One operand of a launch: a device pointer to element 0 and its byte
/// stride along the one dimension used here (0 broadcasts one element).
struct Operand {
  CUdeviceptr data = 0;
  int64_t stride = 0;
};

/// Kernel parameters in the manifest's order. Each parameter gets its own
/// 8-aligned slot of 64 bytes (the largest kind, int64[8]); pointers[k]
/// points at slot k, as cuLaunchKernel's kernelParams wants.
struct KernelArgs {
  std::vector<std::array<int64_t, kMaxDims>> slots;
  std::vector<void *> pointers;
};

void expect_size(const json &param, int bytes) {
  if (param.at("size").get<int>() != bytes || param.at("align").get<int>() != 8) {
    throw std::runtime_error("parameter '" + param.at("name").get<std::string>() + "' of kind '" +
                             param.at("kind").get<std::string>() + "' has size " + param.at("size").dump() +
                             ", align " + param.at("align").dump() + "; expected size " + std::to_string(bytes) +
                             ", align 8");
  }
}

/// Packs n and `operands` (inputs in order, then the output) by the kinds
/// the manifest lists.
KernelArgs pack_params(const json &params, int64_t n, const std::vector<Operand> &operands) {
  KernelArgs args;
  args.slots.resize(params.size());
  std::size_t next = 0;
  for (std::size_t k = 0; k < params.size(); ++k) {
    const json &param = params[k];
    const std::string kind = param.at("kind").get<std::string>();
    std::array<int64_t, kMaxDims> &slot = args.slots[k];
    slot.fill(0);
    if (kind == "count") {
      expect_size(param, 8);
      slot[0] = n;
    } else if (kind == "ndim") {
      expect_size(param, 8);
      slot[0] = 1;
    } else if (kind == "shape") {
      expect_size(param, kMaxDims * 8);
      slot.fill(1);
      slot[0] = n;
    } else if (kind == "array") {
      expect_size(param, 8);
      if (next == operands.size()) {
        throw std::runtime_error("the entry takes more arrays than the signature has operands");
      }
      static_assert(sizeof(CUdeviceptr) == 8);
      std::memcpy(slot.data(), &operands[next].data, sizeof(CUdeviceptr));
      ++next;
    } else if (kind == "strides") {
      expect_size(param, kMaxDims * 8);
      if (next == 0) {
        throw std::runtime_error("a 'strides' parameter comes before any array");
      }
      slot[0] = operands[next - 1].stride;
    } else {
      throw std::runtime_error("parameter '" + param.at("name").get<std::string>() + "' has kind '" + kind +
                               "', which this example does not pass");
    }
    args.pointers.push_back(slot.data());
  }
  if (next != operands.size()) {
    throw std::runtime_error("the entry takes " + std::to_string(next) + " arrays; the signature has " +
                             std::to_string(operands.size()) + " operands");
  }
  return args;
}

/// A function this example can check: its signature, its inputs and a host
/// reference. Every operand has the element type T.
template <typename T>
struct Case {
  const char *function;
  const char *signature;
  int arity;
  /// Element i (of n) of input `arg`.
  T (*input)(int arg, int64_t i, int64_t n);
  T (*reference)(const T *args);
  /// Largest relative error allowed; integers compare exactly.
  double tolerance;
};

const Case<float> kGaussian = {
    "gaussian_pdf", "float32(float32, float32, float32)", 3,
    [](int arg, int64_t i, int64_t n) {
      if (arg == 0) {
        return -5.0f + 10.0f * static_cast<float>(i) / static_cast<float>(n);
      }
      if (arg == 1) {
        return 0.5f + 0.125f * static_cast<float>(i % 8);
      }
      return 0.75f + 0.25f * static_cast<float>(i % 5);
    },
    [](const float *a) {
      const float sqrt_2pi = static_cast<float>(std::sqrt(2 * std::numbers::pi));
      const float t = (a[0] - a[1]) / a[2];
      return std::exp(-0.5f * (t * t)) / (a[2] * sqrt_2pi);
    },
    1e-5};

const Case<int64_t> kAdd = {
    "add_ufunc", "int64(int64, int64)", 2,
    [](int arg, int64_t i, int64_t n) {
      // Past 32 bits, of both signs, so a 32-bit add would show.
      return arg == 0 ? i * 4294967311 - (int64_t{1} << 40) : 7 - 3 * i * n;
    },
    [](const int64_t *a) { return a[0] + a[1]; }, 0};

/// The entry of `function`/`signature` with this layout: the *_i32 one when
/// `allow32`, else the 64-bit one. Throws if the manifest has none.
const json &find_entry(const json &manifest, const std::string &function, const std::string &signature,
                       const std::string &layout, bool allow32) {
  const json *found = nullptr;
  for (const json &e : manifest.at("entries")) {
    if (e.at("function") != function || e.at("signature") != signature || e.at("variant").at("layout") != layout) {
      continue;
    }
    const bool index32 = e.at("variant").at("index32").get<bool>();
    if (index32 && !allow32) {
      continue;
    }
    if (found == nullptr || index32) {
      found = &e;
    }
  }
  if (found == nullptr) {
    throw std::runtime_error("the manifest has no " + layout + " entry for " + function + " " + signature);
  }
  return *found;
}

/// One launch to run: the entry and how its inputs are laid out.
struct Plan {
  json entry;
  bool broadcast;  // inputs 1.. are one element with byte stride 0
};

/// Finds the entries to launch for `c` and checks them against the PTX text
/// (when the module is PTX). Needs no GPU.
template <typename T>
std::vector<Plan> plan_case(const json &manifest, const std::string &ptx, const Case<T> &c) {
  const bool allow32 = kElements * static_cast<int64_t>(sizeof(T)) < std::numeric_limits<int32_t>::max();
  std::vector<Plan> plans = {{find_entry(manifest, c.function, c.signature, "contiguous", allow32), false},
                             {find_entry(manifest, c.function, c.signature, "strided", allow32), true}};
  for (const Plan &plan : plans) {
    const std::string name = plan.entry.at("entry").get<std::string>();
    const json &params = plan.entry.at("params");
    // Dummy operands: checks the kinds and sizes, and the array count.
    pack_params(params, kElements, std::vector<Operand>(static_cast<std::size_t>(c.arity) + 1));
    if (ptx.empty()) {
      continue;
    }
    std::optional<std::vector<int>> sizes = ptx_param_sizes(ptx, name);
    if (!sizes) {
      throw std::runtime_error("the PTX has no .entry " + name);
    }
    std::vector<int> listed;
    for (const json &p : params) {
      listed.push_back(p.at("size").get<int>());
    }
    if (*sizes != listed) {
      throw std::runtime_error("the parameter sizes of .entry " + name + " differ from the manifest's");
    }
  }
  return plans;
}

/// Launches one plan of `c` over kElements elements and compares with the
/// host reference. Returns whether the results match.
template <typename T>
bool run_plan(const Driver &drv, const Module &module, const Case<T> &c, const Plan &plan) {
  const int64_t n = kElements;
  const auto count = static_cast<std::size_t>(n);
  std::vector<std::vector<T>> inputs(static_cast<std::size_t>(c.arity));
  std::deque<DeviceBuffer> buffers;
  std::vector<Operand> operands;
  for (int arg = 0; arg < c.arity; ++arg) {
    const bool one = plan.broadcast && arg > 0;
    std::vector<T> &host = inputs[static_cast<std::size_t>(arg)];
    host.resize(one ? 1 : count);
    for (std::size_t i = 0; i < host.size(); ++i) {
      host[i] = c.input(arg, static_cast<int64_t>(i), n);
    }
    const DeviceBuffer &buffer = buffers.emplace_back(drv, host.size() * sizeof(T));
    drv.check(drv.cuMemcpyHtoD_v2(buffer.get(), host.data(), host.size() * sizeof(T)), "cuMemcpyHtoD");
    operands.push_back(Operand{buffer.get(), one ? 0 : static_cast<int64_t>(sizeof(T))});
  }
  const DeviceBuffer &out = buffers.emplace_back(drv, count * sizeof(T));
  operands.push_back(Operand{out.get(), static_cast<int64_t>(sizeof(T))});

  const std::string name = plan.entry.at("entry").get<std::string>();
  KernelArgs args = pack_params(plan.entry.at("params"), n, operands);
  CUfunction fn = module.function(name);
  int min_grid = 0;
  int block = 0;
  drv.check(drv.cuOccupancyMaxPotentialBlockSize(&min_grid, &block, fn, nullptr, 0, 0),
            "cuOccupancyMaxPotentialBlockSize");
  const int64_t blocks = (n + block - 1) / block;
  const auto grid = static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, std::max<int64_t>(min_grid * kWaves, 1)));
  drv.check(drv.cuLaunchKernel(fn, grid, 1, 1, static_cast<unsigned>(block), 1, 1, 0, nullptr, args.pointers.data(),
                               nullptr),
            "cuLaunchKernel");
  drv.check(drv.cuCtxSynchronize(), "cuCtxSynchronize");
  std::vector<T> result(count);
  drv.check(drv.cuMemcpyDtoH_v2(result.data(), out.get(), count * sizeof(T)), "cuMemcpyDtoH");

  double worst = 0;
  int64_t mismatches = 0;
  std::string first;
  for (std::size_t i = 0; i < count; ++i) {
    std::array<T, 4> a{};
    for (std::size_t arg = 0; arg < inputs.size(); ++arg) {
      a[arg] = inputs[arg].size() == 1 ? inputs[arg][0] : inputs[arg][i];
    }
    const T expected = c.reference(a.data());
    const T actual = result[i];
    double error = 0;
    if constexpr (std::is_floating_point_v<T>) {
      error = std::fabs(static_cast<double>(actual) - expected) / std::fabs(static_cast<double>(expected));
    } else {
      error = actual == expected ? 0.0 : 1.0;
    }
    worst = std::max(worst, error);
    if (error <= c.tolerance) {
      continue;
    }
    ++mismatches;
    if (first.empty()) {
      std::ostringstream s;
      s.precision(9);
      s << "first at [" << i << "]: inputs (";
      for (int arg = 0; arg < c.arity; ++arg) {
        s << (arg == 0 ? "" : ", ") << a[static_cast<std::size_t>(arg)];
      }
      s << "), actual " << actual << ", expected " << expected;
      first = s.str();
    }
  }
  std::printf("aot_launch: %s (%s inputs): %lld elements, grid %u x block %d, %s %.2e: %s\n", name.c_str(),
              plan.broadcast ? "broadcast" : "full", static_cast<long long>(n), grid, block,
              std::is_floating_point_v<T> ? "max relative error" : "mismatch fraction",
              std::is_floating_point_v<T> ? worst : static_cast<double>(mismatches) / static_cast<double>(n),
              mismatches == 0 ? "OK" : "MISMATCH");
  if (mismatches != 0) {
    std::printf("aot_launch:   %lld mismatches; %s\n", static_cast<long long>(mismatches), first.c_str());
  }
  return mismatches == 0;
}

/// One module, its manifest, and the plans of every function it can check.
struct Job {
  std::filesystem::path module;
  std::string image;
  int arch = 0;
  std::vector<Plan> gaussian;
  std::vector<Plan> add;
};

/// Reads a module and its manifest and plans its launches. Needs no GPU.
Job prepare(const std::filesystem::path &module) {
  Job job;
  job.module = module;
  job.image = read_file(module);
  const std::filesystem::path path = manifest_path(module);
  const json manifest = json::parse(read_file(path));
  if (manifest.value("target", "") != "cuda") {
    throw std::runtime_error(path.string() + " is not a CUDA module's manifest");
  }
  job.arch = arch_number(manifest.value("arch", ""));
  const bool is_ptx = job.image.rfind("\x7f" "ELF", 0) != 0;  // else a cubin
  const std::string ptx = is_ptx ? job.image : std::string();
  bool known = false;
  for (const json &e : manifest.at("entries")) {
    if (e.at("function") == kGaussian.function && job.gaussian.empty()) {
      job.gaussian = plan_case(manifest, ptx, kGaussian);
      known = true;
    } else if (e.at("function") == kAdd.function && job.add.empty()) {
      job.add = plan_case(manifest, ptx, kAdd);
      known = true;
    }
  }
  if (!known) {
    throw std::runtime_error(path.string() + " has no function this example has a host reference for");
  }
  return job;
}

ExitCode run(const std::vector<std::filesystem::path> &modules) {
  std::vector<Job> jobs;
  for (const std::filesystem::path &module : modules) {
    jobs.push_back(prepare(module));
  }
  Driver drv;
  drv.open();
  int devices = 0;
  drv.check(drv.cuDeviceGetCount(&devices), "cuDeviceGetCount");
  if (devices == 0) {
    throw Skipped("no CUDA device");
  }
  CUdevice device = 0;
  drv.check(drv.cuDeviceGet(&device, 0), "cuDeviceGet");
  int major = 0;
  int minor = 0;
  drv.check(drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
            "cuDeviceGetAttribute");
  drv.check(drv.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
            "cuDeviceGetAttribute");
  std::array<char, 256> device_name{};
  drv.check(drv.cuDeviceGetName(device_name.data(), static_cast<int>(device_name.size()), device), "cuDeviceGetName");
  std::printf("aot_launch: device 0: %s, sm_%d%d\n", device_name.data(), major, minor);
  for (const Job &job : jobs) {
    if (job.arch > major * 10 + minor) {
      throw Skipped(job.module.string() + " is for sm_" + std::to_string(job.arch) + ", the device is sm_" +
                    std::to_string(major * 10 + minor) + " (compile with --arch)");
    }
  }

  Context context(drv, device);
  bool ok = true;
  for (const Job &job : jobs) {
    Module module(drv, job.image);
    std::printf("aot_launch: loaded %s\n", job.module.string().c_str());
    for (const Plan &plan : job.gaussian) {
      ok = run_plan(drv, module, kGaussian, plan) && ok;
    }
    for (const Plan &plan : job.add) {
      ok = run_plan(drv, module, kAdd, plan) && ok;
    }
  }
  return ok ? ExitCode::Ok : ExitCode::Failed;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODULE.ptx|MODULE.cubin... (manifest beside each: MODULE.json)\n", argv[0]);
    return static_cast<int>(ExitCode::Usage);
  }
  std::vector<std::filesystem::path> modules(argv + 1, argv + argc);
  try {
    return static_cast<int>(run(modules));
  } catch (const Skipped &e) {
    std::printf("aot_launch: skipped: %s\n", e.what());
    return static_cast<int>(ExitCode::Skipped);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "aot_launch: %s\n", e.what());
    return static_cast<int>(ExitCode::Failed);
  }
}
