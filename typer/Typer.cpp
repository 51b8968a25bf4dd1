// The typer's driver: source -> TypedProgram. One ir::Module per (ufunc,
// signature), holding the entry and every helper specialisation it reaches
// (callees first). Each module is typed into a scratch DiagnosticEngine and
// its diagnostics are forwarded once, so an error in a helper or body shared
// by several signatures is reported once.
#include "typer/Typer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>
#include <tuple>

#include "support/InternalAssert.h"
#include "support/LargeStack.h"
#include "frontend/Parser.h"
#include "ir/IRVisitor.h"
#include "ir/RaiseSites.h"
#include "typer/TyperInternal.h"
#include "ir/Verifier.h"
#include "support/Settings.h"

namespace ufjit::ir {

namespace typer {

namespace {

std::string mangle_type(const Type &t) {
  switch (t.kind()) {
    case Type::Kind::Scalar:
      return std::string(dtype_name(t.dtype()));
    case Type::Kind::Array:
      return std::string(dtype_name(t.dtype())) + "a" + std::to_string(t.ndim());
    case Type::Kind::Tuple: {
      std::string s = "tup" + std::to_string(t.elements().size());
      for (const Type &e : t.elements()) s += "_" + mangle_type(e);
      return s;
    }
    case Type::Kind::Void:
      break;
  }
  return "void";
}

/// A binding's part of a specialisation's name: what it names or its value,
/// as identifier characters, and a hash of the exact text (two spellings
/// that sanitize alike stay apart).
std::string mangle_binding(const std::string &param, const Binding &b) {
  std::string text = b.reference != nullptr ? "r" + ast::to_source(*b.reference) : "k" + constant_text(*b.constant);
  std::string out = "_B" + param + "_";
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  char hash[20];
  std::snprintf(hash, sizeof hash, "%08x", static_cast<unsigned>(std::hash<std::string>{}(text) & 0xffffffffu));
  return out + "_" + hash;
}

}  // namespace

std::string ModuleTyper::mangle(const std::string &name, const std::vector<Type> &arg_types) {
  std::string s = name + "_";
  for (const Type &t : arg_types) s += "_" + mangle_type(t);
  return s;
}

std::optional<ModuleTyper::Spec> ModuleTyper::specialise(const ast::FunctionDef &def,
                                                         const std::vector<Type> &arg_types,
                                                         const Bindings &bindings,
                                                         const SourceLocation &call_loc, bool emitting,
                                                         DiagnosticEngine &caller_diags) {
  if (in_progress_names_.count(def.name) != 0) {
    auto cycle_start = std::find(in_progress_.begin(), in_progress_.end(), def.name);
    std::string cycle;
    for (auto it = cycle_start; it != in_progress_.end(); ++it) cycle += *it + " -> ";
    cycle += def.name;
    caller_diags.error(call_loc, "recursive call of '" + def.name + "' (" + cycle + "); recursion is not supported");
    return std::nullopt;
  }
  if (in_progress_.size() >= kMaxCallDepth) {
    caller_diags.error(call_loc, "helper calls nested too deeply (more than " +
                                     std::to_string(kMaxCallDepth) + " levels); '" + def.name +
                                     "' is called at depth " + std::to_string(in_progress_.size() + 1));
    return std::nullopt;
  }
  // Inside a specialisation typed with muted diagnostics, nested ones are
  // muted too (their errors are reported when the outer one is retyped).
  emitting = emitting && muted_depth_ == 0;
  std::string key = mangle(def.name, arg_types);
  for (const auto &[param, binding] : bindings) key += mangle_binding(param, binding);
  // A def may bear a specialisation's name (a ufunc `g__float64` calling a
  // helper `g`): the module would define that function twice. A mangled
  // name ends in `_` or a type's name, never in `_h`, so the suffix cannot
  // meet another specialisation.
  while (scope_.functions.count(key) != 0) key += "_h";
  auto found = specs_.find(key);
  if (found != specs_.end()) {
    if (found->second.function) return Spec{key, found->second.function->ret};
    if (!emitting || found->second.real) return std::nullopt;
  }
  DiagnosticEngine scratch;
  DiagnosticEngine &d = emitting ? diags_ : scratch;
  in_progress_.push_back(def.name);
  in_progress_names_.insert(def.name);
  if (!emitting) ++muted_depth_;
  BodyTyper typer(scope_, this, d);
  std::optional<Function> f = typer.type_function(def, key, arg_types, std::nullopt, false, bindings);
  if (!emitting) --muted_depth_;
  in_progress_names_.erase(in_progress_.back());
  in_progress_.pop_back();
  Entry &e = specs_[key];
  e.function = std::move(f);
  e.real = emitting;
  if (!e.function) return std::nullopt;
  return Spec{key, e.function->ret};
}

ModuleTyper::ModuleTyper(const ProgramScope &scope, DiagnosticEngine &diags) : scope_(scope), diags_(diags) {
  // Numba's NUMBA_BOUNDSCHECK: 1 checks every index, 0 none, unset (or any
  // other value) leaves it to the decorators. Read per compile; the printed
  // IR, which the kernel caches key on, differs with and without checks.
  env_boundscheck_ = support::read_optional_switch("NUMBA_BOUNDSCHECK");
}

bool ModuleTyper::boundscheck(const ast::FunctionDef &def) const {
  if (checked_) return true;
  if (env_boundscheck_) return *env_boundscheck_;
  auto it = scope_.program->boundscheck.find(&def);
  return it != scope_.program->boundscheck.end() ? it->second : entry_boundscheck_;
}

void ModuleTyper::set_entry(const ast::FunctionDef &def) {
  auto it = scope_.program->boundscheck.find(&def);
  entry_boundscheck_ = it != scope_.program->boundscheck.end() && it->second;
}

std::string ModuleTyper::add_function(Function f) {
  std::string name = f.name;
  Entry &e = specs_[name];
  if (!e.function) {
    e.function = std::move(f);
    e.real = true;
  }
  return name;
}

std::string ModuleTyper::index_error_function(const SourceLocation &loc) {
  std::string name = "__ufjit_index_error_" + std::to_string(loc.line) + "_" + std::to_string(loc.col);
  Entry &e = specs_[name];
  if (!e.function) {
    Function f;
    f.name = name;
    f.ret = Type::scalar(DType::Int64);
    const std::string file = loc.file != nullptr ? loc.file->name() : std::string("<source>");
    f.body = Block::make({Raise::make("IndexError", "index is out of bounds", file, loc.line, loc.col),
                          Return::make(Const::make_int(DType::Int64, 0))});
    e.function = std::move(f);
    e.real = true;
  }
  return name;
}

std::string ModuleTyper::checked_index_error_function(const SourceLocation &loc, const std::string &array,
                                                      int axis) {
  std::string name = "__ufjit_checked_index_error_" + std::to_string(loc.line) + "_" + std::to_string(loc.col) + "_" +
                     std::to_string(axis);
  Entry &e = specs_[name];
  if (!e.function) {
    const Type i64 = Type::scalar(DType::Int64);
    Function f;
    f.name = name;
    f.params = {{"index", i64}, {"size", i64}};
    f.ret = i64;
    const std::string file = loc.file != nullptr ? loc.file->name() : std::string("<source>");
    const std::string message = "index is out of bounds for axis " + std::to_string(axis) + " of '" + array + "'";
    f.body = Block::make({Raise::make("IndexError", message, file, loc.line, loc.col, 0,
                                      {Var::make(i64, "index"), Var::make(i64, "size")}),
                          Return::make(Const::make_int(DType::Int64, 0))});
    e.function = std::move(f);
    e.real = true;
  }
  return name;
}

Module ModuleTyper::finish(Function entry, const std::string &name, const FloatOptions &options) {
  Module m;
  m.name = name;
  m.options = options;
  std::set<std::string> done;
  std::function<void(const Function &)> add_callees = [&](const Function &f) {
    std::vector<std::string> callees;
    for_each_expr(f.body, [&](const Expr &e) {
      if (const Call *c = e.as<Call>()) callees.push_back(c->callee);
    });
    for (const std::string &c : callees) {
      if (!done.insert(c).second) continue;
      if (std::optional<ExternFunction> ext = extern_named(*scope_.program, c)) {
        m.externs.push_back(std::move(*ext));
        continue;
      }
      auto it = specs_.find(c);
      internal_assert(it != specs_.end() && it->second.function) << "call of untyped specialisation " << c;
      add_callees(*it->second.function);
      m.functions.push_back(*it->second.function);
    }
  };
  add_callees(entry);
  m.functions.push_back(std::move(entry));
  m.explicit_kernel = explicit_kernel_;
  m.shared_bytes = (shared_bytes_ + 15) / 16 * 16;
  m.threads_wait = threads_wait_;
  m.checked = checked_;
  m.entry = static_cast<int>(m.functions.size()) - 1;
  number_raise_sites(m);
  return m;
}

}  // namespace typer

namespace {

using typer::ProgramScope;

/// Forwards diagnostics to `to`, only the first at each location (a body
/// typed for several signatures fails at the same places, with messages
/// that may differ only in the types).
class DiagForwarder {
 public:
  explicit DiagForwarder(DiagnosticEngine &to) : to_(to) {}
  void forward(const DiagnosticEngine &from) {
    for (const Diagnostic &d : from.diagnostics()) {
      auto key = std::make_tuple(d.loc.file, d.loc.line, d.loc.col, d.severity);
      if (!seen_.insert(key).second) continue;
      to_.report(d);
    }
  }

