// GPU benchmarks of ufjit on the seed kernels, measured as the anchors were
// (shared/anchors/bench_anchors.py), so that benchmarks/compare/compare.py
// can put them beside Numba and CuPy:
//   cold        first call in a fresh process with an empty disk cache
//   disk-warm   first call in a fresh process with the disk cache filled
//   tiny        per-call time on 1-element device arrays (median of many)
//   throughput  2^26-element device arrays, GB/s counting bytes read+written,
//               beside the device copy bandwidth (cuMemcpyDtoD, read+write)
//   host        host arrays of 2^24 elements end to end
//   per_call    issue 13 item 1 (bench_per_call.h): the driver's floors (empty
//               launch + sync, a bare cuLaunchKernel's host cost) and, on
//               1-element device arrays, f(a, b), f(a, b, out(o)) and the host
//               cost of f.async(stream, a, b, out(o)), all in this process
// Usage: bench_gpu [--json OUT] [--quick] [--fastmath] [--skip-cold]
//        bench_gpu --per-call [--json OUT] [--reps N] [--kernel NAME]
//        bench_gpu --count-calls MODE KERNEL N   (for callgrind; bench_per_call.h's modes)
//        bench_gpu --cold KERNEL                                     (a cold child)
// (--fastmath: the seed kernels with fastmath=True, named "<kernel>_fast";
// --skip-cold: no fresh-process first calls, bench_first_call measures them.)
#include <cuda.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "benchmarks/gpu/bench_kernels.h"
#include "benchmarks/gpu/bench_per_call.h"
#include "ufjit/cache.h"
#include "ufjit/ufjit.h"

namespace ufjit::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Median wall time in ms of `fn` (which must synchronise) over `reps`.
double timed_ms(const std::function<void()> &fn, int reps) {
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    fn();
    times.push_back(ms_since(t0));
  }
  return median(times);
}

std::vector<Operand> operands_of(const std::vector<Array> &arrays) {
  std::vector<Operand> ops;
  for (const Array &a : arrays) {
    ops.emplace_back(a.view());
  }
  return ops;
}

/// The child of a cold measurement: Runtime + context, then compile, call
/// on 1024-element host arrays and return the result to the host.
int cold_child(const std::string &name) {
  const BenchKernel &k = find_kernel(name);
  auto t0 = Clock::now();
  RuntimeOptions options;
  options.target = TargetKind::Cuda;
  Runtime rt(options);
  rt.synchronize();
  Array warm = rt.device_empty(DType::Float32, {1});  // the context exists now
  const double ctx_ms = ms_since(t0);
  std::vector<Array> x = host_inputs(k, 1024);
  auto t1 = Clock::now();
  Ufunc f = rt.vectorize(k.source);
  Array r = f.call(operands_of(x));
  const double first_ms = ms_since(t1);
  auto t2 = Clock::now();
  r = f.call(operands_of(x));
  const double second_ms = ms_since(t2);
  std::printf("{\"import_ctx_ms\": %.3f, \"first_call_ms\": %.3f, \"second_call_ms\": %.3f}\n", ctx_ms, first_ms,
              second_ms);
  return 0;
}

