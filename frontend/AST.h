// The untyped syntax tree of a ufjit source, as the parser builds it.
//
// It mirrors Python's `ast` module for the subset of LANGUAGE.md, so that a
// reader who knows Python recognises every node. Nodes are owned by unique_ptr;
// each carries the SourceLocation of its first token. A node kind enum plus
// `isa<T>()` / `as<T>()` (Toy-style classof) replaces RTTI.
//
// Constructs outside the subset (lambda, comprehensions, try, with, ...) are
// rejected by the parser with a diagnostic that names them; they never reach
// this tree. Lists, subscripts and string literals do appear, since decorators
// and signatures use them; the typer rejects them inside function bodies.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/Diagnostics.h"

namespace ufjit::ast {

// ---------------------------------------------------------------- expressions

#define UFJIT_FOR_EACH_AST_EXPR(X) \
  X(IntLit)                        \
  X(FloatLit)                      \
  X(ImagLit)                       \
  X(BoolLit)                       \
  X(NoneLit)                       \
  X(StrLit)                        \
  X(Name)                          \
  X(Attribute)                     \
  X(Call)                          \
  X(BinOp)                         \
  X(UnaryOp)                       \
  X(BoolOp)                        \
  X(Compare)                       \
  X(IfExp)                         \
  X(Tuple)                         \
  X(List)                          \
  X(Subscript)                     \
  X(Slice)

enum class ExprKind : uint8_t {
#define UFJIT_AST_ENUM(name) name,
  UFJIT_FOR_EACH_AST_EXPR(UFJIT_AST_ENUM)
#undef UFJIT_AST_ENUM
};

/// What expressions and statements share: a kind, the location of the first
/// token, and Toy-style checked downcasts (`as<T>()` is null for another kind).
template <typename Kind>
struct Node {
  explicit Node(Kind k, SourceLocation l) : kind(k), loc(l) {}
  virtual ~Node() = default;
  const Kind kind;
  SourceLocation loc;

  template <typename T>
  bool isa() const { return kind == T::kKind; }
  template <typename T>
  const T *as() const { return isa<T>() ? static_cast<const T *>(this) : nullptr; }
  template <typename T>
  T *as() { return isa<T>() ? static_cast<T *>(this) : nullptr; }
};

struct Expr : Node<ExprKind> {
  explicit Expr(ExprKind k, SourceLocation l) : Node(k, l) {}
};
using ExprPtr = std::unique_ptr<Expr>;

#define UFJIT_AST_NODE(Base, Name) \
  static constexpr Base##Kind kKind = Base##Kind::Name;

/// An integer literal in any base. Python ints are unbounded: values that do
/// not fit in 64 bits set `overflow` (the typer reports them).
struct IntLit : Expr {
  UFJIT_AST_NODE(Expr, IntLit)
  explicit IntLit(SourceLocation l) : Expr(kKind, l) {}
  uint64_t value = 0;  // magnitude; a leading '-' is a UnaryOp
  bool overflow = false;
};

struct FloatLit : Expr {
  UFJIT_AST_NODE(Expr, FloatLit)
  explicit FloatLit(SourceLocation l) : Expr(kKind, l) {}
  double value = 0.0;
};

/// `2.5j`: a purely imaginary literal.
struct ImagLit : Expr {
  UFJIT_AST_NODE(Expr, ImagLit)
  explicit ImagLit(SourceLocation l) : Expr(kKind, l) {}
  double imag = 0.0;
};

struct BoolLit : Expr {
  UFJIT_AST_NODE(Expr, BoolLit)
  explicit BoolLit(SourceLocation l) : Expr(kKind, l) {}
  bool value = false;
};

struct NoneLit : Expr {
  UFJIT_AST_NODE(Expr, NoneLit)
  explicit NoneLit(SourceLocation l) : Expr(kKind, l) {}
};

/// A string literal (adjacent literals already concatenated), escapes decoded.
struct StrLit : Expr {
  UFJIT_AST_NODE(Expr, StrLit)
  explicit StrLit(SourceLocation l) : Expr(kKind, l) {}
  std::string value;
  /// Location of the first character inside the quotes, so that errors in a
  /// signature string can point at a column within it.
  SourceLocation content_loc;
};

struct Name : Expr {
  UFJIT_AST_NODE(Expr, Name)
  explicit Name(SourceLocation l) : Expr(kKind, l) {}
  std::string id;
};

/// `value.attr`, e.g. `math.exp`, `np.float32`, `z.real`.
struct Attribute : Expr {
  UFJIT_AST_NODE(Expr, Attribute)
  explicit Attribute(SourceLocation l) : Expr(kKind, l) {}
  ExprPtr value;
  std::string attr;
  SourceLocation attr_loc;
};

struct Keyword {
  std::string name;
  SourceLocation loc;
  ExprPtr value;
};

struct Call : Expr {
  UFJIT_AST_NODE(Expr, Call)
  explicit Call(SourceLocation l) : Expr(kKind, l) {}
  ExprPtr func;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  /// Indices of the args written `*arg` (a tuple unpacked into arguments).
  std::vector<std::size_t> starred;
  bool is_starred(std::size_t i) const {
    for (std::size_t k : starred) {
      if (k == i) return true;
    }
    return false;
  }
};

enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, LShift, RShift, BitOr, BitXor, BitAnd, MatMul
};
/// The operator as written in Python: "+", "//", "**", "@", ...
const char *binary_op_spelling(BinaryOp op);

