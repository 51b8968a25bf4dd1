#include "Operands.h"

#include <charconv>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>

#include "Tool.h"
#include "ufjit/errors.h"

namespace ufjit::tool {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string lower(std::string text) {
  for (char &c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

/// Python's float() syntax: [+-] then nan, inf, infinity (any case), or
/// digits with an optional point and exponent (no hex, no spaces).
std::optional<double> parse_float(const std::string &text) {
  std::size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) i = 1;
  const std::string word = lower(text.substr(i));
  if (word == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (word == "inf" || word == "infinity") {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  std::size_t digits = 0;
  while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (i == text.size() || !is_digit(text[i])) return std::nullopt;
    while (i < text.size() && is_digit(text[i])) ++i;
  }
  if (i != text.size()) return std::nullopt;
  return std::strtod(text.c_str(), nullptr);
}

/// Python's int() syntax: [+-] then decimal digits.
std::optional<int64_t> parse_int(const std::string &text, const std::string &option) {
  const std::size_t start = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  if (start == text.size()) return std::nullopt;
  for (std::size_t i = start; i < text.size(); ++i) {
    if (!is_digit(text[i])) return std::nullopt;
  }
  int64_t value = 0;
  const char *first = text.data() + (text[0] == '+' ? 1 : 0);
  auto [ptr, ec] = std::from_chars(first, text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw InputError(option + " " + text + ": the integer does not fit in int64 (write " + text +
                     ".0 for a float, or use a .npy file)");
  }
  return value;
}

/// The imaginary-part text before 'j': "" or "+" is 1, "-" is -1.
std::optional<double> parse_imag(const std::string &text) {
  if (text.empty() || text == "+") return 1.0;
  if (text == "-") return -1.0;
  return parse_float(text);
}

/// Python's complex() syntax: [(] [real] (+|-) imag j [)], or imag j alone.
std::optional<std::complex<double>> parse_complex(std::string text) {
  if (text.size() >= 2 && text.front() == '(' && text.back() == ')') text = text.substr(1, text.size() - 2);
  if (text.empty() || (text.back() != 'j' && text.back() != 'J')) return std::nullopt;
  const std::string body = text.substr(0, text.size() - 1);
  // Split "re+imj" at the last sign that is not part of an exponent.
  for (std::size_t k = body.size(); k-- > 1;) {
    if ((body[k] == '+' || body[k] == '-') && body[k - 1] != 'e' && body[k - 1] != 'E') {
      std::optional<double> re = parse_float(body.substr(0, k));
      std::optional<double> im = parse_imag(body.substr(k));
      if (re && im) return std::complex<double>(*re, *im);
      return std::nullopt;
    }
  }
  std::optional<double> im = parse_imag(body);
  if (im) return std::complex<double>(0.0, *im);
  return std::nullopt;
}

}  // namespace

std::optional<Operand> parse_scalar(const std::string &text, const std::string &option) {
  if (!text.empty() && (text.front() == '[' || (text.front() == '(' && text.find(',') != std::string::npos))) {
    throw UsageError(option + " " + text +
                     ": a list is not an operand; save the array to a .npy file (np.save('a.npy', np.array(" + text +
                     "))) and pass its path, or pass one number");
  }
  if (text == "True" || text == "true") return Operand(true);
  if (text == "False" || text == "false") return Operand(false);
  if (std::optional<int64_t> i = parse_int(text, option)) return Operand(*i);
  if (std::optional<double> d = parse_float(text)) return Operand(*d);
  if (std::optional<std::complex<double>> c = parse_complex(text)) return Operand(*c);
  return std::nullopt;
}

}  // namespace ufjit::tool
