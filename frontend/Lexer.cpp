// The lexer of LANGUAGE.md section 4: Python's tokenizer rules for the subset.
#include "frontend/Lexer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>

#include "frontend/LexerNumbers.h"
#include "support/EnumNames.h"

namespace ufjit::frontend {

namespace {

constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None",   "True",    "and",      "as",       "assert", "async",
    "await", "break",  "class",   "continue", "def",      "del",    "elif",
    "else",  "except", "finally", "for",      "from",     "global", "if",
    "import", "in",    "is",      "lambda",   "nonlocal", "not",    "or",
    "pass",  "raise",  "return",  "try",      "while",    "with",   "yield",
};

// Longest first: the lexer takes the first that matches.
constexpr std::array<std::string_view, 47> kOperators = {
    "**=", "//=", ">>=", "<<=", "...", "**", "//", "<<", ">>", "<=", ">=", "==",
    "!=",  "->",  "+=",  "-=",  "*=",  "/=", "%=", "&=", "|=", "^=", "@=", ":=",
    "+",   "-",   "*",   "/",   "%",   "@",  "&",  "|",  "^",  "~",  "<",  ">",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ".",  ";",  "=",
};

/// Python allows 100 levels of indentation (MAXINDENT); so do we.
constexpr std::size_t kMaxIndentDepth = 100;
constexpr int kTabSize = 8;

bool is_ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

bool is_ident_char(unsigned char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/// `'$'`, or `'\x00'` for a byte that does not print.
std::string quote_char(unsigned char c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "'\\x%02x'", c);
  return buf;
}

class Lexer {
 public:
  Lexer(const SourceFile &file, DiagnosticEngine &diags)
      : file_(file), text_(file.text()), diags_(diags) {}

  std::vector<Token> run();

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  unsigned char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? static_cast<unsigned char>(text_[pos_ + ahead]) : '\0';
  }
  int col_of(std::size_t pos) const { return static_cast<int>(pos - line_start_) + 1; }
  SourceLocation loc_at(std::size_t pos, int length = 1) const {
    return SourceLocation{&file_, line_, col_of(pos), std::max(length, 1)};
  }
  bool at_newline() const { return peek() == '\n' || peek() == '\r'; }
  /// Consumes "\n", "\r\n" or "\r" and starts the next line.
  void consume_newline();

  void handle_indentation();
  void lex_token();
  void lex_name();
  void lex_string(std::size_t start, bool raw, bool bytes, bool fstring);
  void decode_escape(std::string &out, bool bytes);
  void lex_number();
  void lex_operator();
  void push(TokenKind kind, std::size_t start, std::size_t end);
  void finish();

  const SourceFile &file_;
  const std::string &text_;
  DiagnosticEngine &diags_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
  int paren_depth_ = 0;
  bool at_line_start_ = true;
  // Indentation columns with tabs to multiples of 8, and with tabs as 1:
  // when the two disagree about the structure, tabs and spaces are mixed
  // inconsistently (Python's check).
  std::vector<int> indents_ = {0};
  std::vector<int> alt_indents_ = {0};
};

void Lexer::consume_newline() {
  if (peek() == '\r' && peek(1) == '\n') ++pos_;
  ++pos_;
  ++line_;
  line_start_ = pos_;
}

void Lexer::push(TokenKind kind, std::size_t start, std::size_t end) {
  Token t;
  t.kind = kind;
  t.text = std::string_view(text_).substr(start, end - start);
  t.loc = loc_at(start, static_cast<int>(end - start));
  tokens_.push_back(std::move(t));
}

std::vector<Token> Lexer::run() {
  // Code has about one token per 2.5-3 bytes: room for one per 2 bytes
  // spares a large source the vector's regrowth (copies of every token so
  // far); the pages of the unused rest are never touched. Capped: a 60 MB
  // source of comments reserved 3.6 GB of address space, and failed under
  // a `ulimit -v` it fits in. Past the cap the vector grows as usual.
  static_assert(sizeof(Token) <= 64, "a token's size sets the reservation's cap");
  constexpr std::size_t kMaxReservedTokens = std::size_t{2} << 20;  // ~5 MB of code, 128 MB
  tokens_.reserve(std::min(text_.size() / 2 + 16, kMaxReservedTokens));
  while (true) {
    if (at_line_start_ && paren_depth_ == 0) {
      handle_indentation();
      if (at_end()) break;
      if (at_line_start_) continue;  // a blank or comment-only line
    }
    if (at_end()) break;
    lex_token();
  }
  finish();
  return std::move(tokens_);
}

