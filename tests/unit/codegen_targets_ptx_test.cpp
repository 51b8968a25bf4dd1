// PTX emission: entries for every variant compile for sm_80 and sm_90 and
// nvJitLink accepts them; vector loads, float32 purity, libdevice, FMA
// contraction only with fastmath, 32-bit indexing, reproducibility and
// concurrent compiles.
#include <gtest/gtest.h>

#include <regex>
#include <thread>

#include "codegen/Codegen.h"
#include "ufjit/errors.h"
#include "tests/unit/codegen_targets_ir.h"

namespace ufjit::codegen {
namespace {

using test_ir::add_module;

KernelVariant variant(Layout layout, bool index32, uint32_t mask = 0) {
  KernelVariant v;
  v.layout = layout;
  v.index32 = index32;
  v.scalar_mask = mask;
  return v;
}

std::vector<KernelVariant> all_variants() {
  return {variant(Layout::Contiguous, false), variant(Layout::Contiguous, true), variant(Layout::Strided, false),
          variant(Layout::Strided, true), variant(Layout::Contiguous, false, 1)};
}

std::string base_name_of(const ir::Module &m) {
  std::vector<std::string> names;
  for (const ir::Variable &p : m.entry_function().params) {
    names.push_back(std::string(dtype_name(p.type.dtype())));
  }
  return entry_base_name(m.name, names);
}

std::string ptx_for(const ir::Module &m, const std::vector<KernelVariant> &variants, const std::string &arch = "sm_90") {
  EntryRequest request{&m, base_name_of(m), variants};
  GpuOptions gpu;
  gpu.arch = arch;
  return emit_ptx({request}, gpu);
}

/// The body of `.entry name` up to the next `.entry` (or the end).
std::string entry_body(const std::string &ptx, const std::string &name) {
  std::size_t start = ptx.find(".entry " + name + "(");
  if (start == std::string::npos) {
    return "";
  }
  std::size_t end = ptx.find(".entry ", start + 1);
  return ptx.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

bool contains(const std::string &text, const std::string &what) { return text.find(what) != std::string::npos; }

TEST(CodegenNames, EntryNamesAreReadableAndStable) {
  std::string base = entry_base_name("gaussian_pdf", {"float32", "float32", "float32"});
  EXPECT_EQ(base, "gaussian_pdf__float32_float32_float32");
  EXPECT_EQ(entry_name(base, variant(Layout::Contiguous, true)), "gaussian_pdf__float32_float32_float32__contig_i32");
  EXPECT_EQ(variant(Layout::Strided, false, 1).suffix(), "strided_i64_s1");
  EXPECT_EQ(variant(Layout::Strided, true, 0x1a).suffix(), "strided_i32_s1a");
  EXPECT_EQ(variant(Layout::Contiguous, false).suffix(), "contig_i64");
}

TEST(CodegenNames, GpuOptionsCanonicalStringNamesArchAndIsa) {
  GpuOptions gpu;
  EXPECT_EQ(gpu.canonical(), "sm_90-ptx(default)");
  gpu.arch = "sm_80";
  gpu.ptx_isa = "8.4";
  EXPECT_EQ(gpu.canonical(), "sm_80-ptx84");
  gpu.ptx_isa = "ptx84";
  EXPECT_EQ(gpu.canonical(), "sm_80-ptx84");
}

TEST(CodegenPtx, EveryEntryCompilesForSm80AndSm90AndNvJitLinkAcceptsIt) {
  std::vector<ir::Module> modules = {add_module(DType::Int64),          test_ir::sincos_module(DType::Float32),
                                     test_ir::gaussian_module(DType::Float32), test_ir::gaussian_module(DType::Float64),
                                     test_ir::polar_module(DType::Float32),    test_ir::complex_module(DType::Complex64),
                                     test_ir::complex_module(DType::Complex128), test_ir::half_module(),
                                     test_ir::greater_module()};
  for (const char *arch : {"sm_80", "sm_90"}) {
    for (const ir::Module &m : modules) {
      SCOPED_TRACE(std::string(arch) + " " + m.name);
      std::string ptx = ptx_for(m, all_variants(), arch);
      EXPECT_TRUE(contains(ptx, std::string(".target ") + arch)) << ptx.substr(0, 300);
      for (const KernelVariant &v : all_variants()) {
        EXPECT_TRUE(contains(ptx, ".entry " + entry_name(base_name_of(m), v) + "("))
            << "missing entry " << entry_name(base_name_of(m), v);
      }
      if (!nvjitlink_available()) {
        continue;
      }
      std::string cubin;
      EXPECT_NO_THROW(cubin = ptx_to_cubin(ptx, arch)) << ptx;
      EXPECT_GT(cubin.size(), 0u);
    }
  }
  if (!nvjitlink_available()) {
    GTEST_SKIP() << "nvJitLink cannot be loaded; the PTX was generated but not assembled";
  }
}

TEST(CodegenPtx, NvJitLinkRejectsBadPtxWithItsLog) {
  if (!nvjitlink_available()) {
    GTEST_SKIP() << "nvJitLink cannot be loaded";
  }
  std::string bad = ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus.instruction; }\n";
  try {
    ptx_to_cubin(bad, "sm_90");
    FAIL() << "nvJitLink accepted invalid PTX";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "nvJitLink")) << e.what();
    EXPECT_TRUE(contains(e.what(), "bogus")) << "the log should name the bad instruction: " << e.what();
  }
}

