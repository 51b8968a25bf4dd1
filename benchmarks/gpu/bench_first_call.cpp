// First-call time on the GPU, as bench_gpu measures it (a fresh process:
// Runtime and context made first and not counted, then `vectorize` and the
// first call on 1024-element host arrays, result back on the host), for the
// five seed kernels and the six general kernels of
// benchmarks/general_kernels.h (issue 13, item 6):
//   cold       empty disk cache
//   disk-warm  the disk cache filled by the cold runs
//   optimised_in  after a cold first call, how long rt.synchronize() waits
//              for the optimised kernel (tiering; ~0 with UFJIT_TIERING=0)
// Each figure is the median of --runs=N fresh processes (default 7); one more
// process per kernel and cache state runs with UFJIT_DEBUG=1 and its log
// lines (where the compile's time went) are printed after the table.
// Usage: bench_first_call [--runs=N] [--only=NAME] | bench_first_call --child NAME
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "benchmarks/general_kernels.h"
#include "benchmarks/gpu/bench_kernels.h"
#include "ufjit/ufjit.h"

namespace ufjit::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Kernel {
  std::string name;
  std::string source;
  std::vector<DType> inputs;
};

std::vector<Kernel> all_kernels() {
  std::vector<Kernel> all;
  for (const BenchKernel &k : bench_kernels()) {
    all.push_back({k.name, k.source, std::vector<DType>(static_cast<std::size_t>(k.inputs), k.dtype)});
  }
  for (const GeneralKernel &k : general_kernels()) all.push_back({k.name, k.source, k.inputs});
  return all;
}

/// Host arrays of 1024 elements for every operand, filled with small
/// positive values (valid for every kernel above).
std::vector<Array> inputs_for(const Kernel &k) {
  std::vector<Array> arrays;
  for (DType t : k.inputs) {
    Array a = Array::host(t, {1024});
    for (int64_t i = 0; i < 1024; ++i) {
      const double v = 0.5 + static_cast<double>(i % 97) / 50.0;
      switch (t) {
        case DType::Int64: a.host_data<int64_t>()[i] = i % 97 + 1; break;
        case DType::Float32: a.host_data<float>()[i] = static_cast<float>(v); break;
        case DType::Float64: a.host_data<double>()[i] = v; break;
        case DType::Complex128: a.host_data<std::complex<double>>()[i] = {v, -v}; break;
        default: break;
      }
    }
    arrays.push_back(std::move(a));
  }
  return arrays;
}

int child(const std::string &name) {
  for (const Kernel &k : all_kernels()) {
    if (k.name != name) continue;
    RuntimeOptions options;
    options.target = TargetKind::Cuda;
    Runtime rt(options);
    rt.synchronize();
    Array warm = rt.device_empty(DType::Float32, {1});  // the context exists now
    auto t0 = Clock::now();
    Ufunc f = rt.vectorize(k.source);
    const double frontend_ms = ms_since(t0);
    std::vector<Array> x = inputs_for(k);
    std::vector<Operand> ops;
    for (const Array &a : x) ops.emplace_back(a.view());
    auto t1 = Clock::now();
    Array r = f.call(ops);
    const double call_ms = ms_since(t1);
    // Tiering: how long after the first call the optimised kernel is in.
    auto t2 = Clock::now();
    rt.synchronize();
    const double optimised_ms = ms_since(t2);
    std::printf("{\"frontend_ms\": %.3f, \"call_ms\": %.3f, \"first_call_ms\": %.3f, \"optimised_after_ms\": %.3f}\n",
                frontend_ms, call_ms, frontend_ms + call_ms, optimised_ms);
    return 0;
  }
  std::cerr << "unknown kernel " << name << "\n";
  return 2;
}

