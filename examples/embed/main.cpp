// An embedding program: compiles a ufunc from a string, applies it to a
// host vector with a broadcast scalar, and checks the result against a loop.
// It uses only the installed public header and libufjit.so.
#include <ufjit/ufjit.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  try {
    ufjit::Runtime rt;  // the first CUDA GPU, else the CPU
    ufjit::Ufunc axpy = rt.vectorize(R"(
def axpy(a, x, y):
    return a * x + y
)", {"float32(float32, float32, float32)", "float64(float64, float64, float64)"});

    std::vector<float> x(1000), y(1000), r(1000);
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<float>(i) * 0.5f;
      y[i] = 1.0f - static_cast<float>(i);
    }
    axpy(2.0, ufjit::view(x), ufjit::view(y), ufjit::out(r));

    int mismatches = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::fabs(r[i] - (2.0f * x[i] + y[i])) > 1e-5f) ++mismatches;
    }
    std::printf("embed: ufjit %s, axpy over %zu float32 on %s: %s\n", ufjit::version().c_str(), x.size(),
                rt.target() == ufjit::TargetKind::Cuda ? "cuda" : "cpu", mismatches == 0 ? "OK" : "MISMATCH");
    return mismatches == 0 ? 0 : 1;
  } catch (const ufjit::Error &e) {
    std::fprintf(stderr, "embed: %s\n", e.what());
    return 1;
  }
}
