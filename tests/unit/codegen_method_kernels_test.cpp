// Method kernels (codegen/kernel/KernelReduce.h): the GPU reduce entry is one
// `.entry` with a shared-memory tree and barriers, nvJitLink accepts the PTX
// of both methods for every element kind, and the CPU entries compute what
// the method ABI says (rows, chunks, in-place accumulate).
#include <gtest/gtest.h>

#include <vector>

#include "codegen/Codegen.h"
#include "tests/unit/codegen_targets_ir.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {
namespace {

EntryRequest method_request(const ir::Module &m, const std::string &base) {
  EntryRequest request;
  request.module = &m;
  request.base_name = base;
  request.methods = {MethodKernel::Reduce, MethodKernel::Accumulate, MethodKernel::ReduceWhere,
                     MethodKernel::AccumulateRows};
  return request;
}

TEST(CodegenMethodKernels, GpuReduceIsATreeInSharedMemory) {
  ir::Module m = test_ir::add_module(DType::Float32);
  const std::string ptx = emit_ptx({method_request(m, "add__float32_float32")}, GpuOptions{});
  const std::size_t reduce = ptx.find(".entry add__float32_float32__reduce(");
  const std::size_t accumulate = ptx.find(".entry add__float32_float32__accumulate(");
  ASSERT_NE(reduce, std::string::npos) << ptx;
  ASSERT_NE(accumulate, std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".shared .align 16 .b8 add__float32_float32__reduce_$_tree[1024]"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos);
  EXPECT_NE(ptx.find("ld.shared.f32"), std::string::npos);
  if (nvjitlink_available()) {
    EXPECT_FALSE(ptx_to_cubin(ptx, "sm_90").empty());
  }
}

TEST(CodegenMethodKernels, GpuEntriesMove16BytesPerLoadAndFitEightBlocksPerSm) {
  ir::Module m = test_ir::add_module(DType::Float32);
  const std::string ptx = emit_ptx({method_request(m, "add__float32_float32")}, GpuOptions{});
  auto entry_text = [&](const std::string &name) {
    const std::size_t begin = ptx.find(".entry " + name + "(");
    EXPECT_NE(begin, std::string::npos) << name;
    return ptx.substr(begin, ptx.find("\n}", begin) - begin);
  };
  const std::string reduce = entry_text("add__float32_float32__reduce");
  EXPECT_NE(reduce.find("ld.global.v4.f32"), std::string::npos) << reduce;
  EXPECT_NE(reduce.find(".maxntid 256, 1, 1"), std::string::npos) << reduce;
  EXPECT_NE(reduce.find(".minnctapersm 8"), std::string::npos) << reduce;
  const std::string scan = entry_text("add__float32_float32__accumulate");
  EXPECT_NE(scan.find("ld.global.v4.b32"), std::string::npos) << scan;
  EXPECT_NE(scan.find("st.global.v4.f32"), std::string::npos) << scan;
  // The masked reduce reads its bool mask byte by byte.
  EXPECT_NE(entry_text("add__float32_float32__reduce_where").find("ld.global.u8"), std::string::npos);
}

TEST(CodegenMethodKernels, EveryElementKindCompilesForTheGpu) {
  if (!nvjitlink_available()) GTEST_SKIP() << "nvJitLink not available";
  for (DType t : {DType::Int8, DType::Int64, DType::UInt16, DType::Float16, DType::Float64,
                  DType::Complex64, DType::Complex128}) {
    ir::Module m = test_ir::add_module(t);
    const std::string base = "add__" + std::string(dtype_name(t));
    EXPECT_FALSE(ptx_to_cubin(emit_ptx({method_request(m, base)}, GpuOptions{}), "sm_90").empty()) << dtype_name(t);
  }
}

TEST(CodegenMethodKernels, CpuEntriesFollowTheMethodAbi) {
  ir::Module m = test_ir::add_module(DType::Int64);
  CpuCompiler compiler;
  std::vector<CpuEntry> entries = compiler.compile({method_request(m, "add__int64_int64")});
  ASSERT_EQ(entries.size(), 4u);
  // 2 rows of 5, each row in chunks of 2: segments {0,1},{2,3},{4} per row.
  std::vector<int64_t> in = {1, 2, 3, 4, 5, 10, 20, 30, 40, 50};
  std::vector<int64_t> out(6, -1);
  int64_t rows = 2, len = 5, chunks = 3, chunk_len = 2;
  const void *in_ptr = in.data();
  void *out_ptr = out.data();
  const void *aux = nullptr;
  void *out_has = nullptr;
  void *params[] = {&rows, &len, &chunks, &chunk_len, &in_ptr, &out_ptr, &aux, &out_has};
  entries[0](0, 6, params);
  EXPECT_EQ(out, (std::vector<int64_t>{3, 7, 5, 30, 70, 50}));
  // Accumulate in place.
  void *in_place = in.data();
  void *acc_params[] = {&rows, &len, &chunks, &chunk_len, &in_ptr, &in_place, &aux, &out_has};
  entries[1](0, 2, acc_params);
  EXPECT_EQ(in, (std::vector<int64_t>{1, 3, 6, 10, 15, 10, 30, 60, 100, 150}));
  // ReduceWhere: the taken elements of each row (the first always taken).
  std::vector<int64_t> values = {1, 2, 3, 4, 5, 10, 20, 30, 40, 50};
  std::vector<uint8_t> take = {1, 0, 1, 0, 1, 1, 1, 0, 0, 0};
  std::vector<int64_t> sums(2, -1);
  int64_t one = 1;
  const void *values_ptr = values.data();
  void *sums_ptr = sums.data();
  const void *take_ptr = take.data();
  void *where_params[] = {&rows, &len, &one, &len, &values_ptr, &sums_ptr, &take_ptr, &out_has};
  entries[2](0, 2, where_params);
  EXPECT_EQ(sums, (std::vector<int64_t>{9, 30}));
}

TEST(CodegenMethodKernels, NonUniformSignatureIsRefused) {
  ir::Module m = test_ir::single("widen", {{"a", DType::Float32}, {"b", DType::Float32}}, DType::Float64,
                                 ir::Cast::make(DType::Float64, test_ir::var(DType::Float32, "a")));
  EXPECT_THROW(emit_ptx({method_request(m, "widen__float32_float32")}, GpuOptions{}), Error);
}

}  // namespace
}  // namespace ufjit::codegen
