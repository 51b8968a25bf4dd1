// boundscheck=True (LANGUAGE.md section 8, "Arrays in the body"): an index
// still out of range after Python's one wrap raises IndexError through the
// raise flag, on the default target (UFJIT_TARGET=cuda runs this suite on the
// GPU). Expected values are the arrays' own elements, picked here by hand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

constexpr const char *kPick = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->()", boundscheck=True)
def pick(a, i, out):
    out[0] = a[i]
)src";

// The index is read only where the condition holds: no raise for the others.
constexpr const char *kPickGuarded = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->()", boundscheck=True)
def pick_guarded(a, i, out):
    out[0] = a[i] if i < a.shape[0] else -1.0
)src";

// Each axis is checked on its own: m[0, 3] of a 2x3 matrix lies inside the
// buffer (it is m[1, 0]) but outside axis 1.
constexpr const char *kMatrix = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:, :], int64, int64, float64[:])"], "(m,n),(),()->()", boundscheck=True)
def at(m, i, j, out):
    out[0] = m[i, j]
)src";

// A write out of range raises too; a slice out of range is clipped, as in Python.
constexpr const char *kWriteAndSlices = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->(n)", boundscheck=True)
def shifted(a, k, out):
    out[:] = 0
    for x in a[k:100]:
        out[0] += x
    for x in a[-100:1]:
        out[1] += x
    out[k] = 7.0
)src";

// A helper inherits the ufunc's option unless its decorator says otherwise.
constexpr const char *kHelpers = R"src(
from numba import guvectorize, njit

@njit(boundscheck=True)
def checked_get(a, i):
    return a[i]

def inherited_get(a, i):
    return a[i]

@guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->()")
def via_checked(a, i, out):
    out[0] = checked_get(a, i)

@guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->()", boundscheck=True)
def via_inherited(a, i, out):
    out[0] = inherited_get(a, i)
)src";

class Boundscheck : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { rt_ = std::make_unique<ufjit::Runtime>(); }
  static void TearDownTestSuite() { rt_.reset(); }
  static std::unique_ptr<ufjit::Runtime> rt_;

  /// Calls `f(a, index)` and expects IndexError at `line:col` of `file`.
  static void expect_index_error(const ufjit::Ufunc &f, const std::vector<double> &a, int64_t index,
                                 const std::string &file, int line, int col) {
    SCOPED_TRACE("index " + std::to_string(index));
    try {
      f(ufjit::view(a), index);
      FAIL() << "no KernelError for index " << index << " of " << a.size() << " elements";
    } catch (const ufjit::KernelError &e) {
      EXPECT_EQ(e.exception(), "IndexError");
      EXPECT_EQ(e.message(), "index is out of bounds");
      EXPECT_EQ(e.file(), file);
      EXPECT_EQ(e.line(), line);
      EXPECT_EQ(e.column(), col);
    }
  }
};
std::unique_ptr<ufjit::Runtime> Boundscheck::rt_;

TEST_F(Boundscheck, InRangeAndWrappedNegativeIndicesReadTheirElements) {
  ufjit::Ufunc f = rt_->vectorize(kPick, {}, "pick.py");
  std::vector<double> a{10, 11, 12, 13};
  std::vector<int64_t> idx{0, 1, 3, -1, -4};
  std::vector<double> got = rt_->to_host(f(ufjit::view(a), ufjit::view(idx)).view()).to_vector<double>();
  EXPECT_EQ(got, (std::vector<double>{10, 11, 13, 13, 10}));
}

TEST_F(Boundscheck, AnIndexOutOfRangeAfterTheWrapRaisesIndexErrorAtTheIndex) {
  ufjit::Ufunc f = rt_->vectorize(kPick, {}, "pick.py");
  std::vector<double> a{10, 11, 12, 13};
  for (int64_t i : {int64_t{4}, int64_t{-5}, int64_t{1} << 40, -(int64_t{1} << 62)}) {
    expect_index_error(f, a, i, "pick.py", 6, 16);
  }
}

TEST_F(Boundscheck, OneBadIndexAmongManyRaisesAfterTheCall) {
  ufjit::Ufunc f = rt_->vectorize(kPick, {}, "pick.py");
  std::vector<double> a{1, 2, 3};
  std::vector<int64_t> idx(100000, 1);
  idx[77777] = 3;
  EXPECT_THROW(f(ufjit::view(a), ufjit::view(idx)), ufjit::KernelError);
}

