// Gufunc layouts and schedules (runtime/GufuncLayout.h), and the parameter
// table of gufunc entries (codegen/kernel/KernelABI.h): pure functions of text and
// shapes, no compile and no device. Layout text is parsed by the frontend
// (frontend/Signature.h), the one layout parser.
#include <gtest/gtest.h>

#include "codegen/kernel/KernelABI.h"
#include "support/Diagnostics.h"
#include "runtime/GufuncLayout.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {
namespace {

using Shape = std::vector<int64_t>;
using Names = std::vector<std::string>;

/// The runtime layout of `text`, parsed by the frontend.
GufuncLayout parse_gufunc_layout(const std::string &text, const std::vector<int> &writable_args = {}) {
  SourceFile file("layout.ufn", text);
  DiagnosticEngine diags;
  std::optional<frontend::GufuncLayout> parsed =
      frontend::parse_gufunc_layout(text, SourceLocation{&file, 1, 1, 1}, diags);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed ? make_gufunc_layout(*parsed, writable_args) : GufuncLayout{};
}

TEST(GufuncLayout, ParsesCoreDimsPerOperand) {
  const GufuncLayout l = parse_gufunc_layout(" (m, n) ,(n,p)->( m,p) ");
  ASSERT_EQ(l.inputs.size(), 2u);
  ASSERT_EQ(l.outputs.size(), 1u);
  EXPECT_EQ(l.inputs[0], (Names{"m", "n"}));
  EXPECT_EQ(l.inputs[1], (Names{"n", "p"}));
  EXPECT_EQ(l.outputs[0], (Names{"m", "p"}));
  const GufuncLayout two = parse_gufunc_layout("(n),()->(),()");
  EXPECT_EQ(two.inputs[1], Names{});
  EXPECT_EQ(two.outputs.size(), 2u);
  EXPECT_EQ(two.core(3), Names{});
}

TEST(GufuncLayout, TextIsCanonicalAndWritableArgsMarkInputs) {
  const GufuncLayout l = parse_gufunc_layout(" (m, n) ,(n,p)->( m,p) ", {1});
  EXPECT_EQ(l.text, "(m,n),(n,p)->(m,p)");
  EXPECT_EQ(l.writable, (std::vector<bool>{false, true}));
  EXPECT_EQ(parse_gufunc_layout("(n)->(n)").writable, std::vector<bool>{false});
}

TEST(GufuncSchedule, OuterDimsBroadcastAndCoreDimsBind) {
  const GufuncLayout l = parse_gufunc_layout("(m,n),(n,p)->(m,p)");
  const GufuncSchedule s = schedule(l, {{2, 1, 3, 4}, {5, 4, 6}}, {}, "mm");
  EXPECT_EQ(s.loop_shape, (Shape{2, 5}));
  EXPECT_EQ(s.loop_size, 10);
  EXPECT_EQ(s.input_core[0], (Shape{3, 4}));
  EXPECT_EQ(s.input_core[1], (Shape{4, 6}));
  EXPECT_EQ(s.output_shapes[0], (Shape{2, 5, 3, 6}));
  EXPECT_EQ(s.dims.at("n"), 4);
}

TEST(GufuncSchedule, ScalarsAndNoOuterDimsGiveAnEmptyLoop) {
  const GufuncLayout l = parse_gufunc_layout("(n),()->(n)");
  const GufuncSchedule s = schedule(l, {{7}, {}}, {}, "scale");
  EXPECT_EQ(s.loop_shape, Shape{});
  EXPECT_EQ(s.loop_size, 1);
  EXPECT_EQ(s.output_shapes[0], Shape{7});
}

TEST(GufuncSchedule, CoreMismatchNamesTheDimAndBothOperands) {
  const GufuncLayout l = parse_gufunc_layout("(m,n),(n,p)->(m,p)");
  try {
    schedule(l, {{3, 4}, {5, 6}}, {}, "mm");
    FAIL() << "no ShapeError";
  } catch (const ShapeError &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("core dimension 'n'"), std::string::npos) << m;
    EXPECT_NE(m.find("input 1 (shape (3,4))"), std::string::npos) << m;
    EXPECT_NE(m.find("input 2 (shape (5,6))"), std::string::npos) << m;
  }
  EXPECT_THROW(schedule(l, {{4}, {4, 6}}, {}, "mm"), ShapeError);           // too few dims
  EXPECT_THROW(schedule(l, {{2, 3, 4}, {3, 4, 6}}, {}, "mm"), ShapeError);  // outer (2,) vs (3,)
  EXPECT_THROW(schedule(l, {{3, 4}}, {}, "mm"), DispatchError);             // input count
}

TEST(GufuncSchedule, OutputsNeverBroadcastAndMayBindOutputOnlyDims) {
  const GufuncLayout l = parse_gufunc_layout("(n)->(n),(k)");
  EXPECT_THROW(schedule(l, {{2, 3}}, {}, "f"), ShapeError);  // 'k' from no input and no out
  const GufuncSchedule s = schedule(l, {{2, 3}}, {{2, 3}, {2, 9}}, "f");
  EXPECT_EQ(s.output_core[1], Shape{9});
  EXPECT_THROW(schedule(l, {{2, 3}}, {{1, 3}, {2, 9}}, "f"), ShapeError);  // out's outer dims (1,) vs (2,)
  EXPECT_THROW(schedule(l, {{2, 3}}, {{2, 3}}, "f"), DispatchError);        // all outs or none
}

