// Scalar arithmetic, comparisons and casts.
// requires: operands of one scalar dtype (the typer made every conversion an
// explicit Cast); guarantees: the integer and float semantics of ir/IR.h with
// no poison and no UB (division operands guarded with selects, shift counts
// masked, saturating float -> int conversions).
#include "codegen/lower/LowerInternal.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {
namespace {

llvm::Value *widen(Emitter &e, llvm::Value *v) {
  return v->getType()->isHalfTy() ? e.b.CreateFPExt(v, e.b.getFloatTy()) : v;
}

// ------------------------------------------------------------------ integers

/// Python floor division and modulo. The divisor is replaced (by a select,
/// no branch) by 1 where it is 0 or where a signed INT_MIN / -1 would
/// overflow; the results are then fixed up: x // 0 == x % 0 == 0,
/// INT_MIN // -1 == INT_MIN (wrapped), INT_MIN % -1 == 0.
llvm::Value *int_div_mod(Emitter &e, llvm::Value *a, llvm::Value *b, bool is_signed, bool want_div) {
  llvm::IRBuilder<> &builder = e.b;
  llvm::Type *t = a->getType();
  llvm::Value *zero = llvm::ConstantInt::get(t, 0);
  llvm::Value *one = llvm::ConstantInt::get(t, 1);
  llvm::Value *b_zero = builder.CreateICmpEQ(b, zero);
  if (!is_signed) {
    llvm::Value *safe_b = builder.CreateSelect(b_zero, one, b);
    if (want_div) {
      return builder.CreateSelect(b_zero, zero, builder.CreateUDiv(a, safe_b));
    }
    return builder.CreateURem(a, safe_b);  // a % 1 == 0
  }
  unsigned width = t->getIntegerBitWidth();
  llvm::Value *int_min = llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(width));
  llvm::Value *minus_one = llvm::ConstantInt::getSigned(t, -1);
  llvm::Value *overflow = builder.CreateAnd(builder.CreateICmpEQ(a, int_min), builder.CreateICmpEQ(b, minus_one));
  llvm::Value *replace = builder.CreateOr(b_zero, overflow);
  llvm::Value *safe_b = builder.CreateSelect(replace, one, b);
  // With safe_b == 1: quotient a (INT_MIN for the overflow case, as wanted),
  // remainder 0, and no floor adjustment happens.
  llvm::Value *quotient = builder.CreateSDiv(a, safe_b);
  llvm::Value *remainder = builder.CreateSRem(a, safe_b);
  llvm::Value *rem_nonzero = builder.CreateICmpNE(remainder, zero);
  llvm::Value *signs_differ = builder.CreateICmpSLT(builder.CreateXor(remainder, safe_b), zero);
  llvm::Value *adjust = builder.CreateAnd(rem_nonzero, signs_differ);
  if (want_div) {
    llvm::Value *floored = builder.CreateSub(quotient, builder.CreateZExt(adjust, t));
    return builder.CreateSelect(b_zero, zero, floored);
  }
  return builder.CreateSelect(adjust, builder.CreateAdd(remainder, safe_b), remainder);
}

/// Shl/Shr with counts >= width (or negative, which reads as a huge unsigned
/// count) giving 0, or -1 for an arithmetic shift of a negative value.
llvm::Value *int_shift(Emitter &e, ir::BinaryOpcode op, llvm::Value *a, llvm::Value *count, bool is_signed) {
  llvm::IRBuilder<> &builder = e.b;
  llvm::Type *t = a->getType();
  unsigned width = t->getIntegerBitWidth();
  llvm::Value *max_count = llvm::ConstantInt::get(t, width - 1);
  llvm::Value *in_range = builder.CreateICmpULT(count, llvm::ConstantInt::get(t, width));
  if (op == ir::BinaryOpcode::Shr && is_signed) {
    // ashr by width-1 already gives 0 or -1.
    llvm::Value *clamped = builder.CreateSelect(in_range, count, max_count);
    return builder.CreateAShr(a, clamped);
  }
  llvm::Value *masked = builder.CreateAnd(count, max_count);
  llvm::Value *shifted = op == ir::BinaryOpcode::Shl ? builder.CreateShl(a, masked) : builder.CreateLShr(a, masked);
  return builder.CreateSelect(in_range, shifted, llvm::ConstantInt::get(t, 0));
}

