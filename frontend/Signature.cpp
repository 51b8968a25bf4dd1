// Signature strings (LANGUAGE.md sections 1, 2 and 8): `ret(arg, ...)` with
// dtype aliases, module prefixes and array types. Errors point into the
// string: column = the string's first column + the offset.
#include "frontend/Signature.h"

#include <array>
#include <map>
#include <memory>

#include "frontend/DTypeAliases.h"
#include "frontend/SignatureText.h"
#include "support/AsciiIdentifier.h"

namespace ufjit::frontend {

std::string SigType::str() const {
  if (is_void) return "void";
  std::string out = record ? record->str() : std::string(dtype_name(dtype));
  const int dims = record ? ndim - 1 : ndim;  // a record's bytes are not a dimension of its type
  if (dims > 0) {
    out += "[";
    for (int i = 0; i < dims; ++i) out += i == 0 ? ":" : ", :";
    out += "]";
  }
  return out;
}

std::string Signature::str() const {
  std::string out = ret.str() + "(";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += ", ";
    out += args[i].str();
  }
  return out + ")";
}

namespace {

/// Module prefixes a dtype may carry: `np.float32`, `numba.types.float32`.
constexpr std::array<std::string_view, 6> kPrefixes = {
    "numba.types.", "numpy.", "numba.", "types.", "np.", "nb.",
};

class SignatureParser : TextCursor {
 public:
  using TextCursor::TextCursor;

  std::optional<Signature> parse();

 private:
  std::string found() const {
    if (pos_ >= text_.size()) return "end of signature";
    return std::string("'") + text_[pos_] + "'";
  }
  /// "expected X to close Y in signature 'S', found Z" at the current offset.
  void error_expected(std::string_view expected, std::string_view context = {}) {
    std::string message = "expected " + std::string(expected);
    if (!context.empty()) message += " " + std::string(context);
    message += " in signature '" + std::string(text_) + "', found " + found();
    diags_.error(loc_at(pos_), std::move(message));
  }
  std::optional<SigType> parse_type();
  /// `record(...)` and its array dimensions, from `begin`.
  std::optional<SigType> parse_record(std::size_t begin);
  bool parse_array_dims(SigType &type);
  /// Argument types up to ')' (`closed`) or to the end of the text.
  bool parse_args(Signature &sig, bool closed);
};

std::optional<SigType> SignatureParser::parse_type() {
  skip_spaces();
  std::size_t begin = pos_;
  if (text_.substr(pos_, 7) == "record(") return parse_record(begin);
  while (pos_ < text_.size() && (support::is_c_identifier_char(text_[pos_], false) || text_[pos_] == '.'))
    ++pos_;
  std::string_view spelled = text_.substr(begin, pos_ - begin);
  if (spelled.empty() || !support::is_c_identifier_char(spelled[0], true)) {
    pos_ = begin;
    error_expected("a type");
    return std::nullopt;
  }
  SigType type;
  type.loc = loc_at(begin, spelled.size());
  std::string_view prefix;
  std::string_view name = spelled;
  for (std::string_view p : kPrefixes) {
    if (name.substr(0, p.size()) == p) {
      prefix = p;
      name.remove_prefix(p.size());
      break;
    }
  }
  if (name == "void" || name == "none") {
    type.is_void = true;
  } else if (auto dtype = dtype_from_name(name)) {
    type.dtype = *dtype;
  } else {
    std::string message = "unknown type '" + std::string(spelled) + "'";
    std::string hint = closest_match(name, dtype_spellings());
    if (!hint.empty()) message += "; did you mean '" + std::string(prefix) + hint + "'?";
    diags_.error(type.loc, std::move(message));
    return std::nullopt;
  }
  skip_spaces();
  if (at('[')) {
    if (type.is_void) {
      diags_.error(loc_at(pos_), "'void' cannot be an array type in signature '" +
                                     std::string(text_) + "'");
      return std::nullopt;
    }
    if (!parse_array_dims(type)) return std::nullopt;
    type.loc = loc_at(begin, pos_ - begin);
  }
  return type;
}

std::optional<SigType> SignatureParser::parse_record(std::size_t begin) {
  SigType type;
  std::optional<RecordRef> record = parse_record_type(text_, pos_, start_, diags_);
  if (!record) return std::nullopt;
  type.record = std::move(*record);
  type.dtype = DType::UInt8;
  skip_spaces();
  if (at('[') && !parse_array_dims(type)) return std::nullopt;
  if (++type.ndim > kMaxArrayDims) {  // the record's bytes
    diags_.error(loc_at(begin, pos_ - begin), "an array of records has at most " + std::to_string(kMaxArrayDims - 1) +
                                                  " dimensions, in signature '" + std::string(text_) + "'");
    return std::nullopt;
  }
  type.loc = loc_at(begin, pos_ - begin);
  return type;
}

bool SignatureParser::parse_array_dims(SigType &type) {
  const std::size_t open = pos_;
  ++pos_;  // [
  while (true) {
    skip_spaces();
    if (!at(':')) {
      error_expected("':'", "for an array dimension");
      return false;
    }
    ++pos_;
    // `::1` marks the contiguous dimension (Numba's C/F layout); accepted.
    if (at(':')) {
      ++pos_;
      if (!at('1')) {
        error_expected("'1'", "after '::'");
        return false;
      }
      ++pos_;
    }
    if (++type.ndim > kMaxArrayDims) {
      diags_.error(loc_at(open), "an array type has at most " + std::to_string(kMaxArrayDims) +
                                     " dimensions, in signature '" + std::string(text_) + "'");
      return false;
    }
    skip_spaces();
    if (at(',')) {
      ++pos_;
      continue;
    }
    if (at(']')) {
      ++pos_;
      return true;
    }
    error_expected("']'", "to close array dimensions");
    return false;
  }
}

bool SignatureParser::parse_args(Signature &sig, bool closed) {
  skip_spaces();
  if (closed && at(')')) {
    ++pos_;
    return true;
  }
  while (true) {
    auto arg = parse_type();
    if (!arg) return false;
    if (arg->is_void) {
      diags_.error(arg->loc, "'void' is only valid as a return type, in signature '" + std::string(text_) + "'");
      return false;
    }
    sig.args.push_back(*arg);
    skip_spaces();
    if (at(',')) {
      ++pos_;
      continue;
    }
    if (closed && at(')')) {
      ++pos_;
      return true;
    }
    if (!closed && pos_ >= text_.size()) return true;
    error_expected(closed ? "')'" : "','", closed ? "to close argument list" : "between argument types");
    return false;
  }
}

std::optional<Signature> SignatureParser::parse() {
  Signature sig;
  sig.loc = loc_at(0, text_.size());
  skip_spaces();
  if (at('(')) {
    // `(f8[:], f8[:])`: argument types only; the return type is void.
    sig.ret.is_void = true;
    sig.ret.loc = loc_at(pos_);
    sig.has_return_type = false;
    ++pos_;
    if (!parse_args(sig, true)) return std::nullopt;
  } else {
    auto ret = parse_type();
    if (!ret) return std::nullopt;
    skip_spaces();
    if (at('(')) {
      sig.ret = *ret;
      ++pos_;
      if (!parse_args(sig, true)) return std::nullopt;
    } else if (!ret->is_void && (at(',') || (pos_ >= text_.size() && ret->ndim > 0))) {
      // `float32[:, :], float32[:, :]`: what Numba reads from
      // `("float32[:,:], float32[:,:]")`, a tuple of argument types.
      sig.ret.is_void = true;
      sig.ret.loc = ret->loc;
      sig.has_return_type = false;
      sig.args.push_back(*ret);
      if (at(',')) {
        ++pos_;
        if (!parse_args(sig, false)) return std::nullopt;
      }
    } else {
      error_expected("'('", "after the return type");
      return std::nullopt;
    }
  }
  skip_spaces();
  if (pos_ < text_.size()) {
    diags_.error(loc_at(pos_, text_.size() - pos_),
                 "unexpected " + found() + " after the end of signature '" + std::string(text_) + "'");
    return std::nullopt;
  }
  return sig;
}

}  // namespace

