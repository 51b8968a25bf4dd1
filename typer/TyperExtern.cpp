// Calls of CUDA C++ functions declared with declare_device, and the link
// files that define them (LANGUAGE.md section 1).
//
// requires: a collected Program; guarantees: a call's arguments converted to
// the declared parameter types, the module's externs listed, its link files
// read (their bytes are printed as a hash into the IR, so into cache keys).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

std::optional<ExternFunction> extern_named(const frontend::Program &program, const std::string &c_name) {
  for (const frontend::DeviceDecl &d : program.device_decls) {
    if (d.c_name != c_name) continue;
    ExternFunction ext;
    ext.name = d.c_name;
    for (const frontend::SigType &t : d.signature.args) ext.params.push_back(Type::scalar(t.dtype));
    ext.ret = Type::scalar(d.signature.ret.dtype);
    ext.abi = d.c_abi ? ExternFunction::Abi::C : ExternFunction::Abi::Numba;
    if (d.loc.file != nullptr) ext.decl_file = d.loc.file->name();
    ext.decl_line = d.loc.line;
    ext.decl_col = d.loc.col;
    return ext;
  }
  return std::nullopt;
}

Value BodyTyper::call_extern(const frontend::DeviceDecl &decl, std::vector<Value> args, const ast::Call &call) {
  const SourceLocation &loc = call.func->loc;
  const frontend::Signature &sig = decl.signature;
  for (const frontend::SigType &t : sig.args) {
    if (t.ndim != 0 || t.is_void) {
      error(loc, "'" + decl.name + "' is declared with array or void parameters; CUDA C++ functions take scalars");
      return Value::error();
    }
  }
  if (sig.ret.is_void || sig.ret.ndim != 0) {
    error(loc, "'" + decl.name + "' must return a scalar (declared " + sig.str() + ")");
    return Value::error();
  }
  if (args.size() != sig.args.size()) {
    error(loc, "'" + decl.name + "' (CUDA C++ '" + decl.c_name + "', " + sig.str() + ") takes " +
                   std::to_string(sig.args.size()) + " argument" + (sig.args.size() == 1 ? "" : "s") + " but " +
                   std::to_string(args.size()) + (args.size() == 1 ? " was" : " were") + " given");
    return Value::error();
  }
  std::vector<Expr> exprs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    Value a = convert_to(args[i], Type::scalar(sig.args[i].dtype), call.args[i]->loc,
                         "argument " + std::to_string(i + 1) + " of '" + decl.name + "'");
    if (!a.ok) return Value::error();
    exprs.push_back(a.expr);
  }
  Value v;
  v.ok = true;
  v.type = Type::scalar(sig.ret.dtype);
  v.expr = Call::make(v.type, decl.c_name, std::move(exprs));
  return v;
}

std::vector<LinkFile> read_link_files(const frontend::UfuncOptions &options, const LinkOptions &extra,
                                      const SourceFile &source, DiagnosticEngine &diags) {
  namespace fs = std::filesystem;
  static const char *const kKinds[] = {".cu", ".ptx", ".cubin", ".ltoir", ".fatbin"};
  // A source read from a file finds its helpers beside it; a string, in the
  // current folder; the caller's base folder wins over both.
  const bool from_file = !source.name().empty() && source.name().front() != '<';
  const fs::path base = !extra.base_dir.empty() ? fs::path(extra.base_dir)
                        : from_file             ? fs::path(source.name()).parent_path()
                                                : fs::path();
  struct Wanted {
    std::string spelled;
    SourceLocation loc;
    bool option = false;  // from `extra`: no place in the text, so at the source's name
  };
  std::vector<Wanted> wanted;
  for (std::size_t i = 0; i < options.link.size(); ++i) {
    wanted.push_back({options.link[i], i < options.link_locs.size() ? options.link_locs[i] : SourceLocation{}});
  }
  for (const std::string &spelled : extra.files) {
    wanted.push_back({spelled, SourceLocation{&source, 0, 0, 1}, true});
  }
  std::vector<LinkFile> files;
  std::vector<fs::path> seen;
  for (const auto &[spelled, loc, option] : wanted) {
    const std::string ext = fs::path(spelled).extension().string();
    const std::string what = "link file '" + spelled + "'" + (option ? " (given with the link option)" : "");
    bool known = false;
    for (const char *k : kKinds) known = known || ext == k;
    if (!known) {
      diags.error(loc, what + " is not .cu, .ptx, .cubin, .ltoir or .fatbin");
      continue;
    }
    fs::path path = fs::path(spelled).is_absolute() || base.empty() ? fs::path(spelled) : base / spelled;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      diags.error(loc, what + " not found (looked for " + path.string() + ")");
      continue;
    }
    // A file named twice (in link=[...] and the option) is linked once:
    // twice would define its functions twice.
    const fs::path canonical = fs::weakly_canonical(path, ec);
    if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) continue;
    seen.push_back(canonical);
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!in.good() && !in.eof()) {
      diags.error(loc, what + " cannot be read (" + path.string() + ")");
      continue;
    }
    files.push_back(LinkFile{spelled, path.string(), bytes.str(), ext == ".cu" ? extra.nvrtc_options
                                                                             : std::vector<std::string>{}});
  }
  return files;
}

}  // namespace ufjit::ir::typer
