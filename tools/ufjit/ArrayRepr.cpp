// NumPy's array repr (numpy/_core/arrayprint.py, NumPy 2 defaults): the
// element formats (FloatingFormat, IntegerFormat, BoolFormat,
// ComplexFloatingFormat) and _formatArray's layout, wrapping and summary.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <vector>

#include "Repr.h"
#include "ufjit/dtype.h"

namespace ufjit::tool {
namespace {

constexpr int kPrecision = 8;
constexpr std::size_t kLineWidth = 75;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

template <typename T>
T load(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

/// A float as integer and fraction digits (dragon4_positional with
/// precision 8, unique, trim '.'): "-12", "5"; sign included.
struct Positional {
  std::string whole;
  std::string frac;
};

/// A float as mantissa and exponent (dragon4_scientific, precision 8).
struct Scientific {
  std::string whole;  // sign and one digit
  std::string frac;
  int exp = 0;
};

std::string sign_of(bool negative, bool plus) { return negative ? "-" : plus ? "+" : ""; }

void trim_zeros(std::string &frac) {
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
}

Positional positional(DType t, double v, bool plus) {
  const Decimal d = shortest_decimal(t, v);
  const int count = static_cast<int>(d.digits.size());
  Positional p;
  if (count - (d.exp + 1) > kPrecision) {
    char text[400];
    std::snprintf(text, sizeof text, "%.*f", kPrecision, std::fabs(v));
    const char *dot = std::strchr(text, '.');
    p.whole = sign_of(d.negative, plus) + std::string(static_cast<const char *>(text), dot);
    p.frac = dot + 1;
    trim_zeros(p.frac);
    return p;
  }
  if (d.exp >= 0) {
    const auto whole = static_cast<std::size_t>(d.exp) + 1;
    std::string digits = d.digits;
    if (digits.size() < whole) digits.append(whole - digits.size(), '0');
    p.whole = sign_of(d.negative, plus) + digits.substr(0, whole);
    p.frac = digits.substr(whole);
  } else {
    p.whole = sign_of(d.negative, plus) + "0";
    p.frac = std::string(static_cast<std::size_t>(-d.exp - 1), '0') + d.digits;
  }
  trim_zeros(p.frac);
  return p;
}

Scientific scientific(DType t, double v, bool plus) {
  Decimal d = shortest_decimal(t, v);
  if (static_cast<int>(d.digits.size()) - 1 > kPrecision) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*e", kPrecision, v);
    Decimal rounded;
    rounded.negative = d.negative;
    const char *e = std::strchr(text, 'e');
    for (const char *c = text + (text[0] == '-' ? 1 : 0); c < e; ++c) {
      if (*c != '.') rounded.digits += *c;
    }
    rounded.exp = std::atoi(e + 1);
    d = rounded;
  }
  Scientific s;
  s.whole = sign_of(d.negative, plus) + d.digits.substr(0, 1);
  s.frac = d.digits.substr(1);
  trim_zeros(s.frac);
  s.exp = d.exp;
  return s;
}

std::string pad_left(const std::string &s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

/// NumPy's FloatingFormat for one set of values (floatmode 'maxprec').
class FloatFormat {
 public:
  FloatFormat(DType t, const std::vector<double> &values, bool plus) : t_(t), plus_(plus) {
    std::vector<double> finite;
    bool nonfinite = false;
    bool neginf = plus;
    for (double v : values) {
      if (std::isfinite(v)) {
        finite.push_back(v);
      } else {
        nonfinite = true;
        neginf = neginf || (std::isinf(v) && v < 0);
      }
    }
    double max_val = 0.0;
    double min_val = 0.0;
    bool any_nonzero = false;
    for (double v : finite) {
      const double a = std::fabs(v);
      if (a == 0.0) continue;
      max_val = any_nonzero ? std::max(max_val, a) : a;
      min_val = any_nonzero ? std::min(min_val, a) : a;
      any_nonzero = true;
    }
    exp_ = any_nonzero && (max_val >= 1e8 || min_val < 0.0001 || max_val / min_val > 1000.0);
    if (exp_) {
      int exp_digits = 2;
      for (double v : finite) {
        const Scientific s = scientific(t_, v, plus_);
        precision_ = std::max(precision_, s.frac.size());
        left_ = std::max(left_, s.whole.size());
        exp_digits = std::max(exp_digits, static_cast<int>(std::to_string(std::abs(s.exp)).size()));
      }
      exp_digits_ = static_cast<std::size_t>(exp_digits);
      right_ = exp_digits_ + 2 + precision_;
    } else {
      for (double v : finite) {
        const Positional p = positional(t_, v, plus_);
        left_ = std::max(left_, p.whole.size());
        right_ = std::max(right_, p.frac.size());
      }
    }
    if (nonfinite) {
      const std::size_t offset = right_ + 1;  // the point
      const std::size_t inf_width = 3 + (neginf ? 1 : 0);
      left_ = std::max({left_, 3 > offset ? 3 - offset : 0, inf_width > offset ? inf_width - offset : 0});
    }
  }

  std::string operator()(double v) const {
    if (!std::isfinite(v)) {
      const std::string text = std::isnan(v) ? sign_of(false, plus_) + "nan" : sign_of(v < 0, plus_) + "inf";
      return pad_left(text, left_ + right_ + 1);
    }
    if (exp_) {
      const Scientific s = scientific(t_, v, plus_);
      std::string frac = s.frac;
      frac.append(precision_ - frac.size(), '0');
      std::string exponent = std::to_string(std::abs(s.exp));
      exponent.insert(0, exp_digits_ - std::min(exp_digits_, exponent.size()), '0');
      return pad_left(s.whole, left_) + "." + frac + "e" + (s.exp < 0 ? "-" : "+") + exponent;
    }
    const Positional p = positional(t_, v, plus_);
    return pad_left(p.whole, left_) + "." + p.frac + std::string(right_ - p.frac.size(), ' ');
  }

 private:
  DType t_;
  bool plus_;
  bool exp_ = false;
  std::size_t left_ = 0;
  std::size_t right_ = 0;
  std::size_t precision_ = 0;
  std::size_t exp_digits_ = 2;
};

DType component(DType t) {
  if (t == DType::Complex64) return DType::Float32;
  if (t == DType::Complex128) return DType::Float64;
  return t;
}

/// Element `p` of a float dtype (component `part` of a complex) as a double.
double float_value(DType t, const uint8_t *p, int part) {
  switch (t) {
    case DType::Float16: return half_value(load<uint16_t>(p));
    case DType::Float32: return load<float>(p);
    case DType::Complex64: return load<float>(p + 4 * part);
    case DType::Complex128: return load<double>(p + 8 * part);
    default: return load<double>(p);
  }
}

/// Formats the elements of one array, from the elements that will be shown.
class ElementFormat {
 public:
  ElementFormat(DType t, const std::vector<const uint8_t *> &shown) : t_(t) {
    const char kind = dtype_kind(t);
    if (kind == 'i' || kind == 'u') {
      for (const uint8_t *p : shown) int_width_ = std::max(int_width_, python_literal(t, p).size());
    } else if (kind == 'f' || kind == 'c') {
      std::vector<double> reals;
      std::vector<double> imags;
      for (const uint8_t *p : shown) {
        reals.push_back(float_value(t, p, 0));
        if (is_complex(t)) imags.push_back(float_value(t, p, 1));
      }
      real_.emplace_back(component(t), reals, false);
      if (is_complex(t)) real_.emplace_back(component(t), imags, true);
    }
  }

  std::string operator()(const uint8_t *p) const {
    if (t_ == DType::Bool) return *p ? " True" : "False";
    if (real_.empty()) return pad_left(python_literal(t_, p), int_width_);
    const std::string re = real_[0](float_value(t_, p, 0));
    if (!is_complex(t_)) return re;
    std::string im = real_[1](float_value(t_, p, 1));
    std::size_t end = im.find_last_not_of(' ') + 1;
    im.insert(end, "j");  // before the padding, as NumPy puts it
    return re + im;
  }

 private:
  DType t_;
  std::size_t int_width_ = 0;
  std::vector<FloatFormat> real_;  // real part, then imaginary part
};

/// NumPy's _formatArray: nested brackets, rows wrapped at the line width,
/// summaries of long axes.
class Layout {
 public:
  Layout(const ArrayView &a, bool summarize) : a_(a), summarize_(summarize) {}

  /// The elements that will be printed, in order.
  void collect(int dim, const uint8_t *base, std::vector<const uint8_t *> &out) const {
    if (dim == a_.ndim()) {
      out.push_back(base);
      return;
    }
    for (int64_t i : indices(dim)) collect(dim + 1, base + i * a_.strides[dim], out);
  }

  std::string format(const ElementFormat &fmt) const {
    return recurse(fmt, 0, static_cast<const uint8_t *>(a_.data), std::string(7, ' '), kLineWidth - 1);
  }

 private:
  bool summarized(int dim) const { return summarize_ && 2 * kEdgeItems < a_.shape[dim]; }

  /// The indices shown along `dim`; -1 marks the "..." of a summary.
  std::vector<int64_t> indices(int dim) const {
    std::vector<int64_t> out;
    const int64_t n = a_.shape[dim];
    if (!summarized(dim)) {
      for (int64_t i = 0; i < n; ++i) out.push_back(i);
      return out;
    }
    for (int64_t i = 0; i < kEdgeItems; ++i) out.push_back(i);
    for (int64_t i = n - kEdgeItems; i < n; ++i) out.push_back(i);
    return out;
  }

  static void extend(std::string &s, std::string &line, const std::string &word, std::size_t width,
                     const std::string &next_line_prefix) {
    bool wrap = line.size() + word.size() > width;
    if (line.size() <= next_line_prefix.size()) wrap = false;  // wrapping would not help
    if (wrap) {
      s += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
      line = next_line_prefix;
    }
    line += word;
  }

  std::string recurse(const ElementFormat &fmt, int dim, const uint8_t *base, const std::string &hanging,
                      std::size_t width) const {
    if (dim == a_.ndim()) return fmt(base);
    const std::string next_hanging = hanging + " ";
    const std::size_t next_width = width - 1;  // the ']'
    const int64_t n = a_.shape[dim];
    const bool summary = summarized(dim);
    const int64_t leading = summary ? kEdgeItems : 0;
    const int64_t trailing = summary ? kEdgeItems : n;
    auto item = [&](int64_t i) { return recurse(fmt, dim + 1, base + i * a_.strides[dim], next_hanging, next_width); };
    std::string s;
    if (dim + 1 == a_.ndim()) {
      const std::size_t elem_width = width - 1;  // the ',' or ']'
      std::string line = hanging;
      for (int64_t i = 0; i < leading; ++i) {
        extend(s, line, item(i), elem_width, hanging);
        line += ", ";
      }
      if (summary) {
        extend(s, line, "...", elem_width, hanging);
        line += ", ";
      }
      for (int64_t i = trailing; i > 1; --i) {
        extend(s, line, item(n - i), elem_width, hanging);
        line += ", ";
      }
      extend(s, line, item(n - 1), elem_width, hanging);
      s += line;
    } else {
      const std::string line_sep = "," + std::string(static_cast<std::size_t>(a_.ndim() - dim - 1), '\n');
      for (int64_t i = 0; i < leading; ++i) s += hanging + item(i) + line_sep;
      if (summary) s += hanging + "..." + line_sep;
      for (int64_t i = trailing; i > 1; --i) s += hanging + item(n - i) + line_sep;
      s += hanging + item(n - 1);
    }
    std::string out = "[";
    out.append(s, hanging.size(), std::string::npos);
    out += ']';
    return out;
  }

  const ArrayView &a_;
  bool summarize_;
};

bool default_dtype(DType t) {
  return t == DType::Float64 || t == DType::Int64 || t == DType::Bool || t == DType::Complex128;
}

}  // namespace

void print_numpy_repr(std::ostream &out, const ArrayView &array) {
  const auto *base = static_cast<const uint8_t *>(array.data);
  if (array.ndim() == 0) {
    out << python_literal(array.dtype, base);
    return;
  }
  std::string text = "array(";
  if (array.size() == 0) {
    text += "[]";
    if (array.ndim() > 1) {
      text += ", shape=(";
      for (int d = 0; d < array.ndim(); ++d) text += (d > 0 ? ", " : "") + std::to_string(array.shape[d]);
      text += ")";
    }
  } else {
    const Layout layout(array, array.size() > kThreshold);
    std::vector<const uint8_t *> shown;
    layout.collect(0, base, shown);
    text += layout.format(ElementFormat(array.dtype, shown));
  }
  if (array.size() > 0 && default_dtype(array.dtype)) {
    out << text << ")";
    return;
  }
  // dtype= goes on its own line when it would pass the line width.
  text += ",";
  const std::string dtype = "dtype=" + std::string(dtype_name(array.dtype)) + ")";
  const std::size_t last_line = text.size() - (text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  out << text << (last_line + dtype.size() + 1 > kLineWidth ? "\n      " : " ") << dtype;
}

}  // namespace ufjit::tool
