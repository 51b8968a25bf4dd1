// Complex arithmetic and cmath, built from the real math calls.
// requires: complex64/complex128 values as {re, im} structs; guarantees:
// CPython's formulas (Objects/complexobject.c, Modules/cmathmodule.c) for
// finite inputs, computed in the component type (complex64 in float32).
//
// Checked against CPython 3.11 on a grid of finite inputs (zeros, subnormals,
// 1e300, 710, ...): every cmath function, complex ** and / agree within 4
// ulps, signs of zeros included. Special values we do not match: CPython's
// cmath uses tables for non-finite inputs; here they go through the finite
// formulas (plus a few cheap fixes: exp(inf+0j), sqrt(x+-inf j), sinh/cosh
// on the real axis), so some give NaN where CPython gives a signed zero or
// an infinity, e.g. atan(0 + inf j), tanh(x + nan j), exp(-inf + inf j),
// acos(0 + nan j). Where CPython raises (division by zero, 0j ** -1,
// log(0j)) we return IEEE results: z / 0j gives (re/0, im/0) as NumPy,
// log(0j) gives -inf + 0j, 0j ** -1 gives inf + nan j.
//
// Each cmath function is a helper emitted once per module and float type
// ("ufjit.csqrt.f64"), internal and alwaysinline; rare paths for huge
// inputs are branches, cheap alternatives are selects.
#include "codegen/lower/LowerComplex.h"

#include <llvm/IR/InlineAsm.h>

#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {

llvm::Value *make_complex(Emitter &e, llvm::Value *re, llvm::Value *im) {
  llvm::Type *type = llvm::StructType::get(e.ctx(), {re->getType(), im->getType()});
  llvm::Value *z = llvm::UndefValue::get(type);
  z = e.b.CreateInsertValue(z, re, {0});
  return e.b.CreateInsertValue(z, im, {1});
}

llvm::Value *complex_real(Emitter &e, llvm::Value *z) { return e.b.CreateExtractValue(z, {0}); }

llvm::Value *complex_imag(Emitter &e, llvm::Value *z) { return e.b.CreateExtractValue(z, {1}); }

llvm::Value *Ops::neg_keeping_nan_sign(llvm::Value *a) const {
  if (e.ms.target.kind != TargetKind::Cuda) {
    return neg(a);  // the host's fneg flips the sign bit (xorps / fchs)
  }
  const bool wide = type == DType::Float64;
  llvm::Type *bits = llvm::IntegerType::get(e.ctx(), wide ? 64 : 32);
  llvm::InlineAsm *flip = llvm::InlineAsm::get(
      llvm::FunctionType::get(bits, {bits}, false),
      wide ? "xor.b64 $0, $1, 0x8000000000000000;" : "xor.b32 $0, $1, 0x80000000;", wide ? "=l,l" : "=r,r",
      /*hasSideEffects=*/false);
  llvm::CallInst *flipped = e.b.CreateCall(flip, {e.b.CreateBitCast(a, bits)});
  flipped->setDoesNotAccessMemory();
  return e.b.CreateBitCast(flipped, t);
}

namespace {

const char *suffix(DType component) { return component == DType::Float32 ? "f32" : "f64"; }

std::vector<llvm::Value *> flat(Complex z) { return {z.re, z.im}; }

}  // namespace

Complex unpack(Emitter &e, llvm::Value *z) { return {complex_real(e, z), complex_imag(e, z)}; }

llvm::Value *pack(Emitter &e, Complex z) { return make_complex(e, z.re, z.im); }

llvm::Value *call_helper(Emitter &e, const std::string &name, DType component, llvm::ArrayRef<llvm::Value *> args,
                         const Body &body) {
  llvm::Type *complex_type = value_type(e.ctx(), component == DType::Float32 ? DType::Complex64 : DType::Complex128);
  std::vector<llvm::Type *> params(args.size(), complex_type);
  llvm::FunctionType *fn_type = llvm::FunctionType::get(complex_type, params, false);
  std::string full_name = e.ms.helper_name(name + "." + suffix(component));
  llvm::Function *f = get_or_build_helper(e.ms, full_name, fn_type, [&](Emitter &h, llvm::Function *fn) {
    Ops ops(h, component);
    std::vector<Complex> values;
    for (llvm::Argument &arg : fn->args()) {
      values.push_back(unpack(h, &arg));
    }
    Complex result = body(ops, values);
    h.b.CreateRet(pack(h, result));
  });
  return e.b.CreateCall(f, args);
}

Complex call_complex(Ops &o, const std::string &name, const std::vector<Complex> &args, const Body &body) {
  std::vector<llvm::Value *> packed;
  for (const Complex &z : args) {
    packed.push_back(pack(o.e, z));
  }
  return unpack(o.e, call_helper(o.e, name, o.type, packed, body));
}

