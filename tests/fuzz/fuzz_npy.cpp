// libFuzzer target over the .npy reader (ufjit/npy.h): arbitrary bytes are
// parsed from memory (parse_npy) and, as a file, through the memory-mapped
// reader (load_npy). Either must return a valid array or throw InputError;
// anything else (a crash, a sanitizer report, another exception, an array
// whose view reaches past its data) is a bug. A valid array is touched end
// to end, written back with serialize_npy and read again, which must give
// the same bytes: the reader and the writer agree.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ufjit/errors.h"
#include "ufjit/npy.h"

namespace {

/// Reads every byte the view spans (ASan catches a view past its data).
uint64_t touch(const ufjit::ArrayView &v) {
  const std::size_t itemsize = ufjit::dtype_size(v.dtype);
  int64_t lo = 0;
  int64_t hi = 0;
  for (int d = 0; d < v.ndim(); ++d) {
    if (v.shape[d] == 0) {
      return 0;
    }
    const int64_t reach = (v.shape[d] - 1) * v.strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  const auto *base = static_cast<const uint8_t *>(v.data);
  uint64_t sum = 0;
  for (int64_t off = lo; off < hi + static_cast<int64_t>(itemsize); ++off) {
    sum += base[off];
  }
  return sum;
}

void check_array(const ufjit::Array &a, const char *how) {
  (void)touch(a.view());
  const std::string bytes = ufjit::serialize_npy(a.view());
  ufjit::Array back = ufjit::parse_npy(bytes, "<round trip>");
  if (back.shape() != a.shape() || back.dtype() != a.dtype() || ufjit::serialize_npy(back.view()) != bytes) {
    std::fprintf(stderr, "%s: the array does not survive serialize_npy + parse_npy\n", how);
    std::abort();
  }
}

/// A file in TMPDIR that holds the current input (one per process, reused).
const std::string &scratch_path() {
  static const std::string path = [] {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/ufjit_fuzz_npy_" +
           std::to_string(::getpid()) + ".npy";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char *>(data), size);
  try {
    check_array(ufjit::parse_npy(bytes, "fuzz.npy"), "parse_npy");
  } catch (const ufjit::InputError &) {
  }
  std::FILE *f = std::fopen(scratch_path().c_str(), "wb");
  if (f == nullptr) {
    return 0;
  }
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    check_array(ufjit::load_npy(scratch_path()), "load_npy");
  } catch (const ufjit::InputError &) {
  }
  std::remove(scratch_path().c_str());
  return 0;
}
