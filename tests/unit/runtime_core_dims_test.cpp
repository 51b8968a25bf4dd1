// ufjit::Dims (include/ufjit/dims.h): a view's shape and strides, inline up
// to kInline values and on the heap past that, with std::vector's meaning
// for every operation views use.
#include <gtest/gtest.h>

#include <numeric>

#include "runtime/Call.h"
#include "ufjit/dims.h"

namespace ufjit {
namespace {

std::vector<int64_t> iota(std::size_t n, int64_t first = 0) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

TEST(Dims, BehavesAsAVectorInlineAndOnTheHeap) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, Dims::kInline, Dims::kInline + 1, 3 * Dims::kInline}) {
    SCOPED_TRACE(n);
    Dims d;
    std::vector<int64_t> v;
    for (std::size_t i = 0; i < n; ++i) {
      d.push_back(static_cast<int64_t>(i) * 7);
      v.push_back(static_cast<int64_t>(i) * 7);
    }
    EXPECT_EQ(d, v);
    EXPECT_EQ(d.size(), n);
    d.insert(d.begin(), 2, -1);
    v.insert(v.begin(), 2, -1);
    d.insert(d.end(), v.begin(), v.begin() + 2);  // from another container
    v.insert(v.end(), v.begin(), v.begin() + 2);
    EXPECT_EQ(d, v);
    d.insert(d.begin() + 1, d.begin(), d.end());  // from itself
    v = std::vector<int64_t>(d.begin(), d.end());
    EXPECT_EQ(d, v);
    d.erase(d.begin(), d.begin() + 3);
    v.erase(v.begin(), v.begin() + 3);
    EXPECT_EQ(d, v);
    d.resize(n + 2, 9);
    v.resize(n + 2, 9);
    EXPECT_EQ(d, v);
    d.pop_back();
    v.pop_back();
    EXPECT_EQ(std::vector<int64_t>(d), v);
  }
}

TEST(Dims, CopiesAndMovesKeepTheirValuesAndLeaveTheSourceUsable) {
  for (std::size_t n : {std::size_t{3}, Dims::kInline + 4}) {
    SCOPED_TRACE(n);
    const std::vector<int64_t> values = iota(n, 5);
    Dims a = values;
    Dims copy = a;
    EXPECT_EQ(copy, a);
    copy[0] = -5;
    EXPECT_EQ(a[0], 5) << "a copy does not share storage";
    Dims moved = std::move(a);
    EXPECT_EQ(moved, values);
    EXPECT_TRUE(a.empty());  // NOLINT: moved-from Dims are empty and usable
    a.push_back(1);
    EXPECT_EQ(a, std::vector<int64_t>{1});
    Dims assigned;
    assigned = moved;
    assigned = assigned;  // self-assignment keeps the values
    EXPECT_EQ(assigned, values);
    assigned = std::move(moved);
    EXPECT_EQ(assigned, values);
    assigned = {1, 2};
    EXPECT_EQ(assigned, (std::vector<int64_t>{1, 2}));
  }
}

TEST(Dims, ComparesWithVectorsBothWaysAndOrders) {
  const Dims d = {2, 3};
  EXPECT_TRUE(d == (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE((std::vector<int64_t>{2, 3}) == d);
  EXPECT_TRUE(d != (std::vector<int64_t>{2}));
  EXPECT_TRUE((std::vector<int64_t>{2, 3, 1}) != d);
  EXPECT_TRUE(Dims({1, 9}) < d);
  EXPECT_EQ(Dims(3, 4), (std::vector<int64_t>{4, 4, 4}));
}

TEST(Dims, AViewOfMoreDimsThanHeldInlineRunsAsAnyOther) {
  // 10 dims (four past the inline ones), most of size 1: the call collapses
  // them to the kernel's at most 8.
  runtime::RuntimeCore core(RuntimeOptions{.target = TargetKind::Cpu, .device = 0, .cpu_threads = 1});
  const runtime::CompiledSignature &sig = core.cast_signature(DType::Int32, DType::Float64);
  std::vector<int32_t> x = {1, 2, 3, 4, 5, 6};
  ArrayView v = view(x.data(), {1, 2, 1, 1, 3, 1, 1, 1, 1, 1});
  ASSERT_EQ(v.shape.size(), 10u);
  Array r = runtime::run_call(core, core.backend(TargetKind::Cpu), sig.ufunc_name, {sig}, {Operand(v)}, nullptr);
  EXPECT_EQ(r.view().shape, v.shape);
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace ufjit
