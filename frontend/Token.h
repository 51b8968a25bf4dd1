// Tokens of a ufjit source: Python's token set, each with its location.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "frontend/Diagnostics.h"

namespace ufjit::frontend {

#define UFJIT_FOR_EACH_TOKEN_KIND(X) \
  X(Name)                            \
  X(Keyword)                         \
  X(Int)                             \
  X(Float)                           \
  X(Imag)                            \
  X(String)                          \
  X(Op)                              \
  X(Newline)                         \
  X(Indent)                          \
  X(Dedent)                          \
  X(EndMarker)

enum class TokenKind : uint8_t {
#define UFJIT_TOKEN_ENUM(name) name,
  UFJIT_FOR_EACH_TOKEN_KIND(UFJIT_TOKEN_ENUM)
#undef UFJIT_TOKEN_ENUM
};

/// "Name", "Keyword", "Int", ... as `--emit tokens` prints them.
const char *token_kind_name(TokenKind kind);

/// One token. `text` is the spelling as written (for strings, with prefix and
/// quotes): a view of the SourceFile's text, which outlives its tokens; the
/// literal fields hold decoded values. Kept small (120 bytes): a generated
/// source of 100,000 branches is a million tokens.
struct Token {
  TokenKind kind = TokenKind::EndMarker;
  // Int: `overflow` when the value does not fit in 64 bits.
  bool overflow = false;
  // String: what the prefix said.
  bool is_fstring = false;
  bool is_bytes = false;
  std::string_view text;
  SourceLocation loc;

  // Int: the value (magnitude).
  uint64_t int_value = 0;
  // Float: the value; Imag: the imaginary part.
  double float_value = 0.0;
  // String: the decoded contents.
  std::string str_value;
  SourceLocation content_loc;

  bool is_op(std::string_view spelling) const { return kind == TokenKind::Op && text == spelling; }
  bool is_keyword(std::string_view word) const {
    return kind == TokenKind::Keyword && text == word;
  }
};

/// How a token reads in an error message: "'('", "name 'x'", "end of line",
/// "end of file", "indent".
std::string describe_token(const Token &token);

}  // namespace ufjit::frontend
