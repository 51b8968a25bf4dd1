// Memory marked read-only (ArrayView::read_only: a view of const data,
// a DLPack tensor its producer flagged) is never written: a call that would
// write it (an out, a gufunc's writable_args input, a method's out) throws
// InputError naming it before anything runs, and inputs are still read.
// CPU target.
#include <gtest/gtest.h>
#include <ufjit/ufjit.h>

#include <string>
#include <vector>

namespace {

using ufjit::Array;
using ufjit::ArrayView;
using ufjit::InputError;
using ufjit::Operand;
using ufjit::TargetKind;

constexpr const char *kAdd = "def add(a, b):\n    return a + b\n";
constexpr const char *kBump = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:], float64[:])"], "(n)->(n)", writable_args=(0,))
def bump(a, out):
    for i in range(a.shape[0]):
        a[i] = a[i] + 1
        out[i] = a[i]
)src";

/// Runs `fn`, which must throw InputError whose message holds `needle`.
template <typename Fn>
void expect_input_error(Fn fn, const std::string &needle, const std::string &what) {
  try {
    fn();
    ADD_FAILURE() << what << ": no error";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << what << ": " << e.what();
  } catch (const std::exception &e) {
    ADD_FAILURE() << what << ": not an InputError: " << e.what();
  }
}

class ReadOnly : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ufjit::RuntimeOptions options;
    options.target = TargetKind::Cpu;
    options.cpu_threads = 1;
    rt_ = new ufjit::Runtime(options);
    add_ = new ufjit::Ufunc(rt_->vectorize(kAdd, {"float64(float64, float64)"}));
    bump_ = new ufjit::Ufunc(rt_->vectorize(kBump));
  }
  static void TearDownTestSuite() {
    delete bump_;
    delete add_;
    delete rt_;
  }
  ArrayView x_view() { return ufjit::view(x_); }
  ArrayView out_view() { return ufjit::view(out_); }

  static ufjit::Runtime *rt_;
  static ufjit::Ufunc *add_;
  static ufjit::Ufunc *bump_;
  std::vector<double> x_{1, 2, 3};
  std::vector<double> out_{0, 0, 0};
};

ufjit::Runtime *ReadOnly::rt_ = nullptr;
ufjit::Ufunc *ReadOnly::add_ = nullptr;
ufjit::Ufunc *ReadOnly::bump_ = nullptr;


TEST_F(ReadOnly, AReadOnlyOutIsRefusedAndLeftUnwritten) {
  ArrayView o = out_view();
  o.read_only = true;
  expect_input_error([&] { (*add_)(x_view(), x_view(), ufjit::out(o)); }, "out of 'add'", "out");
  EXPECT_EQ(out_, (std::vector<double>{0, 0, 0}));
  const std::vector<double> constant{0, 0, 0};
  expect_input_error([&] { (*add_)(x_view(), x_view(), ufjit::out(ufjit::view(constant))); }, "is read-only",
                     "out of a const vector");
  EXPECT_EQ(constant, (std::vector<double>{0, 0, 0}));
  // An empty read-only out is refused too (NumPy: output array is read-only).
  ArrayView empty = o;
  empty.shape = {0};
  expect_input_error([&] { (*add_)(std::vector<double>{}, std::vector<double>{}, ufjit::out(empty)); },
                     "is read-only", "empty out");
}

TEST_F(ReadOnly, AReadOnlyOutIsRefusedAfterTheSameCallRanWritable) {
  // The second call has the first one's structure (CallPlan.h): its plan
  // must not skip the check.
  (*add_)(x_view(), x_view(), ufjit::out(out_view()));
  EXPECT_EQ(out_, (std::vector<double>{2, 4, 6}));
  ArrayView o = out_view();
  o.read_only = true;
  expect_input_error([&] { (*add_)(x_view(), x_view(), ufjit::out(o)); }, "is read-only", "out after a plan");
  EXPECT_EQ(out_, (std::vector<double>{2, 4, 6}));
}

TEST_F(ReadOnly, AReadOnlyWritableArgIsRefusedAndLeftUnwritten) {
  ArrayView a = x_view();
  a.read_only = true;
  expect_input_error([&] { (void)bump_->call_all({Operand(a)}); }, "input 1 of 'bump', in writable_args",
                     "writable_args");
  expect_input_error(
      [&] {
        (void)bump_->call_all({Operand(a), Operand(ufjit::out(out_view()))});
      },
      "is read-only", "writable_args with out");
  EXPECT_EQ(x_, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(out_, (std::vector<double>{0, 0, 0}));
  // A const vector is read-only; a mutable one is written in place.
  const std::vector<double> fixed{1, 2, 3};
  expect_input_error([&] { (void)bump_->outputs(fixed); }, "is read-only", "const vector");
  EXPECT_EQ(fixed, (std::vector<double>{1, 2, 3}));
  std::vector<double> values{1, 2, 3};
  std::vector<Array> results = bump_->outputs(values);
  EXPECT_EQ(values, (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(results.at(0).to_vector<double>(), (std::vector<double>{2, 3, 4}));
}

TEST_F(ReadOnly, ReadOnlyInputsAreRead) {
  ArrayView a = x_view();
  a.read_only = true;
  EXPECT_EQ((*add_)(a, a).to_vector<double>(), (std::vector<double>{2, 4, 6}));
}

TEST_F(ReadOnly, MethodsRefuseAReadOnlyOut) {
  ArrayView o = out_view();
  o.read_only = true;
  ArrayView scalar_out = o;
  scalar_out.shape = {};
  scalar_out.strides = {};
  expect_input_error([&] { (void)add_->reduce(x_view(), {}, ufjit::out(scalar_out)); }, "out of 'add'.reduce",
                     "reduce");
  expect_input_error([&] { (void)add_->accumulate(x_view(), {}, ufjit::out(o)); }, "out of 'add'.accumulate",
                     "accumulate");
  std::vector<double> square(9, 0.0);
  ArrayView sq = ufjit::view(square.data(), {3, 3});
  sq.read_only = true;
  expect_input_error([&] { (void)add_->outer(x_view(), x_view(), ufjit::out(sq)); }, "is read-only", "outer");
  EXPECT_EQ(out_, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(square, std::vector<double>(9, 0.0));
}

}  // namespace