/// Integer power by repeated squaring (wrapping), one helper per type:
/// ufjit.ipow.s64 / ufjit.ipow.u32 ... A negative exponent gives 0 unless
/// the base is 1 (gives 1) or -1 (gives +-1 by the exponent's parity); zero to
/// a negative power gives the type's minimum (0x80...0), as Numba's
/// int_power_impl does under error_model='numpy' (its zerodiv_return).
llvm::Value *int_pow(Emitter &e, llvm::Value *base, llvm::Value *exponent, bool is_signed) {
  llvm::Type *t = base->getType();
  std::string name = std::string("ufjit.ipow.") + (is_signed ? "s" : "u") + std::to_string(t->getIntegerBitWidth());
  llvm::FunctionType *fn_type = llvm::FunctionType::get(t, {t, t}, false);
  llvm::Function *f = get_or_build_helper(e.ms, name, fn_type, [&](Emitter &h, llvm::Function *fn) {
    llvm::IRBuilder<> &b = h.b;
    llvm::Value *x = fn->getArg(0);
    llvm::Value *n = fn->getArg(1);
    llvm::Value *zero = llvm::ConstantInt::get(t, 0);
    llvm::Value *one = llvm::ConstantInt::get(t, 1);
    llvm::BasicBlock *entry = b.GetInsertBlock();
    llvm::BasicBlock *loop = new_block(h, "loop");
    llvm::BasicBlock *body = new_block(h, "body");
    llvm::BasicBlock *done = new_block(h, "done");
    if (is_signed) {
      llvm::BasicBlock *negative = new_block(h, "negative");
      b.CreateCondBr(b.CreateICmpSLT(n, zero), negative, loop);
      b.SetInsertPoint(negative);
      llvm::Value *minus_one = llvm::ConstantInt::getSigned(t, -1);
      llvm::Value *odd = b.CreateICmpNE(b.CreateAnd(n, one), zero);
      llvm::Value *for_minus_one = b.CreateSelect(odd, minus_one, one);
      llvm::Value *result = b.CreateSelect(b.CreateICmpEQ(x, minus_one), for_minus_one, zero);
      result = b.CreateSelect(b.CreateICmpEQ(x, one), one, result);
      llvm::Value *int_min = llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(t->getIntegerBitWidth()));
      result = b.CreateSelect(b.CreateICmpEQ(x, zero), int_min, result);
      b.CreateRet(result);
    } else {
      b.CreateBr(loop);
    }
    b.SetInsertPoint(loop);
    llvm::PHINode *acc = b.CreatePHI(t, 2, "acc");
    llvm::PHINode *square = b.CreatePHI(t, 2, "square");
    llvm::PHINode *rest = b.CreatePHI(t, 2, "rest");
    acc->addIncoming(one, entry);
    square->addIncoming(x, entry);
    rest->addIncoming(n, entry);
    b.CreateCondBr(b.CreateICmpNE(rest, zero), body, done);
    b.SetInsertPoint(body);
    llvm::Value *bit = b.CreateICmpNE(b.CreateAnd(rest, one), zero);
    llvm::Value *next_acc = b.CreateSelect(bit, b.CreateMul(acc, square), acc);
    llvm::Value *next_square = b.CreateMul(square, square);
    llvm::Value *next_rest = b.CreateLShr(rest, one);
    acc->addIncoming(next_acc, body);
    square->addIncoming(next_square, body);
    rest->addIncoming(next_rest, body);
    b.CreateBr(loop);
    b.SetInsertPoint(done);
    b.CreateRet(acc);
  });
  return e.b.CreateCall(f, {base, exponent});
}

llvm::Value *int_binary(Emitter &e, ir::BinaryOpcode op, DType type, llvm::Value *a, llvm::Value *b) {
  using ir::BinaryOpcode;
  bool is_signed = is_signed_int(type);
  switch (op) {
    case BinaryOpcode::Add:
      return e.b.CreateAdd(a, b);
    case BinaryOpcode::Sub:
      return e.b.CreateSub(a, b);
    case BinaryOpcode::Mul:
      return e.b.CreateMul(a, b);
    case BinaryOpcode::FloorDiv:
      return int_div_mod(e, a, b, is_signed, true);
    case BinaryOpcode::Mod:
      return int_div_mod(e, a, b, is_signed, false);
    case BinaryOpcode::Pow:
      return int_pow(e, a, b, is_signed);
    case BinaryOpcode::BitAnd:
      return e.b.CreateAnd(a, b);
    case BinaryOpcode::BitOr:
      return e.b.CreateOr(a, b);
    case BinaryOpcode::BitXor:
      return e.b.CreateXor(a, b);
    case BinaryOpcode::Shl:
    case BinaryOpcode::Shr:
      return int_shift(e, op, a, b, is_signed);
    case BinaryOpcode::Div:
      break;
  }
  internal_error << "binary " << ir::binary_opcode_name(op) << " on " << dtype_name(type);
}

