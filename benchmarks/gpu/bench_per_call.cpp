// Per-call rows of bench_gpu: see bench_per_call.h.
#include "benchmarks/gpu/bench_per_call.h"

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <type_traits>

#include "ufjit/compiler.h"

namespace ufjit::bench {
namespace {

using Clock = std::chrono::steady_clock;

double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Median of `reps` timings of `fn` (each call timed alone), after `warm`
/// untimed calls. `settle` runs untimed after every `batch` calls (a
/// synchronise, so that queued async work never fills the launch queue).
double median_us(const std::function<void()> &fn, int reps, int warm = 200, int batch = 0,
                 const std::function<void()> &settle = {}) {
  for (int i = 0; i < warm; ++i) {
    fn();
  }
  if (settle) {
    settle();
  }
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    const Clock::time_point t0 = Clock::now();
    fn();
    times.push_back(us_between(t0, Clock::now()));
    if (batch > 0 && (i + 1) % batch == 0 && settle) {
      settle();
    }
  }
  if (settle) {
    settle();
  }
  return median(std::move(times));
}

/// The driver entry points the floors and the bare launches call, from the
/// libcuda.so.1 the Runtime loaded; `ok` when every one resolved.
struct BareDriver {
  decltype(&cuModuleLoadData) load = nullptr;
  decltype(&cuModuleUnload) unload = nullptr;
  decltype(&cuModuleGetFunction) get_function = nullptr;
  decltype(&cuLaunchKernel) launch = nullptr;
  decltype(&cuStreamSynchronize) sync = nullptr;
  decltype(&cuStreamCreate) create = nullptr;
  decltype(&cuStreamDestroy_v2) destroy = nullptr;
  bool ok = false;
};

BareDriver bare_driver() {
  BareDriver d;
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) {
    return d;
  }
  auto resolve = [h](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
    return fn != nullptr;
  };
  d.ok = resolve(d.load, "cuModuleLoadData") && resolve(d.unload, "cuModuleUnload") &&
         resolve(d.get_function, "cuModuleGetFunction") && resolve(d.launch, "cuLaunchKernel") &&
         resolve(d.sync, "cuStreamSynchronize") && resolve(d.create, "cuStreamCreate") &&
         resolve(d.destroy, "cuStreamDestroy_v2");
  return d;
}

std::vector<Array> device_inputs(Runtime &rt, const BenchKernel &k) {
  std::vector<Array> dev;
  for (const Array &a : host_inputs(k, 1)) {
    dev.push_back(rt.to_device(a.view()));
  }
  return dev;
}

/// Calls `f` on the device arrays with `args...` appended, for 1 to 4 inputs:
/// the variadic form a user writes, `f(a, b, out(o))`.
template <typename Fn>
void with_inputs(const std::vector<Array> &in, const Fn &fn) {
  switch (in.size()) {
    case 1: fn(in[0]); break;
    case 2: fn(in[0], in[1]); break;
    case 3: fn(in[0], in[1], in[2]); break;
    default: fn(in[0], in[1], in[2], in[3]); break;
  }
}

/// One call of `mode` (sync, out, async, async_new) as a user writes it.
std::function<void()> call_of(const std::string &mode, const Ufunc &f, const std::vector<Array> &in,
                              const Array &result, Stream &stream) {
  if (mode == "sync") {
    return [&f, &in] { with_inputs(in, [&](const auto &...a) { (void)f(a...); }); };
  }
  if (mode == "out") {
    return [&f, &in, &result] { with_inputs(in, [&](const auto &...a) { (void)f(a..., out(result)); }); };
  }
  if (mode == "async") {
    return [&f, &in, &result, &stream] { with_inputs(in, [&](const auto &...a) { f.async(stream, a..., out(result)); }); };
  }
  if (mode == "async_new") {
    return [&f, &in, &stream] { with_inputs(in, [&](const auto &...a) { f.async(stream, a...); }); };
  }
  // The operands built once, outside the timing (bench_gpu's older `tiny`
  // columns): what ufjit costs beyond the caller's operand vector.
  auto prebuilt = std::make_shared<std::vector<Operand>>();
  for (const Array &a : in) {
    prebuilt->emplace_back(a);
  }
  prebuilt->emplace_back(out(result));
  if (mode == "out_prebuilt") {
    return [&f, prebuilt] { (void)f.call(*prebuilt); };
  }
  if (mode == "async_prebuilt") {
    return [&f, &stream, prebuilt] { f.call_async(stream, *prebuilt); };
  }
  std::cerr << "unknown call mode " << mode << " (sync, out, async, async_new, out_prebuilt, async_prebuilt)\n";
  std::exit(2);
}

