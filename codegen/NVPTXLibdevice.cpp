// libdevice: read once per process (immutable bytes), parsed into each
// compile's LLVMContext and linked with LinkOnlyNeeded (codegen/NVPTXTarget.h).
//
// An llvm::Module belongs to its LLVMContext, and every compile owns its
// context, so modules cannot be shared between compiles; the file's bytes
// can. Lazy loading materializes only the functions a kernel calls.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "codegen/NVPTXTarget.h"
#include "frontend/InternalAssert.h"
#include "ufjit/errors.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#ifndef UFJIT_LIBDEVICE_PATH
#define UFJIT_LIBDEVICE_PATH ""
#endif

namespace ufjit::codegen {

namespace {

struct LibdeviceFile {
  std::string path;
  std::string bytes;
  std::string error;  // non-empty: the file could not be read
};

LibdeviceFile read_libdevice() {
  LibdeviceFile file;
  const char *env = std::getenv("UFJIT_LIBDEVICE");
  file.path = env != nullptr && *env != '\0' ? env : UFJIT_LIBDEVICE_PATH;
  std::ifstream in(file.path, std::ios::binary);
  if (!in) {
    file.error = "cannot read libdevice at '" + file.path +
                 "' (set UFJIT_LIBDEVICE to the CUDA toolkit's nvvm/libdevice/libdevice.10.bc)";
    return file;
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  file.bytes = contents.str();
  if (file.bytes.size() < 4 || file.bytes.compare(0, 2, "BC") != 0) {
    file.error = "'" + file.path + "' is not an LLVM bitcode file (libdevice expected)";
    file.bytes.clear();
  }
  return file;
}

const LibdeviceFile &libdevice_file() {
  // Initialised once, thread-safely, then only read.
  static const LibdeviceFile file = read_libdevice();
  return file;
}

bool calls_libdevice(const llvm::Module &module) {
  for (const llvm::Function &fn : module) {
    if (fn.isDeclaration() && fn.getName().starts_with("__nv_")) {
      return true;
    }
  }
  return false;
}

std::string error_text(llvm::Error error) {
  std::string text;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &info) { text += info.message(); });
  return text;
}

}  // namespace

const std::string &libdevice_bytes() {
  const LibdeviceFile &file = libdevice_file();
  if (!file.error.empty()) {
    throw Error(file.error);
  }
  return file.bytes;
}

void link_libdevice(llvm::Module &module, LibdeviceLoad load) {
  if (!calls_libdevice(module)) {
    return;
  }
  const std::string &bytes = libdevice_bytes();
  llvm::MemoryBufferRef buffer(bytes, "libdevice.10.bc");
  llvm::Expected<std::unique_ptr<llvm::Module>> parsed =
      load == LibdeviceLoad::Lazy ? llvm::getLazyBitcodeModule(buffer, module.getContext())
                                  : llvm::parseBitcodeFile(buffer, module.getContext());
  if (!parsed) {
    throw Error("cannot parse libdevice (" + libdevice_file().path + "): " + error_text(parsed.takeError()));
  }
  std::unique_ptr<llvm::Module> library = std::move(*parsed);
  // libdevice carries its own triple ("nvptx64-nvidia-gpulibs") and layout;
  // adopt ours so the linker does not warn.
  library->setTargetTriple(module.getTargetTriple());
  library->setDataLayout(module.getDataLayout());
  bool failed = llvm::Linker::linkModules(module, std::move(library), llvm::Linker::LinkOnlyNeeded);
  internal_assert(!failed) << "linking libdevice failed";
}

}  // namespace ufjit::codegen
