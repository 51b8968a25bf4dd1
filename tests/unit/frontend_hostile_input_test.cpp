// Hostile and careless input (issue 8): the number of errors is capped,
// nothing a terminal acts on reaches the output, text that is not UTF-8 is
// one error, and hints never repeat the name they correct.
#include <gtest/gtest.h>

#include <string>

#include "support/Diagnostics.h"
#include "frontend_test_util.h"

namespace ufjit {
namespace {

TEST(ErrorLimit, KeepsTwentyErrorsAndSaysHowManyMore) {
  DiagnosticEngine diags;
  test::parse_text(std::string(100, '$') + "\n", diags);
  EXPECT_EQ(diags.error_count(), 100);
  EXPECT_EQ(diags.diagnostics().size(), 20u);
  std::vector<DiagnosticMessage> messages = diags.to_messages();
  ASSERT_EQ(messages.size(), 21u);
  EXPECT_EQ(messages.back().severity, "note");
  EXPECT_EQ(messages.back().message, "80 more errors not shown (the limit is 20)");
  EXPECT_NE(diags.render_all().find("80 more errors not shown"), std::string::npos);
}

TEST(ErrorLimit, NotesOfASuppressedErrorAreDroppedToo) {
  DiagnosticEngine diags;
  diags.set_error_limit(1);
  diags.error({}, "first");
  diags.note({}, "about first");
  diags.error({}, "second");
  diags.note({}, "about second");
  ASSERT_EQ(diags.diagnostics().size(), 2u);
  EXPECT_EQ(diags.diagnostics()[1].message, "about first");
}

TEST(ErrorLimit, ZeroKeepsEveryError) {
  DiagnosticEngine diags;
  diags.set_error_limit(0);
  for (int i = 0; i < 50; ++i) diags.error({}, "e");
  EXPECT_EQ(diags.diagnostics().size(), 50u);
  EXPECT_EQ(diags.render_all().find("not shown"), std::string::npos);
}

TEST(EscapeText, ControlCharactersBidiOverridesAndBadBytesBecomeEscapes) {
  EXPECT_EQ(escape_text("a\x1b[31mb"), "a\\x1b[31mb");
  EXPECT_EQ(escape_text("\r\a\x7f"), "\\x0d\\x07\\x7f");
  EXPECT_EQ(escape_text("tab\tstays"), "tab\tstays");
  EXPECT_EQ(escape_text("\xc2\x9b"), "\\u009b");          // C1 CSI
  EXPECT_EQ(escape_text("\xe2\x80\xae"), "\\u202e");      // right-to-left override
  EXPECT_EQ(escape_text("\xff\xc0\x80"), "\\xff\\xc0\\x80");  // not UTF-8, overlong
  EXPECT_EQ(escape_text("π = 3.14"), "π = 3.14");
}

TEST(RenderDiagnostic, EscapesTheSourceLineAndKeepsTheCaretUnderTheCharacter) {
  DiagnosticEngine diags;
  test::parse_text("x = \x1b + \x07\n", diags);
  ASSERT_GE(diags.diagnostics().size(), 2u) << test::messages(diags);
  EXPECT_EQ(diags.diagnostics()[0].message, "unexpected character '\\x1b'");
  std::string second = render_diagnostic(diags.diagnostics()[1]);
  EXPECT_EQ(second.find('\x1b'), std::string::npos);
  EXPECT_EQ(second.find('\x07'), std::string::npos);
  EXPECT_NE(second.find("    x = \\x1b + \\x07\n"
                        "               ^~~~\n"),
            std::string::npos)
      << second;
}

TEST(RenderDiagnostic, MultibyteCharactersTakeOneCaretColumn) {
  auto file = std::make_shared<const SourceFile>("t.ufn", "é = $\n");
  Diagnostic d{Severity::Error, SourceLocation{file.get(), 1, 6, 1}, "m"};
  EXPECT_NE(render_diagnostic(d).find("    é = $\n        ^\n"), std::string::npos) << render_diagnostic(d);
}

TEST(RenderDiagnostic, ALongLineShowsAWindowAroundTheColumn) {
  std::string text = std::string(5000, 'a') + "$" + std::string(5000, 'b') + "\n";
  auto file = std::make_shared<const SourceFile>("t.ufn", text);
  Diagnostic d{Severity::Error, SourceLocation{file.get(), 1, 5001, 1}, "m"};
  std::string rendered = render_diagnostic(d);
  EXPECT_LT(rendered.size(), 500u);
  std::string expected_line = "    ..." + std::string(80, 'a') + "$" + std::string(99, 'b') + "...\n";
  std::string expected_caret = "    " + std::string(83, ' ') + "^\n";
  EXPECT_NE(rendered.find(expected_line + expected_caret), std::string::npos) << rendered;
}

TEST(SourceText, NotUtf8IsOneErrorAtTheFirstBadByte) {
  DiagnosticEngine diags;
  test::parse_text("x = 1\ny = 'ok' \xff\xfe\xfd $ $ $\n", diags);
  ASSERT_EQ(diags.diagnostics().size(), 1u) << test::messages(diags);
  EXPECT_EQ(diags.diagnostics()[0].message, "source is not valid UTF-8 (byte 0xff)");
  EXPECT_EQ(diags.diagnostics()[0].loc.line, 2);
  EXPECT_EQ(diags.diagnostics()[0].loc.col, 10);
}

TEST(SourceText, NulByteIsOneLocatedError) {
  DiagnosticEngine diags;
  test::parse_text(std::string("x = 1\n  y\0 = 2\n", 15), diags);
  ASSERT_EQ(diags.diagnostics().size(), 1u) << test::messages(diags);
  EXPECT_EQ(diags.diagnostics()[0].message, "source contains a NUL byte");
  EXPECT_EQ(diags.diagnostics()[0].loc.line, 2);
  EXPECT_EQ(diags.diagnostics()[0].loc.col, 4);
}

TEST(SourceText, SurrogatesAndCodePointsPastUnicodeAreNotUtf8) {
  EXPECT_EQ(first_bad_source_byte("ok \xed\xa0\x80"), 3u);
  EXPECT_EQ(first_bad_source_byte("ok \xf4\x90\x80\x80"), 3u);
  EXPECT_EQ(first_bad_source_byte("ok \xf0\x9f\x98\x80 fine"), std::string::npos);
}

TEST(SourceText, LoneCarriageReturnEndsALineAsInTheLexer) {
  SourceFile file("t.ufn", "a\rb\r\nc\n");
  EXPECT_EQ(file.line_count(), 3);
  EXPECT_EQ(file.line_text(2), "b");
  EXPECT_EQ(file.line_col(2).line, 2);
  EXPECT_EQ(file.line_col(5).line, 3);
}

TEST(ClosestMatch, NeverSuggestsTheNameItself) {
  EXPECT_EQ(closest_match("vectorize", {"vectorize", "guvectorize"}), "guvectorize");
  EXPECT_EQ(closest_match("vectorize", {"vectorize"}), "");
}

}  // namespace
}  // namespace ufjit