/// An empty kernel: the floor of every launch.
constexpr char kEmptyPtx[] =
    ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry empty(.param .u64 p)\n{\n ret;\n}\n";

/// out[0] = a[0] + b[0] on int64, as ufjit's add_i64 entry on one element.
constexpr char kAddPtx[] =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry add1(.param .u64 a, .param .u64 b, .param .u64 o, .param .u64 n)\n{\n"
    " .reg .b64 %rd<8>;\n ld.param.u64 %rd1, [a];\n ld.param.u64 %rd2, [b];\n ld.param.u64 %rd3, [o];\n"
    " ld.global.u64 %rd4, [%rd1];\n ld.global.u64 %rd5, [%rd2];\n add.s64 %rd6, %rd4, %rd5;\n"
    " st.global.u64 [%rd3], %rd6;\n ret;\n}\n";

/// A kernel loaded through the bare driver and launched on one block (of
/// 32 threads unless told) with fixed parameters; unloaded when destroyed.
/// `ok()` is false when it could not be loaded (the figures that need it
/// read 0).
class BareKernel {
 public:
  BareKernel(const BareDriver &driver, const std::string &ptx, const std::string &entry,
             std::vector<uint64_t> args)
      : driver_(driver), args_(std::move(args)) {
    if (!driver_.ok || entry.empty() || driver_.load(&module_, ptx.c_str()) != CUDA_SUCCESS) {
      module_ = nullptr;
      return;
    }
    if (driver_.get_function(&fn_, module_, entry.c_str()) != CUDA_SUCCESS) {
      fn_ = nullptr;
    }
    for (uint64_t &arg : args_) {
      params_.push_back(&arg);
    }
  }
  ~BareKernel() {
    if (module_ != nullptr) {
      driver_.unload(module_);
    }
  }
  BareKernel(const BareKernel &) = delete;
  BareKernel &operator=(const BareKernel &) = delete;

  bool ok() const { return fn_ != nullptr; }
  void launch(CUstream stream, unsigned block = 32) {
    driver_.launch(fn_, 1, 1, 1, block, 1, 1, 0, stream, params_.data(), nullptr);
  }
  void sync(CUstream stream) const { driver_.sync(stream); }

 private:
  const BareDriver &driver_;
  CUmodule module_ = nullptr;
  CUfunction fn_ = nullptr;
  std::vector<uint64_t> args_;
  std::vector<void *> params_;
};

}  // namespace

std::vector<Array> host_inputs(const BenchKernel &k, int64_t n) {
  std::mt19937_64 gen(0);
  std::vector<Array> arrays;
  for (int i = 0; i < k.inputs; ++i) {
    Array a = Array::host(k.dtype, {n});
    if (k.dtype == DType::Int64) {
      std::uniform_int_distribution<int64_t> d(-1000, 999);
      std::generate_n(a.host_data<int64_t>(), n, [&] { return d(gen); });
    } else if (k.dtype == DType::Float32) {
      std::uniform_real_distribution<float> d(0.5f, 1.5f);
      std::generate_n(a.host_data<float>(), n, [&] { return d(gen); });
    } else {
      std::uniform_real_distribution<double> d(0.5, 1.5);
      std::generate_n(a.host_data<double>(), n, [&] { return d(gen); });
    }
    arrays.push_back(std::move(a));
  }
  return arrays;
}

