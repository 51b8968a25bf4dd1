// Tokens of a ufjit source: Python's token set, each with its location.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "support/Diagnostics.h"

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

/// What a String token holds besides its spelling.
struct StringContents {
  std::string value;        // the decoded contents
  SourceLocation loc;       // where the contents begin, after the opening quote
  bool is_fstring = false;  // what the prefix said
  bool is_bytes = false;
};

/// One token. `text` is the spelling as written (for strings, with prefix and
/// quotes): a view of the SourceFile's text, which outlives its tokens; the
/// literal fields hold decoded values. Kept small (64 bytes): a generated
/// source of 100,000 branches is 1.2 million tokens, and at 120 bytes a
/// token their vector was the frontend's largest allocation (240 MB once
/// regrown), paged in as it was filled.
struct Token {
  TokenKind kind = TokenKind::EndMarker;
  // Int: `overflow` when the value does not fit in 64 bits.
  bool overflow = false;
  std::string_view text;
  SourceLocation loc;
  union {
    uint64_t int_value = 0;  // Int: the value (magnitude)
    double float_value;      // Float: the value; Imag: the imaginary part
  };
  // String only (null otherwise): few tokens are strings.
  std::unique_ptr<const StringContents> string;

  bool is_op(std::string_view spelling) const { return kind == TokenKind::Op && text == spelling; }
  bool is_keyword(std::string_view word) const {
    return kind == TokenKind::Keyword && text == word;
  }
};

/// How a token reads in an error message: "'('", "name 'x'", "end of line",
/// "end of file", "indent".
std::string describe_token(const Token &token);

}  // namespace ufjit::frontend
