// libFuzzer target over the call path (runtime/Call.cpp and what it calls)
// on the CPU target: the input bytes choose views (dtypes, shapes with
// negative, zero and huge dims, strides negative, zero, odd or huge, byte
// offsets, null data, device residence) over one fixed 4096-byte buffer
// that sits between two inaccessible pages, and whether `out` is given.
// The public structs' enum fields also take raw byte values, most of them
// none of the enumerators (a view's dtype and residence, an operand's kind,
// a scalar's dtype, reduce's dtype= and initial=), as a cast or
// deserialised value would. Each call must either succeed, touching only
// the buffer (an access outside it faults on a guard page), or throw a
// ufjit::Error other than InternalError; any other exception, an
// InternalError, a crash, a hang or a sanitizer report is a bug.
//
// Built by tests/fuzz/build_call_fuzzer.sh with clang-19: this harness is
// instrumented (libFuzzer, ASan, UBSan) and linked against the g++-built
// libufjit.so of the main build, which is NOT instrumented: the guard
// pages, not ASan, catch out-of-bounds accesses of the library and of the
// JIT-compiled kernels.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <ufjit/ufjit.h>

extern "C" const char *__asan_default_options() {  // NOLINT: the sanitizer's hook
  // Huge allocations come back as null (an InputError from ufjit) instead
  // of an ASan report.
  return "allocator_may_return_null=1:max_allocation_size_mb=4096:detect_leaks=1";
}

namespace {

constexpr std::size_t kBufferBytes = 4096;
constexpr int64_t kMaxWork = int64_t{1} << 16;       // elements a call may loop over
constexpr int64_t kSureToFail = int64_t{1} << 33;    // elements whose allocation must fail (4 GiB cap)

/// The buffer, page-aligned, with a PROT_NONE page on each side.
unsigned char *guarded_buffer() {
  static unsigned char *buffer = [] {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void *region = mmap(nullptr, kBufferBytes + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) std::abort();
    auto *start = static_cast<unsigned char *>(region) + page;
    if (mprotect(start, kBufferBytes, PROT_READ | PROT_WRITE) != 0) std::abort();
    return start;
  }();
  return buffer;
}

struct Ufuncs {
  ufjit::Runtime rt{ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu, .cpu_threads = 1}};
  std::vector<ufjit::Ufunc> all;
  Ufuncs() {
    all.push_back(rt.vectorize("def f(a, b):\n    return a * 3 + b\n",
                               {"float64(float64, float64)", "int32(int32, int32)", "uint8(uint8, uint8)"}));
    all.push_back(rt.vectorize("def g(x):\n    return x * 2\n", {"float32(float32)", "complex128(complex128)"}));
    all.push_back(rt.vectorize("def h(a, b, c):\n    return a + b * c\n", {"int64(int64, int64, int64)"}));
  }
};

/// Reads the fuzzer's bytes; zeros once they run out.
class Bytes {
 public:
  Bytes(const uint8_t *data, std::size_t size) : data_(data), size_(size) {}
  uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }
  int64_t next_i64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | next();
    return static_cast<int64_t>(v);
  }

 private:
  const uint8_t *data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

const ufjit::DType kDtypes[] = {ufjit::DType::Float64, ufjit::DType::Int32,     ufjit::DType::UInt8,
                                ufjit::DType::Float32, ufjit::DType::Complex128, ufjit::DType::Int64,
                                ufjit::DType::Bool,    ufjit::DType::Int8,      ufjit::DType::Float16};

int64_t pick_dim(Bytes &in) {
  const uint8_t b = in.next();
  switch (b >> 5) {
    case 0: return -static_cast<int64_t>(b & 7);           // negative (or 0)
    case 1: return int64_t{1} << (b & 63);                // huge powers of two
    case 2: return in.next_i64();                         // anything
    default: return b & 7;                                // small, 0 and 1 included
  }
}

int64_t pick_stride(Bytes &in, int64_t itemsize) {
  const uint8_t b = in.next();
  const int64_t k = static_cast<int8_t>(in.next());
  switch (b & 7) {
    case 0: return 0;
    case 1: return k;                                     // any small byte stride
    case 2: return int64_t{1} << (b >> 2);                // huge
    case 3: return in.next_i64();
    default: return k * itemsize;                         // element multiples, negative too
  }
}

