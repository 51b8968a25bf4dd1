// Integer semantics of the scalar lowering (ir/IR.h), run on the CPU via JIT.
// Expected values are Python's, computed by the reference functions below.
#include <cstdint>
#include <limits>

#include "codegen_lower_jit.h"

namespace ufjit::codegen::testing {
namespace {

using ir::BinaryOpcode;

ir::Module binary_module(BinaryOpcode op, DType t) {
  return expr_module({t, t}, [&](const std::vector<ir::Expr> &p) { return ir::Binary::make(op, p[0], p[1]); });
}

// Python's // and % on int64 (with the IR's rules for 0 and INT_MIN // -1),
// computed in __int128 so that nothing here can overflow.
int64_t py_floordiv(int64_t a, int64_t b) {
  if (b == 0) {
    return 0;
  }
  __int128 q = static_cast<__int128>(a) / b;
  __int128 r = static_cast<__int128>(a) % b;
  if (r != 0 && ((r < 0) != (b < 0))) {
    q -= 1;
  }
  return static_cast<int64_t>(static_cast<uint64_t>(q));  // wraps INT_MIN // -1
}

int64_t py_mod(int64_t a, int64_t b) {
  if (b == 0) {
    return 0;
  }
  __int128 r = static_cast<__int128>(a) % b;
  if (r != 0 && ((r < 0) != (b < 0))) {
    r += b;
  }
  return static_cast<int64_t>(r);
}

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(LowerInt, FloorDivAndModFollowPython) {
  Jit div(binary_module(BinaryOpcode::FloorDiv, DType::Int64));
  Jit mod(binary_module(BinaryOpcode::Mod, DType::Int64));
  const int64_t values[] = {-7, 7, -2, 2, 0, 1, -1, 3, kMin, kMax, kMin + 1, 100};
  for (int64_t a : values) {
    for (int64_t b : values) {
      EXPECT_EQ(div.call<int64_t>(a, b), py_floordiv(a, b)) << a << " // " << b;
      EXPECT_EQ(mod.call<int64_t>(a, b), py_mod(a, b)) << a << " % " << b;
    }
  }
  // Spot checks written out by hand.
  EXPECT_EQ(div.call<int64_t>(int64_t{-7}, int64_t{2}), -4);
  EXPECT_EQ(mod.call<int64_t>(int64_t{-7}, int64_t{2}), 1);
  EXPECT_EQ(mod.call<int64_t>(int64_t{7}, int64_t{-2}), -1);
  EXPECT_EQ(div.call<int64_t>(int64_t{5}, int64_t{0}), 0);
  EXPECT_EQ(div.call<int64_t>(kMin, int64_t{-1}), kMin);
  EXPECT_EQ(mod.call<int64_t>(kMin, int64_t{-1}), 0);
}

TEST(LowerInt, NarrowSignedFloorDivWrapsAtInt8Min) {
  Jit div(binary_module(BinaryOpcode::FloorDiv, DType::Int8));
  Jit mod(binary_module(BinaryOpcode::Mod, DType::Int8));
  EXPECT_EQ(div.call<int8_t>(int8_t{-128}, int8_t{-1}), -128);
  EXPECT_EQ(mod.call<int8_t>(int8_t{-128}, int8_t{-1}), 0);
  EXPECT_EQ(div.call<int8_t>(int8_t{-7}, int8_t{2}), -4);
  EXPECT_EQ(mod.call<int8_t>(int8_t{-7}, int8_t{0}), 0);
}

TEST(LowerInt, UnsignedDivisionByZeroGivesZero) {
  Jit div(binary_module(BinaryOpcode::FloorDiv, DType::UInt32));
  Jit mod(binary_module(BinaryOpcode::Mod, DType::UInt32));
  EXPECT_EQ(div.call<uint32_t>(uint32_t{7}, uint32_t{0}), 0u);
  EXPECT_EQ(mod.call<uint32_t>(uint32_t{7}, uint32_t{0}), 0u);
  EXPECT_EQ(div.call<uint32_t>(uint32_t{4000000000u}, uint32_t{3}), 1333333333u);
  EXPECT_EQ(mod.call<uint32_t>(uint32_t{4000000000u}, uint32_t{7}), 4000000000u % 7u);
}

TEST(LowerInt, AddSubMulWrap) {
  Jit add(binary_module(BinaryOpcode::Add, DType::Int32));
  Jit mul(binary_module(BinaryOpcode::Mul, DType::Int64));
  Jit sub(binary_module(BinaryOpcode::Sub, DType::Int8));
  EXPECT_EQ(add.call<int32_t>(int32_t{2147483647}, int32_t{1}), -2147483647 - 1);
  EXPECT_EQ(mul.call<int64_t>(kMax, int64_t{2}), -2);
  EXPECT_EQ(sub.call<int8_t>(int8_t{-128}, int8_t{1}), 127);
}

TEST(LowerInt, ShiftsByWidthOrMoreGiveZeroOrMinusOne) {
  Jit shl(binary_module(BinaryOpcode::Shl, DType::Int64));
  Jit shr(binary_module(BinaryOpcode::Shr, DType::Int64));
  Jit ushr(binary_module(BinaryOpcode::Shr, DType::UInt8));
  EXPECT_EQ(shl.call<int64_t>(int64_t{1}, int64_t{63}), kMin);
  EXPECT_EQ(shl.call<int64_t>(int64_t{1}, int64_t{64}), 0);
  EXPECT_EQ(shl.call<int64_t>(int64_t{1}, int64_t{-1}), 0);
  EXPECT_EQ(shl.call<int64_t>(int64_t{3}, int64_t{2}), 12);
  EXPECT_EQ(shr.call<int64_t>(int64_t{-8}, int64_t{1}), -4);
  EXPECT_EQ(shr.call<int64_t>(int64_t{-8}, int64_t{64}), -1);
  EXPECT_EQ(shr.call<int64_t>(int64_t{-8}, int64_t{-3}), -1);
  EXPECT_EQ(shr.call<int64_t>(int64_t{8}, int64_t{200}), 0);
  EXPECT_EQ(ushr.call<uint8_t>(uint8_t{0x80}, uint8_t{7}), 1);
  EXPECT_EQ(ushr.call<uint8_t>(uint8_t{0x80}, uint8_t{8}), 0);
}

// Reference integer power: plain repeated multiplication in uint64 (wraps).
int64_t reference_pow(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) {
      return 1;
    }
    if (base == -1) {
      return exponent % 2 == 0 ? 1 : -1;
    }
    if (base == 0) {
      return std::numeric_limits<int64_t>::min();  // Numba's zerodiv_return
    }
    return 0;
  }
  uint64_t result = 1;
  for (int64_t k = 0; k < exponent; ++k) {
    result *= static_cast<uint64_t>(base);
  }
  return static_cast<int64_t>(result);
}