TEST(CodegenPtx, DefaultPtxIsaIsTheNewestLlvm19Knows) {
  std::string ptx = ptx_for(add_module(DType::Int64), {variant(Layout::Contiguous, false)});
  EXPECT_TRUE(contains(ptx, ".version 8.5")) << ptx.substr(0, 200);
  ir::Module m = add_module(DType::Int64);
  EntryRequest request{&m, "add__int64_int64", {variant(Layout::Contiguous, false)}};
  GpuOptions gpu;
  gpu.ptx_isa = "8.0";
  EXPECT_TRUE(contains(emit_ptx({request}, gpu), ".version 8.0"));
}

TEST(CodegenPtx, UnknownArchOrIsaIsAnError) {
  ir::Module m = add_module(DType::Int64);
  EntryRequest request{&m, "add__int64_int64", {variant(Layout::Contiguous, false)}};
  GpuOptions gpu;
  gpu.arch = "sm_12";
  EXPECT_THROW(emit_ptx({request}, gpu), Error);
  gpu.arch = "sm_90";
  gpu.ptx_isa = "9.9";
  EXPECT_THROW(emit_ptx({request}, gpu), Error);
}

TEST(CodegenPtx, ContiguousFloat32UsesVectorLoadsAndStores) {
  ir::Module m = add_module(DType::Float32);
  std::string ptx = ptx_for(m, {variant(Layout::Contiguous, false)});
  EXPECT_TRUE(contains(ptx, "ld.global.v4.f32")) << ptx;
  EXPECT_TRUE(contains(ptx, "st.global.v4.f32")) << ptx;
  // The scalar tail and the misaligned fallback remain.
  EXPECT_TRUE(contains(ptx, "ld.global.f32")) << ptx;
}

TEST(CodegenPtx, ContiguousFloat64AndInt32UseVectorLoads) {
  EXPECT_TRUE(contains(ptx_for(test_ir::gaussian_module(DType::Float64), {variant(Layout::Contiguous, false)}),
                       "ld.global.v2.f64"));
  std::string int32 = ptx_for(add_module(DType::Int32), {variant(Layout::Contiguous, false)});
  EXPECT_TRUE(contains(int32, "ld.global.v4.u32") || contains(int32, "ld.global.v4.b32")) << int32;
}

