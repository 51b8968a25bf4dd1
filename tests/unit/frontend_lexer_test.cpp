#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "frontend/Lexer.h"
#include "frontend_test_util.h"

namespace ufjit::frontend {
namespace {

struct Lexed {
  std::shared_ptr<const SourceFile> file;
  DiagnosticEngine diags;
  std::vector<Token> tokens;
};

std::unique_ptr<Lexed> lex(const std::string &text) {
  auto out = std::make_unique<Lexed>();
  out->file = test::make_file(text);
  out->tokens = tokenize(*out->file, out->diags);
  return out;
}

/// Kinds as a compact string: "Name Op Int Newline EndMarker".
std::string kinds(const std::vector<Token> &tokens) {
  std::string out;
  for (const auto &t : tokens) {
    if (!out.empty()) out += ' ';
    out += token_kind_name(t.kind);
  }
  return out;
}

/// The one literal token of a source, with the lexed source whose text the
/// token's `text` views.
struct SingleToken {
  std::unique_ptr<Lexed> lexed;
  const Token &operator*() const { return lexed->tokens.front(); }
  const Token *operator->() const { return &lexed->tokens.front(); }
};

/// The one literal token of `text` (which must lex cleanly to it).
SingleToken single(const std::string &text) {
  auto l = lex(text);
  EXPECT_FALSE(l->diags.has_errors()) << text << "\n" << test::messages(l->diags);
  EXPECT_EQ(l->tokens.size(), 3u) << text << ": " << kinds(l->tokens);
  return SingleToken{std::move(l)};
}

TEST(Lexer, IntegerLiteralsInEveryBaseWithUnderscores) {
  struct Case {
    const char *text;
    uint64_t value;
  } cases[] = {
      {"0", 0},          {"00", 0},          {"0_0", 0},           {"7", 7},
      {"1_000_000", 1000000}, {"0x1F", 31},  {"0X_ff", 255},       {"0o17", 15},
      {"0O_7", 7},       {"0b1010", 10},     {"0B_1_1", 3},        {"0xdead_BEEF", 0xdeadbeefULL},
      {"18446744073709551615", std::numeric_limits<uint64_t>::max()},
  };
  for (const auto &c : cases) {
    const SingleToken one = single(c.text);
    const Token &t = *one;
    EXPECT_EQ(t.kind, TokenKind::Int) << c.text;
    EXPECT_EQ(t.int_value, c.value) << c.text;
    EXPECT_FALSE(t.overflow) << c.text;
    EXPECT_EQ(t.text, c.text);
  }
}

TEST(Lexer, IntegerBeyond64BitsSetsOverflow) {
  const SingleToken one = single("18446744073709551616");
  const Token &t = *one;
  EXPECT_EQ(t.kind, TokenKind::Int);
  EXPECT_TRUE(t.overflow);
  EXPECT_TRUE(single("0x1_0000_0000_0000_0000")->overflow);
}

TEST(Lexer, FloatLiteralsInEveryForm) {
  struct Case {
    const char *text;
    double value;
  } cases[] = {
      {"1.", 1.0},     {".5", 0.5},      {"1e-3", 0.001},  {"1_000.5", 1000.5}, {"1E+2", 100.0},
      {"2.5e3", 2500}, {"012.5", 12.5},  {"0.0", 0.0},     {"1.e2", 100.0},     {"3_0e1_0", 30e10},
      {"1e-400", 0.0},
  };
  for (const auto &c : cases) {
    const SingleToken one = single(c.text);
    const Token &t = *one;
    EXPECT_EQ(t.kind, TokenKind::Float) << c.text;
    EXPECT_EQ(t.float_value, c.value) << c.text;
  }
  EXPECT_TRUE(std::isinf(single("1e999")->float_value));
}

TEST(Lexer, ImaginaryLiterals) {
  struct Case {
    const char *text;
    double imag;
  } cases[] = {{"2j", 2.0}, {"1.5J", 1.5}, {"1e3j", 1000.0}, {".5j", 0.5}, {"012j", 12.0}};
  for (const auto &c : cases) {
    const SingleToken one = single(c.text);
    const Token &t = *one;
    EXPECT_EQ(t.kind, TokenKind::Imag) << c.text;
    EXPECT_EQ(t.float_value, c.imag) << c.text;
  }
}

TEST(Lexer, LeadingZeroDecimalIsAnErrorAsInPython3) {
  auto l = lex("x = 012\n");
  ASSERT_EQ(l->diags.error_count(), 1) << test::messages(l->diags);
  const Diagnostic &d = l->diags.diagnostics()[0];
  EXPECT_EQ(d.loc.line, 1);
  EXPECT_EQ(d.loc.col, 5);
  EXPECT_EQ(d.loc.length, 3);
  EXPECT_NE(d.message.find("leading zeros"), std::string::npos) << d.message;
}

TEST(Lexer, MalformedNumbersAreErrors) {
  for (const char *text : {"1__0", "1_", "0x", "0b2", "0o8", "1abc", "0x1g", "1e", "1.5jx"}) {
    auto l = lex(text);
    EXPECT_EQ(l->diags.error_count(), 1) << text << "\n" << test::messages(l->diags);
    EXPECT_EQ(l->diags.diagnostics().at(0).loc.col, 1) << text;
  }
}

TEST(Lexer, StringLiteralsAndEscapes) {
  struct Case {
    const char *text;
    const char *value;
  } cases[] = {
      {"'abc'", "abc"},
      {"\"a'b\"", "a'b"},
      {"'a\\'b'", "a'b"},
      {"'\\x41\\n\\t\\101\\\\'", "A\n\tA\\"},
      {"'\\u00e9'", "\xc3\xa9"},
      {"'''tri\nple'''", "tri\nple"},
      {"\"\"\"a \"quote\" b\"\"\"", "a \"quote\" b"},
      {"r'\\n\\d'", "\\n\\d"},
      {"R\"x\\\"y\"", "x\\\"y"},
      {"u'plain'", "plain"},
      {"'\\q'", "\\q"},
      {"'line\\\ncont'", "linecont"},
  };
  for (const auto &c : cases) {
    const SingleToken one = single(c.text);
    const Token &t = *one;
    EXPECT_EQ(t.kind, TokenKind::String) << c.text;
    EXPECT_EQ(t.string->value, c.value) << c.text;
  }
}

TEST(Lexer, StringPrefixesAreRecorded) {
  EXPECT_TRUE(single("f'x'")->string->is_fstring);
  EXPECT_TRUE(single("rb'x'")->string->is_bytes);
  EXPECT_FALSE(single("'x'")->string->is_fstring);
  // `ur` is not a Python prefix: a name followed by a string.
  auto l = lex("ur'x'");
  EXPECT_EQ(kinds(l->tokens), "Name String Newline EndMarker");
}

TEST(Lexer, StringContentLocationPointsInsideTheQuotes) {
  auto l = lex("s = r'''float32'''\n");
  const Token &t = l->tokens[2];
  ASSERT_EQ(t.kind, TokenKind::String);
  EXPECT_EQ(t.loc.col, 5);
  EXPECT_EQ(t.string->loc.col, 9);
  EXPECT_EQ(t.string->loc.line, 1);
}

TEST(Lexer, UnterminatedStringsAreErrors) {
  auto single_quoted = lex("s = 'abc\nt = 1\n");
  ASSERT_EQ(single_quoted->diags.error_count(), 1);
  EXPECT_EQ(single_quoted->diags.diagnostics()[0].message, "unterminated string literal");
  EXPECT_EQ(single_quoted->diags.diagnostics()[0].loc.col, 5);
  // Lexing goes on with the next line.
  EXPECT_EQ(kinds(single_quoted->tokens),
            "Name Op String Newline Name Op Int Newline EndMarker");
  auto triple = lex("s = '''abc\nt = 1\n");
  ASSERT_EQ(triple->diags.error_count(), 1);
  EXPECT_NE(triple->diags.diagnostics()[0].message.find("triple-quoted"), std::string::npos);
}

TEST(Lexer, KeywordsAndNames) {
  auto l = lex("def lambda_ not None True elif match x1 _");
  std::vector<TokenKind> expected = {TokenKind::Keyword, TokenKind::Name, TokenKind::Keyword,
                                     TokenKind::Keyword, TokenKind::Keyword, TokenKind::Keyword,
                                     TokenKind::Name, TokenKind::Name, TokenKind::Name};
  ASSERT_GE(l->tokens.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(l->tokens[i].kind, expected[i]) << l->tokens[i].text;
  }
}

TEST(Lexer, OperatorsTakeTheLongestMatch) {
  auto l = lex("a**=b//=c>>=d<<=e**f//g->h:=i!=j...");
  std::vector<std::string> ops;
  for (const auto &t : l->tokens) {
    if (t.kind == TokenKind::Op) ops.emplace_back(t.text);
  }
  std::vector<std::string> expected = {"**=", "//=", ">>=", "<<=", "**", "//", "->", ":=", "!=", "..."};
  EXPECT_EQ(ops, expected);
  EXPECT_FALSE(l->diags.has_errors());
}

TEST(Lexer, IndentAndDedentFollowTheBlocks) {
  auto l = lex("def f(x):\n    if x:\n        return 1\n    return 2\ny = 3\n");
  EXPECT_EQ(kinds(l->tokens),
            "Keyword Name Op Name Op Op Newline "
            "Indent Keyword Name Op Newline "
            "Indent Keyword Int Newline "
            "Dedent Keyword Int Newline "
            "Dedent Name Op Int Newline EndMarker");
  EXPECT_FALSE(l->diags.has_errors());
}

TEST(Lexer, BlankLinesAndCommentsDoNotChangeIndentation) {
  auto l = lex("if x:\n    a = 1\n\n# comment at column 0\n        # deeper comment\n    b = 2\n");
  EXPECT_EQ(kinds(l->tokens),
            "Keyword Name Op Newline Indent Name Op Int Newline Name Op Int Newline Dedent EndMarker");
  EXPECT_FALSE(l->diags.has_errors()) << test::messages(l->diags);
}

TEST(Lexer, MissingFinalNewlineStillClosesEverything) {
  auto l = lex("if x:\n    y");
  EXPECT_EQ(kinds(l->tokens), "Keyword Name Op Newline Indent Name Newline Dedent EndMarker");
}

TEST(Lexer, BracketsJoinLines) {
  auto l = lex("f(a,\n      b,\n\n  c)\n");
  EXPECT_EQ(kinds(l->tokens), "Name Op Name Op Name Op Name Op Newline EndMarker");
  EXPECT_EQ(l->tokens[6].loc.line, 4);
  EXPECT_EQ(l->tokens[6].loc.col, 3);
}

TEST(Lexer, BackslashJoinsLines) {
  auto l = lex("x = 1 + \\\n        2\n");
  EXPECT_EQ(kinds(l->tokens), "Name Op Int Op Int Newline EndMarker");
  EXPECT_FALSE(l->diags.has_errors());
}

TEST(Lexer, CrLfLineEndings) {
  auto l = lex("if x:\r\n    y = 1\r\n");
  EXPECT_EQ(kinds(l->tokens), "Keyword Name Op Newline Indent Name Op Int Newline Dedent EndMarker");
  EXPECT_FALSE(l->diags.has_errors());
}

TEST(Lexer, TabsAndSpacesMixedInBlockIsAnError) {
  // Line 2 indents with a tab, line 3 with 8 spaces: equal at tab size 8,
  // different at tab size 1, so the structure depends on the tab width.
  auto l = lex("if x:\n\ta = 1\n        b = 2\n");
  ASSERT_EQ(l->diags.error_count(), 1) << test::messages(l->diags);
  const Diagnostic &d = l->diags.diagnostics()[0];
  EXPECT_EQ(d.message, "inconsistent use of tabs and spaces in indentation");
  EXPECT_EQ(d.loc.line, 3);
}

TEST(Lexer, TabsUsedConsistentlyAreFine) {
  auto l = lex("if x:\n\tif y:\n\t\ta = 1\n\tb = 2\n");
  EXPECT_FALSE(l->diags.has_errors()) << test::messages(l->diags);
}

TEST(Lexer, UnindentToAnUnknownLevelIsAnError) {
  auto l = lex("if x:\n    a = 1\n  b = 2\n");
  ASSERT_EQ(l->diags.error_count(), 1);
  EXPECT_EQ(l->diags.diagnostics()[0].message, "unindent does not match any outer indentation level");
  EXPECT_EQ(l->diags.diagnostics()[0].loc.line, 3);
}

TEST(Lexer, UnknownCharactersAreReportedAndLexingContinues) {
  auto l = lex("a = b $ c ? d\n");
  ASSERT_EQ(l->diags.error_count(), 2) << test::messages(l->diags);
  EXPECT_EQ(l->diags.diagnostics()[0].message, "unexpected character '$'");
  EXPECT_EQ(l->diags.diagnostics()[0].loc.col, 7);
  EXPECT_EQ(l->diags.diagnostics()[1].loc.col, 11);
  EXPECT_EQ(kinds(l->tokens), "Name Op Name Name Name Newline EndMarker");
}

TEST(Lexer, BackslashNotAtEndOfLineIsAnError) {
  auto l = lex("x = 1 \\ 2\n");
  ASSERT_EQ(l->diags.error_count(), 1);
  EXPECT_EQ(l->diags.diagnostics()[0].loc.col, 7);
}

TEST(Lexer, LocationsAreOneBasedWithLengths) {
  auto l = lex("x = math.exp(y)\n");
  const Token &exp = l->tokens[4];
  EXPECT_EQ(exp.text, "exp");
  EXPECT_EQ(exp.loc.line, 1);
  EXPECT_EQ(exp.loc.col, 10);
  EXPECT_EQ(exp.loc.length, 3);
}

TEST(Lexer, DeepIndentationIsCappedWithAnError) {
  std::string text;
  for (int i = 0; i < 150; ++i) text += std::string(static_cast<std::size_t>(i), ' ') + "if x:\n";
  text += std::string(150, ' ') + "pass\n";
  auto l = lex(text);
  EXPECT_TRUE(l->diags.has_errors());
  int indents = 0;
  int dedents = 0;
  for (const auto &t : l->tokens) {
    indents += t.kind == TokenKind::Indent;
    dedents += t.kind == TokenKind::Dedent;
  }
  EXPECT_EQ(indents, dedents);
  EXPECT_LE(indents, 100);
}

}  // namespace
}  // namespace ufjit::frontend
