// The streaming_stores variant of CPU entries (codegen/StreamingStores.h):
// its aligned vector stores to the output are non-temporal and it ends with
// a store fence; the ordinary variant has neither; both compute the same
// elements for any range whose output is aligned at `begin`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "codegen/Codegen.h"
#include "codegen/HostJit.h"
#include "tests/unit/codegen_targets_ir.h"

namespace ufjit::codegen {
namespace {

KernelVariant contiguous(bool streaming) {
  KernelVariant v;
  v.layout = Layout::Contiguous;
  v.streaming_stores = streaming;
  return v;
}

std::string optimized(const ir::Module &module, bool streaming) {
  EntryRequest request{&module, module.name + "__test", {contiguous(streaming)}};
  return optimized_cpu_ir({request});
}

int count_of(const std::string &text, const std::string &what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(StreamingStores, TheStreamingEntryStoresItsVectorsNonTemporallyAndFences) {
  for (DType t : {DType::Int64, DType::Float32}) {
    ir::Module m = test_ir::add_module(t);
    const std::string text = optimized(m, true);
    EXPECT_GE(count_of(text, "!nontemporal"), 1) << dtype_name(t) << "\n" << text;
    EXPECT_EQ(count_of(text, "call void @llvm.x86.sse.sfence()"), 1) << text;
    EXPECT_NE(text.find("contig_i64_nt"), std::string::npos) << text;
  }
}

TEST(StreamingStores, TheRemainderLoopKeepsOrdinaryStores) {
  ir::Module m = test_ir::add_module(DType::Int64);
  const std::string text = optimized(m, true);
  // Scalar stores of the loop's remainder are never non-temporal.
  for (std::size_t at = text.find("store i64 "); at != std::string::npos; at = text.find("store i64 ", at + 1)) {
    const std::string line = text.substr(at, text.find('\n', at) - at);
    EXPECT_EQ(line.find("!nontemporal"), std::string::npos) << line;
  }
}

TEST(StreamingStores, TheOrdinaryEntryHasNoNonTemporalStoreOrFence) {
  ir::Module m = test_ir::polar_module(DType::Float32);
  const std::string text = optimized(m, false);
  EXPECT_EQ(count_of(text, "!nontemporal"), 0) << text;
  EXPECT_EQ(count_of(text, "sfence"), 0) << text;
}

TEST(StreamingStores, AlignedRangesComputeEveryElementLikeTheOrdinaryEntry) {
  CpuCompiler compiler;
  ir::Module m = test_ir::polar_module(DType::Float32);
  EntryRequest request{&m, "polar__stream_test", {contiguous(true), contiguous(false)}};
  std::vector<CpuEntry> entries = compiler.compile({request});
  ASSERT_EQ(entries.size(), 2u);
  const int64_t n = 1003;  // ranges ending off a vector's width
  std::vector<float> rho1(n), theta1(n), rho2(n), theta2(n);
  for (int64_t i = 0; i < n; ++i) {
    rho1[i] = 0.5f + static_cast<float>(i % 17);
    theta1[i] = 0.01f * static_cast<float>(i);
    rho2[i] = 2.0f - 0.001f * static_cast<float>(i);
    theta2[i] = -0.02f * static_cast<float>(i % 101);
  }
  // Element 0 and element 16 (64 bytes of float32) of each output are
  // aligned to kStreamingAlign, as the runtime's ranges are.
  auto *streamed = static_cast<float *>(std::aligned_alloc(kStreamingAlign, 4096 * sizeof(float)));
  std::unique_ptr<float, decltype(&std::free)> owner(streamed, &std::free);
  std::vector<float> plain(n, -1.0f);
  float *in[] = {rho1.data(), theta1.data(), rho2.data(), theta2.data()};
  float *plain_out = plain.data();
  int64_t count = n;
  void *streamed_params[] = {&count, &in[0], &in[1], &in[2], &in[3], &streamed};
  void *plain_params[] = {&count, &in[0], &in[1], &in[2], &in[3], &plain_out};
  entries[0](0, 16, streamed_params);
  entries[0](16, 528, streamed_params);
  entries[0](528, n, streamed_params);
  entries[1](0, n, plain_params);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(streamed[i], plain[i]) << "element " << i;
  }
}

}  // namespace
}  // namespace ufjit::codegen