std::optional<Signature> parse_signature(std::string_view text, SourceLocation start,
                                         DiagnosticEngine &diags) {
  std::size_t pos = 0;
  SignatureParser parser(text, pos, start, diags);
  return parser.parse();
}

bool check_distinct_signatures(const std::vector<Signature> &signatures, DiagnosticEngine &diags) {
  // By the text of the argument types: one lookup per signature.
  std::map<std::string, std::size_t> first_with_args;
  bool ok = true;
  for (std::size_t i = 0; i < signatures.size(); ++i) {
    const Signature &sig = signatures[i];
    std::string args;
    for (const SigType &a : sig.args) args += a.str() + ",";
    auto [it, inserted] = first_with_args.emplace(args, i);
    if (inserted) continue;
    const Signature &earlier = signatures[it->second];
    if (earlier.ret == sig.ret) {
      diags.error(sig.loc, "duplicate signature '" + sig.str() + "'");
    } else {
      diags.error(sig.loc, "signature '" + sig.str() + "' has the same argument types as '" + earlier.str() +
                               "'; a call could not choose between them");
    }
    diags.note(earlier.loc, "the earlier signature is here");
    ok = false;
  }
  return ok;
}

std::string canonical_signature(const std::string &text) {
  auto file = std::make_shared<const SourceFile>("<signature>", text);
  DiagnosticEngine diags;
  diags.retain(file);
  SourceLocation start{file.get(), 1, 1, 1};
  std::optional<Signature> parsed = parse_signature(text, start, diags);
  diags.throw_if_errors();
  return parsed ? parsed->str() : text;
}

}  // namespace ufjit::frontend

