#include <gtest/gtest.h>

#include "frontend/Signature.h"
#include "frontend_test_util.h"

namespace ufjit::frontend {
namespace {

/// A location as if the signature string started at line 3, column 10.
SourceLocation start_loc(const SourceFile &file) { return SourceLocation{&file, 3, 10, 1}; }

struct Parsed {
  SourceFile file{"sig.ufn", ""};
  DiagnosticEngine diags;
  std::optional<Signature> sig;
};

std::unique_ptr<Parsed> parse(const std::string &text) {
  auto out = std::make_unique<Parsed>();
  out->sig = parse_signature(text, start_loc(out->file), out->diags);
  return out;
}

TEST(Signature, EveryAliasOfTheTypeTable) {
  struct Case {
    const char *name;
    DType dtype;
  } cases[] = {
      {"bool", DType::Bool},         {"b1", DType::Bool},           {"bool_", DType::Bool},
      {"int8", DType::Int8},         {"i1", DType::Int8},           {"int16", DType::Int16},
      {"i2", DType::Int16},          {"int32", DType::Int32},       {"i4", DType::Int32},
      {"int64", DType::Int64},       {"i8", DType::Int64},          {"intp", DType::Int64},
      {"int_", DType::Int64},        {"uint8", DType::UInt8},       {"u1", DType::UInt8},
      {"uint16", DType::UInt16},     {"u2", DType::UInt16},         {"uint32", DType::UInt32},
      {"u4", DType::UInt32},         {"uint64", DType::UInt64},     {"u8", DType::UInt64},
      {"uintp", DType::UInt64},      {"float16", DType::Float16},   {"f2", DType::Float16},
      {"half", DType::Float16},      {"float32", DType::Float32},   {"f4", DType::Float32},
      {"single", DType::Float32},    {"float64", DType::Float64},   {"f8", DType::Float64},
      {"double", DType::Float64},    {"float_", DType::Float64},    {"complex64", DType::Complex64},
      {"c8", DType::Complex64},      {"complex128", DType::Complex128}, {"c16", DType::Complex128},
  };
  for (const auto &c : cases) {
    for (std::string prefix : {"", "np.", "numpy.", "numba."}) {
      std::string type = prefix + c.name;
      auto p = parse(type + "(" + type + ", " + type + ")");
      ASSERT_TRUE(p->sig.has_value()) << type << "\n" << test::messages(p->diags);
      EXPECT_EQ(p->sig->ret.dtype, c.dtype) << type;
      ASSERT_EQ(p->sig->args.size(), 2u);
      EXPECT_EQ(p->sig->args[1].dtype, c.dtype) << type;
      EXPECT_EQ(p->sig->args[1].ndim, 0);
    }
    EXPECT_EQ(dtype_from_name(c.name), c.dtype) << c.name;
  }
}

TEST(DType, NamesSizesAndKinds) {
  EXPECT_EQ(dtype_name(DType::Float32), "float32");
  EXPECT_EQ(dtype_name(DType::Complex128), "complex128");
  EXPECT_EQ(dtype_size(DType::Bool), 1u);
  EXPECT_EQ(dtype_size(DType::Float16), 2u);
  EXPECT_EQ(dtype_size(DType::Complex64), 8u);
  EXPECT_EQ(dtype_size(DType::Complex128), 16u);
  EXPECT_EQ(dtype_kind(DType::UInt16), 'u');
  EXPECT_EQ(dtype_kind(DType::Int8), 'i');
  EXPECT_EQ(dtype_kind(DType::Bool), 'b');
  EXPECT_EQ(dtype_kind(DType::Float64), 'f');
  EXPECT_EQ(dtype_kind(DType::Complex64), 'c');
  EXPECT_FALSE(dtype_from_name("float").has_value());
  EXPECT_FALSE(dtype_from_name("flaot32").has_value());
  // Every canonical name parses back to its dtype.
  for (int i = 0; i < kNumDTypes; ++i) {
    auto t = static_cast<DType>(i);
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t) << dtype_name(t);
  }
}

TEST(Signature, CanonicalTextRoundTrips) {
  auto p = parse("  f4 ( double,i8,  c8 ) ");
  ASSERT_TRUE(p->sig.has_value()) << test::messages(p->diags);
  EXPECT_EQ(p->sig->str(), "float32(float64, int64, complex64)");
  auto again = parse(p->sig->str());
  ASSERT_TRUE(again->sig.has_value());
  EXPECT_EQ(*again->sig, *p->sig);
}

TEST(Signature, NoArguments) {
  auto p = parse("float64()");
  ASSERT_TRUE(p->sig.has_value());
  EXPECT_TRUE(p->sig->args.empty());
}

TEST(Signature, ArrayTypesAndVoid) {
  auto p = parse("void(float32[:], float64[:, :], float32[::1], int32[:, ::1])");
  ASSERT_TRUE(p->sig.has_value()) << test::messages(p->diags);
  EXPECT_TRUE(p->sig->ret.is_void);
  ASSERT_EQ(p->sig->args.size(), 4u);
  EXPECT_EQ(p->sig->args[0].ndim, 1);
  EXPECT_EQ(p->sig->args[1].ndim, 2);
  EXPECT_EQ(p->sig->args[1].dtype, DType::Float64);
  EXPECT_EQ(p->sig->args[2].ndim, 1);
  EXPECT_EQ(p->sig->args[3].ndim, 2);
  EXPECT_EQ(p->sig->str(), "void(float32[:], float64[:, :], float32[:], int32[:, :])");
}

TEST(Signature, ArgumentLocationsPointIntoTheString) {
  auto p = parse("float32(float32, int64)");
  ASSERT_TRUE(p->sig.has_value());
  EXPECT_EQ(p->sig->ret.loc.col, 10);
  EXPECT_EQ(p->sig->args[1].loc.col, 10 + 17);
  EXPECT_EQ(p->sig->args[1].loc.length, 5);
  EXPECT_EQ(p->sig->args[1].loc.line, 3);
}

TEST(Signature, UnknownTypeSuggestsTheClosestAndPointsIntoTheString) {
  struct Case {
    const char *text;
    const char *message;
    int offset;
  } cases[] = {
      {"flaot32(float32)", "unknown type 'flaot32'; did you mean 'float32'?", 0},
      {"float32(float32, flaot64)", "unknown type 'flaot64'; did you mean 'float64'?", 17},
      {"float32(np.flot32)", "unknown type 'np.flot32'; did you mean 'np.float32'?", 8},
      {"float32(banana)", "unknown type 'banana'", 8},
  };
  for (const auto &c : cases) {
    auto p = parse(c.text);
    EXPECT_FALSE(p->sig.has_value()) << c.text;
    ASSERT_EQ(p->diags.error_count(), 1) << c.text;
    const Diagnostic &d = p->diags.diagnostics()[0];
    EXPECT_EQ(d.message, c.message) << c.text;
    EXPECT_EQ(d.loc.col, 10 + c.offset) << c.text;
    EXPECT_EQ(d.loc.line, 3) << c.text;
  }
}

TEST(Signature, MalformedSignaturesAreErrorsThatQuoteThem) {
  struct Case {
    const char *text;
    const char *message;
    int offset;
  } cases[] = {
      {"float32", "expected '(' after the return type in signature 'float32', found end of signature", 7},
      {"float32(float32", "expected ')' to close argument list in signature 'float32(float32', found end of signature", 15},
      {"float32(float32 float32)", "expected ')' to close argument list in signature 'float32(float32 float32)', found 'f'", 16},
      {"float32(void)", "'void' is only valid as a return type, in signature 'float32(void)'", 8},
      {"float32(float32) x", "unexpected 'x' after the end of signature 'float32(float32) x'", 17},
      {"", "expected a type in signature '', found end of signature", 0},
      {"(float32", "expected ')' to close argument list in signature '(float32', found end of signature", 8},
      {"(float32[:]) x", "unexpected 'x' after the end of signature '(float32[:]) x'", 13},
      {"f4[:], f4[:] f4[:]", "expected ',' between argument types in signature 'f4[:], f4[:] f4[:]', found 'f'", 13},
      {"f4[:, ::2]", "expected '1' after '::' in signature 'f4[:, ::2]', found '2'", 8},
      {"float32(float32[1])", "expected ':' for an array dimension in signature 'float32(float32[1])', found '1'", 16},
      {"void[:]()", "'void' cannot be an array type in signature 'void[:]()'", 4},
  };
  for (const auto &c : cases) {
    auto p = parse(c.text);
    EXPECT_FALSE(p->sig.has_value()) << c.text;
    ASSERT_EQ(p->diags.error_count(), 1) << c.text;
    EXPECT_EQ(p->diags.diagnostics()[0].message, c.message) << c.text;
    EXPECT_EQ(p->diags.diagnostics()[0].loc.col, 10 + c.offset) << c.text;
  }
}

TEST(Signature, NumbaFormsWithoutAReturnTypeAreVoid) {
  struct Case {
    const char *text;
    const char *canonical;
  } cases[] = {
      {"(f8[:], f8[:])", "void(float64[:], float64[:])"},
      {"float32[:,:], float32[:,:]", "void(float32[:, :], float32[:, :])"},
      {"  float32[:, ::1] ,float32[::1, :]  ", "void(float32[:, :], float32[:, :])"},
      {"f4[:]", "void(float32[:])"},
      {"i4, f8[:]", "void(int32, float64[:])"},
      {"()", "void()"},
      {"void(i8[:], u2, c16[:, :, :])", "void(int64[:], uint16, complex128[:, :, :])"},
  };
  for (const auto &c : cases) {
    auto p = parse(c.text);
    ASSERT_TRUE(p->sig.has_value()) << c.text << "\n" << test::messages(p->diags);
    EXPECT_EQ(p->sig->str(), c.canonical) << c.text;
    EXPECT_TRUE(p->sig->ret.is_void) << c.text;
    bool bare = std::string(c.text).rfind("void(", 0) != 0;
    EXPECT_EQ(p->sig->has_return_type, !bare) << c.text;
  }
}

struct ParsedLayout {
  SourceFile file{"layout.ufn", ""};
  DiagnosticEngine diags;
  std::optional<GufuncLayout> layout;
};

std::unique_ptr<ParsedLayout> layout(const std::string &text) {
  auto out = std::make_unique<ParsedLayout>();
  out->layout = parse_gufunc_layout(text, start_loc(out->file), out->diags);
  return out;
}

TEST(GufuncLayout, InputsOutputsAndZeroDimensionalCores) {
  auto p = layout(" ( m , n ),(n,p)  -> (m,p)");
  ASSERT_TRUE(p->layout) << test::messages(p->diags);
  ASSERT_EQ(p->layout->inputs.size(), 2u);
  ASSERT_EQ(p->layout->outputs.size(), 1u);
  EXPECT_EQ(p->layout->inputs[1].dims, (std::vector<std::string>{"n", "p"}));
  EXPECT_EQ(p->layout->str(), "(m,n),(n,p)->(m,p)");
  EXPECT_EQ(p->layout->inputs[1].loc.col, 10 + 11);
  EXPECT_EQ(p->layout->inputs[1].loc.length, 5);

  auto q = layout("(n),()->(n),()");
  ASSERT_TRUE(q->layout) << test::messages(q->diags);
  EXPECT_EQ(q->layout->operand_count(), 4u);
  EXPECT_TRUE(q->layout->inputs[1].dims.empty());
  EXPECT_TRUE(q->layout->operand(3).dims.empty());
  EXPECT_EQ(q->layout->operand(2).dims, std::vector<std::string>{"n"});

  auto r = layout("()->()");
  ASSERT_TRUE(r->layout);
  EXPECT_EQ(r->layout->str(), "()->()");
}

TEST(GufuncLayout, MalformedLayoutsPointIntoTheString) {
  struct Case {
    const char *text;
    const char *message;
    int offset;
  } cases[] = {
      {"(n)(n)", "expected '->' in layout '(n)(n)', found '('", 3},
      {"(n),(n)", "expected '->' in layout '(n),(n)', found end of layout", 7},
      {"(n)->", "expected '(' in layout '(n)->', found end of layout", 5},
      {"(n,)->(n)", "expected a dimension name in layout '(n,)->(n)', found ')'", 3},
      {"(n)->(n)->(n)", "expected end of layout in layout '(n)->(n)->(n)', found '-'", 8},
      {"n->n", "expected '(' in layout 'n->n', found 'n'", 0},
  };
  for (const auto &c : cases) {
    auto p = layout(c.text);
    EXPECT_FALSE(p->layout.has_value()) << c.text;
    ASSERT_EQ(p->diags.error_count(), 1) << c.text;
    EXPECT_EQ(p->diags.diagnostics()[0].message, c.message) << c.text;
    EXPECT_EQ(p->diags.diagnostics()[0].loc.col, 10 + c.offset) << c.text;
  }
}

TEST(GufuncLayout, SignaturesMustMatchTheCoreDimensions) {
  struct Case {
    const char *sig;
    const char *layout;
    const char *message;  // nullptr: accepted
    int offset;
  } cases[] = {
      {"void(f4[:,:], f4[:,:], f4[:,:])", "(m,n),(n,p)->(m,p)", nullptr, 0},
      {"void(f8[:], f8, f8[:])", "(n),()->(n)", nullptr, 0},
      {"void(f8[:], f8[:], f8[:])", "(n),()->(n)", nullptr, 0},  // a () input as a 1-d array
      {"void(f8[:], f8[:])", "(n)->()", nullptr, 0},            // out[0] = v
      {"void(f4[:], f4[:,:], f4[:,:])", "(m,n),(n,p)->(m,p)",
       "argument type 'float32[:]' has 1 dimension but input 1 of layout '(m,n),(n,p)->(m,p)' is '(m,n)' (2 "
       "dimensions)",
       5},
      {"void(f4[:,:], f4, f4[:,:])", "(m,n),(n,p)->(m,p)",
       "argument type 'float32' is a scalar but input 2 of layout '(m,n),(n,p)->(m,p)' is '(n,p)' (2 dimensions)",
       14},
      {"void(f8[:], f8)", "(n)->()",
       "output 'float64' of signature 'void(float64[:], float64)' must be an array, 'float64[:]', written as "
       "'out[0] = v' for the 0-d core '()' of layout '(n)->()'",
       12},
      {"void(f8[:], f8[:,:])", "(n)->()",
       "argument type 'float64[:, :]' has 2 dimensions but output 1 of layout '(n)->()' is '()' (a scalar, or a "
       "1-d array of one element)",
       12},
      {"void(f8[:], f8[:])", "(n),()->(n)",
       "signature 'void(float64[:], float64[:])' has 2 arguments but layout '(n),()->(n)' has 3 operands (2 in, 1 "
       "out)",
       0},
  };
  for (const auto &c : cases) {
    auto p = parse(c.sig);
    ASSERT_TRUE(p->sig) << c.sig;
    auto l = layout(c.layout);
    ASSERT_TRUE(l->layout) << c.layout;
    DiagnosticEngine diags;
    bool ok = check_gufunc_signature_layout(*p->sig, *l->layout, diags);
    if (c.message == nullptr) {
      EXPECT_TRUE(ok) << c.sig << " " << c.layout << "\n" << test::messages(diags);
      continue;
    }
    EXPECT_FALSE(ok) << c.sig;
    ASSERT_EQ(diags.error_count(), 1) << c.sig << "\n" << test::messages(diags);
    EXPECT_EQ(diags.diagnostics()[0].message, c.message) << c.sig;
    EXPECT_EQ(diags.diagnostics()[0].loc.col, 10 + c.offset) << c.sig;
  }
}

}  // namespace
}  // namespace ufjit::frontend