/// Runs `self --cold name` with UFJIT_CACHE_DIR=cache_dir; returns its JSON line.
std::string run_cold(const std::string &self, const std::string &name, const std::string &cache_dir) {
  int fds[2];
  if (pipe(fds) != 0) {
    return "{\"error\": \"pipe\"}";
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    setenv("UFJIT_CACHE_DIR", cache_dir.c_str(), 1);
    execl(self.c_str(), self.c_str(), "--cold", name.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  ssize_t got = 0;
  while ((got = read(fds[0], buf, sizeof(buf))) > 0) {
    out.append(buf, static_cast<std::size_t>(got));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.empty()) {
    return "{\"error\": \"child failed\"}";
  }
  while (!out.empty() && out.back() == '\n') {
    out.pop_back();
  }
  return out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
}

constexpr int kColdRuns = 5;

/// The numeric field `key` of a child's one-line JSON, or -1.
double json_field(const std::string &j, const char *key) {
  std::size_t at = j.find(std::string("\"") + key + "\":");
  return at == std::string::npos ? -1.0 : std::atof(j.c_str() + at + std::strlen(key) + 3);
}

/// The children's results as one JSON object of medians.
std::string median_child(const std::vector<std::string> &runs) {
  if (runs.empty()) {
    return "{\"runs\": 0}";  // --skip-cold: no figure rather than zeros
  }
  std::vector<double> ctx;
  std::vector<double> first;
  std::vector<double> second;
  for (const std::string &r : runs) {
    ctx.push_back(json_field(r, "import_ctx_ms"));
    first.push_back(json_field(r, "first_call_ms"));
    second.push_back(json_field(r, "second_call_ms"));
  }
  char line[256];
  std::snprintf(line, sizeof(line),
                "{\"import_ctx_ms\": %.3f, \"first_call_ms\": %.3f, \"second_call_ms\": %.3f, \"runs\": %zu}",
                median(ctx), median(first), median(second), runs.size());
  return line;
}

/// Device copy bandwidth (bytes read + written) with cuMemcpyDtoD, the
/// ceiling for elementwise kernels.
double d2d_bandwidth_gbps(Runtime &rt) {
  const int64_t n = int64_t{1} << 28;
  Array a = rt.device_empty(DType::Float32, {n});
  Array b = rt.device_empty(DType::Float32, {n});
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  auto copy = reinterpret_cast<decltype(&cuMemcpyDtoD_v2)>(dlsym(h, "cuMemcpyDtoD_v2"));
  auto sync = reinterpret_cast<decltype(&cuCtxSynchronize)>(dlsym(h, "cuCtxSynchronize"));
  if (copy == nullptr || sync == nullptr) {
    return 0.0;
  }
  const auto bytes = static_cast<std::size_t>(n) * 4;
  auto fn = [&] {
    copy(reinterpret_cast<CUdeviceptr>(b.data()), reinterpret_cast<CUdeviceptr>(a.data()), bytes);
    sync();
  };
  fn();
  const double ms = timed_ms(fn, 20);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

/// The driver's floor for a synchronous call: an empty kernel launched with
/// cuLaunchKernel and waited for with cuStreamSynchronize, so that ufjit's
/// per-call time reads as floor + software overhead. Three ways: on the
/// legacy default stream (what ufjit uses: it orders after every blocking
/// stream), on a non-blocking stream, and on a non-blocking stream that
/// first waits for an event on the legacy stream (the same ordering).
struct LaunchFloor {
  double legacy_us = 0;
  double stream_us = 0;
  double stream_event_us = 0;
  double legacy_poll_us = 0;  // cuStreamQuery polled instead of cuStreamSynchronize
  double launch_only_us = 0;  // cuLaunchKernel alone, amortised over a queue of launches
};

LaunchFloor launch_floor(Runtime &rt) {
  LaunchFloor floor;
  Array ctx_warm = rt.device_empty(DType::Float32, {1});  // the context is current on this thread
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
#define UFJIT_BENCH_SYM(name) auto name##_fn = reinterpret_cast<decltype(&name)>(dlsym(h, #name))
  UFJIT_BENCH_SYM(cuModuleLoadData);
  UFJIT_BENCH_SYM(cuModuleGetFunction);
  UFJIT_BENCH_SYM(cuLaunchKernel);
  UFJIT_BENCH_SYM(cuStreamSynchronize);
  UFJIT_BENCH_SYM(cuStreamCreate);
  UFJIT_BENCH_SYM(cuStreamWaitEvent);
  UFJIT_BENCH_SYM(cuEventCreate);
  UFJIT_BENCH_SYM(cuEventRecord);
  UFJIT_BENCH_SYM(cuStreamQuery);
#undef UFJIT_BENCH_SYM
  if (cuModuleLoadData_fn == nullptr || cuLaunchKernel_fn == nullptr || cuStreamCreate_fn == nullptr ||
      cuEventRecord_fn == nullptr || cuStreamWaitEvent_fn == nullptr) {
    return floor;
  }
  static const char kEmptyPtx[] =
      ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry empty(.param .u64 p)\n{\n ret;\n}\n";
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  CUstream stream = nullptr;
  CUevent event = nullptr;
  if (cuModuleLoadData_fn(&module, kEmptyPtx) != CUDA_SUCCESS ||
      cuModuleGetFunction_fn(&fn, module, "empty") != CUDA_SUCCESS ||
      cuStreamCreate_fn(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
      cuEventCreate_fn(&event, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
    return floor;
  }
  uint64_t arg = 0;
  void *params[] = {&arg};
  auto measure = [&](CUstream s, bool wait_legacy, bool poll) {
    auto once = [&] {
      if (wait_legacy) {
        cuEventRecord_fn(event, nullptr);
        cuStreamWaitEvent_fn(s, event, 0);
      }
      cuLaunchKernel_fn(fn, 1, 1, 1, 32, 1, 1, 0, s, params, nullptr);
      if (poll && cuStreamQuery_fn != nullptr) {
        while (cuStreamQuery_fn(s) == CUDA_ERROR_NOT_READY) {
        }
      } else {
        cuStreamSynchronize_fn(s);
      }
    };
    for (int i = 0; i < 200; ++i) {
      once();
    }
    return 1e3 * timed_ms(once, 3000);
  };
  floor.legacy_us = measure(nullptr, false, false);
  floor.stream_us = measure(stream, false, false);
  floor.stream_event_us = measure(stream, true, false);
  floor.legacy_poll_us = measure(nullptr, false, true);
  const int queued = 2000;
  const double queue_ms = timed_ms(
      [&] {
        for (int i = 0; i < queued; ++i) {
          cuLaunchKernel_fn(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr);
        }
        cuStreamSynchronize_fn(nullptr);
      },
      5);
  floor.launch_only_us = 1e3 * queue_ms / queued;
  return floor;
}

int run_all(const std::string &self, const std::string &json_path, bool quick, bool fastmath, bool skip_cold) {
  RuntimeOptions options;
  options.target = TargetKind::Cuda;
  Runtime rt(options);
  DriverInfo info = device_info();
  std::ostringstream json;
  json << "{\n \"tool\": \"ufjit\",\n \"version\": \"" << version() << "\",\n";
  json << " \"device\": \"" << (info.devices.empty() ? std::string("?") : info.devices[0].name) << "\",\n";
  const double d2d = d2d_bandwidth_gbps(rt);
  const LaunchFloor floor = launch_floor(rt);
  const int per_call_reps = quick ? 1000 : 3000;
  const DriverFloors floors = measure_driver_floors(rt, per_call_reps);
  json << " \"per_call_floors_us\": {\"launch_sync\": " << floors.launch_sync_us
       << ", \"launch_sync_block1024\": " << floors.launch_sync_block1024_us
       << ", \"launch_host\": " << floors.launch_host_us << ", \"launch_host_stream\": " << floors.launch_host_stream_us
       << "},\n";
  json << " \"launch_sync_floor_us\": {\"legacy_stream\": " << floor.legacy_us << ", \"nonblocking_stream\": "
       << floor.stream_us << ", \"nonblocking_after_legacy_event\": " << floor.stream_event_us
       << ", \"legacy_stream_polled\": " << floor.legacy_poll_us << ", \"launch_only\": " << floor.launch_only_us
       << "},\n";
  json << " \"d2d_copy_GBps_rw\": " << d2d << ",\n \"kernels\": {\n";
  std::printf("%-11s %9s %9s %9s %10s %8s %8s %9s\n", "kernel", "cold_ms", "disk_ms", "tiny_us", "tiny_out_us",
              "GB/s", "%copy", "host_ms");
  bool first = true;
  for (const BenchKernel &k : fastmath ? bench_kernels_fastmath() : bench_kernels()) {
    // Fresh processes: 5 with an empty disk cache each, then 5 with the last one filled.
    std::string cache_dir;
    std::vector<std::string> colds;
    std::vector<std::string> warms;
    for (int r = 0; r < kColdRuns && !skip_cold; ++r) {
      char dir_template[] = "/tmp/ufjit-bench-cache-XXXXXX";
      cache_dir = mkdtemp(dir_template) != nullptr ? dir_template : "/tmp/ufjit-bench-cache";
      colds.push_back(run_cold(self, k.name, cache_dir));
    }
    for (int r = 0; r < kColdRuns && !skip_cold; ++r) {
      warms.push_back(run_cold(self, k.name, cache_dir));
    }
    const std::string cold = median_child(colds);
    const std::string warm = median_child(warms);
    Ufunc f = rt.vectorize(k.source);
    // Tiny device arrays: the per-call software overhead.
    std::vector<Array> tiny_host = host_inputs(k, 1);
    std::vector<Array> tiny;
    for (const Array &a : tiny_host) {
      tiny.push_back(rt.to_device(a.view()));
    }
    std::vector<Operand> tiny_ops = operands_of(tiny);
    Array tiny_out = rt.device_empty(k.dtype, {1});
    std::vector<Operand> tiny_ops_out = tiny_ops;
    tiny_ops_out.emplace_back(out(tiny_out));
    for (int i = 0; i < 200; ++i) {
      f.call(tiny_ops);
    }
    const int tiny_reps = quick ? 500 : 3000;
    const double tiny_us = 1e3 * timed_ms([&] { f.call(tiny_ops); }, tiny_reps);
    const double tiny_out_us = 1e3 * timed_ms([&] { f.call(tiny_ops_out); }, tiny_reps);
    const PerCallRow per_call = measure_per_call(rt, k, per_call_reps);
    // Large device arrays: throughput.
    const int64_t big = int64_t{1} << 26;
    std::vector<Array> dev;
    for (const Array &a : host_inputs(k, big)) {
      dev.push_back(rt.to_device(a.view()));
    }
    Array dev_out = rt.device_empty(k.dtype, {big});
    std::vector<Operand> dev_ops = operands_of(dev);
    dev_ops.emplace_back(out(dev_out));
    f.call(dev_ops);
    const double dev_ms = timed_ms([&] { f.call(dev_ops); }, 20);
    const double bytes = static_cast<double>(k.inputs + 1) * static_cast<double>(big) *
                         static_cast<double>(dtype_size(k.dtype));
    const double gbps = bytes / (dev_ms * 1e-3) / 1e9;
    dev.clear();
    dev_out = Array();
    // Host arrays end to end.
    const int64_t nh = int64_t{1} << 24;
    std::vector<Array> host = host_inputs(k, nh);
    std::vector<Operand> host_ops = operands_of(host);
    f.call(host_ops);
    const double host_ms = timed_ms([&] { f.call(host_ops); }, quick ? 3 : 7);
    const double host_bytes = static_cast<double>(k.inputs + 1) * static_cast<double>(nh) *
                              static_cast<double>(dtype_size(k.dtype));

    std::printf("%-11s %9.1f %9.1f %9.1f %10.1f %8.0f %7.0f%% %9.2f\n", k.name.c_str(), json_field(cold, "first_call_ms"),
                json_field(warm, "first_call_ms"), tiny_us, tiny_out_us, gbps, d2d > 0 ? 100.0 * gbps / d2d : 0.0,
                host_ms);
    std::fflush(stdout);
    json << (first ? "" : ",\n") << "  \"" << k.name << "\": {\"ufjit_cold\": " << cold
         << ", \"ufjit_warmdisk\": " << warm << ", \"ufjit_tiny_dev_us\": " << tiny_us
         << ", \"ufjit_tiny_dev_out_us\": " << tiny_out_us << ", \"per_call\": {\"sync_new_us\": "
         << per_call.sync_new_us << ", \"sync_out_us\": " << per_call.sync_out_us
         << ", \"async_host_us\": " << per_call.async_host_us
         << ", \"async_new_host_us\": " << per_call.async_new_host_us
         << ", \"out_prebuilt_us\": " << per_call.out_prebuilt_us
         << ", \"async_prebuilt_host_us\": " << per_call.async_prebuilt_host_us << "}, \"ufjit_dev_ms\": " << dev_ms
         << ", \"ufjit_dev_GBps\": " << gbps << ", \"ufjit_host_ms_2^24\": " << host_ms
         << ", \"host_bytes_2^24\": " << host_bytes << "}";
    first = false;
  }
  json << "\n }\n}\n";
  std::printf("device copy bandwidth (read+write): %.0f GB/s\n", d2d);
  std::printf("empty kernel launch + cuStreamSynchronize: legacy stream %.1f us, non-blocking stream %.1f us, "
              "non-blocking after a legacy-stream event %.1f us, legacy stream polled with cuStreamQuery %.1f us; "
              "cuLaunchKernel alone %.1f us\n",
              floor.legacy_us, floor.stream_us, floor.stream_event_us, floor.legacy_poll_us, floor.launch_only_us);
  std::printf("per-call floors (each call timed): empty launch + sync %.2f us (block 1024: %.2f), cuLaunchKernel "
              "host cost %.2f us\n",
              floors.launch_sync_us, floors.launch_sync_block1024_us, floors.launch_host_us);
  if (!json_path.empty()) {
    std::ofstream(json_path) << json.str();
  }
  return 0;
}

}  // namespace
}  // namespace ufjit::bench

int main(int argc, char **argv) {
  try {
    std::string json_path;
    bool quick = false;
    bool fastmath = false;
    bool skip_cold = false;
    bool per_call = false;
    int reps = 3000;
    std::string kernel;
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--cold" && i + 1 < argc) {
        return ufjit::bench::cold_child(argv[i + 1]);
      }
      if (arg == "--count-calls" && i + 3 < argc) {
        return ufjit::bench::run_count_calls(argv[i + 1], argv[i + 2], std::atoi(argv[i + 3]));
      }
      if (arg == "--per-call") {
        per_call = true;
      } else if (arg == "--reps" && i + 1 < argc) {
        reps = std::max(1, std::atoi(argv[++i]));
      } else if (arg == "--kernel" && i + 1 < argc) {
        kernel = argv[++i];
      } else if (arg == "--skip-cold") {
        skip_cold = true;
      } else if (arg == "--json" && i + 1 < argc) {
        json_path = argv[++i];
      } else if (arg == "--quick") {
        quick = true;
      } else if (arg == "--fastmath") {
        fastmath = true;
      }
    }
    if (per_call) {
      return ufjit::bench::run_per_call(json_path, reps, kernel);
    }
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[len > 0 ? len : 0] = '\0';
    return ufjit::bench::run_all(self, json_path, quick, fastmath, skip_cold);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_gpu: %s\n", e.what());
    return 1;
  }
}
