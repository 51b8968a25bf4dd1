#include "frontend/LexerNumbers.h"

#include <charconv>
#include <limits>

namespace ufjit::frontend {

namespace {

bool is_ident_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80 ||
         (c >= '0' && c <= '9');
}

int digit_value(unsigned char c, int base) {
  int v = hex_digit_value(c);
  return v >= 0 && v < base ? v : -1;
}

unsigned char at(const std::string &text, std::size_t pos) {
  return pos < text.size() ? static_cast<unsigned char>(text[pos]) : '\0';
}

/// Digits of `base` with single underscores between them (and, after a base
/// prefix, before the first). Appends the digits to `digits`; returns the end.
std::size_t scan_digits(const std::string &text, std::size_t pos, int base, bool leading_underscore,
                        std::string &digits) {
  bool first = true;
  while (true) {
    unsigned char c = at(text, pos);
    if (digit_value(c, base) >= 0) {
      digits += static_cast<char>(c);
      ++pos;
      first = false;
      continue;
    }
    if (c == '_' && (!first || leading_underscore) && digit_value(at(text, pos + 1), base) >= 0) {
      ++pos;
      first = false;
      continue;
    }
    return pos;
  }
}

const char *base_name(int base) {
  switch (base) {
    case 16:
      return "hexadecimal";
    case 8:
      return "octal";
    case 2:
      return "binary";
    default:
      return "decimal";
  }
}

void accumulate(NumberScan &scan, const std::string &digits, int base) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  for (char c : digits) {
    auto d = static_cast<uint64_t>(hex_digit_value(static_cast<unsigned char>(c)));
    if (scan.int_value > (kMax - d) / static_cast<uint64_t>(base)) {
      scan.overflow = true;
      continue;
    }
    scan.int_value = scan.int_value * static_cast<uint64_t>(base) + d;
  }
}

/// Python's float(): the correctly rounded value, inf on overflow, 0 on
/// underflow (from_chars reports both as out of range).
double to_double(const std::string &clean) {
  double value = 0.0;
  auto result = std::from_chars(clean.data(), clean.data() + clean.size(), value);
  if (result.ec != std::errc::result_out_of_range) return value;
  std::size_t e = clean.find_first_of("eE");
  bool negative_exponent = e != std::string::npos && e + 1 < clean.size() && clean[e + 1] == '-';
  if (negative_exponent) return 0.0;
  // Without a negative exponent the magnitude is out of range only upward,
  // unless every significant digit sits after many leading zeros.
  std::string mantissa = clean.substr(0, e);
  std::size_t dot = mantissa.find('.');
  std::string int_part = mantissa.substr(0, dot);
  bool int_part_zero = int_part.find_first_not_of('0') == std::string::npos;
  if (int_part_zero && e == std::string::npos) return 0.0;
  return std::numeric_limits<double>::infinity();
}

}  // namespace

int hex_digit_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_code_point(std::string &out, uint32_t cp, bool bytes) {
  if (bytes || cp < 0x80) {
    out += static_cast<char>(cp & 0xFF);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

NumberScan scan_number(const std::string &text, std::size_t pos) {
  NumberScan scan;
  unsigned char c0 = at(text, pos);
  unsigned char c1 = static_cast<unsigned char>(at(text, pos + 1) | 0x20);
  if (c0 == '0' && (c1 == 'x' || c1 == 'o' || c1 == 'b')) {
    int base = c1 == 'x' ? 16 : c1 == 'o' ? 8 : 2;
    std::string digits;
    std::size_t end = scan_digits(text, pos + 2, base, true, digits);
    if (digits.empty() || is_ident_char(at(text, end))) {
      scan.error = std::string("invalid ") + base_name(base) + " literal";
      while (is_ident_char(at(text, end))) ++end;
    }
    scan.end = end;
    accumulate(scan, digits, base);
    return scan;
  }

  std::string int_digits;
  std::size_t p = scan_digits(text, pos, 10, false, int_digits);
  std::string clean = int_digits;
  if (at(text, p) == '.') {
    scan.is_float = true;
    clean += '.';
    ++p;
    if (is_ident_char(at(text, p)) && at(text, p) != '_') {
      p = scan_digits(text, p, 10, false, clean);
    }
  }
  unsigned char e = at(text, p);
  if (e == 'e' || e == 'E') {
    unsigned char sign = at(text, p + 1);
    std::size_t digits_at = (sign == '+' || sign == '-') ? p + 2 : p + 1;
    if (at(text, digits_at) >= '0' && at(text, digits_at) <= '9') {
      scan.is_float = true;
      clean += 'e';
      if (sign == '-') clean += '-';
      p = scan_digits(text, digits_at, 10, false, clean);
    }
  }
  if (at(text, p) == 'j' || at(text, p) == 'J') {
    scan.is_imag = true;
    ++p;
  }
  if (is_ident_char(at(text, p))) {
    scan.error = scan.is_imag ? "invalid imaginary literal" : "invalid decimal literal";
    while (is_ident_char(at(text, p))) ++p;
  }
  scan.end = p;
  if (scan.is_float || scan.is_imag) {
    if (clean.empty() || clean == ".") clean = "0";
    scan.float_value = to_double(clean);
    return scan;
  }
  bool leading_zero = int_digits.size() > 1 && int_digits[0] == '0';
  if (leading_zero && int_digits.find_first_not_of('0') != std::string::npos && scan.error.empty()) {
    scan.error =
        "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
        "octal integers";
  }
  accumulate(scan, int_digits, 10);
  return scan;
}

}  // namespace ufjit::frontend