const BenchKernel &find_kernel(const std::string &name) {
  static const std::vector<BenchKernel> kernels = [] {
    std::vector<BenchKernel> all = bench_kernels();
    for (BenchKernel &k : bench_kernels_fastmath()) {
      all.push_back(std::move(k));
    }
    return all;
  }();
  for (const BenchKernel &k : kernels) {
    if (k.name == name) {
      return k;
    }
  }
  std::cerr << "unknown kernel " << name << "\n";
  std::exit(2);
}

DriverFloors measure_driver_floors(Runtime &rt, int reps) {
  DriverFloors floors;
  Array ctx_warm = rt.device_empty(DType::Float32, {1});  // the context is current on this thread
  const BareDriver driver = bare_driver();
  BareKernel empty(driver, kEmptyPtx, "empty", {0});
  if (!empty.ok()) {
    return floors;
  }
  floors.launch_sync_us = median_us(
      [&] {
        empty.launch(nullptr);
        empty.sync(nullptr);
      },
      reps);
  floors.launch_sync_block1024_us = median_us(
      [&] {
        empty.launch(nullptr, 1024);
        empty.sync(nullptr);
      },
      reps);
  floors.launch_host_us =
      median_us([&] { empty.launch(nullptr); }, reps, 200, 50, [&] { empty.sync(nullptr); });
  const Array add_in = rt.device_empty(DType::Int64, {2});
  const Array add_out = rt.device_empty(DType::Int64, {1});
  const auto in_address = reinterpret_cast<uint64_t>(add_in.data());
  BareKernel add(driver, kAddPtx, "add1",
                 {in_address, in_address + 8, reinterpret_cast<uint64_t>(add_out.data()), 1});
  if (add.ok()) {
    floors.elementwise_sync_us = median_us(
        [&] {
          add.launch(nullptr);
          add.sync(nullptr);
        },
        reps);
  }
  CUstream stream = nullptr;
  if (driver.create(&stream, CU_STREAM_DEFAULT) == CUDA_SUCCESS) {
    floors.launch_host_stream_us =
        median_us([&] { empty.launch(stream); }, reps, 200, 50, [&] { empty.sync(stream); });
    if (add.ok()) {
      floors.elementwise_host_stream_us =
          median_us([&] { add.launch(stream); }, reps, 200, 50, [&] { add.sync(stream); });
    }
    driver.destroy(stream);
  }
  floors.ok = true;
  return floors;
}

namespace {

/// The name of `ptx`'s contiguous 32-bit-index entry, or "" if none.
std::string contiguous_entry(const std::string &ptx) {
  const std::string mark = ".visible .entry ";
  for (std::size_t at = ptx.find(mark); at != std::string::npos; at = ptx.find(mark, at + 1)) {
    const std::size_t begin = at + mark.size();
    const std::string name = ptx.substr(begin, ptx.find('(', begin) - begin);
    if (name.size() > 12 && name.compare(name.size() - 12, 12, "__contig_i32") == 0) {
      return name;
    }
  }
  return "";
}

/// ufjit's own contiguous kernel for `kernel` (PerCallRow::bare_kernel_sync_us)
/// with its parameters (n, inputs..., out), all 64-bit; the entry is left
/// empty (the kernel not loaded) when the entry takes anything else.
std::pair<std::string, std::string> own_kernel_ptx(const BenchKernel &kernel, std::size_t params) {
  CompileRequest request;
  request.source = kernel.source;
  const CompileResult compiled = compile(request);
  const std::string entry = compiled.ok ? contiguous_entry(compiled.output) : "";
  if (entry.empty()) {
    return {"", ""};
  }
  const std::string params_of_entry = compiled.output.substr(compiled.output.find(entry + "("));
  const std::size_t declared = static_cast<std::size_t>(
      std::count(params_of_entry.begin(),
                 params_of_entry.begin() + static_cast<std::ptrdiff_t>(params_of_entry.find(')')), ','));
  return {compiled.output, declared + 1 == params ? entry : ""};
}

/// One figure of a kernel's rounds: a call timed alone, kBatch times a round.
struct Figure {
  explicit Figure(std::function<void()> timed, std::function<void()> untimed = {})
      : call(std::move(timed)), settle(std::move(untimed)) {}
  std::function<void()> call;
  std::function<void()> settle;  // async figures: untimed, after every 50 calls and after the batch
  std::vector<double> medians;   // one per round
  bool measured = true;          // false: not available (its figures read 0)
};

constexpr int kBatch = 100;

void time_batch(Figure &figure, int calls) {
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(calls));
  for (int i = 0; i < calls; ++i) {
    const Clock::time_point t0 = Clock::now();
    figure.call();
    times.push_back(us_between(t0, Clock::now()));
    if (figure.settle && (i + 1) % 50 == 0) {
      figure.settle();
    }
  }
  if (figure.settle) {
    figure.settle();
  }
  figure.medians.push_back(median(std::move(times)));
}

