#include <gtest/gtest.h>

#include "support/Diagnostics.h"
#include "frontend_test_util.h"

namespace ufjit {
namespace {

TEST(SourceFile, LinesWithoutNewlinesAndCarriageReturns) {
  SourceFile file("f.ufn", "first\r\nsecond\nthird");
  EXPECT_EQ(file.line_count(), 3);
  EXPECT_EQ(file.line_text(1), "first");
  EXPECT_EQ(file.line_text(2), "second");
  EXPECT_EQ(file.line_text(3), "third");
  EXPECT_EQ(file.line_text(0), "");
  EXPECT_EQ(file.line_text(4), "");
}

TEST(SourceFile, TrailingNewlineDoesNotAddALine) {
  SourceFile file("f.ufn", "a\nb\n");
  EXPECT_EQ(file.line_count(), 2);
}

TEST(RenderDiagnostic, GccStyleWithSourceLineAndCaretUnderTheColumn) {
  SourceFile file("gauss.ufn", "x = 1\n    return math.exq(-0.5)\n");
  Diagnostic d{Severity::Error, SourceLocation{&file, 2, 17, 3},
               "unknown function 'math.exq'; did you mean 'math.exp'?"};
  std::string expected =
      "gauss.ufn:2:17: error: unknown function 'math.exq'; did you mean 'math.exp'?\n"
      "        return math.exq(-0.5)\n"
      "                    ^~~\n";
  EXPECT_EQ(render_diagnostic(d), expected);
}

TEST(RenderDiagnostic, CaretLineCopiesTabsSoItLinesUp) {
  SourceFile file("t.ufn", "\tx = $\n");
  Diagnostic d{Severity::Error, SourceLocation{&file, 1, 6, 1}, "unexpected character '$'"};
  EXPECT_EQ(render_diagnostic(d),
            "t.ufn:1:6: error: unexpected character '$'\n"
            "    \tx = $\n"
            "    \t    ^\n");
}

TEST(RenderDiagnostic, UnderlineIsClippedToTheLine) {
  SourceFile file("t.ufn", "abc\n");
  Diagnostic d{Severity::Warning, SourceLocation{&file, 1, 2, 50}, "w"};
  EXPECT_EQ(render_diagnostic(d), "t.ufn:1:2: warning: w\n    abc\n     ^~\n");
}

TEST(RenderDiagnostic, ColumnPastTheEndPointsJustAfterTheLine) {
  SourceFile file("t.ufn", "f(x\n");
  Diagnostic d{Severity::Error, SourceLocation{&file, 1, 4, 1}, "expected ')'"};
  EXPECT_EQ(render_diagnostic(d), "t.ufn:1:4: error: expected ')'\n    f(x\n       ^\n");
}

TEST(RenderDiagnostic, NoLocationGivesJustTheMessage) {
  Diagnostic d{Severity::Note, SourceLocation{}, "just a note"};
  EXPECT_EQ(render_diagnostic(d), "note: just a note\n");
}

TEST(DiagnosticEngine, CountsOnlyErrors) {
  DiagnosticEngine diags;
  SourceLocation none;
  diags.warning(none, "w");
  diags.note(none, "n");
  EXPECT_FALSE(diags.has_errors());
  diags.error(none, "e");
  EXPECT_TRUE(diags.has_errors());
  EXPECT_EQ(diags.error_count(), 1);
  EXPECT_EQ(diags.diagnostics().size(), 3u);
}

TEST(DiagnosticEngine, ThrowIfErrorsCarriesEveryRenderedDiagnostic) {
  auto file = test::make_file("a = 1\nb = 2\n", "x.ufn");
  DiagnosticEngine diags;
  diags.retain(file);
  EXPECT_NO_THROW(diags.throw_if_errors());
  diags.error(SourceLocation{file.get(), 1, 1, 1}, "first");
  diags.error(SourceLocation{file.get(), 2, 5, 1}, "second");
  try {
    diags.throw_if_errors();
    FAIL() << "no CompileError thrown";
  } catch (const CompileError &e) {
    std::string expected =
        "x.ufn:1:1: error: first\n    a = 1\n    ^\n"
        "x.ufn:2:5: error: second\n    b = 2\n        ^\n";
    EXPECT_EQ(std::string(e.what()), expected);
    ASSERT_EQ(e.diagnostics().size(), 2u);
    const DiagnosticMessage &m = e.diagnostics()[1];
    EXPECT_EQ(m.file, "x.ufn");
    EXPECT_EQ(m.line, 2);
    EXPECT_EQ(m.column, 5);
    EXPECT_EQ(m.severity, "error");
    EXPECT_EQ(m.message, "second");
    EXPECT_EQ(m.rendered, "x.ufn:2:5: error: second\n    b = 2\n        ^");
  }
}

TEST(ClosestMatch, FindsPlausibleTyposOnly) {
  std::vector<std::string> types = {"float32", "float64", "int32", "complex64"};
  EXPECT_EQ(closest_match("flaot32", types), "float32");
  EXPECT_EQ(closest_match("float46", types), "float64");
  EXPECT_EQ(closest_match("int23", types), "int32");
  EXPECT_EQ(closest_match("banana", types), "");
  EXPECT_EQ(closest_match("", types), "");
  EXPECT_EQ(closest_match("exq", {"exp", "log", "sin"}), "exp");
  EXPECT_EQ(closest_match("xy", {"ab"}), "");
}

}  // namespace
}  // namespace ufjit
