// The cmath functions, following CPython's Modules/cmathmodule.c for finite
// inputs (see the header comment of LowerComplex.cpp for special values).
// requires: a complex64/complex128 value; guarantees: one helper function per
// cmath function and float type, called from the lowered code.
#include "codegen/lower/LowerComplex.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {
namespace {

Complex csqrt(Ops &o, const std::vector<Complex> &v);

Complex sqrt_of(Ops &o, Complex z) { return call_complex(o, "csqrt", {z}, csqrt); }

/// cmath_sqrt_impl: scaled to keep hypot away from overflow and subnormals.
Complex csqrt(Ops &o, const std::vector<Complex> &v) {
  Complex z = v[0];
  llvm::Value *ax = o.fabs(z.re);
  llvm::Value *ay = o.fabs(z.im);
  llvm::Value *tiny = o.both(o.lt(ax, o.c(o.min_normal())), o.lt(ay, o.c(o.min_normal())));
  // Subnormal |z|: scale up by 2**(2*(mant/2)+1), take sqrt, scale down.
  int scale_up = 2 * (o.mant_dig() / 2) + 1;
  int scale_down = -(scale_up + 1) / 2;
  llvm::Value *pre = o.sel(tiny, o.c(std::ldexp(1.0, scale_up)), o.c(0.125));
  llvm::Value *post = o.sel(tiny, o.c(std::ldexp(1.0, scale_down)), o.c(2.0));
  llvm::Value *sx = o.mul(ax, pre);
  llvm::Value *sy = o.mul(ay, pre);
  llvm::Value *s = o.mul(o.sqrt(o.add(sx, o.call("hypot", {sx, sy}))), post);
  llvm::Value *d = o.div(ay, o.mul(o.c(2.0), s));
  llvm::Value *right = o.ge(z.re, o.c(0.0));
  Complex r{o.sel(right, s, d), o.sel(right, o.copysign(d, z.im), o.copysign(s, z.im))};
  llvm::Value *zero = o.both(o.eq(z.re, o.c(0.0)), o.eq(z.im, o.c(0.0)));
  r = o.sel(zero, Complex{o.c(0.0), z.im}, r);
  // sqrt(x +- inf j) == inf +- inf j for every x, NaN included.
  return o.sel(o.eq(ay, o.c(INFINITY)), Complex{o.c(INFINITY), z.im}, r);
}

/// cmath_exp_impl; a zero imaginary part is kept exactly (exp(inf+0j) = inf+0j).
Complex cexp_finite(Ops &o, const std::vector<Complex> &v) {
  Complex z = v[0];
  // Past log_large, exp(x) may overflow where exp(x) * sin(y) does not
  // (800 + 1e-300j: inf + 2.7e47j, as C's cexp): e^x is taken as two
  // halves, each multiplied in. CPython's exp(x - 1) * e overflows there.
  llvm::Value *big = o.gt(z.re, o.c(o.log_large()));
  llvm::Value *l = o.call("exp", {o.sel(big, o.mul(z.re, o.c(0.5)), z.re)});
  llvm::Value *factor = o.sel(big, l, o.c(1.0));
  llvm::Value *re = o.mul(o.mul(l, o.call("cos", {z.im})), factor);
  llvm::Value *im = o.mul(o.mul(l, o.call("sin", {z.im})), factor);
  im = o.sel(o.eq(z.im, o.c(0.0)), z.im, im);
  return {re, im};
}

/// cmath_log_impl (c_log): log|z| scaled for huge and tiny |z|, log1p near |z| == 1.
Complex clog(Ops &o, const std::vector<Complex> &v) {
  Complex z = v[0];
  llvm::Value *ax = o.fabs(z.re);
  llvm::Value *ay = o.fabs(z.im);
  llvm::Value *large = o.either(o.gt(ax, o.c(o.large())), o.gt(ay, o.c(o.large())));
  llvm::Value *tiny = o.both(o.lt(ax, o.c(o.min_normal())), o.lt(ay, o.c(o.min_normal())));
  int mant = o.mant_dig();
  llvm::Value *scale = o.sel(large, o.c(0.5), o.sel(tiny, o.c(std::ldexp(1.0, mant)), o.c(1.0)));
  llvm::Value *offset = o.sel(large, o.c(M_LN2), o.sel(tiny, o.c(-mant * M_LN2), o.c(0.0)));
  llvm::Value *h = o.call("hypot", {o.mul(ax, scale), o.mul(ay, scale)});
  llvm::Value *log_h = o.add(o.call("log", {h}), offset);
  llvm::Value *ordinary = o.e.b.CreateNot(o.either(large, tiny));
  llvm::Value *near_one = o.both(ordinary, o.both(o.le(o.c(0.71), h), o.le(h, o.c(1.73))));
  llvm::Value *ax_bigger = o.gt(ax, ay);
  llvm::Value *am = o.sel(ax_bigger, ax, ay);
  llvm::Value *an = o.sel(ax_bigger, ay, ax);
  llvm::Value *arg = o.add(o.mul(o.sub(am, o.c(1.0)), o.add(am, o.c(1.0))), o.mul(an, an));
  llvm::Value *log1p_h = o.div(o.call("log1p", {arg}), o.c(2.0));
  return {o.sel(near_one, log1p_h, log_h), o.call("atan2", {z.im, z.re})};
}

Complex clog10(Ops &o, const std::vector<Complex> &v) {
  Complex r = call_complex(o, "clog", {v[0]}, clog);
  return {o.div(r.re, o.c(M_LN10)), o.div(r.im, o.c(M_LN10))};
}

/// sinh (cosh when `is_cosh`), with CPython's rescaling for huge |re|.
Complex sinh_cosh(Ops &o, Complex z, bool is_cosh) {
  // Past log_large, sinh(x) and cosh(x) may overflow where their products
  // with cos(y) and sin(y) do not: there both are +-e^|x| / 2 = +-2 c^2 with
  // c = cosh(|x| / 2) (= sinh(|x| / 2)), each factor multiplied in.
  llvm::Value *big = o.gt(o.fabs(z.re), o.c(o.log_large()));
  llvm::Value *x = o.sel(big, o.mul(o.fabs(z.re), o.c(0.5)), z.re);
  llvm::Value *sinh_x = o.call("sinh", {x});
  llvm::Value *cosh_x = o.call("cosh", {x});
  llvm::Value *cos_y = o.call("cos", {z.im});
  llvm::Value *sin_y = o.call("sin", {z.im});
  llvm::Value *twice = o.c(2.0);
  llvm::Value *signed_twice = o.copysign(twice, z.re);  // sinh is odd, cosh even
  llvm::Value *re_factor = o.sel(big, o.mul(cosh_x, is_cosh ? twice : signed_twice), o.c(1.0));
  llvm::Value *im_factor = o.sel(big, o.mul(cosh_x, is_cosh ? signed_twice : twice), o.c(1.0));
  llvm::Value *re = o.mul(o.mul(cos_y, is_cosh ? cosh_x : sinh_x), re_factor);
  llvm::Value *im = o.mul(o.mul(sin_y, is_cosh ? sinh_x : cosh_x), im_factor);
  // On the real axis the imaginary part is a signed zero, also for x = +-inf
  // (where sin(0) * inf would be NaN): sin(+-0) * cosh(x) has y's sign,
  // sin(+-0) * sinh(x) the product of the signs.
  llvm::Value *axis_im = is_cosh ? o.mul(z.im, o.copysign(o.c(1.0), z.re)) : z.im;
  im = o.sel(o.eq(z.im, o.c(0.0)), axis_im, im);
  return {re, im};
}

Complex csinh(Ops &o, const std::vector<Complex> &v) {
  return finite_or_special(o, "csinh", v[0], [&]() { return sinh_cosh(o, v[0], false); });
}

Complex ccosh(Ops &o, const std::vector<Complex> &v) {
  return finite_or_special(o, "ccosh", v[0], [&]() { return sinh_cosh(o, v[0], true); });
}

Complex ctanh_finite(Ops &o, const std::vector<Complex> &v) {
  Complex z = v[0];
  llvm::Value *big = o.gt(o.fabs(z.re), o.c(o.log_large()));
  return branch(
      o, big,
      [&]() -> Complex {
        llvm::Value *decay = o.call("exp", {o.mul(o.c(-2.0), o.fabs(z.re))});
        llvm::Value *im = o.mul(o.mul(o.mul(o.c(4.0), o.call("sin", {z.im})), o.call("cos", {z.im})), decay);
        return {o.copysign(o.c(1.0), z.re), im};
      },
      [&]() -> Complex {
        llvm::Value *tx = o.call("tanh", {z.re});
        llvm::Value *ty = o.call("tan", {z.im});
        llvm::Value *cx = o.div(o.c(1.0), o.call("cosh", {z.re}));
        llvm::Value *txty = o.mul(tx, ty);
        llvm::Value *denom = o.add(o.c(1.0), o.mul(txty, txty));
        llvm::Value *re = o.div(o.mul(tx, o.add(o.c(1.0), o.mul(ty, ty))), denom);
        llvm::Value *im = o.mul(o.mul(o.div(ty, denom), cx), cx);
        return {re, im};
      });
}

Complex casinh_finite(Ops &o, const std::vector<Complex> &v) {
  Complex z = v[0];
  llvm::Value *big = o.either(o.gt(o.fabs(z.re), o.c(o.sqrt_large())), o.gt(o.fabs(z.im), o.c(o.sqrt_large())));
  return branch(
      o, big,
      [&]() -> Complex {
        llvm::Value *l = o.log_half_hypot_plus(z.re, z.im, 2.0);
        llvm::Value *upper = o.ge(z.im, o.c(0.0));
        llvm::Value *re = o.sel(upper, o.copysign(l, z.re), o.neg(o.copysign(l, o.neg(z.re))));
        return {re, o.call("atan2", {z.im, o.fabs(z.re)})};
      },
      [&]() -> Complex {
        Complex s1 = sqrt_of(o, {o.add(o.c(1.0), z.im), o.neg(z.re)});
        Complex s2 = sqrt_of(o, {o.sub(o.c(1.0), z.im), z.re});
        llvm::Value *re = o.call("asinh", {o.sub(o.mul(s1.re, s2.im), o.mul(s2.re, s1.im))});
        llvm::Value *im = o.call("atan2", {z.im, o.sub(o.mul(s1.re, s2.re), o.mul(s1.im, s2.im))});
        return {re, im};
      });
}

Complex cacos_finite(Ops &o, const std::vector<Complex> &v) {
  Complex z = v[0];
  llvm::Value *big = o.either(o.gt(o.fabs(z.re), o.c(o.large())), o.gt(o.fabs(z.im), o.c(o.large())));
  return branch(
      o, big,
      [&]() -> Complex {
        llvm::Value *l = o.log_half_hypot_plus(z.re, z.im, 2.0);
        llvm::Value *left = o.lt(z.re, o.c(0.0));
        llvm::Value *im = o.sel(left, o.neg(o.copysign(l, z.im)), o.copysign(l, o.neg(z.im)));
        return {o.call("atan2", {o.fabs(z.im), z.re}), im};
      },
      [&]() -> Complex {
        Complex s1 = sqrt_of(o, {o.sub(o.c(1.0), z.re), o.neg(z.im)});
        Complex s2 = sqrt_of(o, {o.add(o.c(1.0), z.re), z.im});
        llvm::Value *re = o.mul(o.c(2.0), o.call("atan2", {s1.re, s2.re}));
        llvm::Value *im = o.call("asinh", {o.sub(o.mul(s2.re, s1.im), o.mul(s2.im, s1.re))});
        return {re, im};
      });
}

Complex cacosh_finite(Ops &o, const std::vector<Complex> &v) {
  Complex z = v[0];
  llvm::Value *big = o.either(o.gt(o.fabs(z.re), o.c(o.sqrt_large())), o.gt(o.fabs(z.im), o.c(o.sqrt_large())));
  return branch(
      o, big,
      [&]() -> Complex {
        return {o.log_half_hypot_plus(z.re, z.im, 2.0), o.call("atan2", {z.im, z.re})};
      },
      [&]() -> Complex {
        Complex s1 = sqrt_of(o, {o.sub(z.re, o.c(1.0)), z.im});
        Complex s2 = sqrt_of(o, {o.add(z.re, o.c(1.0)), z.im});
        llvm::Value *re = o.call("asinh", {o.add(o.mul(s1.re, s2.re), o.mul(s1.im, s2.im))});
        llvm::Value *im = o.mul(o.c(2.0), o.call("atan2", {s1.im, s2.re}));
        return {re, im};
      });
}

/// cmath_atanh_impl for z.real >= 0 (the caller uses atanh(-z) == -atanh(z)).
Complex atanh_right(Ops &o, Complex z) {
  llvm::Value *ay = o.fabs(z.im);
  llvm::Value *big = o.either(o.gt(z.re, o.c(o.sqrt_large())), o.gt(ay, o.c(o.sqrt_large())));
  return branch(
      o, big,
      [&]() -> Complex {
        llvm::Value *h = o.call("hypot", {o.mul(z.re, o.c(0.5)), o.mul(z.im, o.c(0.5))});
        llvm::Value *re = o.div(o.div(o.div(z.re, o.c(4.0)), h), h);
        return {re, o.neg(o.copysign(o.c(M_PI / 2.0), o.neg(z.im)))};
      },
      [&]() -> Complex {
        llvm::Value *at_one = o.both(o.eq(z.re, o.c(1.0)), o.lt(ay, o.c(o.sqrt_min())));
        return branch(
            o, at_one,
            [&]() -> Complex {
              llvm::Value *ratio = o.div(o.sqrt(ay), o.sqrt(o.call("hypot", {ay, o.c(2.0)})));
              llvm::Value *re = o.neg(o.call("log", {ratio}));
              llvm::Value *im = o.copysign(o.div(o.call("atan2", {o.c(2.0), o.neg(ay)}), o.c(2.0)), z.im);
              llvm::Value *ay_zero = o.eq(ay, o.c(0.0));
              return {o.sel(ay_zero, o.c(INFINITY), re), o.sel(ay_zero, z.im, im)};
            },
            [&]() -> Complex {
              llvm::Value *one_minus = o.sub(o.c(1.0), z.re);
              llvm::Value *denom = o.add(o.mul(one_minus, one_minus), o.mul(ay, ay));
              llvm::Value *re = o.div(o.call("log1p", {o.div(o.mul(o.c(4.0), z.re), denom)}), o.c(4.0));
              llvm::Value *y = o.sub(o.mul(one_minus, o.add(o.c(1.0), z.re)), o.mul(ay, ay));
              llvm::Value *im = o.neg(o.div(o.call("atan2", {o.mul(o.c(-2.0), z.im), y}), o.c(2.0)));
              return {re, im};
            });
      });
}

Complex catanh_finite(Ops &o, const std::vector<Complex> &v) {
  Complex z = v[0];
  llvm::Value *left = o.lt(z.re, o.c(0.0));
  Complex w = o.sel(left, Complex{o.neg(z.re), o.neg(z.im)}, z);
  Complex r = atanh_right(o, w);
  return o.sel(left, Complex{o.neg(r.re), o.neg(r.im)}, r);
}

// Finite arguments by CPython's formulas above; infinities and NaNs by
// C99 Annex G (LowerCmathSpecial.cpp).
Complex cexp(Ops &o, const std::vector<Complex> &v) {
  return finite_or_special(o, "cexp", v[0], [&]() { return cexp_finite(o, v); });
}
Complex ctanh(Ops &o, const std::vector<Complex> &v) {
  return finite_or_special(o, "ctanh", v[0], [&]() { return ctanh_finite(o, v); });
}
Complex casinh(Ops &o, const std::vector<Complex> &v) {
  return finite_or_special(o, "casinh", v[0], [&]() { return casinh_finite(o, v); });
}
Complex cacos(Ops &o, const std::vector<Complex> &v) {
  return finite_or_special(o, "cacos", v[0], [&]() { return cacos_finite(o, v); });
}
Complex cacosh(Ops &o, const std::vector<Complex> &v) {
  return finite_or_special(o, "cacosh", v[0], [&]() { return cacosh_finite(o, v); });
}
Complex catanh(Ops &o, const std::vector<Complex> &v) {
  return finite_or_special(o, "catanh", v[0], [&]() { return catanh_finite(o, v); });
}

/// f(z) = -i g(iz) for sin/tan/asin/atan from sinh/tanh/asinh/atanh.
Complex rotate_through(Ops &o, Complex z, const std::string &name, const Body &g) {
  // i z's real part keeps a NaN's sign: asin(inf + nan j) reads it.
  Complex s = call_complex(o, name, {{o.neg_keeping_nan_sign(z.im), z.re}}, g);
  return {s.im, o.neg(s.re)};
}

Complex csin(Ops &o, const std::vector<Complex> &v) {
  Complex r = rotate_through(o, v[0], "csinh", csinh);
  // sin(+-inf or nan + i(+-inf)) is nan + inf j (glibc, NumPy; Annex G leaves the sign open).
  llvm::Value *inf = o.c(INFINITY);
  llvm::Value *case_ = o.both(o.e.b.CreateNot(o.lt(o.fabs(v[0].re), inf)), o.eq(o.fabs(v[0].im), inf));
  return o.sel(case_, Complex{o.c(NAN), inf}, r);
}
Complex ctan(Ops &o, const std::vector<Complex> &v) { return rotate_through(o, v[0], "ctanh", ctanh); }
Complex casin(Ops &o, const std::vector<Complex> &v) { return rotate_through(o, v[0], "casinh", casinh); }
Complex catan(Ops &o, const std::vector<Complex> &v) { return rotate_through(o, v[0], "catanh", catanh); }

/// cos(z) = cosh(iz).
Complex ccos(Ops &o, const std::vector<Complex> &v) {
  return call_complex(o, "ccosh", {{o.neg(v[0].im), v[0].re}}, ccosh);
}

}  // namespace