TEST(LowerInt, PowIsExactAndWrapsAndHandlesNegativeExponents) {
  Jit pow(binary_module(BinaryOpcode::Pow, DType::Int64));
  EXPECT_EQ(pow.call<int64_t>(int64_t{2}, int64_t{10}), 1024);
  EXPECT_EQ(pow.call<int64_t>(int64_t{2}, int64_t{-1}), 0);
  EXPECT_EQ(pow.call<int64_t>(int64_t{-1}, int64_t{-3}), -1);
  EXPECT_EQ(pow.call<int64_t>(int64_t{-1}, int64_t{-4}), 1);
  EXPECT_EQ(pow.call<int64_t>(int64_t{1}, int64_t{-5}), 1);
  EXPECT_EQ(pow.call<int64_t>(int64_t{0}, int64_t{0}), 1);
  const int64_t bases[] = {-3, -2, 0, 1, 2, 3, 7, 12345};
  for (int64_t base : bases) {
    for (int64_t exponent = -2; exponent <= 70; ++exponent) {
      EXPECT_EQ(pow.call<int64_t>(base, exponent), reference_pow(base, exponent)) << base << " ** " << exponent;
    }
  }
}

TEST(LowerInt, UnsignedPowWraps) {
  Jit pow(binary_module(BinaryOpcode::Pow, DType::UInt8));
  EXPECT_EQ(pow.call<uint8_t>(uint8_t{3}, uint8_t{5}), static_cast<uint8_t>(243));
  EXPECT_EQ(pow.call<uint8_t>(uint8_t{3}, uint8_t{6}), static_cast<uint8_t>(729 % 256));
}

