// The cmath functions at infinities and NaNs, as C99 Annex G (and NumPy,
// through the C library) define them. LowerCmath.cpp computes finite
// arguments with CPython's formulas and calls special_values() when a part
// is infinite or NaN; the trigonometric functions inherit these through
// sin(z) = -i sinh(iz), cos(z) = cosh(iz), tan, asin and atan likewise.
// requires: z with a non-finite part; guarantees: Annex G's value up to the
// sign of a NaN (and of zeros the Annex leaves unspecified).
#include "codegen/lower/LowerComplex.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {
namespace {

/// The parts of z as the Annex G cases read them.
struct Parts {
  Ops &o;
  llvm::Value *x, *y, *ax, *ay;
  llvm::Value *inf, *nan, *zero;

  Parts(Ops &ops, Complex z)
      : o(ops), x(z.re), y(z.im), ax(ops.fabs(z.re)), ay(ops.fabs(z.im)), inf(ops.c(INFINITY)),
        nan(ops.c(NAN)), zero(ops.c(0.0)) {}

  llvm::Value *is_inf(llvm::Value *v) const { return o.eq(o.fabs(v), inf); }
  llvm::Value *is_nan(llvm::Value *v) const { return o.e.b.CreateFCmpUNO(v, v); }
  llvm::Value *is_finite(llvm::Value *v) const { return o.lt(o.fabs(v), inf); }
  llvm::Value *is_zero(llvm::Value *v) const { return o.eq(v, zero); }
  /// +1 or -1 by the sign bit (of -0.0 and of a NaN too).
  llvm::Value *sign(llvm::Value *v) const { return o.sel(o.sign_bit(v), o.c(-1.0), o.c(1.0)); }
  Complex k(llvm::Value *re, llvm::Value *im) const { return {re, im}; }
  Complex k(double re, double im) const { return {o.c(re), o.c(im)}; }
  Complex k(double re, llvm::Value *im) const { return {o.c(re), im}; }
  Complex k(llvm::Value *re, double im) const { return {re, o.c(im)}; }
};

/// The first-quadrant value `r` (computed from |x| + i|y|) moved back to
/// z's quadrant: odd functions flip the real part with x, conjugate-
/// symmetric ones the imaginary part with y; even ones (cosh) flip the
/// imaginary part with both.
Complex odd_in_x(const Parts &p, Complex r) {
  return {p.o.mul(r.re, p.sign(p.x)), p.o.mul(r.im, p.sign(p.y))};
}

Complex cexp_special(const Parts &p) {
  Ops &o = p.o;
  // x = +inf: inf * cis(y) (inf + y j on the real axis), inf + nan j for a non-finite y.
  Complex plus_inf = o.sel(
      p.is_zero(p.y), p.k(p.inf, p.y),
      o.sel(p.is_finite(p.y), p.k(o.mul(p.inf, o.call("cos", {p.y})), o.mul(p.inf, o.call("sin", {p.y}))),
            p.k(p.inf, p.nan)));
  // x = -inf: +0 * cis(y); +0 + 0j for a non-finite y (Annex G leaves the
  // signs open; Numba and CPython give +0 + 0j, and so does ufjit).
  Complex minus_inf =
      o.sel(p.is_finite(p.y), p.k(o.mul(p.zero, o.call("cos", {p.y})), o.mul(p.zero, o.call("sin", {p.y}))),
            p.k(p.zero, p.zero));
  Complex nan_x = o.sel(p.is_zero(p.y), p.k(p.nan, p.y), p.k(p.nan, p.nan));
  Complex r = p.k(p.nan, p.nan);  // finite x, non-finite y
  r = o.sel(p.is_nan(p.x), nan_x, r);
  r = o.sel(o.eq(p.x, o.neg(p.inf)), minus_inf, r);
  return o.sel(o.eq(p.x, p.inf), plus_inf, r);
}

/// sinh (`is_cosh` false) or cosh in the first quadrant.
Complex sinh_cosh_special(const Parts &p, bool is_cosh) {
  Ops &o = p.o;
  Complex inf_x = o.sel(p.is_zero(p.ay), p.k(p.inf, p.zero),
                        o.sel(p.is_finite(p.ay),
                              p.k(o.mul(p.inf, o.call("cos", {p.ay})), o.mul(p.inf, o.call("sin", {p.ay}))),
                              p.k(p.inf, p.nan)));
  Complex nan_x = o.sel(p.is_zero(p.ay), p.k(p.nan, p.zero), p.k(p.nan, p.nan));
  Complex zero_x = is_cosh ? p.k(p.nan, p.zero) : p.k(p.zero, p.nan);
  Complex r = p.k(p.nan, p.nan);  // finite nonzero x, non-finite y
  r = o.sel(p.is_zero(p.ax), zero_x, r);
  r = o.sel(p.is_nan(p.ax), nan_x, r);
  return o.sel(p.is_inf(p.ax), inf_x, r);
}

Complex ctanh_special(const Parts &p) {
  Ops &o = p.o;
  // tanh(inf + iy) = 1 + 0 sin(2y) j, 1 + 0j for a non-finite y.
  llvm::Value *im_inf = o.sel(p.is_finite(p.ay), o.mul(p.zero, o.call("sin", {o.mul(o.c(2.0), p.ay)})), p.zero);
  Complex nan_x = o.sel(p.is_zero(p.ay), p.k(p.nan, p.zero), p.k(p.nan, p.nan));
  Complex r = o.sel(p.is_zero(p.ax), p.k(p.zero, p.nan), p.k(p.nan, p.nan));
  r = o.sel(p.is_nan(p.ax), nan_x, r);
  return o.sel(p.is_inf(p.ax), p.k(o.c(1.0), im_inf), r);
}

Complex casinh_special(const Parts &p) {
  Ops &o = p.o;
  Complex inf_x = o.sel(p.is_finite(p.ay), p.k(p.inf, p.zero),
                        o.sel(p.is_inf(p.ay), p.k(p.inf, o.c(M_PI / 4)), p.k(p.inf, p.nan)));
  Complex nan_x = o.sel(p.is_zero(p.ay), p.k(p.nan, p.zero),
                        o.sel(p.is_inf(p.ay), p.k(p.inf, p.nan), p.k(p.nan, p.nan)));
  Complex finite_x = o.sel(p.is_inf(p.ay), p.k(p.inf, o.c(M_PI / 2)), p.k(p.nan, p.nan));
  Complex r = o.sel(p.is_nan(p.ax), nan_x, finite_x);
  return o.sel(p.is_inf(p.ax), inf_x, r);
}

Complex catanh_special(const Parts &p) {
  Ops &o = p.o;
  Complex inf_x = o.sel(p.is_nan(p.ay), p.k(p.zero, p.nan), p.k(0.0, M_PI / 2));
  Complex nan_x = o.sel(p.is_inf(p.ay), p.k(0.0, M_PI / 2), p.k(p.nan, p.nan));
  Complex finite_x = o.sel(p.is_inf(p.ay), p.k(0.0, M_PI / 2),
                           o.sel(p.is_zero(p.ax), p.k(p.zero, p.nan), p.k(p.nan, p.nan)));
  Complex r = o.sel(p.is_nan(p.ax), nan_x, finite_x);
  return o.sel(p.is_inf(p.ax), inf_x, r);
}

/// acos (`is_acosh` false) or acosh for y >= 0 (both are conjugate-symmetric).
Complex cacos_cacosh_special(const Parts &p, bool is_acosh) {
  Ops &o = p.o;
  // acos: (re, im) below; acosh gives (-im, re) of it for y >= 0: inf + i re.
  auto make = [&](llvm::Value *angle, llvm::Value *minus_log) -> Complex {
    return is_acosh ? Complex{o.neg(minus_log), angle} : Complex{angle, minus_log};
  };
  llvm::Value *minus_inf = o.neg(p.inf);
  llvm::Value *left = o.lt(p.x, p.zero);
  llvm::Value *inf_y_angle = o.sel(p.is_inf(p.x), o.sel(left, o.c(3 * M_PI / 4), o.c(M_PI / 4)), o.c(M_PI / 2));
  Complex inf_y = make(inf_y_angle, minus_inf);
  // A NaN y: +-inf x gives nan +- inf j (acos) / inf + nan j (acosh); x == 0 gives
  // pi/2 + nan j (acos) / nan + pi/2 j (acosh); else nan.
  Complex nan_y = o.sel(p.is_inf(p.x), is_acosh ? p.k(p.inf, p.nan) : p.k(p.nan, minus_inf),
                        o.sel(p.is_zero(p.x), make(o.c(M_PI / 2), p.nan), p.k(p.nan, p.nan)));
  // A finite y with x = +-inf.
  Complex finite_y = make(o.sel(left, o.c(M_PI), p.zero), minus_inf);
  Complex nan_x = o.sel(p.is_inf(p.ay), is_acosh ? p.k(p.inf, p.nan) : p.k(p.nan, minus_inf), p.k(p.nan, p.nan));
  Complex r = o.sel(p.is_nan(p.ay), nan_y, finite_y);
  r = o.sel(p.is_inf(p.ay), inf_y, r);
  return o.sel(p.is_nan(p.x), nan_x, r);
}

}  // namespace