/// The bytes [lo, hi) a view touches relative to its data pointer. False
/// when the view is invalid (dims and strides differ in number, a negative
/// dim, an extent that overflows int64): such a view must be rejected
/// before anything runs, wherever it points. An empty view gives {0, 0}.
bool byte_range(const ufjit::ArrayView &v, int64_t *lo, int64_t *hi) {
  *lo = 0;
  *hi = 0;
  if (v.strides.size() != v.shape.size()) return false;
  for (int64_t d : v.shape) {
    if (d < 0) return false;
  }
  for (int64_t d : v.shape) {
    if (d == 0) return true;
  }
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    int64_t span = 0;
    if (__builtin_mul_overflow(v.strides[d], v.shape[d] - 1, &span)) return false;
    int64_t *side = span < 0 ? lo : hi;
    if (__builtin_add_overflow(*side, span, side)) return false;
  }
  return !__builtin_add_overflow(*hi, static_cast<int64_t>(ufjit::dtype_size(v.dtype)), hi);
}

/// An operand view over the buffer (or a null/device pointer). A valid view
/// is placed so that it lies inside the buffer; `fits` is false when it is
/// valid but larger than the buffer (the caller skips such a call: it would
/// be the caller's own overrun, which no library can see).
ufjit::ArrayView pick_view(Bytes &in, ufjit::DType preferred, bool *fits) {
  ufjit::ArrayView v;
  const uint8_t b = in.next();
  v.dtype = (b & 3) != 0 ? preferred : kDtypes[(b >> 2) % std::size(kDtypes)];
  const int ndim = (b & 0x80) != 0 ? in.next() % 11 : in.next() % 4;
  const auto itemsize = static_cast<int64_t>(ufjit::dtype_size(v.dtype));
  for (int d = 0; d < ndim; ++d) {
    v.shape.push_back(pick_dim(in));
    v.strides.push_back(pick_stride(in, itemsize));
  }
  if (in.next() % 16 == 0 && !v.strides.empty()) v.strides.pop_back();
  const auto offset = static_cast<int64_t>(in.next() << 8 | in.next());
  int64_t lo = 0;
  int64_t hi = 0;
  *fits = true;
  if (byte_range(v, &lo, &hi) && hi > lo) {
    int64_t length = 0;
    const bool huge = __builtin_sub_overflow(hi, lo, &length);
    const int64_t room = huge ? -1 : static_cast<int64_t>(kBufferBytes) - length;
    *fits = room >= 0;
    v.data = guarded_buffer() + (*fits ? -lo + offset % (room + 1) : 0);
  } else {
    v.data = guarded_buffer() + offset % static_cast<int64_t>(kBufferBytes);
  }
  const uint8_t where = in.next();
  if (where == 1) v.data = nullptr;
  if (where == 2) v.residence = ufjit::Residence::Device;
  if (where == 3) v.residence = static_cast<ufjit::Residence>(in.next());  // any value of the enum's type
  if (where == 4) v.dtype = static_cast<ufjit::DType>(in.next());
  if (where == 5) {
    v.residence = ufjit::Residence::Device;
    v.device = static_cast<int8_t>(in.next());
  }
  if (where == 6) v.read_only = true;  // refused wherever the call would write it
  return v;
}