 private:
  DiagnosticEngine &to_;
  std::set<std::tuple<const SourceFile *, int, int, Severity>> seen_;
};

SourceLocation def_loc(const ast::FunctionDef &def) { return def.name_loc.valid() ? def.name_loc : def.loc; }

std::string plural(std::size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

/// At most kMaxUfuncArgs arguments: the def's parameters and the `outputs`
/// they do not include. Reports at the def and returns false past it.
bool check_argument_limit(const frontend::UfuncDecl &u, std::size_t outputs, DiagnosticEngine &diags) {
  if (u.def->params.size() + outputs <= frontend::kMaxUfuncArgs) return true;
  diags.error(def_loc(*u.def), "'" + u.name + "' takes " + plural(u.def->params.size(), "parameter") +
                                   ": a ufunc takes at most " + std::to_string(frontend::kMaxUfuncArgs) +
                                   " arguments, inputs and outputs together (as NumPy)");
  return false;
}

/// One signature type per parameter of the def, within check_argument_limit.
bool check_arity(const frontend::UfuncDecl &u, const frontend::Signature &sig, const std::string &quoted,
                 std::size_t outputs, DiagnosticEngine &diags) {
  if (!check_argument_limit(u, outputs, diags)) return false;
  if (sig.args.size() == u.def->params.size()) return true;
  diags.error(sig.loc, quoted + " has " + plural(sig.args.size(), "argument") + " but '" + u.name + "' takes " +
                           plural(u.def->params.size(), "parameter"));
  return false;
}

/// Checks a @vectorize signature against its def; reports and returns false on a mismatch.
bool check_signature(const frontend::UfuncDecl &u, const frontend::Signature &sig, DiagnosticEngine &diags) {
  std::string quoted = "signature '" + sig.str() + "'";
  if (sig.ret.is_void) {
    diags.error(sig.loc, quoted + " returns void, but a @vectorize function must return a value");
    return false;
  }
  bool arrays = sig.ret.ndim > 0;
  for (const frontend::SigType &a : sig.args) arrays = arrays || a.ndim > 0;
  if (arrays) {
    diags.error(sig.loc, quoted + " has array types, which only @guvectorize signatures may have");
    return false;
  }
  return check_arity(u, sig, quoted, 1, diags);
}

/// Applies the C++ API's signatures to the one function of the source.
bool apply_override(frontend::Program &prog, const std::vector<std::string> &override_signatures,
                    const std::shared_ptr<const SourceFile> &file, DiagnosticEngine &diags) {
  std::vector<const ast::FunctionDef *> bare;
  for (const ast::FunctionDef *h : prog.helpers) {
    if (h->decorators.empty()) bare.push_back(h);
  }
  std::size_t vectorize_count = 0;
  for (const frontend::UfuncDecl &u : prog.ufuncs) vectorize_count += u.kind == frontend::UfuncKind::Vectorize;
  SourceLocation start{file.get(), 1, 1, 1};
  // Several undecorated defs: the last is the ufunc and the ones before it
  // are its helpers, the order a Python module defines them in.
  if (!(prog.ufuncs.size() == 1 && vectorize_count == 1) && !(prog.ufuncs.empty() && !bare.empty())) {
    diags.error(start, "signatures given with the source need exactly one @vectorize function, or undecorated "
                       "defs (the last is the ufunc); found " + std::to_string(vectorize_count) + " @vectorize and " +
                           std::to_string(bare.size()) + " undecorated");
    return false;
  }
  if (prog.ufuncs.empty()) {
    frontend::UfuncDecl u;
    u.kind = frontend::UfuncKind::Vectorize;
    u.name = bare.back()->name;
    u.def = bare.back();
    prog.ufuncs.push_back(std::move(u));
  }
  frontend::UfuncDecl &u = prog.ufuncs[0];
  u.signatures.clear();
  bool ok = true;
  for (const std::string &text : override_signatures) {
    auto sig_file = std::make_shared<const SourceFile>("<signature>", text);
    diags.retain(sig_file);
    std::optional<frontend::Signature> sig = frontend::parse_signature(text, SourceLocation{sig_file.get(), 1, 1, 1}, diags);
    if (!sig) {
      ok = false;
      continue;
    }
    u.signatures.push_back(*sig);
  }
  return ok && frontend::check_distinct_signatures(u.signatures, diags);
}

std::vector<Type> param_types_of(const frontend::Signature &sig) {
  std::vector<Type> types;
  for (const frontend::SigType &a : sig.args) {
    if (a.record) {
      types.push_back(Type::record_array(a.record, a.ndim - 1));
    } else {
      types.push_back(a.ndim > 0 ? Type::array(a.dtype, a.ndim) : Type::scalar(a.dtype));
    }
  }
  return types;
}

/// Checks a @guvectorize signature against its def (the frontend has checked
/// it against the layout).
bool check_gufunc_signature(const frontend::UfuncDecl &u, const frontend::Signature &sig, DiagnosticEngine &diags) {
  std::string quoted = "signature '" + sig.str() + "'";
  if (!sig.ret.is_void) {
    diags.error(sig.loc, quoted + " must return void: a @guvectorize function writes to its output arrays");
    return false;
  }
  return check_arity(u, sig, quoted, 0, diags);
}

/// The parameters the body may write: the outputs (the last parameters, one
/// per output of the layout) and the inputs named by `writable_args`.
std::set<std::string> gufunc_writable(const frontend::UfuncDecl &u) {
  std::set<std::string> writable;
  std::size_t n = u.def->params.size();
  std::size_t count = std::min(u.core.outputs.size(), n);
  for (std::size_t i = n - count; i < n; ++i) writable.insert(u.def->params[i].name);
  for (int i : u.options.writable_args) {
    if (i >= 0 && static_cast<std::size_t>(i) < n) writable.insert(u.def->params[static_cast<std::size_t>(i)].name);
  }
  return writable;
}

/// A parsed source with its declarations and typing scope. The AST and the
/// Program are owned here: the scope and the declarations point into them.
struct Prepared {
  std::unique_ptr<ast::Module> module;
  frontend::Program prog;
  ProgramScope scope;

  /// The ufunc named `name` that has a body (the last one, as Python binds
  /// names), or nullptr.
  const frontend::UfuncDecl *ufunc_named(const std::string &name) const {
    const frontend::UfuncDecl *found = nullptr;
    for (const frontend::UfuncDecl &u : prog.ufuncs) {
      if (u.name == name && u.def != nullptr) found = &u;
    }
    return found;
  }
};

/// Parses, collects and evaluates constants; nullptr after errors that stop typing.
std::unique_ptr<Prepared> prepare(const std::shared_ptr<const SourceFile> &file, DiagnosticEngine &diags,
                                  const std::vector<std::string> &override_signatures) {
  diags.retain(file);
  auto p = std::make_unique<Prepared>();
  // Stop after syntax errors: statements the parser dropped would only cause
  // follow-on errors (unknown names) in the typer.
  p->module = frontend::parse(file, diags);
  if (!p->module || diags.has_errors()) return nullptr;
  p->prog = frontend::collect_program(*p->module, diags);
  if (!override_signatures.empty() && !apply_override(p->prog, override_signatures, file, diags)) return nullptr;
  p->scope.program = &p->prog;
  p->scope.imports = p->prog.imports;
  for (const frontend::UfuncDecl &u : p->prog.ufuncs) {
    if (u.def != nullptr) p->scope.functions[u.name] = u.def;
  }
  for (const ast::FunctionDef *h : p->prog.helpers) p->scope.functions[h->name] = h;
  typer::evaluate_constants(p->scope, diags);
  return p;
}

/// The module of a typed `entry`, verified, after forwarding what typing
/// reported into `scratch`; nothing when typing failed.
std::optional<Module> finish_module(typer::ModuleTyper &mt, std::optional<Function> entry,
                                    const DiagnosticEngine &scratch, DiagForwarder &forward,
                                    const std::string &name, bool fastmath) {
  forward.forward(scratch);
  if (!entry || scratch.has_errors()) return std::nullopt;
  FloatOptions options;
  options.fastmath = fastmath;
  Module m = mt.finish(std::move(*entry), name, options);
  verify(m);
  return m;
}

/// Types `u` for one signature (checked against the def first); nothing
/// after reporting errors through `forward`.
std::optional<Module> type_signature(const ProgramScope &scope, const frontend::UfuncDecl &u,
                                     const frontend::Signature &sig, DiagnosticEngine &diags,
                                     DiagForwarder &forward) {
  bool gufunc = u.kind == frontend::UfuncKind::GuVectorize;
  if (!(gufunc ? check_gufunc_signature(u, sig, diags) : check_signature(u, sig, diags))) return std::nullopt;
  DiagnosticEngine scratch;
  scratch.set_error_limit(0);  // forwarded: `diags` applies the limit
  typer::ModuleTyper mt(scope, scratch);
  typer::BodyTyper bt(scope, &mt, scratch);
  if (gufunc) bt.set_gufunc_outputs(gufunc_writable(u));
  Type ret = gufunc ? Type::void_type() : Type::scalar(sig.ret.dtype);
  std::optional<Function> entry = bt.type_function(*u.def, u.name, param_types_of(sig), ret, true);
  return finish_module(mt, std::move(entry), scratch, forward, u.name, u.options.fastmath);
}

/// Types kernel `k` for parameter types `params`; nothing after reporting
/// errors through `forward`.
std::optional<Module> type_kernel_module(const ProgramScope &scope, const frontend::KernelDecl &k,
                                         const std::vector<Type> &params, DiagnosticEngine &diags,
                                         DiagForwarder &forward, bool checked) {
  if (params.size() != k.def->params.size()) {
    diags.error(def_loc(*k.def), "kernel '" + k.name + "' takes " + plural(k.def->params.size(), "argument") +
                                     ", but " + std::to_string(params.size()) + " were given");
    return std::nullopt;
  }
  DiagnosticEngine scratch;
  scratch.set_error_limit(0);  // forwarded: `diags` applies the limit
  typer::ModuleTyper mt(scope, scratch);
  mt.set_explicit_kernel();
  typer::BodyTyper bt(scope, &mt, scratch);
  bt.set_kernel();
  // The checking mode (Module::checked): debug=True, the caller's request,
  // or UFJIT_CHECK=1 for every kernel; read per compile, as NUMBA_BOUNDSCHECK.
  if (k.options.debug || checked || support::read_optional_switch("UFJIT_CHECK").value_or(false)) mt.set_checked();
  std::optional<Function> entry = bt.type_function(*k.def, k.name, params, Type::void_type(), true);
  return finish_module(mt, std::move(entry), scratch, forward, k.name, k.options.fastmath);
}

/// Every kernel of `prog` with the modules of the signatures it gives.
void type_kernels(const ProgramScope &scope, const frontend::Program &prog, DiagnosticEngine &diags,
                  DiagForwarder &forward, TypedProgram &out) {
  for (const frontend::KernelDecl &k : prog.kernels) {
    TypedKernel tk;
    tk.name = k.name;
    tk.options = k.options;
    for (const ast::Param &param : k.def->params) tk.params.push_back(param.name);
    tk.signatures = k.signatures;
    for (const frontend::Signature &sig : k.signatures) {
      std::optional<Module> m = type_kernel_module(scope, k, param_types_of(sig), diags, forward, false);
      if (m) tk.modules.push_back(std::move(*m));
    }
    out.kernels.push_back(std::move(tk));
  }
}

/// Gives a module that calls declare_device functions the ufunc's link
/// files (`cache`: read once per ufunc); false, with an error at the def,
/// when neither the decorator nor `link` names any.
bool attach_link_files(const frontend::UfuncDecl &u, const LinkOptions &link, const SourceFile &file,
                       DiagnosticEngine &diags, Module &m, std::optional<std::vector<LinkFile>> &cache) {
  if (m.externs.empty()) return true;
  if (u.options.link.empty() && link.files.empty()) {
    diags.error(def_loc(*u.def), "'" + u.name + "' calls CUDA C++ function '" + m.externs.front().name +
                                     "' (declare_device) but names no file that defines it: add "
                                     "link=['helpers.cu'] to its @vectorize (or give the files with the link option "
                                     "of the API or the tool)");
    return false;
  }
  if (!cache) cache = typer::read_link_files(u.options, link, file, diags);
  m.link_files = *cache;
  verify(m);
  return true;
}

std::optional<TypedProgram> compile_on_this_thread(std::shared_ptr<const SourceFile> file,
                                                   DiagnosticEngine &diags,
                                                   const std::vector<std::string> &override_signatures,
                                                   const LinkOptions &link) {
  std::unique_ptr<Prepared> p = prepare(file, diags, override_signatures);
  if (!p) return std::nullopt;
  const frontend::Program &prog = p->prog;

  // A ufunc whose decorator had errors is dropped: those errors say why
  // there is none, so "no @vectorize function" would only repeat them.
  if (prog.ufuncs.empty() && prog.kernels.empty() && diags.has_errors()) return std::nullopt;
  if (prog.ufuncs.empty() && prog.kernels.empty()) {
    const ast::FunctionDef *first = prog.helpers.empty() ? nullptr : prog.helpers.front();
    SourceLocation loc = first != nullptr ? def_loc(*first) : SourceLocation{file.get(), 1, 1, 1};
    std::string what = first != nullptr ? "function '" + first->name + "' has no signatures" : "the source has no @vectorize function";
    diags.error(loc, what + "; signatures are needed: decorate it with @vectorize([\"float32(float32)\", ...]) "
                            "or pass signatures with the source");
    return std::nullopt;
  }

  DiagForwarder forward(diags);
  TypedProgram out;
  type_kernels(p->scope, prog, diags, forward, out);
  for (const frontend::UfuncDecl &u : prog.ufuncs) {
    if (u.def == nullptr) continue;
    TypedUfunc tu(u);
    bool gufunc = u.kind == frontend::UfuncKind::GuVectorize;
    if (u.signatures.empty() && !gufunc) {
      tu.dynamic = true;  // typed per call (type_for_arguments)
      out.ufuncs.push_back(std::move(tu));
      continue;
    }
    // A layout-only @guvectorize has no signature yet: type_gufunc types it
    // for the operands of each call.
    if (u.signatures.empty() && !(gufunc && u.options.is_dynamic)) {
      diags.error(def_loc(*u.def), std::string(gufunc ? "@guvectorize" : "@vectorize") + " function '" + u.name +
                                       "' has no signatures");
      continue;
    }
    std::optional<std::vector<LinkFile>> link_files;
    for (const frontend::Signature &sig : u.signatures) {
      std::optional<Module> m = type_signature(p->scope, u, sig, diags, forward);
      if (!m || !attach_link_files(u, link, *file, diags, *m, link_files)) continue;
      tu.modules.push_back(std::move(*m));
    }
    out.ufuncs.push_back(std::move(tu));
  }
  if (diags.has_errors()) return std::nullopt;
  return out;
}

/// The signature Numba's dynamic gufunc builds for operand dtypes: an input
/// of a `()` core is a scalar, an output of a `()` core a 1-d array (written
/// `out[0] = v`), every other operand an array of its core's dimensions.
frontend::Signature dynamic_gufunc_signature(const frontend::GufuncLayout &core, const std::vector<DType> &dtypes,
                                             const SourceLocation &loc) {
  frontend::Signature sig;
  sig.loc = loc;
  sig.ret.is_void = true;
  sig.ret.loc = loc;
  for (std::size_t i = 0; i < dtypes.size(); ++i) {
    frontend::SigType t;
    t.dtype = dtypes[i];
    t.loc = loc;
    int k = static_cast<int>(core.operand(i).dims.size());
    bool output = i >= core.inputs.size();
    t.ndim = k == 0 ? (output ? 1 : 0) : k;
    sig.args.push_back(t);
  }
  return sig;
}

/// Runs `type_in` on the prepared program of `file`, on a large stack (the
/// per-call typing of type_gufunc, type_for_arguments and type_kernel);
/// nothing when preparing it reported errors.
template <typename TypeIn>
std::optional<InferredSignature> type_in_prepared(const std::shared_ptr<const SourceFile> &file,
                                                  DiagnosticEngine &diags, TypeIn type_in) {
  return run_with_large_stack([&]() -> std::optional<InferredSignature> {
    std::unique_ptr<Prepared> p = prepare(file, diags, {});
    if (!p || diags.has_errors()) return std::nullopt;
    return type_in(*p);
  });
}

std::optional<InferredSignature> type_gufunc_in(const Prepared &p,
                                                const std::shared_ptr<const SourceFile> &file,
                                                const std::string &name,
                                                const std::vector<DType> &operand_dtypes,
                                                DiagnosticEngine &diags, const LinkOptions &link) {
  const frontend::UfuncDecl *found = p.ufunc_named(name);
  if (found == nullptr || found->kind != frontend::UfuncKind::GuVectorize) {
    diags.error(SourceLocation{file.get(), 1, 1, 1}, "the source has no @guvectorize function '" + name + "'");
    return std::nullopt;
  }
  const frontend::UfuncDecl &u = *found;
  SourceLocation loc = def_loc(*u.def);
  if (operand_dtypes.size() != u.core.operand_count()) {
    diags.error(loc, "'" + u.name + "' has " + plural(u.core.operand_count(), "operand") + " in layout '" +
                         u.core.str() + "', but " + std::to_string(operand_dtypes.size()) + " dtypes were given");
    return std::nullopt;
  }
  frontend::Signature sig = dynamic_gufunc_signature(u.core, operand_dtypes, loc);
  DiagForwarder forward(diags);
  std::optional<Module> m = type_signature(p.scope, u, sig, diags, forward);
  std::optional<std::vector<LinkFile>> link_files;
  if (!m || !attach_link_files(u, link, *file, diags, *m, link_files) || diags.has_errors()) return std::nullopt;
  return InferredSignature{std::move(sig), std::move(*m)};
}

std::optional<InferredSignature> type_for_arguments_in(const Prepared &p, const SourceFile &file,
                                                       const std::string &name,
                                                       const std::vector<DType> &arg_dtypes,
                                                       DiagnosticEngine &diags, const LinkOptions &link) {
  const ProgramScope &scope = p.scope;
  const frontend::UfuncDecl *ufunc = p.ufunc_named(name);
  internal_assert(ufunc != nullptr) << "type_for_arguments: no ufunc '" << name << "'";
  InferredSignature out;
  std::string args;
  for (DType t : arg_dtypes) {
    frontend::SigType a;
    a.dtype = t;
    out.signature.args.push_back(a);
    args += (args.empty() ? "" : ", ") + std::string(dtype_name(t));
  }
  if (!check_argument_limit(*ufunc, 1, diags)) return std::nullopt;
  if (ufunc->def->params.size() != arg_dtypes.size()) {
    diags.error(def_loc(*ufunc->def), "'" + name + "' takes " + std::to_string(ufunc->def->params.size()) +
                                          " arguments but was called with " + std::to_string(arg_dtypes.size()) +
                                          " (" + args + ")");
    return std::nullopt;
  }
  std::vector<Type> params;
  for (DType t : arg_dtypes) params.push_back(Type::scalar(t));
  DiagnosticEngine scratch;
  scratch.set_error_limit(0);
  typer::ModuleTyper mt(scope, scratch);
  typer::BodyTyper bt(scope, &mt, scratch);
  std::optional<Function> entry = bt.type_function(*ufunc->def, ufunc->name, params, std::nullopt, true);
  DiagForwarder forward(diags);
  forward.forward(scratch);
  if (!entry || scratch.has_errors()) return std::nullopt;
  if (!entry->ret.is_scalar()) {
    diags.error(def_loc(*ufunc->def), "'" + name + "' called with (" + args + ") returns '" + entry->ret.str() +
                                          "'; a ufunc returns a scalar");
    return std::nullopt;
  }
  out.signature.ret.dtype = entry->ret.dtype();
  FloatOptions options;
  options.fastmath = ufunc->options.fastmath;
  out.module = mt.finish(std::move(*entry), ufunc->name, options);
  verify(out.module);
  std::optional<std::vector<LinkFile>> link_files;
  if (!attach_link_files(*ufunc, link, file, diags, out.module, link_files)) return std::nullopt;
  return out;
}

}  // namespace

std::optional<InferredSignature> type_for_arguments(std::shared_ptr<const SourceFile> file, const std::string &name,
                                                    const std::vector<DType> &arg_dtypes, DiagnosticEngine &diags,
                                                    const LinkOptions &link) {
  return type_in_prepared(file, diags, [&](const Prepared &p) {
    return type_for_arguments_in(p, *file, name, arg_dtypes, diags, link);
  });
}

std::optional<TypedProgram> compile_to_ir(std::shared_ptr<const SourceFile> file, DiagnosticEngine &diags,
                                          const std::vector<std::string> &override_signatures,
                                          const LinkOptions &link) {
  return run_with_large_stack(
      [&] { return compile_on_this_thread(std::move(file), diags, override_signatures, link); });
}


std::optional<InferredSignature> type_kernel(std::shared_ptr<const SourceFile> file, const std::string &name,
                                             const std::vector<Type> &arg_types, DiagnosticEngine &diags,
                                             bool checked) {
  return type_in_prepared(file, diags, [&](const Prepared &p) -> std::optional<InferredSignature> {
    const frontend::KernelDecl *found = nullptr;
    for (const frontend::KernelDecl &k : p.prog.kernels) {
      if (k.name == name) found = &k;
    }
    if (found == nullptr) {
      diags.error(SourceLocation{file.get(), 1, 1, 1}, "the source has no @cuda.jit kernel '" + name + "'");
      return std::nullopt;
    }
    InferredSignature out;
    out.signature.loc = def_loc(*found->def);
    out.signature.ret.is_void = true;
    for (const Type &t : arg_types) {
      frontend::SigType a;
      a.dtype = t.dtype();
      a.ndim = t.is_array() ? t.ndim() : 0;
      a.record = t.record();
      a.loc = out.signature.loc;
      out.signature.args.push_back(a);
    }
    DiagForwarder forward(diags);
    std::optional<Module> m = type_kernel_module(p.scope, *found, arg_types, diags, forward, checked);
    if (!m || diags.has_errors()) return std::nullopt;
    out.module = std::move(*m);
    return out;
  });
}

std::optional<InferredSignature> type_gufunc(std::shared_ptr<const SourceFile> file, const std::string &name,
                                                const std::vector<DType> &operand_dtypes, DiagnosticEngine &diags,
                                                const LinkOptions &link) {
  return type_in_prepared(file, diags, [&](const Prepared &p) {
    return type_gufunc_in(p, file, name, operand_dtypes, diags, link);
  });
}

}  // namespace ufjit::ir