llvm::Value *float_binary(Emitter &e, ir::BinaryOpcode op, DType type, llvm::Value *a, llvm::Value *b) {
  using ir::BinaryOpcode;
  DType ct = compute_dtype(type);
  llvm::Value *x = widen(e, a);
  llvm::Value *y = widen(e, b);
  llvm::Value *result = nullptr;
  switch (op) {
    case BinaryOpcode::Add:
      result = e.b.CreateFAdd(x, y);
      break;
    case BinaryOpcode::Sub:
      result = e.b.CreateFSub(x, y);
      break;
    case BinaryOpcode::Mul:
      result = e.b.CreateFMul(x, y);
      break;
    case BinaryOpcode::Div:
      result = e.b.CreateFDiv(x, y);
      break;
    case BinaryOpcode::FloorDiv:
      result = float_floor_div(e, x, y, ct);
      break;
    case BinaryOpcode::Mod:
      result = float_mod(e, x, y, ct);
      break;
    case BinaryOpcode::Pow:
      result = call_libm(e, "pow", ct, {x, y});
      break;
    default:
      internal_error << "binary " << ir::binary_opcode_name(op) << " on " << dtype_name(type);
  }
  if (type == DType::Float16) {
    result = e.b.CreateFPTrunc(result, e.b.getHalfTy());
  }
  return result;
}

// ------------------------------------------------------------------ casts

/// float (float32/float64) -> integer dtype, truncating toward zero, never
/// poison. Narrow integers and uint64 go through int64 so that negative
/// values wrap as the C conversion does on x86 (NumPy's astype): -1.0 ->
/// uint8 255. NaN and out-of-range values give saturated (unspecified) values.
llvm::Value *float_to_int(Emitter &e, llvm::Value *v, DType to) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Type *target = value_type(e.ctx(), to);
  llvm::Value *as_i64 = b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {i64, v->getType()}, {v});
  if (to == DType::UInt64) {
    llvm::Value *as_u64 = b.CreateIntrinsic(llvm::Intrinsic::fptoui_sat, {i64, v->getType()}, {v});
    llvm::Value *small = b.CreateFCmpOLT(v, float_constant(v->getType(), 9223372036854775808.0));
    return b.CreateSelect(small, as_i64, as_u64);
  }
  if (to == DType::Int64) {
    return as_i64;
  }
  return b.CreateTrunc(as_i64, target);
}

llvm::Value *real_cast(Emitter &e, llvm::Value *v, DType from, DType to) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Type *target = value_type(e.ctx(), to);
  if (to == DType::Bool) {
    return truth_value(e, v, from);
  }
  if (from == DType::Bool) {
    return is_integer(to) ? b.CreateZExt(v, target) : b.CreateUIToFP(v, target);
  }
  if (is_integer(from) && is_integer(to)) {
    return is_signed_int(from) ? b.CreateSExtOrTrunc(v, target) : b.CreateZExtOrTrunc(v, target);
  }
  if (is_integer(from)) {
    // int -> float16 goes through float32: exact below 2**24, and every
    // larger integer overflows float16 anyway, so no double rounding.
    llvm::Type *via = to == DType::Float16 ? b.getFloatTy() : target;
    llvm::Value *f = is_signed_int(from) ? b.CreateSIToFP(v, via) : b.CreateUIToFP(v, via);
    return via == target ? f : b.CreateFPTrunc(f, target);
  }
  if (is_integer(to)) {
    return float_to_int(e, widen(e, v), to);
  }
  // float -> float: correctly rounded directly (float64 -> float16 included).
  unsigned from_bits = v->getType()->getPrimitiveSizeInBits();
  unsigned to_bits = target->getPrimitiveSizeInBits();
  if (from_bits == to_bits) {
    return v;
  }
  return from_bits < to_bits ? b.CreateFPExt(v, target) : b.CreateFPTrunc(v, target);
}

}  // namespace