void Lexer::handle_indentation() {
  int col = 0;
  int alt_col = 0;
  while (!at_end()) {
    unsigned char c = peek();
    if (c == ' ') {
      ++col;
      ++alt_col;
    } else if (c == '\t') {
      col = (col / kTabSize + 1) * kTabSize;
      ++alt_col;
    } else if (c == '\f') {
      col = 0;
      alt_col = 0;
    } else {
      break;
    }
    ++pos_;
  }
  if (at_end()) return;
  if (peek() == '#') {
    while (!at_end() && !at_newline()) ++pos_;
  }
  if (at_newline()) {
    consume_newline();
    return;
  }
  at_line_start_ = false;
  SourceLocation here = loc_at(pos_);
  const char *kInconsistent = "inconsistent use of tabs and spaces in indentation";
  if (col == indents_.back()) {
    if (alt_col != alt_indents_.back()) diags_.error(here, kInconsistent);
  } else if (col > indents_.back()) {
    if (alt_col <= alt_indents_.back()) diags_.error(here, kInconsistent);
    if (indents_.size() > kMaxIndentDepth) {
      // As in Python, this ends the source: every deeper line would say it
      // again, and each block header above it would lack its block.
      diags_.error(here, "too many levels of indentation (more than " + std::to_string(kMaxIndentDepth) + ")");
      pos_ = text_.size();
      return;
    }
    indents_.push_back(col);
    alt_indents_.push_back(alt_col);
    Token t;
    t.kind = TokenKind::Indent;
    t.loc = here;
    tokens_.push_back(std::move(t));
  } else {
    while (indents_.size() > 1 && col < indents_.back()) {
      indents_.pop_back();
      alt_indents_.pop_back();
      Token t;
      t.kind = TokenKind::Dedent;
      t.loc = here;
      tokens_.push_back(std::move(t));
    }
    if (col != indents_.back()) {
      diags_.error(here, "unindent does not match any outer indentation level");
    } else if (alt_col != alt_indents_.back()) {
      diags_.error(here, kInconsistent);
    }
  }
}

void Lexer::lex_token() {
  unsigned char c = peek();
  if (c == ' ' || c == '\t' || c == '\f') {
    ++pos_;
    return;
  }
  if (c == '#') {
    while (!at_end() && !at_newline()) ++pos_;
    return;
  }
  if (c == '\n' || c == '\r') {
    if (paren_depth_ == 0) {
      push(TokenKind::Newline, pos_, pos_ + 1);
      tokens_.back().text = {};
      at_line_start_ = true;
    }
    consume_newline();
    return;
  }
  if (c == '\\') {
    if (peek(1) == '\n' || peek(1) == '\r') {
      ++pos_;
      consume_newline();
      if (at_end()) diags_.error(loc_at(pos_ - 1), "unexpected end of file after line continuation");
      return;
    }
    diags_.error(loc_at(pos_), "unexpected character after line continuation character");
    ++pos_;
    return;
  }
  if (is_ident_start(c)) {
    lex_name();
    return;
  }
  if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
    lex_number();
    return;
  }
  if (c == '\'' || c == '"') {
    lex_string(pos_, false, false, false);
    return;
  }
  lex_operator();
}

void Lexer::lex_name() {
  std::size_t start = pos_;
  while (!at_end() && is_ident_char(peek())) ++pos_;
  std::string_view word(text_.data() + start, pos_ - start);
  // A string prefix: r, b, f, u and the two-letter mixes Python allows.
  if ((peek() == '\'' || peek() == '"') && word.size() <= 2) {
    bool raw = false;
    bool bytes = false;
    bool fstring = false;
    bool unicode = false;
    bool valid = true;
    for (char ch : word) {
      char lower = static_cast<char>(ch | 0x20);
      bool &flag = lower == 'r' ? raw : lower == 'b' ? bytes : lower == 'f' ? fstring : unicode;
      if ((lower != 'r' && lower != 'b' && lower != 'f' && lower != 'u') || flag) valid = false;
      flag = true;
    }
    if (unicode && word.size() > 1) valid = false;
    if (bytes && fstring) valid = false;
    if (valid) {
      lex_string(start, raw, bytes, fstring);
      return;
    }
  }
  push(is_python_keyword(word) ? TokenKind::Keyword : TokenKind::Name, start, pos_);
}

