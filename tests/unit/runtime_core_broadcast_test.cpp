// Broadcasting and dimension collapsing (runtime/Broadcast.h).
#include <gtest/gtest.h>

#include "codegen/kernel/KernelABI.h"
#include "runtime/Broadcast.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {
namespace {

using Shape = std::vector<int64_t>;

ArrayView make_view(DType t, Shape shape, std::vector<int64_t> strides = {}) {
  ArrayView v;
  v.dtype = t;
  v.data = reinterpret_cast<void *>(uintptr_t{4096});
  v.strides = strides.empty() ? ArrayView::c_strides(shape, dtype_size(t)) : Dims(strides);
  v.shape = std::move(shape);
  return v;
}

TEST(Broadcast, ThreeDimsWithTwoDims) {
  EXPECT_EQ(broadcast_shapes({{3, 1, 4}, {5, 1}}), (Shape{3, 5, 4}));
}

TEST(Broadcast, FiveDimsWithOneDim) {
  EXPECT_EQ(broadcast_shapes({{2, 3, 1, 5, 6}, {6}}), (Shape{2, 3, 1, 5, 6}));
}

TEST(Broadcast, ZeroDimWithAnything) {
  EXPECT_EQ(broadcast_shapes({{}, {4, 2}}), (Shape{4, 2}));
  EXPECT_EQ(broadcast_shapes({{}, {}}), (Shape{}));
  EXPECT_EQ(broadcast_shapes({}), (Shape{}));
}

TEST(Broadcast, EmptyDimBroadcastsWithOneAndStaysEmpty) {
  EXPECT_EQ(broadcast_shapes({{0, 3}, {1, 3}}), (Shape{0, 3}));
  EXPECT_EQ(broadcast_shapes({{0}, {1}}), (Shape{0}));
}

TEST(Broadcast, EmptyDimDoesNotBroadcastWithTwo) {
  EXPECT_THROW(broadcast_shapes({{0}, {2}}), ShapeError);
}

TEST(Broadcast, MismatchNamesEveryShapeNumPyStyle) {
  try {
    broadcast_shapes({{3, 4}, {5}});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError &e) {
    EXPECT_STREQ(e.what(), "operands could not be broadcast together with shapes (3,4) (5,)");
  }
}

TEST(Broadcast, FormatShapeMatchesNumPy) {
  EXPECT_EQ(format_shape({}), "()");
  EXPECT_EQ(format_shape({5}), "(5,)");
  EXPECT_EQ(format_shape({3, 4}), "(3,4)");
}

TEST(Broadcast, BroadcastToGivesStrideZeroOnNewAndGrownDims) {
  ArrayView v = make_view(DType::Float32, {5, 1});
  ArrayView b = broadcast_to(v, {3, 5, 4});
  EXPECT_EQ(b.shape, (Shape{3, 5, 4}));
  EXPECT_EQ(b.strides, (std::vector<int64_t>{0, 4, 0}));
  EXPECT_EQ(b.data, v.data);
}

TEST(Broadcast, SizeOverflowIsAShapeError) {
  EXPECT_THROW(broadcast_shapes({{int64_t{1} << 40, int64_t{1} << 40}}), ShapeError);
}

TEST(Collapse, ContiguousSameShapeBecomesOneDim) {
  ArrayView out = make_view(DType::Float32, {3, 4, 5});
  ArrayView in = make_view(DType::Float64, {3, 4, 5});
  Shape s = collapse_dims({3, 4, 5}, {&out, &in}, codegen::kMaxDims);
  EXPECT_EQ(s, (Shape{60}));
  EXPECT_EQ(out.strides, (std::vector<int64_t>{4}));
  EXPECT_EQ(in.strides, (std::vector<int64_t>{8}));
}

TEST(Collapse, BroadcastDimStaysSeparate) {
  ArrayView out = make_view(DType::Float32, {3, 5, 4});
  ArrayView in = broadcast_to(make_view(DType::Float32, {5, 1}), {3, 5, 4});
  Shape s = collapse_dims({3, 5, 4}, {&out, &in}, codegen::kMaxDims);
  // in's strides (0, 4, 0): no pair is contiguous for both.
  EXPECT_EQ(s, (Shape{3, 5, 4}));
  EXPECT_EQ(in.strides, (std::vector<int64_t>{0, 4, 0}));
}

TEST(Collapse, LeadingBroadcastDimsMergeWithEachOther) {
  ArrayView out = make_view(DType::Float32, {2, 3, 4});
  ArrayView in = broadcast_to(make_view(DType::Float32, {4}), {2, 3, 4});
  Shape s = collapse_dims({2, 3, 4}, {&out, &in}, codegen::kMaxDims);
  EXPECT_EQ(s, (Shape{6, 4}));
  EXPECT_EQ(in.strides, (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(out.strides, (std::vector<int64_t>{16, 4}));
}

TEST(Collapse, SizeOneDimsAreDropped) {
  ArrayView out = make_view(DType::Int32, {1, 7, 1});
  Shape s = collapse_dims({1, 7, 1}, {&out}, codegen::kMaxDims);
  EXPECT_EQ(s, (Shape{7}));
  ArrayView zero_d = make_view(DType::Int32, {1, 1});
  EXPECT_EQ(collapse_dims({1, 1}, {&zero_d}, codegen::kMaxDims), (Shape{}));
}

TEST(Collapse, NegativeStridesCollapseWhenConsistent) {
  // A C-contiguous (3,4) float32 array reversed on both axes.
  ArrayView out = make_view(DType::Float32, {3, 4});
  ArrayView in = make_view(DType::Float32, {3, 4}, {-16, -4});
  Shape s = collapse_dims({3, 4}, {&out, &in}, codegen::kMaxDims);
  EXPECT_EQ(s, (Shape{12}));
  EXPECT_EQ(in.strides, (std::vector<int64_t>{-4}));
}

TEST(Collapse, FortranOperandsWithFortranOutputBecomeOneDim) {
  ArrayView out = make_view(DType::Float64, {3, 4, 5}, {8, 24, 96});
  ArrayView in = make_view(DType::Float32, {3, 4, 5}, {4, 12, 48});
  Shape s = collapse_dims({3, 4, 5}, {&out, &in}, codegen::kMaxDims);
  EXPECT_EQ(s, (Shape{60}));
  EXPECT_EQ(out.strides, (std::vector<int64_t>{8}));
  EXPECT_EQ(in.strides, (std::vector<int64_t>{4}));
}

TEST(Collapse, MoreThanMaxDimsIsAnError) {
  // Ten dims of size 2, every other element taken: nothing merges.
  Shape shape(10, 2);
  std::vector<int64_t> strides(10);
  int64_t s = 8;
  for (int d = 9; d >= 0; --d) {
    strides[static_cast<std::size_t>(d)] = s;
    s *= 4;
  }
  ArrayView out = make_view(DType::Float32, shape);
  ArrayView in = make_view(DType::Float32, shape, strides);
  EXPECT_THROW(collapse_dims(shape, {&out, &in}, codegen::kMaxDims), ShapeError);
}

TEST(Collapse, ManyDimsThatMergeAreFine) {
  Shape shape(12, 2);
  ArrayView out = make_view(DType::Float32, shape);
  ArrayView in = make_view(DType::Float32, shape);
  EXPECT_EQ(collapse_dims(shape, {&out, &in}, codegen::kMaxDims), (Shape{4096}));
}

TEST(OutputOrder, FortranInputsGiveFortranOrder) {
  std::vector<ArrayView> inputs = {make_view(DType::Float32, {3, 4}, {4, 12}),
                                   make_view(DType::Float32, {3, 4}, {4, 12})};
  EXPECT_EQ(output_memory_order({3, 4}, inputs), (std::vector<int>{1, 0}));
}

TEST(OutputOrder, DisagreeingInputsGiveCOrder) {
  std::vector<ArrayView> inputs = {make_view(DType::Float32, {3, 4}, {4, 12}), make_view(DType::Float32, {3, 4})};
  EXPECT_EQ(output_memory_order({3, 4}, inputs), (std::vector<int>{0, 1}));
}

TEST(OutputOrder, UnpermuteRestoresLogicalOrder) {
  // Memory order (1, 0): the allocation has shape (4, 3) in C order.
  ArrayView alloc = make_view(DType::Float32, {4, 3});
  ArrayView v = unpermute(alloc, {1, 0});
  EXPECT_EQ(v.shape, (Shape{3, 4}));
  EXPECT_EQ(v.strides, (std::vector<int64_t>{4, 12}));
  EXPECT_TRUE(v.is_f_contiguous());
}

}  // namespace
}  // namespace ufjit::runtime
