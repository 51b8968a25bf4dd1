// Decorators of LANGUAGE.md section 1: @vectorize, @guvectorize (section 8),
// @cuda.jit(device=True), @device, @njit, @jit, through any import alias.
#include "frontend/ProgramDecorators.h"

#include <array>
#include <cctype>
#include <optional>

namespace ufjit::frontend {

using namespace ufjit::ast;

namespace {

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

std::vector<std::string> as_strings(std::initializer_list<std::string_view> names) {
  return std::vector<std::string>(names.begin(), names.end());
}

const std::initializer_list<std::string_view> kVectorizeOptions = {
    "signatures", "target", "fastmath", "link", "cache", "nopython", "forceobj", "identity", "boundscheck"};
const std::initializer_list<std::string_view> kGuVectorizeOptions = {
    "signatures", "layout", "target",     "fastmath",      "link",    "cache",
    "nopython",   "forceobj", "identity", "is_dynamic", "writable_args", "boundscheck"};
const std::initializer_list<std::string_view> kCudaJitOptions = {
    "device", "inline", "forceinline", "fastmath", "cache", "debug", "opt", "lineinfo", "link"};
const std::initializer_list<std::string_view> kKernelOptions = {
    "device", "fastmath", "debug", "opt", "lineinfo", "cache", "link", "inline", "forceinline", "max_registers",
    "boundscheck", "extensions"};
const std::initializer_list<std::string_view> kJitOptions = {
    "nopython", "nogil", "cache", "fastmath", "inline", "forceinline", "boundscheck",
    "error_model", "parallel", "debug"};
const std::initializer_list<std::string_view> kDecoratorNames = {
    "vectorize", "guvectorize", "cuda.jit", "device", "njit", "jit"};

/// The items of a list or tuple option (`link=[...]`, `writable_args=(...)`),
/// or the value itself.
std::vector<const Expr *> items_of(const Expr &value) {
  std::vector<const Expr *> items;
  if (const auto *list = value.as<List>()) {
    for (const auto &e : list->elts) items.push_back(e.get());
  } else if (const auto *tuple = value.as<Tuple>()) {
    for (const auto &e : tuple->elts) items.push_back(e.get());
  } else {
    items.push_back(&value);
  }
  return items;
}

const char *kSignatureExample = "a list of signature strings like ['float32(float32, float32)']";

/// Whether a `@cuda.jit` decorator declares a kernel: no `device=True`.
bool declares_kernel(const Decorator &d) {
  const auto *call = d.expr->as<Call>();
  if (call == nullptr) return true;
  for (const auto &kw : call->keywords) {
    if (kw.name != "device") continue;
    const auto *b = kw.value->as<BoolLit>();
    return b != nullptr && !b->value;
  }
  return true;
}

/// Numba's object mode on a helper decorator (`@jit(forceobj=True)`,
/// `nopython=False`, `looplift`): a located error worded as for @vectorize
/// (read_option), not an unknown option. Returns true when `kw` asked for it.
bool asks_object_mode(const Keyword &kw, const std::string &decorator, DiagnosticEngine &diags) {
  const auto *b = kw.value->as<BoolLit>();
  bool object_mode = (kw.name == "forceobj" && (b == nullptr || b->value)) ||
                     (kw.name == "nopython" && b != nullptr && !b->value) || kw.name == "looplift";
  if (!object_mode) return false;
  diags.error(kw.loc, kw.name + "=" + to_source(*kw.value) + " asks for Numba's object mode, which ufjit does not "
                          "have: a " + decorator + " helper is compiled in nopython mode only; remove the option");
  return true;
}

}  // namespace

std::optional<std::string> DecoratorReader::resolve(const Expr &e) const {
  if (const auto *name = e.as<Name>()) {
    auto it = program_.imports.find(name->id);
    return it != program_.imports.end() ? it->second : name->id;
  }
  if (const auto *attr = e.as<Attribute>()) {
    auto base = resolve(*attr->value);
    if (!base) return std::nullopt;
    return *base + "." + attr->attr;
  }
  return std::nullopt;
}

bool DecoratorReader::resolves_to(const Expr &e,
                                  std::initializer_list<std::string_view> names) const {
  auto resolved = resolve(e);
  return resolved && one_of(*resolved, names);
}

DecoratorReader::Kind DecoratorReader::classify(const std::string &r) const {
  // numba.cuda re-exports vectorize and guvectorize (target='cuda').
  if (one_of(r, {"vectorize", "numba.vectorize", "numba.cuda.vectorize"})) return Kind::Vectorize;
  if (one_of(r, {"guvectorize", "numba.guvectorize", "numba.cuda.guvectorize"})) return Kind::GuVectorize;
  if (one_of(r, {"cuda.jit", "numba.cuda.jit"})) return Kind::CudaJit;
  if (one_of(r, {"device"})) return Kind::Device;
  if (one_of(r, {"njit", "jit", "numba.njit", "numba.jit"})) return Kind::Jit;
  return Kind::Unknown;
}

void DecoratorReader::collect_function(const FunctionDef &def) {
  const Decorator *chosen = nullptr;
  Kind chosen_kind = Kind::Unknown;
  const Decorator *stacked = nullptr;  // a helper decorator under a ufunc decorator
  Kind stacked_kind = Kind::Unknown;
  bool ok = true;
  for (const auto &d : def.decorators) {
    const Expr *head = d.expr.get();
    if (const auto *call = head->as<Call>()) head = call->func.get();
    auto resolved = resolve(*head);
    Kind kind = resolved ? classify(*resolved) : Kind::Unknown;
    if (kind == Kind::Unknown) {
      std::string spelled = to_source(*head);
      std::string message = "unknown decorator '@" + spelled + "'";
      if (resolved && *resolved != spelled) message += " (imported as '" + *resolved + "')";
      std::string hint = closest_match(spelled, as_strings(kDecoratorNames));
      if (!hint.empty()) message += "; did you mean '@" + hint + "'?";
      diags_.error(d.expr->loc, std::move(message));
      ok = false;
      continue;
    }
    bool chosen_is_ufunc = chosen_kind == Kind::Vectorize || chosen_kind == Kind::GuVectorize;
    bool is_helper = kind == Kind::Jit || kind == Kind::CudaJit || kind == Kind::Device;
    if (chosen != nullptr && chosen_is_ufunc && is_helper && stacked == nullptr) {
      // `@vectorize(...)` over `@njit` / `@cuda.jit(device=True)`: Numba
      // vectorizes the jitted function; its options are checked, then the
      // def is the ufunc.
      stacked = &d;
      stacked_kind = kind;
      continue;
    }
    if (chosen != nullptr) {
      diags_.error(d.expr->loc, "conflicting decorators on '" + def.name + "': '@" +
                                    to_source(*head) + "' after '@" + to_source(*chosen->expr) +
                                    "'");
      ok = false;
      continue;
    }
    chosen = &d;
    chosen_kind = kind;
  }
  helper_def_ = &def;
  if (stacked != nullptr) {
    std::vector<Signature> ignored;  // the ufunc's own signatures decide
    ok = read_helper(*stacked, stacked_kind, ignored) && ok;
  }
  if (!ok) return;
  if (chosen == nullptr) {
    program_.helpers.push_back(&def);  // a bare def is a helper
    return;
  }
  if (chosen_kind == Kind::Vectorize || chosen_kind == Kind::GuVectorize) {
    read_ufunc(def, *chosen, chosen_kind);
    return;
  }
  if (chosen_kind == Kind::CudaJit && declares_kernel(*chosen)) {
    read_kernel(def, *chosen);
    return;
  }
  std::vector<Signature> signatures;
  if (!read_helper(*chosen, chosen_kind, signatures)) return;
  program_.helpers.push_back(&def);
  if (!signatures.empty()) program_.helper_signatures[&def] = std::move(signatures);
}

namespace {

/// `@guvectorize('(n)->(n)')`: Numba reads a single positional argument as
/// the layout (a dynamic gufunc, typed at its first call).
bool looks_like_layout(const Expr &e) {
  const auto *str = e.as<StrLit>();
  if (str == nullptr) return false;
  std::size_t first = str->value.find_first_not_of(" \t");
  return first != std::string::npos && str->value[first] == '(' && str->value.find("->") != std::string::npos;
}

}  // namespace

void DecoratorReader::read_ufunc(const FunctionDef &def, const Decorator &d, Kind kind) {
  UfuncDecl ufunc;
  ufunc.kind = kind == Kind::Vectorize ? UfuncKind::Vectorize : UfuncKind::GuVectorize;
  ufunc.name = def.name;
  ufunc.def = &def;
  bool gufunc = kind == Kind::GuVectorize;
  const char *decorator = gufunc ? "@guvectorize" : "@vectorize";
  bool have_signatures = false;
  const Expr *layout_expr = nullptr;
  int errors_before = diags_.error_count();
  pending_writable_.clear();
  const auto *call = d.expr->as<Call>();
  bool has_layout_keyword = false;
  if (call != nullptr) {
    for (const auto &kw : call->keywords) has_layout_keyword = has_layout_keyword || kw.name == "layout";
  }
  if (call != nullptr) {
    bool layout_only = gufunc && call->args.size() == 1 && !has_layout_keyword && looks_like_layout(*call->args[0]);
    for (std::size_t i = 0; i < call->args.size(); ++i) {
      const Expr &arg = *call->args[i];
      if (i == 0 && layout_only) {
        layout_expr = &arg;
        ufunc.options.is_dynamic = true;
      } else if (i == 0) {
        read_signatures(arg, ufunc.signatures);
        have_signatures = true;
      } else if (i == 1 && gufunc) {
        layout_expr = &arg;
      } else {
        diags_.error(arg.loc, std::string("too many positional arguments to ") + decorator +
                                  "; options are keywords, e.g. target='cuda'");
      }
    }
    for (const auto &kw : call->keywords) read_option(kw, ufunc, have_signatures, layout_expr);
  }
  if (gufunc) {
    if (layout_expr == nullptr) {
      diags_.error(d.expr->loc,
                   "@guvectorize needs a layout, with or without signatures, e.g. "
                   "@guvectorize([\"void(float32[:], float32[:])\"], \"(n)->(n)\") or @guvectorize(\"(n)->(n)\")");
      return;
    }
    const auto *layout = layout_expr->as<StrLit>();
    if (layout == nullptr) {
      diags_.error(layout_expr->loc, "the layout of @guvectorize must be a string like '(n),(n)->()'");
      return;
    }
    ufunc.layout = layout->value;
    std::optional<GufuncLayout> parsed = parse_gufunc_layout(layout->value, layout->content_loc, diags_);
    if (!parsed) return;
    ufunc.core = std::move(*parsed);
    if (!have_signatures) ufunc.options.is_dynamic = true;
    resolve_writable_args(def, ufunc);
  }
  if (diags_.error_count() != errors_before) return;
  check_signatures(ufunc);
  if (diags_.error_count() != errors_before) return;
  program_.ufuncs.push_back(std::move(ufunc));
}

void DecoratorReader::resolve_writable_args(const FunctionDef &def, UfuncDecl &ufunc) {
  std::vector<int> indices;
  for (const auto &[expr, index] : pending_writable_) {
    int found = -1;
    std::string what;
    if (const auto *name = expr->as<StrLit>()) {
      for (std::size_t i = 0; i < def.params.size(); ++i) {
        if (def.params[i].name == name->value) found = static_cast<int>(i);
      }
      what = "'" + name->value + "'";
      if (found < 0) {
        diags_.error(expr->loc, "writable_args names " + what + ", which is not a parameter of '" + def.name + "'");
        continue;
      }
    } else {
      found = index;
      what = std::to_string(index);
      if (found < 0 || found >= static_cast<int>(def.params.size())) {
        diags_.error(expr->loc, "writable_args index " + what + " is out of range: '" + def.name + "' has " +
                                    std::to_string(def.params.size()) + " parameters");
        continue;
      }
    }
    if (found >= static_cast<int>(ufunc.core.inputs.size())) {
      diags_.error(expr->loc, "writable_args " + what + " is an output of layout '" + ufunc.layout +
                                  "'; outputs are always writable, writable_args names inputs");
      continue;
    }
    indices.push_back(found);
  }
  pending_writable_.clear();
  ufunc.options.writable_args = std::move(indices);
}

void DecoratorReader::read_option(const Keyword &kw, UfuncDecl &ufunc, bool &have_signatures,
                                  const Expr *&layout_expr) {
  bool gufunc = ufunc.kind == UfuncKind::GuVectorize;
  const char *decorator = gufunc ? "@guvectorize" : "@vectorize";
  const Expr &value = *kw.value;
  if (kw.name == "signatures") {
    if (have_signatures) {
      diags_.error(kw.loc, "signatures given twice (positionally and as signatures=)");
      return;
    }
    have_signatures = true;
    read_signatures(value, ufunc.signatures);
  } else if (kw.name == "layout" && gufunc) {
    if (layout_expr != nullptr) {
      diags_.error(kw.loc, "layout given twice (positionally and as layout=)");
      return;
    }
    layout_expr = &value;
  } else if (kw.name == "target") {
    read_target(value, ufunc.options);
  } else if (kw.name == "fastmath") {
    if (const BoolLit *b = bool_option(value, kw.name)) ufunc.options.fastmath = b->value;
  } else if (kw.name == "link") {
    read_link(value, ufunc.options);
  } else if (kw.name == "nopython" || kw.name == "forceobj") {
    read_object_mode(kw, decorator);
  } else if (gufunc && kw.name == "is_dynamic") {
    if (const BoolLit *b = bool_option(value, kw.name)) ufunc.options.is_dynamic = b->value;
  } else if (gufunc && kw.name == "writable_args") {
    read_writable_args(value);
  } else if (kw.name == "identity") {
    read_identity(value, ufunc.options);
  } else if (kw.name == "boundscheck") {
    read_boundscheck(value, *ufunc.def);
  } else if (kw.name == "cache") {
    // Numba options with no effect here; accepted so that kernels compile unchanged.
  } else {
    auto options = as_strings(gufunc ? kGuVectorizeOptions : kVectorizeOptions);
    std::string message = "unknown option '" + kw.name + "' for " + decorator;
    std::string hint = closest_match(kw.name, options);
    if (!hint.empty()) message += "; did you mean '" + hint + "'?";
    diags_.error(kw.loc, std::move(message));
  }
}

const BoolLit *DecoratorReader::bool_option(const Expr &value, const std::string &name) {
  const auto *b = value.as<BoolLit>();
  if (b == nullptr) {
    diags_.error(value.loc, name + " must be True or False");
  }
  return b;
}

void DecoratorReader::read_target(const Expr &value, UfuncOptions &options) {
  const auto *str = value.as<StrLit>();
  if (const auto *name = value.as<Name>(); name != nullptr && str == nullptr) {
    // `target = 'cuda'` at module level, then `target=target` (Numba's own tests do).
    auto it = program_.signature_lists.find(name->id);
    if (it != program_.signature_lists.end()) str = it->second->as<StrLit>();
  }
  if (str == nullptr) {
    diags_.error(value.loc, "target must be a string: 'cuda', 'cpu' or 'parallel'");
    return;
  }
  if (!one_of(str->value, {"cuda", "cpu", "parallel"})) {
    diags_.error(value.loc, "unknown target '" + str->value + "'; expected 'cuda', 'cpu' or 'parallel'");
    return;
  }
  options.target = str->value;
}

void DecoratorReader::read_link(const Expr &value, UfuncOptions &options) {
  for (const Expr *item : items_of(value)) {
    const auto *str = item->as<StrLit>();
    if (str == nullptr) {
      diags_.error(item->loc, "link must be a list of file names, e.g. link=['helpers.cu']");
      continue;
    }
    options.link.push_back(str->value);
    options.link_locs.push_back(str->loc);
  }
}

void DecoratorReader::read_object_mode(const Keyword &kw, const char *decorator) {
  const BoolLit *b = bool_option(*kw.value, kw.name);
  if (b == nullptr) return;
  if (b->value == (kw.name == "forceobj")) {
    diags_.error(kw.loc, std::string(kw.name == "forceobj" ? "forceobj=True" : "nopython=False") +
                             " asks for Numba's object mode, which ufjit does not have: a " + decorator +
                             " body is compiled in nopython mode only; remove the option");
  }
}

void DecoratorReader::read_writable_args(const Expr &value) {
  for (const Expr *item : items_of(value)) {
    if (const auto *i = item->as<IntLit>(); i != nullptr && !i->overflow && i->value < (1u << 30)) {
      pending_writable_.emplace_back(item, static_cast<int>(i->value));
    } else if (item->isa<StrLit>()) {
      pending_writable_.emplace_back(item, -1);
    } else {
      diags_.error(item->loc,
                   "writable_args must be a tuple of parameter indices or names, e.g. "
                   "writable_args=(0,) or writable_args=('a',)");
    }
  }
}

void DecoratorReader::read_boundscheck(const Expr &value, const FunctionDef &def) {
  if (value.isa<NoneLit>()) return;  // Numba's default: NUMBA_BOUNDSCHECK decides, else off
  const auto *b = value.as<BoolLit>();
  if (b == nullptr) {
    diags_.error(value.loc, "boundscheck must be True, False or None");
    return;
  }
  program_.boundscheck[&def] = b->value;
}

void DecoratorReader::read_identity(const Expr &value, UfuncOptions &options) {
  if (value.isa<NoneLit>()) {
    options.identity = UfuncIdentity::None;
    return;
  }
  if (const auto *str = value.as<StrLit>(); str != nullptr && str->value == "reorderable") {
    options.identity = UfuncIdentity::Reorderable;
    return;
  }
  std::optional<double> number;
  if (const auto *i = value.as<IntLit>(); i != nullptr && !i->overflow) {
    number = static_cast<double>(i->value);
  } else if (const auto *f = value.as<FloatLit>()) {
    number = f->value;
  } else if (const auto *b = value.as<BoolLit>()) {
    number = b->value ? 1.0 : 0.0;
  }
  if (number && (*number == 0.0 || *number == 1.0)) {
    options.identity = *number == 0.0 ? UfuncIdentity::Zero : UfuncIdentity::One;
    return;
  }
  diags_.error(value.loc, "invalid identity value " + to_source(value) + "; expected 0, 1, None or 'reorderable'");
}

void DecoratorReader::read_signatures(const Expr &e, std::vector<Signature> &out) {
  // A module-level name bound to signatures: `sigs = [...]` then `@vectorize(sigs)`.
  if (const auto *name = e.as<Name>()) {
    auto it = program_.signature_lists.find(name->id);
    if (it != program_.signature_lists.end()) {
      read_signatures(*it->second, out);
      return;
    }
  }
  auto read_one = [&](const Expr &item) {
    if (const auto *named = item.as<Name>()) {
      auto it = program_.signature_lists.find(named->id);
      if (it != program_.signature_lists.end() && it->second->isa<StrLit>()) {
        read_signatures(*it->second, out);
        return;
      }
    }
    if (const auto *str = item.as<StrLit>()) {
      if (auto sig = parse_signature(str->value, str->content_loc, diags_)) out.push_back(*sig);
      return;
    }
    if (item.isa<Call>() || item.isa<Tuple>()) {
      // Numba's typed forms: `float32(float32, float32)`, `void(float32[:], float32[:, ::1])`
      // and `(float64[:], float64[:])` with imported types.
      if (auto sig = parse_signature(to_source(item), item.loc, diags_)) out.push_back(*sig);
      return;
    }
    diags_.error(item.loc, std::string("expected ") + kSignatureExample + ", found '" +
                               to_source(item) + "'");
  };
  for (const Expr *item : items_of(e)) read_one(*item);
}

bool DecoratorReader::read_helper(const Decorator &d, Kind kind, std::vector<Signature> &signatures) {
  const auto *call = d.expr->as<Call>();
  if (kind == Kind::Device) {
    if (call != nullptr && (!call->args.empty() || !call->keywords.empty())) {
      diags_.error(d.expr->loc, "@device takes no arguments");
      return false;
    }
    return true;
  }
  bool cuda = kind == Kind::CudaJit;
  bool device = false;
  bool ok = true;
  if (call != nullptr) {
    for (std::size_t i = 0; i < call->args.size(); ++i) {
      if (i > 0) {
        diags_.error(call->args[i]->loc, "too many positional arguments to the decorator");
        ok = false;
        continue;
      }
      // Helpers are generic unless given signatures; with them, a call
      // converts its arguments (the typer picks the first that fits).
      int before = diags_.error_count();
      read_signatures(*call->args[i], signatures);
      ok = ok && diags_.error_count() == before;
      for (const Signature &sig : signatures) {
        bool arrays = sig.ret.ndim > 0;
        for (const SigType &a : sig.args) arrays = arrays || a.ndim > 0;
        if (arrays) {
          diags_.error(sig.loc, "a helper signature takes scalars only, not arrays (in '" + sig.str() + "')");
          ok = false;
        }
      }
    }
    for (const auto &kw : call->keywords) {
      if (asks_object_mode(kw, "'@" + to_source(*call->func) + "'", diags_)) {
        ok = false;
        continue;
      }
      if (cuda && kw.name == "device") {
        const auto *b = kw.value->as<BoolLit>();
        if (b == nullptr) {
          diags_.error(kw.value->loc, "device must be True or False");
          ok = false;
          continue;
        }
        device = b->value;
        continue;
      }
      if (!cuda && kw.name == "boundscheck" && helper_def_ != nullptr) {
        read_boundscheck(*kw.value, *helper_def_);
        continue;
      }
      auto options = cuda ? kCudaJitOptions : kJitOptions;
      if (one_of(kw.name, options)) continue;
      std::string message = "unknown option '" + kw.name + "' for '@" + to_source(*call->func) + "'";
      std::string hint = closest_match(kw.name, as_strings(options));
      if (!hint.empty()) message += "; did you mean '" + hint + "'?";
      diags_.error(kw.loc, std::move(message));
      ok = false;
    }
  }
  if (cuda && !device) {
    diags_.error(d.expr->loc, "'@cuda.jit' without device=True declares a kernel, which @vectorize cannot "
                              "vectorize; use @cuda.jit(device=True) for the function under @vectorize");
    return false;
  }
  return ok;
}

void DecoratorReader::read_kernel(const FunctionDef &def, const Decorator &d) {
  KernelDecl kernel;
  kernel.name = def.name;
  kernel.def = &def;
  const int errors_before = diags_.error_count();
  if (const auto *call = d.expr->as<Call>()) {
    for (std::size_t i = 0; i < call->args.size(); ++i) {
      if (i > 0) {
        diags_.error(call->args[i]->loc, "too many positional arguments to '@cuda.jit'");
        continue;
      }
      read_signatures(*call->args[i], kernel.signatures);
    }
    for (const auto &kw : call->keywords) {
      if (kw.name == "fastmath" || kw.name == "debug") {
        const BoolLit *b = bool_option(*kw.value, kw.name);
        if (b != nullptr) (kw.name == "fastmath" ? kernel.options.fastmath : kernel.options.debug) = b->value;
        continue;
      }
      if (kw.name == "boundscheck") {
        read_boundscheck(*kw.value, def);
        continue;
      }
      if (kw.name == "link") {
        diags_.error(kw.loc, "link= is not supported on a kernel yet: call CUDA C++ from a @vectorize ufunc");
        continue;
      }
      if (one_of(kw.name, kKernelOptions)) continue;  // device=False, and options that change no result
      std::string message = "unknown option '" + kw.name + "' for '@" + to_source(*call->func) + "'";
      std::string hint = closest_match(kw.name, as_strings(kKernelOptions));
      if (!hint.empty()) message += "; did you mean '" + hint + "'?";
      diags_.error(kw.loc, std::move(message));
    }
  }
  check_distinct_signatures(kernel.signatures, diags_);
  for (const Signature &sig : kernel.signatures) {
    if (sig.has_return_type && !sig.ret.is_void) {
      diags_.error(sig.ret.loc, "a kernel returns nothing: its signature is 'void(...)', in '" + sig.str() +
                                    "'; use @cuda.jit(device=True) for a function that returns a value");
    }
    if (sig.args.size() != def.params.size()) {
      diags_.error(sig.loc, "signature '" + sig.str() + "' has " + std::to_string(sig.args.size()) +
                                " argument types for the " + std::to_string(def.params.size()) +
                                " parameters of '" + def.name + "'");
    }
  }
  if (diags_.error_count() == errors_before) program_.kernels.push_back(std::move(kernel));
}

void DecoratorReader::check_signatures(const UfuncDecl &ufunc) {
  check_distinct_signatures(ufunc.signatures, diags_);
  if (ufunc.kind == UfuncKind::Vectorize) {
    for (const auto &sig : ufunc.signatures) {
      if (!sig.has_return_type) {
        diags_.error(sig.loc, "a @vectorize signature needs a return type, as in 'float32(float32, float32)' (in '" +
                                  sig.str() + "')");
        continue;
      }
      if (sig.ret.is_void) {
        diags_.error(sig.ret.loc, "a @vectorize signature must return a value, not 'void' (in '" +
                                      sig.str() + "')");
      }
      std::vector<const SigType *> types = {&sig.ret};
      for (const auto &arg : sig.args) types.push_back(&arg);
      for (const SigType *t : types) {
        if (t->ndim > 0) {
          diags_.error(t->loc, "array type '" + t->str() +
                                   "' is only allowed in @guvectorize signatures");
        }
      }
    }
    return;
  }
  for (const auto &sig : ufunc.signatures) {
    if (!sig.ret.is_void) {
      diags_.error(sig.ret.loc, "a @guvectorize signature must return 'void' (results are written "
                                "to output arguments), in '" + sig.str() + "'");
    }
    check_gufunc_signature_layout(sig, ufunc.core, diags_);
  }
}

}  // namespace ufjit::frontend
