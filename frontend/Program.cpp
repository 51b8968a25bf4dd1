// collect_program: decorators, signatures, imports and module-level
// statements of a parsed source (LANGUAGE.md sections 1 and 8).
#include "frontend/Program.h"

#include <set>

#include "frontend/ProgramDecorators.h"
#include "frontend/ProgramNames.h"

namespace ufjit::frontend {

namespace {

using namespace ufjit::ast;

bool is_allowed_module(const std::string &name) {
  return name == "math" || name == "cmath" || name == "numpy" || name == "numba" ||
         name == "numba.cuda" || name == "numba.cuda.fp16" || name == "numba.types" ||
         name == "numba.cuda.types" || name == "numba.core.types";
}

/// A string, or a list or tuple of strings: signatures for a decorator
/// (`sigs = ['float32(float32)', 'float64(float64)']`), never a constant.
/// A type as Numba's signature objects spell it: `float32`, `types.int8`,
/// `float64[:, ::1]`.
bool is_type_expr(const Expr &e) { return e.isa<Name>() || e.isa<Attribute>() || e.isa<Subscript>(); }

/// One signature written as Numba's type objects: `int32(int32, int32)`,
/// `void(float32[:], float32[:])`, or a tuple of argument types.
bool is_typed_signature(const Expr &e) {
  if (const auto *call = e.as<Call>()) {
    if (!is_type_expr(*call->func) || !call->keywords.empty()) return false;
    for (const auto &arg : call->args) {
      if (!is_type_expr(*arg)) return false;
    }
    return true;
  }
  if (const auto *tuple = e.as<Tuple>()) {
    for (const auto &item : tuple->elts) {
      if (!is_type_expr(*item)) return false;
    }
    return !tuple->elts.empty();
  }
  return false;
}

bool is_signature_list(const Expr &e) {
  if (e.isa<StrLit>()) return true;
  const std::vector<ExprPtr> *items = nullptr;
  if (const auto *list = e.as<List>()) items = &list->elts;
  if (const auto *tuple = e.as<Tuple>()) items = &tuple->elts;
  if (items == nullptr || items->empty()) return false;
  for (const auto &item : *items) {
    if (!item->isa<StrLit>() && !is_typed_signature(*item)) return false;
  }
  return true;
}

const char *statement_description(const Stmt &s) {
  switch (s.kind) {
    case StmtKind::ExprStmt: return "an expression statement";
    case StmtKind::AugAssign: return "an augmented assignment";
    case StmtKind::If: return "an 'if' statement";
    case StmtKind::While: return "a 'while' loop";
    case StmtKind::For: return "a 'for' loop";
    case StmtKind::Break: return "'break'";
    case StmtKind::Continue: return "'continue'";
    case StmtKind::Return: return "'return'";
    case StmtKind::Pass: return "'pass'";
    case StmtKind::Raise: return "'raise'";
    default: return "this statement";
  }
}

class Collector {
 public:
  explicit Collector(DiagnosticEngine &diags) : diags_(diags), decorators_(program_, diags) {}

  Program run(const Module &module) {
    for (const auto &stmt : module.body) collect(*stmt);
    return std::move(program_);
  }

 private:
  void collect(const Stmt &stmt);
  void collect_import(const Import &import);
  void collect_import_from(const ImportFrom &import);
  void collect_assign(const Assign &assign);
  void collect_device_decl(const std::string &name, const Call &call, const SourceLocation &loc);
  /// Records a module-level name; reports a redefinition.
  bool define(const std::string &name, const SourceLocation &loc);