TEST_F(Boundscheck, AnIndexInAnArmNotTakenIsNotChecked) {
  ufjit::Ufunc f = rt_->vectorize(kPickGuarded, {}, "guarded.py");
  std::vector<double> a{5, 6};
  std::vector<int64_t> idx{1, 2, 1000};
  std::vector<double> got = rt_->to_host(f(ufjit::view(a), ufjit::view(idx)).view()).to_vector<double>();
  EXPECT_EQ(got, (std::vector<double>{6, -1, -1}));
}

TEST_F(Boundscheck, EachAxisIsCheckedOnItsOwn) {
  ufjit::Ufunc f = rt_->vectorize(kMatrix, {}, "matrix.py");
  std::vector<double> m{0, 1, 2, 3, 4, 5};
  ufjit::ArrayView mv = ufjit::view(m.data(), {2, 3});
  EXPECT_EQ(rt_->to_host(f(mv, int64_t{1}, int64_t{-1}).view()).to_vector<double>(), (std::vector<double>{5}));
  try {
    f(mv, int64_t{0}, int64_t{3});
    FAIL() << "no KernelError for m[0, 3] of a 2x3 matrix";
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(e.exception(), "IndexError");
    EXPECT_EQ(e.line(), 6);
    EXPECT_EQ(e.column(), 19);
  }
  EXPECT_THROW(f(mv, int64_t{2}, int64_t{0}), ufjit::KernelError);
}

TEST_F(Boundscheck, WritesAreCheckedAndSlicesAreClipped) {
  ufjit::Ufunc f = rt_->vectorize(kWriteAndSlices, {}, "write.py");
  std::vector<double> a{1, 2, 4, 8};
  // a[2:100] is a[2:4] (sum 12), a[-100:1] is a[0:1] (sum 1); out[2] = 7.
  std::vector<double> got = rt_->to_host(f(ufjit::view(a), int64_t{2}).view()).to_vector<double>();
  EXPECT_EQ(got, (std::vector<double>{12, 1, 7, 0}));
  expect_index_error(f, a, 4, "write.py", 11, 9);
}

TEST_F(Boundscheck, HelpersFollowTheirOwnOptionElseTheUfuncs) {
  std::vector<double> a{1, 2};
  ufjit::UfuncSet set = rt_->load(kHelpers, "helpers.py");
  ufjit::Ufunc checked = set["via_checked"];
  ufjit::Ufunc inherited = set["via_inherited"];
  expect_index_error(checked, a, 2, "helpers.py", 6, 14);
  expect_index_error(inherited, a, -3, "helpers.py", 9, 14);
}

/// Sets NUMBA_BOUNDSCHECK for one scope, restoring what was there.
class ScopedBoundscheckEnv {
 public:
  explicit ScopedBoundscheckEnv(const char *value) {
    if (const char *old = std::getenv("NUMBA_BOUNDSCHECK")) old_ = old;
    setenv("NUMBA_BOUNDSCHECK", value, 1);
  }
  ~ScopedBoundscheckEnv() {
    if (old_) {
      setenv("NUMBA_BOUNDSCHECK", old_->c_str(), 1);
    } else {
      unsetenv("NUMBA_BOUNDSCHECK");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST_F(Boundscheck, NumbaBoundscheckEnvironmentVariableOverridesTheDecorators) {
  std::vector<double> a{1, 2};
  {
    ScopedBoundscheckEnv on("1");
    // No option on the decorator: checked all the same.
    ufjit::Ufunc f = rt_->vectorize(
        "from numba import guvectorize\n\n"
        "@guvectorize(['void(float64[:], int64, float64[:])'], '(n),()->()')\n"
        "def env_on(a, i, out):\n    out[0] = a[i]\n",
        {}, "env_on.py");
    expect_index_error(f, a, 2, "env_on.py", 5, 16);
  }
  ScopedBoundscheckEnv off("0");
  // boundscheck=True on the decorator, off by the variable: an index past
  // the end but within the wrap (-1) still reads; no module raise site at all.
  ufjit::Ufunc g = rt_->vectorize(
      "from numba import guvectorize\n\n"
      "@guvectorize(['void(float64[:], int64, float64[:])'], '(n),()->()', boundscheck=True)\n"
      "def env_off(a, i, out):\n    out[0] = a[i]\n",
      {}, "env_off.py");
  EXPECT_EQ(rt_->to_host(g(ufjit::view(a), int64_t{-1}).view()).to_vector<double>(), (std::vector<double>{2}));
  EXPECT_EQ(g.ptx("void(float64[:], int64, float64[:])").find("atom"), std::string::npos);
}

}  // namespace
