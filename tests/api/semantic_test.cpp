// The semantic suite on the CPU target (cases in semantic_cases.h; the GPU
// suite runs the same table on the CUDA target).
#include <memory>
#include <set>

#include "semantic_cases.h"

namespace {

class SemanticCpu : public ::testing::TestWithParam<semantic::Case> {
 protected:
  static void SetUpTestSuite() {
    runtime_ = std::make_unique<ufjit::Runtime>(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
  }
  static void TearDownTestSuite() { runtime_.reset(); }
  static std::unique_ptr<ufjit::Runtime> runtime_;
};

std::unique_ptr<ufjit::Runtime> SemanticCpu::runtime_;

TEST_P(SemanticCpu, MatchesIndependentReference) {
  semantic::run_case(*runtime_, ufjit::TargetKind::Cpu, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cpu, SemanticCpu, ::testing::ValuesIn(semantic::all_cases()), semantic::case_name);

TEST(SemanticTable, CaseNamesAreUniqueAndEveryCaseHasRows) {
  std::set<std::string> names;
  for (const semantic::Case &c : semantic::all_cases()) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case " << c.name;
    EXPECT_FALSE(c.rows.empty()) << c.name;
    for (const semantic::Row &r : c.rows) {
      EXPECT_EQ(r.in.size(), c.rows.front().in.size()) << c.name;
      EXPECT_EQ(r.out.dtype, c.rows.front().out.dtype) << c.name;
    }
  }
}

TEST(SemanticTable, Float16ReferenceRoundingIsNearestEven) {
  EXPECT_EQ(semantic::round_half(1.0 + 0x1p-11), 1.0);
  EXPECT_EQ(semantic::round_half(1.0 + 3 * 0x1p-11), 1.0 + 0x1p-9);
  EXPECT_EQ(semantic::round_half(65519.0), 65504.0);
  EXPECT_TRUE(std::isinf(semantic::round_half(65520.0)));
  EXPECT_EQ(semantic::round_half(0x1p-25), 0.0);
  EXPECT_EQ(semantic::round_half(0x1.8p-25), 0x1p-24);
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const double v = semantic::half_value(static_cast<uint16_t>(h));
    ASSERT_EQ(semantic::half_bits(v), h);
    ASSERT_EQ(semantic::round_half(v), v);
  }
}

}  // namespace