Complex branch(Ops &o, llvm::Value *cond, const std::function<Complex()> &then_fn,
               const std::function<Complex()> &else_fn) {
  std::vector<llvm::Value *> joined =
      emit_if_else(o.e, cond, [&] { return flat(then_fn()); }, [&] { return flat(else_fn()); });
  return {joined[0], joined[1]};
}

// ------------------------------------------------------------ arithmetic

/// CPython's _Py_c_quot (Smith's method), rearranged so that one set of
/// divisions serves both cases; a zero divisor gives NumPy's (re/0, im/0).
Complex quot(Ops &o, const std::vector<Complex> &v) {
  Complex a = v[0];
  Complex b = v[1];
  llvm::Value *abs_re = o.fabs(b.re);
  llvm::Value *abs_im = o.fabs(b.im);
  llvm::Value *swap = o.lt(abs_re, abs_im);
  llvm::Value *big = o.sel(swap, b.im, b.re);
  llvm::Value *small = o.sel(swap, b.re, b.im);
  llvm::Value *x = o.sel(swap, a.im, a.re);
  llvm::Value *y = o.sel(swap, a.re, a.im);
  llvm::Value *ratio = o.div(small, big);
  llvm::Value *denom = o.add(big, o.mul(small, ratio));
  llvm::Value *re = o.div(o.add(x, o.mul(y, ratio)), denom);
  // Not a negation of the other case: that would turn +0 into -0.
  llvm::Value *x_ratio = o.mul(x, ratio);
  llvm::Value *im = o.div(o.sel(swap, o.sub(x_ratio, y), o.sub(y, x_ratio)), denom);
  llvm::Value *zero_divisor = o.both(o.eq(b.re, o.c(0.0)), o.eq(b.im, o.c(0.0)));
  // a / +0 without another division: x * inf is +-inf, or NaN for x == 0 or NaN.
  re = o.sel(zero_divisor, o.mul(a.re, o.c(INFINITY)), re);
  im = o.sel(zero_divisor, o.mul(a.im, o.c(INFINITY)), im);
  return {re, im};
}

namespace {

/// x ** n for |n| <= 100 by repeated squaring (CPython's c_powi / c_powu).
Complex powi(Ops &o, Complex x, llvm::Value *exponent) {
  llvm::IRBuilder<> &b = o.e.b;
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *n = b.CreateFPToSI(exponent, i64);
  llvm::Value *m = b.CreateIntrinsic(llvm::Intrinsic::abs, {i64}, {n, b.getFalse()});
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *loop = new_block(o.e, "powi.loop");
  llvm::BasicBlock *body = new_block(o.e, "powi.body");
  llvm::BasicBlock *done = new_block(o.e, "powi.done");
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode *r_re = b.CreatePHI(o.t, 2);
  llvm::PHINode *r_im = b.CreatePHI(o.t, 2);
  llvm::PHINode *p_re = b.CreatePHI(o.t, 2);
  llvm::PHINode *p_im = b.CreatePHI(o.t, 2);
  llvm::PHINode *rest = b.CreatePHI(i64, 2);
  r_re->addIncoming(o.c(1.0), pre);
  r_im->addIncoming(o.c(0.0), pre);
  p_re->addIncoming(x.re, pre);
  p_im->addIncoming(x.im, pre);
  rest->addIncoming(m, pre);
  b.CreateCondBr(b.CreateICmpNE(rest, b.getInt64(0)), body, done);
  b.SetInsertPoint(body);
  Complex r{r_re, r_im};
  Complex p{p_re, p_im};
  llvm::Value *bit = b.CreateICmpNE(b.CreateAnd(rest, b.getInt64(1)), b.getInt64(0));
  Complex next_r = o.sel(bit, o.mul(r, p), r);
  Complex next_p = o.mul(p, p);
  r_re->addIncoming(next_r.re, body);
  r_im->addIncoming(next_r.im, body);
  p_re->addIncoming(next_p.re, body);
  p_im->addIncoming(next_p.im, body);
  rest->addIncoming(b.CreateLShr(rest, b.getInt64(1)), body);
  b.CreateBr(loop);
  b.SetInsertPoint(done);
  Complex inverse = quot(o, {{o.c(1.0), o.c(0.0)}, r});
  return o.sel(b.CreateICmpSLT(n, b.getInt64(0)), inverse, r);
}

/// CPython's complex ** complex: small integral exponents by squaring,
/// otherwise _Py_c_pow (polar form). A zero base, as Numba's numba_cpow:
/// 0j ** 0 is 1, 0j ** b is NaN where Python raises (b.imag != 0, NaN
/// included, or b.real < 0), else 0j.
Complex cpow(Ops &o, const std::vector<Complex> &v) {
  Complex a = v[0];
  Complex b = v[1];
  llvm::Value *integral = o.both(o.eq(b.im, o.c(0.0)),
                                 o.both(o.eq(b.re, o.floor(b.re)), o.le(o.fabs(b.re), o.c(100.0))));
  Complex r = branch(
      o, integral, [&] { return powi(o, a, b.re); },
      [&] {
        llvm::Value *vabs = o.call("hypot", {a.re, a.im});
        llvm::Value *len = o.call("pow", {vabs, b.re});
        llvm::Value *at = o.call("atan2", {a.im, a.re});
        llvm::Value *phase = o.mul(at, b.re);
        llvm::Value *has_im = o.ne(b.im, o.c(0.0));
        len = o.sel(has_im, o.div(len, o.call("exp", {o.mul(at, b.im)})), len);
        phase = o.sel(has_im, o.add(phase, o.mul(b.im, o.call("log", {vabs}))), phase);
        Complex general{o.mul(len, o.call("cos", {phase})), o.mul(len, o.call("sin", {phase}))};
        llvm::Value *a_zero = o.both(o.eq(a.re, o.c(0.0)), o.eq(a.im, o.c(0.0)));
        general = o.sel(a_zero, Complex{o.c(0.0), o.c(0.0)}, general);
        llvm::Value *b_zero = o.both(o.eq(b.re, o.c(0.0)), o.eq(b.im, o.c(0.0)));
        return o.sel(b_zero, Complex{o.c(1.0), o.c(0.0)}, general);
      });
  llvm::Value *a_zero = o.both(o.eq(a.re, o.c(0.0)), o.eq(a.im, o.c(0.0)));
  llvm::Value *b_zero = o.both(o.eq(b.re, o.c(0.0)), o.eq(b.im, o.c(0.0)));
  llvm::Value *domain_error = o.either(o.ne(b.im, o.c(0.0)), o.lt(b.re, o.c(0.0)));
  Complex of_zero = o.sel(domain_error, Complex{o.c(NAN), o.c(NAN)}, Complex{o.c(0.0), o.c(0.0)});
  return o.sel(o.both(a_zero, o.e.b.CreateNot(b_zero)), of_zero, r);
}

}  // namespace