struct BinOp : Expr {
  UFJIT_AST_NODE(Expr, BinOp)
  explicit BinOp(SourceLocation l) : Expr(kKind, l) {}
  BinaryOp op = BinaryOp::Add;
  SourceLocation op_loc;
  ExprPtr left, right;
};

enum class UnaryOpKind : uint8_t { UAdd, USub, Invert, Not };
/// The operator as written in Python: "+", "-", "~", "not".
const char *unary_op_spelling(UnaryOpKind op);

struct UnaryOp : Expr {
  UFJIT_AST_NODE(Expr, UnaryOp)
  explicit UnaryOp(SourceLocation l) : Expr(kKind, l) {}
  UnaryOpKind op = UnaryOpKind::USub;
  ExprPtr operand;
};

enum class BoolOpKind : uint8_t { And, Or };

/// `a and b and c`: Python keeps the chain flat.
struct BoolOp : Expr {
  UFJIT_AST_NODE(Expr, BoolOp)
  explicit BoolOp(SourceLocation l) : Expr(kKind, l) {}
  BoolOpKind op = BoolOpKind::And;
  std::vector<ExprPtr> values;
};

enum class CmpOp : uint8_t { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };
const char *cmp_op_spelling(CmpOp op);

/// `a < b <= c`: left, then one (op, comparator) pair per link of the chain.
struct Compare : Expr {
  UFJIT_AST_NODE(Expr, Compare)
  explicit Compare(SourceLocation l) : Expr(kKind, l) {}
  ExprPtr left;
  std::vector<CmpOp> ops;
  std::vector<SourceLocation> op_locs;
  std::vector<ExprPtr> comparators;
};

/// `body if test else orelse`
struct IfExp : Expr {
  UFJIT_AST_NODE(Expr, IfExp)
  explicit IfExp(SourceLocation l) : Expr(kKind, l) {}
  ExprPtr test, body, orelse;
};

struct Tuple : Expr {
  UFJIT_AST_NODE(Expr, Tuple)
  explicit Tuple(SourceLocation l) : Expr(kKind, l) {}
  std::vector<ExprPtr> elts;
};

struct List : Expr {
  UFJIT_AST_NODE(Expr, List)
  explicit List(SourceLocation l) : Expr(kKind, l) {}
  std::vector<ExprPtr> elts;
};

/// `value[index]`; `a[i, j]` has a Tuple index, `a[()]` an empty one.
struct Subscript : Expr {
  UFJIT_AST_NODE(Expr, Subscript)
  explicit Subscript(SourceLocation l) : Expr(kKind, l) {}
  ExprPtr value;
  ExprPtr index;
};

/// `lower:upper:step` inside a subscript (`a[1:n]`, `a[:, j]`, `a[::-1]`);
/// each part may be absent (null). Appears only as a subscript's index or
/// an element of its index tuple.
struct Slice : Expr {
  UFJIT_AST_NODE(Expr, Slice)
  explicit Slice(SourceLocation l) : Expr(kKind, l) {}
  ExprPtr lower;
  ExprPtr upper;
  ExprPtr step;
};

// ----------------------------------------------------------------- statements

#define UFJIT_FOR_EACH_AST_STMT(X) \
  X(ExprStmt)                      \
  X(Assign)                        \
  X(AugAssign)                     \
  X(If)                            \
  X(While)                         \
  X(For)                           \
  X(Break)                         \
  X(Continue)                      \
  X(Return)                        \
  X(Pass)                          \
  X(Raise)                         \
  X(FunctionDef)                   \
  X(Import)                        \
  X(ImportFrom)

enum class StmtKind : uint8_t {
#define UFJIT_AST_ENUM(name) name,
  UFJIT_FOR_EACH_AST_STMT(UFJIT_AST_ENUM)
#undef UFJIT_AST_ENUM
};

struct Stmt : Node<StmtKind> {
  explicit Stmt(StmtKind k, SourceLocation l) : Node(k, l) {}
};
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct ExprStmt : Stmt {
  UFJIT_AST_NODE(Stmt, ExprStmt)
  explicit ExprStmt(SourceLocation l) : Stmt(kKind, l) {}
  ExprPtr value;
};

