// Duplicate or ambiguous signatures are one located diagnostic on every path
// (decorator or API), never an InternalError from two entries of one name.
#include <gtest/gtest.h>

#include "ir_test_util.h"

namespace ufjit::irtest {
namespace {

const char *kBody = "def k(x):\n    return x\n";

TEST(SignatureConflict, DuplicateApiSignatureIsAnErrorAtTheSignatureString) {
  auto t = type_source(kBody, {"float64(float64)", "f8(f8)"});
  EXPECT_FALSE(t->program);
  ASSERT_EQ(t->diags.diagnostics().size(), 2u) << t->messages;
  const Diagnostic &d = t->diags.diagnostics()[0];
  EXPECT_EQ(d.message, "duplicate signature 'float64(float64)'");
  ASSERT_NE(d.loc.file, nullptr);
  EXPECT_EQ(d.loc.file->name(), "<signature>");
  EXPECT_EQ(d.loc.file->text(), "f8(f8)");
  EXPECT_EQ(t->diags.diagnostics()[1].severity, Severity::Note);
}

TEST(SignatureConflict, SameInputsWithAnotherReturnTypeIsAnError) {
  auto t = type_source(kBody, {"float64(float64)", "float32(float64)"});
  EXPECT_FALSE(t->program);
  EXPECT_TRUE(contains(t->messages, "has the same argument types as 'float64(float64)'")) << t->messages;
}

TEST(SignatureConflict, DecoratorDuplicateIsTheOnlyError) {
  auto t = type_source("@vectorize(['int32(int32)', 'float64(float64)', 'int32(int32)'])\n" + std::string(kBody));
  EXPECT_FALSE(t->program);
  EXPECT_EQ(t->diags.error_count(), 1) << t->messages;
  EXPECT_TRUE(contains(t->messages, "1:50: duplicate signature 'int32(int32)'")) << t->messages;
}

TEST(SignatureConflict, DistinctInputsStillCompile) {
  auto t = type_source(kBody, {"float64(float64)", "float32(float32)", "int64(int64)"});
  ASSERT_TRUE(t->program) << t->messages;
  EXPECT_EQ(t->program->ufuncs.at(0).modules.size(), 3u);
}

}  // namespace
}  // namespace ufjit::irtest
