// The method entries' rows of the one parameter table (codegen/kernel/KernelABI.h)
// and their packing (runtime/KernelParams.cpp, MethodArgs): the entry
// builders and both backends' launches read this table, so its order is the
// ABI of codegen/kernel/KernelReduce.h. No compile, no device.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "codegen/kernel/KernelABI.h"
#include "runtime/Backend.h"

namespace ufjit::runtime {
namespace {

std::vector<std::string> described(const codegen::KernelSpec &spec) {
  std::vector<std::string> names;
  for (const codegen::KernelParam &p : codegen::kernel_params(spec)) {
    names.push_back(p.name(spec) + ":" + p.kind_name() + ":" + p.type_name());
  }
  return names;
}

codegen::EntrySignature binary(DType t, bool can_raise) {
  codegen::EntrySignature sig;
  sig.args = {t, t};
  sig.ret = t;
  sig.can_raise = can_raise;
  return sig;
}

TEST(MethodParams, TheTableIsRowsLengthsChunksThenFourPointersThenTheErrorFlag) {
  EXPECT_EQ(described(codegen::make_method_spec(binary(DType::Float32, false), false)),
            (std::vector<std::string>{"rows:rows:int64", "len:len:int64", "chunks:chunks:int64",
                                      "chunk_len:chunk_len:int64", "in:array:float32*", "out:array:float32*",
                                      "aux:array:float32*", "out_has:array:bool*"}));
  // A masked reduce's aux is its bool mask; a module that can raise takes the flag last.
  EXPECT_EQ(described(codegen::make_method_spec(binary(DType::Int64, true), true)),
            (std::vector<std::string>{"rows:rows:int64", "len:len:int64", "chunks:chunks:int64",
                                      "chunk_len:chunk_len:int64", "in:array:int64*", "out:array:int64*",
                                      "aux:array:bool*", "out_has:array:bool*", "error:error_flag:uint32*"}));
}

TEST(MethodParams, PackingPutsEachArgumentWhereTheTableSays) {
  const std::vector<codegen::KernelParam> table =
      codegen::kernel_params(codegen::make_method_spec(binary(DType::Float64, true), false));
  double in[4] = {};
  double out[2] = {};
  double aux[2] = {};
  bool out_has[2] = {};
  uint32_t flag = 0;
  MethodArgs args;
  args.rows = 2;
  args.len = 4;
  args.chunks = 3;
  args.chunk_len = 5;
  args.in = in;
  args.out = out;
  args.aux = aux;
  args.out_has = out_has;
  args.error_flag = &flag;
  const KernelParams params(args, table);
  ASSERT_EQ(params.count(), table.size());
  auto int_at = [&](std::size_t k) {
    int64_t v = 0;
    std::memcpy(&v, params.pointers()[k], sizeof v);
    return v;
  };
  auto pointer_at = [&](std::size_t k) {
    const void *p = nullptr;
    std::memcpy(&p, params.pointers()[k], sizeof p);
    return p;
  };
  EXPECT_EQ(int_at(0), 2);
  EXPECT_EQ(int_at(1), 4);
  EXPECT_EQ(int_at(2), 3);
  EXPECT_EQ(int_at(3), 5);
  EXPECT_EQ(pointer_at(4), in);
  EXPECT_EQ(pointer_at(5), out);
  EXPECT_EQ(pointer_at(6), aux);
  EXPECT_EQ(pointer_at(7), out_has);
  EXPECT_EQ(pointer_at(8), &flag);
}

}  // namespace
}  // namespace ufjit::runtime