/// Runs `self --child name` with the cache in `cache_dir`; its stdout, and
/// its stderr appended to `log` when `debug`.
std::string run_child(const std::string &self, const std::string &name, const std::string &cache_dir, bool debug,
                      std::string &log) {
  int out[2];
  int err[2];
  if (pipe(out) != 0 || pipe(err) != 0) return "";
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    close(err[0]);
    close(err[1]);
    setenv("UFJIT_CACHE_DIR", cache_dir.c_str(), 1);
    if (debug) setenv("UFJIT_DEBUG", "1", 1);
    execl(self.c_str(), self.c_str(), "--child", name.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  auto slurp = [](int fd) {
    std::string s;
    char buf[4096];
    ssize_t got = 0;
    while ((got = read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<std::size_t>(got));
    close(fd);
    return s;
  };
  std::string text = slurp(out[0]);
  std::string errors = slurp(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (debug || !WIFEXITED(status) || WEXITSTATUS(status) != 0) log += errors;
  return text;
}

double field(const std::string &j, const char *key) {
  std::size_t at = j.find(std::string("\"") + key + "\":");
  return at == std::string::npos ? -1.0 : std::atof(j.c_str() + at + std::strlen(key) + 3);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? -1.0 : v[v.size() / 2];
}

int parent(const std::string &self, int runs, const std::string &only) {
  char dir_template[] = "/tmp/ufjit-first-call-XXXXXX";
  const char *base = mkdtemp(dir_template);
  if (base == nullptr) return 1;
  std::printf("first call in a fresh process, median of %d, ms (frontend = vectorize; call = compile, load, run)\n",
              runs);
  std::printf("%-15s %10s %10s %10s %12s %12s %14s\n", "kernel", "cold", "cold_fe", "cold_call", "disk_warm",
              "disk_warm_fe", "optimised_in");
  std::string logs;
  for (const Kernel &k : all_kernels()) {
    if (!only.empty() && k.name != only) continue;
    const std::string cache = std::string(base) + "/" + k.name;
    std::vector<double> cold, cold_fe, cold_call, warm, warm_fe, optimised;
    for (int r = 0; r < runs; ++r) {
      std::string ignored;
      std::system(("rm -rf '" + cache + "'").c_str());
      std::string j = run_child(self, k.name, cache, false, ignored);
      cold.push_back(field(j, "first_call_ms"));
      cold_fe.push_back(field(j, "frontend_ms"));
      cold_call.push_back(field(j, "call_ms"));
      optimised.push_back(field(j, "optimised_after_ms"));
    }
    for (int r = 0; r < runs; ++r) {
      std::string ignored;
      std::string j = run_child(self, k.name, cache, false, ignored);
      warm.push_back(field(j, "first_call_ms"));
      warm_fe.push_back(field(j, "frontend_ms"));
    }
    std::printf("%-15s %10.2f %10.2f %10.2f %12.2f %12.2f %14.2f\n", k.name.c_str(), median(cold), median(cold_fe),
                median(cold_call), median(warm), median(warm_fe), median(optimised));
    std::fflush(stdout);
    std::system(("rm -rf '" + cache + "'").c_str());
    logs += "-- " + k.name + " cold\n";
    run_child(self, k.name, cache, true, logs);
    logs += "-- " + k.name + " disk-warm\n";
    run_child(self, k.name, cache, true, logs);
  }
  std::printf("\nUFJIT_DEBUG=1 logs:\n%s", logs.c_str());
  std::system(("rm -rf '" + std::string(base) + "'").c_str());
  return 0;
}

}  // namespace
}  // namespace ufjit::bench

int main(int argc, char **argv) {
  int runs = 7;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--child" && i + 1 < argc) return ufjit::bench::child(argv[i + 1]);
    if (arg.rfind("--runs=", 0) == 0) runs = std::max(1, std::atoi(arg.c_str() + 7));
    if (arg.rfind("--only=", 0) == 0) only = arg.substr(7);
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 1;
  self[n] = '\0';
  return ufjit::bench::parent(self, runs, only);
}
