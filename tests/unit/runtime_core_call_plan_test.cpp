// The last call's plan (runtime/CallPlan.h): a call with the structure of
// the previous one reuses its plan, and whatever depends on the data
// pointers is still checked on every call. Generated cast ufuncs on the CPU
// backend, through the plan and run_call as the API calls them.
#include <gtest/gtest.h>

#include <numeric>
#include <thread>

#include "runtime/Call.h"
#include "runtime/CallPlan.h"

namespace ufjit::runtime {
namespace {

/// A call of `signatures` as the API makes it: through `plan` when it can,
/// else the full path, which records the plan.
Array call_as_the_api_does(RuntimeCore &core, Backend &backend,
                           const std::vector<CompiledSignature> &signatures, LastCallPlan &plan,
                           const std::vector<Operand> &operands) {
  Array result;
  if (plan.run(backend, operands, nullptr, result)) {
    return result;
  }
  return run_call(core, backend, signatures.front().ufunc_name, signatures, operands, nullptr, &plan);
}

class CallPlanTest : public ::testing::Test {
 protected:
  CallPlanTest()
      : core_(RuntimeOptions{.target = TargetKind::Cpu, .device = 0, .cpu_threads = 1}),
        sig_(core_.cast_signature(DType::Int32, DType::Float64)),
        backend_(core_.backend(TargetKind::Cpu)) {}

  /// A call of the int32 -> float64 cast as the API makes it.
  Array cast(const std::vector<Operand> &operands) {
    return call_as_the_api_does(core_, backend_, signatures_, plan_, operands);
  }
  /// Whether the plan alone runs `operands` (what the next call tries first).
  bool plan_runs(const std::vector<Operand> &operands, Array &result) {
    return plan_.run(backend_, operands, nullptr, result);
  }