llvm::Value *lower_complex_binary(Emitter &e, ir::BinaryOpcode op, DType type, llvm::Value *a, llvm::Value *b) {
  using ir::BinaryOpcode;
  DType component = component_dtype(type);
  Ops o(e, component);
  Complex x = unpack(e, a);
  Complex y = unpack(e, b);
  switch (op) {
    case BinaryOpcode::Add:
      return pack(e, {o.add(x.re, y.re), o.add(x.im, y.im)});
    case BinaryOpcode::Sub:
      return pack(e, {o.sub(x.re, y.re), o.sub(x.im, y.im)});
    case BinaryOpcode::Mul:
      return pack(e, o.mul(x, y));
    case BinaryOpcode::Div:
      return call_helper(e, "cdiv", component, {a, b}, quot);
    case BinaryOpcode::Pow:
      return call_helper(e, "cpow", component, {a, b}, cpow);
    default:
      internal_error << "binary " << ir::binary_opcode_name(op) << " on " << dtype_name(type);
  }
}

llvm::Value *lower_complex_intrinsic(Emitter &e, ir::IntrinsicOp op, DType type, llvm::ArrayRef<llvm::Value *> args) {
  using ir::IntrinsicOp;
  DType component = component_dtype(type);
  switch (op) {
    case IntrinsicOp::Real:
      return complex_real(e, args[0]);
    case IntrinsicOp::Imag:
      return complex_imag(e, args[0]);
    case IntrinsicOp::Conj:
      return make_complex(e, complex_real(e, args[0]), e.b.CreateFNeg(complex_imag(e, args[0])));
    case IntrinsicOp::CAbs:
      return call_libm(e, "hypot", component, {complex_real(e, args[0]), complex_imag(e, args[0])});
    case IntrinsicOp::Phase:
      return call_libm(e, "atan2", component, {complex_imag(e, args[0]), complex_real(e, args[0])});
    case IntrinsicOp::IsNan:
      return e.b.CreateOr(float_isnan(e, complex_real(e, args[0])), float_isnan(e, complex_imag(e, args[0])));
    case IntrinsicOp::IsInf:
      return e.b.CreateOr(float_isinf(e, complex_real(e, args[0])), float_isinf(e, complex_imag(e, args[0])));
    case IntrinsicOp::IsFinite:
      return e.b.CreateAnd(float_isfinite(e, complex_real(e, args[0])),
                           float_isfinite(e, complex_imag(e, args[0])));
    case IntrinsicOp::CPow:
      return call_helper(e, "cpow", component, {args[0], args[1]}, cpow);
    default:
      return lower_cmath(e, op, component, args[0]);
  }
}

}  // namespace ufjit::codegen::lower
