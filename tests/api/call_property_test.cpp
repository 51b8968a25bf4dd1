// Property tests of the call path on the CPU target: seeded random calls
// (shapes with 0- and 1-sized dims, C/Fortran/permuted layouts, gaps,
// negative and zero strides, scalars, `out` placed anywhere in the same
// buffer as the inputs, so overlapping them at random) checked against
// NumPy's semantics written out below as plain loops:
//   - the call's shape is the inputs' broadcast shape, or out's shape;
//   - every input is read before out is written (overlap is invisible);
//   - elements outside out are never written.
// Deterministic (fixed seeds) and quick: a few hundred calls per dtype.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <sstream>

#include <ufjit/ufjit.h>

#include "call_test_util.h"

namespace {

using ufjit::ArrayView;
using ufjit::DType;
using Shape = std::vector<int64_t>;
using ufjit::testing::for_each_index;

constexpr int64_t kBufferElements = 2048;

/// One operand of a random call: a weak integer scalar, or a view into the
/// shared buffer given by element offset and element strides.
struct RandomOperand {
  bool scalar = false;
  int64_t value = 0;
  Shape shape;
  int64_t offset = 0;
  std::vector<int64_t> strides;  // elements
};

std::string describe(const RandomOperand &op) {
  std::ostringstream os;
  if (op.scalar) {
    os << "scalar " << op.value;
    return os.str();
  }
  os << "shape (";
  for (int64_t d : op.shape) os << d << ",";
  os << ") offset " << op.offset << " strides (";
  for (int64_t s : op.strides) os << s << ",";
  os << ")";
  return os.str();
}

class Random {
 public:
  explicit Random(uint64_t seed) : gen_(seed) {}
  int64_t in(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen_); }
  bool chance(int percent) { return in(0, 99) < percent; }

  Shape shape() {
    Shape s(static_cast<std::size_t>(in(0, 4)));
    for (int64_t &d : s) {
      const int64_t pick = in(0, 9);
      d = pick == 0 ? 0 : pick <= 2 ? 1 : in(2, 5);
    }
    return s;
  }

  /// A shape that broadcasts to `full`: a suffix of it with some dims 1.
  Shape broadcastable_to(const Shape &full) {
    Shape s(full.begin() + in(0, static_cast<int64_t>(full.size())), full.end());
    for (int64_t &d : s) {
      if (chance(25)) d = 1;
    }
    return s;
  }

  /// Distinct-element strides (a permuted packed layout with gaps and
  /// sign flips); `allow_zero` adds stride-0 dims (inputs only).
  std::vector<int64_t> strides(const Shape &shape, bool allow_zero) {
    std::vector<int> order(shape.size());
    std::iota(order.begin(), order.end(), 0);
    const int64_t layout = in(0, 2);
    if (layout == 1) std::reverse(order.begin(), order.end());  // Fortran
    if (layout == 2) std::shuffle(order.begin(), order.end(), gen_);
    std::vector<int64_t> strides(shape.size());
    int64_t step = chance(30) ? in(2, 3) : 1;
    for (std::size_t k = order.size(); k-- > 0;) {
      const auto d = static_cast<std::size_t>(order[k]);
      strides[d] = step;
      step *= std::max<int64_t>(shape[d], 1) * (chance(15) ? 2 : 1);
    }
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (chance(30)) strides[d] = -strides[d];
      if (allow_zero && chance(15)) strides[d] = 0;
    }
    return strides;
  }

  /// Places a view in the buffer; false when it does not fit.
  bool place(RandomOperand &op) {
    int64_t lo = 0;
    int64_t hi = 0;
    for (std::size_t d = 0; d < op.shape.size(); ++d) {
      if (op.shape[d] == 0) return place_anywhere(op);
      const int64_t span = op.strides[d] * (op.shape[d] - 1);
      (span < 0 ? lo : hi) += span;
    }
    if (hi - lo >= kBufferElements) return false;
    op.offset = in(-lo, kBufferElements - 1 - hi);
    return true;
  }

  std::mt19937_64 &gen() { return gen_; }

 private:
  bool place_anywhere(RandomOperand &op) {
    op.offset = in(0, kBufferElements - 1);
    return true;
  }
  std::mt19937_64 gen_;
};

/// The element offset of operand `op` at an index of the call's shape.
int64_t element_offset(const RandomOperand &op, const Shape &index) {
  int64_t offset = op.offset;
  const std::size_t lead = index.size() - op.shape.size();
  for (std::size_t d = 0; d < op.shape.size(); ++d) {
    if (op.shape[d] != 1) offset += index[lead + d] * op.strides[d];
  }
  return offset;
}


