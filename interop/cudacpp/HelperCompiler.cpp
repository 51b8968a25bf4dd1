// Link files through NVRTC, with the declare_device declarations checked.
#include "interop/cudacpp/HelperCompiler.h"

#include <algorithm>
#include <filesystem>

#include "codegen/CAbi.h"
#include "interop/cudacpp/Nvrtc.h"
#include "ufjit/errors.h"

namespace ufjit::cudacpp {
namespace {

int line_count(const std::string &text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n')) + (text.empty() || text.back() == '\n' ? 0 : 1);
}

std::string signature_text(const ir::ExternFunction &ext) {
  std::string text = ext.ret.str() + "(";
  for (std::size_t i = 0; i < ext.params.size(); ++i) text += (i ? ", " : "") + ext.params[i].str();
  return text + ")";
}

}  // namespace

std::string extern_declaration(const ir::ExternFunction &ext) {
  const bool numba = ext.abi == ir::ExternFunction::Abi::Numba;
  std::string params = numba ? codegen::c_builtin_type(ext.ret.dtype()) + " *" : "";
  for (const ir::Type &t : ext.params) {
    params += (params.empty() ? "" : ", ") + codegen::c_builtin_type(t.dtype());
  }
  return std::string("extern \"C\" __device__ ") + (numba ? "int" : codegen::c_builtin_type(ext.ret.dtype())) + " " +
         ext.name + "(" + params + ");";
}

codegen::LinkInput compile_link_file(const ir::LinkFile &file, const std::vector<ir::ExternFunction> &externs,
                                     const std::string &arch) {
  NvrtcSource source;
  source.name = file.spelled;
  source.include_dirs = {std::filesystem::path(file.path).parent_path().string()};
  source.options = file.nvrtc_options;
  const int user_lines = line_count(file.bytes);
  source.text = file.bytes;
  if (!source.text.empty() && source.text.back() != '\n') source.text += "\n";
  const int first_decl_line = user_lines + 1;
  for (const ir::ExternFunction &ext : externs) {
    source.text += extern_declaration(ext) + "\n";
  }
  codegen::LinkInput input;
  input.kind = codegen::LinkInput::Kind::LtoIr;
  input.name = file.spelled;
  try {
    input.bytes = nvrtc_compile(source, arch, NvrtcOutput::LtoIr);
  } catch (const CompileError &e) {
    std::vector<DiagnosticMessage> kept;
    std::string text;
    for (const DiagnosticMessage &d : e.diagnostics()) {
      if (d.file != file.spelled || d.line <= user_lines || externs.empty()) {
        kept.push_back(d);
        text += d.rendered;
        continue;
      }
      // An error in a declaration we appended: the definition contradicts it.
      const int index = std::clamp(d.line - first_decl_line, 0, static_cast<int>(externs.size()) - 1);
      const ir::ExternFunction &ext = externs[static_cast<std::size_t>(index)];
      DiagnosticMessage at_decl;
      at_decl.file = ext.decl_file;
      at_decl.line = ext.decl_line;
      at_decl.column = ext.decl_col;
      at_decl.severity = "error";
      at_decl.message = "'" + ext.name + "' is declared " + signature_text(ext) + ", called as `" +
                        extern_declaration(ext) + "`, but " + file.spelled + " defines it differently (NVRTC: " +
                        d.message + ")";
      at_decl.rendered = at_decl.file + ":" + std::to_string(at_decl.line) + ":" + std::to_string(at_decl.column) +
                         ": error: " + at_decl.message + "\n";
      kept.push_back(at_decl);
      text += at_decl.rendered;
    }
    throw CompileError(text, kept);
  }
  return input;
}

}  // namespace ufjit::cudacpp
