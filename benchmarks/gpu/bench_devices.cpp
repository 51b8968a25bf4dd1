// One call across the GPUs of a host (docs/guide/cpp.md, "Several GPUs"): the
// end-to-end throughput of an elementwise add of float32 host arrays (2^28
// elements by default) on one GPU and on every GPU of the host, side by side
// in one run, with each link's measured ceilings: a copy of the same bytes
// between page-locked host memory and that device (Runtime::to_device /
// to_host), on that device alone and on every device at once.
//   GB/s of a call = bytes read + written (3 arrays) / wall time of the
//   synchronous call, median of --reps after a warm-up call.
// Inputs are pageable (as NumPy's arrays are) and, second, page-locked.
// Usage: bench_devices [--log2 N] [--reps R] [--json OUT]; needs two GPUs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <ufjit/cache.h>
#include <ufjit/ufjit.h>

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char *kAdd = R"UFN(
from numba import vectorize

@vectorize(["float32(float32, float32)"])
def add(x, y):
    return x + y
)UFN";

/// The median wall time of `reps` runs of `f` after one warm-up, in seconds.
double median_seconds(int reps, const std::function<void()> &f) {
  f();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const Clock::time_point t0 = Clock::now();
    f();
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Runs f(k) for every device index k at once, one thread each.
void on_every_device(std::size_t devices, const std::function<void(std::size_t)> &f) {
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < devices; ++k) {
    threads.emplace_back(f, k);
  }
  for (std::thread &t : threads) {
    t.join();
  }
}

struct Link {
  int device = 0;
  double h2d_alone = 0, d2h_alone = 0, h2d_together = 0, d2h_together = 0;  // GB/s
};

/// The host links' ceilings: page-locked copies of `bytes` to and from each device.
std::vector<Link> measure_links(ufjit::Runtime &rt, const ufjit::ArrayView &pinned, int reps) {
  const std::vector<int> devices = rt.devices();
  const double gb = static_cast<double>(pinned.size()) * 4 / 1e9;
  std::vector<ufjit::Array> on_device;
  for (int d : devices) {
    on_device.push_back(rt.to_device(pinned, d));
  }
  std::vector<Link> links(devices.size());
  for (std::size_t k = 0; k < devices.size(); ++k) {
    links[k].device = devices[k];
    links[k].h2d_alone = gb / median_seconds(reps, [&] { (void)rt.to_device(pinned, devices[k]); });
    links[k].d2h_alone = gb / median_seconds(reps, [&] { (void)rt.to_host(on_device[k].view()); });
  }
  std::vector<double> h2d(devices.size()), d2h(devices.size());
  for (int r = 0; r < reps; ++r) {
    on_every_device(devices.size(), [&](std::size_t k) {
      const Clock::time_point t0 = Clock::now();
      (void)rt.to_device(pinned, devices[k]);
      h2d[k] = std::max(h2d[k], gb / std::chrono::duration<double>(Clock::now() - t0).count());
    });
    on_every_device(devices.size(), [&](std::size_t k) {
      const Clock::time_point t0 = Clock::now();
      (void)rt.to_host(on_device[k].view());
      d2h[k] = std::max(d2h[k], gb / std::chrono::duration<double>(Clock::now() - t0).count());
    });
  }
  for (std::size_t k = 0; k < devices.size(); ++k) {
    links[k].h2d_together = h2d[k];
    links[k].d2h_together = d2h[k];
  }
  return links;
}

/// GB/s of add(x, y) on `rt`, checking every element of the last result.
double add_gbps(ufjit::Runtime &rt, const ufjit::ArrayView &x, const ufjit::ArrayView &y, int reps, bool &exact) {
  ufjit::Ufunc add = rt.vectorize(kAdd);
  ufjit::Array result;
  const double s = median_seconds(reps, [&] { result = add(x, y); });
  const auto *got = static_cast<const float *>(result.data());
  const auto *a = static_cast<const float *>(x.data);
  const auto *b = static_cast<const float *>(y.data);
  for (int64_t i = 0; i < x.size(); ++i) {
    exact = exact && got[i] == a[i] + b[i];
  }
  return 3.0 * static_cast<double>(x.size()) * 4 / 1e9 / s;
}

}  // namespace

int main(int argc, char **argv) {
  int log2 = 28;
  int reps = 5;
  std::string json_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--log2") log2 = std::stoi(argv[i + 1]);
    else if (flag == "--reps") reps = std::stoi(argv[i + 1]);
    else if (flag == "--json") json_path = argv[i + 1];
  }
  const ufjit::DriverInfo info = ufjit::device_info();
  if (!info.available || info.devices.size() < 2) {
    std::printf("bench_devices: skipped (needs two CUDA devices; this host has %zu)\n", info.devices.size());
    return 0;
  }
  const int64_t n = int64_t{1} << log2;
  std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    x[static_cast<std::size_t>(i)] = static_cast<float>(i % 1000);
    y[static_cast<std::size_t>(i)] = 0.5f;
  }
  ufjit::Runtime one(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cuda, .devices = {0}});
  ufjit::Runtime all(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cuda, .devices = {ufjit::kAllDevices}});
  const std::size_t device_count = all.devices().size();
  // Page-locked copies of the inputs (to_host returns page-locked memory).
  ufjit::Array px = all.to_host(all.to_device(ufjit::view(x)).view());
  ufjit::Array py = all.to_host(all.to_device(ufjit::view(y)).view());
  bool exact = true;
  const double one_pageable = add_gbps(one, ufjit::view(x), ufjit::view(y), reps, exact);
  const double all_pageable = add_gbps(all, ufjit::view(x), ufjit::view(y), reps, exact);
  const double one_pinned = add_gbps(one, px.view(), py.view(), reps, exact);
  const double all_pinned = add_gbps(all, px.view(), py.view(), reps, exact);
  const std::vector<Link> links = measure_links(all, px.view(), reps);

  std::printf("add of 2^%d float32 host arrays, %zu GPUs (GB/s moved, 3 arrays):\n", log2, device_count);
  std::printf("  pageable inputs: one GPU %.1f, all %.1f (%.2fx)\n", one_pageable, all_pageable,
              all_pageable / one_pageable);
  std::printf("  page-locked inputs: one GPU %.1f, all %.1f (%.2fx)\n", one_pinned, all_pinned, all_pinned / one_pinned);
  for (const Link &l : links) {
    std::printf("  link of device %d: H2D %.1f alone / %.1f together, D2H %.1f alone / %.1f together GB/s\n", l.device,
                l.h2d_alone, l.h2d_together, l.d2h_alone, l.d2h_together);
  }
  std::printf("  results %s\n", exact ? "exact" : "WRONG");
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "{\"log2\": " << log2 << ", \"devices\": " << device_count << ", \"exact\": " << (exact ? "true" : "false")
        << ", \"pageable\": {\"one\": " << one_pageable << ", \"all\": " << all_pageable << "}"
        << ", \"pinned\": {\"one\": " << one_pinned << ", \"all\": " << all_pinned << "}, \"links\": [";
    for (std::size_t k = 0; k < links.size(); ++k) {
      const Link &l = links[k];
      out << (k ? ", " : "") << "{\"device\": " << l.device << ", \"h2d_alone\": " << l.h2d_alone
          << ", \"h2d_together\": " << l.h2d_together << ", \"d2h_alone\": " << l.d2h_alone
          << ", \"d2h_together\": " << l.d2h_together << "}";
    }
    out << "]}\n";
  }
  return exact ? 0 : 1;
}
