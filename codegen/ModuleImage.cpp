// A kernel module's device image: ufjit's PTX plus the user's link files
// (codegen/DeviceImage.h), and link errors mapped back to declare_device.
#include <atomic>
#include <filesystem>
#include <set>

#include "codegen/DeviceImage.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {
namespace {

std::atomic<CudaSourceCompiler> g_cuda_compiler{nullptr};

LinkInput::Kind kind_of(const ir::LinkFile &file) {
  const std::string ext = std::filesystem::path(file.spelled).extension().string();
  if (ext == ".ptx") return LinkInput::Kind::Ptx;
  if (ext == ".cubin") return LinkInput::Kind::Cubin;
  if (ext == ".ltoir") return LinkInput::Kind::LtoIr;
  return LinkInput::Kind::Fatbin;
}

}  // namespace

void set_cuda_source_compiler(CudaSourceCompiler compiler) { g_cuda_compiler.store(compiler); }

bool needs_link_files(const std::vector<const ir::Module *> &modules) {
  for (const ir::Module *m : modules) {
    if (!m->link_files.empty()) return true;
  }
  return false;
}

DeviceImage module_device_image(const std::string &ptx, const std::vector<const ir::Module *> &modules,
                                const std::string &arch) {
  DeviceImage image;
  image.ptx = ptx;
  std::set<std::string> seen;
  for (const ir::Module *m : modules) {
    for (const ir::LinkFile &file : m->link_files) {
      if (!seen.insert(file.path).second) continue;
      if (std::filesystem::path(file.spelled).extension() != ".cu") {
        LinkInput input;
        input.kind = kind_of(file);
        input.name = file.spelled;
        input.bytes = file.bytes;
        if (input.kind == LinkInput::Kind::Ptx) {
          while (!input.bytes.empty() && input.bytes.back() == '\0') input.bytes.pop_back();
        }
        image.inputs.push_back(std::move(input));
        continue;
      }
      CudaSourceCompiler compiler = g_cuda_compiler.load();
      if (compiler == nullptr) {
        throw Error("link file '" + file.spelled + "' is CUDA C++, and this program was built without ufjit's "
                    "CUDA C++ interop (interop/cudacpp), which compiles it with NVRTC");
      }
      image.inputs.push_back(compiler(file, m->externs, arch));
    }
  }
  return image;
}

std::string link_module_image(const DeviceImage &image, const std::vector<const ir::Module *> &modules,
                              const std::string &arch) {
  try {
    return link_device_image(image, arch);
  } catch (const CompileError &) {
    throw;
  } catch (const Error &e) {
    // nvJitLink: "error   : Undefined reference to 'cube_plus' in 'ufjit.ptx'".
    const std::string log = e.what();
    for (const ir::Module *m : modules) {
      for (const ir::ExternFunction &ext : m->externs) {
        if (log.find("Undefined reference to '" + ext.name + "'") == std::string::npos &&
            log.find("undefined reference to '" + ext.name + "'") == std::string::npos) {
          continue;
        }
        std::string files;
        for (const ir::LinkFile &f : m->link_files) files += (files.empty() ? "" : ", ") + f.spelled;
        DiagnosticMessage d;
        d.file = ext.decl_file;
        d.line = ext.decl_line;
        d.column = ext.decl_col;
        d.severity = "error";
        d.message = "CUDA C++ function '" + ext.name + "' (declare_device) is not defined by " + files;
        d.rendered = d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": error: " +
                     d.message + "\n";
        throw CompileError(d.rendered + log, {d});
      }
    }
    throw;
  }
}

}  // namespace ufjit::codegen