TEST(CodegenPtx, Float32GaussianHasNoDoubleArithmetic) {
  std::string ptx = ptx_for(test_ir::gaussian_module(DType::Float32), all_variants());
  EXPECT_FALSE(std::regex_search(ptx, std::regex(R"(\.f64\b)"))) << ptx;
}

TEST(CodegenPtx, Float32SinGoesThroughLibdeviceSinf) {
  std::string ptx = ptx_for(test_ir::sincos_module(DType::Float32), {variant(Layout::Contiguous, false)});
  // __nv_sinf is inlined (no call) and brings its float table for the
  // Payne-Hanek reduction of large arguments; the double sin's table and
  // its f64 polynomial (fma.rn.f64) are absent. (sinf's slow path itself
  // converts one product to f64, as CUDA's sinf does.)
  EXPECT_FALSE(contains(ptx, "__nv_sinf")) << "libdevice call not inlined";
  EXPECT_FALSE(contains(ptx, "call.uni")) << ptx;
  EXPECT_TRUE(contains(ptx, "__cudart_i2opi_f")) << ptx;
  EXPECT_FALSE(contains(ptx, "__cudart_i2opi_d")) << ptx;
  EXPECT_FALSE(std::regex_search(ptx, std::regex(R"((fma|add|sub)\.rn\.f64)"))) << ptx;
}

TEST(CodegenPtx, FmaContractionOnlyWithFastmath) {
  std::string strict = ptx_for(test_ir::muladd_module(DType::Float32, false), {variant(Layout::Contiguous, false)});
  EXPECT_FALSE(contains(strict, "fma.rn")) << strict;
  EXPECT_TRUE(contains(strict, "mul.rn.f32") || contains(strict, "mul.f32")) << strict;
  std::string fast = ptx_for(test_ir::muladd_module(DType::Float32, true), {variant(Layout::Contiguous, false)});
  EXPECT_TRUE(contains(fast, "fma.rn.ftz.f32")) << fast;  // fastmath also flushes float32 denormals
}

TEST(CodegenPtx, Index32VariantUsesThirtyTwoBitIndexArithmetic) {
  ir::Module m = add_module(DType::Float32);
  std::string base = base_name_of(m);
  std::vector<KernelVariant> variants = {variant(Layout::Contiguous, true), variant(Layout::Contiguous, false),
                                         variant(Layout::Strided, true), variant(Layout::Strided, false)};
  std::string ptx = ptx_for(m, variants);
  // Ordered compares are the loop bounds (the alignment test is an equality).
  std::regex compare64(R"(setp\.(lt|le|gt|ge)\.[su]64)");
  std::regex compare32(R"(setp\.(lt|le|gt|ge)\.[su]32)");
  for (const KernelVariant &v : variants) {
    std::string body = entry_body(ptx, entry_name(base, v));
    ASSERT_FALSE(body.empty()) << entry_name(base, v);
    if (v.index32) {
      EXPECT_FALSE(std::regex_search(body, compare64)) << "64-bit index compare in " << body;
      EXPECT_TRUE(std::regex_search(body, compare32)) << body;
    } else {
      EXPECT_TRUE(std::regex_search(body, compare64)) << body;
    }
  }
  // Strided index decomposition divides in 32 bits in the index32 variant.
  EXPECT_TRUE(contains(entry_body(ptx, entry_name(base, variant(Layout::Strided, true))), "rem.u32"));
  EXPECT_TRUE(contains(entry_body(ptx, entry_name(base, variant(Layout::Strided, false))), "rem.u64"));
}