namespace ufjit::frontend {

std::string GufuncLayout::str() const {
  auto list = [](const std::vector<Operand> &ops) {
    std::string out;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (i > 0) out += ",";
      out += "(";
      for (std::size_t d = 0; d < ops[i].dims.size(); ++d) out += (d > 0 ? "," : "") + ops[i].dims[d];
      out += ")";
    }
    return out;
  };
  return list(inputs) + "->" + list(outputs);
}

std::optional<GufuncLayout> parse_gufunc_layout(std::string_view text, SourceLocation start,
                                                DiagnosticEngine &diags) {
  std::size_t pos = 0;
  auto loc_at = [&](std::size_t offset, std::size_t length) {
    SourceLocation loc = start;
    loc.col = start.col + static_cast<int>(offset);
    loc.length = static_cast<int>(std::max<std::size_t>(length, 1));
    return loc;
  };
  auto skip = [&] {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  };
  auto fail = [&](std::string_view expected) -> std::optional<GufuncLayout> {
    std::string found = pos < text.size() ? std::string("'") + text[pos] + "'" : "end of layout";
    diags.error(loc_at(pos, 1), "expected " + std::string(expected) + " in layout '" + std::string(text) +
                                    "', found " + found);
    return std::nullopt;
  };
  GufuncLayout layout;
  bool seen_arrow = false;
  while (true) {
    skip();
    if (pos >= text.size() || text[pos] != '(') return fail("'('");
    std::size_t open = pos;
    ++pos;
    GufuncLayout::Operand operand;
    skip();
    if (pos < text.size() && text[pos] != ')') {
      while (true) {
        skip();
        std::size_t begin = pos;
        while (pos < text.size() && support::is_c_identifier_char(text[pos], false)) ++pos;
        if (pos == begin) return fail("a dimension name");
        operand.dims.emplace_back(text.substr(begin, pos - begin));
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
    operand.loc = loc_at(open, pos - open);
    if (operand.dims.size() > static_cast<std::size_t>(kMaxArrayDims)) {
      diags.error(operand.loc, "an operand of a layout has at most " + std::to_string(kMaxArrayDims) +
                                   " core dimensions, in layout '" + std::string(text) + "'");
      return std::nullopt;
    }
    (seen_arrow ? layout.outputs : layout.inputs).push_back(std::move(operand));
    skip();
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (!seen_arrow && text.substr(pos, 2) == "->") {
      pos += 2;
      seen_arrow = true;
      continue;
    }
    break;
  }
  skip();
  if (!seen_arrow) return fail("'->'");
  if (pos < text.size()) return fail("end of layout");
  return layout;
}

bool check_gufunc_signature_layout(const Signature &sig, const GufuncLayout &layout, DiagnosticEngine &diags) {
  std::string quoted = "signature '" + sig.str() + "'";
  std::string layout_text = "layout '" + layout.str() + "'";
  if (sig.args.size() != layout.operand_count()) {
    diags.error(sig.loc, quoted + " has " + std::to_string(sig.args.size()) + " argument" +
                             (sig.args.size() == 1 ? "" : "s") + " but " + layout_text + " has " +
                             std::to_string(layout.operand_count()) + " operands (" +
                             std::to_string(layout.inputs.size()) + " in, " +
                             std::to_string(layout.outputs.size()) + " out)");
    return false;
  }
  bool ok = true;
  for (std::size_t i = 0; i < sig.args.size(); ++i) {
    const SigType &arg = sig.args[i];
    const GufuncLayout::Operand &operand = layout.operand(i);
    bool output = i >= layout.inputs.size();
    int core = static_cast<int>(operand.dims.size());
    std::string which = std::string(output ? "output " : "input ") +
                        std::to_string(output ? i - layout.inputs.size() + 1 : i + 1);
    std::string core_text = "(";
    for (std::size_t d = 0; d < operand.dims.size(); ++d) core_text += (d > 0 ? "," : "") + operand.dims[d];
    core_text += ")";
    if (core == 0) {
      if (arg.ndim == 0 && output) {
        diags.error(arg.loc, "output '" + arg.str() + "' of " + quoted + " must be an array, '" +
                                 std::string(dtype_name(arg.dtype)) + "[:]', written as 'out[0] = v' for the " +
                                 "0-d core '()' of " + layout_text);
        ok = false;
      } else if (arg.ndim > 1) {
        diags.error(arg.loc, "argument type '" + arg.str() + "' has " + std::to_string(arg.ndim) +
                                 " dimensions but " + which + " of " + layout_text + " is '()' (a scalar, or a " +
                                 "1-d array of one element)");
        ok = false;
      }
      continue;
    }
    if (arg.ndim != core) {
      std::string has = arg.ndim == 0 ? "is a scalar" : "has " + std::to_string(arg.ndim) + " dimension" +
                                                             (arg.ndim == 1 ? "" : "s");
      diags.error(arg.loc, "argument type '" + arg.str() + "' " + has + " but " + which + " of " + layout_text +
                               " is '" + core_text + "' (" + std::to_string(core) + " dimension" +
                               (core == 1 ? "" : "s") + ")");
      ok = false;
    }
  }
  return ok;
}

}  // namespace ufjit::frontend