double round_median(const Figure &figure) {
  return figure.measured ? median(figure.medians) : 0.0;
}

/// The median over the rounds of `a`'s round median minus `b`'s.
double paired_difference(const Figure &a, const Figure &b) {
  if (!a.measured || !b.measured) {
    return 0.0;
  }
  std::vector<double> differences;
  for (std::size_t r = 0; r < a.medians.size(); ++r) {
    differences.push_back(a.medians[r] - b.medians[r]);
  }
  return median(std::move(differences));
}

}  // namespace

PerCallRow measure_per_call(Runtime &rt, const BenchKernel &kernel, int reps) {
  PerCallRow row;
  row.kernel = kernel.name;
  Ufunc f = rt.vectorize(kernel.source);
  const std::vector<Array> in = device_inputs(rt, kernel);
  const Array result = rt.device_empty(kernel.dtype, {1});
  Stream stream = rt.stream();
  const BareDriver driver = bare_driver();
  CUstream blocking = nullptr;
  if (driver.ok && driver.create(&blocking, CU_STREAM_DEFAULT) != CUDA_SUCCESS) {
    blocking = nullptr;
  }
  BareKernel empty(driver, kEmptyPtx, "empty", {0});
  std::vector<uint64_t> own_args{1};
  for (const Array &a : in) {
    own_args.push_back(reinterpret_cast<uint64_t>(a.data()));
  }
  own_args.push_back(reinterpret_cast<uint64_t>(result.data()));
  const auto [own_ptx, own_entry] = own_kernel_ptx(kernel, own_args.size());
  BareKernel own(driver, own_ptx, own_entry, own_args);

  auto settle = [&] { stream.synchronize(); };
  Figure floor_sync{[&] {
    empty.launch(nullptr);
    empty.sync(nullptr);
  }};
  floor_sync.measured = empty.ok();
  Figure floor_launch{[&] { empty.launch(blocking); }, [&] { empty.sync(blocking); }};
  floor_launch.measured = empty.ok() && blocking != nullptr;
  Figure sync_new{call_of("sync", f, in, result, stream)};
  Figure sync_out{call_of("out", f, in, result, stream)};
  Figure async_host{call_of("async", f, in, result, stream), settle};
  Figure async_new{call_of("async_new", f, in, result, stream), settle};
  Figure out_prebuilt{call_of("out_prebuilt", f, in, result, stream)};
  Figure async_prebuilt{call_of("async_prebuilt", f, in, result, stream), settle};
  Figure own_sync{[&] {
    own.launch(nullptr);
    own.sync(nullptr);
  }};
  own_sync.measured = own.ok();
  const std::vector<Figure *> figures{&floor_sync, &floor_launch, &sync_new,       &sync_out, &async_host,
                                      &async_new,  &out_prebuilt, &async_prebuilt, &own_sync};
  std::vector<Figure *> measured;
  for (Figure *figure : figures) {
    if (figure->measured) {
      measured.push_back(figure);
    }
  }
  for (Figure *figure : measured) {  // warm-up: the plan, the tier-up, the driver's caches
    time_batch(*figure, 200);
    figure->medians.clear();
  }
  row.rounds = std::max(1, reps / kBatch);
  std::mt19937 order(static_cast<unsigned>(kernel.name.size()));
  for (int round = 0; round < row.rounds; ++round) {
    std::shuffle(measured.begin(), measured.end(), order);  // no figure always follows another
    for (Figure *figure : measured) {
      time_batch(*figure, kBatch);
    }
  }
  if (blocking != nullptr) {
    driver.destroy(blocking);
  }
  row.sync_new_us = round_median(sync_new);
  row.sync_out_us = round_median(sync_out);
  row.async_host_us = round_median(async_host);
  row.async_new_host_us = round_median(async_new);
  row.out_prebuilt_us = round_median(out_prebuilt);
  row.async_prebuilt_host_us = round_median(async_prebuilt);
  row.bare_kernel_sync_us = round_median(own_sync);
  row.floor_sync_us = round_median(floor_sync);
  row.floor_launch_stream_us = round_median(floor_launch);
  row.sync_over_floor_us = paired_difference(sync_new, floor_sync);
  row.out_over_floor_us = paired_difference(sync_out, floor_sync);
  row.async_over_launch_us = paired_difference(async_host, floor_launch);
  row.bare_kernel_over_floor_us = paired_difference(own_sync, floor_sync);
  row.out_over_bare_kernel_us = paired_difference(sync_out, own_sync);
  return row;
}