void Lexer::lex_operator() {
  const std::string_view rest = std::string_view(text_).substr(pos_);
  for (std::string_view op : kOperators) {
    // The first byte rules out all but a few, without a call per operator.
    if (op[0] != rest[0] || !rest.starts_with(op)) continue;
    push(TokenKind::Op, pos_, pos_ + op.size());
    pos_ += op.size();
    if (op == "(" || op == "[" || op == "{") {
      ++paren_depth_;
    } else if ((op == ")" || op == "]" || op == "}") && paren_depth_ > 0) {
      --paren_depth_;
    }
    return;
  }
  unsigned char c = peek();
  std::size_t length = 1;
  if (c >= 0x80) {
    while (pos_ + length < text_.size() && (static_cast<unsigned char>(text_[pos_ + length]) & 0xC0) == 0x80) {
      ++length;
    }
  }
  if (c == '!') {
    diags_.error(loc_at(pos_), "unexpected character '!'; Python spells 'not' and '!='");
  } else {
    diags_.error(loc_at(pos_, static_cast<int>(length)), "unexpected character " + quote_char(c));
  }
  pos_ += length;
}

void Lexer::lex_string(std::size_t start, bool raw, bool bytes, bool fstring) {
  int start_line = line_;
  std::size_t start_line_start = line_start_;
  char quote = static_cast<char>(peek());
  bool triple = peek(1) == quote && peek(2) == quote;
  pos_ += triple ? 3 : 1;
  SourceLocation content_loc = loc_at(pos_);
  std::string value;
  bool terminated = false;
  while (!at_end()) {
    char c = static_cast<char>(peek());
    if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
      pos_ += triple ? 3 : 1;
      terminated = true;
      break;
    }
    if (c == '\n' || c == '\r') {
      if (!triple) break;
      value += '\n';
      consume_newline();
      continue;
    }
    if (c == '\\') {
      if (raw) {
        value += c;
        ++pos_;
        if (at_end()) break;
        if (at_newline()) {
          value += '\n';
          consume_newline();
        } else {
          value += static_cast<char>(peek());
          ++pos_;
        }
        continue;
      }
      decode_escape(value, bytes);
      continue;
    }
    value += c;
    ++pos_;
  }
  Token t;
  t.kind = TokenKind::String;
  t.text = std::string_view(text_).substr(start, pos_ - start);
  int length = static_cast<int>(pos_ - start);
  if (line_ != start_line) {
    std::size_t eol = text_.find_first_of("\r\n", start);
    length = static_cast<int>(eol - start);
  }
  t.loc = SourceLocation{&file_, start_line, static_cast<int>(start - start_line_start) + 1,
                         std::max(length, 1)};
  t.string =
      std::make_unique<const StringContents>(StringContents{std::move(value), content_loc, fstring, bytes});
  if (!terminated) {
    SourceLocation at = t.loc;
    at.length = 1;
    if (triple) {
      diags_.error(at, "unterminated triple-quoted string literal (detected at line " +
                           std::to_string(std::min(line_, file_.line_count())) + ")");
    } else {
      diags_.error(at, "unterminated string literal");
    }
  }
  tokens_.push_back(std::move(t));
}

void Lexer::decode_escape(std::string &out, bool bytes) {
  std::size_t start = pos_;
  ++pos_;  // the backslash
  if (at_end()) {
    out += '\\';
    return;
  }
  if (at_newline()) {
    consume_newline();
    return;
  }
  char c = static_cast<char>(peek());
  ++pos_;
  switch (c) {
    case '\\': out += '\\'; return;
    case '\'': out += '\''; return;
    case '"': out += '"'; return;
    case 'a': out += '\a'; return;
    case 'b': out += '\b'; return;
    case 'f': out += '\f'; return;
    case 'n': out += '\n'; return;
    case 'r': out += '\r'; return;
    case 't': out += '\t'; return;
    case 'v': out += '\v'; return;
    default: break;
  }
  if (c >= '0' && c <= '7') {
    unsigned value = static_cast<unsigned>(c - '0');
    for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; ++i) {
      value = value * 8 + static_cast<unsigned>(peek() - '0');
      ++pos_;
    }
    append_code_point(out, value, bytes);
    return;
  }
  int hex_digits = c == 'x' ? 2 : (c == 'u' && !bytes) ? 4 : (c == 'U' && !bytes) ? 8 : 0;
  if (hex_digits > 0) {
    uint32_t value = 0;
    int got = 0;
    while (got < hex_digits && hex_digit_value(peek()) >= 0) {
      value = value * 16 + static_cast<uint32_t>(hex_digit_value(peek()));
      ++pos_;
      ++got;
    }
    if (got < hex_digits || value > 0x10FFFF) {
      diags_.error(loc_at(start, static_cast<int>(pos_ - start)),
                   std::string("invalid \\") + c + " escape in string literal");
      return;
    }
    append_code_point(out, value, bytes);
    return;
  }
  if (c == 'N' && !bytes) {
    diags_.error(loc_at(start, 2), "'\\N{...}' escapes are not supported in ufjit sources");
    return;
  }
  // Python keeps an unknown escape as written.
  out += '\\';
  --pos_;
}