  DiagnosticEngine &diags_;
  Program program_;
  DecoratorReader decorators_;
  std::map<std::string, SourceLocation> defined_;
};

bool Collector::define(const std::string &name, const SourceLocation &loc) {
  auto [it, inserted] = defined_.emplace(name, loc);
  if (inserted) return true;
  diags_.error(loc, "redefinition of '" + name + "'");
  diags_.note(it->second, "'" + name + "' was first defined here");
  return false;
}

void Collector::collect(const Stmt &stmt) {
  switch (stmt.kind) {
    case StmtKind::Import:
      collect_import(*stmt.as<Import>());
      return;
    case StmtKind::ImportFrom:
      collect_import_from(*stmt.as<ImportFrom>());
      return;
    case StmtKind::Assign:
      collect_assign(*stmt.as<Assign>());
      return;
    case StmtKind::FunctionDef: {
      const auto &def = *stmt.as<FunctionDef>();
      if (!define(def.name, def.name_loc)) return;
      decorators_.collect_function(def);
      return;
    }
    case StmtKind::ExprStmt:
      // A string statement is a docstring (or a comment written as one).
      if (stmt.as<ExprStmt>()->value->isa<StrLit>()) return;
      break;
    default:
      break;
  }
  diags_.error(stmt.loc, std::string("only imports, constants and function definitions may appear "
                                     "at module level, not ") +
                             statement_description(stmt));
}

void Collector::collect_import(const Import &import) {
  for (const auto &alias : import.names) {
    if (!is_allowed_module(alias.name)) {
      diags_.error(alias.loc, "cannot import '" + alias.name +
                                  "': ufjit kernels may import only math, cmath, numpy and numba");
      continue;
    }
    if (!alias.asname.empty()) {
      program_.imports[alias.asname] = alias.name;
    } else {
      // `import numba.cuda` binds `numba`, as in Python.
      std::string top = alias.name.substr(0, alias.name.find('.'));
      program_.imports[top] = top;
    }
  }
}

void Collector::collect_import_from(const ImportFrom &import) {
  if (!is_allowed_module(import.module)) {
    diags_.error(import.loc, "cannot import from '" + import.module +
                          "': ufjit kernels may import only math, cmath, numpy and numba");
    return;
  }
  for (const auto &alias : import.names) {
    const std::vector<std::string> *known = nullptr;
    if (import.module == "math") known = &math_module_names();
    if (import.module == "cmath") known = &cmath_module_names();
    if (known != nullptr) {
      bool found = false;
      for (const auto &name : *known) found = found || name == alias.name;
      if (!found) {
        std::string message = "cannot import name '" + alias.name + "' from '" + import.module + "'";
        std::string hint = closest_match(alias.name, *known);
        if (!hint.empty()) message += "; did you mean '" + hint + "'?";
        diags_.error(alias.loc, std::move(message));
        continue;
      }
    }
    const std::string &local = alias.asname.empty() ? alias.name : alias.asname;
    program_.imports[local] = import.module + "." + alias.name;
  }
}

void Collector::collect_assign(const Assign &assign) {
  const Call *call = assign.value->as<Call>();
  bool device = call != nullptr &&
                decorators_.resolves_to(*call->func, {"declare_device", "numba.cuda.declare_device",
                                                      "cuda.declare_device"});
  for (const auto &target : assign.targets) {
    const auto *name = target->as<Name>();
    if (name == nullptr) {
      diags_.error(target->loc,
                   "only 'NAME = value' assignments may appear at module level (constants)");
      continue;
    }
    if (!define(name->id, name->loc)) continue;
    if (device) {
      collect_device_decl(name->id, *call, name->loc);
      continue;
    }
    if (is_signature_list(*assign.value)) {
      program_.signature_lists[name->id] = assign.value.get();
      continue;
    }
    ConstantDecl constant;
    constant.name = name->id;
    constant.value = assign.value.get();
    constant.loc = name->loc;
    program_.constants.push_back(constant);
  }
}

void Collector::collect_device_decl(const std::string &name, const Call &call,
                                    const SourceLocation &loc) {
  const char *usage = "declare_device takes two strings: declare_device(\"c_name\", \"signature\")";
  if (call.args.size() != 2) {
    diags_.error(call.loc, usage);
    return;
  }
  bool c_abi = false;
  for (const Keyword &kw : call.keywords) {
    const auto *value = kw.value->as<StrLit>();
    if (kw.name == "abi" && value != nullptr && (value->value == "c" || value->value == "numba")) {
      c_abi = value->value == "c";
      continue;
    }
    if (kw.name == "abi") {
      diags_.error(kw.value->loc, "declare_device's abi must be \"numba\" or \"c\"");
      return;
    }
    diags_.error(kw.value->loc, "unknown declare_device option '" + kw.name +
                                    "'; it takes abi=\"numba\"|\"c\" (name the files with the ufunc's link=[...])");
    return;
  }
  const auto *c_name = call.args[0]->as<StrLit>();
  const auto *sig_text = call.args[1]->as<StrLit>();
  if (c_name == nullptr || sig_text == nullptr) {
    diags_.error(c_name == nullptr ? call.args[0]->loc : call.args[1]->loc, usage);
    return;
  }
  auto sig = parse_signature(sig_text->value, sig_text->content_loc, diags_);
  if (!sig) return;
  DeviceDecl decl;
  decl.name = name;
  decl.c_name = c_name->value;
  decl.signature = *sig;
  decl.loc = loc;
  decl.c_abi = c_abi;
  program_.device_decls.push_back(std::move(decl));
}

}  // namespace

Program collect_program(const ast::Module &module, DiagnosticEngine &diags) {
  Collector collector(diags);
  return collector.run(module);
}

}  // namespace ufjit::frontend
