// Decorators of LANGUAGE.md section 1: @vectorize, @guvectorize (section 8),
// @cuda.jit(device=True), @device, @njit, @jit, through any import alias.
#include "frontend/ProgramDecorators.h"

#include <array>
#include <cctype>

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
    "signatures", "target", "fastmath", "link", "cache", "nopython", "identity"};
const std::initializer_list<std::string_view> kGuVectorizeOptions = {
    "signatures", "layout", "target", "fastmath", "link", "cache", "nopython", "identity"};
const std::initializer_list<std::string_view> kCudaJitOptions = {
    "device", "inline", "forceinline", "fastmath", "cache", "debug", "opt", "lineinfo", "link"};
const std::initializer_list<std::string_view> kJitOptions = {
    "nopython", "nogil", "cache", "fastmath", "inline", "forceinline", "boundscheck",
    "error_model", "parallel", "debug"};
const std::initializer_list<std::string_view> kDecoratorNames = {
    "vectorize", "guvectorize", "cuda.jit", "device", "njit", "jit"};

const char *kSignatureExample = "a list of signature strings like ['float32(float32, float32)']";

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
  if (!ok) return;
  if (chosen == nullptr) {
    program_.helpers.push_back(&def);  // a bare def is a helper
    return;
  }
  if (chosen_kind == Kind::Vectorize || chosen_kind == Kind::GuVectorize) {
    read_ufunc(def, *chosen, chosen_kind);
    return;
  }
  if (read_helper(*chosen, chosen_kind)) program_.helpers.push_back(&def);
}

void DecoratorReader::read_ufunc(const FunctionDef &def, const Decorator &d, Kind kind) {
  UfuncDecl ufunc;
  ufunc.kind = kind == Kind::Vectorize ? UfuncKind::Vectorize : UfuncKind::GuVectorize;
  ufunc.name = def.name;
  ufunc.def = &def;
  const char *decorator = kind == Kind::Vectorize ? "@vectorize" : "@guvectorize";
  bool have_signatures = false;
  const Expr *layout_expr = nullptr;
  int errors_before = diags_.error_count();
  if (const auto *call = d.expr->as<Call>()) {
    for (std::size_t i = 0; i < call->args.size(); ++i) {
      const Expr &arg = *call->args[i];
      if (i == 0) {
        read_signatures(arg, ufunc.signatures);
        have_signatures = true;
      } else if (i == 1 && kind == Kind::GuVectorize) {
        layout_expr = &arg;
      } else {
        diags_.error(arg.loc, std::string("too many positional arguments to ") + decorator +
                                  "; options are keywords, e.g. target='cuda'");
      }
    }
    for (const auto &kw : call->keywords) read_option(kw, ufunc, have_signatures, layout_expr);
  }
  if (kind == Kind::GuVectorize) {
    if (!have_signatures || layout_expr == nullptr) {
      diags_.error(d.expr->loc,
                   "@guvectorize needs signatures and a layout, e.g. "
                   "@guvectorize([\"void(float32[:], float32[:])\"], \"(n)->(n)\")");
      return;
    }
    if (const auto *layout = layout_expr->as<StrLit>()) {
      ufunc.layout = layout->value;
    } else {
      diags_.error(layout_expr->loc, "the layout of @guvectorize must be a string like '(n),(n)->()'");
      return;
    }
  }
  if (diags_.error_count() != errors_before) return;
  check_signatures(ufunc, layout_expr);
  if (diags_.error_count() != errors_before) return;
  program_.ufuncs.push_back(std::move(ufunc));
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
    const auto *str = value.as<StrLit>();
    if (str == nullptr) {
      diags_.error(value.loc, "target must be a string: 'cuda', 'cpu' or 'parallel'");
      return;
    }
    if (!one_of(str->value, {"cuda", "cpu", "parallel"})) {
      diags_.error(value.loc,
                   "unknown target '" + str->value + "'; expected 'cuda', 'cpu' or 'parallel'");
      return;
    }
    ufunc.options.target = str->value;
  } else if (kw.name == "fastmath") {
    const auto *b = value.as<BoolLit>();
    if (b == nullptr) {
      diags_.error(value.loc, "fastmath must be True or False");
      return;
    }
    ufunc.options.fastmath = b->value;
  } else if (kw.name == "link") {
    std::vector<const Expr *> items;
    if (const auto *list = value.as<List>()) {
      for (const auto &e : list->elts) items.push_back(e.get());
    } else if (const auto *tuple = value.as<Tuple>()) {
      for (const auto &e : tuple->elts) items.push_back(e.get());
    } else {
      items.push_back(&value);
    }
    for (const Expr *item : items) {
      const auto *str = item->as<StrLit>();
      if (str == nullptr) {
        diags_.error(item->loc, "link must be a list of file names, e.g. link=['helpers.cu']");
        continue;
      }
      ufunc.options.link.push_back(str->value);
      ufunc.options.link_locs.push_back(str->loc);
    }
  } else if (one_of(kw.name, {"cache", "nopython", "identity"})) {
    // Numba options with no effect here; accepted so that kernels compile unchanged.
  } else {
    auto options = as_strings(gufunc ? kGuVectorizeOptions : kVectorizeOptions);
    std::string message = "unknown option '" + kw.name + "' for " + decorator;
    std::string hint = closest_match(kw.name, options);
    if (!hint.empty()) message += "; did you mean '" + hint + "'?";
    diags_.error(kw.loc, std::move(message));
  }
}