TEST(CodegenPtx, EveryElementwiseEntrySignalsItsEndThroughTheDoneFlagAfterABarrier) {
  ir::Module m = add_module(DType::Float32);
  const std::string ptx = ptx_for(m, all_variants());
  for (const KernelVariant &v : all_variants()) {
    const std::string body = entry_body(ptx, entry_name(base_name_of(m), v));
    ASSERT_FALSE(body.empty()) << entry_name(base_name_of(m), v);
    // KernelABI.h: the Done parameter follows the operands; with it null
    // the launch skips the epilogue, else the barrier, thread 0's
    // system-scope fence and its volatile store of 1.
    EXPECT_TRUE(std::regex_search(body, std::regex(R"(_param_\d+\s*\)\s*\{)"))) << body;
    const std::size_t barrier = body.find("bar.sync");
    const std::size_t fence = body.find("membar.sys");
    const std::size_t store = body.find("st.volatile.global.u32");
    ASSERT_NE(barrier, std::string::npos) << body;
    ASSERT_NE(fence, std::string::npos) << body;
    ASSERT_NE(store, std::string::npos) << body;
    EXPECT_LT(barrier, fence);
    EXPECT_LT(fence, store);
    EXPECT_TRUE(std::regex_search(body, std::regex(R"(setp\.(eq|ne)\.s64[^\n]*0;)")))
        << "no test of a null flag";
  }
}

TEST(CodegenPtx, EntriesOfAnAotRequestTakeNoDoneFlag) {
  ir::Module m = add_module(DType::Float32);
  EntryRequest request{&m, base_name_of(m), all_variants()};
  request.done_flag = false;  // as `ufjit compile` asks (driver/Pipeline.cpp)
  const std::string ptx = emit_ptx({request}, GpuOptions{});
  EXPECT_FALSE(contains(ptx, "membar.sys")) << ptx;
  EXPECT_FALSE(contains(ptx, "bar.sync")) << ptx;
  EXPECT_FALSE(contains(ptx, "st.volatile")) << ptx;
}

TEST(CodegenPtx, PtxIsIdenticalAcrossCompiles) {
  ir::Module m = test_ir::polar_module(DType::Float32);
  std::string first = ptx_for(m, all_variants());
  std::string second = ptx_for(m, all_variants());
  EXPECT_EQ(first, second);
}

TEST(CodegenPtx, SeveralRequestsShareOneModule) {
  ir::Module a = add_module(DType::Int64);
  ir::Module g = test_ir::gaussian_module(DType::Float32);
  std::vector<EntryRequest> requests = {{&a, base_name_of(a), {variant(Layout::Contiguous, false)}},
                                        {&g, base_name_of(g), {variant(Layout::Strided, true)}}};
  std::string ptx = emit_ptx(requests, GpuOptions{});
  EXPECT_TRUE(contains(ptx, ".entry add__int64_int64__contig_i64("));
  EXPECT_TRUE(contains(ptx, ".entry gaussian_pdf__float32_float32_float32__strided_i32("));
}

TEST(CodegenPtx, ConcurrentCompilesOnFourThreadsGiveTheSamePtx) {
  ir::Module m = test_ir::gaussian_module(DType::Float32);
  std::string expected = ptx_for(m, all_variants());
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      try {
        results[t] = ptx_for(m, all_variants());
      } catch (const std::exception &e) {
        results[t] = std::string("exception: ") + e.what();
      }
    });
  }
  for (std::thread &t : threads) {
    t.join();
  }
  for (const std::string &r : results) {
    EXPECT_EQ(r, expected);
  }
}

TEST(CodegenLlvmIr, EmitsEntriesForBothTargets) {
  ir::Module m = add_module(DType::Int64);
  EntryRequest request{&m, base_name_of(m), {variant(Layout::Contiguous, false)}};
  std::string cuda = emit_llvm_ir({request}, "cuda", GpuOptions{});
  EXPECT_TRUE(contains(cuda, "ptx_kernel void @add__int64_int64__contig_i64(")) << cuda;
  EXPECT_TRUE(contains(cuda, "nvptx64-nvidia-cuda")) << cuda;
  std::string cpu = emit_llvm_ir({request}, "cpu", GpuOptions{});
  EXPECT_TRUE(contains(cpu, "define void @add__int64_int64__contig_i64(i64")) << cpu;
  EXPECT_THROW(emit_llvm_ir({request}, "tpu", GpuOptions{}), Error);
}

}  // namespace
}  // namespace ufjit::codegen
