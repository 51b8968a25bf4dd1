// The first call of a seed kernel in a fresh process on the CPU target,
// through the public API only, split into its steps: Runtime construction,
// load_file (frontend), first call (codegen + ORC + the call on one element).
// Run it as a new process each time (docs/PERFORMANCE.md runs it 20 times
// and reports the median); the process start itself (loading libufjit.so) is
// the difference between the whole-process wall time and the total printed.
//
//   first_call_cpu SEED   # SEED: add_ufunc | sincos | gaussian_pdf | polar_distance
#include <ufjit/ufjit.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#ifndef UFJIT_SOURCE_DIR
#define UFJIT_SOURCE_DIR "."
#endif

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Calls `seed` once on one-element arrays; returns the result as a double.
double call_seed(const std::string &seed, const ufjit::Ufunc &f) {
  if (seed == "add_ufunc") {
    std::vector<int64_t> x{1};
    std::vector<int64_t> y{2};
    std::vector<int64_t> r(1);
    f(ufjit::view(x), ufjit::view(y), ufjit::out(r));
    return static_cast<double>(r[0]);
  }
  std::vector<float> a{0.5f};
  std::vector<float> b{1.5f};
  std::vector<float> r(1);
  if (seed == "sincos") {
    f(ufjit::view(a), ufjit::out(r));
  } else if (seed == "gaussian_pdf") {
    f(ufjit::view(a), ufjit::view(a), ufjit::view(b), ufjit::out(r));
  } else {
    f(ufjit::view(b), ufjit::view(a), ufjit::view(a), ufjit::view(b), ufjit::out(r));
  }
  return r[0];
}

}  // namespace

int main(int argc, char **argv) {
  const Clock::time_point start = Clock::now();
  const std::string seed = argc > 1 ? argv[1] : "add_ufunc";
  if (seed != "add_ufunc" && seed != "sincos" && seed != "gaussian_pdf" && seed != "polar_distance") {
    std::fprintf(stderr, "usage: first_call_cpu add_ufunc|sincos|gaussian_pdf|polar_distance\n");
    return 2;
  }
  try {
    ufjit::RuntimeOptions options;
    options.target = ufjit::TargetKind::Cpu;
    ufjit::Runtime rt(options);
    const double runtime_ms = ms_since(start);
    ufjit::UfuncSet set = rt.load_file(std::string(UFJIT_SOURCE_DIR) + "/examples/" + seed + ".ufn");
    const double load_ms = ms_since(start);
    const double result = call_seed(seed, set[seed]);
    const double call_ms = ms_since(start);
    std::printf("%s runtime=%.2f load=%.2f first_call=%.2f total=%.2f ms result=%g\n", seed.c_str(),
                runtime_ms, load_ms - runtime_ms, call_ms - load_ms, call_ms, result);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "first_call_cpu: %s\n", e.what());
    return 1;
  }
  return 0;
}