/// Product of the broadcast dims (max per aligned dim), or -1 when a dim
/// is negative or the product overflows: such a call must fail its checks.
int64_t work_of(const std::vector<ufjit::Operand> &ops) {
  std::size_t ndim = 0;
  for (const ufjit::Operand &op : ops) {
    if (op.kind != ufjit::Operand::Kind::Scalar) ndim = std::max(ndim, op.array.shape.size());
  }
  std::vector<int64_t> dims(ndim, 0);
  for (const ufjit::Operand &op : ops) {
    if (op.kind == ufjit::Operand::Kind::Scalar) continue;
    const std::size_t lead = ndim - op.array.shape.size();
    for (std::size_t d = 0; d < op.array.shape.size(); ++d) {
      if (op.array.shape[d] < 0) return -1;
      dims[lead + d] = std::max(dims[lead + d], op.array.shape[d]);
    }
  }
  int64_t n = 1;
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

/// Reduce's options from the bytes: axes, keepdims, and dtype= and initial=
/// with values of any byte (most of them no DType).
ufjit::ReduceOptions reduce_options(Bytes &in) {
  ufjit::ReduceOptions options;
  const uint8_t b = in.next();
  for (int k = 0; k < (b & 3); ++k) {
    options.axes.push_back(static_cast<int8_t>(in.next()));
  }
  options.all_axes = (b & 4) != 0;
  options.keepdims = (b & 8) != 0;
  if ((b & 16) != 0) options.dtype = static_cast<ufjit::DType>(in.next());
  if ((b & 32) != 0) {
    ufjit::Operand initial(static_cast<double>(static_cast<int8_t>(in.next())));
    if ((b & 64) != 0) initial.scalar.dtype = static_cast<ufjit::DType>(in.next());
    options.initial = initial;
  }
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  static Ufuncs ufuncs;
  Bytes in(data, size);
  const ufjit::Ufunc &f = ufuncs.all[in.next() % ufuncs.all.size()];
  const uint8_t shape_of_call = in.next();
  const int n_inputs = f.name() == "g" ? 1 : f.name() == "h" ? 3 : 2;
  const ufjit::DType preferred = f.name() == "g" ? ufjit::DType::Float32
                                 : f.name() == "h" ? ufjit::DType::Int64
                                                   : kDtypes[shape_of_call % 3];
  std::vector<ufjit::Operand> ops;
  bool all_fit = true;
  for (int i = 0; i < n_inputs + ((shape_of_call & 0x10) != 0 ? 1 : 0); ++i) {
    const uint8_t kind = in.next();
    bool fits = true;
    if (i == n_inputs) {
      ops.emplace_back(ufjit::out(pick_view(in, preferred, &fits)));
    } else if (kind == 0xFE) {  // a scalar whose dtype (and weakness) is any byte
      ufjit::Operand scalar(1.5);
      scalar.scalar.dtype = static_cast<ufjit::DType>(in.next());
      scalar.scalar.weak = (in.next() & 1) != 0;
      ops.push_back(scalar);
    } else if (kind == 0xFF) {  // an operand whose kind is any byte
      ufjit::Operand any(pick_view(in, preferred, &fits));
      any.kind = static_cast<ufjit::Operand::Kind>(in.next());
      ops.push_back(any);
    } else if (kind % 4 == 0) {
      ops.emplace_back(static_cast<int>(static_cast<int8_t>(in.next())));
    } else if (kind % 4 == 1) {
      ops.emplace_back(static_cast<double>(static_cast<int8_t>(in.next())) / 4);
    } else {
      ops.emplace_back(pick_view(in, preferred, &fits));
    }
    all_fit = all_fit && fits;
  }
  if ((shape_of_call & 0x20) != 0) ops.emplace_back(1.0);  // a wrong operand count now and then

  // Skip calls that would be the caller's own overrun (a valid view larger
  // than the buffer) or only slow (large but valid loops). Calls whose
  // element count overflows, or is so large that every allocation for it
  // fails, or whose `out` is invalid, must throw before any work.
  if (!all_fit) return 0;
  const int64_t work = work_of(ops);
  const auto out = std::find_if(ops.begin(), ops.end(),
                                [](const ufjit::Operand &op) { return op.kind == ufjit::Operand::Kind::Out; });
  const bool has_out = out != ops.end();
  int64_t lo = 0;
  int64_t hi = 0;
  const bool out_invalid = has_out && !byte_range(out->array, &lo, &hi);
  if (work > kMaxWork && !out_invalid && (has_out || work < kSureToFail)) return 0;

  // A call with a read-only `out` is refused before anything runs: the
  // buffer must come out as it went in.
  const bool read_only_out = std::any_of(ops.begin(), ops.end(), [](const ufjit::Operand &op) {
    return op.kind == ufjit::Operand::Kind::Out && op.array.read_only;
  });
  std::vector<unsigned char> before;
  if (read_only_out) before.assign(guarded_buffer(), guarded_buffer() + kBufferBytes);
  try {
    if ((shape_of_call & 0x40) != 0 && !ops.empty() && f.name() == "f") {
      (void)f.reduce(ops.front(), reduce_options(in));
    } else {
      (void)f.call(ops);
    }
  } catch (const ufjit::InternalError &e) {
    std::fprintf(stderr, "an InternalError for a caller's mistake: %s\n", e.what());
    std::abort();
  } catch (const ufjit::Error &) {
    // A typed error: fine.
  }
  if (read_only_out && std::memcmp(before.data(), guarded_buffer(), kBufferBytes) != 0) {
    std::fprintf(stderr, "a read-only out was written\n");
    std::abort();
  }
  return 0;
}