llvm::Value *truth_value(Emitter &e, llvm::Value *v, DType type) {
  llvm::IRBuilder<> &b = e.b;
  if (type == DType::Bool) {
    return v;
  }
  if (is_integer(type)) {
    return b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (is_float(type)) {
    llvm::Value *x = widen(e, v);
    return b.CreateFCmpUNE(x, float_constant(x->getType(), 0.0));  // NaN is truthy
  }
  llvm::Value *re = truth_value(e, complex_real(e, v), component_dtype(type));
  llvm::Value *im = truth_value(e, complex_imag(e, v), component_dtype(type));
  return b.CreateOr(re, im);
}

llvm::Value *lower_cast(Emitter &e, llvm::Value *v, DType from, DType to) {
  if (from == to) {
    return v;
  }
  if (to == DType::Bool) {
    return truth_value(e, v, from);
  }
  if (is_complex(from) && is_complex(to)) {
    DType component = component_dtype(to);
    llvm::Value *re = real_cast(e, complex_real(e, v), component_dtype(from), component);
    llvm::Value *im = real_cast(e, complex_imag(e, v), component_dtype(from), component);
    return make_complex(e, re, im);
  }
  if (is_complex(from)) {
    return real_cast(e, complex_real(e, v), component_dtype(from), to);
  }
  if (is_complex(to)) {
    DType component = component_dtype(to);
    llvm::Value *re = real_cast(e, v, from, component);
    return make_complex(e, re, float_constant(re->getType(), 0.0));
  }
  return real_cast(e, v, from, to);
}

llvm::Value *lower_binary(Emitter &e, ir::BinaryOpcode op, DType type, llvm::Value *a, llvm::Value *b) {
  using ir::BinaryOpcode;
  if (is_complex(type)) {
    return lower_complex_binary(e, op, type, a, b);
  }
  if (is_float(type)) {
    return float_binary(e, op, type, a, b);
  }
  // On bools only the bitwise operators are left (the typer widens the
  // others' operands); int_binary lowers them as on integers.
  const bool bitwise = op == BinaryOpcode::BitAnd || op == BinaryOpcode::BitOr || op == BinaryOpcode::BitXor;
  if (type == DType::Bool && !bitwise) {
    internal_error << "binary " << ir::binary_opcode_name(op) << " on bool";
  }
  return int_binary(e, op, type, a, b);
}

llvm::Value *lower_compare(Emitter &e, ir::CompareOpcode op, DType type, llvm::Value *a, llvm::Value *b) {
  using ir::CompareOpcode;
  llvm::IRBuilder<> &builder = e.b;
  if (is_complex(type)) {
    llvm::Value *re = lower_compare(e, op, component_dtype(type), complex_real(e, a), complex_real(e, b));
    llvm::Value *im = lower_compare(e, op, component_dtype(type), complex_imag(e, a), complex_imag(e, b));
    if (op == CompareOpcode::Eq) {
      return builder.CreateAnd(re, im);
    }
    internal_assert(op == CompareOpcode::Ne) << "ordered comparison of complex values";
    return builder.CreateOr(re, im);
  }
  if (is_float(type)) {
    llvm::Value *x = widen(e, a);
    llvm::Value *y = widen(e, b);
    switch (op) {
      case CompareOpcode::Lt:
        return builder.CreateFCmpOLT(x, y);
      case CompareOpcode::Le:
        return builder.CreateFCmpOLE(x, y);
      case CompareOpcode::Gt:
        return builder.CreateFCmpOGT(x, y);
      case CompareOpcode::Ge:
        return builder.CreateFCmpOGE(x, y);
      case CompareOpcode::Eq:
        return builder.CreateFCmpOEQ(x, y);
      case CompareOpcode::Ne:
        return builder.CreateFCmpUNE(x, y);
    }
  }
  bool is_signed = is_signed_int(type);  // bool compares unsigned: False < True
  switch (op) {
    case CompareOpcode::Lt:
      return is_signed ? builder.CreateICmpSLT(a, b) : builder.CreateICmpULT(a, b);
    case CompareOpcode::Le:
      return is_signed ? builder.CreateICmpSLE(a, b) : builder.CreateICmpULE(a, b);
    case CompareOpcode::Gt:
      return is_signed ? builder.CreateICmpSGT(a, b) : builder.CreateICmpUGT(a, b);
    case CompareOpcode::Ge:
      return is_signed ? builder.CreateICmpSGE(a, b) : builder.CreateICmpUGE(a, b);
    case CompareOpcode::Eq:
      return builder.CreateICmpEQ(a, b);
    case CompareOpcode::Ne:
      return builder.CreateICmpNE(a, b);
  }
  internal_error << "unknown compare opcode";
}

llvm::Value *lower_unary(Emitter &e, ir::UnaryOpcode op, DType type, llvm::Value *v) {
  using ir::UnaryOpcode;
  llvm::IRBuilder<> &b = e.b;
  switch (op) {
    case UnaryOpcode::Neg:
      if (is_complex(type)) {
        return make_complex(e, b.CreateFNeg(complex_real(e, v)), b.CreateFNeg(complex_imag(e, v)));
      }
      if (is_float(type)) {
        return b.CreateFNeg(v);  // a sign flip: exact on float16 too
      }
      return b.CreateNeg(v);  // wraps: no nsw
    case UnaryOpcode::Not:
      internal_assert(type == DType::Bool) << "logical not on " << dtype_name(type);
      return b.CreateNot(v);
    case UnaryOpcode::Invert:
      internal_assert(type == DType::Bool || is_integer(type)) << "bitwise not on " << dtype_name(type);
      return b.CreateNot(v);
  }
  internal_error << "unknown unary opcode";
}

}  // namespace ufjit::codegen::lower