llvm::Value *lower_cmath(Emitter &e, ir::IntrinsicOp op, DType component, llvm::Value *z) {
  using ir::IntrinsicOp;
  struct Entry {
    IntrinsicOp op;
    const char *name;
    Complex (*body)(Ops &, const std::vector<Complex> &);
  };
  static const Entry kTable[] = {
      {IntrinsicOp::CExp, "cexp", cexp},       {IntrinsicOp::CLog, "clog", clog},
      {IntrinsicOp::CLog10, "clog10", clog10}, {IntrinsicOp::CSqrt, "csqrt", csqrt},
      {IntrinsicOp::CSin, "csin", csin},       {IntrinsicOp::CCos, "ccos", ccos},
      {IntrinsicOp::CTan, "ctan", ctan},       {IntrinsicOp::CAsin, "casin", casin},
      {IntrinsicOp::CAcos, "cacos", cacos},    {IntrinsicOp::CAtan, "catan", catan},
      {IntrinsicOp::CSinh, "csinh", csinh},    {IntrinsicOp::CCosh, "ccosh", ccosh},
      {IntrinsicOp::CTanh, "ctanh", ctanh},    {IntrinsicOp::CAsinh, "casinh", casinh},
      {IntrinsicOp::CAcosh, "cacosh", cacosh}, {IntrinsicOp::CAtanh, "catanh", catanh},
  };
  for (const Entry &entry : kTable) {
    if (entry.op == op) {
      return call_helper(e, entry.name, component, {z}, entry.body);
    }
  }
  internal_error << "intrinsic " << ir::intrinsic_name(op) << " is not a complex function";
}

}  // namespace ufjit::codegen::lower
