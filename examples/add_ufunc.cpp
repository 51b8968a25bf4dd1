// add_ufunc.ufn: int64 addition with broadcasting, checked against a loop.
#include <cstdio>
#include <numeric>
#include <vector>

#include "example_util.h"

int main() {
  try {
    ufjit::Runtime rt;
    ufjit::UfuncSet kernels = rt.load_file(example::ufn_path("add_ufunc.ufn"));
    const ufjit::Ufunc &add = kernels["add_ufunc"];

    const int64_t n = 100000;
    std::vector<int64_t> x(n);
    std::iota(x.begin(), x.end(), int64_t{-50000});
    std::vector<int64_t> y(n);
    for (int64_t i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = 3 * i;

    ufjit::Array sum = example::on_host(rt, add(ufjit::view(x), ufjit::view(y)));
    // A (2, 1) column plus a (3,) row broadcasts to (2, 3).
    std::vector<int64_t> col = {10, 20};
    std::vector<int64_t> row = {1, 2, 3};
    ufjit::Array grid =
        example::on_host(rt, add(ufjit::view(col.data(), {2, 1}), ufjit::view(row.data(), {3})));

    int64_t mismatches = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (sum.host_data<int64_t>()[i] != x[static_cast<std::size_t>(i)] + y[static_cast<std::size_t>(i)]) ++mismatches;
    }
    const std::vector<int64_t> expected_grid = {11, 12, 13, 21, 22, 23};
    if (grid.to_vector<int64_t>() != expected_grid) ++mismatches;
    std::printf("add_ufunc: %lld elements + a (2,1)x(3,) broadcast on %s: %s\n", static_cast<long long>(n),
                example::target_name(rt.target()), mismatches == 0 ? "OK" : "MISMATCH");
    return mismatches == 0 ? 0 : 1;
  } catch (const ufjit::Error &e) {
    std::fprintf(stderr, "add_ufunc: %s\n", e.what());
    return 1;
  }
}