void DecoratorReader::read_signatures(const Expr &e, std::vector<Signature> &out) {
  auto read_one = [&](const Expr &item) {
    if (const auto *str = item.as<StrLit>()) {
      if (auto sig = parse_signature(str->value, str->content_loc, diags_)) out.push_back(*sig);
      return;
    }
    if (item.isa<Call>()) {
      // Numba's typed form: `float32(float32, float32)` with imported types.
      if (auto sig = parse_signature(to_source(item), item.loc, diags_)) out.push_back(*sig);
      return;
    }
    diags_.error(item.loc, std::string("expected ") + kSignatureExample + ", found '" +
                               to_source(item) + "'");
  };
  if (const auto *list = e.as<List>()) {
    for (const auto &item : list->elts) read_one(*item);
  } else if (const auto *tuple = e.as<Tuple>()) {
    for (const auto &item : tuple->elts) read_one(*item);
  } else {
    read_one(e);
  }
}

bool DecoratorReader::read_helper(const Decorator &d, Kind kind) {
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
      std::vector<Signature> ignored;  // helpers are generic; checked, then unused
      int before = diags_.error_count();
      read_signatures(*call->args[i], ignored);
      ok = ok && diags_.error_count() == before;
    }
    for (const auto &kw : call->keywords) {
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
    diags_.error(d.expr->loc,
                 "'@cuda.jit' without device=True declares a CUDA kernel, which ufjit does not "
                 "compile; use @vectorize(..., target='cuda') for a ufunc or "
                 "@cuda.jit(device=True) for a helper");
    return false;
  }
  return ok;
}

void DecoratorReader::check_signatures(const UfuncDecl &ufunc, const Expr *layout_expr) {
  check_distinct_signatures(ufunc.signatures, diags_);
  if (ufunc.kind == UfuncKind::Vectorize) {
    for (const auto &sig : ufunc.signatures) {
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
  const auto *layout = layout_expr != nullptr ? layout_expr->as<StrLit>() : nullptr;
  std::optional<std::size_t> parsed = layout != nullptr ? parse_layout(*layout) : std::nullopt;
  bool have_layout = parsed.has_value();
  std::size_t operands = parsed.value_or(0);
  for (const auto &sig : ufunc.signatures) {
    if (!sig.ret.is_void) {
      diags_.error(sig.ret.loc, "a @guvectorize signature must return 'void' (results are written "
                                "to output arguments), in '" + sig.str() + "'");
    }
    if (have_layout && sig.args.size() != operands) {
      diags_.error(sig.loc, "signature '" + sig.str() + "' has " + std::to_string(sig.args.size()) +
                                " arguments but layout '" + layout->value + "' has " +
                                std::to_string(operands) + " operands");
    }
  }
}

std::optional<std::size_t> DecoratorReader::parse_layout(const StrLit &layout) {
  const std::string &text = layout.value;
  std::size_t pos = 0;
  auto skip = [&] {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  };
  auto fail = [&](std::string_view expected) {
    SourceLocation loc = layout.content_loc;
    loc.col += static_cast<int>(pos);
    loc.length = 1;
    std::string found = pos < text.size() ? std::string("'") + text[pos] + "'" : "end of layout";
    diags_.error(loc, "expected " + std::string(expected) + " in layout '" + text + "', found " +
                          found);
    return std::nullopt;
  };
  std::size_t operands = 0;
  bool seen_arrow = false;
  while (true) {
    skip();
    if (pos >= text.size() || text[pos] != '(') return fail("'('");
    ++pos;
    skip();
    if (pos < text.size() && text[pos] != ')') {
      while (true) {
        skip();
        std::size_t begin = pos;
        while (pos < text.size() && (std::isalnum(static_cast<unsigned char>(text[pos])) ||
                                     text[pos] == '_')) {
          ++pos;
        }
        if (pos == begin) return fail("a dimension name");
        skip();
        if (pos < text.size() && text[pos] == ',') {
          ++pos;
          continue;
        }
        break;
      }
    }
    if (pos >= text.size() || text[pos] != ')') return fail("')' to close the dimension list");
    ++pos;
    ++operands;
    skip();
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (!seen_arrow && text.compare(pos, 2, "->") == 0) {
      pos += 2;
      seen_arrow = true;
      continue;
    }
    break;
  }
  skip();
  if (!seen_arrow) return fail("'->'");
  if (pos < text.size()) return fail("end of layout");
  return operands;
}

}  // namespace ufjit::frontend