/// `a = b = value`: several targets (Name, Tuple of targets, or Subscript for
/// gufunc outputs).
struct Assign : Stmt {
  UFJIT_AST_NODE(Stmt, Assign)
  explicit Assign(SourceLocation l) : Stmt(kKind, l) {}
  std::vector<ExprPtr> targets;
  ExprPtr value;
};

struct AugAssign : Stmt {
  UFJIT_AST_NODE(Stmt, AugAssign)
  explicit AugAssign(SourceLocation l) : Stmt(kKind, l) {}
  ExprPtr target;
  BinaryOp op = BinaryOp::Add;
  SourceLocation op_loc;
  ExprPtr value;
};

/// `elif` chains are nested Ifs in `orelse`, as in Python's ast.
struct If : Stmt {
  UFJIT_AST_NODE(Stmt, If)
  explicit If(SourceLocation l) : Stmt(kKind, l) {}
  ExprPtr test;
  Body body;
  Body orelse;
};

struct While : Stmt {
  UFJIT_AST_NODE(Stmt, While)
  explicit While(SourceLocation l) : Stmt(kKind, l) {}
  ExprPtr test;
  Body body;
  Body orelse;  // `else:` run when the loop ends without `break`
};

/// `for target in iter:`; the typer accepts only `range(...)` iterables.
struct For : Stmt {
  UFJIT_AST_NODE(Stmt, For)
  explicit For(SourceLocation l) : Stmt(kKind, l) {}
  ExprPtr target;
  ExprPtr iter;
  Body body;
  Body orelse;  // `else:` run when the loop ends without `break`
};

struct Break : Stmt {
  UFJIT_AST_NODE(Stmt, Break)
  explicit Break(SourceLocation l) : Stmt(kKind, l) {}
};

struct Continue : Stmt {
  UFJIT_AST_NODE(Stmt, Continue)
  explicit Continue(SourceLocation l) : Stmt(kKind, l) {}
};

struct Return : Stmt {
  UFJIT_AST_NODE(Stmt, Return)
  explicit Return(SourceLocation l) : Stmt(kKind, l) {}
  ExprPtr value;  // null for a bare `return`
};

struct Pass : Stmt {
  UFJIT_AST_NODE(Stmt, Pass)
  explicit Pass(SourceLocation l) : Stmt(kKind, l) {}
};

/// `raise Name` or `raise Name(args)`: `exc` is the Name or the Call
/// (null for a bare re-raise `raise`, which the typer rejects).
struct Raise : Stmt {
  UFJIT_AST_NODE(Stmt, Raise)
  explicit Raise(SourceLocation l) : Stmt(kKind, l) {}
  ExprPtr exc;
};

struct Param {
  std::string name;
  SourceLocation loc;
};

/// A decorator: `@name`, `@a.b`, or a call `@vectorize([...], target="cuda")`.
struct Decorator {
  SourceLocation loc;
  ExprPtr expr;
};

struct FunctionDef : Stmt {
  UFJIT_AST_NODE(Stmt, FunctionDef)
  explicit FunctionDef(SourceLocation l) : Stmt(kKind, l) {}
  std::string name;
  SourceLocation name_loc;
  std::vector<Param> params;
  std::vector<Decorator> decorators;
  Body body;  // the docstring, if any, is removed from the body
  std::optional<std::string> docstring;
};

struct ImportAlias {
  std::string name;    // dotted: "numba.cuda"
  std::string asname;  // empty when there is no `as`
  SourceLocation loc;
};

/// `import math`, `import numpy as np`
struct Import : Stmt {
  UFJIT_AST_NODE(Stmt, Import)
  explicit Import(SourceLocation l) : Stmt(kKind, l) {}
  std::vector<ImportAlias> names;
};

/// `from math import exp, sqrt as s`
struct ImportFrom : Stmt {
  UFJIT_AST_NODE(Stmt, ImportFrom)
  explicit ImportFrom(SourceLocation l) : Stmt(kKind, l) {}
  std::string module;
  std::vector<ImportAlias> names;
};

#undef UFJIT_AST_NODE

/// A parsed source: its top-level statements in order. Owns the SourceFile.
struct Module {
  Module() = default;
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  /// Frees the tree on the compile thread (support/LargeStack.h): a tree may
  /// be as deep as the parser's limits allow, and its nodes free their
  /// children recursively.
  ~Module();
  std::shared_ptr<const SourceFile> file;
  Body body;
};

/// Python-like rendering of an expression, for messages ("cannot call 'x.y'").
std::string to_source(const Expr &e);
/// The shortest decimal text that reads back as `v` ("0.1", "1", "inf").
std::string shortest_repr(double v);
/// Python's repr of a float: shortest_repr with ".0" when it would read as an int.
std::string float_repr(double v);
/// Python's repr of a string: single quotes, escapes for control characters.
std::string string_repr(const std::string &value);

}  // namespace ufjit::ast