void Lexer::lex_number() {
  std::size_t start = pos_;
  NumberScan scan = scan_number(text_, pos_);
  pos_ = scan.end;
  Token t;
  t.kind = scan.is_imag ? TokenKind::Imag : scan.is_float ? TokenKind::Float : TokenKind::Int;
  t.text = std::string_view(text_).substr(start, pos_ - start);
  t.loc = loc_at(start, static_cast<int>(pos_ - start));
  if (t.kind == TokenKind::Int) {
    t.int_value = scan.int_value;
    t.overflow = scan.overflow;
  } else {
    t.float_value = scan.float_value;
  }
  if (!scan.error.empty()) diags_.error(t.loc, scan.error);
  tokens_.push_back(std::move(t));
}

void Lexer::finish() {
  SourceLocation eof{&file_, 1, 1, 1};
  int last_line = file_.line_count();
  eof.line = std::max(last_line, 1);
  eof.col = static_cast<int>(file_.line_text(eof.line).size()) + 1;
  if (!tokens_.empty() && tokens_.back().kind != TokenKind::Newline &&
      tokens_.back().kind != TokenKind::Dedent && tokens_.back().kind != TokenKind::Indent) {
    Token t;
    t.kind = TokenKind::Newline;
    t.loc = eof;
    tokens_.push_back(std::move(t));
  }
  while (indents_.size() > 1) {
    indents_.pop_back();
    Token t;
    t.kind = TokenKind::Dedent;
    t.loc = eof;
    tokens_.push_back(std::move(t));
  }
  Token end;
  end.kind = TokenKind::EndMarker;
  end.loc = eof;
  tokens_.push_back(std::move(end));
}

}  // namespace

std::vector<Token> tokenize(const SourceFile &file, DiagnosticEngine &diags) {
  // Text that is not UTF-8 (a binary file, another encoding) or holds a NUL
  // byte gets one error at its first bad byte, as in Python, instead of an
  // error per stray byte.
  const std::string &text = file.text();
  std::size_t bad = first_bad_source_byte(text);
  if (bad != std::string::npos) {
    SourceFile::LineCol at = file.line_col(bad);
    SourceLocation loc{&file, at.line, at.col, 1};
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
    diags.error(loc, text[bad] == '\0' ? std::string("source contains a NUL byte")
                                        : std::string("source is not valid UTF-8 (byte ") + byte + ")");
    std::vector<Token> only_end(1);
    only_end.front().kind = TokenKind::EndMarker;
    only_end.front().loc = loc;
    return only_end;
  }
  Lexer lexer(file, diags);
  return lexer.run();
}

bool is_python_keyword(std::string_view word) {
  for (std::string_view k : kKeywords) {
    if (!word.empty() && k[0] == word[0] && k == word) return true;
  }
  return false;
}

const char *token_kind_name(TokenKind kind) {
  static constexpr const char *kNames[] = {UFJIT_FOR_EACH_TOKEN_KIND(UFJIT_ENUM_NAME_STRING)};
  return support::indexed_name(kind, kNames, "?");
}

std::string describe_token(const Token &token) {
  switch (token.kind) {
    case TokenKind::Newline:
      return "end of line";
    case TokenKind::Indent:
      return "indent";
    case TokenKind::Dedent:
      return "dedent";
    case TokenKind::EndMarker:
      return "end of file";
    case TokenKind::Name:
      return "name '" + std::string(token.text) + "'";
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::Imag:
      return "number '" + std::string(token.text) + "'";
    case TokenKind::String:
      return "string literal";
    case TokenKind::Keyword:
    case TokenKind::Op:
      return "'" + std::string(token.text) + "'";
  }
  return "'" + std::string(token.text) + "'";
}

}  // namespace ufjit::frontend
