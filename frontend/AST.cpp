// Operator spellings and to_source: expressions back to Python text, with
// only the parentheses that Python's precedence needs.
#include "frontend/AST.h"

#include <charconv>
#include <cstdio>

#include "support/EnumNames.h"
#include "support/LargeStack.h"

namespace ufjit::ast {

const char *binary_op_spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::FloorDiv: return "//";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
    case BinaryOp::LShift: return "<<";
    case BinaryOp::RShift: return ">>";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::BitXor: return "^";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::MatMul: return "@";
  }
  return "?";
}

const char *unary_op_spelling(UnaryOpKind op) {
  static constexpr const char *kSpellings[] = {"+", "-", "~", "not"};  // indexed by UnaryOpKind
  return support::indexed_name(op, kSpellings, "?");
}

const char *cmp_op_spelling(CmpOp op) {
  switch (op) {
    case CmpOp::Eq: return "==";
    case CmpOp::NotEq: return "!=";
    case CmpOp::Lt: return "<";
    case CmpOp::LtE: return "<=";
    case CmpOp::Gt: return ">";
    case CmpOp::GtE: return ">=";
    case CmpOp::Is: return "is";
    case CmpOp::IsNot: return "is not";
    case CmpOp::In: return "in";
    case CmpOp::NotIn: return "not in";
  }
  return "?";
}

namespace {

// Python's precedence levels, loosest first.
enum Precedence : int {
  kTuple = 0,
  kIfExp = 1,
  kOr = 2,
  kAnd = 3,
  kNot = 4,
  kCompare = 5,
  kBitOr = 6,
  kBitXor = 7,
  kBitAnd = 8,
  kShift = 9,
  kArith = 10,
  kTerm = 11,
  kUnary = 12,
  kPower = 13,
  kPrimary = 14,
  kAtom = 15,
};

int binary_precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::BitOr: return kBitOr;
    case BinaryOp::BitXor: return kBitXor;
    case BinaryOp::BitAnd: return kBitAnd;
    case BinaryOp::LShift:
    case BinaryOp::RShift: return kShift;
    case BinaryOp::Add:
    case BinaryOp::Sub: return kArith;
    case BinaryOp::Pow: return kPower;
    default: return kTerm;
  }
}

int precedence(const Expr &e) {
  switch (e.kind) {
    case ExprKind::Tuple: return kTuple;
    case ExprKind::IfExp: return kIfExp;
    case ExprKind::BoolOp: return e.as<BoolOp>()->op == BoolOpKind::Or ? kOr : kAnd;
    case ExprKind::UnaryOp: return e.as<UnaryOp>()->op == UnaryOpKind::Not ? kNot : kUnary;
    case ExprKind::Compare: return kCompare;
    case ExprKind::BinOp: return binary_precedence(e.as<BinOp>()->op);
    case ExprKind::Call:
    case ExprKind::Attribute:
    case ExprKind::Subscript: return kPrimary;
    default: return kAtom;
  }
}


void render(const Expr &e, int min_precedence, std::string &out);

void render_list(const std::vector<ExprPtr> &elts, std::string &out) {
  for (std::size_t i = 0; i < elts.size(); ++i) {
    if (i > 0) out += ", ";
    render(*elts[i], kIfExp, out);
  }
}

void render_node(const Call &c, std::string &out) {
  render(*c.func, kPrimary, out);
  out += "(";
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    if (i > 0) out += ", ";
    if (c.is_starred(i)) out += "*";
    render(*c.args[i], kIfExp, out);
  }
  for (std::size_t i = 0; i < c.keywords.size(); ++i) {
    if (i > 0 || !c.args.empty()) out += ", ";
    out += c.keywords[i].name + "=";
    render(*c.keywords[i].value, kIfExp, out);
  }
  out += ")";
}

void render_node(const BinOp &b, std::string &out) {
  int p = binary_precedence(b.op);
  bool power = b.op == BinaryOp::Pow;
  // `**` is right-associative and binds its exponent as a unary factor.
  render(*b.left, power ? kPrimary : p, out);
  out += std::string(" ") + binary_op_spelling(b.op) + " ";
  render(*b.right, power ? kUnary : p + 1, out);
}