Shape broadcast(const std::vector<RandomOperand> &inputs) {
  std::size_t ndim = 0;
  for (const RandomOperand &op : inputs) {
    if (!op.scalar) ndim = std::max(ndim, op.shape.size());
  }
  Shape result(ndim, 1);
  for (const RandomOperand &op : inputs) {
    if (op.scalar) continue;
    for (std::size_t d = 0; d < op.shape.size(); ++d) {
      int64_t &r = result[ndim - op.shape.size() + d];
      if (op.shape[d] != 1) r = op.shape[d];
    }
  }
  return result;
}

template <typename T>
class CallProperty : public ::testing::Test {};

using Dtypes = ::testing::Types<int32_t, int64_t, float, double, uint8_t>;
TYPED_TEST_SUITE(CallProperty, Dtypes);

/// f(a, b) = a * 3 + b, computed in T (values stay small: exact in every T,
/// and uint8 wraps as NumPy's does).
template <typename T>
T reference(T a, T b) {
  return static_cast<T>(a * static_cast<T>(3) + b);
}

TYPED_TEST(CallProperty, RandomViewsScalarsAndOverlapsMatchNumPySemantics) {
  using T = TypeParam;
  const DType dtype = ufjit::dtype_of<T>();
  const std::string name(ufjit::dtype_name(dtype));
  ufjit::Runtime rt(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
  ufjit::Ufunc f = rt.vectorize("def f(a, b):\n    return a * 3 + b\n", {name + "(" + name + ", " + name + ")"});
  Random rng(0x5eed0000 + static_cast<uint64_t>(dtype));
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    // ---- a random call
    const bool with_out = rng.chance(60);
    const Shape full = rng.shape();
    std::vector<RandomOperand> inputs(2);
    bool fits = true;
    for (RandomOperand &op : inputs) {
      op.scalar = rng.chance(20);
      if (op.scalar) {
        op.value = rng.in(0, 9);
        continue;
      }
      op.shape = rng.broadcastable_to(full);
      op.strides = rng.strides(op.shape, true);
      fits = fits && rng.place(op);
    }
    RandomOperand out;
    if (with_out) {
      out.shape = full;
      out.strides = rng.strides(out.shape, false);
      fits = fits && rng.place(out);
    }
    if (!fits) continue;
    std::vector<T> buffer(kBufferElements);
    for (T &x : buffer) x = static_cast<T>(rng.in(0, 40));
    const std::vector<T> before = buffer;
    auto view_of = [&](const RandomOperand &op) {
      std::vector<int64_t> bytes(op.strides.size());
      for (std::size_t d = 0; d < bytes.size(); ++d) bytes[d] = op.strides[d] * static_cast<int64_t>(sizeof(T));
      return ArrayView{buffer.data() + op.offset, dtype, op.shape, bytes};
    };
    std::vector<ufjit::Operand> operands;
    for (const RandomOperand &op : inputs) {
      if (op.scalar) {
        operands.emplace_back(op.value);
      } else {
        operands.emplace_back(view_of(op));
      }
    }
    if (with_out) operands.emplace_back(ufjit::out(view_of(out)));
    const Shape shape = with_out ? full : broadcast(inputs);
    std::ostringstream what;
    what << "trial " << trial << ": a " << describe(inputs[0]) << "; b " << describe(inputs[1]);
    if (with_out) what << "; out " << describe(out);

    // ---- the reference: every input read (from `before`) before writing
    auto input_value = [&](const RandomOperand &op, const Shape &index) {
      return op.scalar ? static_cast<T>(op.value) : before[static_cast<std::size_t>(element_offset(op, index))];
    };
    std::vector<T> expected = before;
    std::vector<T> expected_result;
    for_each_index(shape, [&](const Shape &index) {
      const T value = reference<T>(input_value(inputs[0], index), input_value(inputs[1], index));
      if (with_out) {
        expected[static_cast<std::size_t>(element_offset(out, index))] = value;
      } else {
        expected_result.push_back(value);
      }
    });

    // ---- the call
    ufjit::Array result;
    try {
      result = f.call(operands);
    } catch (const ufjit::Error &e) {
      FAIL() << what.str() << ": " << e.what();
    }
    ASSERT_EQ(buffer, expected) << what.str();
    if (!with_out) {
      ASSERT_EQ(result.shape(), shape) << what.str();
      ASSERT_EQ(result.to_vector<T>(), expected_result) << what.str();
    }
    ++checked;
  }
  EXPECT_GT(checked, 300) << "too many random views did not fit the buffer";
}

}  // namespace
