// Number literals and escapes for the lexer: the parts of Python's tokenizer
// with the most rules, kept apart so that Lexer.cpp reads as the main loop.
#pragma once

#include <cstdint>
#include <string>

namespace ufjit::frontend {

/// What scan_number found at a position.
struct NumberScan {
  std::size_t end = 0;  // one past the literal (and past any junk glued to it)
  bool is_float = false;
  bool is_imag = false;
  uint64_t int_value = 0;
  bool overflow = false;
  double float_value = 0.0;  // Float: the value; Imag: the imaginary part
  std::string error;         // empty when the literal is valid
};

/// Scans an int (any base, underscores), float or imaginary literal starting
/// at `pos`, which holds a digit or a '.' followed by a digit. Python 3's
/// rules: `012` is an error, `0_0` and `012.5` and `012j` are fine, an
/// underscore must sit between digits, and letters glued to a number are an
/// error ("invalid decimal literal").
NumberScan scan_number(const std::string &text, std::size_t pos);

/// The value of a hex digit, or -1.
int hex_digit_value(unsigned char c);

/// Appends `code_point` as UTF-8 (or as one byte for a bytes literal).
void append_code_point(std::string &out, uint32_t code_point, bool bytes);

}  // namespace ufjit::frontend