TEST(GufuncParams, TableListsCoreDimsOfArrayOperandsOnly) {
  codegen::EntrySignature sig;
  sig.args = {DType::Float64, DType::Float64, DType::Float32};
  sig.arg_ndims = {2, 0, 1};
  sig.outputs = 1;
  const codegen::KernelSpec spec = codegen::make_kernel_spec(sig, codegen::gufunc_variant());
  std::vector<std::string> names;
  for (const codegen::KernelParam &p : codegen::kernel_params(spec)) {
    names.push_back(p.name(spec) + ":" + p.kind_name() + ":" + p.type_name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "n:count:int64", "ndim:ndim:int64", "shape:shape:int64[8]", "in0:array:float64*",
                       "in0_strides:strides:int64[8]", "in0_core_shape:core_shape:int64[8]",
                       "in0_core_strides:core_strides:int64[8]", "in1:array:float64*", "in1_strides:strides:int64[8]",
                       "out0:array:float32*", "out0_strides:strides:int64[8]", "out0_core_shape:core_shape:int64[8]",
                       "out0_core_strides:core_strides:int64[8]"}));
}

TEST(GufuncLoopMerge, SizeOneDimsDropAndDimsContiguousForEveryOperandMergeInOrder) {
  // Loop shape (2, 1, 3, 4, 5): operand 0 C-contiguous over it (strides in
  // bytes, the size-1 dim's stride arbitrary), operand 1 broadcast over the
  // first two dims and contiguous over the rest, operand 2 with a gap
  // between dims 3 and 4.
  const Dims loop{2, 1, 3, 4, 5};
  const MergedLoop merged =
      merge_loop_dims(loop, {Dims{480, 999, 160, 40, 8}, Dims{0, 0, 160, 40, 8}, Dims{960, 7, 320, 80, 8}});
  // 2 and 3 do not merge (operand 1 is broadcast over 2 only); 3 and 4 do;
  // 4 and 5 do not (operand 2's gap).
  EXPECT_EQ(merged.shape, (Dims{2, 12, 5}));
  EXPECT_EQ(merged.innermost, (std::vector<std::size_t>{0, 3, 4}));
}

TEST(GufuncLoopMerge, BroadcastAndReversedDims) {
  // Stride 0 everywhere merges (a broadcast operand); negative strides merge
  // when they step contiguously backwards; all size-1 leaves no dim.
  EXPECT_EQ(merge_loop_dims(Dims{4, 5}, {Dims{0, 0}, Dims{-40, -8}}).shape, (Dims{20}));
  EXPECT_EQ(merge_loop_dims(Dims{4, 5}, {Dims{8, 40}}).shape, (Dims{4, 5}));  // Fortran order: kept
  EXPECT_TRUE(merge_loop_dims(Dims{1, 1, 1}, {Dims{3, 2, 1}}).shape.empty());
  EXPECT_TRUE(merge_loop_dims(Dims{}, {Dims{}}).shape.empty());
}

TEST(GufuncParams, ElementwiseTableKeepsTheManifestNames) {
  codegen::EntrySignature sig;
  sig.args = {DType::Complex64, DType::Int32};
  sig.ret = DType::Bool;
  codegen::KernelVariant v;
  v.layout = codegen::Layout::Strided;
  v.scalar_mask = 1;
  const codegen::KernelSpec spec = codegen::make_kernel_spec(sig, v);
  std::vector<std::string> names;
  for (const codegen::KernelParam &p : codegen::kernel_params(spec)) {
    names.push_back(p.name(spec) + ":" + std::to_string(p.size()));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"n:8", "ndim:8", "shape:64", "in0:4", "in0_imag:4", "in1:8",
                                             "in1_strides:64", "out:8", "out_strides:64"}));
  EXPECT_EQ(v.suffix(), "strided_i64_s1");
  EXPECT_EQ(codegen::gufunc_variant().suffix(), "gufunc");
}

TEST(GufuncParams, TheDoneFlagFollowsTheOperandsOfElementwiseEntriesAndPrecedesTheErrorFlag) {
  codegen::EntrySignature sig;
  sig.args = {DType::Float32};
  sig.ret = DType::Float32;
  sig.can_raise = true;
  sig.done_flag = true;
  const codegen::KernelSpec spec = codegen::make_kernel_spec(sig, codegen::KernelVariant{});
  std::vector<std::string> names;
  for (const codegen::KernelParam &p : codegen::kernel_params(spec)) {
    names.push_back(p.name(spec) + ":" + p.kind_name() + ":" + p.type_name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"n:count:int64", "in0:array:float32*", "out:array:float32*",
                                             "done:done_flag:uint32*", "error:error_flag:uint32*"}));
  // A gufunc entry's launches are not waited on that way: no Done.
  codegen::EntrySignature gufunc = sig;
  gufunc.args = {DType::Float32, DType::Float32};
  gufunc.arg_ndims = {1, 1};
  gufunc.outputs = 1;
  for (const codegen::KernelParam &p :
       codegen::kernel_params(codegen::make_kernel_spec(gufunc, codegen::gufunc_variant()))) {
    EXPECT_NE(p.role, codegen::ParamRole::Done);
  }
}

}  // namespace
}  // namespace ufjit::runtime
