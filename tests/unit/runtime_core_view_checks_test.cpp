// Checks of caller-supplied views and the byte-level questions of the call
// path (runtime/ViewChecks.h), and broadcasting to `out` (Broadcast.h).
#include <gtest/gtest.h>

#include "runtime/Broadcast.h"
#include "runtime/ViewChecks.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {
namespace {

using Shape = std::vector<int64_t>;

ArrayView at(uintptr_t address, DType t, Shape shape, std::vector<int64_t> strides) {
  return ArrayView{reinterpret_cast<void *>(address), t, std::move(shape), std::move(strides)};
}

std::string label() { return "input 1"; }

TEST(ViewChecks, ByteExtentCoversNegativeAndPositiveStrides) {
  const ByteExtent e = byte_extent(at(4096, DType::Float64, {3, 4}, {-32, 8}));
  EXPECT_EQ(e.lo, -64);
  EXPECT_EQ(e.hi, 24 + 8);
  const ByteExtent empty = byte_extent(at(4096, DType::Float64, {3, 0}, {-32, 8}));
  EXPECT_EQ(empty.hi - empty.lo, 0);
}

TEST(ViewChecks, ByteExtentThatOverflowsIsAShapeError) {
  EXPECT_THROW(byte_extent(at(4096, DType::Float64, {int64_t{1} << 40}, {int64_t{1} << 40})), ShapeError);
  EXPECT_THROW(byte_extent(at(4096, DType::Float64, {3, 3}, {int64_t{1} << 62, int64_t{1} << 62})), ShapeError);
}

TEST(ViewChecks, CheckedBytesRejectsNegativeDimsAndOverflow) {
  EXPECT_EQ(checked_bytes(DType::Complex128, {2, 3}), 96);
  EXPECT_THROW(checked_bytes(DType::Float64, {-1}), ShapeError);
  EXPECT_THROW(checked_bytes(DType::Float64, {int64_t{1} << 61}), ShapeError);
}

TEST(ViewChecks, ValidateViewNamesTheOperandAndPicksTheType) {
  EXPECT_NO_THROW(validate_view(at(4096, DType::Float64, {3}, {8}), label));
  EXPECT_NO_THROW(validate_view(at(0, DType::Float64, {0}, {8}), label));
  EXPECT_THROW(validate_view(at(4096, DType::Float64, {3}, {}), label), ShapeError);
  EXPECT_THROW(validate_view(at(4096, DType::Float64, {-3}, {8}), label), ShapeError);
  EXPECT_THROW(validate_view(at(64, DType::Float64, {16}, {-8}), label), ShapeError);  // below address 0
  EXPECT_THROW(validate_view(at(UINTPTR_MAX - 63, DType::Float64, {16}, {8}), label), ShapeError);  // wraps
  try {
    validate_view(at(0, DType::Int32, {2}, {4}), label);
    FAIL() << "null data accepted";
  } catch (const InputError &e) {
    EXPECT_STREQ(e.what(), "input 1 (int32[2]) has a null data pointer");
  }
  EXPECT_THROW(validate_view(at(4098, DType::Int32, {2}, {4}), label), InputError);
  EXPECT_THROW(validate_view(at(4096, DType::Int32, {2}, {6}), label), InputError);
  EXPECT_NO_THROW(validate_view(at(4104, DType::Complex128, {2}, {24}), label));  // component-aligned
  EXPECT_NO_THROW(validate_view(at(4097, DType::UInt8, {2}, {3}), label));
}

TEST(ViewChecks, OverlapIsByteRangeIntersection) {
  const ArrayView a = at(4096, DType::Float64, {4}, {8});
  EXPECT_TRUE(may_overlap(a, at(4096 + 24, DType::Float64, {2}, {8})));
  EXPECT_FALSE(may_overlap(a, at(4096 + 32, DType::Float64, {2}, {8})));
  EXPECT_TRUE(may_overlap(a, at(4096 + 24, DType::Float64, {4}, {-8})));  // a reversed
  EXPECT_FALSE(may_overlap(a, at(4096, DType::Float64, {0}, {8})));       // empty
}

TEST(ViewChecks, SameElementsIgnoresStridesOfSizeOneDims) {
  const ArrayView a = at(4096, DType::Float64, {1, 4}, {32, 8});
  EXPECT_TRUE(same_elements(a, at(4096, DType::Float64, {1, 4}, {0, 8})));
  EXPECT_FALSE(same_elements(a, at(4096, DType::Float64, {1, 4}, {0, -8})));
  EXPECT_FALSE(same_elements(a, at(4104, DType::Float64, {1, 4}, {32, 8})));
}

TEST(Broadcast, InputShapesBroadcastToOutButOutNeverBroadcasts) {
  EXPECT_TRUE(broadcasts_to({3}, {2, 3}));
  EXPECT_TRUE(broadcasts_to({1, 3}, {2, 3}));
  EXPECT_TRUE(broadcasts_to({}, {2, 3}));
  EXPECT_FALSE(broadcasts_to({2, 3}, {3}));
  EXPECT_FALSE(broadcasts_to({2, 1}, {3}));
  EXPECT_FALSE(broadcasts_to({4}, {2, 3}));
}

TEST(ArrayTyping, TypedArrayOfAnEmptyArrayIsAnInputError) {
  EXPECT_THROW(TypedArray<double>{Array()}, InputError);
}

}  // namespace
}  // namespace ufjit::runtime