void render_node(const UnaryOp &u, std::string &out) {
  out += unary_op_spelling(u.op);
  if (u.op == UnaryOpKind::Not) out += " ";
  render(*u.operand, u.op == UnaryOpKind::Not ? kNot : kUnary, out);
}

void render_node(const BoolOp &b, std::string &out) {
  int p = b.op == BoolOpKind::Or ? kOr : kAnd;
  for (std::size_t i = 0; i < b.values.size(); ++i) {
    if (i > 0) out += b.op == BoolOpKind::Or ? " or " : " and ";
    render(*b.values[i], p + 1, out);
  }
}

void render_node(const Compare &c, std::string &out) {
  render(*c.left, kCompare + 1, out);
  for (std::size_t i = 0; i < c.ops.size() && i < c.comparators.size(); ++i) {
    out += std::string(" ") + cmp_op_spelling(c.ops[i]) + " ";
    render(*c.comparators[i], kCompare + 1, out);
  }
}

void render_node(const IfExp &i, std::string &out) {
  render(*i.body, kOr, out);
  out += " if ";
  render(*i.test, kOr, out);
  out += " else ";
  render(*i.orelse, kIfExp, out);
}

void render_node(const Slice &s, std::string &out) {
  if (s.lower) render(*s.lower, kIfExp, out);
  out += ":";
  if (s.upper) render(*s.upper, kIfExp, out);
  if (s.step) {
    out += ":";
    render(*s.step, kIfExp, out);
  }
}

void render_node(const Subscript &s, std::string &out) {
  render(*s.value, kPrimary, out);
  out += "[";
  const auto *index_tuple = s.index->as<Tuple>();
  if (index_tuple != nullptr && !index_tuple->elts.empty()) {
    render_list(index_tuple->elts, out);
    if (index_tuple->elts.size() == 1) out += ",";
  } else {
    render(*s.index, kIfExp, out);
  }
  out += "]";
}

void render_node(const IntLit &i, std::string &out) {
  out += std::to_string(i.value);
}

void render_node(const FloatLit &f, std::string &out) {
  out += float_repr(f.value);
}

void render_node(const ImagLit &i, std::string &out) {
  out += shortest_repr(i.imag) + "j";
}

void render_node(const BoolLit &b, std::string &out) {
  out += b.value ? "True" : "False";
}

void render_node(const NoneLit &, std::string &out) {
  out += "None";
}

void render_node(const StrLit &s, std::string &out) {
  out += string_repr(s.value);
}

void render_node(const Name &n, std::string &out) {
  out += n.id;
}

void render_node(const Attribute &a, std::string &out) {
  render(*a.value, kPrimary, out);
  out += "." + a.attr;
}

void render_node(const Tuple &t, std::string &out) {
  out += "(";
  render_list(t.elts, out);
  if (t.elts.size() == 1) out += ",";
  out += ")";
}

void render_node(const List &l, std::string &out) {
  out += "[";
  render_list(l.elts, out);
  out += "]";
}

// One overload of render_node per kind of UFJIT_FOR_EACH_AST_EXPR.
void render_inner(const Expr &e, std::string &out) {
  switch (e.kind) {
#define UFJIT_RENDER_EXPR(name)      \
  case ExprKind::name:               \
    render_node(*e.as<name>(), out); \
    return;
    UFJIT_FOR_EACH_AST_EXPR(UFJIT_RENDER_EXPR)
#undef UFJIT_RENDER_EXPR
  }
}

void render(const Expr &e, int min_precedence, std::string &out) {
  // Tuples always carry their own parentheses.
  bool parens = e.kind != ExprKind::Tuple && precedence(e) < min_precedence;
  if (parens) out += "(";
  render_inner(e, out);
  if (parens) out += ")";
}

}  // namespace

std::string shortest_repr(double v) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, result.ptr);
}

std::string float_repr(double v) {
  std::string s = shortest_repr(v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string string_repr(const std::string &value) {
  std::string out = "'";
  for (char ch : value) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\'') {
      out += "\\'";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "'";
}

std::string to_source(const Expr &e) {
  std::string out;
  render(e, kTuple, out);
  return out;
}

Module::~Module() {
  try {
    run_with_large_stack([this] { body.clear(); });
  } catch (...) {
    body.clear();  // no thread to be had: free it here
  }
}

}  // namespace ufjit::ast