Complex special_values(Ops &o, const std::string &fn, Complex z) {
  Parts p(o, z);
  if (fn == "cexp") return cexp_special(p);
  if (fn == "csinh") {
    // sinh(+-inf + i inf or nan) is +inf + nan j for either x (glibc, NumPy;
    // Annex G leaves the sign open).
    Complex r = odd_in_x(p, sinh_cosh_special(p, false));
    return o.sel(o.both(p.is_inf(p.ax), o.e.b.CreateNot(p.is_finite(p.ay))), p.k(p.inf, p.nan), r);
  }
  if (fn == "ccosh") {
    // Even and conjugate-symmetric: the imaginary part takes the signs of x
    // and y, except where glibc and NumPy give +0 (x == 0) or y's sign (x NaN).
    Complex r = sinh_cosh_special(p, true);
    llvm::Value *im = o.sel(p.is_nan(p.x), o.mul(r.im, p.sign(p.y)), o.mul(r.im, o.mul(p.sign(p.x), p.sign(p.y))));
    return {r.re, o.sel(p.is_zero(p.ax), p.zero, im)};
  }
  if (fn == "ctanh") return odd_in_x(p, ctanh_special(p));
  if (fn == "casinh") return odd_in_x(p, casinh_special(p));
  if (fn == "catanh") return odd_in_x(p, catanh_special(p));
  if (fn == "cacos" || fn == "cacosh") {
    Complex r = cacos_cacosh_special(p, fn == "cacosh");
    return {r.re, o.mul(r.im, p.sign(p.y))};
  }
  internal_error << "no Annex G special values for " << fn;
  return z;
}

Complex finite_or_special(Ops &o, const std::string &fn, Complex z, const std::function<Complex()> &finite) {
  llvm::Value *inf = o.c(INFINITY);
  llvm::Value *is_finite = o.both(o.lt(o.fabs(z.re), inf), o.lt(o.fabs(z.im), inf));
  return branch(o, is_finite, finite, [&]() { return special_values(o, fn, z); });
}

}  // namespace ufjit::codegen::lower