TEST(LowerInt, BoolBitwiseAndUnaryOps) {
  Jit bit_xor(binary_module(BinaryOpcode::BitXor, DType::Bool));
  EXPECT_EQ(bit_xor.call<bool>(true, true), false);
  EXPECT_EQ(bit_xor.call<bool>(true, false), true);
  Jit invert(expr_module({DType::Bool}, [](const std::vector<ir::Expr> &p) {
    return ir::Unary::make(ir::UnaryOpcode::Invert, p[0]);
  }));
  EXPECT_EQ(invert.call<bool>(true), false);
  Jit neg(expr_module({DType::Int32}, [](const std::vector<ir::Expr> &p) {
    return ir::Unary::make(ir::UnaryOpcode::Neg, p[0]);
  }));
  EXPECT_EQ(neg.call<int32_t>(int32_t{-2147483647 - 1}), -2147483647 - 1);
  Jit iabs(expr_module({DType::Int64}, [](const std::vector<ir::Expr> &p) {
    return ir::Intrinsic::make(ir::IntrinsicOp::IAbs, p[0].type(), {p[0]});
  }));
  EXPECT_EQ(iabs.call<int64_t>(int64_t{-5}), 5);
  EXPECT_EQ(iabs.call<int64_t>(kMin), kMin);
}

TEST(LowerInt, CompareSignedAndUnsigned) {
  Jit slt(expr_module({DType::Int32, DType::Int32}, [](const std::vector<ir::Expr> &p) {
    return ir::Compare::make(ir::CompareOpcode::Lt, p[0], p[1]);
  }));
  Jit ult(expr_module({DType::UInt32, DType::UInt32}, [](const std::vector<ir::Expr> &p) {
    return ir::Compare::make(ir::CompareOpcode::Lt, p[0], p[1]);
  }));
  EXPECT_TRUE(slt.call<bool>(int32_t{-1}, int32_t{0}));
  EXPECT_FALSE(ult.call<bool>(uint32_t{0xFFFFFFFFu}, uint32_t{0}));
}

TEST(LowerInt, IntegerCastsTruncateAndExtend) {
  auto cast = [](DType from, DType to) {
    return expr_module({from}, [to](const std::vector<ir::Expr> &p) { return ir::Cast::make(to, p[0]); });
  };
  EXPECT_EQ(Jit(cast(DType::Int64, DType::Int8)).call<int8_t>(int64_t{300}), 44);
  EXPECT_EQ(Jit(cast(DType::Int8, DType::Int64)).call<int64_t>(int8_t{-3}), -3);
  EXPECT_EQ(Jit(cast(DType::UInt8, DType::Int64)).call<int64_t>(uint8_t{200}), 200);
  EXPECT_EQ(Jit(cast(DType::Int64, DType::Bool)).call<bool>(int64_t{256}), true);
  EXPECT_EQ(Jit(cast(DType::Bool, DType::Int32)).call<int32_t>(true), 1);
  EXPECT_EQ(Jit(cast(DType::UInt64, DType::Float64)).call<double>(uint64_t{18446744073709551615ull}),
            18446744073709551616.0);
  EXPECT_EQ(Jit(cast(DType::Int64, DType::Float32)).call<float>(int64_t{-3}), -3.0f);
}

}  // namespace
}  // namespace ufjit::codegen::testing