int run_per_call(const std::string &json_path, int reps, const std::string &only_kernel) {
  RuntimeOptions options;
  options.target = TargetKind::Cuda;
  Runtime rt(options);
  const DriverFloors floors = measure_driver_floors(rt, reps);
  std::vector<PerCallRow> rows;
  for (const BenchKernel &k : bench_kernels()) {
    if (only_kernel.empty() || only_kernel == k.name) {
      rows.push_back(measure_per_call(rt, k, reps));
    }
  }
  // The floors once more after the kernels: the host's clocks drift in a lease.
  const DriverFloors after = measure_driver_floors(rt, reps);
  std::printf("driver floors (median of %d): empty launch + sync %.2f us (block 1024: %.2f), after the kernels "
              "%.2f us; cuLaunchKernel host cost %.2f us (after: %.2f), on a blocking stream %.2f us (after: %.2f)\n",
              reps, floors.launch_sync_us, floors.launch_sync_block1024_us, after.launch_sync_us,
              floors.launch_host_us, after.launch_host_us, floors.launch_host_stream_us, after.launch_host_stream_us);
  std::printf("a hand-written 1-element int64 add (ufjit's add_i64 work, four parameters): launch + sync %.2f us "
              "(after: %.2f), cuLaunchKernel on a blocking stream %.2f us (after: %.2f)\n",
              floors.elementwise_sync_us, after.elementwise_sync_us, floors.elementwise_host_stream_us,
              after.elementwise_host_stream_us);
  std::printf("%-11s %9s %9s %11s %14s %11s %14s %11s %11s %11s %13s %11s %10s\n", "kernel", "sync_us",
              "out_us", "async_host", "async_new_host", "out_prebuilt", "async_prebuilt", "bare_kernel",
              "sync-floor", "out-floor", "async-launch", "bare-floor", "out-bare");
  std::ostringstream json;
  json << "{\n \"tool\": \"ufjit\",\n \"version\": \"" << version() << "\",\n \"reps\": " << reps
       << ",\n \"floors_us\": {\"launch_sync\": " << floors.launch_sync_us
       << ", \"launch_sync_block1024\": " << floors.launch_sync_block1024_us
       << ", \"launch_host\": " << floors.launch_host_us << ", \"launch_host_stream\": " << floors.launch_host_stream_us
       << ", \"launch_sync_after\": " << after.launch_sync_us << ", \"launch_host_after\": " << after.launch_host_us
       << ", \"launch_host_stream_after\": " << after.launch_host_stream_us
       << ", \"elementwise_sync\": " << floors.elementwise_sync_us
       << ", \"elementwise_sync_after\": " << after.elementwise_sync_us
       << ", \"elementwise_host_stream\": " << floors.elementwise_host_stream_us
       << ", \"elementwise_host_stream_after\": " << after.elementwise_host_stream_us << "},\n \"kernels\": {";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const PerCallRow &r = rows[i];
    // The differences are paired: each against the floor of the same rounds.
    std::printf(
        "%-11s %9.2f %9.2f %11.2f %14.2f %11.2f %14.2f %11.2f %+11.2f %+11.2f %+13.2f %+11.2f %+10.2f\n",
        r.kernel.c_str(), r.sync_new_us, r.sync_out_us, r.async_host_us, r.async_new_host_us,
        r.out_prebuilt_us, r.async_prebuilt_host_us, r.bare_kernel_sync_us, r.sync_over_floor_us,
        r.out_over_floor_us, r.async_over_launch_us, r.bare_kernel_over_floor_us, r.out_over_bare_kernel_us);
    json << (i ? "," : "") << "\n  \"" << r.kernel << "\": {\"sync_new_us\": " << r.sync_new_us
         << ", \"sync_out_us\": " << r.sync_out_us << ", \"async_host_us\": " << r.async_host_us
         << ", \"async_new_host_us\": " << r.async_new_host_us
         << ", \"out_prebuilt_us\": " << r.out_prebuilt_us
         << ", \"async_prebuilt_host_us\": " << r.async_prebuilt_host_us
         << ", \"bare_kernel_sync_us\": " << r.bare_kernel_sync_us
         << ",\n   \"paired\": {\"rounds\": " << r.rounds << ", \"floor_sync_us\": " << r.floor_sync_us
         << ", \"floor_launch_stream_us\": " << r.floor_launch_stream_us
         << ", \"sync_over_floor_us\": " << r.sync_over_floor_us
         << ", \"out_over_floor_us\": " << r.out_over_floor_us
         << ", \"async_over_launch_us\": " << r.async_over_launch_us
         << ", \"bare_kernel_over_floor_us\": " << r.bare_kernel_over_floor_us
         << ", \"out_over_bare_kernel_us\": " << r.out_over_bare_kernel_us << "}}";
  }
  json << "\n }\n}\n";
  std::fflush(stdout);
  if (!json_path.empty()) {
    std::ofstream(json_path) << json.str();
  }
  return floors.ok ? 0 : 1;
}

/// Kept out of line and named, for callgrind's --toggle-collect.
[[gnu::noinline]] void measured_calls(const std::function<void()> &call, int calls) {
  for (int i = 0; i < calls; ++i) {
    call();
  }
}

int run_count_calls(const std::string &mode, const std::string &kernel_name, int calls) {
  const BenchKernel &kernel = find_kernel(kernel_name);
  RuntimeOptions options;
  options.target = TargetKind::Cuda;
  Runtime rt(options);
  Ufunc f = rt.vectorize(kernel.source);
  const std::vector<Array> in = device_inputs(rt, kernel);
  const Array result = rt.device_empty(kernel.dtype, {1});
  Stream stream = rt.stream();
  const std::function<void()> call = call_of(mode, f, in, result, stream);
  for (int i = 0; i < 100; ++i) {
    call();
  }
  stream.synchronize();
  measured_calls(call, calls);
  stream.synchronize();
  std::printf("%d %s calls of %s\n", calls, mode.c_str(), kernel_name.c_str());
  return 0;
}

}  // namespace ufjit::bench