  RuntimeCore core_;
  const CompiledSignature &sig_;
  Backend &backend_;
  std::vector<CompiledSignature> signatures_{sig_};
  LastCallPlan plan_;
};

TEST_F(CallPlanTest, ACallOfTheSameStructureRunsThroughThePlanWithItsOwnData) {
  std::vector<int32_t> a = {1, 2, 3, 4};
  std::vector<int32_t> b = {-5, 6, -7, 8};
  EXPECT_EQ(cast({Operand(view(a))}).to_vector<double>(), (std::vector<double>{1, 2, 3, 4}));
  Array result;
  ASSERT_TRUE(plan_runs({Operand(view(b))}, result));
  EXPECT_EQ(result.to_vector<double>(), (std::vector<double>{-5, 6, -7, 8}));
  std::vector<double> out(4, 0);
  EXPECT_FALSE(plan_runs({Operand(view(b)), Operand(Out{view(out)})}, result)) << "another operand list";
}

TEST_F(CallPlanTest, IntoOutReusesThePlanAndWritesTheNewOut) {
  std::vector<int32_t> a = {1, 2, 3};
  std::vector<double> out1(3, 0);
  std::vector<double> out2(3, 0);
  cast({Operand(view(a)), Operand(Out{view(out1)})});
  Array none;
  ASSERT_TRUE(plan_runs({Operand(view(a)), Operand(Out{view(out2)})}, none));
  EXPECT_TRUE(none.empty_handle());
  EXPECT_EQ(out2, (std::vector<double>{1, 2, 3}));
}

TEST_F(CallPlanTest, ANullOrMisalignedDataPointerTakesTheFullPathAndItsError) {
  std::vector<int32_t> a = {1, 2, 3, 4, 5};
  cast({Operand(view(a.data(), {4}))});
  ArrayView null_view{nullptr, DType::Int32, {4}, {4}};
  Array result;
  EXPECT_FALSE(plan_runs({Operand(null_view)}, result));
  EXPECT_THROW(cast({Operand(null_view)}), InputError);
  ArrayView misaligned{reinterpret_cast<char *>(a.data()) + 1, DType::Int32, {4}, {4}};
  EXPECT_FALSE(plan_runs({Operand(misaligned)}, result));
  EXPECT_THROW(cast({Operand(misaligned)}), InputError);
  // The plan stays usable after a rejected call.
  EXPECT_EQ(cast({Operand(view(a.data() + 1, {4}))}).to_vector<double>(), (std::vector<double>{2, 3, 4, 5}));
}

TEST_F(CallPlanTest, AnInputOverlappingOutIsReadBeforeOutIsWritten) {
  // Same dtype, so that out can overlap an input: an int32 -> int32 copy.
  const CompiledSignature &copy = core_.cast_signature(DType::Int32, DType::Int32);
  const std::vector<CompiledSignature> copies{copy};
  LastCallPlan plan;
  auto run = [&](const std::vector<Operand> &ops) {
    return call_as_the_api_does(core_, backend_, copies, plan, ops);
  };
  std::vector<int32_t> x = {1, 2, 3, 4, 5, 6};
  std::vector<int32_t> y(6, 0);
  run({Operand(view(x.data(), {5})), Operand(Out{view(y.data() + 1, {5})})});  // disjoint: recorded
  Array unused;
  EXPECT_FALSE(plan.run(backend_, std::vector<Operand>{Operand(view(x.data(), {5})), Operand(Out{view(x.data() + 1, {5})})}, nullptr,
                        unused));
  // x[1:] = x[:-1], NumPy's way: every input element read first.
  run({Operand(view(x.data(), {5})), Operand(Out{view(x.data() + 1, {5})})});
  EXPECT_EQ(x, (std::vector<int32_t>{1, 1, 2, 3, 4, 5}));
  // In place, element for element, needs no copy and keeps the plan.
  run({Operand(view(x.data(), {6})), Operand(Out{view(y.data(), {6})})});
  EXPECT_TRUE(plan.run(backend_, std::vector<Operand>{Operand(view(x.data(), {6})), Operand(Out{view(x.data(), {6})})}, nullptr,
                       unused));
  EXPECT_EQ(x, (std::vector<int32_t>{1, 1, 2, 3, 4, 5}));
}

TEST_F(CallPlanTest, AnotherShapeStrideOrDtypeTakesTheFullPathAndBecomesThePlan) {
  std::vector<int32_t> a = {1, 2, 3, 4, 5, 6};
  cast({Operand(view(a.data(), {6}))});
  Array result;
  EXPECT_FALSE(plan_runs({Operand(view(a.data(), {2, 3}))}, result));
  EXPECT_FALSE(plan_runs({Operand(ArrayView{a.data(), DType::Int32, {3}, {8}})}, result));
  std::vector<int16_t> narrow = {1, 2, 3, 4, 5, 6};
  EXPECT_FALSE(plan_runs({Operand(view(narrow))}, result));
  EXPECT_EQ(cast({Operand(ArrayView{a.data(), DType::Int32, {3}, {8}})}).to_vector<double>(),
            (std::vector<double>{1, 3, 5}));
  ASSERT_TRUE(plan_runs({Operand(ArrayView{a.data() + 1, DType::Int32, {3}, {8}})}, result));
  EXPECT_EQ(result.to_vector<double>(), (std::vector<double>{2, 4, 6}));
}

TEST_F(CallPlanTest, ScalarsAndOneElementHostArraysAreNeverRecorded) {
  cast({Operand(typed<int32_t>(7))});
  std::vector<int32_t> one = {9};
  Array result;
  EXPECT_FALSE(plan_runs({Operand(typed<int32_t>(7))}, result));
  cast({Operand(view(one))});
  EXPECT_FALSE(plan_runs({Operand(view(one))}, result));
}

TEST_F(CallPlanTest, BroadcastAndMultiDimCallsKeepTheirLayoutThroughThePlan) {
  std::vector<int32_t> m(6);
  std::iota(m.begin(), m.end(), 0);
  ArrayView transposed{m.data(), DType::Int32, {3, 2}, {4, 12}};  // F-ordered 3x2
  Array first = cast({Operand(transposed)});
  Array result;
  ASSERT_TRUE(plan_runs({Operand(transposed)}, result));
  EXPECT_EQ(result.view().shape, first.view().shape);
  EXPECT_EQ(result.view().strides, first.view().strides);  // NumPy's K order, as the full path chose
  EXPECT_EQ(result.to_vector<double>(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST_F(CallPlanTest, ConcurrentCallsOfOneUfuncEachGetTheirOwnResult) {
  std::vector<std::thread> threads;
  std::vector<int> wrong(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<int32_t> x(64);
      for (int i = 0; i < 200; ++i) {
        std::iota(x.begin(), x.end(), t * 1000 + i);
        const std::vector<double> r = cast({Operand(view(x))}).to_vector<double>();
        wrong[static_cast<std::size_t>(t)] += r.front() != t * 1000 + i || r.back() != t * 1000 + i + 63;
      }
    });
  }
  for (std::thread &t : threads) {
    t.join();
  }
  EXPECT_EQ(wrong, std::vector<int>(8, 0));
}

}  // namespace
}  // namespace ufjit::runtime
