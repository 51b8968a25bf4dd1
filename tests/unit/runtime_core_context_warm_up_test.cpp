// runtime/cuda/ContextWarmUp: which embedded cubin a device runs (SASS runs
// on its own major version from its minor on), and that this build embedded
// real cubins of the warm-up entry. Runs without a GPU; the warm-up itself is
// tests/gpu/runtime/gpu_runtime_context_warm_up_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "runtime/cuda/ContextWarmUp.h"

namespace {

using ufjit::cuda::warm_up_cubin_for;
using ufjit::cuda::WarmUpCubin;

const unsigned char kBytes[] = {0};
const WarmUpCubin kTable[] = {{75, kBytes, 1}, {80, kBytes, 1}, {90, kBytes, 1}, {100, kBytes, 1}, {120, kBytes, 1}};

int chosen(int major, int minor) {
  const WarmUpCubin *c = warm_up_cubin_for(kTable, major, minor);
  return c == nullptr ? 0 : c->arch;
}

TEST(ContextWarmUp, DeviceRunsTheCubinOfItsMajorWithTheHighestMinorNotAboveIts) {
  EXPECT_EQ(chosen(7, 5), 75);
  EXPECT_EQ(chosen(8, 0), 80);
  EXPECT_EQ(chosen(8, 6), 80);
  EXPECT_EQ(chosen(8, 9), 80);
  EXPECT_EQ(chosen(9, 0), 90);
  EXPECT_EQ(chosen(10, 3), 100);
  EXPECT_EQ(chosen(12, 1), 120);
}

TEST(ContextWarmUp, DeviceWithoutACubinOfItsMajorGetsNone) {
  EXPECT_EQ(chosen(7, 0), 0);   // below sm_75 in the same major
  EXPECT_EQ(chosen(6, 1), 0);   // a major with no cubin
  EXPECT_EQ(chosen(11, 0), 0);  // not in this table
  EXPECT_EQ(warm_up_cubin_for({}, 9, 0), nullptr);
}

TEST(ContextWarmUp, BuildEmbedsElfCubinsOfTheWarmUpEntryWithItsLaunchHint) {
  const auto cubins = ufjit::cuda::warm_up_cubins();
  ASSERT_FALSE(cubins.empty()) << "configure found no ptxas that builds any of cmake/UfjitWarmUpCubins.cmake's archs";
  std::set<int> archs;
  for (const WarmUpCubin &c : cubins) {
    EXPECT_TRUE(archs.insert(c.arch).second) << "sm_" << c.arch << " twice";
    ASSERT_GT(c.size, 64u) << "sm_" << c.arch;
    EXPECT_EQ(std::memcmp(c.data, "\x7f" "ELF", 4), 0) << "sm_" << c.arch;
    uint16_t machine = 0;  // ELF64 e_machine at offset 18: EM_CUDA is 190
    std::memcpy(&machine, c.data + 18, sizeof machine);
    EXPECT_EQ(machine, 190) << "sm_" << c.arch;
    const std::string image(reinterpret_cast<const char *>(c.data), c.size);
    EXPECT_NE(image.find(ufjit::cuda::kWarmUpEntry), std::string::npos) << "sm_" << c.arch;
    EXPECT_NE(image.find(std::string(ufjit::cuda::kWarmUpEntry) + "__launch"), std::string::npos) << "sm_" << c.arch;
  }
  // CUDA 12.0 and later build these two; the H100 host runs the second.
  EXPECT_TRUE(archs.count(80) == 1 && archs.count(90) == 1);
}

}  // namespace
